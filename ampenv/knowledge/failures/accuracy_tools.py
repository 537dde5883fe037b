"""What Ascend's accuracy tools (msprobe, and before it ptdbg_ascend, atat and the API accuracy
checker) say about the training they wrap: the stop they raise on purpose once their dump is
done, and a tool release that does not know the installed torch."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

# The tools' sources and FAQ before msprobe (mstt, 2024-07; the files were removed since)
MSTT = "Ascend/mstt debug/accuracy_tools/{}@93290a55317f6dbc53600e046ea16ad125e10016"

FAILURES = (
    Failure(
        id="accuracy-tool-stopped-on-purpose",
        mode="torch-pairing",
        component="msprobe",
        # raised through the training loop once the steps to dump are done, or the overflows
        # to catch were caught; msprobe logs the latter at INFO today
        patterns=(
            r"Exception: (?:ptdbg|atat|msprobe|Model pretest): exit after iteration",
            r"ValueError: \[overflow \w{1,12} times\]: dump file is saved in",
        ),
        codes=(),
        meaning="not a failure: the accuracy tool wrapping the training (msprobe, before it "
        "ptdbg_ascend and atat, the API accuracy checker's pretest dump) stopped it on "
        "purpose, by raising through the training loop, once it had dumped the steps it was "
        "set to (or caught the overflows it was set to)",
        causes=(
            "the dump configured for the steps that ran (set_dump_switch / step list, the "
            "pretest's target_iter; 2nd iteration by default) is complete",
            "overflow detection reached overflow_nums, the number of overflowing APIs to catch",
        ),
        fix="nothing to mend: the dump (or the overflow data in the .pkl the line names) is "
        "written; to dump other steps, change the tool's step list (the pretest: target_iter); "
        "to catch more overflows, raise overflow_nums; to train on, remove the tool's calls",
        confirm=None,
        sources=(
            Source(MSTT.format("ptdbg_ascend/doc/FAQ.md") + " (exit after iteration)", "official"),
            Source(MSTT.format("api_accuracy_checker/README.md") + " (Model pretest)", "official"),
            Source(
                MSTT.format(
                    "ptdbg_ascend/src/python/ptdbg_ascend/overflow_check/overflow_check.py"
                ),
                "official",
            ),
        ),
        hints=("exception", "error"),
    ),
    Failure(
        id="accuracy-tool-torch-unsupported",
        mode="torch-pairing",
        component="msprobe",
        # the dump tool's check that torch has every Tensor method it wraps
        patterns=(r"AssertionError: assert set\(WrapTensorOps\) <= set\(_tensor_ops\)",),
        codes=(),
        meaning="the accuracy tool's release does not support the installed torch: torch lacks "
        "Tensor methods the tool's list of methods to wrap names",
        causes=("a ptdbg_ascend (or msprobe) release older than the torch it runs with",),
        fix="install the tool's release for this torch (ptdbg_ascend 2.2 or newer for torch "
        "1.8, 1.11 and 2.0; today msprobe: pip install -U mindstudio-probe), or the torch the "
        "tool's release supports",
        confirm=None,
        sources=(Source(MSTT.format("ptdbg_ascend/doc/FAQ.md") + " (FAQ 5)", "official"),),
        hints=("error",),
    ),
)
