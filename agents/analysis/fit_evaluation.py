"""How the weights of ``agents.bots.evaluation.FITTED`` were found.

Run ``python -m agents.analysis.fit_evaluation [--games 1200] [--workers 2]``. It plays two-player
games between the heuristics (builder, opportunist, scorer in every pairing and both seat
orders), records the features of both seats at the start of every turn before the end is
triggered, and fits a logistic regression of "this seat wins" on the difference of the two
seats' features (a little L2; ``scipy.optimize.minimize``, L-BFGS-B with the exact
gradient). Dividing every coefficient by the Victory Track's expresses the weights in points;
``1 / coefficient(track)`` is the sigmoid's scale.
The printed numbers were rounded into ``FITTED`` (1,200 games; the weights the fit found
slightly negative for Pack and Lookout were set to 0).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Annotated, Any

import numpy as np
import typer

from fort_env import FortGame, FortState
from fort_env.game.constants import LOOKOUT, MAX_FORT_LEVEL
from fort_env.game.decisions import DecisionKind
from fort_env.views.scoring import made_up_rule_points, owned_cards

FEATURES = (
    "track", "level_points", "level", "useful", "surplus", "pack", "lookout", "rule",
    "sculpture", "cards", "perks", "level>=1", "level>=2", "level>=3", "level>=4",
)  # fmt: skip
PAIRS = (("builder", "builder"), ("opportunist", "opportunist"), ("builder", "opportunist"),
         ("opportunist", "builder"), ("builder", "scorer"), ("scorer", "builder"))  # fmt: skip


def features(state: FortState, p: int) -> list[float]:
    """The features of seat ``p`` (:data:`FEATURES`)."""
    level = state.fort_level(p)
    (stuff_p, stuff_t), (pack_p, pack_t) = state.stuff(p), state.pack(p)
    toys, pizza = stuff_t + pack_t, stuff_p + pack_p
    useful = 0
    if level < MAX_FORT_LEVEL:
        step = state.game.fort_steps[level]
        use_t, use_p = min(toys, step.toys), min(pizza, step.pizza)
        useful = use_t + use_p + min(toys - use_t + pizza - use_p, step.either)
    lookout = len(state.cards_in(LOOKOUT, p))
    return [
        float(state.score(p)), state.game.level_points[level], level, useful,
        toys + pizza - useful, pack_p + pack_t, lookout, made_up_rule_points(state, p),
        float(state.macaroni_holder == p), len(owned_cards(state, p)),
        len(state.perks_held(p)), *(float(level >= k) for k in range(1, 5)),
    ]  # fmt: skip


class _TurnStarts:
    """Observer: the features of both seats at the start of each turn."""

    def __init__(self) -> None:
        self.rows: list[list[list[float]]] = []

    def before(self, state: FortState, seat: int, action: int) -> None:
        start = state.decision_kind == DecisionKind.PLAY and state.plays_this_turn == 0
        if start and not state.end_triggered:
            self.rows.append([features(state, q) for q in range(state.game.num_players)])

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        return {"rows": self.rows}


def _play(seed: int) -> tuple[list[int], list[list[list[float]]]]:
    from agents import make
    from agents.arena.games import play_game

    specs = PAIRS[seed % len(PAIRS)]
    bots = [make(s, seed=seed * 7 + i) for i, s in enumerate(specs)]
    record, _ = play_game(FortGame(2), bots, seed, observer=_TurnStarts())
    return record.winners, record.extra["rows"]


def collect(games: int, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: feature differences (me - rival) and wins, two rows per position."""
    xs, ys = [], []
    with ProcessPoolExecutor(workers) as pool:
        for winners, rows in pool.map(_play, range(games), chunksize=8):
            for f in rows:
                for p in (0, 1):
                    xs.append(np.subtract(f[p], f[1 - p]))
                    ys.append(float(p in winners))
    return np.array(xs), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression without intercept (the model is symmetric), L2-penalised.

    Minimises ``sum(log(1 + exp(x @ w)) - y * (x @ w)) + l2 / 2 * |w|^2`` with
    ``scipy.optimize.minimize`` (L-BFGS-B, exact gradient).

    Args:
        x: float ``(n, k)`` features; y: ``(n,)`` outcomes in {0, 1}.

    Returns:
        The weights, float64 ``(k,)``.

    Raises:
        ValueError: mismatched shapes, or the optimiser did not converge.
    """
    from scipy.optimize import minimize
    from scipy.special import expit

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"x must be (n, k) and y (n,), got {x.shape} and {y.shape}")

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        value = np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * (w @ w)
        return float(value), x.T @ (expit(z) - y) + l2 * w

    # tolerances tight enough that the optimum's gradient is ~0 (the default stops near 1e-3)
    result = minimize(
        loss,
        np.zeros(x.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 10_000},
    )
    if not result.success:
        raise ValueError(f"the logistic fit did not converge: {result.message}")
    return np.asarray(result.x)


def main(
    games: Annotated[int, typer.Option(min=10, help="games to play (heuristic pairings)")] = 1200,
    workers: Annotated[int, typer.Option(min=1, help="processes playing the games")] = 2,
) -> None:
    """Fit the weights of agents.bots.evaluation.FITTED from heuristic games and print them."""
    x, y = collect(games, workers)
    train = np.arange(len(y)) % 5 != 0
    w = fit(x[train], y[train])
    p = 1.0 / (1.0 + np.exp(-x[~train] @ w))
    print(f"{len(y)} positions; held-out accuracy {np.mean((p > 0.5) == (y[~train] > 0.5)):.3f}")
    track = w[0]
    for name, coef in zip(FEATURES, w, strict=True):
        print(f"{name:>14}: {coef:+.3f} logit = {coef / track:+.2f} points")
    print(f"sigmoid scale: {1 / track:.1f} points per logit")


if __name__ == "__main__":
    typer.run(main)
