"""Where a step of the two batched envs goes at B = 64, 2 players, one env thread.

    python scripts/batch_step_profile.py [SECONDS]

For ``FortBatchVecEnv`` (random opponents built in) and ``SelfPlayBatch`` (every seat a
learner), driven with random legal actions for SECONDS (default 3) each, prints the wall
microseconds a step spends choosing the actions (the driver), in the env's ``step`` and, inside
it, in the core's own ``step`` call, then the shares (docs/performance.md, "At B = 64 against
hanabi"). ``perf record -- python scripts/batch_step_profile.py`` splits the core's share by
function.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fort_env.envs.self_play import SelfPlayBatch
from fort_env.envs.vector import FortBatchVecEnv, random_legal_actions

B = 64


class TimedCore:
    """A core batch whose ``step`` calls add up their wall time (everything else passed on)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.seconds = inner, 0.0

    def step(self, *args: Any) -> None:
        start = time.perf_counter()
        self.inner.step(*args)
        self.seconds += time.perf_counter() - start

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def profile(name: str, step: Callable[[np.ndarray], None], masks: Callable[[], np.ndarray],
            core: TimedCore, seconds: float) -> None:  # fmt: skip
    rng = np.random.default_rng(0)
    driver = whole = 0.0
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        actions = random_legal_actions(masks(), rng)
        t1 = time.perf_counter()
        step(actions)
        driver, whole = driver + t1 - t0, whole + time.perf_counter() - t1
        steps += 1
    total = time.perf_counter() - start
    us = 1e6 / steps
    print(
        f"{name}: a step {total * us:.0f} us: driver {driver * us:.0f}, env step "
        f"{whole * us:.0f} (the core's call {core.seconds * us:.0f}); shares: core "
        f"{core.seconds / total:.0%}, the env's Python {(whole - core.seconds) / total:.0%}, "
        f"driver {driver / total:.0%}; {steps * B / total:,.0f} decisions/s",
        flush=True,
    )


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    venv = FortBatchVecEnv(B, seed=0, num_players=2, threads=1)
    venv.reset()
    venv._batch = core = TimedCore(venv._batch)  # type: ignore[assignment]
    profile("FortBatchVecEnv (learner decisions)", venv.step, venv.action_masks, core, seconds)
    sp = SelfPlayBatch(B, num_players=2)
    sp.reset(0)
    sp._core = core = TimedCore(sp._core)  # type: ignore[assignment]
    profile("SelfPlayBatch (every decision)", sp.step, lambda: sp.mask, core, seconds)


if __name__ == "__main__":
    main()
