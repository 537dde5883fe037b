"""Families of codes read from the official tables: a code that has no catalogue entry of its
own still gets its name, its meaning and the fix of its class.

A family is one catalogue entry whose pattern captures the code (group ``code``). The scanner
hands each match to the family's ``decode``, which returns the code's own failure (one finding
per code) or None where the catalogue knows the code by an entry of its own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Optional

import ampenv.knowledge.failures.code_tables as tables
import ampenv.knowledge.failures.e_codes as e_codes
from ampenv.knowledge.failures.acl import PLOG
from ampenv.knowledge.failures.code_fixes import (
    ACL_CLASSES,
    ACL_FIXES,
    DCMI_DEFAULT,
    DCMI_FIXES,
    DRV_DEFAULT,
    DRV_FIXES,
    HCCL_DEFAULT,
    HCCL_FIXES,
    Class,
)
from ampenv.knowledge.failures.lines import in_error_record, quote
from ampenv.knowledge.failures.model import (
    CLASS,
    CODE_CONTEXT,
    CODE_END,
    CODE_HINTS,
    GENERIC,
    Failure,
    Source,
)

EXCERPT = 160  # characters of a line's own message kept in a decoded meaning
# CANN's advice printed on the code's own line ("... Solution: Close applications not in use.").
SOLUTION = re.compile(r"\bSolution: ?(.{8,})", re.IGNORECASE)
# (one blank before "Solution:", a space or a tab: a run of blanks tried at each step of the
# lazy cause made a long blank line quadratic)
CAUSE = re.compile(
    r"\b(?:Possible Cause|Reason): ?(.{3,}?)(?=\sSolution:|$)", re.IGNORECASE | re.MULTILINE
)
# A line under an E-code that is not its message: CANN's advice, a traceback or its frame, another
# code, a record of its own (a bracket, a brace, a plog's stamp), anything not opening with a word.
_NOT_A_MESSAGE = re.compile(
    r"(?![A-Za-z])|(?:Possible Cause|Reason|Solution|TraceBack|File \"|E[0-9A-Z]\d{4}\b)",
    re.IGNORECASE,
)
# CANN's words for an internal error that say no more than the code: its reason is on a line
# of its own; the runtime's report of a core's fault, its assert on a launch, and a call's
# return code ("runtime result = 507035") say what failed (other entries read them), not why
_SAYS_NOTHING = re.compile(
    r"(?i)(?:inner|internal) error|(?:The error from device|Aicore kernel execute failed"
    r"|Assert \(\().*|.*\b(?:runtime result|return|failed) ?[=:] ?-?\d{1,10}\b.*|"
)
# Where in CANN's code the message was raised, after it: "[FUNC:CompareShape][FILE:x.cpp]"
WHERE = re.compile(r"\s*\[FUNC:[^\]\n]{0,200}\].*$")
# A plog or CANN timestamp that opens the message after an E-code ("EL0004: 2025-01-02-...").
STAMP = re.compile(r"^[\s:]*(?:\[PID: ?\d+\]\s*)?\[?\d{4}-\d\d-\d\d[-\s][\d:.]+\]?\s*")


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
    said: str = "",
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
        notice=klass.notice,
        said=said,
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


def _said(text: str, more: str) -> str:
    """What a code's line says with it (``text``: the rest of its line; ``more``: the indented
    lines under it, where a record wraps its message)."""
    said = quote(WHERE.sub("", STAMP.sub("", text)).strip(" :!."), EXCERPT)
    if not said:
        said = quote(more.strip().partition("\n")[0].strip(" :!."), EXCERPT)
        said = "" if _NOT_A_MESSAGE.match(said) else said
    return said


def e_code(code: str, text: str, more: str = "") -> Optional[Failure]:
    """An E-code's failure: its module and class from the code, what the log said with it
    (``text``: the rest of its line; ``more``: its indented continuation lines) quoted."""
    # a W-code (a warning: W40010) is its module's as an E-code is
    unknown = ("core-exception", f"CANN module {code[1]}")
    mode, module = e_codes.E_MODULES.get(f"E{code[1]}", unknown)
    internal = code[2] == "9"
    said = _said(text, more)
    official_title, message, official_cause, official_fix, found_in = e_codes.cann_e_row(code)
    title, known_cause, known_fix = e_codes.E_CODES.get(code, ("", "", ""))
    title = title or official_title
    known_cause = known_cause or official_cause
    own = "" if _SAYS_NOTHING.fullmatch(said) else said  # the line's words, not the table's
    said = said or message.replace("%s", "...")
    kind = "an internal error" if internal else "a user-class error"
    kind = "a warning" if code[0] == "W" else kind
    meaning = (
        f"{kind} of {module}"
        + (f" ({title})" if title else "")
        + (f": {said}" if said else f": {known_cause}" if known_cause else "")
        + ("; a follow-up code: the specific cause is in the lines around it" if internal else "")
    )
    cause = CAUSE.search(text + more)
    told = cause.group(1).strip().rstrip(".") if cause else "N/A"
    if told.upper() != "N/A" and told[:40] not in said:  # said: the line's excerpt shows it
        meaning += f"; the log's possible cause: {quote(told, EXCERPT)}"
    solution = SOLUTION.search(text + more)
    if known_fix:  # ampenv's reading of CANN's table for the code
        fix = known_fix
    elif solution:  # the advice printed with the code, quoted as the log's, not ampenv's
        fix = f'the log\'s own "Solution:" for it: "{quote(solution.group(1).strip(), EXCERPT)}"'
    elif official_fix and not internal:  # an internal code's row says "contact support"
        fix = f"CANN's solution for {code}: {official_fix}"
    elif internal:
        fix = PLOG
    else:
        fix = (
            "CANN prints what to change with the code (the message, and a 'Solution:' line after "
            "it); change the parameter, environment or resource it names"
        )
    sources = (Source(e_codes.E_CODE_FORMAT, "official"),)
    if f"E{code[1]}" in e_codes.E_MODULES:
        sources += (Source(e_codes.ERROR_CODE_JSON, "official"),)
    sources += tuple(Source(ref, "official") for ref in found_in)
    if code in e_codes.E_CODES:
        sources += (Source(e_codes.E_TABLE_SOURCE, "official"),)
    return _failure(
        f"cann-{code.lower()}",
        code,
        "cann",
        meaning,
        Class(mode, known_cause or f"{module}: see the message", fix),
        tuple(dict.fromkeys(sources)),
        rank=GENERIC if internal else CLASS,
        said=own,
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

    def by_acl_code(m: re.Match[str]) -> Optional[Failure]:
        found = owned_or(acl)(m)
        said = m.group("said")
        if found is None or not said or m.group("code") in owners:
            return found
        # CANN's operator log names the check that refused the call after the code
        return replace(
            found, meaning=f"{found.meaning}; the log says: {quote(said.strip(' :!.'), EXCERPT)}"
        )

    def by_e_code(m: re.Match[str]) -> Optional[Failure]:
        code = m.group("code")
        owner = owners.get(code)
        text = m.group("text")
        if "title" in m.re.groupindex:  # a title's brackets: a code CANN's tables know only
            if owner is None and lookup(code) is None:
                return None
            text = f"{m.group('title')}{text}"
        elif "after" in m.re.groupindex:  # a title after it: a code of CANN's own table only
            if owner is None and not e_codes.known_e_code(code):
                return None
            text = f"{m.group('after')}{text}"
        if owner is None:
            return e_code(code, text, m.string[m.end() :])
        said = _said(text, m.string[m.end() :]) if owner.rank == GENERIC else ""
        if not said or _SAYS_NOTHING.fullmatch(said):
            return owner
        # a follow-up code's own entry, with the reason its line states
        return replace(owner, meaning=f"{owner.meaning}; the log says: {said}", said=said)

    return (
        _family(
            "acl",
            f"{CODE_CONTEXT}\\s?(?P<code>[1-5]\\d{{5}}){CODE_END}"
            # the operator log's message after "errno[161002]" (and its OpName)
            r"(?:\]\s?(?:OpName:\[[^\]\n]{0,200}\]\s?)?(?P<said>[^\s\][][^\n]{7,300}))?",
            f"an ACL, runtime or GE return code ({len(tables.ACL)} in the table): its name, its "
            "meaning, and the fix of its class",
            "core-exception",
            CODE_HINTS,
            by_acl_code,
            tables.ACL_SOURCES,
        ),
        _family(
            "hccl",
            # torch_npu's report (its call alone where a paste wrapped the line after "HCCL
            # function error:"), HCCL Test's ("hccl interface return err FILE:LINE, retcode:
            # 7"), a caller's own check of an HCCL call ("HcclCommInitRootInfo failed: 7",
            # "HcclCommInit failed. ret = 4")
            r"(?:HCCL function error ?:[^\n]{0,400}?error code is:? ?"
            r"|^\s{0,8}[Hh]ccl\w{1,60}\([^\n]{0,400}?\), error code is:? ?"
            r"|hccl interface return err [^\n]{0,200}?retcode: ?"
            r"|\bHccl[A-Z]\w{1,60} failed(?:: ?|[.,] ?ret ?[=:] ?))(?P<code>\d{1,4})(?!\.)"
            + CODE_END,
            "an HcclResult that torch_npu, HCCL Test or a caller's check reports for an HCCL call",
            "hccl",
            ("error", "err", "fail"),
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
            (e_codes.E_CODE_FORMAT,),
            # No look-behind here: it would cost the regex its literal-prefix search (30x
            # slower on a 64 MiB tail); the pattern above checks the boundary on the line.
            # the title form's "(" looked behind at the end: the search keeps its literal E (a
            # branch of its own, or a look-behind first, made every log's search five times
            # slower)
            # (its wide colon as printed, or escaped by a JSON string)
            anchor=r"E[0-9A-Z]\d{4}(?:\)?(?::|：|\\u[fF]{2}1[aA])|\]|\s+Inner Error"
            r"|\)(?<=\(E[0-9A-Z]\d{4}\))"
            r"| (?=[A-Z][A-Za-z0-9]{0,30}_[A-Za-z])"
            # the dict form's closing quote and the next key's, as printed, curled, escaped
            # for HTML or by a repr (a bytes regex: ’ is its bytes)
            "|\\\\?(?:'|\u2019|&#x?27;|&#39;)(?=(?:, ?|\uff0c)(?:\\\\?'|\u2019|&#)))",
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
                # an operator's check raised as a dict from TBE ("{'errCode': 'E80012', ...},
                # 'In op, the num of dimensions ... should be in the range of [0, 8]')")
                r"['\u2019]errCode['\u2019]: ['\u2019](?-i:(?P<code>E[0-9A-Z]\d{4}))['\u2019]"
                r"(?:[^}\n]{0,400}\},\s?)?"
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
            # (the runtime logs a driver call it handles at WARNING or INFO: a feature probe
            # that returns 65534 on a chip without the feature)
            judge=in_error_record,
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
        e_codes.known_e_code(code) or code[:2] in e_codes.E_MODULES
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
