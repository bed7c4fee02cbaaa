"""cpp/include/fort/constants.h and every other file scripts/gen_constants.py writes (fields.py,
the verb table's codes.py, C++ dispatch and docs tables) are what it writes from the Python source
now, so the C++ core and the Python engine cannot disagree on a shared code or a dispatch row."""

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


def test_every_generated_file_is_up_to_date(tmp_path: Path) -> None:
    """Regenerated into a temporary folder, each file equals the committed one."""
    gen = _generator()
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(ROOT) for p in gen.outputs())
    assert len(written) == 7  # constants.h, fields.py, codes.py, dispatch.h/.cc, 2 docs
    for rel in written:
        fresh = (tmp_path / rel).read_text(encoding="utf-8")
        assert (ROOT / rel).read_text(encoding="utf-8") == fresh, (
            f"{rel} is stale: run python scripts/gen_constants.py"
        )


def test_verb_table_rows_reach_both_engines() -> None:
    """The rows of verb_table.py are the Python engine's tables and the C++ dispatch."""
    from fort_env.game import actions, verb_table
    from fort_env.game.cards import VERBS
    from fort_env.game.decisions import DecisionKind
    from fort_env.game.rules import handlers, legality, search, verbs

    assert [k.name for k in DecisionKind] == [d.name for d in verb_table.DECISIONS]
    assert [name for name, _ in actions.RANGES] == [r.name for r in verb_table.RANGES]
    assert VERBS == verb_table.VERB_NAMES
    assert set(handlers.HANDLERS) == set(verb_table.RANGE_NAMES)
    assert search.legality is legality
    assert set(legality.LEGAL) == {
        k for k, d in enumerate(verb_table.DECISIONS) if d.rows is not None
    }
    for code, v in enumerate(verb_table.VERBS):
        want = None if v.decision is None else int(DecisionKind[v.decision])
        assert verbs.VERB_RULES[code].decision == want
    text = _generator()._verb_table().render_dispatch_cc()
    for d in verb_table.DECISIONS:
        assert f"// K_{d.name}" in text
    assert "on_convert,  // R_CONVERT" in text and "legal_convert,  // K_CONVERT" in text


def test_files_the_engine_imports_are_written_without_importing_it() -> None:
    """fields.py and codes.py render from the tables alone (early_outputs, written before the
    package is imported) exactly as with the package imported."""
    gen = _generator()
    early = gen.early_outputs()
    assert set(early) == {gen.FIELDS, gen._verb_table().CODES}
    everything = gen.outputs()
    for path, text in early.items():
        assert everything[path] == text
