"""The command line: parse, call the engine, render, exit. No judgement lives here."""

# No `from __future__ import annotations` here: typer reads the annotations of every command on
# each run, and a string annotation costs it an eval() (~4 ms in all, on every invocation).
import gc
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ampenv import __version__
from ampenv.core.config import SECONDS, ConfigError, out_of_range
from ampenv.core.model import Report
from ampenv.core.session import Options, Session, diagnose, open_session

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,  # help texts name config keys such as [hook] timeout, literally
    help="Validate, set up and certify a node for mixed-precision training (Ascend, CUDA, CPU).",
)
config_app = typer.Typer(help="Write and inspect ampenv.toml.", no_args_is_help=True)
app.add_typer(config_app, name="config")
hook_app = typer.Typer(
    help="Cluster hooks: Slurm Prolog/HealthCheckProgram, node-problem-detector plugin.",
    no_args_is_help=True,
)
app.add_typer(hook_app, name="hook")

EXIT_USAGE = 2

ProfileOpt = typer.Option("full", "--profile", "-p", help="quick, full or certify.")
OnlyOpt = typer.Option(None, "--only", help="Run only these ids or family prefixes (env.).")
SkipOpt = typer.Option(None, "--skip", help="Skip these ids or family prefixes.")
FormatOpt = typer.Option("text", "--format", "-f", help="text, json, junit, prometheus, npd.")
TextfileOpt = typer.Option(
    None, "--textfile-dir", help="Also write ampenv.prom here (node_exporter textfile)."
)
OutputOpt = typer.Option(None, "--output", "-o", help="Write the report to FILE.")
ConfigOpt = typer.Option(None, "--config", "-c", help="ampenv.toml to use.")
SysrootOpt = typer.Option(None, "--sysroot", help="Prefix for every system path read.")
DeviceOpt = typer.Option(None, "--device", help="Force the backend: npu, cuda or cpu.")
BundleOpt = typer.Option(None, "--bundle", help="Diagnose offline from a support bundle.")
VerboseOpt = typer.Option(False, "--verbose", "-v", help="Show facts and timings.")
StrictOpt = typer.Option(False, "--strict", help="Warnings make the exit code 1.")


def _seconds(param: typer.CallbackParam, value: Optional[float]) -> Optional[float]:
    """--deadline, --timeout: as [checks] timeouts, a finite number of seconds above 0."""
    problem = None if value is None else out_of_range(value, SECONDS)
    if problem:
        _die(f"{param.opts[0]}: {problem}")
    return value


DeadlineOpt = typer.Option(None, "--deadline", help="Global limit, seconds.", callback=_seconds)


def _die(message: str, code: int = EXIT_USAGE) -> None:
    typer.echo(f"ampenv: {message}", err=True)
    raise typer.Exit(code)


def _use_color(output: Optional[Path]) -> bool:
    return output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def emit(text: str, output: Optional[Path]) -> None:
    """Data goes to stdout, or to --output (replaced atomically); nothing else goes to stdout."""
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ampenv.util.atomic import write_text

    try:
        write_text(output, text)
    except OSError as exc:
        _die(f"cannot write {output}: {exc.strerror or exc}")


@app.command()
def doctor(
    profile: str = ProfileOpt,
    only: Optional[list[str]] = OnlyOpt,
    skip: Optional[list[str]] = SkipOpt,
    fmt: str = FormatOpt,
    output: Optional[Path] = OutputOpt,
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    device: Optional[str] = DeviceOpt,
    bundle: Optional[str] = BundleOpt,
    verbose: bool = VerboseOpt,
    strict: bool = StrictOpt,
    fix: bool = typer.Option(False, "--fix", help="Repair what can be repaired, then recheck."),
    deadline: Optional[float] = DeadlineOpt,
    log: Optional[list[Path]] = typer.Option(None, "--log", help="Also scan this log file."),
    textfile_dir: Optional[Path] = TextfileOpt,
) -> None:
    """Judge this node and print what to fix."""
    from ampenv.report import FORMATS, render

    if fmt not in FORMATS:
        _die(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if device not in (None, "npu", "cuda", "cpu"):
        _die(f"unknown device {device!r}: use npu, cuda or cpu")
    for path in log or []:  # a typo must not scan nothing and call the logs clean
        if not path.is_file():
            _die(f"--log {path}: not a file")
    opts = Options(
        profile=profile,
        only=only or [],
        skip=skip or [],
        config_path=config,
        sysroot=sysroot,
        device=device,
        bundle=bundle,
        deadline=deadline,
        strict=strict,
        fix=fix,
        logs=tuple(str(p) for p in log or []),
        progress=sys.stderr.isatty(),
    )
    try:
        session = open_session(opts)
        report = diagnose(opts, session)
    except (ConfigError, ValueError) as exc:
        _die(str(exc))
    wants_metrics = fmt == "prometheus" or textfile_dir is not None
    certified = _certified(session) if wants_metrics else None
    text = render(report, fmt, verbose=verbose, color=_use_color(output), certified=certified)
    emit(text, output)
    export_textfile(report, textfile_dir, certified, report.exit_code)
    raise typer.Exit(report.exit_code)


@app.command("checks")
def list_checks(config: Optional[str] = ConfigOpt, sysroot: Optional[str] = SysrootOpt) -> None:
    """List every check: id, title, profile and where it comes from."""
    try:
        session = open_session(Options(config_path=config, sysroot=sysroot))
    except ConfigError as exc:
        _die(str(exc))
    specs = session.registry.ordered()
    width = max((len(s.id) for s in specs), default=10)
    for s in specs:
        typer.echo(f"{s.id:<{width}}  {s.profile:<7}  {s.title}  [{s.source}]")
    for p in session.registry.problems:
        typer.echo(f"{p.id:<{width}}  {'error':<7}  {p.summary}")


@app.command()
def explain(check_id: str, config: Optional[str] = ConfigOpt) -> None:
    """What a check verifies, why it matters, and what its remedies are."""
    try:
        session = open_session(Options(config_path=config))
    except ConfigError as exc:
        _die(str(exc))
    spec = session.registry.checks.get(check_id)
    if spec is None:
        known = ", ".join(sorted(session.registry.checks))
        _die(f"no check {check_id!r}; known: {known}")
    lines = [f"{spec.id}: {spec.title}  (profile {spec.profile}, from {spec.source})", ""]
    lines += ["What it verifies:", f"  {spec.doc or '(no description)'}", ""]
    if spec.why:
        lines += ["Why it matters:", f"  {spec.why}", ""]
    if spec.remedies:
        lines += ["Remedies it may give:", *[f"  - {r}" for r in spec.remedies], ""]
    if spec.needs:
        lines += [f"Needs (skipped unless they pass): {', '.join(spec.needs)}", ""]
    if spec.after:
        lines += [f"Runs after (to share their facts): {', '.join(spec.after)}", ""]
    settings = {"timeout": f"{spec.timeout:g} s", **{k: s.help for k, s in spec.settings.items()}}
    lines += [f'Settings ([checks."{spec.id}"] in ampenv.toml):']
    lines += [f"  {k}: {v}" for k, v in settings.items()]
    typer.echo("\n".join(lines))


@config_app.command("init")
def config_init(
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Write a commented ampenv.toml baseline captured from this (healthy) node."""
    from ampenv.core.config import baseline

    if output is not None and output.exists() and not force:
        _die(f"{output} exists: a site's config is not replaced without --force")
    opts = Options(profile="quick", sysroot=sysroot, config_path=os.devnull)
    try:
        session = open_session(opts)
        report = diagnose(opts, session)
    except (ConfigError, ValueError) as exc:
        _die(str(exc))
    emit(baseline(report, session.registry.ordered()), output)


@app.command()
def clean(
    yes: bool = typer.Option(False, "--yes", "-y", help="Remove; without it nothing is removed."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only show what would go (default)."),
    everything: bool = typer.Option(
        False, "--all", help="Everything below the known places, not only what is stale."
    ),
    wait: float = typer.Option(10.0, "--wait", help="Seconds to wait for another cleaner."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Remove stale caches and old logs, safely: a dry run unless --yes."""
    from ampenv.probe import caches as cache
    from ampenv.report.clean import FORMATS, render

    if yes and dry_run:
        _die("--yes and --dry-run contradict each other")
    if fmt not in FORMATS:
        _die(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
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
        _die(str(exc))
    except cache.CleanRefused as exc:
        _die(str(exc), 1)
    if yes:
        note = "removed what is listed below"
    elif dry_run:
        note = "dry run: nothing was removed"
    elif sys.stdout.isatty():
        note = "dry run (the default): nothing was removed"
    else:
        note = "dry run (no TTY and no --yes): nothing was removed"
    emit(render(result, fmt, note), None)
    raise typer.Exit(result.exit_code)


def _certified(session: Session, certificate: Optional[str] = None) -> Optional[bool]:
    """What `ampenv certificate verify` says of this node, for ampenv_certified (None from a
    bundle: the certificate lives on the node, not in the bundle)."""
    if session.probe.offline:
        return None
    from ampenv.integrations.certificate import verify_node

    return verify_node(session.config, session.probe, certificate)[1].ok


def export_textfile(
    report: Report, directory: Optional[Path], certified: Optional[bool], exit_code: int
) -> None:
    """``--textfile-dir``: the Prometheus rendering, written atomically for node_exporter.
    A folder that cannot be written ends the command with the verdict's exit code, or 2 when
    the verdict was healthy: an unhealthy node must not read as a usage error."""
    if directory is None:
        return
    from ampenv.integrations.textfile import write_textfile
    from ampenv.report import render

    try:
        write_textfile(directory, render(report, "prometheus", certified=certified))
    except OSError as exc:
        _die(f"--textfile-dir {directory}: {exc.strerror or exc}", exit_code or EXIT_USAGE)


@app.command(context_settings={"allow_interspersed_args": False})
def run(
    cmd: list[str] = typer.Argument(..., help="The job and its arguments, after --."),
    profile: Optional[str] = typer.Option(
        None, "--profile", "-p", help="Default: run.profile of the config, else quick."
    ),
    policy: Optional[str] = typer.Option(
        None, "--policy", help="fail-closed (the default) or warn-only."
    ),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Container entrypoint: prepare the CANN environment, check the node, then exec CMD."""
    from ampenv.integrations.entrypoint import exec_job, gate, prepare_and_judge
    from ampenv.report.brief import render as brief

    if not cmd[0]:
        _die('run: the command is empty (an unset variable in `-- "$CMD"`?)')
    opts = Options(config_path=config, sysroot=sysroot)
    try:
        prepared, report, policy = prepare_and_judge(opts, policy=policy, profile=profile)
    except (ConfigError, ValueError) as exc:
        _die(str(exc))
    for note in prepared.notes:
        typer.echo(f"ampenv: {note}", err=True)
    typer.echo(brief(report), err=True, nl=False)
    stop = gate(report, policy)
    if stop is not None:
        _die(f"{policy}: not starting {cmd[0]!r}", stop)
    raise typer.Exit(exec_job(cmd, prepared.env))


@hook_app.command("slurm")
def hook_slurm(config: Optional[str] = ConfigOpt, sysroot: Optional[str] = SysrootOpt) -> None:
    """Prolog / HealthCheckProgram: quick profile + certificate verify within [hook] timeout;
    one line `ampenv: <check>: <summary>` and a non-zero exit on failure."""
    from ampenv.integrations.slurm import run_hook

    try:
        verdict = run_hook(Options(config_path=config, sysroot=sysroot), dict(os.environ))
    except (ConfigError, ValueError) as exc:  # ValueError: an unusable [hook] lock_file
        _die(str(exc))
    for note in verdict.notes:
        typer.echo(note, err=True)
    if verdict.line:
        typer.echo(verdict.line)
    raise typer.Exit(verdict.code)


@hook_app.command("npd")
def hook_npd(
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    timeout: float = typer.Option(
        4.0, "--timeout", help="Seconds, under NPD's plugin timeout.", callback=_seconds
    ),
) -> None:
    """node-problem-detector plugin: exit 0 OK, 1 NonOK, 2 Unknown; <= 80 bytes on stdout."""
    from ampenv.integrations.npd_plugin import run_plugin

    code, message = run_plugin(Options(config_path=config, sysroot=sysroot), timeout)
    sys.stdout.write(message + "\n")
    raise typer.Exit(code)


@app.command()
def collect(
    output: Path = typer.Option(..., "--output", "-o", help="The bundle to write (.tar.gz)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Write a support bundle: what the quick profile saw, secrets redacted (docs/bundle.md)."""
    from ampenv.integrations.collect import collect as collect_bundle
    from ampenv.report.brief import VERDICTS

    if output.exists() and not force:
        _die(f"{output} exists: it is replaced only with --force")

    try:
        report = collect_bundle(Options(config_path=config, sysroot=sysroot), output)
    except (ConfigError, ValueError) as exc:
        _die(str(exc))
    except OSError as exc:
        _die(f"cannot write {output}: {exc.strerror or exc}")
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
        _die(str(exc))
    if report is not None:
        emit(render(report, "text", color=_use_color(None)), None)
        raise typer.Exit(report.exit_code)
    script, unmet = export_script(session.config.section("env"), os.environ, session.config.label)
    sys.stdout.write(script)
    for line in unmet:
        typer.echo(f"ampenv: unmet: {line}", err=True)
    raise typer.Exit(1 if unmet else 0)


certificate_app = typer.Typer(help="Show or verify the node certificate.", no_args_is_help=True)
app.add_typer(certificate_app, name="certificate")
CertificateOpt = typer.Option(
    None,
    "--certificate",
    help="Default: $AMPENV_CERTIFICATE, [certificate] path, then /var/lib/ampenv (root) "
    "or $XDG_STATE_HOME/ampenv/certificate.json.",
)


@app.command()
def certify(
    certificate: Optional[str] = CertificateOpt,
    fmt: str = FormatOpt,
    output: Optional[Path] = OutputOpt,
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
    device: Optional[str] = DeviceOpt,
    verbose: bool = VerboseOpt,
    strict: bool = StrictOpt,
    deadline: Optional[float] = DeadlineOpt,
    textfile_dir: Optional[Path] = TextfileOpt,
    chart: Optional[bool] = typer.Option(
        None, "--chart/--no-chart", help="Draw the loss curves (default: on a terminal)."
    ),
) -> None:
    """Run the certify profile (full + ResNet50 AMP smoke training) and, when the node passes,
    write its certificate; a node that does not pass loses its old one."""
    from ampenv.integrations.certificate import resolve_path, settle
    from ampenv.report import FORMATS, render

    if fmt not in FORMATS:
        _die(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if device not in (None, "npu", "cuda", "cpu"):
        _die(f"unknown device {device!r}: use npu, cuda or cpu")
    opts = Options(
        profile="certify",
        config_path=config,
        sysroot=sysroot,
        device=device,
        deadline=deadline,
        strict=strict,
        progress=sys.stderr.isatty(),
    )
    try:
        session = open_session(opts)
        report = diagnose(opts, session)
    except (ConfigError, ValueError) as exc:
        _die(str(exc))
    emit(render(report, fmt, verbose=verbose, color=_use_color(output)), output)
    on_stdout = fmt == "text" and output is None
    if chart if chart is not None else on_stdout and sys.stdout.isatty():
        from ampenv.report.chart import of_report

        typer.echo(of_report(report), err=not on_stdout, nl=False)
    section = session.config.section("certificate")
    path = resolve_path(certificate, session.probe.env, section)
    try:
        settled = settle(report, session.probe, section, path)
    except OSError as exc:
        _die(f"certificate {path}: {exc.strerror or exc}")
    typer.echo(f"ampenv: {settled.note}", err=True)
    export_textfile(report, textfile_dir, _certified(session, certificate), settled.exit_code)
    raise typer.Exit(settled.exit_code)


def _verify_certificate(certificate: Optional[str], config: Optional[str], sysroot: Optional[str]):
    """Config and probe without loading any check: verify must answer in milliseconds."""
    from ampenv.core.config import load
    from ampenv.integrations.certificate import verify_node
    from ampenv.probe import Probe

    env = dict(os.environ)
    root = sysroot if sysroot is not None else env.get("AMPENV_SYSROOT", "")
    try:
        cfg = load(config, env, root)
    except ConfigError as exc:
        _die(str(exc))
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
    fmt: str = typer.Option("text", "--format", "-f", help="text or json (the file itself)."),
    config: Optional[str] = ConfigOpt,
    sysroot: Optional[str] = SysrootOpt,
) -> None:
    """Print the certificate and whether it is valid on this node now (exit as verify)."""
    import json

    from ampenv.report.certificate_view import render

    if fmt not in ("text", "json"):
        _die(f"unknown format {fmt!r}: use text or json")
    path, verdict = _verify_certificate(certificate, config, sysroot)
    if fmt == "json" and verdict.certificate is not None:
        emit(json.dumps(verdict.certificate, indent=2, sort_keys=True) + "\n", None)
    else:
        emit(render(path, verdict.reason, verdict.certificate), None)
    raise typer.Exit(0 if verdict.ok else 1)


@app.command()
def fleet(
    paths: list[str] = typer.Argument(..., help="Certificates, or folders of *.json certificates."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    output: Optional[Path] = OutputOpt,
    baseline_out: Optional[str] = typer.Option(
        None, "--baseline-out", help="Write the groups' figures here ([certificate] baseline)."
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
        _die(f"unknown format {fmt!r}: use text or json")
    if not 0 <= min_gap < 1 or not 0 <= mad_k <= 100 or min_group < 2:
        _die("--min-gap must be in [0, 1), --mad-k in [0, 100], --min-group at least 2")
    rule = fleet_mod.Rule(min_gap=min_gap, mad_k=mad_k, min_group=min_group)
    try:
        result = fleet_mod.read(paths, rule)
    except fleet_mod.FleetError as exc:
        _die(str(exc))
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
            _die(f"--baseline-out {baseline_out}: {exc.strerror or exc}")
        typer.echo(f"ampenv: wrote the group figures to {baseline_out}", err=True)
    raise typer.Exit(result.exit_code)


def main() -> None:
    try:
        app(prog_name="ampenv")
    except KeyboardInterrupt:
        sys.stderr.write("ampenv: interrupted\n")
        sys.exit(130)
    finally:
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
