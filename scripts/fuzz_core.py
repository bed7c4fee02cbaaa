"""Coverage-guided fuzzing of the C++ core with atheris (issue 16 item 7; docs/reliability.md).

    python scripts/fuzz_core.py [--seconds 600 | --runs N] [--seed 1] [--corpus DIR]
                                [--seeds-per-config 20] [--timeout 30] [--json]
    python scripts/fuzz_core.py --replay FILE [FILE ...]

The target is ``fort_env/testing/core_fuzz.py``: a mutated saved state loaded with
``FortState.from_dict`` on both backends, then actions applied to both (legal ones, illegal
ones, values of the wrong type), and the same arrays fed unchecked to every ``_core`` entry
point; then (issue 26) every built-in policy (``policy_action``) and playouts with each
(``playout``, ``playouts`` on two threads) from the raw state, from the loaded state and from
its re-deal (``resample_hidden`` on both engines, compared). The script

1. builds the core with clang, ``-DFORT_FUZZ=ON`` (SanitizerCoverage edges for libFuzzer,
   AddressSanitizer, UndefinedBehaviorSanitizer) in ``build/fuzz`` (kept between runs);
2. writes a seed corpus if ``--corpus`` (default ``build/fuzz-corpus``) is empty:
   ``--seeds-per-config`` real mid-game states per configuration (2/3/4 players x basic/advanced)
   with how their games went on;
3. runs atheris's libFuzzer in a child interpreter with that build loaded (``FORT_ENV_CORE``)
   and atheris's ASan runtime preloaded, for ``--seconds`` or ``--runs`` executions, seeded by
   ``--seed``; the Python validation (``fort_env.game.validation``, ``state_arrays``, ``inputs``,
   ``native.backend``, ``core``) is instrumented too, so its branches also guide the fuzzer;
4. prints the counts: executions, executions/s, corpus size, coverage (edges) and features,
   new units, and findings.

A **finding** is a contract breach the target reports (``core_fuzz.Finding``: a divergence
between the backends, an undocumented exception, a state changed by a refused action; each
distinct cause saved once in ``--findings``, default ``build/fuzz-findings``, as ``.bin`` input
+ ``.txt`` description), or a native crash, sanitizer report or timeout (libFuzzer stops and
writes ``crash-*``/``timeout-*`` there). ``--replay`` runs saved inputs once, raising on a
finding. Exit status 1 if there is any finding, 2 if the tools are missing (atheris: ``pip
install -c constraints.txt -e ".[fuzz]"``; clang: ``apt-get install clang``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORKER_FLAG = "--worker"
# The Python modules whose branches guide the fuzzer too (the validation on the way in).
INSTRUMENTED = (
    "fort_env.game.validation",
    "fort_env.game.state_arrays",
    "fort_env.game.inputs",
    "fort_env.native.backend",
    "fort_env.native.playout",
    "fort_env.views.hidden",
    "fort_env.core",
)
STATS_EVERY = 200  # inputs between two writes of the target's counts (stats.json)
MAX_LEN = 4096  # bytes of an input: the largest state is about 1.3 KB, plus 96 action bytes


# --------------------------------------------------------------------------- the worker
def _worker(argv: list[str]) -> None:
    """Runs inside the instrumented interpreter: libFuzzer's loop over ``one_input``."""
    import atheris

    sys.path.insert(0, str(ROOT))
    # atheris includes whole top-level packages: the rest of fort_env is excluded by name (the
    # Python rules are the reference the target compares with, not what it explores)
    import pkgutil

    names = [
        m.name
        for m in pkgutil.walk_packages([str(ROOT / "fort_env")], "fort_env.")
        if m.name not in INSTRUMENTED
    ]
    with atheris.instrument_imports(include=["fort_env"], exclude=["fort_env", *names]):
        import fort_env  # noqa: F401
        from fort_env.native import backend as cpp_backend
    from fort_env.testing import core_fuzz

    core = cpp_backend.require()
    if os.environ.get("FORT_ENV_CORE") and Path(core.__file__) != Path(os.environ["FORT_ENV_CORE"]):
        raise SystemExit(f"fuzz_core.py: loaded {core.__file__}, not the fuzz build")
    findings = Path(os.environ["FORT_FUZZ_FINDINGS"])
    replay = os.environ.get("FORT_FUZZ_REPLAY") == "1"
    seen: set[str] = {p.stem for p in findings.glob("*.txt")}
    count_file = findings / "inputs.log"

    stats_file = findings / "stats.json"

    def test_one_input(data: bytes) -> None:
        if core_fuzz.STATS["inputs"] % STATS_EVERY == 0:  # libFuzzer exits without atexit
            stats_file.write_text(json.dumps(core_fuzz.STATS))
        try:
            core_fuzz.one_input(data)
        except Exception as exc:  # every Python-level breach: recorded, the loop goes on
            if replay:
                raise
            sig = core_fuzz.signature(exc)
            key = hashlib.sha1(sig.encode()).hexdigest()[:16]
            with count_file.open("a") as f:
                f.write(f"{key}\t{sig}\n")
            if key in seen:
                return
            seen.add(key)
            import traceback

            (findings / f"{key}.bin").write_bytes(data)
            (findings / f"{key}.txt").write_text(
                f"{sig}\n\n{traceback.format_exc()}\n{core_fuzz.describe(data)}\n"
            )
            print(f"\nFINDING {key}: {sig}", flush=True)

    atheris.Setup([sys.argv[0], *argv], test_one_input)
    atheris.Fuzz()


# --------------------------------------------------------------------------- the driver
def _build(build: Path, python: str) -> Path:
    """Configure and build the fuzz variant of the core; returns the module's path."""
    import pybind11

    build.mkdir(parents=True, exist_ok=True)
    configure = [
        "cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
        "-DCMAKE_CXX_COMPILER=clang++", "-DCMAKE_BUILD_TYPE=Debug", "-DFORT_FUZZ=ON",
        "-DFORT_BUILD_MODULE=ON", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
        f"-DPython_EXECUTABLE={python}",
    ]  # fmt: skip
    log = build / "build.log"
    with log.open("w") as out:
        for cmd in (configure, ["cmake", "--build", str(build), "-j", "2"]):
            if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode:
                print(log.read_text()[-4000:], file=sys.stderr)
                raise SystemExit(f"fuzz_core.py: the fuzz build failed (log: {log})")
    found = sorted(build.rglob("_core*.so"))
    if not found:
        raise SystemExit(f"fuzz_core.py: no _core module in {build}")
    return found[0]


def _write_seed_corpus(corpus: Path, per_config: int, seed: int) -> int:
    sys.path.insert(0, str(ROOT))
    from fort_env.testing.core_fuzz import seed_corpus

    n = 0
    for name, data in seed_corpus(per_config, seed):
        (corpus / f"seed-{name}").write_bytes(data)
        n += 1
    return n


def _preload() -> str:
    """atheris's ASan + libFuzzer runtime, then libstdc++ (ASan must find the real
    ``__cxa_throw`` in a C interpreter, as scripts/sanitize.sh explains)."""
    import atheris

    asan = Path(atheris.path()) / "asan_with_fuzzer.so"
    stdcxx = subprocess.run(
        ["clang++", "-print-file-name=libstdc++.so"], capture_output=True, text=True
    ).stdout.strip()
    return f"{asan} {stdcxx}"


_STATUS = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_NATIVE = re.compile(
    r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|ALARM: working on the last|"
    r"ERROR: libFuzzer|SUMMARY: (Address|UndefinedBehavior)Sanitizer|deadly signal|"
    r"out-of-memory"
)


def _parse(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"native": []}
    for line in lines:
        m = _STATUS.match(line)
        if m:
            out.update(
                executions=int(m[1]), coverage=int(m[3]), features=int(m[4]), corpus=int(m[5])
            )
        m = _STAT.match(line)
        if m:
            out[m[1]] = int(m[2])
        if _NATIVE.search(line):
            out["native"].append(line.strip())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=int, default=None, help="time budget (default 300)")
    budget.add_argument("--runs", type=int, default=None, help="executions budget")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer's -seed (default 1)")
    ap.add_argument("--corpus", type=Path, default=ROOT / "build" / "fuzz-corpus")
    ap.add_argument("--findings", type=Path, default=ROOT / "build" / "fuzz-findings")
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "fuzz")
    ap.add_argument("--seeds-per-config", type=int, default=20)
    ap.add_argument("--timeout", type=int, default=30, help="seconds per input (a hang)")
    ap.add_argument("--replay", type=Path, nargs="+", help="run these inputs once")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args(argv)

    try:
        import atheris  # noqa: F401
    except ImportError:
        print('fuzz_core.py: atheris is not installed: pip install -c constraints.txt -e ".[fuzz]"',
              file=sys.stderr)  # fmt: skip
        return 2
    if shutil.which("clang++") is None:
        print("fuzz_core.py: clang++ is not on PATH (Debian: apt-get install clang)",
              file=sys.stderr)  # fmt: skip
        return 2

    t0 = time.perf_counter()
    so = _build(args.build_dir, sys.executable)
    build_s = time.perf_counter() - t0
    for d in (args.corpus, args.findings):
        d.mkdir(parents=True, exist_ok=True)
    seeds = 0
    if not args.replay and not any(args.corpus.iterdir()):
        seeds = _write_seed_corpus(args.corpus, args.seeds_per_config, args.seed)
    env = dict(
        os.environ,
        LD_PRELOAD=_preload(),
        FORT_ENV_CORE=str(so),
        FORT_FUZZ_FINDINGS=str(args.findings),
        FORT_FUZZ_REPLAY="1" if args.replay else "0",
        FORT_ENV_BACKEND="cpp",
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        PYTHONPATH=str(ROOT),
    )
    fuzz_args = [
        f"-seed={args.seed}", f"-timeout={args.timeout}", f"-max_len={MAX_LEN}",
        "-rss_limit_mb=4096", "-print_final_stats=1", f"-artifact_prefix={args.findings}/",
    ]  # fmt: skip
    if args.replay:
        fuzz_args += [str(p) for p in args.replay]
    else:
        if args.runs is not None:
            fuzz_args.append(f"-runs={args.runs}")
        else:
            fuzz_args.append(f"-max_total_time={args.seconds or 300}")
        fuzz_args.append(str(args.corpus))
    log_path = args.findings / "fuzz.log"
    before = {p.name for p in args.findings.iterdir()}
    (args.findings / "inputs.log").unlink(missing_ok=True)
    (args.findings / "stats.json").unlink(missing_ok=True)
    t1 = time.perf_counter()
    lines: list[str] = []
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), WORKER_FLAG, *fuzz_args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            lines.append(line)
            if line.startswith(("FINDING", "==", "SUMMARY")) or "runtime error" in line:
                print(line, end="", flush=True)
        rc = proc.wait()
    seconds = time.perf_counter() - t1
    stats = _parse(lines)
    new_files = sorted(p.name for p in args.findings.iterdir() if p.name not in before)
    artifacts = [n for n in new_files if n.startswith(("crash-", "timeout-", "oom-", "leak-"))]
    python_findings = [n[:-4] for n in new_files if n.endswith(".txt")]
    stats_file = args.findings / "stats.json"
    target = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    inputs_log = args.findings / "inputs.log"
    failing_inputs = len(inputs_log.read_text().splitlines()) if inputs_log.exists() else 0
    native = stats["native"] + ([f"exit status {rc}"] if rc not in (0,) and not args.replay else [])
    summary = {
        "seconds": round(seconds, 1),
        "build_seconds": round(build_s, 1),
        "seed": args.seed,
        "seed_inputs_written": seeds,
        "executions": stats.get("number_of_executed_units", stats.get("executions", 0)),
        "executions_per_s": stats.get("average_exec_per_sec", 0),
        "corpus": len(list(args.corpus.iterdir())),
        "coverage_edges": stats.get("coverage", 0),
        "features": stats.get("features", 0),
        "new_units": stats.get("new_units_added", 0),
        "peak_rss_mb": stats.get("peak_rss_mb", 0),
        "target": target,
        "findings": len(python_findings) + len(artifacts) + (1 if native and not artifacts else 0),
        "python_findings": python_findings,
        "inputs_with_findings": failing_inputs,
        "native_reports": native[:10],
        "artifacts": artifacts,
        "log": str(log_path),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"fuzz_core: {summary['executions']} executions in {seconds:.0f} s "
            f"({summary['executions_per_s']}/s), corpus {summary['corpus']} inputs, "
            f"coverage {summary['coverage_edges']} edges, {summary['features']} features, "
            f"{summary['new_units']} new units; findings {summary['findings']} "
            f"({len(python_findings)} contract, {len(artifacts)} crash/timeout artifacts, "
            f"{failing_inputs} failing inputs); log {log_path}"
        )
        if target:
            print("  target (to the last 200 inputs): "
                  + ", ".join(f"{k} {v}" for k, v in sorted(target.items())))  # fmt: skip
        for key in python_findings:
            print(f"  {key}: {(args.findings / (key + '.txt')).read_text().splitlines()[0]}")
        for line in native[:10]:
            print(f"  native: {line}")
    if args.replay:
        return 1 if rc else 0
    return 1 if summary["findings"] else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == WORKER_FLAG:
        _worker(sys.argv[2:])
    else:
        sys.exit(main())
