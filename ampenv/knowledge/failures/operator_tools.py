"""An operator's own build and its debugging tools: the CCE compiler's limits on an AI Core
kernel, msSanitizer's record buffer."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="aicore-kernel-stack-frame-too-large",
        mode="compile-cache",
        component="compiler",
        # the CCE compiler building an Ascend C kernel: "error: stack frame size (16024) exceeds
        # limit (16000) in function '_ZN7AscendC9ReduceSum...'" (16000 bytes: an AI Core
        # function's default stack, which a -O0 -g build for msDebug outgrows)
        patterns=(r"error: stack frame size \(\d{1,9}\) exceeds limit \(16000\) in function",),
        codes=(),
        meaning="an Ascend C kernel function needs more stack than the AI Core's default 16000 "
        "bytes, so the CCE compiler refuses to build it",
        causes=(
            "a debug build (-O0 -g, as msDebug needs) keeping every local on the stack",
            "large local arrays or deep inlining in the kernel",
        ),
        fix="raise the AI Core stack in the kernel's CCE compile options: `-mllvm "
        "-cce-aicore-function-stack-size=0x8000 -mllvm -cce-aicore-stack-size=0x8000` (an "
        "msOpGen project: in cmake/Modules/CMakeDetermineCCECompiler.cmake), or build with "
        "optimisation when not debugging",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/doc_center/source/zh/mindstudio/70RC1/mscommandtoolug/"
                "mscommandug/atlasopdev_16_0053.html (msDebug FAQ: stack frame size over the "
                "limit with -O0 -g)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="mssanitizer-records-lost",
        mode="core-exception",
        component="mssanitizer",
        # msSanitizer's report after a run: "113023 records undetected, please use
        # --cache-size=xx to run the operator again"
        # It holds no error word: its key is its longest run of plain text, which the "\s"
        # makes its end, "to run the operator again", searched in the pass for "the " (a key
        # of its own, "records undetected", would be a pass more over every text).
        patterns=(
            r"\d{1,12} records undetected,\splease use --cache-size=\S{1,20} to run the "
            r"operator again",
        ),
        codes=(),
        meaning="msSanitizer's device buffer for the operator's memory records was too small: "
        "that many records were dropped, so its check of the run is incomplete (a clean report "
        "proves nothing)",
        causes=("an operator that makes more memory accesses than the default buffer holds",),
        fix="run the operator under msSanitizer again with a larger --cache-size than this run's "
        "(its default, where none was given), until no record is left undetected",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/canncommercial/850/devaids/optool/"
                "atlasopdev_16_0138.html (msSanitizer FAQ: --cache-size)",
                "official",
            ),
        ),
        hints=("error",),
    ),
)
