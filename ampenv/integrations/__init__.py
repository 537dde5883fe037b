"""How hosts call ampenv: the container entrypoint (`run`), the Slurm hook, the
node-problem-detector plugin, support bundles, the Prometheus textfile, the node certificate
and the fleet. Each follows its host's own conventions for exit codes, output and time."""
