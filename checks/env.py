"""env.*: the Ascend runtime and HCCL variables of this environment.

Every variable that is set is judged by its rule (ampenv/knowledge/envrules.py), on any node: an NPU
node, a CPU machine or a container build. Ranges that depend on the chip apply when the chip is
known (npu-smi, else ``expected_chip`` of npu.devices in ampenv.toml). Then the cluster's
contract (``[env]`` in ampenv.toml, ampenv/knowledge/envcontract.py) is
checked: required values, ranges,
forbidden tokens and variables required on multi-node jobs.
"""

from __future__ import annotations

import difflib

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.knowledge import envcontract, envrules
from ampenv.probe import chips
from ampenv.util.redact import redact

LABELS = {"npu": "Ascend", "hccl": "HCCL"}
WHY = (
    "A wrong variable fails a job late or quietly slows it: an id list CANN cuts short, a "
    "timeout CANN rounds or rejects, a debug switch left on, an option torch_npu never reads."
)
REMEDIES = ("export VAR=value (the exact line is given)", "unset VAR")


def _misspelt(name: str, value: str, family: str) -> Finding:
    """A variable of the family that no rule knows: a likely typo warns, anything else is
    only listed (HCCL and CANN read many variables ampenv has no rule for)."""
    known = [r.name for r in envrules.RULES.values() if r.family == family]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.85)
    if not close:
        return Finding(Status.PASS, f"{name} is set; ampenv has no rule for it (not judged)")
    return Finding(
        Status.WARN,
        f"{envrules.shown(name, value)} is not a variable ampenv knows: it looks like a "
        f"misspelling of {close[0]}, so CANN ignores it",
        f"unset {name}; {envrules.export_line(close[0], value)}",
    )


def _judge(ctx: CheckContext, family: str) -> Result:
    env = ctx.probe.env
    contract = {
        name: term
        for name, term in ctx.config.section("env").items()
        if (envrules.family_of(name) or "npu") == family
    }
    chip_name, count, chip_source = chips.of_node(
        ctx.probe, ctx.config.check_settings, ctx.timeout_left(ctx.settings["timeout"])
    )
    node = envrules.Node(
        env=env,
        chip=chips.family(chip_name),
        device_count=count,
        path_exists=lambda p: ctx.probe.path(p).exists(),
    )
    findings: list[Finding] = []
    judged: dict[str, str] = {}
    for name, value in sorted(env.items()):
        if envrules.family_of(name) != family:
            continue
        judged[name] = redact(name, value)
        rule, term = envrules.RULES.get(name), contract.get(name)
        if rule is None:
            if term is None:
                findings.append(_misspelt(name, value, family))
            continue
        # The contract's forbid list replaces the rule's (and the check setting's).
        forbid = () if term and term.forbid else ctx.settings.get("forbidden_ops")
        findings += envrules.judge(rule, value, node, in_contract=term is not None, forbid=forbid)
    shape = envcontract.job_shape(env)
    findings += envcontract.judge(contract, env, shape, ctx.config.label)

    label = LABELS[family]
    summary = (
        f"{len(judged)} {label} variable{'s' if len(judged) != 1 else ''} set, all valid"
        if judged
        else f"no {label} variables set: CANN defaults apply"
    )
    if contract:
        entries = f"{len(contract)} entr{'y' if len(contract) == 1 else 'ies'}"
        summary += f"; the cluster's contract ({entries}) is met"
    facts = {
        "variables": judged,
        "chip": chip_name,
        "chip_family": node.chip,
        "chip_source": chip_source or None,
        "device_count": count,
        "multi_node": shape.multi_node,
        "job_shape": shape.reason,
        "contract": {name: term.describe() for name, term in contract.items()},
    }
    return combine(findings, summary, facts=facts)


@check(
    "env.npu",
    title="Ascend runtime variables",
    timeout=10,
    after=("npu.devices",),
    why=WHY,
    remedies=REMEDIES,
    settings={
        "forbidden_ops": Setting(
            list,
            list(envrules.KEY_OPS),
            "operators NPU_FUZZY_COMPILE_BLACKLIST must not hold (key ops of the workload)",
        ),
    },
)
def npu_env(ctx: CheckContext) -> Result:
    """Every Ascend/torch_npu variable that is set (ASCEND_RT_VISIBLE_DEVICES, TASK_QUEUE_ENABLE,
    PYTORCH_NPU_ALLOC_CONF, INF_NAN_MODE_ENABLE, log switches, set_option keys, ...) against its
    rule and the chip, then the cluster's contract for those variables."""
    return _judge(ctx, "npu")


@check(
    "env.hccl",
    title="HCCL variables",
    timeout=10,
    after=("npu.devices",),
    why=WHY,
    remedies=REMEDIES,
)
def hccl_env(ctx: CheckContext) -> Result:
    """Every HCCL variable that is set (timeouts per chip, HCCL_BUFFSIZE, HCCL_ALGO syntax,
    HCCL_OP_EXPANSION_MODE, HCCL_INTRA_*, ...) against its rule, then the cluster's contract
    for HCCL variables (HCCL_OP_LEVEL and variables required on multi-node jobs)."""
    return _judge(ctx, "hccl")
