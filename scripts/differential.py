"""Differential run: many random games played in lockstep on the Python engine and the C++
backend, compared at every decision (fort_env/testing/differential.py; docs/cpp.md).

    python scripts/differential.py [--games 1000] [--start 0] [--workers 1]
                                   [--fast | --every K] [--out DIR] [--chunk 200] [--json]

Games cycle through 2/3/4 players x basic/advanced with seeds ``start, start + 1, ...``
(``fort_env.testing.differential.schedule``), so a run is reproducible and a failing game is
named by its seed.

What is compared: at every decision the legal actions, the mask, every array and ``ctx``
(bytes), the decision, the current player and the returns; after the end the score breakdown
and winners; every 50 decisions a clone, a ``from_dict`` round trip and a re-deal of the hidden
cards. The costly views (every seat's observation, ``str(state)``, action names, ``to_dict``,
the raw legal list) are compared at every decision by default, or every K decisions and at the
end with ``--every K``; ``--fast`` is ``--every 20`` (the mode of the 100,000-game run).

The games run in chunks of ``--chunk`` seeds over ``--workers`` processes (the machine is
shared: keep it small). With ``--out DIR`` each finished chunk is appended to
``DIR/chunks.jsonl`` (its seeds, counts per configuration, divergences) and a rerun with the
same arguments skips the chunks already there, so a long run can be stopped and resumed. A
progress line goes to stderr every chunk (games done, rate, time left). The last lines are
the games, decisions and divergences per configuration and the total; the first divergences
are described with the actions that lead to them. Exit status 1 if any game diverged.
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

from fort_env.testing.differential import Checks, Divergence, lockstep, schedule  # noqa: E402

FAST_EVERY = 20  # --fast: the costly views every 20 decisions (a game has about 250)
SHOWN = 3  # divergences described in full


def _run_chunk(job: tuple[int, int, int]) -> dict[str, Any]:
    """Play the games of seeds ``[start, start + count)``; their counts per configuration."""
    start, count, every = job
    cpu0 = time.process_time()
    checks = Checks(full_every=every)
    games, decisions, diverged = Counter[str](), Counter[str](), Counter[str]()
    errors: list[str] = []
    for n, setup, seed in schedule(count, start):
        config = f"{n}p {setup}"
        games[config] += 1
        try:
            decisions[config] += lockstep(n, setup, seed, checks=checks).decisions
        except Divergence as exc:
            diverged[config] += 1
            errors.append(str(exc))
    return {
        "start": start,
        "count": count,
        "every": every,
        "games": dict(games),
        "decisions": dict(decisions),
        "divergences": dict(diverged),
        "errors": errors[:SHOWN],
        "cpu_seconds": round(time.process_time() - cpu0, 3),
    }


def _done_chunks(path: Path, every: int) -> dict[tuple[int, int], dict[str, Any]]:
    """The chunks already recorded in ``path`` for this mode, by (start, count)."""
    done: dict[tuple[int, int], dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a stop: that chunk runs again
                continue
            if rec.get("every") == every:
                done[(rec["start"], rec["count"])] = rec
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--fast", action="store_true", help=f"same as --every {FAST_EVERY}")
    mode.add_argument("--every", type=int, default=1,
                      help="compare the costly views every K decisions (default 1)")  # fmt: skip
    ap.add_argument("--chunk", type=int, default=200, help="seeds per chunk (default 200)")
    ap.add_argument("--out", type=Path, default=None,
                    help="directory of the resumable record (chunks.jsonl)")  # fmt: skip
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.every < 1 or args.chunk < 1:
        ap.error("--games, --workers, --every and --chunk must be >= 1")
    every = FAST_EVERY if args.fast else args.every

    from fort_env.native import backend as cpp_backend

    if not cpp_backend.available():
        print(f"differential.py: {cpp_backend.why_unavailable()}", file=sys.stderr)
        return 2
    record = None
    done: dict[tuple[int, int], dict[str, Any]] = {}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        record = args.out / "chunks.jsonl"
        done = _done_chunks(record, every)
    end = args.start + args.games
    chunks = [(s, min(args.chunk, end - s)) for s in range(args.start, end, args.chunk)]
    results = [done[c] for c in chunks if c in done]
    jobs = [(s, n, every) for s, n in chunks if (s, n) not in done]
    resumed = sum(r["count"] for r in results)
    if resumed:
        print(f"differential.py: {resumed} games already in {record}; "
              f"{sum(n for _, n, _ in jobs)} to play", file=sys.stderr)  # fmt: skip

    t0 = time.perf_counter()
    played = 0
    pool = None
    if args.workers == 1 or len(jobs) <= 1:
        it = map(_run_chunk, jobs)
    else:
        pool = multiprocessing.get_context("spawn").Pool(args.workers)
        it = pool.imap_unordered(_run_chunk, jobs)
    try:
        for r in it:
            results.append(r)
            played += r["count"]
            if record is not None:
                with record.open("a") as f:
                    f.write(json.dumps(r) + "\n")
            elapsed = time.perf_counter() - t0
            left = sum(n for _, n, _ in jobs) - played
            rate = played / max(elapsed, 1e-9)
            print(f"differential.py: {resumed + played}/{args.games} games, "
                  f"{sum(sum(x['divergences'].values()) for x in results)} divergences, "
                  f"{rate:.2f} games/s, about {left / max(rate, 1e-9) / 60:.0f} min left",
                  file=sys.stderr, flush=True)  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    seconds = time.perf_counter() - t0

    games, decisions, diverged = Counter[str](), Counter[str](), Counter[str]()
    errors: list[str] = []
    for r in sorted(results, key=lambda r: r["start"]):
        games.update(r["games"])
        decisions.update(r["decisions"])
        diverged.update(r["divergences"])
        errors.extend(r["errors"])
    new = results[len(results) - len(jobs) :]
    new_decisions = sum(sum(r["decisions"].values()) for r in new)
    cpu = sum(r.get("cpu_seconds", 0.0) for r in new)  # the workers' CPU time: load-free
    summary = {
        "games": sum(games.values()),
        "decisions": sum(decisions.values()),
        "divergences": sum(diverged.values()),
        "every": every,
        "seconds": round(seconds, 1),
        "games_played_now": played,
        "games_per_s": round(played / max(seconds, 1e-9), 2),
        "cpu_seconds": round(cpu, 1),
        "games_per_cpu_s": round(played / max(cpu, 1e-9), 2),
        "per_config": {
            c: {"games": games[c], "decisions": decisions[c], "divergences": diverged[c]}
            for c in sorted(games)
        },
        "first_divergences": errors[:SHOWN],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for c, v in summary["per_config"].items():
            print(f"{c:12s} games {v['games']:7d}  decisions {v['decisions']:10d}  "
                  f"divergences {v['divergences']}")  # fmt: skip
        print(f"total: {summary['games']} games, {summary['decisions']} decisions, "
              f"{summary['divergences']} divergences (views every {every} decisions); "
              f"{played} games played in {seconds:.1f} s ({summary['games_per_s']} games/s, "
              f"{new_decisions / max(seconds, 1e-9):.0f} decisions/s, {args.workers} "
              f"workers; {summary['games_per_cpu_s']} games per CPU second)")  # fmt: skip
        for e in errors[:SHOWN]:
            print("\n" + e)
    return 1 if errors or summary["divergences"] else 0


if __name__ == "__main__":
    sys.exit(main())
