"""Write ampenv's table of GE's status numbers (ampenv/knowledge/failures/ge_status_codes.json).

GE (the graph engine: ATC, torchair, the TensorFlow and MindSpore adapters) returns a 32-bit
status built from fields: runtime (host) << 30 | type (error) << 28 | level << 25 | system id
(GE: 8) << 17 | module << 12 | value, so its errors read 1343225856 (0x50100000) and up. Its
headers name each one and say what it means (GE_ERRORNO_GRAPH(GE_GRAPH_INFERSHAPE_FAILED, 30,
"Prepare Graph infershape failed")). The table keeps the name and the words of every status a
header gives a value, the first header given winning; the headers' own labels are its sources.

    git -C GE show COMMIT:inc/graph_metadef/common/ge_common/ge_inner_error_codes.h > new.h
    git -C GRAPHENGINE show COMMIT:910b/inc/framework/common/ge_inner_error_codes.h > old.h
    python tools/ge_status_import.py new.h "hicann/ge ...@COMMIT" old.h "mindspore-ai/... @C"
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ampenv.util import atomic

OUT = Path(__file__).resolve().parent.parent / "ampenv/knowledge/failures/ge_status_codes.json"
# ge_inner_error_codes.h's SubModuleId, and the fields every one of these macros fixes
MODULES = {
    "COMMON": 0,
    "CLIENT": 1,
    "INIT": 2,
    "SESSION": 3,
    "GRAPH": 4,
    "ENGINE": 5,
    "OPS": 6,
    "PLUGIN": 7,
    "RUNTIME": 8,
    "EXECUTOR": 9,
    "GENERATOR": 10,
}
BASE = (0b01 << 30) | (0b01 << 28) | (8 << 17)  # RT_HOST, ERROR_CODE, COMMON_LEVEL, SYSID_GE
MACRO = re.compile(
    r'GE_ERRORNO_(?P<module>[A-Z]+)\(\s*(?P<name>\w+)\s*,\s*(?P<value>\d+)\s*,\s*"(?P<desc>[^"]*)"'
)


def statuses(header: str) -> dict[str, list[str]]:
    """Each status the header gives a value: its number (as text) -> [name, module, words]."""
    found: dict[str, list[str]] = {}
    for m in MACRO.finditer(header):
        module = m.group("module")
        if module not in MODULES:
            continue
        code = BASE | (MODULES[module] << 12) | (int(m.group("value")) & 0x0FFF)
        found.setdefault(str(code), [m.group("name"), module.lower(), m.group("desc").strip()])
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    codes: dict[str, list[str]] = {}
    sources = []
    for path, label in zip(argv[::2], argv[1::2]):
        found = statuses(Path(path).read_text(encoding="utf-8"))
        if not found:
            print(f"{path}: no GE_ERRORNO_<module>(name, value, text) in it", file=sys.stderr)
            return 1
        for code, row in found.items():
            codes.setdefault(code, row)
        sources.append(label)
    table = {"sources": sources, "codes": dict(sorted(codes.items(), key=lambda kv: int(kv[0])))}
    atomic.write_text(OUT, json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(codes)} statuses -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
