"""Compiled extensions against torch: a library built for another torch or torch_npu (its
undefined symbols), and one loaded before torch (torch's own libraries not found)."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source
from ampenv.knowledge.failures.torch_npu import TORCH_NPU_SYMBOLS, TORCH_SYMBOLS

FAILURES = (
    Failure(
        id="extension-torch-undefined-symbol",
        mode="torch-pairing",
        component="extension",
        patterns=(
            # a library's own name, or none (a doc's line): libtorch_npu's is torch_npu's pairing
            rf"^(?![^\n]{{0,400}}libtorch_npu\.so)[^\n]{{0,400}}?undefined symbol: {TORCH_SYMBOLS}"
            r"\w{0,400}",
            rf"(?<!libtorch_npu)\.so(?:\.[\d.]{{1,12}})?: undefined symbol: {TORCH_NPU_SYMBOLS}"
            r"\w{0,400}",
            # torchaudio's and torchvision's own libraries, whatever symbol (torch's stable C
            # ABI's torch_library_impl is no C++ name)
            r"(?:\btorch(?:audio|vision)/[\w/.-]{0,200}?|\b(?:lib)?_?torch(?:audio|vision)\w{0,40})"
            r"(?:\.abi3|\.cpython[\w-]{0,40})?\.so: undefined symbol: \w{1,400}",
        ),
        codes=(),
        meaning="a C++ extension (a custom-op library such as vllm_ascend_C, mmcv's _ext, a "
        "kernel package's torch binding, torchaudio's and torchvision's own libraries) was "
        "built against another torch or torch_npu than the "
        "one installed: a torch, c10 or c10_npu symbol it links against is missing",
        causes=(
            "torch (or torch_npu) upgraded or downgraded after the extension was built or its "
            "wheel installed",
            "the extension's wheel built for another torch release than the one installed",
        ),
        fix="rebuild or reinstall the extension against the installed torch (from source: pip "
        "install --no-build-isolation -e . in its checkout; from a wheel: the wheel built for "
        "this torch), or install the torch release it was built for; check torch and torch_npu "
        "are paired: `ampenv doctor --only python.stack`",
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/1249", "report"),
            Source("https://github.com/open-mmlab/mmcv/issues/3299 (c10_npu symbol)", "report"),
            Source("https://github.com/DeepLink-org/dlinfer/issues/183 (c10_npu::acl)", "report"),
            Source(
                "https://github.com/pytorch/audio/issues/3335 (torchaudio's libraries and "
                "torch's must be of one release and one distribution)",
                "maintainer",
            ),
            Source(
                "https://github.com/JuergenFleiss/atrain_core/issues/47 (_torchaudio.abi3.so: "
                "undefined symbol: torch_library_impl; torchaudio pinned with torch)",
                "report",
            ),
            Source(
                "shared/reference/ascend-facts.md §3 (torch_npu X.Y needs torch X.Y)", "official"
            ),
        ),
        hints=("undefined symbol",),
    ),
    Failure(
        id="torch-libs-not-loaded",
        mode="torch-pairing",
        component="extension",
        # read through the shared-library family: a library of torch's or torch_npu's wheel
        patterns=(),
        codes=(),
        meaning="a compiled extension was loaded before torch: it links torch's own libraries "
        "(libc10.so, libtorch_cpu.so; libtorch_npu.so of torch_npu), which the loader finds "
        "only once `import torch` (`import torch_npu`) has loaded them: an extension carries "
        "no search path to torch/lib",
        causes=(
            "the extension imported first (a script's import order, an import sorter moving "
            "it up, a package importing its compiled module at the top)",
            "the extension's library loaded through ctypes or by another program",
        ),
        fix="import torch (and torch_npu, for an extension of the NPU) before the extension: "
        "`import torch, torch_npu` first; a library loaded outside an import of torch: put "
        "torch's lib folder on the loader's path (`export LD_LIBRARY_PATH=$(python -c 'import "
        "os, torch; print(os.path.dirname(torch.__file__))')/lib:$LD_LIBRARY_PATH`)",
        confirm=None,
        sources=(
            Source(
                "https://github.com/ROCm/vllm/pull/46 (merged: import torch moved before the "
                "extension)",
                "report",
            ),
            Source("https://github.com/pablopalafox/npms/pull/8 (import torch first)", "report"),
            Source(
                "https://github.com/facebookresearch/pytorch3d/issues/1563 (the same _C "
                "imports after import torch)",
                "report",
            ),
            Source(
                "kvcache-ai/ktransformers doc/en/DeepSeek-V4-Flash_tutorial_for_Ascend_NPU.md"
                "@385815d3 (custom_ops_lib.so: import torch and torch_npu first)",
                "maintainer",
            ),
        ),
        hints=(),
    ),
)
