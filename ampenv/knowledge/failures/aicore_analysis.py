"""What Ascend's AI Core error analyser (msaicerr, `asys analyze -r aicore`) concluded about a
kernel that failed: its "Root cause conclusion" names whose fault it is, which the runtime's
own lines (507015, EZ9999) do not."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source, hicann_page

TROUBLESHOOTING = (
    "https://www.hiascend.com/doc_center/source/zh/canncommercial/800/developmentguide/"
    "maintenref/troubleshooting/{}.html (CANN 8.0.0 troubleshooting)"
)

# msaicerr's own code: the conclusions it may reach, in its words, and the order it tries them
MSAICERR = Source(
    "Ascend's msaicerr, aicore_error_info.py's _get_conclusion (the public file index's id "
    "45845446654)",
    "official",
)

# CANN's guide to msaicerr: its info.txt's conclusions, with what each means and what to do
USE_MSAICERR = hicann_page(
    "use_msaicerr_ai_core_err.md", "3eee5883a19b37fdd6893f995b7c454d1622eafe", "table 1"
)

FAILURES = (
    Failure(
        id="msaicerr-operator-at-fault",
        mode="core-exception",
        component="aicore",
        # msaicerr's root-cause conclusion after it replayed the failing kernel alone
        # its conclusion, not an item of a list or a table of the ones it may reach
        patterns=(
            r"(?<![\w.)*|-])(?<![\w.)*|-] )(?<![\w.)*|-]  )(?<!、)"
            r"Failed to execute the single-operator test case\. The operator logic may",
            # the same conclusion in msaicerr's older wording
            r"Single op test aicore error, please check op",
        ),
        codes=(),
        meaning="msaicerr replayed the failing kernel alone and it failed again: the fault is the "
        "operator's own (its logic, its compiled code, its input or its tiling), not the node's",
        causes=(
            "the operator's logic (it reads or writes memory it was not given)",
            "wrong input data, indices above all, or wrong tiling data",
            "the compiler emitting a wrong instruction",
        ),
        fix="run the replay msaicerr wrote (the command in info_<time>/debug_info.txt, "
        "test_single_op.py) to reproduce it, and report it with the info_<time> folder to the "
        "operator's owner",
        confirm=None,
        sources=(
            Source(
                "hicann/docs docs/zh/troubleshooting/single_operator_run_error.md"
                "@0eadb61a993b384a333d3a93ddf2a83b6daba48f",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="msaicerr-args-overwritten",
        mode="core-exception",
        component="aicore",
        # its conclusion as msaicerr spells it ("diffrerent", "excute", "overwrited") or not
        patterns=(
            r"The args of op is di\w{1,4}rent before and after ex\w{0,2}cute, args may be "
            r"overwrit\w{0,3} by other op",
            # its root-cause conclusion in the report's words
            r"If the arguments are inconsistent before and after operator execution, memory "
            r"access may be out of bounds",
        ),
        codes=(),
        meaning="msaicerr compared the failing kernel's arguments before and after it ran: they "
        "differ, so something wrote over them while it ran (a memory overwrite), and the "
        "kernel read addresses that were not its own",
        causes=(
            "another operator writing out of its bounds over this kernel's argument memory",
            "a custom operator or a framework freeing or reusing the arguments' memory early",
        ),
        fix="find the operator that writes out of bounds: turn on CANN's operator "
        "memory-overwrite check (the 'oom' item of the op_debug_config option, e.g. ATC "
        "--op_debug_config with oom, or the framework's graph option for it), rerun, collect "
        "with asys and report the operator it names",
        confirm=None,
        sources=(
            Source(TROUBLESHOOTING.format("troubleshooting_0017"), "official"),
            hicann_page(
                "operator_input_args_inconsistent.md", "80afc5e236fbcff31e1f90e91c7213c8a3080eb0"
            ),
        ),
        hints=("overwrit",),
    ),
    Failure(
        id="msaicerr-io-address-abnormal",
        mode="core-exception",
        component="aicore",
        # msaicerr's conclusion when an input or output address is outside every allocation
        patterns=(
            r"The input/output memory address of the operator is abnormal",
            # msaicerr's older wordings: an address not allocated, or the dump of it failing
            r"Please check addrs\. The addr of input/output is used but not alloc",
            r"Dump data failed in exception dump! Address of input or output is error",
        ),
        codes=(),
        meaning="msaicerr found an input or output address of the failing kernel outside the "
        "device memory the process allocated (its report lists each: 'input[N] is out of "
        "range'): the kernel was given a bad address",
        causes=(
            "the application's own buffers (an offline model's inputs and outputs, a single "
            "operator's): freed, never allocated, or host memory",
            "else the framework allocating a wrong address",
        ),
        fix="for an offline model or a single operator, check the device buffers the "
        "application allocated for it (their sizes and lifetime; no host pointers); else "
        "collect with asys and report the msaicerr output to the framework's owners",
        confirm=None,
        sources=(
            hicann_page(
                "operator_io_address_abnormal.md", "96217e9acd4da744a739b8f94b020fbe0cc7fcca"
            ),
            MSAICERR,
        ),
        hints=("abnormal", "fail"),
    ),
    Failure(
        id="msaicerr-atomic-overflow",
        mode="core-exception",
        component="aicore",
        # msaicerr's conclusion where the error is 0x800000 and the plog holds "dha status 1";
        # its info.txt's words for it ("Atomic add has a precision overflow. Check the operator
        # precision."; the "\s" makes the key its end, read in the pass for "the ")
        patterns=(
            r"dha status 1\W{0,3} found in log\. It means Atomic accumulation exception",
            r"Atomic add has a\sprecision overflow\. Check the operator precision",
        ),
        codes=(),
        meaning="msaicerr read the failing kernel's error as an atomic accumulation (atomic add) "
        "that overflowed: extreme values (inf, NaN, huge sums) reached an operator that adds "
        "into its output atomically",
        causes=(
            "the data itself: inputs or activations that overflow the dtype (fp16 above all)",
            "a false report: on Atlas A2 training products, or with several jobs on the device "
            "at once, msaicerr may conclude this wrongly",
            "memory out of bounds read as an overflow: the device log (slog) then holds 'Vm "
            "fault failed'",
        ),
        fix="first grep the device log for 'Vm fault failed' (`grep -r 'Vm fault failed' "
        "<asys output>/slog`): there, the kernel read memory out of its bounds (find the "
        "operator and check its inputs, as for an AI Core exception); else check the input "
        "data and the network's precision (find where inf/NaN first "
        "appear: msprobe's overflow check, or ASCEND_LAUNCH_BLOCKING=1 and the operator's "
        "inputs; keep the accumulation in fp32); before that, rerun with this job alone on "
        "the device and collect again, since several jobs at once make this conclusion false",
        confirm=None,
        sources=(
            MSAICERR,
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC2alpha002/"
                "devguide/maintenref/troubleshooting/troubleshooting_0018.html",
                "official",
            ),
            USE_MSAICERR,
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/"
                "maintenref/troubleshooting/troubleshooting_0015.html (atomic add overflow: "
                "'Vm fault failed' in the device log means memory out of bounds instead)",
                "official",
            ),
        ),
        hints=("exception",),
    ),
    Failure(
        id="msaicerr-input-data-invalid",
        mode="core-exception",
        component="aicore",
        # msaicerr's conclusion when the exception dump's inputs hold NaN or inf
        patterns=(r"Input data is abnormal\. Check the network accuracy",),
        codes=(),
        meaning="msaicerr read the failing kernel's inputs from the exception dump and found "
        "them invalid (NaN or inf): the kernel failed on the data it was given, which an "
        "earlier operator produced",
        causes=(
            "an overflow upstream (fp16 activations or gradients, a loss not scaled)",
            "bad input data (a sample, an uninitialised buffer)",
        ),
        fix="find the first operator whose output holds NaN/inf (msprobe's overflow check or "
        "dump, or ASCEND_LAUNCH_BLOCKING=1 with the inputs checked), then fix the precision "
        "there (loss scaling, fp32 for that operator) or the data",
        confirm=None,
        sources=(MSAICERR,),
        hints=("abnormal",),
    ),
    Failure(
        id="msaicerr-fewer-ai-cores",
        mode="core-exception",
        component="aicore",
        # (its words hold no error word: read whole, in the pass for "the ")
        patterns=(
            r"The number of AI Cores in the environment is less than that required by the "
            r"operator",
        ),
        codes=(),
        meaning="msaicerr compared the failing kernel's block count with the AI Cores of the "
        "device it runs on, and the device has fewer than the kernel was launched with: its "
        "analysis there cannot stand for the node that failed",
        causes=(
            "msaicerr run on another machine or chip than the one the error happened on",
            "a device whose usable AI Cores are fewer than its model's (a fault, a partition)",
        ),
        fix="run msaicerr on the node where the error happened (or one of the same chip, with "
        "the same AI Core count: `npu-smi info -t common -i <id>`); where the counts match, "
        "report it to Ascend support with the info_<time> folder",
        confirm="npu.devices",
        sources=(USE_MSAICERR,),
        hints=("fail",),
    ),
    Failure(
        id="msaicerr-memory-clean-missing",
        mode="core-exception",
        component="aicore",
        patterns=(
            r"The memset or atomic_clean operator is not inserted before this operator in the "
            r"graph",
        ),
        codes=(),
        meaning="msaicerr found the failing operator needs its output memory cleared before it "
        "runs (it accumulates into it), and the graph holds no memset/atomic_clean operator "
        "before it: it added into stale memory",
        causes=("the graph compiler (GE) leaving out the clean operator for it",),
        fix="report it to Ascend support with the info_<time> folder and the graph (a custom "
        "operator: declare that its output needs clearing, so that the clean is inserted)",
        confirm=None,
        sources=(USE_MSAICERR,),
        hints=("fail",),
    ),
    Failure(
        id="msaicerr-sync-flags-unpaired",
        mode="core-exception",
        component="aicore",
        # (the "\s" about "are" keep it out of the key, "the set_flag and wait_flag
        # instructions": a word five keys share is a pass of its own)
        patterns=(
            r"The set_flag and wait_flag instructions\sare\snot used together in the operator "
            r"code",
        ),
        codes=(),
        meaning="msaicerr found the failing kernel's set_flag and wait_flag instructions (its "
        "pipeline synchronisation) not paired: a pipe waits for a flag nobody sets, or a set "
        "goes unawaited",
        causes=("a custom operator's synchronisation code", "a built-in operator's defect"),
        fix="a custom operator: pair every SetFlag with its WaitFlag in the kernel's code (the "
        "same event id and pipes), then rebuild; a built-in one: report it to Ascend support "
        "with the info_<time> folder",
        confirm=None,
        sources=(USE_MSAICERR,),
        hints=("fail",),
    ),
)
