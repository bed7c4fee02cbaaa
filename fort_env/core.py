"""The engine's public classes: :class:`FortGame` (game facts) and :class:`FortState` (one
position), with an OpenSpiel-style API (docs/DESIGN.md).

The rules themselves are functions over the state's arrays in ``fort_env.game.rules`` (one module
per concern); the views (observation, text, scoring, hidden information) are functions in their
own modules. This module joins them behind one class, so it sits above both; everything above
it (env, wrappers, agents, training) imports ``FortGame``/``FortState`` from here or from
``fort_env``.

Rulebook pages are cited as ``p.N`` (``../shared/rules/rulebook.txt``). Where the rulebook is
silent the decision is in ``docs/rules.md`` with its reason and its test.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any

import numpy as np

from fort_env.game import actions as A
from fort_env.game import validation
from fort_env.game.constants import TERMINAL_PLAYER, ZONES
from fort_env.game.decisions import Decision, DecisionKind
from fort_env.game.errors import ConfigError, IllegalActionError, describe
from fort_env.game.facts import SETUPS, GameFacts
from fort_env.game.fields import (
    C_ACTOR,
    C_DECISION,
    C_LEADER,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PLAYED_CARD,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_PROGRAM_SIDE,
    C_SERIAL,
    C_STAGE,
)
from fort_env.game.inputs import as_action, check_seed
from fort_env.game.rules import deal, flow, handlers, legality, search
from fort_env.game.rules.base import SEARCHED_STAGES
from fort_env.game.stages import ST_ACTION, ST_FOLLOW_RUN, ST_OVER
from fort_env.game.state_arrays import ARRAYS, StateArrays
from fort_env.views.hidden import resample_hidden
from fort_env.views.observation import (
    observation_layout,
    observation_tensor,
    table_from_observations,
)
from fort_env.views.scoring import score_breakdown, winners
from fort_env.views.text import action_to_string, state_to_string

__all__ = ["BACKENDS", "SETUPS", "FortGame", "FortState"]

# The engines a FortGame can run on (docs/cpp.md). "python" is this package's rules; "cpp" the
# compiled core, whose state class (fort_env.native.backend.CppFortState) registers itself in
# STATE_CLASSES when fort_env is imported: core cannot import that higher layer.
BACKENDS = ("python", "cpp")
STATE_CLASSES: dict[str, Any] = {}
# Names the backend of a FortGame made without one (e.g. FORT_ENV_BACKEND=cpp pytest ...).
BACKEND_VARIABLE = "FORT_ENV_BACKEND"


def default_backend() -> str:
    """The backend of a ``FortGame`` made without one: ``$FORT_ENV_BACKEND`` if set, else
    ``"cpp"`` when the compiled core is built and up to date, else ``"python"`` (the two give
    the same results, proved by tests/differential; only speed differs)."""
    name = os.environ.get(BACKEND_VARIABLE)
    if name:
        return name
    cls: Any = STATE_CLASSES.get("cpp")
    return "cpp" if cls is not None and cls.usable() else "python"


def _backend(backend: str | None) -> str:
    name = default_backend() if backend is None else backend
    if name not in BACKENDS:
        where = f" (from ${BACKEND_VARIABLE})" if backend is None else ""
        raise ConfigError(f"backend must be one of {BACKENDS}, got {name!r}{where}")
    if name != "python":
        cls: Any = STATE_CLASSES.get(name)
        if cls is None:
            raise ConfigError(f"backend {name!r} is not registered (import fort_env first)")
        cls.require_backend()  # ConfigError if the compiled core is not usable
    return name


def _check_first_player(value: Any, n: int) -> None:
    """Refuse a ``first_player`` that is not an int (``True`` is not seat 1) or not a seat."""
    is_int = isinstance(value, (int, np.integer)) and not isinstance(
        value, (bool, np.bool_, np.timedelta64)
    )
    if not is_int or not 0 <= int(value) < n:
        raise ConfigError(f"first_player must be in [0, {n}), got {describe(value)}")


class FortGame(GameFacts):
    """A Fort game: its facts (:class:`~fort_env.game.facts.GameFacts`: the arguments
    ``num_players``, ``setup``, ``cards`` and the errors raised are documented there), plus
    what needs the rules and views: action handlers, the search's tables, the observation size,
    and :meth:`new_initial_state`.

    ``backend`` chooses the engine its states run on: ``"python"`` (:class:`FortState`) or
    ``"cpp"`` (``fort_env.native.backend.CppFortState``: the same API and results, the compiled
    core underneath); ``None`` takes :func:`default_backend`: ``$FORT_ENV_BACKEND`` if set,
    else ``"cpp"`` when the compiled core is usable, else ``"python"``. It is
    ``game.backend``. Raises ``ConfigError`` for another name, or ``"cpp"`` without a usable
    compiled core (the message says why)."""

    def __init__(
        self,
        num_players: int = 4,
        setup: str = "basic",
        cards: str | None = None,
        backend: str | None = None,
    ) -> None:
        super().__init__(num_players, setup, cards)
        self.backend = _backend(backend)
        # action -> (handler, index within its range), for rules.handlers.apply
        self.handlers = handlers.handler_list(self.layout)
        self.search_tables = search.SearchTables(self.effects)

    @cached_property
    def observation_size(self) -> int:
        """Length of ``observation_tensor``: the same for 2, 3 and 4 players."""
        return observation_layout(self.num_players, self).size

    def new_initial_state(self, seed: int = 0, first_player: int | None = None) -> FortState:
        """Deal a new game (rulebook p.2 setup steps 1-11).

        Args:
            seed: seeds the generator carried in the state: an int in ``[0, 2**62)``.
            first_player: the starting seat, or ``None`` to draw it at random (step 1).

        Raises:
            ConfigError: a seed that is not an int in range, or a ``first_player`` that is not
                ``None`` or an int (a Python int or numpy integer; not a bool) in
                ``[0, num_players)``; the same message on both backends.
        """
        seed = check_seed(seed)  # here, for both backends: one message for any bad seed
        if first_player is not None:
            _check_first_player(first_player, self.num_players)
        if self.backend != "python":
            return STATE_CLASSES[self.backend].deal(self, seed, first_player)  # type: ignore[no-any-return]
        return deal.new_state(FortState, self, seed, first_player)


class FortState(StateArrays):
    """One position of a game of Fort; OpenSpiel-style API (docs/DESIGN.md).

    The arrays it holds (``zone``, ``owner``, ``pos``, ``mark``, ``coin_as`` per card;
    ``players`` per seat; ``rule_loc``, ``perk_loc``; the running action's ``prog``/``done``;
    the scalar context ``ctx``) are documented in ``docs/state.md``.
    """

    game: FortGame

    # ------------------------------------------------------------------ public API
    def current_player(self) -> int:
        """The seat to act, or ``TERMINAL_PLAYER`` (-4) when the game is over."""
        return TERMINAL_PLAYER if self.ctx[C_STAGE] == ST_OVER else int(self.ctx[C_ACTOR])

    def is_terminal(self) -> bool:
        """Whether the game is over (p.10)."""
        return bool(self.ctx[C_STAGE] == ST_OVER)

    @property
    def decision(self) -> Decision:
        """The pending :class:`Decision` (kind, player, context)."""
        kind = DecisionKind(int(self.ctx[C_DECISION]))
        ctx: dict[str, Any] = {"leader": int(self.ctx[C_LEADER])}
        if self.ctx[C_PLAYED_CARD] >= 0:
            ctx["played_card"] = int(self.ctx[C_PLAYED_CARD])
        if self.ctx[C_MODE] >= 0:
            ctx["mode"] = A.MODES[int(self.ctx[C_MODE])]
        if self.ctx[C_STAGE] in (ST_ACTION, ST_FOLLOW_RUN):
            ctx["side"] = "public" if self.ctx[C_PROGRAM_SIDE] == A.PUBLIC else "private"
            ctx["full"] = bool(self.ctx[C_PROGRAM_FULL])
        if kind == DecisionKind.PAY:
            ctx["cost"] = (
                int(self.ctx[C_PAY_TOYS]),
                int(self.ctx[C_PAY_PIZZA]),
                int(self.ctx[C_PAY_EITHER]),
            )
        return Decision(kind, self.current_player(), ctx)

    def legal_actions_mask(self) -> np.ndarray:
        """Legal actions of the acting player: bool array, shape ``(num_distinct_actions,)``."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=bool)
        if not self.is_terminal():
            mask[search.legal_actions(self)] = True
        return mask

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending."""
        return [] if self.is_terminal() else list(search.legal_actions(self))

    def apply_action(self, action: int) -> None:
        """Take ``action`` for the acting player.

        Raises:
            IllegalActionError: the action is not legal now; the state is unchanged.
            TypeError: ``action`` is not an integer (``fort_env.game.inputs.as_action``).
        """
        a = as_action(action)
        if self.is_terminal() or a not in search.legal_set(self):
            why = "out of range" if not 0 <= a < self.game.num_distinct_actions else "not legal"
            raise IllegalActionError(a, DecisionKind(int(self.ctx[C_DECISION])).name, why)
        handlers.apply(self, a)
        flow.check_end(self)  # the flag is public as soon as a trigger happens (p.10)

    def returns(self) -> np.ndarray:
        """Win/loss returns, float64 shape ``(num_players,)``: +1 winners, -1 the others.

        Zeros until the game is over. Ties: the higher Fort Level wins; still tied, the victory
        is shared and every tied player gets +1 (rulebook p.11).
        """
        out = np.zeros(self.game.num_players)
        if not self.is_terminal():
            return out
        out[:] = -1.0
        out[self.winners()] = 1.0
        return out

    def winners(self) -> list[int]:
        """Seats that win (rulebook p.11: most points, then highest Fort Level, else shared)."""
        return winners(self)

    def score_breakdown(self) -> list[dict[str, int]]:
        """Per seat: ``track``, ``fort_level``, ``made_up_rule``, ``macaroni``, ``total``."""
        return score_breakdown(self)

    # ------------------------------------------------------------------ where things are
    # What bots and tools read instead of the raw ``zone``/``owner``/``rule_loc``/``perk_loc``
    # arrays (the import contracts keep agents/ and train/ off the state's layout; a test checks
    # that they read no raw array).
    def cards_in(self, zone: int, owner: int | None = None) -> np.ndarray:
        """The cards in ``zone`` (a zone code of ``fort_env.game.constants``: ``HAND``,
        ``LOOKOUT``, ``PARK_DECK``, ...), only ``owner``'s when given (a seat, 0-based; ``-1``:
        the shared cards): card indices, int64 ``(k,)``, ascending. Reads the full state: a
        seat's view of it is ``SeatView``. Raises ``ValueError`` for a zone or owner out of
        range."""
        if not 0 <= int(zone) < len(ZONES):
            raise ValueError(f"zone must be in 0..{len(ZONES) - 1}, got {zone}")
        where = self.zone == zone
        if owner is not None:
            if not -1 <= int(owner) < self.game.num_players:
                raise ValueError(
                    f"owner must be -1 or a seat 0..{self.game.num_players - 1}, got {owner}"
                )
            where &= self.owner == owner
        return np.flatnonzero(where).astype(np.int64)

    def made_up_rules_held(self, seat: int) -> np.ndarray:
        """The made-up rules ``seat`` holds (p.9): indices into ``constants.MADE_UP_RULES``,
        int64 ``(k,)``, ascending; ``seat=IN_STACK`` (-1): those still in the facedown stack."""
        return np.flatnonzero(self.rule_loc == seat).astype(np.int64)

    def perks_held(self, seat: int) -> np.ndarray:
        """The perks ``seat`` holds (p.8): indices into ``constants.PERKS``, int64 ``(k,)``,
        ascending; ``seat=IN_STACK`` (-1): those still in the face-up row."""
        return np.flatnonzero(self.perk_loc == seat).astype(np.int64)

    def action_to_string(self, action: int) -> str:
        """The action's name at this position, e.g. ``"play Bug (#12)"``."""
        return action_to_string(self, action)

    def observation_tensor(self, player: int) -> np.ndarray:
        """``player``'s view: float32, shape ``(game.observation_size,)`` (``observation.py``)."""
        return observation_tensor(self, player)

    def table_observation_tensor(self, player: int) -> np.ndarray:
        """``player``'s table observation: float32 ``(table_observation_size(n, game),)``, its
        observation then each other seat's private slices (``observation.py``,
        ``table_from_observations``). For critics in training and search only: it shows
        every seat's hidden cards.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        n = self.game.num_players
        if not 0 <= player < n:
            raise ValueError(f"player must be a seat in [0, {n}), got {player}")
        observations = np.stack([self.observation_tensor(p) for p in range(n)])
        return table_from_observations(observations, player, observation_layout(n, self.game))

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> FortState:
        """A copy with everything ``observer`` cannot see re-dealt consistently (``hidden.py``)."""
        return resample_hidden(self, observer, rng)

    def __str__(self) -> str:
        return state_to_string(self)

    # ------------------------------------------------------------------ search hooks
    # For tests and tools that enumerate plays themselves (``tests.reference``): the
    # decision's locally legal actions, and applying one without the exactness check.
    def local_legal_actions(self) -> list[int]:
        """Actions the local rules of the pending decision allow, before the search that
        removes those after which the play cannot be completed (unsorted)."""
        if self.is_terminal():  # no pending decision, whatever ctx.decision says
            return []
        return legality.raw_legal(self)

    def apply_unchecked(self, action: int) -> None:
        """Apply a locally legal ``action`` without checking the whole play (tests, search)."""
        handlers.apply(self, action)

    def in_searched_stage(self) -> bool:
        """Whether the pending decision is inside a play whose masks are searched."""
        return self.ctx[C_STAGE] in SEARCHED_STAGES

    def play_serial(self) -> int:
        """Counts resolved plays and follows; it grows when the play under way completes."""
        return int(self.ctx[C_SERIAL])

    def play_failed(self) -> bool:
        """The action under way, required in full, can no longer be used fully."""
        return bool(self.ctx[C_PROGRAM_FAILED])

    def never_strands(self, action: int) -> bool:
        """Actions that cannot strand a play: skipping, passing a follow, Rough Housing, and
        Recycling at the Play decision (legal whenever locally legal; docs/rules.md R15)."""
        return search.unsearched(self, action, self.game.layout)

    @classmethod
    def from_dict(cls, game: GameFacts, d: dict[str, Any]) -> FortState:
        """Rebuild a state saved by :meth:`to_dict`, checking every field and the invariants
        the engine relies on (``fort_env.game.validation``), so that a loaded state either plays on
        within the rules or is refused.

        Raises:
            StateError: a missing, malformed or inconsistent field, naming it; nothing is built.
        """
        backend = getattr(game, "backend", "python")
        if cls is FortState and backend != "python":  # the game's engine, as new_initial_state
            return STATE_CLASSES[backend].from_dict(game, d)  # type: ignore[no-any-return]
        return cls.checked_from_dict(game, d)

    @classmethod
    def checked_from_dict(cls, game: GameFacts, d: dict[str, Any]) -> FortState:
        """:meth:`from_dict` building a state of this class whatever ``game.backend`` says
        (the ``"cpp"`` backend checks a dict with it before copying it into C++)."""
        s: FortState = super().from_dict(game, d)
        validation.validate_state(game, s)  # (module attribute: tests may replace it)
        return s

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        return {"config": self._config(), "state": self.to_dict()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        cfg = data["config"]
        # A FortState runs the Python engine, so its game does too (not the default backend,
        # which would give the restored state a game whose ``backend`` says "cpp").
        game = FortGame(cfg["num_players"], cfg["setup"], cfg["card_set"], backend="python")
        other = type(self).from_dict(game, data["state"])
        for name in ("game", "ctx", *ARRAYS):
            setattr(self, name, getattr(other, name))
        self.legal_cache = None
