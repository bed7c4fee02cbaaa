"""The learning curve of a run (``learning_curve.png``), drawn from ``eval.json``."""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fort_env.game.files import write_bytes
from train.checkpoints import EVAL_META_KEYS

__all__ = ["plot_learning_curve"]


def plot_learning_curve(eval_json: Mapping[str, Any], path: Path) -> None:
    """Training win rates (rolling, per opponent kind) and the evaluations' win rates (with
    their Wilson 95% intervals) against learner timesteps (samples), saved as a PNG."""
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    history = eval_json["history"]
    evals = eval_json["evals"]
    fig = Figure(figsize=(11, 4))
    ax1, ax2 = fig.subplots(1, 2)
    kinds = sorted({k for p in history for k in p["train_win_rate"]})
    for kind in kinds:
        xs = [p["timesteps"] for p in history if kind in p["train_win_rate"]]
        ys = [p["train_win_rate"][kind] for p in history if kind in p["train_win_rate"]]
        ax1.plot(xs, ys, label=kind, linewidth=2 if kind == "all" else 1)
    ax1.set(
        title="training win rate (rolling)",
        xlabel="learner timesteps",
        ylabel="win rate",
        ylim=(0, 1.02),
    )
    ax1.grid(alpha=0.3)
    if kinds:
        ax1.legend(fontsize=8, loc="best")
    opponents = sorted({k for e in evals for k in e if k not in EVAL_META_KEYS})
    for opponent in opponents:
        pts = [e for e in evals if opponent in e]
        xs = [e["timesteps"] for e in pts]
        ys = [e[opponent] for e in pts]
        # Wilson 95% intervals where the run recorded them (older runs did not)
        cis = [e.get("ci95", {}).get(opponent, (y, y)) for e, y in zip(pts, ys, strict=True)]
        yerr = [
            [y - lo for y, (lo, _) in zip(ys, cis, strict=True)],
            [hi - y for y, (_, hi) in zip(ys, cis, strict=True)],
        ]
        games = {e.get("games") for e in pts} - {None}
        label = f"vs {opponent}" + (f" ({max(games)} games each)" if games else "")
        ax2.errorbar(xs, ys, yerr=yerr, marker="o", capsize=3, label=label)
        corrected = [(e["timesteps"], e["luck_corrected"][opponent]) for e in pts
                     if opponent in e.get("luck_corrected", {})]  # fmt: skip
        if corrected:
            ax2.plot(*zip(*corrected, strict=True), linestyle="--", marker=".",
                     label=f"vs {opponent}, luck-corrected")  # fmt: skip
    for opponent, final in eval_json.get("final", {}).items():
        ax2.errorbar(
            [eval_json["timesteps"]],
            [final["win_rate"]],
            yerr=[
                [final["win_rate"] - final["win_rate_ci95"][0]],
                [final["win_rate_ci95"][1] - final["win_rate"]],
            ],
            fmt="s",
            capsize=4,
            label=f"final vs {opponent} ({final['games']} games)",
        )
    ax2.set(
        title="evaluation win rate (tournaments)",
        xlabel="learner timesteps (samples)",
        ylim=(0, 1.02),
    )
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="best")
    from matplotlib.ticker import FuncFormatter

    for ax in (ax1, ax2):  # 100k, not 100000: long tick labels ran into each other
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}k"))
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    write_bytes(path, buffer.getvalue())
