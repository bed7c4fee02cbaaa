"""Golden playthroughs (OpenSpiel style): replay each configuration and diff it line by line.

The files in ``tests/golden/`` are written by ``scripts/regenerate_golden.py``; when a change
of the rules, the observation or the action names is intended, regenerate and commit them.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regenerate_golden", ROOT / "scripts" / "regenerate_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden = _load_script()


@pytest.mark.parametrize(("num_players", "setup"), golden.CONFIGS)
def test_playthrough_matches_golden_file(num_players: int, setup: str) -> None:
    path = golden.golden_path(num_players, setup)
    assert path.exists(), f"{path} is missing: run python scripts/regenerate_golden.py"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = golden.playthrough(num_players, setup).splitlines()
    if actual != expected:
        first = next(
            (i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e),
            min(len(actual), len(expected)),
        )
        diff = difflib.unified_diff(expected, actual, str(path), "replayed", n=2, lineterm="")
        excerpt = "\n".join(list(diff)[:40])
        pytest.fail(
            f"{path.name} differs from line {first + 1}; if the change is intended, run "
            f"python scripts/regenerate_golden.py\n{excerpt}"
        )


def test_every_golden_file_has_a_configuration() -> None:
    expected = {golden.golden_path(n, setup).name for n, setup in golden.CONFIGS}
    present = {p.name for p in golden.GOLDEN_DIR.glob("*.txt")}
    assert present == expected, f"stale or missing golden files: {present ^ expected}"
