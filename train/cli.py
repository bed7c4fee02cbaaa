"""``fort-env train``: the command line of self-play training (``train.selfplay``).

:func:`train` is the plain function; :func:`register` adds it as the ``train`` command of a
typer app (``fort_env/cli.py`` calls ``register(app)``); :func:`main` runs it alone
(``python -m train.selfplay``, ``python train/selfplay.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from fort_env.cli_errors import bad_option, failures

__all__ = ["main", "register", "train"]

# np.random.seed takes seeds below 2**32; the run derives seeds up to seed + ~10**6 from it
MAX_SEED = 2**31 - 1


def train(
    preset: str = "quick",
    out: str | Path | None = None,
    seed: int | None = None,
    timesteps: int | None = None,
    minutes: float | None = None,
    n_envs: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    verbose: int = 1,
) -> dict[str, Any]:
    """Train a self-play agent with a preset and write the run into ``out``.

    Args:
        preset: ``quick``, ``full`` or ``tiny`` (``train.selfplay.PRESETS``).
        out: the output directory (default ``runs/PRESET``).
        seed, timesteps, minutes, n_envs: override the preset's ``seed``,
            ``total_timesteps``, ``time_budget_minutes`` and ``n_envs``.
        resume: continue the run saved in ``out`` (its ``config.json`` wins over the preset;
            ``timesteps`` and ``minutes`` still override it).
        overwrite: delete a previous run's outputs in ``out`` first.
        progress: show a progress bar.
        verbose: 1 prints the evaluations as they happen.

    Returns:
        The content of ``out/eval.json``.

    Raises:
        ValueError: an unknown preset.
        FileExistsError: ``out`` holds a run and neither ``resume`` nor ``overwrite``.
    """
    import dataclasses
    import json

    from train import selfplay

    out_dir = Path(out) if out is not None else Path("runs") / preset
    if overwrite and not resume:
        selfplay.clean_output(out_dir)
    config = selfplay.make_config(
        preset, seed=seed, total_timesteps=timesteps, time_budget_minutes=minutes, n_envs=n_envs
    )
    if resume:  # the saved config, with this call's budget overrides
        saved = selfplay.config_from_dict(json.loads((out_dir / "config.json").read_text()))
        changes: dict[str, Any] = {"total_timesteps": timesteps, "time_budget_minutes": minutes}
        config = dataclasses.replace(saved, **{k: v for k, v in changes.items() if v is not None})
    return selfplay.run(config, out_dir, resume=resume, verbose=verbose, progress_bar=progress)


def train_command(
    preset: Annotated[
        str, typer.Option(help="quick (minutes, beats random), full (hours), tiny (seconds)")
    ] = "quick",
    out: Annotated[
        Path | None, typer.Option(help="output directory (default: runs/PRESET)")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, max=MAX_SEED, help="override the preset's seed")
    ] = None,
    timesteps: Annotated[
        int | None,
        typer.Option(min=1, max=10**12, help="override the learner timesteps to train for"),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(min=0.01, max=10**6, help="override the training wall-time budget (minutes)"),
    ] = None,
    n_envs: Annotated[
        int | None, typer.Option(min=1, max=256, help="override the parallel environments")
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue the run saved in --out")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace a previous run in --out")] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    """Train a Fort agent by self-play (MaskablePPO) and evaluate it in tournaments.

    Writes model.safetensors + model.json (the policy: tensors and their description),
    config.json, eval.json, learning_curve.png, tb/, checkpoints/ and league/.

    The model plays as the agent ppo:OUT/model.safetensors, e.g. in fort-env tournament.
    """
    with failures():  # ImportError without the train extra
        from train.selfplay import PRESETS, format_summary
    if preset not in PRESETS:
        bad_option("--preset", f"{preset!r} is not one of {', '.join(PRESETS)}")
    with failures():
        summary = train(preset, out, seed, timesteps, minutes, n_envs, resume, overwrite, progress)
    typer.echo(format_summary(summary))


def register(app: typer.Typer) -> None:
    """Add the ``train`` command to ``app``."""
    app.command("train")(train_command)


def main() -> None:
    """Run ``train`` as a standalone command."""
    app = typer.Typer(add_completion=False)
    app.command()(train_command)
    app()
