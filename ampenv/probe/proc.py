"""The one subprocess helper. Every command ampenv runs goes through :func:`run`.

Rules: argv lists only (never a shell), a timeout on every call, at most
:data:`MAX_OUTPUT_BYTES` of output (then the command is killed: outcome "too much output"),
and on timeout the whole tree is killed: the process group, every descendant seen while it
ran, and every process that still carries the command's tag (``AMPENV_TREE`` in its
environment) among ampenv's children. ampenv is a child subreaper (Linux), so a descendant
that calls ``setsid`` and whose parent exits becomes ampenv's child rather than init's: a hung
``npu-smi`` or a wedged torch_npu child, or a daemon either started, never outlives the doctor
(:func:`kill_leftovers` runs when the CLI ends).
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


class Outcome(str, enum.Enum):
    OK = "ok"
    MISSING = "missing"  # the tool is not installed / not executable
    TIMEOUT = "timeout"
    SIGNAL = "signal"  # killed by a signal it did not ask for
    EXIT = "exit"  # non-zero exit code
    TOO_MUCH_OUTPUT = "too_much_output"  # wrote more than MAX_OUTPUT_BYTES and was killed


# What one command may write (stdout and stderr together) before it is killed: an npu-smi that
# is `yes` must not grow ampenv by gigabytes. The biggest real output (npu-smi info on a
# 16-chip node, a set_env.sh's `env -0`) is a few hundred KiB.
MAX_OUTPUT_BYTES = 16 << 20
TAG = "AMPENV_TREE"  # in every command's environment: finds its descendants that left
_READ_CHUNK = 1 << 16
_RECORD_EVERY = 0.1  # seconds between looks for descendants of a running command


@dataclass
class CommandResult:
    argv: list[str]
    outcome: Outcome
    returncode: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    timeout_s: float = 0.0
    error: str = ""  # why a MISSING tool could not start
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    def describe(self) -> str:
        """One line for a report: what happened, without the output."""
        cmd = " ".join(self.argv)
        if self.outcome is Outcome.OK:
            return f"`{cmd}` succeeded in {self.duration_s:.2f} s"
        if self.outcome is Outcome.MISSING:
            return f"`{self.argv[0]}` could not be run: {self.error}"
        if self.outcome is Outcome.TIMEOUT:
            return f"`{cmd}` did not answer in {self.timeout_s:g} s and was killed"
        if self.outcome is Outcome.TOO_MUCH_OUTPUT:
            return (
                f"`{cmd}` wrote more than {MAX_OUTPUT_BYTES >> 20} MiB of output "
                "(too much output) and was killed"
            )
        if self.outcome is Outcome.SIGNAL:
            sig = -(self.returncode or 0)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            return f"`{cmd}` was killed by {name}"
        return f"`{cmd}` exited with code {self.returncode}"

    def to_dict(self) -> dict:
        return {
            "argv": self.argv,
            "outcome": self.outcome.value,
            "returncode": self.returncode,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_s": round(self.duration_s, 4),
            "timeout_s": self.timeout_s,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, d: dict) -> CommandResult:
        return cls(
            argv=list(d["argv"]),
            outcome=Outcome(d["outcome"]),
            returncode=d.get("returncode"),
            stdout=d.get("stdout", ""),
            stderr=d.get("stderr", ""),
            duration_s=d.get("duration_s", 0.0),
            timeout_s=d.get("timeout_s", 0.0),
            error=d.get("error", ""),
        )


class _Sink:
    """Output of one command, both streams counted against one cap."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        self.total = 0
        self.overflow = False
        self._on_overflow = on_overflow
        self._lock = threading.Lock()

    def take(self, n: int) -> int:
        """How many of ``n`` new bytes may be kept; past the cap, the command is killed."""
        with self._lock:
            keep = max(0, min(n, MAX_OUTPUT_BYTES - self.total))
            self.total += n
            first = self.total > MAX_OUTPUT_BYTES and not self.overflow
            if first:
                self.overflow = True
        if first:
            self._on_overflow()
        return keep


def _pump(
    stream, chunks: list[bytes], sink: _Sink, on_line: Optional[Callable[[str], None]]
) -> None:
    pending = b""
    fd = stream.fileno()
    try:
        while True:
            data = os.read(fd, _READ_CHUNK)
            if not data:
                break
            keep = sink.take(len(data))
            if keep:
                chunks.append(data[:keep])
            if sink.overflow:
                break  # killed; what it writes now goes nowhere
            if on_line is not None:
                pending += data
                *lines, pending = pending.split(b"\n")
                pending = pending[-_READ_CHUNK:]  # a line without end stays bounded
                for line in lines:
                    try:
                        on_line(line.decode("utf-8", "replace"))
                    except Exception:  # a progress callback must never break the command
                        on_line = None
                        break
    except OSError:
        pass
    finally:
        stream.close()


_state_lock = threading.Lock()
_spawned_any = False
_subreaper = False
_counter = 0


def _become_subreaper() -> None:
    """Orphaned descendants become our children (Linux >= 3.4), so none escapes to init."""
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def stop_being_subreaper() -> None:
    """Before exec: the attribute survives execve, and the job must not inherit it (its
    orphans would become its zombies)."""
    global _subreaper
    if not _subreaper:
        return
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 0, 0, 0, 0)
    _subreaper = False


def _kill_procs(procs) -> None:
    import psutil

    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
    for p in procs:  # reap those that are our children (orphans we adopted)
        with contextlib.suppress(psutil.Error):
            p.wait(timeout=0.5)


def _tagged(tag: str):
    """Our descendants (adopted orphans included) whose environment carries ``tag``."""
    import psutil

    found = []
    for p in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if p.environ().get(TAG) == tag:
                found.append(p)
    return found


def kill_tree(pid: int, recorded=(), tag: Optional[str] = None) -> None:
    """Kill a process, its process group, every descendant (now and ``recorded`` while it
    ran, even ones that setsid'd) and, with ``tag``, every process of ours that carries it."""
    import psutil  # only on the rare kill path: the quick path does not pay for it

    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    # the process itself first, whether or not it leads its group (a forked judge does not):
    # killed after its workers, it would go on and act on their deaths
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    known = {p.pid for p in descendants}
    procs = list(descendants) + [p for p in recorded if p.pid not in known]
    if tag is not None:
        known |= {p.pid for p in procs}
        procs += [p for p in _tagged(tag) if p.pid not in known and p.pid != pid]
    _kill_procs(procs)


def has_children() -> bool:
    """Whether a process of ours still runs, read from /proc's stat files without psutil's
    import (~25 ms: the quick path's doctor does not pay for it when nothing was left behind).
    True where /proc cannot say."""
    me = os.getpid()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read(4096)
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()  # past the command's name, which may hold
        if len(fields) > 1 and fields[1] == str(me).encode():  # spaces: state, ppid, ...
            return True
    return False


def kill_children() -> None:
    """Kill every process this one started that still runs, with its tree (adopted orphans
    included). Called before ampenv execs a job or exits from a hook: a command whose check
    the runner gave up on (its deadline passed) must not outlive the verdict."""
    import psutil

    for child in psutil.Process().children():
        kill_tree(child.pid)
        with contextlib.suppress(psutil.Error):
            child.kill()
            child.wait(timeout=1)  # reap it, so the job we become inherits no zombie


def adopt_orphans() -> None:
    """Become a child subreaper now (before forking a judge, say), and kill what is left of
    our children when the CLI ends."""
    global _spawned_any
    with _state_lock:
        _become_subreaper()
        _spawned_any = True


def kill_leftovers() -> None:
    """:func:`kill_children`, only when this process ever started a command and one still
    runs (the quick path without commands does not pay for psutil)."""
    if _spawned_any and has_children():
        with contextlib.suppress(Exception):
            kill_children()


class Spawned:
    """A command started by :func:`spawn`: poll it, wait for it, kill its tree, then
    :meth:`finish` for its :class:`CommandResult`. Lets a caller watch several commands
    under one deadline with the same rules as :func:`run`."""

    def __init__(
        self,
        argv: list[str],
        popen: Optional[subprocess.Popen],
        *,
        error: str = "",
        tag: Optional[str] = None,
        on_stdout_line: Optional[Callable[[str], None]] = None,
        on_stderr_line: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.argv = argv
        self.popen = popen
        self.error = error  # why it could not start
        self.tag = tag
        self.start = time.monotonic()
        self.killed = False
        self._out: list[bytes] = []
        self._err: list[bytes] = []
        self._pumps: list[threading.Thread] = []
        self._recorded: dict[int, Any] = {}  # pid -> psutil.Process seen below it
        self._next_record = self.start + _RECORD_EVERY
        self._sink = _Sink(self._overflowed)
        self._kill_lock = threading.Lock()
        if popen is not None:
            for stream, chunks, hook in (
                (popen.stdout, self._out, on_stdout_line),
                (popen.stderr, self._err, on_stderr_line),
            ):
                t = threading.Thread(
                    target=_pump, args=(stream, chunks, self._sink, hook), daemon=True
                )
                t.start()
                self._pumps.append(t)

    @property
    def pid(self) -> Optional[int]:
        return self.popen.pid if self.popen is not None else None

    @property
    def overflowed(self) -> bool:
        return self._sink.overflow

    def _overflowed(self) -> None:
        self._kill()

    def poll(self) -> Optional[int]:
        """The exit code, or None while it runs (a command that never started reads -1)."""
        if self.popen is None:
            return -1
        code = self.popen.poll()
        if code is None:
            self._record()
        return code

    def _record(self) -> None:
        """Remember its descendants now: one that setsid's and is orphaned later is still
        found when the tree is killed."""
        if self.popen is None or time.monotonic() < self._next_record:
            return
        self._next_record = time.monotonic() + _RECORD_EVERY
        import psutil

        with contextlib.suppress(psutil.Error):
            for p in psutil.Process(self.popen.pid).children(recursive=True):
                self._recorded.setdefault(p.pid, p)

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True once it has exited."""
        if self.popen is None:
            return True
        end = time.monotonic() + max(0.0, timeout)
        while True:
            left = end - time.monotonic()
            try:
                self.popen.wait(timeout=max(0.0, min(left, _RECORD_EVERY)))
                return True
            except subprocess.TimeoutExpired:
                if left <= _RECORD_EVERY:
                    return False
                self._record()

    def _kill(self) -> None:
        with self._kill_lock:
            if self.popen is None:
                return
            self.killed = True
            kill_tree(self.popen.pid, list(self._recorded.values()), self.tag)

    def kill(self) -> None:
        """Kill its whole tree; :meth:`finish` then reports it as timed out."""
        if self.popen is not None:
            self._kill()
            self.popen.wait()

    def finish(self, timeout_s: float = 0.0) -> CommandResult:
        """Reap it (it must have exited or been killed) and describe what happened."""
        if self.popen is None:
            return CommandResult(self.argv, Outcome.MISSING, error=self.error, timeout_s=timeout_s)
        self.popen.wait()
        # A grandchild that kept our pipes open must not keep us waiting.
        for t in self._pumps:
            t.join(timeout=1.0)
        if any(t.is_alive() for t in self._pumps):
            self._kill()
            for t in self._pumps:
                t.join(timeout=1.0)
        duration = time.monotonic() - self.start
        rc = self.popen.returncode
        if self.overflowed:
            outcome = Outcome.TOO_MUCH_OUTPUT
        elif self.killed:
            outcome = Outcome.TIMEOUT
        elif rc is not None and rc < 0:
            outcome = Outcome.SIGNAL
        elif rc:
            outcome = Outcome.EXIT
        else:
            outcome = Outcome.OK
        return CommandResult(
            self.argv,
            outcome,
            rc,
            b"".join(self._out).decode("utf-8", "replace"),
            b"".join(self._err).decode("utf-8", "replace"),
            duration,
            timeout_s=timeout_s,
        )


def spawn(
    argv: list[str],
    *,
    env: Optional[dict[str, str]] = None,
    cwd: Optional[str] = None,
    input: Optional[str] = None,
    on_stdout_line: Optional[Callable[[str], None]] = None,
    on_stderr_line: Optional[Callable[[str], None]] = None,
) -> Spawned:
    """Start ``argv`` in its own process group and return at once; never raises for a
    command that cannot start (its :meth:`Spawned.finish` says MISSING)."""
    global _spawned_any, _counter
    if isinstance(argv, str) or not argv:
        raise TypeError("argv must be a non-empty list of strings, never a shell string")
    argv = [str(a) for a in argv]
    with _state_lock:
        if not _spawned_any:
            _become_subreaper()
        _spawned_any = True
        _counter += 1
        tag = f"{os.getpid()}.{_counter}"
    tagged = dict(os.environ if env is None else env)
    tagged[TAG] = tag
    try:
        popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=tagged,
            cwd=cwd,
            start_new_session=True,  # its own process group, so a timeout kills all of it
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError, OSError) as exc:
        return Spawned(argv, None, error=exc.strerror or str(exc))
    started = Spawned(
        argv, popen, tag=tag, on_stdout_line=on_stdout_line, on_stderr_line=on_stderr_line
    )
    if input is not None:
        try:
            popen.stdin.write(input.encode("utf-8", "replace"))
            popen.stdin.close()
        except OSError:
            pass
    return started


def run(
    argv: list[str],
    timeout: float,
    *,
    env: Optional[dict[str, str]] = None,
    cwd: Optional[str] = None,
    input: Optional[str] = None,
    on_stderr_line: Optional[Callable[[str], None]] = None,
) -> CommandResult:
    """Run ``argv`` with a hard timeout; never raises for the command's own failures."""
    started = spawn(argv, env=env, cwd=cwd, input=input, on_stderr_line=on_stderr_line)
    try:
        if not started.wait(timeout):
            started.kill()
    except BaseException:  # KeyboardInterrupt: take the child down with us
        started.kill()
        raise
    return started.finish(timeout)
