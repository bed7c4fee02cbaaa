#!/usr/bin/env bash
# The checks a lent GPU machine runs (docs/performance.md, "On a GPU"): build the package under
# that machine's Python and torch, run the CUDA tests, time the trainer on CUDA, train the
# quick preset briefly on CUDA. Wheels for what its image lacks travel in .whl/ (pure Python:
# lark, gymnasium, pettingzoo, openskill, stable-baselines3, sb3-contrib, farama-notifications).
# Run through the device tool: command "bash scripts/gpu_check.sh", carry [".whl"].
# Writes its figures under $OUT (default /tmp/gpu_out). ONLY_TESTS=1 stops after the tests.
set -euo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
SECONDS_EACH=${SECONDS_EACH:-12}
repo=$(pwd)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "cores: $(nproc)"
start=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile \
    --target /tmp/site "$repo" 2>&1 | tail -5
echo "build+install: $(( $(date +%s) - start )) s"
cd /tmp  # import the installed package, not the source tree
python3 -c "import torch, fort_env.native._core as c; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
python3 -m pytest -q -p no:cacheprovider --import-mode=importlib "$repo/tests/test_lean_ppo.py" -k "cuda or devices" \
    --rootdir "$repo" 2>&1 | tail -5 || true
if [ "${ONLY_TESTS:-0}" = 1 ]; then exit 0; fi  # ONLY_TESTS=1: the build and the CUDA tests
if [ "${ONLY_WIDE:-0}" = 1 ]; then  # ONLY_WIDE=1: the build, the tests, the wide scan
    python3 "$repo/scripts/gpu_scan.py" "$SECONDS_EACH" "$OUT/scan_wide.json" --wide
    exit 0
fi
python3 -m fort_env.tools.cli bench --train --device cuda --train-seconds "$SECONDS_EACH" \
    --seconds 0.5 --rounds 1 --json > "$OUT/bench_cuda.json" || echo "bench failed"
python3 -c "import json; t=json.load(open('$OUT/bench_cuda.json'))['train']; print({k: t.get(k) for k in ('device','samples_per_s','baseline_samples_per_s','ratio','env_threads','torch_threads')})" || true
python3 "$repo/scripts/gpu_scan.py" "$SECONDS_EACH" "$OUT/scan.json" || echo "scan failed"
python3 "$repo/scripts/gpu_quick.py" cuda 1.0 200 "$OUT/quick_cuda.json" || echo "quick run failed"
