"""Iterations per second of the ``ismcts`` agent's two engines on the same positions.

Usage: ``python scripts/ismcts_speed.py [--players 2] [--positions 8] [--seconds 0.2]``

Plays one game with the builder at every seat (deal seed 0) and, at the first ``--positions``
PLAY decisions, lets each engine search for ``--seconds`` of wall time from the acting seat's
point of view (``agents.bots.ismcts.ISMCTSAgent`` with ``engine="python"`` and ``engine="cpp"``,
default settings otherwise). Prints each engine's iterations per second (total iterations /
total seconds) and the ratio, measured in one process, so that the machine's load hits both.
"""

from __future__ import annotations

import argparse
import os
import time

import agents
from agents.arena.games import decision_info
from agents.bots.ismcts import ISMCTSAgent
from fort_env import FortGame
from fort_env.game.decisions import DecisionKind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=0.2)
    args = parser.parse_args()
    game = FortGame(args.players)
    state = game.new_initial_state(seed=0)
    builder = agents.make("builder", seed=0)
    engines = {
        name: ISMCTSAgent(engine=name, seconds=args.seconds, iterations=10**9, seed=1)
        for name in ("python", "cpp")
    }
    totals = {name: [0, 0.0] for name in engines}
    found = 0
    while not state.is_terminal() and found < args.positions:
        seat = state.current_player()
        info = decision_info(state, seat)
        if state.decision_kind == DecisionKind.PLAY and len(info["legal_actions"]) > 1:
            found += 1
            for name, agent in engines.items():
                search = agent.search_cpp if name == "cpp" else agent.search
                t = time.perf_counter()
                search(info["determinize"], seat, info["legal_actions"])
                totals[name][0] += agent.last_iterations
                totals[name][1] += time.perf_counter() - t
        state.apply_action(builder.act({}, info))
    rates = {name: n / s for name, (n, s) in totals.items()}
    for name, rate in rates.items():
        n, secs = totals[name]
        print(f"{name:>6}: {n:6d} iterations in {secs:.2f} s = {rate:9.0f} /s")
    ratio = rates["cpp"] / rates["python"]
    print(f"C++ / Python: {ratio:.0f}x ({found} positions, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
