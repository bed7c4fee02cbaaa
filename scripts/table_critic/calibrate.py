"""Fit a table critic's luck weights (``agents.arena.luck.LuckWeights``) on calibration games.

Plays ``--games`` games of each matchup of ``--matchups`` (``;``-separated, each a
comma-separated list of specs, one per seat; seats rotated, ``agents.arena.tournament``) on
``--seed``, with the luck correction keeping every chance event's unweighted term. Per game
and seat it sums the terms by when they happened: the deal, then stretches of rounds cut at
``--edges``. The weights minimise the variance of ``won - sum(w_b * luck_b)`` over all rows
(least squares: ``w = Cov(luck)^-1 Cov(luck, won)``), clipped to ``[0, 1]``.

Any fixed weights keep the estimate unbiased; these are fitted on games that no evaluation
plays (their seeds are recorded), before any evaluation, so that the tournaments they later
judge stay independent of them. Prints one JSON object (the raw variance, the variance with
every weight 1 and with the fitted weights, in sample); ``--record`` writes the weights, with
this command and those figures, into the critic's JSON (``zoo.luck_weights``).

    python scripts/table_critic/calibrate.py --critic agents/zoo/critic-2p.safetensors \\
        --players 2 --games 100 --seed 7000001 --record
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
import torch

from agents.arena.luck import LuckCorrection, LuckWeights, TableCritic
from agents.arena.tournament import run_tournament
from agents.learned.policy_file import policy_paths
from fort_env import FortGame
from fort_env.game.files import write_text

MATCHUPS = {
    2: "ppo,heuristic;heuristic,scorer;ppo,scorer",
    3: "ppo,heuristic,heuristic;heuristic,scorer,opportunist",
    4: "ppo,heuristic,heuristic,heuristic;heuristic,scorer,opportunist,ppo",
}


class Terms:
    """The observer factory: a luck correction keeping every term, plain weights."""

    def __init__(self, critic: TableCritic, samples: int) -> None:
        self.critic, self.samples = critic, samples

    def __call__(self) -> LuckCorrection:
        return LuckCorrection(self.critic, self.samples, True, LuckWeights.plain())


def rows_of(result: dict[str, Any], edges: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(won (R,), luck by bin (R, 1 + len(edges) + 1))`` over every game and seat."""
    won, bins = [], []
    for r in result["records"]:
        terms = np.array(r.extra["terms"])
        for seat in range(len(r.seating)):
            won.append(float(seat in r.winners))
            when, x = terms[:, 0], terms[:, 1 + seat]
            row = [x[when < 0].sum()]
            lows = [0, *edges]
            highs = [*edges, 10**9]
            row += [x[(when >= lo) & (when < hi)].sum() for lo, hi in zip(lows, highs, strict=True)]
            bins.append(row)
    return np.array(won), np.array(bins)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--critic", required=True)
    ap.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    ap.add_argument("--matchups", default=None, help="default: MATCHUPS[players]")
    ap.add_argument("--games", type=int, default=100, help="games per matchup")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--edges", default="2,4,6,8", help="round edges of the bins")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    critic = TableCritic(a.critic, FortGame(a.players))
    edges = [int(e) for e in a.edges.split(",")] if a.edges else []
    matchups = (a.matchups or MATCHUPS[a.players]).split(";")
    won, bins = [], []
    t0 = time.time()
    for k, m in enumerate(matchups):
        result = run_tournament(
            m.split(","), a.players, a.games, seed=a.seed + k, progress=False,
            observer=Terms(critic, a.samples), return_records=True,
        )  # fmt: skip
        w, b = rows_of(result, edges)
        won.append(w)
        bins.append(b)
        print(f"{m}: {a.games} games ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    u, x = np.concatenate(won), np.concatenate(bins)
    cov = np.cov(np.column_stack([x, u]), rowvar=False)
    sxx, sxu = cov[:-1, :-1], cov[:-1, -1]
    fitted = np.clip(np.linalg.solve(sxx + 1e-9 * np.eye(len(sxu)), sxu), 0.0, 1.0)
    out = {
        "deal": round(float(fitted[0]), 4),
        "round_edges": edges,
        "weights": [round(float(w), 4) for w in fitted[1:]],
        "fit": {
            "command": "python " + " ".join([sys.argv[0], *sys.argv[1:]]),
            "matchups": matchups,
            "games_per_matchup": a.games,
            "seed": a.seed,
            "rows": len(u),
            "samples": a.samples,
            "raw_variance": float(u.var(ddof=1)),
            "plain_variance": float((u - x.sum(axis=1)).var(ddof=1)),
            "fitted_variance_in_sample": float((u - x @ fitted).var(ddof=1)),
            "seconds": round(time.time() - t0),
        },
    }
    print(json.dumps(out, indent=1))
    if a.record:
        LuckWeights.from_json(out, policy_paths(a.critic)[0])  # the entry TableCritic reads
        description = policy_paths(a.critic)[1]
        saved = json.loads(description.read_text())
        saved.setdefault("zoo", {})["luck_weights"] = out
        write_text(description, json.dumps(saved, indent=1) + "\n")


if __name__ == "__main__":
    main()
