"""A text that shows no process dying but ends on an error its program reported (an installer's,
a build's, a tool's last words): that record, in its own words; never a record its program
handled and went on from, a count of none, a metric, or a line that quotes one."""

from __future__ import annotations

import sys
import time
from typing import Optional

import pytest
from conftest import FIXTURES
from conftest import logs_errors as _logs_errors

from ampenv.knowledge.failures import Scanner
from ampenv.knowledge.failures.lines import quote, shows_failure
from ampenv.knowledge.failures.logged_error import ROWS_READ, last_logged_error
from ampenv.knowledge.failures.unexplained import SHOWN, Unexplained

CORPUS = FIXTURES / "logs"
INDEX = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli").loads(
    (CORPUS / "INDEX.toml").read_text(encoding="utf-8")
)


def _told(text: str) -> Optional[Unexplained]:
    return last_logged_error(text.encode())


# Real texts of the corpus no entry answers: the record each ends on, and what its words ask.
REAL = [
    ("heldout93_kb_cann_install_pip3_command_not_found.txt", "pip3: command not found", None),
    (
        "heldout91_kb_kernels_pkg_needs_toolkit.txt",
        "[ERROR] Kernel package depends on toolkit nnae or nnrt",
        None,
    ),
    (
        "heldout95_ee1024_aicpu_timeout_with_oom.txt",
        "Stream synchronize failed. Reason: AI CPU operator execution timed out",
        None,
    ),
    (
        "heldout87_ascend_deployer_harbor_login_proxy.txt",
        # (Ansible's task, its rule of stars dropped, and its failure: the block it ends on)
        "TASK [faild to login] task path: /root/offline-deploy/tset.yaml:19 fatal: [172.0.0.99]",
        "please check whether docker proxy is set",
    ),
    (
        "heldout155_tei_bge_910b_prometheus_port_address_in_use.txt",
        "Error: failed to build prometheus recorder Caused by: failed to create HTTP listener",
        None,
    ),
]


@pytest.mark.parametrize(("name", "line", "asks"), REAL, ids=[r[0][:40] for r in REAL])
def test_a_real_error_reported_last_is_told_in_its_own_words(
    name: str, line: str, asks: Optional[str]
) -> None:
    data = (CORPUS / "ascend" / name).read_bytes()
    assert not shows_failure(data)  # no process shows dying: this tier, not a run's end
    end = last_logged_error(data)
    assert end is not None and end.line.startswith(line) and not end.died
    assert end.advice == asks


def test_the_healthy_texts_of_the_corpus_end_on_no_error_but_errors_of_other_programs() -> None:
    # as the check reads them: a text an entry finds something in near its end is that
    # finding's (pip's conflict report, TBE's exit notice: notes); the negatives told end on a
    # real error of a program outside the Ascend stack, which the red team wrote to test that
    # no entry reads them (grep, docker, a network tool's logger, a resolver), and a service's
    # log-format sample of an ERROR record: errors all, told as such
    told = set()
    for e in INDEX["negative"]:
        data = (CORPUS / e["file"]).read_bytes()
        scanner = Scanner()
        scanner.feed_bytes(data, e["file"])
        if not shows_failure(data) and not scanner.hits() and last_logged_error(data):
            told.add(e["file"])
    assert told == {
        "ascend/heldout43_neg_03_pymotor_log_format_sample.txt",
        "ascend/redteam_s12_neg_grep_lib_modules_modinfo_nsf.txt",
        "ascend/redteam_s12_neg_docker_trailing_slash_not_a_directory.txt",
        "ascend/redteam_s12_neg_netmiko_logger_error_gathering.txt",
        "ascend/redteam_s12_neg_firebird_gethostbyname_error_code.txt",
    }


def test_the_healthy_pip_report_is_a_note_that_explains_its_end() -> None:
    # pip's conflict report ends three healthy texts: an entry's note reads it, and a hit
    # near the end says what the end is, so the check tells no error of its own
    text = (CORPUS / "ascend/heldout85_neg_03_torchvision_requirement_benign.txt").read_text()
    check = _logs_errors(text)
    assert check["status"] == "pass" and check["facts"]["unexplained"] == []
    assert [h["id"] for h in check["facts"]["hits"]] == ["pip-requirement-conflict"]


@pytest.mark.parametrize(
    ("text", "line", "first", "last"),
    [
        ("step 1 loss 2.3\nbc: command not found\n", "bc: command not found", 2, 2),
        # a record printed twice (a compiler's two passes) is told once, blanks counting as one
        ("error: stack frame too big\nerror:\tstack frame  too big\n2 errors generated.\n",
         "error: stack frame too big 2 errors generated.", 1, 3),
        # one printed again later is told where it stands: the text's end is its own
        ("E: step 1 failed\nE: step 2 failed\nE: step 1 failed\n",
         "E: step 1 failed E: step 2 failed E: step 1 failed", 1, 3),
        ("a\r\nERROR: install failed\r\n\r\n\r\n", "ERROR: install failed", 2, 2),
        # a progress bar's row rewritten by the error: the record after its CR
        (" 50%|#####     | 5/10 [00:01<00:01, 5.00it/s]\rERROR: download failed\n",
         "ERROR: download failed", 1, 1),
        # a rule or a blank row below is no record
        ("[ERROR] Kernel package depends on toolkit\n--------\n\n", "[ERROR] Kernel package", 1, 1),
        # an error and what follows it: told from the error to the end
        ("E: install failed\nPlease refer to the log for details\n",
         "E: install failed Please refer to the log for details", 1, 2),
        # a cascade: its root first, the rows that say more after it
        ("Execute [netconfig] command failed!\ntoken is incorrect\nhttps return error status "
         "code: 401\n", "Execute [netconfig] command failed! token is incorrect https", 1, 3),
        ("loading\nE | ExpandFunction failed: Tile shape size 1 is not matched the output shape "
         "size 2.\nE | Run pass [ExpandFunction] failed.\n",
         "E | ExpandFunction failed: Tile shape size 1", 2, 3),
        # an error's rows below a record the run went on with: those rows only
        ("INFO started\nerror: x\n", "error: x", 2, 2),
        ("训练失败\n", "训练失败", 1, 1),
        # a sea of blank rows below it is stepped over at once, however long
        ("error: disk gone\n" + "\n" * 100_000, "error: disk gone", 1, 1),
        # an installer's end time below its error, bash's time: when it ended, not a run going on
        ("[ERROR] install failed, the disk of /usr/local is full.\n[INFO] End time: 10:00:05\n",
         "[ERROR] install failed", 1, 1),
        ("cp: cannot create directory 'x': Permission denied\n\nreal\t0m0.014s\nuser\t0m0.002s\n",
         "cp: cannot create directory", 1, 1),
        # what the error asks the reader to do again is no retry of its own
        ("[ERROR] Toolkit install failed, please install the driver first and try again.\n",
         "[ERROR] Toolkit install failed", 1, 1),
        ("[ERROR] driver 23.0 is older than this toolkit requires, cannot continue.\n",
         "[ERROR] driver 23.0", 1, 1),
        ("error: no such file or directory: '/data/train.bin'\n", "error: no such file", 1, 1),
        ("E: Package 'python3.9-dev' has no installation candidate\n", "E: Package", 1, 1),
        ("libascendfaiss.so not found\n", "libascendfaiss.so not found", 1, 1),
        # CANN's installer asks the reader to retry: no retry of its own
        ("[ERROR]: Ascend-cann-toolkit package install failed, please retry after uninstall!\n"
         "[INFO] End time: 2025-01-01 10:00:05\n", "[ERROR]: Ascend-cann-toolkit", 1, 1),
        # an id or a code that is 0 is no count of none
        ("rtGetDevice failed, ret=0x7020016\n", "rtGetDevice failed", 1, 1),
        ("hccl init failed on rank: 0\n", "hccl init failed", 1, 1),
        ("Failed to load dataset: 0 files in /data\n", "Failed to load dataset", 1, 1),
        # a launcher's prefix before a record is no quote
        ("(EngineCore_DP0 pid=12) ERROR 06-01 10:00:00 [core.py:1] EngineCore failed to start\n",
         "(EngineCore_DP0 pid=12) ERROR", 1, 1),
        # a bare prompt after the error: the session's end, not a row of it
        ("bash: foo: command not found\nroot@node1:~# \n", "bash: foo: command not found", 1, 1),
        ("Could NOT find Python3 (missing: Python3_EXECUTABLE Interpreter)\n", "Could NOT", 1, 1),
        # a program's own words for what it could not do
        ("volcano not exist, please deploy volcano\n", "volcano not exist", 1, 1),
        ("can't get ascend_hal device count\n", "can't get ascend_hal", 1, 1),
        ("The postprocessing DLL doesn't exist\n", "The postprocessing DLL", 1, 1),
        # what says a run went on, then a failure: it did not go on (the red team's)
        ("open /data/x: does not exist and creating it failed: permission denied\n",
         "open /data/x", 1, 1),
        ("[ERROR] rank table missing, will use none and cannot start\n", "[ERROR] rank", 1, 1),
        # an error's "creating" is what failed, no clause of its own
        ("Error creating directory /data/ckpt\n", "Error creating directory", 1, 1),
        ("docker: Error response from daemon: error creating overlay mount to /var/lib/docker/x"
         ": invalid argument.\n", "docker: Error response", 1, 1),
        # a terminal's commands are no part of a told line
        ("ERROR: failed \x1b]8;;http://x.example/\x07here\x1b]8;;\x07 \x1b]0;title\x07ok\b\n",
         "ERROR: failed here ok", 1, 1),
    ],
)  # fmt: skip
def test_the_error_block_a_text_ends_on_is_told(
    text: str, line: str, first: int, last: int
) -> None:
    end = _told(text)
    assert end is not None and end.line.startswith(line)
    assert (end.first, end.last, end.count, end.died) == (first, last, 1, False)


@pytest.mark.parametrize(
    "text",
    [
        "ERROR: download failed\nINFO step 2 loss 1.9\n",  # its run went on
        "error: x failed\n 60%|######    | 6/10 [00:01<00:01, 5.00it/s]\n",
        "connect failed\nretrying in 5 s\n",
        "failed to connect, retrying in 5 s\n",
        "flash_attn failed to import, falling back to sdpa\n",
        "Warning: kernel [isneginf.out] failed on the NPU, running on the CPU\n",
        "UserWarning: Could not import the lzma module, installation is incomplete\n",
        "[PYPTO][W] 2025-10-01 device_machine.cpp:612 May exect failed\n",
        "        Error Information              : NA\n",
        "        Double-bit Error Count                   : 0\n",
        "point error count(>0.1): 0/20000\n",
        "error ratio: 0.000030, tolerance: 0.0010\n",
        "max_abs_error=2.38419e-07\n",
        "train done: 0 errors, 3 warnings\n",
        "| Error | 507035 | vector core exception |\n",
        "- fixed the error in the tiling data\n",
        "# [ERROR]The list of missing tools: lspci\n",
        '    print("[Error] device id must be config")\n',
        "If the error `No module named amp_C` appears, rebuild apex\n",
        "root@node1:~# grep -c error train.log\n",
        "INFO[2018-09-26T08:52:48] Container failed to exit within 10 seconds\n",
        'dockerd[592]: time="2025" level=info msg="Container failed to exit within 4m20s"\n',
        "Unscaling non-fp32 grads may indicate an error\n",
        "HCCL_CONNECT_TIMEOUT=1200 timeout=120\n",
        "[INFO] GE(1,python):2024 error_manager.cc:512 add error_code EI0002 success\n",
        "100% tests passed, 0 tests failed out of 3\n",  # CTest's summary
        "\tlibjpeg.so.8 => not found\n",  # ldd's listing
        "Clang version: Could not collect\n",  # collect_env's
        "[conda] Could not collect\n",
        "Could not find a GPU, using the CPU\n",
        "can't import apex, skipping the fused optimizer\n",
        # "could not" alone is a notice (apt in every image that installs a service), and what
        # says it went on: creating, will try (the red team's)
        "invoke-rc.d: could not determine current runlevel\n"
        "invoke-rc.d: policy-rc.d denied execution of start.\n",
        "Output directory /data/ckpt does not exist, creating it.\n",
        "[Weaviate] Messages schema does not exist. Creating...\n",
        'Release "npu-exporter" does not exist. Installing it now.\n',
        "sh: 0: can't access tty; job control turned off\n$ \n",
        # an ssh login's X11 forwarding (xauth creates the file), apt's notice on a local .deb
        "Last login: Mon Dec  1 10:00:00 2026 from 10.0.0.1\n"
        "/usr/bin/xauth:  file /root/.Xauthority does not exist\n",
        "N: Download is performed unsandboxed as root as file '/root/a_1.0_amd64.deb' couldn't "
        "be accessed by user '_apt'. - pkgAcquire::Run (13: Permission denied)\n",
        "Could not locate the tokenizer configuration file, will try to use the model config "
        "instead.\n",
        # Go's and mlflow's records: a date with slashes, then the level
        "2024/03/01 10:00:00 INFO mlflow.tracking.fluent: Experiment with name 'npu-run' does "
        "not exist. Creating a new experiment.\n",
        "prediction error: 0.023\n",
        "L2 error: 1.3e-03\n",
        "RMS error = 0.41 px\n",
        "Ran 12 tests in 0.3s\n\nOK (expected failures=1)\n",
        "failed=0 passed=12\n",
        # a command typed after the error: the user went on
        "bash: foo: command not found\nroot@node1:~# ls\n",
        "Final validation: top-1 error 23.87%, top-5 error 7.13%\n",
        "mean absolute error: 0.034\n",
        "gethostbyname failed, try again\n",
        "Q: npu-smi says Permission denied, what now?\n",
        "default   smoke-test-28571230-kq2xz   0/1     Error       0          2d\n",
        "\n\n\n",
        "",
    ],
)
def test_a_handled_a_quoted_or_a_counted_error_is_no_end(text: str) -> None:
    assert _told(text) is None


@pytest.mark.parametrize(
    "data",
    [
        b"\x00" * (8 << 20),  # /dev/zero's bytes
        b"\n" * (8 << 20) + b"ok\n",
        b"error: disk gone\n" + b"--\n" * (ROWS_READ + 10),  # the error past the rows read
        b"\xff\xfe\x80 not utf-8 \xc3\x28\n" * 1000,
    ],
)
def test_hostile_text_is_read_bounded_and_tells_nothing(data: bytes) -> None:
    started = time.process_time()
    assert last_logged_error(data) is None
    assert time.process_time() - started < 5  # linear: a quadratic walk would take minutes


def test_a_flood_of_one_row_is_told_cut_and_undecodable_bytes_as_text() -> None:
    end = last_logged_error(b"error " * (4 << 20))  # a 24 MB row, no newline
    assert end is not None and len(end.line) <= SHOWN and end.first == 1
    end = last_logged_error(b"ok\nfatal: \xff\xfe bad object\n")
    assert end is not None and end.line == "fatal: \ufffd\ufffd bad object" and end.first == 2


@pytest.mark.parametrize(
    ("words", "quoted"),
    [
        # a JSON record's string: its escaped break, the next key, the closing brace end it
        ('failed: disk full\\n","stream":"stderr","time":"2024"}', "failed: disk full"),
        ('bad input","extra":{"user":"x"},"trace":"aaaa"}', "bad input"),
        ('rank 3 died"}', "rank 3 died"),
        # a record, or an object in prose, is no JSON string's inside (the red team's)
        (
            '{"level":"error","msg":"load failed","error":"no such file"}',
            '{"level":"error","msg":"load failed","error":"no such file"}',
        ),
        ('invalid attr {"axis": "1", "keep": true}', 'invalid attr {"axis": "1", "keep": true}'),
        # quotes in prose are no JSON string's end
        ('Invalid value "a", expected "b" or "c"', 'Invalid value "a", expected "b" or "c"'),
        # what a terminal acts on: colours, controls; a tab reads as a space
        ("\x1b[31mred\x1b[0m\ttext\x07\x00\x08\x9b end", "red text end"),
        ("x" * 400, "x" * 157 + "..."),
    ],
)
def test_a_log_s_words_are_quoted_out_of_json_without_controls_and_bounded(
    words: str, quoted: str
) -> None:
    assert quote(words, 160) == quoted


def test_logs_errors_warns_of_the_error_a_log_ends_on_without_a_crash() -> None:
    check = _logs_errors("loading\n[ERROR] install failed, please run it as root\n")
    assert check["status"] == "warn" and "no entry knows, no crash" in check["summary"]
    assert check["remedy"].startswith('its own words ask: "please run it as root" (the program')
    [told] = check["facts"]["unexplained"]
    assert (told["first"], told["died"]) == (2, False)
    healthy = _logs_errors("step 1 loss 2.0\nerror: x\nstep 2 loss 1.9\n")
    assert healthy["status"] == "pass" and healthy["facts"]["unexplained"] == []
