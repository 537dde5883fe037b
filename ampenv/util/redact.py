"""Secrets never leave the node: values of variables whose names look secret are masked.

Shared by everything that shows the environment (env checks, support bundles). Redaction is by
name (TOKEN, KEY, PASSWORD, SECRET, ...) and, for any name, of the password in a URL such as
``https_proxy=http://user:pass@proxy:3128``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

REDACTED = "<redacted>"

SECRET_NAME = re.compile(r"TOKEN|KEY|PASSWORD|PASSWD|SECRET|CREDENTIAL|PRIVATE", re.IGNORECASE)
URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^/:@\s]*:)[^/@\s]*@", re.IGNORECASE)


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact(name: str, value: str, limit: Optional[int] = 200) -> str:
    """The value as it may be shown in a report, a fact or a bundle; a report line shows at
    most ``limit`` characters of it."""
    if looks_secret(name) and value:
        return REDACTED
    shown = URL_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}@", value)
    if limit is not None and len(shown) > limit:
        return f"{shown[: limit - 40]}... ({len(value)} characters)"
    return shown


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment for a support bundle: secrets out, everything else whole."""
    return {name: redact(name, value, limit=None) for name, value in env.items()}
