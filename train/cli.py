"""``fort-env train``: the command line of self-play training (``train.runner.run``).

:func:`train` is the plain function; :func:`register` adds it as the ``train`` command of a
typer app (``fort_env/tools/cli.py`` calls ``register(app)``); :func:`main` runs it alone
(``python -m train``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from fort_env.game.facts import SETUPS
from fort_env.game.inputs import MAX_SEED
from fort_env.tools.cli_errors import bad_option, fail, failures
from train.config import PRESETS
from train.expert_config import EXPERT_DEFAULTS as _EXPERT

__all__ = ["main", "register", "train"]

BACKENDS = ("local", "rllib")
"""``--backend``: ``local`` trains in this process with the learner ``--algo`` names
(``train.selfplay``); ``rllib`` on Ray RLlib. ``sb3`` is accepted as ``local``'s old name."""


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def preset_defaults(field: str, none: str = "none") -> str:
    """What each preset sets ``field`` to, for ``--help``: ``"default: 0 in every preset"``
    or ``"default: quick ppo, full ppo, tiny maskable_ppo"`` (``train.config.PRESETS``; ``none``
    shows a ``None``)."""
    values = {name: getattr(config, field) for name, config in PRESETS.items()}
    shown = {name: none if v is None else _shown(v) for name, v in values.items()}
    if len(set(shown.values())) == 1:
        return f"default: {next(iter(shown.values()))} in every preset"
    return "default: " + ", ".join(f"{name} {v}" for name, v in shown.items())


def _preset_help() -> str:
    """``--preset``'s help: what each preset is, its budget read from ``PRESETS``."""
    minutes = PRESETS["quick"].time_budget_minutes
    return (
        f"quick: {_shown(minutes)} minutes of training, then the final evaluation; measured to "
        "beat the heuristic bot in most 2-player games (README, 'Self-play training'). full: "
        "until stopped (--minutes), a bigger network (the shipped models' recipe). tiny: "
        "seconds, a smoke test"
    )


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
    num_players: int | None = None,
    setup: str | None = None,
    algo: str | None = None,
    device: str | None = None,
    env_threads: int | None = None,
    torch_threads: int | None = None,
    critic: str | None = None,
    init_from: Path | None = None,
) -> dict[str, Any]:
    """Train a self-play agent with a preset and write the run into ``out``.

    Args:
        preset: ``quick``, ``full`` or ``tiny`` (``train.selfplay.PRESETS``).
        out: the output directory (default: a fresh ``runs/PRESET/YYYYmmdd-HHMMSS``, linked from
            ``runs/PRESET/latest`` when it finishes; with
            ``resume``, the newest run of the preset).
        seed, timesteps, minutes, n_envs: override the preset's ``seed``,
            ``total_timesteps``, ``time_budget_minutes`` and ``n_envs``.
        num_players, setup: override the table (2-4 players; ``basic`` or ``advanced``). The
            observation has one size for every count, but a policy plays best the count it
            was trained for (its description records it), so a 4-player model is its own run.
        algo: ``maskable_ppo`` (SB3) or ``ppo`` (the lean PPO, every seat a sample).
        device: ``auto``, ``cpu``, ``cuda`` or ``cuda:K`` (the lean PPO's tensors).
        env_threads, torch_threads: threads stepping the games and running torch (0: from
            the machine's cores, ``train.selfplay.resolve_threads``).
        critic: ``obs`` or ``table`` (the lean PPO's critic: ``train.selfplay.Config.critic``).
        init_from: a policy file whose weights start the lean PPO's network (fine-tuning:
            ``train.selfplay.Config.init_from``); not with ``resume``.
        resume: continue the run saved in ``out`` (its ``config.json`` wins over the preset;
            ``timesteps`` and ``minutes`` still override it).
        overwrite: delete a previous run's outputs in ``out`` first.
        progress: show a progress bar.
        verbose: 1 prints the evaluations as they happen.

    Returns:
        The content of ``out/eval.json``.

    Raises:
        ValueError: an unknown preset, a player count outside 2-4 or an unknown setup.
        ConfigError: an unknown algo, a bad device (or CUDA where torch sees no GPU).
        FileExistsError: ``out`` holds a run and neither ``resume`` nor ``overwrite``.
        FileNotFoundError: ``resume`` and no run to continue.
        RunFolderError: ``resume`` and a run folder file (``config.json``,
            ``checkpoints/state.json``) that is not JSON, has a field of the wrong type, or
            names an agent spec asking for ``trusted=1`` (trust never comes from a file).
    """
    import dataclasses

    from train import selfplay
    from train.progress import check_latest, latest_run_dir, mark_latest, new_run_dir

    if resume and (num_players is not None or setup is not None):
        raise ValueError("--num-players and --setup cannot change a run being resumed")
    if resume and init_from is not None:
        raise ValueError("--init-from starts a new run; a resumed run continues its checkpoint")
    if out is not None:
        out_dir = Path(out)
    else:  # a fresh runs/PRESET/YYYYmmdd-HHMMSS per run; --resume: the newest one
        out_dir = latest_run_dir(preset) if resume else new_run_dir(preset)
    if out is None:  # runs/PRESET/latest will name it: refused now, not after the run
        check_latest(out_dir)
    if verbose:
        print(f"run folder: {out_dir}", flush=True)
    if overwrite and not resume:
        selfplay.clean_output(out_dir)
    config = selfplay.make_config(
        preset,
        seed=seed,
        total_timesteps=timesteps,
        time_budget_minutes=minutes,
        n_envs=n_envs,
        num_players=num_players,
        setup=setup,
        algo=algo,
        device=device,
        env_threads=env_threads,
        torch_threads=torch_threads,
        critic=critic,
        init_from=None if init_from is None else str(init_from),
    )
    if resume:  # the saved config, checked (its specs may not ask for trust), with overrides
        path = out_dir / "config.json"
        saved = selfplay.config_from_dict(selfplay.read_run_json(path), source=path)
        changes: dict[str, Any] = {
            "total_timesteps": timesteps,
            "time_budget_minutes": minutes,
            "device": device,
            "env_threads": env_threads,
            "torch_threads": torch_threads,
        }
        config = dataclasses.replace(saved, **{k: v for k, v in changes.items() if v is not None})
    selfplay.resolve_device(config.device)  # one error line before anything is built
    summary = selfplay.run(config, out_dir, resume=resume, verbose=verbose, progress_bar=progress)
    if out is None:  # a default run folder: runs/PRESET/latest now names it
        mark_latest(out_dir)
    return summary


def train_command(
    preset: Annotated[str, typer.Option(help=_preset_help())] = "quick",
    out: Annotated[
        Path | None,
        typer.Option(
            help="output directory (default: a new runs/PRESET/YYYYmmdd-HHMMSS, linked from "
            "runs/PRESET/latest when it finishes)"
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=MAX_SEED,
            help="seeds the games, the network and the league; " + preset_defaults("seed"),
        ),
    ] = None,
    timesteps: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=10**12,
            help="learner timesteps (decisions) to train for; "
            + preset_defaults("total_timesteps"),
        ),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(
            min=0.01,
            max=10**6,
            help="the training wall-time budget in minutes; "
            + preset_defaults("time_budget_minutes", none="no limit"),
        ),
    ] = None,
    n_envs: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=4096,
            help="games stepped together (at most 256 with --algo maskable_ppo); "
            + preset_defaults("n_envs"),
        ),
    ] = None,
    num_players: Annotated[
        int | None,
        typer.Option(min=2, max=4, help="players at the table; " + preset_defaults("num_players")),
    ] = None,
    setup: Annotated[
        str | None, typer.Option(help="basic or advanced; " + preset_defaults("setup"))
    ] = None,
    algo: Annotated[
        str | None,
        typer.Option(
            help="the learner: ppo (the lean PPO of train/ppo.py: every seat a sample, "
            "--device) or maskable_ppo (sb3-contrib's MaskablePPO, CPU); " + preset_defaults("algo")
        ),
    ] = None,
    device: Annotated[
        str | None,
        typer.Option(
            help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:K (--algo ppo); "
            + preset_defaults("device")
        ),
    ] = None,
    env_threads: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=256,
            help="threads stepping the games in C++ (0: every core); "
            + preset_defaults("env_threads"),
        ),
    ] = None,
    torch_threads: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=256,
            help="torch threads (0: one or every usable core, whichever the run measures "
            "faster); " + preset_defaults("torch_threads"),
        ),
    ] = None,
    critic: Annotated[
        str | None,
        typer.Option(
            help="--algo ppo: what the critic reads: obs (the seat's observation) or table "
            "(every seat's hidden cards too: training only, the policy never reads it); "
            + preset_defaults("critic")
        ),
    ] = None,
    init_from: Annotated[
        Path | None,
        typer.Option(
            help="--algo ppo: start the network from this policy file's weights (fine-tune, "
            "e.g. agents/zoo/ppo-2p.safetensors; its players, setup and network must be the "
            "run's)"
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="continue the run in --out (default: the preset's newest run)")
    ] = False,
    overwrite: Annotated[bool, typer.Option(help="replace a previous run in --out")] = False,
    progress: Annotated[
        bool, typer.Option(help="show progress (a bar, or a line every 15 s if not a terminal)")
    ] = True,
    backend: Annotated[
        str,
        typer.Option(
            help="local: train in this process with the learner --algo names; rllib: Ray "
            "RLlib's PPO (the rllib extra, in its own venv)"
        ),
    ] = "local",
    num_env_runners: Annotated[
        int | None,
        typer.Option(min=1, max=256, help="rllib: env-runner actors sampling games (1 CPU each)"),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(help="rllib: local (default: a new Ray on this machine), auto, or HOST:PORT"),
    ] = None,
) -> None:
    """Train a Fort agent by self-play and evaluate it in tournaments.

    The learner is the one --algo names (by default the preset's: see --algo). Writes
    model.safetensors + model.json (the policy: tensors and their description), config.json,
    eval.json, learning_curve.png, tb/, checkpoints/ and league/.

    The model plays as the agent ppo:OUT/model.safetensors, e.g. in fort-env tournament.

    With --backend rllib: self-play PPO on Ray RLlib (train/rllib_selfplay.py), on this machine
    or the Ray cluster at --ray-address; writes checkpoint/, progress.jsonl and summary.json.
    """
    if backend == "rllib":
        local = (n_envs, setup, algo, device, env_threads, torch_threads, init_from)
        if resume or any(v is not None for v in local):
            typer.echo(
                "error: --n-envs, --resume, --setup, --algo, --device, --env-threads, "
                "--torch-threads and --init-from apply to --backend local only",
                err=True,
            )
            raise typer.Exit(1)
        settings: dict[str, Any] = dict(
            seed=seed, total_timesteps=timesteps, time_budget_minutes=minutes
        )
        settings["num_players"] = num_players
        settings["num_env_runners"] = num_env_runners
        _train_rllib(preset, out, overwrite, ray_address, settings)
        return
    if backend not in ("local", "sb3"):  # sb3: local's old name, for scripts that give it
        typer.echo(f"error: unknown --backend {backend!r} ({' or '.join(BACKENDS)})", err=True)
        raise typer.Exit(1)
    if num_env_runners is not None or ray_address is not None:
        typer.echo("error: --num-env-runners and --ray-address need --backend rllib", err=True)
        raise typer.Exit(1)
    with failures():  # ImportError without the train extra
        from train.selfplay import PRESETS, format_summary
    if preset not in PRESETS:
        bad_option("--preset", f"{preset!r} is not one of {', '.join(PRESETS)}")
    if setup is not None and setup not in SETUPS:
        bad_option("--setup", f"{setup!r} is not one of {', '.join(SETUPS)}")
    from train.selfplay import ALGOS, CRITICS, RunFolderError, resolve_device

    if algo is not None and algo not in ALGOS:
        bad_option("--algo", f"{algo!r} is not one of {', '.join(ALGOS)}")
    if critic is not None and critic not in CRITICS:
        bad_option("--critic", f"{critic!r} is not one of {', '.join(CRITICS)}")
    if device is not None:
        with failures("--device"):
            resolve_device(device)
    if init_from is not None and not resume:  # its description, before a run folder is made
        from agents.learned.policy_file import read_description

        with failures("--init-from"):
            read_description(init_from)

    with failures():
        try:
            summary = train(
                preset, out, seed, timesteps, minutes, n_envs, resume, overwrite, progress,
                num_players=num_players, setup=setup, algo=algo, device=device,
                env_threads=env_threads, torch_threads=torch_threads, critic=critic,
                init_from=init_from,
            )  # fmt: skip
        except RunFolderError as exc:  # a run folder's file: error: --resume: FILE: problem
            fail(exc, "--resume")
    typer.echo(format_summary(summary))


def _train_rllib(
    preset: str,
    out: Path | None,
    overwrite: bool,
    ray_address: str | None,
    settings: dict[str, Any],
) -> None:
    """``fort-env train --backend rllib``: ``train.rllib_selfplay.run`` and its summary."""
    import importlib.util

    from train import rllib_selfplay

    if importlib.util.find_spec("ray") is None:
        typer.echo(
            "error: --backend rllib needs Ray: in its own venv, "
            'pip install -c constraints.txt -e ".[rllib]"',
            err=True,
        )
        raise typer.Exit(1)
    out_dir = Path(out) if out is not None else Path("runs") / f"rllib-{preset}"
    try:
        config = rllib_selfplay.make_config(preset, **settings)
        if overwrite:
            rllib_selfplay.clean_output(out_dir)
        summary = rllib_selfplay.run(config, out_dir, ray_address=ray_address, echo=typer.echo)
    except (OSError, ValueError) as e:  # FileExistsError, ConnectionError, OutputFileError
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from e
    typer.echo(rllib_selfplay.format_summary(summary))


def expert_command(
    out: Annotated[str, typer.Option(help="output directory (best.safetensors, expert.json)")],
    model: Annotated[
        Path | None,
        typer.Option(help="the network to start from; default: the one bare puct searches with"),
    ] = None,
    num_players: Annotated[
        int, typer.Option(min=2, max=4, help="without --model: the shipped model's count")
    ] = 2,
    rounds: Annotated[int, typer.Option(min=1, max=10_000, help="rounds")] = _EXPERT.rounds,
    minutes: Annotated[
        float, typer.Option(min=0.0, max=10**6, help="start no round after this (0: no limit)")
    ] = _EXPERT.minutes,
    games: Annotated[
        int, typer.Option(min=1, max=10**6, help="self-play games a round")
    ] = _EXPERT.games,
    sims: Annotated[
        int, typer.Option(min=2, max=10**6, help="simulations per self-play decision")
    ] = _EXPERT.sims,
    batch: Annotated[
        int, typer.Option(min=1, max=256, help="leaves per forward pass in the searches")
    ] = _EXPERT.batch,
    explore: Annotated[
        int, typer.Option(min=0, max=10**4, help="decisions a game drawn from the visits")
    ] = _EXPERT.explore,
    noise: Annotated[
        float, typer.Option(min=0.0, max=0.99, help="root Dirichlet noise's weight")
    ] = _EXPERT.noise,
    full_share: Annotated[
        float,
        typer.Option(
            min=0.01, max=1.0, help="share of decisions searched fully and kept (playout cap)"
        ),
    ] = _EXPERT.full_share,
    fast_sims: Annotated[
        int, typer.Option(min=2, max=10**6, help="simulations of the other decisions' searches")
    ] = _EXPERT.fast_sims,
    gumbel: Annotated[
        bool, typer.Option(help="Gumbel root selection; its improved policy as the target")
    ] = _EXPERT.gumbel,
    gumbel_actions: Annotated[
        int, typer.Option(min=1, max=256, help="with --gumbel: root actions considered")
    ] = _EXPERT.gumbel_actions,
    q_mix: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="value target: share of the search's value (0: outcome)"
        ),
    ] = _EXPERT.q_mix,
    window: Annotated[
        int, typer.Option(min=1, max=1000, help="rounds of samples fitted")
    ] = _EXPERT.window,
    epochs: Annotated[
        int, typer.Option(min=1, max=1000, help="passes over the samples")
    ] = _EXPERT.epochs,
    learning_rate: Annotated[
        float, typer.Option(min=1e-8, max=1.0, help="Adam step size")
    ] = _EXPERT.learning_rate,
    gate_games: Annotated[
        int, typer.Option(min=0, max=10**6, help="gate games a round (0: no gate)")
    ] = _EXPERT.gate_games,
    gate_sims: Annotated[
        int, typer.Option(min=1, max=10**6, help="simulations per gate decision")
    ] = _EXPERT.gate_sims,
    threshold: Annotated[
        float, typer.Option(min=0.01, max=0.99, help="the gate's win rate at 2 players")
    ] = _EXPERT.threshold,
    workers: Annotated[int, typer.Option(min=1, max=256, help="game processes")] = _EXPERT.workers,
    device: Annotated[
        str, typer.Option(help="the fit's torch device: auto, cpu, cuda or cuda:K")
    ] = _EXPERT.device,
    seed: Annotated[
        int, typer.Option(min=0, max=MAX_SEED, help="seeds games and fit")
    ] = _EXPERT.seed,
) -> None:
    """Expert iteration for puct (train/expert.py): rounds of C++ search self-play, a fit
    of the policy head to the root visits and the value head to the outcomes, and a gate
    against the best network so far.

    Writes OUT/best.safetensors + OUT/best.json (play it as puct:model=PATH) and
    OUT/expert.json (per round: samples, hold-out losses, the gate's result, seconds).
    """
    if not out.strip():
        bad_option("--out", "is empty: name the output folder, e.g. runs/expert")
    with failures("--model"):  # ImportError without the train extra; a bad model file
        from agents.learned.core_network import core_network
        from agents.learned.zoo import search_model
        from train.device import resolve_device
        from train.expert import ExpertConfig, run

        start = model if model is not None else search_model(num_players)
        core_network(start)
    with failures("--device"):
        resolve_device(device)
    config = ExpertConfig(
        model=str(start),
        rounds=rounds,
        minutes=minutes,
        games=games,
        sims=sims,
        batch=batch,
        explore=explore,
        noise=noise,
        full_share=full_share,
        fast_sims=fast_sims,
        gumbel=gumbel,
        gumbel_actions=gumbel_actions,
        q_mix=q_mix,
        window=window,
        epochs=epochs,
        learning_rate=learning_rate,
        gate_games=gate_games,
        gate_sims=gate_sims,
        threshold=threshold,
        workers=workers,
        device=device,
        seed=seed,
    )
    with failures("--out"):
        from train.expert import check_out

        check_out(out, config)  # before the first game; run checks again
    with failures("--out"):
        report = run(config, out, echo=typer.echo)
    typer.echo(
        f"wrote {Path(out) / 'best.safetensors'} (rounds accepted: "
        f"{', '.join(map(str, report['accepted'])) or 'none'})"
    )


def value_fit_command(
    model: Annotated[Path, typer.Option(help="the network whose value head is refitted")],
    out: Annotated[str, typer.Option(help="the new network: NAME(.safetensors) + NAME.json")],
    games: Annotated[int, typer.Option(min=10, max=10**6, help="training games")] = 2000,
    holdout_games: Annotated[
        int, typer.Option(min=1, max=10**6, help="held-out games (other deals)")
    ] = 200,
    keep: Annotated[
        float, typer.Option(min=0.001, max=1.0, help="share of decisions kept as positions")
    ] = 0.12,
    opponents: Annotated[
        str, typer.Option(help="comma-separated agent specs; self: the network sampling")
    ] = "self,heuristic,builder,scorer",
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="seeds deals and agents")] = 0,
    overwrite: Annotated[
        bool, typer.Option(help="replace an existing --out (never the --model itself)")
    ] = False,
) -> None:
    """Refit a network's value head to who wins (train/value_fit.py), its policy unchanged:
    ridge regression of the outcome (+1 win, -1 loss) on the trunk's features, on positions of
    the network's games against OPPONENTS; prints the held-out error before and after.

    The new network plays as ppo exactly as the old one; puct:model=OUT.safetensors searches
    with a value head that estimates who wins. An existing OUT is replaced only with
    --overwrite, and never when it is the --model. Every argument is checked before the
    first game.
    """
    with failures("--model"):  # ImportError without the train extra; a bad model file
        from agents.learned.policy_file import load_policy_file
        from train.value_fit import ValueFitConfig, check_out, run

        load_policy_file(model)
    try:
        check_out(model, out, overwrite)
    except (ValueError, OSError) as exc:  # empty, a folder, the model, exists, a FIFO...
        bad_option("--out", exc)
    config = ValueFitConfig(
        model=str(model),
        games=games,
        holdout_games=holdout_games,
        keep=keep,
        opponents=opponents,
        seed=seed,
    )
    with failures():  # names the setting: games, holdout_games, keep, seed
        config.check()
    with failures("--opponents"):
        import agents

        for spec in config.opponents.split(","):
            if spec.strip() not in ("", "self"):
                agents.make(spec.strip())  # an unknown agent fails here, before any game
    with failures("--out"):
        run(config, out, log=typer.echo, overwrite=overwrite)


def register(app: typer.Typer) -> None:
    """Add the ``train``, ``expert`` and ``value-fit`` commands to ``app``."""
    app.command("train")(train_command)
    app.command("expert")(expert_command)
    app.command("value-fit")(value_fit_command)


def main() -> None:
    """Run ``train`` as a standalone command."""
    app = typer.Typer(add_completion=False)
    app.command()(train_command)
    app()
