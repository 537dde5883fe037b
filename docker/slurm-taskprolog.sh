#!/bin/bash
# Slurm TaskProlog: runs before each task, as the job's user, in the job's environment. This is
# where the job's variables and the [env] contract are judged (the Prolog, in slurmd's
# environment, judges the node only).
#
# slurm.conf:
#   TaskProlog=/etc/slurm/taskprolog.d/50-ampenv.sh
#
# Slurm reads the TaskProlog's stdout: `export NAME=value` sets a variable of the task, and
# `print TEXT` writes TEXT to the task's stdout. This snippet
#   - exports the [env] contract's defaults for what the job left unset (`ampenv env --export`),
#   - prints one line with the verdict on the job's variables (`ampenv doctor --only env`),
# and always exits 0: judging the job's variables is advice here; `ampenv run` with
# fail-closed is the gate that stops a job.
find_ampenv() {
  local candidate
  for candidate in "${AMPENV:-}" /opt/ampenv/bin/ampenv /usr/local/bin/ampenv /usr/bin/ampenv; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  command -v ampenv
}

bin="$(find_ampenv)" || exit 0
[ -n "$bin" ] || exit 0
"$bin" env --export 2>/dev/null | grep '^export '
verdict="$("$bin" doctor --profile quick --only env --format npd 2>/dev/null)"
[ -n "$verdict" ] && printf 'print %s\n' "$verdict"
exit 0
