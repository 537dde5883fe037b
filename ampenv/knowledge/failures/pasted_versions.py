"""Versions a pasted environment shows, judged against Ascend's pairing tables: npu-smi's
header names the loaded driver, the toolkit's install info (or a path into its release's
folder) the CANN release, and a driver older than every HDK that CANN release is paired with
lacks what its runtime calls. Issue templates ask for both; the error itself may say nothing
of it."""

from __future__ import annotations

import re
from typing import Optional

from ampenv.knowledge import hdk
from ampenv.knowledge.failures.lines import ANSI
from ampenv.knowledge.failures.model import Failure, Source, TextFacts
from ampenv.probe.driver import driver_key

# Where a text shows the CANN release installed, found by a literal search each (the window
# after it is read; a regex spanning lines made a flood of one of them quadratic): the
# toolkit's ascend_toolkit_install.info (vllm-ascend's collect_env prints it too) and a path
# into the release's own folder (not "latest"). A release a text only speaks of (a "CANN
# version: X" in release notes or an installer to download) is not one installed.
_ANCHOR = re.compile(rb"package_name=Ascend-cann-toolkit|Ascend/ascend-toolkit/")
_BREAK = re.compile(rb"\r\n|\n|\r|\\r\\n|\\n|\\r")  # a line's end, as written or escaped
# the info file's next lines: "version=" first on its line, or after a record's punctuation (a
# JSON logger's "msg": "), never inside a word or a sentence ("innerversion=", "pillow version=")
_INFO_VERSION = re.compile(rb"(?:[ \t]{0,8}|[^\n]{0,80}?(?<![\w\s-]))version=([\w.-]{3,40})")
_FOLDER = re.compile(
    rb"(\d{1,2}\.\d\.(?:RC\d{1,2}|\d{1,2})[\w.-]{0,20}?)(?=/|[\s'\"]|$)", re.IGNORECASE
)
_URL = re.compile(rb"://[^\s'\"]*$")  # a folder in a download or a page's address is no install
MAX_ANCHORS = 1 << 16  # a text naming the toolkit more often than this is not judged


def _release(anchor: bytes, before: bytes, after: bytes) -> Optional[bytes]:
    """The release the text shows right after ``anchor`` (``before``, ``after``: the bytes on
    either side of it)."""
    after = ANSI.sub(b"", after)
    if anchor.startswith(b"Ascend/"):
        m = None if _URL.search(before) else _FOLDER.match(after)
    else:
        lines = _BREAK.split(after, maxsplit=3)[1:4]
        m = next((f for f in (_INFO_VERSION.match(line) for line in lines) if f), None)
    return m.group(1) if m else None


def cann_releases(text: bytes) -> frozenset[str]:
    """The CANN releases a text shows installed, every one (two at most: then it shows several,
    and which one runs is not known); two placeholders where it names the toolkit too often to
    read."""
    named: set[str] = set()
    for count, m in enumerate(_ANCHOR.finditer(text)):
        if count == MAX_ANCHORS:
            return frozenset({"?", "??"})
        before = text[max(0, m.start() - 200) : m.start()]
        release = _release(m.group(0), before, text[m.end() : m.end() + 300])
        if release:
            named.add(release.decode("ascii", "replace").lower().rstrip(".-"))
            if len(named) > 1:
                break
    return frozenset(named)


def _older_than_its_cann(m: re.Match[str], releases: Optional[frozenset[str]]) -> bool:
    """The driver npu-smi shows is older than every HDK paired with the one CANN release the
    text names (none or several named, or one the pairing table does not list: not judged)."""
    if not releases or len(releases) != 1:
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
        # a node off the pairing table runs most jobs: a cause only where one failed
        notice=True,
    ),
)
