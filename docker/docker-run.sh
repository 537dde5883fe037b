#!/usr/bin/env bash
# Start an ampenv image on an Ascend node with every device node and driver mount a training
# job needs: /dev/davinciN for each NPU, the management nodes, and the host's driver, DCMI,
# npu-smi and install record, read-only (the same list as ampenv.probe.devnodes).
#
#   docker/docker-run.sh [--devices 0,1,...] IMAGE [CMD ARGS...]
#
# Without --devices, every /dev/davinciN of the host is given. DOCKER=podman works too;
# DOCKER=echo prints the command instead of running it.
set -euo pipefail

devices=()
if [[ "${1:-}" == "--devices" ]]; then
  IFS=, read -r -a devices <<< "${2:?--devices needs a list such as 0,1}"
  shift 2
else
  for node in /dev/davinci[0-9]*; do
    [[ -e "$node" ]] && devices+=("${node#/dev/davinci}")
  done
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $0 [--devices 0,1,...] IMAGE [CMD ARGS...]" >&2
  exit 2
fi
mapfile -t devices < <(printf '%s\n' "${devices[@]}" | sort -n -u)

flags=()
for n in "${devices[@]}"; do
  [[ -n "$n" ]] && flags+=("--device=/dev/davinci$n")
done
for node in /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc; do
  flags+=("--device=$node")
done
for path in /usr/local/Ascend/driver /usr/local/dcmi /usr/local/bin/npu-smi \
            /etc/ascend_install.info; do
  flags+=(-v "$path:$path:ro")
done

exec "${DOCKER:-docker}" run --rm "${flags[@]}" --shm-size=16g "$@"
