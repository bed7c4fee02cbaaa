"""The test kit (``fort_env.testing``) as a user runs it: on a card set of their own, on both
engines, and failing on a broken position."""

from __future__ import annotations

import shutil

import pytest

from fort_env import FortGame
from fort_env.game.cards import DATA_DIR
from fort_env.game.constants import MAX_FORT_LEVEL
from fort_env.game.fields import P_FORT_LEVEL
from fort_env.native import backend as cpp_backend
from fort_env.testing import check_state, lockstep, play_random_game, replay
from fort_env.testing.state_fuzz import make_bases, try_mutation
from tests.scenario import replaced

# The coin Best Friends' private action "pack" becomes "score x 3" (three cards).
OLD, NEW = (
    'public = "gather(any)"\nprivate = "pack"',
    'public = "gather(any)"\nprivate = "score x 3"',
)


@pytest.fixture(scope="module")
def my_cards(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("kit") / "cards"
    shutil.copytree(DATA_DIR, root)
    text = (root / "cards.toml").read_text()
    (root / "cards.toml").write_text(replaced(text, OLD, NEW, 3))
    return str(root)


def test_check_state_fails_on_a_broken_position() -> None:
    state = FortGame(2, backend="python").new_initial_state(3)
    check_state(state)
    state.players[1, P_FORT_LEVEL] = MAX_FORT_LEVEL + 1
    with pytest.raises(AssertionError):
        check_state(state)


def test_random_games_of_my_card_set_keep_the_invariants(my_cards: str) -> None:
    game = FortGame(3, "advanced", cards=my_cards)
    assert any(c.private == "score x 3" for c in game.cards)
    for seed in range(3):
        state, decisions = play_random_game(game, seed)
        assert state.is_terminal() and decisions > 0


@pytest.mark.skipif(not cpp_backend.available(), reason="the compiled core is not built")
def test_lockstep_plays_my_card_set_on_both_engines(my_cards: str) -> None:
    result = lockstep(2, "basic", 5, cards=my_cards)
    assert result.terminal and result.cards == my_cards
    py, cpp = replay(2, "basic", 5, result.actions, cards=my_cards)
    for state in (py, cpp):
        assert state.is_terminal()
        assert any(c.private == "score x 3" for c in state.game.cards)


def test_state_fuzz_mutates_positions_of_my_card_set(my_cards: str) -> None:
    bases = make_bases(5, seed=1, cards=my_cards)
    mine = [try_mutation(config, base, i, cards=my_cards)[0] for i, (config, base) in
            enumerate(bases * 3)]  # fmt: skip
    assert {o.kind for o in mine} <= {"accepted", "rejected"}, [o.detail for o in mine]
    assert any(o.kind == "accepted" for o in mine)
    # the bases are positions of my set: the shipped set refuses even those left whole
    config, base = bases[0]
    shipped = try_mutation(config, base, 0)[0]
    assert shipped.kind == "rejected" and "card" in shipped.detail, shipped
