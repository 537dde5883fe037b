"""Every known failure, in one tuple: the component files joined, then the code families."""

from __future__ import annotations

from ampenv.knowledge.failures.acl import FAILURES as ACL
from ampenv.knowledge.failures.codes import families
from ampenv.knowledge.failures.compiler import FAILURES as COMPILER
from ampenv.knowledge.failures.driver import FAILURES as DRIVER
from ampenv.knowledge.failures.environment import FAILURES as ENVIRONMENT
from ampenv.knowledge.failures.hccl import FAILURES as HCCL
from ampenv.knowledge.failures.libraries import family as libraries
from ampenv.knowledge.failures.memory import FAILURES as MEMORY
from ampenv.knowledge.failures.model import Failure
from ampenv.knowledge.failures.plog import PLOG_ERRORS
from ampenv.knowledge.failures.torch_npu import FAILURES as TORCH_NPU

NAMED: tuple[Failure, ...] = (
    *ENVIRONMENT,
    *TORCH_NPU,
    *DRIVER,
    *MEMORY,
    *ACL,
    *HCCL,
    *COMPILER,
)
# The code families come last: a code an entry owns is that entry's, whatever the wording.
CATALOGUE: tuple[Failure, ...] = (
    *NAMED,
    *families({c.upper(): f for f in NAMED if not f.narrower for c in f.codes}),
    libraries({f.id: f for f in NAMED}),  # a library the loader cannot open: its package's
    PLOG_ERRORS,  # an ERROR line of a CANN module that nothing above explains
)
BY_ID: dict[str, Failure] = {f.id: f for f in CATALOGUE}
