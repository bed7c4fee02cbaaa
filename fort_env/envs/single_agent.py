"""A single-agent Gymnasium view of Fort, for Stable-Baselines3 and other single-agent trainers.

:class:`SingleAgentEnv` seats one *learner* at a Fort table; the other seats are held by
*opponents* (bots of the zoo, frozen policies, or plain functions) that act inside
:meth:`~SingleAgentEnv.step` until the learner's next decision or the end of the game.

=================  =============================================================================
Observation        ``Box(float32, (D,))``: ``state.observation_tensor(learner_seat)``, the same
                   vector and bounds as ``fort_env.env()``'s ``"observation"``
                   (``fort_env.envs.aec.observation_box``); D = ``game.observation_size``
Actions            ``Discrete(N)``, N = ``game.num_distinct_actions`` (the flat action layout
                   of ``fort_env/envs/aec.py``)
Action mask        :meth:`~SingleAgentEnv.action_masks`: bool ``(N,)``, the learner's legal
                   actions (the method name is sb3-contrib's MaskablePPO protocol); also
                   ``info["action_mask"]`` (int8)
Learner seat       rotates over episodes (``seat=None``) or is fixed (``seat=k``); ``info["seat"]``
Reward             0 until the game ends, then the learner's final reward (``reward`` mode, as
                   in ``fort_env.envs.aec``); plus optional dense shaping (below)
Episode end        ``terminated=True`` when the game ends (or on an illegal action);
                   ``truncated`` is always False
Info               ``seat``, ``action_mask`` (int8), ``game_seed``; at the end of the game also
                   ``won`` (the learner is among the winners), ``winners`` (seats),
                   ``scores`` (each seat's total), ``score_breakdown`` (``FortState.
                   score_breakdown()``) and ``opponents`` (their ``name``s, seat order).
                   The last step's
                   ``info["action_mask"]`` is all ones (``TERMINAL_INFO_MASK``), not all zeros:
                   see "The last step's mask" below
=================  =============================================================================

The last step's mask
--------------------

When the episode ends (``terminated``), no action is legal: :meth:`~SingleAgentEnv.action_masks`
is all False and ``step`` raises until ``reset``. But Gymnasium's own vector envs
(``gymnasium.make_vec(..., vectorization_mode="sync" | "async")``) reset an ended env on the
*next* ``step`` and ignore the action passed to it there, and a policy samples that action from
the last ``info["action_mask"]`` it was given: an all-zero mask would break every masked
sampler (no legal choice). So the last step's ``info["action_mask"]`` allows every action:
whatever the policy samples for that ignored step is fine. No all-zero mask reaches a policy
through ``info`` (the C++ batch, ``fort_env.envs.gym_vector``, resets in the same step instead).

Whose observation, whose reward
-------------------------------

Every observation returned (by ``reset`` and ``step``) is the learner seat's own view, computed
when the learner must act (or at the end of the game), and every reward is the learner seat's.
Opponents' decisions are never returned to the trainer. (The PettingZoo SB3 tutorial once
paired the observation of one seat with the reward of another; ``tests/test_wrappers.py``
checks both against the engine.)

Opponents
---------

An opponent is an ``agents.base.Agent`` (anything with ``act(observation, info) -> int``), a
plain callable ``(observation, info) -> int``, or an agent spec string (``"ppo"``,
``"ismcts:ms=50"``: built by the bot zoo's registry, ``fort_env.envs.opponent_specs``;
``"random"`` is the built-in uniform random opponent). ``observation`` is a mapping with
``"observation"`` (computed lazily, on first access) and ``"action_mask"`` (int8); ``info`` is
``opponent_info(state, seat)`` (default :func:`minimal_info`: ``seat``, ``game``,
``legal_actions``, ``action_mask`` and ``determinize``; the training code passes
``agents.arena.games.decision_info``, which adds the cheap ``view``). Give one opponent for all
rival seats, one per rival seat (in seat order, skipping the learner), or an
``opponent_sampler(rng, num_rivals)`` called at each ``reset`` to draw them (a league).
Opponents with a ``seed`` method are seeded from the env's generator at each reset.

Rewards
-------

``reward`` is one of ``fort_env.envs.aec.REWARD_MODES`` (``"win_loss"`` by default: +1 win, -1
loss, from ``state.returns()``). ``shaping > 0`` adds a dense, potential-based term at every
learner step: ``shaping * (phi(s') - phi(s))`` with ``phi`` = (learner's total points - best
rival total) / 25 (``score_breakdown()``, as the ``"score_margin"`` reward). The terms add up
over an episode to ``shaping`` times the final score margin, so the return becomes
``reward + shaping * margin``; the end of the game is unchanged as the goal.

An illegal action ends the episode with reward ``illegal_reward`` (-1, as
``fort_env.env()``'s TerminateIllegal wrapper) and ``info["illegal_action"] = True``; later
``step`` calls raise ``RuntimeError`` until ``reset``. Masked trainers never take one, and
checkers that step random actions still work.

Seeding
-------

``reset(seed=s)`` makes s the env's base seed and seeds its generator (``self.np_random``). The
k-th game dealt since (a game that ends before the learner acts is dealt again and counts) has
the seed ``EventRng(s, k).below(2**62)``, and the episode that starts with game k seats the
learner at ``(s mod n + k) mod n`` (when rotating): the deals of the C++ batch
(``FortBatchVecEnv``, ``cpp/include/fort/envs/batch.h``), so Gymnasium's ``sync`` vector mode and
its ``vector_entry_point`` mode deal the same games from the same seed. The opponents' seeds
come from the generator. ``reset()`` without a seed goes on to the next game; an env never
seeded draws its base seed from fresh entropy. The same seed and the same actions give the
same episodes.

One front end's rules
---------------------

This env and ``fort_env.env()`` share one definition of each rule of the interface, from
``fort_env/envs/aec.py``: the game seed drawn when none is given (``draw_game_seed``), the legality
test (``is_legal``, after ``inputs.as_action``), the illegal-action reward
(``ILLEGAL_ACTION_REWARD``) and the final rewards (``final_rewards``, by ``reward`` mode).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from fort_env.core import FortGame, FortState
from fort_env.envs.checks import check_shaping, draw_game_seed, is_legal
from fort_env.envs.obs_space import observation_box
from fort_env.envs.opponent_specs import resolve_opponents
from fort_env.envs.rewards import (
    ILLEGAL_ACTION_REWARD,
    REWARD_MODES,
    SCORE_MARGIN_SCALE,
    final_rewards,
)
from fort_env.game.constants import SEED_LIMIT
from fort_env.game.errors import ConfigError
from fort_env.game.inputs import as_action, check_seed
from fort_env.game.rng import EventRng
from fort_env.views.text import state_to_string

__all__ = [
    "Opponent",
    "OpponentSampler",
    "SingleAgentEnv",
    "minimal_info",
]

Opponent = Any  # an ``agents.base.Agent`` or a callable ``(observation, info) -> int``
InfoFn = Callable[[FortState, int], Mapping[str, Any]]


class OpponentSampler(Protocol):
    """Draws the opponents of one episode: ``sampler(rng, num_rivals) -> opponents``.

    Returns one opponent for all rival seats or a sequence of ``num_rivals`` (seat order).
    """

    def __call__(
        self, rng: np.random.Generator, num_rivals: int
    ) -> Opponent | Sequence[Opponent]: ...


def minimal_info(state: FortState, seat: int) -> dict[str, Any]:
    """The ``info`` given to an opponent (see ``agents.base``), without ``view``.

    Keys: ``seat`` (absolute), ``game``, ``legal_actions`` (ascending ints), ``action_mask``
    (int8 ``(N,)``), ``determinize`` (``rng -> FortState`` re-dealing what ``seat`` cannot see).
    """
    legal = state.legal_actions()
    mask = np.zeros(state.game.num_distinct_actions, dtype=np.int8)
    mask[legal] = 1
    return {
        "seat": seat,
        "game": state.game,
        "legal_actions": legal,
        "action_mask": mask,
        "determinize": lambda rng, _s=state, _p=seat: _s.resample_hidden(_p, rng),
    }


class _LazyObservation(Mapping[str, np.ndarray]):
    """``{"observation", "action_mask"}`` whose observation tensor is computed on first access
    (a random or heuristic opponent never pays for it)."""

    def __init__(self, state: FortState, seat: int, mask: np.ndarray) -> None:
        self._state = state
        self._seat = seat
        self._mask = mask
        self._obs: np.ndarray | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "action_mask":
            return self._mask
        if key == "observation":
            if self._obs is None:
                self._obs = self._state.observation_tensor(self._seat)
            return self._obs
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("observation", "action_mask"))

    def __len__(self) -> int:
        return 2


def _act(opponent: Opponent, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
    act = getattr(opponent, "act", None)
    return int(act(observation, info) if act is not None else opponent(observation, info))


class _UniformRandom:
    """The default opponent: uniform over the legal actions, seeded by the env."""

    name = "random"
    cpp_policy = "random"  # the batched env (fort_env.envs.vector) plays it in C++ (same law)

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = info["legal_actions"]
        return int(legal[int(self.rng.integers(len(legal)))])


def _terminal_info_mask(mask: np.ndarray) -> np.ndarray:
    """The last step's ``info["action_mask"]``: all ones, int8, shaped as ``mask`` (module
    docstring, "The last step's mask")."""
    return np.ones(mask.shape, dtype=np.int8)


class SingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Fort from one learner seat, with opponents acting inside ``step()`` (module docstring).

    Args:
        num_players: 2, 3 or 4.
        setup: ``"basic"`` or ``"advanced"``.
        opponents: one opponent for every rival seat, or a sequence of ``num_players - 1`` (in
            seat order, skipping the learner); ``None``: uniform random. Ignored when
            ``opponent_sampler`` is given.
        opponent_sampler: ``(rng, num_rivals) -> opponents``, called at each reset.
        seat: the learner's seat (engine seat, 0..n-1), or ``None`` to rotate over episodes.
        first_player: the seat that starts each game, or ``None`` to draw it from the deal
            (rulebook p.2, step 1).
        reward: ``"win_loss"`` (default), ``"rank"`` or ``"score_margin"`` (``fort_env.envs.aec``).
        shaping: weight of the dense score-margin shaping (0: none); a finite number with
            ``|shaping| <= MAX_SHAPING`` (1000, ``fort_env.envs.aec``).
        illegal_reward: reward for an illegal learner action (which ends the episode).
        cards: a card data directory, or ``None`` for the shipped set.
        opponent_info: ``(state, seat) -> info`` for opponents (default :func:`minimal_info`).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the learner's table as text)
            or ``"human"`` (prints it).

    Raises:
        ConfigError: a bad player count, setup, seat, reward mode, render mode, opponent
            count or shaping weight.
    """

    # render_fps: Gymnasium's checker asks every render mode to declare one (text: 1 frame/s)
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        num_players: int = 2,
        setup: str = "basic",
        opponents: Opponent | Sequence[Opponent] | None = None,
        opponent_sampler: OpponentSampler | None = None,
        seat: int | None = None,
        first_player: int | None = None,
        reward: str = "win_loss",
        shaping: float = 0.0,
        illegal_reward: float = ILLEGAL_ACTION_REWARD,
        cards: str | Path | None = None,
        opponent_info: InfoFn | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.game = FortGame(num_players, setup, None if cards is None else str(cards))
        for name, value in (("seat", seat), ("first_player", first_player)):
            if value is not None and not 0 <= value < num_players:
                raise ConfigError(f"{name} must be None or in [0, {num_players}), got {value!r}")
        self.num_players = num_players
        self.fixed_seat = seat
        self.first_player = first_player
        self.reward_mode = reward
        self.shaping = check_shaping(shaping)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.opponent_info: InfoFn = opponent_info or minimal_info
        self.opponent_sampler = opponent_sampler
        self._built_opponents: dict[str, Opponent] = {}  # by spec string (_rival_list)
        self._default_opponents = self._rival_list(
            _UniformRandom() if opponents is None else opponents
        )
        self.observation_space = observation_box(self.game)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        self._state: FortState | None = None
        self._opponents: list[Opponent] = list(self._default_opponents)
        self._seat = 0 if seat is None else seat  # the learner's seat this episode
        self._base_seed: int | None = None  # the seed of the last seeded reset (module docstring)
        self._games = 0  # games dealt since: k of the next deal
        self._mask = np.zeros(self.game.num_distinct_actions, dtype=bool)
        self._potential = 0.0
        self._game_seed = 0
        self._ended = False  # an illegal action ended the episode (the game itself goes on)

    # ------------------------------------------------------------------ opponents
    def _rival_list(self, opponents: Opponent | Sequence[Opponent]) -> list[Opponent]:
        """One opponent per rival seat (``num_players - 1``), in seat order; a spec string
        built as an agent (``fort_env.envs.opponent_specs``; ``"random"``: the built-in
        uniform random opponent), once per spec for the env's life."""
        rivals = self.num_players - 1
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != rivals:
                raise ConfigError(
                    f"{len(opponents)} opponents for {rivals} rival seats: give one opponent "
                    "for all of them or one per rival seat"
                )
            listed = list(opponents)
        else:
            listed = [opponents] * rivals
        built = self._built_opponents
        if "random" in listed and "random" not in built:
            built["random"] = _UniformRandom()
        return resolve_opponents(listed, (), built)

    def set_opponents(self, opponents: Opponent | Sequence[Opponent] | None) -> None:
        """Use ``opponents`` from the next reset on (``None``: uniform random); drops any
        sampler. Callable through ``VecEnv.env_method("set_opponents", ...)``."""
        self.opponent_sampler = None
        self._default_opponents = self._rival_list(
            _UniformRandom() if opponents is None else opponents
        )

    def set_opponent_sampler(self, sampler: OpponentSampler | None) -> None:
        """Draw opponents with ``sampler`` from the next reset on (``None``: back to the fixed
        opponents). Callable through ``VecEnv.env_method("set_opponent_sampler", ...)``."""
        self.opponent_sampler = sampler

    @property
    def opponents(self) -> list[Opponent]:
        """This episode's opponents, one per rival seat in seat order."""
        return list(self._opponents)

    @property
    def seat(self) -> int:
        """The learner's engine seat in the current episode."""
        return self._seat

    @property
    def state(self) -> FortState:
        """The live engine state (read it, do not change it; :meth:`fort_state` copies)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def fort_state(self) -> FortState:
        """A copy of the engine state."""
        return self.state.clone()

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game and play the opponents up to the learner's first decision.

        Args:
            seed: the env's base seed (its deals and seat rotation start again; the module
                docstring's "Seeding"): ``None`` or an int in ``[0, 2**62)``
                (``fort_env.game.inputs.check_seed``; not a bool).
            options: ``{"seat": k}`` seats the learner at ``k`` for this episode only.

        Raises:
            ConfigError: a seed that is not ``None`` or an int in range, or a bad seat.

        Returns:
            The learner's observation (float32 ``(D,)``) and ``info`` (``seat``,
            ``action_mask`` int8 ``(N,)``, ``game_seed``).
        """
        if seed is not None:
            seed = check_seed(seed)  # the one seed range (True, 1.5, -1 are not seeds)
        super().reset(seed=seed)
        rng = self.np_random
        if seed is not None or self._base_seed is None:  # never seeded: a base from entropy
            self._base_seed = seed if seed is not None else draw_game_seed(rng)
            self._games = 0
        base, n = self._base_seed, self.num_players
        if options and options.get("seat") is not None:
            self._seat = int(options["seat"])
            if not 0 <= self._seat < self.num_players:
                raise ConfigError(f"seat must be in [0, {self.num_players}), got {self._seat}")
        elif self.fixed_seat is not None:
            self._seat = self.fixed_seat
        else:
            self._seat = (base % n + self._games % n) % n  # batch.h's rotation
        if self.opponent_sampler is not None:
            self._opponents = self._rival_list(self.opponent_sampler(rng, self.num_players - 1))
        else:
            self._opponents = list(self._default_opponents)
        for opponent in self._opponents:
            seed_fn = getattr(opponent, "seed", None)
            if callable(seed_fn):
                seed_fn(int(rng.integers(2**32)))
        for _ in range(100):  # a game that ends before the learner acts is dealt again
            self._game_seed = EventRng(base, self._games).below(SEED_LIMIT)
            self._games += 1
            self._state = self.game.new_initial_state(self._game_seed, self.first_player)
            self._play_opponents()
            if not self._state.is_terminal():
                break
        else:  # pragma: no cover - the rules give every seat a turn
            raise RuntimeError("the learner never got a decision in 100 deals")
        self._potential = self._phi() if self.shaping else 0.0
        self._ended = False
        return self._observe(), self._info()

    def step(
        self, action: int | np.integer
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Take the learner's ``action``, then let the opponents act until the learner's next
        decision or the end of the game.

        Returns:
            ``(observation, reward, terminated, truncated, info)``, all of the learner's seat.

        Raises:
            RuntimeError: the episode is over (the game ended, or an illegal action ended
                it): call ``reset()``.
            TypeError: ``action`` is not an int or numpy integer (a float, str, bool...).
        """
        state = self.state
        if state.is_terminal() or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        a = as_action(action)
        if not is_legal(a, self._mask):
            self._ended = True
            info = self._info()
            info["illegal_action"] = True
            self._mask = np.zeros_like(self._mask)
            info["action_mask"] = _terminal_info_mask(self._mask)
            return self._observe(), self.illegal_reward, True, False, info
        state.apply_action(a)
        self._play_opponents()
        reward = 0.0
        if self.shaping:
            potential = self._phi()
            reward += self.shaping * (potential - self._potential)
            self._potential = potential
        terminated = state.is_terminal()
        info = self._info()
        if terminated:
            reward += float(final_rewards(state, self.reward_mode)[self._seat])
            winners = state.winners()
            info["won"] = self._seat in winners
            info["winners"] = winners
            breakdown = state.score_breakdown()
            info["scores"] = [row["total"] for row in breakdown]  # per seat, this episode's end
            info["score_breakdown"] = breakdown
            info["opponents"] = [getattr(o, "name", repr(o)) for o in self._opponents]
            info["action_mask"] = _terminal_info_mask(self._mask)
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: bool ``(N,)`` (all False once the game is over)."""
        return self._mask.copy()

    def render(self) -> str | None:
        """The table as text from the learner's point of view (the whole table at the end)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render mode: pass render_mode='ansi'")
            return None
        state = self.state
        viewer = None if state.is_terminal() else self._seat
        text = f"learner: player_{self._seat}\n" + state_to_string(state, viewer=viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> None:
        """Let opponents decide until the learner must act or the game is over; refresh the
        learner's mask."""
        state = self.state
        seat = self._seat
        while not state.is_terminal():
            actor = state.current_player()
            if actor == seat:
                self._mask = state.legal_actions_mask()
                return
            opponent = self._opponents[actor if actor < seat else actor - 1]
            info = self.opponent_info(state, actor)
            observation = _LazyObservation(state, actor, info["action_mask"])
            state.apply_action(_act(opponent, observation, info))
        self._mask = np.zeros(self.game.num_distinct_actions, dtype=bool)

    def _observe(self) -> np.ndarray:
        return self.state.observation_tensor(self._seat)

    def _info(self) -> dict[str, Any]:
        return {
            "seat": self._seat,
            "action_mask": self._mask.astype(np.int8),
            "game_seed": self._game_seed,
        }

    def _phi(self) -> float:
        """The shaping potential: (learner total - best rival total) / 25."""
        totals = [row["total"] for row in self.state.score_breakdown()]
        mine = totals[self._seat]
        best = max(t for p, t in enumerate(totals) if p != self._seat)
        return (mine - best) / SCORE_MARGIN_SCALE
