"""Card-set analysis: the report's numbers and the PNG plots."""

from __future__ import annotations

import json
from pathlib import Path

from agents.analysis.analyze import PLOTS, analyze


def test_analyze_writes_plots_and_report(tmp_path: Path) -> None:
    report = analyze(
        ["heuristic"], games=2, player_counts=(2, 3), seed=1, out=tmp_path, progress=False
    )
    for name in PLOTS:
        path = tmp_path / f"{name}.png"
        assert path.exists() and path.read_bytes()[:4] == b"\x89PNG"
    assert set(report["by_players"]) == {2, 3}
    two = report["by_players"][2]
    # every game has at least one winner, and a shared victory adds at most one more here
    assert 1.0 <= sum(two["seat_win_rates"]) <= 2.0
    assert set(two["end_trigger_shares"]) == {"score_25", "fort_level_5", "park_deck_empty"}
    # medians over different games need not be ordered; the top scores always are
    assert two["winning_scores"]["p90"] >= two["losing_scores"]["p10"]
    names = {row["card"] for row in report["cards"]}
    assert {"Bug", "Bud", "Lefty"} <= names
    assert len(report["suits"]) == 6
    json.dumps(report)
