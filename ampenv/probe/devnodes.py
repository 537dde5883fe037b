"""Ascend device nodes, container hints, visible-device variables, and the docker flags that
give a container what an NPU job needs (reusable by docs and deploy examples).
"""

from __future__ import annotations

import grp
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

if TYPE_CHECKING:
    from ampenv.probe import Probe

# Management nodes every NPU container needs besides its /dev/davinciN (MindCluster docs).
SHARED_NODES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")
# Read-only host mounts: the driver, DCMI and npu-smi, and the install record.
DRIVER_MOUNTS = (
    "/usr/local/Ascend/driver",
    "/usr/local/dcmi",
    "/usr/local/bin/npu-smi",
    "/etc/ascend_install.info",
)
CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")
_CGROUP_HINT = re.compile(r"docker|kubepods|containerd|libpod|crio|lxc")
_DAVINCI = re.compile(r"/dev/davinci([0-9]+)$")


def docker_run_flags(devices: Union[int, Iterable[int]]) -> list[str]:
    """The ``docker run`` arguments that give a container NPUs: ``devices`` is a count
    (NPUs 0..n-1) or the /dev/davinciN numbers. Mounts are read-only."""
    ids = range(devices) if isinstance(devices, int) else sorted(set(devices))
    flags = [f"--device=/dev/davinci{i}" for i in ids]
    flags += [f"--device={node}" for node in SHARED_NODES]
    for path in DRIVER_MOUNTS:
        flags += ["-v", f"{path}:{path}:ro"]
    return flags


def container_hint(probe: Probe) -> Optional[str]:
    """Why we think this runs in a container (a marker file or the cgroup of PID 1), or None.
    Markers are read, not stat'ed, so a support bundle records and replays them."""
    for marker in CONTAINER_MARKERS:
        if probe.read_text(marker) is not None:
            return marker
    cgroup = probe.read_text("/proc/1/cgroup") or ""
    m = _CGROUP_HINT.search(cgroup)
    return f"/proc/1/cgroup mentions {m.group()}" if m else None


def davinci_numbers(probe: Probe) -> list[int]:
    """The N of every /dev/davinciN (not davinci_manager), sorted."""
    found = (_DAVINCI.search(p) for p in probe.glob("/dev/davinci[0-9]*"))
    return sorted(int(m.group(1)) for m in found if m)


@dataclass
class Identity:
    uid: int
    groups: frozenset[int]


def current_identity(probe: Optional[Probe] = None) -> Identity:
    """Who opens the device nodes: the effective uid and every group we are in (from a
    bundle: the collector's)."""
    if probe is None:
        return Identity(os.geteuid(), frozenset({os.getegid(), *os.getgroups()}))
    who = probe.identity()
    return Identity(int(who["uid"]), frozenset(int(g) for g in who["groups"]))


def permits(mode: int, owner: int, group: int, who: Identity) -> bool:
    """Read and write access by the classic owner/group/other bits (root may do anything)."""
    if who.uid == 0:
        return True
    if who.uid == owner:
        bits = stat.S_IRUSR | stat.S_IWUSR
    elif group in who.groups:
        bits = stat.S_IRGRP | stat.S_IWGRP
    else:
        bits = stat.S_IROTH | stat.S_IWOTH
    return mode & bits == bits


@dataclass
class Node:
    path: str
    exists: bool
    is_char: bool = False
    usable: bool = False
    mode: str = ""
    owner: Optional[int] = None
    group: str = ""

    def problem(self) -> Optional[str]:
        if not self.exists:
            return f"{self.path} is missing"
        if not self.is_char:
            return f"{self.path} is not a character device ({self.mode})"
        if not self.usable:
            return (
                f"{self.path} is not readable and writable by this user "
                f"({self.mode} {self.owner}:{self.group})"
            )
        return None


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def inspect(probe: Probe, path: str, who: Identity) -> Node:
    """Existence, type and access of one device node below the sysroot (symlinks followed,
    as the kernel does when a program opens the node), through the probe: a bundle replays
    what the live node had."""
    st = probe.stat_node(path)
    if st is None:
        return Node(path, exists=False)
    type_bits = {"char": stat.S_IFCHR, "block": stat.S_IFBLK, "dir": stat.S_IFDIR,
                 "file": stat.S_IFREG, "fifo": stat.S_IFIFO, "socket": stat.S_IFSOCK}  # fmt: skip
    mode = type_bits.get(st["type"], 0) | int(st["mode"])
    return Node(
        path,
        exists=True,
        is_char=st["type"] == "char",
        usable=permits(mode, int(st["uid"]), int(st["gid"]), who),
        mode=stat.filemode(mode),
        owner=int(st["uid"]),
        group=str(st["group"]),
    )


def parse_id_list(value: str, ranges: bool = False) -> tuple[list[int], str]:
    """``0,1,2`` (or ``0-3`` where ``ranges``, as ASCEND_VISIBLE_DEVICES allows) -> ids, plus
    what could not be read. Like the runtime, reading stops at the first item it cannot read."""
    ids: list[int] = []
    items = value.split(",") if value.strip() else []
    pattern = r"([0-9]+)(?:-([0-9]+))?" if ranges else r"([0-9]+)()"
    for index, item in enumerate(items):
        m = re.fullmatch(pattern, item, re.A)
        if not m:
            return ids, ",".join(items[index:])
        low = int(m.group(1))
        high = int(m.group(2)) if m.group(2) else low
        ids.extend(range(low, high + 1))
    return ids, ""
