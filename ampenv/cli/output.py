"""Where a command's output goes: the report to stdout (live while the checks run, on a
terminal or a pipe) or to --output, colour and width by the terminal's conventions, the
Prometheus textfile, and the one-line usage error."""

import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from ampenv.core.model import Report
from ampenv.core.session import Options, Session, diagnose, hard_limit, open_session
from ampenv.core.settings import ConfigError

EXIT_USAGE = 2
EXIT_UNKNOWN = 3  # the run could not judge the node


def die(message: str, code: int = EXIT_USAGE) -> None:
    typer.echo(f"ampenv: {message}", err=True)
    raise typer.Exit(code)


# The names of fd 1: ampenv points fd 1 at stderr while checks run (stdio.guard_stdout), so
# a report written through them would land on stderr; it goes to the saved stdout instead.
STDOUT_NAMES = frozenset(("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"))


def to_stdout(output: Optional[Path]) -> bool:
    return output is None or str(output) in STDOUT_NAMES


def use_color(output: Optional[Path], color: str = "auto") -> bool:
    """Colour on stdout by the usual conventions (live.terminal); in a file only if asked."""
    if not to_stdout(output):
        return color == "always"
    if color == "auto" and not os.environ.get("FORCE_COLOR") and not sys.stdout.isatty():
        return False  # the common case of scripts, without importing the terminal policy
    from ampenv.report.live import terminal

    return terminal(sys.stdout, color).color


def observer_for(fmt: str, output: Optional[Path], color: str, verbose: bool):
    """What watches the run: the text report itself, live on stdout (each check's lines as soon
    as every check above is judged; animated on a terminal, plain lines on a pipe), or for
    other formats and files a transient status line on a terminal's stderr; else nothing."""
    text_out = fmt == "text" and to_stdout(output)
    if not text_out and not sys.stderr.isatty():
        return None  # a script's run (json to a pipe) imports nothing for this
    from ampenv.report.live import Live, terminal

    if text_out:
        from ampenv.util.stdio import report_stream

        out = report_stream()
        return Live(out, terminal(out, color), verbose=verbose)
    term = terminal(sys.stderr, color)
    return Live(sys.stderr, term, lines=False) if term.animate else None


def ascii_output(output: Optional[Path]) -> bool:
    """A terminal that cannot print the report's marks (LC_ALL=POSIX, PYTHONIOENCODING=ascii)
    gets ASCII ones; a file (--output) is UTF-8."""
    from ampenv.util.stdio import can_encode

    return (output is None or str(output) == "-") and not can_encode("✓✗•→·")


def emit(text: str, output: Optional[Path], keep: bool = False) -> None:
    """Data goes to stdout, or to --output (replaced atomically; ``keep``: never over a file
    there, one that appeared since it was looked at too); nothing else goes to stdout."""
    if to_stdout(output):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ampenv.util.atomic import write_text

    try:
        write_text(output, text, keep=keep)
    except OSError as exc:
        die(f"cannot write {output}: {exc.strerror or exc}")


def judge(
    opts: Options, fmt: str, output: Optional[Path], color: str, verbose: bool
) -> tuple[Session, Report, Any]:
    """Open the session and run the checks, watched live (see observer_for)."""
    observer = observer_for(fmt, output, color, verbose)
    opts = replace(opts, observer=observer)
    try:
        session = open_session(opts)
        return session, diagnose(opts, session), observer
    except (ConfigError, ValueError) as exc:
        if observer is not None:
            observer.close()
        die(str(exc))
        raise  # unreachable: die raises


def watched(opts: Options, body: Callable[[], None]) -> None:
    """Run a judging command's ``body`` (which ends in typer.Exit) in a forked child, watched
    from here: a plugin's ``os._exit``, a crash, or a check stuck in C code past the run's
    time (:func:`hard_limit`) reads "could not judge" (exit 3), never a silent 0. The child
    prints the live report itself, on the same terminal."""
    from ampenv.integrations.guard import READER_GONE, in_child

    def work() -> int:
        try:
            body()
        except typer.Exit as done:
            return int(done.exit_code)
        return 0

    code, why = in_child(work, hard_limit(opts))
    if why == READER_GONE:  # `doctor | head -1`: ends as a shell's pipeline expects
        raise typer.Exit(128 + signal.SIGPIPE)
    if code is None:
        die(f"could not judge: {why}", EXIT_UNKNOWN)
    raise typer.Exit(code)


def emit_report(
    report: Report,
    fmt: str,
    output: Optional[Path],
    color: str,
    verbose: bool,
    observer: Any,
    **options: Any,
) -> None:
    """The report: its live printer ends it (the verdict after the lines already out), or it
    is rendered whole, to stdout or --output."""
    from ampenv.report import render

    if observer is not None:
        observer.close(report)
        if observer.lines:
            return
    width = None if not to_stdout(output) else stdout_width()
    painted = use_color(output, color)
    shown = render(
        report,
        fmt,
        verbose=verbose,
        color=painted,
        width=width,
        ascii=ascii_output(output),
        **options,
    )
    emit(shown, output)


def stdout_width() -> Optional[int]:
    if not sys.stdout.isatty():
        return None
    from ampenv.report.live import terminal

    return terminal(sys.stdout).width


class CertificateState:
    """What `ampenv certificate verify` says of this node, for the Prometheus metrics: None
    for both from a bundle (the certificate lives on the node, not in the bundle)."""

    def __init__(self, certified: Optional[bool] = None, expires: Optional[float] = None):
        self.certified, self.expires = certified, expires


def certified(session: Session, certificate: Optional[str] = None) -> CertificateState:
    if session.probe.offline:
        return CertificateState()
    from ampenv.integrations.certificate import verify_node
    from ampenv.util.formats import parse_utc

    verdict = verify_node(session.config, session.probe, certificate)[1]
    expires = None
    if verdict.certificate is not None:
        try:
            expires = parse_utc(str(verdict.certificate["expires_at"])).timestamp()
        except (KeyError, ValueError):
            expires = None
    return CertificateState(verdict.ok, expires)


def export_textfile(
    report: Report, directory: Optional[Path], cert: CertificateState, exit_code: int
) -> None:
    """``--textfile-dir``: the Prometheus files, written atomically for node_exporter
    (ampenv.prom; a certify run also ampenv_certify.prom). A folder that cannot be written
    ends the command with the verdict's exit code, or 2 when the verdict was healthy: an
    unhealthy node must not read as a usage error."""
    if directory is None:
        return
    from ampenv.integrations.textfile import write_textfile
    from ampenv.report.prometheus import textfiles

    try:
        files = textfiles(report, certified=cert.certified, certificate_expires=cert.expires)
        for name, text in files.items():
            write_textfile(directory, text, name)
    except OSError as exc:
        die(f"--textfile-dir {directory}: {exc.strerror or exc}", exit_code or EXIT_USAGE)
