"""The fuzz target of scripts/fuzz_inputs.py (card data and saved states) on its seed corpus
and on a few hundred cheap mutations of it: no finding, and every path of the target taken."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import fuzz_inputs


def test_seed_corpus_has_no_finding_and_reaches_every_path() -> None:
    fuzz_inputs.STATS.clear()
    for item in fuzz_inputs.seed_corpus():
        fuzz_inputs.one_input(item)
    stats = fuzz_inputs.STATS
    for outcome in ("cards refused", "cards played", "state refused", "state played"):
        assert stats[outcome] > 0, dict(stats)


def test_mutations_of_the_seed_corpus_have_no_finding() -> None:
    rng = random.Random(26)
    corpus = fuzz_inputs.seed_corpus()
    for _ in range(600):
        item = bytearray(rng.choice(corpus))
        for _ in range(rng.randint(1, 6)):
            item[rng.randrange(len(item))] = rng.randrange(256)
        fuzz_inputs.one_input(bytes(item))


def test_an_undocumented_exception_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The target reports what it should: a loader that raises ValueError is a finding."""
    from fort_env.game import cards

    def broken(directory: str | None = None) -> None:
        raise ValueError("not a project error")

    broken.cache_clear = lambda: None  # type: ignore[attr-defined]
    monkeypatch.setattr(cards, "load_card_set", broken)
    with pytest.raises(fuzz_inputs.Finding, match="undocumented ValueError"):
        fuzz_inputs.one_input(fuzz_inputs.seed_corpus()[0])
