"""Code written for GPUs run on an NPU node: CUDA asked for by name, apex's CUDA extensions,
a library's device check that knows CUDA only."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source
from ampenv.knowledge.failures.python_api import unhandled

# the migration tool's FAQ of run-time errors (msfmktransplt: code for GPUs moved to the NPU)
TRANSPLANT_FAQ = (
    "Ascend/mstt msfmktransplt/README.md (its mirror xiaobingling93-pixel/Ascend-mstt"
    "@99c2e0f990a17d328f487062acc9c490f7f6ff26), FAQ table 8 ({})"
)

FAILURES = (
    Failure(
        id="cuda-call-on-npu",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"Torch not compiled with CUDA enabled",),
        codes=(),
        meaning="the code asked for CUDA on an NPU node: a torch.cuda call, a 'cuda' device, or "
        "a bare device number that torch reads as a CUDA device",
        causes=(
            "code written for GPUs run without its NPU port (torch.cuda.*, .cuda(), device='cuda')",
            "a device given as an int where torch_npu needs 'npu:<id>'",
        ),
        fix="import torch_npu and `from torch_npu.contrib import transfer_to_npu` at the top of "
        "the entry script (it maps torch.cuda calls and 'cuda' devices to the NPU), or pass "
        "device='npu:<id>' / torch.npu.* explicitly",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/contrib/transfer_to_npu.py, "
                "github.com/Ascend/pytorch@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(
                "wangshuai09/Notebook QA/Error.md@1dde65b641956f59535106ab12f2e63d8ccfde94"
                " (a device given as an int)",
                "report",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="apex-cuda-extension",
        mode="torch-pairing",
        component="apex",
        # NVIDIA apex's CUDA extensions (its setup.py --cuda_ext), imported by apex's fused
        # layers and optimizers or by code written for them; not where apex warns and falls
        # back to Python ("Using Python fallback. Original ImportError was: ...")
        patterns=(
            # (not a page's `No module named 'x'` in backticks, a doc naming the error; not
            # what apex's warnings recount as they fall back, read off a screen's row too:
            # 'Original ImportError was: ModuleNotFoundError("No ...', 'the cuda backend was: No')
            r"(?<!`)(?<!\([\"'])(?<!was: )(?<!was:  )No module named \\?['\"]?"
            r"(?:amp_C|syncbn|fused_layer_norm_cuda|mlp_cuda|fused_dense_cuda|fused_adam_cuda"
            r"|fused_lamb_cuda|fused_weight_gradient_mlp_cuda"
            r"|scaled_(?:upper_triang_)?(?:masked_)?softmax_cuda)(?![\w])",
        ),
        codes=(),
        judge=unhandled,
        meaning="code imported one of NVIDIA apex's CUDA extensions (FusedLayerNorm's "
        "fused_layer_norm_cuda, amp_C's multi-tensor kernels, FusedAdam's): apex builds them "
        "with CUDA only, and on an NPU node there are none",
        causes=(
            "code written for apex on GPUs (FusedLayerNorm, FusedAdam, apex's multi-tensor "
            "scaling) run on NPUs",
            "apex installed without its extensions (pip install apex, or sources built "
            "without --cuda_ext)",
        ),
        fix="use the NPU's own layers in their place: torch.nn.LayerNorm for FusedLayerNorm, "
        "torch.optim.AdamW or torch_npu.optim.NpuFusedAdamW for FusedAdam; for mixed "
        "precision use torch.autocast('npu') with torch.npu.amp.GradScaler, Ascend's apex "
        "built for NPUs, or `from ampenv import amp` (apex's amp.initialize and "
        "amp.scale_loss on any device)",
        confirm="python.stack",
        sources=(
            Source(
                "NVIDIA/apex setup.py (its CUDAExtension names), index id 2055547312", "official"
            ),
            Source(
                "Ascend/ModelZoo-PyTorch PyTorch/contrib/nlp/Bertsum_for_PyTorch/README.md, index "
                "id 33195233428 (FusedLayerNorm replaced by torch.nn.LayerNorm)",
                "official",
            ),
        ),
        hints=("no module named",),
    ),
    Failure(
        id="flash-attn-on-npu",
        mode="torch-pairing",
        component="flash_attn",
        patterns=(
            # transformers' check_imports scans a remote-code model's file as text, so an
            # import under is_flash_attn_2_available() still demands the package
            r"not found in your environment: (?:[\w-]{1,40}, ){0,8}flash_attn\b",
            # raised, not a model's warning that goes on without it ("`flash-attention` package
            # not found, consider installing for better performance: No module named ...")
            r"Error: No module named \\?['\"]?flash_attn(?:_2_cuda)?(?![\w.])",
            # transformers' check for attn_implementation="flash_attention_2", and the
            # package's metadata it looked up
            r"the package flash_attn seems to be not installed",
            r"PackageNotFoundError: No package metadata was found for flash[_-]attn\b",
        ),
        codes=(),
        judge=unhandled,
        meaning="code asked for flash_attn (Dao's FlashAttention) and it is not installed: it is "
        "built with CUDA only, so an NPU node has none, and pip cannot build it there",
        causes=(
            "a model's remote code (trust_remote_code) imports flash_attn, and transformers "
            "demands every module the file names before it runs, guarded or not",
            "code written for GPUs imports flash_attn (its bert_padding helpers, "
            "flash_attn_varlen_func) directly",
            "a flash_attn module without its package's metadata (a stub or shim some images and "
            "ports install): transformers finds the module, then no package "
            "(PackageNotFoundError)",
            "attn_implementation='flash_attention_2' with a transformers release that wants the "
            "package for it: on NPUs a release without PR #36696's NPU flash attention, or one "
            "between PR #39474 and its fix #39844",
        ),
        fix="on an NPU node do not install flash_attn (on a GPU node: the flash-attn wheel "
        "built for its CUDA and torch), and remove a stub that has no metadata (`python -c "
        "'import flash_attn; print(flash_attn.__file__)'` finds it); comment out the "
        "flash_attn imports of the model's modeling_*.py (its weights folder, or the cached "
        "copy under ~/.cache/huggingface/modules/transformers_modules) and load it with "
        "attn_implementation='sdpa' or 'eager' (the same for a job that asks for "
        "'flash_attention_2' itself); where flash attention is wanted use "
        "torch_npu.npu_fusion_attention, or a transformers release with "
        "integrations/npu_flash_attention.py, which serves 'flash_attention_2' on NPUs",
        confirm="python.stack",
        sources=(
            Source(
                "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_train_91248"
                ".html (LlamaFactory on NPUs, training FAQ 3: the flash_attn check commented out)",
                "official",
            ),
            Source(
                "an Ascend quantization guide's DeepSeek-V3/R1 QA, index id 56966345982 "
                "(flash_attn unsupported on Ascend: comment it out of modeling_deepseek.py)",
                "official",
            ),
            Source(
                "huggingface/transformers src/transformers/integrations/npu_flash_attention.py"
                "@b06759150d7c686373913875d4cfae6cb41df963",
                "official",
            ),
            Source("easyr1's NPU patterns catalogue, index id 51770230308 (NPU-CP-005)", "report"),
            Source(
                "https://github.com/huggingface/transformers/pull/36383 (on NPUs, 'sdpa' for "
                "flash_attention_2)",
                "maintainer",
            ),
            Source(
                "https://github.com/huggingface/transformers/pull/39844 (flash_attention_2 "
                "without the package on NPUs again)",
                "maintainer",
            ),
        ),
        hints=("no module named", "not found", "not installed", "error"),
    ),
    Failure(
        id="transformers-fp16-cuda-only",
        mode="dtype",
        component="transformers",
        # TrainingArguments' device check of a release that knew no NPU (older ones began
        # "Mixed precision training ..."); later releases say "... on CUDA or NPU devices"
        patterns=(
            r"ValueError: (?:FP16 )?Mixed precision training with AMP or APEX \(`--fp16`\)"
            r"[^\n]{0,200}? can only be used on CUDA devices\.",
        ),
        codes=(),
        meaning="transformers refused --fp16 on the NPU: its TrainingArguments of this release "
        "allows fp16 mixed precision on CUDA devices only (releases that know NPUs name them "
        "in the same check)",
        causes=(
            "a transformers release older than its NPU support, pinned by the model's requirements",
        ),
        fix="install a transformers release whose check admits NPUs (its message then reads "
        "'CUDA or NPU devices'), within what the model supports; where the pin must stay, the "
        "model's FAQ patches the device check in transformers/training_args.py",
        confirm="python.stack",
        sources=(
            Source(
                "huggingface/transformers src/transformers/training_args.py (the check naming "
                "NPU devices), index id 33148240859",
                "official",
            ),
            Source(
                "Ascend ModelZoo-PyTorch PyTorch/built-in/foundation/ChatGLM2-6B/README.md FAQ 7 "
                "(a fork's copy), index id 52761746312",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="cuda-checkpoint-on-npu",
        mode="torch-pairing",
        component="torch",
        # torch.load of storages saved on a GPU, on a node where CUDA is not available
        patterns=(r"Error: Attempting to deserialize object on a CUDA device but torch\.cuda\.",),
        codes=(),
        meaning="torch.load read a checkpoint saved from CUDA tensors on a node without CUDA: its "
        "storages are restored to the device they were saved on unless told otherwise",
        causes=("a checkpoint written on a GPU loaded on an NPU (or CPU) node",),
        fix="load it onto the CPU or the NPU: torch.load(path, map_location='cpu') (or "
        "map_location='npu:<id>'), then move the model to the NPU",
        confirm=None,
        sources=(
            Source("https://pytorch.org/docs/stable/generated/torch.load.html", "official"),
            Source(TRANSPLANT_FAQ.format("row 1: map_location"), "official"),
        ),
        hints=("error",),
    ),
    Failure(
        id="apex-amp-after-ddp",
        mode="dtype",
        component="apex",
        # apex.amp.initialize given a model already wrapped for data parallelism
        patterns=(
            r"Error: Incoming model is an instance of torch\.nn\.parallel\.DistributedDataParallel",
        ),
        codes=(),
        meaning="apex's amp.initialize was given a model already wrapped in "
        "DistributedDataParallel: AMP must patch the bare model (and its optimizer) first",
        causes=("the script wraps the model in DDP before calling amp.initialize",),
        fix="call model, optimizer = amp.initialize(model, optimizer, opt_level=...) first and "
        "wrap the model it returns in DistributedDataParallel after it",
        confirm=None,
        sources=(
            Source("NVIDIA/apex apex/amp/_initialize.py (check_models)", "official"),
            Source(TRANSPLANT_FAQ.format("row 7: DDP after amp.initialize"), "official"),
        ),
        hints=("error",),
    ),
)
