"""Differential run: many random games played in lockstep on the Python engine and the C++
backend, compared at every decision (tests/differential/harness.py; docs/cpp.md).

    python scripts/differential.py [--games 1000] [--start 0] [--workers 1] [--fast] [--json]

Games cycle through 2/3/4 players x basic/advanced with seeds ``start, start + 1, ...``
(``harness.schedule``), so a run is reproducible and a failing game is named by its seed.
``--fast`` skips the costliest comparisons (observations for every seat, text); the legal
actions, mask, arrays and ``to_dict`` are always compared. Prints the games, decisions and
divergences per configuration (the first few described with the actions that lead to them)
and exits with status 1 if any game diverged. With ``--workers N`` the games run in N
processes (the machine is shared: keep it small).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.differential.harness import Checks, Divergence, lockstep, schedule  # noqa: E402


def _run(job: tuple[int, str, int, bool]) -> dict[str, Any]:
    n, setup, seed, fast = job
    checks = Checks(observations=not fast, text=not fast, clone_every=0 if fast else 50)
    try:
        res = lockstep(n, setup, seed, checks=checks)
    except Divergence as exc:
        return {"config": f"{n}p {setup}", "seed": seed, "decisions": 0, "error": str(exc)}
    return {"config": f"{n}p {setup}", "seed": seed, "decisions": res.decisions, "error": None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--fast", action="store_true", help="skip observations and text")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        ap.error("--games and --workers must be >= 1")

    from fort_env import cpp_backend

    if not cpp_backend.available():
        print(f"differential.py: {cpp_backend.why_unavailable()}", file=sys.stderr)
        return 2
    jobs = [(n, s, seed, args.fast) for n, s, seed in schedule(args.games, args.start)]
    t0 = time.perf_counter()
    games, decisions, diverged = Counter[str](), Counter[str](), Counter[str]()
    errors: list[str] = []
    if args.workers == 1:
        results = map(_run, jobs)
    else:
        pool = multiprocessing.get_context("spawn").Pool(args.workers)
        results = pool.imap_unordered(_run, jobs, chunksize=4)
    for r in results:
        games[r["config"]] += 1
        decisions[r["config"]] += r["decisions"]
        if r["error"]:
            diverged[r["config"]] += 1
            errors.append(r["error"])
    seconds = time.perf_counter() - t0
    summary = {
        "games": sum(games.values()),
        "decisions": sum(decisions.values()),
        "divergences": sum(diverged.values()),
        "seconds": round(seconds, 1),
        "per_config": {
            c: {"games": games[c], "decisions": decisions[c], "divergences": diverged[c]}
            for c in sorted(games)
        },
        "first_divergences": errors[:3],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for c, v in summary["per_config"].items():
            print(f"{c:12s} games {v['games']:7d}  decisions {v['decisions']:10d}  "
                  f"divergences {v['divergences']}")  # fmt: skip
        print(f"total: {summary['games']} games, {summary['decisions']} decisions, "
              f"{summary['divergences']} divergences in {seconds:.1f} s "
              f"({summary['decisions'] / max(seconds, 1e-9):.0f} decisions/s)")  # fmt: skip
        for e in errors[:3]:
            print("\n" + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
