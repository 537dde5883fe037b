"""Secrets never leave the node.

Two rules, shared by everything that shows the environment or collected text:

- In a report (env checks), a value is shown unless its name looks secret (TOKEN, KEY,
  PASSWORD, PASS, SECRET, AUTH, COOKIE, ...). In a support bundle the rule is turned around
  (:func:`bundle_env`): only the values of an allowlist of names the diagnosis needs are kept
  (ASCEND_*, HCCL_*, ACL_*, GE_*, TORCH_*, PYTORCH_*, NPU_*, CUDA_*, NCCL_*, SLURM_*, PATH,
  LD_LIBRARY_PATH, ...; a name on it that looks secret is still masked), and every other value
  is masked, whatever it is called.
- Every value kept and every collected text (files, command output, the report) is scrubbed
  (:func:`scrub`): credentials in URLs (``scheme://user:p@ss:word@host``: everything between the
  user name and the host's ``@``; a lone user part, which may be a token, entirely),
  ``key=value`` / ``key: value`` secrets, ``Bearer``/``Basic`` credentials and PEM private key
  blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

REDACTED = "<redacted>"

SECRET_NAME = re.compile(
    r"TOKEN|KEY|PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION|"
    r"PASS(?:_|$)|(?:^|_)(?:PAT|PWD|JWT|DSN|ID_RSA|ID_ED25519|ID_ECDSA)(?:_|$)|WEBHOOK|"
    r"SIGNATURE",
    re.IGNORECASE,
)
# Names whose values a diagnosis needs, kept in a bundle (after scrubbing).
KEEP_PREFIXES = (
    "ASCEND_", "HCCL_", "HCCN_", "ACL_", "GE_", "TORCH_", "PYTORCH_", "TORCHINDUCTOR_",
    "TORCHELASTIC_", "TORCHAIR_", "NPU_", "CUDA_", "NCCL_", "SLURM_", "SLURMD_", "AMPENV_",
    "CANN_", "TBE_", "ATB_", "ASDOPS_", "LCCL_", "OMP_", "KMP_", "MKL_", "PET_", "LC_",
    "OMPI_COMM_WORLD_", "PMI_", "INF_NAN_", "TASK_QUEUE_", "COMBINED_", "MULTI_STREAM_",
)  # fmt: skip
KEEP_NAMES = frozenset(
    {
        "PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "HOME", "USER",
        "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "PWD", "HOSTNAME", "TZ", "TMPDIR",
        "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "WORLD_SIZE", "RANK", "LOCAL_RANK",
        "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE",
        "MASTER_ADDR", "MASTER_PORT", "NNODES", "NODE_RANK", "HTTP_PROXY", "HTTPS_PROXY",
        "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
        "NO_COLOR", "SOC_VERSION", "RANK_TABLE_FILE", "RANK_ID", "DEVICE_ID", "RANK_SIZE",
    }
)  # fmt: skip

# The authority of a URL: everything up to the last "@" before the path is credentials.
# The user name is kept when a password follows it; a lone user part may be a token itself.
URL_USERINFO = re.compile(
    r"(?P<head>\b[a-z][a-z0-9+.-]*://)(?P<user>[^/\s?#\"'<>:@]*)(?P<rest>[^/\s?#\"'<>]*)@",
    re.IGNORECASE,
)
# user:password@host without a scheme (a proxy variable)
BARE_USERINFO = re.compile(r"^(?P<head>)(?P<user>[^\s/@:]*)(?P<rest>[^\s/]*)@(?=[^@\s/]+$)")


def _userinfo(m: re.Match) -> str:
    if m["rest"].startswith(":"):
        return f"{m['head']}{m['user']}:{REDACTED}@"
    return f"{m['head']}{REDACTED}@"
# A key that ends in a secret's word: db_password, GITHUB_TOKEN, x-api-key, aws_secret ...
_SECRET_KEY = (
    r"[\w.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|credentials?|cookie|session[_-]?id|pat)"
)
KEY_VALUE = re.compile(
    rf"(?P<key>\b{_SECRET_KEY}[\"']?)(?P<sep>\s*[=:]\s*)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'<>]+)",
    re.IGNORECASE,
)
SCHEME_CREDENTIAL = re.compile(
    r"(?:\b(?P<scheme>Bearer)|(?P<auth>authorization\s*[:=]\s*(?:Basic|Digest|Bearer)))"
    r"\s+[A-Za-z0-9._~+/=-]{8,}",
    re.IGNORECASE,
)
PEM_PRIVATE = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
    re.DOTALL,
)


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def scrub(text: str) -> str:
    """``text`` with credentials in URLs, ``key=value`` secrets, ``Bearer`` credentials and
    private key blocks replaced by ``<redacted>``."""
    if not text:
        return text
    text = PEM_PRIVATE.sub(REDACTED, text)
    text = URL_USERINFO.sub(_userinfo, text)
    text = SCHEME_CREDENTIAL.sub(lambda m: f"{m['scheme'] or m['auth']} {REDACTED}", text)
    return KEY_VALUE.sub(lambda m: f"{m['key']}{m['sep']}{REDACTED}", text)


def redact(name: str, value: str, limit: Optional[int] = 200) -> str:
    """The value as it may be shown in a report or a fact; a report line shows at most
    ``limit`` characters of it."""
    if looks_secret(name) and value:
        return REDACTED
    shown = scrub(value)
    if name.upper().endswith("_PROXY"):
        shown = BARE_USERINFO.sub(_userinfo, shown)
    if limit is not None and len(shown) > limit:
        return f"{shown[: limit - 40]}... ({len(value)} characters)"
    return shown


def kept_in_bundle(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether a bundle keeps this variable's value: on the allowlist, and not secret-named."""
    if looks_secret(name):
        return False
    return name in KEEP_NAMES or name in set(extra) or name.startswith(KEEP_PREFIXES)


def bundle_env(env: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    """The environment for a support bundle: the allowlist's values (scrubbed), every other
    value masked; every name stays, so support sees what was set."""
    keep = set(extra)
    return {
        name: redact(name, value, limit=None) if kept_in_bundle(name, keep) else REDACTED
        for name, value in env.items()
    }


def scrub_data(data: Any) -> Any:
    """Every string inside a JSON-like structure, scrubbed (keys too)."""
    if isinstance(data, str):
        return scrub(data)
    if isinstance(data, Mapping):
        return {scrub_data(k): scrub_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [scrub_data(v) for v in data]
    return data
