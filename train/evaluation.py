"""Evaluations of the learner by tournament: periodic ones during training, the final one.

Both trainers (``train.ppo``, ``train.maskable_ppo``) call :func:`periodic_evaluation` when
:func:`evaluation_due`; ``train.runner.run`` plays the final one with :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.arena.tournament import run_tournament
from train.checkpoints import save_state
from train.config import Config
from train.league import League

__all__ = [
    "EVALS_PER_BUDGET",
    "EVAL_SEED_OFFSET",
    "FINAL_EVAL_SEED_OFFSET",
    "evaluate",
    "evaluation_due",
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
    ``num_players - 1`` copies of the opponent, seats rotating).
    """
    spec = f"ppo:{model_path}" + ("" if config.deterministic_eval else ":deterministic=0")
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
        )
        out[opponent] = result
    return out


def model_win_rate(result: Mapping[str, Any]) -> tuple[float, list[float]]:
    """The model's (first seat spec's) win rate and its 95% interval in a tournament result."""
    first = next(iter(result["agents"].values()))
    return float(first["win_rate"]), list(first["win_rate_ci95"])


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
    calls ``add_snapshot`` when the first opponent's rate is the best so far (with
    ``snapshot_weight > 0``), saves the run state. Returns opponent -> win rate."""
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
    for opponent, result in results.items():
        rate, ci = model_win_rate(result)
        rates[opponent], intervals[opponent] = rate, ci
        log(f"eval/win_rate_vs_{opponent}", rate)
        log(f"eval/win_rate_vs_{opponent}_ci95_low", ci[0])
        log(f"eval/win_rate_vs_{opponent}_ci95_high", ci[1])
    state["evals"].append(
        {
            "timesteps": timesteps,
            "wall_seconds": round(elapsed, 1),
            **rates,
            "games": config.eval_games,
            "ci95": intervals,
        }
    )
    key = rates[config.eval_opponents[0]]
    if config.snapshot_weight > 0 and key >= state["best"]:
        state["best"] = key
        add_snapshot()
    save_state(out, league, state)
    if verbose:
        shown = ", ".join(
            f"{k} {v:.2f} [{intervals[k][0]:.2f}, {intervals[k][1]:.2f}]" for k, v in rates.items()
        )
        print(
            f"[{timesteps} steps, {elapsed:.0f} s] eval win rate "
            f"({config.eval_games} games each, Wilson 95% interval): {shown}"
        )
    return rates
