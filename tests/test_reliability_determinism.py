"""Every bot of the zoo is a pure function of its seed and the game so far.

A tournament's games are the same whatever the number of workers, and game ``k`` played
alone is the same as game ``k`` played after the games before it in one worker: nothing a bot
computed in one game (a cache) changes its moves in another.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena.games import init_worker, run_one
from agents.arena.tournament import run_tournament
from agents.bots.heuristics import BuilderAgent, OpportunistAgent, ScorerAgent
from fort_env.views.seat import SeatView
from tests.scenario import build

BRACELET = {"rules": {0: "Friendship Bracelet"}}


@pytest.mark.parametrize("bot_class", [BuilderAgent, ScorerAgent, OpportunistAgent])
def test_card_values_follow_the_position_not_the_first_one_asked(bot_class: type) -> None:
    """Friendship Bracelet's worth of a card reads my cards: a bot that first valued the cards
    holding books and crowns values them, once it holds glue and shovels, as a fresh bot does."""
    first, later = (
        SeatView.from_state(build(2, leader=0, hands={0: hand}, **BRACELET), 0)
        for hand in (["Doc", "Bones", "Ghost"], ["Bitsy", "Bug", "Dot"])
    )
    fresh_first = bot_class(seed=0).card_values(first)
    fresh_later = bot_class(seed=0).card_values(later)
    assert not np.array_equal(fresh_first, fresh_later)  # the position matters for this rule
    bot = bot_class(seed=0)
    np.testing.assert_array_equal(bot.card_values(first), fresh_first)
    np.testing.assert_array_equal(bot.card_values(later), fresh_later)
    np.testing.assert_array_equal(bot.card_values(first), fresh_first)


# ---------------------------------------------------------------------- tournaments
GAMES = 6
SEED = 8  # a run whose games once differed played alone (cards valued in an earlier game)
# Every bot of the zoo that is not time-limited (the search bots on a fixed budget), at
# tables of two to four: the heuristics (whose card values were once cached across games),
# and the lookahead, network and search bots (whose own searches use the heuristics).
HEURISTIC_TABLE = ["random", "builder", "scorer", "opportunist"]
TABLES = [
    HEURISTIC_TABLE,
    ["heuristic", "greedy", "ppo"],
    ["ismcts:iterations=30", "puct:sims=8"],
]


@pytest.fixture
def keep_torch_threads():  # type: ignore[no-untyped-def]
    """``init_worker`` sets this process's torch threads as a worker's; give them back."""
    import sys

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None and before is not None:
        torch.set_num_threads(before)


def tournament_actions(specs: list[str], workers: int) -> list[list[int]]:
    result = run_tournament(
        specs, len(specs), GAMES, seed=SEED, workers=workers, progress=False,
        return_records=True, record_games=GAMES,
    )  # fmt: skip
    records = result["records"]
    assert [r.index for r in records] == list(range(GAMES))
    return [list(r.actions) for r in records]


def alone_actions(specs: list[str], k: int) -> list[int]:
    """Game ``k`` of the tournament played by agents that played nothing before it."""
    init_worker(specs, len(specs), "basic", None)
    record = run_one((k, SEED, True, True))
    assert record.index == k and record.actions is not None
    return list(record.actions)


def assert_same_games(expected: list[list[int]], got: list[list[int]], what: str) -> None:
    for k, (a, b) in enumerate(zip(expected, got, strict=True)):
        if a != b:
            at = next(
                (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)),
            )
            pytest.fail(f"{what}: game {k} differs from its first run at move {at}")


@pytest.mark.usefixtures("keep_torch_threads")
def test_heuristic_games_alone_are_the_games_in_sequence() -> None:
    """Each game of a heuristics' tournament, played alone, is move for move the game the
    same agents played after the games before it (in this process: fast)."""
    in_sequence = tournament_actions(HEURISTIC_TABLE, workers=1)
    alone = [alone_actions(HEURISTIC_TABLE, k) for k in range(GAMES)]
    assert_same_games(in_sequence, alone, "played alone")


@pytest.mark.slow
@pytest.mark.usefixtures("keep_torch_threads")
@pytest.mark.parametrize("specs", TABLES, ids=lambda s: ",".join(s))
def test_tournament_games_do_not_depend_on_the_workers(specs: list[str]) -> None:
    """The same tournament with 1, 2 and 3 worker processes, and each game alone, plays the
    same games move for move (the tournament's promise: the workers change only the speed)."""
    one = tournament_actions(specs, workers=1)
    for workers in (2, 3):
        assert_same_games(one, tournament_actions(specs, workers), f"{workers} workers")
    assert_same_games(one, [alone_actions(specs, k) for k in range(GAMES)], "played alone")
