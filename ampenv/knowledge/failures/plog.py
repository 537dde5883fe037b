"""The modules that write CANN's plog: an ERROR line no entry knows still says which part of the
stack failed, and so where to look and what to do.

A plog line names its module: ``[ERROR] HCCL(4112,python):2024-05-01-10:00:00.123.456
[transport.cc:88][4112]wait socket establish timeout``. The module ids are CANN's
(include/toolchain/log_types.h). The family's findings are follow-ups (rank GENERIC): a log that
also shows a known failure is explained by that one; a log that shows none still gets the
module, its message and the module's fix instead of silence.
"""

from __future__ import annotations

import re
from typing import Optional

from ampenv.knowledge.failures.acl import BLOCKING, PLOG
from ampenv.knowledge.failures.lines import quote
from ampenv.knowledge.failures.model import GENERIC, Failure, Source

LOG_TYPES = (
    "CANN include/toolchain/log_types.h (module ids; as shipped in ascend-toolkit 8.1.RC1, "
    "e.g. github.com/leideng/CANN-8.1.RC1)"
)
FAMILY = "plog-error"
EXCERPT = 200
# What follows the module: the timestamp, then "[file.cc:123]" and a thread id, then the message.
PREFIX = re.compile(
    r"^:?\s?[\d:.-]{10,40}\s*(?:\[[\w.-]{1,80}:\d{1,6}\])?(?:\s?\[?\d{1,10}\]?)?\s*"
)

HCCL = (
    "hccl",
    "collective communication (HCCL, its device-side HCCP, RoCE)",
    "HCCL failed on this rank: read the first rank's plog that failed (the earliest ERROR "
    "across ranks is the cause, the others wait and time out); for a timeout compare the "
    "ranks' progress and HCCL_CONNECT_TIMEOUT / HCCL_EXEC_TIMEOUT; `ampenv doctor --only dist` "
    "checks the links and ports",
)
DRIVER = (
    "driver",
    "the NPU driver (device management, device memory, host-device channel)",
    "the driver refused a call: `npu-smi info` shows whether the device is healthy and who "
    "holds it; in a container pass every device node (/dev/davinciN, davinci_manager, "
    "devmm_svm, hisi_hdc) and mount the driver; check the driver against CANN: "
    "`ampenv doctor --only npu`",
)
SCHEDULER = (
    "container-devices",
    "the device-side task scheduler daemon (tsd/AI CPU scheduler)",
    "the AI CPU scheduler on the device could not start or serve: a previous process still "
    "holds the device (`npu-smi info` lists it: stop it), or a container lacks the device "
    "nodes and driver mounts; `ampenv doctor --only npu`",
)
RUNTIME = (
    "core-exception",
    "the runtime or a kernel on the device (AI Core, vector core, AI CPU, task scheduler)",
    PLOG + "; " + BLOCKING,
)
COMPILER = (
    "compile-cache",
    "operator compilation and fusion (TBE, TE fusion, FE, tuning)",
    "an operator failed to compile: the message names it; after a CANN upgrade clear the "
    "compile caches (`ampenv clean`); else check that the toolkit, its kernels package and "
    "torch_npu are one release: `ampenv doctor --only cann`",
)
GRAPH = (
    "cann-pairing",
    "the graph engine (GE) or the ACL layer above it",
    "the message names the call or operator that failed; a CANN part missing or of another "
    "version shows here first: `ampenv doctor --only cann`; " + BLOCKING,
)
MODULES: dict[str, tuple[str, str, str]] = {
    **dict.fromkeys(("HCCL", "HCCP", "ROCE"), HCCL),
    **dict.fromkeys(("DRV", "DEVMM", "HDC"), DRIVER),
    "TDT": SCHEDULER,
    **dict.fromkeys(
        ("RUNTIME", "CCE", "KERNEL", "CCECPU", "AICPU", "TS", "AIVECTOR", "FFTS"), RUNTIME
    ),
    **dict.fromkeys(("TEFUSION", "FE", "TBE", "TUNE", "ASCENDCKERNEL"), COMPILER),
    **dict.fromkeys(("GE", "FMK", "ASCENDCL"), GRAPH),
}
# Modules left out say nothing of a training job's failure (SLOG, IDEDD, PROFILING, DVPP, ...):
# an ERROR of theirs stays unread.


def _decode(m: re.Match[str]) -> Optional[Failure]:
    return module_failure(m.group("code"), quote(PREFIX.sub("", m.group("text")).strip(), EXCERPT))


def by_id(fid: str) -> Optional[Failure]:
    """The finding of a module by the id a scan reported (``plog-hccl``), for `ampenv explain`."""
    module = fid[len("plog-") :].upper() if fid.startswith("plog-") else ""
    return module_failure(module) if module.isalnum() else None


def module_failure(module: str, said: str = "") -> Optional[Failure]:
    """An ERROR of ``module`` (a plog module id), with what its line ``said``."""
    known = MODULES.get(module)
    if known is None:
        return None
    mode, what, fix = known
    return Failure(
        id=f"plog-{module.lower()}",
        mode=mode,
        component=module.lower(),
        patterns=(),
        codes=(),
        meaning=f"an ERROR of {module}, {what}" + (f": {said}" if said else ""),
        causes=(f"{module} failed; no known failure names the cause on these lines",),
        fix=fix,
        confirm=None,
        sources=(Source(LOG_TYPES, "official"),),
        hints=(),
        rank=GENERIC,
        family=FAMILY,
    )


PLOG_ERRORS = Failure(
    id=FAMILY,
    mode="core-exception",
    component="plog",
    patterns=(
        r"(?-i:\[ERROR\] (?P<code>[A-Z][A-Z0-9_]{1,15})\(\d{1,10},[^)\n]{0,80}\))"
        r"(?P<text>[^\n]{0,600})",
    ),
    codes=(),
    meaning="an ERROR line of a CANN module that no known failure explains: the module, its "
    "message and where to look",
    causes=("the module's own failure (its message says which)",),
    fix="the fix of the module the line names (each module's finding carries its own)",
    confirm=None,
    sources=(Source(LOG_TYPES, "official"),),
    hints=(),
    rank=GENERIC,
    decode=_decode,
    anchor=r"\[ERROR\] [A-Z][A-Z0-9_]{1,15}\(\d",
)
