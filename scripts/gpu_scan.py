"""The lean PPO's learner samples/s on a GPU machine (scripts/gpu_check.sh): the quick preset's
configuration and wider batches, on CUDA and on the CPU, in one process, one after another.

Usage: ``python scripts/gpu_scan.py SECONDS OUT.json [--wide]`` (``--wide``: the wider batches
that ``n_envs`` up to 4,096 allows, :data:`WIDE`). Prints one line per configuration and
writes the list as JSON. The env steps on the CPU in every row (C++ threads); only the
network's device changes. Not part of the test suite (docs/performance.md, "On a GPU").
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import torch

from train.bench_ppo import train_throughput

ROWS: list[tuple[str, dict[str, Any]]] = [
    ("cuda", {}),
    ("cuda", {"n_envs": 256, "n_steps": 64, "batch_size": 4096}),
    ("cuda", {"n_envs": 256, "n_steps": 128, "batch_size": 8192, "critic": "table"}),
    ("cpu", {"n_envs": 256, "n_steps": 64, "batch_size": 4096}),
]
WIDE: list[tuple[str, dict[str, Any]]] = [
    ("cuda", {"n_envs": 1024, "n_steps": 32, "batch_size": 8192}),
    ("cuda", {"n_envs": 2048, "n_steps": 32, "batch_size": 16384}),
    ("cuda", {"n_envs": 4096, "n_steps": 16, "batch_size": 16384}),
    ("cuda", {"n_envs": 2048, "n_steps": 32, "batch_size": 16384, "critic": "table"}),
]


def main() -> None:
    seconds, out = float(sys.argv[1]), sys.argv[2]
    rows = []
    for device, overrides in WIDE if "--wide" in sys.argv[3:] else ROWS:
        start = time.perf_counter()
        got = train_throughput(seconds=seconds, device=device, baseline=False, **overrides)
        got["overrides"] = overrides
        got["wall_s"] = time.perf_counter() - start
        rows.append(got)
        print(
            f"{device:5s} {overrides}: {got['samples_per_s']:,.0f} samples/s "
            f"(env_threads {got['env_threads']}, torch_threads {got['torch_threads']}, "
            f"{got['iterations']} iterations)",
            flush=True,
        )
    meta = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}
    with open(out, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
