"""The shipped model's value head on the critic-ceiling study's held-out positions.

Scores the value head of ``--model`` (default ``agents/zoo/ppo-2p.safetensors``) on every
seat's observation in ``DIR/data/heldout.npz`` (written by gen.py) against the seat's outcome,
as critic_train.py's ``report`` does (MSE overall and by progress tercile, 95% intervals from a
bootstrap over games), next to the constant 0 and the value head clipped to [-1, 1].

Prints that JSON object (with the row and game counts and the value range) and appends it to
``DIR/results.jsonl``. Run from the repository root:

    python scripts/critic_ceiling/shipped.py [--dir runs/critic_ceiling]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from critic_train import DEFAULT_DIR, report

from agents.learned.ppo import load_policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=DEFAULT_DIR, help="study folder (data/heldout.npz in)")
    ap.add_argument("--model", default="agents/zoo/ppo-2p.safetensors")
    a = ap.parse_args()
    torch.set_num_threads(1)
    root = Path(a.dir)
    ho = np.load(root / "data" / "heldout.npz")
    pol = load_policy(a.model)
    X = torch.from_numpy(ho["obs"].astype(np.float32))
    with torch.no_grad():
        v = torch.cat([pol.state_values(X[i : i + 4096]) for i in range(0, len(X), 4096)]).numpy()
    res = {
        "tag": "shipped_value_head",
        "heldout": report(v, ho["y"], ho["progress"], ho["game"]),
        "zero": report(np.zeros_like(v), ho["y"], ho["progress"], ho["game"]),
        "clipped_value_head": report(np.clip(v, -1, 1), ho["y"], ho["progress"], ho["game"]),
        "rows": len(v),
        "games": len(np.unique(ho["game"])),
        "value_range": [float(v.min()), float(v.max())],
    }
    print(json.dumps(res, indent=1))
    with open(root / "results.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
