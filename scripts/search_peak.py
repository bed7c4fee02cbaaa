"""The most positions one legality search needs in games of a card set, against the budget
(``fort_env.game.constants.SEARCH_NODE_BUDGET``; issue 42, docs/reliability.md).

    python scripts/search_peak.py [--games 300] [--cards DIR]

Plays ``--games`` games per player count (2-4), setup (basic, advanced) and built-in policy
(``fort_env.native.playout.POLICIES``) inside the C++ core, the search memo cleared at each
deal, and prints one JSON line: games, decisions, the peak (``_core.search_nodes_peak``), the
budget and the seconds. Needs the compiled core.
"""

from __future__ import annotations

import argparse
import json
import time

from fort_env import FortGame
from fort_env.game.constants import SEARCH_NODE_BUDGET
from fort_env.native import backend
from fort_env.native.playout import POLICIES, playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per table kind and policy")
    parser.add_argument("--cards", default=None, help="a card directory (default: shipped)")
    args = parser.parse_args()
    core = backend.require()
    core.search_nodes_peak(True)
    games = decisions = 0
    start = time.perf_counter()
    for n in (2, 3, 4):
        for setup in ("basic", "advanced"):
            game = FortGame(n, setup=setup, cards=args.cards, backend="cpp")
            for policy in POLICIES:
                for seed in range(args.games):
                    core.clear_search_memo()  # every search from scratch
                    decisions += playout(game.new_initial_state(seed), policy, seed).decisions
                    games += 1
    print(json.dumps({
        "games": games, "decisions": decisions, "peak": core.search_nodes_peak(),
        "budget": SEARCH_NODE_BUDGET, "seconds": round(time.perf_counter() - start, 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
