#!/usr/bin/env bash
# Four real certificates from four "nodes" on this machine, one of them trained at about half
# the speed (one core, one thread), then `ampenv fleet` over the folder: it must flag exactly
# that node and exit 1.
#
#   benchmarks/fleet_demo.sh [CERTS_DIR]      (default: a fresh temporary folder)
#
# Each run is a whole `ampenv certify`, as a node would run it from a cron job or an idle-node
# hook: `ampenv certify --certificate certs/$(hostname).json`. AMPENV_NODE names the node here
# (four runs share one hostname). The runs go one after another: side by side they would
# measure each other.
set -euo pipefail

AMPENV=${AMPENV:-ampenv}
CERTS=${1:-$(mktemp -d -t ampenv-fleet-XXXXXX)}
mkdir -p "$CERTS"
# Every node runs the same settings (so they are comparable). The CPU class default (64 px,
# batch 2) is too small to keep two threads busy: at 112 px and batch 8 FP32 throughput
# follows the cores. AMPENV_CONFIG set by the caller wins.
if [ -z "${AMPENV_CONFIG:-}" ]; then
    AMPENV_CONFIG=$CERTS/ampenv.toml.demo
    printf '[checks."smoke.resnet50"]\nimage_size = 112\nbatch_size = 8\nsteps = 4\nwarmup = 1\n' \
        >"$AMPENV_CONFIG"
    export AMPENV_CONFIG
fi

certify() {  # name, then the command prefix that shapes the node
    local node=$1
    shift
    local start=$SECONDS code=0
    AMPENV_NODE=$node "$@" "$AMPENV" certify --certificate "$CERTS/$node.json" --no-chart \
        >"$CERTS/$node.log" 2>&1 || code=$?
    echo "$node: certify exit $code in $((SECONDS - start)) s ($(tail -n 1 "$CERTS/$node.log"))"
}

certify node-1 env
certify node-2 env
certify node-slow env OMP_NUM_THREADS=1 taskset -c 0
certify node-3 env

echo
set +e
"$AMPENV" fleet "$CERTS"
code=$?
echo "ampenv fleet exit $code"
exit "$code"
