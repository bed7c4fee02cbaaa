"""Gymnasium's vector API over the C++ batch: ``gymnasium.make_vec("fort_env/Fort-v0", ...)``.

:class:`FortVectorEnv` is a :class:`gymnasium.vector.VectorEnv` of B single-agent games (the
games of :class:`~fort_env.envs.single_agent.SingleAgentEnv`: one learner seat against
opponents) stepped together in C++ by :class:`~fort_env.envs.vector.FortBatchVecEnv`, which
it drives. It is the ``vector_entry_point`` of ``fort_env/Fort-v0``::

    envs = gymnasium.make_vec(
        "fort_env/Fort-v0", num_envs=16, vectorization_mode="vector_entry_point", num_players=2
    )
    obs, infos = envs.reset(seed=0)                     # obs float32 (B, D)
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions int (B,)

Autoreset (``metadata["autoreset_mode"]``): ``AutoresetMode.SAME_STEP``. A game that ends in a
step is replaced by the env's next game in that same step: the observation returned is the new
game's first, and the ended game's last observation and info are ``infos["final_obs"][i]`` and
``infos["final_info"]`` (masked by ``infos["_final_obs"]``), as Gymnasium's ``SyncVectorEnv``
writes them in that mode. So every observation returned is a decision of a live game, and
**no all-zero mask reaches a policy**: ``infos["action_mask"]`` (bool ``(B, N)``) and
:meth:`action_masks` are always the current games' learner masks, each with at least one legal
action (the mask of an ended game, all zeros, is in ``final_info`` only).

Infos (dict of arrays, Gymnasium's vector form): ``action_mask`` bool ``(B, N)``, ``seat`` int64
``(B,)`` (the learner's seat), ``game_seed`` int64 ``(B,)``; where a game ended, ``final_obs``
and ``final_info`` with ``won`` (bool), ``illegal_action`` (bool), ``winners`` (a list),
``scores`` (each seat's total) and ``score_breakdown`` (``FortState.score_breakdown()``'s
rows: ``track``, ``fort_level``, ``made_up_rule``, ``macaroni``, ``total``, ``level``).
``truncations`` are always ``False``: a game ends by the rules, never by a step limit.

Rewards, opponents, seats, shaping and illegal actions are ``SingleAgentEnv``'s (its module
docstring is the spec). It needs the compiled core and stable-baselines3 (the ``train`` extra),
on which ``FortBatchVecEnv`` is built; for SB3 use ``FortBatchVecEnv`` itself.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fort_env.game.errors import ConfigError
from fort_env.game.inputs import check_seed

__all__ = ["FortVectorEnv"]

# step()'s result: observations, rewards, terminations, truncations, infos
_StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]


class FortVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """B Fort games behind Gymnasium's ``VectorEnv`` API (module docstring).

    Threads: calls from several Python threads are serialised, not refused. ``reset``,
    ``step``, ``action_masks`` and ``close`` hold one lock (a ``threading.RLock``) for the whole
    call, the reading of the returned arrays and infos included, so each call's results are
    those of its own step, and the calls of several threads take effect one after another, as
    if made in that order from one thread. One ``step`` steps all B games, so actions a thread
    chose from a mask that another thread's step has since changed are judged against the
    games as they are then (an illegal one ends its game with ``illegal_reward``). Before the
    lock, threads stepping one env got a ``KeyError`` from inside it.

    Args:
        num_envs: B, at least 1.
        threads: threads stepping the games in C++ (1: the caller's only).
        **kwargs: :class:`~fort_env.envs.vector.FortBatchVecEnv`'s (``num_players``, ``setup``,
            ``opponents``, ``opponent_sampler``, ``seat``, ``first_player``, ``reward``,
            ``shaping``, ``illegal_reward``, ``cards``, ``opponent_info``, ``reward_fn``: a
            batched reward function, ``fort_env.envs.reward_hooks``; it may call
            :meth:`action_masks`, not ``step``, ``reset`` or ``close``: ``RuntimeError``).

    Raises:
        ConfigError: a bad argument, no compiled core, or no stable-baselines3.
        ValueError: ``num_envs < 1``.
    """

    metadata = {  # noqa: RUF012  (VectorEnv declares it an instance attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(self, num_envs: int, *, threads: int = 1, **kwargs: Any) -> None:
        try:
            from fort_env.envs.vector import FortBatchVecEnv
        except ImportError as exc:  # stable-baselines3 is in the train extra
            raise ConfigError(
                f"FortVectorEnv needs stable-baselines3 (pip install 'fort-env[train]'): {exc}"
            ) from None
        kwargs.pop("render_mode", None)  # gymnasium.make_vec passes it; nothing is rendered
        # one call at a time (the class docstring's "Threads"); reentrant: a reward_fn may read
        # the env (action_masks) from inside the step that calls it
        self._lock = threading.RLock()
        # the last step whose reward_fn raised, as step() would have returned it (built-in
        # rewards): the games took that step, so it is kept rather than lost
        self.failed_step: _StepResult | None = None
        self._batch = FortBatchVecEnv(num_envs, threads=threads, **kwargs)
        self.game = self._batch.game
        self.num_envs = self._batch.num_envs
        self.single_observation_space = self._batch.observation_space
        self.single_action_space = self._batch.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._started = False

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every env a new game.

        Args:
            seed: an int s seeds env i with ``s + i``; a list seeds env by env (``None``
                entries unseeded); ``None`` leaves the envs as they are (unseeded envs draw
                fresh entropy).
            options: not used (must be ``None`` or empty).

        Returns:
            ``(observations float32 (B, D), infos)``.

        Raises:
            ConfigError, TypeError: a bad seed (as ``FortGame.new_initial_state``), options.
        """
        if options:
            raise ConfigError(f"FortVectorEnv.reset takes no options, got {sorted(options)}")
        with self._lock:
            self._batch._outside_reward_fn("reset()")
            return self._reset(seed)

    def _reset(self, seed: int | list[int | None] | None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            if isinstance(seed, list):
                if len(seed) != self.num_envs:
                    raise ConfigError(
                        f"seed: a list of {self.num_envs} seeds (one per env), got {len(seed)}"
                    )
                seeds = [None if s is None else check_seed(s) for s in seed]
            else:
                base = check_seed(seed)
                seeds = [check_seed(base + i) for i in range(self.num_envs)]
            self._batch._seeds = seeds  # SB3 VecEnv.seed()'s store, read by its next reset()
        obs = np.asarray(self._batch.reset())  # float32 (B, D)
        self._started = True
        return obs, self._infos(np.zeros(self.num_envs, dtype=bool))

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply the learners' actions (integers, shape ``(B,)``).

        Returns:
            ``(observations float32 (B, D), rewards float64 (B,), terminations bool (B,),
            truncations bool (B,), infos)``; ended games are replaced in the same step
            (module docstring).

        Raises:
            RuntimeError: ``reset()`` was not called first, or a call from inside
                ``reward_fn``.
            TypeError, ValueError: actions that are not integers of shape ``(B,)``.
            ConfigError: ``reward_fn`` returned other than B finite real numbers; and
                whatever ``reward_fn`` raised. The games took the step all the same: what it
                would have returned (with the built-in rewards) is kept in ``failed_step``
                (``None`` after a step that returned), and the env goes on from it.
        """
        with self._lock:
            return self._step(actions)

    def _step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        self._batch._outside_reward_fn("step()")
        self.failed_step = None
        try:
            result, rewards, dones, _ = self._batch.step(np.asarray(actions))
        except BaseException:
            failed = self._batch.failed_step
            if failed is not None:  # reward_fn raised: keep the step, in this API's form
                obs, built_in, ended, _ = failed
                self.failed_step = (
                    np.asarray(obs), built_in.astype(np.float64), ended.astype(bool),
                    np.zeros(self.num_envs, dtype=bool), self._infos(ended),
                )  # fmt: skip
            raise
        obs = np.asarray(result)  # float32 (B, D)
        terminations = dones.astype(bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards.astype(np.float64), terminations, truncations, self._infos(dones)

    def _infos(self, dones: np.ndarray) -> dict[str, Any]:
        buf = self._batch._buf
        infos: dict[str, Any] = {
            "action_mask": buf["mask"].copy(),
            "seat": buf["seat"].astype(np.int64),
            "game_seed": buf["game_seed"].astype(np.int64),
        }
        if dones.any():
            for i, info in zip(np.flatnonzero(dones).tolist(), self._ended(dones), strict=True):
                final = dict(info)
                final_obs = final.pop("terminal_observation")
                final["action_mask"] = np.zeros(self.game.num_distinct_actions, dtype=bool)
                infos = self._add_info(infos, {"final_obs": final_obs, "final_info": final}, i)
        return infos

    def _ended(self, dones: np.ndarray) -> list[dict[str, Any]]:
        infos = self._batch._infos(dones)
        out = []
        for i in np.flatnonzero(dones).tolist():
            info = infos[i]
            out.append(
                {
                    "terminal_observation": info["terminal_observation"],
                    "seat": info["seat"],
                    "game_seed": info["game_seed"],
                    "won": bool(info.get("won", False)),
                    "illegal_action": bool(info.get("illegal_action", False)),
                    "winners": info.get("winners", []),
                    "scores": info.get("scores", []),
                    "score_breakdown": info.get("score_breakdown", []),
                }
            )
        return out

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions in the current games: bool ``(B, N)``, each row with at
        least one ``True``."""
        with self._lock:
            return self._batch.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the C++ worker threads."""
        with self._lock:
            self._batch.close()  # RuntimeError from inside reward_fn, before anything stops
