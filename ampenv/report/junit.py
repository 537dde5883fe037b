"""``--format junit``: one testcase per check, for CI dashboards."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from ampenv.core.model import Report, Status
from ampenv.util.formats import xml_text


def render(report: Report, **_: Any) -> str:
    counts = {s: sum(1 for c in report.checks if c.status is s) for s in Status}
    suite = ET.Element(
        "testsuite",
        name=f"ampenv.{report.profile}",
        hostname=report.host,
        timestamp=report.started_at,
        tests=str(len(report.checks)),
        failures=str(counts[Status.FAIL]),
        errors=str(counts[Status.ERROR]),
        skipped=str(counts[Status.SKIP]),
        time=f"{report.duration_s:.3f}",
    )
    for c in report.checks:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"ampenv.{c.id.split('.')[0]}",
            name=c.id,
            time=f"{c.duration_s:.3f}",
        )
        body = "\n".join([*c.details, *([f"remedy: {c.remedy}"] if c.remedy else [])])
        if c.status is Status.FAIL:
            ET.SubElement(case, "failure", message=c.summary).text = body
        elif c.status is Status.ERROR:
            ET.SubElement(case, "error", message=c.summary).text = body
        elif c.status is Status.SKIP:
            ET.SubElement(case, "skipped", message=c.summary)
        elif c.status is Status.WARN:
            ET.SubElement(case, "system-out").text = f"warning: {c.summary}\n{body}"
    for element in suite.iter():  # XML 1.0 forbids most control characters: none get in
        element.attrib = {k: xml_text(v) for k, v in element.attrib.items()}
        if element.text:
            element.text = xml_text(element.text)
    ET.indent(suite)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
    )
