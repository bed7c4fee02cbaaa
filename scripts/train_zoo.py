"""Train one model of the zoo (``agents/zoo/ppo-{n}p.*``), measure it on fresh seeds, and record
how it was made in its JSON.

    python scripts/train_zoo.py --players 2 --minutes 60 --out runs/zoo-2p
    python scripts/train_zoo.py --players 4 --minutes 60 --out runs/zoo-4p --install
    python scripts/train_zoo.py --players 2 --minutes 110 --out runs/zoo-2p-ft \
        --init-from agents/zoo/ppo-2p.safetensors --install

Trains ``fort-env train --preset full --algo ppo --num-players N --minutes M`` (the lean PPO),
then plays the trained model against the heuristic on seeds drawn *after* training
(``numpy.random.SeedSequence()``: fresh entropy), seats rotated over paired deals, ``--games``
games (at 2 players: 1 model vs 1 heuristic; at 3-4: 1 model vs N-1 heuristics, first places
counted), and against ``random``. ``--install`` copies the model into ``agents/zoo`` with a
``zoo`` entry in its JSON: the command, the config, the source commit (``git rev-parse
HEAD``, and whether the tree was dirty), the layout fingerprint, and each result with its
games, wins, Wilson 95% interval and seed. ``--init-from FILE`` fine-tunes a policy file (the
previous zoo model, say: ``fort-env train --init-from``); the JSON then records the file it
started from (``zoo.init_from``: its path, SHA-256 and, for a zoo model, how that was made).
The tensor file is unchanged (its SHA-256 still matches the description).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def commit() -> dict[str, object]:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}


def measure(model: Path, players: int, games: int) -> dict[str, object]:
    from agents.arena.tournament import run_tournament
    from agents.spec import format_spec

    results = {}
    for opponent in ("heuristic", "random"):
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        n = games if opponent == "heuristic" else max(games // 2, 100)
        specs = [format_spec("ppo", str(model))] + [opponent] * (players - 1)
        t0 = time.perf_counter()
        result = run_tournament(specs, players, n, seed=seed, workers=1, progress=False)
        first = next(iter(result["agents"].values()))
        results[opponent] = {
            "games": int(first["games"]),
            "wins": float(first["wins"]),
            "win_rate": float(first["win_rate"]),
            "win_rate_ci95": [float(x) for x in first["win_rate_ci95"]],
            "seed": seed,
            "seconds": round(time.perf_counter() - t0, 1),
            "opponents": f"{players - 1} x {opponent}",
        }
        print(f"vs {opponent}: {results[opponent]}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--install", action="store_true", help="copy into agents/zoo")
    parser.add_argument("--skip-training", action="store_true", help="measure --out's model")
    parser.add_argument("--init-from", type=Path, help="start from this policy file's weights")
    args = parser.parse_args()
    command = [
        "fort-env", "train", "--preset", "full", "--algo", "ppo",
        "--num-players", str(args.players), "--minutes", str(args.minutes),
        "--seed", str(args.seed), "--out", str(args.out), "--no-progress",
    ]  # fmt: skip
    started_from = None
    if args.init_from is not None:
        command += ["--init-from", str(args.init_from)]
        start = json.loads(args.init_from.with_suffix(".json").read_text())
        started_from = {
            "path": str(args.init_from),
            "sha256": start["sha256"],
            "timesteps": start.get("timesteps"),
            "zoo": {k: start["zoo"][k] for k in ("command", "source") if k in start.get("zoo", {})},
        }
    source = commit()
    if not args.skip_training:
        subprocess.run(command, check=True)
    model = args.out / "model.safetensors"
    results = measure(model, args.players, args.games)
    if not args.install:
        return
    from agents.learned.policy_file import layout_fingerprint
    from agents.learned.zoo import ZOO_DIR
    from fort_env import FortGame

    config = json.loads((args.out / "config.json").read_text())
    info = json.loads(model.with_suffix(".json").read_text())
    name = f"ppo-{args.players}p"
    info["weights"] = f"{name}.safetensors"
    info["zoo"] = {
        "command": " ".join(command),
        "measured_by": " ".join(["python", "scripts/train_zoo.py", *sys.argv[1:]]),
        "config": config,
        "source": source,
        "layout": layout_fingerprint(FortGame(args.players)),
        "results": results,
    }
    if started_from is not None:
        info["zoo"]["init_from"] = started_from
    ZOO_DIR.mkdir(exist_ok=True)
    shutil.copyfile(model, ZOO_DIR / f"{name}.safetensors")
    (ZOO_DIR / f"{name}.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"installed {ZOO_DIR / name}.safetensors")


if __name__ == "__main__":
    main()
