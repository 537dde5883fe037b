"""The terminal face: the report live on a pseudo-terminal, the same bytes on a pipe, wrapping,
colour conventions, help, completion, a closed pipe, and `config show`."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

from ampenv.core.model import CheckRun, Finding, Result, Status, combine
from ampenv.core.session import Options, diagnose, open_session
from ampenv.report import live, text

# The last check of the run waits until the test has seen the first check's line on the
# terminal (it creates the gate file then): the first line cannot have come with the last.
GATED = """
import os, time
from ampenv.checks import Result, check

@check("zz.gate", title="Gated check", timeout=30)
def gate(ctx):
    ctx.progress("waiting for the test", 1, 2)
    deadline = time.monotonic() + 25
    while not os.path.exists(os.environ["GATE"]):
        if time.monotonic() > deadline:
            return Result.fail("the first line never reached the terminal", remedy="see test")
        time.sleep(0.05)
    return Result.ok("released after the first line was seen")
"""


def _pty_run(argv: list[str], env: dict[str, str], until=None, timeout: float = 60) -> bytes:
    """Run argv on a pseudo-terminal (100 columns); ``until(seen)`` is called on every read."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        os.execve(argv[0], argv, env)
    seen = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if until is not None:
                until(seen)
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    return seen


def _gated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "gate.py").write_text(textwrap.dedent(GATED))
    return clean_env(
        AMPENV_CHECKS_PATH=str(folder), GATE=str(tmp_path / "gate"), COLUMNS="100", **extra
    )


def test_doctor_on_a_terminal_shows_the_first_line_before_the_last_check_ends(tmp_path):
    env = _gated_env(tmp_path, TERM="xterm")
    env.pop("NO_COLOR")
    gate = Path(env["GATE"])
    first_line_at: list[float] = []

    def release(seen: bytes) -> None:
        if not first_line_at and b"(host.resources): " in seen:
            first_line_at.append(time.monotonic())
        # The last check may finish only once the first check's line is out and the spinner
        # of the last check says how long it has been running, and how far it has come.
        if first_line_at and b"waiting for the test" in seen:
            gate.touch()

    argv = [sys.executable, "-m", "ampenv", "doctor", "-p", "quick"]
    out = _pty_run(argv, env, until=release).decode()
    assert first_line_at, out
    assert "released after the first line was seen" in out
    assert "\033[32m[✓]\033[0m Host resources" in out  # colour on a terminal
    # While it waited, the gated check had a spinner, its elapsed time and its progress.
    drawn = [x for x in out.split("\r") if x[2:].startswith("Gated check (zz.gate) · ")]
    assert drawn and all(x[0] in text.MARKS["spinner"] for x in drawn), out
    assert any(" s · ━" in x and "waiting for the test" in x for x in drawn), drawn
    assert out.rstrip().endswith("(exit 0)")


def test_term_dumb_gets_no_escape_codes(tmp_path):
    env = _gated_env(tmp_path, TERM="dumb")
    env.pop("NO_COLOR")
    Path(env["GATE"]).touch()
    out = _pty_run([sys.executable, "-m", "ampenv", "doctor", "-p", "quick"], env).decode()
    assert "\033" not in out and "\r\n[✓] Host resources" in out


def test_a_pipe_gets_the_report_render_gives_byte_for_byte(tmp_path):
    """The live printer without a terminal prints what text.render prints of the report."""
    out = io.StringIO()
    printer = live.Live(out, live.Terminal(color=False, animate=False, width=None))
    opts = Options(profile="quick", sysroot=str(tmp_path), observer=printer)
    report = diagnose(opts, open_session(opts, env=clean_env()))
    printer.close(report)
    assert out.getvalue() == text.render(report)
    assert "\033" not in out.getvalue()


def test_lines_come_in_report_order_whatever_order_checks_end():
    out = io.StringIO()
    printer = live.Live(out, live.Terminal(color=False, animate=False, width=None))
    printer("begin", "", profile="quick", backend="cpu", host="h")
    printer("plan", "", ids=["a.one", "a.two"])
    two = CheckRun("a.two", "Two", Result.ok("second"))
    printer("finish", "a.two", run=two)
    assert out.getvalue() == "ampenv doctor · profile quick · backend cpu · h\n"  # waits for one
    printer("finish", "a.one", run=CheckRun("a.one", "One", Result.ok("first")))
    assert out.getvalue().splitlines()[1:] == ["[✓] One (a.one): first", "[✓] Two (a.two): second"]


def test_the_status_line_names_the_awaited_check_with_time_and_progress():
    now = [100.0]
    printer = live.Live(io.StringIO(), live.Terminal(True, True, 80), clock=lambda: now[0])
    printer.stop.set()  # no ticker thread: draw by hand
    printer.order = ["smoke.resnet50", "dist.allreduce"]
    printer("start", "smoke.resnet50", title="ResNet50 AMP smoke training")
    printer("start", "dist.allreduce", title="All-reduce")
    now[0] = 112.34
    printer("progress", "smoke.resnet50", text="amp step 2/3 · 1.4 img/s", done=2, total=3)
    line = printer.status_line()
    assert line.startswith("⠋ ResNet50 AMP smoke training · 12.3 s · ━━━━━━━━╺─── · amp step 2/3")
    assert len(line) <= 79 and line.endswith("…")  # cut to the width, never wrapped
    printer.term = live.Terminal(True, True, 200)
    assert printer.status_line().endswith(" · amp step 2/3 · 1.4 img/s · +1 running")


def _failing_run() -> CheckRun:
    findings = [
        Finding(Status.FAIL, "HCCL_CONNECT_TIMEOUT=5 is below the minimum of 120 s", "export X=1"),
        Finding(Status.WARN, "HCCL_BUFFSIZE=4096 is above 2048 MB", "export Y=2"),
    ]
    return CheckRun("env.hccl", "HCCL variables", combine(findings, "fine"))


def test_a_summary_is_said_once_and_the_other_findings_stay():
    lines = text.block(_failing_run())
    assert sum("HCCL_CONNECT_TIMEOUT=5 is below" in line for line in lines) == 1
    assert "    • warn: HCCL_BUFFSIZE=4096 is above 2048 MB" in lines


def test_long_lines_wrap_under_their_indent_at_the_width():
    run = _failing_run()
    run.result.remedy = "export HCCL_CONNECT_TIMEOUT=120; " + "then rerun the job " * 6
    lines = text.block(run, width=50)
    assert all(len(line) <= 50 for line in lines), lines
    assert lines[0].startswith("[✗] HCCL variables (env.hccl):")
    assert lines[1].startswith("    ") and not lines[1].startswith("     ")  # under the title
    remedy = next(i for i, line in enumerate(lines) if line.startswith("    → "))
    assert lines[remedy + 1].startswith("      ") and lines[remedy + 1][6] != " "
    assert text.block(run) == text.block(run, width=None)  # no width: one line each


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("flag", "env", "tty", "color", "animate"),
    [
        ("auto", {}, True, True, True),
        ("auto", {}, False, False, False),
        ("auto", {"NO_COLOR": "1"}, True, False, True),
        ("auto", {"NO_COLOR": ""}, True, True, True),  # empty: not set
        ("auto", {"FORCE_COLOR": "1"}, False, True, False),
        ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False, True),
        ("auto", {"TERM": "dumb"}, True, False, False),
        ("always", {"NO_COLOR": "1"}, False, True, False),
        ("never", {"FORCE_COLOR": "1"}, True, False, True),
    ],
)
def test_colour_conventions(flag, env, tty, color, animate):
    stream = _Tty() if tty else io.StringIO()
    term = live.terminal(stream, flag, {"COLUMNS": "100", **env})
    assert (term.color, term.animate) == (color, animate)
    assert term.width == (100 if tty else None)


def test_help_dash_h_choices_and_completion():
    root = run_ampenv("-h")
    assert root.returncode == 0 and "--install-completion" in root.stdout
    assert "--show-completion" in root.stdout
    doctor = run_ampenv("doctor", "-h").stdout
    for choices in ("quick|full|certify", "npu|cuda|cpu", "auto|always|never", "text|json|junit"):
        assert choices in doctor, doctor
    assert "fail-closed|warn-only" in run_ampenv("run", "-h").stdout
    assert run_ampenv("config", "show", "-h").returncode == 0
    bad = run_ampenv("doctor", "-p", "quik")
    assert bad.returncode == 2 and "'quik' is not one of" in bad.stderr


def test_a_closed_pipe_ends_quietly_as_cat_would():
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first write meets a closed pipe
    child = subprocess.run(
        [sys.executable, "-m", "ampenv", "checks"],
        stdout=write,
        stderr=subprocess.PIPE,
        env=clean_env(),
        timeout=60,
    )
    os.close(write)
    assert child.returncode == -signal.SIGPIPE  # the shell says 141
    assert child.stderr == b""


def test_config_show_names_the_source_of_every_value(tmp_path):
    config = tmp_path / "ampenv.toml"
    config.write_text('[hook]\ndrain = true\n[checks."npu.devices"]\ntimeout = 9\n')
    env = clean_env(AMPENV_CONFIG=str(config), AMPENV_CERTIFICATE=str(tmp_path / "c.json"))
    ran = run_ampenv("config", "show", env=env)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == f"# ampenv.toml in effect: {config} (named by $AMPENV_CONFIG)"
    row = {line.split(" = ")[0]: line for line in lines[2:]}
    assert row["hook.drain"].split("#")[-1].strip() == str(config)
    assert row["hook.timeout"].endswith("# default")
    assert row['checks."npu.devices".timeout'].startswith('checks."npu.devices".timeout = 9 ')
    assert row["certificate.path"].endswith("# $AMPENV_CERTIFICATE")
    values = json.loads(run_ampenv("config", "show", "-f", "json", env=env).stdout)["values"]
    drain = next(v for v in values if v["key"] == "hook.drain")
    assert drain == {"key": "hook.drain", "value": True, "source": str(config)}
