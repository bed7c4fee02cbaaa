"""The quick preset trained briefly on a GPU (scripts/gpu_check.sh): its samples and its final
evaluation against ``heuristic``. Usage: ``python scripts/gpu_quick.py DEVICE MINUTES GAMES
OUT.json``; the run folder is a fresh temporary directory. Not part of the test suite."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from train.selfplay import make_config, run


def main() -> None:
    device, minutes, games, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    cfg = make_config(
        "quick", device=device, time_budget_minutes=minutes, final_eval_games=games, seed=1
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        summary = run(cfg, Path(folder) / "run", verbose=0, progress_bar=False)
    summary["wall_s"] = time.perf_counter() - start
    Path(out).write_text(json.dumps(summary, indent=1, default=str))
    print({k: summary.get(k) for k in ("device", "timesteps", "train_wall_seconds", "wall_s")})
    print(json.dumps(summary.get("final"), default=str))


if __name__ == "__main__":
    main()
