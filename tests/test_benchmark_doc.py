"""docs/benchmark.md's worked example runs as printed (with fewer games): a user's own bot,
registered by name, measured against the shipped ``ppo`` and the heuristic, then rated in a
ladder with them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmark.md"


def test_the_worked_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    code = blocks[0].replace("GAMES = 200", "GAMES = 20")
    assert "GAMES = 20" in code
    exec(compile(code, str(DOC), "exec"), {"__name__": "benchmark_example"})
    out = capsys.readouterr().out
    assert re.search(r"vs ppo: 0\.\d{3} \[0\.\d\d, [01]\.\d\d\] in 20 games", out), out
    assert "vs heuristic:" in out
    for name in ("last-legal", "random", "heuristic", "ppo"):
        assert re.search(rf"^\s*{name}\s+mu \d", out, re.M), out


def test_a_plugin_package_adds_its_agents_to_every_process(tmp_path: Path) -> None:
    """The entry-point group ``fort_env.agents`` (docs/benchmark.md): a module named there is
    imported with ``agents`` and its registrations work in a fresh process; a broken plugin
    is a warning, not a broken zoo."""
    import os
    import subprocess
    import sys

    (tmp_path / "mybots.py").write_text(
        "import agents\n\n"
        "class First:\n"
        "    name = 'first-legal'\n"
        "    def act(self, observation, info):\n"
        "        return min(info['legal_actions'])\n\n"
        "agents.register('first-legal', lambda args: First())\n"
        "def last_legal(observation, info):\n"
        "    return max(info['legal_actions'])\n\n"
        "agents.register('last-fn', lambda args: last_legal)\n"
    )
    (tmp_path / "broken.py").write_text("raise RuntimeError('plugin bug')\n")
    info = tmp_path / "mybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fort_env.agents]\nmybots = mybots\nbroken = broken\n")
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import agents\n"
        "print([str(w.message) for w in caught])\n"
        "from agents.arena.tournament import run_tournament\n"
        "r = run_tournament(['first-legal', 'last-fn'], 2, 2, seed=1, workers=2, progress=False)\n"
        "print(sorted(r['agents']))\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "plugin 'broken'" in out.stdout and "plugin bug" in out.stdout
    assert "['first-legal', 'last-fn']" in out.stdout
