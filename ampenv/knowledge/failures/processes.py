"""How a job's processes start and get their device memory: a child that spawn started running
the parent's module-level code again, and device memory torch_npu asks the runtime for past its
caching allocator (whose out-of-memory error is memory.py's)."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="spawn-main-unguarded",
        mode="torch-pairing",  # as npu-in-forked-subprocess: how NPU workers must start
        component="python",
        # multiprocessing's check in a child that spawn (or forkserver) started: the message
        # opens on the row below "RuntimeError:", indented, wrapped after "before the"
        patterns=(r"Error:\s{0,40}An attempt has been made to start a new process before the",),
        following=1,
        codes=(),
        meaning="a process started with spawn (vLLM-Ascend's workers, a DataLoader or a Pool "
        "with the spawn method) imported the main script again and, at its module level, "
        "started processes of its own: the script's top-level code runs in every child",
        causes=(
            "the engine, the model or the pool created at the script's top level, not under "
            "`if __name__ == '__main__':` (spawn is the start method NPU workers need: a forked "
            "child cannot use the NPU)",
        ),
        fix="move what starts processes (LLM(...), the trainer, Pool, DataLoader iteration) "
        "into a main() called under `if __name__ == '__main__':` in the script you run (a "
        "frozen executable: multiprocessing.freeze_support() first in it); a module that starts "
        "a pool when imported: start it from a function instead",
        confirm=None,
        sources=(
            Source(
                "python/cpython Lib/multiprocessing/spawn.py (_check_not_importing_main)",
                "official",
            ),
            Source(
                "https://github.com/ascend-ai-coding/awesome-ascend-skills/blob/"
                "af6eb1a46c88a6defd54d127a6bf41879a194543/.sisyphus/notepads/"
                "vllm-ascend-validation/npu23-test.md (a vLLM-Ascend run on a 910B3, problem 2)",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="npu-direct-malloc-failed",
        mode="device-memory",
        component="torch_npu",
        # NPU_CHECK_ERROR around c10_npu::acl::AclrtMallocAlign32: the allocation made without
        # the caching allocator (PYTORCH_NO_NPU_MEMORY_CACHING) and an operator's workspace
        # (a line that gives another code than the allocator's 207001 says what failed instead:
        # 507899 after a device fault, 107000 for a parameter)
        patterns=(
            r"NPU function error: c10_npu::acl::AclrtMallocAlign32\b"
            r"(?![^\n]{0,400}error code is (?!20700[01]\b)\d)",
        ),
        codes=(),
        judge=in_error_record,
        meaning="torch_npu asked the runtime for device memory directly (memory caching "
        "turned off, or an operator's workspace) and the runtime had none to give: the device "
        "is out of memory",
        causes=(
            "the job needs more device memory than is free: its batch, sequence length or "
            "model split, or another process on the device",
            "PYTORCH_NO_NPU_MEMORY_CACHING=1 (a debugging setting): every tensor is a fresh "
            "allocation, with no reuse and more fragmentation",
        ),
        fix="unset PYTORCH_NO_NPU_MEMORY_CACHING and debugging options of "
        "PYTORCH_NPU_ALLOC_CONF; lower the batch size or sequence length, or split the model "
        "over more devices (a larger TP or PP); `npu-smi info` shows other processes holding "
        "the device's memory",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUCachingAllocator.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (uncached allocation)",
                "official",
            ),
            Source(
                "https://github.com/ascend-ai-coding/awesome-ascend-skills/blob/"
                "62a4ecbb198a7bef51e04d5278cad484a5545219/external/gitcode-ascend/"
                "verl-feature-deploy/references/troubleshooting.md (Q10)",
                "official",
            ),
        ),
        hints=("error",),
    ),
)
