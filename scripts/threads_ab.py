"""The lean PPO's samples/s beside K busy processes, for one thread setting (docs/performance.md,
"Threads on a busy machine").

    python scripts/threads_ab.py K T            # T torch threads, OpenMP as the environment says
    OMP_WAIT_POLICY= python scripts/threads_ab.py 2 2   # GNU OpenMP's default: spin, then sleep

Runs the quick preset's ``LeanPPO.collect`` + ``update`` for 25 s after one warm-up iteration,
beside K processes that spin until 40 s have passed, and prints one line. OpenMP's wait policy
is read when torch loads, so compare settings in separate processes.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time


def _busy(deadline: float) -> None:
    while time.time() < deadline:
        pass


def main() -> None:
    busy, threads = int(sys.argv[1]), int(sys.argv[2])
    import torch

    from train import selfplay
    from train.ppo import LeanPPO

    config = selfplay.make_config("quick", seed=0, torch_threads=threads)
    env_threads, torch_threads = selfplay.resolve_threads(config)
    torch.set_num_threads(torch_threads)
    ppo = LeanPPO(config, selfplay.League(config.opponents), "cpu", env_threads)
    ppo.reset(0)
    ppo.update(ppo.collect(), 1e-4)
    procs = [mp.Process(target=_busy, args=(time.time() + 40,)) for _ in range(busy)]
    for p in procs:
        p.start()
    start, before = time.perf_counter(), ppo.timesteps
    while time.perf_counter() - start < 25:
        ppo.update(ppo.collect(), 1e-4)
    rate = (ppo.timesteps - before) / (time.perf_counter() - start)
    for p in procs:
        p.terminate()
    policy = os.environ.get("OMP_WAIT_POLICY")
    print(
        f"busy={busy} torch_threads={torch_threads} OMP_WAIT_POLICY={policy} samples/s={rate:.0f}"
    )


if __name__ == "__main__":
    main()
