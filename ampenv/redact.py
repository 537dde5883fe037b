"""Secrets never leave the node: values of variables whose names look secret are masked.

Shared by everything that shows the environment (env checks, support bundles). Redaction is by
name (TOKEN, KEY, PASSWORD, SECRET, ...) and, for any name, of the password in a URL such as
``https_proxy=http://user:pass@proxy:3128``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

REDACTED = "<redacted>"

SECRET_NAME = re.compile(r"TOKEN|KEY|PASSWORD|PASSWD|SECRET|CREDENTIAL|PRIVATE", re.IGNORECASE)
URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^/:@\s]*:)[^/@\s]*@", re.IGNORECASE)


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact(name: str, value: str) -> str:
    """The value as it may be shown in a report, a fact or a bundle."""
    if looks_secret(name) and value:
        return REDACTED
    return URL_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}@", value)


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    return {name: redact(name, value) for name, value in env.items()}
