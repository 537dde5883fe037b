"""Every known failure, in one tuple: the component files joined, then the code families."""

from __future__ import annotations

from ampenv.knowledge.failures.accuracy_tools import FAILURES as ACCURACY_TOOLS
from ampenv.knowledge.failures.acl import FAILURES as ACL
from ampenv.knowledge.failures.aicore_analysis import FAILURES as AICORE_ANALYSIS
from ampenv.knowledge.failures.amp_settings import FAILURES as AMP_SETTINGS
from ampenv.knowledge.failures.cann_pairing import FAILURES as CANN_PAIRING
from ampenv.knowledge.failures.codes import families
from ampenv.knowledge.failures.collectives import FAILURES as COLLECTIVES
from ampenv.knowledge.failures.compiler import FAILURES as COMPILER
from ampenv.knowledge.failures.containers import FAILURES as CONTAINERS
from ampenv.knowledge.failures.conversion import FAILURES as CONVERSION
from ampenv.knowledge.failures.device_events import FAMILY_ENTRY as DEVICE_EVENTS
from ampenv.knowledge.failures.device_faults import FAILURES as DEVICE_FAULTS
from ampenv.knowledge.failures.driver import FAILURES as DRIVER
from ampenv.knowledge.failures.environment import FAILURES as ENVIRONMENT
from ampenv.knowledge.failures.extensions import FAILURES as EXTENSIONS
from ampenv.knowledge.failures.faultdiag import FAULT_DIAG
from ampenv.knowledge.failures.ge_status import FAMILY_ENTRY as GE_STATUS
from ampenv.knowledge.failures.gpu_code import FAILURES as GPU_CODE
from ampenv.knowledge.failures.hccl import FAILURES as HCCL
from ampenv.knowledge.failures.hccl_checks import FAILURES as HCCL_CHECKS
from ampenv.knowledge.failures.host_limits import FAILURES as HOST_LIMITS
from ampenv.knowledge.failures.inference_tools import FAILURES as INFERENCE_TOOLS
from ampenv.knowledge.failures.installers import FAILURES as INSTALLERS
from ampenv.knowledge.failures.installs import families as installs
from ampenv.knowledge.failures.media import FAILURES as MEDIA
from ampenv.knowledge.failures.memory import FAILURES as MEMORY
from ampenv.knowledge.failures.model import Failure
from ampenv.knowledge.failures.npu_options import FAILURES as NPU_OPTIONS
from ampenv.knowledge.failures.operator_inputs import FAILURES as OPERATOR_INPUTS
from ampenv.knowledge.failures.operator_tools import FAILURES as OPERATOR_TOOLS
from ampenv.knowledge.failures.pasted_versions import FAILURES as PASTED_VERSIONS
from ampenv.knowledge.failures.pip_installs import FAILURES as PIP_INSTALLS
from ampenv.knowledge.failures.plog import PLOG_ERRORS
from ampenv.knowledge.failures.processes import FAILURES as PROCESSES
from ampenv.knowledge.failures.python_api import FAILURES as PYTHON_API
from ampenv.knowledge.failures.rendezvous import FAILURES as RENDEZVOUS
from ampenv.knowledge.failures.schedulers import FAILURES as SCHEDULERS
from ampenv.knowledge.failures.serving import FAILURES as SERVING
from ampenv.knowledge.failures.source_builds import FAILURES as SOURCE_BUILDS
from ampenv.knowledge.failures.torch_npu import FAILURES as TORCH_NPU
from ampenv.knowledge.failures.triton_limits import FAILURES as TRITON_LIMITS

NAMED: tuple[Failure, ...] = (
    *ENVIRONMENT,
    *HOST_LIMITS,
    *NPU_OPTIONS,
    *TORCH_NPU,
    *EXTENSIONS,
    *GPU_CODE,
    *AMP_SETTINGS,
    *CANN_PAIRING,
    *SCHEDULERS,
    *CONTAINERS,
    *DRIVER,
    *INSTALLERS,
    *PASTED_VERSIONS,
    *PIP_INSTALLS,
    *DEVICE_FAULTS,
    *MEMORY,
    *PROCESSES,
    *ACL,
    *AICORE_ANALYSIS,
    *OPERATOR_INPUTS,
    *INFERENCE_TOOLS,
    *SERVING,
    *MEDIA,
    *HCCL,
    *RENDEZVOUS,
    *HCCL_CHECKS,
    *COLLECTIVES,
    *TRITON_LIMITS,
    *COMPILER,
    *OPERATOR_TOOLS,
    *CONVERSION,
    *SOURCE_BUILDS,
    *ACCURACY_TOOLS,
    *PYTHON_API,  # Python's words, read where no entry above reads the line
)
# The families come last: a code an entry owns is that entry's, whatever the wording; a library
# or module a package installs is that package's, read before a code on its line (CANN's
# "EC0010: ... No module named 'te'" is both).
CATALOGUE: tuple[Failure, ...] = (
    *NAMED,
    *installs({f.id: f for f in NAMED}),
    *families({c.upper(): f for f in NAMED if not f.narrower for c in f.codes}),
    DEVICE_EVENTS,  # a fault event code the device plugin or npu-smi printed: Fault-Diag's rule
    GE_STATUS,  # a status number of GE's, a follow-up of what GE logged before it
    PLOG_ERRORS,  # an ERROR line of a CANN module that nothing above explains
    FAULT_DIAG,  # a line Fault-Diag's rules read that nothing above explains (the scanner asks)
)
BY_ID: dict[str, Failure] = {f.id: f for f in CATALOGUE}
