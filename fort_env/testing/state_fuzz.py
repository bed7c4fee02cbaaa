"""Mutated saved states: either ``from_dict`` refuses them or they play to the end soundly.

Shared by ``tests/test_reliability_states.py`` (a hypothesis property) and
``scripts/fuzz_states.py`` (N mutations, counts printed). A *base* is a valid dict of a position
in the middle of a random game; a *mutation* changes one to three of its values (a card's zone,
owner, pos, mark or declared suit; a player's counter; a rule or perk location; a counted suit;
a ``ctx`` field; a program cell or length; two cards swapped; a value of the wrong type). Each
mutated dict is loaded with ``FortState.from_dict``:

- ``rejected``: it raised ``StateError`` (naming a field);
- ``accepted``: it loaded, and random legal actions then played it to the end with the
  invariants of :mod:`fort_env.testing.invariants` held at every step (``check_state``; scores and
  Fort Levels never fall; an observation for the actor; a legal action whenever the game is not
  over; the end within ``MAX_DECISIONS``; the final scores, winners and returns computed);
- ``failure``: anything else (another exception at load or in play, a broken invariant, a soft
  lock). The target is zero.

Your own card set: pass its directory as ``cards`` to both builders (the bases are positions
of that set, and their mutations load into it)::

    from fort_env.testing.state_fuzz import make_bases, try_mutation

    bases = make_bases(20, seed=0, cards="my_cards/")
    for i in range(2000):
        config, base = bases[i % len(bases)]
        outcome, changes = try_mutation(config, base, seed=i, cards="my_cards/")
        assert outcome.kind != "failure", (outcome.detail, changes)
"""

from __future__ import annotations

import copy
import random
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.constants import MADE_UP_RULES, PERKS, ZONES
from fort_env.game.errors import StateError
from fort_env.game.fields import P_FORT_LEVEL, P_SCORE
from fort_env.game.state_arrays import CTX_FIELDS, PLAYER_FIELDS
from fort_env.testing.invariants import MAX_DECISIONS, check_state

CONFIGS = [(2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced"), (3, "advanced")]
"""The configurations :func:`make_bases` cycles through."""
_GAMES: dict[tuple[int, str, str | None], FortGame] = {}


def game_for(num_players: int, setup: str, cards: str | None = None) -> FortGame:
    """One shared ``FortGame`` per configuration and card set (``cards``: a card data
    directory, ``None`` for the shipped set), on the default backend.

    Raises:
        ConfigError: a bad configuration or card set.
    """
    key = (num_players, setup, cards)
    if key not in _GAMES:
        _GAMES[key] = FortGame(num_players, setup, cards)
    return _GAMES[key]


def make_bases(
    count: int, seed: int = 0, cards: str | None = None
) -> list[tuple[tuple[int, str], dict[str, Any]]]:
    """``count`` valid mid-game dicts ``((num_players, setup), d)``: random games stopped at
    a random decision (every config in turn; some in the draft, some mid-action), of the
    card set ``cards`` (``None``: the shipped set)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        config = CONFIGS[i % len(CONFIGS)]
        state = game_for(*config, cards).new_initial_state(int(rng.integers(2**31)))
        stop = int(rng.integers(0, 400))
        for _ in range(stop):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        out.append((config, state.to_dict()))
    return out


# --------------------------------------------------------------------------- mutations
_WRONG_TYPES: list[Any] = ["x", True, 1.5, None, [1], {"a": 1}]


def _int_value(rng: random.Random, current: int, lo: int, hi: int) -> int:
    """A plausible replacement for an int field: a neighbour, a bound, or random nearby."""
    if not isinstance(current, int) or isinstance(current, bool):  # an earlier wrong type
        return rng.randint(lo, hi)
    choice = rng.randrange(7)
    if choice == 0:
        return current + rng.choice((-1, 1))
    if choice == 1:
        return current + rng.choice((-3, -2, 2, 3, 5))
    if choice == 2:
        return rng.choice((lo, hi, lo - 1, hi + 1))
    if choice == 3:
        return rng.choice((-4, -3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 23, 24, 99, 128, 5000))
    if choice == 4:
        return rng.randint(lo, hi)
    if choice == 5:
        return rng.choice((2**15 - 1, 2**31, 2**62, 2**62 - 1, -(2**40)))
    return rng.randint(-2, 10)


def mutate(d: dict[str, Any], rng: random.Random) -> list[str]:
    """Change one to three values of ``d`` in place; returns what was changed (for reports)."""
    done = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        done.append(_mutate_once(d, rng))
    return done


def _mutate_once(d: dict[str, Any], rng: random.Random) -> str:
    n = d["num_players"]
    what = rng.choice(
        ("card", "card", "card", "swap", "player", "player", "rule", "perk", "suits",
         "ctx", "ctx", "ctx", "ctx", "program", "program_length", "wrong_type")
    )  # fmt: skip
    cards = d["cards"]
    if what == "card":
        i = rng.randrange(len(cards))
        key = rng.choice(("zone", "owner", "pos", "mark", "coin_as"))
        if key == "zone":
            cards[i]["zone"] = rng.choice(ZONES)
            if rng.random() < 0.5:  # keep the owner plausible for the zone
                cards[i]["owner"] = (
                    -1 if cards[i]["zone"] in ("park", "park_deck") else rng.randrange(n)
                )
        else:
            top = {"owner": n - 1, "pos": 70, "mark": 1, "coin_as": 6}[key]
            cards[i][key] = _int_value(rng, cards[i][key], -1, top)
        return f"cards[{i}].{key} = {cards[i][key]!r}"
    if what == "swap":
        i, j = rng.randrange(len(cards)), rng.randrange(len(cards))
        cards[i], cards[j] = cards[j], cards[i]
        return f"swap cards[{i}] and cards[{j}]"
    if what == "player":
        p, key = rng.randrange(n), rng.choice(PLAYER_FIELDS)
        d["players"][p][key] = max(0, _int_value(rng, d["players"][p][key], 0, 30))
        return f"players[{p}].{key} = {d['players'][p][key]}"
    if what in ("rule", "perk"):
        table, names = ("made_up_rules", MADE_UP_RULES) if what == "rule" else ("perks", PERKS)
        name = rng.choice(names)
        d[table][name] = rng.randint(-3, n - 1)
        return f"{table}.{name} = {d[table][name]}"
    if what == "suits":
        k = rng.randrange(len(d["play_suits"]))
        d["play_suits"][k] = max(0, _int_value(rng, d["play_suits"][k], 0, 10))
        return f"play_suits[{k}] = {d['play_suits'][k]}"
    if what == "ctx":
        key = rng.choice(CTX_FIELDS)
        d["ctx"][key] = _int_value(rng, d["ctx"][key], -1, 30)
        return f"ctx.{key} = {d['ctx'][key]}"
    if what == "program":
        if not d["program"]:
            d["program"].append([0, 0, -1, -1, 0])
            d["ctx"]["program_length"] = 1
            return "program = [[0, 0, -1, -1, 0]]"
        r, c = rng.randrange(len(d["program"])), rng.randrange(5)
        d["program"][r][c] = max(-1, min(128, _int_value(rng, d["program"][r][c], -1, 13)))
        return f"program[{r}][{c}] = {d['program'][r][c]}"
    if what == "program_length":
        if d["program"] and rng.random() < 0.5:
            d["program"].pop()
        else:
            d["program"].append([rng.randrange(13), rng.randrange(3), -1, -1, rng.randrange(2)])
        d["ctx"]["program_length"] = len(d["program"])
        return f"program_length = {len(d['program'])}"
    # a value of the wrong type somewhere
    bad = rng.choice(_WRONG_TYPES)
    where = rng.choice(("card", "player", "ctx", "suits"))
    if where == "card":
        i = rng.randrange(len(cards))
        key = rng.choice(("owner", "pos", "mark", "coin_as"))
        cards[i][key] = bad
        return f"cards[{i}].{key} = {bad!r}"
    if where == "player":
        p = rng.randrange(n)
        d["players"][p][rng.choice(PLAYER_FIELDS)] = bad
        return f"players[{p}] ... = {bad!r}"
    if where == "ctx":
        key = rng.choice(CTX_FIELDS)
        d["ctx"][key] = bad
        return f"ctx.{key} = {bad!r}"
    d["play_suits"][0] = bad
    return f"play_suits[0] = {bad!r}"


# --------------------------------------------------------------------------- outcome
@dataclass
class Outcome:
    """What one mutated dict did: ``kind`` is ``accepted``, ``rejected`` or ``failure``."""

    kind: str
    detail: str = ""
    decisions: int = 0


def play_out(state: FortState, rng: random.Random) -> int:
    """Random legal actions to the end, every invariant checked; returns the decisions.

    Raises:
        AssertionError: a broken invariant or a soft lock (described).
    """
    scores = state.players[:, P_SCORE].copy()
    levels = state.players[:, P_FORT_LEVEL].copy()
    steps = 0
    check_state(state)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, f"no legal action at {state.decision.kind.name}, game not over"
        actor = state.current_player()
        assert 0 <= actor < state.game.num_players, f"actor {actor}"
        state.observation_tensor(actor)
        state.apply_action(rng.choice(legal))
        steps += 1
        assert steps < MAX_DECISIONS, "the game did not end"
        check_state(state)
        assert (state.players[:, P_SCORE] >= scores).all(), "a score fell"
        assert (state.players[:, P_FORT_LEVEL] >= levels).all(), "a Fort Level fell"
        scores = state.players[:, P_SCORE].copy()
        levels = state.players[:, P_FORT_LEVEL].copy()
    totals = [row["total"] for row in state.score_breakdown()]
    winners = state.winners()
    assert winners and max(totals) == totals[winners[0]], "winners without the top total"
    returns = state.returns()
    assert set(returns.tolist()) <= {1.0, -1.0} and 1.0 in returns
    turns = state.players[:, 6]
    assert int(turns.max()) - int(turns.min()) <= 1, f"turns {turns.tolist()}"
    for p in range(state.game.num_players):
        state.observation_tensor(p)
    return steps


def try_mutation(
    config: tuple[int, str], base: dict[str, Any], seed: int, cards: str | None = None
) -> tuple[Outcome, list[str]]:
    """Mutate a copy of ``base`` (a position of ``config`` with the card set ``cards``, as
    :func:`make_bases` gives) with ``random.Random(seed)``, load it and play it out; returns
    the outcome and the changes made. Never raises for what the state does: any exception is
    the outcome ``failure``."""
    rng = random.Random(seed)
    d = copy.deepcopy(base)
    changes = mutate(d, rng)
    game = game_for(*config, cards)
    try:
        state = FortState.from_dict(game, d)
    except StateError as exc:
        return Outcome("rejected", str(exc)), changes
    except Exception as exc:
        return Outcome("failure", f"load: {exc!r}"), changes
    try:
        steps = play_out(state, rng)
    except Exception as exc:
        tb = traceback.format_exc(limit=-2).strip().splitlines()
        return Outcome("failure", f"play: {exc!r} at {tb[0] if tb else '?'}"), changes
    return Outcome("accepted", decisions=steps), changes
