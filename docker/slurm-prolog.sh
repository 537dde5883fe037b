#!/bin/bash
# Slurm Prolog / HealthCheckProgram: ampenv's quick profile plus `certificate verify`, within
# [hook] timeout (10 s by default) of /etc/ampenv/ampenv.toml.
#
# slurm.conf, as a Prolog (a non-zero exit drains the node and requeues the job held):
#   Prolog=/etc/slurm/prolog.d/*            # install this file as prolog.d/50-ampenv.sh
#   BatchStartTimeout=30                    # > [hook] timeout, so the job is not cancelled
# or as a periodic health check on idle nodes (set [hook] drain = true: slurmd itself does
# not drain on a HealthCheckProgram's exit code):
#   HealthCheckProgram=/etc/slurm/prolog.d/50-ampenv.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=IDLE,CYCLE
#
# A job skips the hook with `sbatch --extra=ampenv=off`. On failure one line goes to stdout,
# `ampenv: <check id>: <summary>`, which is also the drain reason.
AMPENV="${AMPENV:-/opt/ampenv/bin/ampenv}"
exec "$AMPENV" hook slurm
