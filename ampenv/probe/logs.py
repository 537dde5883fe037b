"""Known error signatures in recent CANN logs (plog) and in any log named by ``--log``.

The signatures are data (``SIGNATURES``): a regex, what it means, the remedy and where that
knowledge comes from. Reading is bounded: only the last ``tail_mb`` MiB of a file, only plogs
written in the last ``max_age_days`` days, and at most ``MAX_FILES`` of the newest plogs.
"""

from __future__ import annotations

import glob as _glob
import os
import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from ampenv.probe import Probe, tail

MAX_FILES = 32  # newest plogs read per run: a node can hold thousands
BUDGET_S = 5.0  # reading stops after this long; the files left are counted
CLEAR_CACHES = "clear the stale caches: `ampenv clean --yes` (`ampenv doctor --fix` does the same)"
FACTS = "ascend-facts.md §6"


def _code(number: str) -> str:
    """A runtime error code, not the same digits inside a pid `(507033,python)`, a thread id
    `]507033` or a longer number."""
    return rf"(?<![\d(\]]){number}(?![\d,])"


@dataclass(frozen=True)
class Signature:
    id: str
    pattern: str
    meaning: str
    remedy: str
    source: str
    clears_cache: bool = False  # the remedy is to clear the stale caches
    # Lowercase words every match contains: the regex runs only on lines holding one, so a
    # 4 MiB log costs a substring search per signature, not a regex scan.
    hints: tuple[str, ...] = ()

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "wc-db-work-queue",
        r"(?i)failed to run the wc db work queue",
        "the seed article's signature, cured there by clearing the stale caches; the wording "
        "is Subversion's E155009 (svn could not replay its working-copy work queue, typically "
        "because another program held a file open; there `svn cleanup` is the cure)",
        CLEAR_CACHES,
        "seed article (issue 6); text of Subversion's SVN_ERR_WC_BAD_ADM_LOG",
        clears_cache=True,
        hints=("wc db work queue",),
    ),
    Signature(
        "op-compile-failed",
        r"(?i)\b(?:tbe|op|operator|kernel)\b[^\n]{0,80}?\bcompil(?:e|ing|ation)\b[^\n]{0,40}?"
        r"\bfail",
        "an operator failed to compile; after a CANN upgrade a compile cache built by the "
        "previous CANN is the likely cause",
        CLEAR_CACHES,
        f"{FACTS} (inference: cache dirs built by another CANN go stale)",
        clears_cache=True,
        hints=("fail",),
    ),
    Signature(
        "EZ9999",
        r"\bEZ9999\b",
        "inner error inside an operator; the lines after it name the kernel (often an AI Core "
        "exception or timeout)",
        "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the failing operator, then read the plog "
        "lines after EZ9999",
        f"{FACTS} (hw-native-sys/PTOAS#864)",
        hints=("ez9999",),
    ),
    Signature(
        "EE9999",
        r"\bEE9999\b",
        "inner error of the CANN runtime; the lines after it name the failing task (an HCCL "
        "fftsplus timeout in LlamaFactory#5347); no source pins one cause",
        "collect the logs (`ampenv collect -o node.tar.gz`) for support; if it began after a "
        "CANN upgrade, clear all compile caches: `ampenv clean --all --yes` (a generic remedy, "
        "not a documented fix)",
        f"{FACTS} (meaning not confirmed); hiyouga/LlamaFactory#5347",
        hints=("ee9999",),
    ),
    Signature(
        "E39999",
        r"\bE39999\b",
        "inner error reported by a CANN component; no source pins its cause",
        "collect the logs (`ampenv collect -o node.tar.gz`) for support; if it began after a "
        "CANN upgrade, clear all compile caches: `ampenv clean --all --yes` (a generic remedy, "
        "not a documented fix)",
        f"{FACTS} (meaning not confirmed)",
        hints=("e39999",),
    ),
    Signature(
        "EL0004",
        r"\bEL0004\b|Memory_Allocation_Failure",
        "device memory allocation failed: another process holds the NPU's memory",
        "see who holds the device (`npu-smi info` process table, `fuser -v /dev/davinci*`), "
        "stop it, or pick a free device with ASCEND_RT_VISIBLE_DEVICES",
        f"{FACTS} (hw-native-sys/PTOAS#341)",
        hints=("el0004", "memory_allocation_failure"),
    ),
    Signature(
        "507014",
        _code("507014")
        + r"|ACL_ERROR_RT_AICORE_TIMEOUT|\[aicore timeout\]|aicore execution times out",
        "AI Core timeout: a kernel hung or ran too long",
        "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator that hangs; report it with "
        "its input shapes",
        f"{FACTS} (rt_error_codes.h; PTOAS#864 retCode=0x25); vllm-ascend#4972",
        hints=("507014", "aicore_timeout", "aicore timeout", "aicore execution times out"),
    ),
    Signature(
        "507015",
        _code("507015") + r"|ACL_ERROR_RT_AICORE_EXCEPTION|\[aicore exception\]",
        "AI Core exception: a kernel accessed memory out of bounds",
        "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator, then check its inputs "
        "(shapes, dtypes, device of every tensor)",
        f"{FACTS} (rt_error_codes.h; retCode=0x26)",
        hints=("507015", "aicore_exception", "aicore exception"),
    ),
    Signature(
        "vector-core",
        _code("50703[45]") + r"|\[vector core (?:timeout|exception)\]",
        "vector core timeout or exception in a kernel",
        "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator",
        f"{FACTS} (PTOAS#862 retCode=0x30)",
        hints=("50703", "vector core"),
    ),
    Signature(
        "507033",
        _code("507033") + r"|ACL_ERROR_RT_DEV_SETUP_ERROR",
        "the device could not be opened: busy (another process holds it) or dead",
        "`npu-smi info` and `fuser -v /dev/davinci*`: stop the holder; if dmesg shows "
        "`device(N) is not working`, drain the node",
        f"{FACTS} (PTOAS#341)",
        hints=("507033", "dev_setup_error"),
    ),
    Signature(
        "507899",
        _code("507899") + r"|ACL_ERROR_RT_DRV_INTERNAL_ERROR",
        "driver internal error, usually a cascade after an earlier device fault",
        "find the first error earlier in the same plog; check `npu-smi info -t health -i N`; "
        "if it repeats, reset the device or drain the node",
        f"{FACTS} (rt_error_codes.h)",
        hints=("507899", "drv_internal_error"),
    ),
    Signature(
        "hccl-timeout",
        r"(?i)(?:\bhccl\b|WorkHCCL)[^\n]{0,200}?\b(?:timeout|timed out|timing out)\b",
        "an HCCL collective timed out (HCCL_EXEC_TIMEOUT, 1836 s by default): a rank died, "
        "hangs, or the ranks drifted apart",
        "find the rank that failed first (its plog has the earliest error); raise "
        "HCCL_EXEC_TIMEOUT only for genuine skew between ranks",
        f"{FACTS}; vllm-ascend#382, lmdeploy#3354 (hccl fftsplus task timeout)",
        hints=("timeout", "timed out", "timing out"),
    ),
    Signature(
        "EI0006",
        r"\bEI0006\b|Getting socket times out",
        "HCCL link setup timed out: a remote rank did not connect in time",
        "check the other ranks for an earlier error; if they only started late, raise "
        "HCCL_CONNECT_TIMEOUT (120 to 7200 s, e.g. export HCCL_CONNECT_TIMEOUT=1200)",
        "vllm-ascend#486; vllm-project/afd-plugin#229",
        hints=("ei0006", "getting socket times out"),
    ),
    Signature(
        "stream-sync-timeout",
        r"\bEE1002\b|stream sync timeout|" + _code("507046"),
        "a stream did not finish in time: a kernel or a collective hung",
        "look earlier in the plog for the operator or collective that hung; on a multi-node "
        "job check the other ranks' logs",
        "Ascend/pytorch#48 (EE1002, 507046)",
        hints=("ee1002", "stream sync timeout", "507046"),
    ),
    Signature(
        "out-of-memory",
        r"(?i)\bout of memory\b",
        "an allocation did not fit the device (or host) memory",
        "lower the batch size; against fragmentation set "
        "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True; check `npu-smi info` for other "
        "processes on the device",
        f"{FACTS} (2xxxxx resource errors); xingchensong/TouchNet#100 (torch_npu wording)",
        hints=("out of memory",),
    ),
    Signature(
        "init-env-failed",
        r"init env failed|build op model failed, result = 500001",
        "CANN could not start its op compiler: Python dependencies are missing",
        "pip install numpy decorator sympy cffi protobuf attrs pyyaml pathlib2 scipy requests "
        "psutil absl-py",
        f"{FACTS} (Ascend/pytorch#7, EH9999)",
        hints=("init env failed", "build op model failed"),
    ),
    Signature(
        "bf16-on-910a",
        r"not implemented for DT_BFLOAT16",
        "bfloat16 on a chip without it (the 910A family supports float16 only)",
        "use float16 on 910A: amp dtype torch.float16 (ampenv picks it on 910A)",
        f"{FACTS} (LlamaFactory#4165, EZ1001)",
        hints=("dt_bfloat16",),
    ),
    Signature(
        "dcmi-device-used",
        r"dcmi model initialized failed, because the device is used",
        "another container holds the device (this one runs without --privileged)",
        "stop the other container, or give each container its own devices (ASCEND_VISIBLE_DEVICES)",
        "ascend-facts.md §1.2 (ret -8020)",
        hints=("dcmi model initialized failed",),
    ),
)


@dataclass
class Hit:
    signature: Signature
    path: str
    count: int
    line: str  # the first matching line, trimmed
    mtime: float  # the log file's mtime: the hit is at most this recent


@dataclass
class LogScan:
    files: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # explicit logs only
    unread: int = 0  # files left when the time budget ran out


# plog layouts: <root>/plog, and <root>/{run,debug}/plog on newer CANN (ascend-facts.md §6)
PLOG_GLOBS = ("plog/*.log", "*/plog/*.log", "plog-*.log")


def recent_plogs(probe: Probe, roots: list[str], max_age_days: float, now: float) -> list[str]:
    """The newest plog files below the log roots (system paths), newest first."""
    found: dict[str, float] = {}
    for root in roots:
        for pattern in PLOG_GLOBS:
            for path in probe.glob(_glob.escape(root.rstrip("/")) + "/" + pattern):
                mtime = probe.mtime(path)
                if mtime is not None and mtime >= now - max_age_days * 86400:
                    found[path] = mtime
    return sorted(found, key=lambda p: -found[p])[:MAX_FILES]


def _excerpt(text: str, at: int, end: int, width: int = 200) -> str:
    """The line holding text[at:end], cut to ``width`` characters around the match."""
    start = text.rfind("\n", 0, at) + 1
    stop = text.find("\n", end)
    stop = len(text) if stop < 0 else stop
    if stop - start > width:
        start = max(start, at - width // 3)
        stop = min(stop, start + width)
    return text[start:stop].strip()


def _lines_with(text: str, lower: str, hints: tuple[str, ...]) -> list[str]:
    """The lines of ``text`` holding any of the hints, in order, each once."""
    spans: set[tuple[int, int]] = set()
    for hint in hints:
        at = lower.find(hint)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            stop = text.find("\n", at)
            stop = len(text) if stop < 0 else stop
            spans.add((start, stop))
            at = lower.find(hint, stop)
    return [text[a:b] for a, b in sorted(spans)]


def match(text: str, path: str, mtime: float) -> list[Hit]:
    """Every signature found in ``text``: on how many lines, and the first line that shows it."""
    hits = []
    lower = text.lower()
    for sig in SIGNATURES:
        # Counted per line: one line may hold the code and its name (EL0004 ...
        # Memory_Allocation_Failure), and that is one event.
        matched = [
            (line, m)
            for line in _lines_with(text, lower, sig.hints)
            if (m := sig.regex.search(line))
        ]
        if matched:
            line, first = matched[0]
            hits.append(
                Hit(sig, path, len(matched), _excerpt(line, first.start(), first.end()), mtime)
            )
    return hits


def scan(
    probe: Probe,
    log_roots: list[str],
    explicit: list[str],
    *,
    tail_mb: float = 4.0,
    max_age_days: float = 7.0,
    now: Optional[float] = None,
) -> LogScan:
    """Signatures in recent plogs below ``log_roots`` (system paths, through the probe) and in
    the ``explicit`` files (the user's own paths, read whatever their age)."""
    now = time.time() if now is None else now
    key = ("logscan", tuple(log_roots), tuple(explicit), tail_mb, max_age_days)

    def run() -> LogScan:
        result = LogScan()
        limit = int(tail_mb * (1 << 20))
        # plogs are system paths, read through the probe (a support bundle keeps their tails);
        # the --log files are the user's own paths, read as given.
        targets = [(p, False) for p in recent_plogs(probe, log_roots, max_age_days, now)]
        targets += [(os.path.abspath(p), True) for p in explicit]
        deadline = time.monotonic() + BUDGET_S
        for path, named in dict.fromkeys(targets):
            if time.monotonic() > deadline:
                result.unread += 1
                continue
            if named:
                try:
                    mtime, text = os.stat(path).st_mtime, tail(path, limit)
                except OSError as exc:
                    result.unreadable.append((path, exc.strerror or str(exc)))
                    continue
            else:
                mtime, text = probe.mtime(path), probe.read_tail(path, limit)
                if mtime is None or text is None:
                    continue
            result.files.append(path)
            result.hits += match(text, path, mtime)
        return result

    return probe.fact(key, run)
