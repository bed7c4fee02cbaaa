"""Self-play PPO on Ray RLlib: ``fort-env train --backend rllib`` (one machine or a Ray cluster).

Needs the ``rllib`` extra in its own virtual environment (``fort_env/envs/rllib.py``). Every seat
plays one shared, action-masked policy (:func:`fort_env.envs.rllib.ppo_config`); the env runners
that sample games are Ray actors, placed on whatever nodes of the cluster have a free CPU.

Where it runs (``ray_address``):

- ``None`` or ``"local"``: a new Ray instance on this machine, with at least
  ``num_env_runners`` CPUs (more actors than cores share the cores).
- ``"auto"``: the cluster started on this machine with ``ray start --head`` (its other nodes
  joined with ``ray start --address=HEAD:6379``).
- ``"HOST:PORT"``: that cluster's head (the GCS address ``ray start --head`` prints).

Every node runs the env runners from its own Python: install fort-env with the ``rllib``
extra at the same path on every node.

Outputs in ``out``: ``config.json`` (the preset with its overrides), ``progress.jsonl`` (one
line per training iteration, the fields of :func:`iteration_summary`), ``checkpoint/`` (the
algorithm, ``Algorithm.from_checkpoint`` restores it; the policy plays as the agent
``rllib:OUT/checkpoint:trusted=1``) and ``summary.json`` (what :func:`run` returns, with the final
evaluation against bots, :func:`evaluate`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fort_env.game.files import check_folders, check_target, open_for_writing, write_text
from train.config import NUMPY_SEED_LIMIT, fold_seed

__all__ = [
    "RLLIB_PRESETS",
    "RLlibConfig",
    "clean_output",
    "evaluate",
    "format_summary",
    "init_ray",
    "iteration_summary",
    "make_config",
    "run",
]


@dataclasses.dataclass(frozen=True)
class RLlibConfig:
    """One RLlib self-play run; the presets are :data:`RLLIB_PRESETS`."""

    preset: str = "quick"
    num_players: int = 2
    seed: int = 0
    num_env_runners: int = 2
    """Env-runner actors (1 CPU each) sampling games; 0 samples in the driver."""
    total_timesteps: int = 500_000
    """Stop once this many env steps (decisions, all seats together) were sampled."""
    time_budget_minutes: float | None = 9.0
    """Stop after the first iteration that ends past this wall time (``None``: no budget)."""
    max_iterations: int | None = None
    """Stop after this many training iterations (``None``: no limit)."""
    train_batch_size: int = 4000
    """Env steps per training iteration."""
    minibatch_size: int = 500
    num_epochs: int = 4
    lr: float = 3e-4
    hiddens: tuple[int, ...] = (256, 256)
    reward: str = "win_loss"
    eval_games: int = 40
    """Games of the final evaluation against each of ``eval_opponents`` (0: none)."""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """Bots (``agents.make`` specs) the trained policy (``rllib:OUT/checkpoint``) plays at the
    end, seats rotating, in this process."""


RLLIB_PRESETS: dict[str, RLlibConfig] = {
    "quick": RLlibConfig(),
    "full": RLlibConfig(
        preset="full",
        num_env_runners=8,
        total_timesteps=50_000_000,
        time_budget_minutes=None,
        train_batch_size=16_000,
        minibatch_size=2000,
        hiddens=(512, 256),
    ),
    # Seconds: one small iteration (the smoke test).
    "tiny": RLlibConfig(
        preset="tiny",
        total_timesteps=1000,
        time_budget_minutes=None,
        max_iterations=1,
        train_batch_size=1000,
        minibatch_size=250,
        num_epochs=1,
        hiddens=(64,),
        eval_games=2,
        eval_opponents=("random",),
    ),
}


def make_config(preset: str = "quick", **overrides: Any) -> RLlibConfig:
    """The named preset with ``overrides`` applied (``None`` values are ignored).

    Raises:
        ValueError: an unknown preset or field, or a count out of range.
    """
    if preset not in RLLIB_PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(RLLIB_PRESETS)}")
    fields = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    config = dataclasses.replace(RLLIB_PRESETS[preset], **changes)
    if config.num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {config.num_env_runners}")
    if config.total_timesteps < 1:
        raise ValueError(f"timesteps must be >= 1, got {config.total_timesteps}")
    if config.time_budget_minutes is not None and not config.time_budget_minutes > 0:
        raise ValueError(f"minutes must be > 0, got {config.time_budget_minutes}")
    if config.eval_games < 0:
        raise ValueError(f"eval_games must be >= 0, got {config.eval_games}")
    return config


def evaluate(config: RLlibConfig, checkpoint: str | Path) -> dict[str, dict[str, Any]]:
    """The trained policy against each of ``config.eval_opponents``, ``config.eval_games``
    games each (``agents.arena.tournament.run_tournament``, in this process, one torch thread).

    Returns:
        ``{opponent: {"games", "wins", "win_rate", "win_rate_ci95", "mean_score"}}`` of the
        policy (``rllib:CHECKPOINT``).
    """
    import torch

    from agents.arena.tournament import run_tournament

    if config.eval_games == 0:
        return {}
    torch.set_num_threads(1)
    out: dict[str, dict[str, Any]] = {}
    for opponent in config.eval_opponents:
        # trusted=1: the checkpoint this run just wrote (RLlib checkpoints are pickled)
        specs = [f"rllib:{checkpoint}:trusted=1"] + [opponent] * (config.num_players - 1)
        result = run_tournament(
            specs, config.num_players, config.eval_games, seed=config.seed + 100_000, progress=False
        )
        row = result["agents"][specs[0]]
        keys = ("games", "wins", "win_rate", "win_rate_ci95", "mean_score")
        out[opponent] = {k: row[k] for k in keys}
    return out


def init_ray(address: str | None, min_cpus: int = 1) -> dict[str, Any]:
    """Start or join Ray (module docstring: ``None``/``"local"``, ``"auto"``, ``HOST:PORT``).

    Args:
        address: where to run; ``None`` is ``"local"``.
        min_cpus: CPUs the job needs (its env runners). A local instance gets at least this
            many; a cluster with fewer raises, instead of waiting forever for them.

    Returns:
        ``{"address", "nodes", "cpus"}`` of the cluster joined.

    Raises:
        ValueError: the cluster has fewer than ``min_cpus`` CPUs.
        ConnectionError: no cluster at ``address`` (``agents.arena.ray_games.connect``).
    """
    from agents.arena.ray_games import connect

    local_cpus = max(os.cpu_count() or 1, min_cpus)
    cluster = connect(address or "local", num_cpus=local_cpus)
    if cluster["cpus"] < min_cpus:
        raise ValueError(
            f"the Ray cluster at {cluster['address']!r} has {cluster['cpus']:g} CPUs, fewer than "
            f"the {min_cpus} the job needs (one per env runner): add nodes or lower "
            "--num-env-runners"
        )
    return cluster


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def iteration_summary(result: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of one ``Algorithm.train()`` result this module logs.

    Returns a JSON-able dict: ``iteration``, ``iteration_seconds``, ``env_steps`` (sampled in
    this iteration), ``env_steps_total``, ``episodes`` (finished in this iteration),
    ``episode_length_mean``, ``returns_mean`` (per agent; ``None`` before any episode ended),
    ``entropy``, ``policy_loss``, ``vf_loss``, ``env_runner_restarts``.
    """
    from fort_env.envs.rllib import POLICY_ID

    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    returns = runners.get("agent_episode_returns_mean", {})
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "iteration_seconds": _num(result.get("time_this_iter_s")),
        "env_steps": int(runners.get("num_env_steps_sampled", 0)),
        "env_steps_total": int(result.get("num_env_steps_sampled_lifetime", 0)),
        "episodes": int(runners.get("num_episodes", 0)),
        "episode_length_mean": _num(runners.get("episode_len_mean")),
        "returns_mean": {str(k): _num(v) for k, v in sorted(returns.items())} or None,
        "entropy": _num(learner.get("entropy")),
        "policy_loss": _num(learner.get("policy_loss")),
        "vf_loss": _num(learner.get("vf_loss")),
        "env_runner_restarts": int(
            result.get("fault_tolerance", {}).get("num_remote_worker_restarts", 0)
        ),
    }


def _format_iteration(row: Mapping[str, Any]) -> str:
    returns = row["returns_mean"]
    ret = " ".join(f"{k}={v:+.2f}" for k, v in returns.items() if v is not None) if returns else "-"
    length = "-" if row["episode_length_mean"] is None else f"{row['episode_length_mean']:.0f}"
    entropy = "-" if row["entropy"] is None else f"{row['entropy']:.3f}"
    return (
        f"iter {row['iteration']:4d}  {row['iteration_seconds'] or 0:6.1f} s  "
        f"steps {row['env_steps']:6d} (total {row['env_steps_total']})  "
        f"episodes {row['episodes']:3d}  len {length}  returns {ret}  entropy {entropy}"
    )


def clean_output(out: str | Path) -> None:
    """Remove a previous RLlib run's outputs from ``out`` (``--overwrite``)."""
    out = Path(out)
    shutil.rmtree(out / "checkpoint", ignore_errors=True)
    for name in ("config.json", "progress.jsonl", "summary.json"):
        (out / name).unlink(missing_ok=True)


def run(
    config: RLlibConfig,
    out: str | Path,
    ray_address: str | None = None,
    echo: Callable[[str], None] | None = print,
) -> dict[str, Any]:
    """Train ``config`` on Ray and write the run into ``out`` (module docstring).

    Args:
        config: the run's settings (:func:`make_config`).
        out: the output directory.
        ray_address: where to run (:func:`init_ray`).
        echo: prints one line per iteration (``None``: silent).

    Returns:
        ``{"out", "preset", "ray", "iterations", "env_steps", "train_wall_seconds",
        "eval_wall_seconds", "stopped_by", "checkpoint", "last", "final"}``: ``ray`` from
        :func:`init_ray`, ``last`` the :func:`iteration_summary` of the last iteration,
        ``stopped_by`` one of ``"timesteps"``, ``"time_budget"``, ``"iterations"``, ``final``
        from :func:`evaluate`.

    Raises:
        FileExistsError: ``out`` already holds a run.
        OutputFileError: ``out/checkpoint`` is a symlink, or a file's name is taken by a
            FIFO, a device, a directory or a link to one (``fort_env.game.files``).
        ValueError: (:func:`init_ray`) too few CPUs in the cluster.
    """
    from fort_env.envs.rllib import ppo_config

    out = Path(out).resolve()
    if (out / "checkpoint").exists() or (out / "progress.jsonl").exists():
        raise FileExistsError(
            f"{out} already holds a run: replace it with --overwrite, or pick another --out"
        )
    check_folders(out, out / "checkpoint")  # no linked folder, no FIFO at a file's name
    for name in ("config.json", "progress.jsonl", "summary.json"):
        check_target(out / name)
    cluster = init_ray(ray_address, min_cpus=config.num_env_runners)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "config.json", json.dumps(dataclasses.asdict(config), indent=1))
    if echo:
        echo(
            f"Ray at {cluster['address']}: {cluster['nodes']} node(s), {cluster['cpus']:g} CPUs; "
            f"{config.num_env_runners} env runner(s)"
        )
    algo = ppo_config(
        config.num_players,
        config.num_env_runners,
        env_config={"reward": config.reward},
        hiddens=config.hiddens,
        train_batch_size=config.train_batch_size,
        minibatch_size=config.minibatch_size,
        num_epochs=config.num_epochs,
        lr=config.lr,
        seed=fold_seed(config.seed, NUMPY_SEED_LIMIT),  # RLlib seeds numpy's legacy generator
    ).build_algo()
    start = time.perf_counter()
    budget = None if config.time_budget_minutes is None else 60.0 * config.time_budget_minutes
    row: dict[str, Any] = {}
    stopped_by = "timesteps"
    try:
        with open_for_writing(out / "progress.jsonl") as log:
            while True:
                row = iteration_summary(algo.train())
                log.write(json.dumps(row) + "\n")
                log.flush()
                if echo:
                    echo(_format_iteration(row))
                if row["env_steps_total"] >= config.total_timesteps:
                    break
                if budget is not None and time.perf_counter() - start >= budget:
                    stopped_by = "time_budget"
                    break
                if config.max_iterations is not None and row["iteration"] >= config.max_iterations:
                    stopped_by = "iterations"
                    break
        train_seconds = time.perf_counter() - start
        checkpoint = algo.save_to_path(str(out / "checkpoint"))
    finally:
        algo.stop()
    t0 = time.perf_counter()
    final = evaluate(config, checkpoint)
    eval_seconds = time.perf_counter() - t0
    summary = {
        "out": str(out),
        "preset": config.preset,
        "ray": cluster,
        "iterations": row.get("iteration", 0),
        "env_steps": row.get("env_steps_total", 0),
        "train_wall_seconds": round(train_seconds, 1),
        "eval_wall_seconds": round(eval_seconds, 1),
        "stopped_by": stopped_by,
        "checkpoint": str(checkpoint),
        "last": row,
        "final": final,
    }
    write_text(out / "summary.json", json.dumps(summary, indent=1))
    return summary


def format_summary(summary: Mapping[str, Any]) -> str:
    """A finished run as text (``fort-env train --backend rllib`` prints it)."""
    lines = [
        f"checkpoint: {summary['checkpoint']} (plays as the agent rllib:CHECKPOINT:trusted=1)",
        f"trained {summary['iterations']} iteration(s), {summary['env_steps']} env steps in "
        f"{summary['train_wall_seconds']:.0f} s on {summary['ray']['nodes']} node(s) "
        f"(stopped by {summary['stopped_by']}); evaluation {summary['eval_wall_seconds']:.0f} s",
    ]
    for opponent, row in summary["final"].items():
        lo, hi = row["win_rate_ci95"]
        lines.append(
            f"vs {opponent}: won {row['wins']:g} of {row['games']} games "
            f"({row['win_rate']:.0%}, 95% CI {lo:.0%}-{hi:.0%}), mean score {row['mean_score']:.1f}"
        )
    return "\n".join(lines)
