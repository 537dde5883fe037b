"""What torch.distributed refuses in a collective call itself, whatever the backend: ranks that
posted different collectives at the same step (Gloo sees the sizes disagree), and a tensor on a
device the group has no backend for (a CPU tensor in an HCCL-only group)."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

VLLM_ASCEND_9689 = (
    "vllm-project/vllm-ascend@1eaaf34e6c8b5439b4964e8c083d6e5507d3c009 (PR #9689, "
    "extract_hidden_states with DP and sequence parallelism, commit message 'Bug 1')"
)

FAILURES = (
    Failure(
        id="collective-mismatch",
        mode="hccl",
        component="torch.distributed",
        # Gloo's pair.cc: "op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't
        # match expected size. Is there a distributed collective mismatch in your code?" (its
        # older releases end at the sizes); torch's check under TORCH_DISTRIBUTED_DEBUG=DETAIL
        patterns=(
            r"Is there a distributed collective mismatch",  # wrapped after it too
            r"enforce fail at [^\n]{0,300}\] op\.preamble\.length <= op\.nbytes\. \d{1,20} vs",
            r"Detected mismatch between collectives on ranks",
        ),
        codes=(),
        meaning="the ranks of one process group posted different collectives at the same step: "
        "one rank sent more bytes than its peer expected (Gloo compares the sizes), so they "
        "called different operations, in a different order, or with tensors of different "
        "shapes or dtypes",
        causes=(
            "a code path that differs by rank: a branch, an early return or a feature (a draft "
            "model, sequence parallelism, a metrics sync) that calls a collective on the same "
            "group that other ranks call with another tensor or not at all",
            "ranks running different code or library releases",
        ),
        fix="find the two collectives: torch's 'Detected mismatch between collectives' names "
        "them (its ranks, operations and shapes); Gloo's sizes alone: rerun with "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL, which checks every collective's operation, shapes "
        "and dtypes across the ranks and names the first that differs; then "
        "make every rank of the group call the same collectives in the same order with the "
        "same shapes (or give the other caller a group of its own); the same code and "
        "releases on every rank",
        confirm=None,
        sources=(
            Source(VLLM_ASCEND_9689, "maintainer"),
            Source(
                "https://pytorch.org/docs/stable/distributed.html (Debugging: "
                "TORCH_DISTRIBUTED_DEBUG=DETAIL checks collectives' consistency)",
                "official",
            ),
        ),
        hints=("mismatch", "fail"),
    ),
    Failure(
        id="collective-device-without-backend",
        mode="hccl",
        component="torch.distributed",
        # ProcessGroup::getBackend: the group holds no backend for the tensor's device type
        patterns=(r"Error: No backend type associated with device type \w{1,30}",),
        codes=(),
        meaning="a collective got a tensor on a device type its process group has no backend "
        "for: a CPU tensor in a group created for HCCL (or NCCL) only, or an NPU tensor in a "
        "Gloo-only group",
        causes=(
            "a tensor left on the CPU (a scalar, a flag, a metric, state offloaded to the CPU "
            "such as FSDP's CPUOffload) passed to all_reduce or broadcast",
            "the group created with one backend where the job passes tensors of two devices",
            "an NPU tensor passed to a group made for the CPU (Gloo) only",
        ),
        fix="'cpu': move the tensor to the NPU before the call (t.npu()), or create the group "
        'with a backend for each device: dist.init_process_group(backend="cpu:gloo,npu:hccl") '
        "(new_group likewise); torch_npu's ShardedGradScaler with FSDP's CPUOffload did this "
        "before Ascend/pytorch!36151: upgrade torch_npu; 'npu': the group is a CPU (Gloo) one: "
        "run the call on an HCCL group, give that group hccl for npu as above, or move the "
        "tensor to the CPU for it",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch@b4c2d325255564f19d9b70dd67ebd8109cac21e7 (commit message of "
                "gitcode merge request Ascend/pytorch!36151, ShardedGradScaler on the CPU)",
                "maintainer",
            ),
            Source(
                "https://pytorch.org/docs/stable/distributed.html (init_process_group: backend "
                '"cpu:gloo,cuda:nccl", one backend per device type)',
                "official",
            ),
        ),
        hints=("error",),
        judge=in_error_record,  # a program that caught it and fell back to Gloo
    ),
)
