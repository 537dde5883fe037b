"""The logs a node keeps and the ones a user names, read once and scanned once for the known
failures of :mod:`ampenv.knowledge.failures`.

Reading is bounded: of each recent plog (newest ``MAX_FILES``, written in the last
``max_age_days``) only its last ``tail_mb`` MiB; of each ``--log`` file (a path, ``-`` for stdin,
or a ``.gz``) the last ``NAMED_TAIL_MB`` MiB; and the whole scan stops after ``BUDGET_S``.
The scan is memoised on the probe: ``logs.errors`` and ``cache.stale`` share one.
"""

from __future__ import annotations

import glob as _glob
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Optional

from ampenv.knowledge.failures import Hit, Scanner
from ampenv.probe import Probe
from ampenv.util import bounded

MAX_FILES = 32  # newest plogs read per run: a node can hold thousands
BUDGET_S = 12.0  # reading and scanning stop after this long; the files left are counted
NAMED_TAIL_MB = 64.0  # of a file the user names: the end of a training log holds its failure
CHUNK = 4 << 20
STDIN = "-"

# plog layouts: <root>/plog, and <root>/{run,debug}/plog on newer CANN (ascend-facts.md §6)
PLOG_GLOBS = ("plog/*.log", "*/plog/*.log", "plog-*.log")


@dataclass
class LogScan:
    files: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    mtimes: dict[str, float] = field(default_factory=dict)  # file -> mtime (stdin: read time)
    tails: list[str] = field(default_factory=list)  # files read only in part (their end)
    stopped: list[str] = field(default_factory=list)  # streams the budget cut before their end
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # named logs only
    damaged: list[tuple[str, str]] = field(default_factory=list)  # gzip cut short: read to the cut
    unread: int = 0  # files left when the time budget ran out
    undecoded: int = 0  # lines with a code past the scanner's limit of distinct codes

    def newest(self, hit: Hit) -> float:
        """The newest mtime of the files that showed ``hit``: it is at most this recent."""
        return max((self.mtimes.get(name, 0.0) for name in hit.texts), default=0.0)


def recent_plogs(probe: Probe, roots: list[str], max_age_days: float, now: float) -> list[str]:
    """The newest plog files below the log roots (system paths), newest first."""
    found: dict[str, float] = {}
    for root in roots:
        for pattern in PLOG_GLOBS:
            for path in probe.glob(_glob.escape(root.rstrip("/")) + "/" + pattern):
                mtime = probe.mtime(path)
                if mtime is not None and mtime >= now - max_age_days * 86400:
                    found[path] = mtime
    return sorted(found, key=lambda p: -found[p])[:MAX_FILES]


@dataclass
class Tail:
    data: bytes
    cut: bool  # something before ``data`` was dropped: it starts mid-line
    stopped: bool  # the deadline came before the end of the stream
    mtime: float
    damaged: str = ""  # why a gzip stream ended before its end (what came before is kept)


def _rolling_tail(chunks: Iterator[bytes], limit: int, deadline: float) -> tuple[bytes, bool, bool]:
    """The last ``limit`` bytes of a stream read until its end or the deadline, whether
    anything before them was dropped, and whether the deadline stopped it. Memory stays below
    twice ``limit``."""
    kept, dropped, stopped = bytearray(), False, False
    for chunk in chunks:
        kept += chunk
        if len(kept) > 2 * limit:
            del kept[: len(kept) - limit]
            dropped = True
        if time.monotonic() > deadline:
            stopped = True
            break
    if len(kept) > limit:
        del kept[: len(kept) - limit]
        dropped = True
    return bytes(kept), dropped, stopped


def _chunks(fh: BinaryIO) -> Iterator[bytes]:
    while chunk := fh.read(CHUNK):
        yield chunk


class _Unzipped:
    """The text of a gzip stream (every member) up to its end or to where it breaks: a log
    copied while it was written ends mid-stream, and its end is what holds the failure. Each
    piece is at most ``CHUNK`` bytes, however well the input compresses."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh, self.damaged, self.read = fh, "", 0

    def __iter__(self) -> Iterator[bytes]:
        import zlib  # only for a gzip log: the quick path does without it

        gzip_member = zlib.MAX_WBITS | 16
        unzip, started = zlib.decompressobj(gzip_member), False
        try:
            for raw in _chunks(self.fh):
                while raw:
                    if unzip.eof:  # another member follows, or the zeros gzip pads with
                        if not raw.strip(b"\0"):
                            break
                        unzip = zlib.decompressobj(gzip_member)
                    out = unzip.decompress(raw, CHUNK)
                    started = True
                    raw = unzip.unconsumed_tail or (unzip.unused_data if unzip.eof else b"")
                    if out:
                        self.read += len(out)
                        yield out
            if started and not unzip.eof:
                self.damaged = "the compressed stream ends before its end-of-stream marker"
        except zlib.error as exc:
            self.damaged = str(exc)


def _read_named(path: str, limit: int, deadline: float) -> Tail:
    """A log the user named: its end (``limit`` bytes). Regular files (plain or gzip) and
    stdin only: a FIFO or a device would block or never end."""
    if path == STDIN:
        return Tail(*_rolling_tail(_chunks(sys.stdin.buffer), limit, deadline), time.time())
    with bounded.open_regular(path) as fh:
        st = os.fstat(fh.fileno())
        if fh.read(2) == b"\x1f\x8b":  # gzip: no way to its end but through it
            fh.seek(0)
            unzipped = _Unzipped(fh)
            found = _rolling_tail(iter(unzipped), limit, deadline)
            if unzipped.damaged and not unzipped.read:
                raise OSError(0, f"not a readable gzip file: {unzipped.damaged}")
            return Tail(*found, st.st_mtime, damaged=unzipped.damaged)
        start = max(0, st.st_size - limit)
        fh.seek(start)
        return Tail(fh.read(limit), start > 0, False, st.st_mtime)


def _from_whole_line(data: bytes, cut: bool) -> bytes:
    """A tail starts mid-line: drop the partial first line (but a tail that is all one line is
    scanned as it is: dropping it would judge a log unread)."""
    if not cut or b"\n" not in data:
        return data
    return data.split(b"\n", 1)[1]


def scan(
    probe: Probe,
    log_roots: list[str],
    named: list[str],
    *,
    tail_mb: float = 4.0,
    max_age_days: float = 7.0,
    now: Optional[float] = None,
) -> LogScan:
    """The known failures in recent plogs below ``log_roots`` (system paths, through the probe:
    a support bundle keeps their tails) and in the ``named`` logs (the user's own paths, read
    whatever their age), oldest first, so a hit's first and last positions read in order."""
    now = time.time() if now is None else now
    key = ("logscan", tuple(log_roots), tuple(named), tail_mb, max_age_days)

    def run() -> LogScan:
        result, scanner = LogScan(), Scanner()
        deadline = time.monotonic() + BUDGET_S
        plogs = recent_plogs(probe, log_roots, max_age_days, now)[::-1]
        for path in plogs:
            if time.monotonic() > deadline:
                result.unread += 1
                continue
            mtime, text = probe.mtime(path), probe.read_tail(path, int(tail_mb * (1 << 20)))
            if mtime is None or text is None:
                continue
            result.files.append(path)
            result.mtimes[path] = mtime
            if not scanner.feed_text(text, path, deadline=deadline):
                result.stopped.append(path)
        for path in dict.fromkeys(p if p == STDIN else os.path.abspath(p) for p in named):
            if time.monotonic() > deadline:
                result.unread += 1
                continue
            try:
                read = _read_named(path, int(NAMED_TAIL_MB * (1 << 20)), deadline)
            except OSError as exc:
                why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                result.unreadable.append((path, why))
                continue
            name = "stdin" if path == STDIN else path
            if read.cut:
                result.tails.append(name)
            if read.stopped:
                result.stopped.append(name)
            if read.damaged:
                result.damaged.append((name, read.damaged))
            result.files.append(name)
            result.mtimes[name] = read.mtime
            data = _from_whole_line(read.data, read.cut)
            if not scanner.feed_bytes(data, name, deadline=deadline) and not read.stopped:
                result.stopped.append(name)
        result.hits = scanner.hits()
        result.undecoded = scanner.undecoded
        return result

    return probe.fact(key, run)
