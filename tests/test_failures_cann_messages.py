"""CANN's messages read without their code (`ampenv explain`): the reference pages' own
examples, what is not read, and what a log scan does with them (nothing)."""

from __future__ import annotations

import re

import pytest

from ampenv.knowledge.failures import cann_messages, explain, scan_lines
from ampenv.knowledge.failures.e_codes import cann_e_formats, cann_e_pages, cann_e_row

PAGES = cann_e_pages()
READERS = [r for fmts in cann_messages._index().values() for r in fmts]


def test_every_page_names_its_sources_and_keeps_its_formats_verbatim() -> None:
    assert len(PAGES) >= 250
    for code, page in PAGES.items():
        assert re.fullmatch(r"[EW][0-9A-Z]\d{4}", code)
        assert page["sources"] and all(re.search(r"@[0-9a-f]{40}$", s) for s in page["sources"])
        assert all(f == " ".join(f.split()) for f in page["formats"])  # one line each


def _examples() -> list[tuple[str, str]]:
    read = {r.code for r in READERS}
    return [(code, ex) for code, page in PAGES.items() if code in read for ex in page["examples"]]


@pytest.mark.parametrize("code,example", _examples())
def test_a_page_s_example_reads_as_its_own_code(code: str, example: str) -> None:
    # the page's example is what CANN prints from the page's format: read without its code,
    # it names that code (a page's example in another wording than its format names none:
    # EE1013's is EH0010's message, word for word)
    if any(r.search(example) for r in READERS if r.code == code):
        found = cann_messages.read(example)
        assert found is not None and found[0] == code
        # explain answers it: by the code, or by an entry the scan reads it by first
        assert explain(example)


def test_most_examples_are_read() -> None:
    read = [code for code, example in _examples() if cann_messages.read(example)]
    assert len(read) >= 0.8 * len(_examples()) > 100


def test_a_message_gives_its_code_s_meaning_fix_and_page() -> None:
    (found,) = explain("The number of started user processes on the device exceeds the limit.")
    assert found.id == "cann-e30003" and found.family == "cann-message"
    assert "previous training job has exited" in found.fix and "exceeds" in found.meaning
    assert any("E30003-Not_Supported_Specification.md@" in s.ref for s in found.sources)
    # a message an entry of the catalogue reads (the driver's words for EL0020 too) is that
    # entry's, with the page's fix in it
    (found,) = explain("Device 0 is occupied by multiple containers.")
    assert found.id == "dcmi-device-in-use" and "device-share" in found.fix
    (found,) = explain("P2P communication failed. Reason: devices on two planes")
    assert found.id == "cann-ei0010" and "HCCL_INTRA_ROCE_ENABLE" in found.fix


@pytest.mark.parametrize(
    "line",
    [
        # everyday English that other tools print: a log scan reads CANN's codes, not this
        "npm ERR! Failed to open the JSON file: package.json",
        "usage error: --fp16 and --bf16 are mutually exclusive",
        "ValueError: Failed to load the model from checkpoint.pt",
        "[ERROR] The device access is invalid.",
    ],
)
def test_a_log_scan_reads_no_message_without_its_code(line: str) -> None:
    assert [h.id for h in scan_lines([line], "t")] == []


@pytest.mark.parametrize(
    "line",
    [
        # a warning's text (W40012) that another code's format would have swallowed
        "[WARNING] GE(1,python):2025-01-01 Value -2 for parameter ASCEND_MAX_OP_CACHE_SIZE is "
        "invalid. The value must be in the range of [1, 2147483647) or -1 and defaults to 500.",
        # a word whole: "invalidated" is not "invalid"
        "The device access is invalidated by policy",
        "xxThe device access is invalid",
        # too little fixed text to name a code ("%s failed. Reason: %s." is EE1023's and more)
        "aclrtMalloc failed. Reason: out of luck.",
        # another case than CANN prints
        "the device access is invalid.",
    ],
)
def test_what_is_not_read(line: str) -> None:
    assert cann_messages.read(line) is None


def test_a_format_that_reads_another_code_s_text_is_neither_s() -> None:
    # EH0009's example ("X failed. Value v for parameter p is invalid. Reason: r") is read by
    # EE1012's "%s failed. Value %s for %s is invalid. Reason: %s", which is dropped for it
    example = next(e for e in PAGES["EH0009"]["examples"])
    assert cann_messages.read(example) in (None,) or cann_messages.read(example)[0] == "EH0009"
    assert not [r for r in READERS if r.code == "EE1012" and r.search(example)]
    # a format two codes print word for word reads both codes' text: neither keeps it
    printed: dict[str, set[str]] = {}
    for code, fmts in cann_e_formats().items():
        for fmt in fmts:
            printed.setdefault(" ".join(fmt.split()).rstrip("."), set()).add(code)
    shared = {f for f, codes in printed.items() if len(codes) > 1}
    assert shared
    for fmt in shared:
        text = cann_messages._PLACEHOLDER.sub("x", fmt)
        assert not [r for r in READERS if r.search(text)], fmt


def test_internal_codes_and_warnings_are_not_read_from_messages() -> None:
    assert READERS and not [r for r in READERS if r.code[2] == "9" or r.code[0] == "W"]


def test_pieces_are_fixed_text_only() -> None:
    # each piece is literal text (spaces as any spaces, a word's edge where a word ends it),
    # searched for in a bounded window after the one before: no wildcard to backtrack
    # through, so a line of a format's small pieces repeated costs its length
    edge = r"\(\?<!\[A-Za-z0-9\]\)|\(\?!\[A-Za-z0-9\]\)"
    for r in READERS:
        for piece in r.pieces:
            text = re.sub(edge, "", piece.pattern)
            assert re.fullmatch(r"(?:\\s\+|\\.|[^\\.*+?{}()\[\]|^$])+", text), piece.pattern


@pytest.mark.parametrize(
    "line",
    [
        "In tiling of op [" + "], [x] of [" * 300,  # E64008's small pieces, never its end
        "[ERROR] In op[" + "], the [" * 300 + "] of [" * 300,
        "An error CQE occurred during operator execution. Local information: server "
        + ", device ID " * 400,
    ],
)
def test_a_line_of_a_format_s_pieces_is_no_message(line: str) -> None:
    assert cann_messages.read(line) is None


def test_a_paste_is_read_to_its_bounds() -> None:
    message = "Device 0 is occupied by multiple containers."
    # past the lines read, or past the characters of a line read, a message is not looked at
    late = "\n" * cann_messages.LINES + message
    assert cann_messages.pasted(late) == []
    assert cann_messages.read(" " * cann_messages.LINE + message) is None
    assert cann_messages.pasted("x\n" * 10 + message)[0].id == "cann-el0020"


def test_a_newer_code_takes_its_page() -> None:
    title, message, cause, solution, sources = cann_e_row("EE1024")
    assert title and message and cause and solution and len(sources) == 1
    # a code both know: the page is the newer, the table still a source
    assert len(cann_e_row("EL0005")[4]) == 2


def test_a_warning_s_code_is_explained_as_a_warning() -> None:
    # its message is not read without the code (a warning is no failure), its code is
    (found,) = explain("W40010")
    assert found.id == "cann-w40010" and found.meaning.startswith("a warning of")
    assert "environment variable" in found.fix.lower()
    assert explain("E40002")[0].meaning.startswith("a user-class error of")
