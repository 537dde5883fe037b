"""Issue 17, item 11: control characters never reach the terminal nor the XML. Text output
escapes what is not printable; JUnit holds nothing XML 1.0 forbids; Prometheus label values are
escaped. Hostile strings are generated from every control character."""

from __future__ import annotations

import random
import xml.dom.minidom
from xml.etree import ElementTree as ET

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ampenv.checks import Result
from ampenv.core.model import CheckRun, Report
from ampenv.report import render
from ampenv.report.brief import headline
from ampenv.report.prometheus import escape_label

FAKE = "\x1b[2K\r\x1b[32m[✓] HEALTHY: 13 pass\x1b[0m"
CONTROLS = [chr(c) for c in (*range(0, 32), 127, *range(0x80, 0xA0))] + ["\u202e", "\u2028"]


def _hostile(rng: random.Random) -> str:
    return "".join(rng.choice([*CONTROLS, "a", " ", "<", "&", '"', "é"]) for _ in range(12))


def _report(host: str, text: str) -> Report:
    failed = Result.fail(text, remedy=text, details=[text], facts={"v": text})
    runs = [
        CheckRun("env.npu", "NPU environment " + text, failed),
        CheckRun("npu.devices", "devices", Result.warn("w " + text, remedy="r")),
        CheckRun("host.resources", "host", Result.error("e " + text)),
        CheckRun("python.stack", "py", Result.skip("s " + text)),
    ]
    return Report("quick", "npu", "2026-01-02T03:04:05Z", 0.5, runs, host=host)


def _no_controls(text: str) -> None:
    bad = [c for c in text if (c != "\n" and not c.isprintable())]
    assert bad == [], bad


def test_a_bundle_host_name_cannot_paint_a_fake_verdict() -> None:
    out = render(_report(FAKE, "x"), "text", verbose=True)
    _no_controls(out)
    assert "\\x1b[32m[✓] HEALTHY" in out  # shown, harmless
    first = out.splitlines()[0]
    assert first.startswith("ampenv doctor") and "\\r" in first


@pytest.mark.parametrize("seed", range(5))
def test_text_renderers_escape_every_control_character(seed: int) -> None:
    rng = random.Random(seed)
    report = _report(_hostile(rng), _hostile(rng))
    for fmt in ("text", "brief", "npd"):
        try:
            out = render(report, fmt, verbose=True)
        except (KeyError, ValueError):
            continue  # a format this build lacks
        _no_controls(out)
    _no_controls(headline(report))
    assert "\n" not in headline(report)


def test_colour_stays_while_fields_are_escaped() -> None:
    out = render(_report("node", "\x1b[31mred"), "text", color=True)
    assert "\x1b[31m[✗]\x1b[0m" in out  # ampenv's own colour
    assert "\\x1b[31mred" in out  # the field's escape, made visible


@pytest.mark.parametrize("seed", range(5))
def test_junit_is_well_formed_whatever_the_text(seed: int) -> None:
    rng = random.Random(seed)
    out = render(_report(_hostile(rng), _hostile(rng) + "\x00\x0b\x0c\ud800\ufffe"), "junit")
    ET.fromstring(out.encode("utf-8", "surrogatepass"))  # raises when not well-formed
    xml.dom.minidom.parseString(out.encode("utf-8", "surrogatepass"))


def test_junit_the_red_team_case_a_control_character_in_a_summary() -> None:
    out = render(_report("node", "bad \x01 value \x1b[0m"), "junit")
    root = ET.fromstring(out)
    failure = root.find("testcase/failure")
    assert failure is not None and "\\x01" in failure.get("message")


@pytest.mark.parametrize("seed", range(5))
def test_prometheus_label_values_parse_back(seed: int) -> None:
    rng = random.Random(seed)
    value = _hostile(rng) + '\\"\n'
    line = f'ampenv_x{{v="{escape_label(value)}"}} 1\n'
    assert line.count("\n") == 1
    [family] = text_string_to_metric_families(line)
    [sample] = family.samples
    _no_controls(sample.labels["v"])


def test_prometheus_report_with_hostile_host_and_ids_parses() -> None:
    rng = random.Random(7)
    text = render(_report(_hostile(rng), _hostile(rng)), "prometheus")
    families = list(text_string_to_metric_families(text))
    assert families
    for line in text.splitlines():
        _no_controls(line)
