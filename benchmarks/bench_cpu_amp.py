"""Plain torch, side by side: ResNet50 training steps in FP32 and under bf16 autocast, each in
its own child process (so each peak RSS is its own), on this CPU.

    python benchmarks/bench_cpu_amp.py --size 224 --batch 8 --channels-last --threads 2

Prints the step times (warm-up left out: median, min, max), images/s, the speedup and the
training memory (peak RSS above the RSS once the model, optimizer and batch exist) of each.
What `ampenv certify` measures, without ampenv's AMP: a check of its figures on a new CPU.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, os, resource, sys, time
import torch, torch.nn.functional as F
from ampenv.active.smoke.resnet50 import resnet50
a = json.loads(sys.argv[1])
torch.set_num_threads(a["threads"])
model = resnet50(num_classes=10, seed=0)
x, y = torch.randn(a["batch"], 3, a["size"], a["size"]), torch.arange(a["batch"]) % 10
if a["channels_last"]:
    model = model.to(memory_format=torch.channels_last)
    x = x.contiguous(memory_format=torch.channels_last)
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
rest = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
times = []
for _ in range(a["steps"]):
    t = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a["mode"] == "amp"):
        out = model(x)
    F.cross_entropy(out.float(), y).backward()
    opt.step()
    times.append(time.perf_counter() - t)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"times": times[a["warmup"]:], "rest": rest, "peak": peak,
                  "capability": torch.backends.cpu.get_cpu_capability()}))
"""


def run(mode: str, args: argparse.Namespace) -> dict:
    shape = {**vars(args), "mode": mode}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(shape)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=7)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("-n", type=int, default=1, help="pairs to run (FP32 then AMP each)")
    args = p.parse_args()
    for _ in range(args.n):
        res = {m: run(m, args) for m in ("fp32", "amp")}
        med = {m: statistics.median(r["times"]) for m, r in res.items()}
        train = {m: r["peak"] - r["rest"] for m, r in res.items()}
        for m, r in res.items():
            ms = [t * 1000 for t in r["times"]]
            print(
                f"{m:4}: step {statistics.median(ms):.0f} ms (min {min(ms):.0f}, max "
                f"{max(ms):.0f}), {args.batch / med[m]:.2f} img/s, peak RSS {r['peak']:.0f} MiB, "
                f"training memory {train[m]:.0f} MiB ({r['capability']})"
            )
        print(
            f"speedup {med['fp32'] / med['amp']:.2f}x, training memory saved "
            f"{1 - train['amp'] / train['fp32']:.0%}"
        )


if __name__ == "__main__":
    main()
