"""``ampenv run -- CMD ARGS…``: the container entrypoint.

Prepare what the job needs (the CANN toolkit's ``set_env.sh``, sourced in a child bash whose
resulting environment is taken over, and the ``[env]`` contract's defaults), gate on a profile,
then become the job with ``exec``: the job keeps this pid, so signals from docker or the
kubelet reach it directly and its exit code is the container's. ampenv writes only to stderr;
stdout belongs to the job.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from ampenv.core.config import POLICIES
from ampenv.core.model import Report
from ampenv.core.session import Options, Session, diagnose, hard_limit, open_session
from ampenv.core.settings import ConfigError
from ampenv.knowledge import envcontract
from ampenv.probe import Probe, cann, proc
from ampenv.util import stdio
from ampenv.util.formats import printable

# The script path arrives as $1, never spliced into the command text.
SOURCE_AND_DUMP = 'source "$1" >/dev/null 2>&1; env -0'
# bash's own bookkeeping, not something the script exported.
SHELL_NOISE = frozenset({"_", "SHLVL", "PWD", "OLDPWD", proc.TAG})
SET_ENV_TIMEOUT = 15.0


@dataclass
class Prepared:
    env: dict[str, str]
    notes: list[str] = field(default_factory=list)


def parse_env0(text: str) -> dict[str, str]:
    """``env -0`` output: NUL-separated NAME=value records (values may hold newlines)."""
    pairs = (record.partition("=") for record in text.split("\0") if "=" in record)
    return {name: value for name, _, value in pairs if name}


def source_env(script: str, env: dict[str, str], timeout: float = SET_ENV_TIMEOUT) -> Prepared:
    """What sourcing ``script`` (a real path) in a child bash adds to or changes in ``env``."""
    result = proc.run(["bash", "-c", SOURCE_AND_DUMP, "ampenv-set-env", script], timeout, env=env)
    if not result.ok:
        # what the shell said last: "/usr/bin/env: Argument list too long" (a value over the
        # kernel's 128 KiB for one variable)
        said = next((line for line in reversed(result.stderr.splitlines()) if line.strip()), "")
        said = printable(said.strip())[:200]
        why = f"{result.describe()}" + (f": {said}" if said else "")
        return Prepared(dict(env), [f"could not source {script}: {why}"])
    after = parse_env0(result.stdout)
    changed = {k: v for k, v in after.items() if k not in SHELL_NOISE and env.get(k) != v}
    return Prepared({**env, **changed}, [f"sourced {script}: {len(changed)} variables set"])


def prepare_cann(probe: Probe, env: dict[str, str]) -> Prepared:
    """Source the toolkit's set_env.sh unless this environment already points at it."""
    found = cann.discover(probe)
    if found.toolkit is None:
        return Prepared(dict(env), ["no CANN toolkit found; environment left as is"])
    if cann.sourced_state(probe, found.toolkit).sourced:
        return Prepared(dict(env), [f"CANN {found.toolkit.version} environment already set"])
    if found.set_env is None:
        return Prepared(dict(env), [f"no set_env.sh beside {found.toolkit.home}"])
    return source_env(str(probe.path(found.set_env)), env)


def contract_defaults(terms: Mapping[str, Any], env: dict[str, str]) -> Prepared:
    """Values for the unset variables the ``[env]`` contract names a value for. A variable
    that is set is left alone even when it breaks the contract: the env checks then say so,
    rather than the entrypoint overriding what the job was given."""
    added = envcontract.unset_defaults(terms, env, envcontract.job_shape(env))
    note = f"[env] contract defaults: {', '.join(sorted(added)) or 'none needed'}"
    return Prepared({**env, **added}, [note])


def gate(report: Report, policy: str) -> Optional[int]:
    """None to start the job, else the exit code to stop with. fail-closed stops on a failed
    check (1) and when the node could not be judged (3); warn-only never stops."""
    if policy == "warn-only" or report.exit_code == 0:
        return None
    return report.exit_code


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: use {' or '.join(POLICIES)}")


def prepare_and_judge(
    opts: Options,
    *,
    policy: Optional[str] = None,
    profile: Optional[str] = None,
    env: Optional[dict[str, str]] = None,
) -> tuple[Prepared, Report, str]:
    """Prepare the environment and run the profile under it; ``[run]`` in the config gives
    the policy and profile the command line left out. Returns both and the policy used."""
    env = dict(os.environ if env is None else env)
    session: Session = open_session(opts, env)
    run_cfg = session.config.section("run")
    policy = policy or run_cfg["policy"]
    check_policy(policy)
    cann_env = prepare_cann(session.probe, env)
    contract = contract_defaults(session.config.section("env"), cann_env.env)
    prepared = Prepared(contract.env, cann_env.notes + contract.notes)
    session = replace(session, probe=Probe(sysroot=session.probe.sysroot, env=prepared.env))
    report = diagnose(replace(opts, profile=profile or run_cfg["profile"]), session)
    return prepared, report, policy


@dataclass
class Answer:
    """What the judging child tells ``ampenv run``."""

    env: dict[str, str]
    notes: list[str]
    brief: str
    stop: Optional[int]  # None: start the job; else the exit code
    policy: str
    usage: str = ""  # a usage error (exit 2), said instead of everything else


def _run_profile(opts: Options, profile: Optional[str]) -> str:
    """The profile `run` judges with: --profile, else [run] profile; the longest where the
    config cannot be read (the time limit must not cut a run short)."""
    if profile:
        return profile
    try:
        from ampenv.core.config import load

        return str(load(opts.config_path, dict(os.environ)).section("run")["profile"])
    except Exception:
        return "certify"


def judge_in_child(
    opts: Options, *, policy: Optional[str] = None, profile: Optional[str] = None
) -> Answer:
    """:func:`prepare_and_judge` in a forked child. A run that ends without a verdict (a
    plugin's os._exit, a crash) could not judge: fail-closed stops with 3; warn-only starts
    the job in the environment it was given."""
    from ampenv.integrations.guard import in_child
    from ampenv.report.brief import render as brief

    def work() -> dict[str, Any]:
        try:
            prepared, report, used = prepare_and_judge(opts, policy=policy, profile=profile)
        except (ConfigError, ValueError) as exc:
            return {"usage": str(exc)}
        return {
            "env": prepared.env,
            "notes": prepared.notes,
            "brief": brief(report),
            "stop": gate(report, used),
            "policy": used,
        }

    answer, why = in_child(work, hard_limit(replace(opts, profile=_run_profile(opts, profile))))
    if answer is None:
        used = policy or "fail-closed"
        with contextlib.suppress(Exception):  # the config's policy, when it can be read
            from ampenv.core.config import load

            used = policy or load(opts.config_path, dict(os.environ)).section("run")["policy"]
        return Answer(
            dict(os.environ),
            [f"could not judge: {why}"],
            "",
            None if used == "warn-only" else 3,
            used,
        )
    if answer.get("usage"):
        return Answer({}, [], "", None, "", usage=answer["usage"])
    return Answer(answer["env"], answer["notes"], answer["brief"], answer["stop"], answer["policy"])


def exec_job(cmd: list[str], env: dict[str, str]) -> int:
    """Become the job. Returns only when exec failed: 127 not found, 126 not runnable."""
    proc.kill_children()
    proc.stop_being_subreaper()  # survives execve: the job must not adopt orphans
    sys.stderr.flush()
    stdio.restore_for_exec()  # fd 1 is the job's; SIGPIPE and SIGXFSZ back to default
    env = {k: v for k, v in env.items() if k != proc.TAG}
    try:
        os.execvpe(cmd[0], cmd, env)
    except FileNotFoundError:
        sys.stderr.write(f"ampenv: cannot run {cmd[0]!r}: command not found\n")
        return 127
    except OSError as exc:
        sys.stderr.write(f"ampenv: cannot run {cmd[0]!r}: {exc.strerror or exc}\n")
        return 126
