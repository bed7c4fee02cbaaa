"""Held-out error of a table critic: MSE against the outcome on games it never saw.

Reads gen.py's shards from ``--data`` (games on seeds drawn after the critic was fitted: pass
the seed gen.py was run with as ``--seed0`` so that it is recorded), values every row with the
critic's raw output (return units: +1 a win, -1 a loss) and prints the MSE against the outcome
with a 95% bootstrap interval over games (``--boot`` resamples), overall and by thirds of the
game; the constant 0 scores about 1.0. With ``--record``, the figures go into the critic's JSON
(``zoo.heldout``), beside the command that made them.

    python scripts/table_critic/heldout.py --critic agents/zoo/critic-2p.safetensors \\
        --data runs/table_critic/2p/heldout --seed0 SEED --record
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from fit import load_rows

from agents.arena.luck import TableCritic
from agents.learned.policy_file import policy_paths
from fort_env import FortGame
from fort_env.game.files import write_text


def boot(err: np.ndarray, games: np.ndarray, n: int, rng: np.random.Generator) -> list[float]:
    """95% bootstrap interval of the mean of ``err`` resampling whole games."""
    ids, inverse = np.unique(games, return_inverse=True)
    sums = np.bincount(inverse, weights=err)
    counts = np.bincount(inverse)
    means = []
    for _ in range(n):
        pick = rng.integers(len(ids), size=len(ids))
        means.append(sums[pick].sum() / counts[pick].sum())
    return [float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--critic", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed0", type=int, required=True, help="the seed gen.py was run with")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--record", action="store_true", help="write the figures into its JSON")
    a = ap.parse_args()
    d = load_rows(Path(a.data))
    players = int(d["seat"].max()) + 1
    critic = TableCritic(a.critic, FortGame(players))
    pred = np.concatenate(
        [
            critic.critic(d["table"][i : i + 4096].astype(np.float32))
            for i in range(0, len(d["won"]), 4096)
        ]
    )
    y = 2.0 * d["won"].astype(np.float64) - 1.0
    err = (pred - y) ** 2
    rng = np.random.default_rng(0)
    out = {
        "games": len(np.unique(d["game"])),
        "rows": len(y),
        "seed0": a.seed0,
        "mse": float(err.mean()),
        "mse_ci95": boot(err, d["game"], a.boot, rng),
        "constant_zero_mse": float((y**2).mean()),
        "mse_by_third": [
            float(err[(d["progress"] >= lo) & (d["progress"] < hi)].mean())
            for lo, hi in ((0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.01))
        ],
        "command": "python " + " ".join([sys.argv[0], *sys.argv[1:]]),
    }
    print(json.dumps(out))
    if a.record:
        description = policy_paths(a.critic)[1]
        saved = json.loads(description.read_text())
        saved.setdefault("zoo", {})["heldout"] = out
        write_text(description, json.dumps(saved, indent=1) + "\n")


if __name__ == "__main__":
    main()
