"""The limits Triton-Ascend holds a kernel to, in its own words: a launch grid past the 65535
blocks an NPU launch takes, and a pure-SIMT kernel whose stack per warp is past the limit its
compiler was given. Both name the figure to change."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="triton-grid-too-large",
        mode="compile-cache",
        component="triton-ascend",
        # "KernelLaunch failed because value 74688 for parameter coreDim is invalid. Expected
        # value: less than or equal to 65535." (its other wording, "coreDim=N can't be greater
        # than UINT16_MAX", holds no word a line of an error has: not read)
        patterns=(r"KernelLaunch failed because value \d{1,12} for parameter coreDim is invalid",),
        codes=(),
        meaning="a Triton kernel was launched with more blocks than an NPU launch takes: the "
        "grid's product (coreDim) may be at most 65535 (UINT16_MAX), and a grid sized for a "
        "GPU (one block per row or per small tile) passes it on large inputs",
        causes=(
            "a grid of cdiv(N, BLOCK_SIZE) blocks with a BLOCK_SIZE too small for N",
            "a library's kernel (vllm-ascend's penalties' bincount) given a batch or prompts "
            "larger than its grid was written for",
        ),
        fix="make the grid fit: a BLOCK_SIZE of at least triton.next_power_of_2(cdiv(N, "
        "65535)), or a fixed grid of about the core count with a loop over the blocks inside "
        "the kernel; or set TRITON_ALL_BLOCKS_PARALLEL=1 (Triton-Ascend's migration guide); a "
        "library's kernel: its release with the fix, until then smaller batches or prompts",
        confirm=None,
        sources=(
            Source(
                "Ascend/triton-ascend docs/en/migration_guide/migrate_from_gpu.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (FAQ: the coreDim limit)",
                "official",
            ),
            Source(
                "vllm-project/vllm-ascend@f95a31ec266552a73cd8443810884085ae2e3880 (PR #10138, "
                "bincount's grid with repetition_penalty, commit message)",
                "maintainer",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="triton-simt-stack-over-limit",
        mode="compile-cache",
        component="triton-ascend",
        # BiShengIR's check in simt_only mode: "[ERROR] SIMT stack size (1072 * 1 * 32 = 34304)
        # of kernel ... exceeds limit (8192)"
        patterns=(r"\[ERROR\] SIMT stack size \([^\n]{0,80}\) of kernel \S{1,300} exceeds limit",),
        codes=(),
        meaning="Triton-Ascend compiled a pure-SIMT kernel (compile_mode='simt_only' or "
        "force_simt_only=True) whose stack per warp is larger than the limit its compiler was "
        "given (simt_stack_limit; the autotuner's default is 8192 bytes)",
        causes=(
            "large per-thread local arrays or register spills in the kernel",
            "a limit set lower than the chip allows",
        ),
        fix="cut the kernel's stack: smaller per-thread arrays or tiles, fewer values live at "
        "once; or raise the limit where the chip allows it (the simt_stack_limit compile "
        "option, passed with the launch like num_warps)",
        confirm=None,
        sources=(
            Source(
                "Ascend/triton-ascend@5005fde347da1f04d0e1a4be6a75e5d74cd93e24 (merge request "
                "Ascend/triton-ascend!1151, simt_stack_limit, commit message)",
                "maintainer",
            ),
            Source(
                "Ascend/triton-ascend third_party/ascend/backend/runtime/autotuner.py"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (simt_stack_limit = 8192)",
                "official",
            ),
        ),
        hints=("error",),
    ),
)
