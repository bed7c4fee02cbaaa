"""cpp/include/fort/constants.h is what scripts/gen_constants.py writes from the Python source
now, so the C++ core and the Python engine cannot disagree on a shared code."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_constants.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_constants", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_header_matches_the_python_source() -> None:
    gen = _generator()
    committed = gen.HEADER.read_text(encoding="utf-8")
    assert committed == gen.render(), "stale: run python scripts/gen_constants.py"


def test_header_names_the_shared_codes() -> None:
    from fort_env.game.constants import DECK, PARK_DECK
    from fort_env.game.decisions import DecisionKind
    from fort_env.game.fields import C_SHUFFLES, P_TURNS
    from fort_env.game.stages import ST_OVER

    text = _generator().render()
    assert f"Z_PARK_DECK = {PARK_DECK};" in text and f"Z_DECK = {DECK};" in text
    assert f"C_SHUFFLES = {C_SHUFFLES};" in text and f"P_TURNS = {P_TURNS};" in text
    assert f"K_TERMINAL = {int(DecisionKind.TERMINAL)};" in text
    assert f"ST_OVER = {ST_OVER};" in text


def test_check_mode_fails_on_a_stale_header(tmp_path: Path, monkeypatch) -> None:
    gen = _generator()
    stale = tmp_path / "constants.h"
    stale.write_text(gen.render().replace("Z_DECK = 3;", "Z_DECK = 4;"), encoding="utf-8")
    monkeypatch.setattr(gen, "HEADER", stale)
    monkeypatch.setattr(sys, "argv", ["gen_constants.py", "--check"])
    assert gen.main() == 1
    stale.write_text(gen.render(), encoding="utf-8")
    assert gen.main() == 0


def test_script_runs_as_a_command() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
