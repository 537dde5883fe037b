"""Devices, driver, firmware and visible device ids."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, Failure, Source, code

FACTS = "shared/reference/ascend-facts.md"

FAILURES = (
    Failure(
        id="dcmi-init-failed",
        mode="container-devices",
        component="dcmi",
        patterns=(r"dcmi module initiali[sz]ed? failed\.? ?ret is -8005",),
        codes=("-8005",),
        meaning="npu-smi's management library (DCMI) could not open the devices",
        causes=(
            "in a container: the devices are held by another container, or the container was "
            "started without the device nodes or --privileged",
            "/dev/davinci* not accessible to this user",
            "driver not matching the running kernel (kernel upgraded) or not loaded",
        ),
        fix="start the container with --privileged, or pass /dev/davinciN, /dev/davinci_manager, "
        "/dev/devmm_svm, /dev/hisi_hdc and mount /usr/local/Ascend/driver; on a host check "
        "`dmesg -T | grep -i davinci`",
        confirm="npu.device_nodes",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/2698", "maintainer"),
            Source("https://github.com/Project-HAMi/ascend-device-plugin/issues/23", "report"),
        ),
        hints=("fail",),
    ),
    Failure(
        id="dcmi-device-in-use",
        mode="container-devices",
        component="dcmi",
        patterns=(
            r"dcmi model initiali[sz]ed failed, because the device is used",
            r"dcmi \w{1,10} initiali[sz]ed? failed[^\n]{0,60}ret is -8020",
        ),
        codes=("-8020",),
        meaning="another container holds the device: a container started without --privileged "
        "cannot open a device that another container uses",
        causes=("two containers given the same /dev/davinciN",),
        fix="stop the container that holds the NPU, or give each container its own NPUs "
        "(docker run --device=/dev/davinciN, ASCEND_VISIBLE_DEVICES)",
        confirm="npu.device_nodes",
        sources=(
            Source(FACTS + " §1.2 (ops note) [3P]", "report"),
            Source("https://github.com/Ascend/cann-container-image/issues/46", "report"),
            Source("shared/reference/ascend-facts.md §1.2 (dcmi ret -8020)", "official"),
        ),
        hints=("fail",),
    ),
    Failure(
        id="driver-not-mounted",
        mode="container-devices",
        component="driver",
        patterns=(
            r"npu-smi: error while loading shared libraries: \S{1,200}\.so",
            r"\blib(?:ascend_hal|c_sec|drvdsmi_host|dcmi|mmpa)\.so[\w.]{0,20}: cannot open "
            r"shared object",
        ),
        codes=(),
        meaning="a driver library cannot be loaded: the driver is not installed, or its lib64 is "
        "not mounted into this container",
        causes=(
            "container started without -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro",
            "driver lib64 missing from LD_LIBRARY_PATH",
        ),
        fix="mount the host driver: -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro "
        "-v /usr/local/dcmi:/usr/local/dcmi (on a host: reinstall the driver)",
        confirm="npu.driver",
        sources=(
            Source("https://github.com/Project-HAMi/HAMi/issues/615", "report"),
            Source(
                "shared/reference/ascend-facts.md §1.2 (npu-smi without the driver's lib64)",
                "report",
            ),
        ),
        hints=("error", "cannot"),
    ),
    Failure(
        id="device-setup-failed",
        mode="container-devices",
        component="runtime",
        patterns=(code("507033"), r"Failed to start the device"),
        codes=("507033",),
        meaning="the device could not be opened: busy (another process holds its memory), "
        "dead, or refused by a check the lines around it name",
        causes=(
            "another process holds the device's memory (EL0004 next to it)",
            "the device is faulty (dmesg: device(N) is not working)",
            "the OPP package was rejected (E30006 next to it)",
        ),
        fix="`npu-smi info` and `fuser -v /dev/davinci*`: stop the holder; if dmesg shows "
        "`device(N) is not working`, drain the node",
        confirm="npu.devices",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (507033)",
                "official",
            ),
            Source("https://github.com/hw-native-sys/PTOAS/pull/341", "report"),
            Source("https://github.com/Ascend/pytorch/issues/67", "report"),
        ),
        hints=("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="driver-internal-error",
        mode="driver",
        component="driver",
        patterns=(code("507899"),),
        codes=("507899",),
        meaning="driver internal error, usually a cascade after an earlier device fault or a "
        "driver that does not support what CANN asks of it",
        causes=(
            "an earlier device fault (look for the first error in the plog)",
            "a driver older than the CANN release needs (one third-party note: CANN 9.0.0 IPC "
            "keys rejected by drivers older than 26.0.rc1) [unconfirmed]",
            "no usable device (sandbox, permissions)",
        ),
        fix="find the first error earlier in the plog; `npu-smi info -t health -i N`; check the "
        "driver against the CANN release notes (`ampenv doctor --only npu.driver`)",
        confirm="npu.driver",
        sources=(
            Source(FACTS + " §6 (rt_error_codes.h 507899)", "official"),
            Source("https://github.com/hw-native-sys/simpler/pull/890", "report"),
        ),
        hints=("fail", "error"),
        rank=CLASS,
    ),
    Failure(
        id="driver-firmware-mismatch",
        mode="driver",
        component="driver",
        patterns=(r"possible cause is that driver and firmware packages do not match",),
        codes=("207000",),
        meaning="the runtime asked for a feature the driver/firmware pair does not provide",
        causes=("driver and firmware from different HDK releases", "HDK older than CANN needs"),
        fix="install the driver and firmware of one HDK release that the CANN release notes "
        "pair with this CANN; `ampenv doctor --only npu.driver`",
        confirm="npu.driver",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (ACL_ERROR_RT_FEATURE_NOT_SUPPORT)",
                "official",
            ),
        ),
        hints=("not support",),
    ),
    Failure(
        id="invalid-device-id",
        mode="visible-devices",
        component="runtime",
        patterns=(code("107001"), r"Set visible device failed, invalid device"),
        codes=("107001",),
        meaning="a device id this process asked for does not exist among its visible devices",
        causes=(
            "ASCEND_RT_VISIBLE_DEVICES lists ids that are not present, not ascending, or has "
            "gaps: CANN silently drops them and renumbers the rest from 0",
            "more local ranks than visible devices",
        ),
        fix="make ASCEND_RT_VISIBLE_DEVICES list only present devices, ascending, without "
        "spaces, and start no more ranks per node than it lists",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (107001)",
                "official",
            ),
            Source(FACTS + " §4 (envref_07_0028)", "official"),
            Source("https://github.com/gpustack/gpustack/issues/3352", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/pull/10227", "report"),
        ),
        hints=("error", "fail"),
    ),
)
