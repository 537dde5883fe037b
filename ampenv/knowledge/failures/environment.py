"""CANN and NNAL environment: libraries and Python packages not found, paths not set."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import CLASS, KB, Failure, Source

SET_ENV = (
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh "
    "(CANN >= 8.5: /usr/local/Ascend/cann/set_env.sh)"
)
TORCH_NPU_LOADER = (
    "Ascend/pytorch torch_npu/_init/core/module_loader.py@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
REGISTRY = (
    "Ascend/pytorch torch_npu/_init/registry/registry_manager.py"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)

# the variables of CANN and its frameworks (HCCL's are hccl-env-invalid's)
ASCEND_VARIABLE = r"(?:ASCEND|GE|TE|NPU|ACL|TBE|ATB|ASDOPS|PYTORCH_NPU)_[A-Z0-9_]{1,60}"
ERROR_CODE_PAGES = (
    "https://www.hiascend.com/document/detail/en/CANNCommunityEdition/920/devaids/aoe/"
    "atlaserrorcode_15_{}.html"
)

FAILURES = (
    Failure(
        id="cxx11-abi-mismatch",
        mode="cann-pairing",
        component="nnal",
        patterns=(
            r"undefined reference to [^\n]{0,300}\bstd::__cxx11\b",
            # the old ABI's spelling: code built with _GLIBCXX_USE_CXX11_ABI=0 (libtorch's) asks
            # for a std::string symbol a library built with the new one does not have
            r"undefined reference to `[^`\n]{0,300}\bstd::string const&",
        ),
        codes=(),
        meaning="C++ code built with one C++ ABI links a library built with the other "
        "(_GLIBCXX_USE_CXX11_ABI 0 against 1): on Ascend, NNAL/ATB ships both and the one "
        "sourced must match torch's",
        causes=(
            "NNAL's set_env.sh sourced for the other ABI than the installed torch "
            "(ATB's cxx_abi_0 and cxx_abi_1 libraries)",
            "a program built with libtorch's and libtorch_npu's ABI (0) linking a library built "
            "with the other (OpenCV's own build: 1)",
            "(less often) the library not linked at all: its -l missing or before the objects",
        ),
        fix="read torch's ABI (python3 -c 'import torch; print(torch.compiled_with_cxx11_abi())') "
        "and source the ATB of that ABI: source /usr/local/Ascend/nnal/atb/set_env.sh "
        "--cxx_abi=<0|1>; then rebuild; for another library, build with the "
        "_GLIBCXX_USE_CXX11_ABI it was built with, or against the CANN release it supports; "
        "where both ABIs agree, link the library that defines the symbol (-l<name> after the "
        "objects, target_link_libraries)",
        confirm="python.stack",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/850/acce/ascendtb/"
                "ascendtb_0095.html",
                "official",
            ),
            Source(
                "https://github.com/Ascend/pytorch/issues/64 (libtorch_npu beside OpenCV)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="acl-headers-not-found",
        mode="cann-env",
        component="acl",
        patterns=(
            # gcc's words, and clang's ("fatal error: 'acl/acl.h' file not found")
            r"fatal error: (?:acl/acl\.h: No such file or directory|'acl/acl\.h' file not found)",
            # the link step: the library path it takes from the environment (NPU_HOST_LIB)
            r"\bld(?:\.\w{1,8})?: cannot find -lascendcl\b",
        ),
        codes=(),
        meaning="an AscendCL program's build found no CANN headers or libraries: the include "
        "and library paths its build takes from the environment (DDK_PATH and NPU_HOST_LIB in "
        "CANN's samples) are not set",
        causes=(
            "DDK_PATH / NPU_HOST_LIB not exported (or the CANN environment not sourced) in the "
            "shell that builds",
        ),
        fix=f"{SET_ENV}; export DDK_PATH=$ASCEND_HOME_PATH (the toolkit's latest) and "
        "NPU_HOST_LIB=$DDK_PATH/runtime/lib64/stub (some samples: $DDK_PATH/<arch>-linux/devlib; "
        "the target's arch when cross-compiling), then build again",
        confirm="cann.toolkit",
        sources=(
            Source("https://blog.csdn.net/m0_71340392/article/details/131904288", "report"),
            Source(
                "hicann/docs docs/troubleshooting/zh/build_app_missing_header_lib.md"
                "@c94cf50db06875e8676294422073d21318b183fb (cannot find -lascendcl)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="op-ir-not-registered",
        mode="cann-env",
        component="ge",
        # E10501's wording in the ge docs (CANN 8.1's table writes "IR for Op [X, optype [Y]],
        # is not registered": its code names this entry in any wording)
        patterns=(r"IR for Op \S{1,200} with optype \S{1,200} is not registered",),
        codes=("E10501", "EZ0501"),
        meaning="the graph engine does not know the operator's type: its prototype (IR) is not "
        "in the operator library this process loaded",
        causes=(
            "the CANN environment not sourced: ASCEND_OPP_PATH does not point at the OPP",
            "a custom operator whose package was not built or installed into the OPP path "
            "(or ASCEND_CUSTOM_OPP_PATH not set to it)",
            "an OPP (kernels) release older than the model or framework asks for",
        ),
        fix=f"{SET_ENV} (it sets ASCEND_OPP_PATH); for a custom operator build and install its "
        "package (custom_opp_*.run) and set ASCEND_CUSTOM_OPP_PATH where it was installed "
        "elsewhere; else install the CANN / kernels release that has the operator",
        confirm="cann.toolkit",
        sources=(
            Source(
                "CANN 8.1.RC1 conf/error_manager/error_code.json (E10501, EZ0501: IR for Op "
                "... is not registered)",
                "official",
            ),
            Source(
                "hicann/ge docs/zh/user_guides/error_codes/E10501-Not_Supported_Operator.md"
                "@ffdcbc9f7496c17a98c1d12762c61ed608ef3503",
                "official",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="om-opp-version-mismatch",
        mode="cann-pairing",
        component="ge",
        patterns=(r"opp version of the model does not match the current opp run package",),
        codes=(),
        meaning="an offline model (.om) was converted with another operator library (OPP) "
        "release than the one installed where it is loaded",
        causes=("the .om built on a machine or image with another CANN than this one",),
        fix="convert the model again with this CANN (atc ... --soc_version=<chip>), or load it "
        "where the CANN it was built with is installed",
        confirm="cann.toolkit",
        sources=(
            Source(
                "hicann/ge docs/zh/user_guides/atc_tools/FAQ/operator_library_version_error.md"
                "@ffdcbc9f7496c17a98c1d12762c61ed608ef3503",
                "official",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="cann-not-sourced",
        mode="cann-env",
        component="cann",
        # a CANN library the loader cannot open: the shared-library family (libraries.py)
        patterns=(
            r"Please check that the (?:cann|runtime|compiler) package is installed",
            # vllm-ascend's PyHCCL (HCCL_SO_PATH, or libhccl.so from the loader's path)
            r"Failed to load HCCL library\. so_file=",
            # TorchAir, loading GE's libge_runner.so; msit, running atc
            r"Please make sure that CANN is installed correctly and that the CANN environment",
            r"atc run failed! Make sure that you have correctly activate CANN",
        ),
        codes=(),
        meaning="a CANN library cannot be loaded: the CANN environment was not sourced in this "
        "shell (LD_LIBRARY_PATH lacks the toolkit's lib64) or the package is not installed",
        causes=(
            "set_env.sh not sourced in this shell, container or service unit",
            "CANN toolkit (or the part that ships the library) not installed",
            "a CANN installed for another architecture or removed since",
            "a CANN older than the framework was built for, without that library (MindSpore "
            "2.0 needs libcann_kb.so, which CANN 5.0 lacks)",
        ),
        fix=SET_ENV + "; then `ampenv doctor --only cann.toolkit`",
        confirm="cann.toolkit",
        sources=(
            Source(
                "mindspore-lab/mindocr docs/cn/tutorials/frequently_asked_questions.md"
                "@16892a0acadc5a45033457e86df92e8f4443882c (liboptiling.so)",
                "report",
            ),
            Source(TORCH_NPU_LOADER + " (libhccl.so / libascendcl.so messages)", "official"),
            Source("https://github.com/BytePioneer-AI/PaddleOCR-NPU/issues/7", "report"),
            Source("https://github.com/mindspore-ai/mindspore/issues/236 (libcann_kb)", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/262", "report"),
            Source(
                "shared/reference/ascend-facts.md §3 (torch_npu import without set_env.sh)",
                "official",
            ),
            Source(
                "vllm-project/vllm-ascend vllm_ascend/distributed/device_communicators/"
                "pyhccl_wrapper.py@182b75ea84ff13ece27b57391331ef8935410aea (HCCL_SO_PATH)",
                "official",
            ),
            Source(
                "Ascend/torchair python/torchair/_utils/error_messages.py"
                "@fced8842d149f16b587c2c867d427e4b766831ca (SO_LOAD_FAILED)",
                "official",
            ),
            Source(
                "Ascend/msit msit/components/profile/msit_prof/analyze/autofuse/"
                "single_op_analyze.py@6e3e88732929d17f0b22344ade92a245bb601d43",
                "official",
            ),
        ),
        hints=("cannot", "is installed", "fail"),
    ),
    Failure(
        id="vllm-device-type-unknown",
        mode="cann-env",
        component="vllm",
        patterns=(r"Failed to infer device type",),
        codes=(),
        meaning="vLLM found no platform: its Ascend plugin (vllm-ascend) did not load, most "
        "often because importing torch_npu failed earlier (CANN not sourced: libhccl.so or "
        "libascendcl.so cannot be opened)",
        causes=(
            "CANN environment not sourced, so import torch_npu fails",
            "vllm-ascend not installed, or not the release paired with vllm",
            "torch_npu not paired with torch",
        ),
        fix='python -c "import torch_npu" names the import failure (for a missing libhccl.so: '
        + SET_ENV
        + "); then `pip show vllm vllm-ascend` for the pairing; VLLM_LOGGING_LEVEL=DEBUG shows "
        "why the plugin did not load",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/262", "maintainer"),
            Source("vllm-project/vllm DeviceConfig (Failed to infer device type)", "official"),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="cann-env-unset",
        mode="cann-env",
        component="cann",
        patterns=(
            r"Please run 'source set_env\.sh' in the CANN installation path",
            r"Could not find ASCEND_HOME_PATH in env",
            r"ASCEND_OPP_PATH environment variable is not set",
            r"ASCEND_HOME_PATH environment variable is not set",
            # Triton-Ascend's backend ("..., source <toolkit>/set_env.sh first"), memfabric_hybrid
            # (the line's end), PyPTO ("... or empty."); not where a component goes on without
            # it, which says so on the line (HCCL's, HIXL's, TSD's, CMake's "... is not set, use
            # default: /usr/local/Ascend/cann", msprof's "..., cann version info will be missing")
            # (the line's end: a JSON record's or a repr's too); MindFormers' run_check
            r"\bASCEND_HOME_PATH is not set(?:, source\b| or empty\b|\.?(?=\s*$|\\n|[\"'}\]]))",
            r"ASCEND_HOME_PATH\" is not set, please check whether the CANN Toolkit is installed",
            # an environment check's own ("ERROR: ASCEND_HOME_PATH not set": hicann/skills'
            # ascendc-env-check)
            r"\bERROR:\s{1,4}ASCEND_HOME_PATH not set\b",
        ),
        codes=("148049",),
        meaning="the program (torch_npu, Triton-Ascend, MindFormers' check, ...) found no CANN "
        "environment variables, or they name paths that do not "
        "exist (the CANN package behind them is missing)",
        causes=(
            "set_env.sh not sourced",
            "the opp, runtime or compiler package of CANN not installed where the variables point",
        ),
        fix=SET_ENV + "; if the path still does not exist, reinstall the CANN toolkit",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/utils/collect_hccl_info.py"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(
                "Ascend/pytorch torch_npu/_inductor/cpp_builder.py"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(REGISTRY + " (_cann_package_check)", "official"),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (148049)",
                "official",
            ),
            Source("Ascend/pytorch torch_npu/__init__.py (ASCEND_*_PATH at import)", "official"),
            Source("https://gitee.com/mindspore/mindformers/pulls/4773 (run_check)", "official"),
            Source(
                "triton-lang/triton-ascend third_party/ascend/backend/utils.py"
                "@a84b1eb52b6215e2c171632f2df0892f1003cfc8 (_get_ascend_path)",
                "official",
            ),
            Source(
                "Ascend/memfabric_hybrid src/hybm/csrc/hybm_entry.cpp"
                "@7171ad35d67df61bcdd3f016fb43f71790ebb6f8",
                "official",
            ),
        ),
        hints=("not set", "set_env"),
    ),
    Failure(
        id="ascend-env-value-refused",
        mode="cann-env",
        component="cann",
        # CANN's messages for a variable's value (EC0012, EF0003, E13024, EE2002, EG0002, ...),
        # read without their code too: a title or a page quotes the message alone
        patterns=(
            # any variable CANN reads (VIRTUAL_TYPE too), but the loader's and Python's search
            # paths, whose refusals name a library or a Python and have entries of their own
            r"\bValue \[?[^\]\n]{0,200}?\]? for environment variable "
            r"\[?(?!(?:LD_LIBRARY_|PYTHON)?PATH\b)[A-Z][A-Z0-9_]{1,60}\]? is invalid",
            rf"\benvironment variable argument is invalid\.[^\n]{{0,200}}?for environment "
            rf"variable \[?{ASCEND_VARIABLE}",
            r"for environment variable \[?ASCEND_DEVICE_ID\]? must be within \[0 ~ \(N-1\)\]\.? "
            r"N is the total number of devices",
            # HCCL's own check on Ascend 950 ('Env config "HCCL_ENTRY_LOG_ENABLE" value "-1" ...')
            r'\bEnv config "[A-Z][A-Z0-9_]{1,60}" value "[^"\n]{0,200}" is invalid',
        ),
        codes=(),
        meaning="CANN refused the value of an environment variable it reads (the message names "
        "the variable, and after 'must be' or 'Reason:' the form it wants): empty, a path that "
        "does not exist, or a number out of range",
        causes=(
            "a value left from another node, container or CANN install (a device id past the "
            "devices this process sees, the path of a removed CANN)",
            "set_env.sh not sourced, so a path variable (ASCEND_OPP_PATH) is empty",
            "a typo, or a value outside the range the message gives",
            "a value this scenario does not allow (the Reason says which: VIRTUAL_TYPE=1, L1 "
            "fusion, on a virtual NPU instance)",
        ),
        fix="give the variable the form the message asks for, or unset it: ASCEND_DEVICE_ID one "
        "of 0..N-1 of the devices this process sees (`npu-smi info -l`; in a container, counted "
        "over those passed in); a path variable: " + SET_ENV + "; `ampenv doctor --only "
        "env.npu` reads the Ascend variables",
        confirm="env.npu",
        sources=(
            Source(ERROR_CODE_PAGES.format("0174 (EC0012: ASCEND_DEVICE_ID=99)"), "official"),
            Source(ERROR_CODE_PAGES.format("0188 (EF0003: ASCEND_OPP_PATH)"), "official"),
            Source(ERROR_CODE_PAGES.format("0224 (EG0002: ASCEND_DEVICE_ID=9999)"), "official"),
            Source(
                "hicann/ge docs/zh/user_guides/error_codes/E13024-Config_Error_Invalid_Environment"
                "_Variable.md@ffdcbc9f7496c17a98c1d12762c61ed608ef3503 (VIRTUAL_TYPE)",
                "official",
            ),
            Source(
                "hicann/hcomm docs/zh/error_codes/EI0001-Config_Error_Invalid_Environment_Variable"
                ".md@1e49789c4f380ba03eb4fd4d2372fa8f87a47b14 (HCCL's variables; its log line on "
                "Ascend 950)",
                "official",
            ),
        ),
        hints=("is invalid",),
        judge=in_error_record,  # (W40010's profiler warns so of ASCEND_ADK_PATH and goes on)
    ),
    Failure(
        id="set-env-nounset",
        mode="cann-env",
        component="cann",
        # bash's own words for `set -u` meeting a variable the script appends to unset
        patterns=(r"set_env\.sh: line \d{1,6}: [A-Za-z_]\w{0,80}: unbound variable",),
        codes=(),
        meaning="a CANN (or NNAL, ATB) set_env.sh was sourced in a shell with `set -u` "
        "(nounset): it appends to variables that may be unset (CMAKE_PREFIX_PATH, "
        "LD_LIBRARY_PATH, PYTHONPATH, ...), so bash stops it part-way and the environment is "
        "left half set",
        causes=(
            "an entrypoint or job script run with `set -euo pipefail` that sources set_env.sh",
            "the variable the message names not set before (a fresh container, a service unit)",
        ),
        fix="source it with nounset off: `set +u; source /usr/local/Ascend/cann/set_env.sh; "
        "set -u` (or give the variable the message names a value first, e.g. `export "
        "CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-}`)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/9065 (review: set +u around "
                "sourcing set_env.sh)",
                "report",
            ),
            Source(
                "index id 55812040664 (vLLM-Ascend deployment notes: CANN 8.5's set_env.sh "
                "under set -u)",
                "report",
            ),
        ),
        hints=("set_env",),
    ),
    Failure(
        id="cann-tool-not-on-path",
        mode="cann-env",
        component="cann",
        # the shell's "bash: bisheng: command not found", or a build script's own words
        patterns=(
            r"\b(?:bisheng|ccec|atc|msprof|msopgen|msopst|msobjdump|aoe)(?:: line \d{1,6})?:? "
            r"command not found",
        ),
        codes=(),
        meaning="a tool of the CANN toolkit (the bisheng / ccec compilers, atc, msprof, ...) is "
        "not on PATH: set_env.sh adds the toolkit's bin folders to it, so it was not sourced "
        "in this shell, or the toolkit is not installed",
        causes=(
            "set_env.sh not sourced in the shell (or the build's subshell) that runs the tool",
            "the CANN toolkit not installed on this machine or container",
        ),
        fix=SET_ENV + " in the shell that builds or runs, then check `which bisheng` (or the "
        "tool named); if there is no set_env.sh, install the CANN toolkit",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/op-plugin examples/cpp_extension/README.md"
                "@517f2e7d0f202f38b76310706cb977ca2388ad21 (FAQ 1: bisheng command not found)",
                "official",
            ),
        ),
        hints=("error",),  # the message is read whole: "command not found" is its key
    ),
    Failure(
        id="opp-path-invalid",
        mode="cann-env",
        component="fe",
        # FE's E20002 (and the same check elsewhere): the variable is set, to a folder that is
        # not there or that this user cannot read; ATC's "[ASCEND_OPP_PATH] is invalid when
        # loading the tiling lib"
        patterns=(r"(?:for environment variable |\[)ASCEND_OPP_PATH\]? is invalid",),
        codes=(),
        meaning="ASCEND_OPP_PATH points at an operator package (OPP) folder that does not exist "
        "or that this user cannot read: CANN's environment is not the installed CANN's",
        causes=(
            "the set_env.sh of another or a removed CANN sourced (an image or a profile left "
            "from an earlier install)",
            "the opp folder not readable by the user that runs the job (installed by root with "
            "a restrictive umask)",
        ),
        fix=SET_ENV + "; then `ls -ld $ASCEND_OPP_PATH` as the user that runs the job: it must "
        "exist and be readable (reinstall the toolkit or ops package, or install it "
        "--install-for-all, where it is not)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "hicann/runtime docs/zh/error_code_ref/FE-Errors/"
                "E20002-Config_Error_Invalid_Environment_Variable.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
            Source(
                f"{KB}, index id 53901291117 (ATC: the path set_env.sh sets not the installed "
                "one's)",
                "official",
            ),
        ),
        hints=("is invalid",),
    ),
    Failure(
        id="nnal-not-sourced",
        mode="cann-env",
        component="nnal",
        patterns=(  # an NNAL/ATB library the loader cannot open: the shared-library family
            # MindIE's model runner, from the ATB models package (its own set_env.sh)
            r"No module named '?atb_llm\b",
            # MindSpeed's ATB op builder, where ATB_HOME_PATH (set by NNAL's set_env.sh) is unset
            r"Error: please install cann-nnal package first",
            # MindIE's daemon, whose libraries (ATB's, torch's) the four set_env.sh put on the path
            r"mindieservice_daemon: error while loading shared libraries: lib(?:torch|c10|atb|"
            r"asdops|mindie)",
        ),
        codes=(),
        meaning="an NNAL/ATB library (or MindIE's atb_llm, from the ATB models package) cannot "
        "be loaded: it is not installed or its environment was not sourced (each has its own "
        "set_env.sh)",
        causes=(
            "source /usr/local/Ascend/nnal/atb/set_env.sh missing from the environment",
            "NNAL not installed (toolkit, then kernels, then NNAL)",
            "for atb_llm: /usr/local/Ascend/atb-models/set_env.sh not sourced in the shell that "
            "starts MindIE, or its wheel not installed in that Python",
        ),
        fix="source /usr/local/Ascend/nnal/atb/set_env.sh (install NNAL matching the CANN version "
        "if the directory is missing); for MindIE also /usr/local/Ascend/mindie/set_env.sh and "
        "/usr/local/Ascend/atb-models/set_env.sh",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/152", "report"),
            Source(
                "https://www.hiascend.com/forum/thread-0261156244902044319-1-1.html (atb_llm)",
                "report",
            ),
            Source("index id 54592250255 (MindIE's daemon: libtorch_cpu.so)", "report"),
            Source(
                "Ascend/MindSpeed mindspeed/op_builder/atb_builder.py"
                "@028de58ca629d035185b00ff7d1eb7eff4f7fd48 (ATB_HOME_PATH)",
                "official",
            ),
        ),
        hints=("cannot", "no module named", "error"),
    ),
    Failure(
        id="cann-python-missing",
        mode="cann-env",
        component="cann",
        # CANN's own packages (tbe, te, ...): the python-module family (installs.py); pyACL,
        # installed apart from them, here
        patterns=(r"No module named '?acl(?:\.[\w.]{1,80})?'",),
        codes=(),
        meaning="CANN's Python packages (pyACL's acl, the op compiler's tbe and te) are not "
        "importable: the CANN environment adds them to PYTHONPATH, so it was not sourced for this "
        "interpreter",
        causes=(
            "set_env.sh not sourced (PYTHONPATH lacks <toolkit>/python/site-packages)",
            "a process the job spawned (multiprocessing's spawn, a serving engine's workers) "
            "without the path the parent added to sys.path in code, not to PYTHONPATH",
            "a different Python than the one CANN's packages were installed for: CANN 5.x and "
            "older install te and topi as wheels into one Python (MindSpore's FAQ)",
        ),
        fix=SET_ENV + " in the same shell that starts python; CANN 5.x and older: pip install "
        "the te and topi wheels of <toolkit>/fwkacllib/lib64 into this Python",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/MindSpeed-MM docs/zh/troubleshooting.md"
                "@57069cd55a8ab16d5affe379a2e2c5f0a4d962b9 (No module named 'acl')",
                "official",
            ),
            Source("https://github.com/Ascend/pytorch/issues/29", "report"),
            Source("a vllm-ascend bug record, the public file index's id 66423434032", "report"),
            Source(
                "mindspore-ai/docs r1.5 docs/mindspore/faq/source_en/installation.md (No module "
                "named 'te': the te wheel)",
                "official",
            ),
        ),
        hints=("no module named",),
    ),
    Failure(
        id="init-env-failed",
        mode="cann-env",
        component="cann",
        patterns=(r"init env failed", r"build op model failed, result = 500001"),
        codes=(),
        meaning="CANN could not start its op compiler: most often Python dependencies are "
        "missing; a traceback printed before it names another cause",
        causes=(
            "a module CANN's te/tbe packages require (decorator, attrs, psutil, scipy, "
            "cloudpickle, tornado, ml-dtypes, absl-py, sympy, ...) not installed in the Python "
            "that runs the job (a new venv or conda env, an image built without them)",
        ),
        fix="pip install numpy decorator sympy cffi protobuf attrs pyyaml pathlib2 scipy "
        "requests psutil absl-py cloudpickle tornado ml-dtypes, in the Python that runs the job",
        confirm="python.stack",
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/7", "maintainer"),
            Source("https://github.com/Ascend/pytorch/issues/7 (EH9999 init env failed)", "report"),
            Source(
                "CANN 8.1.RC1 python/site-packages/*.dist-info/METADATA (Requires-Dist of te, "
                "opc_tool, schedule_search), github.com/leideng/CANN-8.1.RC1"
                "@551ed27c29284929bbdc2239e929ddfedfdf0b8b",
                "official",
            ),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="compile-option-init-failed",
        mode="cann-env",
        component="torch_npu",
        patterns=(
            r"AclSetCompileopt\((?:aclCompileOpt::)?ACL_PRECISION_MODE[^\n]{0,80}error code "
            r"(?:is )?500001",
            # the same failure in an issue's title, the call's arguments left out
            r"NPU function error: at_npu::native::AclSetCompileopt(?!\()",
        ),
        codes=(),
        meaning="torch_npu's first call that needs CANN's operator compiler (setting the precision "
        "mode at init) failed: the compiler's Python side did not start",
        causes=(
            "numpy 2.x with a CANN release that supports numpy 1 only (vllm-ascend#472)",
            "CANN's Python dependencies missing (decorator, sympy, cffi, ...; Ascend/pytorch#7)",
            "CANN without the platform file of this chip (an EH9999 / SocVersion line next to it)",
            "a CANN older than the torch_npu installed (an image whose CANN is not the one its "
            "torch_npu was built for)",
            "a TMPDIR too long for a Unix socket's path (107 bytes), through which the "
            "compiler's processes meet (a 910B port's notes: GEInitialize failed next to it)",
        ),
        fix='python -c "import numpy; print(numpy.__version__)": pip install "numpy<2" where this '
        "CANN predates numpy 2; pip install decorator sympy cffi protobuf attrs pyyaml pathlib2 "
        "scipy requests psutil absl-py; then the E-code in the plog names what is left; if it "
        "stays, install the CANN the torch_npu release is paired with; a long TMPDIR: "
        "export TMPDIR=/tmp",
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/pull/472 (numpy<2)", "maintainer"),
            Source("https://github.com/Ascend/pytorch/issues/7", "maintainer"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/2244 (an image's CANN not the "
                "manual's)",
                "report",
            ),
            Source("index id 71588181900 (HeatmapVLN on a 910B: a long TMPDIR)", "report"),
        ),
        hints=("error",),
        rank=CLASS,
    ),
    Failure(
        id="cann-package-path-missing",
        mode="cann-env",
        component="torch_npu",
        patterns=(
            r"ASCEND_(?:RUNTIME|COMPILER|OPP|AICPU|TOOLKIT)_PATH : \S{1,300} does not exist",
        ),
        codes=(),
        meaning="torch_npu found ASCEND_HOME_PATH but not the CANN package below it that it "
        "needs at import (runtime, compiler, opp): that package is not installed there, or the "
        "environment points at another CANN than the one installed",
        causes=(
            "the set_env.sh of another (removed or partial) CANN was sourced",
            "the CANN toolkit is installed without that package",
        ),
        fix="source the set_env.sh of the CANN that is installed "
        "(/usr/local/Ascend/ascend-toolkit/set_env.sh; CANN >= 8.5: /usr/local/Ascend/cann/"
        "set_env.sh), or install the missing package; then `ampenv doctor --only cann.toolkit`",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/pytorch torch_npu import-time path checks (ASCEND_RUNTIME_PATH message "
                "literal)",
                "official",
            ),
        ),
        hints=("exception",),
    ),
    Failure(
        id="static-tls-exhausted",
        mode="cann-env",
        component="loader",
        # (glibc's older words: "cannot load any more object with static TLS")
        patterns=(
            r"\.so[\w.]{0,20}: ?cannot (?:allocate memory in static TLS block|load any more "
            r"object with static TLS)",
        ),
        codes=(),
        meaning="a library loaded after start-up (libgomp from scikit-learn, torch or a conda "
        "env, most often on aarch64 Ascend hosts) needs static thread-local storage the process "
        "has no more of",
        causes=(
            "the library is opened late (dlopen by an import) after torch_npu and CANN filled "
            "the static TLS",
        ),
        fix="load it first: export LD_PRELOAD=<the .so path the message names> (e.g. "
        ".../site-packages/scikit_learn.libs/libgomp-*.so.1.0.0, or /usr/lib/aarch64-linux-"
        "gnu/libgomp.so.1), then start the job again",
        confirm=None,
        sources=(
            Source(
                "wangshuai09/Notebook QA/Error.md@1dde65b641956f59535106ab12f2e63d8ccfde94"
                " (libgomp of scikit-learn, LD_PRELOAD)",
                "report",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="acl-stub-library",
        mode="cann-env",
        component="acl",
        patterns=(
            r"stub library cannot be used for execution",
            # torch_npu's words for ACL's 100039 (NPUErrorCodes.h)
            r"library path configured before running the application is the path of the "
            r"compilation stub",
        ),
        codes=(),
        meaning="the program loaded CANN's stub libascendcl.so (made for linking only, in the "
        "toolkit's lib64/stub) instead of the runtime library",
        causes=(
            "the CANN environment not sourced, so the loader finds the stub first",
            "an RPATH or LD_LIBRARY_PATH entry pointing at the stub directory",
        ),
        fix="source /usr/local/Ascend/ascend-toolkit/set_env.sh (CANN >= 8.5: "
        "/usr/local/Ascend/cann/set_env.sh) and rebuild; `readelf -d <program> | grep -i path` "
        "shows an RPATH to .../stub: drop it (CMake: set(CMAKE_SKIP_RPATH TRUE)) and take stub "
        "out of LD_LIBRARY_PATH",
        confirm="cann.toolkit",
        sources=(
            Source("https://www.hiascend.com/forum/thread-0201179571420801181-1-1.html", "report"),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (100039)",
                "official",
            ),
        ),
        hints=("error",),
    ),
)
