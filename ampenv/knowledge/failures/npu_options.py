"""Options read from the environment: torch_npu's (its OptionsManager), where a value it does
not take is not an error, it is replaced by the default with one warning, and the job runs with a
setting its owner did not choose; and Megatron's check of CUDA's connection count, which it makes
on NPUs too."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

OPTIONS_MANAGER = (
    "Ascend/pytorch torch_npu/csrc/core/npu/register/OptionsManager.cpp"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab ({})"
)

FAILURES = (
    Failure(
        id="torch-npu-env-value-reset",
        mode="cann-env",
        component="torch_npu",
        # "Get env ACL_OP_INIT_MODE not in [0, 1, 2], so reset it to the default value 1.",
        # "Get env HCCL_EXEC_TIMEOUT less than 0, ...", "STREAMS_PER_DEVICE only support 8 or
        # 32, but get other value, ..."
        patterns=(
            r"(?:Get env [A-Z][A-Z0-9_]{1,60}|STREAMS_PER_DEVICE only support)[^\n]{0,80}, so "
            r"reset it to the default value",
        ),
        codes=(),
        meaning="torch_npu read an environment variable whose value it does not take (the "
        "warning names it and what it takes), ignored the value and runs with the default: the "
        "setting asked for is not in effect",
        causes=(
            "a value outside the range the warning gives (ACL_OP_INIT_MODE other than 0, 1 "
            "or 2; a negative HCCL_EXEC_TIMEOUT or HCCL_EVENT_TIMEOUT; STREAMS_PER_DEVICE "
            "other than 8 or 32; TORCH_HCCL_STATUS_SAVE_INTERVAL of 0 or less)",
            "a value left from a script written for another release",
        ),
        fix="set the variable to a value the warning allows, or unset it to take the default "
        "knowingly (`env | grep <VARIABLE>` in the job's environment shows what it got)",
        confirm="env.npu",
        sources=(
            Source(OPTIONS_MANAGER.format("GetAclOpInitMode, GetHCCLExecTimeout"), "official"),
            Source(
                "Ascend/pytorch@925d3680c04cf7c8c419ed8ddccf58384bff774e (commit message of "
                "gitcode merge request Ascend/pytorch!36109, ACL_OP_INIT_MODE's check)",
                "maintainer",
            ),
        ),
        hints=("error",),  # read through its words: the line is a warning
    ),
    Failure(
        id="megatron-max-connections-unset",
        mode="hccl",  # a distributed job's set-up
        component="megatron",
        # Megatron's validate_args (and the layers' checks): tensor, context or sequence
        # parallelism, or the async all-reduce, with CUDA_DEVICE_MAX_CONNECTIONS other than "1"
        patterns=(
            r"Error: Using [\w ]{1,80} requires? setting the environment variable "
            r"CUDA_DEVICE_MAX_CONNECTIONS to 1",
        ),
        codes=(),
        meaning="Megatron (also under MindSpeed, and verl's Megatron and MindSpeed engines) "
        "refuses tensor, context or sequence parallelism unless CUDA_DEVICE_MAX_CONNECTIONS is "
        "1 in the rank's environment (on CUDA it orders kernels so that communication overlaps "
        "computation); the check is made on NPUs as well",
        causes=(
            "the launch script does not export it, or exports it where the ranks do not inherit "
            "it (Ray workers take their environment from runtime_env)",
        ),
        fix="export CUDA_DEVICE_MAX_CONNECTIONS=1 in every rank's environment: the launch "
        "script before torchrun; Ray workers through runtime_env env_vars (verl with "
        "MindSpeed: PR #7040 sets it); a job that also uses FSDP2 or Megatron-FSDP, which want "
        "it above 1, has to give up one of the two",
        confirm=None,
        sources=(
            Source(
                "verl-project/verl@748858b98d4ecb243af9e0db0732a6ef0f396822 (PR #7040, the "
                "MindSpeed engine's Ray workers, commit message and diff)",
                "maintainer",
            ),
            Source(
                "https://github.com/flagos-ai/FlagScale/pull/1288 (Megatron's check on non-CUDA "
                "devices)",
                "report",
            ),
        ),
        hints=("error",),
        judge=in_error_record,  # a logger's WARNING of it is not the raised check
    ),
)
