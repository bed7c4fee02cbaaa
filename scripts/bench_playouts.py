"""Random playouts inside the C++ core: decisions per wall second and per CPU second.

The figures of docs/cpp.md "Playouts" come from here::

    python scripts/bench_playouts.py                 # 2, 3, 4 players, one thread
    python scripts/bench_playouts.py --threads 2     # a batch split over two threads

For each player count (basic setup) it deals ``--deals`` games (seeds 0, 1, ...) and runs a
batch of ``--playouts`` random playouts from each (``fort_env.native.playout.playout_batch``, seeds
``1000 * deal + i``), so the work is the same from run to run. Wall time is what a caller
waits; CPU time (``time.process_time``, every thread of the process) is what one core gives
when the machine is shared, so on a busy machine read the CPU figure as "per core". To
compare two builds, run the script on each (``FORT_ENV_CORE=/path/to/_core...so``) in turn.
"""

from __future__ import annotations

import argparse
import time

from fort_env import FortGame
from fort_env.native.playout import playout_batch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=100, help="per deal")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    for players in (2, 3, 4):
        game = FortGame(players, backend="cpp")
        decisions, wall, cpu = 0, 0.0, 0.0
        for deal in range(args.deals):
            state = game.new_initial_state(deal)
            w, c = time.perf_counter(), time.process_time()
            batch = playout_batch(state, args.playouts, "random", 1000 * deal, args.threads)
            wall += time.perf_counter() - w
            cpu += time.process_time() - c
            decisions += int(batch.decisions.sum())
        games = args.deals * args.playouts
        print(
            f"{players} players: {games} playouts, {decisions / games:.0f} decisions each; "
            f"{decisions / wall:,.0f} decisions per wall second, "
            f"{decisions / cpu:,.0f} per CPU second ({args.threads} thread(s))"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
