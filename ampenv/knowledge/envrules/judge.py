r"""Judging one variable that is set against its rule: :func:`judge` returns
:class:`~ampenv.core.model.Finding`\ s, and every warn or fail carries the exact
``export VAR=value``, ``unset VAR`` or ``torch.npu.set_option`` line that fixes it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Optional

from ampenv.core.model import Finding, Status
from ampenv.knowledge.envrules.table import RULES
from ampenv.knowledge.envrules.vocabulary import (
    FAMILY_PREFIXES,
    READ_BY_NOBODY,
    READ_BY_SET_OPTION,
    SET_OPTION_FIX,
    Node,
    Problem,
    Rule,
)
from ampenv.util.redact import redact


def family_of(name: str) -> Optional[str]:
    rule = RULES.get(name)
    if rule:
        return rule.family
    for family, prefixes in FAMILY_PREFIXES.items():
        if name.startswith(prefixes):
            return family
    return None


def shown(name: str, value: str) -> str:
    """NAME=value as a report may show it: redacted, and quoted when the shell would need it."""
    return f"{name}={shlex.quote(redact(name, value))}"


def export_line(name: str, value: Optional[str]) -> str:
    """The shell line that sets (or, for None, unsets) a variable."""
    return f"unset {name}" if value is None else f"export {name}={shlex.quote(value)}"


_PLACEHOLDER = re.compile(r"\{(name|value|qvalue|default|chip)\}")


def fill(template: str, **values: object) -> str:
    """``{name}``, ``{value}``, ``{qvalue}`` (shell-quoted value), ``{default}`` and ``{chip}``
    replaced in one pass. Not str.format: a value holding braces (``rel{x}``) would raise
    KeyError, and one holding ``{name}`` would be expanded again."""
    if "value" in values and "qvalue" not in values:
        values["qvalue"] = shlex.quote(str(values["value"]))
    return _PLACEHOLDER.sub(
        lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template
    )


def _format(template: str, rule: Rule, value: str, node: Node) -> str:
    return fill(
        template,
        name=rule.name,
        value=redact(rule.name, value),
        default=rule.default if rule.default is not None else "",
        chip=node.chip,
    )


def _remedy(rule: Rule, value: str, problem: Problem) -> str:
    if problem.remedy:
        return fill(problem.remedy, name=rule.name, value=value)
    fix = problem.fix if problem.fix is not None else rule.default
    if rule.read_by == READ_BY_SET_OPTION and fix is not None:
        return fill(SET_OPTION_FIX, name=rule.name, value=fix)
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
        fill(SET_OPTION_FIX, name=rule.name, value=fix)
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
            line = fill(SET_OPTION_FIX, name=rule.name, value=value)
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
