"""What each class of code means and how it is fixed: the official tables' rule of each class
(1xxxxx the caller's, 2xxxxx resources, 5xxxxx internal), and the codes whose own fix is more
specific than their class's, for the families of ``codes.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ampenv.knowledge.failures.acl import BLOCKING, PLOG
from ampenv.knowledge.failures.model import Source


@dataclass(frozen=True)
class Class:
    """What a code of one class means for the person who has to act on it."""

    mode: str
    cause: str
    fix: str
    confirm: Optional[str] = None
    sources: tuple[Source, ...] = ()  # where a row's own reading comes from
    notice: bool = False  # a cause only beside a failure (Failure.notice)


# aclError by its first digit (the table's own rule), and the codes whose rows name a fix.
USAGE = Class(
    "core-exception",
    "the call's arguments or the environment the program set up (the meaning names which)",
    "fix what the meaning names; " + BLOCKING,
)
RESOURCE = Class(
    "core-exception",
    "a device resource ran out, or a call this hardware or driver does not support",
    "free or reduce what the meaning names; `npu-smi info` shows each device's memory and "
    "processes; a feature not supported needs the CANN and driver versions that have it",
    "npu.devices",
)
QUEUE = Class("core-exception", "a queue or storage state", "see the meaning: " + PLOG)
INTERNAL = Class(
    "core-exception",
    "an internal software or hardware fault; the lines before it name the failing operator",
    PLOG + "; " + BLOCKING,
)
OOM = Class(
    "device-memory",
    "device memory exhausted",
    "reduce the batch or sequence length, or free the device: `npu-smi info` lists the "
    "processes holding its memory",
    "npu.devices",
)
HARDWARE = Class(
    "driver",
    "a hardware memory or device fault (ECC, UCE, a lost heartbeat)",
    "drain the node and check the device: `npu-smi info -t health -i <id>`; a fault that "
    "recurs after a reboot goes to hardware support",
    "npu.devices",
)
LINK = Class(
    "hccl",
    "the link between two devices broke, or the peer device failed",
    "read the peer rank's log for its own error first; then check the links: "
    "`hccn_tool -i <id> -link -g` on both nodes",
)
# the runtime's aclError page: "switch to the right capture mode" (aclmdlRICapture...Mode).
# A framework that captures graphs logs the refusal and goes on without the call (vllm-ascend's
# graph mode: rtMemcpy's 107030 in the plog of a run that serves): a cause beside a failure only.
CAPTURE_MODE = Class(
    "core-exception",
    "a call this capture mode refuses (a stream or event synchronize, a synchronous copy or "
    "memset) made while a stream is captured into a graph",
    "move the call out of the captured region (before aclmdlRICaptureBegin or after "
    "aclmdlRICaptureEnd); a synchronous copy the graph may run as it is: capture in "
    "ACL_MODEL_RI_CAPTURE_MODE_RELAXED (aclmdlRICaptureThreadExchangeMode)",
    sources=(
        Source(
            "hicann/runtime docs/03_api_ref/25-01_aclError.md"
            "@45046b4cc9644a315e40c11aaaf4a635b15759c9 (107030, 107041)",
            "official",
        ),
        Source(
            "vllm-project/vllm-ascend docs/source/user_guide/release_notes.md (v0.23.0, known "
            "issues: rtMemcpy's 107030 in graph mode does not affect inference); "
            "https://github.com/vllm-project/vllm-ascend/issues/14347",
            "official",
        ),
    ),
    notice=True,
)
ACL_FIXES: dict[str, Class] = {
    "107003": Class(
        "core-exception",
        "a stream used or destroyed while another device's context is current (a program "
        "that drives several devices from one thread and switched devices since it made the "
        "stream)",
        "make the stream's device current before using or destroying it (aclrtSetDevice or "
        "aclrtSetCurrentContext; torch.npu.set_device); in a library, update it (llama.cpp's "
        "CANN backend: its teardown fixed in PR 9627)",
        None,
        (
            Source("https://github.com/ggml-org/llama.cpp/issues/9250", "report"),
            Source("https://github.com/ggml-org/llama.cpp/pull/9627", "maintainer"),
        ),
    ),
    "148049": Class(
        "cann-env",
        "the CANN environment is not sourced",
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh (ASCEND_OPP_PATH comes with it)",
        "cann.toolkit",
    ),
    "100039": Class(
        "cann-env",
        "LD_LIBRARY_PATH holds CANN's stub libraries",
        "remove the .../stub directories from LD_LIBRARY_PATH and source set_env.sh again",
        "python.stack",
    ),
    "145019": Class(
        "cann-env",
        "LD_LIBRARY_PATH does not reach CANN's libraries",
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
        "python.stack",
    ),
    "207019": Class(
        "driver",
        "the driver is older than this CANN needs",
        "upgrade the NPU driver and firmware (Ascend HDK 25.0.RC1 or later for this feature)",
        "npu.driver",
    ),
    "507008": Class(
        "driver",
        "the runtime could not read the chip's SoC version from the driver: the driver (or the "
        "driver mounted into this container) is not one this CANN supports",
        "compare `npu-smi info` and /usr/local/Ascend/driver/version.info with the CANN release "
        "notes; upgrade the driver and firmware, or use the CANN (image) that matches them",
        "npu.driver",
    ),
    "207006": Class(
        "container-devices",
        "the user or container may not use the device",
        "run as root or as a member of the driver's group (HwHiAiUser); in a container pass the "
        "device nodes (/dev/davinciN, davinci_manager, devmm_svm, hisi_hdc)",
        "npu.device_nodes",
    ),
    "207003": Class(
        "core-exception",
        "an operator overflowed in fp16",
        "under AMP the loss scaler skips such steps; if it persists, dump the overflowing "
        "operator (msprobe overflow check) and keep it in fp32",
    ),
    "107030": CAPTURE_MODE,
    "107041": CAPTURE_MODE,
    "107027": Class(
        "core-exception",
        "a call that synchronises a stream being captured into a graph (ACL graph, vLLM "
        "Ascend's graph mode); ASCEND_LAUNCH_BLOCKING=1 makes every launch such a call",
        "unset ASCEND_LAUNCH_BLOCKING (graph capture refuses the synchronous launches it "
        "forces); to find a failing operator, run eagerly (vLLM: enforce_eager=True) with it "
        "set; otherwise move the synchronising call (.item(), .cpu(), a stream synchronize) "
        "out of the captured region",
        sources=(
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/3574 (ASCEND_LAUNCH_BLOCKING=1 "
                "is incompatible with ACL Graph)",
                "maintainer",
            ),
        ),
    ),
    "561112": Class(
        "cann-pairing",
        "the operator kernels package is not installed",
        "install the Ascend-cann-kernels package for this chip and CANN version",
        "cann.toolkit",
    ),
    "561108": Class(
        "cann-pairing",
        "the kernels package does not match CANN",
        "reinstall the Ascend-cann-kernels package of this CANN version",
        "cann.toolkit",
    ),
    **dict.fromkeys(("200000", "245000", "245002"), OOM),
    **dict.fromkeys(("507010", "507053", "507054", "507055", "507901"), HARDWARE),
    **dict.fromkeys(("507056", "507057"), LINK),
}
ACL_CLASSES = {"1": USAGE, "2": RESOURCE, "3": QUEUE, "5": INTERNAL}

HCCL_PORT = Class(
    "hccl",
    "the port or device is taken: a previous job's process still holds it",
    "end the previous job's processes (`npu-smi info` lists them), or give this job other "
    "ports (MASTER_PORT, HCCL_HOST_SOCKET_PORT_RANGE)",
    "dist.allreduce",
)
HCCL_NET = Class(
    "hccl",
    "HCCL picked a network interface or IP the other ranks cannot use",
    "set HCCL_IF_IP or HCCL_SOCKET_IFNAME to this node's interface that the other nodes reach",
    "env.hccl",
)
HCCL_CONNECT = Class(
    "hccl",
    "a rank did not start, died, or cannot be reached",
    "check that every rank started and reaches the others (firewall, ports); raise "
    "HCCL_CONNECT_TIMEOUT only for slow starts",
    "dist.allreduce",
)
HCCL_FIXES: dict[str, Class] = {
    "1": Class(
        "hccl",
        "the ranks disagree: world size, rank id or the device of a rank",
        "run the same script with the same world size on every rank, and give each rank a "
        "device that exists here (ASCEND_RT_VISIBLE_DEVICES)",
        "env.npu",
    ),
    "7": HCCL_PORT,
    "6": HCCL_NET,
    "19": HCCL_NET,
    **dict.fromkeys(("9", "11", "12", "13", "14"), HCCL_CONNECT),
    "24": OOM,
}
HCCL_DEFAULT = Class("hccl", "HCCL failed inside", PLOG)

DCMI_PERMISSION = Class(
    "container-devices",
    "the caller may not query the device (a non-root user, or a container)",
    "run as root on the host, or start the container with the devices and the driver mounted "
    "(Ascend Docker Runtime: ASCEND_VISIBLE_DEVICES)",
    "npu.device_nodes",
)
DCMI_FIXES: dict[str, Class] = {
    **dict.fromkeys(("-8002", "-8013"), DCMI_PERMISSION),
    **dict.fromkeys(
        ("-8007", "-8008"),
        Class(
            "visible-devices",
            "the device id does not exist on this node",
            "list the devices (`npu-smi info -l`) and use one of their ids",
            "npu.devices",
        ),
    ),
    **dict.fromkeys(
        ("-8006", "-8012", "-8017"),
        Class(
            "driver",
            "the device is not ready, busy upgrading or not answering",
            "wait and retry; if it persists, `npu-smi info -t health -i <id>` and reset the device",
            "npu.devices",
        ),
    ),
    "-8014": Class(
        "driver",
        "a file DCMI or the driver reads or writes could not be opened, read or written (a path "
        "missing or read-only, or its permissions)",
        "find the file in the lines before it: it must exist and be writable for this user (in a "
        "container: the driver's folders mounted, the root filesystem writable); then `npu-smi "
        "info`",
        "npu.driver",
    ),
}
DCMI_DEFAULT = Class(
    "driver",
    "the driver failed to talk to the device",
    "check `npu-smi info` on the host; collect the driver logs (msnpureport) and restart or "
    "reinstall the driver",
    "npu.driver",
)

DEVICE_ID = DCMI_FIXES["-8007"]
DRV_FIXES: dict[str, Class] = {
    "2": DEVICE_ID,
    "6": OOM,
    **dict.fromkeys(("14", "47", "48", "49", "50", "84"), RESOURCE),
    **dict.fromkeys(("46", "88", "90"), DCMI_PERMISSION),
    "87": Class(
        "container-devices",
        "another process or container holds the device",
        "find the holder: `npu-smi info` on the host lists each device's processes; end it, "
        "or give each container devices of its own (ASCEND_VISIBLE_DEVICES)",
        "npu.devices",
    ),
    "34": Class(
        "driver",
        "the device is not ready: still starting, or resetting",
        "wait and retry; if it stays, `npu-smi info -t health -i <id>`, then reset the device",
        "npu.devices",
    ),
    **dict.fromkeys(
        ("33", "45", "91", "94"),
        Class(
            "driver",
            "the device is down, resetting, or failed its self-test",
            "drain the node; `npu-smi info -t health -i <id>`; reset the device or reboot, and a "
            "fault that recurs goes to hardware support",
            "npu.devices",
        ),
    ),
    **dict.fromkeys(
        ("42", "43", "62"),
        Class(
            "core-exception",
            "the process on the device's side exited or hangs: an earlier fault ended it",
            "find the first error before this line (an AI Core or AI CPU exception, a killed "
            "process): it is the cause; " + PLOG,
        ),
    ),
    **dict.fromkeys(
        ("1", "9"),
        Class(
            "container-devices",
            "the driver is not initialised for this process: its device nodes are not passed to "
            "the container, or the driver is not loaded",
            "check `npu-smi info` on the host, and the device nodes here",
            "npu.device_nodes",
        ),
    ),
    "65534": Class(
        "driver",
        "the driver does not support the call: it is older than the software calling it (CANN, "
        "torch_npu, a library built for a newer HDK), or this chip, VM or container (a vNPU) "
        "lacks the feature",
        "`ampenv doctor --only npu.driver`: a driver older than the calling software's notes "
        "pair with it needs the HDK they name (firmware first, then driver); where it is "
        "paired, the feature is not there on this chip or in this mode: the caller's own "
        "option to do without it",
        "npu.driver",
    ),
}
DRV_DEFAULT = Class(
    "driver",
    "the driver refused or failed the call (the code's name says how); most often after an "
    "earlier error",
    "find the first error before this line; if there is none, check `npu-smi info` and "
    "collect the driver's logs (msnpureport)",
    "npu.driver",
)
