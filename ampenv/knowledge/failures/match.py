"""Find the known failures in log text, fast enough for the last 64 MiB of a log.

The text is scanned as UTF-8 bytes: ``bytes.lower()`` folds ASCII only, so every offset in the
lowered copy is the offset of the same byte in the original (``str.lower()`` turns U+0130 into
two code points and shifts every offset after it). The union of the catalogue's keys (its hints
and the messages read whole) is small, so the bytes are searched once per key; only the lines
holding a key are decoded and given to the regexes of the failures whose keys they hold.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any, Optional

from ampenv.knowledge.failures.catalogue import CATALOGUE
from ampenv.knowledge.failures.decoding import Decoded
from ampenv.knowledge.failures.device_events import FAMILY as DEVICE_EVENTS
from ampenv.knowledge.failures.faultdiag import FAMILY as FAULT_DIAG_RULES
from ampenv.knowledge.failures.faultdiag import (
    FAULT_DIAG,
    event_log,
    event_place,
    gate,
    names,
    recovered,
    rule_failure,
)
from ampenv.knowledge.failures.faultdiag import read as fault_diag_read
from ampenv.knowledge.failures.findings import PLACES, Found, Hit, findings
from ampenv.knowledge.failures.lines import (
    DEATH_TAIL,
    EXCERPT,
    WINDOW,
    continued,
    frame_above,
    line_at,
    plain,
    plain_spaces,
    quiet,
    record,
    record_parts,
    rows_above,
    said,
    screen_lines_of,
    shows_failure,
    trim,
    uncoloured,
    window,
)
from ampenv.knowledge.failures.model import GENERIC, SIX_DIGITS, Failure, TextFacts, judged

PIECE = 1 << 20  # with a deadline, text is scanned this many bytes (whole lines) at a time
BATCH_LINES = 1 << 15  # lines fed one by one are scanned in batches of this many
WRAPPED_TEXT = 1 << 18  # the longest text read for a screen's hard wraps
# A word (and its space) that this many keys hold is searched for once for them all.
SHARED_BY = 5
# the findings of fault events, which a recovery at their place ends (Fault-Diag's rules, the
# device plugin's events)
EVENT_FAMILIES = frozenset({FAULT_DIAG_RULES, DEVICE_EVENTS})
EVENT_PLACES = 1024  # the places of one fault kept for its recoveries: a flood's stay bounded
UNTRACKED = "\0"  # the places past them, as one that no recovery names
_WORD = re.compile(rb"(?<![a-z])[a-z]{3,} ")
SEEN_LINE = 1024  # a line this short is remembered with what it gave ...
SEEN_LINES = 4096  # ... so many at a time
_INDENT = (b" ", b"\t")  # a line followed by these has continuation lines: not remembered


_CODE = re.compile(r"E[0-9A-Z]\d{4}|ERR\d{5}|\d{6}|-\d{4}|0x[0-9a-fA-F]{1,8}")


_TOKEN = re.compile(r"[a-z0-9]+")
FEW_NEEDS = 8  # a plan of at most this many needed texts tries each on every line
WORDS_LINE = 2048  # a longer line tries every needed text: splitting it costs more


@dataclass(frozen=True)
class _Plan:
    """The entries of one set of hint words and the texts their patterns need in a line
    (required text, reads a numeric code, the entry's place), indexed by a word each text holds
    whole (letters and digits with a mark on both sides within it: a line that holds the text
    holds that word whole), so that a line is looked up by its own words instead of tried with
    every text (a line of "error" and "failed" holds the hints of seventy entries). A text
    without such a word ("507035", "inner error") is looked for in every line; so is every
    text where splitting the line into words costs more than looking for them all: a plan of
    a few texts, a line longer than a screen or two."""

    entries: tuple[Failure, ...]
    needs: tuple[tuple[str, bool, int], ...]  # all of them
    by_word: dict[str, tuple[tuple[str, bool, int], ...]]
    always: tuple[tuple[str, bool, int], ...]

    @classmethod
    def of(cls, entries: tuple[Failure, ...]) -> _Plan:
        # an entry that reads the lines after its own, or a pattern that needs no text, is
        # always tried (required text "" is in every line)
        needs = tuple(
            ("" if f.following else required, coded, i)
            for i, f in enumerate(entries)
            for _, coded, required, _ in f._tried
        )
        by_word: dict[str, list[tuple[str, bool, int]]] = {}
        always = []
        for need in needs if len(needs) > FEW_NEEDS else ():
            inner = [
                m.group()
                for m in _TOKEN.finditer(need[0])
                if m.start() > 0 and m.end() < len(need[0])
            ]
            if inner:
                by_word.setdefault(max(inner, key=len), []).append(need)
            else:
                always.append(need)
        return cls(entries, needs, {w: tuple(n) for w, n in by_word.items()}, tuple(always))

    def alive(self, lowered: str, digits: bool) -> list[Failure]:
        by_word = self.by_word
        if by_word and len(lowered) <= WORDS_LINE:
            words = set(_TOKEN.findall(lowered))
            tried = (*self.always, *(n for w in words if w in by_word for n in by_word[w]))
        else:
            tried = self.needs
        alive = {i for required, coded, i in tried if (digits or not coded) and required in lowered}
        return [self.entries[i] for i in sorted(alive)]


@dataclass
class Scanner:
    """Feed it one or more texts; ``hits()`` aggregates one hit per failure id."""

    catalogue: tuple[Failure, ...] = ()
    _found: dict[str, Found] = field(default_factory=dict)
    # One pass over the text per hint word (or anchor regex); a pass also finds the longer hints
    # that hold its word ("err" finds "error"): pass -> the hints it finds.
    _passes: dict[bytes, tuple[bytes, ...]] = field(default_factory=dict)
    _by_hint: dict[bytes, tuple[Failure, ...]] = field(default_factory=dict)  # a hint's entries
    # the entries of a line's hints, and the texts their patterns need in the line
    _candidates: dict[tuple[bytes, ...], _Plan] = field(default_factory=dict)
    _anchors: dict[bytes, re.Pattern[bytes]] = field(default_factory=dict)
    _shared: dict[bytes, re.Pattern[bytes]] = field(default_factory=dict)  # a shared word's keys
    _order: dict[int, int] = field(default_factory=dict)  # an entry's place in the catalogue
    _decoded: Decoded = field(default_factory=Decoded)
    # short lines read (with the frame above where it is read) in a text, and what they gave:
    # a flood of one line is read once per text (what a line gives may depend on its text: the
    # frameworks it names, the versions it shows)
    _seen: dict[
        tuple[bytes, frozenset[bytes], str, int], tuple[tuple[Failure, str, str, str], ...]
    ] = field(default_factory=dict)
    _framed: frozenset[bytes] = frozenset()  # the passes of entries that read the frame above
    # A logger's INFO/DEBUG mark makes a code on its line a mention (off for a line a person
    # pastes to `ampenv explain`: asking is the mark).
    heed_levels: bool = True
    tell_recoveries: bool = False  # a recovery that ends no fault is told (`ampenv explain`'s)
    _fault_diag: bool = False  # the catalogue holds Fault-Diag's family: its rules read lines
    # The text being read (a file's whole text; a batch of lines fed one by one, partial when
    # more batches may follow) and its name, and the frameworks (their spellings) it names.
    _text: bytes = b""
    _partial: bool = False
    _name: str = ""
    _named: set[tuple[str, tuple[bytes, ...]]] = field(default_factory=set)
    # each text (a batch: its number) is searched for a name once, named or not
    _texts: int = 0
    _looked: set[tuple[int, tuple[bytes, ...]]] = field(default_factory=set)
    _facts: dict[int, Any] = field(default_factory=dict)  # an entry's TextFacts of this text
    # the texts whose end shows a process that died in words no entry names (a traceback, a
    # kill, a launcher's failed child): beside them a notice is no note
    died: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.catalogue:
            self.catalogue = CATALOGUE
        self._fault_diag = any(f is FAULT_DIAG for f in self.catalogue)
        self._order = {id(f): i for i, f in enumerate(self.catalogue)}
        by_hint: dict[bytes, list[Failure]] = {}
        for failure in self.catalogue:
            for hint in failure.keys:
                by_hint.setdefault(hint.encode(), []).append(failure)
            if failure.anchor:  # keyed apart from hints: a hint is never a regex
                key = b"\0" + failure.anchor.encode()
                by_hint.setdefault(key, []).append(failure)
                self._anchors[key] = re.compile(failure.anchor.encode())
        self._by_hint = {hint: tuple(dict.fromkeys(fs)) for hint, fs in by_hint.items()}
        words = [h for h in by_hint if h[:1] != b"\0"]
        # a word many keys share ("not " of "does not exist", "Torch not compiled ..."): one
        # search finds them all, where a search each made most of a scan's time
        counts = Counter(w for h in words for w in set(_WORD.findall(h)))
        shared = [w for w, n in counts.items() if n >= SHARED_BY]
        for hint in by_hint:
            shorter = [h for h in (*words, *shared) if h != hint and h in hint]
            word = min(shorter, key=len) if shorter and hint[:1] != b"\0" else hint
            self._passes[word] = (*self._passes.get(word, ()), hint)
        self._framed = frozenset(
            word
            for word, keys in self._passes.items()
            if any(f.frame for key in keys for f in self._by_hint[key])
        )
        self._shared = {
            w: re.compile(b"|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)))
            for w, keys in self._passes.items()
            if w not in keys
        }

    @property
    def passes(self) -> int:
        """How many times a text is searched through: once per pass word or anchor."""
        return len(self._passes)

    def _entries(self, hints: tuple[bytes, ...], lowered: str, digits: bool) -> list[Failure]:
        """The entries of the hints a line holds that may match it (``lowered``: the line in
        lower case; ``digits``: it holds six digits in a row), curated ones before the
        families, each in the catalogue's order: a code an entry matched on a line is that
        entry's finding, not its table row's as well, and a family's line the family before it
        in the catalogue. One pass over the needed texts of all their patterns rules most out
        (a line of "error" and "failed" holds the hints of seventy entries)."""
        plan = self._candidates.get(hints)
        if plan is None:
            merged = {id(f): f for hint in hints for f in self._by_hint[hint]}
            entries = tuple(
                sorted(merged.values(), key=lambda f: (f.decode is not None, self._order[id(f)]))
            )
            if len(self._candidates) >= SEEN_LINES:  # a log of every mix of hint words
                self._candidates.clear()
            plan = self._candidates[hints] = _Plan.of(entries)
        return plan.alive(lowered, digits)

    def feed_bytes(
        self, data: bytes, name: str, first_line: int = 1, deadline: Optional[float] = None
    ) -> bool:
        """Scan ``data`` (the text named ``name``, its first line numbered ``first_line``).
        With a ``deadline`` (time.monotonic) the text is scanned a piece of whole lines at a
        time and the scan stops at the deadline, its first piece read and its last one (a job
        logs its failure at its end): False then, and what lies between is unread. A screen's
        copy is looked for in a whole text of at most WRAPPED_TEXT bytes, never in a piece of
        a longer one."""
        screen = len(data) <= WRAPPED_TEXT
        self._read(data, name)
        if deadline is None:
            self._feed(data, name, first_line, screen)
            self._look_for_failure(data, name)
            return True
        start = 0
        while start < len(data):
            # the first piece is read whatever the time: a text read up to the deadline (a
            # stream, a slow disk) still has what it gave looked at, at a bounded cost
            if start and time.monotonic() > deadline:
                # the last piece, from a line's start, whatever the time (as the first)
                cut = data.rfind(b"\n", start, max(start, len(data) - PIECE))
                end = cut + 1 if cut >= 0 else start
                self._feed(data[end:], name, first_line + data.count(b"\n", start, end), screen)
                return False
            end = data.find(b"\n", min(start + PIECE, len(data)))
            end = len(data) if end < 0 else end + 1
            if start == 0:  # read whatever the time, as the first piece is
                self._look_for_failure(data, name)
            self._feed(data[start:end], name, first_line, screen)
            first_line += data.count(b"\n", start, end)
            start = end
        return True

    def _feed(self, data: bytes, name: str, first_line: int, screen: bool) -> None:
        shown = uncoloured(data)  # as a terminal showed it: its screen's widths
        data = plain_spaces(shown)
        low = data.lower()
        # window key -> (line start, line end, window centre, hints): a line is one window; a
        # long one (a log of progress-bar CRs) one around each hint's first hit and one around
        # its last, where a failure ends such a log: bounded work per line, whatever its length
        # (a window at every hit made a 60 MiB progress bar take minutes). The search resumes
        # after the line: linear.
        spans: dict[int, tuple[int, int, int, set[bytes]]] = {}

        def add(at: int, word: bytes) -> int:
            start, end = line_at(data, at)
            # a word several keys share ("not ") stands in many lines that hold none of them:
            # such a line is passed over here, before it is decoded; on a long line each key
            # it holds is read where that key stands, not where the word first stands
            keys = None
            finder = self._shared.get(word)
            if finder is not None:
                keys = tuple(dict.fromkeys(m.group(0) for m in finder.finditer(low, start, end)))
                if not keys:
                    return end
            if end - start <= 2 * WINDOW:
                spans.setdefault(start, (start, end, start + WINDOW, set()))[3].add(word)
                return end
            for key in keys or (word,):
                first = at if keys is None else low.find(key, start, end)
                spans.setdefault(first, (start, end, first, set()))[3].add(word)
                tail = last_hit(key, first + WINDOW, end)
                if tail >= 0:
                    spans.setdefault(tail, (start, end, tail, set()))[3].add(word)
            return end

        def last_hit(hint: bytes, lo: int, hi: int) -> int:
            anchor = self._anchors.get(hint)
            if anchor is None:
                return low.rfind(hint, lo, hi)
            found = -1
            for m in anchor.finditer(data, lo, hi):
                found = m.start()
            return found

        for hint in self._passes:
            anchor = self._anchors.get(hint)
            if anchor is not None:  # one search per line at most: resume after the line's end
                m = anchor.search(data)
                while m is not None:
                    m = anchor.search(data, add(m.start(), hint))
                continue
            at = low.find(hint)
            while at >= 0:
                at = low.find(hint, add(at, hint))
        wrapped = screen_lines_of(shown, data) if screen and spans else []
        above = rows_above(data, wrapped)
        number, counted, line_of, said = first_line, 0, -1, set()
        for key in sorted(spans):
            start, end, at, hints = spans[key]
            number += data.count(b"\n", counted, key)
            counted = key
            if start != line_of:  # the windows of one line find each failure once
                line_of, said = start, set()
            self._scan_window(
                window(data, start, end, at),
                hints,
                said,
                data,
                end,
                name,
                number,
                above.get(start, ""),
            )
        for index, end, rows in wrapped:
            self._read_screen_line(rows, data, end, name, first_line + index)

    def _read_screen_line(
        self, rows: list[bytes], data: bytes, end: int, name: str, number: int
    ) -> None:
        """A line a terminal wrapped into ``rows``, read whole: it adds what only a match
        across a cut shows (a code or message split over two rows). What its rows showed was
        found where they stand; a line that merely filled the screen, joined to the next by
        mistake, adds no failure its rows do not hold."""
        joined = plain_spaces(b"".join(rows))  # (an escaped space the wrap cut is one again)
        lowered = joined.lower()
        hints = {p for p in self._passes if self._holds(joined, lowered, p)}
        if not hints:
            return
        shown = [plain(row.decode("utf-8", "replace")) for row in rows]
        on_rows = {f.id for row in rows for f, *_ in self._matches(row, hints, data, end)}
        said: set[str] = set()
        for failure, match, excerpt, key in self._matches(joined, hints, data, end):
            if failure.id in on_rows | said or any(key in row for row in shown):
                continue
            said.add(failure.id)
            event = self._event_key(failure, joined, name)
            if not failure.ends:
                self._record(failure, match, excerpt, name, number, event)
            elif not self._end(failure.id, event) and self.tell_recoveries:
                self._record(failure, match, excerpt, name, number)

    def _scan_window(
        self,
        window: bytes,
        hints: set[bytes],
        said: set[str],  # the ids found on this line so far
        data: bytes,
        end: int,
        name: str,
        number: int,
        before: str = "",  # the rows above it of a line a terminal wrapped
    ) -> None:
        """The failures of one line's window. A BREAK inside it ends a line for the patterns,
        but all its parts count as one line: one finding each, however often it repeats there."""
        passes = frozenset(hints)
        # the frame above a line of a pass that reads it is part of what the line says
        framed = not passes.isdisjoint(self._framed)
        frame = frame_above(data, line_at(data, end)[0]) if framed else ""
        parts = [(window, frame)]
        if b"\r" in window or b"\\n" in window:
            # escaped breaks: the line as written is read too (a code's hint may stand in
            # another part); CRs: a progress bar's parts only (reading its whole was quadratic)
            whole = [(window, frame)] if b"\\n" in window else []
            parts = [*whole, *self._parts(window, hints, frame if framed else None)]
        # a part read before (a retry loop's line, a flood's) gives what it gave then, unless
        # lines read with it follow (indented: an E-code's cause and solution)
        remember = data[end + 1 : end + 2] not in _INDENT and not before
        remember = remember and len(frame) <= SEEN_LINE
        for part, held in parts:
            key = (part, passes, held, self._texts)
            matches = self._seen.get(key) if remember else None
            if matches is None:
                matches = self._matches(part, hints, data, end, before, held)
                if remember and len(part) <= SEEN_LINE:
                    if len(self._seen) >= SEEN_LINES:
                        self._seen.clear()
                    self._seen[key] = matches
            # a family finding without a code adds nothing to a part a finding explains
            here: set[str] = set()
            for failure, match, excerpt, _ in matches:
                event = self._event_key(failure, part, name)
                if failure.ends:  # a recovery: the fault read before it there is over
                    if not self._end(failure.id, event) and self.tell_recoveries:
                        self._record(failure, match, excerpt, name, number)
                    said.discard(failure.id)
                    continue
                if failure.family and (here.issuperset(failure.codes) if failure.codes else here):
                    continue
                here.add(failure.id)
                here.update(c.upper() for c in failure.codes)
                if failure.id not in said:
                    said.add(failure.id)
                    self._record(failure, match, excerpt, name, number, event)

    def _event_key(self, failure: Failure, line: bytes, name: str) -> str:
        """A fault event's text and place (a recovery ends the fault of its own), "" for a
        finding of another kind; past EVENT_PLACES places of a fault, not read (UNTRACKED)."""
        if failure.family not in EVENT_FAMILIES:
            return ""
        found = self._found.get(failure.id)
        if not failure.ends and found is not None and len(found.events) >= EVENT_PLACES:
            return UNTRACKED
        return f"{name}\0{event_place(line.decode('utf-8', 'replace'))}"

    def _end(self, failure_id: str, event: str) -> bool:
        """A recovery at ``event``'s place: the fault's occurrences there are over, and the
        finding with them where it was seen nowhere else. Whether it ended any."""
        found = self._found.get(failure_id)
        if found is None or found.events.pop(event, None) is None:
            return False
        if not found.events:
            del self._found[failure_id]
        return True

    def _matches(
        self,
        part: bytes,
        hints: set[bytes],
        data: bytes,
        end: int,
        before: str = "",
        frame: str = "",  # the two lines above, for an entry that reads them
    ) -> tuple[tuple[Failure, str, str, str], ...]:
        """What one part of a line shows, read with the hints it holds of the passes that
        found its line: each failure, its match, the line's excerpt and the text that says it
        (the match, up to its code where a message follows)."""
        lowered = part.lower()
        held = tuple(
            h for p in sorted(hints) for h in self._passes[p] if self._holds(part, lowered, h)
        )
        line = plain(part.decode("utf-8", "replace"))
        digits, lowered_line = SIX_DIGITS.search(line) is not None, line.lower()
        found = []
        for failure in self._entries(held, lowered_line, digits):
            text, lowered_text = line, lowered_line
            if failure.following or failure.frame:  # lines not in lowered_line
                text = line + continued(data, end, failure.following)
                text, lowered_text = text + (frame if failure.frame else ""), None
            got = self._match(failure, text, digits, lowered_text, before)
            if got is not None and self._mention(failure, held, line, got[1], before):
                continue
            if got is not None:
                decoded, m = got
                # a family's trailing message is context: its code is what it says
                key = (
                    m.group(0)[: m.end("code") - m.start()]
                    if "text" in m.re.groupindex
                    else m.group(0)
                )
                # the frame read with a line is not the line's to show
                shown = line if failure.frame else text
                found.append((decoded, m.group(0)[:EXCERPT], trim(shown, m.start(), m.end()), key))
        if self._fault_diag and all(
            f.fallback or (f.family and f.rank == GENERIC) for f, *_ in found
        ):
            # Fault-Diag reads a line nothing explains but a family's follow-up (a plog
            # module's) or a fallback; before it, which then adds nothing: a rule says more
            # than a module
            found[:0] = self._fault_diag_reading(line)
        if any(not f.fallback for f, *_ in found):
            found = [m for m in found if not m[0].fallback]
        return tuple(found)

    def _fault_diag_reading(self, line: str) -> list[tuple[Failure, str, str, str]]:
        """The most specific rule ``line`` shows whose framework the text names (a MindSpore
        rule in a text that holds "mindspore"), unless a logger marked the line INFO/DEBUG with
        no error mark before the rule's first keyword (as a code is a mention there) and the
        rule reads no event log of the hardware's (whose records are faults at any level). An
        event's recovery ("assertion:Recovery") ends the rule's finding read before it."""
        for rule_id, start, end in fault_diag_read(line):
            failure = rule_failure(rule_id)
            if failure is None or not self._names(rule_id):
                continue
            if recovered(line):
                failure = replace(failure, ends=True)
            elif self.heed_levels and not event_log(rule_id) and quiet(line, start):
                return []
            said = line[start:end]
            return [(failure, said[:EXCERPT], trim(line, start, end), said)]
        return []

    def _names(self, rule_id: str) -> bool:
        """Whether the text being read names the framework of ``rule_id`` (a rule of no
        framework's own: always), anywhere in it, before the line or after."""
        spellings = gate(rule_id)
        if not spellings:
            return True
        key, looked = (self._name, spellings), (self._texts, spellings)
        if key not in self._named and looked not in self._looked:
            self._looked.add(looked)
            if names(self._text, rule_id):
                self._named.add(key)
        return key in self._named

    def _look_for_failure(self, data: bytes, name: str) -> None:
        """Whether the end of ``data`` (the text ``name``, or its end) shows a process that
        died in words no entry names."""
        if name not in self.died and shows_failure(data):
            self.died.add(name)

    def _read(self, data: bytes, name: str, partial: bool = False) -> None:
        """``data`` is the text (or the batch of it: ``partial``, more may follow) now read,
        named ``name``."""
        self._text, self._name, self._texts = data, name, self._texts + 1
        self._partial = partial
        self._looked.clear()
        self._facts.clear()

    def _mention(
        self,
        failure: Failure,
        held: tuple[bytes, ...],
        line: str,
        m: re.Match[str],
        before: str = "",
    ) -> bool:
        """A message found by its own text, none of its entry's hints (the words that make a
        line an error's) on the line, that a logger marked INFO/DEBUG: a mention ("[INFO]
        probe: Torch not compiled with CUDA enabled, using npu"), as a code is on such a line."""
        return (
            self.heed_levels
            and failure.decode is None
            and not any(
                h.decode() in failure.hints and said(h.decode(), record(line, m.start()))
                for h in held
            )
            # the rows above lend their level to a code only: a message on a row of its own
            # may be a line of its own that a screen's width joined to them by mistake
            and quiet(line, m.start(), before if _CODE.fullmatch(m.group(0)) else "")
        )

    def _holds(self, part: bytes, lowered: bytes, hint: bytes) -> bool:
        anchor = self._anchors.get(hint)
        return anchor.search(part) is not None if anchor is not None else hint in lowered

    def _parts(
        self, window: bytes, hints: set[bytes], frame: Optional[str]
    ) -> list[tuple[bytes, str]]:
        """The parts of a window between its BREAKs that hold one of ``hints``, each with the
        frame it is read with (``record_parts``)."""
        return record_parts(
            window, lambda part: any(self._holds(part, part.lower(), h) for h in hints), frame
        )

    def feed_text(
        self, text: str, name: str, first_line: int = 1, deadline: Optional[float] = None
    ) -> bool:
        return self.feed_bytes(text.encode("utf-8", "surrogatepass"), name, first_line, deadline)

    def feed_lines(self, lines: Iterable[str], name: str) -> None:
        """Lines with or without their line ends (as a file or ``splitlines()`` gives them)."""
        it = iter(lines)
        first = 1
        whole = True  # a text of one batch is looked at as feed_bytes would
        end = b""  # the text's end so far: where a process that died shows
        while True:
            batch = list(islice(it, BATCH_LINES))
            if not batch:
                self._look_for_failure(end, name)
                return
            whole = whole and len(batch) < BATCH_LINES
            # File iteration keeps the line ends, splitlines() drops them; a list may mix both.
            text = "".join(line if line.endswith("\n") else line + "\n" for line in batch)
            data = text.encode("utf-8", "surrogatepass")
            # a framework named in an earlier batch stays named (_named)
            self._read(data, name, partial=not whole)
            self._feed(data, name, first, whole and len(data) <= WRAPPED_TEXT)
            end = (end + data[-DEATH_TAIL:])[-DEATH_TAIL:]
            first += len(batch)

    def _match(
        self,
        failure: Failure,
        line: str,
        digits: bool = True,
        lowered: Optional[str] = None,
        before: str = "",
    ) -> Optional[tuple[Failure, re.Match[str]]]:
        """The failure ``line`` shows through ``failure``'s patterns (a family: the failure of
        the code it captured), with the match."""
        m = failure.search(line, digits, lowered)
        if m is None:
            return None
        if failure.judge is not None:
            # a terminal's row is judged with the rows above it of its line: what stands there
            # (a WARNING mark, the words of a lookup that missed) counts as on the line
            whole = (_in_whole_line(m, before) or m) if before else m
            if not judged(failure.judge, whole):
                return None
        context = failure.context
        if context is not None:
            facts = self._text_facts(context)
            if not judged(lambda m: context.judge(m, facts), m):
                return None
        if failure.decode is None:
            return failure, m
        # an error mark before the code counts, the family's own context included
        if self.heed_levels and quiet(line, m.start("code"), before):
            return None
        decoded = self._decoded.failure(failure, m)
        return None if decoded is None else (decoded, m)

    def _text_facts(self, context: TextFacts) -> Any:
        """What ``context`` reads in the text being read: once per text, however many of its
        lines ask (a reader that fails reads nothing: None; so does a batch of lines that more
        may follow, which is not the whole text)."""
        if self._partial:
            return None
        if id(context) not in self._facts:
            try:
                self._facts[id(context)] = context.read(self._text)
            except Exception:  # one entry's bug must not lose the scan
                self._facts[id(context)] = None
        return self._facts[id(context)]

    def _record(
        self, failure: Failure, match: str, excerpt: str, name: str, number: int, event: str = ""
    ) -> None:
        where = f"{name}:{number}"
        found = self._found.get(failure.id)
        if found is None:
            at = (name, number) if failure.said else None
            found = self._found[failure.id] = Found(
                failure, match, excerpt, where, where, order=len(self._found), said_at=at
            )
        else:
            found.count += 1
            found.last = where
            if found.failure.ends and not failure.ends:  # told as over, then seen again
                found.failure = failure
            elif failure.said and not found.failure.said:
                # "E89999: Inner Error!", then the line of the same code that says why
                found.failure, found.match, found.line = failure, match, excerpt
                found.said_at = (name, number)
        found.texts[name] = None
        if event:  # (past EVENT_PLACES places, the rest are kept as one that never recovers)
            if len(found.events) >= EVENT_PLACES and event not in found.events:
                event = UNTRACKED
            found.events[event] = found.events.get(event, 0) + 1
        if len(found.places) < PLACES:
            found.places.append((name, number))
        else:  # the last place stands in the last slot
            found.places[-1] = (name, number)

    @property
    def undecoded(self) -> int:
        """Lines whose code was past MAX_DECODED distinct codes: not decoded."""
        return self._decoded.undecoded

    def hits(self) -> list[Hit]:
        """One hit per failure: root causes first, generic follow-up codes last (see
        ``findings``)."""
        return findings(list(self._found.values()), bool(self.died))


def _in_whole_line(m: re.Match[str], before: str) -> Optional[re.Match[str]]:
    """``m`` of a wrapped row in its whole line (``before``: the rows above), else None."""
    at = len(before) + m.start()
    whole = m.re.search(before + m.string, at)
    return whole if whole is not None and whole.start() == at else None


def scan_lines(
    lines: Iterable[str],
    name: str,
    catalogue: Optional[tuple[Failure, ...]] = None,
    heed_levels: bool = True,
    tell_recoveries: bool = False,
) -> list[Hit]:
    """The known failures in ``lines`` (one text, named ``name`` in the hits' positions). A
    text is split at "\\n" as a file is (``str.splitlines`` also splits at form feeds and
    U+2028, which a log's lines may hold)."""
    scanner = Scanner(catalogue or (), heed_levels=heed_levels, tell_recoveries=tell_recoveries)
    scanner.feed_lines(lines, name)
    return scanner.hits()
