"""The lockstep differential harness: one random game on the Python engine and on the C++
backend (``FortGame(..., backend="cpp")``, a :class:`~fort_env.native.backend.CppFortState`) at
once, comparing at every decision everything the API shows (docs/cpp.md, "The lockstep
harness").

At each decision: ``current_player``, ``decision``, ``legal_actions``, ``legal_actions_mask``,
``local_legal_actions`` (the raw list, in order), ``to_dict`` (as JSON text: Python ints on
both sides), every array and ``ctx`` (bytes, so the padding of ``prog`` beyond the program
counts too), ``observation_tensor`` for every seat, ``str(state)``, ``returns``, and the name
of the chosen action (with ``Checks.full_every`` = k > 1, the observations, text, action
names, ``to_dict`` and the raw list only every k decisions and at the end: the fast mode of
``scripts/differential.py``); after the end ``score_breakdown`` and ``winners``; periodically
a clone and a ``from_dict`` of the C++ state, and ``resample_hidden`` for one seat with the
same seed on both. The first difference raises :class:`Divergence` naming the configuration,
seed, step, what differed and the actions so far (replay them with :func:`replay`).

The actions are drawn by ``random.Random`` from the legal list, seeded by (game seed,
``action_seed``), so a run is reproducible. Which parts of the C++ backend are compiled is
irrelevant here: what is not yet ported falls back to the Python engine (``CppFortState``),
so the comparison tightens as the ports land.

Your own card set: pass its directory as ``cards`` (both engines compile it)::

    from fort_env.testing.differential import lockstep, schedule

    for num_players, setup, seed in schedule(60):
        lockstep(num_players, setup, seed, cards="my_cards/")

``tests/differential/test_lockstep.py`` runs it on the shipped set, ``scripts/differential.py``
on many games. Errors: :class:`Divergence` (an ``AssertionError``); ``ConfigError`` when the
compiled core is not usable or the card set does not load.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.state_arrays import ARRAYS

CONFIGS: tuple[tuple[int, str], ...] = tuple(
    (n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")
)
"""The configurations :func:`schedule` cycles through: every player count and setup."""
_GAMES: dict[tuple[int, str, str, str | None], FortGame] = {}


def game(num_players: int, setup: str, backend: str, cards: str | None = None) -> FortGame:
    """One shared ``FortGame`` per configuration, backend and card set (``cards``: a card data
    directory, ``None`` for the shipped set), built once: building one compiles the cards.

    Raises:
        ConfigError: a bad configuration or card set, or no compiled core for ``"cpp"``.
    """
    key = (num_players, setup, backend, cards)
    if key not in _GAMES:
        _GAMES[key] = FortGame(num_players, setup, cards, backend=backend)
    return _GAMES[key]


class Divergence(AssertionError):
    """The two backends differ; the message says where and how to reproduce it."""


@dataclass
class Checks:
    """What to compare at each decision (all by default; the script may skip the costly)."""

    observations: bool = True
    text: bool = True
    arrays: bool = True
    to_dict: bool = True
    mask: bool = True
    raw_legal: bool = True  # local_legal_actions (legality.raw_legal), in the engine's order
    clone_every: int = 50  # clone/round-trip check of the C++ state every so many decisions
    resample: bool = True  # with the clone check: resample_hidden for one seat, same seed
    # The costly views (observations, text, action names, to_dict, the raw list) every so many
    # decisions and at the end; 1: at every decision. The legal actions, the mask, every array
    # and ctx, the current player and the returns are compared at every decision regardless.
    full_every: int = 1

    def full_at(self, decision: int) -> bool:
        """Whether the costly views are compared at this decision."""
        return self.full_every <= 1 or decision % self.full_every == 0


@dataclass
class GameResult:
    """One lockstep game: its configuration and deal, the decisions played, whether it
    ended, and the actions (replay them with :func:`replay`)."""

    num_players: int
    setup: str
    seed: int
    decisions: int = 0
    terminal: bool = False
    actions: list[int] = field(default_factory=list)
    cards: str | None = None


def _raw(s: FortState) -> dict[str, bytes]:
    out = {name: getattr(s, name).tobytes() for name in ARRAYS}
    out["ctx"] = bytes(s.ctx)
    return out


def _fail(res: GameResult, what: str, py: object, cpp: object) -> Divergence:
    cards = "" if res.cards is None else f"cards {res.cards!r}, "
    return Divergence(
        f"{what} differs: {res.num_players} players, {res.setup!r}, {cards}seed {res.seed}, "
        f"decision {res.decisions}\n  python: {py!r}\n  cpp:    {cpp!r}\n"
        f"  actions so far: {res.actions}"
    )


def _same(res: GameResult, what: str, py: object, cpp: object) -> None:
    if isinstance(py, np.ndarray) or isinstance(cpp, np.ndarray):
        ok = (
            isinstance(py, np.ndarray)
            and isinstance(cpp, np.ndarray)
            and py.dtype == cpp.dtype
            and py.shape == cpp.shape
            and np.array_equal(py, cpp)
        )
    else:
        ok = type(py) is type(cpp) and py == cpp
    if not ok:
        raise _fail(res, what, py, cpp)


def compare(py: FortState, cpp: FortState, res: GameResult, checks: Checks) -> None:
    """Compare everything ``checks`` asks for at the current decision."""
    _same(res, "is_terminal", py.is_terminal(), cpp.is_terminal())
    _same(res, "current_player", py.current_player(), cpp.current_player())
    _same(res, "decision", py.decision, cpp.decision)
    _same(res, "legal_actions", py.legal_actions(), cpp.legal_actions())
    full = checks.full_at(res.decisions) or py.is_terminal()
    if checks.raw_legal and full and not py.is_terminal():
        _same(res, "local_legal_actions", py.local_legal_actions(), cpp.local_legal_actions())
    if checks.mask:
        _same(res, "legal_actions_mask", py.legal_actions_mask(), cpp.legal_actions_mask())
    if checks.arrays:
        a, b = _raw(py), _raw(cpp)
        if a != b:
            for name in a:
                if a[name] != b[name]:
                    raise _fail(res, f"array {name}", getattr(py, name), getattr(cpp, name))
    if checks.to_dict and full:
        _same(res, "to_dict (JSON)", json.dumps(py.to_dict()), json.dumps(cpp.to_dict()))
    if checks.text and full:
        _same(res, "str(state)", str(py), str(cpp))
    if checks.observations and full:
        for seat in range(py.game.num_players):
            _same(res, f"observation_tensor({seat})", py.observation_tensor(seat),
                  cpp.observation_tensor(seat))  # fmt: skip
    _same(res, "returns", py.returns(), cpp.returns())


def _check_copies(py: FortState, cpp: FortState, res: GameResult, checks: Checks) -> None:
    if checks.resample:
        seat = res.decisions % py.game.num_players
        a = py.resample_hidden(seat, np.random.default_rng(res.decisions))
        b = cpp.resample_hidden(seat, np.random.default_rng(res.decisions))
        _same(res, f"type of resample_hidden({seat})", type(cpp), type(b))
        if _raw(a) != _raw(b):
            raise _fail(res, f"resample_hidden({seat})", a.to_dict(), b.to_dict())
    clone = cpp.clone()
    _same(res, "clone type", type(cpp), type(clone))
    if _raw(clone) != _raw(cpp):
        raise _fail(res, "clone", cpp.to_dict(), clone.to_dict())
    back = type(cpp).from_dict(cpp.game, py.to_dict())
    if _raw(back) != _raw(py):
        raise _fail(res, "from_dict(python to_dict)", py.to_dict(), back.to_dict())


def lockstep(
    num_players: int,
    setup: str,
    seed: int,
    *,
    action_seed: int = 0,
    checks: Checks | None = None,
    max_decisions: int | None = None,
    cards: str | None = None,
) -> GameResult:
    """Play one random game on both backends in lockstep, comparing at every decision.

    Args:
        num_players, setup: the configuration (2-4 players, ``"basic"``/``"advanced"``).
        seed: the deal's seed (both backends deal it).
        action_seed: varies the random actions for the same deal.
        checks: what to compare (default: everything).
        max_decisions: stop after this many decisions (``None``: play to the end).
        cards: a card data directory (``None``: the shipped set).

    Returns:
        the :class:`GameResult` (decisions played, whether it ended, the actions).

    Raises:
        Divergence: the first difference, with the actions that lead to it.
        ConfigError: the C++ backend is not usable, or the card set does not load.
    """
    checks = checks or Checks()
    py = game(num_players, setup, "python", cards).new_initial_state(seed)
    cpp = game(num_players, setup, "cpp", cards).new_initial_state(seed)
    res = GameResult(num_players, setup, seed, cards=cards)
    rng = random.Random(seed * 1_000_003 + action_seed)
    while True:
        compare(py, cpp, res, checks)
        if checks.clone_every and res.decisions % checks.clone_every == 0:
            _check_copies(py, cpp, res, checks)
        if py.is_terminal():
            res.terminal = True
            break
        if max_decisions is not None and res.decisions >= max_decisions:
            break
        a = rng.choice(py.legal_actions())
        if checks.text and checks.full_at(res.decisions):
            _same(res, f"action_to_string({a})", py.action_to_string(a), cpp.action_to_string(a))
        res.actions.append(a)
        py.apply_action(a)
        cpp.apply_action(a)
        res.decisions += 1
    if res.terminal:
        _same(res, "score_breakdown", py.score_breakdown(), cpp.score_breakdown())
        _same(res, "winners", py.winners(), cpp.winners())
    return res


def replay(
    num_players: int, setup: str, seed: int, actions: list[int], cards: str | None = None
) -> tuple[FortState, FortState]:
    """Both backends' states after ``actions`` from the deal of ``seed`` (to study a
    :class:`Divergence`; ``cards`` as for :func:`lockstep`)."""
    py = game(num_players, setup, "python", cards).new_initial_state(seed)
    cpp = game(num_players, setup, "cpp", cards).new_initial_state(seed)
    for a in actions:
        py.apply_action(a)
        cpp.apply_action(a)
    return py, cpp


def schedule(games: int, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``games`` (num_players, setup, seed) triples cycling through :data:`CONFIGS`, seeds
    ``start, start + 1, ...`` (the fixed list the tests and the script share)."""
    for i in range(start, start + games):
        n, setup = CONFIGS[i % len(CONFIGS)]
        yield n, setup, i
