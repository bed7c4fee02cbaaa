"""The fuzz target of the C++ core (``fort_env/testing/core_fuzz.py``, run by
``scripts/fuzz_core.py`` under atheris) without the fuzzer: on its seed corpus, on seeded byte
mutations of it, and shown to catch the breaches it exists for. ``scripts/sanitize.sh`` runs
this file on the ASan + UBSan build, so the bad inputs below also reach the sanitizers."""

from __future__ import annotations

import random

import pytest

from fort_env.game.errors import IllegalActionError
from fort_env.native import backend as cb
from fort_env.native.backend import CppFortState
from fort_env.testing import core_fuzz
from fort_env.testing.differential import CONFIGS, game


@pytest.fixture(scope="module")
def corpus() -> list[bytes]:
    return [data for _, data in core_fuzz.seed_corpus(2, seed=3)]


def test_encode_decode_round_trip() -> None:
    s = game(3, "advanced", "cpp").new_initial_state(4)
    for _ in range(30):
        s.apply_action(s.legal_actions()[0])
    data = core_fuzz.encode(CONFIGS.index((3, "advanced")), s, b"\x01\x02", flags=8)
    decoded = core_fuzz.decode(data)
    assert decoded is not None
    config, flags, _, _, arrays, actions = decoded
    assert (config, flags, actions) == (CONFIGS.index((3, "advanced")), 8, b"\x01\x02")
    assert core_fuzz.to_dict(s.game, arrays) == s.to_dict()
    assert core_fuzz.decode(data[: len(data) - 2]) is not None  # no actions: still a state
    assert core_fuzz.decode(data[:100]) is None  # too short for a state


def test_seed_corpus_runs_clean(corpus: list[bytes]) -> None:
    """Real mid-game states load alike on both backends and play on in lockstep."""
    assert len(corpus) == 2 * len(CONFIGS)
    steps = [core_fuzz.one_input(data) for data in corpus]
    assert sum(steps) > 100 and sum(1 for k in steps if k) >= len(CONFIGS)


def test_mutated_inputs_are_refused_or_played_alike(corpus: list[bytes]) -> None:
    """Byte mutations of saved states (the fuzzer's kind, seeded): each is refused with the
    same ``StateError`` by both backends, or loads and plays alike; the raw core refuses or
    answers; none is a finding."""
    rng = random.Random(11)
    played = 0
    for i in range(300):
        played += core_fuzz.one_input(core_fuzz.mutate(corpus[i % len(corpus)], rng))
    assert played > 0


@pytest.mark.parametrize("flags", [1, 2, 3, 4, 5, 6, 7])
def test_structural_corruptions_are_refused_alike(corpus: list[bytes], flags: int) -> None:
    """A key missing, a value of another type, a card or row not a dict or list: the same
    ``StateError`` on both backends (any other exception is a finding)."""
    for p in range(0, 256, 37):
        for data in corpus[:4]:
            core_fuzz.one_input(bytes([data[0], flags, p, 255 - p]) + data[4:])


def test_views_refuse_a_state_with_fields_out_of_range() -> None:
    """Found by the fuzzer: ``resample_hidden`` read ``rank[zone][owner + 1]`` with a zone
    written from Python out of range (UBSan: index out of bounds in hidden.cc). The views now
    check the indices first, as the rules' entry points do."""
    core = cb.require()
    s = game(3, "basic", "cpp").new_initial_state(2)
    assert isinstance(s, CppFortState)
    for field, value in (("zone", 99), ("owner", 7), ("zone", -3)):
        bad = s.clone()
        getattr(bad, field)[5] = value
        for call in (
            lambda st: core.resample_hidden(st, 0, 1),
            core.score_breakdown,
            core.winners,
        ):
            with pytest.raises(ValueError, match="out of range"):
                call(bad.core_state)
    level = s.clone()
    level.players[1, 4] = 9  # a Fort Level past 5
    with pytest.raises(ValueError, match="Fort Level"):
        core.score_breakdown(level.core_state)


def test_the_rules_refuse_counters_that_would_overflow() -> None:
    """Found by the fuzzer: pay_toys + pay_pizza + pay_either of a state written from Python
    overflowed int64 in run_program (undefined behaviour in C++; Python's ints just grow).
    The rules' entry points now refuse such counters, far above what any game reaches."""
    from fort_env.game.fields import C_PAY_TOYS, C_SERIAL

    core = cb.require()
    s = game(2, "basic", "cpp").new_initial_state(1)
    assert isinstance(s, CppFortState)
    core.legal_actions(s.core_state)  # the real position: fine
    for field, value in ((C_PAY_TOYS, 2**62), (C_PAY_TOYS, -(2**62)), (C_SERIAL, 2**63 - 1)):
        bad = s.clone()
        bad.ctx[field] = value
        for call in (core.legal_actions, core.raw_legal, lambda st: core.apply_unchecked(st, 0)):
            with pytest.raises(ValueError, match="out of range"):
                call(bad.core_state)


def test_the_target_catches_a_divergence(
    corpus: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutants of the C++ side: an illegal action's message changed, a refused action that
    changes the state, a wrong legal list. Each is a Finding on the seed corpus."""
    real_apply = CppFortState.apply_action

    def other_message(self: CppFortState, action: object) -> None:
        try:
            real_apply(self, action)
        except IllegalActionError as exc:
            raise IllegalActionError(exc.action, exc.decision, "refused") from None

    def changes_state(self: CppFortState, action: object) -> None:
        before = int(self.ctx[0])
        try:
            real_apply(self, action)
        except (IllegalActionError, TypeError):
            self.ctx[0] = before + 1
            raise

    real_legal = CppFortState.legal_actions
    for name, mutant in (
        ("apply_action", other_message),
        ("apply_action", changes_state),
        ("legal_actions", lambda self: real_legal(self)[:-1]),
    ):
        with monkeypatch.context() as m:
            m.setattr(CppFortState, name, mutant)
            with pytest.raises(core_fuzz.Finding):
                for data in corpus:
                    # every action of the input is illegal or odd: kind 6/7 pairs
                    core_fuzz.one_input(data[: len(data) - 96] + bytes([6, 200, 7, 1] * 24))
                    core_fuzz.one_input(data)


def test_the_deal_gives_the_same_errors() -> None:
    """Odd seeds and first players: the same deal or the same error on both backends."""
    data = next(iter(core_fuzz.seed_corpus(1, seed=0)))[1]
    for p1 in range(len(core_fuzz.ODD_SEEDS)):
        for p2 in range(2 * len(core_fuzz.ODD_FIRST)):
            core_fuzz.one_input(bytes([data[0], 16, p1, p2]) + data[4:])


def test_signature_groups_findings_by_cause() -> None:
    def fail(n: int) -> None:
        raise core_fuzz.Finding(f"legal_actions differs at decision {n}\n  python: [{n}]")

    sigs = set()
    for n in (3, 17):
        try:
            fail(n)
        except core_fuzz.Finding as exc:
            sigs.add(core_fuzz.signature(exc))
    assert len(sigs) == 1 and "legal_actions differs" in sigs.pop()
