"""What the device itself reports going wrong under a job: its memory's uncorrectable ECC
errors, an AI Core that timed out or trapped, a page fault of its memory manager, a copy its DMA
engines could not do. Several are the hardware's, not the program's: the fix is to drain and
diagnose the node, not to change the job."""

from __future__ import annotations

import re

from ampenv.knowledge.failures.model import Failure, Source, hicann_page

EVENTS = (
    "read the device's fault events (`npu-smi info -t health -i <id>`; `msnpureport -f`, then "
    "grep event_id in slog/dev-os-<id>/run/event/) and look them up in Ascend's Health "
    "Management Error Definition"
)


def _compdataerr(m: re.Match[str]) -> bool:
    # the page's example: cqeStatus=0x150000, 0x15 >> 1 = 0x0A; another reason is not the HBM's
    return int(m.group("status"), 16) >> 17 == 0x0A


FAILURES = (
    Failure(
        id="hbm-multibit-ecc",
        mode="device-memory",
        component="hbm",
        # the device's black box (kbox.txt): "[Hardware Error]  error_type: 3, multi-bit ECC";
        # the runtime's report of the RAS event beside an AI Core error (EZ2001, 0x80E01801)
        patterns=(
            r"\[Hardware Error\][^\n]{0,80}error_type: ?\d{1,3}, multi-bit ECC",
            r"Fault RAS occurs in the system: ?\[event_id: ?0x[0-9a-fA-F]{1,8}\] Uncorrectable ECC",
        ),
        codes=(),
        meaning="a memory module reported an uncorrectable (multi-bit) ECC error: in an NPU's "
        "black box (its kbox) the card's HBM, in the host's kernel log a DIMM (the line's "
        "'DIMM location'); a hardware fault, not the job's",
        causes=(
            "HBM cells that partly failed (a scrub hit a multi-bit error: event 0x80E01809, "
            "isolated after a reboot)",
            "a failed address still in use whose online isolation failed (event 0x80E01801)",
        ),
        fix="drain the node; "
        + EVENTS
        + "; for 0x80E01801 stop the process on the device and reset the SoC if the fault "
        "stays; for 0x80E01809 the address is isolated after a reboot",
        confirm="npu.devices",
        sources=(
            hicann_page("hbm_bit_ecc_fault.md"),
            hicann_page("ai_core_error_description.md"),
        ),
        hints=("error",),
    ),
    Failure(
        id="aicore-stress-test-timeout",
        mode="core-exception",
        component="aicore",
        # Ascend's AI Core stress test (ascend-dmi --dg -i aicore): its verdict for a device
        patterns=(r"\*\*\* Device \d{1,4}: a timeout error occurred\.",),
        codes=(),
        meaning="Ascend's AI Core stress test timed out on the device it names: its AI Cores "
        "do not finish even the test's own kernels, a hardware fault",
        causes=("an AI Core hardware timeout fault (events 0x80C98001 / 0x80CB8001)",),
        fix="drain the node; power-cycle it and run `ascend-dmi --dg -i aicore -s -q` again: a "
        "device that still reports the timeout needs its hardware replaced (contact support)",
        confirm="npu.devices",
        sources=(hicann_page("ai_core_timeout_fault.md"),),
        hints=("error",),
    ),
    Failure(
        id="silent-check-abnormal",
        mode="core-exception",
        component="aicpu",
        # the feature-value check NPU_ASD_ENABLE turns on (MindSpore's, torch_npu's), in the
        # device log: "SilentCheckV3 ComputeL1Error:val = [nan], ..." (not its "normal case")
        patterns=(r"\bSilentCheckV\d ComputeL1Error:",),
        codes=(),
        meaning="the silent-data-corruption check (NPU_ASD_ENABLE: feature-value detection of "
        "the gradients) found a value past its thresholds or NaN, and with NPU_ASD_ENABLE=2 or "
        "3 stopped the job: a device computing wrongly without reporting it, or an overflow "
        "the software caused",
        causes=(
            "a faulty NPU giving wrong results silently (the device log names it: device-N)",
            "a numerical overflow of the program or an operator, on healthy devices",
        ),
        fix="isolate the device the log names and resume the others from the checkpoint; on "
        "it run ascend-dmi's AI Core stress diagnosis (`ascend-dmi --dg -i aicore -s -q`): a "
        "faulty NPU goes to repair; if every NPU passes, look for the overflow in the program "
        "and its operators",
        confirm="npu.devices",
        sources=(
            Source(
                "mindspore-ai/docs tutorials/source_zh_cn/debug/sdc.md"
                "@9e844dc65dc5ef4381574e8b6ec2f93f9681f720",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="device-vm-fault",
        mode="core-exception",
        component="devmm",
        # the device kernel's memory manager (slog): "Vm fault failed. (hostpid=...; fault_addr="
        patterns=(r"\bVm fault failed\. \(hostpid=\d{1,10}",),
        codes=(),
        meaning="the device's memory manager took a page fault it could not serve: a kernel of "
        "the process named (hostpid) read or wrote an address it was never given",
        causes=(
            "an operator reading or writing out of bounds (wrong indices, shapes or tiling)",
            "a device address used after it was freed",
        ),
        fix="rerun with ASCEND_LAUNCH_BLOCKING=1 to find the operator (in eager mode: ACL "
        "graph capture refuses it); check its inputs "
        "(indices within range, shapes) and collect the msaicerr report of the AI Core error "
        "next to it",
        confirm=None,
        sources=(hicann_page("atomic_add_precision_overflow.md"),),
        hints=("fail",),
    ),
    Failure(
        id="memcpy-kind-location-mismatch",
        mode="device-memory",
        component="runtime",
        patterns=(
            r"Memory async failed, src loc type=\d{1,2}, dst loc type=\d{1,2}, kind=\d{1,2} "
            r"is invalid",
        ),
        codes=(),
        meaning="an asynchronous copy (aclrtMemcpyAsync) was asked for a direction that does "
        "not fit where its buffers live (loc type 1 host, 2 device, 3 SVM, 4 DVPP; kind 0 H2H, "
        "1 H2D, 2 D2H, 3 D2D)",
        causes=(
            "a wrong copy kind (H2D for two device buffers, say)",
            "a host pointer passed where a device pointer belongs, or the reverse",
        ),
        fix="pass the kind that matches the buffers: the line's src and dst loc types say where "
        "each lives",
        confirm=None,
        sources=(hicann_page("rtmemcpy_async_param_check_error.md"),),
        hints=("fail",),
    ),
    Failure(
        id="sdma-copy-data-error",
        mode="device-memory",
        component="sdma",
        patterns=(
            r"ProcessStarsSdmaErrorInfo:[^\n]{0,200}\bsdma error\b[^\n]{0,300}"
            r"cqeStatus=(?P<status>0x[0-9a-fA-F]{1,8})\b",
        ),
        codes=(),
        meaning="a device-to-device DMA copy (SDMA) failed reading its data: its cqeStatus says "
        "COMPDATAERR (the upper half-word shifted right by one is 0x0A), the HBM returned an "
        "error",
        causes=("an HBM multi-bit ECC fault under the copied data",),
        fix=EVENTS + "; an HBM ECC event is the card's hardware: drain the node",
        confirm="npu.devices",
        sources=(hicann_page("operator_d2d_copy_error.md"),),
        hints=("error",),
        judge=_compdataerr,
    ),
    Failure(
        id="memcpy-async-failed",
        mode="device-memory",
        component="sdma",
        patterns=(r"\bMemory async copy failed, device_id=",),
        codes=(),
        meaning="an asynchronous memory copy task (the device's DMA engine, SDMA) failed: the "
        "runtime's EE8888 and retcode 507011 follow it, and a model or stream that held it "
        "fails with it",
        causes=(
            "a wrong copy address: memory freed or reused before the copy ran, a host pointer "
            "given as a device one",
            "a process of a multi-device job that exited, its memory gone under the copy",
            "an overflow in the data copied (with overflow detection on)",
        ),
        fix="read the SDMA error line before it in the plog (ProcessSdmaErrorInfo / "
        "ProcessStarsSdmaErrorInfo): its CQE status tells which; check that the copy's "
        "buffers live until it completes (no free or reuse before a synchronize), and read "
        "the other ranks' logs for one that exited first",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/doc_center/source/zh/canncommercial/601/"
                "troublemanagement/troubleshooting/troubleshooting_0104.html (CANN 6.0.1 "
                "troubleshooting: Memcpy异步拷贝算子执行报错)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
)
