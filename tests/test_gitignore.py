"""``.gitignore`` covers what the README's commands write when run from the repository's root
(a fresh clone followed the README and was left with ``games/``, ``game.json`` and
``analysis/`` untracked), and nothing of the sources."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

WRITTEN = [
    "game.json",  # fort-env play --save game.json
    "game.html",  # fort-env replay game.json --html game.html
    "games/game-0000.json",  # fort-env tournament ... --save games
    "analysis/balance.png",  # fort-env analyze [balance] (--out analysis by default)
    "balance.json",  # docs/cards.md: fort-env analyze balance --json > balance.json
    "fort_ppo.safetensors",  # docs/integrations.md SB3 recipe: save_policy(model, "fort_ppo")
    "fort_ppo.json",
    "out/quickstart.ipynb",  # jupyter nbconvert ... --output-dir out
    "runs/quick/latest/model.safetensors",  # fort-env train
]
SOURCES = ["agents/analysis/balance.py", "README.md", "tests/test_gitignore.py"]


def ignored(paths: list[str]) -> set[str]:
    """The paths git would ignore (``git check-ignore --no-index``: tracked or not)."""
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(paths),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return set(proc.stdout.split())


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
def test_the_readmes_outputs_are_ignored_and_the_sources_are_not() -> None:
    assert ignored(WRITTEN) == set(WRITTEN)
    assert ignored(SOURCES) == set()
