"""AI Core, vector core and AI CPU faults, and the generic inner errors that follow them."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, GENERIC, Failure, Source, code, code_hints

CODES_H = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
FACTS = "shared/reference/ascend-facts.md §6"
# (graph capture refuses the synchronous launches it forces: 107027, vllm-ascend PR 3574)
BLOCKING = (
    "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator (in eager mode: ACL graph capture "
    "refuses it), then check its inputs (shapes, dtypes, the device of every tensor) and report "
    "it with them"
)
PLOG = (
    "read the plog lines after it (~/ascend/log/debug/plog); collect them: "
    "ampenv collect -o node.tar.gz"
)
# When every kernel fails, not one operator: the stack (torch / torch_npu / CANN / kernels /
# driver) is at fault, and the operator's inputs are not.
STACK = (
    "; if a trivial op fails the same way "
    '(python -c "import torch, torch_npu; print(torch.ones(4).npu() + 1)"), the stack is at '
    "fault, not the operator: `ampenv doctor --only python.stack,cann.toolkit,npu.driver`"
)
# When different operators fail on one device only: its cores (hicann/docs' AI Core timeout and
# hardware fault pages; "errorStr: timeout or trap error" alone does not tell).
FAULTY_CORE = (
    "a faulty core, when different operators fail on one device only (Ascend's stress test "
    "tells: ascend-dmi --dg -i aicore -s -q)"
)
CORE_TEST = (
    "; if different operators fail on one device only, power-cycle it and run `ascend-dmi --dg "
    "-i aicore -s -q`"
)
ACLNN_CODES = (
    "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/"
    "atlasascendc_api_07_1205.html (aclnn return codes)"
)


def _inner(prefix: str, rank_meaning: str) -> Failure:
    return Failure(
        id=f"inner-error-{prefix}",
        mode="core-exception",
        component="cann",
        patterns=(rf"\b{prefix}\b:? ?Inner Error",),
        codes=(prefix,),
        meaning=f"{rank_meaning}; a follow-up code: the specific cause is in the lines around it",
        causes=("see the specific findings next to it",),
        fix=PLOG,
        confirm=None,
        sources=(Source(FACTS + " (PTOAS#864; LlamaFactory#5347)", "report"),),
        hints=("error",),
        rank=GENERIC,
    )


FAILURES = (
    Failure(
        id="aicore-timeout",
        mode="core-exception",
        component="aicore",
        patterns=(
            code("507014"),
            r"\[aicore timeout\]",
            r"aicore execution times out",
            # the runtime's "GetError: AICORE Kernel task happen error, retCode=0x25."
            r"Kernel task happen error, retCode=0x25\b",
            # the device's task scheduler: an AI Core task past its execution timeout
            r"\bbs_done_exception_proc_timeout\b",
        ),
        codes=("507014", "0x25"),
        meaning="AI Core timeout: a kernel hung or ran too long (retCode=0x25)",
        causes=(
            "a kernel bug or an input that makes it loop",
            "a deadlock between kernels",
            "more work than one launch finishes in time (VisionSDK's WarpAffineHiper / "
            "WarpPerspective on a large image: split the input into tiles)",
        ),
        fix=BLOCKING + "; a call given a very large input: split it into smaller calls",
        confirm=None,
        sources=(
            Source(CODES_H + " (507014)", "official"),
            Source(
                "Ascend/VisionSDK docs/zh/faq.md@88b2e0952fe6ea109fadaf66d2c5e650eeba5f6c "
                "(WarpAffineHiper: Synchronize stream execution failed, Code = 507014)",
                "official",
            ),
            Source("https://github.com/hw-native-sys/PTOAS/pull/864", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4972", "report"),
            Source(
                "https://hiascend.com/document/detail/zh/canncommercial/601/operatordev/"
                "operatordevg/atlasopdev_10_0149.html (TSCH bs_done_exception_proc_timeout)",
                "official",
            ),
        ),
        hints=code_hints("timeout", "times out", "error", "fail"),
    ),
    Failure(
        id="aicore-exception",
        mode="core-exception",
        component="aicore",
        patterns=(
            code("5070(?:15|42|43)"),
            r"\baicore exception\b",
            r"aicore execution is abnormal",
            r"\bAicore kernel execute failed",
            r"exception of fftsplus aicore error",
            # msaicerr's verdict on an AI Core error it reran alone
            r"Single op test aicore error, please check op",
            r"The (?:DDR|write|read) address of the MTE instruction is out of range",
            # msaicerr's report (info.txt): its section "2. AICERROR code" and the MTE's error
            r"\d\. AICERROR code\b",
            r"Kernel task happen error, retCode=0x26\b",
            # the runtime's decoded core error: "errorStr: When the D-cache reads and writes
            # data to the UB, the response value returned by the bus is a non-zero value."
            r"ProcessStarsCoreErrorInfo:\s?The extend info: errcode:\s?\([^)\n]{0,40}\) errorStr:",
        ),
        codes=("507015", "507042", "507043", "0x26"),
        meaning="AI Core exception: a kernel accessed memory out of bounds or trapped "
        "(retCode=0x26)",
        causes=(
            "an operator given inputs it does not support (shape, dtype, layout)",
            "a custom kernel bug: an access out of bounds, or an address not aligned (errorStr "
            "ADDR_MISALIGN, 'UB address ... not aligned': Ascend C's DataCopy moves 32-byte "
            "aligned blocks)",
            "a kernel built for another chip",
            "the stack, when every kernel fails (even torch.ones(4).npu() + 1): torch_npu not "
            "paired with torch, or CANN / kernels / driver not matching each other or the chip",
            FAULTY_CORE,
        ),
        fix=BLOCKING
        + STACK
        + CORE_TEST
        + "; a custom kernel's ADDR_MISALIGN: copy lengths and addresses aligned to 32 bytes "
        "(DataCopyPad for the rest)",
        confirm=None,
        sources=(
            Source(CODES_H + " (507015, 507042, 507043)", "official"),
            Source(
                "Ascend/tools msaicerr/ReadMe.md@9d6da90fd0d3e5d232676c7a4527f7d92ac70e5c "
                "(info.txt: AICERROR code)",
                "official",
            ),
            Source("https://github.com/hw-native-sys/PTOAS/pull/1019", "report"),
            Source(
                "hicann/cann-learning-hub tutorials/ascendc_operator_development/"
                "07_Troubleshooting/07.04_Typical_Issues_in_AscendC_Operator_Development.ipynb"
                "@a3989658fa1dce436d4ab402042e0682a2e9bdc7 (ProcessStarsCoreErrorInfo: an "
                "out-of-bounds access of a custom kernel; 4.1: ADDR_MISALIGN)",
                "official",
            ),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/82", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/13647 (every TBE kernel, "
                "even ones(4)+1, fails with 507015 on one 310P host)",
                "report",
            ),
        ),
        hints=code_hints("exception", "abnormal", "error", "fail", "out of range"),
        rank=CLASS,  # a hardware fault or a named kernel's own failure leads where one shows
    ),
    Failure(
        id="vector-core-fault",
        mode="core-exception",
        component="aivector",
        patterns=(
            code("5070(?:34|35|36|44|45)"),
            r"\bvector core (?:timeout|exception)\b",
            r"vector core execution is abnormal",
            r"ub address out of bounds",
            # the device's own report: "there is an exception of fftsplus aivector error"
            r"\b(?:exception of|fftsplus|there is an|the error is) aiv(?:ector|ec) error\b",
            r"Kernel task happen error, retCode=0x3[01]\b",
        ),
        codes=("507034", "507035", "507036", "507044", "507045", "0x30", "0x31"),
        meaning="vector core timeout (507034, retCode=0x30) or exception (507035, retCode=0x31): "
        "a vector kernel hung or accessed memory out of bounds",
        causes=(
            "an operator given inputs it does not support",
            "a custom kernel bug",
            "a custom kernel built for another chip (its SOC_VERSION: a build script's "
            "default, Ascend910B2, run on an Ascend950PR)",
            "a collective run as a vector kernel: HCCL in AIV mode (HCCL_OP_EXPANSION_MODE=AIV) "
            "(in vllm-ascend#9873 its AllGather read out of range with DP=2, TP=8)",
            FAULTY_CORE,
        ),
        fix=BLOCKING + "; if the operator is a collective (HCCL in AIV mode), retry with "
        "HCCL_OP_EXPANSION_MODE unset" + STACK + CORE_TEST,
        confirm=None,
        sources=(
            Source(CODES_H + " (507034-507036, 507044, 507045)", "official"),
            Source("https://github.com/Ascend/pytorch/issues/66", "report"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/372", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/9873", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/15903", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/10829", "report"),
            Source("an Ascend C porting knowledge base, file id 60567629920 (EC-27)", "report"),
        ),
        hints=code_hints("exception", "abnormal", "error", "fail", "timeout"),
        rank=CLASS,  # a hardware fault or a named kernel's own failure leads where one shows
    ),
    Failure(
        id="aicpu-getnext-timeout",
        mode="core-exception",
        component="aicpu",
        patterns=(
            # "Aicpu kernel execute failed, device_id=0, ..., fault op_name=aicpu_getnext_..."
            r"Aicpu kernel execute failed\b[^\n]{0,200}\bop_name=[^\n]{0,40}getnext",
            # MindSpore's own reading of it ("Dump node (Default/GetNext-op18) task error",
            # "GetNext error may be caused by slow data processing (bigger than 20s / batch)")
            r"GetNext error may be caused by slow data processing",
        ),
        codes=(),
        meaning="the dataset iterator (GetNext, an AI CPU operator in data-sink mode) timed out: "
        "the host's input pipeline did not deliver the next batch in time",
        causes=(
            "host-side preprocessing too slow for the device (a Python generator, image "
            "decoding, too few workers)",
            "the dataset's source stalled or ran dry (a network store, a generator that hangs)",
            "an operator timeout shorter than a slow but legitimate first batch",
        ),
        fix="make the input pipeline keep up: more parallel workers and prefetch, cache or "
        "preprocess offline, check that the dataset's source answers; only then raise the "
        "operator timeout (the TensorFlow adapter's OpExecuteTimeOut) or, in MindSpore, leave "
        "data sink mode (dataset_sink_mode=False)",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/TensorFlowCommercial/800/"
                "migration/tfmigr1/tfmigr1_000142.html",
                "official",
            ),
            Source(
                "https://hiascend.com/doc_center/source/zh/canncommercial/63RC2/"
                "troublemanagement/troubleshooting/troubleshooting_0136.html",
                "official",
            ),
            Source("https://github.com/mindspore-lab/mindocr/issues/615", "report"),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="aicpu-exception",
        mode="core-exception",
        component="aicpu",
        patterns=(
            code("50701[78]"),
            r"\[aicpu (?:exception|timeout)\]",
            r"aicpu execution is abnormal",
            r"Aicpu kernel execute failed",
            r"AI CPU kernel execution failed",  # the same in a newer CANN's words
            r"an exception occurred during AICPU execution",
            # the device's exception dump: the task that faulted was an AI CPU kernel
            r"Exception info:[^\n]{0,300}\btask type=aicpu kernel\b",
            r"\bproc_aicpu_task_done\b[^\n]{0,100}\berror code=0x2a(?![0-9a-f])",
            r"Kernel task happen error, retCode=0x2a\b",
        ),
        codes=("507017", "507018", "0x2a"),
        meaning="AI CPU kernel timeout (507017) or exception (507018, retCode=0x2a)",
        causes=(
            "an AI CPU operator given unsupported inputs",
            "an AI CPU kernel bug",
            "an operator with no AI Core kernel for these inputs that ran on AI CPU instead "
            "(pytorch#136302: aten::isin)",
            "the NPU still used by a previous run's processes (DrivingSDK's BEVFusion FAQ: "
            "507018 while preprocessing, gone once they were killed)",
        ),
        fix=BLOCKING + "; first check `npu-smi info` for processes of an earlier run on the "
        "device and stop them; a timeout (507017) of an operator whose shapes are merely large: "
        "raise its limit with aclrtSetOpExecuteTimeOut(seconds)",
        confirm=None,
        sources=(
            Source(CODES_H + " (507017, 507018)", "official"),
            Source(
                "hicann/docs docs/zh/troubleshooting/ai_cpu_operator_timeout_error.md"
                "@0eadb61a993b384a333d3a93ddf2a83b6daba48f (aclrtSetOpExecuteTimeOut)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2105", "report"),
            Source("https://github.com/open-mmlab/mmcv/issues/3203", "report"),
            Source("https://github.com/pytorch/pytorch/issues/136302", "report"),
            Source(
                "Ascend/DrivingSDK model_examples/BEVFusion/README.md"
                "@e667017eb751b614c128c9c81812634cae362ee4 (FAQ: error code:507018)",
                "official",
            ),
        ),
        hints=code_hints("exception", "abnormal", "fail", "error"),
    ),
    Failure(
        id="internal-task-timeout",
        mode="core-exception",
        component="runtime",
        patterns=(code("507048"),),
        codes=("507048",),
        meaning="an internal runtime task timed out; no source pins one cause",
        causes=("a hung kernel or collective before it (look earlier in the plog)",),
        fix=PLOG + "; in a job of several ranks, the rank that failed first (the earliest error "
        "across the ranks' plogs) holds the cause",
        confirm=None,
        sources=(
            Source(CODES_H + " (507048)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2800", "report"),
        ),
        hints=code_hints("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="stream-sync-timeout",
        mode="core-exception",
        component="runtime",
        patterns=(r"\bEE1002\b", r"stream sync timeout", code("507046")),
        codes=("EE1002", "507046"),
        meaning="a stream did not finish in time: a kernel or a collective hung",
        causes=("a hung kernel", "a collective waiting for a rank that died or lags"),
        fix="look earlier in the plog for the operator or collective that hung; on a multi-node "
        "job check the other ranks' logs (raise HCCL_EXEC_TIMEOUT only for genuine skew)",
        confirm=None,
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/48", "report"),
            Source("https://github.com/Ascend/pytorch/issues/62", "report"),
            Source(CODES_H + " (507046)", "official"),
        ),
        hints=code_hints("timeout", "error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="acl-internal-error",
        mode="core-exception",
        component="acl",
        patterns=(code("50000[0-5]"), code("507000")),
        codes=("500000", "500001", "500002", "500003", "500004", "500005", "507000"),
        meaning="an internal error of ACL, GE, the runtime or the driver (5000xx; 507000: of the "
        "host runtime); no source pins one cause",
        causes=(
            "see the E-codes and plog lines next to it",
            "a regression of the installed CANN release, when it began with a CANN upgrade "
            "(vllm-ascend#1653: 507000 and OOMs with CANN 8.2.RC1.alpha003)",
            "507000 in ACL graph mode (a serving engine's captured graphs): many captured "
            "graphs conflicting on the graph update stream, fixed by a newer CANN and torch_npu "
            "(sglang's Ascend FAQ)",
        ),
        fix=PLOG + "; if it began with a CANN upgrade (an alpha or RC above all), go back to the "
        "CANN release that worked; in graph mode, a newer CANN and torch_npu (or eager mode)",
        confirm=None,
        sources=(
            Source(CODES_H + " (500000-500005)", "official"),
            Source(
                "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/"
                "initialization_error.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(CODES_H + " (507000)", "official"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/1653 (do not upgrade to "
                "CANN 8.2.RC1.alpha003)",
                "maintainer",
            ),
            Source(
                "sgl-project/sglang docs_new/docs/hardware-platforms/ascend-npus/ascend_npu_faq.mdx"
                "@1335386668c994c08db2cc3979d8e92f8723bd07 (item 2: graph mode's 507000)",
                "official",
            ),
        ),
        hints=code_hints("error", "fail"),
        rank=GENERIC,
    ),
    Failure(
        id="acl-param-invalid",
        mode="core-exception",
        component="acl",
        patterns=(
            code("10[07]000"),
            r"Kernel binary register failure! ret 107000",
            r"\bacl\w{2,60}\b[^\n]{0,60}\bcode:? ?100000(?!\d)",
        ),
        codes=("107000", "100000"),
        meaning="an ACL or runtime call was given an invalid parameter (100000: ACL parameter "
        "check failed; 107000: runtime); no source pins one cause",
        causes=(
            "a kernel built for another chip or CANN (unconfirmed; tilelang-ascend#587: after a "
            "kernel binary failed to register)",
            "an extension built against another CANN, or calling an API this CANN or driver does "
            "not take those arguments for (vllm-ascend#2171: a self-built camem_allocator's "
            "aclrtMemGetAllocationGranularity)",
        ),
        fix=PLOG,
        confirm=None,
        sources=(
            Source(CODES_H + " (107000, 100000)", "official"),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/587", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2171", "report"),
        ),
        hints=code_hints("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="aclnn-call-inner-error",
        mode="cann-pairing",
        component="aclnn",
        # with torch_npu's "Call " and CANN's ": Inner Error", or as a framework logs an
        # operator's inner error: "aclnnRsubs failed, detail:EZ9999"
        patterns=(
            r"\b(?:Call )?aclnn\w{1,80} failed, detail: ?(?:E[0-9A-Z]9999: Inner Error|EZ9999\b)",
        ),
        codes=(),
        meaning="a framework's call of an aclnn operator failed and CANN reported only an inner "
        "error: the operator's own reason, if any, is in the lines after it or in the plog",
        causes=(
            "CANN's kernels (ops) package not installed, or CANN and its kernels package from "
            "a release the framework (torch_npu, MindSpore, vLLM's plugin) is not paired with "
            "(the vLLM-MindSpore FAQ's cause for aclnnNonzeroV2's E39999)",
            "an input the operator does not take on this chip (dtype, shape): the lines after "
            "it name it",
        ),
        fix="check the pairing first: `ampenv doctor --only python.stack,cann.toolkit`; install "
        "the CANN and kernels release the framework's release notes pair with it; if they "
        "pair, read the lines after it and the plog for the operator's reason",
        confirm="cann.toolkit",
        sources=(
            Source(
                "mindspore-ai/docs docs/vllm_mindspore/docs/source_zh_cn/faqs/faqs.md"
                "@9e844dc65dc5ef4381574e8b6ec2f93f9681f720",
                "official",
            ),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="aclnn-inner-error",
        mode="cann-pairing",
        component="aclnn",
        patterns=(code(r"561\d{3}"),),
        codes=(
            "561000",
            "561001",
            "561002",
            "561003",
            "561101",
            "561102",
            "561103",
            "561107",
        ),
        meaning="an aclnn operator API failed inside CANN (561xxx: ACLNN_ERR_INNER_*; 561002: its "
        "tiling refused the inputs, 561003: no kernel found, 561103: a null pointer inside the "
        "API, 561107: ASCEND_OPP_PATH unset)",
        causes=(
            "the kernels (ops) package missing, or CANN, kernels and driver from releases that "
            "do not go together (vllm-ascend#4859: 561103, advice: match CANN to the driver)",
            "(561002) inputs the operator's tiling does not support on this chip (a shape, a "
            "layout, a head size): the E-code line after it names the check",
            "CANN environment not sourced (561107)",
            "an operator bug in this CANN release",
        ),
        fix="check CANN, its kernels package and the driver against each other: "
        "`ampenv doctor --only cann.toolkit,npu.driver`; install the kernels of the same CANN "
        "release for this chip; then read the plog lines after it (561002: change the input "
        "the E-code line after it names, or call another operator for it)",
        confirm="cann.toolkit",
        sources=(
            Source(ACLNN_CODES, "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4859", "report"),
        ),
        hints=code_hints("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="inner-error-reported",
        mode="core-exception",
        component="torch_npu",
        patterns=(r"The Inner error is reported as above",),
        codes=(),
        meaning="torch_npu's summary of an inner CANN error printed above it, with the operator "
        "that was running",
        causes=("see the specific findings above it",),
        fix="rerun with ASCEND_LAUNCH_BLOCKING=1 for an accurate stack, then read the lines above",
        confirm=None,
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/5493", "report"),),
        hints=("error",),
        rank=GENERIC,
    ),
    Failure(
        id="aicore-ecc-error",
        mode="core-exception",
        component="aicore",
        # the runtime's decoded core error: "errorStr: A 2-bit ECC error occurs in the
        # data-cache data-ram."
        patterns=(r"errorStr: ?An? \d-bit ECC error occurs",),
        codes=(),
        meaning="an AI Core's memory reported an ECC error it could not correct (2-bit): a "
        "hardware fault of this NPU, not the operator's",
        causes=("a failing NPU (the same core faults again under a stress test)",),
        fix="drain the node; confirm with Ascend's hardware diagnosis (`ascend-dmi --dg -i "
        "aicore`, and `npu-smi info -t health -i <id>`); if the fault stays after a power cycle, "
        "have the card replaced through technical support",
        confirm="npu.devices",
        sources=(
            Source(
                "hicann/docs docs/zh/troubleshooting/ai_core_hardware_fault.md"
                "@0eadb61a993b384a333d3a93ddf2a83b6daba48f",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="aicpu-input-shape-unsupported",
        mode="core-exception",
        component="aicpu",
        patterns=(
            # the AI CPU kernels' own checks: at most 8 dimensions, and no 0-d input for some
            # (on an error's line, its logger's [ERROR]: one pass less over every text)
            r"(?i:error)[^\n]{0,400}?shape dim num should be less than 8, but got \[\d{1,3}\]",
            r"(?i:error)[^\n]{0,400}?Shape must be at least rank \[1\] but is rank \[0\]",
        ),
        codes=(),
        meaning="an operator that runs on the AI CPU refused the shape of an input: more than 8 "
        "dimensions, or a 0-d (scalar) tensor where it needs at least one dimension",
        causes=(
            "a tensor of 9 or more dimensions given to an operator the AI CPU runs (GatherV2's "
            "AI CPU kernel, say)",
            "a Python scalar or 0-d tensor passed as an input (GatherV2's indices or axis)",
        ),
        fix="reshape so that every input and output of that operator has 1 to 8 dimensions "
        "(merge axes; pass a scalar as a 1-d tensor: x.reshape(1), torch.tensor([v]))",
        confirm=None,
        sources=(
            Source(
                "hicann/docs docs/zh/troubleshooting/ai_cpu_operator_dim_over_8_error.md"
                "@0eadb61a993b384a333d3a93ddf2a83b6daba48f",
                "official",
            ),
            Source(
                "hicann/docs docs/zh/troubleshooting/ai_cpu_operator_scalar_input_error.md"
                "@0eadb61a993b384a333d3a93ddf2a83b6daba48f",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="tsd-open-failed",
        mode="container-devices",
        component="runtime",
        # (memfabric's words name the device and the ranks between: "TsdOpen for (deviceId=1,
        # rankCount=2) failed: 31")
        patterns=(r"\bTsdOpen (?:for \([^)\n]{0,80}\) )?failed\b",),
        codes=(),
        meaning="opening the device, the runtime could not start this process's AI CPU side "
        "on it (the device's TSD daemon): the device did not open (507033 and E39005 follow "
        "it most often)",
        causes=(
            "the device busy with another process, a leftover of an earlier job, or in a bad "
            "state (then 507033 'open device failed' follows)",
            "ASCEND_AICPU_PATH pointing at another CANN's AI CPU kernels than the installed one "
            "(msit's FAQ: unset it)",
        ),
        fix="`npu-smi info` for the processes on the device, stop leftovers; `echo "
        "$ASCEND_AICPU_PATH`: unset it unless it is the installed CANN's, then source "
        "set_env.sh again; if the device still does not open, read its device log "
        "(msnpureport) and `npu-smi info -t health -i <id>`",
        confirm="npu.devices",
        sources=(
            Source(
                "Ascend/msit msit/docs/debug/compare/FAQ.md"
                "@d4f0b9bf7642fd39e9a969deb76d73a9eb2deb7c (TsdOpen failed: unset "
                "ASCEND_AICPU_PATH)",
                "official",
            ),
            Source("https://github.com/hw-native-sys/PTOAS/pull/765 (E39005, 507033)", "report"),
            Source(
                "Ascend/memfabric_hybrid doc/faq/bm_create_fail.md"
                "@fdc498072dc4cab30663bb5339df6c8d2075c795 (the NPU in use by another process)",
                "official",
            ),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="acl-repeat-initialize",
        mode="cann-env",
        component="acl",
        # its number in a return code's context, or onnxruntime's "CANN failure 100002:
        # ACL_ERROR_REPEAT_INITIALIZE" read by its name (the ACL family's)
        patterns=(code("100002"),),
        codes=("100002",),
        meaning="aclInit was called a second time in one process: another library in the "
        "process had initialised ACL first (torch_npu does; onnxruntime's CANN provider and "
        "PaddleX's om backend call aclInit too), and the second caller took the refusal "
        "(ACL_ERROR_REPEAT_INITIALIZE) as fatal",
        causes=(
            "two frameworks that each call aclInit in one process (torch_npu with "
            "onnxruntime-cann, onnxruntime-cann with a PaddleX om backend)",
            "a program calling aclInit again: per model, per thread, or after aclFinalize",
        ),
        fix="initialise ACL once per process: let the second caller accept 100002 as 'already "
        "initialised' (onnxruntime's CANN provider does since its PR 26193: upgrade it), or run "
        "the two frameworks in separate processes; call aclFinalize once, at exit",
        confirm=None,
        sources=(
            Source("https://github.com/microsoft/onnxruntime/pull/26193", "maintainer"),
            Source("https://github.com/PaddlePaddle/PaddleX/issues/5161", "report"),
        ),
        hints=code_hints(),
    ),
    Failure(
        id="device-not-set",
        mode="visible-devices",
        component="runtime",
        patterns=(r"fail get device id, check if set device id",),
        codes=(),
        meaning="device work ran before the process chose its device: the runtime found no "
        "device id set for it, so the device memory it asked for was not allocated",
        causes=(
            "an operator run outside the framework's own entry (PyPTO: a kernel without @jit) "
            "with no torch.npu.set_device before it",
        ),
        fix="choose the device before the first operator runs: torch.npu.set_device(N) (PyPTO's "
        "tests: int(os.environ.get('TILE_FWK_DEVICE_ID', 0))), or run the operator under "
        "@jit",
        confirm=None,
        sources=(
            Source(
                "hicann/pypto docs/zh/tutorials/appendix/faq/device-id-not-set.md"
                "@7563f234be6b70b483c4720f8d6cf99095227b6e",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    _inner("EZ9999", "inner error inside an operator (often an AI Core exception or timeout)"),
    _inner("EE9999", "inner error of the CANN runtime (in LlamaFactory#5347 an HCCL timeout)"),
    _inner("EH9999", "inner error reported through ACL"),
    Failure(
        id="model-stream-execute-failed",
        mode="core-exception",
        component="runtime",
        patterns=(r"retCode=0x91, \[the model stream execute failed\]",),
        codes=("0x91",),
        meaning="a whole graph sunk to the device (MindSpore / TensorFlow data sink, an offline "
        "model) failed while its model stream ran",
        causes=(
            "input data not arriving in time: preprocessing slower than the model runs (the "
            "ModelArts troubleshooting page's cause)",
            "an operator's exception inside the graph (the plog names it)",
        ),
        fix="make the input keep up: lighter preprocessing, a smaller shuffle buffer_size, more "
        "parallel data workers (or turn data preprocessing offload off: enable_data_pre_proc="
        "False); read the plog lines before it for an operator error",
        confirm=None,
        sources=(
            Source(
                "https://support.huaweicloud.com/trouble-modelarts/modelarts_trouble_0054.html",
                "official",
            ),
        ),
        hints=("error",),
        # a follow-up: an operator's own error around it (an AI Core's), where one shows, is
        # what failed inside the graph
        rank=GENERIC,
    ),
)
