"""CANN's messages read without their code: the reference pages' own examples, and the limits."""

from __future__ import annotations

import re

import pytest

from ampenv.knowledge.failures import cann_messages, explain, scan_lines
from ampenv.knowledge.failures.e_codes import cann_e_pages, cann_e_row

PAGES = cann_e_pages()


def test_every_page_names_its_sources_and_keeps_its_formats_verbatim() -> None:
    assert len(PAGES) >= 250
    for code, page in PAGES.items():
        assert re.fullmatch(r"[EW][0-9A-Z]\d{4}", code)
        assert page["sources"] and all(re.search(r"@[0-9a-f]{40}$", s) for s in page["sources"])
        assert all(f == " ".join(f.split()) for f in page["formats"])  # one line each


def _examples() -> list[tuple[str, str]]:
    readable = cann_messages.formats()
    return [
        (code, example)
        for code, page in PAGES.items()
        if code in readable and any(cann_messages.reader(code, f) for f in readable[code])
        for example in page["examples"]
    ]


@pytest.mark.parametrize("code,example", _examples())
def test_a_page_s_example_reads_as_its_own_code(code: str, example: str) -> None:
    # the page's example is what CANN prints from the page's format: read without its code,
    # it names that code (a page's example in another wording than its format: EE1013's is
    # EH0010's message, word for word, and is read as EH0010)
    readers = filter(None, (cann_messages.reader(code, f) for f in cann_messages.formats()[code]))
    if any(r.search(example) for r in readers):
        found = cann_messages.read(example)
        assert found is not None and found[0] == code
        hits = {h.id for h in scan_lines([f"[ERROR] {example}"], "t")}
        assert f"cann-{code.lower()}" in hits or hits - {"cann-message"}


def test_most_examples_are_read() -> None:
    read = [code for code, example in _examples() if cann_messages.read(example)]
    assert len(read) >= 0.8 * len(_examples())


def test_a_message_gives_its_code_s_meaning_fix_and_page() -> None:
    (hit,) = scan_lines(["RuntimeError: P2P communication failed. Reason: not on one plane"], "t")
    assert hit.id == "cann-ei0010" and hit.failure.family == "cann-message"
    assert "HCCL_INTRA_ROCE_ENABLE" in hit.failure.fix
    (hit,) = scan_lines(["[ERROR] The device access is invalid."], "t")
    assert hit.id == "cann-el0015" and "leftover container" in hit.failure.fix
    assert any("EL0015-Invalid_Device_Access.md@" in s.ref for s in hit.failure.sources)


def test_the_code_s_own_line_is_read_as_the_code() -> None:
    line = "EI0010: [PID: 7] 2025-01-01 P2P communication failed. Reason: planes differ."
    (hit,) = scan_lines([line], "t")
    assert hit.id == "cann-ei0010" and hit.failure.family == "cann-error-code"
    # relayed as one escaped string, the message is read first and the code after it
    (hit,) = scan_lines([repr("Error Message is :\n" + line + "\n")], "t")
    assert hit.id == "cann-ei0010" and hit.failure.family == "cann-error-code"


@pytest.mark.parametrize(
    "line",
    [
        # an INFO line's message is a mention, as its code would be
        "[INFO] RUNTIME(1,python):2025-01-01 P2P communication failed. Reason: probe",
        # too little fixed text to name a code ("%s failed. Reason: %s." is EE1023's and more)
        "[ERROR] aclrtMalloc failed. Reason: out of luck.",
        # a warning's message (W40010) is no failure
        "[ERROR] Value x for environment variable ASCEND_ADK_PATH is invalid. Result: none.",
    ],
)
def test_what_is_not_read(line: str) -> None:
    assert [h.id for h in scan_lines([line], "t") if h.failure.family == "cann-message"] == []


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


def test_pieces_are_fixed_text_only() -> None:
    # each piece is literal text (spaces as any spaces), searched for in a bounded window
    # after the one before: no wildcard to backtrack through, so a line of a format's small
    # pieces repeated costs its length (a regex of lazy values per placeholder did not)
    for fmts in cann_messages._index().values():
        for fmt in fmts:
            for piece in fmt.pieces:
                # escaped characters, plain ones, and "\s+": nothing that repeats but spaces
                assert re.fullmatch(r"(?:\\s\+|\\.|[^\\.*+?{}()\[\]|^$])+", piece.pattern)


def test_a_format_two_codes_print_is_neither_s() -> None:
    printed: dict[str, set[str]] = {}
    for code, page in PAGES.items():
        for fmt in page["formats"]:
            printed.setdefault(fmt.rstrip("."), set()).add(code)
    shared = {f for f, codes in printed.items() if len(codes) > 1}
    readable = {f for fmts in cann_messages.formats().values() for f in fmts}
    assert shared and not shared & readable


def test_internal_codes_and_warnings_are_not_read_from_messages() -> None:
    assert not [c for c in cann_messages.formats() if c[2] == "9" or c[0] == "W"]


def test_explain_reads_a_message_with_no_error_word() -> None:
    # the scan reads lines with an error's words; a person asking about a line is asking
    (found,) = explain("Device 0 is occupied by multiple containers.")
    assert found.id == "cann-el0020" and "device-share" in found.fix
    (found,) = explain("W40010")  # a warning's code is still explained
    assert "ASCEND_ADK_PATH" in found.meaning or found.fix


def test_a_newer_code_takes_its_page() -> None:
    title, message, cause, solution, sources = cann_e_row("EE1024")
    assert title and message and cause and solution and len(sources) == 1
    # a code both know: the page is the newer, the table still a source
    assert len(cann_e_row("EL0005")[4]) == 2
