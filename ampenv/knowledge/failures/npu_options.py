"""torch_npu's options read from the environment (its OptionsManager): a value it does not
take is not an error, it is replaced by the default with one warning, and the job runs with a
setting its owner did not choose."""

from __future__ import annotations

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
)
