"""The ResNet50 AMP smoke training and the node certificate.

Importing this package imports nothing heavy: ``resnet50`` and ``train`` import torch and run in
child processes; ``runner``, ``verdict`` and ``certificate`` are torch-free.
"""
