#!/usr/bin/env bash
# Build the C++ core with AddressSanitizer + UndefinedBehaviorSanitizer (CMake option
# FORT_SANITIZE=ON) in a temporary directory, run the C++ unit tests (ctest), then, against that
# build (loaded through FORT_ENV_CORE with libasan preloaded into the unsanitized interpreter):
# every test file in tests/differential (new files are picked up by themselves: the bad-input
# tests, the fuzz target's seed corpus and mutations, the batched env, playouts...), the C++
# IS-MCTS and builder port (tests/test_ismcts.py), the network and the PUCT search on the core
# (tests/test_core_network.py, tests/test_puct_core.py), the table observation and the search's
# whole-table critic (tests/test_table_critic.py), the observations' active features the
# batched envs write (tests/test_active_features.py), the SB3 wrapper of the batched env with its
# built-in builder (tests/test_batch_vec_env.py), and a sweep
# of random games in lockstep with the Python engine (scripts/differential.py --fast).
# docs/cpp.md and docs/reliability.md explain it.
#
# usage: scripts/sanitize.sh [PYTHON]    (PYTHON: the project's venv python, default .venv/bin/python)
#        FORT_SANITIZE_GAMES=N (default 300) sets the sweep's games.
# Exit status: 0 when every run is clean; any sanitizer report, failing test, no test collected
# (pytest's exit 5, ctest's --no-tests=error) or divergence makes it fail.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${1:-$root/.venv/bin/python}
build=$(mktemp -d "${TMPDIR:-/tmp}/fort-sanitize.XXXXXX")
trap 'rm -rf "$build"' EXIT

pybind11_dir=$("$python" -c "import pybind11; print(pybind11.get_cmake_dir())" 2>/dev/null || true)
module=ON
if [ -z "$pybind11_dir" ]; then
    echo "sanitize.sh: pybind11 is not importable by $python; building the C++ tests only"
    module=OFF
fi

echo "== configure and build (FORT_SANITIZE=ON) in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFORT_SANITIZE=ON \
    -DFORT_BUILD_TESTS=ON -DFORT_BUILD_MODULE="$module" \
    -Dpybind11_DIR="$pybind11_dir" -DPython_EXECUTABLE="$python" >"$build/configure.log" \
    || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j 2

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "== C++ unit tests (ctest)"
(cd "$build" && ctest --output-on-failure --no-tests=error)

if [ "$module" = ON ]; then
    so=$(find "$build" -name '_core*.so' | head -n 1)
    # ASan must come first; libstdc++ too, or ASan cannot find the real __cxa_throw (the
    # interpreter is C) and the first C++ exception aborts with "CHECK failed".
    preload="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
    echo "== differential, IS-MCTS, batch-env and self-play tests on the sanitized module $so (LD_PRELOAD=$preload)"
    # CPython keeps memory until exit by design: leak checking is off for the interpreter run.
    # -s: a sanitizer report goes to stderr, which pytest would otherwise capture and lose.
    export FORT_ENV_CORE="$so"
    LD_PRELOAD="$preload" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" "$python" -c \
        "from fort_env.native import backend as c; print('testing', c.require().__file__)"
    # Under CI=true a missing core already fails test_optional_core; require it here anyway.
    log="$build/pytest.log"
    LD_PRELOAD="$preload" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" FORT_ENV_REQUIRE_CORE=1 \
        "$python" -m pytest tests/differential tests/test_ismcts.py tests/test_batch_vec_env.py \
        tests/test_self_play.py tests/test_cpp_heuristics.py tests/test_core_network.py \
        tests/test_puct_core.py tests/test_table_critic.py tests/test_active_features.py \
        -q -s -p no:xdist -p no:cacheprovider \
        -W error::pytest.PytestUnraisableExceptionWarning 2>&1 | tee "$log"
    # pytest's exit 5 (nothing collected) failed above; a run that passed nothing fails here
    tail -n 5 "$log" | grep -Eq '[0-9]+ passed' ||
        { echo "sanitize.sh: no differential test passed"; exit 1; }
    games=${FORT_SANITIZE_GAMES:-300}
    echo "== $games random games in lockstep on the sanitized module (scripts/differential.py)"
    LD_PRELOAD="$preload" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
        "$python" scripts/differential.py --games "$games" --start 1000000 --fast --chunk 50
fi
echo "sanitize.sh: clean"
