"""The cores this process may use, and OpenMP that sleeps instead of spinning.

Why (issue 41, measured on the 2-core machine): torch's intra-op pool is OpenMP, whose idle
threads spin-wait at every barrier. With other processes on the cores, the spinning threads
take CPU from the one they wait for, and a thread whose core is taken holds up the rest at each
of a network update's hundreds of parallel regions: beside two busy processes the quick preset
trained at 565 samples/s on two spinning threads, 1,681 on one thread and 2,384 on two passive
ones (docs/performance.md, "Threads on a busy machine"). On the quiet machine passive waiting
costs about 7% (3,888-3,914 against 4,193-4,443).

:func:`passive_openmp` sets ``OMP_WAIT_POLICY=PASSIVE`` unless the user chose a policy. GNU
OpenMP reads it once, when the library loads, so it must run before ``import torch``: the
``fort-env`` command line and ``train/__init__.py`` call it first thing.

:func:`usable_cores` is the count that thread defaults start from: the CPU affinity mask
(``taskset``, container cpusets) capped by the cgroup CPU quota (``docker --cpus``).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

__all__ = ["cgroup_cpu_limit", "passive_openmp", "usable_cores"]


def passive_openmp() -> bool:
    """Make OpenMP's idle threads sleep rather than spin (``OMP_WAIT_POLICY=PASSIVE``), unless
    the variable is already set or torch is already imported (too late to take effect).
    Returns whether it set the variable."""
    if "OMP_WAIT_POLICY" in os.environ or "torch" in sys.modules:
        return False
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


def cgroup_cpu_limit(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU quota of this process's cgroup in cores (quota / period), or ``None`` when there
    is none or it cannot be read. Reads cgroup v2's ``cpu.max`` (``"max 100000"`` or
    ``"200000 100000"``), else v1's ``cpu/cpu.cfs_quota_us`` and ``cpu.cfs_period_us``."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period_us = int((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota_us <= 0 or period_us <= 0 else quota_us / period_us


def usable_cores() -> int:
    """The cores this process may run on: the affinity mask's size, capped by the cgroup quota
    (rounded up), at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)
