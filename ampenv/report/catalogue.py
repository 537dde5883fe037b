"""The failure catalogue as the README's Markdown table; `python -m ampenv.report.catalogue`
prints it (a test holds the README's copy equal to it)."""

from __future__ import annotations

from collections import Counter

from ampenv.knowledge.failures import CATALOGUE, MODES, WEIGHTS

BEGIN, END = "<!-- catalogue:begin -->", "<!-- catalogue:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    weights = Counter(s.weight for f in CATALOGUE for s in f.sources)
    modes = Counter(f.mode for f in CATALOGUE)
    lines = [
        BEGIN,
        f"{len(CATALOGUE)} failures; by mode: "
        + ", ".join(f"{m} {modes[m]}" for m in MODES)
        + "; their sources: "
        + ", ".join(f"{weights[w]} {w}" for w in WEIGHTS)
        + ".",
        "",
        "| failure | codes | mode | meaning | fix | confirmed by |",
        "|---|---|---|---|---|---|",
    ]
    for f in sorted(CATALOGUE, key=lambda f: (MODES.index(f.mode), f.rank, f.id)):
        # a family decodes its table's codes, or (no patterns of its own) reads by its rules
        table = f.decode or not f.patterns
        codes = ", ".join(f"`{c}`" for c in f.codes) or ("(its table)" if table else "(text)")
        lines.append(
            f"| `{f.id}` | {codes} | {f.mode} | {_cell(f.meaning)} | {_cell(f.fix)} "
            f"| {f'`{f.confirm}`' if f.confirm else ''} |"
        )
    lines.append(END)
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
