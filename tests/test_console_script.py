"""The shipped console script ``fort-env`` (``[project.scripts]``), run as a user runs it: a
subprocess of the installed entry point, with tiny settings. ``train`` is marked slow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("fort-env")


def fort_env_cli(*args: str, stdin: str = "", timeout: float = 240, cwd: Path | None = None):
    if not SCRIPT.is_file():
        found = shutil.which("fort-env")
        assert found, "the fort-env console script is not installed (pip install -e .)"
        script = found
    else:
        script = str(SCRIPT)
    env = {**os.environ, "COLUMNS": "120", "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [script, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
        env=env, cwd=cwd,
    )  # fmt: skip


def test_play_a_whole_game_and_quit() -> None:
    proc = fort_env_cli("play", "--seed", "3", "--opponents", "random", stdin="0\n" * 3000)
    assert proc.returncode == 0, proc.stderr
    assert "Winner" in proc.stdout and "total" in proc.stdout
    assert "Your choice" in proc.stdout
    quit_ = fort_env_cli("play", "--seed", "3", "--opponents", "random", stdin="q\n")
    assert quit_.returncode == 0, quit_.stderr
    assert "Winner" not in quit_.stdout
    bad = fort_env_cli("play", "--num-players", "5")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr


def test_analyze_json(tmp_path: Path) -> None:
    proc = fort_env_cli(
        "analyze", "--games", "3", "--num-players", "2", "--json", "--out", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["games"] == 3 and set(report["by_players"]) == {"2"}
    shares = report["by_players"]["2"]["end_trigger_shares"]
    assert set(shares) == {"score_25", "fort_level_5", "park_deck_empty"}
    assert any(tmp_path.glob("*.png"))


def test_bench_json() -> None:
    proc = fort_env_cli("bench", "--json", "--seconds", "0.05", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert isinstance(figures, dict) and figures
    numbers = [v for v in figures.values() if isinstance(v, int | float)]
    assert numbers and all(v >= 0 for v in numbers)


@pytest.mark.slow
def test_train_tiny_and_refuse_to_overwrite(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    args = ("train", "--preset", "tiny", "--out", str(out), "--timesteps", "256", "--no-progress")
    proc = fort_env_cli(*args, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "vs random" in proc.stdout
    for name in (
        "model.safetensors",
        "model.json",
        "config.json",
        "eval.json",
        "learning_curve.png",
    ):
        assert (out / name).is_file(), name
    assert json.loads((out / "config.json").read_text())["total_timesteps"] == 256
    again = fort_env_cli(*args, timeout=120)
    assert again.returncode == 1 and "--resume" in again.stdout + again.stderr
