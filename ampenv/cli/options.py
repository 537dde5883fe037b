"""The options the commands share: their types (enumerated choices show in --help), their
declarations, and the checks typer runs on them before a command starts."""

import enum
from pathlib import Path
from typing import Optional

import typer

from ampenv.cli.output import die
from ampenv.core.settings import MAX_SECONDS, SECONDS, Setting, out_of_range

WAIT_SECONDS = Setting(float, None, "seconds", ge=0, le=MAX_SECONDS)


# Enumerated options are enums: --help lists their names, and a wrong one is a usage error
# (exit 2) before anything runs. Commands pass on `.value`.
class Profile(str, enum.Enum):
    quick = "quick"
    full = "full"
    certify = "certify"


class Device(str, enum.Enum):
    npu = "npu"
    cuda = "cuda"
    cpu = "cpu"


class Color(str, enum.Enum):
    auto = "auto"
    always = "always"
    never = "never"


class Policy(str, enum.Enum):
    fail_closed = "fail-closed"
    warn_only = "warn-only"


class Plain(str, enum.Enum):  # the formats of clean and certificate show
    text = "text"
    json = "json"


def value_of(choice: Optional[enum.Enum]) -> Optional[str]:
    return None if choice is None else choice.value


# The built-in formats; a package may add more (entry point group ampenv.formats), so the
# choice is checked when the report is rendered, and the help names the built-in ones.
FORMATS_HELP = "text|json|junit|prometheus|npd"

ProfileOpt = typer.Option(Profile.full, "--profile", "-p", help="How much to run.")
OnlyOpt = typer.Option(
    None, "--only", metavar="<id>", help="Run only these ids or family prefixes (env.)."
)
SkipOpt = typer.Option(None, "--skip", metavar="<id>", help="Skip these ids or family prefixes.")
FormatOpt = typer.Option(
    "text", "--format", "-f", metavar=f"<{FORMATS_HELP}|…>", help="Report format (or a plugin's)."
)
ColorOpt = typer.Option(
    Color.auto,
    "--color",
    help="auto: on a terminal, unless NO_COLOR is set (FORCE_COLOR: also on a pipe).",
)


def named(text: str) -> str:
    """A path option's value, which must name something: an empty one (an unset variable's
    "$BUNDLE") or one of blanks is a usage error, never the live node, the current folder or a
    file named "   "; so is one that begins with "=" (`-o=$OUT` gives a short option "=" and
    what follows; a file whose name begins with "=" is named ./=...)."""
    if not text.strip():
        raise typer.BadParameter("an empty path names no file")
    if text.startswith("="):
        raise typer.BadParameter(
            f"{text!r} begins with '=' (as -o=PATH gives it): write -o PATH, or ./{text}"
        )
    return text


def a_path(text: str) -> Path:
    return Path(named(text))  # Path("") would be "."


TextfileOpt = typer.Option(
    None,
    "--textfile-dir",
    parser=a_path,
    metavar="<dir>",
    help="Also write ampenv.prom here (node_exporter textfile).",
)
OutputOpt = typer.Option(
    None, "--output", "-o", parser=a_path, metavar="<file>", help="Write the report to this file."
)
ConfigOpt = typer.Option(
    None, "--config", "-c", parser=named, metavar="<file>", help="ampenv.toml to use."
)
SysrootOpt = typer.Option(
    None, "--sysroot", parser=named, metavar="<dir>", help="Prefix for every system path read."
)
DeviceOpt = typer.Option(None, "--device", help="Force the backend (default: detected).")
BundleOpt = typer.Option(
    None, "--bundle", parser=named, metavar="<file>", help="Diagnose offline from a support bundle."
)
VerboseOpt = typer.Option(False, "--verbose", "-v", help="Show facts and timings.")
StrictOpt = typer.Option(False, "--strict", help="Warnings make the exit code 1.")


def seconds_option(param: typer.CallbackParam, value: Optional[float]) -> Optional[float]:
    """--deadline, --timeout: as [checks] timeouts, a finite number of seconds above 0."""
    problem = None if value is None else out_of_range(value, SECONDS)
    if problem:
        die(f"{param.opts[0]}: {problem}")
    return value


DeadlineOpt = typer.Option(
    None, "--deadline", help="Global limit, seconds.", callback=seconds_option
)


def wait_seconds_option(param: typer.CallbackParam, value: float) -> float:
    """--wait: 0 (do not wait) up to a week; inf or nan would wait forever."""
    problem = out_of_range(value, WAIT_SECONDS)
    if problem:
        die(f"{param.opts[0]}: {problem}")
    return value


CertificateOpt = typer.Option(
    None,
    "--certificate",
    parser=named,
    metavar="<file>",
    help="Default: $AMPENV_CERTIFICATE, [certificate] path, then /var/lib/ampenv (root) "
    "or $XDG_STATE_HOME/ampenv/certificate.json.",
)
