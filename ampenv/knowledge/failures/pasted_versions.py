"""Versions a pasted environment shows, judged against Ascend's pairing tables: npu-smi's
header names the loaded driver, the toolkit's install info (or its installer's file name) the
CANN release, and a driver older than every HDK that CANN release is paired with lacks what
its runtime calls. Issue templates ask for both; the error itself may say nothing of it."""

from __future__ import annotations

import re

from ampenv.knowledge import hdk
from ampenv.knowledge.failures.model import Failure, Source, TextFacts
from ampenv.probe.driver import driver_key

# The ways a text names the CANN release installed: ascend_toolkit_install.info (which
# vllm-ascend's collect_env prints too), the installer's file name, a path holding the
# release's own folder (not "latest"), and a "CANN version:" line.
_CANN = re.compile(
    # (its next line's "version=", not "innerversion="; "\\nversion=" where escaped)
    rb"package_name=Ascend-cann-toolkit\b.{0,300}?(?:(?<![a-z])|(?<=\\n))version="
    rb"(?P<a>[\w.-]{3,40})"
    rb"|Ascend-cann-toolkit_(?P<b>[\w.-]{3,40}?)_linux"
    rb"|/ascend-toolkit/(?P<c>\d{1,2}\.\d\.(?:RC\d{1,2}|\d{1,2})[\w.-]{0,20})/"
    rb"|\bCANN[ _-]?version\s{0,3}[:=]\s{0,3}(?P<d>\d{1,2}\.\d\.[\w.-]{1,30})",
    re.IGNORECASE | re.DOTALL,
)


def cann_releases(text: bytes) -> frozenset[str]:
    """The CANN releases of the pairing table a text names (several: not one installation)."""
    named = {
        (m.group("a") or m.group("b") or m.group("c") or m.group("d")).decode().lower()
        for m in _CANN.finditer(text)
    }
    return frozenset(p.cann for v in named if (p := hdk.paired(v)) is not None)


def _older_than_its_cann(m: re.Match[str], releases: frozenset[str]) -> bool:
    """The driver npu-smi shows is older than every HDK paired with the one CANN release the
    text names (none or several named: not judged)."""
    if len(releases) != 1:
        return False
    pairing = hdk.paired(next(iter(releases)))
    have = driver_key(m.group("driver"))
    return bool(pairing and have and have < (driver_key(pairing.oldest) or ()))


FAILURES = (
    Failure(
        id="driver-older-than-cann",
        mode="driver",
        component="driver/HDK",
        # npu-smi info's header: "| npu-smi 22.0.4      Version: 22.0.4 |"
        patterns=(
            r"\bnpu-smi\s{1,8}[\w.]{1,30}\s{1,60}Version:\s{0,8}"
            r"(?P<driver>\d{1,3}\.\d{1,3}\.(?:rc)?\d{1,3}(?:\.b?\d{1,4}){0,3})\b",
        ),
        codes=(),
        meaning="the driver npu-smi shows is older than every Ascend HDK release paired with the "
        "CANN release the same text shows installed: that CANN's runtime calls what this "
        "driver lacks (a device that will not open, 207000 feature not supported, "
        "get_soc_version and set_device failing without a clear error)",
        causes=(
            "the driver and firmware were not upgraded with CANN (or a container brings a newer "
            "CANN than the host's driver)",
            "the CANN release chosen is newer than the host's HDK supports",
        ),
        fix="install the Ascend HDK paired with this CANN (its firmware first, then its driver, "
        "then reboot), or use the CANN release (container image) paired with this driver; "
        "`ampenv doctor --only npu.driver` names both releases on the node",
        confirm="npu.driver",
        sources=(
            Source(hdk.GUIDE, "official"),
            Source(hdk.NOTES.format("9.0.0/release-notes.md"), "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4744", "report"),
        ),
        hints=("npu-smi",),
        context=TextFacts(cann_releases, _older_than_its_cann),
    ),
)
