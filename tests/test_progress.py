"""What ``fort-env train`` shows while it runs (``train/progress.py``) and where it writes."""

from __future__ import annotations

import io
import os
import re
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("stable_baselines3")  # the [train] extra

from train import progress
from train.progress import ProgressCallback, latest_run_dir, mark_latest, new_run_dir


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def drive(
    cb: ProgressCallback,
    clock: Clock,
    steps: list[tuple[float, int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Run the callback as SB3 would: (seconds later, model step count) per env step."""
    monkeypatch.setattr(progress.time, "perf_counter", clock)
    model = SimpleNamespace(num_timesteps=0)
    cb.model = model  # what init_callback sets
    cb.on_training_start({}, {})
    for dt, n in steps:
        clock.now += dt
        model.num_timesteps = n
        assert cb.on_step()
    cb.on_training_end()


def test_log_lines_every_interval_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    clock, out = Clock(), io.StringIO()  # a StringIO is not a terminal: no bar, log lines
    start = clock.now
    cb = ProgressCallback(500_000, 540.0, elapsed=lambda: clock.now - start, stream=out)
    assert not cb.use_bar
    drive(cb, clock, [(1.0, 1000 * (i + 1)) for i in range(60)], monkeypatch)  # 60 s of steps
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("training: budget 500,000 steps or 9 min, whichever comes first")
    periodic = [line for line in lines if line.startswith("training: ") and "of budget" in line]
    assert len(periodic) == 4  # at 15, 30, 45 and 60 s
    assert "steps 15,000/500,000, 0.2/9.0 min" in periodic[0]
    assert lines[-1].startswith("training done: 12% of budget, steps 60,000/500,000")


def test_the_budget_is_the_larger_share_of_steps_and_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick preset stops on time at about half its steps: the bar ends at 100%."""
    clock = Clock()
    start = clock.now
    cb = ProgressCallback(500_000, 540.0, elapsed=lambda: clock.now - start, stream=io.StringIO())
    drive(cb, clock, [(270.0, 135_000), (270.0, 270_000)], monkeypatch)
    assert cb.fraction() == 1.0
    steps_only = ProgressCallback(1000, None, elapsed=lambda: 1e6, stream=io.StringIO())
    steps_only.num_timesteps = 250
    assert steps_only.fraction() == 0.25  # no time budget: steps alone


def test_bar_on_a_terminal_counts_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    clock, out = Clock(), io.StringIO()
    start = clock.now
    cb = ProgressCallback(500_000, 60.0, elapsed=lambda: clock.now - start, stream=out, bar=True)
    drive(cb, clock, [(1.0, 100 * (i + 1)) for i in range(60)], monkeypatch)
    text = out.getvalue()
    assert "training (share of budget): 100%" in text
    assert "steps 6,000/500,000, 1.0/1.0 min" in text


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="total_timesteps must be positive"):
        ProgressCallback(0, None, elapsed=lambda: 0.0)
    with pytest.raises(ValueError, match="budget_seconds"):
        ProgressCallback(10, 0.0, elapsed=lambda: 0.0)


def test_run_dirs(tmp_path: Path) -> None:
    when = datetime(2026, 1, 2, 3, 4, 5)
    first = new_run_dir("quick", tmp_path, now=when)
    assert first == tmp_path / "quick" / "20260102-030405"
    (first / "checkpoints").mkdir(parents=True)
    second = new_run_dir("quick", tmp_path, now=when)  # same second: a suffix, not a collision
    assert second == tmp_path / "quick" / "20260102-030405-2"
    (second / "checkpoints").mkdir(parents=True)
    os.utime(first / "checkpoints", (1, 1))  # the older run
    assert latest_run_dir("quick", tmp_path) == second
    link = mark_latest(first)  # "latest" names a finished run, whichever it is
    assert link == tmp_path / "quick" / "latest" and link.resolve() == first.resolve()
    assert mark_latest(second).resolve() == second.resolve()  # replaced
    assert latest_run_dir("quick", tmp_path) == second  # the link is not a run of its own
    old = tmp_path / "quick-20250101-000000"  # the layout before runs/PRESET/
    (old / "checkpoints").mkdir(parents=True)
    assert latest_run_dir("quick", tmp_path) == old
    with pytest.raises(FileNotFoundError, match="no 'full' run"):
        latest_run_dir("full", tmp_path)


def test_repeating_the_command_makes_a_fresh_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out, each run writes its own runs/PRESET/YYYYmmdd-HHMMSS and runs/PRESET/latest
    names the newest; progress lines are printed although the output is not a terminal."""
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    monkeypatch.chdir(tmp_path)
    args = ["train", "--preset", "tiny", "--timesteps", "256"]
    folders = []
    for _ in range(2):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        m = re.search(r"run folder: (\S+)", result.output)
        assert m, result.output
        folders.append(Path(m.group(1)))
        assert "training done: 100% of budget" in result.output
    assert folders[0] != folders[1]
    for folder in folders:
        assert folder.parent == Path("runs") / "tiny"
        assert (tmp_path / folder / "model.safetensors").is_file()
    latest = tmp_path / "runs" / "tiny" / "latest"
    assert latest.resolve() == (tmp_path / folders[1]).resolve()
    assert (latest / "model.safetensors").is_file()
