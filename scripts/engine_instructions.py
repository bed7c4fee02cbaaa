"""A fixed stretch of self-play for counting the engine's instructions (deterministic A/B).

    valgrind --tool=callgrind --toggle-collect='fort::EnvBatch::step_envs*' \\
        --callgrind-out-file=OUT python scripts/engine_instructions.py [ENVS] [STEPS] [PLAYERS]

Steps a ``SelfPlayBatch`` of ENVS games (default 16) STEPS times (default 400) at PLAYERS
players (default 2) with seeded random legal actions, so two builds replay exactly the same
decisions; callgrind's ``Collected`` line is then the instructions the core's ``step`` ran
(docs/performance.md, "The legality search's lists"). Wall time on this shared machine
varies by a third between runs; instruction counts do not. Caveat: valgrind counts each byte
of a ``rep stos``/``rep movs`` as an instruction, so ``memset``/``memcpy`` of whole
observations weigh more there than in time. Without valgrind it just runs (a smoke test).
"""

from __future__ import annotations

import sys

import numpy as np

from fort_env.envs.self_play import SelfPlayBatch


def main() -> None:
    given = [int(a) for a in sys.argv[1:4]]
    envs, steps, players = given + [16, 400, 2][len(given) :]
    batch = SelfPlayBatch(envs, num_players=players)
    batch.reset(0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in batch.mask]))
    print(f"{envs * steps} decisions")


if __name__ == "__main__":
    main()
