"""A rough floor for the critic-ceiling study: Monte Carlo value from the mover's information set.

For each of ``--games`` games (game ``g``: seed ``s = seed0 + g``, the pairs and seat rotation
of gen.py), picks ``--per-game`` random decisions (``default_rng(s)``); at each, re-deals what
the mover cannot see (``state.resample_hidden(mover, rng)``) ``--k`` times and plays each out
with fresh bots of the same kinds; ``v`` is the mean rollout outcome for the mover. Compares
``v`` with the real outcome: MSE (``mse_raw``) and MSE corrected for the rollout noise (minus
the mean of var/K, ``mse_noise_corrected``), overall and by progress tercile.

Prints one progress line per game, then one JSON object; writes the rows (progress, outcome,
v, rollout variance, game seed) to ``DIR/data/rollout_rows.npy`` and appends the object (tag
``rollout_floor``) to ``DIR/results.jsonl``. The study's run:

    python scripts/critic_ceiling/rollout_floor.py --seed0 950000 --games 60 --per-game 2 \\
        --k 10 [--dir runs/critic_ceiling]
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from critic_train import DEFAULT_DIR, PAIRS

import agents
from agents.arena.games import decision_info
from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState


def make_bots(specs: list[str], seed: int) -> list[Agent]:
    """``agents.make`` of each spec, bot ``i`` seeded ``seed * 10 + i``."""
    bots = [agents.make(x) for x in specs]
    for i, b in enumerate(bots):
        f = getattr(b, "seed", None)
        if callable(f):
            f(seed * 10 + i)
    return bots


def step(state: FortState, bots: list[Agent]) -> None:
    """Apply the action of the bot to move."""
    seat = state.current_player()
    info = decision_info(state, seat)
    obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
    state.apply_action(int(bots[seat].act(obs, info)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed0", type=int, default=950000)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--per-game", type=int, default=2)
    ap.add_argument("--k", type=int, default=12)
    ap.add_argument("--dir", default=DEFAULT_DIR, help="study folder (data/, results.jsonl out)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    game = FortGame(2)
    rows: list[tuple[float, float, float, float, int]] = []
    t0 = time.time()
    for gi in range(a.games):
        s = a.seed0 + gi
        sp = PAIRS[s % 3]
        sh = s % 2
        sp = sp[sh:] + sp[:sh]
        rng = np.random.default_rng(s)
        # first pass: length of the game
        st = game.new_initial_state(seed=s)
        bots = make_bots(sp, s)
        n = 0
        while not st.is_terminal():
            step(st, bots)
            n += 1
        picks = set(rng.choice(n, size=min(a.per_game, n), replace=False).tolist())
        st = game.new_initial_state(seed=s)
        bots = make_bots(sp, s)
        i = 0
        pend: list[tuple[int, float, list[float]]] = []
        while not st.is_terminal():
            if i in picks:
                mover = st.current_player()
                outs = []
                for k in range(a.k):
                    r = st.resample_hidden(mover, rng)
                    rb = make_bots(sp, s * 100 + k + 1)
                    while not r.is_terminal():
                        step(r, rb)
                    outs.append(float(r.returns()[mover]))
                pend.append((mover, i / n, outs))
            step(st, bots)
            i += 1
        ret = st.returns()
        for mover, at, outs in pend:
            rows.append(
                (at, float(ret[mover]), float(np.mean(outs)), float(np.var(outs, ddof=1)), s)
            )
        print(gi, f"{time.time() - t0:.0f}s", flush=True)
    R = np.array(rows)
    prog, y, v, var = R[:, 0], R[:, 1], R[:, 2], R[:, 3]
    out: dict[str, Any] = {"positions": len(R), "k": a.k, "seconds": round(time.time() - t0)}
    for name, m in (
        ("all", prog >= 0),
        ("early", prog < 1 / 3),
        ("mid", (prog >= 1 / 3) & (prog < 2 / 3)),
        ("late", prog >= 2 / 3),
    ):
        raw = float(((v[m] - y[m]) ** 2).mean())
        corr = raw - float((var[m] / a.k).mean())
        out[name] = {
            "n": int(m.sum()),
            "mse_raw": round(raw, 3),
            "mse_noise_corrected": round(corr, 3),
        }
    (Path(a.dir) / "data").mkdir(parents=True, exist_ok=True)
    np.save(Path(a.dir) / "data" / "rollout_rows.npy", R)
    print(json.dumps(out))
    with open(Path(a.dir) / "results.jsonl", "a") as f:
        f.write(json.dumps({"tag": "rollout_floor", **out}) + "\n")


if __name__ == "__main__":
    main()
