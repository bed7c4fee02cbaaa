"""The batched envs at B = 64 against OpenSpiel's 4-player hanabi, round by round.

    python scripts/batch_vs_hanabi.py 3

Each round runs, one after the other for 2 s each: OpenSpiel's hanabi engine loop and Fort's
(``fort_env.tools.bench``), ``FortBatchVecEnv`` (2 players, random opponents built in; learner
decisions), the self-play batch (every seat a learner; decisions) and random playouts in C++,
and prints each with its ratio to hanabi in the same round (docs/performance.md, "At B = 64
against hanabi"). ``fort-env bench --json`` reports the same env figures, as medians.
"""

import sys

from fort_env.envs.self_play import self_play_decisions_per_second
from fort_env.envs.vector_speed import batch_decisions_per_second
from fort_env.native.playout import playout_decisions_per_second
from fort_env.tools import bench

han = bench.openspiel_loop(bench.ENGINE_PEERS["hanabi (4p)"])
fort = bench.engine_loop(2, "cpp")
for r in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
    seed = r * bench.ROUND_SEED_STRIDE  # fresh deals each round (the search memo)
    h = han(2.0, seed)
    f = fort(2.0, seed)
    b = batch_decisions_per_second(64, 2.0, seed)
    s = self_play_decisions_per_second(64, 2.0, seed)
    p = playout_decisions_per_second(2.0, 2, seed)
    hd = h[0] / h[2]
    fd = f[0] / f[2]
    print(
        f"hanabi {hd:,.0f}  fort-engine {fd:,.0f} ({fd / hd:.2f}x)  "
        f"batch64 {b:,.0f} ({b / hd:.2f}x)  selfplay64 {s:,.0f} ({s / hd:.2f}x)  "
        f"playout {p:,.0f}",
        flush=True,
    )
