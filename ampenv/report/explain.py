"""`ampenv explain`: a check, or the known failures an error code or a log line names."""

from __future__ import annotations

import textwrap

from ampenv.core.plugin import CheckSpec
from ampenv.knowledge.failures import Failure
from ampenv.util.formats import printable_lines

WIDTH = 100


def _wrapped(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent) or [indent]


def check(spec: CheckSpec) -> str:
    lines = [f"{spec.id}: {spec.title}  (profile {spec.profile}, from {spec.source})", ""]
    lines += ["What it verifies:", *_wrapped(spec.doc or "(no description)"), ""]
    if spec.why:
        lines += ["Why it matters:", *_wrapped(spec.why), ""]
    if spec.remedies:
        lines += ["Remedies it may give:", *[f"  - {r}" for r in spec.remedies], ""]
    if spec.needs:
        lines += [f"Needs (skipped unless they pass): {', '.join(spec.needs)}", ""]
    if spec.after:
        lines += [f"Runs after (to share their facts): {', '.join(spec.after)}", ""]
    settings = {"timeout": f"{spec.timeout:g} s", **{k: s.help for k, s in spec.settings.items()}}
    lines += [f'Settings ([checks."{spec.id}"] in ampenv.toml):']
    lines += [f"  {k}: {v}" for k, v in settings.items()]
    return "\n".join(lines)


def failure(f: Failure) -> str:
    codes = f" [{', '.join(f.codes)}]" if f.codes else ""
    lines = [f"{f.id}{codes}  ({f.component}; {f.mode})"]
    if f.ends:
        lines += _wrapped("The line reports this fault's recovery: the event is over.")
    lines += [*_wrapped(f.meaning), ""]
    lines += ["Likely causes, most likely first:"]
    lines += [line for i, c in enumerate(f.causes, 1) for line in _wrapped(f"{i}. {c}")]
    lines += ["", "Fix:", *_wrapped(f.fix)]
    if f.confirm:
        lines += ["", f"Check this node: ampenv doctor --only {f.confirm}"]
    lines += ["", "Sources:", *[f"  - {s.ref} ({s.weight})" for s in f.sources]]
    return "\n".join(lines)


def failures(found: list[Failure]) -> str:
    # A code decoded from a pasted line carries that line's words: escape what a terminal
    # would act on (OSC, bell, C1 controls) as the doctor's text report does.
    return printable_lines("\n\n".join(failure(f) for f in found))
