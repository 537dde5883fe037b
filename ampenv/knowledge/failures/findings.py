"""What a scan found, one hit per failure: in what order they are told, which follow-up names
the failures near it, and which notice is a note because nothing read failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ampenv.knowledge.failures.model import GENERIC, Failure

# A follow-up code names the specific failures seen within NEAR lines of it in one text (a
# traceback and the plog lines of one failure): one far off in the log is another matter.
NEAR = 200
# An operator call's failure (an aclnn API's, an ACL return code): CANN's check that refused it
# is printed under a follow-up code near it; a fault's or a collective's follow-up repeats it.
REASONED = frozenset(("aclnn", "acl"))
PLACES = 64  # the places of a failure kept to judge nearness by: the first ones and the last


@dataclass
class Hit:
    """Every line one failure matched, in every text fed to the scanner."""

    failure: Failure
    match: str  # the text its pattern matched, first time
    line: str  # the first line that showed it, trimmed
    first: str  # name:line
    last: str  # name:line
    count: int
    also: tuple[str, ...] = ()  # generic hits: the specific failures found with them
    texts: tuple[str, ...] = ()  # the names of the texts that showed it, in order
    # a notice where the texts read show no failure (no other entry's, no traceback, no kill):
    # a note, not a finding
    note: bool = False
    # a code's class (an aclnn inner error): the reason a follow-up code near it states
    # ("E89999: When layout is TND, queryD(256) ... must be ... 192/128/64")
    reason: str = ""

    @property
    def id(self) -> str:
        return self.failure.id


@dataclass
class Found:
    """One failure as a scan gathers it, line by line."""

    failure: Failure
    match: str
    line: str
    first: str
    last: str
    count: int = 1
    order: int = 0
    texts: dict[str, None] = field(default_factory=dict)  # an ordered set
    # where it was seen, (text, line): the first PLACES and the last, for what lies near it
    places: list[tuple[str, int]] = field(default_factory=list)
    # a fault event's: the places it occurred at (text, node, card, port) and how often, which
    # a recovery there ends
    events: dict[str, int] = field(default_factory=dict)
    # a follow-up code's: where the line that says its reason was (see Failure.said)
    said_at: Optional[tuple[str, int]] = None

    def near(self, other: Found) -> bool:
        """Whether the two were seen within NEAR lines of each other in one text."""
        return any(self.seen_near(place) for place in other.places)

    def seen_near(self, place: tuple[str, int]) -> bool:
        """Whether it was seen within NEAR lines of ``place`` (a text and a line)."""
        return any(a == place[0] and abs(i - place[1]) <= NEAR for a, i in self.places)


def findings(found: list[Found], died: bool) -> list[Hit]:
    """One hit per failure of ``found``: root causes first, generic follow-up codes last; a
    generic hit names the specific failures found near it (they, not it, say what went wrong
    there). ``died``: a text read shows a process that died in words no entry needs."""
    # A curated entry before a code its table decoded, at the same rank.
    # A notice after the failures of its rank: it names their cause, they say what failed.
    ordered = sorted(
        found,
        key=lambda f: (f.failure.rank, f.failure.notice, f.failure.family is not None, f.order),
    )
    specific = [f for f in ordered if f.failure.rank < GENERIC]
    # a failure anywhere in the texts read (logs of one job, or of one node) makes every notice
    # a cause to name
    failing = died or any(not f.failure.notice for f in ordered)
    return [
        Hit(
            f.failure,
            f.match,
            f.line,
            f.first,
            f.last,
            f.count,
            tuple(s.failure.id for s in specific if s.near(f)) if f.failure.rank == GENERIC else (),
            tuple(f.texts),
            f.failure.notice and not failing,
            _reason(f, ordered) if f.failure.component in REASONED else "",
        )
        for f in ordered
    ]


def _reason(found: Found, ordered: list[Found]) -> str:
    """The reason a follow-up code states near ``found``, with its code: the first one's."""
    said = next(
        (
            g.failure
            for g in ordered
            if g.failure.rank == GENERIC and g.said_at is not None and found.seen_near(g.said_at)
        ),
        None,
    )
    return f"{said.codes[0]}: {said.said}" if said is not None else ""


def leading(hits: list[Hit]) -> Hit:
    """The hit that names what failed, of a scan's ``hits`` (not empty) of a run known to have
    failed: a notice only where nothing else was found (it names a cause, not the failure)."""
    return next((h for h in hits if not h.failure.notice), hits[0])
