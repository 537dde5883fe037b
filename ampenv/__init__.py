"""ampenv: validate, set up and certify a node for mixed-precision training."""

__version__ = "0.1.0"
