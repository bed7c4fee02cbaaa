"""The env's share of MaskablePPO's rollout time (``fort-env bench --ppo``).

What is timed and what counts as the env is described in ``fort_env/tools/bench.py``'s docstring.
This lives with the training code (it builds the quick preset's learner with
``train/selfplay.py``'s own builders) and is found by ``fort-env bench`` through the
``fort_env.bench`` entry point ``ppo_rollout``.
"""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fort_env.tools.bench import DEFAULT_PPO_ROLLOUTS, PPO_ENV_SHARE_TARGET, TRAIN_EXTRA

ROUND_TWO_QUICK: dict[str, Any] = dict(
    algo="maskable_ppo",
    n_envs=32,
    n_steps=64,
    batch_size=256,
    n_epochs=4,
    net_arch=(256, 256),
    opponents={"random": 0.1, "builder": 0.5, "scorer": 0.2, "opportunist": 0.2},
    snapshot_weight=0.1,
    env_threads=1,
    torch_threads=1,
)
"""The quick preset of round two (MaskablePPO), whose rollout ``fort-env bench --ppo``
splits: the env's share of MaskablePPO's rollout is a property of that learner."""


class _TimedOpponent:
    """An opponent whose ``act()`` time is added to ``clock[kind]`` (``seed`` and ``name``
    pass through, so the env seeds and reports it as the wrapped one)."""

    def __init__(self, opponent: Any, kind: str, clock: dict[str, float]) -> None:
        self.opponent = opponent
        self.kind = kind
        self.clock = clock
        self.name = getattr(opponent, "name", repr(opponent))
        # what the batched env reads: a built-in policy plays in C++ (its time is the env's),
        # a batched policy acts for a group of games at once
        if isinstance(getattr(opponent, "cpp_policy", None), str):
            self.cpp_policy = opponent.cpp_policy
        if callable(getattr(opponent, "act_batch", None)):
            self.act_batch = self._act_batch

    def _act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        start = time.perf_counter()
        actions = self.opponent.act_batch(observations, masks)
        self.clock[self.kind] += time.perf_counter() - start
        return np.asarray(actions)

    def seed(self, seed: int | None) -> None:
        seed_fn = getattr(self.opponent, "seed", None)
        if callable(seed_fn):
            seed_fn(seed)

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        start = time.perf_counter()
        act = getattr(self.opponent, "act", None)
        action = act(observation, info) if act is not None else self.opponent(observation, info)
        self.clock[self.kind] += time.perf_counter() - start
        return int(action)


def _timed_sampler(
    league: Callable[[np.random.Generator, int], Sequence[Any]], clock: dict[str, float]
) -> Callable[[np.random.Generator, int], list[_TimedOpponent]]:
    """``league``'s draws (same generator use), each opponent timed under its kind."""

    def sample(rng: np.random.Generator, num_rivals: int) -> list[_TimedOpponent]:
        out = []
        for opponent in league(rng, num_rivals):
            name = str(getattr(opponent, "name", ""))
            kind = "snapshot" if name.startswith("ppo") else name or "other"
            out.append(_TimedOpponent(opponent, kind, clock))
        return out

    return sample


def _timed_vec_env(venv: Any) -> Any:
    """``venv`` in an SB3 ``VecEnvWrapper`` that adds the wall time of every call into the
    env (reset, step, env_method: the action masks) to its ``seconds``."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        def __init__(self, inner: Any) -> None:
            super().__init__(inner)
            self.seconds = 0.0

        def reset(self) -> Any:
            start = time.perf_counter()
            obs = self.venv.reset()
            self.seconds += time.perf_counter() - start
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            start = time.perf_counter()
            self.venv.step_async(actions)
            self.seconds += time.perf_counter() - start

        def step_wait(self) -> Any:
            start = time.perf_counter()
            result = self.venv.step_wait()
            self.seconds += time.perf_counter() - start
            return result

        def env_method(
            self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
        ) -> list[Any]:
            start = time.perf_counter()
            result = self.venv.env_method(
                method_name, *method_args, indices=indices, **method_kwargs
            )
            self.seconds += time.perf_counter() - start
            return result

    return TimedVecEnv(venv)


def ppo_rollout_share(
    preset: str = "quick",
    rollouts: int = DEFAULT_PPO_ROLLOUTS,
    warmup: int = 1,
    snapshot: bool = True,
    update: bool = True,
    seed: int = 0,
    **overrides: Any,
) -> dict[str, Any]:
    """The env's share of MaskablePPO's rollout time in ``preset`` (module docstring: what is
    timed and what counts as the env).

    Args:
        preset: the training preset (``train.selfplay.PRESETS``).
        rollouts: rollouts measured (each ``n_steps * n_envs`` learner decisions).
        warmup: rollouts run first and not counted (lazy construction, first torch calls).
        snapshot: add one frozen snapshot of the (untrained) learner to the league, as the
            first evaluation does in training (only if the preset's ``snapshot_weight > 0``).
        update: run the PPO update after each rollout (timed apart, in ``update_seconds``).
        seed: the configuration's seed.
        **overrides: fields of the preset to change (``n_steps=16`` for a quick check).

    Returns:
        A JSON-able dict: ``env_share``, ``opponent_share``, ``env_share_excl_opponents``,
        ``snapshot_opponent_share``, ``samples_per_s`` (learner decisions per second of
        rollout), ``samples_per_s_with_update``, ``env_share_of_iteration`` (of rollout +
        update), ``per_rollout_env_share``, the seconds behind them (``rollout_seconds``,
        ``env_seconds``, ``opponent_seconds``, ``opponent_seconds_by_kind``,
        ``update_seconds``), ``target`` (0.25) and ``target_met``, and the setup (``preset``,
        ``n_envs``, ``n_steps``, ``rollouts``, ``samples``, ``league``, ``vec_env``); or
        ``{"error": message}`` if the train extra (torch, sb3-contrib) is missing.
    """
    try:
        torch = importlib.import_module("torch")
        importlib.import_module("sb3_contrib")
        selfplay = importlib.import_module("train.selfplay")  # torch loads only when measured
    except ImportError as e:
        return {"error": f"needs the train extra ({TRAIN_EXTRA}): {e}"}
    if rollouts < 1:
        raise ValueError(f"rollouts must be >= 1, got {rollouts}")
    settings = {**ROUND_TWO_QUICK, **overrides} if preset == "quick" else dict(overrides)
    config = selfplay.make_config(preset, seed=seed, **settings)
    if config.algo != "maskable_ppo":
        config = dataclasses.replace(config, algo="maskable_ppo")
    if selfplay.vec_env_kind(config) == "subproc":  # its time cannot be split: in process
        config = dataclasses.replace(config, vec_env="dummy")
    vec_kind = selfplay.vec_env_kind(config)
    threads = torch.get_num_threads()
    torch.set_num_threads(selfplay.resolve_threads(config)[1])
    clock: dict[str, float] = defaultdict(float)
    league = selfplay.League(config.opponents, (), config.snapshot_weight)
    raw = selfplay.make_vec_env(config, league)
    venv = _timed_vec_env(raw)
    try:
        with tempfile.TemporaryDirectory(prefix="fort-bench-") as tmp:
            model = selfplay.make_model(config, venv)
            if snapshot and config.snapshot_weight > 0:
                from agents.learned.policy_file import save_policy
                from train.league import snapshot_spec

                path = save_policy(
                    model,
                    Path(tmp) / "snapshot",
                    num_players=config.num_players,
                    setup=config.setup,
                )
                league.snapshots.append(snapshot_spec(path, config.snapshot_deterministic))
            raw.env_method("set_opponent_sampler", _timed_sampler(league, clock))
            venv.seed(config.seed)
            total = (warmup + rollouts) * config.n_steps * config.n_envs
            _, callback = model._setup_learn(total, callback=None, progress_bar=False)
            rows = []
            for i in range(warmup + rollouts):
                env0, opponents0 = venv.seconds, dict(clock)
                start = time.perf_counter()
                model.collect_rollouts(
                    model.env, callback, model.rollout_buffer, n_rollout_steps=config.n_steps
                )
                mid = time.perf_counter()
                if update:
                    model._update_current_progress_remaining(model.num_timesteps, total)
                    model.train()
                end = time.perf_counter()
                if i >= warmup:
                    spent = {k: v - opponents0.get(k, 0.0) for k, v in clock.items()}
                    rows.append((mid - start, end - mid, venv.seconds - env0, spent))
    finally:
        venv.close()
        torch.set_num_threads(threads)
    rollout_s = sum(r[0] for r in rows)
    update_s = sum(r[1] for r in rows)
    env_s = sum(r[2] for r in rows)
    by_kind: dict[str, float] = defaultdict(float)
    for row in rows:
        for kind, seconds in row[3].items():
            by_kind[kind] += seconds
    opponent_s = sum(by_kind.values())
    samples = rollouts * config.n_steps * config.n_envs
    env_share = env_s / rollout_s
    return {
        "preset": preset,
        "vec_env": {
            "batch": "FortBatchVecEnv (C++, in process)",
            "dummy": "DummyVecEnv (in process)",
            "subproc": "SubprocVecEnv",
        }[vec_kind],
        "n_envs": config.n_envs,
        "n_steps": config.n_steps,
        "net_arch": list(config.net_arch),
        "rollouts": rollouts,
        "samples": samples,
        "league": {  # sampling weights; the snapshot's temporary path left out
            ("snapshot" if k.startswith("ppo:") else k): round(v, 4)
            for k, v in league.weights().items()
        },
        "env_share": env_share,
        "opponent_share": opponent_s / rollout_s,
        "env_share_excl_opponents": (env_s - opponent_s) / rollout_s,
        "snapshot_opponent_share": by_kind.get("snapshot", 0.0) / rollout_s,
        "env_share_of_iteration": env_s / (rollout_s + update_s),
        "per_rollout_env_share": [r[2] / r[0] for r in rows],
        "samples_per_s": samples / rollout_s,
        "samples_per_s_with_update": samples / (rollout_s + update_s),
        "rollout_seconds": rollout_s,
        "env_seconds": env_s,
        "opponent_seconds": opponent_s,
        "opponent_seconds_by_kind": dict(sorted(by_kind.items())),
        "update_seconds": update_s,
        "target": PPO_ENV_SHARE_TARGET,
        "target_met": env_share <= PPO_ENV_SHARE_TARGET,
    }


# --------------------------------------------------------------------------- fort-env bench --train
BASELINE = dict(
    algo="maskable_ppo",
    n_envs=32,
    n_steps=64,
    batch_size=256,
    n_epochs=4,
    net_arch=(256, 256),
    opponents={"random": 1.0},
    snapshot_weight=0.0,
    vec_env="batch",
    env_threads=1,
    torch_threads=1,
)
"""Round two's trainer, the yardstick of ``fort-env bench --train``: MaskablePPO on the
batched env, 32 envs x 64 steps, batch 256, 4 epochs, two 256-256 towers, ``random`` opponents
inside C++, one env thread and one torch thread."""


def _timed_iterations(step: Callable[[], int], seconds: float) -> tuple[int, float, int]:
    """Run ``step`` (one rollout + update, returning its samples) once to warm up, then until
    ``seconds`` have passed; returns (samples, seconds, iterations) of the timed part."""
    step()
    samples, iterations = 0, 0
    start = time.perf_counter()
    while True:
        samples += step()
        iterations += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return samples, elapsed, iterations


def baseline_samples_per_second(seconds: float = 20.0, seed: int = 0) -> dict[str, Any]:
    """:data:`BASELINE`'s end-to-end learner samples/s (rollout + update, in process)."""
    torch = importlib.import_module("torch")
    selfplay = importlib.import_module("train.selfplay")
    config = selfplay.make_config("quick", seed=seed, **BASELINE)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    league = selfplay.League(config.opponents)
    venv = selfplay.make_vec_env(config, league)
    try:
        model = selfplay.make_model(config, venv)
        venv.seed(seed)
        total = 10**9
        _, callback = model._setup_learn(total, callback=None, progress_bar=False)

        def step() -> int:
            model.collect_rollouts(
                model.env, callback, model.rollout_buffer, n_rollout_steps=config.n_steps
            )
            model._update_current_progress_remaining(model.num_timesteps, total)
            model.train()
            return config.n_steps * config.n_envs

        samples, elapsed, iterations = _timed_iterations(step, seconds)
    finally:
        venv.close()
        torch.set_num_threads(threads)
    return {"samples_per_s": samples / elapsed, "iterations": iterations, "seconds": elapsed}


class BusyProcesses:
    """``count`` processes that keep a core busy each (a Python loop) until :meth:`stop` or
    ``limit_s`` seconds have passed, whichever comes first: the other work of a busy machine,
    for ``fort-env bench --train --contend K``. A context manager."""

    def __init__(self, count: int, limit_s: float) -> None:
        loop = f"import time\nend = time.time() + {float(limit_s)!r}\nwhile time.time() < end: pass"
        self.procs = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(count)]

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()

    def __enter__(self) -> BusyProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def lean_samples_per_second(
    config: Any, device: str, seconds: float, seed: int, torch_threads: int
) -> dict[str, Any]:
    """The lean PPO's end-to-end learner samples/s for ``config`` (rollout + update, in
    process), with torch's threads as training sets them: ``torch_threads`` fixed, or with
    ``config.torch_threads == 0`` chosen by ``train.threads.ThreadTuner`` as ``learn`` does
    (its trials are part of the time)."""
    torch = importlib.import_module("torch")
    selfplay = importlib.import_module("train.selfplay")
    from train.ppo import LeanPPO
    from train.threads import ThreadTuner

    env_threads, _ = selfplay.resolve_threads(config)
    threads = torch.get_num_threads()
    auto = config.torch_threads == 0 and torch.device(device).type == "cpu"
    tuner = ThreadTuner((1, torch_threads) if auto else (torch_threads,), torch.set_num_threads)
    try:
        ppo = LeanPPO(config, selfplay.League(config.opponents), device, env_threads)
        ppo.reset(seed)

        def step() -> int:
            before, start = ppo.timesteps, time.perf_counter()
            ppo.update(ppo.collect(), config.learning_rate)
            if ppo.device.type == "cuda":
                torch.cuda.synchronize()
            tuner.record(ppo.timesteps - before, time.perf_counter() - start)
            return ppo.timesteps - before

        samples, elapsed, iterations = _timed_iterations(step, seconds)
    finally:
        torch.set_num_threads(threads)
    return {
        "samples_per_s": samples / elapsed,
        "iterations": iterations,
        "seconds": elapsed,
        "env_threads": env_threads,
        "thread_choices": tuner.choices,
    }


def train_throughput(
    seconds: float = 20.0,
    preset: str = "quick",
    device: str = "auto",
    baseline: bool = True,
    seed: int = 0,
    contend: int = 0,
    **overrides: Any,
) -> dict[str, Any]:
    """``fort-env bench --train``: the preset's trainer, end to end, against the baseline.

    Times whole iterations (a rollout of every env, then the PPO update) of ``preset``'s
    configuration for about ``seconds`` after one warm-up iteration, in this process, with the
    league the preset names (its bots inside C++; no snapshot yet; periodic evaluations are
    not part of it); then the same for :data:`BASELINE`. With ``contend`` K > 0, the preset's
    default configuration, the same with one fixed torch thread and the baseline are timed
    again beside K busy processes (:class:`BusyProcesses`, started and stopped here).

    Returns:
        A JSON-able dict: ``samples_per_s`` (learner samples per second),
        ``baseline_samples_per_s`` (``None`` without ``baseline``), ``ratio``, ``device``,
        ``algo``, ``env_threads``, ``torch_threads``, ``n_envs``, ``n_steps``, ``batch_size``,
        ``n_epochs``, ``net_arch``, ``iterations``, ``seconds``, ``thread_choices`` (the
        thread tuner's decisions); with ``contend``, ``contended``: ``{"processes": K,
        "samples_per_s", "one_thread_samples_per_s", "baseline_samples_per_s",
        "thread_choices"}``; or ``{"error": ...}`` without the train extra or the compiled core.

    Raises:
        ConfigError: a bad ``device`` (or CUDA where torch sees none).
    """
    try:
        importlib.import_module("torch")
        importlib.import_module("sb3_contrib")
        selfplay = importlib.import_module("train.selfplay")
    except ImportError as e:
        return {"error": f"needs the train extra ({TRAIN_EXTRA}): {e}"}
    from fort_env.native import backend as cpp_backend

    if not cpp_backend.available():
        return {"error": f"needs the compiled core: {cpp_backend.why_unavailable()}"}
    config = selfplay.make_config(preset, seed=seed, device=device, **overrides)
    resolved = selfplay.resolve_device(config.device)
    env_threads, torch_threads = selfplay.resolve_threads(config)

    def measure(cfg: Any) -> dict[str, Any]:
        if cfg.algo == "ppo":
            return lean_samples_per_second(cfg, resolved, seconds, seed, torch_threads)
        got = baseline_samples_per_second(seconds, seed)
        return {**got, "thread_choices": []}

    main = measure(config)
    base = baseline_samples_per_second(seconds, seed)["samples_per_s"] if baseline else None
    out: dict[str, Any] = {
        "preset": preset,
        "algo": config.algo,
        "device": resolved,
        "samples_per_s": main["samples_per_s"],
        "baseline_samples_per_s": base,
        "ratio": None if base is None else main["samples_per_s"] / base,
        "env_threads": env_threads,
        "torch_threads": torch_threads,
        "thread_choices": main["thread_choices"],
        "n_envs": config.n_envs,
        "n_steps": config.n_steps,
        "batch_size": config.batch_size,
        "n_epochs": config.n_epochs,
        "net_arch": list(config.net_arch),
        "iterations": main["iterations"],
        "seconds": main["seconds"],
    }
    if contend > 0:
        one = dataclasses.replace(config, torch_threads=1)
        # bounded: the three measurements with their warm-ups, and a margin
        with BusyProcesses(contend, limit_s=6 * seconds + 120):
            busy = measure(config)
            busy_one = measure(one)
            busy_base = baseline_samples_per_second(seconds, seed)["samples_per_s"]
        out["contended"] = {
            "processes": contend,
            "samples_per_s": busy["samples_per_s"],
            "one_thread_samples_per_s": busy_one["samples_per_s"],
            "baseline_samples_per_s": busy_base,
            "thread_choices": busy["thread_choices"],
        }
    return out
