"""Baselines and combinations of the critic-ceiling study's predictions on held-out positions.

Reads ``DIR/data/train.npz`` and ``DIR/data/heldout.npz`` (gen.py) and the held-out
predictions ``DIR/preds/OBS_TAG.npy`` and ``DIR/preds/TABLE_TAG.npy`` (critic_train.py, by
default the tags ``obs_256x2_do0.3`` and ``table_256x2_do0.3``), and scores against the
held-out outcomes, as critic_train.py's ``report`` does (MSE overall and by progress tercile,
95% intervals from a bootstrap over games):

- ``matchup_prior``: the mean training outcome of (bot, seat, opponent), and that table;
- ``obs`` and ``table``: the two networks;
- ``table_antisym`` and ``obs_antisym(...)``: antisymmetrised over the two seats of a position
  (rows 2k, 2k+1), which uses both seats' inputs;
- ``avg_obs_table``: the mean of the two networks;
- ``table_minus_obs``: the paired difference of squared errors, with its interval;
- ``by_quintile``: the MSE of each network by progress quintile.

Prints that JSON object; writes nothing.

    python scripts/critic_ceiling/analyse.py [--dir runs/critic_ceiling] \\
        [--obs-tag obs_256x2_do0.3] [--table-tag table_256x2_do0.3]
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from critic_train import DEFAULT_DIR, PAIRS, bootstrap, report


def ids(d: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each row's matchup, ``"BOT(seatP) vs OPPONENT"`` (rows alternate seat 0, 1)."""
    seat = np.arange(len(d["y"])) % 2
    s = d["game"]
    out = []
    for si, p in zip(s, seat, strict=True):
        sp = PAIRS[si % 3]
        sh = si % 2
        sp = sp[sh:] + sp[:sh]
        out.append(f"{sp[p]}(seat{p}) vs {sp[1 - p]}")
    return np.array(out)


def anti(p: np.ndarray) -> np.ndarray:
    """Antisymmetrised over the two seats of one position (rows 2k, 2k+1)."""
    a = (p[0::2] - p[1::2]) / 2
    out = np.empty_like(p)
    out[0::2] = a
    out[1::2] = -a
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=DEFAULT_DIR, help="study folder (data/ and preds/ in)")
    ap.add_argument("--obs-tag", default="obs_256x2_do0.3")
    ap.add_argument("--table-tag", default="table_256x2_do0.3")
    a = ap.parse_args()
    root = Path(a.dir)
    tr = np.load(root / "data" / "train.npz")
    ho = np.load(root / "data" / "heldout.npz")
    y, prog, g = ho["y"], ho["progress"], ho["game"]
    res: dict[str, Any] = {}
    # matchup prior: mean outcome of (bot, seat, opponent) in training games
    itr, iho = ids(tr), ids(ho)
    prior = {k: float(tr["y"][itr == k].mean()) for k in np.unique(itr)}
    res["matchup_prior"] = report(np.array([prior[k] for k in iho]), y, prog, g)
    res["matchup_prior_table"] = {k: round(v, 3) for k, v in prior.items()}
    po = np.load(root / "preds" / f"{a.obs_tag}.npy")
    pt = np.load(root / "preds" / f"{a.table_tag}.npy")
    res["obs"] = report(po, y, prog, g)
    res["table"] = report(pt, y, prog, g)
    res["table_antisym"] = report(anti(pt), y, prog, g)
    res["obs_antisym(uses both seats' obs = table info)"] = report(anti(po), y, prog, g)
    res["avg_obs_table"] = report((po + pt) / 2, y, prog, g)
    # paired difference table - obs
    d = (pt - y) ** 2 - (po - y) ** 2
    res["table_minus_obs"] = {"diff": round(float(d.mean()), 4), "ci95": bootstrap(d, g)}
    # finer progress bins for obs/table
    bins = np.linspace(0, 1, 6)
    res["by_quintile"] = {
        n: [
            round(float(((p - y) ** 2)[(prog >= lo) & (prog < hi)].mean()), 3)
            for lo, hi in itertools.pairwise(bins)
        ]
        for n, p in (("obs", po), ("table", pt))
    }
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
