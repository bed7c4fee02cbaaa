"""CPU time per learner sample of the lean PPO's collection and update (quick preset).

    python scripts/lean_ppo_cpu.py --iterations 5 --label new

One torch thread and one env thread, so that process CPU time is the work itself, less
disturbed by other processes than wall time is (docs/performance.md, "The hand-off from
C++"). Two warm-up iterations, then ``--iterations`` of ``collect`` + ``update``; prints the
microseconds of CPU per learner sample of each. To compare two trees, run it in each (a git
worktree with its own build) in turns.
"""

from __future__ import annotations

import argparse
import time

import torch

from train.config import make_config
from train.league import League
from train.ppo import LeanPPO


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = make_config("quick", device="cpu")
    ppo = LeanPPO(config, League(config.opponents, (), config.snapshot_weight), "cpu", 1)
    ppo.reset(1)
    for _ in range(2):
        ppo.update(ppo.collect(), config.learning_rate)
    collect = update = 0.0
    first = ppo.timesteps
    for _ in range(args.iterations):
        t0 = time.process_time()
        advantages = ppo.collect()
        t1 = time.process_time()
        ppo.update(advantages, config.learning_rate)
        collect, update = collect + t1 - t0, update + time.process_time() - t1
    n = ppo.timesteps - first
    print(
        f"{args.label}: CPU us per sample: collect {collect / n * 1e6:.1f}, update "
        f"{update / n * 1e6:.1f}, total {(collect + update) / n * 1e6:.1f} ({n} samples)"
    )


if __name__ == "__main__":
    main()
