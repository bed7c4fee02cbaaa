"""Positions from 2-player games between shipped bots, for the critic-ceiling study.

Plays ``--games`` games as scripts/value_error.py does and keeps each decision with probability
``--keep``. Game ``g`` uses seed ``s = seed0 + g``: the deal seed ``s``, the keep generator
``default_rng(s)``, the pair ``PAIRS[s % 3]`` with its seats rotated by ``s % 2``, and bot ``i``
seeded ``s * 10 + i``. For every kept position it stores one row per seat (seat 0, then seat 1):

- ``obs``: the seat's observation (float16); ``table``: its whole-table observation (float16);
- ``y``: the seat's outcome (+1 win, -1 loss); ``progress``: decision index / game length;
- ``game``: the game's seed; ``pair``: ``s % 3``; ``length``: decisions in the game.

Prints a progress line every 50 games and a timing line, and writes them all to ``--out`` (an
``.npz``; its folder is created). The study's training and held-out sets:

    python scripts/critic_ceiling/gen.py --seed0 1000 --games 4000 --keep 0.12 \\
        --out runs/critic_ceiling/data/train.npz
    python scripts/critic_ceiling/gen.py --seed0 900000 --games 300 --keep 0.15 \\
        --out runs/critic_ceiling/data/heldout.npz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rollout_floor import make_bots

from agents.arena.games import play_game
from fort_env import FortGame, FortState

PAIRS = "ppo,heuristic;heuristic,builder;ppo,scorer"


class Keep:
    """An observer keeping a share of the decisions: both seats' observations and tables."""

    def __init__(self, keep: float, rng: np.random.Generator) -> None:
        self.keep, self.rng, self.i = keep, rng, 0
        self.obs: list[np.ndarray] = []
        self.tab: list[np.ndarray] = []
        self.idx: list[int] = []

    def before(self, state: FortState, seat: int, action: int) -> None:
        if self.rng.random() < self.keep:
            self.obs.append(np.stack([state.observation_tensor(p) for p in range(2)]))
            self.tab.append(np.stack([state.table_observation_tensor(p) for p in range(2)]))
            self.idx.append(self.i)
        self.i += 1

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        return {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed0", type=int, required=True)
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--keep", type=float, default=0.15)
    ap.add_argument("--out", required=True, help="the .npz written (its folder is created)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    game = FortGame(2)
    tables = [t.split(",") for t in PAIRS.split(";")]
    obs_rows: list[np.ndarray] = []
    table_rows: list[np.ndarray] = []
    ys: list[float] = []
    progress: list[float] = []
    game_ids: list[int] = []
    pair_ids: list[int] = []
    lengths: list[int] = []
    t0 = time.time()
    for g in range(a.games):
        s = a.seed0 + g
        specs = tables[s % 3]
        shift = s % 2
        specs = specs[shift:] + specs[:shift]
        bots = make_bots(specs, s)
        keep = Keep(a.keep, np.random.default_rng(s))
        _, state = play_game(game, bots, s, index=g, observer=keep)
        out = np.asarray(state.returns(), np.float32)
        n = keep.i
        for o, t, i in zip(keep.obs, keep.tab, keep.idx, strict=True):
            for p in range(2):
                obs_rows.append(o[p].astype(np.float16))
                table_rows.append(t[p].astype(np.float16))
                ys.append(out[p])
                progress.append(i / n)
                game_ids.append(s)
                pair_ids.append(s % 3)
                lengths.append(n)
        if (g + 1) % 50 == 0:
            print(f"{g + 1} games {time.time() - t0:.1f}s {len(ys)} rows", flush=True)
    el = time.time() - t0
    print(f"done {a.games} games in {el:.1f}s = {el / a.games:.3f} s/game, {len(ys)} rows")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        a.out,
        obs=np.stack(obs_rows),
        table=np.stack(table_rows),
        y=np.array(ys, np.float32),
        progress=np.array(progress, np.float32),
        game=np.array(game_ids, np.int64),
        pair=np.array(pair_ids, np.int8),
        length=np.array(lengths, np.int32),
    )


if __name__ == "__main__":
    main()
