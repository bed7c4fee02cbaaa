"""A batched vector env for Stable-Baselines3 and sb3-contrib's MaskablePPO.

``FortVecEnv`` steps B single-agent games (:class:`fort_env.envs.single_agent.SingleAgentEnv`,
learner against opponents) together in one process: ``reset()`` returns observations ``(B, D)``
float32, ``step(actions)`` returns observations ``(B, D)``, rewards ``(B,)``, dones ``(B,)``
and infos, with finished games reset automatically (the last observation of a finished game is
in ``infos[i]["terminal_observation"]``, SB3's convention), and ``action_masks()`` returns the
learner masks ``(B, N)`` bool in one call.

It is SB3's ``DummyVecEnv`` (a well-kept, tested implementation of the VecEnv protocol) with
the mask method added, so ``MaskablePPO(policy, FortVecEnv(...))`` works without the
``ActionMasker`` wrapper or SuperSuit's vector envs, which do not pass masks through.

``FortBatchVecEnv`` is the same API over the compiled core's ``_core.Batch``: the B games are
stepped in C++ in one call with the GIL released, built-in opponents played there too, and
Python opponents called in groups (its docstring; ``cpp/include/fort/envs/batch.h``).
Requires the ``train`` extra (stable-baselines3).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from fort_env.core import FortGame, FortState
from fort_env.envs.checks import check_shaping
from fort_env.envs.obs_space import observation_box
from fort_env.envs.opponent_specs import resolve_opponents
from fort_env.envs.reward_hooks import RewardFn, StepEvents, apply_reward_fn
from fort_env.envs.rewards import ILLEGAL_ACTION_REWARD, REWARD_MODES
from fort_env.envs.single_agent import Opponent, OpponentSampler, SingleAgentEnv, minimal_info
from fort_env.game.errors import ConfigError, IllegalActionError
from fort_env.game.inputs import SEED_RANGE, check_seed
from fort_env.native import backend as cpp_backend
from fort_env.native.policies import POLICIES
from fort_env.views.scoring import score_rows

if TYPE_CHECKING:
    import fort_env.native._core as _core  # its stub _core.pyi (not a from-import: backend.py)


class FortVecEnv(DummyVecEnv):
    """B games of :class:`SingleAgentEnv` stepped together.

    Args:
        num_envs: B, the number of games.
        seed: seeds game i with ``seed + i`` at the first reset (``None``: unseeded).
        **env_kwargs: passed to every :class:`SingleAgentEnv` (``num_players``, ``opponents``,
            ``reward``, ...).
    """

    def __init__(self, num_envs: int, seed: int | None = None, **env_kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        super().__init__([lambda: SingleAgentEnv(**env_kwargs) for _ in range(num_envs)])
        if seed is not None:
            self.seed(seed)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game: bool, shape ``(B, N)``."""
        return np.stack([env.action_masks() for env in self.envs])  # type: ignore[attr-defined]

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        # MaskablePPO asks every env for its mask through env_method("action_masks").
        if method_name == "action_masks" and indices is None and not method_args:
            return list(self.action_masks())
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)


# --------------------------------------------------------------------------- the C++ batch
def _rival_list(opponents: Opponent | Sequence[Opponent], rivals: int) -> list[Opponent]:
    """One opponent per rival seat (``SingleAgentEnv``'s rule: one for all, or one each)."""
    if isinstance(opponents, Sequence) and not isinstance(opponents, str):
        if len(opponents) != rivals:
            raise ConfigError(
                f"{len(opponents)} opponents for {rivals} rival seats: give one opponent "
                "for all of them or one per rival seat"
            )
        return list(opponents)
    return [opponents] * rivals


def opponent_code(opponent: Opponent) -> int:
    """How :class:`FortBatchVecEnv` plays ``opponent``: a built-in policy's code (it plays in
    C++: ``None`` is ``"random"``, a name of ``fort_env.native.policies.POLICIES``, or an object
    whose ``cpp_policy`` attribute names one) or ``EXTERNAL`` (-1: Python calls it).

    Raises:
        ConfigError: a string that names no built-in policy.
    """
    if opponent is None:
        return cpp_backend.policy_code("random")
    if isinstance(opponent, str):
        return cpp_backend.policy_code(opponent)
    name = getattr(opponent, "cpp_policy", None)
    if isinstance(name, str):
        return cpp_backend.policy_code(name)
    return EXTERNAL


_Method = TypeVar("_Method", bound=Callable[..., Any])


def serialised(method: _Method) -> _Method:
    """``method`` run holding its object's ``_lock`` (a ``threading.RLock``): calls from
    several threads run one at a time, each whole (:class:`FortBatchVecEnv`'s "Threads")."""

    @functools.wraps(method)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return cast(_Method, locked)


def _opponent_name(opponent: Opponent) -> str:
    if opponent is None:
        return "random"
    if isinstance(opponent, str):
        return opponent
    return str(getattr(opponent, "name", repr(opponent)))


EXTERNAL = -1  # _core.EXTERNAL: a seat Python acts for


class FortBatchVecEnv(VecEnv):
    """B single-agent Fort games stepped together in C++ (``_core.Batch``), the GIL released.

    The same games as B :class:`~fort_env.envs.single_agent.SingleAgentEnv` (learner seat,
    opponents, rewards and shaping, illegal actions: its docstring), behind SB3's ``VecEnv`` API
    with sb3-contrib's ``action_masks()``: ``reset()`` returns observations float32 ``(B, D)``,
    ``step(actions)`` (actions: integers ``(B,)``) returns observations ``(B, D)``, rewards
    float32 ``(B,)``, dones bool ``(B,)`` and infos; a finished game is replaced by the env's
    next one at once (its last observation in ``infos[i]["terminal_observation"]``).
    ``action_masks()`` is bool ``(B, N)``. Needs the compiled core and the ``train`` extra.

    Opponents: a built-in policy (``None`` or ``"random"``, or an agent whose ``cpp_policy``
    attribute names one, as ``agents.RandomAgent``: see :func:`opponent_code`) plays inside
    C++; another spec string (``"ppo"``) is built as an agent by the bot zoo's registry
    (``fort_env.envs.opponent_specs``); any other opponent (an agent or a callable
    ``(observation, info) -> action``) is
    called from Python for each decision of its seat, with the envs waiting for it grouped:
    an opponent with ``act_batch(observations (K, D), masks (K, N) bool) -> K actions`` (a
    frozen policy: one forward pass) acts for its whole group at once, others env by env with
    ``act(observation, info)`` (``info`` from ``opponent_info``, on a copy of the state). An
    opponent with ``join_table(game)`` is told the game (a ``FortGame``) before each game it
    plays: the bare zoo ``ppo`` then loads the model for the table's size and batches like any
    frozen policy.
    ``opponent_sampler(rng, num_rivals)`` draws each env's opponents one game ahead (C++ deals
    a finished game's successor at once); ``env_method("set_opponent_sampler", s)`` and
    ``env_method("set_opponents", o)`` apply from each env's next game on.

    Infos: every step ``seat`` (the learner's) and ``game_seed``; when ``dones[i]``, of the
    game that ended: ``seat``, ``game_seed``, ``terminal_observation``, and ``won``,
    ``winners``, ``scores`` (each seat's total), ``score_breakdown`` (``FortState.
    score_breakdown()``'s rows, from the batch's ``end_scores`` buffer), ``opponents`` (names,
    seat order) or ``illegal_action: True``. Wrap it in
    SB3's ``VecMonitor`` for episode returns and lengths (``infos[i]["episode"]``).

    Seeds (``cpp/include/fort/envs/batch.h``): env i seeded with s (``seed()`` gives s + i at the
    next ``reset()``, SB3's convention; unseeded envs draw s from fresh entropy) deals its k-th
    game from ``EventRng(s, k).below(2**62)``, seats the learner at ``(s mod n + k) mod n``
    (``seat=None``), and draws its Python opponents from ``numpy.random.default_rng(s)``; the
    built-in policies draw from the game's seed. The same seeds and actions give the same
    games whatever ``threads`` is.

    Threads: the env serialises calls from several Python threads. ``reset``, ``step`` (its
    ``step_async`` and ``step_wait`` together), ``seed``, ``action_masks``, ``set_opponents``,
    ``set_opponent_sampler``, ``state`` and ``close`` hold one lock (a ``threading.RLock``), so
    each call runs whole and the calls of several threads take effect one after another, as if
    made in that order from one thread (one ``step`` steps all B games; a thread's actions
    chosen from a mask that another thread's step has since changed are judged against the
    games as they are then, and may be illegal). ``step_async`` from one thread and
    ``step_wait`` from another are not paired: use ``step``. Before this lock, two threads
    stepping one env corrupted its bookkeeping (a ``KeyError`` from ``_infos``).

    Args:
        num_envs: B.
        seed: as ``seed(seed)`` before the first ``reset()`` (``None``: unseeded).
        num_players, setup, opponents, opponent_sampler, seat, first_player, reward, shaping,
            illegal_reward, cards, opponent_info: as :class:`SingleAgentEnv`'s
            (``opponents=None``: uniform random, built in).
        threads: threads stepping the games in C++ (1: the caller's only).
        reward_fn: a batched reward function (``fort_env.envs.reward_hooks``): each step's
            rewards become ``reward_fn(StepEvents)``, computed over all B games in numpy. It
            may read the env (``action_masks()``, ``state(i)``: the lock is reentrant), not
            step, reset or close it (``RuntimeError``). If it raises, the step still happened:
            ``failed_step`` keeps what the step would have returned (``step_wait``).

    Raises:
        ConfigError: as ``SingleAgentEnv`` for a bad argument, or without the compiled core;
            a ``reward_fn`` that is not callable (or, at a step, returns other than B finite
            numbers).
        ValueError: ``num_envs < 1`` or ``threads`` outside ``[1, 256]``.
    """

    def __init__(
        self,
        num_envs: int,
        seed: int | None = None,
        *,
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
        opponent_info: Callable[[FortState, int], Mapping[str, Any]] | None = None,
        threads: int = 1,
        reward_fn: RewardFn | None = None,
    ) -> None:
        if reward_fn is not None and not callable(reward_fn):
            raise ConfigError(f"reward_fn must be callable, got {type(reward_fn).__name__}")
        self.reward_fn = reward_fn
        # the last step whose reward_fn raised, as step() would have returned it (built-in
        # rewards): the games took that step, so it is kept rather than lost
        self.failed_step: VecEnvStepReturn | None = None
        self._in_reward_fn = False  # reward_fn is running (inside a step)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self._lock = threading.RLock()  # one call at a time (the class docstring's "Threads")
        shaping = check_shaping(shaping)  # |shaping| <= MAX_SHAPING: rewards stay finite
        game = FortGame(num_players, setup, None if cards is None else str(cards), backend="cpp")
        self.game = game
        self.num_players = num_players
        self._batch: _core.Batch = cpp_backend.require().Batch(
            cpp_backend.core_game(game),
            int(num_envs),
            seat=seat,
            first_player=first_player,
            reward=reward,
            shaping=shaping,
            illegal_reward=illegal_reward,
            threads=threads,
        )
        self._buf: dict[str, np.ndarray] = self._batch.buffers()
        self._ids = np.arange(num_envs, dtype=np.int64)
        self.opponent_info = opponent_info or minimal_info
        self.opponent_sampler = opponent_sampler
        self._built: dict[str, Opponent] = {}  # agents built from spec strings, by spec
        self._default = self._rivals(opponents)
        for opponent in self._default:
            opponent_code(opponent)  # a name must be a built-in policy's
        self._now: list[list[Opponent]] = [list(self._default) for _ in range(num_envs)]
        self._next: list[list[Opponent]] = [list(self._default) for _ in range(num_envs)]
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]
        self._seeded = [False] * num_envs
        self._actions: np.ndarray | None = None
        self._ended_opponents: dict[int, list[Opponent]] = {}  # env -> its ended game's
        self._started = False
        self.render_mode = None
        super().__init__(
            num_envs, observation_box(game), spaces.Discrete(game.num_distinct_actions)
        )
        if seed is not None:
            self.seed(seed)

    # ------------------------------------------------------------------ opponents
    def _draw(self, i: int) -> list[Opponent]:
        """Env i's opponents for a game (its sampler's draw, or the fixed ones)."""
        if self.opponent_sampler is None:
            return list(self._default)
        return self._rivals(self.opponent_sampler(self._rngs[i], self.num_players - 1))

    def _rivals(self, opponents: Opponent | Sequence[Opponent]) -> list[Opponent]:
        """One opponent per rival seat; a spec string that names no built-in policy built as
        an agent (``fort_env.envs.opponent_specs``), once per spec for the env's life."""
        rivals = _rival_list(opponents, self.num_players - 1)
        return resolve_opponents(rivals, POLICIES, self._built)

    def _push_next(self, envs: Sequence[int]) -> None:
        """Hand the ``_next`` opponents of ``envs`` to C++ (used from each one's next deal)."""
        codes = np.array([[opponent_code(o) for o in self._next[i]] for i in envs], np.int32)
        self._batch.set_opponents(
            np.asarray(envs, dtype=np.int64), codes.reshape(len(envs), self.num_players - 1)
        )

    def _start_games(self, envs: Sequence[int]) -> None:
        """C++ dealt ``envs`` a new game with their ``_next`` opponents: those become the
        current ones (seeded from the env's generator, as ``SingleAgentEnv.reset`` does) and
        the game after is drawn."""
        for i in envs:
            self._now[i] = self._next[i]
            for opponent in self._now[i]:
                seed_fn = getattr(opponent, "seed", None)
                if callable(seed_fn) and opponent_code(opponent) == EXTERNAL:
                    seed_fn(int(self._rngs[i].integers(2**32)))
                join = getattr(opponent, "join_table", None)
                if callable(join) and opponent_code(opponent) == EXTERNAL:
                    join(self.game)  # e.g. the bare zoo ``ppo`` loads the table size's model
            self._next[i] = self._draw(i)
        if len(envs):
            self._push_next(envs)

    @serialised
    def set_opponents(
        self, opponents: Opponent | Sequence[Opponent] | None, indices: VecEnvIndices = None
    ) -> None:
        """Use ``opponents`` in the envs ``indices`` from their next game on (drops the
        sampler). ``ConfigError`` for a wrong count or an unknown built-in name."""
        rivals = self._rivals(opponents)
        for o in rivals:
            opponent_code(o)
        self.opponent_sampler = None
        self._default = rivals
        envs = list(self._get_indices(indices))
        for i in envs:
            self._next[i] = list(rivals)
        self._push_next(envs)

    @serialised
    def set_opponent_sampler(
        self, sampler: OpponentSampler | None, indices: VecEnvIndices = None
    ) -> None:
        """Draw opponents with ``sampler`` (``None``: the fixed ones) from each env's next
        game on."""
        self.opponent_sampler = sampler
        envs = list(self._get_indices(indices))
        for i in envs:
            self._next[i] = self._draw(i)
        self._push_next(envs)

    def _play_external(self, handled: np.ndarray) -> None:
        """Let the Python opponents act until every env waits for the learner."""
        buf = self._buf
        while True:
            outside = buf["actor"] != buf["seat"]
            if not outside.any():  # (every opponent built in: the usual case, one check)
                return
            waiting = np.flatnonzero(outside)
            actions = self._external_actions(waiting)
            self._batch.step(waiting, actions, buf, obs_kept=True)
            self._after_call(handled)

    def _external_actions(self, waiting: np.ndarray) -> np.ndarray:
        """The actions of the opponents to act in ``waiting`` envs, grouped by opponent.

        Raises:
            IllegalActionError: an opponent chose an action its mask does not allow (nothing
                applied).
        """
        buf = self._buf
        actors = buf["actor"][waiting].astype(np.int64)
        rivals = actors - (actors > buf["seat"][waiting])  # rival index: the learner skipped
        groups: dict[int, tuple[Opponent, list[int]]] = {}
        now = self._now
        for k, (i, r) in enumerate(zip(waiting.tolist(), rivals.tolist(), strict=True)):
            opponent = now[i][r]
            group = groups.get(id(opponent))
            if group is None:
                groups[id(opponent)] = (opponent, [k])
            else:
                group[1].append(k)
        actions = np.empty(waiting.size, dtype=np.int64)
        for opponent, ks in groups.values():
            envs = waiting[ks]
            act_batch = getattr(opponent, "act_batch", None)
            if act_batch is not None:
                chosen = act_batch(buf["obs"][envs], buf["mask"][envs])
                actions[ks] = np.asarray(chosen, dtype=np.int64).reshape(len(ks))
                continue
            act = getattr(opponent, "act", None)
            for k, i in zip(ks, envs.tolist(), strict=True):
                state = cpp_backend.wrap_core_state(self.game, self._batch.state(i))
                info = self.opponent_info(state, int(actors[k]))
                observation = {
                    "observation": buf["obs"][i].copy(),
                    "action_mask": buf["mask"][i].astype(np.int8),
                }
                actions[k] = int(
                    act(observation, info) if act is not None else opponent(observation, info)
                )
        n = buf["mask"].shape[1]
        legal = (actions >= 0) & (actions < n)
        legal[legal] = buf["mask"][waiting[legal], actions[legal]]
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            i, p = int(waiting[k]), int(actors[k])
            name = _opponent_name(now[i][int(rivals[k])])
            raise IllegalActionError(
                int(actions[k]),
                self.state(i).decision.kind.name,
                f"not legal for seat {p} of env {i} (chosen by opponent {name!r})",
            )
        return actions

    def _after_call(self, handled: np.ndarray) -> None:
        """Envs whose learner episode ended in the last call were dealt their next game."""
        done = self._buf["done"]
        if not done.any():  # most steps end no episode (one in ~180 decisions per env)
            return
        fresh = np.flatnonzero(done & ~handled)
        if fresh.size:
            handled[fresh] = True
            self._ended_opponents.update({int(i): self._now[i] for i in fresh})
            self._start_games(fresh.tolist())

    # ------------------------------------------------------------------ VecEnv API
    @serialised
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed env i with ``seed + i`` at the next ``reset()`` (SB3's convention; ``None``:
        a random 32-bit ``seed``). Returns the seeds.

        Raises:
            ConfigError: ``seed`` is not a seed (``FortGame.new_initial_state``'s check and
                words: an int or numpy integer in ``[0, 2**62)``, not a bool), or
                ``seed + num_envs > 2**62``; nothing changed.
        """
        if seed is None:
            return super().seed(None)
        first = check_seed(seed)
        if first + self.num_envs > 2**62:
            raise ConfigError(
                f"seed + num_envs must be at most 2**62 (env i uses seed + i, {SEED_RANGE}), "
                f"got seed {first} and num_envs {self.num_envs}"
            )
        return super().seed(first)

    def _outside_reward_fn(self, what: str) -> None:
        """Refuse ``what`` (a call that changes the games) while ``reward_fn`` runs: the lock is
        reentrant, so that a ``reward_fn`` may read the env (``action_masks``, ``state``), but
        stepping or resetting in the middle of a step would corrupt it.

        Raises:
            RuntimeError: ``reward_fn`` is running.
        """
        if self._in_reward_fn:
            raise RuntimeError(
                f"{what} cannot be called from inside reward_fn (it runs in the middle of a "
                "step); a reward_fn may read the env (action_masks(), state(i)), not change it"
            )

    @serialised
    def reset(self) -> VecEnvObs:
        """Deal every env a new game (seeds from ``seed()``, if called since the last reset)
        and play its opponents up to the learner's first decision.

        Returns:
            The learner observations, float32 ``(B, D)``.

        Raises:
            ValueError: a seed outside ``[0, 2**63)`` (nothing changed).
            RuntimeError: the env was closed.
            IllegalActionError: a Python opponent chose an illegal action (reset again).
        """
        self._outside_reward_fn("reset()")
        if self._batch is None:
            raise RuntimeError("this FortBatchVecEnv is closed")
        for i, s in enumerate(self._seeds):
            if s is not None and not 0 <= int(s) < 2**63:
                raise ValueError(f"seed of env {i} must be in [0, 2**63), got {s}")
        self._started = False
        seeds = np.full(self.num_envs, -1, dtype=np.int64)
        for i, s in enumerate(self._seeds):
            if s is None and not self._seeded[i]:
                s = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
            if s is not None:
                seeds[i] = int(s)
                self._rngs[i] = np.random.default_rng(int(s))
                self._seeded[i] = True
        for i in range(self.num_envs):
            self._next[i] = self._draw(i)
        self._push_next(range(self.num_envs))
        self._batch.reset(self._ids, seeds, self._buf)
        self._ended_opponents = {}
        self._start_games(range(self.num_envs))
        self._play_external(np.zeros(self.num_envs, dtype=bool))
        self._reset_seeds()
        self._reset_options()
        self._started = True
        buf = self._buf
        self.reset_infos = [
            {"seat": int(buf["seat"][i]), "game_seed": int(buf["game_seed"][i])}
            for i in range(self.num_envs)
        ]
        return buf["obs"].copy()

    @serialised
    def step(self, actions: np.ndarray) -> VecEnvStepReturn:
        """``step_async(actions)`` then ``step_wait()``, under one hold of the lock (the class
        docstring's "Threads"): another thread's call cannot come in between."""
        self.step_async(actions)
        return self.step_wait()

    @serialised
    def step_async(self, actions: np.ndarray) -> None:
        self._outside_reward_fn("step()")
        a = np.asarray(actions)
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got an array of dtype {a.dtype}")
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        self._actions = a

    @serialised
    def step_wait(self) -> VecEnvStepReturn:
        """Apply the learner's actions, play the opponents up to each learner's next decision
        (dealing the next game where one ended).

        Raises:
            RuntimeError: ``reset()`` was not called first (or since a failed step), or a
                call from inside ``reward_fn``.
            IllegalActionError: a Python opponent chose an illegal action: nothing of it was
                applied, but the learners' actions were, so the envs must be reset.
            ConfigError: ``reward_fn`` returned other than B finite real numbers; and
                whatever ``reward_fn`` raised. The games took the step all the same: what it
                would have returned (with the built-in rewards) is kept in ``failed_step``
                (``None`` after a step that returned), and the env goes on from it.
        """
        self._outside_reward_fn("step()")
        self.failed_step = None
        if not self._started or self._actions is None:
            raise RuntimeError("call reset() before step()")
        actions, self._actions = self._actions, None
        buf = self._buf
        handled = np.zeros(self.num_envs, dtype=bool)
        self._ended_opponents = {}
        self._started = False  # until every env waits for its learner again
        self._batch.step(self._ids, actions, buf, obs_kept=True)
        self._after_call(handled)
        self._play_external(handled)
        self._started = True
        dones = buf["done"].copy()
        rewards = buf["reward"].copy()
        obs, infos = buf["obs"].copy(), self._infos(dones)
        if self.reward_fn is not None:
            self._in_reward_fn = True
            try:
                rewards = apply_reward_fn(self.reward_fn, self._events(dones, rewards))
            except BaseException as err:
                self.failed_step = (obs, rewards, dones, infos)
                err.add_note(
                    "The games took this step: its observations, dones, infos and built-in "
                    "rewards are in the env's failed_step."
                )
                raise
            finally:
                self._in_reward_fn = False
        return obs, rewards, dones, infos

    def _events(self, dones: np.ndarray, rewards: np.ndarray) -> StepEvents:
        """The step as ``reward_fn`` sees it (``reward_hooks.StepEvents``)."""
        buf = self._buf
        ended = buf["end_info"]
        seat = np.where(dones, ended[:, 0], buf["seat"]).astype(np.int64)
        won = dones & ~buf["illegal"] & ((ended[:, 2] >> seat) & 1).astype(bool)
        arrays = {
            "reward": rewards.copy(),
            "done": dones.copy(),
            "illegal": buf["illegal"].copy(),
            "seat": seat,
            "won": won,
            "end_scores": buf["end_scores"].copy(),
        }
        for a in arrays.values():
            a.flags.writeable = False
        return StepEvents(**arrays, num_players=self.num_players)

    def _infos(self, dones: np.ndarray) -> list[dict[str, Any]]:
        buf = self._buf
        seats, seeds = buf["seat"].tolist(), buf["game_seed"].tolist()
        infos: list[dict[str, Any]] = [
            {"seat": seat, "game_seed": seed} for seat, seed in zip(seats, seeds, strict=True)
        ]
        if not dones.any():
            return infos
        for i in np.flatnonzero(dones).tolist():
            seat, game_seed, winner_bits = (int(x) for x in buf["end_info"][i])
            info = infos[i]
            info["seat"], info["game_seed"] = seat, game_seed
            info["terminal_observation"] = buf["terminal_obs"][i].copy()
            if buf["illegal"][i]:
                info["illegal_action"] = True
                continue
            winners = [p for p in range(self.num_players) if winner_bits >> p & 1]
            info["won"] = seat in winners
            info["winners"] = winners
            breakdown = score_rows(buf["end_scores"][i], self.num_players)
            info["scores"] = [row["total"] for row in breakdown]
            info["score_breakdown"] = breakdown
            info["opponents"] = [_opponent_name(o) for o in self._ended_opponents[i]]
        return infos

    @serialised
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game: bool ``(B, N)`` (a copy)."""
        return self._buf["mask"].copy()

    @serialised
    def close(self) -> None:
        """Stop the C++ worker threads (the env cannot be used after)."""
        self._outside_reward_fn("close()")
        self._started = False
        self._batch = None  # type: ignore[assignment]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` of this vector env, once per env of ``indices`` (the games share
        their settings). Raises ``AttributeError`` if there is none."""
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Not supported: the games' settings are the ``_core.Batch``'s (``AttributeError``)."""
        raise AttributeError(f"FortBatchVecEnv cannot set {attr_name!r} per env")

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` (one bool ``(N,)`` row per env: MaskablePPO's query),
        ``set_opponents`` and ``set_opponent_sampler`` (for the envs of ``indices``).
        Raises ``AttributeError`` for another method."""
        envs = list(self._get_indices(indices))
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in envs]
        if method_name in ("set_opponents", "set_opponent_sampler"):
            getattr(self, method_name)(*method_args, indices=envs, **method_kwargs)
            return [None for _ in envs]
        raise AttributeError(f"FortBatchVecEnv has no per-env method {method_name!r}")

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """No env is wrapped (the games live in C++): all ``False``."""
        return [False for _ in self._get_indices(indices)]

    @serialised
    def state(self, i: int) -> FortState:
        """A copy of env i's current game (a ``CppFortState``)."""
        return cpp_backend.wrap_core_state(self.game, self._batch.state(i))


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (bool ``(B, N)``, each row with
    a legal action): int64 ``(B,)``, without a Python loop over the rows."""
    flat = np.flatnonzero(masks)
    n = masks.shape[1]
    counts = np.bincount(flat // n, minlength=masks.shape[0])
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    picks = starts + (rng.random(masks.shape[0]) * counts).astype(np.int64)
    actions: np.ndarray = flat[picks] % n
    return actions
