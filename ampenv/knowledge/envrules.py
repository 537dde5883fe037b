"""The Ascend and HCCL environment variables, as data: what each does, which values are valid,
which are suspicious, and the line that fixes it.

One :class:`Rule` per variable, built from a handful of generic validators (:class:`OneOf`,
:class:`Range`, :class:`Matches`, :class:`Parsed`, :class:`ListOf`, :class:`Options`,
:class:`Path`). Chip-dependent ranges are :class:`Variant`\\ s; suspicious values and
conflicts with other variables are :class:`Caveat`\\ s. :func:`judge` turns a rule and a value
into :class:`~ampenv.checks.Finding`\\ s, and every warn or fail it returns carries the exact
``export VAR=value`` or ``unset VAR`` that fixes it.

Sources: ../shared/reference/ascend-facts.md §4 (hiascend env-var pages, quoted by page id)
and Ascend/pytorch ``torch_npu/csrc/framework/interface/EnvVariables.cpp`` for the keys that
torch_npu takes only through ``torch.npu.set_option``.
"""

from __future__ import annotations

import ipaddress
import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol, Union

from ampenv.core.model import Finding, Status
from ampenv.probe.chips import UNKNOWN
from ampenv.util.redact import redact

# Operators a training workload cannot afford to compile online on every new shape.
KEY_OPS = (
    "Conv2D",
    "Conv2DBackpropInput",
    "Conv2DBackpropFilter",
    "MatMul",
    "MatMulV2",
    "BatchMatMul",
    "BatchMatMulV2",
)


INTEGER = r"[+-]?[0-9]+"
NUMBER = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"


@dataclass(frozen=True)
class Node:
    """What a rule may depend on besides the value: the other variables, the chip family
    (:data:`UNKNOWN` on a CPU machine or a container build), the device count, and a way to
    ask whether a path exists (through the probe, so planted nodes and bundles work)."""

    env: Mapping[str, str] = field(default_factory=dict)
    chip: str = UNKNOWN
    device_count: Optional[int] = None
    path_exists: Optional[Callable[[str], bool]] = None


@dataclass(frozen=True)
class Problem:
    """What a validator found. ``what`` completes "NAME=value ..."; ``subject`` names the part
    of the value it is about (None: the whole value); ``fix`` is a value that would be right;
    ``remedy`` replaces the export/unset line when a value cannot say it (may use {name})."""

    status: Status
    what: str
    fix: Optional[str] = None
    subject: Optional[str] = None
    remedy: Optional[str] = None


class Validator(Protocol):
    def problems(self, value: str, node: Node) -> list[Problem]: ...

    def describe(self) -> str: ...


def _accepts(check: Validator, value: str, node: Node) -> bool:
    return not any(p.status is Status.FAIL for p in check.problems(value, node))


def number_text(x: float) -> str:
    """600 rather than 600.0."""
    return str(int(x)) if float(x).is_integer() else str(x)


# -- the generic validators -------------------------------------------------------------------


@dataclass(frozen=True)
class OneOf:
    values: tuple[str, ...]

    def problems(self, value: str, node: Node) -> list[Problem]:
        if value in self.values:
            return []
        return [Problem(Status.FAIL, f"is not valid (valid: {self.describe()})")]

    def describe(self) -> str:
        return ", ".join(self.values)


def one_of(*values: str) -> OneOf:
    return OneOf(values)


@dataclass(frozen=True)
class Range:
    """A number in [lo, hi] (open ends optional). With ``step``, CANN rounds the value down
    to a multiple of it, never below one step."""

    lo: Optional[float] = None
    hi: Optional[float] = None
    integer: bool = True
    lo_open: bool = False
    hi_open: bool = False
    step: Optional[int] = None
    unit: str = ""

    def problems(self, value: str, node: Node) -> list[Problem]:
        # [0-9], not \d: CANN parses ASCII digits only, and \d takes '٣٠٠' too.
        pattern = INTEGER if self.integer else NUMBER
        if not re.fullmatch(pattern, value):
            kind = "an integer" if self.integer else "a number"
            return [Problem(Status.FAIL, f"is not {kind} (valid: {self.describe()})")]
        x = int(value) if self.integer and len(value) < 40 else float(value)  # int() caps digits
        if not math.isfinite(x):
            return [Problem(Status.FAIL, f"is out of range (valid: {self.describe()})")]
        below = self.lo is not None and (x <= self.lo if self.lo_open else x < self.lo)
        above = self.hi is not None and (x >= self.hi if self.hi_open else x > self.hi)
        if below or above:
            edge = self.lo if below else self.hi
            open_edge = self.lo_open if below else self.hi_open
            fix = None if open_edge or edge is None else number_text(edge)
            return [Problem(Status.FAIL, f"is out of range (valid: {self.describe()})", fix)]
        if self.step and x % self.step:
            used = max(self.step, int(x) - int(x) % self.step)
            return [
                Problem(
                    Status.WARN,
                    f"is not a multiple of {self.step}: CANN uses {used}{self.unit} instead",
                    str(used),
                )
            ]
        return []

    def describe(self) -> str:
        unit = self.unit
        if self.lo is not None and self.hi is not None:
            left, right = "(" if self.lo_open else "[", ")" if self.hi_open else "]"
            text = f"{left}{number_text(self.lo)}, {number_text(self.hi)}{right}{unit}"
        elif self.lo is not None:
            text = f"{'>' if self.lo_open else '>='} {number_text(self.lo)}{unit}"
        elif self.hi is not None:
            text = f"{'<' if self.hi_open else '<='} {number_text(self.hi)}{unit}"
        else:
            text = "any integer" if self.integer else "any number"
        return text + (f", in steps of {self.step}" if self.step else "")


@dataclass(frozen=True)
class Matches:
    """Syntax by regular expression (the whole value must match)."""

    regex: str
    shape: str

    def problems(self, value: str, node: Node) -> list[Problem]:
        if re.fullmatch(self.regex, value):
            return []
        return [Problem(Status.FAIL, f"is not {self.shape}")]

    def describe(self) -> str:
        return self.shape


@dataclass(frozen=True)
class Parsed:
    """Syntax by a parser that raises ValueError."""

    parser: Callable[[str], object]
    shape: str

    def problems(self, value: str, node: Node) -> list[Problem]:
        try:
            self.parser(value)
        except ValueError:
            return [Problem(Status.FAIL, f"is not {self.shape}")]
        return []

    def describe(self) -> str:
        return self.shape


@dataclass(frozen=True)
class ListOf:
    """A separated list of items. ``ascending``: integers in strictly ascending order.
    ``device_ids``: every id below the node's device count. ``stops_at_invalid``: the reader
    drops everything from the first bad item on (said in the message)."""

    item: Validator
    sep: str = ","
    ascending: bool = False
    device_ids: bool = False
    stops_at_invalid: bool = False

    def problems(self, value: str, node: Node) -> list[Problem]:
        items = value.split(self.sep)
        problems: list[Problem] = []
        good: list[str] = []
        for item in items:
            found = (
                [Problem(Status.FAIL, "is an empty item")]
                if not item
                else self.item.problems(item, node)
            )
            bad = [p for p in found if p.status is Status.FAIL]
            for p in found:
                what = p.what
                if p.status is Status.FAIL and self.stops_at_invalid and not problems:
                    used = self.sep.join(good) or "nothing"
                    what += f"; parsing stops there, so only {used} is used"
                problems.append(Problem(p.status, what, subject=p.subject or repr(item)))
            if bad:
                cleaned = item.strip()
                if cleaned and not self.item.problems(cleaned, node):
                    good.append(cleaned)
            else:
                good.append(item)
        if self.ascending and not any(p.status is Status.FAIL for p in problems):
            ids = [int(i) for i in good]
            if ids != sorted(set(ids)):
                problems.append(Problem(Status.FAIL, "is not in strictly ascending order"))
        if self.device_ids and node.device_count is not None:
            missing = [i for i in good if i.isdigit() and int(i) >= node.device_count]
            if missing:
                n = node.device_count
                problems.append(
                    Problem(
                        Status.FAIL,
                        f"names {', '.join(missing)}, but this node has {n} device"
                        f"{'s' if n != 1 else ''} (ids 0..{n - 1})",
                    )
                )
                good = [i for i in good if i not in missing]
        if not problems:
            return []
        if self.ascending:
            good = [str(i) for i in sorted({int(i) for i in good})]
        fix = self.sep.join(good) or None
        return [Problem(p.status, p.what, fix, p.subject, p.remedy) for p in problems]

    def describe(self) -> str:
        order = ", ascending" if self.ascending else ""
        return f"a '{self.sep}'-separated list of {self.item.describe()}{order}"


@dataclass(frozen=True)
class Options:
    """``key<kv>value`` items separated by ``sep`` (PYTORCH_NPU_ALLOC_CONF, HCCL_ALGO). An
    item without ``kv`` is judged by ``bare`` when given. An unknown key reports ``unknown``."""

    keys: Mapping[str, Validator]
    sep: str = ","
    kv: str = ":"
    unknown: Status = Status.FAIL
    bare: Optional[Validator] = None

    def problems(self, value: str, node: Node) -> list[Problem]:
        problems: list[Problem] = []
        kept: list[str] = []
        for item in value.split(self.sep):
            found, repaired = self._item(item, node)
            problems += found
            if repaired is not None:
                kept.append(repaired)
        if not problems:
            return []
        fix = self.sep.join(kept) or None
        return [Problem(p.status, p.what, fix, p.subject, p.remedy) for p in problems]

    def _item(self, item: str, node: Node) -> tuple[list[Problem], Optional[str]]:
        """The item's problems, and what of it to keep in a fixed value (None: drop it)."""
        if self.kv not in item:
            if self.bare is None:
                what = f"is not key{self.kv}value"
                return [Problem(Status.FAIL, what, subject=repr(item))], None
            return self._nested(self.bare, item, "", node)
        key, val = item.split(self.kv, 1)
        check = self.keys.get(key)
        if check is None:
            known = ", ".join(self.keys)
            what = f"is not an option ampenv knows (known: {known})"
            return [Problem(self.unknown, what, subject=repr(key))], None
        return self._nested(check, val, f"{key}{self.kv}", node)

    @staticmethod
    def _nested(
        check: Validator, value: str, prefix: str, node: Node
    ) -> tuple[list[Problem], Optional[str]]:
        raw = check.problems(value, node)
        found = [Problem(p.status, p.what, subject=prefix + (p.subject or value)) for p in raw]
        if not any(p.status is Status.FAIL for p in raw):
            return found, prefix + value
        fixes = [p.fix for p in raw if p.fix is not None]
        return found, prefix + fixes[0] if fixes else None

    def describe(self) -> str:
        return f"'{self.sep}'-separated key{self.kv}value items ({', '.join(self.keys)})"


@dataclass(frozen=True)
class Path:
    """A directory or file path. ``chars``: the characters the reader accepts.
    ``must_exist``: a missing path warns, with ``missing_fix`` as the remedy."""

    chars: Optional[str] = None
    chars_shape: str = ""
    must_exist: bool = False
    missing_fix: str = "unset {name}"

    def problems(self, value: str, node: Node) -> list[Problem]:
        if not value:
            return [Problem(Status.FAIL, "is empty")]
        if self.chars:
            bad = sorted(set(re.sub(self.chars, "", value)))
            if bad:
                held = ", ".join(repr(c) for c in bad)
                what = f"holds {held}, which CANN does not accept ({self.chars_shape})"
                return [Problem(Status.FAIL, what)]
        if not value.startswith("/"):
            return [
                Problem(
                    Status.WARN,
                    "is a relative path: each process resolves it against its own working "
                    "directory",
                    remedy=f'export {{name}}="$(realpath {shlex.quote(value)})"',
                )
            ]
        if self.must_exist and node.path_exists is not None and not node.path_exists(value):
            return [Problem(Status.WARN, "does not exist on this node", remedy=self.missing_fix)]
        return []

    def describe(self) -> str:
        return "an absolute path" + (f" ({self.chars_shape})" if self.chars else "")


# -- conditions -------------------------------------------------------------------------------

# A condition on another variable: a value (matched case-insensitively), ANY_VALUE (set to
# anything) or None (unset).
ANY_VALUE = "*"
EnvCondition = Mapping[str, Optional[str]]


def _holds(chips: Sequence[str], env: EnvCondition, node: Node) -> bool:
    if chips and node.chip not in chips:
        return False
    for other, wanted in env.items():
        current = node.env.get(other)
        if wanted is None:
            if current not in (None, ""):
                return False
        elif current is None or (wanted != ANY_VALUE and current.lower() != wanted.lower()):
            return False
    return True


def _label(chips: Sequence[str], env: EnvCondition) -> str:
    parts = [f"on {'/'.join(chips)}"] if chips else []
    for other, wanted in env.items():
        if wanted is None:
            parts.append(f"while {other} is unset")
        elif wanted == ANY_VALUE:
            parts.append(f"while {other} is set")
        else:
            parts.append(f"with {other}={wanted}")
    return " ".join(parts)


@dataclass(frozen=True)
class Variant:
    """A validator that replaces the rule's own where the chip or another variable says so
    (the first that holds wins)."""

    check: Validator
    chips: tuple[str, ...] = ()
    env: EnvCondition = field(default_factory=dict)


@dataclass(frozen=True)
class Caveat:
    """A valid value that is still suspicious, or a conflict with another variable.
    ``values``: the values it concerns (a tuple, or a validator that accepts them; None: any).
    ``why`` completes "NAME=value ..."; ``why`` and ``fix`` may use {name}, {value},
    {default} and {chip}."""

    why: str
    fix: str = "unset {name}"
    values: Union[tuple[str, ...], Validator, None] = None
    chips: tuple[str, ...] = ()
    env: EnvCondition = field(default_factory=dict)
    status: Status = Status.WARN

    def concerns(self, value: str, node: Node) -> bool:
        if not _holds(self.chips, self.env, node):
            return False
        if self.values is None:
            return True
        if isinstance(self.values, tuple):
            return value in self.values
        return _accepts(self.values, value, node)


# -- rules ------------------------------------------------------------------------------------

READ_BY_ENV = "env"  # CANN or torch_npu reads the variable
READ_BY_SET_OPTION = "set_option"  # torch_npu takes it only through torch.npu.set_option
READ_BY_NOBODY = "nobody"  # no component reads it: only the cluster's contract gives it meaning

SET_OPTION_FIX = (
    "unset {name}; in the training script call "
    'torch.npu.set_option({{"{name}": "{value}"}}) after import torch_npu'
)


@dataclass(frozen=True)
class Rule:
    name: str
    family: str  # npu | hccl
    check: Validator
    default: Optional[str]  # the literal value the reader uses when unset (None: none/varies)
    does: str
    source: str
    read_by: str = READ_BY_ENV
    variants: tuple[Variant, ...] = ()
    caveats: tuple[Caveat, ...] = ()
    forbid: tuple[str, ...] = ()  # tokens the value must not hold (a check setting can change)
    forbid_why: str = ""
    # False where the reference could not confirm the valid values: invalid then only warns.
    confirmed: bool = True

    def validator(self, node: Node) -> tuple[Validator, str]:
        """The validator that applies on this node, and why it differs from the rule's own."""
        for v in self.variants:
            if _holds(v.chips, v.env, node):
                return v.check, _label(v.chips, v.env)
        return self.check, ""


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.name: r for r in rules}


BOOL01 = one_of("0", "1")
ABSOLUTE_PATH = Path()
TOOLKIT_PATH = Path(
    must_exist=True,
    missing_fix="unset {name}, or source the set_env.sh of the installed CANN "
    "(source /usr/local/Ascend/ascend-toolkit/set_env.sh; CANN 8.5+: "
    "/usr/local/Ascend/cann-<version>/set_env.sh)",
)
HCCL_ALGOS = ("ring", "H-D_R", "NHR", "NHR_V1", "NB", "pipeline")
# level0 (inside a server) only takes NA; other levels are not in the reference: they warn.
HCCL_LEVELS = Options(
    {"level0": one_of("NA"), "level1": OneOf(HCCL_ALGOS)}, sep=";", unknown=Status.WARN
)
HCCL_A2A_LEVELS = Options(
    {"level0": one_of("NA"), "level1": OneOf((*HCCL_ALGOS, "pairwise"))},
    sep=";",
    unknown=Status.WARN,
)
INTRA_CAVEATS = (
    Caveat(
        "is not supported on {chip}: only Atlas 300T Pro (910A) and 200T A2 Box16 read it",
        chips=("A3", "310P", "310B", "950"),
    ),
)
HCCL_OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "scatter")

RULES: dict[str, Rule] = _rules(
    # ---- runtime and torch_npu ----------------------------------------------------------
    Rule(
        "ASCEND_RT_VISIBLE_DEVICES",
        "npu",
        ListOf(Range(0), ascending=True, device_ids=True, stops_at_invalid=True),
        None,
        "logical device ids this process may use, re-indexed from 0 (default: all)",
        "CANN envref_07_0028",
    ),
    Rule(
        "ASCEND_LAUNCH_BLOCKING",
        "npu",
        BOOL01,
        "0",
        "1 runs every operator synchronously: exact stack traces, no overlap",
        "torch_npu Envir_006",
        caveats=(
            Caveat(
                "runs every operator synchronously: the host waits for each kernel, training "
                "slows down several times and TASK_QUEUE_ENABLE is forced off; use it only to "
                "find a failing operator",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "TASK_QUEUE_ENABLE",
        "npu",
        one_of("0", "1", "2"),
        "1",
        "operator dispatch pipeline: 0 off, 1 on, 2 level-2 pipeline (binary kernels only)",
        "torch_npu Envir (task queue); ascend-facts.md §4",
        caveats=(
            Caveat(
                "turns the task queue off: operators are dispatched from the Python thread "
                "and host-bound steps slow down",
                fix="export {name}={default}",
                values=("0",),
            ),
            Caveat(
                "has no effect: ASCEND_LAUNCH_BLOCKING=1 forces the task queue off",
                fix="unset ASCEND_LAUNCH_BLOCKING",
                env={"ASCEND_LAUNCH_BLOCKING": "1"},
            ),
        ),
    ),
    Rule(
        "COMBINED_ENABLE",
        "npu",
        BOOL01,
        None,
        "1 optimises non-contiguous two-operator combinations",
        "MindSpeed-LLM env table (Pytorch/710 Envir_005)",
        confirmed=False,
    ),
    Rule(
        "PYTORCH_NPU_ALLOC_CONF",
        "npu",
        Options(
            {
                "max_split_size_mb": Range(20, lo_open=True, unit=" MB"),
                "garbage_collection_threshold": Range(
                    0, 1, integer=False, lo_open=True, hi_open=True
                ),
                "expandable_segments": one_of("True", "False"),
                "base_addr_aligned_kb": Range(0, 16, unit=" KB"),
                "page_size": one_of("1g"),
                "segment_size_mb": Range(1, unit=" MB"),
            },
            unknown=Status.WARN,
        ),
        None,
        "caching allocator options of torch_npu, read once when the allocator starts",
        "torch_npu Envir_009/011",
        caveats=(
            Caveat(
                "is set together with PYTORCH_ALLOC_CONF: torch_npu 26.2.0+ with torch 2.10+ "
                "exits at start, older releases ignore PYTORCH_ALLOC_CONF",
                fix="unset PYTORCH_ALLOC_CONF",
                env={"PYTORCH_ALLOC_CONF": ANY_VALUE},
                status=Status.FAIL,
            ),
            Caveat(
                "combines expandable_segments:True with max_split_size_mb or "
                "garbage_collection_threshold, which older torch_npu releases refuse",
                fix="export {name}=expandable_segments:True",
                values=Matches(
                    r"(?=.*expandable_segments:True)"
                    r"(?=.*(max_split_size_mb|garbage_collection_threshold)).*",
                    "",
                ),
            ),
        ),
    ),
    Rule(
        "INF_NAN_MODE_ENABLE",
        "npu",
        BOOL01,
        "1",
        "1 computes with IEEE inf/NaN, 0 saturates (fp16 overflow gives ±65504, NaN gives 0)",
        "torch_npu Envir_004",
        caveats=(
            Caveat(
                "is ignored on {chip}: it computes in saturation mode only (fp16 overflow "
                "gives ±65504, so loss scaling must use the float-status flag)",
                chips=("910A", "310P", "310B"),
            ),
            Caveat(
                "is intercepted on {chip} unless INF_NAN_MODE_FORCE_DISABLE=1: the job still "
                "runs in INF/NaN mode",
                values=("0",),
                chips=("910B", "A3"),
                env={"INF_NAN_MODE_FORCE_DISABLE": None},
            ),
            Caveat(
                "asks for saturation mode, which 910A always uses and A2/A3 apply only with "
                "INF_NAN_MODE_FORCE_DISABLE=1 (chip unknown here)",
                values=("0",),
                chips=(UNKNOWN,),
            ),
        ),
    ),
    Rule(
        "INF_NAN_MODE_FORCE_DISABLE",
        "npu",
        one_of("1"),
        None,
        "1 lets INF_NAN_MODE_ENABLE=0 force saturation mode on A2/A3",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
        caveats=(
            Caveat(
                "with INF_NAN_MODE_ENABLE=0 forces saturation mode on {chip}: fp16 overflow "
                "becomes ±65504 instead of inf, loss scaling cannot see it in the gradients, "
                "and Huawei keeps this mode for compatibility only",
                fix="unset {name} INF_NAN_MODE_ENABLE",
                values=("1",),
                chips=("910B", "A3"),
                env={"INF_NAN_MODE_ENABLE": "0"},
            ),
        ),
    ),
    Rule(
        "ASCEND_GLOBAL_LOG_LEVEL",
        "npu",
        one_of("0", "1", "2", "3", "4"),
        "3",
        "CANN log level: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR, 4 NULL; "
        "any other value silently falls back to 3",
        "CANN envref_07_0122",
        caveats=(
            Caveat(
                "logs below ERROR (0 DEBUG, 1 INFO, 2 WARNING): the log volume costs host CPU "
                "and disk I/O on every step and slows training",
                fix="export {name}={default}",
                values=("0", "1", "2"),
            ),
        ),
    ),
    Rule(
        "ASCEND_SLOG_PRINT_TO_STDOUT",
        "npu",
        BOOL01,
        "0",
        "1 prints CANN logs to the screen instead of writing log files",
        "CANN envref_07_0121 (via a third-party table)",
        caveats=(
            Caveat(
                "prints CANN logs to stdout instead of log files: printing slows the job, "
                "floods its output, and leaves no plog for diagnosis",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "ASCEND_PROCESS_LOG_PATH",
        "npu",
        ABSOLUTE_PATH,
        None,
        "log root (created if missing); wins over ASCEND_WORK_PATH and $HOME/ascend/log",
        "CANN envref_07_0120",
    ),
    Rule(
        "ASCEND_WORK_PATH",
        "npu",
        ABSOLUTE_PATH,
        None,
        "work root used for logs when ASCEND_PROCESS_LOG_PATH is unset",
        "CANN envref_07_0120",
    ),
    Rule(
        "ASCEND_CACHE_PATH",
        "npu",
        Path(
            chars=r"[A-Za-z0-9_.\-/\u4e00-\u9fff]",
            chars_shape="letters, digits, _ . - / and Chinese",
            must_exist=True,
            missing_fix="mkdir -p {value} (CANN 9.0 requires it to exist with rwx), "
            "or unset {name}",
        ),
        None,
        "shared cache root: kernel_cache (operator compile cache) and aoe_data; "
        "all hosts sharing it must run the same chip, driver, firmware and CANN",
        "CANN envref_07_0006",
    ),
    Rule(
        "ACL_OP_COMPILER_CACHE_DIR",
        "npu",
        ABSOLUTE_PATH,
        None,
        "operator compile cache; wins over ASCEND_CACHE_PATH and $HOME/atc_data",
        "CANN envref_07_0006; torch_npu Pytorch/720 env list",
    ),
    Rule(
        "ACL_OP_COMPILER_CACHE_MODE",
        "npu",
        one_of("enable", "disable", "force"),
        None,
        "operator compile cache mode",
        "torch_npu Pytorch/720 env list (values not confirmed)",
        confirmed=False,
    ),
    Rule(
        "GE_USE_STATIC_MEMORY",
        "npu",
        one_of("0", "1", "2", "3", "4"),
        "0",
        "graph memory: 0 dynamic, 2 dynamic-extend (static shape), 3 (dynamic shape), "
        "4 both; to be deprecated; 2 and 4 forbid concurrent graphs",
        "CANN envref_07_0138",
        caveats=(
            Caveat(
                "is treated as 2 (on CANN 5.x/6.0 it meant static allocation of ~26-31 GB)",
                fix="export {name}=2",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "TORCHAIR_CACHE_HOME",
        "npu",
        ABSOLUTE_PATH,
        None,
        "torchair graph cache root",
        "vllm-ascend PR #2532",
    ),
    # ---- set by set_env.sh: a stale path means another CANN's set_env.sh was sourced ------
    *(
        Rule(
            name,
            "npu",
            TOOLKIT_PATH,
            None,
            f"{what}, exported by the toolkit's set_env.sh",
            "ascend-facts.md §2 (set_env.sh exports)",
        )
        for name, what in (
            ("ASCEND_HOME_PATH", "CANN home"),
            ("ASCEND_TOOLKIT_HOME", "CANN toolkit home"),
            ("ASCEND_OPP_PATH", "operator package root"),
            ("ASCEND_AICPU_PATH", "AI CPU kernel root"),
            ("TOOLCHAIN_HOME", "toolchain root"),
        )
    ),
    # ---- torch.npu.set_option keys: no effect as environment variables --------------------
    Rule(
        "NPU_FUZZY_COMPILE_BLACKLIST",
        "npu",
        ListOf(Matches(r"[A-Za-z][A-Za-z0-9_]*", "an operator type such as SoftmaxV2")),
        None,
        "operators excluded from binary (fuzzy) kernels and compiled online instead",
        "torch_npu EnvVariables.cpp REGISTER_OPTION_HOOK; CANN ptaoplist",
        read_by=READ_BY_SET_OPTION,
        forbid=KEY_OPS,
        forbid_why="key operators of the workload would compile online on every new shape: "
        "the first steps stall and every new input shape recompiles",
    ),
    Rule(
        "ACL_PRECISION_MODE",
        "npu",
        one_of(
            "force_fp32",
            "cube_fp16in_fp32out",
            "force_fp16",
            "allow_fp32_to_fp16",
            "must_keep_origin_dtype",
            "allow_mix_precision",
            "allow_mix_precision_fp16",
        ),
        None,
        "operator precision mode (default allow_fp32_to_fp16 on 910A, "
        "must_keep_origin_dtype on A2/A3)",
        "torch_npu EnvVariables.cpp; CANN PT_LMTMOG_0076",
        read_by=READ_BY_SET_OPTION,
        caveats=(
            Caveat(
                "runs fp32 operators in fp16: the parts AMP keeps in fp32 (losses, norms, "
                "master weights' math) lose precision",
                values=("force_fp16",),
            ),
            Caveat(
                "lets fp32 operators fall back to fp16 on {chip}, whose default keeps fp32 "
                "(must_keep_origin_dtype)",
                values=("allow_fp32_to_fp16",),
                chips=("910B", "A3"),
            ),
        ),
    ),
    Rule(
        "ACL_OP_SELECT_IMPL_MODE",
        "npu",
        one_of("high_precision", "high_performance"),
        None,
        "operator implementation mode; any other value is a TORCH_CHECK error",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
    ),
    Rule(
        "MM_BMM_ND_ENABLE",
        "npu",
        one_of("enable", "disable"),
        "enable",
        "ND format for MatMul/BatchMatMul",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
    ),
    Rule(
        "ACL_OP_DEBUG_OPTION",
        "npu",
        one_of("oom"),
        None,
        "operator debug option (oom: detect out-of-bounds memory access)",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
        confirmed=False,
    ),
    # ---- Ascend Docker Runtime ----------------------------------------------------------
    Rule(
        "ASCEND_VISIBLE_DEVICES",
        "npu",
        ListOf(Matches(r"[0-9]+(-[0-9]+)?", "a device id or an id range a-b")),
        None,
        "physical NPUs the Ascend Docker Runtime mounts into the container",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    Rule(
        "ASCEND_RUNTIME_OPTIONS",
        "npu",
        ListOf(one_of("NODRV", "VIRTUAL")),
        None,
        "Ascend Docker Runtime options",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    Rule(
        "ASCEND_VNPU_SPECS",
        "npu",
        Matches(r"vir[0-9]+(_[A-Za-z0-9]+)*", "a vNPU template such as vir04 or vir03_1c_8g"),
        None,
        "vNPU template the Ascend Docker Runtime creates",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    # ---- HCCL ---------------------------------------------------------------------------
    Rule(
        "HCCL_CONNECT_TIMEOUT",
        "hccl",
        Range(120, 7200, unit=" s"),
        "120",
        "socket link-setup timeout at communicator init (effective: value + 20 s)",
        "CANN envref_07_0077/0149",
    ),
    Rule(
        "HCCL_EXEC_TIMEOUT",
        "hccl",
        Range(0, 2147483647, unit=" s"),
        "1836",
        "collective execution timeout (CANN 6.x default 1800); 0 on A2/A3 never times out",
        "CANN envref_07_0078",
        variants=(
            Variant(Range(0, 17340, lo_open=True, step=68, unit=" s"), chips=("910A", "310P")),
            Variant(Range(0, 1091, unit=" s"), env={"HCCL_OP_EXPANSION_MODE": "AIV"}),
        ),
        caveats=(
            Caveat(
                "never times out: when a rank dies, the others hang until the job is killed",
                fix="export {name}={default}",
                values=("0",),
            ),
        ),
    ),
    Rule(
        "HCCL_BUFFSIZE",
        "hccl",
        Range(1, unit=" MB"),
        "200",
        "HCCL buffer per communicator; each communicator takes 2 x HCCL_BUFFSIZE of HBM",
        "CANN envref_07_0080",
        caveats=(
            Caveat(
                "reserves 2 x {value} MB of HBM per communicator (CANN 6.3 capped it at "
                "2048): jobs with many communicators run out of device memory",
                fix="export {name}={default}",
                values=Range(2049),
            ),
        ),
    ),
    Rule(
        "HCCL_ALGO",
        "hccl",
        Options(
            {op: HCCL_LEVELS for op in HCCL_OPS} | {"alltoall": HCCL_A2A_LEVELS},
            sep="/",
            kv="=",
            unknown=Status.WARN,
            bare=HCCL_LEVELS,
        ),
        None,
        "collective algorithm per level, e.g. level0:NA;level1:ring, or per operator "
        "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise (default: auto)",
        "CANN envref_07_0083/0086",
    ),
    Rule(
        "HCCL_OP_EXPANSION_MODE",
        "hccl",
        one_of("AI_CPU", "AIV", "HOST", "HOST_TS", "CCU_MS"),
        None,
        "where collectives are expanded (product default, usually HOST); "
        "unsupported values fall back to the default",
        "CANN envref_07_0096",
        caveats=(
            Caveat(
                "is supported on A2 for inference only (800T A2, 900 A2 PoD, 200T A2 Box16)",
                values=("AIV",),
                chips=("910B",),
            ),
            Caveat(
                "exists only on 950: {chip} falls back to its default",
                values=("CCU_MS",),
                chips=("910A", "910B", "A3", "310P", "310B"),
            ),
            Caveat(
                "is ignored while HCCL_DETERMINISTIC=true",
                fix="unset {name}",
                env={"HCCL_DETERMINISTIC": "true"},
            ),
        ),
    ),
    Rule(
        "HCCL_INTRA_PCIE_ENABLE",
        "hccl",
        BOOL01,
        "1",
        "PCIe links between NPUs of one server (Atlas 300T Pro and 200T A2 Box16 only)",
        "CANN hcclenvref_07_0006",
        caveats=(
            *INTRA_CAVEATS,
            Caveat(
                "with HCCL_INTRA_ROCE_ENABLE=1 enables both paths, which is not supported",
                fix="unset HCCL_INTRA_ROCE_ENABLE",
                values=("1",),
                env={"HCCL_INTRA_ROCE_ENABLE": "1"},
                status=Status.FAIL,
            ),
            Caveat(
                "while HCCL_INTRA_ROCE_ENABLE is unset is rejected by newer CANN",
                fix="export HCCL_INTRA_ROCE_ENABLE=1",
                values=("0",),
                env={"HCCL_INTRA_ROCE_ENABLE": None},
            ),
        ),
    ),
    Rule(
        "HCCL_INTRA_ROCE_ENABLE",
        "hccl",
        BOOL01,
        "0",
        "RoCE links between NPUs of one server (Atlas 300T Pro and 200T A2 Box16 only)",
        "CANN hcclenvref_07_0006",
        caveats=(
            *INTRA_CAVEATS,
            Caveat(
                "while HCCL_INTRA_PCIE_ENABLE is unset is rejected by newer CANN",
                fix="export HCCL_INTRA_PCIE_ENABLE=1",
                values=("0",),
                env={"HCCL_INTRA_PCIE_ENABLE": None},
            ),
        ),
    ),
    Rule(
        "HCCL_OP_LEVEL",
        "hccl",
        Matches(r".*", "any value"),
        None,
        "not read by CANN or torch_npu (no documentation or code mentions it); "
        "meaningful only as the cluster's own convention",
        "ascend-facts.md §4 (NOT CONFIRMED: does not exist)",
        read_by=READ_BY_NOBODY,
    ),
    Rule(
        "HCCL_PROTOCOL",
        "hccl",
        Matches(r".*", "any value"),
        None,
        "not in any HCCL variable list",
        "ascend-facts.md §4 (NOT CONFIRMED)",
        read_by=READ_BY_NOBODY,
    ),
    Rule(
        "HCCL_WHITELIST_DISABLE",
        "hccl",
        BOOL01,
        None,
        "1 turns the HCCL communication whitelist off",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_DETERMINISTIC",
        "hccl",
        one_of("true", "false"),
        "false",
        "deterministic reductions (HCCL_OP_EXPANSION_MODE is then ignored)",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_IF_IP",
        "hccl",
        Parsed(ipaddress.ip_address, "an IPv4 or IPv6 address"),
        None,
        "IP address of the interface HCCL uses for host communication",
        "torch_npu Pytorch/720 env list",
    ),
    Rule(
        "HCCL_SOCKET_IFNAME",
        "hccl",
        Matches(
            r"[\^=]{0,2}[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*",
            "interface names such as eth0,enp189s0f0",
        ),
        None,
        "network interfaces HCCL may use for host communication",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_ASYNC_ERROR_HANDLING",
        "hccl",
        BOOL01,
        None,
        "torch_npu watchdog: abort the process group on a collective error",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_DESYNC_DEBUG",
        "hccl",
        BOOL01,
        None,
        "torch_npu: report which rank desynchronised on a timeout",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_EVENT_TIMEOUT",
        "hccl",
        Range(0, unit=" s"),
        None,
        "torch_npu: timeout of HCCL event waits",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "P2P_HCCL_BUFFSIZE",
        "hccl",
        Range(1, unit=" MB"),
        None,
        "buffer of point-to-point communicators",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "TORCH_HCCL_ZERO_COPY",
        "hccl",
        BOOL01,
        None,
        "torch_npu: zero-copy collectives",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "RANK_TABLE_FILE",
        "hccl",
        Path(must_exist=True, missing_fix="export {name}=<path of this job's rank table JSON>"),
        None,
        "HCCL rank table of the job",
        "torch_npu Pytorch/720 env list",
    ),
)

# Variables with these prefixes belong to a family even without a rule (typos, the contract).
FAMILY_PREFIXES = {
    "hccl": ("HCCL_", "P2P_HCCL_", "TORCH_HCCL_"),
    "npu": (
        "ASCEND_",
        "ACL_",
        "GE_",
        "NPU_",
        "INF_NAN_",
        "PYTORCH_NPU_",
        "TASK_QUEUE_",
        "TORCHAIR_",
        "COMBINED_",
    ),
}


def family_of(name: str) -> Optional[str]:
    rule = RULES.get(name)
    if rule:
        return rule.family
    for family, prefixes in FAMILY_PREFIXES.items():
        if name.startswith(prefixes):
            return family
    return None


# -- judging ----------------------------------------------------------------------------------


def shown(name: str, value: str) -> str:
    """NAME=value as a report may show it: redacted, and quoted when the shell would need it."""
    return f"{name}={shlex.quote(redact(name, value))}"


def export_line(name: str, value: Optional[str]) -> str:
    """The shell line that sets (or, for None, unsets) a variable."""
    return f"unset {name}" if value is None else f"export {name}={shlex.quote(value)}"


def _format(template: str, rule: Rule, value: str, node: Node) -> str:
    return template.format(
        name=rule.name,
        value=redact(rule.name, value),
        default=rule.default if rule.default is not None else "",
        chip=node.chip,
    )


def _remedy(rule: Rule, value: str, problem: Problem) -> str:
    if problem.remedy:
        return problem.remedy.format(name=rule.name, value=value)
    fix = problem.fix if problem.fix is not None else rule.default
    if rule.read_by == READ_BY_SET_OPTION and fix is not None:
        return SET_OPTION_FIX.format(name=rule.name, value=fix)
    return export_line(rule.name, fix)


def tokens(value: str) -> set[str]:
    """The words of a value (split on , ; : / = and blanks), lower-cased: what forbid matches."""
    return {t.lower() for t in re.split(r"[,;:/=\s]+", value) if t}


def _forbidden(rule: Rule, value: str, what: str, forbid: Sequence[str]) -> Optional[Finding]:
    held = tokens(value)
    bad = [t for t in forbid if t.lower() in held]
    if not bad:
        return None
    gone = {b.lower() for b in bad}
    fix = ",".join(t for t in value.split(",") if t.strip().lower() not in gone) or None
    line = (
        SET_OPTION_FIX.format(name=rule.name, value=fix)
        if rule.read_by == READ_BY_SET_OPTION and fix
        else export_line(rule.name, fix)
    )
    return Finding(Status.FAIL, f"{what} holds {', '.join(bad)}: {rule.forbid_why}", line)


def judge(
    rule: Rule,
    value: str,
    node: Node,
    *,
    in_contract: bool = False,
    forbid: Optional[Sequence[str]] = None,
) -> list[Finding]:
    """Every finding about one variable that is set. ``in_contract``: the cluster's contract
    names it (a variable nothing reads is then left to the contract). ``forbid``: the tokens
    the value must not hold (None: the rule's own; pass () when the contract judges them)."""
    what = shown(rule.name, value)
    if rule.read_by == READ_BY_NOBODY:
        if in_contract:
            return []  # the contract's own finding says what is expected, and that CANN ignores it
        return [
            Finding(
                Status.WARN,
                f"{what} has no effect: CANN does not read {rule.name}, and the cluster's "
                "contract ([env] in ampenv.toml) does not name it",
                f"unset {rule.name}, or state the cluster's value in ampenv.toml: "
                f'[env] {rule.name} = "{redact(rule.name, value)}"',
            )
        ]

    check, where = rule.validator(node)
    problems = check.problems(value, node)
    valid = not any(p.status is Status.FAIL for p in problems)
    forbidden = _forbidden(rule, value, what, rule.forbid if forbid is None else forbid)
    findings: list[Finding] = []
    if rule.read_by == READ_BY_SET_OPTION:
        if forbidden:
            line = forbidden.remedy or ""
        elif valid:
            line = SET_OPTION_FIX.format(name=rule.name, value=value)
        else:
            line = f"unset {rule.name}"
        findings.append(
            Finding(
                Status.WARN,
                f"{what} is set as an environment variable, but torch_npu reads "
                f"{rule.name} only through torch.npu.set_option: here it has no effect",
                line,
            )
        )
    for p in problems:
        status, reason = p.status, p.what
        if status is Status.FAIL and not rule.confirmed:
            status = Status.WARN
            reason += " (the reference could not confirm the valid values)"
        subject = f"{what}: {p.subject}" if p.subject else what
        message = f"{subject} {reason}" + (f" ({where})" if where else "")
        findings.append(Finding(status, message, _remedy(rule, value, p)))
    if forbidden:
        findings.append(forbidden)
    for caveat in rule.caveats:
        # A caveat about particular values says nothing new about a value already invalid.
        if (valid or caveat.values is None) and caveat.concerns(value, node):
            reason = _format(caveat.why, rule, value, node)
            findings.append(
                Finding(caveat.status, f"{what} {reason}", _format(caveat.fix, rule, value, node))
            )
    if not findings:
        findings.append(Finding(Status.PASS, what + (f" (valid {where})" if where else "")))
    return findings
