"""Device memory and the caching allocator's configuration."""

from __future__ import annotations

import re

from ampenv.knowledge.failures.model import Failure, Source, code, code_hints

CODES_H = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
ALLOC_CONFIG = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUAllocatorConfig.cpp"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
CACHING_ALLOC = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUCachingAllocator.cpp"
    "@2dd1e508c79551c37182905cdc7edce49427204c (v2.1.0-6.0.0)"
)
HOLDERS = "see who holds the device: `npu-smi info` (process table), `fuser -v /dev/davinci*`"

_BYTES = {"b": 1, "bytes": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
# torch_npu prints a size under 1 KiB as "N bytes" ("0 bytes reserved in total by PyTorch")
_FIGURE = r"(\d{1,9}(?:\.\d{1,6})?) ([KMGT]iB|B|bytes)"


def _held_elsewhere(m: re.Match[str]) -> bool:
    """Whether more than half of the device was neither free nor reserved by PyTorch when it
    ran out. On the corpus's 29 such lines the share parts cleanly: 22 at 10% or less
    (the job's own tensors filled the device), 7 at 60% or more, and of those the answer
    named other processes on the device (four), CANN's own memory (a regression), or could
    not tell (one, called fragmentation, with 18 of 28.5 GiB outside PyTorch's pool)."""
    total, free, reserved = (float(m.group(i)) * _BYTES[m.group(i + 1).lower()] for i in (1, 3, 5))
    return total > 0 and total - free - reserved > total / 2


FAILURES = (
    Failure(
        id="npu-memory-held-elsewhere",
        mode="device-memory",
        component="torch_npu",
        # torch_npu's "(NPU 0; 60.97 GiB total capacity; 1.70 GiB already allocated; 1.70 GiB
        # current active; 20.04 MiB free; 1.82 GiB reserved in total by PyTorch)"
        patterns=(
            rf"out of memory\.[^\n]{{0,200}}?\(NPU \d{{1,3}}; {_FIGURE} total capacity;"
            rf"[^\n]{{0,200}}? {_FIGURE} free; {_FIGURE} reserved in total by PyTorch",
        ),
        codes=(),
        meaning="the device ran out of memory while PyTorch's allocator held less than half of "
        "it: the rest was taken outside this process's tensors (the line's total capacity, "
        "free and reserved figures say how much)",
        causes=(
            "other processes on the same device: a leftover or concurrent job, a server, "
            "another container (a --privileged container sees every device and may land on a "
            "busy one)",
            "this process's own memory outside PyTorch's pool: CANN's runtime and HCCL's "
            "buffers (HCCL_BUFFSIZE per communicator), a custom pool (vLLM's sleep mode), a "
            "CANN release that leaks (vllm-ascend#1653: an alpha CANN)",
        ),
        fix=HOLDERS + "; stop them, or point the job at a free device "
        "(ASCEND_RT_VISIBLE_DEVICES; in a container pass only its own /dev/davinciN); if "
        "nothing else runs there, the memory is this process's outside PyTorch: check "
        "HCCL_BUFFSIZE and the number of communicators, and the CANN release",
        confirm="npu.devices",
        sources=(
            Source(CACHING_ALLOC + " (the figures of its out-of-memory message)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/1670", "report"),
            Source(
                "itove/ascend mdbook/src/log/output-3.log@78ca59931c3fb82bf7276a0b7928f9c281c5aa42 "
                "(MindIE loading weights beside a leftover process)",
                "report",
            ),
            Source("https://blog.gitcode.com/74eaeea61198e7c443c364daa9b0f904.html", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/pull/1653", "maintainer"),
        ),
        hints=("out of memory",),
        judge=_held_elsewhere,
    ),
    Failure(
        id="ge-variable-memory",
        mode="device-memory",
        component="ge",
        # "AssignVarMem: ... Out of memory: current var size[13962468864] exceeds total var
        # size[...]": TensorFlow's graph mode splits device memory into variables and graphs
        patterns=(r"Out of memory: current var size\[\d{1,20}\]",),
        codes=(),
        meaning="the graph engine's variable memory (the part of device memory the TensorFlow "
        "adapter gives variables) is smaller than the model's variables",
        causes=("variable_memory_max_size left at its default for a model with large variables",),
        fix="set variable_memory_max_size in the session config to the current var size it "
        "names plus about 1 GB, and graph_memory_max_size to what the device has left (31 GB "
        "minus it on a 32 GB device)",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/900/devaids/aoe/"
                "aoepar_16_084.html (current var size exceeds total var size)",
                "official",
            ),
        ),
        hints=("out of memory",),
    ),
    Failure(
        id="acl-malloc-size-zero",
        mode="allocator",
        component="acl",
        # on an error's line (its logger's [ERROR]): one pass less over every text
        patterns=(r"(?i:error)[^\n]{0,300}?malloc size must be greater than zero",),
        codes=(),
        meaning="the program asked aclrtMalloc for 0 bytes",
        causes=(
            "a buffer sized by aclmdlGetOutputSizeByIndex of a dynamic-shape model: an output "
            "of unknown dims (-1) reads as size 0",
        ),
        fix="where aclmdlGetOutputSizeByIndex returns 0, allocate an estimated upper bound for "
        "that output (its largest shape times the dtype's size)",
        confirm=None,
        sources=(
            Source(
                "hicann/docs docs/zh/troubleshooting/dynamic_shape_inference_mem_failed.md"
                "@96217e9acd4da744a739b8f94b020fbe0cc7fcca",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="acl-free-failed",
        mode="allocator",
        component="acl",
        patterns=(r"aclrtFree: free device memory failed",),
        codes=(),
        meaning="aclrtFree could not free a device pointer: freed before, or not an address "
        "aclrtMalloc returned",
        causes=(
            "the same device memory freed twice (two owners, or a free on an error path and "
            "again at the end)",
            "an invalid address: an offset into a block, a host pointer, memory of another "
            "context or device",
        ),
        fix="free each device pointer once, and only what aclrtMalloc returned (set it to "
        "nullptr after aclrtFree; a host buffer goes to aclrtFreeHost); the 507899 with it is "
        "this call's, not a driver fault",
        confirm=None,
        sources=(
            Source(
                "hicann/cann-learning-hub tutorials/ascendc_operator_development/"
                "07_Troubleshooting/07.04_Typical_Issues_in_AscendC_Operator_Development.ipynb"
                "@a3989658fa1dce436d4ab402042e0682a2e9bdc7",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="mindie-warmup-out-of-memory",
        mode="device-memory",
        component="MindIE",
        # MindIE LLM's warm-up with the service's largest sizes, before it serves
        patterns=(
            r"Warmup failed,? (?:because of|due to) [\w ]{0,60}out of memory",
            # its KV-cache pool, sized from what the warm-up left: a negative block count
            r"This is due to warm_up out of memory",
            # its other wording, which names the sizes and npu_mem itself
            r"Warmup failed\. This issue could be caused by setting both",
        ),
        codes=(),
        meaning="MindIE's warm-up, which runs the largest request its configuration allows, ran "
        "out of device memory: the sizes in config.json (prefill tokens, batch size, sequence "
        "length; a multimodal model's reserved area grows with the prefill tokens) need more "
        "than the weights leave free",
        causes=(
            "maxPrefillTokens / maxBatchSize / maxSeqLen larger than the free memory allows "
            "(MindIE 2.2 reserves more for multimodal models than 2.1 did)",
            "too few NPUs for the model at these sizes",
        ),
        fix="lower maxPrefillTokens (and maxBatchSize, maxSeqLen, maxIterTimes) in "
        "mindie-service's config.json, or spread the model over more NPUs (a larger "
        "tensor-parallel world)",
        confirm="npu.devices",
        sources=(
            Source(
                "https://github.com/gpustack/gpustack/pull/3600 (MindIE 2.2's multimodal "
                "warm-up; issue 3541)",
                "maintainer",
            ),
            Source(
                "itove/ascend docs/src/errors.md, index id 57479240894 (maxIterTimes 77824 "
                "lowered to 8192)",
                "report",
            ),
        ),
        hints=("out of memory", "fail"),
    ),
    Failure(
        id="npu-out-of-memory",
        mode="device-memory",
        component="torch_npu",
        patterns=(
            r"NPU out of memory\. (?:NPUWorkspaceAllocator t|T)ried to allocate",
            # the figures alone, as a feature's page quotes them ("Tried to allocated", sic)
            r"Tried to allocated? [\d.]{1,12} [KMG]iB \(NPU \d{1,3}; [\d.]{1,12} [KMG]iB total",
            r"OutOfMemoryError: NPU out of memory",
            r"RuntimeError: NPU out of memory\.",  # with no figures after it
            # MindIE LLM's reading of torch's OutOfMemoryError (HCCL's buffers may hold it)
            r"Device out of memory \(OOM\) reported by PyTorch",
            r"Out of Memory!{0,3} ?total\[\d{1,20}\][^\n]{0,200}malloc\[\d{1,20}\] failed",
            # MindSpore's memory pool (mem_dynamic_allocator.cc)
            r"alloc size : \d{1,20} is more than total mem size : \d{1,20}",
            # torch_npu 1.x: the caching allocator's malloc itself reports the runtime's code
            r"malloc:[^\n]{0,200}NPUCachingAllocator\.cpp:\d{1,6} NPU error, error code is "
            r"(?:500000|207001)\b",
        ),
        codes=(),
        meaning="the caching allocator (torch_npu's; MindSpore's memory pool) could not fit an "
        "allocation in the device's memory",
        causes=(
            "batch or sequence too large for the HBM (training), or weights plus KV cache "
            "over the share the engine may take (inference)",
            "fragmentation (reserved >> allocated)",
            "other processes on the device",
        ),
        fix="lower the batch size or sequence length (training: or shard with ZeRO-3 / more "
        "devices; vLLM / sglang: a lower --gpu-memory-utilization / --mem-fraction-static or "
        "--max-model-len, or more devices); against fragmentation set "
        "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (or max_split_size_mb:<MB>); " + HOLDERS,
        confirm="npu.devices",
        sources=(
            Source("https://github.com/xingchensong/TouchNet/issues/100", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/19", "maintainer"),
            Source(
                "https://github.com/xingchensong/TouchNet/issues/100 (torch_npu wording)", "report"
            ),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/5020 (lower "
                "gpu-memory-utilization)",
                "report",
            ),
            Source("https://github.com/Ascend/sglang/issues/617 (NPUWorkspaceAllocator)", "report"),
            Source(
                "Ascend/pytorch docs/zh/PyTorch训练调优&工具使用指南/"
                "PyTorch训练调优&工具使用指南.md@4cd9812281bca73115faee52823b0867e5ccd0a2 "
                "(malloc: NPUCachingAllocator.cpp error code is 500000: device memory not "
                "enough)",
                "official",
            ),
            Source(
                "mindspore-ai/docs docs/mindspore/source_zh_cn/faq/implement_problem.md"
                "@8eea779350d577782fbf78e9286d9291d185af93 (Out of Memory!!!)",
                "official",
            ),
            Source(
                "mindspore-ai/mindspore mindspore/ccsrc/backend/common/mem_reuse/"
                "mem_dynamic_allocator.cc@fcb5c0ac5e4bd17260163154aad0fb0a9fa45df0 (is more than "
                "total mem size)",
                "official",
            ),
            Source("https://github.com/candle-org/MindAct/issues/1761", "report"),
        ),
        hints=("out of memory",),
    ),
    Failure(
        id="npu-oom-absurd-size",
        mode="device-memory",
        component="torch_npu",
        patterns=(r"Tried to allocate more than 1EB\b",),
        codes=(),
        meaning="a size computed from corrupt values (tensor contents overwritten by an "
        "out-of-bounds kernel write, or a size received corrupt over a collective), not a real "
        "shortage of memory",
        causes=(
            "a kernel wrote out of bounds earlier",
            "a size sent between ranks that arrived corrupt: torch.distributed's object send / "
            "receive batched into one P2P over HCCL (pipeline parallelism's shape exchange, "
            "then an EOFError)",
            "an uninitialised size",
        ),
        fix="rerun with ASCEND_LAUNCH_BLOCKING=1 and check the tensors that size depends on; "
        "where it follows a send_object_list / recv_object_list (pipeline stages exchanging "
        "shapes), pass use_batch=False to those one-off metadata exchanges",
        confirm=None,
        sources=(
            Source("https://github.com/flashserve/flash-linear-attention-npu/issues/149", "report"),
            Source(
                "a TorchTitan-on-Ascend graph-mode failure log, G009 (the public file index's id "
                "61975473514): PipelineStage's batched object P2P",
                "report",
            ),
        ),
        hints=("out of memory",),
    ),
    Failure(
        id="host-pinned-memory",
        mode="device-memory",
        component="torch_npu",
        # torch_npu's pinned host allocator (CachingHostAllocator) calling the runtime
        patterns=(
            r"NPU function error: aclrtMallocHost(?:WithCfg)?, error code is \d{6}",
            r"Error: allocate_host_memory_slowpath\b",  # (torch.OutOfMemoryError, RuntimeError)
        ),
        codes=(),
        meaning="the runtime could not allocate page-locked (pinned) host memory for torch_npu: "
        "the host's memory, not the device's, ran out (the EL0004 / 207001 beside it are the "
        "host allocation's)",
        causes=(
            "pinned buffers larger than the host can lock: a KV-cache pool or offload buffers "
            "per worker, pin_memory data loaders, several servers on one host",
            "leftover processes of an earlier run still holding pinned memory",
            "a locked-memory limit (ulimit -l, a container's memlock) below what the job pins",
        ),
        fix="`free -g` and the processes holding memory (stop leftovers); lower what the job pins "
        "(the KV pool or offload sizes per worker, pin_memory=False, fewer workers); raise the "
        "memlock limit (ulimit -l unlimited; docker --ulimit memlock=-1)",
        confirm="host.resources",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/CachingHostAllocator.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (aclrtMallocHost)",
                "official",
            ),
            Source(
                "a PD-disaggregated pool's start-up failure record (the public file index's id "
                "62526321018): host pinned memory per worker",
                "report",
            ),
        ),
        hints=("err", "fail"),
    ),
    Failure(
        id="device-memory-held",
        mode="device-memory",
        component="runtime",
        patterns=(
            r"\bEL0004\b[^\n]{0,120}Failed to allocate",
            r"Memory_Allocation_Failure",
            r"Resource_Error_Insufficient_Device_Memory",  # EL0019's title (CANN 8.5 on)
            code("2070(?:01|18)"),
            r"alloc device memory failed",
            # vLLM at start-up: other processes hold what --gpu-memory-utilization asks for
            r"Free memory on device [^\n]{0,80}is less than desired",
            # the runtime's reason for a failed call, as CANN prints it (FuncErrorReason)
            r"reason=\[?driver error:out of memory",
            # the driver's own code for it (drvError_t DRV_ERROR_OUT_OF_MEMORY = 6)
            r"halMemAlloc failed:[^\n]{0,200}\bdrvRetCode=6\b",
            # the driver's device memory manager: ENOMEM
            r"\[devmm\]\[\w{1,60} \d{1,6}\] ?<errno:12, ?\d{1,4}>",
            # sglang at start-up: what the weights left is too little for its KV cache pool
            r"Not enough memory\. Please try to increase --mem-fraction-static",
        ),
        codes=("EL0004", "EL0019", "207001", "207018"),
        meaning="the runtime could not allocate device memory: other processes hold it, or this "
        "job needs more than the device has",
        causes=("another process (or container) holds the device's memory", "the job is too big"),
        fix=HOLDERS + "; stop them, or pick a free device with ASCEND_RT_VISIBLE_DEVICES; if "
        "none holds it, the job is too big for the device: lower the batch size (or sequence "
        "length), or shard the model over more devices (ZeRO-3, tensor parallel); a serving "
        "engine: a lower --gpu-memory-utilization (or --max-num-seqs, fewer graphs to capture)",
        confirm="npu.devices",
        sources=(
            Source(
                "CANN 8.1.RC1 driver/include/ascend_hal_error.h (DRV_ERROR_OUT_OF_MEMORY = 6), "
                "github.com/leideng/CANN-8.1.RC1@551ed27c29284929bbdc2239e929ddfedfdf0b8b",
                "official",
            ),
            Source(CODES_H + " (207001, 207018)", "official"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/341", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/1993", "report"),
            Source(
                "wangshuai09/Notebook QA/Error.md, file id 5046601329 (EL0004 in a DeepSpeed "
                "ZeRO-3 fine-tune: a smaller batch size)",
                "report",
            ),
            Source(
                "sgl-project/sglang docs_new/docs/hardware-platforms/ascend-npus/"
                "ascend_npu_faq.mdx@1335386668c994c08db2cc3979d8e92f8723bd07",
                "official",
            ),
            Source(
                "hicann/docs docs/en/troubleshooting/error-codes/Driver-Errors/EL0019-Resource_"
                "Error_Insufficient_Device_Memory.md@c14717642ba24270f72de4d02bcb447c5802b043",
                "official",
            ),
            Source(
                "notes of a vLLM-Ascend deployment on 910C (the public file index's id "
                "69531553343): EL0019 at a graph's replay, a lower gpu-memory-utilization",
                "report",
            ),
        ),
        hints=code_hints("fail"),
    ),
    Failure(
        id="kv-cache-no-room",
        mode="device-memory",
        component="vllm",
        patterns=(
            r"Available KV cache memory: -\d",
            r"No available memory for the cache blocks",
        ),
        codes=(),
        meaning="an inference engine (vLLM) found no room for its KV cache at start-up: the "
        "weights and warm-up take all of the device memory it may use (--gpu-memory-"
        "utilization of the device), or more",
        causes=(
            "the model's weights near or over that share of the device (a 14B model in bf16 on "
            "a 32 GB device)",
            "--max-model-len or --max-num-seqs asking for more KV cache than is left",
            "other processes holding the device's memory",
        ),
        fix="give the KV cache room: raise --gpu-memory-utilization (0.9-0.95) when nothing "
        "else uses the device, lower --max-model-len / --max-num-seqs, split the model over more "
        "devices (--tensor-parallel-size) or serve a quantized one; " + HOLDERS,
        confirm="npu.devices",
        sources=(
            Source(
                "vllm-project/vllm vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory "
                "(No available memory for the cache blocks. Try increasing "
                "`gpu_memory_utilization`)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/9372", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/5707 (a second instance on "
                "the same device)",
                "report",
            ),
        ),
        hints=("kv cache memory", "error"),
    ),
    Failure(
        id="sdma-error",
        mode="device-memory",
        component="runtime",
        patterns=(
            code("507013"),
            r"System Direct Memory Access \(DMA\) hardware execution error",
        ),
        codes=("507013",),
        meaning="a DMA (SDMA) copy failed on the device; the reports give several causes, none "
        "of which its line names",
        causes=(
            "memory exhausted around it (EL0004)",
            "a copy the board may not support: a 310P across several cards (a LLaMA-Factory "
            "article's guess) [unconfirmed], an Atlas 200 board in RC mode copying "
            "asynchronously from host memory (an onnxruntime report's likely cause)",
            "a device fault (check its health)",
        ),
        fix=HOLDERS + "; `npu-smi info -t health -i N`; on an RC-mode board, the synchronous "
        "aclrtMemcpy where the asynchronous copy from host memory fails (the report's "
        "workaround)",
        confirm="npu.devices",
        sources=(
            Source(CODES_H + " (507013)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/1993", "report"),
            Source("https://blog.gitcode.com/9bd53a047099b1764d8de143006e7034.html", "report"),
            Source("https://github.com/microsoft/onnxruntime/issues/15677", "report"),
        ),
        hints=code_hints("error"),
    ),
    Failure(
        id="ts-internal-error",
        mode="allocator",
        component="runtime",
        patterns=(code("507001"),),
        codes=("507001",),
        meaning="internal error of the device's task scheduler; in the report it went away with "
        "expandable segments off (a driver without the virtual memory API they need); no "
        "source pins one cause",
        causes=("expandable_segments on a driver that lacks it (per the report)",),
        fix="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:False and retry; expandable "
        "segments need HDK >= 23.0.0",
        confirm="npu.driver",
        sources=(
            Source(CODES_H + " (507001)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/116", "maintainer"),
        ),
        hints=code_hints("error"),
    ),
    Failure(
        id="alloc-conf-both-set",
        mode="allocator",
        component="torch_npu",
        patterns=(r"Both PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF have been set",),
        codes=(),
        meaning="torch_npu (26.x with torch >= 2.10) refuses to start when both allocator "
        "variables are set",
        causes=("PYTORCH_ALLOC_CONF exported for CUDA next to PYTORCH_NPU_ALLOC_CONF",),
        fix="unset PYTORCH_ALLOC_CONF (or move its options into PYTORCH_NPU_ALLOC_CONF)",
        confirm="env.npu",
        sources=(Source(ALLOC_CONFIG, "official"),),
        hints=("alloc_conf",),
    ),
    Failure(
        id="alloc-conf-unknown-option",
        mode="allocator",
        component="torch_npu",
        patterns=(r"Unrecognized CachingAllocator option: \w{1,80}",),
        codes=(),
        meaning="PYTORCH_NPU_ALLOC_CONF (or PYTORCH_CUDA_ALLOC_CONF) names an option this "
        "torch / torch_npu does not know",
        causes=("an option from a newer release or a typo",),
        fix="remove the option from PYTORCH_NPU_ALLOC_CONF; known options: max_split_size_mb, "
        "garbage_collection_threshold, expandable_segments, base_addr_aligned_kb",
        confirm="env.npu",
        sources=(
            Source(CACHING_ALLOC, "official"),
            Source("https://github.com/pytorch/pytorch/issues/123505", "report"),
        ),
        hints=("unrecognized",),
    ),
    Failure(
        id="alloc-conf-expandable-conflict",
        mode="allocator",
        component="torch_npu",
        patterns=(
            r"cannot be enabled with `expandable_segments`",
            r"`expandable_segments` is changed to `False` by default",
        ),
        codes=(),
        meaning="max_split_size_mb or garbage_collection_threshold cannot be combined with "
        "expandable_segments (older torch_npu refuse, newer turn expandable segments off)",
        causes=("PYTORCH_NPU_ALLOC_CONF sets both",),
        fix="keep either expandable_segments:True or max_split_size_mb / "
        "garbage_collection_threshold in PYTORCH_NPU_ALLOC_CONF, not both",
        confirm="env.npu",
        sources=(Source(CACHING_ALLOC, "official"),),
        hints=("expandable_segments",),
    ),
    Failure(
        id="expandable-segments-unsupported",
        mode="allocator",
        component="torch_npu",
        patterns=(r"expandable_segments setting failure",),
        codes=(),
        meaning="expandable segments were asked for but the driver or CANN lacks the virtual "
        "memory API, so torch_npu turned them off",
        causes=("HDK older than 23.0.0, or a CANN without the API",),
        fix="upgrade the driver (HDK >= 23.0.0) or drop expandable_segments from "
        "PYTORCH_NPU_ALLOC_CONF",
        confirm="npu.driver",
        sources=(Source(CACHING_ALLOC, "official"),),
        hints=("fail",),
    ),
    Failure(
        id="alloc-1g-pages-missing",
        mode="allocator",
        component="torch_npu",
        patterns=(r"The malloc 1G large-page physical memory failed",),
        codes=(),
        meaning="PYTORCH_NPU_ALLOC_CONF asks for 1G pages (page_size:1g) but too few 1G huge pages "
        "are reserved, so the allocator falls back to 2M pages (slower, not broken)",
        causes=("page_size:1g without 1G huge pages reserved for the NPU",),
        fix="reserve enough 1G huge pages for the device as the driver guide describes, or drop "
        "page_size:1g from PYTORCH_NPU_ALLOC_CONF",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/interface/AclInterface.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="pin-memory-expandable-graph",
        mode="allocator",
        component="torch_npu",
        patterns=(r"ACLGraph capture is not supported when pin_memory_expandable_segments=True",),
        codes=(),
        meaning="graph capture (ACLGraph) cannot run with pinned host memory in expandable "
        "segments: PYTORCH_NPU_ALLOC_CONF sets pin_memory_expandable_segments",
        causes=("pin_memory_expandable_segments:True with torch.npu graphs (ACLGraph)",),
        fix="remove pin_memory_expandable_segments from PYTORCH_NPU_ALLOC_CONF, or keep pin_memory "
        "calls out of the captured region",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUGraph.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("not support",),
    ),
    Failure(
        id="vllm-camem-missing",
        mode="allocator",
        component="vllm-ascend",
        patterns=(
            r"camem allocator is not available",
            # the extension failing to load because its own kernels library was never built
            # (another library it names is that library's failure, not this one)
            r"Failed to import vllm_ascend_C: ?libvllm_ascend_kernels\.so",
            # its ops missing ("'_C_ascend' object has no attribute 'weak_ref_tensor'")
            r"'_C_ascend' object has no attribute",
        ),
        codes=(),
        meaning="vllm-ascend's compiled extension (vllm_ascend_C, with its kernels library) is "
        "missing or does not load: this vllm-ascend was installed without it; vLLM's sleep mode "
        "needs the CaMem allocator it holds",
        causes=(
            "vllm-ascend built or installed without its custom kernels (an editable install "
            "whose build skipped them)",
        ),
        fix="reinstall vllm-ascend with its extension built (from source: export "
        "COMPILE_CUSTOM_KERNELS=1 before pip install; or the release wheel, which has it), or "
        "run without enable_sleep_mode",
        confirm=None,
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/556", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/1114", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/3342", "maintainer"),
        ),
        hints=("camem",),
    ),
    Failure(
        id="sleep-mode-expandable-segments",
        mode="allocator",
        component="torch_npu",
        patterns=(
            r"Sleep mode freed 0\.00 GiB memory",
            r"Expandable segments are not compatible with memory pool",
        ),
        codes=(),
        meaning="vLLM's sleep mode released no device memory: with expandable segments the NPU "
        "caching allocator's memory is not the kind sleep mode can free",
        causes=("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True with vllm-ascend sleep mode",),
        fix="run sleep mode with PYTORCH_NPU_ALLOC_CONF=expandable_segments:False (or unset)",
        confirm="env.npu",
        sources=(
            Source("https://github.com/modelscope/ms-swift/issues/6636", "report"),
            Source(
                "vllm-project/vllm-ascend vllm_ascend/device_allocator/camem.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea",
                "official",
            ),
        ),
        hints=("sleep mode freed", "not compatible"),
    ),
    Failure(
        id="vllm-profiling-memory-changed",
        mode="device-memory",
        component="vllm",
        # vLLM's check at start-up: "Error in memory profiling. Initial free memory 58247258112,
        # current free memory 58247516160. This happens when the NPU memory was not properly ..."
        patterns=(
            r"Error in memory profiling\. Initial free memory [\d.]{1,20}(?: ?[GM]iB)?, "
            r"current free memory",
        ),
        codes=(),
        meaning="vLLM measures the device's free memory before and after its profiling run; it "
        "did not fall meanwhile (it grew, or stayed), so another user of the same NPU freed "
        "memory while vLLM started and its KV-cache budget cannot be trusted (not an "
        "out-of-memory)",
        causes=(
            "training colocated on the same NPUs (a GRPO / RL trainer's actor or reference "
            "model) releasing memory while the rollout engine starts",
            "another vLLM instance or a job on the device being torn down at the same moment",
        ),
        fix="start vLLM when the device's memory is quiet: free the trainer's memory first "
        "(gc.collect(); torch.npu.empty_cache()) and start the engines one at a time; under "
        "colocation use the trainer's sleep-mode options; on GPUs, vLLM's kv_cache_memory_bytes "
        "skips the check (vllm-ascend's worker has no such option before its PR 8289)",
        confirm=None,
        sources=(
            Source("https://github.com/modelscope/ms-swift/issues/3241", "report"),
            Source("index id 57553763272 (a colocated RL run's notes)", "report"),
            Source("index id 55183006487 (a sibling torn down while profiling)", "report"),
            Source("index id 60330346658 (kv_cache_memory_bytes skips the check)", "report"),
        ),
        hints=("error",),
    ),
    Failure(
        id="vllm-ascend-nz-in-rl",
        mode="allocator",
        component="vllm-ascend",
        # vllm-ascend's refusal, which names its own fix
        patterns=(
            r"Error: FRACTAL_NZ mode is enabled\. This may cause model parameter precision issues",
        ),
        codes=(),
        meaning="vllm-ascend's FRACTAL_NZ weight layout repacks parameters as they load; in "
        "reinforcement learning the actor pushes new weights every step, and the repacking "
        "would change them, so vllm-ascend refuses",
        causes=("an RL trainer (verl, OpenRLHF) running vllm-ascend rollouts with NZ on",),
        fix="export VLLM_ASCEND_ENABLE_NZ=0 for the rollout workers (for Ray trainers in "
        "ray.init's runtime_env env_vars)",
        confirm=None,
        sources=(
            Source(
                "easyr1's NPU patterns catalogue, NPU-ENV-002 (the public file index's id "
                "51770230308)",
                "report",
            ),
        ),
        hints=("err",),
    ),
)
