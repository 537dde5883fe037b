"""Start the ranks of the collective check and watch them under one deadline.

On its own, ampenv starts one worker per visible device (or ``processes`` gloo workers on a
CPU machine) with a rendezvous on loopback. Under torchrun or srun, this process already is a
rank of a larger job: it starts a single worker for that rank, with the job's rendezvous.

Each worker goes through :func:`ampenv.probe.proc.spawn` (argv list, own process group). When a
rank dies, errs, or the deadline passes, every worker's process tree is killed at once, and the
rank that went wrong is named with its device and the step it stopped at: the one that died
first, or, in a hang, the one that fell behind while its peers waited for it.
"""

from __future__ import annotations

import re
import signal
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ampenv.active.child import parse_payload, tail
from ampenv.active.collective import RATE_MARKER, STAGE_MARKER
from ampenv.knowledge import failures
from ampenv.probe import proc
from ampenv.probe.distenv import JobRank
from ampenv.probe.proc import CommandResult, Outcome

WORKER = "ampenv.active.collective.worker"
POLL_S = 0.1
# Rendezvous variables a parent launcher leaves behind: a local run must not inherit them
# (with TORCHELASTIC_USE_AGENT_STORE set, rank 0 would wait for a store nobody serves).
_INHERITED = re.compile(
    r"(RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|MASTER_ADDR|MASTER_PORT)$"
    r"|TORCHELASTIC_"
)
# The catalogue's failures that mean ranks could not connect in time.
HCCL_CONNECT = ("hccl-socket-timeout", "hccl-link-establish")
STORE_CONNECT = re.compile(
    r"client socket has (?:timed out|failed to connect)|store->get\(.*\) got error"
    r"|Socket Timeout|Connection refused",
    re.I,
)


@dataclass
class Plan:
    backend: str  # gloo | nccl | hccl
    device_kind: str  # cpu | cuda | npu
    world_size: int
    local_ranks: list[tuple[int, int]]  # (rank, local_rank) started by this process
    master_addr: str
    master_port: int
    worker_args: list[str]
    job: Optional[JobRank] = None  # set under torchrun / srun
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    @property
    def mode(self) -> str:
        return self.job.launcher if self.job else "local"

    def device_label(self, local_rank: int) -> str:
        return "cpu" if self.device_kind == "cpu" else f"{self.device_kind}:{local_rank}"


def free_port() -> int:
    """A loopback port nobody listens on, for the rendezvous of a local run."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def plan(
    device_kind: str,
    backend: str,
    local_count: int,
    worker_args: list[str],
    job: Optional[JobRank] = None,
) -> Plan:
    """One worker per local device, ranks 0..n-1 on loopback; or this job's one rank."""
    if job is not None:
        return Plan(
            backend,
            device_kind,
            job.world_size,
            [(job.rank, job.local_rank)],
            job.master_addr,
            job.master_port,
            worker_args,
            job,
        )
    ranks = [(r, r) for r in range(local_count)]
    return Plan(backend, device_kind, local_count, ranks, "127.0.0.1", free_port(), worker_args)


@dataclass
class Progress:
    """The last step a worker announced on stderr, and when; its last bandwidth reading."""

    seq: int = 0
    stage: str = "start"
    at: float = field(default_factory=time.monotonic)
    busbw: str = ""  # "0.84 GB/s at 4 MiB"
    listener: Optional[Callable[[Progress], None]] = None  # told of each step (live progress)

    def on_stderr(self, line: str) -> None:
        if line.startswith(STAGE_MARKER):
            seq, _, label = line[len(STAGE_MARKER) :].partition(" ")
            if seq.isdigit():
                self.seq, self.stage, self.at = int(seq), label, time.monotonic()
        elif line.startswith(RATE_MARKER):
            nbytes, _, gbps = line[len(RATE_MARKER) :].partition(" ")
            if nbytes.isdigit():
                self.busbw = f"busbw {gbps} GB/s at {_human(int(nbytes))}"
        else:
            return
        if self.listener is not None:
            self.listener(self)

    def describe(self, who: str) -> str:
        said = f"{who}: {self.stage} (step {self.seq})"
        return f"{said} · {self.busbw}" if self.busbw else said


def _human(nbytes: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if nbytes < 1024 or unit == "MiB":
            return f"{nbytes:g} {unit}"
        nbytes //= 1024
    return f"{nbytes} B"  # unreachable


@dataclass
class RankRun:
    """One worker: its process, how far it got, and what it reported."""

    rank: int
    local_rank: int
    device: str
    spawned: proc.Spawned
    progress: Progress
    ended_at: Optional[float] = None
    result: Optional[CommandResult] = None
    payload: Optional[dict[str, Any]] = None

    @property
    def who(self) -> str:
        return f"rank {self.rank} ({self.device}, pid {self.spawned.pid})"

    @property
    def error(self) -> Optional[str]:
        return (self.payload or {}).get("error")


@dataclass
class Failure:
    rank: int
    device: str
    kind: str  # hang | died | error | missing
    message: str
    stage: str
    output: list[str] = field(default_factory=list)  # the end of its stderr
    network: Optional[str] = None  # why this looks like a connect problem, and what to check


@dataclass
class Launch:
    plan: Plan
    runs: list[RankRun]
    failures: list[Failure]
    payloads: list[dict[str, Any]]  # what the workers reported, in rank order
    elapsed_s: float


def _worker_env(plan: Plan, rank: int, local_rank: int, base: dict[str, str]) -> dict[str, str]:
    env = dict(base) if plan.job else {k: v for k, v in base.items() if not _INHERITED.match(k)}
    env.update(
        RANK=str(rank),
        WORLD_SIZE=str(plan.world_size),
        LOCAL_RANK=str(local_rank),
        MASTER_ADDR=plan.master_addr,
        MASTER_PORT=str(plan.master_port),
    )
    if plan.job is None:
        env["LOCAL_WORLD_SIZE"] = str(len(plan.local_ranks))
    if plan.device_kind == "cpu":
        # n ranks on one CPU: one thread each, as torchrun does, or they fight for the cores.
        env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _start(
    plan: Plan,
    rank: int,
    local_rank: int,
    env: dict[str, str],
    timeout: float,
    on_progress: Optional[Callable[[str], None]] = None,
) -> RankRun:
    argv = [sys.executable, "-m", WORKER, *plan.worker_args]
    argv += ["--timeout", f"{timeout:.1f}", "--run-id", plan.run_id]
    progress = Progress()
    if on_progress is not None:
        progress.listener = lambda p: on_progress(p.describe(f"rank {rank}"))
    spawned = proc.spawn(
        argv, env=_worker_env(plan, rank, local_rank, env), on_stderr_line=progress.on_stderr
    )
    return RankRun(rank, local_rank, plan.device_label(local_rank), spawned, progress)


def execute(
    plan: Plan,
    budget: float,
    env: dict[str, str],
    on_progress: Optional[Callable[[str], None]] = None,
) -> Launch:
    """Start every planned rank and wait until all have ended, one has failed, or ``budget``
    seconds have passed; then kill what is left and say what went wrong. ``on_progress``
    hears how far the first rank got (its step, its last bandwidth reading)."""
    start = time.monotonic()
    deadline = start + budget
    runs = [
        _start(plan, r, lr, env, budget, on_progress if i == 0 else None)
        for i, (r, lr) in enumerate(plan.local_ranks)
    ]
    while True:
        now = time.monotonic()
        for r in runs:
            if r.ended_at is None and r.spawned.poll() is not None:
                r.ended_at = now
        ended = [r for r in runs if r.ended_at is not None]
        # One rank gone wrong leaves the others waiting for it: no need to wait longer.
        if len(ended) == len(runs) or any(r.spawned.poll() != 0 for r in ended):
            break
        if now >= deadline:
            break
        running = next(r for r in runs if r.ended_at is None)
        running.spawned.wait(min(POLL_S, deadline - now))
    for r in runs:
        if r.ended_at is None:
            r.spawned.kill()
        elif r.spawned.pid is not None:
            proc.kill_tree(r.spawned.pid)  # what a dead rank left in its process group
    for r in runs:
        r.result = r.spawned.finish(budget)
        r.payload = parse_payload(r.result.stdout)
    payloads = [r.payload for r in runs if r.payload]
    return Launch(plan, runs, diagnose(plan, runs, budget), payloads, time.monotonic() - start)


def _hccl_connect_failed(output: str) -> bool:
    return any(h.id in HCCL_CONNECT for h in failures.scan_lines(output.split("\n"), "rank"))


def network_hint(plan: Plan, stage: str, output: str, local_rank: int) -> Optional[str]:
    """Why a rank's failure looks like ranks that could not connect, and what to check: HCCL's
    own connect timeout, or a rendezvous that some rank never reached."""
    if plan.backend == "hccl" and (stage == "connect" or _hccl_connect_failed(output)):
        return (
            "HCCL could not connect the ranks in time: if ranks start far apart, raise "
            "HCCL_CONNECT_TIMEOUT (export HCCL_CONNECT_TIMEOUT=1200; 120-7200 s, default 120; "
            'and [checks."dist.allreduce"] timeout above it), and check the network: '
            f"`ampenv doctor --only env.hccl`, `hccn_tool -i {local_rank} -link -g`, "
            "HCCL_IF_IP / HCCL_SOCKET_IFNAME"
        )
    if plan.backend == "nccl" and stage == "connect":
        return (
            "NCCL could not connect the ranks: rerun with NCCL_DEBUG=INFO to see the transport "
            "it tried, and pin the interface with NCCL_SOCKET_IFNAME"
        )
    if stage == "rendezvous" or STORE_CONNECT.search(output):
        where = f"{plan.master_addr}:{plan.master_port}"
        hint = (
            f"the ranks did not all meet at the rendezvous {where}: check that all "
            f"{plan.world_size} ranks were launched and that rank 0's host accepts connections "
            f"on port {plan.master_port}"
        )
        if plan.backend == "hccl":
            hint += " (then HCCL_CONNECT_TIMEOUT and `ampenv doctor --only env.hccl`)"
        return hint
    return None


def _hint(plan: Plan, run: RankRun, stage: str) -> Optional[str]:
    output = (run.result.stderr if run.result else "") + (run.error or "")
    return network_hint(plan, stage, output, run.local_rank)


def _output(result: Optional[CommandResult]) -> list[str]:
    """The end of a worker's stderr, without the stage lines meant for the launcher."""
    text = result.stderr if result else ""
    kept = (x for x in text.splitlines() if not x.startswith((STAGE_MARKER, RATE_MARKER)))
    return tail("\n".join(kept))


def _how_it_ended(result: CommandResult) -> str:
    if result.outcome is Outcome.SIGNAL:
        try:
            return f"killed by {signal.Signals(-(result.returncode or 0)).name}"
        except ValueError:
            return f"killed by signal {-(result.returncode or 0)}"
    return f"exit code {result.returncode} without a result"


def _ended(plan: Plan, run: RankRun, result: CommandResult) -> Failure:
    stage = (run.payload or {}).get("stage") or run.progress.stage
    if result.outcome is Outcome.MISSING:
        kind, message = "missing", f"{run.who} could not start: {result.error}"
    elif run.error:
        kind, message = "error", f"{run.who} failed at '{stage}': {run.error.splitlines()[0]}"
    else:
        kind, message = "died", f"{run.who} died at '{stage}': {_how_it_ended(result)}"
    return Failure(
        run.rank, run.device, kind, message, stage, _output(result), _hint(plan, run, stage)
    )


def _hung(plan: Plan, hung: list[RankRun], budget: float) -> list[Failure]:
    """In a hang the ranks that arrived wait in a collective for those furthest behind:
    name those (all of them, when none is behind the others)."""
    behind = min(r.progress.seq for r in hung)
    stuck = [r for r in hung if r.progress.seq == behind]
    waiting = [r for r in hung if r.progress.seq != behind]
    failures = []
    for r in stuck:
        idle = time.monotonic() - r.progress.at
        message = f"{r.who} made no progress past '{r.progress.stage}' for {idle:.0f} s"
        if waiting:
            others = ", ".join(str(w.rank) for w in waiting)
            message += f" while rank(s) {others} waited in '{waiting[0].progress.stage}'"
        else:
            message += f" (timeout {budget:.0f} s)"
        hint = _hint(plan, r, r.progress.stage)
        failures.append(
            Failure(r.rank, r.device, "hang", message, r.progress.stage, _output(r.result), hint)
        )
    return failures


def diagnose(plan: Plan, runs: list[RankRun], budget: float) -> list[Failure]:
    """Name the rank(s) at fault: the first to end badly, else the ones a hang waits on."""
    bad = [
        (r.ended_at, r, r.result)
        for r in runs
        if r.ended_at is not None
        and r.result is not None
        and (r.result.outcome is not Outcome.OK or r.error)
    ]
    if bad:
        first = min(at for at, _, _ in bad)
        # A crash makes its peers fail a moment later; of those seen together, a rank that
        # died without a word is the cause, one that reports a lost peer is the effect.
        together = [(r, res) for at, r, res in bad if at - first <= POLL_S]
        silent = [(r, res) for r, res in together if not r.error]
        return [_ended(plan, r, res) for r, res in silent or together]
    hung = [r for r in runs if r.result is not None and r.result.outcome is Outcome.TIMEOUT]
    return _hung(plan, hung, budget) if hung else []
