"""Families of codes read from the official tables: a code that has no catalogue entry of its
own still gets its name, its meaning and the fix of its class.

A family is one catalogue entry whose pattern captures the code (group ``code``). The scanner
hands each match to the family's ``decode``, which returns the code's own failure (one finding
per code) or None where the catalogue knows the code by an entry of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Optional

import ampenv.knowledge.failures.code_tables as tables
from ampenv.knowledge.failures.acl import BLOCKING, PLOG
from ampenv.knowledge.failures.lines import below_error
from ampenv.knowledge.failures.model import (
    CLASS,
    CODE_CONTEXT,
    CODE_HINTS,
    GENERIC,
    Failure,
    Source,
)

EXCERPT = 160  # characters of a line's own message kept in a decoded meaning
# CANN's advice printed on the code's own line ("... Solution: Close applications not in use.").
SOLUTION = re.compile(r"\bSolution: ?(.{8,})", re.IGNORECASE)
CAUSE = re.compile(r"\bPossible Cause: ?(.{3,}?)(?= Solution:|$)", re.IGNORECASE | re.MULTILINE)
# A plog or CANN timestamp that opens the message after an E-code ("EL0004: 2025-01-02-...").
STAMP = re.compile(r"^[\s:]*(?:\[PID: ?\d+\]\s*)?\[?\d{4}-\d\d-\d\d[-\s][\d:.]+\]?\s*")


@dataclass(frozen=True)
class Class:
    """What a code of one class means for the person who has to act on it."""

    mode: str
    cause: str
    fix: str
    confirm: Optional[str] = None
    sources: tuple[Source, ...] = ()  # where a row's own reading comes from


# aclError by its first digit (the table's own rule), and the codes whose rows name a fix.
USAGE = Class(
    "core-exception",
    "the call's arguments or the environment the program set up (the meaning names which)",
    "fix what the meaning names; " + BLOCKING,
)
RESOURCE = Class(
    "core-exception",
    "a device resource ran out, or a call this hardware or driver does not support",
    "free or reduce what the meaning names; `npu-smi info` shows each device's memory and "
    "processes; a feature not supported needs the CANN and driver versions that have it",
    "npu.devices",
)
QUEUE = Class("core-exception", "a queue or storage state", "see the meaning: " + PLOG)
INTERNAL = Class(
    "core-exception",
    "an internal software or hardware fault; the lines before it name the failing operator",
    PLOG + "; " + BLOCKING,
)
OOM = Class(
    "device-memory",
    "device memory exhausted",
    "reduce the batch or sequence length, or free the device: `npu-smi info` lists the "
    "processes holding its memory",
    "npu.devices",
)
HARDWARE = Class(
    "driver",
    "a hardware memory or device fault (ECC, UCE, a lost heartbeat)",
    "drain the node and check the device: `npu-smi info -t health -i <id>`; a fault that "
    "recurs after a reboot goes to hardware support",
    "npu.devices",
)
LINK = Class(
    "hccl",
    "the link between two devices broke, or the peer device failed",
    "read the peer rank's log for its own error first; then check the links: "
    "`hccn_tool -i <id> -link -g` on both nodes",
)
ACL_FIXES: dict[str, Class] = {
    "107002": Class(
        "visible-devices",
        "the thread that ran NPU work had no device set: each new thread starts without one "
        "(transformers' TextIteratorStreamer runs generate() in a thread of its own; a callback "
        "or a worker thread too)",
        "call torch.npu.set_device(N) (pyACL: acl.rt.set_context / set_device) at the start of "
        "every thread that runs NPU work",
        None,
        (Source("https://blog.csdn.net/weixin_46398647/article/details/137772338", "report"),),
    ),
    "148049": Class(
        "cann-env",
        "the CANN environment is not sourced",
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh (ASCEND_OPP_PATH comes with it)",
        "cann.toolkit",
    ),
    "100039": Class(
        "cann-env",
        "LD_LIBRARY_PATH holds CANN's stub libraries",
        "remove the .../stub directories from LD_LIBRARY_PATH and source set_env.sh again",
        "python.stack",
    ),
    "145019": Class(
        "cann-env",
        "LD_LIBRARY_PATH does not reach CANN's libraries",
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
        "python.stack",
    ),
    "207019": Class(
        "driver",
        "the driver is older than this CANN needs",
        "upgrade the NPU driver and firmware (Ascend HDK 25.0.RC1 or later for this feature)",
        "npu.driver",
    ),
    "507008": Class(
        "driver",
        "the runtime could not read the chip's SoC version from the driver: the driver (or the "
        "driver mounted into this container) is not one this CANN supports",
        "compare `npu-smi info` and /usr/local/Ascend/driver/version.info with the CANN release "
        "notes; upgrade the driver and firmware, or use the CANN (image) that matches them",
        "npu.driver",
    ),
    "207006": Class(
        "container-devices",
        "the user or container may not use the device",
        "run as root or as a member of the driver's group (HwHiAiUser); in a container pass the "
        "device nodes (/dev/davinciN, davinci_manager, devmm_svm, hisi_hdc)",
        "npu.device_nodes",
    ),
    "207003": Class(
        "core-exception",
        "an operator overflowed in fp16",
        "under AMP the loss scaler skips such steps; if it persists, dump the overflowing "
        "operator (msprobe overflow check) and keep it in fp32",
    ),
    "107027": Class(
        "core-exception",
        "a call that synchronises a stream being captured into a graph (ACL graph, vLLM "
        "Ascend's graph mode); ASCEND_LAUNCH_BLOCKING=1 makes every launch such a call",
        "unset ASCEND_LAUNCH_BLOCKING (graph capture refuses the synchronous launches it "
        "forces); to find a failing operator, run eagerly (vLLM: enforce_eager=True) with it "
        "set; otherwise move the synchronising call (.item(), .cpu(), a stream synchronize) "
        "out of the captured region",
        sources=(
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/3574 (ASCEND_LAUNCH_BLOCKING=1 "
                "is incompatible with ACL Graph)",
                "maintainer",
            ),
        ),
    ),
    "561112": Class(
        "cann-pairing",
        "the operator kernels package is not installed",
        "install the Ascend-cann-kernels package for this chip and CANN version",
        "cann.toolkit",
    ),
    "561108": Class(
        "cann-pairing",
        "the kernels package does not match CANN",
        "reinstall the Ascend-cann-kernels package of this CANN version",
        "cann.toolkit",
    ),
    **dict.fromkeys(("200000", "245000", "245002"), OOM),
    **dict.fromkeys(("507010", "507053", "507054", "507055", "507901"), HARDWARE),
    **dict.fromkeys(("507056", "507057"), LINK),
}
ACL_CLASSES = {"1": USAGE, "2": RESOURCE, "3": QUEUE, "5": INTERNAL}

HCCL_PORT = Class(
    "hccl",
    "the port or device is taken: a previous job's process still holds it",
    "end the previous job's processes (`npu-smi info` lists them), or give this job other "
    "ports (MASTER_PORT, HCCL_HOST_SOCKET_PORT_RANGE)",
    "dist.allreduce",
)
HCCL_NET = Class(
    "hccl",
    "HCCL picked a network interface or IP the other ranks cannot use",
    "set HCCL_IF_IP or HCCL_SOCKET_IFNAME to this node's interface that the other nodes reach",
    "env.hccl",
)
HCCL_CONNECT = Class(
    "hccl",
    "a rank did not start, died, or cannot be reached",
    "check that every rank started and reaches the others (firewall, ports); raise "
    "HCCL_CONNECT_TIMEOUT only for slow starts",
    "dist.allreduce",
)
HCCL_FIXES: dict[str, Class] = {
    "1": Class(
        "hccl",
        "the ranks disagree: world size, rank id or the device of a rank",
        "run the same script with the same world size on every rank, and give each rank a "
        "device that exists here (ASCEND_RT_VISIBLE_DEVICES)",
        "env.npu",
    ),
    "7": HCCL_PORT,
    "6": HCCL_NET,
    "19": HCCL_NET,
    **dict.fromkeys(("9", "11", "12", "13", "14"), HCCL_CONNECT),
    "24": OOM,
}
HCCL_DEFAULT = Class("hccl", "HCCL failed inside", PLOG)

DCMI_PERMISSION = Class(
    "container-devices",
    "the caller may not query the device (a non-root user, or a container)",
    "run as root on the host, or start the container with the devices and the driver mounted "
    "(Ascend Docker Runtime: ASCEND_VISIBLE_DEVICES)",
    "npu.device_nodes",
)
DCMI_FIXES: dict[str, Class] = {
    **dict.fromkeys(("-8002", "-8013"), DCMI_PERMISSION),
    **dict.fromkeys(
        ("-8007", "-8008"),
        Class(
            "visible-devices",
            "the device id does not exist on this node",
            "list the devices (`npu-smi info -l`) and use one of their ids",
            "npu.devices",
        ),
    ),
    **dict.fromkeys(
        ("-8006", "-8012", "-8017"),
        Class(
            "driver",
            "the device is not ready, busy upgrading or not answering",
            "wait and retry; if it persists, `npu-smi info -t health -i <id>` and reset the device",
            "npu.devices",
        ),
    ),
}
DCMI_DEFAULT = Class(
    "driver",
    "the driver failed to talk to the device",
    "check `npu-smi info` on the host; collect the driver logs (msnpureport) and restart or "
    "reinstall the driver",
    "npu.driver",
)

DEVICE_ID = DCMI_FIXES["-8007"]
DRV_FIXES: dict[str, Class] = {
    "2": DEVICE_ID,
    "6": OOM,
    **dict.fromkeys(("14", "47", "48", "49", "50", "84"), RESOURCE),
    **dict.fromkeys(("46", "88", "90"), DCMI_PERMISSION),
    "87": Class(
        "container-devices",
        "another process or container holds the device",
        "find the holder: `npu-smi info` on the host lists each device's processes; end it, "
        "or give each container devices of its own (ASCEND_VISIBLE_DEVICES)",
        "npu.devices",
    ),
    "34": Class(
        "driver",
        "the device is not ready: still starting, or resetting",
        "wait and retry; if it stays, `npu-smi info -t health -i <id>`, then reset the device",
        "npu.devices",
    ),
    **dict.fromkeys(
        ("33", "45", "91", "94"),
        Class(
            "driver",
            "the device is down, resetting, or failed its self-test",
            "drain the node; `npu-smi info -t health -i <id>`; reset the device or reboot, and a "
            "fault that recurs goes to hardware support",
            "npu.devices",
        ),
    ),
    **dict.fromkeys(
        ("42", "43", "62"),
        Class(
            "core-exception",
            "the process on the device's side exited or hangs: an earlier fault ended it",
            "find the first error before this line (an AI Core or AI CPU exception, a killed "
            "process): it is the cause; " + PLOG,
        ),
    ),
    **dict.fromkeys(
        ("1", "9"),
        Class(
            "container-devices",
            "the driver is not initialised for this process: its device nodes are not passed to "
            "the container, or the driver is not loaded",
            "check `npu-smi info` on the host, and the device nodes here",
            "npu.device_nodes",
        ),
    ),
    "65534": Class(
        "driver",
        "the driver does not support the call: it is older than the software calling it (CANN, "
        "torch_npu, a library built for a newer HDK), or this chip, VM or container (a vNPU) "
        "lacks the feature",
        "`ampenv doctor --only npu.driver`: a driver older than the calling software's notes "
        "pair with it needs the HDK they name (firmware first, then driver); where it is "
        "paired, the feature is not there on this chip or in this mode: the caller's own "
        "option to do without it",
        "npu.driver",
    ),
}
DRV_DEFAULT = Class(
    "driver",
    "the driver refused or failed the call (the code's name says how); most often after an "
    "earlier error",
    "find the first error before this line; if there is none, check `npu-smi info` and "
    "collect the driver's logs (msnpureport)",
    "npu.driver",
)

# The family each decoded code belongs to, by its component.
FAMILY_OF = {
    "acl": "acl-return-code",
    "hccl": "hccl-result",
    "torch_npu": "torch-npu-error-code",
    "cann": "cann-error-code",
    "driver": "driver-return-code",
}
TORCH_NPU_FOLLOW = (
    "read the error on the same line and the lines before it (the ACL/HCCL code there names "
    "the cause: `ampenv explain CODE`)"
)


def _sources(refs: tuple[str, ...]) -> tuple[Source, ...]:
    return tuple(Source(ref, "official") for ref in refs)


def _failure(
    fid: str,
    code: str,
    component: str,
    meaning: str,
    klass: Class,
    sources: tuple[Source, ...],
    rank: int = CLASS,
) -> Failure:
    return Failure(
        id=fid,
        mode=klass.mode,
        component=component,
        patterns=(),
        codes=(code,),
        meaning=meaning,
        causes=(klass.cause,),
        fix=klass.fix,
        confirm=klass.confirm,
        sources=sources,
        hints=(),
        rank=rank,
        family=FAMILY_OF.get(component),
    )


def acl(code: str) -> Optional[Failure]:
    row = tables.ACL.get(code)
    klass = ACL_FIXES.get(code) or ACL_CLASSES.get(code[0])
    if klass is None:
        return None
    name, meaning = row or ("ACL return code", "not in the table this ampenv carries")
    return _failure(
        f"acl-{code}",
        code,
        "acl",
        f"{name}: {meaning}",
        klass,
        _sources(tables.ACL_SOURCES) + klass.sources,
    )


def hccl(code: str) -> Optional[Failure]:
    if code not in tables.HCCL:  # 0 is HCCL_SUCCESS; other numbers are not HcclResult's
        return None
    name, meaning = tables.HCCL[code]
    klass = HCCL_FIXES.get(code, HCCL_DEFAULT)
    return _failure(
        f"hccl-result-{code}",
        code,
        "hccl",
        f"{name}: {meaning}",
        klass,
        _sources(tables.HCCL_SOURCES),
    )


def dcmi(code: str) -> Optional[Failure]:
    name, meaning = tables.DCMI[code]
    klass = DCMI_FIXES.get(code, DCMI_DEFAULT)
    return _failure(
        f"dcmi{code}", code, "dcmi", f"{name}: {meaning}", klass, _sources(tables.DCMI_SOURCES)
    )


# Where a driver's return code stands: under the driver's own names for it, after a driver
# call's name (camelCase, a verb and a noun: halHostRegister, drvDeviceOpen; not drvName), in
# DSMI's calls and log, or in "Unable to halX: N". The code is a whole number that no unit, time
# or word follows; the text between a call and its code stays in one clause of one record.
_CODE_END = r"(?P<code>\d{1,5})(?![\d.:x]|\s{0,3}[A-Za-z])"
_RETURNED = r"\b(?:ret(?:code)?|err(?:or)?(?: ?code)?|result)\s{0,3}(?:[=:(\[]|is\b)\s{0,3}"
_GAP = r"[^\n();\\]{0,160}?"
DRV_PATTERNS = (
    r"\bdrv_?(?:ret|error)_?(?:code)?\s?[=:]\s?" + _CODE_END,
    r"\bhal(?-i:[A-Z][a-z0-9]+[A-Z]\w{0,60}\b)(?!\.\w)" + _GAP + _RETURNED + _CODE_END,
    r"\bdrv(?-i:[A-Z][a-z0-9]+[A-Z]\w{0,60}\b)(?!\.\w)" + _GAP + _RETURNED + _CODE_END,
    r"(?<![A-Za-z])dsmi(?:_\w{3,60}|\.cpp:\d{1,6}\])" + _GAP + _RETURNED + _CODE_END,
    r"\bUnable to hal\w{2,60}:\s?" + _CODE_END,
)


def _an_error_s_line(m: re.Match[str]) -> bool:
    # the runtime logs the driver calls it handles (a feature probe that returns 65534 on a
    # chip without the feature) at WARNING or INFO, and carries on
    return not below_error(m.string, m.start())


def driver(code: str) -> Optional[Failure]:
    """A drvError_t code; a finding only where no other explains its line (no codes of its
    own: a number this small is an entry's only by the entry's own wording)."""
    name = tables.DRV.get(code)
    if name is None:
        return None
    klass = DRV_FIXES.get(code, DRV_DEFAULT)
    found = _failure(
        f"drv-error-{code}",
        code,
        "driver",
        f"the driver returned {name} ({code}): "
        + name.split("_ERROR_", 1)[1].lower().replace("_", " "),
        klass,
        _sources(tables.DRV_SOURCES),
    )
    return replace(found, codes=())


def torch_npu(code: str) -> Optional[Failure]:
    sub = tables.TORCH_NPU_SUBMODULES.get(code[:2])
    row = tables.TORCH_NPU.get(code[2:])
    if sub is None or row is None:
        return None
    mode = "hccl" if sub == "DIST" else "device-memory" if row[0] == "MEMORY" else "core-exception"
    klass = Class(mode, f"torch_npu {sub}: {row[1]}", TORCH_NPU_FOLLOW)
    return _failure(
        f"torch-npu-err{code}",
        f"ERR{code}",
        "torch_npu",
        f"torch_npu {sub} error {row[0]}: {row[1]}; a follow-up code: the cause is logged with it",
        klass,
        _sources(tables.TORCH_NPU_SOURCES),
        rank=GENERIC,
    )


def e_code(code: str, text: str, more: str = "") -> Optional[Failure]:
    """An E-code's failure: its module and class from the code, what the log said with it
    (``text``: the rest of its line; ``more``: its indented continuation lines) quoted."""
    # a W-code (a warning: W40010) is its module's as an E-code is
    mode, module = tables.E_MODULES.get(f"E{code[1]}", ("core-exception", f"CANN module {code[1]}"))
    internal = code[2] == "9"
    said = STAMP.sub("", text).strip(" :!.")[:EXCERPT]
    official_title, message, official_cause, official_fix, found_in = tables.cann_e_row(code)
    title, known_cause, known_fix = tables.E_CODES.get(code, ("", "", ""))
    title = title or official_title
    known_cause = known_cause or official_cause
    said = said or message.replace("%s", "...")
    meaning = (
        f"{'an internal' if internal else 'a user-class'} error of {module}"
        + (f" ({title})" if title else "")
        + (f": {said}" if said else f": {known_cause}" if known_cause else "")
        + ("; a follow-up code: the specific cause is in the lines around it" if internal else "")
    )
    cause = CAUSE.search(text + more)
    if cause and cause.group(1).strip(" .").upper() != "N/A":
        meaning += f"; the log's possible cause: {cause.group(1).strip()[:EXCERPT]}"
    solution = SOLUTION.search(text + more)
    if known_fix:  # ampenv's reading of CANN's table for the code
        fix = known_fix
    elif solution:  # the advice printed with the code, quoted as the log's, not ampenv's
        fix = f'the log\'s own "Solution:" for it: "{solution.group(1).strip()[:EXCERPT]}"'
    elif official_fix and not internal:  # an internal code's row says "contact support"
        fix = f"CANN's solution for {code}: {official_fix}"
    elif internal:
        fix = PLOG
    else:
        fix = (
            "CANN prints what to change with the code (the message, and a 'Solution:' line after "
            "it); change the parameter, environment or resource it names"
        )
    sources = (Source(tables.E_CODE_FORMAT, "official"),)
    if f"E{code[1]}" in tables.E_MODULES:
        sources += (Source(tables.ERROR_CODE_JSON, "official"),)
    sources += tuple(Source(ref, "official") for ref in found_in)
    if code in tables.E_CODES:
        sources += (Source(tables.E_TABLE_SOURCE, "official"),)
    return _failure(
        f"cann-{code.lower()}",
        code,
        "cann",
        meaning,
        Class(mode, known_cause or f"{module}: see the message", fix),
        tuple(dict.fromkeys(sources)),
        rank=GENERIC if internal else CLASS,
    )


def _family(
    component: str,
    pattern: str,
    meaning: str,
    mode: str,
    hints: tuple[str, ...],
    decode: Callable[[re.Match[str]], Optional[Failure]],
    refs: tuple[str, ...],
    anchor: Optional[str] = None,
    following: int = 0,
    more: tuple[str, ...] = (),
) -> Failure:
    return Failure(
        id=FAMILY_OF[component],
        mode=mode,
        component=component,
        patterns=(pattern, *more),
        codes=(),
        meaning=meaning,
        causes=("the class of the code (the table's own rule)",),
        fix="the fix of the code's class: `ampenv explain CODE`",
        confirm=None,
        sources=_sources(refs),
        hints=hints,
        rank=CLASS,
        decode=decode,
        anchor=anchor,
        following=following,
    )


def families(owners: dict[str, Failure]) -> tuple[Failure, ...]:
    """The code families. A code an entry owns (``owners``) decodes to that entry: its patterns
    know the code's usual wordings, the family catches the others."""

    def owned_or(decoder: Callable[[str], Optional[Failure]], prefix: str = ""):
        def by_code(m: re.Match[str]) -> Optional[Failure]:
            code = m.group("code")
            return owners.get(prefix + code) or decoder(code)

        return by_code

    def by_e_code(m: re.Match[str]) -> Optional[Failure]:
        code = m.group("code")
        owner = owners.get(code)
        text = m.group("text")
        if "title" in m.re.groupindex:  # a title's brackets: a code CANN's tables know only
            if owner is None and lookup(code) is None:
                return None
            text = f"{m.group('title')}{text}"
        elif "after" in m.re.groupindex:  # a title after it: a code of CANN's own table only
            if owner is None and not tables.known_e_code(code):
                return None
            text = f"{m.group('after')}{text}"
        return owner or e_code(code, text, m.string[m.end() :])

    return (
        _family(
            "acl",
            CODE_CONTEXT + r"\s?(?P<code>[1-5]\d{5})(?!\d)",
            f"an ACL, runtime or GE return code ({len(tables.ACL)} in the table): its name, its "
            "meaning, and the fix of its class",
            "core-exception",
            CODE_HINTS,
            owned_or(acl),
            tables.ACL_SOURCES,
        ),
        _family(
            "hccl",
            # torch_npu's report, or HCCL Test's ("hccl interface return err FILE:LINE,
            # retcode: 7")
            r"(?:HCCL function error ?:[^\n]{0,400}?error code is:? ?"
            r"|hccl interface return err [^\n]{0,200}?retcode: ?)(?P<code>\d{1,4})(?!\d)",
            "an HcclResult that torch_npu or HCCL Test reports for an HCCL call",
            "hccl",
            ("error", "err"),
            owned_or(hccl),
            tables.HCCL_SOURCES,
        ),
        _family(
            "torch_npu",
            r"(?-i:\bERR(?P<code>0[0-4]\d{3}) (?:PTA|OPS|DIST|GRAPH|PROF)\b)",
            "a torch_npu error code: ERR, two digits of its submodule, three of its class",
            "core-exception",
            ("err",),
            owned_or(torch_npu, "ERR"),
            tables.TORCH_NPU_SOURCES,
        ),
        _family(
            "cann",
            r"(?<![A-Za-z0-9_/])(?-i:(?P<code>E[0-9A-Z]\d{4}))(?:\)?:|\]|\s+Inner Error)"
            r"(?P<text>[^\n]{0,400})",
            "a CANN error code (E, its module, its number): the module, and whether it is the "
            "user's to fix or internal",
            "core-exception",
            (),
            by_e_code,
            (tables.E_CODE_FORMAT,),
            # No look-behind here: it would cost the regex its literal-prefix search (30x
            # slower on a 64 MiB tail); the pattern above checks the boundary on the line.
            # the title form's "(" looked behind at the end: the search keeps its literal E (a
            # branch of its own, or a look-behind first, made every log's search five times
            # slower)
            anchor=r"E[0-9A-Z]\d{4}(?:\)?(?::|：)|\]|\s+Inner Error|\)(?<=\(E[0-9A-Z]\d{4}\))"
            r"| (?=[A-Z][A-Za-z0-9]{0,30}_[A-Za-z]))",
            following=3,
            # CANN's newer title form, "Communication_Error_Bind_IP_Port(EI0020)": a title of
            # words joined by "_" before the code in brackets, or after it ("EL0005
            # Resource_Busy", as notes copy it)
            more=(
                r"(?<![\w(])(?P<title>[A-Za-z][A-Za-z0-9]{0,30}(?:_[A-Za-z0-9]{1,30}){1,8})"
                r"\((?-i:(?P<code>E[0-9A-Z]\d{4}))\)(?P<text>[^\n]{0,400})",
                r"(?<![\w/])(?-i:(?P<code>E[0-9A-Z]\d{4})) "
                r"(?P<after>[A-Z][A-Za-z0-9]{0,30}(?:_[A-Za-z0-9]{1,30}){1,8})\b"
                r"(?P<text>[^\n]{0,400})",
            ),
        ),
        Failure(
            id=FAMILY_OF["driver"],
            mode="driver",
            component="driver",
            patterns=DRV_PATTERNS,
            codes=(),
            meaning="a return code of the NPU driver (drvError_t) that a driver call, DSMI or "
            "the runtime logged on an error's line: its name, and the fix of its class",
            causes=("the class of the code (the table's own rule)",),
            fix="the fix of the code's class: `ampenv explain drv-error-N`",
            confirm=None,
            sources=_sources(tables.DRV_SOURCES),
            hints=("fail", "err", "ret", "unable"),
            rank=CLASS,
            decode=lambda m: driver(m.group("code")),
            judge=_an_error_s_line,
        ),
    )


def lookup(code: str) -> Optional[Failure]:
    """A bare code (``507011``, ``-8007``, ``ERR02200``, ``EK0001``) its table lists, decoded;
    None for a code no table lists (``599999``, ``E00000``): `ampenv explain` calls it unknown.

    DCMI codes are decoded here for `ampenv explain` but not scanned for in logs: no public log
    shows one other than -8005 and -8020, which have entries of their own, so a DCMI family
    would have no real example to be tested on."""
    if code in tables.ACL:
        return acl(code)
    if code in tables.DCMI:
        return dcmi(code)
    if re.fullmatch(r"ERR0[0-4]\d{3}", code):
        return torch_npu(code[3:])
    if re.fullmatch(r"[EW][0-9A-Z]\d{4}", code) and (
        tables.known_e_code(code) or code[:2] in tables.E_MODULES
    ):
        return e_code(code, "")
    return None


def by_id(fid: str) -> Optional[Failure]:
    """A decoded code by the id a scan reported it under ("cann-ei0006", "acl-507035",
    "hccl-result-7", "torch-npu-err00100", "dcmi-8001", "drv-error-87"): `ampenv explain`
    takes those too."""
    decoders: tuple[tuple[str, Callable[[str], Optional[Failure]]], ...] = (
        ("cann-", lambda c: lookup(c.upper())),
        ("acl-", lambda c: acl(c) if re.fullmatch(r"[1-5]\d{5}", c) else None),
        ("hccl-result-", hccl),
        ("torch-npu-err", lambda c: lookup("ERR" + c)),
        ("dcmi", lookup),
        ("drv-error-", driver),
    )
    for prefix, decode in decoders:
        if fid.startswith(prefix):
            found = decode(fid[len(prefix) :])
            if found is not None and found.id == fid:
                return found
    return None


# Every check a decoded code may name to confirm it (logs.errors runs after them), from the
# decoders themselves over every code their tables list and one unlisted code per ACL class, so
# a new class or row cannot name a check the log scan does not wait for.
CONFIRMS = frozenset(
    f.confirm
    for f in (
        *(acl(c) for c in (*tables.ACL, *(d + "99999" for d in ACL_CLASSES))),
        *(hccl(c) for c in tables.HCCL),
        *(dcmi(c) for c in tables.DCMI),
    )
    if f is not None and f.confirm
)
