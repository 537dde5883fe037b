"""The device's fault codes where cluster software prints them bare.

The NPU reports a fault as a 32-bit event code (``0x8C084E00``: ADDA heartbeat error). Its own
logs print it in the forms Fault-Diag's rules read (``Event id=0x8c084e00``); MindCluster's
device plugin prints it in the Kubernetes event it raises for the fault ("device fault, ...,
faultCodes:8C084E00, faultLevelName:RestartBusiness"). That form is read here and named by
Fault-Diag's rule for the event code, which carries its cause and suggestion; a code
Fault-Diag has no rule for is not named.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from ampenv.knowledge.failures.faultdiag import SOURCE, by_id
from ampenv.knowledge.failures.model import CLASS, Failure, Source

FAMILY = "device-fault-code"
HEX = r"(?P<code>[0-9A-Fa-f]{8})(?![0-9A-Za-z])"
# the device plugin's event (its first code; npu-smi's "-t health" prints the same codes, and
# has no published example with one yet)
PATTERNS = (rf"\bdevice fault, [^\n]{{0,200}}?\bfaultCodes?:\s?{HEX}",)


def decode(m: re.Match[str]) -> Optional[Failure]:
    """Fault-Diag's rule for the event code ``m`` captured, as that rule's finding (found
    through this family)."""
    found = by_id("0x" + m.group("code"))
    return replace(found, family=FAMILY) if found is not None else None


FAMILY_ENTRY = Failure(
    id=FAMILY,
    mode="driver",
    component="device",
    patterns=PATTERNS,
    codes=(),
    meaning="a fault event code of the NPU that the device plugin reported: the fault "
    "Fault-Diag's rule for that code names",
    causes=("the fault the rule names (each finding carries its cause and suggestion)",),
    fix="the rule's suggestion; the device plugin's fault level says what it did (RestartBusiness: "
    "the job must run again; SeparateNPU: the NPU is taken out)",
    confirm="npu.devices",
    sources=(
        Source(SOURCE, "official"),
        Source(
            "Ascend/mind-cluster docs/zh/scheduling/07_references/02_common_operations.md"
            "@22bb3d987bc0208c3eb7395e222b661276133c58 (the device plugin's fault events)",
            "official",
        ),
    ),
    hints=("faultcode",),
    rank=CLASS,
    decode=decode,
)
