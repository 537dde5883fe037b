"""env.npu / env.hccl: every variable rule on valid, invalid and suspicious values, the chip the
rules see, and the checks on planted nodes (a fake npu-smi replaying recorded output)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Optional

import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from fakebin import fake_tool, path_with
from judge import load_checks

from ampenv.checks import CheckContext, Context, Result, Status
from ampenv.core import config as config_mod
from ampenv.knowledge import envrules
from ampenv.knowledge.envrules import RULES, UNKNOWN, Node, judge
from ampenv.probe import Probe
from ampenv.probe.chips import computes_in, family
from ampenv.util.redact import REDACTED, redact

SMI = FIXTURES / "npu-smi"
PASS, WARN, FAIL = Status.PASS, Status.WARN, Status.FAIL
EXISTING = {"/usr/local/Ascend/ascend-toolkit/latest", "/cache", "/etc/hccl.json"}


def case(kind, name, value, status, message, remedy=None, *, chip=UNKNOWN, devices=None, **env):
    """kind: valid | invalid | suspicious. ``message`` (and ``remedy``) must appear in a finding
    of the expected (worst) status."""
    node = Node(env=env, chip=chip, device_count=devices, path_exists=EXISTING.__contains__)
    label = f"{kind}:{name}={value}" + (f"@{chip}" if chip != UNKNOWN else "")
    label += "".join(f",{k}={v}" for k, v in env.items())
    return pytest.param(kind, name, value, node, status, message, remedy, id=label)


SET_OPTION = "torch_npu reads {} only through torch.npu.set_option: here it has no effect"
ENV_PATH = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH")
ENV_PATH += ("TOOLCHAIN_HOME",)
PLAIN_PATHS = (
    "ASCEND_PROCESS_LOG_PATH",
    "ASCEND_WORK_PATH",
    "ACL_OP_COMPILER_CACHE_DIR",
    "TORCHAIR_CACHE_HOME",
)
UNCONFIRMED = "the reference could not confirm the valid values"

CASES = [
    # -- ASCEND_RT_VISIBLE_DEVICES: ascending, clean, ids that exist --------------------------
    case("valid", "ASCEND_RT_VISIBLE_DEVICES", "0,1,2,3", PASS, "=0,1,2,3", devices=8),
    case("valid", "ASCEND_RT_VISIBLE_DEVICES", "1,3,8", PASS, "=1,3,8"),  # count unknown
    case(
        "invalid", "ASCEND_RT_VISIBLE_DEVICES", "1, 2,3", FAIL,
        "' 2' is not an integer (valid: >= 0); parsing stops there, so only 1 is used",
        "export ASCEND_RT_VISIBLE_DEVICES=1,2,3",
    ),
    case(
        "invalid", "ASCEND_RT_VISIBLE_DEVICES", "3,1", FAIL,
        "is not in strictly ascending order", "export ASCEND_RT_VISIBLE_DEVICES=1,3",
    ),
    case(
        "invalid", "ASCEND_RT_VISIBLE_DEVICES", "1,3,8", FAIL,
        "names 8, but this node has 8 devices (ids 0..7)", "export ASCEND_RT_VISIBLE_DEVICES=1,3",
        devices=8,
    ),
    case("invalid", "ASCEND_RT_VISIBLE_DEVICES", "0,,1", FAIL, "'' is an empty item"),
    # -- slowdowns --------------------------------------------------------------------------
    case("valid", "ASCEND_LAUNCH_BLOCKING", "0", PASS, "ASCEND_LAUNCH_BLOCKING=0"),
    case(
        "invalid", "ASCEND_LAUNCH_BLOCKING", "yes", FAIL, "is not valid (valid: 0, 1)",
        "export ASCEND_LAUNCH_BLOCKING=0",
    ),
    case(
        "suspicious", "ASCEND_LAUNCH_BLOCKING", "1", WARN,
        "runs every operator synchronously", "unset ASCEND_LAUNCH_BLOCKING",
    ),
    case("valid", "ASCEND_GLOBAL_LOG_LEVEL", "3", PASS, "ASCEND_GLOBAL_LOG_LEVEL=3"),
    case(
        "invalid", "ASCEND_GLOBAL_LOG_LEVEL", "5", FAIL, "is not valid (valid: 0, 1, 2, 3, 4)",
        "export ASCEND_GLOBAL_LOG_LEVEL=3",
    ),
    case(
        "suspicious", "ASCEND_GLOBAL_LOG_LEVEL", "0", WARN,
        "logs below ERROR", "export ASCEND_GLOBAL_LOG_LEVEL=3",
    ),
    case(
        "suspicious", "ASCEND_GLOBAL_LOG_LEVEL", "2", WARN,
        "slows training", "export ASCEND_GLOBAL_LOG_LEVEL=3",
    ),
    case("valid", "ASCEND_SLOG_PRINT_TO_STDOUT", "0", PASS, "ASCEND_SLOG_PRINT_TO_STDOUT=0"),
    case("invalid", "ASCEND_SLOG_PRINT_TO_STDOUT", "true", FAIL, "(valid: 0, 1)"),
    case(
        "suspicious", "ASCEND_SLOG_PRINT_TO_STDOUT", "1", WARN,
        "instead of log files", "unset ASCEND_SLOG_PRINT_TO_STDOUT",
    ),
    # -- TASK_QUEUE_ENABLE ------------------------------------------------------------------
    case("valid", "TASK_QUEUE_ENABLE", "2", PASS, "TASK_QUEUE_ENABLE=2"),
    case(
        "invalid", "TASK_QUEUE_ENABLE", "3", FAIL, "is not valid (valid: 0, 1, 2)",
        "export TASK_QUEUE_ENABLE=1",
    ),
    case(
        "suspicious", "TASK_QUEUE_ENABLE", "0", WARN, "turns the task queue off",
        "export TASK_QUEUE_ENABLE=1",
    ),
    case(
        "suspicious", "TASK_QUEUE_ENABLE", "2", WARN,
        "has no effect: ASCEND_LAUNCH_BLOCKING=1 forces the task queue off",
        "unset ASCEND_LAUNCH_BLOCKING", ASCEND_LAUNCH_BLOCKING="1",
    ),
    case("valid", "COMBINED_ENABLE", "1", PASS, "COMBINED_ENABLE=1"),
    case("invalid", "COMBINED_ENABLE", "2", WARN, UNCONFIRMED, "unset COMBINED_ENABLE"),
    # -- PYTORCH_NPU_ALLOC_CONF: syntax and the conflict with PYTORCH_ALLOC_CONF -------------
    case("valid", "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True", PASS, "=expandable"),
    case(
        "valid", "PYTORCH_NPU_ALLOC_CONF", "max_split_size_mb:128,garbage_collection_threshold:0.6",
        PASS, "max_split_size_mb:128",
    ),
    case(
        "invalid", "PYTORCH_NPU_ALLOC_CONF", "max_split_size_mb:10", FAIL,
        "max_split_size_mb:10 is out of range (valid: > 20 MB)", "unset PYTORCH_NPU_ALLOC_CONF",
    ),
    case(
        "invalid", "PYTORCH_NPU_ALLOC_CONF", "garbage_collection_threshold:1.5", FAIL,
        "(valid: (0, 1))",
    ),
    case(
        "invalid", "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True,page_size", FAIL,
        "'page_size' is not key:value", "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
    ),
    case(
        "suspicious", "PYTORCH_NPU_ALLOC_CONF", "pinned_max_mb:64", WARN,
        "'pinned_max_mb' is not an option ampenv knows", "unset PYTORCH_NPU_ALLOC_CONF",
    ),
    case(
        "suspicious", "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True,max_split_size_mb:128",
        WARN, "which older torch_npu releases refuse",
        "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
    ),
    case(
        "suspicious", "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True", FAIL,
        "is set together with PYTORCH_ALLOC_CONF: torch_npu 26.2.0+ with torch 2.10+ exits",
        "unset PYTORCH_ALLOC_CONF", PYTORCH_ALLOC_CONF="expandable_segments:True",
    ),
    # -- INF_NAN_MODE_* against the chip ----------------------------------------------------
    case("valid", "INF_NAN_MODE_ENABLE", "1", PASS, "INF_NAN_MODE_ENABLE=1", chip="910B"),
    case(
        "invalid", "INF_NAN_MODE_ENABLE", "2", FAIL, "(valid: 0, 1)",
        "export INF_NAN_MODE_ENABLE=1", chip="910B",
    ),
    case(
        "suspicious", "INF_NAN_MODE_ENABLE", "0", WARN,
        "is intercepted on 910B unless INF_NAN_MODE_FORCE_DISABLE=1", "unset INF_NAN_MODE_ENABLE",
        chip="910B",
    ),
    case(
        "suspicious", "INF_NAN_MODE_ENABLE", "1", WARN,
        "is ignored on 910A: it computes in saturation mode only", "unset INF_NAN_MODE_ENABLE",
        chip="910A",
    ),
    case(
        "suspicious", "INF_NAN_MODE_ENABLE", "0", WARN,
        "asks for saturation mode", "unset INF_NAN_MODE_ENABLE",
    ),
    case(
        "valid", "INF_NAN_MODE_ENABLE", "0", PASS, "INF_NAN_MODE_ENABLE=0", chip="A3",
        INF_NAN_MODE_FORCE_DISABLE="1",
    ),
    case("valid", "INF_NAN_MODE_FORCE_DISABLE", "1", PASS, "=1", chip="910B"),
    case("invalid", "INF_NAN_MODE_FORCE_DISABLE", "yes", WARN, UNCONFIRMED),
    case(
        "suspicious", "INF_NAN_MODE_FORCE_DISABLE", "1", WARN,
        "forces saturation mode on A3", "unset INF_NAN_MODE_FORCE_DISABLE INF_NAN_MODE_ENABLE",
        chip="A3", INF_NAN_MODE_ENABLE="0",
    ),
    # -- paths ------------------------------------------------------------------------------
    *(
        c
        for name in PLAIN_PATHS
        for c in (
            case("valid", name, "/var/log/ascend", PASS, f"{name}=/var/log/ascend"),
            case("invalid", name, "", FAIL, "is empty", f"unset {name}"),
            case(
                "suspicious", name, "logs", WARN, "is a relative path",
                f'export {name}="$(realpath logs)"',
            ),
        )
    ),
    *(
        c
        for name in ENV_PATH
        for c in (
            case("valid", name, "/usr/local/Ascend/ascend-toolkit/latest", PASS, f"{name}=/usr"),
            case("invalid", name, "", FAIL, "is empty"),
            case(
                "suspicious", name, "/usr/local/Ascend/cann-7.0.0", WARN,
                "does not exist on this node", f"unset {name}, or source the set_env.sh",
            ),
        )
    ),
    case("valid", "ASCEND_CACHE_PATH", "/cache", PASS, "ASCEND_CACHE_PATH=/cache"),
    case(
        "invalid", "ASCEND_CACHE_PATH", "/data/my cache", FAIL,
        "holds ' ', which CANN does not accept (letters, digits, _ . - / and Chinese)",
    ),
    case(
        "suspicious", "ASCEND_CACHE_PATH", "/missing", WARN, "does not exist on this node",
        "mkdir -p /missing",
    ),
    case("valid", "ACL_OP_COMPILER_CACHE_MODE", "enable", PASS, "=enable"),
    case("invalid", "ACL_OP_COMPILER_CACHE_MODE", "on", WARN, UNCONFIRMED),
    # -- GE_USE_STATIC_MEMORY ---------------------------------------------------------------
    case("valid", "GE_USE_STATIC_MEMORY", "0", PASS, "GE_USE_STATIC_MEMORY=0"),
    case(
        "invalid", "GE_USE_STATIC_MEMORY", "5", FAIL, "(valid: 0, 1, 2, 3, 4)",
        "export GE_USE_STATIC_MEMORY=0",
    ),
    case(
        "suspicious", "GE_USE_STATIC_MEMORY", "1", WARN, "is treated as 2",
        "export GE_USE_STATIC_MEMORY=2",
    ),
    # -- torch.npu.set_option keys: no effect as variables, content still checked -----------
    case(
        "valid", "NPU_FUZZY_COMPILE_BLACKLIST", "Tril,SoftmaxV2", WARN,
        SET_OPTION.format("NPU_FUZZY_COMPILE_BLACKLIST"),
        'torch.npu.set_option({"NPU_FUZZY_COMPILE_BLACKLIST": "Tril,SoftmaxV2"})',
    ),
    case(
        "invalid", "NPU_FUZZY_COMPILE_BLACKLIST", "Tril,Soft-max", FAIL,
        "'Soft-max' is not an operator type such as SoftmaxV2",
        'torch.npu.set_option({"NPU_FUZZY_COMPILE_BLACKLIST": "Tril"})',
    ),
    case(
        "suspicious", "NPU_FUZZY_COMPILE_BLACKLIST", "Tril,Conv2D,MatMul", FAIL,
        "holds Conv2D, MatMul: key operators of the workload would compile online",
        'torch.npu.set_option({"NPU_FUZZY_COMPILE_BLACKLIST": "Tril"})',
    ),
    case(
        "suspicious", "NPU_FUZZY_COMPILE_BLACKLIST", "BatchMatMul", FAIL,
        "holds BatchMatMul", "unset NPU_FUZZY_COMPILE_BLACKLIST",
    ),
    case(
        "valid", "ACL_PRECISION_MODE", "must_keep_origin_dtype", WARN,
        SET_OPTION.format("ACL_PRECISION_MODE"), "unset ACL_PRECISION_MODE; in the training",
    ),
    case(
        "invalid", "ACL_PRECISION_MODE", "fp16", FAIL,
        "is not valid (valid: force_fp32, cube_fp16in_fp32out, force_fp16", "unset",
    ),
    case(
        "suspicious", "ACL_PRECISION_MODE", "force_fp16", WARN,
        "runs fp32 operators in fp16", "unset ACL_PRECISION_MODE",
    ),
    case(
        "suspicious", "ACL_PRECISION_MODE", "allow_fp32_to_fp16", WARN,
        "lets fp32 operators fall back to fp16 on 910B", "unset ACL_PRECISION_MODE", chip="910B",
    ),
    case(
        "valid", "ACL_OP_SELECT_IMPL_MODE", "high_precision", WARN,
        SET_OPTION.format("ACL_OP_SELECT_IMPL_MODE"),
    ),
    case(
        "invalid", "ACL_OP_SELECT_IMPL_MODE", "fast", FAIL,
        "(valid: high_precision, high_performance)", "unset ACL_OP_SELECT_IMPL_MODE",
    ),
    case("valid", "MM_BMM_ND_ENABLE", "enable", WARN, SET_OPTION.format("MM_BMM_ND_ENABLE")),
    case(
        "invalid", "MM_BMM_ND_ENABLE", "1", FAIL, "(valid: enable, disable)",
        'torch.npu.set_option({"MM_BMM_ND_ENABLE": "enable"})',
    ),
    case("valid", "ACL_OP_DEBUG_OPTION", "oom", WARN, SET_OPTION.format("ACL_OP_DEBUG_OPTION")),
    case("invalid", "ACL_OP_DEBUG_OPTION", "all", WARN, UNCONFIRMED),
    # -- Ascend Docker Runtime --------------------------------------------------------------
    case("valid", "ASCEND_VISIBLE_DEVICES", "0-3,6", PASS, "=0-3,6"),
    case(
        "invalid", "ASCEND_VISIBLE_DEVICES", "0,a", WARN,
        "'a' is not a device id or an id range a-b", "export ASCEND_VISIBLE_DEVICES=0",
    ),
    case("valid", "ASCEND_RUNTIME_OPTIONS", "NODRV,VIRTUAL", PASS, "=NODRV,VIRTUAL"),
    case("invalid", "ASCEND_RUNTIME_OPTIONS", "NODRIVER", WARN, "(valid: NODRV, VIRTUAL)"),
    case("valid", "ASCEND_VNPU_SPECS", "vir03_1c_8g", PASS, "=vir03_1c_8g"),
    case("invalid", "ASCEND_VNPU_SPECS", "big", WARN, "is not a vNPU template"),
    # -- HCCL timeouts, per chip ------------------------------------------------------------
    case("valid", "HCCL_CONNECT_TIMEOUT", "1200", PASS, "HCCL_CONNECT_TIMEOUT=1200"),
    case(
        "invalid", "HCCL_CONNECT_TIMEOUT", "60", FAIL, "is out of range (valid: [120, 7200] s)",
        "export HCCL_CONNECT_TIMEOUT=120",
    ),
    case(
        "invalid", "HCCL_CONNECT_TIMEOUT", "9000", FAIL, "out of range",
        "export HCCL_CONNECT_TIMEOUT=7200",
    ),
    case("invalid", "HCCL_CONNECT_TIMEOUT", "2m", FAIL, "is not an integer"),
    case("invalid", "HCCL_CONNECT_TIMEOUT", "\u0663\u0660\u0660", FAIL, "is not an integer"),
    case("invalid", "HCCL_CONNECT_TIMEOUT", "9" * 5000, FAIL, "(5000 characters)' is out of range"),
    case("invalid", "ASCEND_RT_VISIBLE_DEVICES", "\uff10,\uff11", FAIL, "is not an integer"),
    case("valid", "HCCL_EXEC_TIMEOUT", "1836", PASS, "=1836", chip="910B"),
    case("valid", "HCCL_EXEC_TIMEOUT", "544", PASS, "=544 (valid on 910A/310P)", chip="910A"),
    case(
        "invalid", "HCCL_EXEC_TIMEOUT", "0", FAIL,
        "is out of range (valid: (0, 17340] s, in steps of 68) (on 910A/310P)",
        "export HCCL_EXEC_TIMEOUT=1836", chip="910A",
    ),
    case(
        "suspicious", "HCCL_EXEC_TIMEOUT", "600", WARN,
        "is not a multiple of 68: CANN uses 544 s instead", "export HCCL_EXEC_TIMEOUT=544",
        chip="910A",
    ),
    case(
        "suspicious", "HCCL_EXEC_TIMEOUT", "30", WARN, "CANN uses 68 s instead",
        "export HCCL_EXEC_TIMEOUT=68", chip="310P",
    ),
    case(
        "invalid", "HCCL_EXEC_TIMEOUT", "2000", FAIL,
        "(valid: [0, 1091] s) (with HCCL_OP_EXPANSION_MODE=AIV)", "export HCCL_EXEC_TIMEOUT=1091",
        chip="910B", HCCL_OP_EXPANSION_MODE="AIV",
    ),
    case(
        "suspicious", "HCCL_EXEC_TIMEOUT", "0", WARN, "never times out",
        "export HCCL_EXEC_TIMEOUT=1836", chip="A3",
    ),
    case("valid", "HCCL_BUFFSIZE", "200", PASS, "HCCL_BUFFSIZE=200"),
    case("invalid", "HCCL_BUFFSIZE", "0", FAIL, "(valid: >= 1 MB)", "export HCCL_BUFFSIZE=1"),
    case(
        "suspicious", "HCCL_BUFFSIZE", "4096", WARN, "reserves 2 x 4096 MB of HBM",
        "export HCCL_BUFFSIZE=200",
    ),
    # -- HCCL_ALGO syntax -------------------------------------------------------------------
    case("valid", "HCCL_ALGO", "level0:NA;level1:H-D_R", PASS, "HCCL_ALGO='level0:NA;level1:H"),
    case(
        "valid", "HCCL_ALGO",
        "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise", PASS, "alltoall",
    ),
    case(
        "invalid", "HCCL_ALGO", "level0:ring;level1:ring", FAIL,
        "level0:ring is not valid (valid: NA)", "export HCCL_ALGO=level1:ring",
    ),
    case(
        "invalid", "HCCL_ALGO", "allreduce=level0:NA;level1:pairwise", FAIL,
        "allreduce=level1:pairwise is not valid (valid: ring, H-D_R, NHR, NHR_V1, NB, pipeline)",
    ),
    case("invalid", "HCCL_ALGO", "ring", FAIL, "'ring' is not key:value", "unset HCCL_ALGO"),
    case(
        "suspicious", "HCCL_ALGO", "level0:NA;level2:ring", WARN,
        "'level2' is not an option ampenv knows (known: level0, level1)",
    ),
    case(
        "suspicious", "HCCL_ALGO", "gather=level0:NA;level1:ring", WARN,
        "'gather' is not an option ampenv knows",
    ),
    # -- HCCL_OP_EXPANSION_MODE, HCCL_INTRA_* -----------------------------------------------
    case("valid", "HCCL_OP_EXPANSION_MODE", "AI_CPU", PASS, "=AI_CPU", chip="910B"),
    case(
        "invalid", "HCCL_OP_EXPANSION_MODE", "aiv", FAIL,
        "(valid: AI_CPU, AIV, HOST, HOST_TS, CCU_MS)", "unset HCCL_OP_EXPANSION_MODE",
    ),
    case(
        "suspicious", "HCCL_OP_EXPANSION_MODE", "AIV", WARN, "on A2 for inference only",
        chip="910B",
    ),
    case(
        "suspicious", "HCCL_OP_EXPANSION_MODE", "CCU_MS", WARN,
        "exists only on 950: A3 falls back to its default", chip="A3",
    ),
    case(
        "suspicious", "HCCL_OP_EXPANSION_MODE", "HOST", WARN,
        "is ignored while HCCL_DETERMINISTIC=true", HCCL_DETERMINISTIC="true",
    ),
    case("valid", "HCCL_INTRA_PCIE_ENABLE", "1", PASS, "=1", chip="910A"),
    case("invalid", "HCCL_INTRA_PCIE_ENABLE", "2", FAIL, "(valid: 0, 1)"),
    case(
        "suspicious", "HCCL_INTRA_PCIE_ENABLE", "1", FAIL, "enables both paths",
        "unset HCCL_INTRA_ROCE_ENABLE", HCCL_INTRA_ROCE_ENABLE="1",
    ),
    case(
        "suspicious", "HCCL_INTRA_PCIE_ENABLE", "0", WARN, "is rejected by newer CANN",
        "export HCCL_INTRA_ROCE_ENABLE=1",
    ),
    case(
        "suspicious", "HCCL_INTRA_PCIE_ENABLE", "1", WARN, "is not supported on A3", chip="A3"
    ),
    case("valid", "HCCL_INTRA_ROCE_ENABLE", "1", PASS, "=1", HCCL_INTRA_PCIE_ENABLE="0"),
    case("invalid", "HCCL_INTRA_ROCE_ENABLE", "on", FAIL, "(valid: 0, 1)"),
    case(
        "suspicious", "HCCL_INTRA_ROCE_ENABLE", "0", WARN,
        "while HCCL_INTRA_PCIE_ENABLE is unset is rejected", "export HCCL_INTRA_PCIE_ENABLE=1",
    ),
    # -- variables nothing reads ------------------------------------------------------------
    *(
        case(
            "suspicious", name, "2", WARN, f"has no effect: CANN does not read {name}",
            f'unset {name}, or state the cluster\'s value in ampenv.toml: [env] {name} = "2"',
        )
        for name in ("HCCL_OP_LEVEL", "HCCL_PROTOCOL")
    ),
    # -- the other HCCL variables -----------------------------------------------------------
    case("valid", "HCCL_WHITELIST_DISABLE", "1", PASS, "=1"),
    case("invalid", "HCCL_WHITELIST_DISABLE", "yes", WARN, UNCONFIRMED),
    case("valid", "HCCL_DETERMINISTIC", "true", PASS, "=true"),
    case("invalid", "HCCL_DETERMINISTIC", "1", WARN, "(valid: true, false)"),
    case("valid", "HCCL_IF_IP", "192.168.1.10", PASS, "=192.168.1.10"),
    case("valid", "HCCL_IF_IP", "fe80::1", PASS, "=fe80::1"),
    case(
        "invalid", "HCCL_IF_IP", "10.0.0.300", FAIL, "is not an IPv4 or IPv6 address",
        "unset HCCL_IF_IP",
    ),
    case("valid", "HCCL_SOCKET_IFNAME", "eth0,enp189s0f0", PASS, "=eth0,enp189s0f0"),
    case("invalid", "HCCL_SOCKET_IFNAME", "eth0 eth1", WARN, "is not interface names"),
    case("valid", "HCCL_ASYNC_ERROR_HANDLING", "1", PASS, "=1"),
    case("invalid", "HCCL_ASYNC_ERROR_HANDLING", "on", WARN, UNCONFIRMED),
    case("valid", "HCCL_DESYNC_DEBUG", "0", PASS, "=0"),
    case("invalid", "HCCL_DESYNC_DEBUG", "2", WARN, UNCONFIRMED),
    case("valid", "HCCL_EVENT_TIMEOUT", "0", PASS, "=0"),
    case("invalid", "HCCL_EVENT_TIMEOUT", "-1", WARN, "out of range (valid: >= 0 s)"),
    case("valid", "P2P_HCCL_BUFFSIZE", "20", PASS, "=20"),
    case("invalid", "P2P_HCCL_BUFFSIZE", "0", WARN, "out of range"),
    case("valid", "TORCH_HCCL_ZERO_COPY", "1", PASS, "=1"),
    case("invalid", "TORCH_HCCL_ZERO_COPY", "2", WARN, UNCONFIRMED),
    case("valid", "RANK_TABLE_FILE", "/etc/hccl.json", PASS, "=/etc/hccl.json"),
    case("invalid", "RANK_TABLE_FILE", "", FAIL, "is empty"),
    case(
        "suspicious", "RANK_TABLE_FILE", "/etc/gone.json", WARN, "does not exist on this node",
        "export RANK_TABLE_FILE=<path of this job's rank table JSON>",
    ),
]  # fmt: skip


@pytest.mark.parametrize("kind, name, value, node, status, message, remedy", CASES)
def test_rule(kind, name, value, node, status, message, remedy):
    findings = judge(RULES[name], value, node)
    worst = max(f.status.rank for f in findings)
    assert worst == status.rank, [(f.status.value, f.message) for f in findings]
    hits = [f for f in findings if f.status is status and message in f.message]
    assert hits, [f.message for f in findings]
    if remedy:
        assert any(remedy in (f.remedy or "") for f in hits), [f.remedy for f in hits]
    for f in findings:
        assert f.message.startswith(envrules.shown(name, value)), f.message
        if f.status in (WARN, FAIL):
            # every remedy is the exact line: export VAR=value or unset VAR (or names the file)
            assert re.search(r"\b(export|unset) [A-Z_0-9]+\b", f.remedy or ""), f.remedy


def test_every_rule_has_valid_invalid_and_suspicious_cases():
    kinds: dict[str, set[str]] = {}
    for p in CASES:
        kinds.setdefault(p.values[1], set()).add(p.values[0])
    for rule in RULES.values():
        wanted = {"valid", "invalid"}
        if rule.read_by == envrules.READ_BY_NOBODY:
            wanted = {"suspicious"}  # any value: only the contract judges it
        elif rule.caveats or rule.forbid or isinstance(rule.check, envrules.Path):
            wanted.add("suspicious")
        assert wanted <= kinds.get(rule.name, set()), rule.name


@pytest.mark.parametrize(
    "name, expected",
    [
        ("910B2", "910B"), ("910B2C", "910B"), ("910B4-1", "910B"), ("Ascend910B3", "910B"),
        ("910ProB", "910A"), ("910A", "910A"), ("Ascend910", "A3"), ("Ascend910_9391", "A3"),
        ("310B4", "310B"), ("310P3", "310P"), ("Ascend950PR", "950"),
        ("Ascend910PremiumA", "910A"), ("910B", UNKNOWN), ("xxx", UNKNOWN), (None, UNKNOWN),
    ],
)  # fmt: skip
def test_chip_family(name, expected):
    assert family(name) == expected


@pytest.mark.parametrize(
    "name, dtype, answer",
    [
        ("910ProB", "bfloat16", False), ("Ascend910A", "float16", True),
        ("910B3", "bfloat16", True), ("Ascend910_9391", "bfloat16", True),
        ("910B", "bfloat16", None), ("310P3", "float16", None), (None, "bfloat16", None),
    ],
)  # fmt: skip
def test_which_chips_compute_in_which_dtype(name, dtype, answer):
    assert computes_in(name, dtype) is answer


def test_forbidden_operators_come_from_the_caller():
    rule = RULES["NPU_FUZZY_COMPILE_BLACKLIST"]
    tril = judge(rule, "Tril", Node(), forbid=["Tril"])
    assert any(f.status is FAIL and "holds Tril" in f.message for f in tril)
    conv = judge(rule, "Conv2D", Node(), forbid=())
    assert max(f.status.rank for f in conv) == WARN.rank  # only "no effect as a variable"


def test_a_variable_only_the_contract_reads_is_left_to_the_contract():
    assert judge(RULES["HCCL_OP_LEVEL"], "2", Node(), in_contract=True) == []


@pytest.mark.parametrize(
    "name, value, shown",
    [
        ("HF_TOKEN", "hf_abc", REDACTED),
        ("AWS_SECRET_ACCESS_KEY", "x", REDACTED),
        ("DB_PASSWORD", "pw", REDACTED),
        ("ssh_private_key_file", "/k", REDACTED),
        ("HCCL_BUFFSIZE", "200", "200"),
        ("https_proxy", "http://alice:s3cret@proxy:3128", f"http://alice:{REDACTED}@proxy:3128"),
        ("PIP_INDEX_URL", "https://u:p@pypi.example/simple", f"https://u:{REDACTED}@pypi.example/simple"),
        ("HOME", "/home/user", "/home/user"),
        ("API_KEY", "", ""),
    ],
)  # fmt: skip
def test_redact(name, value, shown):
    assert redact(name, value) == shown


# -- the checks on planted nodes --------------------------------------------------------------
ENV_CHECKS = load_checks("env.py")


def run_check(
    check_id: str,
    env: dict[str, str],
    *,
    root: Optional[Path] = None,
    bin_dir: Optional[Path] = None,
    toml: str = "",
    **settings,
) -> Result:
    spec = ENV_CHECKS[check_id]
    path = path_with(bin_dir) if bin_dir else path_with(Path("/nonexistent"))
    probe = Probe(sysroot=str(root or ""), env=clean_env(PATH=path, **env))
    config = config_mod.parse(toml, "ampenv.toml")
    config.check_settings = {
        k: v for k, v in config.data.get("checks", {}).items() if isinstance(v, dict)
    }
    merged = {**config.settings_for(spec), **settings}
    ctx = Context(config=config, probe=probe)
    return spec(CheckContext(ctx, spec, merged, time.monotonic() + merged["timeout"]))


def test_no_variables_on_a_cpu_machine_pass_with_what_was_seen():
    r = run_check("env.npu", {})
    assert r.status is PASS and r.summary == "no Ascend variables set: CANN defaults apply"
    assert r.facts["chip_family"] == UNKNOWN and r.facts["device_count"] is None


def test_chip_and_device_count_come_from_npu_smi(tmp_path):
    fake_tool(tmp_path, "npu-smi", {"info": SMI / "910b2_8dev_idle_23.0.7.txt"})
    env = {"ASCEND_RT_VISIBLE_DEVICES": "0,8", "INF_NAN_MODE_ENABLE": "0"}
    r = run_check("env.npu", env, bin_dir=tmp_path)
    assert r.status is FAIL
    assert (r.facts["chip"], r.facts["chip_family"]) == ("910B2", "910B")
    assert (r.facts["device_count"], r.facts["chip_source"]) == (8, "npu-smi")
    text = "\n".join(r.details)
    assert "names 8, but this node has 8 devices (ids 0..7)" in text
    assert "intercepted on 910B unless INF_NAN_MODE_FORCE_DISABLE=1" in text
    assert "export ASCEND_RT_VISIBLE_DEVICES=0" in r.remedy


def test_a3_counts_chips_not_npus(tmp_path):
    fake_tool(tmp_path, "npu-smi", {"info": SMI / "a3_ascend910_2npu4chip_procs_25.2.0.txt"})
    r = run_check("env.hccl", {"HCCL_EXEC_TIMEOUT": "600"}, bin_dir=tmp_path)
    assert r.status is PASS, r.details  # 600 is fine on A3; only 910A rounds to 68
    assert (r.facts["chip_family"], r.facts["device_count"]) == ("A3", 4)


def test_chip_from_config_and_devices_from_dev_when_npu_smi_is_absent(sysroot):
    for i in range(4):
        (sysroot / "dev").mkdir(exist_ok=True)
        (sysroot / "dev" / f"davinci{i}").touch()
    (sysroot / "dev" / "davinci_manager").touch()
    toml = '[checks."npu.devices"]\nexpected_chip = "910ProB"\n'
    r = run_check("env.hccl", {"HCCL_EXEC_TIMEOUT": "600"}, root=sysroot, toml=toml)
    assert r.status is WARN and "CANN uses 544 s instead" in r.summary
    assert r.remedy == "export HCCL_EXEC_TIMEOUT=544"
    assert r.facts["chip_source"] == '[checks."npu.devices"] expected_chip'
    n = run_check("env.npu", {"ASCEND_RT_VISIBLE_DEVICES": "2,4"}, root=sysroot, toml=toml)
    assert n.status is FAIL and "names 4, but this node has 4 devices" in n.summary


def test_broken_npu_smi_leaves_the_chip_unknown(tmp_path):
    fake_tool(tmp_path, "npu-smi", exit_code=1, stderr="dcmi model initialized failed\n")
    r = run_check("env.npu", {"INF_NAN_MODE_ENABLE": "1"}, bin_dir=tmp_path)
    assert r.status is PASS and r.facts["chip_family"] == UNKNOWN


def test_a_misspelt_variable_warns_and_an_unknown_one_is_only_listed():
    r = run_check("env.hccl", {"HCCL_CONNECT_TIMOUT": "1200", "HCCL_RDMA_TC": "132"})
    assert r.status is WARN
    assert "looks like a misspelling of HCCL_CONNECT_TIMEOUT, so CANN ignores it" in r.summary
    assert r.remedy == "unset HCCL_CONNECT_TIMOUT; export HCCL_CONNECT_TIMEOUT=1200"
    ok = run_check("env.hccl", {"HCCL_RDMA_TC": "132"})
    assert ok.status is PASS and "HCCL_RDMA_TC is set; ampenv has no rule for it" in ok.details[0]


def test_forbidden_ops_setting_replaces_the_key_operators():
    env = {"NPU_FUZZY_COMPILE_BLACKLIST": "Tril"}
    r = run_check("env.npu", env, forbidden_ops=["Tril", "SoftmaxV2"])
    assert r.status is FAIL and "holds Tril" in r.summary
    assert run_check("env.npu", env).status is WARN  # default list: Tril is no key operator


def test_secrets_never_reach_the_report(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text('[env]\nASCEND_API_TOKEN = "expected-token-value"\n')
    env = clean_env(ASCEND_API_TOKEN="hunter2-live-token", AMPENV_CONFIG=str(cfg))
    ran = run_ampenv("doctor", "-p", "quick", "--only", "env", "-f", "json", env=env)
    assert ran.returncode == 1, ran.stderr
    r = ran.check("env.npu")
    assert r["facts"]["variables"] == {"ASCEND_API_TOKEN": REDACTED}
    assert "differs from the cluster's contract" in r["summary"]
    assert "hunter2" not in ran.stdout and "expected-token-value" not in ran.stdout
    assert json.loads(ran.stdout)["status"] == "fail"
