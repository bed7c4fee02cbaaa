"""Build pb_bench (pybind11) and nb_bench (nanobind) and time one call of each function.

usage: python scripts/bindbench/run.py   (needs pybind11, nanobind, cmake, ninja importable or
on PATH; builds in a temporary directory). Prints ns per call, best of 5 repeats.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    import nanobind
    import pybind11

    build = Path(tempfile.mkdtemp(prefix="bindbench-"))
    subprocess.run(
        ["cmake", "-S", str(HERE), "-B", str(build), "-G", "Ninja",
         f"-Dpybind11_DIR={pybind11.get_cmake_dir()}", f"-Dnanobind_DIR={nanobind.cmake_dir()}",
         f"-DPython_EXECUTABLE={sys.executable}"],
        check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    sys.path.insert(0, str(build))
    mask = np.zeros(2000, dtype=bool)
    print(f"{'call':28} {'pybind11 ns':>12} {'nanobind ns':>12}")
    rows = []
    for name, stmt in [
        ("noop()", "m.noop()"),
        ("add(1, 2)", "m.add(1, 2)"),
        ("Counter.next()", "c.next()"),
        ("fill(mask[2000])", "m.fill(mask)"),
    ]:
        times = []
        for mod in ("pb_bench", "nb_bench"):
            m = importlib.import_module(mod)
            scope = {"m": m, "c": m.Counter(), "mask": mask}
            n = 200_000
            best = min(timeit.repeat(stmt, globals=scope, number=n, repeat=5))
            times.append(best / n * 1e9)
        rows.append((name, *times))
        print(f"{name:28} {times[0]:12.1f} {times[1]:12.1f}")
    base = min(timeit.repeat("f()", globals={"f": lambda: None}, number=200_000, repeat=5))
    print(f"{'(a Python lambda, for scale)':28} {base / 200_000 * 1e9:12.1f}")


if __name__ == "__main__":
    main()
