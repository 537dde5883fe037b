"""A verdict or none: the hooks and ``ampenv run`` judge in a forked child and read its
verdict from a pipe.

A plugin can end the process in ways no ``try`` catches (``os._exit(0)``, a segfault in an
extension, SIGKILL from the OOM killer). Judged in-process, such a run would exit 0 with no
report, and a Slurm Prolog, node-problem-detector or a container entrypoint would read a
healthy node. Here the parent gets the child's JSON answer, or ``None`` when the child ended
without one (or outlived ``timeout``): the caller then says "could not judge".
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
import traceback
from typing import Any, Callable, Optional

from ampenv.probe import proc

MAX_ANSWER_BYTES = 16 << 20  # an environment and a brief report
# Why there is no verdict when the child died of SIGPIPE: what read its output went away
# (`doctor | head -1`), which is no failure of the node; the caller ends as that child did
READER_GONE = "the reader of its output went away"
# How often the parent looks whether the child has ended while its pipe stays open: a process
# the child left behind (a plugin's fork) holds the pipe's end, and EOF would wait for it
_POLL_S = 0.1


@contextlib.contextmanager
def _closing(fd: int):
    try:
        yield fd
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _child(work: Callable[[], Any], w: int) -> None:
    code = 70  # EX_SOFTWARE: the work raised
    try:
        data = json.dumps(work()).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(w, view) :]
        code = 0
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C or SIGTERM: the parent says what ended it
        pass
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def in_child(work: Callable[[], Any], timeout: Optional[float] = None) -> tuple[Optional[Any], str]:
    """``work()``'s JSON-ready answer computed in a forked child, and "" ; or ``None`` and why
    there is none. Whatever the child started dies with it."""
    proc.adopt_orphans()  # the child's tools, orphaned when it dies, become ours to kill
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which never returns
        os.close(r)
        _child(work, w)
    os.close(w)
    end = None if timeout is None else time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    why = ""
    status: Optional[int] = None  # the child's wait status, once reaped
    with _closing(r):
        try:
            while True:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    why = f"the check run did not end within {timeout:g} s"
                    break
                ready, _, _ = select.select([r], [], [], min(_POLL_S, left or _POLL_S))
                if not ready:
                    if status is not None:
                        break  # it ended, and the pipe holds nothing more
                    done, ended = os.waitpid(pid, os.WNOHANG)
                    if not done:
                        continue
                    # it ended: all it wrote is in the pipe, read without waiting for an EOF
                    status = ended
                    os.set_blocking(r, False)
                data = b""
                with contextlib.suppress(BlockingIOError):
                    data = os.read(r, 1 << 16)
                if not data:
                    break
                size += len(data)
                if size > MAX_ANSWER_BYTES:
                    why = "the check run's answer was too large"
                    break
                chunks.append(data)
        finally:
            if why or sys.exc_info()[0] is not None:
                proc.kill_tree(pid)
            if status is None:
                _, status = os.waitpid(pid, 0)
            if proc.has_children():
                proc.kill_children()  # what the child started and left behind
    if why:
        return None, why
    code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGPIPE:
        return None, READER_GONE
    if code < 0:
        return None, f"the check run was killed by signal {-code} before its verdict"
    if not chunks:
        return None, f"the check run ended (exit {code}) without a verdict"
    try:
        return json.loads(b"".join(chunks)), ""
    except ValueError:
        return None, f"the check run ended (exit {code}) with a broken verdict"
