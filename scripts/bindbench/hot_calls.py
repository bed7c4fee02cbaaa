"""Time the hot calls of the compiled core from Python, through ``_core`` and through
``CppFortState``, at one 4-player mid-game position (docs/cpp.md "pybind11 or nanobind").

usage: python scripts/bindbench/hot_calls.py [--runs 3] [--engine SECONDS]   (needs the built
extension). Prints ns per call: for each call the smallest, over the runs, of the best of 9
repeats of 20,000 calls (the smallest is the least disturbed by other jobs on the machine).

``--engine S`` also runs ``fort-env bench``'s engine loop (4 players) and OpenSpiel's 4-player
hanabi in the same loop (``fort_env.tools.bench``) for S seconds of CPU each, ``--runs`` times in
turn, and prints decisions per second of this thread's CPU time (``time.thread_time``): on a
shared machine a wall-clock rate moves with the other jobs, CPU time much less.
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

from fort_env import FortGame
from fort_env.native import backend as cpp_backend
from fort_env.tools import bench

CALLS = (
    "f()",  # a Python function call, for scale
    "C.noop()",
    "C.is_terminal(cs)",
    "C.current_player(cs)",
    "C.is_legal(cs, a)",
    "C.legal_list(cs)",
    "C.legal_mask(cs, mask)",
    "C.legal_mask(cs)",
    "C.observation(cs, 0, obs)",
    "C.observation(cs, 0)",
    "C.EventRng(1, 2)",  # a new pybind11 instance, for scale
    "cs.clone()",
    "s.is_terminal()",
    "s.current_player()",
    "s.legal_actions()",
    "s.legal_actions_mask()",
    "s.observation_tensor(0)",
    "s.clone()",
)


def position() -> dict[str, object]:
    game = FortGame(4, backend="cpp")
    rng = np.random.default_rng(1)
    s = game.new_initial_state(3)
    for _ in range(40):
        s.apply_action(int(rng.choice(s.legal_actions())))
    return {
        "s": s,
        "cs": s.core_state,  # type: ignore[attr-defined]
        "C": cpp_backend.require(),
        "a": s.legal_actions()[0],
        "obs": np.empty(game.observation_size, np.float32),
        "mask": np.empty(game.num_distinct_actions, bool),
        "f": lambda: None,
    }


def engine(seconds: float, runs: int) -> None:
    cpu = time.thread_time
    loops = {"fort (4p, cpp)": bench.engine_loop(4, "cpp", clock=cpu)}
    try:
        loops["hanabi (4p)"] = bench.openspiel_loop(bench.ENGINE_PEERS["hanabi (4p)"], clock=cpu)
    except ImportError:
        print("  (open_spiel is not installed: Fort only)")
    for r in range(runs):
        rates = []
        for name, run in loops.items():
            decisions, _games, elapsed = run(seconds, r * bench.ROUND_SEED_STRIDE)
            rates.append(f"{name} {decisions / elapsed:,.0f}")
        print("  engine loop, decisions per CPU second: " + ", ".join(rates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", type=float, default=0.0, metavar="SECONDS")
    args = parser.parse_args()
    if args.engine > 0:
        engine(args.engine, args.runs)
    g = position()
    s = g["s"]
    print(
        f"{len(s.legal_actions())} legal actions, observation of {s.game.observation_size} "  # type: ignore[attr-defined]
        f"floats, {s.game.num_distinct_actions} actions"  # type: ignore[attr-defined]
    )
    n = 20_000
    best = {call: float("inf") for call in CALLS}
    for _ in range(args.runs):
        for call in CALLS:
            t = min(timeit.Timer(call, globals=g).repeat(9, n)) / n * 1e9
            best[call] = min(best[call], t)
    for call in CALLS:
        print(f"  {call:30s} {best[call]:7.0f} ns")


if __name__ == "__main__":
    main()
