#!/usr/bin/env bash
# What ampenv says and measures on an accelerator node, from a source checkout, in one run:
# the full doctor report, a certify (ResNet50 AMP smoke against its FP32 baseline), and the
# AMP training-step benchmark (ampenv.amp against torch.autocast + GradScaler).
#
#   PYTHON=python3 benchmarks/accelerator_node.sh OUT_DIR [DEVICE]     (DEVICE: cuda, npu or cpu)
#
# Dry run here: PYTHON=.venv/bin/python BENCH='--steps 2 --size 32 --batch 2' ... OUT_DIR cpu
#
# It needs no install: the checkout goes on PYTHONPATH, so the node's own python, torch and
# drivers are what is tested. Each step has its own time limit and its own exit code in
# OUT_DIR/steps.txt; one failing step does not stop the others.
set -uo pipefail

OUT=${1:?usage: accelerator_node.sh OUT_DIR [DEVICE]}
DEVICE=${2:-cuda}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 NO_COLOR=1

step() {  # name, limit in seconds, command...
    local name=$1 limit=$2 start=$SECONDS code
    shift 2
    timeout -k 10 "$limit" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    code=$?
    echo "$name exit=$code seconds=$((SECONDS - start))" | tee -a "$OUT/steps.txt"
}

step versions 60 "$PYTHON" -c \
    'import platform, torch; print(platform.python_version(), torch.__version__, torch.version.cuda, torch.cuda.is_available() and torch.cuda.get_device_name(0))'
step doctor 180 "$PYTHON" -m ampenv doctor --profile full --device "$DEVICE" -f json
step certify 300 "$PYTHON" -m ampenv certify --device "$DEVICE" -v \
    --certificate "$OUT/certificate.json"
# BENCH (word-split on purpose) shrinks the benchmark for a dry run on a CPU.
BENCH=${BENCH:---steps 50 --size 224 --batch 64}
for dtype in float16 bfloat16; do
    # shellcheck disable=SC2086
    step "bench_amp_step_$dtype" 240 "$PYTHON" "$HERE/benchmarks/bench_amp_step.py" \
        --device "$DEVICE" --dtype "$dtype" $BENCH
done
