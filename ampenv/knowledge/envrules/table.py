"""The Ascend and HCCL environment variables, as data: what each does, which values are
valid, which are suspicious, and the line that fixes it. One :class:`~.vocabulary.Rule` per
variable, in :data:`RULES`, built from the validators of :mod:`.vocabulary`.

Sources: ../shared/reference/ascend-facts.md §4 (hiascend env-var pages, quoted by page id)
and Ascend/pytorch ``torch_npu/csrc/framework/interface/EnvVariables.cpp`` for the keys that
torch_npu takes only through ``torch.npu.set_option``.
"""

from __future__ import annotations

import ipaddress

from ampenv.core.model import Status
from ampenv.knowledge.envrules.vocabulary import (
    ANY_VALUE,
    READ_BY_NOBODY,
    READ_BY_SET_OPTION,
    Caveat,
    ListOf,
    Matches,
    OneOf,
    Options,
    Parsed,
    Path,
    Range,
    Rule,
    Variant,
    one_of,
)
from ampenv.probe.chips import UNKNOWN

# Operators a training workload cannot afford to compile online on every new shape.
KEY_OPS = (
    "Conv2D",
    "Conv2DBackpropInput",
    "Conv2DBackpropFilter",
    "MatMul",
    "MatMulV2",
    "BatchMatMul",
    "BatchMatMulV2",
)


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.name: r for r in rules}


BOOL01 = one_of("0", "1")
ABSOLUTE_PATH = Path()
TOOLKIT_PATH = Path(
    must_exist=True,
    missing_fix="unset {name}, or source the set_env.sh of the installed CANN "
    "(source /usr/local/Ascend/ascend-toolkit/set_env.sh; CANN 8.5+: "
    "/usr/local/Ascend/cann-<version>/set_env.sh)",
)
HCCL_ALGOS = ("ring", "H-D_R", "NHR", "NHR_V1", "NB", "pipeline")
# level0 (inside a server) only takes NA; other levels are not in the reference: they warn.
HCCL_LEVELS = Options(
    {"level0": one_of("NA"), "level1": OneOf(HCCL_ALGOS)}, sep=";", unknown=Status.WARN
)
HCCL_A2A_LEVELS = Options(
    {"level0": one_of("NA"), "level1": OneOf((*HCCL_ALGOS, "pairwise"))},
    sep=";",
    unknown=Status.WARN,
)
INTRA_CAVEATS = (
    Caveat(
        "is not supported on {chip}: only Atlas 300T Pro (910A) and 200T A2 Box16 read it",
        chips=("A3", "310P", "310B", "950"),
    ),
)
HCCL_OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "scatter")

RULES: dict[str, Rule] = _rules(
    # ---- runtime and torch_npu ----------------------------------------------------------
    Rule(
        "ASCEND_RT_VISIBLE_DEVICES",
        "npu",
        ListOf(Range(0), ascending=True, device_ids=True, stops_at_invalid=True),
        None,
        "logical device ids this process may use, re-indexed from 0 (default: all)",
        "CANN envref_07_0028",
    ),
    Rule(
        "ASCEND_LAUNCH_BLOCKING",
        "npu",
        BOOL01,
        "0",
        "1 runs every operator synchronously: exact stack traces, no overlap",
        "torch_npu Envir_006",
        caveats=(
            Caveat(
                "runs every operator synchronously: the host waits for each kernel, training "
                "slows down several times and TASK_QUEUE_ENABLE is forced off; use it only to "
                "find a failing operator",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "TASK_QUEUE_ENABLE",
        "npu",
        one_of("0", "1", "2"),
        "1",
        "operator dispatch pipeline: 0 off, 1 on, 2 level-2 pipeline (binary kernels only)",
        "torch_npu Envir (task queue); ascend-facts.md §4",
        caveats=(
            Caveat(
                "turns the task queue off: operators are dispatched from the Python thread "
                "and host-bound steps slow down",
                fix="export {name}={default}",
                values=("0",),
            ),
            Caveat(
                "has no effect: ASCEND_LAUNCH_BLOCKING=1 forces the task queue off",
                fix="unset ASCEND_LAUNCH_BLOCKING",
                env={"ASCEND_LAUNCH_BLOCKING": "1"},
            ),
        ),
    ),
    Rule(
        "COMBINED_ENABLE",
        "npu",
        BOOL01,
        None,
        "1 optimises non-contiguous two-operator combinations",
        "MindSpeed-LLM env table (Pytorch/710 Envir_005)",
        confirmed=False,
    ),
    Rule(
        "PYTORCH_NPU_ALLOC_CONF",
        "npu",
        Options(
            {
                "max_split_size_mb": Range(20, lo_open=True, unit=" MB"),
                "garbage_collection_threshold": Range(
                    0, 1, integer=False, lo_open=True, hi_open=True
                ),
                "expandable_segments": one_of("True", "False"),
                "base_addr_aligned_kb": Range(0, 16, unit=" KB"),
                "page_size": one_of("1g"),
                "segment_size_mb": Range(1, unit=" MB"),
            },
            unknown=Status.WARN,
        ),
        None,
        "caching allocator options of torch_npu, read once when the allocator starts",
        "torch_npu Envir_009/011",
        caveats=(
            Caveat(
                "is set together with PYTORCH_ALLOC_CONF: torch_npu 26.2.0+ with torch 2.10+ "
                "exits at start, older releases ignore PYTORCH_ALLOC_CONF",
                fix="unset PYTORCH_ALLOC_CONF",
                env={"PYTORCH_ALLOC_CONF": ANY_VALUE},
                status=Status.FAIL,
            ),
            Caveat(
                "combines expandable_segments:True with max_split_size_mb or "
                "garbage_collection_threshold, which older torch_npu releases refuse",
                fix="export {name}=expandable_segments:True",
                values=Matches(
                    r"(?=.*expandable_segments:True)"
                    r"(?=.*(max_split_size_mb|garbage_collection_threshold)).*",
                    "",
                ),
            ),
        ),
    ),
    Rule(
        "INF_NAN_MODE_ENABLE",
        "npu",
        BOOL01,
        "1",
        "1 computes with IEEE inf/NaN, 0 saturates (fp16 overflow gives ±65504, NaN gives 0)",
        "torch_npu Envir_004",
        caveats=(
            Caveat(
                "is ignored on {chip}: it computes in saturation mode only (fp16 overflow "
                "gives ±65504, so loss scaling must use the float-status flag)",
                chips=("910A", "310P", "310B"),
            ),
            Caveat(
                "is intercepted on {chip} unless INF_NAN_MODE_FORCE_DISABLE=1: the job still "
                "runs in INF/NaN mode",
                values=("0",),
                chips=("910B", "A3"),
                env={"INF_NAN_MODE_FORCE_DISABLE": None},
            ),
            Caveat(
                "asks for saturation mode, which 910A always uses and A2/A3 apply only with "
                "INF_NAN_MODE_FORCE_DISABLE=1 (chip unknown here)",
                values=("0",),
                chips=(UNKNOWN,),
            ),
        ),
    ),
    Rule(
        "INF_NAN_MODE_FORCE_DISABLE",
        "npu",
        one_of("1"),
        None,
        "1 lets INF_NAN_MODE_ENABLE=0 force saturation mode on A2/A3",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
        caveats=(
            Caveat(
                "with INF_NAN_MODE_ENABLE=0 forces saturation mode on {chip}: fp16 overflow "
                "becomes ±65504 instead of inf, loss scaling cannot see it in the gradients, "
                "and Huawei keeps this mode for compatibility only",
                fix="unset {name} INF_NAN_MODE_ENABLE",
                values=("1",),
                chips=("910B", "A3"),
                env={"INF_NAN_MODE_ENABLE": "0"},
            ),
        ),
    ),
    Rule(
        "ASCEND_GLOBAL_LOG_LEVEL",
        "npu",
        one_of("0", "1", "2", "3", "4"),
        "3",
        "CANN log level: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR, 4 NULL; "
        "any other value silently falls back to 3",
        "CANN envref_07_0122",
        caveats=(
            Caveat(
                "logs below ERROR (0 DEBUG, 1 INFO, 2 WARNING): the log volume costs host CPU "
                "and disk I/O on every step and slows training",
                fix="export {name}={default}",
                values=("0", "1", "2"),
            ),
        ),
    ),
    Rule(
        "ASCEND_SLOG_PRINT_TO_STDOUT",
        "npu",
        BOOL01,
        "0",
        "1 prints CANN logs to the screen instead of writing log files",
        "CANN envref_07_0121 (via a third-party table)",
        caveats=(
            Caveat(
                "prints CANN logs to stdout instead of log files: printing slows the job, "
                "floods its output, and leaves no plog for diagnosis",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "ASCEND_PROCESS_LOG_PATH",
        "npu",
        ABSOLUTE_PATH,
        None,
        "log root (created if missing); wins over ASCEND_WORK_PATH and $HOME/ascend/log",
        "CANN envref_07_0120",
    ),
    Rule(
        "ASCEND_WORK_PATH",
        "npu",
        ABSOLUTE_PATH,
        None,
        "work root used for logs when ASCEND_PROCESS_LOG_PATH is unset",
        "CANN envref_07_0120",
    ),
    Rule(
        "ASCEND_CACHE_PATH",
        "npu",
        Path(
            chars=r"[A-Za-z0-9_.\-/\u4e00-\u9fff]",
            chars_shape="letters, digits, _ . - / and Chinese",
            must_exist=True,
            missing_fix="mkdir -p {value} (CANN 9.0 requires it to exist with rwx), "
            "or unset {name}",
        ),
        None,
        "shared cache root: kernel_cache (operator compile cache) and aoe_data; "
        "all hosts sharing it must run the same chip, driver, firmware and CANN",
        "CANN envref_07_0006",
    ),
    Rule(
        "ACL_OP_COMPILER_CACHE_DIR",
        "npu",
        ABSOLUTE_PATH,
        None,
        "operator compile cache; wins over ASCEND_CACHE_PATH and $HOME/atc_data",
        "CANN envref_07_0006; torch_npu Pytorch/720 env list",
    ),
    Rule(
        "ACL_OP_COMPILER_CACHE_MODE",
        "npu",
        one_of("enable", "disable", "force"),
        None,
        "operator compile cache mode",
        "torch_npu Pytorch/720 env list (values not confirmed)",
        confirmed=False,
    ),
    Rule(
        "GE_USE_STATIC_MEMORY",
        "npu",
        one_of("0", "1", "2", "3", "4"),
        "0",
        "graph memory: 0 dynamic, 2 dynamic-extend (static shape), 3 (dynamic shape), "
        "4 both; to be deprecated; 2 and 4 forbid concurrent graphs",
        "CANN envref_07_0138",
        caveats=(
            Caveat(
                "is treated as 2 (on CANN 5.x/6.0 it meant static allocation of ~26-31 GB)",
                fix="export {name}=2",
                values=("1",),
            ),
        ),
    ),
    Rule(
        "TORCHAIR_CACHE_HOME",
        "npu",
        ABSOLUTE_PATH,
        None,
        "torchair graph cache root",
        "vllm-ascend PR #2532",
    ),
    # ---- set by set_env.sh: a stale path means another CANN's set_env.sh was sourced ------
    *(
        Rule(
            name,
            "npu",
            TOOLKIT_PATH,
            None,
            f"{what}, exported by the toolkit's set_env.sh",
            "ascend-facts.md §2 (set_env.sh exports)",
        )
        for name, what in (
            ("ASCEND_HOME_PATH", "CANN home"),
            ("ASCEND_TOOLKIT_HOME", "CANN toolkit home"),
            ("ASCEND_OPP_PATH", "operator package root"),
            ("ASCEND_AICPU_PATH", "AI CPU kernel root"),
            ("TOOLCHAIN_HOME", "toolchain root"),
        )
    ),
    # ---- torch.npu.set_option keys: no effect as environment variables --------------------
    Rule(
        "NPU_FUZZY_COMPILE_BLACKLIST",
        "npu",
        ListOf(Matches(r"[A-Za-z][A-Za-z0-9_]*", "an operator type such as SoftmaxV2")),
        None,
        "operators excluded from binary (fuzzy) kernels and compiled online instead",
        "torch_npu EnvVariables.cpp REGISTER_OPTION_HOOK; CANN ptaoplist",
        read_by=READ_BY_SET_OPTION,
        forbid=KEY_OPS,
        forbid_why="key operators of the workload would compile online on every new shape: "
        "the first steps stall and every new input shape recompiles",
    ),
    Rule(
        "ACL_PRECISION_MODE",
        "npu",
        one_of(
            "force_fp32",
            "cube_fp16in_fp32out",
            "force_fp16",
            "allow_fp32_to_fp16",
            "must_keep_origin_dtype",
            "allow_mix_precision",
            "allow_mix_precision_fp16",
        ),
        None,
        "operator precision mode (default allow_fp32_to_fp16 on 910A, "
        "must_keep_origin_dtype on A2/A3)",
        "torch_npu EnvVariables.cpp; CANN PT_LMTMOG_0076",
        read_by=READ_BY_SET_OPTION,
        caveats=(
            Caveat(
                "runs fp32 operators in fp16: the parts AMP keeps in fp32 (losses, norms, "
                "master weights' math) lose precision",
                values=("force_fp16",),
            ),
            Caveat(
                "lets fp32 operators fall back to fp16 on {chip}, whose default keeps fp32 "
                "(must_keep_origin_dtype)",
                values=("allow_fp32_to_fp16",),
                chips=("910B", "A3"),
            ),
        ),
    ),
    Rule(
        "ACL_OP_SELECT_IMPL_MODE",
        "npu",
        one_of("high_precision", "high_performance"),
        None,
        "operator implementation mode; any other value is a TORCH_CHECK error",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
    ),
    Rule(
        "MM_BMM_ND_ENABLE",
        "npu",
        one_of("enable", "disable"),
        "enable",
        "ND format for MatMul/BatchMatMul",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
    ),
    Rule(
        "ACL_OP_DEBUG_OPTION",
        "npu",
        one_of("oom"),
        None,
        "operator debug option (oom: detect out-of-bounds memory access)",
        "torch_npu EnvVariables.cpp",
        read_by=READ_BY_SET_OPTION,
        confirmed=False,
    ),
    # ---- Ascend Docker Runtime ----------------------------------------------------------
    Rule(
        "ASCEND_VISIBLE_DEVICES",
        "npu",
        ListOf(Matches(r"[0-9]+(-[0-9]+)?", "a device id or an id range a-b")),
        None,
        "physical NPUs the Ascend Docker Runtime mounts into the container",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    Rule(
        "ASCEND_RUNTIME_OPTIONS",
        "npu",
        ListOf(one_of("NODRV", "VIRTUAL")),
        None,
        "Ascend Docker Runtime options",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    Rule(
        "ASCEND_VNPU_SPECS",
        "npu",
        Matches(r"vir[0-9]+(_[A-Za-z0-9]+)*", "a vNPU template such as vir04 or vir03_1c_8g"),
        None,
        "vNPU template the Ascend Docker Runtime creates",
        "MindCluster Ascend Docker Runtime docs",
        confirmed=False,
    ),
    # ---- HCCL ---------------------------------------------------------------------------
    Rule(
        "HCCL_CONNECT_TIMEOUT",
        "hccl",
        Range(120, 7200, unit=" s"),
        "120",
        "socket link-setup timeout at communicator init (effective: value + 20 s)",
        "CANN envref_07_0077/0149",
    ),
    Rule(
        "HCCL_EXEC_TIMEOUT",
        "hccl",
        Range(0, 2147483647, unit=" s"),
        "1836",
        "collective execution timeout (CANN 6.x default 1800); 0 on A2/A3 never times out",
        "CANN envref_07_0078",
        variants=(
            Variant(Range(0, 17340, lo_open=True, step=68, unit=" s"), chips=("910A", "310P")),
            Variant(Range(0, 1091, unit=" s"), env={"HCCL_OP_EXPANSION_MODE": "AIV"}),
        ),
        caveats=(
            Caveat(
                "never times out: when a rank dies, the others hang until the job is killed",
                fix="export {name}={default}",
                values=("0",),
            ),
        ),
    ),
    Rule(
        "HCCL_BUFFSIZE",
        "hccl",
        Range(1, unit=" MB"),
        "200",
        "HCCL buffer per communicator; each communicator takes 2 x HCCL_BUFFSIZE of HBM",
        "CANN envref_07_0080",
        caveats=(
            Caveat(
                "reserves 2 x {value} MB of HBM per communicator (CANN 6.3 capped it at "
                "2048): jobs with many communicators run out of device memory",
                fix="export {name}={default}",
                values=Range(2049),
            ),
        ),
    ),
    Rule(
        "HCCL_ALGO",
        "hccl",
        Options(
            {op: HCCL_LEVELS for op in HCCL_OPS} | {"alltoall": HCCL_A2A_LEVELS},
            sep="/",
            kv="=",
            unknown=Status.WARN,
            bare=HCCL_LEVELS,
        ),
        None,
        "collective algorithm per level, e.g. level0:NA;level1:ring, or per operator "
        "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise (default: auto)",
        "CANN envref_07_0083/0086",
    ),
    Rule(
        "HCCL_OP_EXPANSION_MODE",
        "hccl",
        one_of("AI_CPU", "AIV", "HOST", "HOST_TS", "CCU_MS"),
        None,
        "where collectives are expanded (product default, usually HOST); "
        "unsupported values fall back to the default",
        "CANN envref_07_0096",
        caveats=(
            Caveat(
                "is supported on A2 for inference only (800T A2, 900 A2 PoD, 200T A2 Box16)",
                values=("AIV",),
                chips=("910B",),
            ),
            Caveat(
                "exists only on 950: {chip} falls back to its default",
                values=("CCU_MS",),
                chips=("910A", "910B", "A3", "310P", "310B"),
            ),
            Caveat(
                "is ignored while HCCL_DETERMINISTIC=true",
                fix="unset {name}",
                env={"HCCL_DETERMINISTIC": "true"},
            ),
        ),
    ),
    Rule(
        "HCCL_INTRA_PCIE_ENABLE",
        "hccl",
        BOOL01,
        "1",
        "PCIe links between NPUs of one server (Atlas 300T Pro and 200T A2 Box16 only)",
        "CANN hcclenvref_07_0006",
        caveats=(
            *INTRA_CAVEATS,
            Caveat(
                "with HCCL_INTRA_ROCE_ENABLE=1 enables both paths, which is not supported",
                fix="unset HCCL_INTRA_ROCE_ENABLE",
                values=("1",),
                env={"HCCL_INTRA_ROCE_ENABLE": "1"},
                status=Status.FAIL,
            ),
            Caveat(
                "while HCCL_INTRA_ROCE_ENABLE is unset is rejected by newer CANN",
                fix="export HCCL_INTRA_ROCE_ENABLE=1",
                values=("0",),
                env={"HCCL_INTRA_ROCE_ENABLE": None},
            ),
        ),
    ),
    Rule(
        "HCCL_INTRA_ROCE_ENABLE",
        "hccl",
        BOOL01,
        "0",
        "RoCE links between NPUs of one server (Atlas 300T Pro and 200T A2 Box16 only)",
        "CANN hcclenvref_07_0006",
        caveats=(
            *INTRA_CAVEATS,
            Caveat(
                "while HCCL_INTRA_PCIE_ENABLE is unset is rejected by newer CANN",
                fix="export HCCL_INTRA_PCIE_ENABLE=1",
                values=("0",),
                env={"HCCL_INTRA_PCIE_ENABLE": None},
            ),
        ),
    ),
    Rule(
        "HCCL_OP_LEVEL",
        "hccl",
        Matches(r".*", "any value"),
        None,
        "not read by CANN or torch_npu (no documentation or code mentions it); "
        "meaningful only as the cluster's own convention",
        "ascend-facts.md §4 (NOT CONFIRMED: does not exist)",
        read_by=READ_BY_NOBODY,
    ),
    Rule(
        "HCCL_PROTOCOL",
        "hccl",
        Matches(r".*", "any value"),
        None,
        "not in any HCCL variable list",
        "ascend-facts.md §4 (NOT CONFIRMED)",
        read_by=READ_BY_NOBODY,
    ),
    Rule(
        "HCCL_WHITELIST_DISABLE",
        "hccl",
        BOOL01,
        None,
        "1 turns the HCCL communication whitelist off",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_DETERMINISTIC",
        "hccl",
        one_of("true", "false"),
        "false",
        "deterministic reductions (HCCL_OP_EXPANSION_MODE is then ignored)",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_IF_IP",
        "hccl",
        Parsed(ipaddress.ip_address, "an IPv4 or IPv6 address"),
        None,
        "IP address of the interface HCCL uses for host communication",
        "torch_npu Pytorch/720 env list",
    ),
    Rule(
        "HCCL_SOCKET_IFNAME",
        "hccl",
        Matches(
            r"[\^=]{0,2}[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*",
            "interface names such as eth0,enp189s0f0",
        ),
        None,
        "network interfaces HCCL may use for host communication",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_ASYNC_ERROR_HANDLING",
        "hccl",
        BOOL01,
        None,
        "torch_npu watchdog: abort the process group on a collective error",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_DESYNC_DEBUG",
        "hccl",
        BOOL01,
        None,
        "torch_npu: report which rank desynchronised on a timeout",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "HCCL_EVENT_TIMEOUT",
        "hccl",
        Range(0, unit=" s"),
        None,
        "torch_npu: timeout of HCCL event waits",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "P2P_HCCL_BUFFSIZE",
        "hccl",
        Range(1, unit=" MB"),
        None,
        "buffer of point-to-point communicators",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "TORCH_HCCL_ZERO_COPY",
        "hccl",
        BOOL01,
        None,
        "torch_npu: zero-copy collectives",
        "torch_npu Pytorch/720 env list",
        confirmed=False,
    ),
    Rule(
        "RANK_TABLE_FILE",
        "hccl",
        Path(must_exist=True, missing_fix="export {name}=<path of this job's rank table JSON>"),
        None,
        "HCCL rank table of the job",
        "torch_npu Pytorch/720 env list",
    ),
)
