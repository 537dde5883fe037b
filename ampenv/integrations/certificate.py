"""The node certificate: what ``ampenv certify`` writes and what a prolog verifies.

A JSON file with the issue time, the expiry, the node's fingerprint (what the verdict depends
on: driver, firmware, CANN, torch, torch_npu, device names and count, ampenv version), the
certify verdict and the smoke metrics. A ``digest`` (sha256 of the canonical JSON of everything
else) binds them together, so an edit by hand is detected. It is not a signature: anyone who can
write the file can also recompute the digest. Protect the file with its permissions (root-owned
under /var/lib/ampenv); the digest catches mistakes and casual edits, not forgery.

Torch-free and fast: ``verify`` reads version files and package metadata through the Probe.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ampenv import __version__
from ampenv.core.config import Entry
from ampenv.core.model import Status
from ampenv.probe.fingerprint import changes, fingerprint
from ampenv.util import files
from ampenv.util.atomic import write_text
from ampenv.util.bounded import kind
from ampenv.util.formats import parse_utc, utc_iso
from ampenv.util.jsonshape import described, obj, or_null, text

if TYPE_CHECKING:
    from ampenv.core.config import Config
    from ampenv.core.model import Report
    from ampenv.probe import Probe

SCHEMA = "ampenv.certificate/1"
ENV_PATH = "AMPENV_CERTIFICATE"
ROOT_PATH = "/var/lib/ampenv/certificate.json"
SMOKE_ID = "smoke.resnet50"
# How far ahead of this clock an issue time may be (clocks of one cluster drift a little).
CLOCK_SKEW = dt.timedelta(minutes=5)
PASSING = ("pass", "warn")  # what a certify run that wrote a certificate records


class CertificateError(Exception):
    """A certificate that cannot be used, with the reason a prolog shows."""


def default_path(env: dict[str, str], euid: int) -> str:
    if euid == 0:
        return ROOT_PATH
    state = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(state, "ampenv", "certificate.json")


def resolve_path(
    explicit: Optional[str],
    env: dict[str, str],
    section: dict[str, Any],
    euid: Optional[int] = None,
) -> str:
    """``--certificate``, then ``$AMPENV_CERTIFICATE``, then ``[certificate] path``, then the
    default (/var/lib/ampenv as root, else the XDG state folder)."""
    chosen = explicit or env.get(ENV_PATH) or section.get("path")
    return chosen or default_path(env, os.geteuid() if euid is None else euid)


def path_source(env: dict[str, str], section: dict[str, Any], label: str) -> Entry:
    """The certificate path in effect without ``--certificate``, and where it came from."""
    if env.get(ENV_PATH):
        source = f"${ENV_PATH}"
    elif section.get("path"):
        source = label
    else:
        source = "default for root" if os.geteuid() == 0 else "default ($XDG_STATE_HOME)"
    return Entry("certificate.path", resolve_path(None, env, section), source)


def _stamp(when: dt.datetime) -> str:
    return utc_iso(when.timestamp())


def digest(body: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of everything but the digest itself."""
    content = {k: v for k, v in body.items() if k != "digest"}
    canon = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def issue(
    report: Report, probe: Probe, max_age_hours: float, now: Optional[dt.datetime] = None
) -> dict[str, Any]:
    """The certificate for a report that passed, sealed with its digest."""
    now = now or dt.datetime.now(dt.timezone.utc)
    smoke = report.get(SMOKE_ID)
    body: dict[str, Any] = {
        "schema": SCHEMA,
        "ampenv_version": __version__,
        "node": probe.hostname(),
        "backend": report.backend,
        "issued_at": _stamp(now),
        "expires_at": _stamp(now + dt.timedelta(hours=max_age_hours)),
        "status": report.status.value,
        "checks": {c.id: c.status.value for c in report.checks},
        "fingerprint": fingerprint(probe, report.backend),
        "smoke": {
            "summary": smoke.summary,
            "metrics": smoke.metrics,
            "facts": {k: v for k, v in smoke.facts.items() if not k.endswith("_losses")},
        }
        if smoke
        else None,
    }
    body["digest"] = digest(body)
    return body


def write(path: str, certificate: dict[str, Any]) -> None:
    """Atomically: a prolog verifying it meanwhile reads the old certificate or the new one."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_text(path, json.dumps(certificate, indent=2, sort_keys=True) + "\n")


def revoke(path: str) -> str:
    """Remove the certificate at ``path`` (a node that fails certify keeps no old one), and say
    so. Only a regular file is a certificate: a device, a FIFO, a link or a folder there
    (``--certificate /dev/null``) is left as it is, as the writer leaves it. "" where nothing
    stands there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ""
    if not stat.S_ISREG(st.st_mode):
        return f": {path} is {kind(st.st_mode)}, no certificate: left as it is"
    os.unlink(path)
    return f": removed the old certificate {path}"


_MISSING = object()


def _is_stamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parse_utc(value)
    except ValueError:
        return False
    return True


# What verify and `certificate show` read, and what each must be. A certificate may come from
# anyone: it is checked here, once, so nothing later meets a field of the wrong type.
_TEXT = ("a string", text)
_STAMP = ("a time with its UTC offset, like 2026-01-31T08:00:00Z", _is_stamp)
_FIELDS = {
    "node": _TEXT,
    "backend": _TEXT,
    "status": _TEXT,
    "ampenv_version": _TEXT,
    "issued_at": _STAMP,
    "expires_at": _STAMP,
    "fingerprint": ("an object", obj),
    "smoke": ("an object or null", or_null(obj)),
    "smoke.summary": _TEXT,
    "smoke.metrics": ("an object", obj),
}


def _check_shape(path: str, body: dict[str, Any]) -> None:
    """Raise CertificateError naming the first field that is missing or of the wrong type."""
    for field, (expected, ok) in _FIELDS.items():
        head, _, key = field.partition(".")
        value = body.get(head, None if head == "smoke" else _MISSING)  # no smoke: none ran
        if key:
            if not isinstance(value, dict):
                continue  # a smoke of null: nothing below it to check
            value = value.get(key, _MISSING)
        if value is _MISSING:
            raise CertificateError(f"unreadable: {path} is malformed: {field!r} is missing")
        if not ok(value):
            raise CertificateError(
                f"unreadable: {path} is malformed: {field!r} is {described(value)}, "
                f"expected {expected}"
            )


MAX_BYTES = 1 << 20  # a certificate is a few KiB


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object without a key given twice: the digest binds the parsed certificate, and a
    reader that keeps a key's first value ("status": "fail", "status": "pass") would read
    another certificate than the one verified."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} is given twice")
        seen.add(key)
    return dict(pairs)


def load(path: str) -> dict[str, Any]:
    """The certificate at ``path``, checked against its digest and for the type of every field
    used later. Raises CertificateError, whatever the file holds."""
    try:
        # A regular file only (a FIFO or /dev/zero is refused, never read), at most MAX_BYTES;
        # as root, one that another user could have written or replaced is refused.
        raw = files.read_trusted(path, MAX_BYTES).data
    except FileNotFoundError:
        raise CertificateError(
            f"missing: no certificate at {path} (run `ampenv certify`)"
        ) from None
    except files.Unsafe as exc:
        if exc.errno == errno.EFBIG:
            too_big = f"unreadable: {path} is larger than {MAX_BYTES >> 10} KiB"
            raise CertificateError(too_big) from None
        if exc.errno == errno.EPERM:
            raise CertificateError(f"untrusted: {exc.strerror}") from None
        raise CertificateError(f"unreadable: {exc.strerror}") from None
    except OSError as exc:
        raise CertificateError(f"unreadable: {path}: {exc.strerror}") from None
    try:
        body = json.loads(raw.decode("utf-8"), object_pairs_hook=_one_value_per_key)
    except UnicodeDecodeError as exc:
        raise CertificateError(
            f"unreadable: {path} is not UTF-8 text (byte {exc.start} is not valid)"
        ) from None
    except ValueError as exc:
        raise CertificateError(f"unreadable: {path} is not JSON ({exc})") from None
    except RecursionError:
        raise CertificateError(f"unreadable: {path} is not JSON (nested too deeply)") from None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA:
        raise CertificateError(f"unreadable: {path} is not an {SCHEMA} certificate")
    _check_shape(path, body)
    try:
        sealed = digest(body) == body.get("digest")
    except ValueError:  # a NaN slipped in by hand: not canonical JSON
        sealed = False
    except RecursionError:
        raise CertificateError(f"unreadable: {path} is nested too deeply") from None
    if not sealed:
        raise CertificateError(f"edited: {path} does not match its digest")
    return body


@dataclass
class Verdict:
    ok: bool
    reason: str
    certificate: Optional[dict[str, Any]] = None


def verify(
    path: str, probe: Probe, max_age_hours: float, now: Optional[dt.datetime] = None
) -> Verdict:
    """Valid only when readable (as root: a file only root could have written), unedited,
    fresh (issued no later than now plus a small clock skew, and not past its deadline),
    recording a passing verdict, and issued for this node as it is now."""
    now = now or dt.datetime.now(dt.timezone.utc)
    try:
        cert = load(path)  # every field below is there and of its type
    except CertificateError as exc:
        return Verdict(False, str(exc))
    issued, expires = parse_utc(cert["issued_at"]), parse_utc(cert["expires_at"])
    recorded, backend = cert["fingerprint"], cert["backend"]
    # A site that lowers max_age_hours makes older certificates stale at once. The earlier of
    # the two, without computing a time past year 9999 (an issued_at there is valid JSON).
    max_age = dt.timedelta(hours=max_age_hours)
    deadline = expires if expires - issued <= max_age else issued + max_age
    if now >= deadline:
        return Verdict(False, f"expired at {_stamp(deadline)} (issued {cert['issued_at']})", cert)
    if issued > now + CLOCK_SKEW:  # the age counts from now, not from a planted issued_at
        return Verdict(False, f"issued in the future: {cert['issued_at']}", cert)
    if cert["status"] not in PASSING:
        return Verdict(False, f"not a passing verdict: status {cert['status']!r}", cert)
    changed = changes(recorded, fingerprint(probe, backend))
    if changed:
        return Verdict(False, "fingerprint changed: " + "; ".join(changed), cert)
    left = deadline - now
    hours = left.total_seconds() / 3600
    return Verdict(
        True,
        f"valid: {cert['node']} ({backend}) certified {cert['issued_at']}, "
        f"expires {_stamp(deadline)} (in {hours:.1f} h)",
        cert,
    )


@dataclass
class Settled:
    note: str  # the line `ampenv certify` shows on stderr
    exit_code: int


def settle(report: Report, probe: Probe, section: dict[str, Any], path: str) -> Settled:
    """After a certify run: write the certificate when the node passed, smoke training
    included; else remove the old one, so that the prolog refuses the node at once. Raises
    OSError when the file cannot be written or removed."""
    smoke = report.get(SMOKE_ID)
    trained = smoke is not None and smoke.status in (Status.PASS, Status.WARN)
    if report.exit_code == 0 and trained:
        cert = issue(report, probe, float(section["max_age_hours"]))
        write(path, cert)
        return Settled(f"certificate written to {path} (expires {cert['expires_at']})", 0)
    removed = revoke(path)
    if report.exit_code != 0:
        return Settled(f"not certified (exit {report.exit_code}){removed}", report.exit_code)
    # Healthy, but nothing was trained: the node could not be judged for certification.
    why = f"{smoke.status.value}: {smoke.summary}" if smoke else "not run"
    return Settled(f"not certified, {SMOKE_ID} {why}{removed}", 3)


def verify_node(
    config: Config, probe: Probe, explicit: Optional[str] = None
) -> tuple[str, Verdict]:
    """The certificate path for this node and its verdict: what `certificate verify` and the
    Slurm hook ask."""
    section = config.section("certificate")
    path = resolve_path(explicit, probe.env, section)
    return path, verify(path, probe, float(section["max_age_hours"]))
