#!/usr/bin/env bash
# Mutation check of the rules modules fort_env/views/scoring.py and fort_env/game/cards.py with mutmut
# (the [tool.mutmut] section of pyproject.toml: which files, which tests). Each mutant runs only
# the tests of the focused subset that reach the mutated function.
#
# Usage: scripts/mutation.sh [COMMIT]      (default: HEAD)
#   Runs in a temporary copy of COMMIT's tracked files (git archive), so the work tree gets no
#   mutants/ directory and an older commit can be measured with today's settings: the
#   [tool.mutmut] section of this checkout is used, its test files limited to those COMMIT has.
#   MUTATION_BUDGET (seconds, default 1200) bounds the run's wall time; MUTATION_KEEP=1 keeps
#   the copy. Prints mutmut's per-mutant results and a summary line:
#   "killed K of N (R%), survived S, timeout T, other O".
# Needs the dev extra (mutmut); run from a venv with the project installed (.venv is used if present).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REV="${1:-HEAD}"
PY=python3
if [ -x "$ROOT/.venv/bin/python" ]; then PY="$ROOT/.venv/bin/python"; fi
WORK="$(mktemp -d /tmp/fort-mutation.XXXXXX)"
if [ "${MUTATION_KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi
git -C "$ROOT" archive "$REV" | tar -x -C "$WORK"

# This checkout's [tool.mutmut] section, with the test files COMMIT does not have dropped.
"$PY" - "$ROOT/pyproject.toml" "$WORK" <<'PYEOF'
import re, sys, tomllib
from pathlib import Path
src, work = Path(sys.argv[1]), Path(sys.argv[2])
section = re.search(r"^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", src.read_text(), re.S | re.M).group(0)
conf = tomllib.loads(section)["tool"]["mutmut"]
tests = [t for t in conf["pytest_add_cli_args_test_selection"] if (work / t).exists()]
section = re.sub(r"pytest_add_cli_args_test_selection = \[.*?\]",
                 "pytest_add_cli_args_test_selection = " + repr(tests).replace("'", '"'),
                 section, flags=re.S)
dst = work / "pyproject.toml"
text = re.sub(r"^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", dst.read_text(), flags=re.S | re.M)
dst.write_text(text.rstrip() + "\n\n" + section)
print(f"mutation check of {sys.argv[2]}: tests {tests}", file=sys.stderr)
PYEOF

cd "$WORK"
status=0
timeout "${MUTATION_BUDGET:-1200}" "$PY" -m mutmut run --max-children 2 || status=$?
"$PY" -m mutmut results --all true > results.txt 2>/dev/null || "$PY" -m mutmut results > results.txt
cat results.txt
"$PY" - <<'PYEOF'
from collections import Counter
from pathlib import Path
c = Counter()
for line in Path("results.txt").read_text().splitlines():
    if ": " in line:
        c[line.rsplit(": ", 1)[1].strip()] += 1
n = sum(c.values())
k = c["killed"]
other = n - k - c["survived"] - c["timeout"]
rate = 100 * k / n if n else 0.0
print(f"killed {k} of {n} ({rate:.1f}%), survived {c['survived']}, timeout {c['timeout']}, "
      f"other {other} {dict(c)}")
PYEOF
exit "$status"
