"""The device's fault codes where cluster software or npu-smi prints them bare.

The NPU reports a fault as a 32-bit event code (``0x8C084E00``: ADDA heartbeat error). Its own
logs print it in the forms Fault-Diag's rules read (``Event id=0x8c084e00``); MindCluster's
device plugin prints it in the Kubernetes event it raises for the fault ("device fault, ...,
faultCodes:8C084E00, faultLevelName:RestartBusiness"). That form is read here: the fault is
named by Fault-Diag's rule for the event code, which carries its cause and suggestion, and the
level the plugin gave it says what happens to the job and the chip (for a code Fault-Diag has
no rule for, the level alone).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from ampenv.knowledge.failures.faultdiag import SOURCE, by_id, recovered
from ampenv.knowledge.failures.model import CLASS, Failure, Source

FAMILY = "device-fault-code"
HEX = r"(?P<code>[0-9A-Fa-f]{8})(?![0-9A-Za-z])"
# the device plugin's event (its first code, and the level it gave the fault), and npu-smi's
# "-t health" ("Error Code                     : A4025021 8C03A000 8C084E00", each code a
# fault of the chip's; its column of blanks before the colon, which a bare "Error Code:" lacks)
PATTERNS = (
    rf"\bdevice fault, [^\n]{{0,200}}?\bfaultCodes?:\s?{HEX}"
    r"(?:[^\n]{0,200}?\bfaultLevelName:\s?(?P<level>\w{1,40}))?",
    r"\b(?-i:Error Code)\s{4,40}: "
    r"(?P<code>[0-9A-Fa-f]{8}(?: [0-9A-Fa-f]{8}){0,15})(?![0-9A-Za-z])",
)
DOCS = Source(
    "Ascend/mind-cluster docs/zh/scheduling/07_references/02_common_operations.md"
    "@22bb3d987bc0208c3eb7395e222b661276133c58 (the device plugin's fault events and levels)",
    "official",
)
# What each level does to the job and the chip, in the plugin's documentation's words
LEVELS = {
    "NotHandleFault": "no handling: the fault does not stop the job",
    "RestartRequest": "it stops the job's request: send the inference request again",
    "RestartBusiness": "it stops the job: run the job again",
    "FreeRestartNPU": "it stops the job: the chip is to be reset once it is idle",
    "RestartNPU": "the chip is reset at once and the job runs again",
    "SeparateNPU": "the chip is isolated (no more jobs on it): repair or replace it",
    "PreSeparateNPU": "no effect on the running job; no new job will be scheduled on the chip",
    "SubHealthFault": "handled as the job's subHealthyStrategy says",
}


def decode(m: re.Match[str]) -> Optional[Failure]:
    """The fault the event code ``m`` captured names (``_event``); of npu-smi's list of codes,
    the first that has a rule (npu-smi gives no level). An event of the fault's recovery
    ("assertion:Recovery") ends the fault's finding read before it."""
    if "level" not in m.re.groupindex:  # npu-smi's list
        named = (by_id("0x" + code.upper()) for code in m.group("code").split())
        found = next((f for f in named if f is not None), None)
        return None if found is None else replace(found, family=FAMILY)
    code, level = m.group("code").upper(), LEVELS.get(m.group("level") or "")
    failure = _event(code, m.group("level"), level)
    if failure is not None and recovered(m.group(0)):
        return replace(failure, ends=True)
    return failure


def _event(code: str, level_name: Optional[str], level: Optional[str]) -> Optional[Failure]:
    """The fault of the device plugin's event: Fault-Diag's rule for the code, with what the
    plugin's level does; a code without a rule, by its level alone; None for neither."""
    found = by_id("0x" + code)
    if found is not None:
        fix = f"{found.fix.rstrip('.')}; the device plugin's level: {level}" if level else found.fix
        return replace(found, family=FAMILY, fix=fix)
    if level is None:
        return None
    return Failure(
        id=f"device-fault-{code}",
        mode="driver",
        component="device",
        patterns=(),
        codes=(code,),
        meaning=f"the NPU reported fault {code}, which the device plugin handles at level "
        f"{level_name}: {level}",
        causes=("the chip's fault the code names (the NPU's health management fault codes)",),
        fix=f"{level}; `npu-smi info -t health -i <cardID>` on the node shows the chip's state "
        "and the fault's own words",
        confirm="npu.devices",
        sources=(DOCS,),
        hints=(),
        rank=CLASS,
        family=FAMILY,
    )


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
    sources=(Source(SOURCE, "official"), DOCS),
    hints=("faultcode",),
    rank=CLASS,
    decode=decode,
)
