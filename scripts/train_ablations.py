"""Small ablations of the ``quick`` training preset (issue 17): one short run per change.

Every run starts from the ``quick`` preset (with the league it had then, ``RANDOM_LEAGUE``)
with the same seed and the same budget of learner
timesteps (``--timesteps``, capped by ``--minutes`` of wall time), then plays the same fixed
evaluation deals (``--games`` 2-player games against ``heuristic``, seeded from the run's
seed, so every row plays the same deals) and appends one JSON line per run to
``OUT/ablations.jsonl``: the change, timesteps, samples/s, wins, the win rate and its Wilson
95% interval, and the command that reproduces it.

    python scripts/train_ablations.py --out runs/ablate --only baseline,shaping0

Runs are sequential (one core each on a shared 2-core machine). A row separates configurations
only where the intervals do not overlap; a single seed per row also leaves the run-to-run
(seed) spread unmeasured unless a ``seed1`` row is run.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from train import selfplay  # noqa: E402

RANDOM_LEAGUE = {"random": 0.5, "builder": 0.2, "scorer": 0.1, "opportunist": 0.1}
"""The quick preset's league when these ablations ran (every row starts from it)."""
HEURISTIC_LEAGUE = {"random": 0.1, "builder": 0.5, "scorer": 0.2, "opportunist": 0.2}
"""The league the ``league_heuristic`` row tried (the quick preset's since)."""

ABLATIONS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "seed1": {"seed": 1},
    "shaping0": {"shaping": 0.0},
    "ent0": {"ent_coef": 0.0},
    "ent03": {"ent_coef": 0.03},
    "league_heuristic": {"opponents": HEURISTIC_LEAGUE},
    "net_small": {"net_arch": (64, 64)},
    "net_big": {"net_arch": (512, 256)},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/ablate")
    parser.add_argument("--only", default=",".join(ABLATIONS), help="comma-separated names")
    parser.add_argument("--timesteps", type=int, default=80_000)
    parser.add_argument("--minutes", type=float, default=6.0, help="wall-time cap per run")
    parser.add_argument("--games", type=int, default=200, help="evaluation games vs heuristic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.only.split(","):
        change = ABLATIONS[name]
        overrides: dict[str, Any] = {
            "seed": args.seed,
            "total_timesteps": args.timesteps,
            "time_budget_minutes": args.minutes,
            "eval_freq": 10**9,  # no periodic evaluation: the budget goes to training
            "final_eval_opponents": ("heuristic",),
            "final_eval_games": args.games,
            "eval_workers": 1,
            "opponents": RANDOM_LEAGUE,
            **change,
        }
        config = selfplay.make_config("quick", **overrides)
        run_dir = out / name
        selfplay.clean_output(run_dir)
        t0 = time.perf_counter()
        summary = selfplay.run(config, run_dir, verbose=0, progress_bar=False)
        final = summary["final"]["heuristic"]
        row = {
            "name": name,
            "change": change,
            "timesteps": summary["timesteps"],
            "train_seconds": summary["train_wall_seconds"],
            "samples_per_second": round(summary["timesteps"] / summary["train_wall_seconds"]),
            "games": final["games"],
            "wins": final["wins"],
            "win_rate": final["win_rate"],
            "win_rate_ci95": final["win_rate_ci95"],
            "eval_seconds": summary["eval_wall_seconds"],
            "wall_seconds": round(time.perf_counter() - t0, 1),
            "command": "python scripts/train_ablations.py "
            + shlex.join(
                [
                    f"--out={args.out}",
                    f"--only={name}",
                    f"--timesteps={args.timesteps}",
                    f"--minutes={args.minutes}",
                    f"--games={args.games}",
                    f"--seed={args.seed}",
                ]
            ),
        }
        with (out / "ablations.jsonl").open("a") as f:
            f.write(json.dumps(row, default=list) + "\n")
        print(json.dumps(row, default=list), flush=True)


if __name__ == "__main__":
    main()
