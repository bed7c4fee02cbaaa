"""The heuristic bots in C++ (``cpp/include/fort/bots/rollout_policy.h``: ``Policy::BUILDER``,
``SCORER``, ``OPPORTUNIST``) against their Python originals (``agents/bots/heuristics.py``).

- Score for score: ``_core.heuristic_scores(state, legal, code)`` equals the Python bot's
  handler at every decision of games that bot plays (a random move a third of the time), for
  2, 3 and 4 players and both setups (the big sweep under ``-m slow``), and at sampled
  positions with the acting seat given each made-up rule in turn (the rule-dependent paths:
  the card values' suit worth, the scorer's ``_wanted`` and ``rule_estimate``, payments).
- The generated styles are the Python ones (``weights.h``: ``SCORER_STYLE``, perk ranks).
- The batched env plays ``ScorerAgent``/``OpportunistAgent`` inside C++ (``opponent_code`` is
  the built-in code), move for move the C++ policy as documented (the best score, ties drawn
  from ``EventRng(game_seed ^ POLICY_STREAM, j)``), and that move is the Python bot's wherever
  the best score is not tied.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from agents.bots.heuristics import (
    NEVER,
    OPPORTUNIST,
    SCORER,
    BuilderAgent,
    HeuristicAgent,
    OpportunistAgent,
    ScorerAgent,
)
from fort_env import FortGame, FortState
from fort_env.game.constants import MADE_UP_RULES, PERKS, RULE_INDEX
from fort_env.game.fields import C_SEED
from fort_env.game.rng import EventRng
from fort_env.native import backend as cpp_backend
from fort_env.native.backend import CppFortState
from fort_env.native.policies import POLICIES
from fort_env.views.seat import SeatView
from tests import scenario

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(), reason=f"compiled core: {cpp_backend.why_unavailable()}"
)

ROOT = Path(__file__).resolve().parents[1]
BOTS: dict[str, type[HeuristicAgent]] = {
    "builder": BuilderAgent,
    "scorer": ScorerAgent,
    "opportunist": OpportunistAgent,
}
IN_BOX = -2  # rule_loc: a made-up rule no one holds (state_arrays.ARRAYS)
TIE = 1e-9  # rollout_policy.cc: scores this close are tied in C++
_GAMES: dict[tuple[int, str], FortGame] = {}


def game_for(n: int, setup: str = "basic") -> FortGame:
    if (n, setup) not in _GAMES:
        _GAMES[n, setup] = FortGame(n, setup, backend="cpp")
    return _GAMES[n, setup]


def core() -> Any:
    return cpp_backend.require()


def positions(
    bot_class: type[HeuristicAgent], n: int, setup: str, games: int, seed: int
) -> Iterator[tuple[CppFortState, list[int]]]:
    """Every decision of ``games`` games played by the bot (every seat), with a random move a
    third of the time (so that positions the bot avoids come up too)."""
    game = game_for(n, setup)
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = cast(CppFortState, game.new_initial_state(seed=seed * 1000 + g))
        bot = bot_class(seed=g)
        while not s.is_terminal():
            legal = s.legal_actions()
            yield s, legal
            if rng.random() < 0.3:
                a = legal[int(rng.integers(len(legal)))]
            else:
                a = bot.choose(SeatView.from_state(s, s.current_player()), legal)
            s.apply_action(a)


def python_scores(bot: HeuristicAgent, s: CppFortState, legal: list[int]) -> list[float]:
    """The Python bot's handler's score of each of ``legal`` (``NEVER``: not scored)."""
    view = SeatView.from_state(s, s.current_player())
    by_range: dict[str, list[tuple[int, int]]] = {}
    for a in legal:
        name, i = s.game.layout.decode(a)
        by_range.setdefault(name, []).append((a, i))
    handler = bot._handlers.get(view.kind)
    scores = handler(view, by_range) if handler else {}
    return [float(scores.get(a, NEVER)) for a in legal]


def cpp_scores(name: str, s: CppFortState, legal: list[int]) -> list[float]:
    return list(core().heuristic_scores(s.core_state, legal, POLICIES.index(name)))


def same(name: str, bot: HeuristicAgent, s: CppFortState, legal: list[int]) -> None:
    want = python_scores(bot, s, legal)
    got = cpp_scores(name, s, legal)
    assert np.allclose(got, want, rtol=0, atol=1e-9), (name, s.decision_kind, legal, got, want)


def check_scores(name: str, n: int, setup: str, games: int, seed: int) -> set[int]:
    bot = BOTS[name](seed=0)
    kinds = set()
    for s, legal in positions(BOTS[name], n, setup, games, seed=seed):
        same(name, bot, s, legal)
        kinds.add(s.decision_kind)
    return kinds


# ---------------------------------------------------------------------- score for score
@pytest.mark.parametrize("name", ["scorer", "opportunist"])
@pytest.mark.parametrize(("n", "setup", "games"), [(2, "basic", 3), (4, "advanced", 1)])
def test_scores_equal_the_python_heuristic(name: str, n: int, setup: str, games: int) -> None:
    kinds = check_scores(name, n, setup, games, seed=n)
    assert len(kinds) >= 10  # plays, modes, adds, resources, packs, follows, recruits, ...


@pytest.mark.parametrize("name", list(BOTS))
def test_a_tuck_only_recycling_could_make_is_passed(name: str) -> None:
    """docs/rules.md R15: Tiny's private tuck, used partially with an empty hand and a card in
    the discard pile, offers Recycling or pass; both ports keep the perk (pass), as the bots
    skipped such a tuck before."""
    d = scenario.build_dict(2, leader=0, hands={0: ["Tiny"], 1: ["Ant"]},
                            discard={0: ["Bug"]}, perks={0: ["Recycling"]})  # fmt: skip
    s = cast(CppFortState, CppFortState.from_dict(game_for(2), d))
    scenario.act(s, "play Tiny", "use public (fully), then private", "stop adding")
    legal = s.legal_actions()
    assert sorted(s.action_to_string(a).split("#")[0] for a in legal) == [
        "pass", "recycle Bug [shovel]"
    ]  # fmt: skip
    same(name, BOTS[name](seed=0), s, legal)
    best = max(range(len(legal)), key=lambda k: cpp_scores(name, s, legal)[k])
    assert s.action_to_string(legal[best]) == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["scorer", "opportunist"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("setup", ["basic", "advanced"])
def test_scores_equal_the_python_heuristic_in_many_games(name: str, n: int, setup: str) -> None:
    kinds = check_scores(name, n, setup, 12, seed=200 + n)
    assert len(kinds) >= 16


@pytest.mark.parametrize("name", list(BOTS))
@pytest.mark.parametrize(("n", "setup"), [(2, "basic"), (3, "advanced"), (4, "advanced")])
def test_scores_equal_the_python_heuristic_under_every_made_up_rule(
    name: str, n: int, setup: str
) -> None:
    """The acting seat given each made-up rule (and none) in turn, on every 4th decision:
    what the rule changes (card values, the scorer's wanted resource and Minimalism estimate,
    payments from the Pack) is the Python bot's, for every style."""
    bot = BOTS[name](seed=0)
    checked = 0
    for i, (s, legal) in enumerate(positions(BOTS[name], n, setup, 1, seed=30 + n)):
        if i % 4:
            continue
        seat = s.current_player()
        for rule in [-1, *range(len(MADE_UP_RULES))]:
            t = cast(CppFortState, s.clone())
            t.rule_loc[t.rule_loc == seat] = IN_BOX
            if rule >= 0:
                t.rule_loc[rule] = seat
            same(name, bot, t, legal)
            checked += 1
    assert checked > 100


def test_the_styles_differ_where_they_should() -> None:
    """Guards against a port that ignores its style: on the same positions the three bots'
    scores differ somewhere, and the scorer alone expects points from Minimalism."""
    differ = {"scorer": 0, "opportunist": 0}
    for s, legal in positions(BuilderAgent, 3, "advanced", 1, seed=5):
        builder = cpp_scores("builder", s, legal)
        assert builder == list(core().builder_scores(s.core_state, legal))
        for name in differ:
            differ[name] += not np.allclose(cpp_scores(name, s, legal), builder, rtol=0, atol=0)
    assert min(differ.values()) > 20, differ
    minimalism = RULE_INDEX["Minimalism"]
    for s, legal in positions(ScorerAgent, 2, "basic", 3, seed=1):
        picks = [a for a in legal if s.game.layout.decode(a) == ("PICK_RULE", minimalism)]
        if picks:
            assert cpp_scores("scorer", s, picks) == [6.0]
            assert cpp_scores("builder", s, picks) == cpp_scores("opportunist", s, picks) == [0.0]
            return
    pytest.fail("no decision offered Minimalism")


def test_heuristic_scores_refuses_bad_arguments() -> None:
    s = cast(CppFortState, game_for(2).new_initial_state(seed=0))
    legal = s.legal_actions()
    with pytest.raises(ValueError, match="not a heuristic"):
        core().heuristic_scores(s.core_state, legal, POLICIES.index("random"))
    for bad in (-1, len(POLICIES)):
        with pytest.raises(ValueError, match="policy must be an int in"):
            core().heuristic_scores(s.core_state, legal, bad)
    with pytest.raises(TypeError, match="policy must be an int"):
        core().heuristic_scores(s.core_state, legal, True)
    with pytest.raises(ValueError, match=r"legal entry must be an int in \[0, "):
        core().heuristic_scores(s.core_state, [s.game.num_distinct_actions], 2)
    every = list(range(s.game.num_distinct_actions))  # any id in range: a finite score
    for name in BOTS:
        assert np.all(np.isfinite(cpp_scores(name, s, every)))


def test_the_generated_header_holds_the_python_styles() -> None:
    spec = importlib.util.spec_from_file_location("gen_weights", ROOT / "scripts/gen_weights.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.render()
    for const, style in (("SCORER", SCORER), ("OPPORTUNIST", OPPORTUNIST)):
        block = text[text.index(f"{const}_STYLE{{") :]
        block = block[: block.index("};")]
        assert f"    {style.w_score!r},  // w_score" in block
        assert f"    {style.follow_threshold!r},  // follow_threshold" in block
        assert f"    {style.keep_cards},  // keep_cards" in block
        assert f"    {'true' if style.name == 'scorer' else 'false'},  // scorer" in block
        ranks = ", ".join(str(style.perk_order.index(p)) for p in PERKS)
        assert f"{const}_PERK_RANK[NUM_PERKS] = {{{ranks}}};" in text
    import dataclasses

    from agents.bots import heuristics

    biased = dataclasses.replace(SCORER, rule_bias={"Loner": 1.0})
    try:
        heuristics.SCORER = biased
        with pytest.raises(ValueError, match="rule_bias is not empty"):
            gen.render()
    finally:
        heuristics.SCORER = SCORER


# ---------------------------------------------------------------------- the batched env
class Twin:
    """An external opponent that plays the C++ policy ``name`` as rollout_policy.h documents it
    (the best of ``heuristic_scores``, ties drawn from ``EventRng(game_seed ^ POLICY_STREAM,
    j)`` at the game's j-th built-in decision), and checks that the Python bot chooses the
    same action wherever the best score is not tied."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.bot = BOTS[name](seed=0)
        self.draws: dict[int, int] = {}
        self.decisions = 0
        self.untied = 0

    def __call__(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        state: CppFortState = info["state"]
        seed = int(state.ctx[C_SEED])
        j = self.draws.get(seed, 0)
        self.draws[seed] = j + 1
        legal = list(info["legal_actions"])
        self.decisions += 1
        if len(legal) == 1:
            return legal[0]
        scores = cpp_scores(self.name, state, legal)
        best = max(scores)
        tied = [a for a, x in zip(legal, scores, strict=True) if x >= best - TIE]
        rng = EventRng(seed ^ core().POLICY_STREAM, j)
        action = tied[rng.below(len(tied))] if len(tied) > 1 else tied[0]
        python = python_scores(self.bot, state, legal)
        ranked = sorted(python, reverse=True)
        if ranked[0] - ranked[1] > 1e-5:  # no tie: the Python bot's noise cannot reorder
            self.untied += 1
            view = SeatView.from_state(state, state.current_player())
            assert self.bot.choose(view, legal) == action, (self.name, state.decision_kind)
        return action


def _info(state: FortState, seat: int) -> dict[str, Any]:
    return {"seat": seat, "legal_actions": state.legal_actions(), "state": state}


@pytest.mark.parametrize(("name", "n"), [("scorer", 2), ("opportunist", 3)])
def test_batched_env_plays_the_bot_in_cpp_as_its_python_twin(name: str, n: int) -> None:
    pytest.importorskip("stable_baselines3")
    from fort_env.envs.vector import FortBatchVecEnv, opponent_code, random_legal_actions

    code = POLICIES.index(name)
    assert opponent_code(BOTS[name]()) == opponent_code(name) == code
    builtin = FortBatchVecEnv(3, seed=7, num_players=n, opponents=BOTS[name]())
    twin = Twin(name)
    replay = FortBatchVecEnv(3, seed=7, num_players=n, opponents=twin, opponent_info=_info)
    obs_a, obs_b = np.asarray(builtin.reset()), np.asarray(replay.reset())
    rng = np.random.default_rng(0)
    finished = 0
    for step in range(150):
        assert obs_a.tobytes() == obs_b.tobytes(), step
        masks = builtin.action_masks()
        assert np.array_equal(masks, replay.action_masks()), step
        actions = random_legal_actions(masks, rng)
        step_a, rew_a, done_a, infos_a = builtin.step(actions)
        step_b, rew_b, done_b, infos_b = replay.step(actions)
        obs_a, obs_b = np.asarray(step_a), np.asarray(step_b)
        assert rew_a.tobytes() == rew_b.tobytes() and np.array_equal(done_a, done_b), step
        for a, b, d in zip(infos_a, infos_b, done_a, strict=True):
            assert a["game_seed"] == b["game_seed"] and a["seat"] == b["seat"], step
            if d:
                assert a["opponents"] == [name] * (n - 1)
                assert a["winners"] == b["winners"]
                finished += 1
    assert finished > 0
    assert twin.decisions > 100 and twin.untied > 0.5 * twin.decisions, vars(twin)
