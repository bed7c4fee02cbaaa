"""IS-MCTS on the compiled core (``cpp/include/fort/bots/ismcts.h``, ``agents/bots/ismcts.py``).

- The C++ ports the search is built on equal their Python originals: the builder heuristic's
  score of every legal action (``_core.builder_scores`` against ``HeuristicAgent``'s handlers)
  and the evaluation function (``_core.evaluate_all`` against ``agents.bots.evaluation``), at every
  decision of random games of every player count and setup.
- The search's mechanics: it finds the play that wins the game, keeps to its iteration and time
  budgets, gives the same answer for the same seed, and runs on every kind of decision that
  random games reach without failing.
- No leak: the search reads the position only through the re-deal, so states of one
  information set (the true state with its hidden cards dealt otherwise) give the same
  search, and the agent the same choice.
- The agent: registered, legal on both backends, clear errors for bad settings.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import agents
from agents.arena.games import decision_info, play_game
from agents.bots.evaluation import FITTED, HAND_MADE, evaluate_all
from agents.bots.heuristics import BuilderAgent
from agents.bots.ismcts import DEFAULT_TREE_KINDS, ISMCTSAgent, weights_sequence
from fort_env import FortGame, FortState
from fort_env.native import backend as cpp_backend
from fort_env.views.seat import SeatView
from tests.scenario import build
from tests.test_bot_behaviour import DOC

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(), reason=f"compiled core: {cpp_backend.why_unavailable()}"
)

W = weights_sequence(FITTED)
SETTINGS = dict(
    iterations=200, seconds=0.0, c=0.1, rollout="builder", extra_turns=0, tree_kinds=None,
    rivals_in_tree=True, bias=0.0, margin=0.0,
    widen_c=0.0, widen_alpha=0.5, weights=W,
)  # fmt: skip
_GAMES: dict[tuple[int, str], FortGame] = {}


def game_for(n: int, setup: str = "basic") -> FortGame:
    if (n, setup) not in _GAMES:
        _GAMES[n, setup] = FortGame(n, setup, backend="cpp")
    return _GAMES[n, setup]


def core() -> object:
    return cpp_backend.require()


def search(state: FortState, seed: int = 0, **kw: object) -> dict:
    args = {**SETTINGS, **kw}
    return core().ismcts_search(state.core_state, state.current_player(), seed=seed, **args)  # type: ignore[attr-defined, no-any-return]


def positions(n: int, setup: str, games: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """Every decision of ``games`` games in which the builder plays, with a random move a third
    of the time (so that positions the builder avoids come up too)."""
    game = game_for(n, setup)
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = game.new_initial_state(seed=seed * 1000 + g)
        bot = BuilderAgent(seed=g)
        while not s.is_terminal():
            legal = s.legal_actions()
            yield s, legal
            if rng.random() < 0.3:
                a = legal[int(rng.integers(len(legal)))]
            else:
                a = bot.choose(SeatView.from_state(s, s.current_player()), legal)
            s.apply_action(a)


def python_scores(bot: BuilderAgent, s: FortState, legal: list[int]) -> list[float]:
    view = SeatView.from_state(s, s.current_player())
    by_range: dict[str, list[tuple[int, int]]] = {}
    for a in legal:
        name, i = s.game.layout.decode(a)
        by_range.setdefault(name, []).append((a, i))
    handler = bot._handlers.get(view.kind)
    scores = handler(view, by_range) if handler else {}
    return [float(scores.get(a, -1e9)) for a in legal]


# ---------------------------------------------------------------------- the ports
def check_builder_scores(n: int, setup: str, games: int, seed: int) -> set[int]:
    bot = BuilderAgent(seed=0)
    kinds = set()
    for s, legal in positions(n, setup, games, seed=seed):
        want = python_scores(bot, s, legal)
        got = core().builder_scores(s.core_state, legal)  # type: ignore[attr-defined]
        assert np.allclose(got, want, rtol=0, atol=1e-9), (s.decision_kind, legal, got, want)
        kinds.add(s.decision_kind)
    return kinds


@pytest.mark.parametrize(("n", "setup", "games"), [(2, "basic", 3), (4, "advanced", 1)])
def test_builder_scores_equal_the_python_heuristic(n: int, setup: str, games: int) -> None:
    kinds = check_builder_scores(n, setup, games, seed=n)
    assert len(kinds) >= 10  # plays, modes, adds, resources, packs, follows, recruits, ...


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("setup", ["basic", "advanced"])
def test_builder_scores_equal_the_python_heuristic_in_many_games(n: int, setup: str) -> None:
    kinds = check_builder_scores(n, setup, 12, seed=100 + n)
    assert len(kinds) >= 16


@pytest.mark.parametrize(("n", "setup"), [(2, "basic"), (3, "advanced"), (4, "advanced")])
def test_builder_scores_of_every_action_id_are_numbers(n: int, setup: str) -> None:
    """Python may hand ``builder_scores`` any action id in range, legal or not: each gets a
    finite score (or the "unscored" -1e9), never a read outside the state (the sanitizer job,
    scripts/sanitize.sh, runs this file on the ASan + UBSan build)."""
    every = list(range(game_for(n, setup).num_distinct_actions))
    checked = 0
    for i, (s, _legal) in enumerate(positions(n, setup, 2, seed=7)):
        if i % 3:
            continue
        got = core().builder_scores(s.core_state, every)  # type: ignore[attr-defined]
        assert len(got) == len(every) and np.all(np.isfinite(got)), s.decision_kind
        checked += 1
    assert checked > 50
    with pytest.raises(ValueError, match=r"legal entry must be an int in \[0, "):
        core().builder_scores(s.core_state, [len(every)])  # type: ignore[attr-defined]


def test_builder_action_is_one_of_the_best() -> None:
    bot = BuilderAgent(seed=0)
    for k, (s, legal) in enumerate(positions(2, "basic", 1, seed=9)):
        a = core().builder_action(s.core_state, k)  # type: ignore[attr-defined]
        scores = python_scores(bot, s, legal)
        assert a in legal and scores[legal.index(a)] >= max(scores) - 1e-6


@pytest.mark.parametrize(("n", "setup"), [(2, "basic"), (4, "advanced")])
def test_evaluation_equals_the_python_one(n: int, setup: str) -> None:
    for w in (FITTED, HAND_MADE):
        for s, _ in positions(n, setup, 1, seed=5):
            want = evaluate_all(s, w)
            got = core().evaluate_all(s.core_state, weights_sequence(w))  # type: ignore[attr-defined]
            assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_default_tree_kinds_are_the_python_ones() -> None:
    assert core().default_tree_kinds() == sorted(int(k) for k in DEFAULT_TREE_KINDS)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- the search
# test_bot_behaviour's DOC position at 20 points: seat 0 is the last of the round with Doc
# (private: score x Lookout size) and a Lookout of 5, so playing Doc reaches 25 and wins.
WIN_NOW = {**DOC, "score": {0: 20, 1: 20}}


def win_now() -> FortState:
    s = build(2, leader=0, first_player=1, **WIN_NOW)
    return cpp_backend.CppFortState.from_state(s)


@pytest.mark.parametrize("rollout", ["builder", "random"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_finds_the_winning_play(rollout: str, seed: int) -> None:
    s = win_now()
    r = search(s, seed=seed, rollout=rollout, iterations=300)
    assert s.action_to_string(r["action"]).startswith("play Doc"), r
    doc = r["actions"].index(r["action"])
    assert r["values"][doc] > 0.9  # the game is won at the horizon
    assert r["visits"][doc] == max(r["visits"])


def test_iteration_budget_is_kept_and_counted() -> None:
    s = win_now()
    for n in (1, 7, 64):
        r = search(s, iterations=n)
        assert r["iterations"] == n
        assert sum(r["visits"]) == n  # every iteration visits one root child
        assert 1 <= r["nodes"] <= 1 + 40 * n


def test_time_budget_is_kept() -> None:
    s = game_for(4).new_initial_state(seed=3)
    budget = 0.02
    t = time.perf_counter()
    r = search(s, iterations=10**9, seconds=budget)
    wall = time.perf_counter() - t
    assert 0 < r["iterations"] < 10**9
    assert r["seconds"] >= budget
    # it stops at the first check past the deadline (an iteration is well under a ms; the
    # slack is for a busy machine descheduling the thread)
    assert r["seconds"] < budget + 0.25 and wall < budget + 0.3


def test_same_seed_same_search_other_seed_other_samples() -> None:
    s = game_for(2).new_initial_state(seed=11)
    a, b = search(s, seed=5), search(s, seed=5)
    del a["seconds"], b["seconds"]
    assert a == b
    others = [search(s, seed=k) for k in range(6, 10)]
    assert any(o["visits"] != a["visits"] for o in others)


def test_search_on_a_determinisation_equals_search_on_the_true_state() -> None:
    """The search reads the position only through the re-deal: any state of the seat's
    information set (the true one, or the true one with its hidden cards re-dealt) gives the
    same tree."""
    checked = 0
    for k, (s, legal) in enumerate(positions(3, "basic", 2, seed=21)):
        if len(legal) < 2 or k % 7:
            continue
        seat = s.current_player()
        other = s.resample_hidden(seat, np.random.default_rng(k))
        assert other.to_dict() != s.to_dict() or k == 0  # hidden cards moved
        a, b = search(s, seed=k, iterations=40), search(other, seed=k, iterations=40)
        del a["seconds"], b["seconds"]
        assert a == b
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("n", "setup"), [(2, "advanced"), (4, "basic")])
def test_search_runs_at_every_decision_of_random_games(n: int, setup: str) -> None:
    """Every reachable decision kind (all of them branching the tree, long horizons, widening):
    the answer is one of the legal actions."""
    kinds = set()
    for k, (s, legal) in enumerate(positions(n, setup, 1, seed=31)):
        r = search(s, seed=k, iterations=4, tree_kinds=list(range(26)), extra_turns=2,
                   widen_c=1.0, rollout="random" if k % 2 else "builder")  # fmt: skip
        assert r["action"] in legal
        kinds.add(s.decision_kind)
    assert len(kinds) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("setup", ["basic", "advanced"])
def test_search_runs_at_every_decision_of_many_random_games(n: int, setup: str) -> None:
    for k, (s, legal) in enumerate(positions(n, setup, 8, seed=40 + n)):
        r = search(s, seed=k, iterations=3, tree_kinds=list(range(26)), extra_turns=k % 3,
                   widen_c=float(k % 2), rollout="random" if k % 2 else "builder")  # fmt: skip
        assert r["action"] in legal


def test_search_refuses_bad_arguments() -> None:
    s = game_for(2).new_initial_state(seed=0)
    seat = s.current_player()
    cs = s.core_state
    c = core()
    with pytest.raises(ValueError, match="not the acting seat"):
        c.ismcts_search(cs, 1 - seat, seed=0, **SETTINGS)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"seat must be an int in \[0, 1\]"):
        c.ismcts_search(cs, 2, seed=0, **SETTINGS)  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="seat must be an int"):
        c.ismcts_search(cs, 0.0, seed=0, **SETTINGS)  # type: ignore[attr-defined]
    bad: list[tuple[dict, type[Exception], str]] = [
        ({"seed": -1}, ValueError, "seed"),
        ({"iterations": 0}, ValueError, "iterations"),
        ({"seconds": -1.0}, ValueError, "seconds"),
        ({"seconds": float("inf")}, ValueError, "seconds must be finite"),
        ({"c": -0.5}, ValueError, "c must be"),
        ({"rollout": "greedy"}, ValueError, "rollout must be"),
        ({"extra_turns": -1}, ValueError, "extra_turns"),
        ({"tree_kinds": [26]}, ValueError, "tree_kinds entry"),
        ({"widen_c": -1.0}, ValueError, "widen_c"),
        ({"widen_alpha": 0.0}, ValueError, "widen_alpha"),
        ({"weights": W[:-1]}, ValueError, "weights must have 15"),
        ({"weights": [*W[:-1], 0.0]}, ValueError, "scale"),
        ({"weights": "fitted"}, TypeError, "weights must be a sequence"),
        ({"iterations": True}, TypeError, "iterations must be an int"),
    ]
    for change, exc, words in bad:
        args = {"seed": 0, **SETTINGS, **change}
        with pytest.raises(exc, match=words):
            c.ismcts_search(cs, seat, **args)  # type: ignore[attr-defined]
    broken = s.clone()
    broken.owner[0] = 7  # a field the rules index by, out of range
    with pytest.raises(ValueError, match="owner"):
        c.ismcts_search(broken.core_state, seat, seed=0, **SETTINGS)  # type: ignore[attr-defined]


def test_search_refuses_a_finished_game() -> None:
    _record, s = play_game(
        game_for(2), [agents.make("builder", seed=0), agents.make("builder", seed=1)], seed=3
    )
    with pytest.raises(ValueError, match="the game is over"):
        core().ismcts_search(s.core_state, 0, seed=0, **SETTINGS)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- the agent
def choose(agent: ISMCTSAgent, state: FortState) -> int:
    seat = state.current_player()
    info = decision_info(state, seat)
    obs = {"observation": state.observation_tensor(seat), "action_mask": info["action_mask"]}
    return agent.act(obs, info)


def test_agent_uses_the_cpp_engine_and_keeps_the_python_one() -> None:
    assert agents.make("ismcts").engine == "cpp"  # type: ignore[attr-defined]
    assert agents.make("ismcts:engine=python").engine == "python"  # type: ignore[attr-defined]
    a = agents.make("ismcts:ms=50")
    assert (a.seconds, a.iterations) == (0.05, 2**62)  # type: ignore[attr-defined]
    assert agents.make("ismcts").iterations == 2000  # type: ignore[attr-defined]
    python = agents.make("ismcts:engine=python")
    assert (python.iterations, python.widen, python.rivals) == (200, 0.0, "tree")  # type: ignore[attr-defined]
    cpp = agents.make("ismcts")
    assert (cpp.widen, cpp.rivals) == (1.0, "policy")  # type: ignore[attr-defined]


@pytest.mark.parametrize("backend", ["cpp", "python"])
def test_agent_plays_legal_games_on_both_backends(backend: str) -> None:
    game = FortGame(2, backend=backend)
    bots = [
        agents.make("ismcts:iterations=30:kinds=all:rivals=tree:bias=0.1:margin=0.01", seed=1),
        agents.make("builder", seed=2),
    ]
    _record, state = play_game(game, bots, seed=4)  # raises if an action is illegal
    assert state.is_terminal() and bots[0].last_iterations == 30  # type: ignore[attr-defined]


@pytest.mark.parametrize("rivals", ["tree", "policy"])
def test_agent_plays_the_winning_card(rivals: str) -> None:
    s = win_now()
    for seed in range(3):
        agent = agents.make(f"ismcts:iterations=200:rivals={rivals}", seed=seed)
        assert s.action_to_string(choose(agent, s)).startswith("play Doc")  # type: ignore[arg-type]


def test_agent_choice_does_not_depend_on_the_hidden_cards() -> None:
    """The true state with its hidden cards dealt otherwise (the same information set): the
    same agent seed gives the same choice at every searched decision of a game, although the
    searches differ from seed to seed."""
    compared = 0
    for k, (s, legal) in enumerate(positions(2, "basic", 2, seed=50)):
        if len(legal) < 2 or s.decision_kind not in DEFAULT_TREE_KINDS or k % 3:
            continue
        seat = s.current_player()
        variants = [s, *(s.resample_hidden(seat, np.random.default_rng(100 + j)) for j in range(2))]
        assert any(v.to_dict() != s.to_dict() for v in variants[1:])
        choices = set()
        for v in variants:
            agent = agents.make("ismcts:iterations=60", seed=k)
            choices.add(choose(agent, v))  # type: ignore[arg-type]
        assert len(choices) == 1, (k, choices)
        compared += 1
    assert compared >= 8


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("ismcts:engine=gpu", "engine must be one of"),
        ("ismcts:kinds=some", "kinds must be .default."),
        ("ismcts:widen=-1", "widen must be finite"),
        ("ismcts:widen_alpha=1.5", "widen_alpha"),
        ("ismcts:iterations=0", "iterations must be at least 1"),
        ("ismcts:extra_turns=-2", "extra_turns"),
        ("ismcts:evaluation=best", "evaluation must be one of"),
        ("ismcts:c=-1", "c must be finite"),
        ("ismcts:engine=python:widen=1", "need the C.. engine"),
        ("ismcts:rivals=some", "rivals must be one of"),
        ("ismcts:bias=-1", "bias must be finite"),
        ("ismcts:margin=nan", "margin must be finite"),
        ("ismcts:speed=3", "takes"),
    ],
)
def test_bad_settings_give_clear_errors(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        agents.make(spec)


def test_python_engine_models_rivals_by_the_heuristic_too() -> None:
    bots = [
        agents.make("ismcts:engine=python:iterations=5:rivals=policy", seed=3),
        agents.make("builder", seed=4),
    ]
    _record, state = play_game(game_for(2), bots, seed=6)
    assert state.is_terminal() and bots[0].last_iterations == 5  # type: ignore[attr-defined]


def test_exploration_spreads_visits_by_availability() -> None:
    """UCB1 with availability counts: a large c spreads the root's visits over every action
    (each child's exploration term grows with how often it was available), c = 0 does not."""
    s = game_for(2).new_initial_state(seed=11)
    legal = s.legal_actions()
    assert len(legal) >= 3
    wide = search(s, c=10.0, iterations=400, widen_c=0.0)
    assert len(wide["visits"]) == len(legal)
    assert min(wide["visits"]) >= 400 / (4 * len(legal)), wide["visits"]
    greedy = search(s, c=0.0, iterations=400, widen_c=0.0)
    assert max(greedy["visits"]) >= 400 - 2 * len(legal) or min(greedy["visits"]) <= 2
