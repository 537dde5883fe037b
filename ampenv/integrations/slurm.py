"""``ampenv hook slurm``: a Slurm Prolog or HealthCheckProgram.

Runs the quick profile and ``certificate verify`` inside ``[hook] timeout`` seconds, counted
from the process start. It judges the node: the ``env.*`` checks (the job's variables and the
``[env]`` contract) are left to ``ampenv run`` and the TaskProlog (see NOT_IN_PROLOG). On
failure it prints one line, ``ampenv: <check id>: <summary>``, and exits non-zero. With
``[hook] drain = true`` it also drains the node with that line as the
reason, the NHC way: a reason that does not start with ``ampenv:`` belongs to an admin and is
never overwritten, and only a node ampenv drained is resumed, once it is healthy again.

A job opts out with ``ampenv=off`` in ``SLURM_JOB_EXTRA`` (``sbatch --extra=ampenv=off``).
Jobs that start together on one node do not judge it side by side: the first takes a lock,
judges, and leaves its verdict beside the lock; the others wait for it and give that verdict
as their own (reached after they asked, so it is about the node they are to run on). A hook
that cannot get the lock within its budget exits 0 with a note: the node is being judged,
and a non-zero Prolog exit would drain it for a check that is in fact running.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from ampenv.core.runner import REPORT_GRACE
from ampenv.core.session import Options, Session, diagnose, open_session
from ampenv.probe import proc
from ampenv.report.brief import headline, worst
from ampenv.report.npd import truncate_utf8
from ampenv.util import files
from ampenv.util.atomic import write_text
from ampenv.util.clock import process_start

PREFIX = "ampenv:"
EXIT_BUSY = 0  # another hook is judging this node; see the module docstring
LOCK_POLL_S = 0.05
# Kept for what follows the checks: certificate verify and two scontrol calls (which are
# also cut off at the end of the budget).
RESERVE_S = 0.8
SCONTROL_TIMEOUT = 5.0
REASON_BYTES = 160  # `sinfo -R` shows reasons in a column; keep them short

_STATE = re.compile(r"(?:^|\s)State=(\S+)")
_REASON = re.compile(r"^\s*Reason=(.*?)\s*$", re.MULTILINE)


@dataclass
class NodeState:
    """What ``scontrol show node`` says about the node ampenv may drain."""

    state: str
    reason: Optional[str]  # e.g. "Not responding [slurm@2021-10-19T12:56:19]"

    @property
    def drained(self) -> bool:
        return "DRAIN" in self.state.upper()

    @property
    def ours(self) -> bool:
        return bool(self.reason) and self.reason.startswith(PREFIX)


def parse_show_node(text: str) -> Optional[NodeState]:
    """``State=`` and ``Reason=`` of ``scontrol show node`` (the reason runs to the line end)."""
    state = _STATE.search(text)
    if state is None:
        return None
    reason = _REASON.search(text)
    return NodeState(state.group(1), reason.group(1) if reason else None)


def opted_out(job_extra: str) -> bool:
    """``ampenv=off`` among the comma- or space-separated items of SLURM_JOB_EXTRA."""
    items = re.split(r"[,;\s]+", job_extra.strip())
    return any(item.lower() == "ampenv=off" for item in items)


def node_name(env: dict[str, str]) -> str:
    return env.get("SLURMD_NODENAME") or socket.gethostname()


def lock_path(configured: Optional[str]) -> Path:
    if configured:
        return Path(configured)
    if os.geteuid() == 0 and os.path.isdir("/run"):
        return Path("/run/ampenv-hook.lock")
    return Path(tempfile.gettempdir()) / f"ampenv-hook-{os.geteuid()}.lock"


@dataclass
class Verdict:
    code: int  # 0 healthy; else the exit code (1 a check failed, 3 could not judge)
    line: Optional[str] = None  # "ampenv: <check id>: <summary>" when not healthy
    notes: list[str] = field(default_factory=list)


@dataclass
class Flight:
    """The lock, once waited for: held or not, and who held it meanwhile."""

    held: bool
    waited_for: Optional[str] = None  # "pid N" of the hook that held it first, if any


class LockUnusable(ValueError):
    """``[hook] lock_file`` names something that cannot hold a lock (a folder, /proc/...)."""


def _acquire(fd: int, until: float) -> Flight:
    holder = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
            holder = holder or f"pid {pid or '?'}"
            if time.monotonic() >= until:
                return Flight(False, holder)
            time.sleep(LOCK_POLL_S)
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return Flight(True, holder)


@contextlib.contextmanager
def single_flight(path: Path, until: float) -> Iterator[Flight]:
    """An exclusive flock on ``path``, waited for until ``until`` (time.monotonic())."""
    try:
        fd = files.open_lock(path)  # no link followed; a regular file of ours, or an error
    except OSError as exc:
        raise LockUnusable(f"[hook] lock_file {path}: {exc.strerror or exc}") from None
    try:
        try:
            flight = _acquire(fd, until)
        except OSError as exc:
            raise LockUnusable(f"[hook] lock_file {path}: {exc.strerror or exc}") from None
        yield flight
    finally:
        os.close(fd)  # closing releases the lock


def verdict_path(lock: Path) -> Path:
    return lock.with_name(lock.name + ".verdict")


def share(lock: Path, verdict: Verdict) -> None:
    """Leave the verdict for the hooks waiting on the lock (written while it is held)."""
    record = {"code": verdict.code, "line": verdict.line, "at": time.time(), "pid": os.getpid()}
    with contextlib.suppress(OSError):  # they then judge for themselves
        write_text(verdict_path(lock), json.dumps(record) + "\n")


def shared_since(lock: Path, since: float) -> Optional[Verdict]:
    """The verdict another hook left, if it was reached after ``since`` (time.time()) and
    written by this user alone (in a shared /tmp another user could plant one)."""
    path = verdict_path(lock)
    try:
        opened = files.read_regular(path, 4096, follow=False)
        st = opened.stat
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            return None
        record = json.loads(opened.data)
        if float(record["at"]) >= since:
            note = f"{PREFIX} the verdict of pid {record.get('pid', '?')}, which held the lock"
            return Verdict(int(record["code"]), record.get("line"), notes=[note])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def certificate_problem(session: Session) -> Optional[str]:
    """Why ``ampenv certificate verify`` refuses this node, or None when it accepts it."""
    from ampenv.integrations.certificate import verify_node

    _, verdict = verify_node(session.config, session.probe)
    return None if verdict.ok else verdict.reason


# A Prolog runs in slurmd's environment, which Slurm builds from scratch (SLURM_* only), not
# in the job's: judging variables here would judge slurmd's, fail every job over a contract
# the job itself meets, and drain the node. The job's variables are judged where they exist:
# `ampenv run` (the entrypoint), the TaskProlog of docker/slurm-taskprolog.sh, or the job.
NOT_IN_PROLOG = ("env",)


def judge(opts: Options, session: Session, end: float) -> Verdict:
    """The quick profile within the budget (the node, not the job's variables), then the
    certificate."""
    deadline = max(0.2, end - time.monotonic() - REPORT_GRACE - RESERVE_S)
    skip = [*opts.skip, *NOT_IN_PROLOG]
    report = diagnose(replace(opts, profile="quick", deadline=deadline, skip=skip), session)
    if report.exit_code != 0 and worst(report) is not None:
        return Verdict(report.exit_code, f"{PREFIX} {headline(report)}")
    if session.config.section("hook")["certificate"]:
        problem = certificate_problem(session)
        if problem:
            return Verdict(1, f"{PREFIX} certificate: {problem}")
    return Verdict(0)


def _scontrol(args: list[str], env: dict[str, str], end: float) -> proc.CommandResult:
    timeout = max(0.2, min(SCONTROL_TIMEOUT, end - time.monotonic()))
    return proc.run(["scontrol", *args], timeout, env=env)


def settle_node(node: str, verdict: Verdict, env: dict[str, str], end: float) -> list[str]:
    """Drain an unhealthy node, or resume one ampenv drained; never touch an admin's reason."""
    shown = _scontrol(["show", "node", node], env, end)
    state = parse_show_node(shown.stdout) if shown.ok else None
    if state is None:
        return [f"{PREFIX} node {node} left as is: cannot read its state ({shown.describe()})"]
    if verdict.code == 0:
        if not (state.drained and state.ours):
            return []
        done = _scontrol(["update", f"NodeName={node}", "State=RESUME"], env, end)
        return [f"{PREFIX} resumed {node}" if done.ok else f"{PREFIX} {done.describe()}"]
    if state.reason and not state.ours:
        return [f"{PREFIX} node {node} left as is: its reason is an admin's: {state.reason}"]
    reason = truncate_utf8(verdict.line or PREFIX, REASON_BYTES)
    done = _scontrol(["update", f"NodeName={node}", "State=DRAIN", f"Reason={reason}"], env, end)
    return [f"{PREFIX} drained {node}" if done.ok else f"{PREFIX} {done.describe()}"]


HARD_GRACE_S = 5.0  # past [hook] timeout, the judging child is killed: a verdict of its own


def hard_limit(opts: Options, env: dict[str, str]) -> float:
    """Seconds from now the judging child may take: [hook] timeout counted from the process
    start, plus a grace (the child keeps its own time; this is for one that cannot)."""
    from ampenv.core import config as config_mod

    sysroot = opts.sysroot if opts.sysroot is not None else env.get("AMPENV_SYSROOT", "")
    try:
        timeout = float(config_mod.load(opts.config_path, env, sysroot).section("hook")["timeout"])
    except Exception:
        timeout = 10.0
    return max(1.0, process_start() + timeout + HARD_GRACE_S - time.monotonic())


def run_hook(opts: Options, env: dict[str, str]) -> Verdict:
    """Everything but printing: opt-out, lock, judge, drain or resume."""
    start = process_start()
    if opted_out(env.get("SLURM_JOB_EXTRA", "")):
        return Verdict(0, notes=[f"{PREFIX} skipped: SLURM_JOB_EXTRA has ampenv=off"])
    session = open_session(opts, env)
    hook_cfg = session.config.section("hook")
    end = start + float(hook_cfg["timeout"])
    lock = lock_path(hook_cfg["lock_file"])
    asked = time.time()
    with single_flight(lock, until=end - RESERVE_S) as flight:
        if not flight.held:
            note = f"{PREFIX} another hook holds {lock} ({flight.waited_for}) and is still judging"
            return Verdict(EXIT_BUSY, notes=[note])
        shared = shared_since(lock, asked) if flight.waited_for else None
        if shared is not None:  # judged (and drained or resumed) while this hook waited
            return shared
        try:
            verdict = judge(opts, session, end)
        finally:
            proc.kill_children()  # a hung tool the runner gave up on dies with the verdict
        if hook_cfg["drain"]:
            verdict.notes += settle_node(node_name(env), verdict, env, end)
        share(lock, verdict)
    return verdict
