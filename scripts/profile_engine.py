"""Deterministic engine profile: 12 fixed 4-player games of random legal play.

The figures in docs/performance.md ("Where the time goes") come from here::

    python scripts/profile_engine.py             # decisions/s, cloned states, per-kind table
    python scripts/profile_engine.py --cprofile  # also cProfile's top entries by own time

Games are seeds 100-111 with actions drawn by ``np.random.default_rng(0)``, so the counts
(decisions, cloned states) are exact and repeatable; times depend on the machine (decisions/s
is the best of 5 runs in process CPU time, to damp other load).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections import defaultdict

import numpy as np

from fort_env import DecisionKind, FortGame
from fort_env.core import FortState

NUM_PLAYERS = 4
SEEDS = range(100, 112)
RUNS = 5


def play(game: FortGame) -> int:
    """Play the fixed games; the number of decisions."""
    rng = np.random.default_rng(0)
    decisions = 0
    for seed in SEEDS:
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def rate() -> tuple[int, float]:
    """Decisions and the best decisions/s (process time) over ``RUNS`` runs, each on a new
    game object (an empty search memo)."""
    best, decisions = 0.0, 0
    for _ in range(RUNS):
        start = time.process_time()
        decisions = play(FortGame(NUM_PLAYERS))
        best = max(best, decisions / (time.process_time() - start))
    return decisions, best


def by_kind() -> tuple[int, dict[int, list[float]]]:
    """Cloned states in all, and per decision kind: [count, seconds, cloned states] of
    computing the legal actions."""
    clones = [0]
    table: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0])
    clone, compute = FortState.clone, FortState._compute_legal

    def counting_clone(self: FortState) -> FortState:
        clones[0] += 1
        return clone(self)

    def timed_compute(self: FortState) -> list[int]:
        row = table[self.decision.kind]
        before, start = clones[0], time.perf_counter()
        out = compute(self)
        row[0] += 1
        row[1] += time.perf_counter() - start
        row[2] += clones[0] - before
        return out

    FortState.clone = counting_clone  # type: ignore[method-assign]
    FortState._compute_legal = timed_compute  # type: ignore[method-assign]
    try:
        play(FortGame(NUM_PLAYERS))
    finally:
        FortState.clone = clone  # type: ignore[method-assign]
        FortState._compute_legal = compute  # type: ignore[method-assign]
    return clones[0], table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cprofile", action="store_true", help="print cProfile's top entries")
    args = parser.parse_args()
    decisions, best = rate()
    clones, table = by_kind()
    print(f"{decisions} decisions in {len(SEEDS)} games; best of {RUNS}: {best:,.0f} decisions/s")
    print(f"cloned states per decision: {clones / decisions:.2f}")
    print(f"{'decision':15s} {'count':>6s} {'us each':>8s} {'clones each':>12s}")
    for kind, (count, seconds, cloned) in sorted(table.items(), key=lambda kv: -kv[1][1]):
        name = DecisionKind(kind).name
        print(f"{name:15s} {count:6d} {seconds / count * 1e6:8.1f} {cloned / count:12.2f}")
    if args.cprofile:
        profiler = cProfile.Profile()
        profiler.runcall(play, FortGame(NUM_PLAYERS))
        pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
