"""Versions a pasted environment shows, judged together: npu-smi's header (the driver) against
the CANN release the same text names, read once per text however many lines ask."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Callable

import pytest

from ampenv.knowledge.failures import Scanner, explain, scan_lines
from ampenv.knowledge.failures import pasted_versions as pv
from ampenv.knowledge.failures.match import BATCH_LINES
from ampenv.knowledge.failures.model import TextFacts

HEADER = "| npu-smi {v}                                   Version: {v}                       |\n"
INFO = "package_name=Ascend-cann-toolkit\nversion={c}\ninnerversion=V100R001C22SPC001B231\n"


def ids(*texts: str) -> set[str]:
    scanner = Scanner()
    for i, text in enumerate(texts):
        scanner.feed_bytes(text.encode(), f"t{i}")
    return {h.id for h in scanner.hits()}


def test_a_driver_older_than_every_hdk_paired_with_the_cann_shown_is_named() -> None:
    assert ids(HEADER.format(v="22.0.4") + INFO.format(c="8.2.RC1")) == {"driver-older-than-cann"}
    # the CANN first, the table after; the installer's name or a release's folder says it too
    assert ids(INFO.format(c="8.2.RC1") + HEADER.format(v="24.1.rc2")) == {
        "driver-older-than-cann"
    }
    # a path into the release's own folder shows it installed too, as does the folder itself
    for named in (
        "/usr/local/Ascend/ascend-toolkit/8.2.RC1/lib64/libascendcl.so\n",
        "ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/8.2.RC1\n",
    ):
        assert ids(HEADER.format(v="23.0.6") + named) == {"driver-older-than-cann"}, named
    # and a download's address beside the install info is no second release
    url = "https://mirror.example/Ascend/ascend-toolkit/8.1.RC1/toolkit.run\n"
    assert ids(HEADER.format(v="22.0.4") + INFO.format(c="8.2.RC1") + url) == {
        "driver-older-than-cann"
    }


@pytest.mark.parametrize(
    "text",
    [
        HEADER.format(v="25.0.rc1") + INFO.format(c="8.2.RC1"),  # the oldest paired HDK
        HEADER.format(v="25.2.0") + INFO.format(c="8.2.RC1"),
        HEADER.format(v="26.0.rc1") + INFO.format(c="8.2.RC1"),  # newer: not judged here
        HEADER.format(v="22.0.4"),  # no CANN shown
        HEADER.format(v="22.0.4") + INFO.format(c="8.2.RC1.alpha003"),  # not in the table
        # two releases named: which one runs is not known
        HEADER.format(v="22.0.4")
        + INFO.format(c="8.2.RC1")
        + "/usr/local/Ascend/ascend-toolkit/7.0.0/lib64\n",
        # "innerversion=" is no version, nor is a "latest" folder
        HEADER.format(v="22.0.4")
        + "package_name=Ascend-cann-toolkit\ninnerversion=8.2.RC1\ninner_version=8.2.RC1\n"
        + "pillow version=9.0.0\n/usr/local/Ascend/ascend-toolkit/latest/lib64\n",
        # a second release the pairing table does not list still makes two (a red team's)
        HEADER.format(v="24.1.rc2") + INFO.format(c="8.0.RC2.alpha003") + INFO.format(c="8.2.RC1"),
        # one between the info file's lines, or coloured: each is a release shown
        HEADER.format(v="24.1.rc2")
        + "package_name=Ascend-cann-toolkit\n/usr/local/Ascend/ascend-toolkit/8.0.RC1/x\n"
        + "version=8.2.RC1\n",
        HEADER.format(v="24.1.rc2")
        + "package_name=Ascend-cann-toolkit\n\x1b[32mversion=8.2.RC1\x1b[0m\n"
        + "/usr/local/Ascend/ascend-toolkit/8.0.RC1/lib64\n",
        # a release spoken of is not one installed: notes, a download, a recommendation
        HEADER.format(v="23.0.rc3")
        + "Note: CANN version: 8.2.RC1 requires driver 25.0.rc1 or later.\n"
        + "To upgrade, download Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run\n"
        + "from https://mirror.example/Ascend/ascend-toolkit/8.2.RC1/toolkit.run\n",
    ],
)
def test_a_paired_unknown_or_unclear_pair_stays_silent(text: str) -> None:
    assert ids(text) == set()


def test_the_cann_of_one_text_does_not_judge_another() -> None:
    # the same header line in two texts: each text's own CANN decides it
    assert ids(HEADER.format(v="22.0.4"), INFO.format(c="8.2.RC1")) == set()
    scanner = Scanner()
    scanner.feed_bytes((HEADER.format(v="22.0.4") + INFO.format(c="8.2.RC1")).encode(), "old")
    scanner.feed_bytes(HEADER.format(v="22.0.4").encode(), "alone")
    [hit] = scanner.hits()
    assert (hit.id, hit.first, hit.count) == ("driver-older-than-cann", "old:1", 1)


@contextmanager
def reader(read: Callable[[bytes], frozenset[str]]) -> Iterator[None]:
    """The entry's facts read by ``read`` for the block (the entry is frozen: set in place)."""
    failure = next(f for f in pv.FAILURES if f.id == "driver-older-than-cann")
    original = failure.context
    object.__setattr__(failure, "context", TextFacts(read, original.judge))
    try:
        yield
    finally:
        object.__setattr__(failure, "context", original)


def test_the_text_is_read_once_however_many_lines_ask() -> None:
    calls = []

    def counting(text: bytes) -> frozenset[str]:
        calls.append(len(text))
        return pv.cann_releases(text)

    text = "".join(HEADER.format(v=f"22.0.{i}") for i in range(5000)) + INFO.format(c="8.2.RC1")
    with reader(counting):
        assert ids(text) == {"driver-older-than-cann"}
    assert len(calls) == 1


def test_a_reader_that_fails_loses_only_its_own_finding() -> None:
    def broken(text: bytes) -> frozenset[str]:
        raise RuntimeError("a bug")

    text = HEADER.format(v="22.0.4") + INFO.format(c="8.2.RC1") + "[ERROR] HCCL EI0006 rank 3\n"
    with reader(broken):
        found = ids(text)
    assert "driver-older-than-cann" not in found and found  # the rest of the scan stands


def test_the_header_alone_explains_nothing() -> None:
    assert explain(HEADER.format(v="22.0.4")) == []


def test_a_batch_that_more_lines_may_follow_is_not_the_whole_text() -> None:
    # lines fed in batches: the first batch shows one release, the last another
    filler = ["step"] * (BATCH_LINES + 10)
    folder = "/usr/local/Ascend/ascend-toolkit/{}/lib64"
    lines = [*HEADER.format(v="24.1.rc1").splitlines(), folder.format("8.2.RC1"), *filler]
    assert {h.id for h in scan_lines([*lines, folder.format("8.0.RC1")], "t")} == set()
    # a text of one batch is judged as a file is
    assert {h.id for h in scan_lines(lines[:2], "t")} == {"driver-older-than-cann"}


def test_a_flood_of_one_header_line_is_read_once_per_text(monkeypatch) -> None:
    reads = []
    matches = Scanner._matches

    def counting(self, part, *args, **kwargs):
        reads.append(part)
        return matches(self, part, *args, **kwargs)

    monkeypatch.setattr(Scanner, "_matches", counting)
    text = HEADER.format(v="22.0.4") * 3000 + INFO.format(c="8.2.RC1")
    assert ids(text, text) == {"driver-older-than-cann"}
    assert len([r for r in reads if b"npu-smi" in r]) == 2  # once in each of the two texts

