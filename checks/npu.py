"""npu.*: the NPUs themselves: what npu-smi sees, the driver and firmware, the device nodes."""

from __future__ import annotations

from typing import Optional

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.knowledge import failures, hdk, npu
from ampenv.probe import cann, devnodes, driver, npusmi
from ampenv.probe.npusmi import Chip, Holder, SmiInfo
from ampenv.probe.pids import Liveness, PidState, pid_state
from ampenv.probe.proc import Outcome

NPU_SMI_TIMEOUT = 10.0
NO_NPU = "no Ascend NPU on this node"


def _no_npu(ctx: CheckContext) -> Optional[Result]:
    """The skip every npu.* check gives where there is neither npu-smi nor /dev/davinci*."""
    if npusmi.locate(ctx.probe) or devnodes.davinci_numbers(ctx.probe):
        return None
    return Result.skip(
        NO_NPU,
        details=["no npu-smi on PATH, in /usr/local/bin or /usr/local/sbin; no /dev/davinci*"],
    )


def _smi(ctx: CheckContext) -> Optional[SmiInfo]:
    """``npu-smi info``, run once for all npu.* checks (None: npu-smi is not installed)."""
    tool = npusmi.locate(ctx.probe)
    if tool is None:
        return None
    return npusmi.info(ctx.probe, tool, ctx.timeout_left(ctx.settings["timeout"]))


def _seconds(value: float) -> str:
    return f"{round(value, 1):g}"


# -- npu.devices ---------------------------------------------------------------------------------
def _unreadable(info: SmiInfo) -> Result:
    """npu-smi hung, failed, or printed what cannot be parsed."""
    result = info.result
    if result.outcome is Outcome.TIMEOUT:
        return Result.fail(
            f"npu-smi did not answer in {_seconds(result.timeout_s)} s: the driver may be hung",
            remedy=npu.HUNG_REMEDY,
            details=[f"{result.describe()}, with its process group"],
        )
    what = "npu-smi printed a table ampenv cannot read" if result.ok else result.describe()
    raw = npusmi.first_lines(info.output)
    details = [what, *(["npu-smi printed:", *raw] if raw else ["npu-smi printed nothing"])]
    hits = failures.scan_lines(info.output.splitlines(), "npu-smi")
    if not hits:
        return Result.error(what, details=details)
    known = failures.leading(hits).failure
    details.append(f"known failure {known.id}: `ampenv explain {known.id}` for causes and sources")
    return Result.error(f"npu-smi failed: {known.meaning}", remedy=known.fix, details=details)


def _health_detail(ctx: CheckContext, tool: str, chip: Chip) -> str:
    if chip.npu is None or chip.chip is None:
        return ""
    ran, detail = npusmi.health(
        ctx.probe, tool, chip.npu, chip.chip, ctx.timeout_left(ctx.settings["timeout"])
    )
    if detail is None:
        return f" ({ran.describe()})" if not ran.ok else ""
    if detail.error_code is None:
        return ""
    return f": error {detail.error_code}" + (f" {detail.error_info}" if detail.error_info else "")


def _health_findings(ctx: CheckContext, tool: str, chips: list[Chip]) -> list[Finding]:
    findings = []
    for chip in chips:
        word = chip.health or "(none)"
        status = npu.HEALTH_STATUS.get(word.lower(), Status.WARN)
        if status is Status.PASS:
            continue
        remedy = npu.health_remedy(chip.npu, chip.chip, status)
        known = "" if word.lower() in npu.HEALTH_STATUS else ", a state ampenv does not know"
        message = f"{chip.label} ({chip.name}) health {word}{known}"
        findings.append(Finding(status, message + _health_detail(ctx, tool, chip), remedy))
    return findings


def _holder_findings(ctx: CheckContext, holders: list[Holder]) -> list[Finding]:
    container = devnodes.container_hint(ctx.probe)
    grouped: dict[str, list[tuple[Holder, PidState]]] = {}
    for holder in holders:
        state = (
            pid_state(ctx.probe, holder.pid)
            if holder.pid is not None
            else PidState(Liveness.UNCHECKED)
        )
        grouped.setdefault(npu.holder_kind(holder, state, container), []).append((holder, state))
    findings = []
    for kind, (one, several, remedy) in npu.HOLDER_KINDS.items():
        group = grouped.get(kind)
        if group:
            listed = "; ".join(npu.describe_holder(h, s) for h, s in group)
            message = f"{len(group)} {one if len(group) == 1 else several}: {listed}"
            findings.append(Finding(Status.WARN, message, remedy(group)))
    return findings


def _chip_key(name: str) -> str:
    return name.strip().lower().removeprefix("ascend")


def _expectations(ctx: CheckContext, chips: list[Chip], names: list[str]) -> list[Finding]:
    findings = []
    where = '[checks."npu.devices"] in ampenv.toml'
    expected_count = ctx.settings.get("expected_count")
    if expected_count is not None and len(chips) != expected_count:
        findings.append(
            Finding(
                Status.FAIL,
                f"{len(chips)} NPU chips found, {expected_count} expected",
                "find the missing ones: `npu-smi info -l`, `lspci -d 19e5:`, "
                "`dmesg -T | grep -i davinci`; reseat or replace the card, or update "
                f"expected_count in {where} if the node changed",
            )
        )
    expected_chip = ctx.settings.get("expected_chip")
    if expected_chip and any(_chip_key(n) != _chip_key(expected_chip) for n in names):
        findings.append(
            Finding(
                Status.FAIL,
                f"chip {', '.join(names)} found, {expected_chip} expected",
                f"run the job on a node with {expected_chip}, or update expected_chip in {where}",
            )
        )
    return findings


def _chip_line(chip: Chip) -> str:
    hbm = (
        f"HBM {chip.hbm_used_mb}/{chip.hbm_total_mb} MB"
        if chip.hbm_total_mb is not None
        else f"memory {chip.memory_used_mb}/{chip.memory_total_mb} MB"
    )
    power = "-" if chip.power_w is None else chip.power_w
    return f"{chip.label}: {chip.name} {chip.health}, {hbm}, {chip.temp_c} C, {power} W"


@check(
    "npu.devices",
    title="NPU devices (npu-smi)",
    timeout=NPU_SMI_TIMEOUT,
    why="A chip in alarm, a missing chip or a process still holding HBM makes a job crash "
    "at start (507033) or run out of memory; a hung npu-smi means a hung driver.",
    remedies=(
        "npu-smi info -t health -i N -c C",
        "kill the processes that hold NPUs, or choose free NPUs with ASCEND_RT_VISIBLE_DEVICES",
        "drain and reboot a node whose driver hangs",
    ),
    settings={
        "expected_count": Setting(int, None, "NPU chips this node must have", "device_count", ge=0),
        "expected_chip": Setting(str, None, "chip name npu-smi must show, e.g. 910B2", "chip_name"),
    },
)
def npu_devices(ctx: CheckContext) -> Result:
    """Every chip npu-smi lists is healthy, the count and chip are as configured, and no
    process holds an NPU (naming stale contexts and holders in other containers)."""
    absent = _no_npu(ctx)
    if absent:
        return absent
    info = _smi(ctx)
    if info is None:
        nodes = len(devnodes.davinci_numbers(ctx.probe))
        return Result.warn(
            f"npu-smi not found, although {nodes} /dev/davinci* nodes exist: "
            "device health cannot be checked",
            remedy="install the Ascend driver's npu-smi, or mount it into the container: "
            "-v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro",
        )
    if info.table is None:
        return _unreadable(info)
    table, tool = info.table, info.result.argv[0]
    chips = table.chips
    names = sorted({c.name for c in chips if c.name})
    findings = _health_findings(ctx, tool, chips)
    findings += _expectations(ctx, chips, names)
    findings += _holder_findings(ctx, table.processes)
    facts = {
        "npu_smi_version": table.tool_version,
        "driver_version": table.driver_version,
        "devices": [c.to_fact() for c in chips],
        "processes": [h.to_fact() for h in table.processes],
        "device_count": len(chips),
        "chip_name": names[0] if len(names) == 1 else None,
    }
    summary = (
        f"{len(chips)} x {', '.join(names) or 'unnamed chip'} healthy and idle "
        f"(npu-smi {table.tool_version}, driver {table.driver_version})"
    )
    return combine(findings, summary, facts=facts, details=[_chip_line(c) for c in chips])


# -- npu.driver ----------------------------------------------------------------------------------
def _missing_driver(ctx: CheckContext) -> Result:
    container = devnodes.container_hint(ctx.probe)
    if container:
        return Result.fail(
            f"{driver.DRIVER_INFO} is missing in this container ({container}): "
            "the host driver is not mounted",
            remedy="start the container with the host driver mounted: docker run "
            + npu.DRIVER_MOUNT,
        )
    return Result.fail(
        f"{driver.DRIVER_INFO} is missing: no Ascend driver is installed here",
        remedy=f"install the Ascend driver ({npu.DRIVER_PACKAGE}), then reboot",
    )


def _firmware(ctx: CheckContext, files: driver.DriverFiles) -> tuple[Optional[str], str, str]:
    """Firmware version, where it was read, and npu-smi's Compatibility verdict ('' unknown).
    Containers rarely mount the firmware folder, so npu-smi's board page is the fallback."""
    if files.firmware_version:
        return files.firmware_version, driver.FIRMWARE_INFO, ""
    info = _smi(ctx)
    if info is None or info.table is None or info.table.chips[0].npu is None:
        return None, "", ""
    npu = info.table.chips[0].npu
    page = npusmi.board(
        ctx.probe, info.result.argv[0], npu, ctx.timeout_left(ctx.settings["timeout"])
    )
    if not page or not page.get("Firmware Version"):
        return None, "", ""
    source = f"npu-smi info -t board -i {npu}"
    return page["Firmware Version"], source, page.get("Compatibility", "")


def _firmware_findings(
    files: driver.DriverFiles, fw: Optional[str], compatibility: str
) -> list[Finding]:
    drv = files.driver_version
    ranges = ", ".join(f"[{lo}, {hi}]" for lo, hi in files.fw_ranges)
    if ranges:
        accepted = f"a firmware in {ranges}"
    else:
        accepted = f"the firmware released with driver {drv}" if drv else "a matching firmware"
    fix = f"install {accepted} (its Ascend-hdk-*-npu-firmware_*.run --full, then reboot)" + (
        f", or the driver release made for firmware {fw}" if fw else ""
    )
    findings = []
    if compatibility and compatibility.upper() != "OK":
        findings.append(
            Finding(
                Status.FAIL, f"npu-smi reports driver/firmware compatibility {compatibility}", fix
            )
        )
    if fw is None:
        why = "no firmware version.info and no npu-smi board page"
        findings.append(Finding(Status.SKIP, f"firmware version not readable ({why})"))
        return findings
    verdict = driver.in_ranges(fw, files.fw_ranges)
    if verdict is False:
        findings.append(
            Finding(
                Status.FAIL,
                f"firmware {fw} is outside the range driver {drv} accepts: {ranges}",
                fix,
            )
        )
    elif verdict:
        findings.append(Finding(Status.PASS, f"firmware {fw} is within {ranges}"))
    else:
        why = "the driver names no compatible_version_fw" if not ranges else f"cannot compare {fw}"
        findings.append(Finding(Status.SKIP, f"firmware range not checked: {why}"))
    return findings


def _minimum_findings(drv: str, minimum: Optional[str]) -> list[Finding]:
    if not minimum:
        return []
    have, need = driver.driver_key(drv), driver.driver_key(minimum)
    if have is None or need is None:
        return [Finding(Status.SKIP, f"cannot compare driver {drv} with the minimum {minimum}")]
    if have < need:
        return [
            Finding(
                Status.FAIL,
                f"driver {drv} is older than the minimum {minimum}",
                f"upgrade the driver to {minimum} or later "
                f"({npu.DRIVER_PACKAGE.replace('--full', '--upgrade')}), then reboot",
            )
        ]
    return [Finding(Status.PASS, f"driver {drv} is at least {minimum}")]


def _cann_pairing(ctx: CheckContext) -> Optional[hdk.Pairing]:
    """The HDK releases Ascend pairs with the CANN installed here (None: unknown release)."""
    toolkit = cann.discover(ctx.probe).toolkit
    return hdk.paired(toolkit.version if toolkit else None)


def _pairing_findings(drv: str, pairing: Optional[hdk.Pairing]) -> list[Finding]:
    have = driver.driver_key(drv)
    if pairing is None or have is None:
        return []
    oldest = pairing.oldest
    if have >= (driver.driver_key(oldest) or ()):
        return [
            Finding(
                Status.PASS,
                f"driver {drv} is at least HDK {oldest}, paired with CANN {pairing.cann}",
            )
        ]
    return [
        Finding(
            Status.WARN,
            f"driver {drv} is older than every HDK paired with CANN {pairing.cann} "
            f"({', '.join(pairing.drivers)}): runtime calls of this CANN may fail (207000, "
            "feature not supported)",
            f"install Ascend HDK {oldest} or later: its firmware first "
            "(Ascend-hdk-<chip>-npu-firmware_<version>.run --upgrade), then its driver "
            f"({npu.DRIVER_PACKAGE.replace('--full', '--upgrade')}), and reboot; or install "
            "the CANN release paired with this driver",
        )
    ]


def _loaded_findings(ctx: CheckContext, drv: str) -> list[Finding]:
    """The npu-smi header shows the loaded driver; version.info the installed one."""
    info = _smi(ctx)
    loaded = info.table.driver_version if info and info.table else None
    if loaded is None or loaded.lower() == drv.lower():
        return []
    return [
        Finding(
            Status.WARN,
            f"npu-smi reports driver {loaded} but {driver.DRIVER_INFO} says {drv}: the driver "
            "was upgraded without a reboot, or this container mounts another driver",
            f"reboot the node to load the installed driver; in a container, mount the host's "
            f"driver: {npu.DRIVER_MOUNT}",
        )
    ]


@check(
    "npu.driver",
    title="NPU driver and firmware",
    timeout=NPU_SMI_TIMEOUT,
    after=("npu.devices",),
    why="A firmware the driver does not accept, or a driver upgraded without a reboot, makes "
    "devices fail to start or behave differently from what version.info promises.",
    remedies=("reboot after a driver upgrade", "install the firmware the driver accepts"),
    settings={
        "min_version": Setting(
            str, None, "oldest acceptable driver, e.g. 24.1.rc1", capture="driver_version"
        ),
    },
)
def npu_driver(ctx: CheckContext) -> Result:
    """The driver's version.info is there, the firmware lies in its compatible_version_fw
    range, and the driver npu-smi reports is the one installed."""
    absent = _no_npu(ctx)
    if absent:
        return absent
    files = driver.read(ctx.probe)
    drv = files.driver_version
    if drv is None:
        return _missing_driver(ctx)
    fw, fw_source, compatibility = _firmware(ctx, files)
    findings = _minimum_findings(drv, ctx.settings.get("min_version"))
    findings += _firmware_findings(files, fw, compatibility)
    findings += _loaded_findings(ctx, drv)
    pairing = _cann_pairing(ctx)
    findings += _pairing_findings(drv, pairing)
    facts = {
        "driver_version": drv,
        "driver_innerversion": (files.driver or {}).get("innerversion"),
        "compatible_version_fw": [list(r) for r in files.fw_ranges],
        "firmware_version": fw,
        "firmware_source": fw_source or None,
        "hdk_paired": None
        if pairing is None
        else {"cann": pairing.cann, "drivers": list(pairing.drivers), "source": pairing.source},
    }
    checked = any(f.status is Status.PASS and "firmware" in f.message for f in findings)
    summary = f"driver {drv}, " + (
        f"firmware {fw} within the driver's range"
        if checked
        else f"firmware {fw or 'unknown'}: range not checked"
    )
    return combine(findings, summary, facts=facts)


# -- npu.device_nodes ----------------------------------------------------------------------------
def _node_findings(
    nodes: list[devnodes.Node], container: Optional[str], ids: list[int]
) -> list[Finding]:
    findings = []
    for node in nodes:
        problem = node.problem()
        if problem is None:
            continue
        if node.exists and node.is_char:
            remedy = (
                f"add the user to group {node.group} (`usermod -aG {node.group} $USER`, then "
                "log in again), or run the job as a member of that group"
            )
        else:
            remedy = npu.node_remedy(container, ids)
        findings.append(Finding(Status.FAIL, problem, remedy))
    return findings


def _count_findings(
    numbers: list[int], chips: Optional[list[Chip]], container: Optional[str], ids: list[int]
) -> list[Finding]:
    if chips is None:
        return [Finding(Status.SKIP, "npu-smi gave no device list to compare with")]
    if len(numbers) == len(chips):
        return [Finding(Status.PASS, f"{len(numbers)} /dev/davinciN nodes for {len(chips)} chips")]
    message = f"npu-smi lists {len(chips)} chips but /dev has {len(numbers)} davinciN nodes"
    if container and len(numbers) < len(chips):
        message += f": this container was given {len(numbers)} of them"
        return [Finding(Status.WARN, message, npu.node_remedy(container, ids))]
    return [Finding(Status.FAIL, message, npu.node_remedy(None, ids))]


def _visible_findings(
    env: dict[str, str], numbers: list[int], container: Optional[str]
) -> list[Finding]:
    findings = []
    physical = env.get("ASCEND_VISIBLE_DEVICES")
    if physical:
        wanted, _ = devnodes.parse_id_list(physical, ranges=True)
        missing = [i for i in wanted if i not in numbers]
        if missing:
            findings.append(
                Finding(
                    Status.FAIL,
                    f"ASCEND_VISIBLE_DEVICES={physical} names NPU "
                    f"{', '.join(map(str, missing))}, but no /dev/davinci node for it is here",
                    npu.node_remedy(container, wanted)
                    + " (or use the Ascend Docker Runtime: --runtime=ascend "
                    f"-e ASCEND_VISIBLE_DEVICES={physical})",
                )
            )
    logical = env.get("ASCEND_RT_VISIBLE_DEVICES")
    if logical:
        # Logical ids: the runtime numbers the devices it can see from 0.
        wanted, _ = devnodes.parse_id_list(logical)
        beyond = [i for i in wanted if i >= len(numbers)]
        if beyond:
            keep = ",".join(str(i) for i in wanted if i < len(numbers)) or "0"
            findings.append(
                Finding(
                    Status.FAIL,
                    f"ASCEND_RT_VISIBLE_DEVICES={logical} names device "
                    f"{', '.join(map(str, beyond))}, but only {len(numbers)} devices are here",
                    f"export ASCEND_RT_VISIBLE_DEVICES={keep}",
                )
            )
    return findings


@check(
    "npu.device_nodes",
    title="NPU device nodes",
    timeout=NPU_SMI_TIMEOUT,
    after=("npu.devices",),
    why="Without usable /dev/davinci*, davinci_manager, devmm_svm and hisi_hdc nodes, or "
    "without the driver mount, torch_npu cannot open a device even when npu-smi works.",
    remedies=("docker run --device=/dev/davinciN ... -v /usr/local/Ascend/driver:...:ro",),
)
def npu_device_nodes(ctx: CheckContext) -> Result:
    """/dev/davinciN and the management nodes exist, are character devices usable by this
    user, match npu-smi and the visible-device variables; a container has the driver mount."""
    absent = _no_npu(ctx)
    if absent:
        return absent
    if ctx.probe.offline and not getattr(ctx.probe, "records_nodes", False):
        return Result.skip("this bundle recorded no device nodes (an older ampenv collected it)")
    numbers = devnodes.davinci_numbers(ctx.probe)
    container = devnodes.container_hint(ctx.probe)
    info = _smi(ctx)
    chips = info.table.chips if info and info.table else None
    phy = [c.phy_id if c.phy_id is not None else c.npu for c in chips or []]
    ids = sorted({i for i in phy if i is not None}) or numbers or [0]
    # Live: who runs this; from a bundle: who ran the collector.
    who = devnodes.current_identity(ctx.probe) if ctx.probe.offline else devnodes.current_identity()
    paths = [f"/dev/davinci{n}" for n in numbers] or ["/dev/davinci0"]
    nodes = [devnodes.inspect(ctx.probe, p, who) for p in (*paths, *devnodes.SHARED_NODES)]
    findings = _node_findings(nodes, container, ids)
    findings += _count_findings(numbers, chips, container, ids)
    findings += _visible_findings(ctx.probe.env, numbers, container)
    mount = ctx.probe.stat_node(driver.DRIVER_DIR)
    if container and (mount is None or mount["type"] != "dir"):
        findings.append(
            Finding(
                Status.FAIL,
                f"this container ({container}) has no driver mount at {driver.DRIVER_DIR}",
                npu.node_remedy(container, ids),
            )
        )
    facts = {
        "davinci": numbers,
        "container": container,
        "docker_run_flags": devnodes.docker_run_flags(ids),
    }
    summary = f"{len(numbers)} /dev/davinciN and the management nodes are usable" + (
        f", driver mounted ({container})" if container else ""
    )
    return combine(findings, summary, facts=facts)
