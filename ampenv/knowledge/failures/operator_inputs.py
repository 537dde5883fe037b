"""What the calling code gave that an operator, a collective or autograd refuses: tensors on
different devices, a tensor that is not contiguous, an attention layout an operator's tiling
check does not support, a tensor autograd needs changed in place. The fix is in the calling
code (or the framework's patch), not on the node."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import CLASS, Failure, Source, code_hints, hicann_page

CASES = (
    "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/{}"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
VLLM_ASCEND_FAQ = (
    "vllm-project/vllm-ascend docs/source/faqs.md@182b75ea84ff13ece27b57391331ef8935410aea ({})"
)

FAILURES = (
    Failure(
        id="tensors-on-mixed-devices",
        mode="core-exception",
        component="torch_npu",
        patterns=(
            r"Expected all tensors to be on the same device",
            # torch_npu's own wording (ERR01002 follows it)
            r"Expected NPU tensor, please check whether the input tensor device is correct",
            # op-plugin's assert in an aclnn operator's adapter (ERR00001 follows it)
            r"Error: [^\n]{0,300}?DeviceType must be NPU\. Actual DeviceType is: ?cpu",
        ),
        codes=(),
        meaning="an operator was called with tensors on different devices (a CPU tensor beside "
        "an NPU one, or two NPUs): it runs on one device only",
        causes=(
            "a tensor created on the CPU (torch.rand, a constant, a mask) not moved to the NPU",
            "a model or its inputs only partly moved (.npu() / .to(device) missed on one)",
        ),
        fix="move every input of that call to the same device: `.to(device)` / `.npu()` on "
        "the tensor the traceback's line builds on the CPU (create it with device=...)",
        confirm=None,
        sources=(
            Source(CASES.format("failed_verify_op_parameters.md"), "official"),
            Source(
                "the-seeds/LLaMA-Factory-Doc docs/source/advanced/npu.rst"
                "@4a99c42ba8feb4ae61ef8bdc563c934dba81eb82 (DeviceType must be NPU)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="npu-op-on-cpu-tensors",
        mode="core-exception",
        component="torch_npu",
        # PyTorch's dispatcher: an operator of torch_npu's own namespace given CPU tensors only
        # (as the NotImplementedError it is: the words alone would be a scan's pass of their own)
        patterns=(
            r"Error: Could not run '(?:npu|torch_npu)::\w{1,80}' with arguments from the 'CPU' "
            r"backend",
            # torch_npu 1.x's assert of an input's device
            r"\.device\(\)\.type\(\) == (?:c10::)?DeviceType::NPU INTERNAL ASSERT FAILED",
        ),
        codes=(),
        meaning="an operator only torch_npu implements (npu::...) was called with CPU tensors: "
        "it has a kernel for the NPU and none for the CPU",
        causes=(
            "the tensors not moved to the NPU before the call (a model or buffer still on the CPU)",
            "a framework calling it on the CPU on purpose (DeepSpeed's ZeRO unflattening CPU "
            "copies: a torch_npu bug, fixed in later releases)",
        ),
        fix="move the tensors to the NPU before the call (`.npu()`, or build them with "
        "device='npu'); where a framework does it, upgrade torch_npu (Ascend/pytorch PR 6484 "
        "fixed npu_format_cast on CPU tensors)",
        confirm=None,
        sources=(
            Source(
                "wangshuai09/Notebook QA/Error.md@1dde65b641956f59535106ab12f2e63d8ccfde94 "
                "(npu::npu_format_cast from the 'CPU' backend)",
                "report",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="tensor-not-contiguous",
        mode="core-exception",
        component="torch_npu",
        patterns=(
            # torch.distributed's check before a collective (torch_npu's ERR02002 follows it)
            r"Tensors must be contiguous",
            # an operator of torch_npu's that takes contiguous inputs only (ERR01005 follows)
            r"\bOp \w{1,80} has \d{1,3} uncontiguous inputs?\b",
        ),
        codes=(),
        meaning="a collective or an operator was given a tensor that is not contiguous in "
        "memory (a view: a transpose, a slice, an expand), which it does not take",
        causes=("a view passed as it is: transpose, permute, narrow, slicing, expand",),
        fix="call `.contiguous()` on the tensor before the call (`dist.all_reduce(t."
        "contiguous())`, or make the framework's op do it: its patch or a newer release)",
        confirm=None,
        sources=(
            Source(
                CASES.format("communication_operator_transfers_Non-contiguous_tensors.md"),
                "official",
            ),
            Source("https://blog.gitcode.com/5d80b89b227664c6e306f3b1e0574cff.html", "report"),
        ),
        hints=("contiguous",),
    ),
    Failure(
        id="mla-heads-unsupported",
        mode="core-exception",
        component="aclnn",
        # IncreFlashAttention's tiling check (EZ9999's message), vLLM Ascend's graph mode
        patterns=(r"numHeads / numKvHeads = \d{1,5}, MLA only support \{32, 64, 128\}",),
        codes=(),
        meaning="the attention operator of graph mode (IncreFlashAttention with MLA) takes 32, "
        "64 or 128 query heads per KV head only, and the model as split has another number",
        causes=(
            "a model with fewer heads (DeepSeek-V2-Lite: 16), or a tensor-parallel split that "
            "leaves a number outside {32, 64, 128} per rank",
        ),
        fix="choose a tensor-parallel size that leaves 32, 64 or 128 heads per KV head on each "
        "rank, or run that model without graph mode (vLLM: enforce_eager=True)",
        confirm=None,
        sources=(
            Source(
                VLLM_ASCEND_FAQ.format("Failed to enable NPU graph mode when running DeepSeek"),
                "official",
            ),
        ),
        hints=("mla only support",),
    ),
    Failure(
        id="autograd-inplace-modified",
        mode="core-exception",
        component="torch",
        patterns=(
            r"one of the variables needed for gradient computation has been modified by an "
            r"inplace operation",
        ),
        codes=(),
        meaning="backward needs a tensor that an in-place operation changed after the forward "
        "pass used it (its version moved on): the training code's, on any device",
        causes=(
            "an in-place op (x += 1, x.add_(), relu(inplace=True), x[i] = v) on a tensor "
            "the graph saved",
        ),
        fix="make that operation out-of-place (`y = x + 2` rather than `x += 2`); "
        "`torch.autograd.set_detect_anomaly(True)` names the operation",
        confirm=None,
        sources=(
            Source(
                CASES.format("variables_used_gradient_computation_modified_by_in-place_op.md"),
                "official",
            ),
        ),
        hints=("inplace operation",),
    ),
    Failure(
        id="device-switched-in-thread",
        mode="visible-devices",
        component="torch_npu",
        # torch_npu's device guard switching the thread's device ("ExchangeDevice:...
        # npu_sys_ctrl.cpp:56 NPU error, error code is 500000")
        patterns=(r"\bExchangeDevice:[^\n]{0,300}?error code is 500000\b",),
        codes=(),
        meaning="the code switched one thread to another NPU after it had used one: torch_npu "
        "of this release lets a thread use a single NPU, and switching devices (set_device, "
        ".to('npu:1'), a model on another device) fails",
        causes=(
            "tensors or modules of one thread on two NPUs (npu:0 and npu:1), or set_device "
            "called again with another id",
        ),
        fix="use one NPU per thread: the same device name for every set_device, .to() and "
        ".npu() in it; run work for another NPU in a thread (or process) of its own",
        confirm=None,
        sources=(
            Source(
                "https://hiascend.com/document/caselibrary/detail/topic_0000001588958937",
                "official",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="device-used-before-set",
        mode="visible-devices",
        component="torch_npu",
        # torch_npu 1.x's stream lookup: "Could not compute stream ID for 0x... on device -1",
        # raised at c10/npu/NPUStream.cpp:146 (a paste may keep the assert's first line only)
        patterns=(
            r"Could not compute stream ID for \S{1,40} on device -1\b",
            r"INTERNAL ASSERT FAILED at \S{0,200}\bc10/npu/NPUStream\.cpp:146\b",
        ),
        codes=(),
        meaning="NPU work ran before the program set its device, so torch_npu opened device 0 "
        "by itself; a set_device afterwards (to npu:0 too) is not supported, and its stream "
        "belongs to no device (-1)",
        causes=(
            "set_device called after the first NPU computation (a backward, a tensor moved to "
            "'npu' before it), not at the start of the program",
        ),
        fix="call torch_npu.npu.set_device('npu:<id>') (per rank: its local rank) first in "
        "main, before any tensor, model or backward touches the NPU",
        confirm=None,
        sources=(
            Source(
                "https://hiascend.com/doc_center/source/zh/canncommercial/700/modeldevpt/ptmigr/"
                "AImpug_000154.html",
                "official",
            ),
        ),
        hints=("fail",),  # (its message is a key of its own, found by the "not " pass)
    ),
    Failure(
        id="no-device-in-thread",
        mode="visible-devices",
        component="runtime",
        # ACL_ERROR_RT_CONTEXT_NULL, and the runtime's own words for it ("rtDeviceSynchronize
        # execute failed, reason=[context pointer null]", "rtGetDevMsg execution failed, the
        # context is a null pointer")
        patterns=(
            r"execute failed, reason=\[?context pointer null",
            r"execution failed, the context is a null pointer",
        ),
        codes=("107002",),
        meaning="the thread that ran NPU work had no device set: each new thread starts without "
        "one (transformers' TextIteratorStreamer runs generate() in a thread of its own; a "
        "library's worker or callback thread too), or there was no device to set (the plog's "
        "INFO 'rtSetDevice: There is no devId, do nothing')",
        causes=(
            "NPU work in a thread (or a spawned process) that never set its device",
            "no device visible to set (a container without its NPUs, an empty "
            "ASCEND_RT_VISIBLE_DEVICES)",
        ),
        fix="call torch.npu.set_device(N) (pyACL: acl.rt.set_context / set_device; C++: "
        "aclrtSetDevice or aclrtSetCurrentContext) at the start of every thread that runs NPU "
        "work; where the plog says there is no devId, make the device visible here (`npu-smi "
        "info`, ASCEND_RT_VISIBLE_DEVICES, the container's devices)",
        confirm=None,
        sources=(
            Source("https://blog.csdn.net/weixin_46398647/article/details/137772338", "report"),
            Source(
                "hicann/docs docs/zh/troubleshooting/setdevice_error_no_context.md (the public "
                "file index's id 67597285880): no device in the environment",
                "official",
            ),
            Source(
                "https://github.com/kvcache-ai/Mooncake/pull/3974 (transfer threads without the "
                "device's context)",
                "report",
            ),
            Source(
                "https://github.com/ggml-org/llama.cpp/issues/9303 (no context was created)",
                "maintainer",
            ),
        ),
        hints=code_hints(),
        # the runtime prints the same words after any device open that failed (507033, a tsd
        # start): the failure named beside them leads
        rank=CLASS,
    ),
    Failure(
        id="cpu-fallback-cannot-resize",
        mode="core-exception",
        component="torch_npu",
        # after torch_npu's "The operator 'aten::X' is not currently supported on the NPU
        # backend and will fall back to run on the CPU" (a warning healthy runs print too)
        # (as the RuntimeError it is: the words alone would make "same " a word of five keys)
        patterns=(r"Error: _copy_from_and_resize now only support copy with same size",),
        codes=(),
        meaning="an operator the NPU does not support ran on the CPU instead (the CPU-fallback "
        "warning above names it), and its result could not be copied back: the fallback "
        "copies only into an output of the same size",
        causes=("calling an operator torch_npu has no NPU kernel for (ERR01007 follows)",),
        fix="use an operator the NPU supports instead (torch_npu's native or custom APIs), or "
        "run that call on the CPU yourself: its inputs .cpu(), its result .npu()",
        confirm=None,
        sources=(Source(CASES.format("unsupported_op_called.md"), "official"),),
        hints=("err",),
    ),
    Failure(
        id="single-op-output-size-mismatch",
        mode="core-exception",
        component="GE",
        # GE's check of a single operator's arguments (145000, ACL_ERROR_GE_PARAM_INVALID)
        patterns=(
            r"Output Size mismatch\. index = \d{1,4}, model expect\s{0,4}\d{1,20}, but given",
        ),
        codes=(),
        meaning="a single operator (aclopExecute, a single-op model) was given an output buffer "
        "of another size than its compile inferred for that output",
        causes=(
            "the output buffer allocated for another shape (a dynamic-shape operator's output "
            "sized before its shape was known)",
        ),
        fix="allocate the output at the size the line names (the compile's inferred size; for "
        "a dynamic shape, from the output's shape), then run it again",
        confirm=None,
        sources=(hicann_page("dynamic_shape_input_model_mismatch.md", note="scenario 2"),),
        hints=("err",),
    ),
    Failure(
        id="torch-jit-fuser-on-npu",
        mode="core-exception",
        component="torch",
        # TorchScript's graph fuser, asked to fuse a scripted function's ops on an NPU tensor
        patterns=(r"Error: Unknown device for graph fuser",),
        codes=(),
        meaning="a function under @torch.jit.script ran on the NPU, and TorchScript's graph "
        "fuser has no backend for that device",
        causes=("model code with @torch.jit.script (ChatGLM's modeling file, for one)",),
        fix="remove the @torch.jit.script decorators from the model's code (they become plain "
        "Python functions), or run the model with torch.jit disabled (PYTORCH_JIT=0)",
        confirm=None,
        sources=(
            Source(
                "an Ascend NPU troubleshooting knowledge base, MIG-002 (citing LLaMA-Factory's NPU "
                "FAQ; the public file index's id 66797713814)",
                "report",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="ray-sees-no-npu",
        mode="visible-devices",
        component="Ray",
        # a trainer built on Ray (verl, OpenRLHF) counting the devices its actors see
        patterns=(r"Error: Total available GPUs 0 is less than total desired GPUs",),
        codes=(),
        meaning="the Ray actors of a trainer saw no NPU: Ray (2.x) clears "
        "ASCEND_RT_VISIBLE_DEVICES for an actor started with num_gpus 0 or None, and does not "
        "count NPUs as GPUs unless they are registered",
        causes=(
            "Ray clearing ASCEND_RT_VISIBLE_DEVICES for actors that ask for no GPU",
            "the NPUs never registered with Ray as a resource",
        ),
        fix="set RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0 in ray.init's runtime_env env_vars (or the "
        "job's environment) so Ray leaves the variable alone; register the NPUs as a resource "
        "(ray start --resources='{\"NPU\": 8}') where the trainer asks for them by name",
        confirm="env.npu",
        sources=(
            Source(
                "easyr1's NPU platform bugs, NPU-BUG-002 (the public file index's id 52081549620)",
                "report",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="visible-devices-unset",
        mode="visible-devices",
        component="framework",
        # os.environ["ASCEND_RT_VISIBLE_DEVICES"] in a framework's worker (verl's
        # get_device_uuid) where neither the scheduler nor Ray set it
        patterns=(r"KeyError: '(?:ASCEND_RT_VISIBLE_DEVICES|ASCEND_VISIBLE_DEVICES)'",),
        codes=(),
        meaning="a framework read ASCEND_RT_VISIBLE_DEVICES (os.environ[...]) in a process "
        "where nothing had set it: it expects the scheduler, the launcher or Ray to set it for "
        "each worker",
        causes=(
            "Ray told not to set it (RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1, as "
            "vllm-ascend's guides set it), or a worker that asked for no NPU",
            "a job launched by hand that sets none",
            "a framework release that reads it without a default",
        ),
        fix="export ASCEND_RT_VISIBLE_DEVICES=<the node's device ids, e.g. 0,1,2,3,4,5,6,7> in "
        "the job's environment before Ray starts (with Ray's NOSET variable every worker sees "
        "that list), or use a release of the framework that falls back when it is unset (verl "
        "with PR #5100)",
        confirm="env.npu",
        sources=(
            Source(
                "verl-project/verl@72c109aca6b6ea1cb708537f2bc4d750056fefb2 (PR #5100, "
                "Problem3, commit message)",
                "maintainer",
            ),
        ),
        hints=("error",),
        judge=in_error_record,
    ),
    Failure(
        id="atb-operation-setup",
        mode="core-exception",
        component="ATB (NNAL)",
        # op-plugin's check of an ATB operator's Setup (AtbCommon.cpp), and the frame it names
        patterns=(
            r"compiler_depend\.ts:\d{1,6}\] (?:\w{1,60}Operation )?setup failed!",
            r"Exception raised from OperationSetup at ",
        ),
        codes=(),
        meaning="an ATB (NNAL) fused operator that torch_npu's op-plugin called refused its "
        "inputs or parameters at setup, before running: a shape, dtype or format, or a "
        "parameter value this operator does not support",
        causes=(
            "a model feature the fused operator lacks (a partial rotary dimension for "
            "RopeOperation, a head size or dtype the attention operator does not take)",
            "inputs of another shape or dtype than the operator expects (a custom operator or a "
            "framework's patch feeding it)",
            "NNAL (ATB) of another release than torch_npu or the serving framework was built for",
        ),
        fix="see which check refused: ATB's log to the console (CANN < 8.3: export "
        "ASDOPS_LOG_LEVEL=ERROR ASDOPS_LOG_TO_STDOUT=1; from 8.3: export "
        "ASCEND_SLOG_PRINT_TO_STDOUT=1 ASCEND_GLOBAL_LOG_LEVEL=3), then fit the inputs to "
        "the operator's constraints or use the framework's native (non-ATB) implementation "
        "of that layer; check NNAL's release against torch_npu's: `ampenv doctor --only "
        "cann.toolkit`",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/op-plugin op_plugin/utils/custom_functions/atb/AtbCommon.cpp"
                "@517f2e7d0f202f38b76310706cb977ca2388ad21 (OperationSetup)",
                "official",
            ),
            Source(
                "hicann/ascend-transformer-boost docs/日志与调试.md (ATB's log variables)",
                "official",
            ),
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/7253 (RopeOperation and "
                "GLM's partial rotary dimension; issue 686)",
                "maintainer",
            ),
        ),
        hints=("fail", "exception"),
    ),
    Failure(
        id="output-smaller-than-operator",
        mode="core-exception",
        component="GE",
        # GE's E19025 reason for a graph's output, and the TraceBack line that gives the sizes
        patterns=(
            r"Error: E19025: [^\n]{0,300}?The Output memory provided by the user, plus 64 "
            r"bytes for data alignment, is smaller than op_size",
            r"Check output size failed, index \d{1,6}, user size \d{1,20}, op size \d{1,20}",
        ),
        codes=("E19025",),
        narrower=True,  # E19025 is any invalid input tensor
        meaning="the output memory a graph or model was given is smaller than what its operator "
        "writes (op_size): the size the caller computed from the operator's shape and dtype "
        "is wrong",
        causes=(
            "torch.compile on the NPU (torchair) or a custom operator: the operator's Meta "
            "function gives another dtype or shape than the kernel writes (bf16 where it "
            "writes fp32 is half the bytes)",
            "an offline model run with output buffers sized for another model, batch or "
            "dynamic shape",
        ),
        fix="compare the two sizes the line names (user size against op size: a factor of 2 is "
        "a 16-bit dtype against fp32); correct the Meta function's dtype or shape "
        "(torchair: the registration of the custom operator's meta), or allocate each output "
        "from the model's own output size for the shape that runs "
        "(aclmdlGetOutputSizeByIndex)",
        confirm=None,
        sources=(
            Source(
                "Ascend/torchair docs/zh/appendix/cases/graph_failed_cases.md"
                "@fced8842d149f16b587c2c867d427e4b766831ca (Check output size failed)",
                "official",
            ),
        ),
        hints=("err", "fail"),
    ),
    Failure(
        id="npu-op-not-implemented",
        mode="core-exception",
        component="torch_npu",
        # PyTorch's dispatcher finding no kernel under the NPU's dispatch key: NPUTensorId in
        # torch_npu's old releases, PrivateUse1 since ("\s": its key is its longest piece of
        # fixed text, "Could not run", read in the pass for "not "). No kernel to make or copy
        # a tensor (empty*, _to_copy) is no backend registered at all.
        patterns=(
            r"Could not run '(?:aten|torchvision)::(?!empty\b|empty_|_to_copy\b)[\w.]{1,80}' with\s"
            # the dense key, or a sparse or quantized tensor's ('Quantizednpu', 'SparseCsrnpu')
            r"arguments\sfrom\sthe\s'(?:NPUTensorId|(?:Quantized|Sparse(?:Csr)?)?"
            r"(?:PrivateUse1|npu))'",
        ),
        codes=(),
        meaning="no NPU kernel is registered for this operator under the NPU's dispatch key "
        "(PrivateUse1; NPUTensorId in old releases): torch_npu does not implement it in this "
        "release, or a custom build or extension registered it for another key",
        causes=(
            "an operator the NPU does not support in this torch_npu release (old releases "
            "raised for it; today's run most such operators on the CPU with a warning)",
            "a source build of torch_npu or an extension whose registration "
            "(TORCH_LIBRARY_IMPL, the op-plugin yaml) lacks the operator or names another key",
            "another out-of-tree backend under PrivateUse1 (DirectML, DIPU, your own): the "
            "kernel is that backend's to provide",
        ),
        fix="replace the operator with one the NPU supports (the supported-operator list of "
        "this torch_npu release), or run that call on the CPU yourself: its inputs .cpu(), its "
        "result .npu(); newer torch_npu releases support more operators; your own build or "
        "extension: register the operator for PrivateUse1 (TORCH_LIBRARY_IMPL(aten, "
        "PrivateUse1, m)); a sparse or quantized tensor (the key's Sparse or Quantized): "
        "torch_npu has few kernels for them: make it dense first (.to_dense(), "
        "nn.Embedding(sparse=False)) or dequantize it, or run that call on the CPU",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch docs/zh/PyTorch训练调优&工具使用指南/"
                "PyTorch训练调优&工具使用指南.md"
                "@45b14f68e5bd (FAQ: aten::trunc.out from the 'NPUTensorId' backend)",
                "official",
            ),
            Source(
                "github.com/mindspore-lab/mindspore-skills torch-npu-debugger/evals/evals.json"
                "@bc95b42981432592030f7e2f2d137cb7250d6060 (eval 1, 'PrivateUse1')",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="graph-output-check-mismatch",
        mode="compile-cache",
        component="torchair",
        # torchair's RuntimeError from its check of the GE graph's outputs against the FX graph's
        patterns=(
            r"Error: The (?:dim|dtype) in num\[\d{1,4}\] net output of Ascend output: ",
            r"Error: The dim of Ascend GE graph NetOutput: \[[\d, -]{0,200}\] is not equal to "
            r"FX graph NetOutput",
        ),
        codes=(),
        meaning="torch.compile's NPU graph (torchair) produced an output of another shape or "
        "dtype than the FX graph says: an operator's Meta function (what FX traced) and its "
        "GE InferShape (what the NPU graph infers) disagree, most often a custom operator's",
        causes=(
            "a custom operator whose Meta registration and GE InferShape / InferDataType give "
            "different outputs",
        ),
        fix="correct whichever of the two is wrong for that operator; in a whole network find "
        "it by dumping the Ascend IR graph (torchair's config.debug.graph_dump) and the "
        "compiled GE graph (DUMP_GE_GRAPH=2) and comparing the outputs",
        confirm=None,
        sources=(
            Source(
                "Ascend/torchair docs/zh/feature/单算子入图后输出校验和精度对比指导.md"
                "@fced8842d149f16b587c2c867d427e4b766831ca",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="graph-custom-op-meta",
        mode="compile-cache",
        component="torchair",
        # torch.compile (torchair's backend) tracing a custom NPU operator with fake tensors: as
        # raised (fullgraph, torchair); a graph break's log line is no failure (the op runs eagerly)
        patterns=(
            r"exc\.Unsupported: unsupported operator: (?:npu|torch_npu|npu_inference)\.\w{1,80}",
            r"Failed running call_function [^\n]{0,4000}?tensor's device must be `meta`, got "
            r"(?:cpu|npu)",
        ),
        codes=(),
        meaning="torch.compile (torchair) could not trace a custom NPU operator into the graph: "
        "the operator has no Meta function (what infers its outputs' shapes and dtypes without "
        "running it), or its Meta function makes tensors on a real device instead of 'meta'",
        causes=(
            "a custom operator registered for the NPU only, without a Meta implementation",
            "a Meta function that builds its outputs on the CPU (torch.empty without "
            "device='meta')",
        ),
        fix="register a Meta implementation for the operator (torch.library: impl for 'Meta', "
        "or register_fake) that builds its outputs with device='meta' and the kernel's shapes "
        "and dtypes, as torchair's guide to custom operators in graphs shows; or leave that "
        "call out of the compiled region",
        confirm=None,
        sources=(
            Source(
                "Ascend/torchair docs/context/自定义算子入图报错-unsupported-operator.md, file id "
                "40601788972",
                "official",
            ),
            Source(
                "Ascend/torchair docs/zh/appendix/cases/graph_failed_cases.md, file id "
                "53090093426 (tensor's device must be meta)",
                "official",
            ),
        ),
        hints=("unsupport", "fail"),
    ),
    Failure(
        id="operator-tiling-refused",
        mode="core-exception",
        component="aclnn",
        # an operator's tiling (how it splits the work over the cores) refusing the shapes
        patterns=(r"\b\w{1,80} do tiling failed, ret is -?\d{1,10}",),
        codes=(),
        meaning="an operator's tiling (how it splits its work over the cores and their buffers) "
        "refused these input shapes: a length or size beyond what its kernel supports on this "
        "chip (the lines before it name the figure, e.g. 'reserveAlignNum = 2592 too large')",
        causes=(
            "an input longer or larger than the kernel supports (a sequence padded past a "
            "limit, a partial rotary dimension)",
            "a CANN kernels package whose tiling lacks the case (a newer one may have it)",
        ),
        fix="find the shape that runs past the limit (ASCEND_LAUNCH_BLOCKING=1 names the "
        "operator; the line before names the figure) and keep inputs under it (a shorter "
        "sequence or cutoff length, bucketing long samples), or try the kernels of a newer "
        "CANN release",
        confirm=None,
        sources=(
            Source(
                "linmumu009/llin-rl-dpo, file id 55955309379 and its root-cause note, file id "
                "55995198606 (RotaryPositionEmbeddingGrad: cutoff_len <= 2048)",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="aclop-in-graph-capture",
        mode="core-exception",
        component="torch_npu",
        # torch_npu's check (assertNotCapturingAclop) as an operator of the old aclop path runs
        # while a stream is captured into an NPU graph (ACL graph: vLLM Ascend, NPUGraph)
        patterns=(r"Cannot run aclop operators during NPU graph capture",),
        codes=(),
        meaning="an operator that runs through the old aclop path (not aclnn) was called while "
        "a stream was being captured into an NPU graph: only aclnn operators can be captured "
        "(the line names the operator: Fill, Identity, Conv2D, TransData); a tensor in a "
        "private format (FRACTAL_NZ) sends operators down that path",
        causes=(
            "tensors in an internal format (torch.npu.config.allow_internal_format on, weights "
            "cast to NZ) making ordinary operators take the aclop path",
            "an operator with no aclnn implementation in this torch_npu release (a BERT-style "
            "encoder's Fill, a Conv2D)",
        ),
        fix="set torch.npu.config.allow_internal_format = False before the capture (torch_npu's "
        "own advice); if it still fails, that operator cannot be captured: run the model "
        "without graph capture (vLLM: --enforce-eager) or keep that call out of the captured "
        "region, and report the operator to Ascend/pytorch",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUGraphsUtils.h "
                "(assertNotCapturingAclop), index id 7761367346",
                "official",
            ),
            Source(
                "a deployment README, index id 57540255067 (an embedding model's Fill: "
                "--enforce-eager)",
                "report",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="op-unsupported-in-capture",
        mode="core-exception",
        component="runtime",
        # the runtime refusing a call inside a stream being captured into a graph:
        # "rtMemcpy execution failed, reason=the current capture mode does not support this
        # operation" (a synchronous copy, a host read back of a result)
        patterns=(r"execution failed, reason=the current capture mode does not support this",),
        codes=(),
        meaning="a runtime call that cannot be captured (a synchronous memory copy, reading a "
        "result back to the host) ran while a stream was being captured into an NPU graph "
        "(torch.npu.graph, vLLM's or TorchAir's graph mode)",
        causes=(
            "an operator or the framework's code copying or synchronising inside the captured "
            "region (speculative decoding's and some attention backends' paths)",
        ),
        fix="run eager (--enforce-eager / enforce_eager=True) to confirm it is the capture, then "
        "keep that call out of the captured region or turn off the feature whose path makes it "
        "(one at a time); report the operator to the framework with its traceback",
        confirm=None,
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/11514", "maintainer"),),
        hints=("fail",),
    ),
    Failure(
        id="task-queue-2-in-capture",
        mode="core-exception",
        component="torch_npu",
        # torch_npu's capture_begin (torch_npu/npu/graphs.py) refusing the two-level task queue
        patterns=(r"Error: Do not support TASK_QUEUE_ENABLE = 2 during NPU graph capture",),
        codes=(),
        meaning="the two-level task queue (TASK_QUEUE_ENABLE=2) was on when an NPU graph "
        "capture began: torch_npu does not capture with it",
        causes=("TASK_QUEUE_ENABLE=2 exported for speed in a job that runs graph mode",),
        fix="export TASK_QUEUE_ENABLE=1 (or 0) wherever graph mode is on (vLLM's ACL graphs, "
        "torch.npu.graph), or run eager",
        confirm=None,
        sources=(
            Source("Ascend/pytorch torch_npu/npu/graphs.py (capture_begin)", "official"),
            Source(
                "a serving port's notes (the public file index): TASK_QUEUE_ENABLE=2 refused at "
                "the first graph capture",
                "report",
            ),
        ),
        hints=("error",),
    ),
)
