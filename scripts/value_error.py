"""How well a model's values predict who wins, on held-out positions (issue 37's value target).

Plays ``--games`` games between shipped bots (``--pairs``, seats rotated), dealt from seeds
derived from ``--seed`` (draw it after training: the positions are then held out), keeps each
decision with probability ``--keep``, and scores, for every seat of every kept position, the
model's value estimates against that seat's outcome (win/loss: +1 winner, -1 the others):

- ``value_head``: the value head on the seat's observation (what ``ppo`` and ``puct:value=obs``
  read);
- ``critic``: the whole-table critic on the seat's table observation, if the model has one
  (``puct:value=table`` and the trainer's GAE).

The constant 0 scores 1.0 (every outcome is +-1). Prints one JSON object: the mean squared
error of each with a 95% interval from a bootstrap over games (positions of one game are not
independent), the position and game counts, and the command.

    python scripts/value_error.py --model agents/zoo/ppo-2p.safetensors --games 200 --seed S
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np
import torch

import agents
from agents.arena.games import play_game
from agents.learned.ppo import load_policy
from fort_env import FortGame


class _Keep:
    """An observer keeping a share of the positions: every seat's observation and table."""

    def __init__(self, keep: float, rng: np.random.Generator) -> None:
        self.keep, self.rng = keep, rng
        self.obs: list[np.ndarray] = []
        self.tables: list[np.ndarray] = []

    def before(self, state: Any, seat: int, action: int) -> None:
        if self.rng.random() < self.keep:
            n = state.game.num_players
            self.obs.append(np.stack([state.observation_tensor(p) for p in range(n)]))
            self.tables.append(np.stack([state.table_observation_tensor(p) for p in range(n)]))

    def after(self, state: Any, seat: int, action: int) -> None:
        pass

    def end(self, state: Any) -> dict[str, Any]:
        return {}


def _bootstrap(errors_by_game: list[np.ndarray], rng: np.random.Generator) -> list[float]:
    means = []
    k = len(errors_by_game)
    for _ in range(1000):
        pick = rng.integers(k, size=k)
        sample = np.concatenate([errors_by_game[i] for i in pick])
        means.append(float(sample.mean()))
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a policy file (NAME.safetensors)")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--keep", type=float, default=0.1, help="share of decisions kept")
    parser.add_argument("--seed", type=int, required=True, help="deals (draw it fresh)")
    parser.add_argument(
        "--pairs",
        default="ppo,heuristic;heuristic,builder;ppo,scorer",
        help="';'-separated tables of bot specs (seats rotated per game)",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    policy = load_policy(args.model)
    game = FortGame(args.num_players)
    rng = np.random.default_rng(args.seed)
    tables = [t.split(",") for t in args.pairs.split(";")]
    heads: dict[str, list[np.ndarray]] = {"value_head": [], "critic": [], "zero": []}
    positions = 0
    for g in range(args.games):
        specs = tables[g % len(tables)]
        specs = (specs * args.num_players)[: args.num_players]
        shift = g % args.num_players
        specs = specs[shift:] + specs[:shift]
        bots = [agents.make(s) for s in specs]
        for i, bot in enumerate(bots):
            seed_fn = getattr(bot, "seed", None)
            if callable(seed_fn):
                seed_fn(args.seed * 1000 + g * 10 + i)
        keep = _Keep(args.keep, rng)
        seed = int(rng.integers(2**31))
        _, state = play_game(game, bots, seed, index=g, observer=keep)
        if not keep.obs:
            continue
        outcome = np.asarray(state.returns(), np.float32)  # +1 winners, -1 the others
        obs = torch.from_numpy(np.concatenate(keep.obs))
        target = np.tile(outcome, len(keep.obs))
        positions += len(keep.obs)
        with torch.no_grad():
            v = policy.state_values(obs).numpy()
            heads["value_head"].append((v - target) ** 2)
            if getattr(policy, "critic", None) is not None:
                c = policy.table_values(torch.from_numpy(np.concatenate(keep.tables))).numpy()
                heads["critic"].append((c - target) ** 2)
        heads["zero"].append(target**2)
    out: dict[str, Any] = {
        "command": "python scripts/value_error.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "model": args.model,
        "num_players": args.num_players,
        "games": args.games,
        "positions": positions,
    }
    for name, errors in heads.items():
        if errors:
            out[f"{name}_mse"] = round(float(np.concatenate(errors).mean()), 4)
            out[f"{name}_ci95"] = _bootstrap(errors, np.random.default_rng(0))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
