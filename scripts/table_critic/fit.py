"""Fit a whole-table critic on gen.py's rows and save it as the zoo's ``critic-Np`` policy file.

Regression of the outcome (+1 if the seat won, -1 if not: the return units of the project's
critics) on the seat's table observation: an MLP (``--widths``, ReLU, dropout ``--dropout``
between layers), Adam (``--lr``, weight decay ``--wd``), minibatches of ``--batch`` rows,
early stopping on the validation games (every ``--val-every``-th game seed of the data, held
out by game: the rows of a game share its outcome) with patience ``--patience`` epochs.

The file written (``--out``: ``NAME.safetensors`` + ``NAME.json``) is an
``agents.learned.network.ActorCritic``: the actor of ``--actor`` (the shipped ``ppo-Np``,
copied unchanged, so the file also plays as that policy) and the fitted critic. Its JSON's
``zoo`` entry records the command, the seed, the commit, the data (shards, games, rows) and
the validation MSE; ``heldout.py`` adds the held-out figure on fresh games.

    python scripts/table_critic/fit.py --players 2 --data runs/table_critic/2p/train \\
        --actor agents/zoo/ppo-2p.safetensors --out agents/zoo/critic-2p --seed 1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.learned.network import ActorCritic
from agents.learned.policy_file import load_policy_file, policy_paths, save_policy
from fort_env.game.files import write_text


def load_rows(folder: Path) -> dict[str, np.ndarray]:
    """Every shard of ``folder`` concatenated (``table`` stays float16)."""
    shards = sorted(folder.glob("shard-*.npz"))
    if not shards:
        raise SystemExit(f"no shard-*.npz in {folder}")
    parts = [dict(np.load(p)) for p in shards]
    out = {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}
    out["shards"] = np.array([p.name for p in shards])
    return out


def mlp(inputs: int, widths: list[int], dropout: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    prev = inputs
    for w in widths:
        layers += [nn.Linear(prev, w), nn.ReLU(), nn.Dropout(dropout)]
        prev = w
    layers.append(nn.Linear(prev, 1))
    return nn.Sequential(*layers)


def mse(model: nn.Module, x: np.ndarray, y: np.ndarray, batch: int = 8192) -> float:
    model.eval()
    total = 0.0
    with torch.no_grad():
        for i in range(0, len(y), batch):
            xb = torch.from_numpy(x[i : i + batch].astype(np.float32))
            p = model(xb)[:, 0].numpy()
            total += float(((p - y[i : i + batch]) ** 2).sum())
    return total / len(y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    ap.add_argument("--data", required=True, help="gen.py's shard folder")
    ap.add_argument("--actor", required=True, help="the policy file whose actor is copied")
    ap.add_argument("--out", required=True, help="NAME of the critic file written")
    ap.add_argument("--widths", default="512,256")
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--wd", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--max-epochs", type=int, default=20)
    ap.add_argument("--patience", type=int, default=3)
    ap.add_argument("--val-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(a.seed)
    d = load_rows(Path(a.data))
    x, y = d["table"], (2.0 * d["won"].astype(np.float32) - 1.0)
    val = d["game"] % a.val_every == 0
    xt, yt, xv, yv = x[~val], y[~val], x[val], y[val]
    widths = [int(w) for w in a.widths.split(",")]
    model = mlp(x.shape[1], widths, a.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=a.wd)
    best, best_state, stale, history = float("inf"), None, 0, []
    t0 = time.time()
    for epoch in range(a.max_epochs):
        model.train()
        order = rng.permutation(len(yt))
        for i in range(0, len(order), a.batch):
            idx = np.sort(order[i : i + a.batch])
            xb = torch.from_numpy(xt[idx].astype(np.float32))
            yb = torch.from_numpy(yt[idx])
            loss = ((model(xb)[:, 0] - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        v = mse(model, xv, yv)
        history.append(round(v, 5))
        print(f"epoch {epoch + 1}: validation MSE {v:.4f} ({time.time() - t0:.0f}s)", flush=True)
        if v < best - 1e-4:
            best, stale = v, 0
            best_state = {k: t.clone() for k, t in model.state_dict().items()}
        else:
            stale += 1
            if stale >= a.patience:
                break
    assert best_state is not None
    model.load_state_dict(best_state)

    actor, info = load_policy_file(a.actor)
    net = info["network"]
    if net.get("policy") != "ActorCritic":
        raise SystemExit(f"{a.actor}: the actor must be an ActorCritic file")
    policy = ActorCritic(
        info["game"]["observation_size"],
        info["game"]["num_actions"],
        net["trunk"],
        net["activation_fn"],
        critic=widths,
        table_size=x.shape[1],
    )
    state = {k: v for k, v in actor.state_dict().items() if not k.startswith("critic")}
    linear = [m for m in model if isinstance(m, nn.Linear)]
    for i, layer in enumerate(linear[:-1]):
        state[f"critic.{2 * i}.weight"] = layer.weight.detach().clone()
        state[f"critic.{2 * i}.bias"] = layer.bias.detach().clone()
    state["critic_head.weight"] = linear[-1].weight.detach().clone()
    state["critic_head.bias"] = linear[-1].bias.detach().clone()
    policy.load_state_dict(state, strict=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    weights = save_policy(policy, a.out, num_players=a.players, training=None, timesteps=0)
    description = policy_paths(weights)[1]
    saved = json.loads(description.read_text())
    saved["zoo"] = {
        "role": "table critic: luck-corrected evaluation (agents.arena.luck); the actor is "
        f"{Path(a.actor).name}'s, unchanged",
        "command": "python " + " ".join([sys.argv[0], *sys.argv[1:]]),
        "seed": a.seed,
        "source": commit,
        "data": {
            "shards": [str(s) for s in d["shards"]],
            "games": len(np.unique(d["game"])),
            "rows": len(y),
            "validation_games": len(np.unique(d["game"][val])),
        },
        "fit": {
            "widths": widths,
            "dropout": a.dropout,
            "lr": a.lr,
            "weight_decay": a.wd,
            "batch": a.batch,
            "epochs": len(history),
            "validation_mse": history,
            "seconds": round(time.time() - t0, 1),
        },
        "validation_mse": round(best, 5),
    }
    write_text(description, json.dumps(saved, indent=1) + "\n")
    load_policy_file(weights)  # the file loads with every check
    print(f"saved {weights} (validation MSE {best:.4f})")


if __name__ == "__main__":
    main()
