"""The logs a node keeps and the ones a user names, read once and scanned once for the known
failures of :mod:`ampenv.knowledge.failures`.

Reading is bounded: of each recent plog (newest ``MAX_FILES``, written in the last
``max_age_days``) only its last ``tail_mb`` MiB; of each ``--log`` file (a path, ``-`` for stdin,
or a ``.gz``) the last ``NAMED_TAIL_MB`` MiB; and the whole scan stops after ``BUDGET_S``.
The scan is memoised on the probe: ``logs.errors`` and ``cache.stale`` share one.
"""

from __future__ import annotations

import glob as _glob
import itertools
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from functools import cache
from typing import BinaryIO, Optional

from ampenv.knowledge.failures import Hit, Scanner
from ampenv.knowledge.failures.findings import NEAR
from ampenv.knowledge.failures.logged_error import last_logged_error
from ampenv.knowledge.failures.unexplained import Unexplained, last_failure
from ampenv.probe import Probe
from ampenv.util import bounded

MAX_FILES = 32  # newest plogs read per run: a node can hold thousands
BUDGET_S = 12.0  # reading and scanning stop after this long; the files left are counted
SCAN_SHARE = 0.25  # of the budget kept for scanning what a stream read to the deadline gave
NAMED_TAIL_MB = 64.0  # of a file the user names: the end of a training log holds its failure
CHUNK = 4 << 20
STDIN = "-"

# plog layouts: <root>/plog, and <root>/{run,debug}/plog on newer CANN (ascend-facts.md §6)
PLOG_NAME = "plog-*.log"  # a plog, wherever it lies
PLOG_GLOBS = ("plog/*.log", "*/plog/*.log", PLOG_NAME)


@dataclass
class LogScan:
    files: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    mtimes: dict[str, float] = field(default_factory=dict)  # file -> mtime (stdin: read time)
    tails: list[str] = field(default_factory=list)  # files read only in part (their end)
    stopped: list[str] = field(default_factory=list)  # streams the budget cut before their end
    # texts whose scan the budget cut: their first and last pieces read, not what lies between
    skipped: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # named logs only
    damaged: list[tuple[str, str]] = field(default_factory=list)  # gzip cut short: read to the cut
    # the texts that end with a failure no hit explains: the line that says what failed
    unexplained: list[tuple[str, Unexplained]] = field(default_factory=list)
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


def _piped(fd: int, deadline: float) -> Iterator[bytes]:
    """The chunks of a pipe as they come, until its end or the deadline: a pipe may never end
    (`kubectl logs -f | ...`) or pause for long, and what came before is kept."""
    import select  # only for stdin

    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return
        yield chunk


GZIP_MAGIC = b"\x1f\x8b"
HEADER_MAX = 64 << 10  # a gzip header's name, comment and extra field: bytes at most
SLICE = 64 << 10  # compressed bytes given to zlib at a time: what it copies at a member's end


class _Unzipped:
    """The text of a gzip stream, every member, up to its end or to where it breaks, as
    ``gzip -dc`` gives it: a log copied while it was written ends mid-stream, and its end is
    what holds the failure. Inflated raw, so a bad CRC or length costs no text (it is noted in
    ``damaged``); zeros after a member are padding. Each piece is at most ``CHUNK`` bytes
    however well the input compresses, and every piece of input read yields (maybe empty), so
    the reader's deadline holds over padding too. The input is read through an offset, in
    slices, so a stream of many small members (a log appended in gzip mode) stays linear."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.damaged, self.read = "", 0
        self._source = chunks
        self._buf, self._at = b"", 0  # the input read, and how far it is used

    def _left(self) -> int:
        return len(self._buf) - self._at

    def _need(self, size: int) -> bool:
        """At least ``size`` unused bytes in the buffer, or False at the end of the input."""
        while self._left() < size:
            chunk = next(self._source, b"")
            if not chunk:
                return False
            self._buf, self._at = self._buf[self._at :] + chunk, 0
        return True

    def _header(self) -> bool:
        """Consume one member's header; False (and ``damaged`` said) where there is none."""
        if not self._need(10) or self._buf[self._at : self._at + 2] != GZIP_MAGIC:
            self.damaged = "not a gzip member where one should start"
            return False
        if self._buf[self._at + 2] != 8:
            self.damaged = "a member compressed with another method than deflate"
            return False
        flags, at = self._buf[self._at + 3], 10  # ``at``: from the member's first byte
        if flags & 4:  # FEXTRA
            if not self._need(at + 2):
                return self._cut()
            at += 2 + int.from_bytes(self._buf[self._at + at : self._at + at + 2], "little")
        for flag in (8, 16):  # FNAME, FCOMMENT: zero-terminated
            if flags & flag:
                while (end := self._buf.find(b"\0", self._at + at)) < 0:
                    if self._left() > HEADER_MAX:
                        self.damaged = f"a member's header is longer than {HEADER_MAX >> 10} KiB"
                        return False
                    if not self._need(self._left() + 1):
                        return self._cut()
                at = end - self._at + 1
        at += 2 if flags & 2 else 0  # FHCRC
        if not self._need(at):
            return self._cut()
        self._at += at
        return True

    def _cut(self) -> bool:
        self.damaged = "the compressed stream ends inside a member's header"
        return False

    def _skip_padding(self) -> Iterator[bytes]:
        """Past the zeros between or after members; empty pieces while reading them."""
        while True:
            while self._at < len(self._buf) and self._buf[self._at] == 0:
                self._at += 1
            if self._at < len(self._buf):
                return
            chunk = next(self._source, b"")
            if not chunk:
                return
            self._buf, self._at = chunk, 0
            yield b""

    def __iter__(self) -> Iterator[bytes]:
        import zlib  # only for a gzip log: the quick path does without it

        while True:
            yield from self._skip_padding()
            if not self._left() or not self._header():
                return
            inflate, crc, size = zlib.decompressobj(-zlib.MAX_WBITS), 0, 0
            try:
                while not inflate.eof:
                    if not self._left() and not self._need(1):
                        self.damaged = "the stream ends before its end-of-stream marker"
                        return
                    data = self._buf[self._at : self._at + SLICE]
                    while True:
                        out = inflate.decompress(data, CHUNK)
                        crc, size = zlib.crc32(out, crc), size + len(out)
                        self.read += len(out)
                        yield out
                        # at the end zlib keeps the rest in both: unused_data is the one read
                        rest = inflate.unused_data if inflate.eof else inflate.unconsumed_tail
                        if inflate.eof or not rest:
                            break
                        data = rest
                    self._at += len(self._buf[self._at : self._at + SLICE]) - len(rest)
            except zlib.error as exc:
                self.damaged = str(exc)
                return
            if not self._need(8):
                self.damaged = "the stream ends before its checksum"
                return
            trailer = self._buf[self._at : self._at + 8]
            self._at += 8
            if trailer != (crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")):
                self.damaged = "its checksum does not match: the text read may be damaged"


def _unzip(chunks: Iterator[bytes], limit: int, deadline: float, mtime: float) -> Tail:
    unzipped = _Unzipped(chunks)
    data, cut, stopped = _rolling_tail(iter(unzipped), limit, deadline)
    if unzipped.damaged and not unzipped.read:
        raise OSError(0, f"not a readable gzip file: {unzipped.damaged}")
    stopped = stopped or time.monotonic() >= deadline  # a pipe that stopped giving
    return Tail(_utf8(data), cut, stopped, mtime, damaged=unzipped.damaged)


def _stdin(limit: int, deadline: float) -> Tail:
    """What stdin gives until its end or the deadline; a gzip piped in is unzipped."""
    if sys.stdin is None:
        raise OSError(0, "there is no standard input")
    chunks = _piped(sys.stdin.fileno(), deadline)
    head = b""
    while len(head) < 2 and (more := next(chunks, b"")):
        head += more
    stream = itertools.chain([head], chunks)
    if head[:2] == GZIP_MAGIC:
        return _unzip(stream, limit, deadline, time.time())
    data, cut, stopped = _rolling_tail(stream, limit, deadline)
    return Tail(_utf8(data), cut, stopped or time.monotonic() >= deadline, time.time())


def _read_named(path: str, limit: int, deadline: float) -> Tail:
    """A log the user named: its end (``limit`` bytes). Regular files (plain or gzip) and
    stdin only: a FIFO or a device would block or never end."""
    if path == STDIN:
        return _stdin(limit, deadline)
    with bounded.open_regular(path) as fh:
        st = os.fstat(fh.fileno())
        head = fh.read(2)
        if head == GZIP_MAGIC:  # gzip: no way to its end but through it
            fh.seek(0)
            return _unzip(_chunks(fh), limit, deadline, st.st_mtime)
        start = max(0, st.st_size - limit)
        fh.seek(start)
        return Tail(_utf8(fh.read(limit), head, start % 2 == 1), start > 0, False, st.st_mtime)


_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
_TEXT = frozenset(b"\t\n\r") | frozenset(range(0x20, 0x7F))


def _utf8(data: bytes, bom: bytes = b"", shifted: bool = False) -> bytes:
    """A log a Windows shell redirected (PowerShell's ">" writes UTF-16 with its byte order
    mark) as UTF-8: its bytes hold a NUL beside each ASCII character, which no pattern reads.
    ``bom``: the first two bytes of the file whose tail ``data`` is (``shifted``: read from an
    odd offset, half a code unit first). Without a mark: text whose every other byte is NUL and
    whose others are ASCII text (a tail from an odd offset holds the NULs first)."""
    marked = _BOMS.get(data[:2])
    codec = marked or _BOMS.get(bom)
    if codec:
        start = 2 if marked else int(shifted)
        return data[start:].decode(codec, "replace").encode("utf-8")
    head = data[:4096]
    first, second = head[0::2], head[1::2]
    le = second.count(0) >= first.count(0)  # ASCII in UTF-16LE: its NUL second
    nuls, chars = (second, first) if le else (first, second)
    ascii_text = sum(c in _TEXT for c in chars) >= len(chars) * 0.9
    if not nuls or nuls.count(0) < len(nuls) * 0.4 or not ascii_text:
        return data
    return data.decode("utf-16-le" if le else "utf-16-be", "replace").encode("utf-8")


def _explains(hit: Hit, name: str, end: Unexplained) -> bool:
    """Whether ``hit`` says what ended the text ``name``: it shows there near its end (within
    NEAR lines above the failure, or below it); a handled import logged at its start does not
    (where the hit was last seen in another text, its places in this one are not known: it
    counts)."""
    if name not in hit.texts:
        return False
    where, _, line = hit.last.rpartition(":")
    return where != name or not line.isdigit() or int(line) >= end.first - NEAR


def _from_whole_line(data: bytes, cut: bool) -> bytes:
    """A tail starts mid-line: drop the partial first line (but a tail that is all one line is
    scanned as it is: dropping it would judge a log unread)."""
    ends = [at for at in (data.find(b"\n"), data.find(b"\r")) if at >= 0]
    return data[min(ends) + 1 :] if cut and ends else data


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
        # the scanner (its catalogue's keys read from the patterns) is built for a first text
        result, scanner = LogScan(), cache(Scanner)
        deadline = time.monotonic() + BUDGET_S
        # A stream read to its end takes its time (a gzip inflated, a pipe): reading stops
        # earlier than scanning, so what was read is still scanned.
        reading = deadline - BUDGET_S * SCAN_SHARE
        ended: dict[str, Unexplained] = {}  # each text's last failure, explained or not

        def look_for_end(data: bytes, name: str, named: bool) -> None:
            """``named``: a log of the user's that is no plog; a plog's records are ERROR and
            EVENT ones at its default level, its last an error whether or not a job failed."""
            if time.monotonic() > deadline:
                return
            if name in scanner().died:
                end = last_failure(data)
            else:
                end = last_logged_error(data) if named else None
            if end is not None:
                ended[name] = end

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
            data = text.encode("utf-8", "surrogatepass")
            if not scanner().feed_bytes(data, path, deadline=deadline):
                result.skipped.append(path)
            look_for_end(data, path, named=False)
        # a file named twice (once through a symlink) is read once, under its first name
        paths: dict[str, str] = {}
        for p in named:
            if p == STDIN:
                paths.setdefault(p, p)
            else:
                paths.setdefault(os.path.realpath(p), os.path.abspath(p))
        for path in paths.values():
            if time.monotonic() > deadline:
                result.unread += 1
                continue
            try:
                read = _read_named(path, int(NAMED_TAIL_MB * (1 << 20)), reading)
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
            if not scanner().feed_bytes(data, name, deadline=deadline) and not read.stopped:
                result.skipped.append(name)
            look_for_end(data, name, named=not fnmatch(os.path.basename(path), PLOG_NAME))
        if result.files:
            result.hits, result.undecoded = scanner().hits(), scanner().undecoded
            result.unexplained = [
                (n, e) for n, e in ended.items() if not any(_explains(h, n, e) for h in result.hits)
            ]
        return result

    return probe.fact(key, run)
