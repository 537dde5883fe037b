"""AI Core, vector core and AI CPU faults, and the generic inner errors that follow them."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, GENERIC, Failure, Source, code

CODES_H = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
    "@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)
FACTS = "shared/reference/ascend-facts.md §6"
BLOCKING = (
    "rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator, then check its inputs (shapes, "
    "dtypes, the device of every tensor) and report it with them"
)
PLOG = (
    "read the plog lines after it (~/ascend/log/debug/plog); collect them: "
    "ampenv collect -o node.tar.gz"
)


def _inner(prefix: str, rank_meaning: str) -> Failure:
    return Failure(
        id=f"inner-error-{prefix}",
        mode="core-exception",
        component="cann",
        patterns=(rf"\b{prefix}\b:? ?Inner Error",),
        codes=(prefix,),
        meaning=f"{rank_meaning}; a follow-up code: the specific cause is in the lines around it",
        causes=("see the specific findings next to it",),
        fix=PLOG,
        confirm=None,
        sources=(Source(FACTS + " (PTOAS#864; LlamaFactory#5347)", "report"),),
        hints=("error",),
        rank=GENERIC,
    )


FAILURES = (
    Failure(
        id="aicore-timeout",
        mode="core-exception",
        component="aicore",
        patterns=(
            code("507014"),
            r"\[aicore timeout\]",
            r"aicore execution times out",
        ),
        codes=("507014", "0x25"),
        meaning="AI Core timeout: a kernel hung or ran too long (retCode=0x25)",
        causes=("a kernel bug or an input that makes it loop", "a deadlock between kernels"),
        fix=BLOCKING,
        confirm=None,
        sources=(
            Source(CODES_H + " (507014)", "official"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/864", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4972", "report"),
        ),
        hints=("timeout", "times out", "error", "fail"),
    ),
    Failure(
        id="aicore-exception",
        mode="core-exception",
        component="aicore",
        patterns=(
            code("5070(?:15|42|43)"),
            r"\[aicore exception\]",
            r"aicore execution is abnormal",
            r"The (?:DDR|write|read) address of the MTE instruction is out of range",
        ),
        codes=("507015", "507042", "507043", "0x26"),
        meaning="AI Core exception: a kernel accessed memory out of bounds or trapped "
        "(retCode=0x26)",
        causes=(
            "an operator given inputs it does not support (shape, dtype, layout)",
            "a custom kernel bug",
            "a kernel built for another chip",
        ),
        fix=BLOCKING,
        confirm=None,
        sources=(
            Source(CODES_H + " (507015, 507042, 507043)", "official"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/1019", "report"),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/82", "report"),
        ),
        hints=("exception", "abnormal", "error", "fail", "out of range"),
    ),
    Failure(
        id="vector-core-fault",
        mode="core-exception",
        component="aivector",
        patterns=(
            code("5070(?:34|35|36|44|45)"),
            r"\[vector core (?:timeout|exception)\]",
            r"vector core execution is abnormal",
            r"ub address out of bounds",
        ),
        codes=("507034", "507035", "507036", "507044", "507045", "0x30", "0x31"),
        meaning="vector core timeout (507034, retCode=0x30) or exception (507035, retCode=0x31): "
        "a vector kernel hung or accessed memory out of bounds",
        causes=("an operator given inputs it does not support", "a custom kernel bug"),
        fix=BLOCKING,
        confirm=None,
        sources=(
            Source(CODES_H + " (507034-507036, 507044, 507045)", "official"),
            Source("https://github.com/Ascend/pytorch/issues/66", "report"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/372", "report"),
        ),
        hints=("exception", "abnormal", "error", "fail", "timeout"),
    ),
    Failure(
        id="aicpu-exception",
        mode="core-exception",
        component="aicpu",
        patterns=(
            code("50701[78]"),
            r"\[aicpu (?:exception|timeout)\]",
            r"aicpu execution is abnormal",
            r"Aicpu kernel execute failed",
        ),
        codes=("507017", "507018", "0x2a"),
        meaning="AI CPU kernel timeout (507017) or exception (507018, retCode=0x2a)",
        causes=("an AI CPU operator given unsupported inputs", "an AI CPU kernel bug"),
        fix=BLOCKING,
        confirm=None,
        sources=(
            Source(CODES_H + " (507017, 507018)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2105", "report"),
            Source("https://github.com/open-mmlab/mmcv/issues/3203", "report"),
        ),
        hints=("exception", "abnormal", "fail", "error"),
    ),
    Failure(
        id="internal-task-timeout",
        mode="core-exception",
        component="runtime",
        patterns=(code("507048"),),
        codes=("507048",),
        meaning="an internal runtime task timed out; no source pins one cause",
        causes=("a hung kernel or collective before it (look earlier in the plog)",),
        fix=PLOG,
        confirm=None,
        sources=(
            Source(CODES_H + " (507048)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2800", "report"),
        ),
        hints=("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="stream-sync-timeout",
        mode="core-exception",
        component="runtime",
        patterns=(r"\bEE1002\b", r"stream sync timeout", code("507046")),
        codes=("EE1002", "507046"),
        meaning="a stream did not finish in time: a kernel or a collective hung",
        causes=("a hung kernel", "a collective waiting for a rank that died or lags"),
        fix="look earlier in the plog for the operator or collective that hung; on a multi-node "
        "job check the other ranks' logs (raise HCCL_EXEC_TIMEOUT only for genuine skew)",
        confirm=None,
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/48", "report"),
            Source("https://github.com/Ascend/pytorch/issues/62", "report"),
            Source(CODES_H + " (507046)", "official"),
        ),
        hints=("timeout", "error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="acl-internal-error",
        mode="core-exception",
        component="acl",
        patterns=(code("50000[0-5]"),),
        codes=("500000", "500001", "500002", "500003", "500004", "500005"),
        meaning="an internal error of ACL, GE, the runtime or the driver (5000xx); no source pins "
        "one cause",
        causes=("see the E-codes and plog lines next to it",),
        fix=PLOG,
        confirm=None,
        sources=(
            Source(CODES_H + " (500000-500005)", "official"),
            Source(
                "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/"
                "initialization_error.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("error",),
        rank=GENERIC,
    ),
    Failure(
        id="acl-param-invalid",
        mode="core-exception",
        component="acl",
        patterns=(code("107000"), r"Kernel binary register failure! ret 107000"),
        codes=("107000", "100000"),
        meaning="a runtime call was given an invalid parameter; in the report it followed a "
        "kernel binary that failed to register; no source pins one cause",
        causes=("a kernel built for another chip or CANN (unconfirmed)",),
        fix=PLOG,
        confirm=None,
        sources=(
            Source(CODES_H + " (107000, 100000)", "official"),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/587", "report"),
        ),
        hints=("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="inner-error-reported",
        mode="core-exception",
        component="torch_npu",
        patterns=(r"The Inner error is reported as above",),
        codes=(),
        meaning="torch_npu's summary of an inner CANN error printed above it, with the operator "
        "that was running",
        causes=("see the specific findings above it",),
        fix="rerun with ASCEND_LAUNCH_BLOCKING=1 for an accurate stack, then read the lines above",
        confirm=None,
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/5493", "report"),),
        hints=("error",),
        rank=GENERIC,
    ),
    _inner("EZ9999", "inner error inside an operator (often an AI Core exception or timeout)"),
    _inner("EE9999", "inner error of the CANN runtime (in LlamaFactory#5347 an HCCL timeout)"),
    _inner("EH9999", "inner error reported through ACL"),
)
