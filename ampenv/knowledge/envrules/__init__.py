"""The Ascend and HCCL environment variables: the vocabulary of rules, the table of rules (one
per variable, with sources) and the judge that applies a rule to a value."""

from ampenv.knowledge.envrules.judge import export_line, family_of, judge, shown, tokens
from ampenv.knowledge.envrules.table import KEY_OPS, RULES
from ampenv.knowledge.envrules.vocabulary import (
    FAMILY_PREFIXES,
    NUMBER,
    READ_BY_NOBODY,
    UNKNOWN,
    Node,
    Path,
    Rule,
    number_text,
)

__all__ = [
    "FAMILY_PREFIXES",
    "KEY_OPS",
    "NUMBER",
    "READ_BY_NOBODY",
    "RULES",
    "UNKNOWN",
    "Node",
    "Path",
    "Rule",
    "export_line",
    "family_of",
    "judge",
    "number_text",
    "shown",
    "tokens",
]
