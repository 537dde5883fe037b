"""The command line: parse, call the engine, render, exit. No judgement lives here."""

# No `from __future__ import annotations` here: typer reads the annotations of every command on
# each run, and a string annotation costs it an eval() (~4 ms in all, on every invocation).
import gc
import os
import signal
import sys
from pathlib import Path
from typing import Optional

import typer

from ampenv import __version__
from ampenv.cli.options import (
    BundleOpt,
    CertificateOpt,
    Color,
    ColorOpt,
    ConfigOpt,
    DeadlineOpt,
    Device,
    DeviceOpt,
    FormatOpt,
    OnlyOpt,
    OutputOpt,
    Plain,
    Policy,
    Profile,
    ProfileOpt,
    SkipOpt,
    StrictOpt,
    SysrootOpt,
    TextfileOpt,
    VerboseOpt,
    a_path,
    named,
    seconds_option,
    value_of,
    wait_seconds_option,
)
from ampenv.cli.output import (
    CertificateState,
    ascii_output,
    certified,
    die,
    emit,
    emit_report,
    export_textfile,
    judge,
    stdout_width,
    use_color,
    watched,
)
from ampenv.core.session import Options, diagnose, open_session, sysroot_of
from ampenv.core.settings import ConfigError
from ampenv.util.bounded import not_regular

HELP = {"help_option_names": ["-h", "--help"]}  # every command's context inherits it

app = typer.Typer(
    context_settings=HELP,
    no_args_is_help=True,
    rich_markup_mode=None,  # help texts name config keys such as [hook] timeout, literally
    help="Validate, set up and certify a node for mixed-precision training (Ascend, CUDA, CPU).",
)
config_app = typer.Typer(
    help="Write and inspect ampenv.toml.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(config_app, name="config")
hook_app = typer.Typer(
    help="Cluster hooks: Slurm Prolog/HealthCheckProgram, node-problem-detector plugin.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(hook_app, name="hook")


@app.command()
def doctor(
    profile: Profile = ProfileOpt,
    only: Optional[list[str]] = OnlyOpt,
    skip: Optional[list[str]] = SkipOpt,
    fmt: str = FormatOpt,
    output: Optional[Path] = OutputOpt,
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    device: Optional[Device] = DeviceOpt,
    bundle: Optional[str] = BundleOpt,
    verbose: bool = VerboseOpt,
    strict: bool = StrictOpt,
    fix: bool = typer.Option(False, "--fix", help="Repair what can be repaired, then recheck."),
    deadline: Optional[float] = DeadlineOpt,
    log: Optional[list[Path]] = typer.Option(
        None,
        "--log",
        parser=a_path,
        metavar="<file>",
        help="Also scan this log for known failures (- for stdin; .gz too).",
    ),
    textfile_dir: Optional[Path] = TextfileOpt,
    color: Color = ColorOpt,
) -> None:
    """Judge this node and print what to fix."""
    from ampenv.report import renderer

    try:
        renderer(fmt)
    except ValueError as exc:
        die(str(exc))
    for path in log or []:  # a typo must not scan nothing and call the logs clean
        why = None if str(path) == "-" else not_regular(path)
        if why:
            die(f"--log {path}: {why}")
    opts = Options(
        profile=profile.value,
        only=only or [],
        skip=skip or [],
        config_path=config,
        sysroot=sysroot,
        device=value_of(device),
        bundle=bundle,
        deadline=deadline,
        strict=strict,
        fix=fix,
        logs=tuple(str(p) for p in log or []),
    )

    def body() -> None:
        session, report, observer = judge(opts, fmt, output, color.value, verbose)
        wants_metrics = fmt == "prometheus" or textfile_dir is not None
        cert = certified(session) if wants_metrics else CertificateState()
        emit_report(
            report,
            fmt,
            output,
            color.value,
            verbose,
            observer,
            certified=cert.certified,
            certificate_expires=cert.expires,
        )
        export_textfile(report, textfile_dir, cert, report.exit_code)
        raise typer.Exit(report.exit_code)

    watched(opts, body)


@app.command("checks")
def list_checks(config: Optional[str] = ConfigOpt, sysroot: Optional[str] = SysrootOpt) -> None:
    """List every check: id, title, profile and where it comes from."""
    try:
        session = open_session(Options(config_path=config, sysroot=sysroot))
    except ConfigError as exc:
        die(str(exc))
    specs = session.registry.ordered()
    width = max((len(s.id) for s in specs), default=10)
    for s in specs:
        typer.echo(f"{s.id:<{width}}  {s.profile:<7}  {s.title}  [{s.source}]")
    for p in session.registry.problems:
        typer.echo(f"{p.id:<{width}}  {'error':<7}  {p.summary}")


@app.command()
def explain(
    query: list[str] = typer.Argument(..., metavar="CODE|TEXT|CHECK_ID"),
    config: Optional[str] = ConfigOpt,
) -> None:
    """What an error code (EI0006, 507035, -- -8020), a pasted log line or a check means:
    causes, fix and sources."""
    from ampenv.core.plugin import ID_PATTERN
    from ampenv.knowledge import failures
    from ampenv.report import explain as show

    text = " ".join(query)
    if len(text) > failures.QUERY_CHARS:
        die(
            f"explain reads a code or a few pasted lines (at most {failures.QUERY_CHARS} "
            "characters): pass a whole log with `ampenv doctor --log FILE`"
        )
    if ID_PATTERN.fullmatch(text) and text not in failures.BY_ID:
        try:
            session = open_session(Options(config_path=config))
        except ConfigError as exc:
            die(str(exc))
        spec = session.registry.checks.get(text)
        if spec is not None:
            typer.echo(show.check(spec))
            return
    found = failures.explain(text)
    if not found:
        near = ", ".join(failures.nearest(text)) or "none"
        shown = text if len(text) <= 80 else text[:77] + "..."
        die(f"no known failure or check for {shown!r}; nearest known: {near}")
    typer.echo(show.failures(found))


@config_app.command("init")
def config_init(
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", parser=a_path, metavar="<file>", help="Write here."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Write a commented ampenv.toml baseline captured from this (healthy) node."""
    from ampenv.core.config import baseline

    if output is not None and output.exists() and not force:
        die(f"{output} exists: a site's config is not replaced without --force")
    opts = Options(profile="quick", sysroot=sysroot, config_path=os.devnull)
    try:
        session = open_session(opts)
        report = diagnose(opts, session)
    except (ConfigError, ValueError) as exc:
        die(str(exc))
    emit(baseline(report, session.registry.ordered()), output, keep=not force)


@config_app.command("show")
def config_show(
    fmt: Plain = typer.Option(Plain.text, "--format", "-f", help="Output format."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Print the configuration in effect: every setting, its value, and where it came from
    (the file, $AMPENV_CERTIFICATE, or a default)."""
    from ampenv.core.config import effective, found_by
    from ampenv.integrations.certificate import path_source
    from ampenv.report.config_view import render

    try:
        session = open_session(Options(config_path=config, sysroot=sysroot))
    except ConfigError as exc:
        die(str(exc))
    cfg, env = session.config, session.probe.env
    entries = effective(cfg, session.registry.ordered())
    where = path_source(env, cfg.section("certificate"), cfg.label)  # as certify and verify
    entries = [where if e.key == where.key else e for e in entries]
    emit(render(cfg.label, found_by(config, env, cfg.path), entries, fmt.value), None)


@app.command()
def clean(
    yes: bool = typer.Option(False, "--yes", "-y", help="Remove; without it nothing is removed."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only show what would go (default)."),
    everything: bool = typer.Option(
        False, "--all", help="Everything below the known places, not only what is stale."
    ),
    wait: float = typer.Option(
        10.0, "--wait", help="Seconds to wait for another cleaner.", callback=wait_seconds_option
    ),
    fmt: Plain = typer.Option(Plain.text, "--format", "-f", help="Output format."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Remove stale caches and old logs, safely: a dry run unless --yes."""
    from ampenv.repair import clean as cache
    from ampenv.report.clean import render

    if yes and dry_run:
        die("--yes and --dry-run contradict each other")
    try:
        session = open_session(Options(config_path=config, sysroot=sysroot))
        result = cache.clean(
            session.probe,
            session.config.section("cache"),
            dry_run=not yes,
            everything=everything,
            wait=wait,
        )
    except ConfigError as exc:
        die(str(exc))
    except cache.CleanRefused as exc:
        die(str(exc), exc.exit_code)
    if yes:
        note = "removed what is listed below"
    elif dry_run:
        note = "dry run: nothing was removed"
    elif sys.stdout.isatty():
        note = "dry run (the default): nothing was removed"
    else:
        note = "dry run (no TTY and no --yes): nothing was removed"
    emit(render(result, fmt.value, note), None)
    raise typer.Exit(result.exit_code)


@app.command(context_settings={"allow_interspersed_args": False})
def run(
    cmd: list[str] = typer.Argument(..., help="The job and its arguments, after --."),
    profile: Optional[Profile] = typer.Option(
        None, "--profile", "-p", help="Default: run.profile of the config, else quick."
    ),
    policy: Optional[Policy] = typer.Option(
        None, "--policy", help="Default: run.policy of the config, else fail-closed."
    ),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Container entrypoint: prepare the CANN environment, check the node, then exec CMD."""
    from ampenv.integrations.entrypoint import exec_job, judge_in_child

    if not cmd[0]:
        die('run: the command is empty (an unset variable in `-- "$CMD"`?)')
    opts = Options(config_path=config, sysroot=sysroot)
    answer = judge_in_child(opts, policy=value_of(policy), profile=value_of(profile))
    if answer.usage:
        die(answer.usage)
    for note in answer.notes:
        typer.echo(f"ampenv: {note}", err=True)
    typer.echo(answer.brief, err=True, nl=False)
    if answer.stop is not None:
        die(f"{answer.policy}: not starting {cmd[0]!r}", answer.stop)
    raise typer.Exit(exec_job(cmd, answer.env))


@hook_app.command("slurm")
def hook_slurm(config: Optional[str] = ConfigOpt, sysroot: Optional[str] = SysrootOpt) -> None:
    """Prolog / HealthCheckProgram: quick profile + certificate verify within [hook] timeout;
    one line `ampenv: <check>: <summary>` and a non-zero exit on failure."""
    from ampenv.integrations.guard import in_child
    from ampenv.integrations.slurm import PREFIX, hard_limit, run_hook

    opts = Options(config_path=config, sysroot=sysroot)

    def judge() -> dict:
        try:
            verdict = run_hook(opts, dict(os.environ))
        except (ConfigError, ValueError) as exc:  # ValueError: an unusable [hook] lock_file
            return {"usage": str(exc)}
        return {"code": verdict.code, "line": verdict.line, "notes": verdict.notes}

    # Judged in a child: a plugin's os._exit(0) must read "could not judge", never healthy.
    answer, why = in_child(judge, hard_limit(opts, dict(os.environ)))
    if answer is None:
        answer = {"code": 3, "line": f"{PREFIX} could not judge: {why}", "notes": []}
    if answer.get("usage"):
        die(answer["usage"])
    for note in answer["notes"]:
        typer.echo(note, err=True)
    if answer["line"]:
        typer.echo(answer["line"])
    raise typer.Exit(answer["code"])


@hook_app.command("npd")
def hook_npd(
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    timeout: float = typer.Option(
        4.0, "--timeout", help="Seconds, under NPD's plugin timeout.", callback=seconds_option
    ),
) -> None:
    """node-problem-detector plugin: exit 0 OK, 1 NonOK, 2 Unknown; <= 80 bytes on stdout."""
    from ampenv.integrations.guard import in_child
    from ampenv.integrations.npd_plugin import UNKNOWN, run_plugin, unknown

    opts = Options(config_path=config, sysroot=sysroot)
    answer, why = in_child(lambda: run_plugin(opts, timeout), timeout)
    code, message = answer if answer is not None else (UNKNOWN, unknown(why))
    sys.stdout.write(message + "\n")
    raise typer.Exit(code)


@app.command()
def collect(
    output: Path = typer.Option(
        ...,
        "--output",
        "-o",
        parser=a_path,
        metavar="<file>",
        help="The bundle to write (.tar.gz).",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Write a support bundle: what the quick profile saw, secrets redacted (docs/bundle.md)."""
    from ampenv.integrations.collect import NotWritten
    from ampenv.integrations.collect import collect as collect_bundle
    from ampenv.report.brief import VERDICTS

    if output.exists() and not force:
        die(f"{output} exists: it is replaced only with --force")

    try:
        report = collect_bundle(
            Options(config_path=config, sysroot=sysroot), output, keep=not force
        )
    except (ConfigError, ValueError) as exc:
        die(str(exc))
    except NotWritten as exc:
        die(str(exc))
    except OSError as exc:  # what the probe read of the node: no part of the bundle's path
        die(f"collect could not read this node: {exc}")
    verdict = VERDICTS.get(report.exit_code, "unhealthy")
    typer.echo(f"ampenv: wrote {output} ({len(report.checks)} checks, {verdict})", err=True)


@app.command("env")
def env_command(
    export: bool = typer.Option(
        False, "--export", help="Print `export VAR=value` lines that satisfy the contract."
    ),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Judge the Ascend and HCCL variables and the cluster's contract (the env table of
    ampenv.toml); with --export, print the shell lines that satisfy the contract, for `eval`."""
    from ampenv.knowledge.envcontract import export_script
    from ampenv.report import render

    opts = Options(profile="quick", only=["env"], config_path=config, sysroot=sysroot)
    try:
        session = open_session(opts)
        report = None if export else diagnose(opts, session)
    except ConfigError as exc:
        die(str(exc))
    if report is not None:
        emit(
            render(
                report,
                "text",
                color=use_color(None),
                width=stdout_width(),
                ascii=ascii_output(None),
            ),
            None,
        )
        raise typer.Exit(report.exit_code)
    script, unmet = export_script(session.config.section("env"), os.environ, session.config.label)
    sys.stdout.write(script)
    for line in unmet:
        typer.echo(f"ampenv: unmet: {line}", err=True)
    raise typer.Exit(1 if unmet else 0)


certificate_app = typer.Typer(help="Show or verify the node certificate.", no_args_is_help=True)
app.add_typer(certificate_app, name="certificate")


@app.command()
def certify(
    certificate: Optional[str] = CertificateOpt,
    fmt: str = FormatOpt,
    output: Optional[Path] = OutputOpt,
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    device: Optional[Device] = DeviceOpt,
    verbose: bool = VerboseOpt,
    strict: bool = StrictOpt,
    deadline: Optional[float] = DeadlineOpt,
    textfile_dir: Optional[Path] = TextfileOpt,
    color: Color = ColorOpt,
    chart: Optional[bool] = typer.Option(
        None, "--chart/--no-chart", help="Draw the loss curves (default: on a terminal)."
    ),
) -> None:
    """Run the certify profile (full + ResNet50 AMP smoke training) and, when the node passes,
    write its certificate; a node that does not pass loses its old one."""
    from ampenv.integrations.certificate import resolve_path, settle
    from ampenv.report import renderer

    try:
        renderer(fmt)
    except ValueError as exc:
        die(str(exc))
    opts = Options(
        profile="certify",
        config_path=config,
        sysroot=sysroot,
        device=value_of(device),
        deadline=deadline,
        strict=strict,
    )

    def body() -> None:
        session, report, observer = judge(opts, fmt, output, color.value, verbose)
        emit_report(report, fmt, output, color.value, verbose, observer)
        on_stdout = fmt == "text" and output is None
        if chart if chart is not None else on_stdout and sys.stdout.isatty():
            from ampenv.report.chart import of_report

            typer.echo(of_report(report), err=not on_stdout, nl=False)
        section = session.config.section("certificate")
        path = resolve_path(certificate, session.probe.env, section)
        try:
            settled = settle(report, session.probe, section, path)
        except OSError as exc:
            die(f"certificate {path}: {exc.strerror or exc}")
        typer.echo(f"ampenv: {settled.note}", err=True)
        export_textfile(report, textfile_dir, certified(session, certificate), settled.exit_code)
        raise typer.Exit(settled.exit_code)

    watched(opts, body)


def _verify_certificate(certificate: Optional[str], config: Optional[str], sysroot: Optional[str]):
    """Config and probe without loading any check: verify must answer in milliseconds."""
    from ampenv.core.config import load
    from ampenv.integrations.certificate import verify_node
    from ampenv.probe import Probe

    env = dict(os.environ)
    try:
        root = sysroot_of(sysroot, env)
        cfg = load(config, env, root)
    except ConfigError as exc:
        die(str(exc))
    return verify_node(cfg, Probe(sysroot=root, env=env), certificate)


@certificate_app.command("verify")
def certificate_verify(
    certificate: Optional[str] = CertificateOpt,
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Exit 0 only for a fresh certificate whose fingerprint matches this node now; else 1
    with the reason (missing, unreadable, edited, expired, fingerprint changed)."""
    _, verdict = _verify_certificate(certificate, config, sysroot)
    typer.echo(verdict.reason if verdict.ok else f"ampenv: certificate {verdict.reason}")
    raise typer.Exit(0 if verdict.ok else 1)


@certificate_app.command("show")
def certificate_show(
    certificate: Optional[str] = CertificateOpt,
    fmt: Plain = typer.Option(
        Plain.text, "--format", "-f", help="Output format (json: the file itself)."
    ),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Print the certificate and whether it is valid on this node now (exit as verify)."""
    import json

    from ampenv.report.certificate_view import render

    path, verdict = _verify_certificate(certificate, config, sysroot)
    if fmt is Plain.json and verdict.certificate is not None:
        emit(json.dumps(verdict.certificate, indent=2, sort_keys=True) + "\n", None)
    else:
        emit(render(path, verdict.reason, verdict.certificate), None)
    raise typer.Exit(0 if verdict.ok else 1)


@app.command()
def fleet(
    paths: list[str] = typer.Argument(
        ...,
        parser=named,
        help="Certificates, or folders of *.json certificates.",
    ),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    output: Optional[Path] = OutputOpt,
    baseline_out: Optional[str] = typer.Option(
        None,
        "--baseline-out",
        parser=named,
        metavar="<file>",
        help="Write the groups' figures here ([certificate] baseline).",
    ),
    min_gap: float = typer.Option(
        0.10, "--min-gap", help="Least share below the group median that flags a node."
    ),
    mad_k: float = typer.Option(3.5, "--mad-k", help="Robust standard deviations (MAD based)."),
    min_group: int = typer.Option(3, "--min-group", help="Fewest comparable nodes judged."),
) -> None:
    """Compare the certificates of many nodes and flag those whose AMP throughput falls below
    comparable peers: exit 0 none, 1 an outlier, 2 usage."""
    from ampenv.integrations import fleet as fleet_mod

    if fmt not in ("text", "json"):
        die(f"unknown format {fmt!r}: use text or json")
    if not 0 <= min_gap < 1 or not 0 <= mad_k <= 100 or min_group < 2:
        die("--min-gap must be in [0, 1), --mad-k in [0, 100], --min-group at least 2")
    rule = fleet_mod.Rule(min_gap=min_gap, mad_k=mad_k, min_group=min_group)
    try:
        result = fleet_mod.read(paths, rule)
    except fleet_mod.FleetError as exc:
        die(str(exc))
    doc = result.to_json()
    if fmt == "json":
        import json

        emit(json.dumps(doc, indent=2, sort_keys=True) + "\n", output)
    else:
        from ampenv.report.fleet import render as render_fleet

        emit(render_fleet(doc), output)
    if baseline_out:
        try:
            fleet_mod.write_baseline(baseline_out, result)
        except OSError as exc:
            die(f"--baseline-out {baseline_out}: {exc.strerror or exc}")
        typer.echo(f"ampenv: wrote the group figures to {baseline_out}", err=True)
    raise typer.Exit(result.exit_code)


def main() -> None:
    from ampenv.probe import proc
    from ampenv.util import stdio

    stdio.guard_stdout()  # checks write to stderr; the report goes to the saved stdout
    stdio.terminate_on_sigterm()  # SIGTERM unwinds: temporary trees go, children die
    # A closed pipe (`ampenv checks | head -1`) ends ampenv as it ends cat or grep: quietly, by
    # SIGPIPE (the shell reports 141). Children get the default back anyway (subprocess
    # restores it), and ampenv writes to no other pipe or socket.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        app(prog_name="ampenv")
    except KeyboardInterrupt:
        sys.stderr.write("ampenv: interrupted\n")
        sys.exit(130)
    finally:
        proc.kill_leftovers()  # nothing ampenv started outlives it
        # The command is done and the process is about to end. Interpreter shutdown would
        # otherwise run full garbage collections over every object the run created (the
        # checks, the import machinery's): ~30 ms, a sixth of a quick run, to reclaim memory
        # the OS takes back anyway. Frozen objects are skipped; atexit handlers still run.
        gc.freeze()


@app.callback(invoke_without_command=True)
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    if version:
        typer.echo(__version__)
        raise typer.Exit(0)
