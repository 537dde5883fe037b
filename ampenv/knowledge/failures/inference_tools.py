"""What MindSpore (and MindSpore Lite, its converter) and the MindX SDK report about a chip, a
model or a plugin they cannot serve: their own words for failures the runtime's codes do not
name (a MindSpore without its Ascend backend, an inference card MindSpore's training mode does
not run on, a converter config that names another input, an mxVision plugin GStreamer cannot
find), and the transformer acceleration library (ATB) under MindIE and torch_npu's ATB ops."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, Failure, Source

MINDOCR_FAQ = (
    "mindspore-lab/mindocr docs/zh/tutorials/frequently_asked_questions.md"
    "@358b40b2eb2e0d59025b888f54af7a77a289d70f ({})"
)
MINDSPORE_DEBUG = (
    "mindspore-ai/docs tutorials/source_zh_cn/debug/error_analysis/mindrt_debug.md"
    "@1327eac329f4367df3e174a624cb3a42c55bd5be ({})"
)
LITE_FAQ = (
    "mindspore-ai/docs docs/lite/docs/source_zh_cn/reference/faq.md"
    "@16ff242f3403b6b57a0ed4a0a65aae228cb3b78b ({})"
)
MXVISION_GUIDE = (
    "Ascend/mindsdk-referenceapps docs/quickStart/4-4模型Tensor数据处理&自定义模型后处理.md"
    "@0b3eb333239dd503ec0e8176384e7bd157ae0b02 (5.2, plugin not found)"
)

FAILURES = (
    Failure(
        id="mindspore-ascend-backend-missing",
        mode="cann-env",
        component="mindspore",
        patterns=(r"Unsupported device target Ascend\. This process only supports one of",),
        codes=(),
        meaning="MindSpore did not load its Ascend backend (only its CPU one): the CANN "
        "libraries that backend needs did not load in this process, or the MindSpore wheel was "
        "not built for Ascend",
        causes=(
            "the CANN environment not sourced in this shell (the 'Device load error message' "
            "lines before it name the library that failed to load)",
            "a MindSpore release not paired with the installed CANN",
            "a MindSpore wheel built without Ascend (-e Ascend)",
        ),
        fix="source /usr/local/Ascend/ascend-toolkit/set_env.sh (CANN >= 8.5: "
        "/usr/local/Ascend/cann/set_env.sh) in the same shell; read the 'Device load error "
        "message' lines for the library that failed; install the MindSpore release paired with "
        'this CANN (its Ascend wheel); then python -c "import mindspore; mindspore.run_check()"',
        confirm="cann.toolkit",
        sources=(
            Source("https://www.hiascend.com/forum/thread-0216133685096022081-1-1.html", "report"),
        ),
        hints=("unsupport",),
    ),
    Failure(
        id="mindspore-no-op-info-for-chip",
        mode="cann-pairing",
        component="MindSpore",
        patterns=(r"Load op info (?:json|form json config) failed, version: ?Ascend\w{0,20}",),
        codes=(),
        meaning="MindSpore has no operator information for this chip (the version it names): "
        "its graph compile, and so export.py, does not run on it (an Atlas 310I, 'Ascend310')",
        causes=("exporting or running a MindSpore graph on an inference chip it does not support",),
        fix="export the model on a chip MindSpore supports (an Atlas 310P / 300I Pro, or a "
        "910), then run the exported model here with MindSpore Lite or ACL",
        confirm=None,
        sources=(Source(MINDOCR_FAQ.format("Q7, Ascend310 export"), "maintainer"),),
        hints=("fail",),
    ),
    Failure(
        id="mindspore-kernel-build-no-response",
        mode="compile-cache",
        component="MindSpore",
        # the graph compiler's client of the operator-build server (kernel_build_client.h),
        # raised as a RuntimeError: the error word keeps the pattern in the scan's error lines,
        # and its path holds no space (a line of "Error: " repeated costs one step each)
        patterns=(
            r"Error: (?:\S{0,200}/)?kernel_build_client\.h:\d{1,5} Response\] Response is empty",
        ),
        codes=(),
        meaning="MindSpore's operator-build server (the processes that compile the graph's "
        "Ascend operators) gave no answer: it died or hung while compiling",
        causes=(
            "an error before it stopped the build processes (TBE's Python package missing or "
            "broken, the CANN environment not sourced)",
            "graph-kernel fusion compiling a kernel that fails",
            "too many parallel build processes for the host's memory",
        ),
        fix="fix the first error in the log before this line (TBE or CANN not found); turn off "
        "graph-kernel fusion (enable_graph_kernel=False) if it is on; run fewer build "
        "processes: export MS_BUILD_PROCESS_NUM=4 (1-24)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "MindSpore's TroubleShooter (mindspore-lab), its knowledge base vm_id_15 "
                "(Response is empty in operator compile; the public file index's id 3460526550) "
                "and the test that asserts it (id 30816991494)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="mindspore-device-address-cpu-on-ascend",
        mode="cann-pairing",
        component="MindSpore",
        # (from the RuntimeError: the words alone would be a scan's pass of their own)
        patterns=(
            r"Error: The device address type is wrong: type name in address: ?CPU, type name "
            r"in context: ?Ascend",
        ),
        codes=(),
        meaning="MindSpore kept a tensor in host memory while its context runs on Ascend: on an "
        "Atlas 310 / 310P (inference cards) MindSpore's Ascend mode may not support the "
        "computation",
        causes=(
            "MindSpore's Ascend (training) mode on an inference card",
            "a MindSpore build that does not match the chip or the CANN release",
        ),
        fix="check that MindSpore, CANN and the chip are a supported set (its install page); on "
        "a 310 / 310P run MindSpore on the CPU (device_target='CPU') and infer on the NPU with "
        "MindSpore Lite",
        confirm="cann.toolkit",
        sources=(Source(MINDOCR_FAQ.format("Q6"), "maintainer"),),
        hints=("error",),
    ),
    Failure(
        id="converter-input-name-mismatch",
        mode="compile-cache",
        component="MindSpore Lite",
        patterns=(r"Failed to find input (?P<name>\S{1,80}) in input_shape",),
        codes=(),
        meaning="converter_lite's config gives a shape for an input the model does not have: "
        "[ascend_context] input_shape names another input than the model's",
        causes=("the config written for another export of the model (args0 against x)",),
        fix="in the converter's config, name the model's own input in input_shape "
        "(input_shape=<the input this line names>:<dims>), then convert again",
        confirm=None,
        sources=(Source(MINDOCR_FAQ.format("Q7, converter_lite"), "maintainer"),),
        hints=("fail",),
    ),
    Failure(
        id="lite-acl-open-device-failed",
        mode="cann-env",
        component="MindSpore Lite",
        patterns=(r"Acl open device \d{1,3} failed",),
        codes=(),
        meaning="MindSpore Lite could not open the NPU through ACL: most often the CANN "
        "environment is not set in this shell (its libraries, OPP and AI CPU paths)",
        causes=(
            "the CANN environment not sourced (LD_LIBRARY_PATH, ASCEND_OPP_PATH, "
            "ASCEND_AICPU_PATH unset)",
            "the device held by another process, or not passed into the container",
        ),
        fix="source /usr/local/Ascend/ascend-toolkit/set_env.sh (MindOCR's FAQ sets the "
        "acllib, OPP and AI CPU paths by hand), then `npu-smi info` for who holds the device",
        confirm="cann.toolkit",
        sources=(Source(MINDOCR_FAQ.format("Q4, acl open device 0 failed"), "maintainer"),),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="mxvision-plugin-not-found",
        mode="cann-env",
        component="MindX SDK",
        # mxVision's stream manager (Code = 6014, "element invalid factory")
        patterns=(r"can not find the element factory: ?\w{1,80}",),
        codes=(),
        meaning="mxVision (MindX SDK) found no plugin of the name a pipeline gives: GStreamer "
        "did not register it",
        causes=(
            "the plugin's .so not in the SDK's plugin folder",
            "GStreamer's registry cache older than the plugin",
            "a library the plugin needs (libpython3.x) that cannot be loaded",
        ),
        fix="copy the plugin's .so into ${MX_SDK_HOME}/lib/plugins/, delete GStreamer's "
        "registry cache (rm ~/.cache/gstreamer-1.0/registry.*.bin), make the libraries it "
        "needs loadable (LD_LIBRARY_PATH), then run again",
        confirm=None,
        sources=(Source(MXVISION_GUIDE, "official"),),
        hints=("err",),  # (its message is a key of its own: found where no error word stands)
    ),
    Failure(
        id="onnxruntime-cann-fallback",
        mode="cann-env",
        component="onnxruntime (CANN EP)",
        # onnxruntime's banner when an execution provider fails to start, naming CANN's
        patterns=(r"EP Error [^\n]{0,300}?/providers/cann/",),
        codes=(),
        meaning="onnxruntime could not start its CANN execution provider and fell back to the "
        "CPU: the model runs, slowly, on the CPU",
        causes=(
            "a provider option it cannot parse (npu_mem_limit given as an expression or left "
            "at its maximum, a misspelled option)",
            "the CANN environment not sourced, or an onnxruntime built against another CANN",
        ),
        fix="read the EP Error's own reason: give each CANN provider option a plain value "
        "(npu_mem_limit as an integer number of bytes, e.g. 21474836480), and source "
        "/usr/local/Ascend/ascend-toolkit/set_env.sh before starting; then check "
        "`onnxruntime.get_available_providers()` lists CANNExecutionProvider",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/RapidAI/RapidOCR/issues/458", "report"),),
        hints=("err",),
    ),
    Failure(
        id="mindspore-package-for-another-device",
        mode="cann-env",
        component="MindSpore",
        # (from the ValueError: the words alone hold no error word to find them by)
        patterns=(
            r"Error: For 'set_context', package type mindspore-(?:gpu|cpu) support "
            r"'device_target' type [^\n]{0,40}but got Ascend",
        ),
        codes=(),
        meaning="the MindSpore installed is its GPU (or CPU) package, which cannot run on Ascend: "
        "the script asks for device_target='Ascend'",
        causes=("pip installed mindspore-gpu (or the CPU package) on an Ascend node",),
        fix="uninstall it and install the MindSpore package for Ascend that pairs with the CANN "
        "installed (its install page lists them); or set device_target to the device the "
        "package supports",
        confirm="python.stack",
        sources=(Source(MINDSPORE_DEBUG.format("context配置问题"), "official"),),
        hints=("err",),
    ),
    Failure(
        id="mindie-http-wrapper",
        mode="cann-env",
        component="MindIE",
        patterns=(r"Failed to start http wrapper",),
        codes=(),
        meaning="MindIE Service could not start its HTTP server: the address or port in its "
        "config.json cannot be bound here",
        causes=(
            "ipAddress (or managementIpAddress) in config.json not an address of this host or "
            "container",
            "the port already in use by another process",
        ),
        fix="set ipAddress in MindIE Service's config.json (conf/config.json) to an address of "
        "this host or container (`hostname -I`), and a port no other process holds (`ss -ltnp "
        "| grep PORT`); then start it again",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/forum/thread-0201178898375605129-1-1.html (MindIE "
                "1.0.0, ipAddress)",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="mindspore-lite-model-version",
        mode="cann-pairing",
        component="MindSpore Lite",
        # the runtime's warning (the graph's scheduling failures after it name no cause); its
        # words apart ("\s") so that its key is "not equal", in the pass for "not "
        patterns=(
            r"model\sversion\sis\sMindSpore\sLite [\d.]{1,12},\sinference\sversion\sis\s"
            r"MindSpore\sLite [\d.]{1,12} not equal",
        ),
        codes=(),
        meaning="the model was converted by another MindSpore Lite release than the one running "
        "it: the runtime may lack or have changed the kernels its operators need, and its graph "
        "fails to schedule",
        causes=("a model converted with an older (or newer) converter than the runtime",),
        fix="convert the model again with the converter of the same MindSpore Lite release as "
        "the runtime (converter_lite of that package)",
        confirm=None,
        sources=(Source(LITE_FAQ.format("图编译失败, item 1"), "official"),),
        hints=("fail",),
    ),
    Failure(
        id="atb-input-combination",
        mode="dtype",
        component="atb",
        # ATB's check of an operation's inputs against the dtype and format combinations its
        # definition lists (operation_base.cpp: ERROR_INVALID_TENSOR_INI_MATCH), which prints
        # the actual inputs and the supported combinations after it
        patterns=(r"CheckIniMatch Failed!",),
        codes=(),
        meaning="an ATB operation (the transformer acceleration library under MindIE, "
        "torch_npu's atb ops and vLLM-Ascend's) got inputs whose dtypes or formats are no "
        "combination it supports: the log lists the actual inputs and the supported "
        "combinations after this line",
        causes=(
            "an input of another dtype than the operation takes (ATB tells int64 from int32: "
            "a torch.long index where int32 is required; float32 where float16 or bfloat16 is)",
            "an input in another format (NZ against ND) than the operation takes",
        ),
        fix="compare the Actual Inputs the line lists with its Supported Combs and cast the "
        "input that differs before the call (index.to(torch.int32), x.to(torch.float16)); "
        "ASDOPS_LOG_LEVEL=INFO ASDOPS_LOG_TO_STDOUT=1 prints the operation's checks",
        confirm=None,
        sources=(
            Source(
                "hicann/ascend-transformer-boost src/atb/operation/operation_base.cpp"
                "@ddcc8b6225b8b7d4703c69c319244bdea0f0c9a1 (CheckIniMatch)",
                "official",
            ),
            Source(
                "github.com/mindspore-lab/mindspore-skills torch-npu-debugger/references/"
                "issue_patterns.md@bc95b42981432592030f7e2f2d137cb7250d6060 (section 11)",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="atb-mla-head-count",
        mode="core-exception",
        component="atb",
        # ATB's multi-latent attention (DeepSeek's MLA) checks the heads it gets on one device
        patterns=(r"\[error\][^\n]{0,120}?headNum should be \{8,16,32,64,128\}",),
        codes=(),
        meaning="ATB's multi-latent attention (DeepSeek-V2/V3's MLA) got a number of heads per "
        "device it does not run (8, 16, 32, 64 or 128): the parallel layout split the model's "
        "heads too finely (DeepSeek-V3's 128 heads over 32 devices of tensor parallelism are 4 "
        "each), and the service answers with garbage",
        causes=(
            "tensor parallelism over more devices than the heads allow (a multi-node "
            "deployment whose tp was left to default to all devices)",
        ),
        fix="set the parallel layout in the service's config.json explicitly (MindIE: "
        "ModelDeployConfig's dp, tp, moe_tp, moe_ep) so that the model's heads divided by tp "
        "are 8 to 128 (DeepSeek-V3's 128 heads: tp 16 or less, dp over the other devices)",
        confirm=None,
        sources=(
            Source(
                "hicann/ascend-transformer-boost src/ops/ops_infer/multi_latent_attention/"
                "multi_latent_attention_operation.cpp@ddcc8b6225b8b7d4703c69c319244bdea0f0c9a1 "
                "(ParamCheck)",
                "official",
            ),
            Source(
                "github.com/itove/ascend mdbook/src/issue-1.md"
                "@78ca59931c3fb82bf7276a0b7928f9c281c5aa42 (the parallel layout set by hand)",
                "report",
            ),
        ),
        hints=("error",),
    ),
)
