"""The MaskablePPO learner (``algo="maskable_ppo"``): sb3-contrib's masked PPO on the league.

``sb3_contrib.MaskablePPO`` with an MLP policy on the single-agent batched env
(``train.envs.make_vec_env``); the mask is the wrapper's ``action_masks()``.
:class:`SelfPlayCallback` logs namespaced TensorBoard metrics (``league/...``, ``eval/...``,
``charts/...``; SB3 adds ``rollout/``, ``train/``, ``time/``), checkpoints and evaluates
periodically through the tournament runner (``train.evaluation``), updates the league and
keeps the wall-time budget; with ``train.progress.ProgressCallback`` in SB3's
``CallbackList``. (SB3's ``CheckpointCallback`` and ``EvalCallback`` do not save the league
and the resumable counters with the model, nor evaluate by tournament, so they are not used.)
:func:`learn` runs it for ``train.runner.run``.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import VecEnv

from agents.learned.policy_file import load_into_model, save_policy
from fort_env.game.files import make_folders
from train.checkpoints import save_checkpoint
from train.config import NUMPY_SEED_LIMIT, Config, fold_seed
from train.device import learner_device
from train.envs import make_vec_env
from train.evaluation import evaluation_due, periodic_evaluation
from train.league import League, opponent_kind, snapshot_spec
from train.progress import ProgressCallback

__all__ = ["SelfPlayCallback", "learn", "lr_schedule", "make_model"]


def lr_schedule(config: Config) -> Callable[[float], float]:
    """The learning rate as SB3 asks for it (of the remaining progress, 1 -> 0): linear from
    ``learning_rate`` down to ``lr_final_fraction`` of it (SB3's ``LinearSchedule``)."""
    lr = config.learning_rate
    return LinearSchedule(lr, lr * config.lr_final_fraction, end_fraction=1.0)


def make_model(
    config: Config,
    vec_env: VecEnv,
    tensorboard_log: str | None = None,
    device: str | None = None,
) -> MaskablePPO:
    """A new ``MaskablePPO`` learner on ``vec_env`` with the configuration's MLP policy and
    hyperparameters, on ``device`` (default: ``train.device.learner_device(config)``, the
    CPU; ``fort_env.tools.bench`` builds the quick preset's learner with it)."""
    return MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=lr_schedule(config),
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(config.net_arch), "vf": list(config.net_arch)}},
        tensorboard_log=tensorboard_log,
        # SB3 seeds numpy's legacy generator with it, and the env with it (seed + i)
        seed=fold_seed(config.seed, NUMPY_SEED_LIMIT),
        device=learner_device(config) if device is None else device,
        verbose=0,
    )


class SelfPlayCallback(BaseCallback):
    """Logs league win rates and ``charts/SPS``, evaluates and checkpoints every ``eval_freq``
    timesteps, adds snapshots to the league when the learner improves, and stops training
    when the time budget is spent.

    Args:
        config: the run's configuration.
        out: the output directory.
        league: the league the environments draw from (updated in the workers through
            ``env_method("set_opponent_sampler", league)``).
        state: the resumable run state (``history``, ``evals``, ``best``, ``last_eval``,
            ``elapsed_before``); updated in place.
        start_time: ``time.perf_counter()`` when this session started.
        verbose: 1 prints each evaluation.
    """

    def __init__(
        self,
        config: Config,
        out: Path,
        league: League,
        state: dict[str, Any],
        start_time: float,
        verbose: int = 1,
    ) -> None:
        super().__init__(verbose)
        self.config = config
        self.out = out
        self.league = league
        self.state = state
        self.start_time = start_time
        self.results: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=config.log_window))
        self.last_time = time.perf_counter()
        self.last_steps = 0

    def _on_training_start(self) -> None:
        self.last_steps = self.num_timesteps
        self.last_time = time.perf_counter()

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "won" in info:
                for name in info["opponents"]:
                    self.results[opponent_kind(name)].append(float(info["won"]))
                self.results["all"].append(float(info["won"]))
        if evaluation_due(self.config, self.state, self.num_timesteps, self.elapsed()):
            self.periodic()
        budget = self.config.time_budget_minutes
        if budget is not None and self.elapsed() > budget * 60:
            if self.verbose:
                print(f"time budget of {budget} minutes reached at {self.num_timesteps} steps")
            self.state["stopped_by_budget"] = True
            return False
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        sps = (self.num_timesteps - self.last_steps) / max(now - self.last_time, 1e-9)
        self.last_time, self.last_steps = now, self.num_timesteps
        self.logger.record("charts/SPS", sps)
        self.logger.record("league/size", len(self.league.weights()))
        self.logger.record("league/snapshots", len(self.league.snapshots))
        point: dict[str, Any] = {
            "timesteps": self.num_timesteps,
            "wall_seconds": round(self.elapsed(), 1),
            "train_win_rate": {},
        }
        for kind, results in self.results.items():
            if results:
                rate = float(np.mean(results))
                self.logger.record(f"league/win_rate_vs_{kind}", rate)
                point["train_win_rate"][kind] = rate
        self.state["history"].append(point)

    def elapsed(self) -> float:
        """Training wall time so far, over every session of a resumed run (seconds)."""
        return self.state["elapsed_before"] + time.perf_counter() - self.start_time

    def periodic(self) -> None:
        """Checkpoint, evaluate against ``eval_opponents``, maybe add a snapshot."""
        self.state["last_eval"] = self.num_timesteps
        self.state["last_eval_seconds"] = self.elapsed()
        ckpt = save_checkpoint(self.model, self.out, self.league, self.state, self.config)
        periodic_evaluation(
            self.config,
            self.out,
            self.league,
            self.state,
            self.num_timesteps,
            self.elapsed(),
            ckpt,
            self.add_snapshot,
            self.logger.record,
            self.verbose,
        )

    def add_snapshot(self) -> None:
        """Freeze the learner into ``league/`` and send the grown league to the workers."""
        league_dir = make_folders(self.out, self.out / "league")  # never a linked folder
        path = save_policy(
            self.model,
            league_dir / f"snapshot_{self.num_timesteps}",
            num_players=self.config.num_players,
            setup=self.config.setup,
            training=dataclasses.asdict(self.config),
        )
        self.league.snapshots.append(snapshot_spec(path, self.config.snapshot_deterministic))
        del self.league.snapshots[: -self.config.max_snapshots]
        env = self.training_env
        assert isinstance(env, VecEnv)
        env.env_method("set_opponent_sampler", self.league)


def learn(
    config: Config,
    out: Path,
    league: League,
    state: dict[str, Any],
    start: float,
    resume: bool,
    verbose: int,
    progress_bar: bool,
    device: str = "cpu",
) -> tuple[MaskablePPO, int]:
    """Train with sb3-contrib's MaskablePPO (``algo="maskable_ppo"``) on ``device``
    (``train.device.learner_device``); returns the model and its timesteps. The checkpoint is
    saved whatever happens."""
    vec_env = make_vec_env(config, league)
    vec_env.seed(fold_seed(config.seed + 1000 * len(state["evals"]), count=config.n_envs))

    model = make_model(config, vec_env, tensorboard_log=str(out / "tb"), device=device)
    if resume:  # the checkpoint's tensors into the learner built from config.json
        load_into_model(model, out / "checkpoints" / "latest.safetensors")
    callback = SelfPlayCallback(config, out, league, state, start, verbose=verbose)
    callbacks: list[BaseCallback] = [callback]
    if progress_bar:  # a bar over the real budget (steps or time), log lines if not a tty
        budget = config.time_budget_minutes
        seconds = None if budget is None else budget * 60
        callbacks.append(ProgressCallback(config.total_timesteps, seconds, callback.elapsed))
    remaining = config.total_timesteps - model.num_timesteps
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=CallbackList(callbacks),
                tb_log_name="selfplay",
                reset_num_timesteps=not resume,
            )
    finally:
        state["elapsed_before"] = callback.elapsed()
        save_checkpoint(model, out, league, state, config)
        vec_env.close()
    return model, int(model.num_timesteps)
