"""The public plugin face: what a check author imports. Stable across releases.

    from ampenv.checks import Result, check

    @check("site.scratch", title="Scratch file system", profile="quick", timeout=3)
    def scratch(ctx):
        \"\"\"The site's scratch file system is mounted.\"\"\"
        ...
"""

from ampenv.core.model import Finding, Result, Status, combine
from ampenv.core.plugin import PROFILES, CheckContext, CheckSpec, Context, Setting, check

__all__ = [
    "PROFILES",
    "CheckContext",
    "CheckSpec",
    "Context",
    "Finding",
    "Result",
    "Setting",
    "Status",
    "check",
    "combine",
]
