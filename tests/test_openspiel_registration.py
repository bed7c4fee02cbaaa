"""``import fort_env`` registers ``"python_fort"`` with OpenSpiel whenever pyspiel is imported,
before or after it, without importing pyspiel itself (``fort_env/envs/openspiel_hook.py``).
Each case runs in a fresh interpreter: the test process may have imported pyspiel already."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if importlib.util.find_spec("pyspiel") is None:  # pragma: no cover
    pytest.skip("needs the openspiel extra", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent


def run(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter from the repository's root; RuntimeWarnings are errors."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_pyspiel_imported_after_fort_env_finds_the_game() -> None:
    """``import fort_env`` imports no pyspiel; a later ``import pyspiel`` (even after a mere
    ``find_spec`` looked for it) knows ``python_fort``."""
    run("""
        import importlib.util, sys
        import fort_env
        assert "pyspiel" not in sys.modules, "import fort_env imported pyspiel"
        assert "fort_env.envs.openspiel" not in sys.modules
        assert importlib.util.find_spec("pyspiel") is not None
        assert "pyspiel" not in sys.modules
        import pyspiel
        game = pyspiel.load_game("python_fort", {"players": 3})
        assert game.num_players() == 3
        assert type(pyspiel.__loader__).__name__ == "ExtensionFileLoader"  # its own loader
        assert not [f for f in sys.meta_path if type(f).__name__ == "_PyspielFinder"]
    """)


def test_pyspiel_imported_before_fort_env_finds_the_game() -> None:
    run("""
        import pyspiel
        import fort_env
        assert pyspiel.load_game("python_fort").num_players() == 2
    """)


def test_through_open_spiel_python_too() -> None:
    run("""
        import fort_env
        from open_spiel.python.algorithms import random_agent  # imports pyspiel itself
        import pyspiel
        assert pyspiel.load_game("python_fort").num_players() == 2
    """)


def test_a_registration_that_fails_warns_and_pyspiel_still_imports() -> None:
    proc = run("""
        import sys, warnings
        import fort_env
        sys.modules["fort_env.envs.openspiel"] = None  # the game module cannot be imported
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import pyspiel
        [warning] = caught
        assert warning.category is RuntimeWarning
        print(warning.message)
        assert "python_fort" not in pyspiel.registered_names()
    """)
    assert "could not register 'python_fort' with OpenSpiel" in proc.stdout
    assert "import fort_env.envs.openspiel to see the whole error" in proc.stdout
