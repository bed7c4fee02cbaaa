"""scripts/soak_serve.py runs: a real ``fort-env serve`` subprocess, two clients playing full
4-player games against ``random`` rivals while 130 silent connections are held open, the
server's memory reported (docs/reliability.md, "fort-env serve defends itself"). Marked slow:
it starts a server (a few seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_serve_soak_plays_its_games_and_reports_the_memory(tmp_path: Path) -> None:
    series = tmp_path / "series.csv"
    command = [
        sys.executable, str(ROOT / "scripts" / "soak_serve.py"), "--clients", "2",
        "--rival", "random", "--idle-seconds", "1", "--max-seconds", "60",
        "--series", str(series), "--idle-sockets", "130",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["games"] == result["games_asked"] == 2
    assert result["failures"] == 0 and not result["stopped_at_limit"]
    assert result["actions"] > 0 and result["client_addresses"] == 2
    for key in ("rss_start_mib", "rss_peak_mib", "rss_end_mib", "rss_idle_mib"):
        assert result[key] > 0, key
    assert result["rss_peak_mib"] >= result["rss_start_mib"]
    assert series.read_text().startswith("seconds,rss_mib,threads\n")
    # 130 silent connections from one address, reopened as they are closed, starve nobody:
    # the server keeps its cap per address of them and refuses the rest (503)
    assert result["idle_refused_503"] > 0 and result["idle_opened"] > 130
