"""The codes one scan decoded through the code families. A code's first line gives its meaning,
unless the frame above decides it; a follow-up code's later line may give the reason its first
did not say ("E89999: Inner Error!", then "E89999: When layout is TND, ..."). A device event's
recovery is decoded apart from its occurrence (it ends the finding)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ampenv.knowledge.failures.device_events import FAMILY as DEVICE_EVENTS
from ampenv.knowledge.failures.faultdiag import recovered
from ampenv.knowledge.failures.model import GENERIC, Failure

# Distinct codes a scan decodes: a real log names a handful; a flood of made-up codes must not
# grow the scan without bound.
MAX_DECODED = 256
SAID_TRIES = 8  # lines of a follow-up code decoded again for the reason its first did not say


@dataclass
class Decoded:
    """What one scan decoded, by (family, code, recovery)."""

    _by_key: dict[tuple[str, str, bool], Failure] = field(default_factory=dict)
    _tries: dict[tuple[str, str, bool], int] = field(default_factory=dict)
    undecoded: int = 0  # lines whose code was past MAX_DECODED distinct codes: not decoded

    def failure(self, family: Failure, m: re.Match[str]) -> Optional[Failure]:
        """The failure of the code ``m`` (a match of ``family``'s patterns) captured; None for
        a code the family's table does not list, or one past MAX_DECODED."""
        assert family.decode is not None
        key = (family.id, m.group("code"), family.id == DEVICE_EVENTS and recovered(m.group(0)))
        known = None if family.frame else self._by_key.get(key)
        if known is not None and known.rank == GENERIC and not known.said:
            tries = self._tries[key] = self._tries.get(key, 0) + 1
            said = family.decode(m) if tries <= SAID_TRIES else None
            known = self._by_key[key] = said if said is not None and said.said else known
        if known is not None:
            return known
        decoded = family.decode(m)
        if decoded is None:  # not a code of the family's table: nothing kept, nothing counted
            return None
        if key not in self._by_key and len(self._by_key) >= MAX_DECODED:
            self.undecoded += 1
            return None
        self._by_key[key] = decoded
        return decoded
