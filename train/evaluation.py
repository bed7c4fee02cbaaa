"""Evaluations of the learner by tournament: periodic ones during training, the final one.

Where a table critic ships for the game (``agents.arena.luck.shipped_critic``), every
evaluation also reports the luck-corrected win rate (AIVAT, ``agents.arena.luck``), and the
periodic evaluation's decision (the best checkpoint so far, a league snapshot) is taken on it:
at 200 games its interval is narrower than the raw one's by the square root of the variance
reduction the tournament reports. The raw figures are kept beside it, under their own names.

Both trainers (``train.ppo``, ``train.maskable_ppo``) call :func:`periodic_evaluation` when
:func:`evaluation_due`; ``train.runner.run`` plays the final one with :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.arena.luck import shipped_critic
from agents.arena.tournament import run_tournament
from train.checkpoints import save_state
from train.config import Config
from train.league import League, snapshot_spec

__all__ = [
    "EVALS_PER_BUDGET",
    "EVAL_SEED_OFFSET",
    "FINAL_EVAL_SEED_OFFSET",
    "evaluate",
    "evaluation_due",
    "model_luck_corrected",
    "model_win_rate",
    "periodic_evaluation",
]

EVALS_PER_BUDGET = 4
"""With a time budget, a periodic evaluation also falls due every ``1 / EVALS_PER_BUDGET`` of
it, so a run on a slow machine, which reaches fewer than ``eval_freq`` steps, still draws a
learning curve."""


def evaluation_due(
    config: Config, state: Mapping[str, Any], timesteps: int, elapsed: float
) -> bool:
    """Whether a periodic evaluation is due: ``eval_freq`` steps since the last one, or, with
    a time budget, :data:`EVALS_PER_BUDGET` of it in seconds since then (``state``'s
    ``last_eval`` and ``last_eval_seconds``)."""
    if timesteps - int(state["last_eval"]) >= config.eval_freq:
        return True
    if config.time_budget_minutes is None:
        return False
    every = 60.0 * config.time_budget_minutes / EVALS_PER_BUDGET
    return elapsed - float(state.get("last_eval_seconds", 0.0)) >= every


EVAL_SEED_OFFSET = 7
"""Periodic evaluations play the deals of seed ``config.seed + EVAL_SEED_OFFSET`` (every time)."""
FINAL_EVAL_SEED_OFFSET = 100_000
"""The final evaluation's deals: seed ``config.seed + FINAL_EVAL_SEED_OFFSET`` (others than
the periodic ones')."""


def evaluate(
    model_path: str | Path,
    opponents: Sequence[str],
    games: int,
    config: Config,
    workers: int = 1,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """Tournaments of the saved model against each opponent (``agents.arena.tournament``).

    Returns ``{opponent: run_tournament result}`` (``num_players`` seats: the model and
    ``num_players - 1`` copies of the opponent, seats rotating), luck-corrected where a table
    critic ships for the game (module docstring).
    """
    spec = snapshot_spec(model_path, config.deterministic_eval)  # quoted where it must be
    critic = shipped_critic(config.num_players, config.setup)
    out = {}
    for i, opponent in enumerate(opponents):
        specs = [spec] + [opponent] * (config.num_players - 1)
        result = run_tournament(
            specs,
            config.num_players,
            games,
            seed=seed + i,
            workers=workers,
            setup=config.setup,
            progress=False,
            critic=critic,
        )
        out[opponent] = result
    return out


def model_win_rate(result: Mapping[str, Any]) -> tuple[float, list[float]]:
    """The model's (first seat spec's) win rate and its 95% interval in a tournament result."""
    first = next(iter(result["agents"].values()))
    return float(first["win_rate"]), list(first["win_rate_ci95"])


def model_luck_corrected(result: Mapping[str, Any]) -> tuple[float, list[float]] | None:
    """The model's (first seat spec's) luck-corrected win rate and its 95% interval, or
    ``None`` when the tournament was not corrected."""
    luck = result.get("luck_corrected")
    if luck is None:
        return None
    first = next(iter(result["agents"]))
    mine = luck["agents"][first]
    return float(mine["win_rate"]), list(mine["win_rate_ci95"])


def periodic_evaluation(
    config: Config,
    out: Path,
    league: League,
    state: dict[str, Any],
    timesteps: int,
    elapsed: float,
    checkpoint: Path,
    add_snapshot: Callable[[], Any],
    log: Callable[[str, float], Any],
    verbose: int = 1,
) -> dict[str, float]:
    """One periodic evaluation of the checkpoint against ``config.eval_opponents`` (both
    trainers): records it in ``state["evals"]`` and through ``log`` (``eval/...`` metrics),
    calls ``add_snapshot`` when the first opponent's rate (luck-corrected where a critic
    ships) is the best so far (with ``snapshot_weight > 0``), saves the run state. Returns
    opponent -> raw win rate."""
    # The same seed at every evaluation: each one replays the same deals (paired
    # evaluations), so successive rates differ by the learner, not by the deals.
    results = evaluate(
        checkpoint,
        config.eval_opponents,
        config.eval_games,
        config,
        workers=config.eval_workers,
        seed=state.get("eval_seed", config.seed + EVAL_SEED_OFFSET),
    )
    rates, intervals = {}, {}
    corrected: dict[str, float] = {}
    corrected_ci: dict[str, list[float]] = {}
    for opponent, result in results.items():
        rate, ci = model_win_rate(result)
        rates[opponent], intervals[opponent] = rate, ci
        log(f"eval/win_rate_vs_{opponent}", rate)
        log(f"eval/win_rate_vs_{opponent}_ci95_low", ci[0])
        log(f"eval/win_rate_vs_{opponent}_ci95_high", ci[1])
        luck = model_luck_corrected(result)
        if luck is not None:
            corrected[opponent], corrected_ci[opponent] = luck
            log(f"eval/luck_corrected_win_rate_vs_{opponent}", luck[0])
    entry: dict[str, Any] = {
        "timesteps": timesteps,
        "wall_seconds": round(elapsed, 1),
        **rates,
        "games": config.eval_games,
        "ci95": intervals,
    }
    if corrected:
        entry["luck_corrected"] = corrected
        entry["luck_corrected_ci95"] = corrected_ci
    state["evals"].append(entry)
    first = config.eval_opponents[0]
    # a corrected rate can leave [0, 1] on a few games; the best so far starts at 0
    key = min(max(corrected.get(first, rates[first]), 0.0), 1.0)
    if config.snapshot_weight > 0 and key >= state["best"]:
        state["best"] = key
        add_snapshot()
    save_state(out, league, state)
    if verbose:
        shown = ", ".join(
            f"{k} {v:.2f} [{intervals[k][0]:.2f}, {intervals[k][1]:.2f}]" for k, v in rates.items()
        )
        if corrected:
            shown += "; luck-corrected: " + ", ".join(
                f"{k} {v:.2f} [{corrected_ci[k][0]:.2f}, {corrected_ci[k][1]:.2f}]"
                for k, v in corrected.items()
            )
        print(
            f"[{timesteps} steps, {elapsed:.0f} s] eval win rate "
            f"({config.eval_games} games each, Wilson 95% interval): {shown}"
        )
    return rates
