"""The torch_npu <-> torch <-> CANN release table, as data, in this one place.

Rows from ../shared/reference/ascend-facts.md section 3 (Ascend/pytorch README and hiascend
release notes). Where the sources disagree the newer README wins; the 9.x rows move. Update
this table, not the code, when a release appears.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Optional

from packaging.version import InvalidVersion, Version

TABLE = """\
cann,torch,torch_npu,branch
9.0.0,2.10.0,2.10.0,v2.10.0-26.0.0
9.0.0,2.9.0,2.9.0.post2,v2.9.0-26.0.0
9.0.0,2.8.0,2.8.0.post4,v2.8.0-26.0.0
9.0.0,2.7.1,2.7.1.post4,v2.7.1-26.0.0
8.5.0,2.9.0,2.9.0,v2.9.0-7.3.0
8.5.0,2.8.0,2.8.0.post2,v2.8.0-7.3.0
8.5.0,2.7.1,2.7.1.post2,v2.7.1-7.3.0
8.5.0,2.6.0,2.6.0.post5,v2.6.0-7.3.0
8.3.RC1,2.8.0,2.8.0,v2.8.0-7.2.0
8.3.RC1,2.7.1,2.7.1,v2.7.1-7.2.0
8.3.RC1,2.6.0,2.6.0.post3,v2.6.0-7.2.0
8.3.RC1,2.1.0,2.1.0.post17,v2.1.0-7.2.0
8.2.RC1,2.6.0,2.6.0,v2.6.0-7.1.0
8.2.RC1,2.5.1,2.5.1.post1,v2.5.1-7.1.0
8.2.RC1,2.1.0,2.1.0.post13,v2.1.0-7.1.0
8.1.RC1,2.5.1,2.5.1,v2.5.1-7.0.0
8.1.RC1,2.4.0,2.4.0.post4,v2.4.0-7.0.0
8.1.RC1,2.3.1,2.3.1.post6,v2.3.1-7.0.0
8.1.RC1,2.1.0,2.1.0.post12,v2.1.0-7.0.0
8.0.0,2.4.0,2.4.0.post2,v2.4.0-6.0.0
8.0.0,2.3.1,2.3.1.post4,v2.3.1-6.0.0
8.0.0,2.1.0,2.1.0.post10,v2.1.0-6.0.0
8.0.RC3,2.4.0,2.4.0,v2.4.0-6.0.rc3
8.0.RC3,2.3.1,2.3.1.post2,v2.3.1-6.0.rc3
8.0.RC3,2.1.0,2.1.0.post8,v2.1.0-6.0.rc3
8.0.RC2,2.3.1,2.3.1,v2.3.1-6.0.rc2
8.0.RC2,2.2.0,2.2.0.post2,v2.2.0-6.0.rc2
8.0.RC2,2.1.0,2.1.0.post6,v2.1.0-6.0.rc2
8.0.RC2,1.11.0,1.11.0.post14,v1.11.0-6.0.rc2
8.0.RC1,2.2.0,2.2.0,v2.2.0-6.0.rc1
8.0.RC1,2.1.0,2.1.0.post4,v2.1.0-6.0.rc1
8.0.RC1,1.11.0,1.11.0.post11,v1.11.0-6.0.rc1
7.0.0,2.1.0,2.1.0,v2.1.0-5.0.0
7.0.0,2.0.1,2.0.1.post1,v2.0.1-5.0.0
7.0.0,1.11.0,1.11.0.post8,v1.11.0-5.0.0
7.0.RC1,2.1.0,2.1.0.rc1,v2.1.0-5.0.rc3
7.0.RC1,2.0.1,2.0.1,v2.0.1-5.0.rc3
7.0.RC1,1.11.0,1.11.0.post4,v1.11.0-5.0.rc3
6.3.RC3.1,1.11.0,1.11.0.post3,v1.11.0-5.0.rc2.2
6.3.RC3,1.11.0,1.11.0.post2,v1.11.0-5.0.rc2.1
6.3.RC2,2.0.1,2.0.1.rc1,v2.0.1-5.0.rc2
6.3.RC2,1.11.0,1.11.0.post1,v1.11.0-5.0.rc2
6.3.RC2,1.8.1,1.8.1.post2,v1.8.1-5.0.rc2
6.3.RC1,1.11.0,1.11.0,v1.11.0-5.0.rc1
6.3.RC1,1.8.1,1.8.1.post1,v1.8.1-5.0.rc1
6.0.1,1.5.0,1.5.0.post8,v1.5.0-3.0.0
6.0.1,1.8.1,1.8.1,v1.8.1-3.0.0
6.0.1,1.11.0,1.11.0.rc2,v1.11.0-3.0.0
"""


@dataclass(frozen=True)
class Release:
    cann: str
    torch: str
    torch_npu: str
    branch: str


RELEASES: tuple[Release, ...] = tuple(Release(**row) for row in csv.DictReader(io.StringIO(TABLE)))


def release_key(version: str) -> Optional[tuple]:
    """A torch_npu version without what the table does not list: the local label
    (``+gitd7a85f8``) and a dev suffix (``2.5.1.dev20250218`` is a build of 2.5.1)."""
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    return (v.release, v.pre, v.post)


def same_cann(a: str, b: str) -> bool:
    """CANN versions compare case-insensitively: ``8.0.RC1`` and ``8.0.rc1`` are one release."""
    return a.strip().lower() == b.strip().lower()


def cann_for(torch_npu: str) -> list[str]:
    """The CANN releases this torch_npu build is listed for (empty: not in the table)."""
    key = release_key(torch_npu)
    if key is None:
        return []
    return [r.cann for r in RELEASES if release_key(r.torch_npu) == key]


def torch_npu_for(torch: str, cann: Optional[str] = None) -> Optional[str]:
    """The torch_npu release listed for this torch (and this CANN, when given), newest CANN
    first; None when the table has no such row."""
    try:
        release = Version(torch).release
    except InvalidVersion:
        return None
    for r in RELEASES:
        if Version(r.torch).release == release and (cann is None or same_cann(r.cann, cann)):
            return r.torch_npu
    return None
