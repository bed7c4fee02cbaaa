"""Supervised outcome regression for the critic-ceiling study: a seat's obs or table -> outcome.

Trains an MLP (``--widths`` hidden ReLU layers, optional dropout, tanh output by default) by
MSE against the seat's outcome (+1/-1) on ``DIR/data/train.npz`` (written by gen.py), with
Adam. 10% of the training games (by game id, fixed permutation) are the validation set;
``--frac`` keeps that share of the remaining games for training. The validation MSE is
measured ``--evals-per-epoch`` times an epoch; training stops after ``--patience``
evaluations without improvement (or ``--max-epochs``), and the best network is kept.
``--matchup`` appends a one-hot (own bot, opponent bot) to the input.

Prints one line per evaluation (epoch, train MSE on the first 20000 rows, validation MSE),
then one JSON object: the arguments, training/validation sizes, the best validation MSE,
``epochs`` (the number of evaluations, not of epochs), the history, and the held-out
(``DIR/data/heldout.npz``) MSE, overall and by progress tercile, each with a 95% interval
from a bootstrap over games. Appends that object to ``DIR/results.jsonl`` and writes the
held-out predictions to ``DIR/preds/TAG.npy`` (TAG: ``--tag``, else
``INPUT_WIDTHS_fFRAC``). The study's runs (analyse.py reads the first two tags):

    python scripts/critic_ceiling/critic_train.py --input obs --widths 256,256 --lr 3e-4 \\
        --dropout 0.3 --wd 1e-4 --max-epochs 6 --patience 4 --tag obs_256x2_do0.3 \\
        [--frac F] [--matchup] [--dir runs/critic_ceiling]

(and ``--input table --tag table_256x2_do0.3``; see README.md for the others).

Also a module: ``bootstrap``, ``report``, ``matchup`` and ``PAIRS`` are used by the other
scripts of this folder.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

DEFAULT_DIR = "runs/critic_ceiling"


def bootstrap(
    err: np.ndarray, games: np.ndarray, rng: np.random.Generator | None = None, n: int = 1000
) -> list[float]:
    """95% interval of the mean of ``err``, resampling whole games ``n`` times."""
    rng = rng or np.random.default_rng(0)
    ug, inv = np.unique(games, return_inverse=True)
    sums = np.bincount(inv, weights=err)
    cnts = np.bincount(inv)
    k = len(ug)
    ms = []
    for _ in range(n):
        pick = rng.integers(k, size=k)
        ms.append(sums[pick].sum() / cnts[pick].sum())
    return [round(float(np.percentile(ms, 2.5)), 4), round(float(np.percentile(ms, 97.5)), 4)]


def report(pred: np.ndarray, y: np.ndarray, prog: np.ndarray, games: np.ndarray) -> dict[str, Any]:
    """MSE of ``pred`` against ``y``, overall and by progress tercile, with 95% intervals."""
    err = (pred - y) ** 2
    out: dict[str, Any] = {"mse": round(float(err.mean()), 4), "ci95": bootstrap(err, games)}
    for name, lo, hi in (("early", 0, 1 / 3), ("mid", 1 / 3, 2 / 3), ("late", 2 / 3, 1.01)):
        m = (prog >= lo) & (prog < hi)
        out[name] = round(float(err[m].mean()), 4)
        out[name + "_ci95"] = bootstrap(err[m], games[m])
    return out


BOTS = ["ppo", "heuristic", "builder", "scorer"]
PAIRS = [t.split(",") for t in ["ppo,heuristic", "heuristic,builder", "ppo,scorer"]]


def matchup(d: Mapping[str, np.ndarray]) -> np.ndarray:
    """float16 (rows, 8): one-hot own bot, one-hot opponent bot (rows alternate seat 0, 1)."""
    out = np.zeros((len(d["y"]), 8), np.float16)
    for r, s in enumerate(d["game"]):
        p = r % 2
        sp = PAIRS[s % 3]
        sh = s % 2
        sp = sp[sh:] + sp[:sh]
        out[r, BOTS.index(sp[p])] = 1
        out[r, 4 + BOTS.index(sp[1 - p])] = 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", choices=["obs", "table"], required=True)
    ap.add_argument("--widths", default="256,256")
    ap.add_argument("--frac", type=float, default=1.0, help="share of training games used")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wd", type=float, default=0.0)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--max-epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--out-act", default="tanh", choices=["tanh", "linear"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--evals-per-epoch", type=int, default=4)
    ap.add_argument("--tag", default=None)
    ap.add_argument("--matchup", action="store_true", help="append one-hot (own bot, opponent bot)")
    ap.add_argument("--dir", default=DEFAULT_DIR, help="study folder (data/ in, preds/ out)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    root = Path(a.dir)
    tr = np.load(root / "data" / "train.npz")
    ho = np.load(root / "data" / "heldout.npz")
    X = tr[a.input]
    y = tr["y"]
    g = tr["game"]
    Xho_np = ho[a.input]
    if a.matchup:
        X = np.concatenate([X, matchup(tr)], 1)
        Xho_np = np.concatenate([Xho_np, matchup(ho)], 1)
    ug = np.unique(g)
    rng = np.random.default_rng(12345)
    perm = rng.permutation(ug)
    nval = len(ug) // 10
    val_games = set(perm[:nval].tolist())
    train_pool = perm[nval:]
    used = set(train_pool[: round(len(train_pool) * a.frac)].tolist())
    mtr = np.array([x in used for x in g])
    mva = np.array([x in val_games for x in g])
    Xtr = torch.from_numpy(X[mtr].astype(np.float32))
    ytr = torch.from_numpy(y[mtr])
    Xva = torch.from_numpy(X[mva].astype(np.float32))
    yva = torch.from_numpy(y[mva])
    Xho = torch.from_numpy(Xho_np.astype(np.float32))
    widths = [int(w) for w in a.widths.split(",") if w]
    layers: list[nn.Module] = []
    prev = X.shape[1]
    for w in widths:
        layers += [nn.Linear(prev, w), nn.ReLU()]
        if a.dropout:
            layers.append(nn.Dropout(a.dropout))
        prev = w
    layers.append(nn.Linear(prev, 1))
    if a.out_act == "tanh":
        layers.append(nn.Tanh())
    net = nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.wd)

    def predict(xs: torch.Tensor) -> torch.Tensor:
        net.eval()
        with torch.no_grad():
            p = torch.cat([net(xs[i : i + 4096])[:, 0] for i in range(0, len(xs), 4096)])
        net.train()
        return p

    best = 9.0
    best_state: dict[str, torch.Tensor] | None = None
    bad = 0
    hist: list[tuple[float, float, float]] = []
    t0 = time.time()
    nb = (len(Xtr) + a.batch - 1) // a.batch
    marks = {round(nb * k / a.evals_per_epoch) for k in range(1, a.evals_per_epoch + 1)}
    stop = False
    for ep in range(a.max_epochs):
        idx = torch.randperm(len(Xtr))
        for j, i in enumerate(range(0, len(idx), a.batch)):
            b = idx[i : i + a.batch]
            loss = ((net(Xtr[b])[:, 0] - ytr[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if j + 1 not in marks:
                continue
            v = float(((predict(Xva) - yva) ** 2).mean())
            tl = float(((predict(Xtr[:20000]) - ytr[:20000]) ** 2).mean())
            step = round(ep + (j + 1) / nb, 2)
            hist.append((step, round(tl, 4), round(v, 4)))
            print(f"ep {step} train {tl:.4f} val {v:.4f} {time.time() - t0:.0f}s", flush=True)
            if v < best - 1e-4:
                best, bad = v, 0
                best_state = {k: t.clone() for k, t in net.state_dict().items()}
            else:
                bad += 1
                if bad >= a.patience:
                    stop = True
                    break
        if stop:
            break
    if best_state is None:
        # as load_state_dict(None) would, but saying why: e.g. under 10 training games
        raise SystemExit("critic_train.py: no validation MSE below 9.0 (empty validation set?)")
    net.load_state_dict(best_state)
    p = predict(Xho).numpy()
    tag = a.tag or f"{a.input}_{a.widths}_f{a.frac}"
    (root / "preds").mkdir(parents=True, exist_ok=True)
    np.save(root / "preds" / f"{tag}.npy", p)
    res = {
        "tag": tag,
        "args": vars(a),
        "train_games": len(used),
        "train_rows": int(mtr.sum()),
        "val_games": nval,
        "val_mse": round(best, 4),
        "epochs": len(hist),
        "seconds": round(time.time() - t0),
        "history": hist,
        "heldout": report(p, ho["y"], ho["progress"], ho["game"]),
        "heldout_games": len(np.unique(ho["game"])),
        "heldout_rows": len(p),
    }
    print(json.dumps(res))
    with open(root / "results.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
