"""A training run from start to summary: :func:`run` (what ``fort-env train`` calls).

It seeds every random source from ``config.seed``, starts or resumes the run folder's state
(``train.checkpoints``), resolves the learner's device once (``train.device.learner_device``),
trains with the configured learner (``train.ppo`` or ``train.maskable_ppo``), saves the policy,
plays the final evaluation (``train.evaluation``), and writes ``eval.json`` and the learning
curve (``train.plots``). :func:`format_summary` prints the result; :func:`clean_output` clears
a folder for ``--overwrite``.
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.arena.tournament import format_table
from agents.learned.policy_file import save_policy
from fort_env.game.errors import ConfigError
from fort_env.game.files import check_folders, check_target, write_text
from train import maskable_ppo
from train import ppo as lean_ppo
from train.checkpoints import load_state
from train.config import NUMPY_SEED_LIMIT, Config, fold_seed
from train.device import learner_device, resolve_threads
from train.evaluation import evaluate
from train.league import League
from train.plots import plot_learning_curve

__all__ = ["RUN_FILES", "RUN_FOLDERS", "check_run_folder", "clean_output", "format_summary", "run"]

RUN_FOLDERS = ("checkpoints", "league", "tb/ppo")
"""The folders a run makes inside its output folder (SB3's TensorBoard runs go under ``tb``)."""
RUN_FILES = (
    "config.json", "model.safetensors", "model.json", "eval.json", "learning_curve.png",
    "checkpoints/state.json", "checkpoints/latest.safetensors", "checkpoints/latest.json",
    "checkpoints/latest.optimizer.safetensors",
)  # fmt: skip
"""The files a run writes (besides ``league/`` snapshots and TensorBoard's event files)."""


def check_run_folder(out: Path) -> None:
    """A run may write into ``out``: none of its folders (:data:`RUN_FOLDERS`) is a symlink
    (to another directory, whose checkpoints or snapshots would be replaced) or a file, and
    none of its files' names (:data:`RUN_FILES`) is taken by a FIFO, a device, a directory or
    a link to one (``fort_env.game.files``). Looks only; checked before the run starts.

    Raises:
        OutputFileError: otherwise (names the path).
    """
    for folder in RUN_FOLDERS:
        check_folders(out, out / folder)
    for name in RUN_FILES:
        check_target(out / name)


def run(
    config: Config,
    out: str | Path,
    resume: bool = False,
    verbose: int = 1,
    progress_bar: bool = True,
) -> dict[str, Any]:
    """Train with ``config``, write the outputs into ``out`` (``train.selfplay``'s docstring,
    "Outputs") and return the content of ``eval.json``.

    Args:
        config: the run's configuration (written to ``out/config.json``).
        out: the output directory.
        resume: continue the run checkpointed in ``out`` (model, league, history, step
            count); pass its saved configuration (``config_from_dict`` of ``config.json``),
            with a larger ``total_timesteps`` or ``time_budget_minutes`` to train on.
        verbose: 1 prints each periodic evaluation.
        progress_bar: show progress (``train.progress.ProgressCallback``: a bar over the
            run's budget on a terminal, a log line every 15 s elsewhere).

    Raises:
        FileNotFoundError: ``resume`` without a checkpoint in ``out``.
        FileExistsError: ``out`` already holds a model and ``resume`` is false.
        RunFolderError: ``resume`` and a corrupt ``checkpoints/state.json``
            (:func:`train.checkpoints.load_state`).
        ConfigError: ``config.init_from`` with ``algo="maskable_ppo"``.
        ModelFileError: ``config.init_from`` names a file that cannot start the network
            (``train.ppo.build_network``), before anything is written.
    """
    out = Path(out).resolve()
    if config.init_from is not None and not resume:  # one error before a run folder is made
        if config.algo != "ppo":
            raise ConfigError("init_from (--init-from) starts the lean PPO only (--algo ppo)")
        lean_ppo.build_network(config)
    if not resume and (out / "checkpoints").exists():
        raise FileExistsError(
            f"{out} already holds a run: continue it with --resume, replace it with "
            "--overwrite, or pick another --out"
        )
    check_run_folder(out)  # before a folder is made or a step is taken
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    # -- seeding: every random source derives from config.seed
    random.seed(config.seed)
    np.random.seed(fold_seed(config.seed, NUMPY_SEED_LIMIT))
    torch.manual_seed(config.seed)
    _, torch_threads = resolve_threads(config)
    torch.set_num_threads(torch_threads)

    if resume:  # (``train.cli.train`` passes the saved config.json with its overrides)
        state, league = load_state(out)
    else:
        league = League(config.opponents, (), config.snapshot_weight)
        state = {"history": [], "evals": [], "best": 0.0, "last_eval": 0, "elapsed_before": 0.0}
    # The evaluations' deals: drawn fresh for each run (a figure then says how this recipe
    # does, not how it does on one set of deals), kept for the whole run (periodic
    # evaluations are paired) and recorded in state.json and eval.json.
    for key in ("eval_seed", "final_eval_seed"):
        if key not in state:
            state[key] = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    write_text(out / "config.json", json.dumps(dataclasses.asdict(config), indent=1))

    # where the learner runs, resolved once: the learner is built there and the summary says so
    device = learner_device(config)
    if config.algo == "ppo":  # the lean PPO (train/ppo.py), every seat a sample
        network, timesteps, elapsed = lean_ppo.learn(
            config,
            out,
            league,
            state,
            start,
            resume=resume,
            verbose=verbose,
            progress_bar=progress_bar,
            device=device,
        )
        state["elapsed_before"] = elapsed
        policy: Any = network
    else:
        model, timesteps = maskable_ppo.learn(
            config, out, league, state, start, resume, verbose, progress_bar, device
        )
        policy = model
    train_seconds = time.perf_counter() - start

    model_path = save_policy(
        policy,
        out / "model",
        num_players=config.num_players,
        setup=config.setup,
        training=dataclasses.asdict(config),
        timesteps=timesteps,
    )
    t0 = time.perf_counter()
    final = evaluate(
        model_path,
        config.final_eval_opponents,
        config.final_eval_games,
        config,
        workers=config.eval_workers,
        seed=state["final_eval_seed"],
    )
    eval_seconds = time.perf_counter() - t0
    summary = {
        "model": str(model_path),
        "preset": config.preset,
        "timesteps": int(timesteps),
        "algo": config.algo,
        "device": device,
        "eval_seeds": {"periodic": state["eval_seed"], "final": state["final_eval_seed"]},
        "train_wall_seconds": round(train_seconds, 1),
        "eval_wall_seconds": round(eval_seconds, 1),
        "total_wall_seconds": round(time.perf_counter() - start, 1),
        "stopped_by_time_budget": bool(state.get("stopped_by_budget", False)),
        "final": {},
        "tournaments": {},
        "evals": state["evals"],
        "history": state["history"],
        "league": league.weights(),
    }
    for opponent, result in final.items():
        first = next(iter(result["agents"].values()))
        summary["final"][opponent] = {
            k: first[k] for k in ("games", "wins", "win_rate", "win_rate_ci95", "mean_score")
        }
        summary["tournaments"][opponent] = result
    write_text(out / "eval.json", json.dumps(summary, indent=1))
    plot_learning_curve(summary, out / "learning_curve.png")
    return summary


def format_summary(summary: Mapping[str, Any]) -> str:
    """The evaluation tables of a finished run, as text (``fort-env train`` prints it)."""
    lines = [
        f"model: {summary['model']}",
        f"trained {summary['timesteps']} timesteps in {summary['train_wall_seconds']:.0f} s; "
        f"evaluation {summary['eval_wall_seconds']:.0f} s; "
        f"total {summary['total_wall_seconds']:.0f} s",
    ]
    for opponent, result in summary["tournaments"].items():
        lines.append(f"\nvs {opponent}:")
        lines.append(format_table(result))
    return "\n".join(lines)


def clean_output(out: str | Path) -> None:
    """Remove a previous run's outputs from ``out`` (used by ``--overwrite``)."""
    out = Path(out)
    for name in ("checkpoints", "league", "tb"):
        shutil.rmtree(out / name, ignore_errors=True)
    for name in (
        "model.safetensors",
        "model.json",
        "model.zip",  # written before the safetensors format
        "config.json",
        "eval.json",
        "learning_curve.png",
    ):
        (out / name).unlink(missing_ok=True)
