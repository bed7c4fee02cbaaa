"""``puct``'s simulations per second and per searched decision (issue 28's speed target).

Usage: ``python scripts/puct_speed.py [--engine core] [--model agents/zoo/ppo-2p.safetensors]
[--positions 8] [--ms 50] [--threads 1,2] [--batch 1] [--busy 0]``

Plays one 2-player game with the builder at every seat (deal seed 0) and, at the first
``--positions`` decisions with a choice, runs ``agents.learned.puct.PUCTAgent`` searches of ``--ms``
milliseconds from the acting seat's point of view. ``--engine core`` (the C++ search, the
default): once per search-thread count in ``--threads`` (``puct:threads=T``, root-parallel
trees) with ``--batch`` leaves per forward pass. ``--engine python``: once per torch thread
count in ``--threads`` (``torch.set_num_threads``). Prints, per count, the simulations per
second, the mean milliseconds per simulation and the simulations per search (min, mean, max).
``--busy K`` starts K processes spinning on the CPU for the whole measure, standing in for
another job on the machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

import numpy as np
import torch

import agents
from agents.arena.games import decision_info
from agents.learned.puct import PUCTAgent
from fort_env import FortGame


def _spin(stop: float) -> None:
    while time.time() < stop:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model", default=None, help="a policy file (default: the shipped 2-player model)"
    )
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--ms", type=float, default=50.0)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--busy", type=int, default=0)
    parser.add_argument("--engine", choices=("core", "python"), default="core")
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    game = FortGame(2)
    state = game.new_initial_state(seed=0)
    builder = agents.make("builder", seed=0)
    positions = []
    while not state.is_terminal() and len(positions) < args.positions:
        info = decision_info(state, state.current_player())
        if len(info["legal_actions"]) > 1:
            positions.append(state.clone())
        state.apply_action(builder.act({}, info))
    players = None if args.model else 2
    stop = time.time() + 3600
    spinners = [multiprocessing.Process(target=_spin, args=(stop,)) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    try:
        for n in threads:
            core = args.engine == "core"
            agent = PUCTAgent(
                model=args.model,
                ms=args.ms,
                seed=1,
                players=players,
                engine=args.engine,
                threads=n if core else 1,
                batch=args.batch if core else 1,
            )
            torch.set_num_threads(1 if core else n)
            counts, seconds = [], 0.0
            for pos in positions:
                seat = pos.current_player()
                start = time.perf_counter()
                determinize = lambda r, _s=pos, _p=seat: _s.resample_hidden(_p, r)  # noqa: E731
                if core:
                    agent.search_core(determinize, seat, pos.legal_actions())
                else:
                    agent.search(determinize, pos.legal_actions())
                seconds += time.perf_counter() - start
                counts.append(agent.last_iterations)
            c = np.array(counts)
            what = f"search threads {n}, batch {args.batch}" if core else f"torch threads {n}"
            print(
                f"{args.engine} engine, {what}: {c.sum() / seconds:,.0f} simulations/s, "
                f"{1000 * seconds / c.sum():.3f} ms/simulation; simulations per {args.ms:g} ms "
                f"search min {c.min()} mean {c.mean():.0f} max {c.max()} "
                f"({len(c)} positions, {args.busy} busy process(es))"
            )
    finally:
        for p in spinners:
            p.terminate()


if __name__ == "__main__":
    main()
