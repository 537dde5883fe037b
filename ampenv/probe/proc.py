"""The one subprocess helper. Every command ampenv runs goes through :func:`run`.

Rules: argv lists only (never a shell), a timeout on every call, and on timeout the whole
process group is killed (plus any descendant that left the group), so a hung ``npu-smi`` or a
wedged torch_npu child never outlives the doctor.
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional


class Outcome(str, enum.Enum):
    OK = "ok"
    MISSING = "missing"  # the tool is not installed / not executable
    TIMEOUT = "timeout"
    SIGNAL = "signal"  # killed by a signal it did not ask for
    EXIT = "exit"  # non-zero exit code


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


def _pump(stream, sink: list[str], on_line: Optional[Callable[[str], None]]) -> None:
    for line in iter(stream.readline, ""):
        sink.append(line)
        if on_line is not None:
            try:
                on_line(line.rstrip("\n"))
            except Exception:  # a progress callback must never break the command
                on_line = None
    stream.close()


def kill_tree(pid: int) -> None:
    """Kill a process, its process group and every descendant, even ones that setsid'd."""
    import psutil  # only on the rare kill path: the quick path does not pay for it

    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for p in descendants:
        with contextlib.suppress(psutil.Error):
            p.kill()


def kill_children() -> None:
    """Kill every process this one started that still runs, with its tree. Called before
    ampenv execs a job or exits from a hook: a command whose check the runner gave up on
    (its deadline passed) must not outlive the verdict."""
    import psutil

    for child in psutil.Process().children():
        kill_tree(child.pid)
        with contextlib.suppress(psutil.Error):
            child.kill()
            child.wait(timeout=1)  # reap it, so the job we become inherits no zombie


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
        on_stdout_line: Optional[Callable[[str], None]] = None,
        on_stderr_line: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.argv = argv
        self.popen = popen
        self.error = error  # why it could not start
        self.start = time.monotonic()
        self.killed = False
        self._out: list[str] = []
        self._err: list[str] = []
        self._pumps: list[threading.Thread] = []
        if popen is not None:
            for stream, sink, hook in (
                (popen.stdout, self._out, on_stdout_line),
                (popen.stderr, self._err, on_stderr_line),
            ):
                t = threading.Thread(target=_pump, args=(stream, sink, hook), daemon=True)
                t.start()
                self._pumps.append(t)

    @property
    def pid(self) -> Optional[int]:
        return self.popen.pid if self.popen is not None else None

    def poll(self) -> Optional[int]:
        """The exit code, or None while it runs (a command that never started reads -1)."""
        return self.popen.poll() if self.popen is not None else -1

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True once it has exited."""
        if self.popen is None:
            return True
        try:
            self.popen.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return False
        return True

    def kill(self) -> None:
        """Kill its whole tree; :meth:`finish` then reports it as timed out."""
        if self.popen is not None:
            self.killed = True
            kill_tree(self.popen.pid)
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
            kill_tree(self.popen.pid)
        duration = time.monotonic() - self.start
        rc = self.popen.returncode
        if self.killed:
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
            "".join(self._out),
            "".join(self._err),
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
    if isinstance(argv, str) or not argv:
        raise TypeError("argv must be a non-empty list of strings, never a shell string")
    argv = [str(a) for a in argv]
    try:
        popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group, so a timeout kills all of it
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError, OSError) as exc:
        return Spawned(argv, None, error=exc.strerror or str(exc))
    started = Spawned(argv, popen, on_stdout_line=on_stdout_line, on_stderr_line=on_stderr_line)
    if input is not None:
        try:
            popen.stdin.write(input)
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
