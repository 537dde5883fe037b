"""torch_npu and the frameworks against CANN, NNAL/ATB and the kernels packages."""

from __future__ import annotations

import re

from ampenv.knowledge.failures.lines import below_error
from ampenv.knowledge.failures.model import Failure, Source

# torch_npu looks an aclnn function up in each operator library in turn and warns of every
# miss ("[PTA]:dlsym aclnnX from libopapi_math.so failed, error:...: undefined symbol: aclnnX.")
# before it finds it in another; only finding it nowhere is a failure, said in words of its own
# ("aclnnX or aclnnXGetWorkspaceSize not in libopapi.so"). Ascend/op-plugin op_api_common.h.
_LOOKUP_MISS = re.compile(r"\bdlsym \w{1,200} from \S{1,300} failed", re.IGNORECASE)
# MindSpore looks up the functions of newer CANN releases so too and, where the installed CANN
# lacks one, warns ("[WARNING] ... DlsymAscend] Dynamically load symbol aclrtEventGetTimestamp
# failed, result = ...: undefined symbol: ..."; dlopen_macro.h) in runs that go on to work: a
# miss at WARNING; the same words in an error (its DlsymWithCast raises them) are the failure.
_WARNED_MISS = re.compile(r"\bDynamically load symbol \w{1,200} failed", re.IGNORECASE)


_LOAD_FAILED = re.compile(r"\bFailed to load dynamic library\b", re.IGNORECASE)


def _not_a_lookup_miss(m: re.Match[str]) -> bool:
    # off a screen, the row that holds the symbol may have lost the "dlsym" part; the
    # warning's own end, a full stop then the logger's closing quote, still marks it, unless
    # the line says a library failed to load (the runtime's EE1025, in a JSON record)
    before = m.string[: m.start()]
    warned = _WARNED_MISS.search(before)
    if _LOOKUP_MISS.search(before) or (warned and below_error(m.string, warned.start())):
        return False
    return not m.string.startswith('."', m.end()) or _LOAD_FAILED.search(before) is not None


PAIR_CANN = (
    "install the torch_npu release paired with the installed CANN (Ascend/pytorch README "
    'table), e.g. pip install "torch-npu==2.7.1.post4" for CANN 9.0.0, or upgrade CANN to '
    "the release this torch_npu names (another program: the release its notes pair with "
    "this CANN); check that LD_LIBRARY_PATH holds one CANN only; `ampenv doctor --only "
    "python.stack,cann.toolkit`"
)

FAILURES = (
    Failure(
        id="torch-npu-cann-symbol",
        mode="cann-pairing",
        component="torch_npu",
        patterns=(
            r"(?<!libatb\.so: )undefined symbol: (?:Msprof|aclnn|aclrt|aclop|Hccl|hccl)\w{0,200}",
            # (or the second name elided: "aclnnX ... not in libopapi.so")
            r"\baclnn\w{1,80} (?:or \w{1,80}|\.{3}) not in libopapi\.so",
            # torch_npu resolves newer ACL/HCCL functions at run time (ERR00008 follows); where
            # an older call serves, it only warns and goes on: cann-older-fallback's
            r"(?<!Warning: )(?<!Warning: 0)Failed to find function ?(?:acl|hccl|Hccl)\w{1,80}",
            r"maybe you(?:r)? cann version is too low",
            r"need to upgrade hccl version",
        ),
        codes=(),
        meaning="torch_npu (or another program built against CANN: a framework's or an SDK's "
        "library) needs a CANN function the installed CANN lacks: it was built for a newer (or "
        "older) CANN than the one it runs on ('Failed to find function acl...': the CANN is "
        "older than this torch_npu needs)",
        causes=(
            "CANN and torch_npu (or the SDK, e.g. MindX) from different releases",
            "LD_LIBRARY_PATH holding another CANN's libraries than the one set up",
            "a custom operator's aclnn function (aclnn<Op>GetWorkspaceSize of an operator you "
            "built): its package's library is not on the loader's path",
        ),
        fix=PAIR_CANN + "; an aclnn function of a custom operator: add its package's "
        "op_api/lib (the path its deployment prints, under the vendors folder) to "
        "LD_LIBRARY_PATH",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/framework/interface/HcclInterface.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/interface/HcclInterface.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source("https://github.com/triton-lang/triton-ascend/issues/328", "report"),
            Source("https://github.com/triton-lang/triton-ascend/pull/1099", "report"),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/interface/AclInterface.cpp"
                '@00926aa18db90350fad664ff185ce1feb445dedd (TORCH_CHECK(func, "Failed to find '
                'function ", ...), ErrCode::NOT_FOUND)',
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/pull/1261", "report"),
            Source(
                "an Ascend operator toolchain tutorial, FAQ 3.2-3.3 (the public file index's id "
                "54546271984): a custom operator's library not on LD_LIBRARY_PATH",
                "report",
            ),
        ),
        hints=("undefined symbol", "libopapi", "fail"),
        judge=_not_a_lookup_miss,
    ),
    Failure(
        id="cann-older-fallback",
        mode="cann-pairing",
        component="torch_npu",
        # torch_npu's warning (printed once) where an older call serves for the newer one
        patterns=(r"Warning: 0?Failed to find function ?(?:acl|hccl|Hccl)\w{1,80}",),
        codes=(),
        meaning="torch_npu looked up a CANN function newer than the installed CANN and went on "
        "with an older call: the CANN is older than this torch_npu was built for; harmless "
        "alone, and the likely cause where a failure follows (a device that will not set, a "
        "version torch_npu cannot read)",
        causes=("CANN older than the release this torch_npu is paired with",),
        fix=PAIR_CANN,
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/interface/AclInterface.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (aclrtCreateEventExWithFlag's "
                "fallback to aclrtCreateEventWithFlag)",
                "official",
            ),
            Source("https://www.hiascend.com/forum/thread-0211203155784780047-1-1.html", "report"),
        ),
        hints=("fail",),
        notice=True,
    ),
    Failure(
        id="cann-too-old-for-feature",
        mode="cann-pairing",
        component="cann",
        # features and operators that check the CANN (and torch_npu, PTA) they need
        patterns=(
            # vllm-ascend's MC2 hierarchical communication (token_dispatcher.py)
            r"Error: PTA and CANN version is too old to support",
            # an error that tells to upgrade CANN: op-plugin's operators without the aclnn
            # function (or the input) of a later CANN, TorchAir's GE without an IR type
            # (within 200 characters of the exception's name: a line of many "Error: " costs
            # each of them that much, the red team's flood)
            r"Error: [^\n]{0,200}?\b(?:[Pp]lease|recommended to|maybe you need) (?:try to )?"
            r"(?:upgrade|update) (?:the version of |the )?(?i:cann)\b",
            # SHMEM built against a CANN without the memory-fabric handle
            r"Not support \w{1,40} malloc, please update CANN version",
            # MindSpeed: an option that needs a torch_npu (PTA) function of a later release
            r"Error: `--[\w-]{1,60}` is invalid, please update the latest PTA version",
        ),
        codes=(),
        meaning="a feature or an operator the job uses needs a CANN (runtime and operator "
        "packages), or a torch_npu, newer than the installed ones, and checked for it",
        causes=(
            "CANN and torch_npu of an earlier release than the feature (the framework's notes "
            "name the first release that has it)",
            "a newer toolkit beside older operator packages (kernels / ops not upgraded with it)",
        ),
        fix="upgrade CANN's toolkit and operator packages together, with the torch_npu paired "
        "with them (Ascend/pytorch's release table), to the release the feature needs; or "
        "turn the feature off or call the operator as this CANN has it (vllm-ascend: its MC2 "
        "hierarchical communication option off; op-plugin: the argument the line names as "
        "this CANN allows it); a message naming PTA asks for a later torch_npu; a library that "
        "chose at its build (SHMEM) is rebuilt after the upgrade; `ampenv doctor --only "
        "python.stack,cann.toolkit`",
        confirm="cann.toolkit",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/ops/fused_moe/token_dispatcher.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea",
                "official",
            ),
            Source(
                "Ascend/torchair torchair/cann_ir_ability/cann_ir_ability.cpp"
                "@fced8842d149f16b587c2c867d427e4b766831ca",
                "official",
            ),
            Source(
                "Ascend/op-plugin op_plugin/ops/opapi/AddRmsNormQuantKernelOpApi.cpp, "
                "GroupedMatmulKernelNpuOpApi.cpp, MatmulAllReduceBaseKernelNpuOpApi.cpp, "
                "AllToAllvGmmNpuOpApi.cpp, RopeWithSinCosCacheKernelNpuOpApi.cpp, "
                "QuantMatmulKernelNpuOpApi.cpp"
                "@517f2e7d0f202f38b76310706cb977ca2388ad21",
                "official",
            ),
            Source(
                "hicann/shmem src/host/mem/shmem_mm.cpp@643bfb73b50d88042234d3f5e0c7c9841cdedbbe",
                "official",
            ),
            Source(
                "Ascend/MindSpeed mindspeed/features_manager/optimizer/virtual_optimizer.py"
                "@028de58ca629d035185b00ff7d1eb7eff4f7fd48",
                "official",
            ),
        ),
        hints=("error", "fail", "not support"),
    ),
    Failure(
        id="torch-npu-atb-symbol",
        mode="cann-pairing",
        component="nnal",
        # an ATB symbol missing, or ATB's own library missing a CANN one (HcclAllGatherV)
        patterns=(
            r"undefined symbol: _ZN3(?:atb|Mki)\w{1,400}",
            r"\blibatb\.so: undefined symbol",
            # dlinfer's reading of torch_npu's libop_plugin_atb.so failing to load
            r"An undefined symbol was found, which may be caused by a version mismatch between "
            r"NNAL and torch_npu",
        ),
        codes=(),
        meaning="torch_npu and NNAL/ATB (or ATB and CANN) come from different releases: an ATB "
        "symbol one expects is missing from the other",
        causes=("NNAL installed for another CANN or torch_npu release",),
        fix="install the NNAL (ATB) release that matches CANN and torch_npu, then source "
        "/usr/local/Ascend/nnal/atb/set_env.sh",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/117", "report"),
            Source("https://github.com/Ascend/pytorch/issues/99", "report"),
            Source("https://www.hiascend.com/forum/thread-0297190435264945257-1-1.html", "report"),
            Source(
                "DeepLink-org/dlinfer dlinfer/vendor/ascend/pytorch_patch.py"
                "@a50184e3734e5799bd4cec484d3a2ac46a36ae86 (register_atb_extensions)",
                "official",
            ),
        ),
        hints=("undefined symbol",),
    ),
    Failure(
        id="cann-undefined-symbol",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"/(?:ascend-toolkit|cann[-\w.]{0,20})/\S{1,300}\.so: undefined symbol: \w{1,400}",
            # CANN's own C++ namespaces (ge::, optiling::, gert::, ErrorManager): whoever misses
            # one was built against another CANN
            r"undefined symbol: _ZN[KVRO]{0,3}(?:2ge|8optiling|4gert|12ErrorManager)\w{0,400}",
        ),
        codes=(),
        meaning="a CANN symbol is missing: parts of two CANN versions are mixed in one install "
        "or on LD_LIBRARY_PATH, or a framework's Ascend plugin was built against another CANN",
        causes=(
            "an upgrade left old components behind, or two toolkits on LD_LIBRARY_PATH",
            "kernels/ops package from another CANN version",
            "a framework plugin (Paddle, MindSpore, Paddle-Lite) built for another CANN release",
        ),
        fix="reinstall the CANN toolkit and kernels of one version, and keep only its set_env.sh "
        "in the environment; a framework's Ascend plugin must be the build for that CANN "
        "version (or rebuilt against it)",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/Ascend/samples/issues/21", "report"),
            Source("https://github.com/PaddlePaddle/Paddle-Lite/issues/9624 (ge::)", "report"),
        ),
        hints=("undefined symbol",),
        judge=_not_a_lookup_miss,
    ),
    Failure(
        id="kernels-missing",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"Cannot find bin(?:ary)? (?:of|for) op",
            r"binary_info_config\.json failed",
            r"check if the opp_kernel package is instal",
            r"\bopp[_ ]kernels?\b[^\n]{0,30}\bnot installed",
            r"\bOp \w{1,80} does not ha(?:s|ve) any binary",
            r"Do not find tiling func of \w{1,80}",
            r"Cannot parse json for config file \[[^\]\n]{0,300}/kernel/config/",
            # aclnn's loader (errno 561108) and the device's AI CPU scheduler missing a kernel
            # library the framework installs (libpt_kernels.so)
            r"\bParse dynamic kernel config fail",
            r"\bso manager init failed, soFile is [^\n]{0,200}aicpu_kernels",
            # an aclnn operator's l0 layer, which found no AI Core kernel to launch
            r"\b\w{1,80} ADD_TO_LAUNCHER_LIST_AICORE failed",
        ),
        codes=(),
        meaning="no precompiled kernel for the operator: the kernels (ops) package is missing, "
        "from another CANN version, or the dtype/shape is not supported",
        causes=(
            "Ascend-cann-kernels-<chip> (CANN >= 8.5: cann-<chip>-ops) not installed",
            "kernels package of another CANN version, or for another chip (an image built for "
            "the 910B on an A3 host, which reports Ascend910_93xx)",
            "an input dtype the operator does not support",
            "an AI CPU kernel library the framework deploys to the device missing "
            "(/usr/lib64/aicpu_kernels/libpt_kernels.so: the toolkit install that ships it)",
            "a CANN release older than the one that ships this operator's binary (a framework "
            "written for a newer CANN than the image's 'latest')",
        ),
        fix="install the kernels package of the same CANN version for this chip "
        "(Ascend-cann-kernels-<chip>_<version>.run --install), then source set_env.sh; where it "
        "is installed (`ampenv doctor --only cann.toolkit`), the operator has no kernel for the "
        "dtypes its key names (float = float32, double): cast its inputs to float16 or "
        "bfloat16, or use the CANN release the framework asks for",
        confirm="cann.toolkit",
        sources=(
            Source(
                "a LoRA training skill document, index id 58605599588 (FlashAttentionScore "
                "without a binary in CANN 8.3.RC1: CANN 9.0.0 or newer)",
                "report",
            ),
            Source(
                "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/"
                "operator_called_error.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/237", "report"),
            Source(
                "CANN's ops, each aclnn operator's l0 layer (OP_LOGE '<Op> "
                "ADD_TO_LAUNCHER_LIST_AICORE failed', e.g. the public file index's id "
                "42566211380)",
                "official",
            ),
            Source(
                "a verl GRPO project's phase summary (the public file index's id 56779650324): "
                "a 910B image on A3 hosts",
                "report",
            ),
            Source("https://github.com/Ascend/MindSpeed-LLM/issues/2", "report"),
            Source("https://github.com/hiyouga/LlamaFactory/issues/3796", "maintainer"),
            Source("https://github.com/hiyouga/LlamaFactory/issues/3779", "report"),
            Source(
                "https://www.hiascend.com/forum/thread-02108172740147456233-1-1.html (float32 "
                "FlashAttentionScore)",
                "report",
            ),
            Source(
                "https://www.hiascend.com/forum/thread-0215170148428890076-1-1.html (Parse "
                "dynamic kernel config fail)",
                "report",
            ),
            Source(
                "https://hiascend.com/doc_center/source/zh/canncommercial/700/modeldevpt/ptmigr/"
                "AImpug_000175.html (libpt_kernels.so)",
                "official",
            ),
        ),
        hints=("cannot", "fail", "not installed", "binary"),
    ),
    Failure(
        id="op-not-built-for-chip",
        mode="cann-pairing",
        component="opp",
        patterns=(
            r"binary_info_config\.json of socVersion \[?\w{1,40}\]? does not support",
            # the same, wrapped after "binary_info_config.json of"
            r"\bsocVersion \[\w{1,40}\] does not support opType \[",
            # EZ1009: "Reason: SoC version ascend310p verification failed. This SoC is not
            # configured through the AddConfig API of the OpDef class."
            r"\bSoC version \w{1,40} verification failed\b",
        ),
        codes=(),
        meaning="the installed operator packages have no kernel of this operator for this chip "
        "(the line names the chip and the operator): this CANN / ops release does not support "
        "the operator on it",
        causes=(
            "the operator exists only for other chips (310P lacks many fused A2/A3 operators)",
            "a CANN or custom-ops package older than the framework that calls the operator",
        ),
        fix="install the CANN kernels / custom-ops release that ships the operator for this chip "
        "(the framework's install guide pins it), or run that model path on a chip that has it",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/1813", "maintainer"),
            Source("https://github.com/sgl-project/sglang/issues/31938", "report"),
            Source(
                "notes of MLA on a 310P (the public file index; KvRmsNormRopeCache has no "
                "ascend310p in its OpDef: EZ1009)",
                "report",
            ),
        ),
        hints=("not support",),
    ),
    Failure(
        id="ops-package-other-chip",
        mode="cann-pairing",
        component="opp",
        patterns=(
            r"\bsocversion \w{1,40} of (?:the )?bin package does not match\b",
            # an offline model (.om) ATC built for another SoC, refused when it is loaded
            r"ModelCheckCompatibility failed, supported socVersion=\w{1,40}, but the model "
            r"socVersion=\w{1,40}",
            # vllm-ascend's check of the chip its custom operators were built for
            r"Error: Current device type: \S{1,60} does not match the installed version's "
            r"device type",
        ),
        codes=(),
        meaning="an operator package (prebuilt kernels, a custom-op bin package, vllm-ascend's "
        "own operators) or an offline model (.om) was built for another chip (SoC) than the one "
        "in this node, and its installer or loader refuses it",
        causes=(
            "the package built with a default or guessed SoC (its run.sh / build SOC_VERSION) "
            "instead of this node's chip",
            "a kernels package or image made for another Ascend product",
        ),
        fix="rebuild or reinstall the package for this chip: its name is in `npu-smi info` "
        "(e.g. 310P3 -> Ascend310P3); pass it to the build or installer (run.sh with the "
        "socversion parameter, SOC_VERSION=Ascend<name>, atc --soc_version=Ascend<name> for an "
        ".om), and install CANN's kernels for this chip (Ascend-cann-kernels-<chip>); "
        "vllm-ascend: its wheel or image made for this chip (A2, A3, 310P), or a build with "
        "SOC_VERSION set to it",
        confirm="cann.toolkit",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/device/device_config.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea (check_ascend_device_type)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/5599", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/6676 (same text; answered: "
                "set the SoC for the hardware)",
                "report",
            ),
            Source(
                "https://github.com/k2-fsa/sherpa-onnx/pull/2740 (an .om for 910B on 910B2)",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="cann-chip-unsupported",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"init runtime platform info failed",
            r"\bGet soc name failed",
            # the Triton-Ascend / bisheng compiler not knowing this SoC
            r"for the --target option: Cannot find option named '?Ascend\w{1,20}",
            # CANN's opbuild (a custom-op package's build) not knowing the SoC
            r"Invalid socVersion \w{3,30}",
            # CANN's Ascend C kernel build (a project building its own kernels) not knowing it
            r"SOC_VERSION \w{1,40} does not support, the support list is",
        ),
        codes=(),
        meaning="CANN could not load the platform description of this chip (the SocVersion the "
        "line names), so GE and the operator compiler did not start (500001, "
        "AclSetCompileopt / OpCompileProcessor init failed follow): the installed CANN or its "
        "kernels do not support this chip",
        causes=(
            "a CANN toolkit too old for this chip, or made for another product",
            "the kernels (ops) package of another chip or CANN release",
            "the chip read wrong: driver not matching CANN, or not mounted into the container",
        ),
        fix="compare the SocVersion in the line with `npu-smi info`; check that CANN has its "
        "platform file ($ASCEND_HOME_PATH/<arch>-linux/data/platform_config/<SocVersion>.ini); "
        "install a CANN toolkit and kernels package that support this chip; "
        "`ampenv doctor --only cann.toolkit,npu.driver`",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/692", "report"),
            Source("https://github.com/mindspore-ai/mindspore/issues/344 (soc name)", "report"),
            Source("https://github.com/sgl-project/sglang/issues/16360 (bishengir)", "report"),
        ),
        hints=("fail", "cannot", "error"),
    ),
    Failure(
        id="cann-python-other-release",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"File already exists in database: dvpp_tensor_shape\.proto",
            # CANN's C++ side read what te printed as JSON, and it was a Python traceback
            r"parse_error\.101 [^\n]{0,200}last read: 'T'",
            # a caller of another release reaching into CANN's TBE package
            r"module '(?:\w{1,40}\.)?tbe\.[\w.]{1,120}' has no attribute '\w{1,80}'",
        ),
        codes=(),
        meaning="CANN's Python packages (te/tbe, hccl, and the protobuf descriptors they carry) "
        "are from another CANN release than the one in use, or than the framework calling "
        "them expects: two copies register the same descriptors, a tbe module lacks what its "
        "caller asks for, or te fails and CANN reads its traceback where it expected JSON",
        causes=(
            "te (or hccl, op_compile_tool) wheels pip-installed from an older CANN, shadowing "
            "the ones of the CANN the environment sources",
            "a framework (MindSpore) of a release paired with another CANN than the installed one",
        ),
        fix="reinstall the Python packages shipped with the CANN in use: pip install "
        "--force-reinstall $ASCEND_HOME_PATH/lib64/te-*.whl (and the hccl and op_compile_tool "
        "wheels beside it), or pip uninstall the stray copies; if they are the CANN's own, "
        "install the framework release paired with this CANN (MindSpore's install page lists "
        "the CANN of each release)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/torchair docs/zh/appendix/faq.md@fced8842d149f16b587c2c867d427e4b766831ca",
                "official",
            ),
            Source(
                "mindspore-ai/docs docs/mindspore/source_zh_cn/faq/installation.md"
                "@9e844dc65dc5ef4381574e8b6ec2f93f9681f720 (old te/hccl in a conda env after a "
                "CANN upgrade: json parse_error.101)",
                "official",
            ),
            Source(
                "79laowang/orangePi-AiPro MINDSPORE_INSTALL_GUIDE.md"
                "@e4a2a4851f6f857116b0a7258b0ed9f964e76668 (MindSpore on CANN 7.1.0: tbe's "
                "op_tiling lacks sys_version)",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="op-prototype-mismatch",
        mode="cann-pairing",
        component="aclnn",
        patterns=(
            r"\bEZ1009\b[^\n]{0,200}dtype or format of the actual input or output parameter "
            r"of the operator is inconsistent with that defined in the operator prototype",
        ),
        codes=(),  # EZ1009 is any execution error of an operator: the wording narrows it
        meaning="an operator was called with a dtype or format its prototype (OpDef) in the "
        "installed CANN operator package does not declare",
        causes=(
            "the framework calling it (torch_npu, vllm-ascend's custom ops) built for another "
            "release of CANN's operator package than the one installed (vllm-ascend#14166: "
            "fixed by the torch_npu release paired with it)",
            "the model passes a dtype the operator does not take on this chip",
        ),
        fix="install the torch_npu (and vllm-ascend) release that its release notes pair with "
        "the installed CANN and kernels package, or the CANN that release asks for: `ampenv "
        "doctor --only python.stack,cann.toolkit`; if they pair, cast the operator's inputs to "
        "a dtype it supports",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/14166", "report"),),
        hints=("error",),
    ),
    Failure(
        id="cann-version-mismatch",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"\bCANN\b[^\n]{0,40}\bversion mismatch\b",
            # torch_npu at import: "CANN package version X and PyTorch version Y do not match."
            r"do not match\. Please check the README of the Ascend PyTorch repo",
        ),
        codes=(),
        meaning="a framework or library was built against another CANN release than the one "
        "installed (it says so at start-up, before anything fails)",
        causes=(
            "the framework's build made for another CANN (Paddle-Lite built with 5.1.0 on 5.1.2)",
            "CANN upgraded or downgraded after the framework was installed",
        ),
        fix="install the framework build made for the installed CANN, or install the CANN "
        "release it was built against; `ampenv doctor --only cann.toolkit` shows the installed one",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/_init/registry/registry_manager.py"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source("https://github.com/PaddlePaddle/Paddle-Lite/issues/10514", "report"),
        ),
        hints=("mismatch", "do not match"),
    ),
    Failure(
        id="opp-verify-failed",
        mode="cann-pairing",
        component="cann",
        patterns=(r"Failed to verify the OPP",),
        codes=("E30006",),
        meaning="the device rejected the operator package (OPP) at start-up, so the device "
        "could not be opened (507033 follows)",
        causes=(
            "OPP/kernels package from another CANN version than the toolkit",
            "OPP package not matching the driver (no source pins which)",
        ),
        fix="reinstall the toolkit and kernels of one CANN version matching the driver; "
        "`ampenv doctor --only cann.toolkit,npu.driver`",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/4284", "report"),),
        hints=("fail",),
    ),
    Failure(
        id="conv3d-groups-old-cann",
        mode="cann-pairing",
        component="opp",
        # aclnnConvolution's EZ1001 on CANN 8.0.RC3: "Conv3dv2 only supports groups = 1 or
        # groups = cin" (a grouped 3D convolution, Open-Sora 2.0's DC-AE)
        patterns=(r"(?:error|fail)[^\n]{0,200}?Conv3dv2 only supports groups = 1 or groups = cin",),
        codes=(),
        meaning="this CANN's 3D convolution kernel (Conv3dv2) has no grouped convolution other "
        "than depthwise: a Conv3d with 1 < groups < in_channels is refused",
        causes=("a CANN older than 8.1.RC1 (the maintainers: 'the cann version is too old')",),
        fix="upgrade CANN (toolkit and kernels) to 8.1.RC1 or later with the torch_npu paired "
        "with it; until then torch.npu.config.allow_internal_format = True takes another, "
        "slower, path",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/Ascend/pytorch/issues/85", "maintainer"),),
        hints=("error", "fail"),
    ),
    Failure(
        id="soc-unsupported-by-torch-npu",
        mode="cann-pairing",
        component="torch_npu",
        patterns=(r"\bUnsupported soc version: ?Ascend\w{1,20}",),
        codes=(),
        meaning="this torch_npu release does not know the chip the runtime reports (the SoC it "
        "names): its build predates that chip's support",
        causes=("a torch_npu older than the first release for this chip (a 310B with 2.1.0rc1)",),
        fix="install a torch_npu release that supports this chip, paired with the torch and "
        "CANN installed (a 310B4 ran with 2.1.0.post3 where 2.1.0rc1 refused it)",
        confirm="python.stack",
        sources=(
            Source(
                "a 310B4 development board's notes, 'Unsupported soc version' (the public file "
                "index's id 16840405259)",
                "report",
            ),
            Source(
                "an Ascend 950PR CPT note, item 1 (the public file index's id 58891459494): "
                "torch_npu 2.7.1 refused the 950PR, 2.12.0 ran",
                "report",
            ),
        ),
        hints=("error", "unsupport"),
    ),
    Failure(
        id="mindspore-cann-version-mismatch",
        mode="cann-pairing",
        component="mindspore",
        # MindSpore's run_check at import: the CANN package's version file, and the te and hccl
        # wheels (a countdown of three follows); a warning it goes on from
        patterns=(
            r"MindSpore\sversion \S{1,40} and (?:Ascend\sAI\ssoftware\spackage\s\(Ascend"
            r"\sData\sCenter\sSolution\)\s?version|\"(?:te|hccl)\"\swheel\spackage\sversion) "
            r"\S{1,20} does not match",
        ),
        codes=(),
        meaning="MindSpore found a CANN (or its te and hccl wheels) of another release than the "
        "ones it was built for: harmless alone where the run goes on, and the likely cause "
        "where an operator, a graph or a collective fails after it",
        causes=(
            "CANN upgraded or downgraded without the MindSpore release made for it",
            "te and hccl wheels left from another CANN in this Python",
        ),
        fix="install the CANN release this MindSpore expects (the warning lists them: 'expect "
        "one of [...]'; MindSpore's install page has the table) with the te and hccl wheels of "
        "the same CANN, or the MindSpore release made for the installed CANN",
        confirm=None,
        sources=(
            Source(
                "mindspore-ai/mindspore mindspore/python/mindspore/run_check/_check_version.py "
                "(AscendEnvChecker; the public file index's id 264564265)",
                "official",
            ),
            Source(
                "mindspore-lab/orange-pi-mindspore applications/online/inference/04_fcn/"
                "mindspore_fcn8s.ipynb@dc35f089352cb9a874b531f9554afe012a07462d (its set-up cell)",
                "official",
            ),
        ),
        hints=("do not match",),
        notice=True,
    ),
)
