"""Positions for the shipped table critics: games between the zoo's bots, whole-table rows.

Plays ``--games`` games of ``--players`` players. Game ``g`` uses seed ``s = seed0 + g``: the
deal seed ``s``; the bot at each seat drawn from :data:`POOL` by ``default_rng(s)`` (weights
:data:`WEIGHTS`), bot ``i`` seeded ``s * 10 + i``; and each decision kept with probability
``--keep`` by the same generator. For every kept position it stores one row per seat:

- ``table``: the seat's whole-table observation (float16, ``state.table_observation_tensor``);
- ``won``: 1 if the seat is among the winners (shared victories count for each), else 0;
- ``progress``: decision index / game length; ``game``: the game's seed; ``seat``.

Rows go to ``--out/shard-KKKKK.npz``, one shard per ``--shard`` games, so that a run stopped
early leaves every finished shard usable (``fit.py`` reads them all). Prints a line a shard.
The shipped critics' data (agents/zoo/critic-Np.json records the exact commands):

    python scripts/table_critic/gen.py --players 2 --seed0 1000000 --games 15000 \\
        --keep 0.04 --out runs/table_critic/2p/train   # and --seed0 1015000, beside it
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import agents
from agents.arena.games import play_game
from fort_env import FortGame, FortState

# greedy is left out: about 5 ms a decision, 9x the others (its one-step lookahead)
POOL = ("ppo", "heuristic", "scorer", "opportunist")
WEIGHTS = (0.45, 0.35, 0.1, 0.1)


class Keep:
    """An observer keeping a share of the decisions: every seat's table observation."""

    def __init__(self, keep: float, rng: np.random.Generator, n: int) -> None:
        self.keep, self.rng, self.n, self.i = keep, rng, n, 0
        self.rows: list[np.ndarray] = []
        self.idx: list[int] = []

    def before(self, state: FortState, seat: int, action: int) -> None:
        if self.rng.random() < self.keep:
            self.rows.append(
                np.stack([state.table_observation_tensor(p) for p in range(self.n)]).astype(
                    np.float16
                )
            )
            self.idx.append(self.i)
        self.i += 1

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        return {}


def make_bots(specs: list[str], seed: int, cache: dict[str, Any]) -> list[Any]:
    """One agent per seat (built once per spec and reseeded: ``s * 10 + i``)."""
    bots = []
    for i, x in enumerate(specs):
        key = f"{x}#{i}"
        if key not in cache:
            cache[key] = agents.make(x)
        b = cache[key]
        f = getattr(b, "seed", None)
        if callable(f):
            f(seed * 10 + i)
        bots.append(b)
    return bots


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    ap.add_argument("--seed0", type=int, required=True)
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--keep", type=float, default=0.04)
    ap.add_argument("--shard", type=int, default=500, help="games per shard file")
    ap.add_argument("--out", required=True, help="folder of the shards (created)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    n = a.players
    game = FortGame(n)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cache: dict[str, Any] = {}
    t0 = time.time()
    for first in range(0, a.games, a.shard):
        path = out / f"shard-{(a.seed0 + first):09d}.npz"
        if path.exists():
            continue
        table, won, progress, seeds, seats, bots_of = [], [], [], [], [], []
        for g in range(first, min(first + a.shard, a.games)):
            s = a.seed0 + g
            rng = np.random.default_rng(s)
            picks = rng.choice(len(POOL), size=n, p=WEIGHTS)
            bots = make_bots([POOL[k] for k in picks], s, cache)
            keep = Keep(a.keep, rng, n)
            record, _ = play_game(game, bots, s, index=g, observer=keep)
            length = keep.i
            for rows, i in zip(keep.rows, keep.idx, strict=True):
                for p in range(n):
                    table.append(rows[p])
                    won.append(int(p in record.winners))
                    progress.append(i / length)
                    seeds.append(s)
                    seats.append(p)
                    bots_of.append(picks)
        np.savez_compressed(
            path,
            table=np.stack(table),
            won=np.array(won, np.int8),
            progress=np.array(progress, np.float32),
            game=np.array(seeds, np.int64),
            seat=np.array(seats, np.int8),
            bots=np.stack(bots_of).astype(np.int8),
        )
        done = min(first + a.shard, a.games)
        el = time.time() - t0
        print(f"{done} games {el:.0f}s ({el / done:.3f} s/game) {path.name}", flush=True)


if __name__ == "__main__":
    main()
