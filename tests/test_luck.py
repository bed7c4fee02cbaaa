"""Luck-corrected evaluation (agents/arena/luck.py) and its chance model (fort_env/views/chance.py).

What is checked: the reshuffled copies keep everything but the decks' order (every seat's
observation, table observation and legal actions, on both backends) and draw every possible
hand equally often; a chance-blind value function leaves the result exactly raw; a planted,
badly biased critic still gets the raw mean back (the corrections have mean zero); two copies
of one agent get equal corrected means; the games themselves are the same with and without
the correction; and every bad input is one error before the first game.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.arena.luck import LuckCorrection, TableCritic, choose_critic, luck_summary
from fort_env import FortGame
from fort_env.game.constants import DECK, HAND, HAND_SIZE
from fort_env.game.errors import ConfigError, ModelFileError
from fort_env.views.chance import cards_in_decks, reshuffle_decks

torch = pytest.importorskip("torch")


def _positions(game: FortGame, seeds: range, every: int = 7) -> list:
    """Positions of random games (every ``every``-th decision)."""
    out = []
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        rng = np.random.default_rng(seed)
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(int(legal[int(rng.integers(len(legal)))]))
            step += 1
    return out


@pytest.mark.parametrize("backend", ["cpp", "python"])
@pytest.mark.parametrize("n", [2, 4])
def test_a_reshuffle_keeps_everything_but_the_order_of_the_decks(backend: str, n: int) -> None:
    try:
        game = FortGame(n, backend=backend)
    except ConfigError:
        pytest.skip("no compiled core")
    rng = np.random.default_rng(5)
    moved = 0
    for state in _positions(game, range(2) if backend == "python" else range(4), every=11):
        copy = reshuffle_decks(state, rng)
        assert copy.legal_actions() == state.legal_actions()
        for p in range(n):
            assert np.array_equal(copy.observation_tensor(p), state.observation_tensor(p))
            assert np.array_equal(
                copy.table_observation_tensor(p), state.table_observation_tensor(p)
            )
        assert np.array_equal(copy.zone, state.zone) and np.array_equal(copy.owner, state.owner)
        assert cards_in_decks(copy) == cards_in_decks(state)
        moved += int(not np.array_equal(copy.pos, state.pos))
    assert moved > 0  # the orders were drawn again


def _before_a_draw(game: FortGame) -> tuple:
    """A position whose next action (the first legal one) ends a turn and draws a full hand
    from a deck of more than ``HAND_SIZE`` cards."""
    for seed in range(50):
        state = game.new_initial_state(seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = int(legal[int(rng.integers(len(legal)))])
            p = state.current_player()
            deck = np.flatnonzero((np.asarray(state.zone) == DECK) & (state.owner == p))
            after = state.clone()
            after.apply_action(action)
            drawn = set(np.flatnonzero((np.asarray(after.zone) == HAND) & (after.owner == p)))
            in_deck = set(deck.tolist())
            if len(deck) in (HAND_SIZE + 1, HAND_SIZE + 2) and len(drawn & in_deck) == HAND_SIZE:
                return state, action, p, deck
            state.apply_action(action)
    raise AssertionError("no draw from a deck of 6-7 cards in 50 random games")


def test_the_reshuffled_copies_draw_every_possible_hand_equally_often() -> None:
    """The chance model: a full hand drawn from a deck of m cards is any of its C(m, 5)
    subsets with equal probability (a chi-square test on 40 draws per subset)."""
    game = FortGame(2)
    state, action, p, deck = _before_a_draw(game)
    subsets = list(itertools.combinations(sorted(deck.tolist()), HAND_SIZE))
    rng = np.random.default_rng(0)
    draws = 40 * len(subsets)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(draws):
        copy = reshuffle_decks(state, rng)
        copy.apply_action(action)
        hand = np.flatnonzero((np.asarray(copy.zone) == HAND) & (copy.owner == p))
        counts[tuple(sorted(set(hand.tolist()) & set(deck.tolist())))] += 1
    assert set(counts) == set(subsets)
    expected = draws / len(subsets)
    chi2 = sum((counts[s] - expected) ** 2 / expected for s in subsets)
    dof = len(subsets) - 1
    # about 4 standard deviations above the chi-square's mean (dof, sd sqrt(2 dof))
    assert chi2 < dof + 4 * math.sqrt(2 * dof)


def _play(game: FortGame, values, games: int, samples: int = 4) -> tuple[list, np.ndarray]:
    """``games`` games of random vs random with seats rotated; per game the records' luck."""
    from agents import make
    from agents.arena.games import play_game

    bots = [make("random"), make("random")]
    records = []
    for g in range(games):
        for i, b in enumerate(bots):
            b.seed(1000 * g + i)
        observer = LuckCorrection(values, samples) if values is not None else None
        record, _ = play_game(game, bots, seed=77 + g, index=g, observer=observer,
                              first_player=g % 2)  # fmt: skip
        records.append(record)
    luck = np.array([r.extra.get("luck", [0.0, 0.0]) for r in records])
    return records, luck


def test_a_chance_blind_value_leaves_the_result_raw() -> None:
    """V that draws cannot move (the Victory Track and Fort Levels only): every term is 0."""
    game = FortGame(2)

    def by_score(states):
        out = np.empty((len(states), 2))
        for i, s in enumerate(states):
            if s.is_terminal():
                out[i] = [float(p in s.winners()) for p in range(2)]
            else:
                x = np.asarray(s.scores(), float) + 3.0 * np.asarray(s.fort_levels(), float)
                e = np.exp((x - x.max()) / 5.0)
                out[i] = e / e.sum()
        return out

    records, luck = _play(game, by_score, 6)
    assert all(r.extra["chance_events"] > 10 for r in records)
    assert np.abs(luck).max() < 1e-12


class _Planted:
    """A critic fixed in advance, sharp and badly biased: a random projection of the table
    observation through a steep sigmoid, plus 0.3 for seat 0. Draws move it a lot."""

    def __init__(self, game: FortGame) -> None:
        size = len(game.new_initial_state(0).table_observation_tensor(0))
        self.w = np.random.default_rng(11).normal(size=size) * 3.0
        self.n = game.num_players

    def __call__(self, states):
        out = np.empty((len(states), self.n))
        for i, s in enumerate(states):
            if s.is_terminal():
                out[i] = [float(p in s.winners()) for p in range(self.n)]
            else:
                x = np.array([s.table_observation_tensor(p) @ self.w for p in range(self.n)])
                out[i] = 1 / (1 + np.exp(-x)) + np.array([0.3] + [0.0] * (self.n - 1))
        return out


def test_a_planted_biased_critic_still_gets_the_raw_mean_back() -> None:
    game = FortGame(2)
    records, luck = _play(game, _Planted(game), 120)
    total = luck.ravel()
    assert total.std() > 0.1  # the planted critic moves a lot on draws
    # E[luck] = 0 for any fixed V: its mean is within 4 standard errors of 0, per seat too
    for x in (total, luck[:, 0], luck[:, 1]):
        assert abs(x.mean()) < 4 * x.std(ddof=1) / math.sqrt(len(x))
    # two copies of one agent: equal expectations, corrected means within their interval
    summary = luck_summary(records, ["a", "b"], 2)
    diff = summary["a"]["win_rate"] - summary["b"]["win_rate"]
    half = summary["a"]["win_rate"] - summary["a"]["win_rate_ci95"][0]
    assert abs(diff) < 2 * half


def _critic_file(tmp_path: Path, n: int = 2, name: str = "c") -> Path:
    """A policy file with a small whole-table critic (random weights)."""
    from agents.learned.network import ActorCritic
    from agents.learned.policy_file import save_policy
    from fort_env.views.observation import table_observation_size

    game = FortGame(n)
    torch.manual_seed(3)
    net = ActorCritic(game.observation_size, game.num_distinct_actions, (8,), critic=(16,),
                      table_size=table_observation_size(n, game))  # fmt: skip
    return save_policy(net, tmp_path / name, num_players=n)


def test_the_corrected_tournament_plays_the_same_games_and_reports_both(tmp_path: Path) -> None:
    from agents.arena.tournament import format_table, run_tournament

    path = _critic_file(tmp_path)
    kwargs = {"seed": 9, "progress": False}
    raw = run_tournament(["heuristic", "random"], 2, 4, **kwargs)
    both = run_tournament(["heuristic", "random"], 2, 4, critic=path, luck_samples=2, **kwargs)

    def played(result):  # what the games were, not how long the agents thought
        return {k: {f: v for f, v in a.items() if not f.startswith("think")}
                for k, a in result["agents"].items()}  # fmt: skip

    assert played(both) == played(raw)  # the same games, the same raw figures
    assert both["game_length"] == raw["game_length"]
    luck = both["luck_corrected"]
    assert luck["critic"] == str(path) and len(luck["critic_sha256"]) == 64
    assert set(luck["agents"]) == {"heuristic", "random"}
    for name, a in luck["agents"].items():
        assert a["raw_win_rate"] == pytest.approx(raw["agents"][name]["win_rate"])
        assert a["games"] == 4
    assert "luck-corrected" in format_table(both)
    assert "luck_corrected" not in raw


def test_a_critic_file_is_checked_before_the_first_game(tmp_path: Path) -> None:
    from agents.arena.tournament import run_tournament

    three = _critic_file(tmp_path, 3, "three")
    with pytest.raises(ModelFileError, match="3-player"):
        run_tournament(["heuristic", "random"], 2, 2, critic=three, progress=False)
    with pytest.raises(ModelFileError, match="no whole-table critic"):
        TableCritic(Path(__file__).parents[1] / "agents/zoo/ppo-2p.safetensors", FortGame(2))
    bad = _critic_file(tmp_path, 2, "bad")
    data = bytearray(bad.read_bytes())
    data[-4:] = b"\x00\x00\xc0\x7f"  # a NaN in the last tensor
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelFileError):
        run_tournament(["heuristic", "random"], 2, 2, critic=bad, progress=False)
    with pytest.raises(ConfigError, match="luck samples"):
        LuckCorrection(lambda s: np.zeros((len(s), 2)), 0)


def test_choosing_the_critic() -> None:
    assert choose_critic(None, True, False, 2) is None
    with pytest.raises(ConfigError, match="raw results take no critic"):
        choose_critic("x", True, False, 2)
    with pytest.raises(ConfigError, match="no such file"):
        choose_critic("/nonexistent/critic", False, False, 2)
    with pytest.raises(ConfigError, match="no table critic ships"):
        choose_critic(None, False, True, 2, "advanced")
    assert choose_critic(None, False, False, 2, "advanced") is None


def test_the_cli_refuses_luck_correction_without_a_critic() -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    out = CliRunner().invoke(
        app, ["tournament", "--agents", "heuristic,random", "--games", "2", "--seed", "1",
              "--setup", "advanced", "--luck-corrected"],
    )  # fmt: skip
    assert out.exit_code != 0
    assert "no table critic ships" in out.output


def test_luck_weights_are_read_checked_and_applied(tmp_path: Path) -> None:
    from agents.arena.luck import LuckWeights

    w = LuckWeights.from_json(
        {"deal": 0.5, "round_edges": [2, 5], "weights": [1.0, 0.25, 0.0]}, tmp_path
    )
    assert [w.of_round(r) for r in (0, 1, 2, 4, 5, 40)] == [1.0, 1.0, 0.25, 0.25, 0.0, 0.0]
    for bad in (
        {"deal": 0.5, "round_edges": [2, 5], "weights": [1.0, 0.25]},  # a weight short
        {"deal": 0.5, "round_edges": [5, 2], "weights": [1.0, 0.25, 0.0]},  # not ascending
        {"deal": float("nan"), "round_edges": [], "weights": [1.0]},
        {"deal": 0.5, "round_edges": [], "weights": [9.0]},  # out of [0, 2]
        {"deal": 0.5, "round_edges": [True], "weights": [1.0, 1.0]},
        [1, 2],
    ):
        with pytest.raises(ModelFileError, match="luck_weights"):
            LuckWeights.from_json(bad, tmp_path)
    # all-zero weights take nothing out: the corrected result is the raw one, exactly
    game = FortGame(2)
    zero = LuckWeights(0.0, (), (0.0,))
    planted = _Planted(game)
    from agents import make
    from agents.arena.games import play_game

    bots = [make("random"), make("random")]
    observer = LuckCorrection(planted, 2, keep_terms=True, weights=zero)
    record, _ = play_game(game, bots, seed=5, observer=observer)
    assert record.extra["luck"] == [0.0, 0.0]
    assert np.abs(np.array(record.extra["terms"])[:, 1:]).sum() > 0  # the terms were there


def test_a_critic_file_carries_its_luck_weights(tmp_path: Path) -> None:
    import json

    path = _critic_file(tmp_path)
    description = path.with_suffix(".json")
    info = json.loads(description.read_text())
    info["zoo"] = {"luck_weights": {"deal": 0.3, "round_edges": [3], "weights": [0.5, 0.1]}}
    description.write_text(json.dumps(info))
    critic = TableCritic(path, FortGame(2))
    assert critic.weights.deal == 0.3 and critic.weights.of_round(4) == 0.1
    info["zoo"]["luck_weights"]["weights"] = [0.5]
    description.write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=r"luck_weights\.weights"):
        TableCritic(path, FortGame(2))
