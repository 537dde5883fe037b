"""npu-smi: where it is, what its tables say, and what its known error messages mean.

The ``npu-smi info`` table is read by its header's column names, never by fixed offsets:
each ``|``-separated cell of a header row holds one or more column names (separated by two or
more spaces), and the data rows below it carry one value per name. A record spans as many
data rows as the header has rows (two for the device table, one for the process table), so
910A/910B, A3 (two chips per NPU, ``Phy-ID``), 310B/310P (no HBM, ``Bus-Id NA``) and the wider
26.x layout (an extra process column) all come out of the same code, and an unseen column is
simply ignored. The parser never raises: what it cannot read is left out, and a table with no
device rows is reported as unparseable by the caller.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:
    from ampenv.probe import Probe
    from ampenv.probe.proc import CommandResult

TOOL = "npu-smi"

# Header column name (lower case, single-spaced) -> Chip field. A pair column fills two fields.
CHIP_COLUMNS: dict[str, Union[str, tuple[str, str]]] = {
    "npu": "npu",
    "npu id": "npu",  # 950 layout
    "name": "name",
    "health": "health",
    "power(w)": "power_w",
    "temp(c)": "temp_c",
    "chip": "chip",
    "chip id": "chip",
    "phy-id": "phy_id",  # A3
    "device": "phy_id",  # 310B/310P: the device id the /dev/davinciN node is numbered by
    "bus-id": "bus_id",
    "aicore(%)": "aicore_pct",
    "npu util(%)": "aicore_pct",  # 950 layout
    "memory-usage(mb)": ("memory_used_mb", "memory_total_mb"),
    "hbm-usage(mb)": ("hbm_used_mb", "hbm_total_mb"),
}
PROCESS_COLUMNS: dict[str, Union[str, tuple[str, str]]] = {
    "npu": "npu",
    "npu id": "npu",
    "chip": "chip",
    "chip id": "chip",
    "process id": "pid",
    "process name": "name",
    "process memory(mb)": "memory_mb",
    "process id in container": "container_pid",  # 26.x
}
INT_FIELDS = {"npu", "chip", "phy_id", "pid", "memory_mb", "container_pid"}
NUMBER_FIELDS = {"power_w", "temp_c", "aicore_pct"}
ABSENT = {"", "NA", "N/A", "-", "--"}

# Patterns, not compiled ones: re compiles (and caches) each where it is first used, and most
# runs never parse npu-smi output (no NPU), so loading the checks does not pay for them.
_VERSION = r"npu-smi\s+(\S+)\s+Version:\s*(\S+)"
_PAIR = r"(?a)(\d+)\s*/\s*(\d+)"
_INT = r"(?a)\d+"
_NUMBER = r"(?a)-?\d+(?:\.\d+)?"
_VALUE = r"\d+\s*/\s*\d+|\S+"
_NAME = r"\S+(?: \S+)*"  # column names are separated by two or more spaces


@dataclass
class Chip:
    """One chip (one device) of the table; None where the layout has no such column."""

    npu: Optional[int] = None
    chip: Optional[int] = None
    phy_id: Optional[int] = None
    name: Optional[str] = None
    health: Optional[str] = None
    bus_id: Optional[str] = None
    power_w: Optional[float] = None
    temp_c: Optional[float] = None
    aicore_pct: Optional[float] = None
    memory_used_mb: Optional[int] = None
    memory_total_mb: Optional[int] = None
    hbm_used_mb: Optional[int] = None
    hbm_total_mb: Optional[int] = None

    @property
    def label(self) -> str:
        return f"NPU {self.npu} chip {self.chip}"

    def to_fact(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Holder:
    """A process that holds NPU memory, as the process table lists it."""

    npu: Optional[int] = None
    chip: Optional[int] = None
    pid: Optional[int] = None
    name: Optional[str] = None
    memory_mb: Optional[int] = None
    container_pid: Optional[int] = None  # 26.x only; not part of the report's facts

    def to_fact(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("npu", "chip", "pid", "name", "memory_mb")}


@dataclass
class SmiTable:
    tool_version: Optional[str] = None
    driver_version: Optional[str] = None
    chips: list[Chip] = field(default_factory=list)
    processes: list[Holder] = field(default_factory=list)


# -- the `npu-smi info` table -------------------------------------------------------------------
@dataclass
class _Cell:
    text: str
    start: int  # column of the cell's first character in its line


def _cells(line: str) -> list[_Cell]:
    stripped = line.rstrip()
    if stripped.endswith("|"):
        stripped = stripped[:-1]
    cells, pos = [], line.index("|") + 1
    for part in stripped[pos:].split("|"):
        cells.append(_Cell(part, pos))
        pos += len(part) + 1
    return cells


def _header_names(cells: list[_Cell]) -> list[list[tuple[int, str]]]:
    return [
        [(m.start(), m.group().lower()) for m in re.finditer(_NAME, cell.text.replace("\t", "  "))]
        for cell in cells
    ]


def _assign(names: list[tuple[int, str]], cell: _Cell) -> dict[str, str]:
    """Values of one data cell, keyed by the header names of the same cell."""
    if not names:  # a header cell blanked out (mangled output): nothing to name its values by
        return {}
    if len(names) == 1:
        return {names[0][1]: cell.text.strip()}
    values = [(m.start(), m.group()) for m in re.finditer(_VALUE, cell.text)]
    if len(values) == len(names):
        return {name: value for (_, name), (_, value) in zip(names, values)}
    # A value is missing or split: give each one to the name whose column it starts nearest.
    out: dict[str, str] = {}
    for start, value in values:
        _, name = min(names, key=lambda n: abs(n[0] - start))
        out[name] = f"{out[name]} {value}" if name in out else value
    return out


def _convert(field_name: str, raw: str) -> Any:
    if raw.strip() in ABSENT:
        return None
    if field_name in INT_FIELDS:
        return int(raw) if re.fullmatch(_INT, raw) else None
    if field_name in NUMBER_FIELDS:
        if not re.fullmatch(_NUMBER, raw):
            return None
        return float(raw) if "." in raw else int(raw)
    return raw.strip()


def _record(
    header: list[list[list[tuple[int, str]]]], rows: list[list[_Cell]], columns: dict
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for names_by_cell, cells in zip(header, rows):
        for names, cell in zip(names_by_cell, cells):
            for name, raw in _assign(names, cell).items():
                target = columns.get(name)
                if isinstance(target, tuple):
                    pair = re.fullmatch(_PAIR, raw.strip())
                    if pair:
                        out[target[0]], out[target[1]] = int(pair.group(1)), int(pair.group(2))
                elif target and target not in out:
                    out[target] = _convert(target, raw)
    return out


def _kind(header: list[list[list[tuple[int, str]]]]) -> Optional[str]:
    names = {name for row in header for cell in row for _, name in cell}
    if "process id" in names:
        return "process"
    if "health" in names or "name" in names:
        return "chip"
    return None


def parse_info(text: str) -> SmiTable:
    """Parse the output of ``npu-smi info``. Never raises."""
    table = SmiTable()
    header: list[list[list[tuple[int, str]]]] = []
    pending: list[list[_Cell]] = []
    last = "sep"
    for line in text.splitlines():
        head = line.strip()[:1]
        if head == "+":  # a separator: no record spans one
            pending, last = [], "sep"
            continue
        if head != "|":
            continue
        version = re.search(_VERSION, line)
        if version:
            table.tool_version, table.driver_version = version.groups()
            continue
        cells = _cells(line)
        first = cells[0].text.strip() if cells else ""
        if not first or first.lower().startswith("no running processes"):
            pending, last = [], "other"
            continue
        if first[0].isalpha():  # a header row: data rows start with an id
            header = [*header, _header_names(cells)] if last == "header" else [_header_names(cells)]
            pending, last = [], "header"
            continue
        last = "data"
        if not header:
            continue
        pending.append(cells)
        if len(pending) < len(header):
            continue
        kind = _kind(header)
        if kind == "chip":
            table.chips.append(Chip(**_record(header, pending, CHIP_COLUMNS)))
        elif kind == "process":
            table.processes.append(Holder(**_record(header, pending, PROCESS_COLUMNS)))
        pending = []
    return table


# -- `npu-smi info -t <type>` key : value pages --------------------------------------------------
def parse_fields(text: str) -> dict[str, str]:
    """``Key : value`` lines (board, health, usages, ...); the first occurrence of a key wins."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            fields.setdefault(key.strip(), value.strip())
    return fields


@dataclass
class HealthDetail:
    status: Optional[str]
    error_code: Optional[str]
    error_info: Optional[str]


def parse_health(text: str) -> Optional[HealthDetail]:
    """``npu-smi info -t health -i N -c C``: status, error code and text (None when NA)."""
    fields = parse_fields(text)
    status = fields.get("Health Status") or fields.get("Health")
    if status is None:
        return None

    def present(key: str) -> Optional[str]:
        value = fields.get(key)
        return None if value is None or value in ABSENT else value

    return HealthDetail(status, present("Error Code"), present("Error Information"))


def first_lines(text: str, count: int = 8) -> list[str]:
    """The first non-blank lines of raw output, for a report's details."""
    return [line.rstrip() for line in text.splitlines() if line.strip()][:count]


# -- running it, once ----------------------------------------------------------------------------
@dataclass
class SmiInfo:
    """``npu-smi info``: how the command went, and the table when it could be read."""

    result: CommandResult
    table: Optional[SmiTable]

    @property
    def output(self) -> str:
        return self.result.stdout + self.result.stderr


def locate(probe: Probe) -> Optional[str]:
    """npu-smi on PATH, then in /usr/local/bin, /usr/local/sbin (below the sysroot)."""
    return probe.which(TOOL)


def info(probe: Probe, tool: str, timeout: float) -> SmiInfo:
    """Run and parse ``npu-smi info`` once per invocation (the first caller's timeout holds)."""

    def collect() -> SmiInfo:
        result = probe.run([tool, "info"], timeout)
        table = parse_info(result.stdout) if result.ok else None
        return SmiInfo(result, table if table and table.chips else None)

    return probe.fact(("npu-smi", "info"), collect)


def health(
    probe: Probe, tool: str, npu: int, chip: int, timeout: float
) -> tuple[CommandResult, Optional[HealthDetail]]:
    """``npu-smi info -t health -i NPU -c CHIP``, run once."""
    result = probe.run([tool, "info", "-t", "health", "-i", str(npu), "-c", str(chip)], timeout)
    return result, parse_health(result.stdout) if result.ok else None


def board(probe: Probe, tool: str, npu: int, timeout: float) -> Optional[dict[str, str]]:
    """``npu-smi info -t board -i NPU`` as fields (Software/Firmware Version, Compatibility)."""
    result = probe.run([tool, "info", "-t", "board", "-i", str(npu)], timeout)
    return parse_fields(result.stdout) if result.ok else None
