"""Issue 17, item 12: a certificate is fresh only when judged from now (a small clock skew
allowed), verifies only with a passing verdict, and as root only when no other user could have
written or replaced it."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from test_certificate import _rewrite, issued, quick_report  # noqa: F401  (fixtures)

from ampenv.integrations import certificate as cert
from ampenv.probe import Probe

NOW = dt.datetime.now(dt.timezone.utc)


def _stamp(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _times(issued_at: dt.datetime, expires_at: dt.datetime):
    return lambda b: b.update(issued_at=_stamp(issued_at), expires_at=_stamp(expires_at))


def _verify(path: Path, max_age_hours: float = 24):
    return cert.verify(str(path), Probe(), max_age_hours=max_age_hours)


@pytest.mark.parametrize(
    ("issued_at", "expires_at", "max_age"),
    [
        (dt.datetime(2099, 1, 1, tzinfo=dt.timezone.utc),
         dt.datetime(2099, 1, 2, tzinfo=dt.timezone.utc), 24),  # the red team's 2099
        (NOW + dt.timedelta(days=365), NOW + dt.timedelta(days=372), 24 * 7),  # a year ahead
        (NOW + dt.timedelta(hours=1), NOW + dt.timedelta(hours=2), 24),  # held out: an hour
        (NOW + dt.timedelta(minutes=30), NOW + dt.timedelta(hours=20), 24),  # held out
    ],
)  # fmt: skip
def test_a_certificate_issued_in_the_future_is_not_fresh(
    issued: Path,  # noqa: F811
    issued_at: dt.datetime,
    expires_at: dt.datetime,
    max_age: float,
) -> None:
    _rewrite(issued, _times(issued_at, expires_at), reseal=True)
    verdict = _verify(issued, max_age)
    assert not verdict.ok
    assert verdict.reason.startswith("issued in the future")


def test_a_small_clock_skew_is_allowed(issued: Path) -> None:  # noqa: F811
    ahead = NOW + dt.timedelta(minutes=2)
    _rewrite(issued, _times(ahead, ahead + dt.timedelta(hours=20)), reseal=True)
    verdict = _verify(issued)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("status", ["fail", "error", "skip", "FAIL", ""])
def test_a_certificate_recording_no_passing_verdict_does_not_verify(
    issued: Path, status: str  # noqa: F811
) -> None:
    _rewrite(issued, lambda b: b.update(status=status), reseal=True)
    verdict = _verify(issued)
    assert not verdict.ok and "not a passing verdict" in verdict.reason


def test_warn_is_a_passing_verdict(issued: Path) -> None:  # noqa: F811
    _rewrite(issued, lambda b: b.update(status="warn"), reseal=True)
    assert _verify(issued).ok


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the ownership rules apply to root")


@root_only
def test_as_root_a_certificate_owned_by_another_user_is_refused(issued: Path) -> None:  # noqa: F811
    os.chown(issued, 4242, 4242)
    verdict = _verify(issued)
    assert not verdict.ok and verdict.reason.startswith("untrusted:")
    assert "owned by uid 4242" in verdict.reason


@root_only
def test_as_root_a_certificate_others_can_write_is_refused(issued: Path) -> None:  # noqa: F811
    issued.chmod(0o666)
    verdict = _verify(issued)
    assert not verdict.ok and "writable by every user" in verdict.reason


@root_only
def test_as_root_a_certificate_in_a_folder_others_can_write_is_refused(
    issued: Path, tmp_path: Path  # noqa: F811
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    moved = folder / "certificate.json"
    issued.rename(moved)
    verdict = _verify(moved)
    assert not verdict.ok and f"the folder {folder} is writable by every user" in verdict.reason


@root_only
def test_as_root_a_link_to_another_users_certificate_is_refused(
    issued: Path, tmp_path: Path  # noqa: F811
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 4242, 4242)
    planted = theirs / "certificate.json"
    planted.write_text(issued.read_text())
    link = tmp_path / "link.json"
    link.symlink_to(planted)
    verdict = _verify(link)
    assert not verdict.ok and verdict.reason.startswith("untrusted:")


@root_only
def test_as_root_a_sticky_folder_with_roots_own_file_is_accepted(
    issued: Path, tmp_path: Path  # noqa: F811
) -> None:
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    moved = sticky / "certificate.json"
    issued.rename(moved)
    assert _verify(moved).ok


def test_the_written_certificate_records_a_passing_status(issued: Path) -> None:  # noqa: F811
    body = json.loads(issued.read_text())
    assert body["status"] in cert.PASSING
