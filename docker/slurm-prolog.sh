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
# The Prolog runs in slurmd's environment (SLURM_* only), so it judges the node; the job's
# variables and the [env] contract are judged by `ampenv run` or slurm-taskprolog.sh.
# A job skips the hook with `sbatch --extra=ampenv=off`. On failure one line goes to stdout,
# `ampenv: <check id>: <summary>`, which is also the drain reason.
#
# ampenv is looked for at $AMPENV, /opt/ampenv/bin/ampenv, /usr/local/bin/ampenv,
# /usr/bin/ampenv, then on PATH. When it is not found the script logs that (syslog, tag
# ampenv-prolog, and stderr) and exits 0: a missing tool must not drain every node.
find_ampenv() {
  local candidate
  for candidate in "${AMPENV:-}" /opt/ampenv/bin/ampenv /usr/local/bin/ampenv /usr/bin/ampenv; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}" command -v ampenv
}

if ! bin="$(find_ampenv)" || [ -z "$bin" ]; then
  msg="ampenv: not installed (looked at \$AMPENV=${AMPENV:-unset}, /opt/ampenv/bin, /usr/local/bin, /usr/bin, PATH); node not judged"
  logger -t ampenv-prolog -- "$msg" 2>/dev/null || true
  printf '%s\n' "$msg" >&2
  exit 0
fi
exec "$bin" hook slurm
