"""The limits an NPU launch and Triton-Ascend hold a kernel to, in their own words: a launch grid
past the 65535 programs a launch takes or with none at all, and a pure-SIMT kernel whose stack
per warp is past the limit its compiler was given."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="kernel-grid-over-coredim",
        mode="core-exception",
        component="triton-ascend",
        # the runtime refusing a launch whose grid (one program per block of work) is larger
        # than a kernel launch may ask for:
        # "KernelLaunch failed because value 74688 for parameter coreDim is invalid. Expected
        # value: less than or equal to 65535." (read by the value: the expectation may wrap onto
        # a next line; its other wording, "coreDim=N can't be greater than UINT16_MAX", holds
        # no word an error's line has: not read)
        patterns=(
            r"value (?:6553[6-9]|655[4-9]\d|65[6-9]\d\d|6[6-9]\d{3}|[7-9]\d{4}|[1-9]\d{5,11}) "
            r"for parameter coreDim is invalid",
        ),
        codes=(),
        meaning="a kernel (a Triton-Ascend kernel, most often) was launched with more programs "
        "than a launch may have (coreDim at most 65535): its grid grows with the input (one "
        "program per token or row), so large batches pass the limit",
        causes=(
            "a Triton kernel written for GPUs, whose grid is one program per token or row, "
            "given a batch past 65535 of them",
            "a library's kernel (vllm-ascend's penalties' bincount) given a batch or prompts "
            "larger than its grid was written for",
        ),
        fix="where the kernel's programs may run in any order, export "
        "TRITON_ALL_BLOCKS_PARALLEL=1 (Triton-Ascend then fits the grid to the physical cores "
        "and allows more than 65535; a kernel that depends on the order can deadlock); else "
        "keep the grid within 65535: a fixed number of programs looping over the rows inside "
        "the kernel (a larger BLOCK_SIZE), or the framework's release whose NPU path does so "
        "(sglang's falls back to PyTorch operators there)",
        confirm=None,
        sources=(
            Source(
                "https://github.com/sgl-project/sglang/issues/28272 (fixed by its pull request "
                "28293: PyTorch operators on NPUs)",
                "maintainer",
            ),
            Source(
                "triton-lang/triton-ascend docs/en/migration_guide/migrate_from_gpu.md and "
                "environment_variable_reference.md@a84b1eb52b6215e2c171632f2df0892f1003cfc8 "
                "(coreDim, TRITON_ALL_BLOCKS_PARALLEL)",
                "official",
            ),
            Source(
                "vllm-project/vllm-ascend@f95a31ec266552a73cd8443810884085ae2e3880 (PR #10138, "
                "bincount's grid with repetition_penalty, commit message)",
                "maintainer",
            ),
        ),
        hints=("is invalid",),
    ),
    Failure(
        id="kernel-grid-empty",
        mode="core-exception",
        component="triton-ascend",
        # a launch with no program at all: "KernelLaunch failed because value 0 for parameter
        # coreDim is invalid. Expected value: not equal to 0."
        patterns=(r"value 0 for parameter coreDim is invalid\. Expected value: not equal to 0",),
        codes=(),
        meaning="a kernel was launched with an empty grid (no program): the NPU's launch refuses "
        "coreDim 0 where a GPU launches nothing; the batch the grid is sized from was empty",
        causes=(
            "a rank with no work at this step (a data-parallel rank without requests, an empty "
            "batch or bucket) still launching its kernels",
        ),
        fix="skip the launch when the grid is empty (return early on a batch of 0); a "
        "framework's kernel: its release with that guard",
        confirm=None,
        sources=(
            Source(
                "https://github.com/sgl-project/sglang/pull/30589 (merged: an early return in "
                "rotate_input_ids_triton for a batch of 0)",
                "maintainer",
            ),
        ),
        hints=("is invalid",),
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
