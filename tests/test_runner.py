"""The runner never hangs and never crashes: every misbehaving check becomes a clear result."""

from __future__ import annotations

import threading
import time

import pytest

from ampenv.checks import Context, Result, Setting, Status, check
from ampenv.core.config import Config, parse
from ampenv.core.registry import Registry
from ampenv.core.runner import run
from ampenv.probe import Probe


def run_checks(*specs, profile="quick", config=None, deadline=30.0, **kw):
    registry = Registry()
    for spec in specs:
        spec.source = "test"
        registry.add(spec)
    ctx = Context(
        config=config or Config(),
        probe=Probe(env={}),
        profile=profile,
        deadline=time.monotonic() + deadline,
    )
    return {r.id: r for r in run(ctx, registry, **kw)}


@check("t.ok", title="ok")
def ok(ctx):
    return Result.ok("fine")


@check("t.raises", title="raises")
def raises(ctx):
    raise RuntimeError("boom")


@check("t.sleeps", title="sleeps", timeout=0.5)
def sleeps(ctx):
    time.sleep(30)
    return Result.ok("woke up")


@check("t.not_result", title="not a result")
def not_result(ctx):
    return "all good"


@check("t.bare_warn", title="warn without remedy")
def bare_warn(ctx):
    return Result(Status.WARN, "something is off")


@check("t.fails", title="fails")
def fails(ctx):
    return Result.fail("broken", remedy="fix it")


@check("t.after_fail", title="needs the failing one", needs=("t.fails",))
def after_fail(ctx):
    return Result.ok("ran")


@check("t.after_ok", title="needs the passing one", needs=("t.ok",))
def after_ok(ctx):
    return Result.ok("ran after ok")


def test_a_raising_check_is_an_error_naming_it_and_others_still_run():
    results = run_checks(ok, raises)
    assert results["t.ok"].status is Status.PASS
    r = results["t.raises"]
    assert r.status is Status.ERROR
    assert "t.raises crashed after" in r.summary and "RuntimeError: boom" in r.summary


def test_a_check_sleeping_past_its_timeout_is_an_error_and_the_run_goes_on():
    started = time.monotonic()
    results = run_checks(sleeps, ok)
    assert time.monotonic() - started < 20  # the 30 s sleep was not waited for
    r = results["t.sleeps"]
    assert r.status is Status.ERROR
    assert "t.sleeps timed out after" in r.summary and "timeout of 0.5 s" in r.summary
    assert results["t.ok"].status is Status.PASS


def test_a_non_result_return_is_an_error():
    r = run_checks(not_result)["t.not_result"]
    assert r.status is Status.ERROR
    assert "returned str, not a Result" in r.summary


def test_a_warning_without_remedy_is_refused():
    r = run_checks(bare_warn)["t.bare_warn"]
    assert r.status is Status.ERROR
    assert "needs a remedy" in r.summary


def test_a_check_whose_prerequisite_failed_is_skipped_with_the_reason():
    results = run_checks(fails, after_fail, ok, after_ok)
    r = results["t.after_fail"]
    assert r.status is Status.SKIP
    assert r.summary == "needs t.fails, which reported fail: broken"
    assert results["t.after_ok"].status is Status.PASS


def test_independent_checks_run_concurrently():
    barrier = threading.Barrier(2, timeout=5)

    def meet(ctx):
        barrier.wait()  # raises BrokenBarrierError unless both run at once
        return Result.ok("met")

    a = check("t.a", title="a")(meet)
    b = check("t.b", title="b")(meet)
    results = run_checks(a, b)
    assert [r.status for r in results.values()] == [Status.PASS, Status.PASS]


def test_results_come_in_registry_order_whatever_order_they_finish_in():
    def slow(ctx):
        time.sleep(0.3)
        return Result.ok("slow")

    first = check("t.first", title="first")(slow)
    results = run_checks(first, ok)
    assert list(results) == ["t.first", "t.ok"]


def test_only_and_skip_take_family_prefixes():
    other = check("u.x", title="other family")(lambda ctx: Result.ok("x"))
    assert list(run_checks(ok, fails, other, only=["t."])) == ["t.ok", "t.fails"]
    assert list(run_checks(ok, fails, other, skip=["t"])) == ["u.x"]


def test_profile_filters_unless_only_names_the_check():
    heavy = check("t.heavy", title="heavy", profile="certify")(lambda ctx: Result.ok("h"))
    assert "t.heavy" not in run_checks(ok, heavy, profile="full")
    assert run_checks(ok, heavy, profile="quick", only=["t.heavy"])["t.heavy"].status is Status.PASS


def test_the_global_deadline_stops_a_long_check_and_what_never_started():
    patient = check("t.patient", title="patient", timeout=60)(lambda ctx: time.sleep(30))
    late = check("t.late", title="late", needs=("t.patient",))(lambda ctx: Result.ok("late"))
    results = run_checks(patient, late, deadline=0.5)
    assert results["t.patient"].status is Status.ERROR
    assert "global deadline" in results["t.patient"].summary
    # its dependant could not run: skipped, naming why
    assert results["t.late"].status is Status.SKIP


def test_config_skip_and_timeout_apply_per_check():
    cfg = parse('[checks]\nskip = ["t.fails"]\n[checks."t.sleeps"]\ntimeout = 0.2\n', "x.toml")
    registry_checks = {"t.sleeps": sleeps, "t.fails": fails}
    cfg.validate_checks(registry_checks)
    results = run_checks(sleeps, fails, config=cfg)
    assert results["t.fails"].status is Status.SKIP
    assert "skipped by x.toml" in results["t.fails"].summary
    assert "timeout of 0.2 s" in results["t.sleeps"].summary


def test_check_settings_reach_the_check():
    seen = {}

    @check("t.settings", title="settings", settings={"limit": Setting(int, 3, "a limit")})
    def with_settings(ctx):
        seen.update(ctx.settings)
        return Result.ok("ok")

    cfg = parse('[checks."t.settings"]\nlimit = 7\n', "x.toml")
    cfg.validate_checks({"t.settings": with_settings})
    run_checks(with_settings, config=cfg)
    assert seen["limit"] == 7


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[checks."t.settings"]\nlimit = "seven"\n', 'checks."t.settings".limit'),
        ('[checks."t.settings"]\nlimti = 7\n', 'checks."t.settings".limti'),
        ('[checks."nope"]\ntimeout = 1\n', 'checks."nope"'),
        ('[checks]\nskip = "t.ok"\n', "checks.skip"),
    ],
)
def test_bad_check_settings_name_the_file_and_key(text, key):
    from ampenv.core.settings import ConfigError

    spec = check("t.settings", title="s", settings={"limit": Setting(int, 3, "l")})(
        lambda ctx: Result.ok("x")
    )
    cfg = parse(text, "site.toml")
    with pytest.raises(ConfigError) as info:
        cfg.validate_checks({"t.settings": spec})
    assert info.value.path == "site.toml" and info.value.key == key


def test_combined_remedies_say_a_shared_step_once_in_order() -> None:
    from ampenv.core.model import Finding, Status, combine

    holders = "see who holds the device: `npu-smi info`"
    result = combine(
        [
            Finding(Status.WARN, "a", f"{holders}; stop them"),
            Finding(Status.FAIL, "b", f"lower the batch size; {holders}"),
            Finding(Status.WARN, "c", f"lower the batch size; {holders}"),  # all said already
        ],
        "fine",
    )
    assert result.remedy == f"lower the batch size; {holders}; stop them"
