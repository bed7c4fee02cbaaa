"""A luck-corrected tournament beside the raw one: variance reduction, bias check and cost.

Plays the same tournament (``--agents``, ``--players``, ``--games``, ``--seed``) twice in this
run, raw and corrected with ``--critic`` (default: the zoo's for the table), on one worker
each, and prints one JSON object: per agent the raw and corrected win rates with their
intervals, the variance reduction and the mean luck taken out (its interval should hold 0);
and the wall time of each tournament with their ratio (the correction's cost). ``--no-raw``
skips the raw tournament (the corrected one holds the raw figures too; only the cost is then
not measured). Figures for docs/benchmark.md:

    python scripts/luck_study.py --agents ppo,heuristic --games 200 --seed SEED
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from agents.arena.luck import DEFAULT_SAMPLES, shipped_critic
from agents.arena.tournament import run_tournament


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", required=True, help="comma-separated specs, one per seat")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--critic", default=None)
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--no-raw", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    specs = a.agents.split(",")
    critic = a.critic or shipped_critic(a.players)
    if critic is None:
        raise SystemExit(f"no critic ships for {a.players} players: give --critic")
    out: dict = {"agents": specs, "players": a.players, "games": a.games, "seed": a.seed}
    if not a.no_raw:
        t0 = time.perf_counter()
        run_tournament(specs, a.players, a.games, seed=a.seed, progress=False)
        out["raw_seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    result = run_tournament(
        specs, a.players, a.games, seed=a.seed, progress=False, critic=critic,
        luck_samples=a.samples,
    )  # fmt: skip
    out["corrected_seconds"] = round(time.perf_counter() - t0, 1)
    if "raw_seconds" in out:
        out["cost_ratio"] = round(out["corrected_seconds"] / out["raw_seconds"], 3)
    out["luck_corrected"] = result["luck_corrected"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
