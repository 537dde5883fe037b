"""The reason CANN prints under a follow-up code ("E89999: Inner Error!", then the line of the
same code with the operator's check) told with the operator call's failure it explains."""

from __future__ import annotations

from pathlib import Path

import pytest

from ampenv.knowledge.failures import CATALOGUE, scan_lines

LOGS = Path(__file__).parent / "fixtures" / "logs"
CALL = (
    "RuntimeError: npu_fused_infer_attention_score_symint:x.cpp:415 NPU function error: call "
    "aclnnFusedInferAttentionScoreV3 failed, error code is 561002"
)


def _hits(text: str) -> dict:
    return {h.id: h for h in scan_lines(text.split("\n"), "t", CATALOGUE)}


def test_the_reason_a_later_line_of_the_code_states_is_told_with_the_call() -> None:
    # set 276's text: the code's first line says nothing, its next one the check that refused
    text = (LOGS / "ascend/heldout276_vllm-ascend-9632_fia-tnd-headdim256.txt").read_text()
    hits = _hits(text)
    reason = hits["aclnn-inner-error"].reason
    assert reason.startswith("E89999: When layout is TND, queryD(256)")
    assert "[FUNC:" not in reason  # where in CANN it was raised: no part of the reason
    assert "When layout is TND" in hits["cann-e89999"].failure.meaning


@pytest.mark.parametrize(
    "follow_up",
    [
        "EZ9999: Inner Error!",
        # the runtime's words for the call that failed: what, not why
        "EH9999: wait for compute device to finish failed, runtime result = 507035",
        "EZ9999: [PID: 1] 2026-01-01-00:00:00.000.000 The error from device(chipId:0, dieId:0), "
        "serial number is 2, there is an exception of aivec error, core id is 3",
    ],
)
def test_a_follow_up_that_says_only_what_failed_is_no_reason(follow_up: str) -> None:
    hits = _hits(f"{CALL}\nERR00100 PTA call acl api failed.\n{follow_up}\n")
    assert hits["aclnn-inner-error"].reason == ""


def test_an_owned_follow_up_code_carries_its_line_s_reason() -> None:
    # EZ9999 has an entry of its own: the line's check is told with it
    hits = _hits(
        f"{CALL}\nEZ9999: Inner Error!\nEZ9999: Shape of queryRope is nullptr[FUNC:Check]\n"
    )
    assert hits["aclnn-inner-error"].reason == "EZ9999: Shape of queryRope is nullptr"


def test_a_fault_s_follow_up_is_not_told_as_its_reason() -> None:
    # a core's fault names its cause; the runtime's follow-up lines repeat it
    text = (
        "RuntimeError: ACL stream synchronize failed, error code:507035\n"
        "EZ9999: Inner Error!\nEZ9999: some other words of the runtime\n"
    )
    assert all(not h.reason for h in _hits(text).values() if h.failure.component != "acl")


def test_a_flood_of_bare_follow_ups_is_decoded_again_only_a_few_times() -> None:
    from ampenv.knowledge.failures.decoding import SAID_TRIES
    from ampenv.knowledge.failures.match import Scanner

    # each line its own (a stamp apart), each saying nothing: tried SAID_TRIES times
    flood = "".join(
        f"E89999: [PID: 1] 2026-01-01-00:00:00.{i:06d} Inner Error!\n" for i in range(5000)
    )
    scanner = Scanner(CATALOGUE)
    scanner.feed_text(f"{CALL}\n{flood}E89999: late reason\n", "t")
    assert max(scanner._decoded._tries.values()) == 5000 > SAID_TRIES  # (the first: decoded)
    # past the tries a later reason is not read: the flood costs no more
    assert not any(h.reason for h in scanner.hits())
    # within them it is
    scanner = Scanner(CATALOGUE)
    scanner.feed_text(f"{CALL}\nE89999: Inner Error!\nE89999: late reason\n", "t")
    assert [h.reason for h in scanner.hits() if h.reason] == ["E89999: late reason"]


def test_a_reason_logged_far_from_the_call_is_not_its_reason() -> None:
    # another rank's operator, a thousand lines before: its E89999 says why it failed, not why
    # this call did (whose own E89999 says nothing more)
    other = "[rank3] E89999: [PID: 7] 2026-01-01-00:00:00.000.000 (E89999): Shape of x is 0\n"
    steps = "step 1 loss 0.5\n" * 1000
    hits = _hits(f"{other}{steps}{CALL}\nE89999: Inner Error!\n")
    assert hits["aclnn-inner-error"].reason == ""
