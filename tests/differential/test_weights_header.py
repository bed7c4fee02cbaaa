"""cpp/include/fort/bots/weights.h is what scripts/gen_weights.py writes from the Python bots now,
so the C++ builder heuristic and evaluation function cannot drift from agents/bots/."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_weights.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_weights", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_header_matches_the_python_source() -> None:
    gen = _generator()
    committed = gen.HEADER.read_text(encoding="utf-8")
    assert committed == gen.render(), "stale: run python scripts/gen_weights.py"


def test_header_holds_the_bots_weights() -> None:
    from agents.bots.econ import MAX_REPEAT
    from agents.bots.evaluation import FITTED
    from agents.bots.heuristics import BUILDER, NEVER

    text = _generator().render()
    assert f"double useful = {FITTED.useful!r};" in text
    assert f"double end_scale = {FITTED.end_scale!r};" in text
    assert f"double w_surplus = {BUILDER.w_surplus!r};" in text
    assert f"int keep_cards = {BUILDER.keep_cards};" in text
    levels = ", ".join(repr(v) for v in BUILDER.level_value)
    assert f"level_value{{{levels}}};" in text
    assert f"HEURISTIC_NEVER = {NEVER!r};" in text
    assert f"ECON_MAX_REPEAT = {MAX_REPEAT};" in text


def test_literals_read_back_bit_for_bit() -> None:
    import dataclasses

    from agents.bots.evaluation import FITTED
    from agents.bots.heuristics import BUILDER

    gen = _generator()
    for instance in (FITTED, BUILDER):
        for f in dataclasses.fields(instance):
            value = getattr(instance, f.name)
            values = value if isinstance(value, tuple) else (value,)
            for v in values:
                if isinstance(v, float):
                    assert float(gen._double(v)).hex() == v.hex(), (f.name, v)


def test_struct_order_is_the_flat_order_the_search_takes() -> None:
    """EvalWeights' members, in the generated order, are ismcts.weights_sequence's entries."""
    import dataclasses

    from agents.bots.evaluation import FITTED, HAND_MADE
    from agents.bots.ismcts import weights_sequence

    for w in (FITTED, HAND_MADE):
        flat: list[float] = []
        for f in dataclasses.fields(w):
            value = getattr(w, f.name)
            flat += list(value) if isinstance(value, tuple) else [value]
        assert flat == weights_sequence(w)
    text = _generator().render()
    assert f"EVAL_WEIGHT_COUNT = {len(weights_sequence(FITTED))};" in text


def test_check_mode_fails_on_a_stale_header(tmp_path: Path, monkeypatch) -> None:
    gen = _generator()
    stale = tmp_path / "weights.h"
    stale.write_text(gen.render().replace("double useful = ", "double useful = 1 + "), "utf-8")
    monkeypatch.setattr(gen, "HEADER", stale)
    monkeypatch.setattr(sys, "argv", ["gen_weights.py", "--check"])
    assert gen.main() == 1
    stale.write_text(gen.render(), encoding="utf-8")
    assert gen.main() == 0


def test_script_runs_as_a_command() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
