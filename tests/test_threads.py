"""Threads that fit the machine (issue 41): the usable cores, passive OpenMP, the thread tuner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fort_env.tools.cpu import cgroup_cpu_limit, usable_cores
from train.threads import ThreadTuner


def test_cgroup_v2_quota(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpu_limit(tmp_path) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_limit(tmp_path) is None


def test_cgroup_v1_quota(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert cgroup_cpu_limit(tmp_path) == 0.5
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    assert cgroup_cpu_limit(tmp_path) is None


def test_no_cgroup_files(tmp_path: Path) -> None:
    assert cgroup_cpu_limit(tmp_path) is None


def test_usable_cores_follows_the_affinity_mask() -> None:
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    code = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); " + (
        "from fort_env.tools.cpu import usable_cores; print(usable_cores())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)


def test_passive_openmp_is_set_before_torch_and_respects_the_user() -> None:
    code = (
        "import os, sys; import train; "
        "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["PASSIVE", "False"]
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split()[0] == "ACTIVE"
    # torch already loaded: too late to take effect, so nothing is set
    code = (
        "import torch, os; from fort_env.tools.cpu import passive_openmp; print(passive_openmp())"
    )
    env.pop("OMP_WAIT_POLICY")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "False"


class _Clock:
    """Iterations whose rate depends on the thread count: ``rates[threads]`` samples/s."""

    def __init__(self, rates: dict[int, float]) -> None:
        self.rates = rates
        self.threads: list[int] = []

    def set(self, n: int) -> None:
        self.threads.append(n)

    def run(self, tuner: ThreadTuner, iterations: int) -> None:
        for _ in range(iterations):
            tuner.record(1000, 1000 / self.rates[tuner.current])


def test_tuner_keeps_the_faster_count_and_rechecks() -> None:
    clock = _Clock({1: 2000.0, 2: 1000.0})  # a busy machine: one thread is faster
    lines: list[str] = []
    tuner = ThreadTuner((1, 2), clock.set, recheck=5, log=lines.append)
    clock.run(tuner, 3)  # warm-up (2), trial of 1, trial of 2
    assert tuner.best == 1 and tuner.current == 1
    assert lines and "torch threads: 1" in lines[0]
    clock.rates = {1: 1000.0, 2: 3000.0}  # the machine became quiet
    clock.run(tuner, 5 + 2 + 6)  # the recheck finds 2 faster (median of the last three)
    assert tuner.best == 2
    assert [c["threads"] for c in tuner.choices][:1] == [1]
    assert tuner.choices[-1]["threads"] == 2
    assert set(clock.threads) == {1, 2}


def test_tuner_with_one_candidate_never_changes() -> None:
    clock = _Clock({3: 100.0})
    tuner = ThreadTuner((3,), clock.set)
    clock.run(tuner, 10)
    assert clock.threads == [3] and tuner.choices == []
