"""Log scan speed of ampenv.knowledge.failures: MB/s over typical log text, median of N runs.

The text is a training log as CANN and torch_npu write it: INFO/DEBUG plog lines, trainer
progress lines (with step counters and pids that hold the digits of error codes) and, once per
MiB, a few real error lines from tests/fixtures/logs. The bytes path is what a logs check uses on
a file's tail; the lines path is ``scan_lines`` on the same text.
A pasted text (at most 256 KiB, where a screen's wraps and messages wrapped by hand are read
too) is timed with --kib: --kind wrapped is one of exception messages wrapped over two rows.
Usage: python benchmarks/bench_failures.py [-n 5] [--mib 64 | --kib 192]
       [--kind typical|noisy|unknown|wrapped]
"""

from __future__ import annotations

import argparse
import statistics
import time

from ampenv.knowledge.failures import Scanner, scan_lines

TYPICAL = (
    "[INFO] RUNTIME(1292363,python):2025-04-08-18:07:20.444.436 [stream.cc:1191]1292401 "
    "Synchronize: stream_id=2 task_id=507035 done\n"
    "[INFO|trainer.py:2238] 2025-04-08 18:07:20,501 >> {'loss': 1.2345, 'grad_norm': 0.51, "
    "'learning_rate': 5e-05, 'epoch': 0.5, 'step': 107001}\n"
    "[DEBUG] HCCL(1292363,python):2025-04-08-18:07:20.444.500 [op_base.cc:812]1292402 "
    "HcclAllReduce: tag[AllReduce_1], count[466119168], dataType[bf16], op[sum]\n"
    "05/10/2024 02:41:08 - INFO - llmtuner.model.loader - trainable params: 3407872 || "
    "all params: 8033669120 || trainable%: 0.0424\n"
)
ERRORS = (
    "EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. Reason: Remote Rank did not "
    "send the data in time.\n"
    "[W NPUStream.cpp:382] Warning: NPU warning, error code is 507035[Error]: .\n"
    "EZ9999: Inner Error!\n"
)


# A noisy log: every line holds a word the scanner looks for ("error", "ret", "err"), as a
# retry loop or a container runtime's stderr prefix makes it.
NOISY = (
    "step 12: dataloader worker retrying after transient error\n"
    "[stderr] ok\n"
    "2025-04-08T18:07:20Z stderr F [INFO] result of step 107001: loss 1.2345\n"
)
# Errors no entry knows, each line other than the last (its numbers differ): nothing is
# remembered from a line before, every line is read to its end (Fault-Diag's rules included).
UNKNOWN = (
    "[ERROR] step {0}: worker {1} failed to fetch shard {0}: connection reset by peer "
    "(attempt {1}, error 0x{0:x})\n"
)
# An issue's paste of many messages wrapped by hand, none of them a failure the catalogue knows.
WRAPPED = (
    "ValueError: worker {1} could not load shard {0} from the remote object store\n"
    "because the connection was reset by peer after {0} bytes (attempt {1})\n"
)
KINDS = {"typical": TYPICAL, "noisy": NOISY, "unknown": UNKNOWN, "wrapped": WRAPPED}


def make_text(mib: float, kind: str = "typical") -> bytes:
    filler = KINDS[kind]
    if kind in ("unknown", "wrapped"):
        lines, size, i = [], 0, 0
        while size < mib * 1024 * 1024:
            lines.append(filler.format(i, i % 7))
            size += len(lines[-1])
            i += 1
        return "".join(lines).encode()
    block = filler * (1024 * 1024 // len(filler)) + ERRORS
    return (block * int(mib)).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=5)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--kib", type=int, help="a pasted text's size instead of --mib")
    parser.add_argument("--kind", choices=sorted(KINDS), default="typical")
    args = parser.parse_args()
    data = make_text(args.kib / 1024 if args.kib else args.mib, args.kind)
    text = data.decode()
    mb = len(data) / 1e6
    for label, run in (
        ("bytes", lambda: Scanner().feed_bytes(data, "bench.log")),
        ("lines", lambda: scan_lines(text.splitlines(), "bench.log")),
    ):
        times = []
        for _ in range(args.n):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        speed = mb / statistics.median(times)
        print(f"{label}: {speed:.1f} MB/s (median of {args.n}, {mb:.2f} MB)")


if __name__ == "__main__":
    main()
