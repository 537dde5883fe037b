"""Operator compile, its caches, and dtypes the chip lacks."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, FACTS, SPECIFIC, Failure, Source

CLEAR_CACHES = "clear the stale caches: `ampenv clean --yes` (`ampenv doctor --fix` does the same)"

FAILURES = (
    Failure(
        id="ascendc-kernel-build-failed",
        mode="compile-cache",
        component="bisheng",
        patterns=(
            # vllm-ascend's setup compiling its kernels (COMPILE_CUSTOM_KERNELS=1)
            r"Function AscendcCompiler at line \d{1,6}, Command excution failed",
            # a compiler older than the project (tilelang-ascend's --npu-arch, -xasc) ...
            r"bisheng: error: unsupported option '--npu-arch",
            # ... or newer, with rules the project's kernels do not meet yet (CANN 9.2)
            r"error: simd_vf function '\w{1,200}' must be a free function",
        ),
        codes=(),
        meaning="a project's own Ascend C kernels did not compile: the CANN it builds with (its "
        "bisheng / Ascend C compiler) is another release than the one the kernels are written "
        "for",
        causes=(
            "a CANN older or newer than the project's release supports (vllm-ascend's kernels "
            "and CANN 8.2's renamed symbols, tilelang-ascend and a bisheng without --npu-arch, "
            "flash-attention-npu and CANN 9.2's simd_vf rule)",
        ),
        fix="build with the CANN release the project's install guide pins (source its "
        "set_env.sh before the build), or take the project release adapted to this CANN; "
        "clear the project's kernel cache after changing either",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/804", "report"),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/73", "report"),
            Source("https://github.com/MinghuasLab/flash-attention-npu/issues/171", "report"),
        ),
        hints=("error", "fail"),
    ),
    Failure(
        id="compile-in-daemon-process",
        mode="compile-cache",
        component="tbe",
        # Python's multiprocessing refusing a daemonic process children: the operator
        # compiler's workers (te_fusion's parallel_compilation) started from a pool worker
        patterns=(r"AssertionError: daemonic processes are not allowed to have children",),
        codes=(),
        meaning="a daemonic process (a multiprocessing pool's, a DataLoader's or a launcher's "
        "worker) tried to start child processes, which Python refuses",
        causes=(
            "NPU work in a daemonic worker: CANN's operator compiler starts its parallel compile "
            "workers at the first compile (te_fusion's parallel_compilation in the traceback, "
            "EH9999 'init env failed' after it; DeepSpeed's MoE worker)",
            "the program's own multiprocessing.Pool opened inside a DataLoader or Pool worker",
        ),
        fix="start the NPU work (or the pool) in the main process or in a "
        "multiprocessing.Process(daemon=False), not inside a daemonic worker; as a last resort "
        "the note that met it marked the worker non-daemonic before compiling "
        "(multiprocessing.current_process().daemon = False: its children outlive a killed "
        "parent)",
        confirm=None,
        sources=(
            Source(
                "wangshuai09/Notebook DeepSpeed/特性适配/moe特性适配.md"
                "@f56ca213eae0e8107ec7b817548181f714951e73",
                "report",
            ),
            Source("cpython Lib/multiprocessing/process.py (BaseProcess.start)", "official"),
        ),
        hints=("error",),
    ),
    Failure(
        id="numpy2-incompatible",
        mode="cann-env",
        component="compiler",
        # NumPy 2.0 removed np.float_, np.int_ and kin; CANN's te/tbe (and other packages)
        # written for 1.x fail on import, so operator compilation or generation fails
        patterns=(
            r"Error\b[^\n]{0,120}was removed in the NumPy 2\.0 release",
            # NumPy 2's own warning as it loads an extension built against 1.x (torch 2.1's)
            r"NumPy 1\.x cannot be run in",
            # an alias NumPy 2.0 removed (float_, ...), or np.long, which 1.24 removed and 2.0
            # brought back: a package built for NumPy 2 under the 1.26 CANN needs (np.float, np.int
            # and kin went in 1.24 for good: the caller's own code, which "numpy<2" does not mend)
            r"module 'numpy' has no attribute '(?:long|float_|complex_|unicode_|bool8|object0|"
            r"str0)'",
            # an extension (pandas, scikit-learn) built against another NumPy's C layout
            r"Error: numpy\.dtype size changed, may indicate binary incompatibility",
        ),
        codes=(),
        meaning="a package written for another NumPy than the one installed imports: one "
        "written or built for NumPy 1.x (CANN's operator compiler, te/tbe, above all; an "
        "extension built against 1.x, such as torch 2.1's) under NumPy 2, "
        "which removed np.float_ and kin, or one built for NumPy 2 (a new scipy) under the 1.26 "
        "that CANN needs",
        causes=(
            "NumPy 2 installed next to a CANN (or another package) not adapted to it",
            "a package pulled in at a release that wants NumPy 2 (scipy 1.14 and later) while "
            "NumPy is held at 1.26 for CANN",
        ),
        fix='pip install "numpy<2" (1.26) in the Python that runs CANN\'s compiler, with the '
        "packages at releases built for it (scipy==1.13.1); `pip check` lists what disagrees",
        confirm=None,
        sources=(
            Source(
                "Ascend/IndexSDK docs/zh/faq.md@1f2697ff803247c373f42ef866e339496017631c "
                "(np.float_ was removed: pip3 install numpy==1.26)",
                "official",
            ),
            Source(
                "https://github.com/lincenying/ai-fae/blob/43bc9da1a3d79dfa75aca409524a63a3c7f4b78f/"
                "CANN安装.md (a torch 2.1 and CANN 8.0 container under NumPy 2: numpy==1.26.4)",
                "report",
            ),
            Source(
                "oplab notes of GLM single-layer benches on an A3, section 00.7 (numpy.long in "
                "CANN's tbe init; the public file index's id 63123340729)",
                "report",
            ),
            Source(
                "Ascend/ModelZoo-PyTorch ACL_PyTorch/built-in/embodied_ai/vla/pi05/"
                "infer_with_torchair/README.md@415a03cb168fa14c33bb83de92ef99d56b48da02 (FAQ 2; "
                "the mirror xiaobingling93-pixel/Ascend-ModelZoo-PyTorch)",
                "official",
            ),
        ),
        hints=("error", "no attribute"),
    ),
    Failure(
        id="dtype-bf16-unsupported",
        mode="dtype",
        component="aicore",
        patterns=(
            r"not implemented for DT_B?FLOAT16\b",
            r"bfloat16 of tbe\.[\w.]{1,80} is not supported",
            r"dtype or format is not supported, get io input info is[^\n]{0,300}\bDT_BFLOAT16\b",
        ),
        codes=("EZ1001",),
        narrower=True,  # EZ1001: any parameter an aclnn API rejects
        meaning="a low-precision dtype the operator lacks on this chip: bfloat16 on a chip "
        "without it (the 910A family and 310P compute float16 only), or float16 where an "
        "operator takes bfloat16 only (the message lists the dtypes it supports)",
        causes=(
            "amp dtype or model dtype bfloat16 on 910A / 310P",
            "float16 given to an operator whose support list has DT_BFLOAT16 but not DT_FLOAT16 "
            "(vllm-ascend#12907: a quantized matmul's scale with --dtype float16)",
            "on a chip with bfloat16 (910B, 910_93): a CANN whose kernel of that operator lacks it "
            "yet (msmodelslim's Docker notes: a CANN older than 8.3.RC1)",
        ),
        fix="use the other low-precision dtype: on 910A / 310P float16 (torch_dtype="
        "torch.float16 / --fp16 instead of --bf16; ampenv picks float16 on 910A); where the "
        "message's support list has DT_BFLOAT16 and not DT_FLOAT16, bfloat16 (vLLM --dtype "
        "bfloat16); on a 910B, a newer CANN, whose kernel has it",
        confirm="npu.devices",
        sources=(
            Source("https://github.com/hiyouga/LlamaFactory/issues/4165", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/9294", "maintainer"),
            Source("https://github.com/shirwy/vllm-ascend-910a/issues/4", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/12907", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/6490 (310P)", "report"),
            Source(FACTS + " §5 (dtype support per chip)", "official"),
            Source("index id 52688072377 (msmodelslim's Docker notes: CANN 8.3.RC1)", "report"),
        ),
        hints=("not implemented", "not support"),
    ),
    Failure(
        id="dtype-not-implemented",
        mode="dtype",
        component="aicore",
        patterns=(
            # an empty support list is a missing kernels package, not a dtype (kernels-missing)
            r"not implemented for DT_(?!B?FLOAT16\b)[A-Z0-9_]{2,16}\b"
            r"(?![^\n]{0,60}support list \[\])",
            r"\bdata type DT_[A-Z0-9_]{2,16} of (?:input|output) \[[^\]\n]{0,80}\] is not "
            r"supported",
            # GE's engine assignment: no kernel store takes the op's dtype (or format, or shape)
            r"The dtype, format or shape of input in op desc is not supported in op store",
            # ... and its check of the op's information: no kernel for this format and dtype
            r"Optype \[\w{1,80}\] of Ops kernel \[AIcoreEngine\] is unsupported\. Reason:"
            r"[^\n]{0,400}The format and dtype is not precisely equivalent",
        ),
        codes=("EZ1001",),
        narrower=True,  # EZ1001: any parameter an aclnn API rejects
        meaning="the operator has no kernel for this dtype on the NPU (the line names the "
        "dtype and, for aclnn, the dtypes it does support): float64 above all, which most NPU "
        "operators lack, and integer or uint8 inputs where a float is expected",
        causes=(
            "a float64 tensor reached the NPU (numpy arrays and Python floats default to float64: "
            "RoPE tables, masks, losses built with torch.from_numpy)",
            "an exported model (ONNX -> ATC) that feeds int64 or uint8 where the kernel takes "
            "int32 or float",
        ),
        fix="cast to a dtype the line lists as supported before the operator: float32 for "
        "float64 (`tensor.float()`, or build the tensor as float32), int32 for int64 shape "
        "inputs; for ATC, cast in the source model (or insert a Cast) and convert again",
        confirm=None,
        sources=(
            Source("https://github.com/huggingface/diffusers/pull/10820 (DT_DOUBLE)", "report"),
            Source("https://github.com/sgl-project/sglang/pull/29011 (DT_DOUBLE)", "report"),
            Source(
                "https://www.hiascend.com/forum/thread-0233159505098220108-1-1.html (ATC int64)",
                "report",
            ),
            Source(
                "https://www.hiascend.com/forum/thread-0267158492165572005-1-1.html (ATC uint8)",
                "report",
            ),
        ),
        hints=("not implemented", "not support"),
    ),
    Failure(
        id="fp32-matmul-keep-type",
        mode="dtype",
        component="aclnn",
        patterns=(r"dtype DT_FLOAT\b[^\n]{0,80}not support under keep type mode",),
        codes=(),
        meaning="a float32 matmul was asked to keep float32, which this chip's cube unit does "
        "not compute (the 310-class chips multiply in float16)",
        causes=("float32 model on a 310 / 310P with precision reduction disabled",),
        fix="run the model in float16, or allow the matmul to reduce precision (torch_npu: "
        "torch.npu.matmul.allow_hf32 = True; aclnn cubeMathType ALLOW_FP32_DOWN_PRECISION)",
        confirm="npu.devices",
        sources=(Source("https://github.com/PaddlePaddle/Paddle/issues/70866", "report"),),
        hints=("not support",),
    ),
    Failure(
        id="op-compile-failed",
        mode="compile-cache",
        component="tbe",
        patterns=(
            r"\bCompile operator failed\b",
            r"Failed to compile (?:Op|node) \[",
            # a newer wording (E40021): "Failed to compile Op X. oppath is ... and optype is"
            r"Failed to compile Op \S{1,200}\. oppath is",
            r"\bCompile op\[[^\]\n]{1,200}\] failed",
            # torch_npu's aclop path (compile and execute): GE's failure there is the compile;
            # PaddleCustomDevice's npu_op_runner the same
            r"OPS function error: \w{1,80}, error code is 500002\b",
            # another framework's call of the same online compile (ONNX Runtime's CANN EP:
            # "CANN failure 500001: ACL_ERROR_FAILURE ; ... expr=aclopCompileAndExecute(")
            r"\bfailure 50000[0-2]\b[^\n]{0,400}\baclopCompileAndExecute\b",
            r"ACL error, the error code is ?: ?500002\.[^\n]{0,200}npu_op_runner",
        ),
        codes=("E90003",),
        meaning="an operator failed to compile; after a CANN upgrade a compile cache built by "
        "the previous CANN is the likely cause, else the message after it (an unsupported "
        "dtype, a template constraint) is",
        causes=(
            "a compile cache built by another CANN version (inference)",
            "an input the operator does not support (see a dtype finding next to it; float64 "
            "above all)",
            "online (JIT) compilation of an operator whose prebuilt binary would run: the "
            "framework's switch to the binaries is the workaround (torch_npu: "
            "torch_npu.npu.set_compile_mode(jit_compile=False); PaddleCustomDevice: "
            "FLAGS_npu_jit_compile=false)",
            "the reverse: a binary (dynamic-shape) build the operator does not support ('not "
            "support input size's shape [-1]'), which compiles for static shapes with "
            "jit_compile=True (Ascend/pytorch#52)",
            "the compiler's temporary directory unusable: a relative TMPDIR ('dir path is "
            "invalid', EB0500; GPT-SoVITS's port notes: an absolute TMPDIR)",
        ),
        fix=CLEAR_CACHES + "; if it stays, switch the compile mode: the prebuilt kernels "
        "instead of compiling online (torch_npu.npu.set_compile_mode(jit_compile=False), "
        "PaddleCustomDevice's FLAGS_npu_jit_compile=false), or jit_compile=True where the "
        "message refuses a dynamic shape ([-1], [-2]); cast a float64 input to float32; "
        '"dir path is invalid": an absolute TMPDIR',
        confirm="cache.stale",
        sources=(
            Source(FACTS + " §6 (inference: cache dirs built by another CANN go stale)", "report"),
            Source(
                "hicann/runtime docs/zh/error_code_ref (E40021: Failed to compile Op)"
                "@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
            Source(
                "https://github.com/PaddlePaddle/PaddleCustomDevice/issues/1214 (maintainer: "
                "FLAGS_npu_jit_compile=false)",
                "maintainer",
            ),
            Source(
                "Ascend/msmodelslim docs/zh/support/faq.md (InplaceIndexAdd: jit_compile=False)",
                "official",
            ),
            Source("https://github.com/Ascend/pytorch/issues/52 (jit_compile=True)", "report"),
            Source("index id 48332022139 (GPT-SoVITS on NPUs: a relative TMPDIR)", "report"),
        ),
        hints=("fail", "error"),
        rank=CLASS,
        clears_cache=True,
    ),
    Failure(
        id="single-op-model-not-matched",
        mode="compile-cache",
        component="acl",
        patterns=(
            r"\[Match\]\[OpModel\]failed to match model",
            r"\[Match\]\[OpModel\]MatchOpModel fail from static map or dynamic map",
        ),
        codes=(),
        meaning="no compiled single-operator model matches the operator the program runs: its "
        "model (.om) was not compiled or loaded, or it was compiled for another type, count of "
        "inputs or outputs, format, dtype, attribute or shape range",
        causes=(
            "offline: the operator's .om missing from the folder given to aclSetModelDir",
            "the operator run differs from the one compiled (type, inputs, outputs, format, "
            "dtype, attributes, dim range)",
        ),
        fix="compile the operator again for what the program runs (`atc --singleop=<op.json> "
        "--output=<dir> --soc_version=<chip>`) and put the .om in the folder passed to "
        "aclSetModelDir; else make the call's dtypes, formats and shapes those it was compiled "
        "for",
        confirm=None,
        sources=(
            Source(
                "hicann/docs docs/troubleshooting/zh/single_operator_match_failed.md"
                "@b0042ffb48541b2898f3fccb9f52ea8c733212be",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="fe-op-compile-failed",
        mode="compile-cache",
        component="fe",
        patterns=(r"\bOperator \w{1,120} compilation failed\. Optype is",),
        codes=("E20001",),
        meaning="FE (the fusion engine) could not compile an operator online: its arguments are "
        "invalid or its implementation is at fault (CANN's E20001)",
        causes=(
            "a custom operator's implementation or the arguments it was given",
            "a built-in operator given arguments it does not take, or a fault of this CANN",
            "after a CANN upgrade: a compile cache the previous CANN built",
        ),
        fix="a custom operator: read its compile log in the plog (export "
        "ASCEND_GLOBAL_LOG_LEVEL=0 for all of it) and mend its implementation or arguments; a "
        "built-in one: collect the host logs (`ampenv collect -o node.tar.gz`) and report them "
        "to Ascend; if it began with a CANN upgrade, " + CLEAR_CACHES,
        confirm="cache.stale",
        sources=(
            Source(
                "hicann/runtime docs/zh/error_code_ref/FE-Errors/E20001-Compilation_Error.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="kernel-meta-not-writable",
        mode="compile-cache",
        component="tbe",
        patterns=(
            r"Permission denied: '[^'\n]{0,300}kernel_meta",
            # GE's debug directory, the working directory by default
            r"for \[ge\.debugDir\] is invalid",
            # the runtime's W40011 for its disk (compile) cache
            r"Failed to create disk cache directory",
        ),
        codes=(),
        meaning="the operator compiler could not create its kernel_meta directory: it writes it "
        "under the working directory (or the compile cache path), and that is not writable by "
        "this user (a service started in /, a read-only image, another user's cache)",
        causes=(
            "the process started in a directory it cannot write (a service or notebook "
            "deployment whose working directory is /)",
            "a compile cache directory created by another user (root) and reused",
        ),
        fix="start the job from a directory this user can write (cd $HOME first), or point "
        "the compiler at one: export ASCEND_WORK_PATH=<writable dir> (and ASCEND_CACHE_PATH for "
        "the compile cache); remove a kernel_meta left by another user",
        confirm=None,
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/433", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/2748 (ge.debugDir)", "report"
            ),
            Source(
                "hicann/runtime docs/zh/error_code_ref (W40011: Failed to create disk cache "
                "directory)@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
        ),
        hints=("permission denied", "fail"),
    ),
    Failure(
        id="op-compiler-crash",
        mode="compile-cache",
        component="ccec",
        patterns=(r"Program arguments: \S{0,200}\b(?:ccec|bisheng)\b",),
        codes=(),
        meaning="CANN's kernel compiler (ccec / bisheng, built on LLVM) crashed while compiling "
        "an operator: a compiler bug, not an error in the model or the environment",
        causes=(
            "a compiler bug in this CANN release for that operator, shape or dtype (vllm-omni#890: "
            "stack spill while compiling a Cast, then build op model failed 500002)",
        ),
        fix="try the operator on another CANN release (or the kernels package of the installed "
        "one, so the op is not compiled online); report the crash to Ascend with the ccec "
        "command line and the .cce file the stack dump names",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/vllm-project/vllm-omni/issues/890", "report"),),
        hints=("program arguments",),
        rank=SPECIFIC,
    ),
    Failure(
        id="kernel-compiler-headers-missing",
        mode="compile-cache",
        component="ccec",
        patterns=(
            r"fatal error: '(?:cstdint|cstddef|cstdlib|cstring|climits|cmath|type_traits|limits)' "
            r"file not found",
        ),
        codes=(),
        meaning="CANN's kernel compiler (ccec / bisheng) found no C++ standard headers while "
        "compiling an AscendC operator online: the system's C++ development headers are not "
        "installed (or not on the include path) in this image",
        causes=(
            "a minimal OS image (openEuler, a slim container) without libstdc++'s development "
            "headers",
            "a toolchain install that the compiler's default include path does not reach",
        ),
        fix="install the C++ development headers of the OS (openEuler/CentOS: yum install "
        "gcc-c++; Ubuntu: apt install g++), or point the compiler at them: export "
        "CPLUS_INCLUDE_PATH=<dir with cstdint>; then run the job again",
        confirm=None,
        sources=(Source("https://github.com/Ascend/pytorch/issues/74", "report"),),
        hints=("error",),
    ),
    Failure(
        id="ascendc-kernel-other-soc",
        mode="compile-cache",
        component="ccec",
        patterns=(r"/tikcfw/impl/dav_\w{2,10}/[\w./]{1,120}:\d{1,6}:\d{1,4}: error: ",),
        codes=(),
        meaning="a custom AscendC kernel does not compile for the SoC it is built for: it uses an "
        "instruction or type that chip's AscendC library lacks (the dav_ directory names it: "
        "dav_c100 = 910A, dav_m200 = 310P, dav_c220 = 910B)",
        causes=(
            "the kernels built for another SoC than the node's (a SOC_TYPE / --soc_version set "
            "by hand, or an auto-detection that read another chip)",
            "a kernel revision that does not support this chip (int4 casts on 910A / 310P)",
        ),
        fix="build for the SoC the node has (`npu-smi info` names it; llama.cpp: -DSOC_TYPE="
        "Ascend910B3, or let it detect), or use a revision of the kernels that supports this "
        "chip",
        confirm="npu.devices",
        sources=(
            Source("https://github.com/ggml-org/llama.cpp/issues/10556 (dav_c100)", "report"),
            Source("https://github.com/ggml-org/llama.cpp/issues/12010 (dav_m200)", "report"),
        ),
        hints=("error",),
    ),
    Failure(
        id="op-compile-python-call",
        mode="compile-cache",
        component="tbe",
        patterns=(r"\bE40024\b[^\n]{0,80}Failed call Python Func",),
        codes=("E40024",),
        meaning="the op compiler's Python side failed; in the report the Python error was "
        "PY_SSIZE_T_CLEAN, an interpreter newer than that CANN supports",
        causes=("a Python version the CANN release does not support",),
        fix="run with a Python version the CANN release supports (3.8-3.11 for CANN 8.x), then "
        + CLEAR_CACHES,
        confirm="python.stack",
        sources=(Source("https://github.com/Ascend/pytorch/issues/61", "report"),),
        hints=("fail",),
    ),
    Failure(
        id="wc-db-work-queue",
        mode="compile-cache",
        component="cache",
        patterns=(r"failed to run the wc db work queue",),
        codes=("E155009",),
        meaning="the seed article's signature, cured there by clearing the stale caches; the "
        "wording is Subversion's E155009 (svn could not replay its working-copy work queue, "
        "typically because another program held a file open; there `svn cleanup` is the cure)",
        causes=("a working copy or cache left half-written by an interrupted run",),
        fix=CLEAR_CACHES,
        confirm="cache.stale",
        sources=(
            Source(
                "the seed article (its work-queue line); Subversion SVN_ERR_WC_BAD_ADM_LOG",
                "report",
            ),
            Source("Subversion SVN_ERR_WC_BAD_ADM_LOG (E155009)", "official"),
        ),
        hints=("fail",),
        clears_cache=True,
    ),
    Failure(
        id="triton-ascend-compile-failed",
        mode="compile-cache",
        component="triton-ascend",
        patterns=(
            r"Failed to run BiShengHIR pipeline",
            r"\[ConvertLinalgRToBinary\] encounters error",
            # the figures may stand wrapped onto the next line
            r"\bub overflow, requires \d{1,12} bits\b",
        ),
        codes=(),
        meaning="Triton-Ascend's compiler (BiSheng IR, bishengir-compile) could not lower a "
        "Triton kernel to the NPU: the kernel uses something this compiler release cannot "
        "place or lower",
        causes=(
            "a kernel pattern this triton-ascend / CANN release does not support yet (the "
            "lines after it name the op: memref.alloc, arith.select, ...)",
            "triton-ascend and CANN from releases that do not go together",
        ),
        fix="'ub overflow': the kernel's block needs more on-chip Unified Buffer than the chip "
        "has: a smaller BLOCK_SIZE, a loop over smaller tiles; otherwise install the "
        "triton-ascend release its README pairs with the installed CANN (a newer pair if there "
        "is one), and if it stays, rewrite the kernel around the op the error names, or report "
        "it with the kernel's .mlir file",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/Ascend/triton-ascend/issues/2", "maintainer"),
            Source(
                "Ascend/triton-ascend docs/zh/programming_guide.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (ub overflow: a smaller BLOCK_SIZE)",
                "official",
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="npu-dtype-unsupported",
        mode="dtype",
        component="torch_npu",
        patterns=(r"Unsupport(?:ed)? data type: at::ScalarType::\w{1,30}",),
        codes=(),
        meaning="a tensor of a dtype the NPU operators have no type for (float64, complex "
        "double) reached an NPU operator",
        causes=("a float64 tensor (numpy's default) moved to the NPU as it is",),
        fix="cast it before it goes to the NPU: t.float() (float32) or the dtype the model uses "
        "(label.cpu().float().npu()); tensors made from numpy arrays are float64 unless cast",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/latest/devaids/"
                "migrationtools/atlasfmkt_16_0029.html",
                "official",
            ),
        ),
        hints=("unsupport",),
    ),
    Failure(
        id="inductor-npu-kernel",
        mode="compile-cache",
        component="torchair",
        patterns=(
            r"Kernel load failed for autofused_\w{1,100}",
            r"Failed to build ascend kernel, trigger bug by following command",
        ),
        codes=(),
        meaning="torch.compile's NPU backend (inductor-npu-ext) could not load a fused kernel "
        "from its cache, or could not build the Ascend C kernel it generated",
        causes=(
            "a corrupted or stale kernel in its cache (.npu_kernels_<user> in the run directory)",
            "a CANN the generated kernel does not build with (another CANN than it needs)",
        ),
        fix="delete the cache directory the log names (.npu_kernels_<user>/autofused_...) and "
        "run again; if the build fails, run the command it prints to see the compiler's error "
        "and install the CANN release inductor-npu-ext requires",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/torchair experimental/_inductor_npu_ext/docs/manuals.md"
                "@fced8842d149f16b587c2c867d427e4b766831ca",
                "official",
            ),
        ),
        hints=("fail",),
        clears_cache=True,
    ),
    Failure(
        id="inductor-cache-world-undefined",
        mode="compile-cache",
        component="torch.compile",
        patterns=(r"NameError: name '_world' is not defined",),
        codes=(),
        meaning="torch.compile loaded a graph from Inductor's FX graph or AOTAutograd cache "
        "whose code refers to torch.distributed's _world, which the loaded code does not have",
        causes=("Inductor's FX graph / AOTAutograd caches on an NPU distributed run",),
        fix="turn the caches off before training: export TORCHINDUCTOR_FX_GRAPH_CACHE=0 "
        "TORCHINDUCTOR_AUTOGRAD_CACHE=0 (the first steps then compile again)",
        confirm=None,
        sources=(
            Source(
                "hicann/torchtitan-npu docs/feature_guides/torch_compile.md"
                "@e0aecaf0af1364115ee826631f6a51630f39a9a1",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="compile-main-process-gone",
        mode="compile-cache",
        component="tbe",
        patterns=(
            # (the task's name and the error's brackets left out, as notes quote it)
            r"TBE Subprocess(?:\[\w{1,40}\])? raise error(?:\[[^\]\n]{0,200}\])?, main process "
            r"disappeared",
        ),
        codes=(),
        meaning="the operator compiler's worker processes lost the process that started them: "
        "the main process exited or was killed while operators were compiling",
        causes=(
            "the main process died first: its own error is earlier in the log",
            "the host's OOM killer (MindIE: host memory under ~1.3x the weights per machine)",
            "a driver older than the CANN release needs, or the environment not sourced",
            "the device out of memory while compiling (vllm-ascend's attention mask takes "
            "max_model_len squared elements: a lower --max-model-len)",
            "the main process exiting at the end of a run that finished: then harmless, a "
            "shutdown's side effect (judge the run by its exit status)",
        ),
        fix="find why the main process ended: the first error earlier in the log, and `dmesg -T "
        "| grep -iE 'killed process|out of memory'` for the OOM killer; leave the host memory "
        "the model needs; check driver and CANN: `ampenv doctor --only npu.driver,cann.toolkit`",
        confirm="npu.driver",
        sources=(
            Source(
                "Ascend/MindIE-LLM docs/zh/faq/faq.md@8b4871ad31f592aa863f6255760e4934484d78e4 "
                "(main process disappeared)",
                "official",
            ),
            Source(
                "index id 53139413154 (vllm-ascend's attention mask memory check quoting it)",
                "report",
            ),
            Source("index id 60835429967 (a validation record: a shutdown side effect)", "report"),
        ),
        hints=("error",),
        # every run that compiled prints it at its end too: a cause only beside a failure
        notice=True,
    ),
    Failure(
        id="disk-full",
        mode="compile-cache",
        component="filesystem",
        # on an error's line: a write that failed, Python's errno 28 (not a grep or a quote)
        patterns=(
            r"(?i:errno 28|error|fail|unable to write|cannot write)[^\n]{0,300}"
            r"No space left on device",
        ),
        codes=(),
        meaning="a filesystem the job writes to is full: CANN writes its operator compile "
        "caches, kernel_meta, knowledge bases and logs to disk as it starts and compiles",
        causes=(
            "the home or /tmp filesystem full of old compile caches, dumps and plogs",
            "checkpoints or datasets filling the disk the caches share",
        ),
        fix="df -h ~ /tmp /dev/shm $ASCEND_CACHE_PATH (and df -i: millions of small cache files "
        "exhaust inodes first); free space: `ampenv clean` (stale compile caches and old logs), "
        "old checkpoints, ~/ascend/log; or point ASCEND_CACHE_PATH (compile cache) and "
        "ASCEND_PROCESS_LOG_PATH (logs) at a disk with room; a write under /dev/shm (torch's "
        "shared memory) is the container's --shm-size",
        confirm="cache.stale",
        sources=(
            Source("https://github.com/hiyouga/LlamaFactory/issues/6309", "report"),
            Source(
                FACTS + " (ASCEND_CACHE_PATH, ASCEND_PROCESS_LOG_PATH: envref_07_0006, "
                "envref_07_0120)",
                "official",
            ),
        ),
        hints=("no space left",),
    ),
    Failure(
        id="kernel-meta-temp-left",
        mode="compile-cache",
        component="tbe",
        # the compiler's teardown (rm -r of its temporary folders), racing another process
        patterns=(r"cannot remove '[^'\n]{0,300}kernel_meta_temp[^'\n]{0,100}': Directory not",),
        codes=(),
        meaning="the operator compiler's temporary folders (kernel_meta/kernel_meta_temp_*) "
        "were not empty when its teardown removed them, and stay: harmless to the run, but "
        "they pile up on disk run after run",
        causes=(
            "files still written into the folder as it was removed (several processes "
            "compiling in one working directory) [unconfirmed]",
        ),
        fix="nothing to do for the run itself; when no job runs, "
        + CLEAR_CACHES
        + "; give each rank its own working directory (or ASCEND_WORK_PATH) to avoid them",
        confirm=None,
        sources=(
            Source("index id 69057229481 (an RL training log's ledger, entry B-023)", "report"),
        ),
        hints=("cannot",),
    ),
)
