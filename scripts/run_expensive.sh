#!/usr/bin/env bash
# The expensive tests (marked `expensive`, deselected by default and not run in CI): the
# learning test of tests/test_train.py trains the `quick` preset for up to 5 minutes of wall time
# and checks it beats the random bot in >= 80% of 2-player games (about 6-10 minutes in all on
# 2 cores). Extra arguments go to pytest, e.g. `scripts/run_expensive.sh -x`.
#
# Usage: scripts/run_expensive.sh [pytest args]   (from any directory; uses .venv if present)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi
exec "$PY" -m pytest -m expensive -p no:xdist -q -rsx "$@"
