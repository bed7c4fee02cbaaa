"""``fort-env analyze balance`` (issue 15, card balance): the per-card owner/player win ratios,
their Wilson intervals, the verdicts, the plot, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agents import make
from agents.analysis.balance import BalanceObserver, balance, balance_table
from agents.arena.games import GameRecord, play_game
from fort_env import FortGame
from fort_env.tools.cli import app
from fort_env.views.scoring import owned_cards
from tests.test_console_script import fort_env_cli


def _record(index: int, winners: list[int], owned: list[list[int]], first: int = 0) -> GameRecord:
    n = len(owned)
    return GameRecord(
        index=index, seating=list(range(n)), totals=[0] * n, breakdown=[{}] * n,
        winners=winners, ranks=[1] * n, levels=[0] * n, decisions=0, rounds=0, triggers=[],
        think=[0.0] * n, decisions_by_seat=[0] * n, first_player=first,
        extra={"owned": owned, "played": [[] for _ in range(n)]},
    )  # fmt: skip


NAMES = ["Always", "Never", "Everyone", "Nobody", "Twin", "Twin"]  # ids 4 and 5: one name
FRIEND = [False, False, True, False, False, False]


def _fake_games(games: int = 200) -> list[GameRecord]:
    """2-player games, one winner each, alternating seats: the winner always owns card 0
    ("Always"), the loser card 1 ("Never"); both own card 2; nobody card 3; seat 0 owns both
    copies of "Twin" (ids 4, 5)."""
    out = []
    for g in range(games):
        w = g % 2
        owned = [[2], [2]]
        owned[w].append(0)
        owned[1 - w].append(1)
        owned[0] += [4, 5]
        out.append(_record(g, [w], [sorted(o) for o in owned]))
    return out


def _rows(table: dict) -> dict[str, dict]:
    return {r["card"]: r for r in table["cards"]}


def test_an_always_winning_card_is_unbalanced_and_counts_add_up() -> None:
    table = balance_table({2: _fake_games()}, NAMES, FRIEND, {2: ["x", "x"]})
    rows = _rows(table)
    assert table["seat_games"] == {2: 400} and table["wins"] == {2: 200}
    # seat 0 is always first and wins every other game: expected share 0.5 at each position
    assert table["expected_share"] == {2: {"x": [0.5, 0.5]}}
    always, never, everyone = rows["Always"]["owned"], rows["Never"]["owned"], rows["Everyone"]
    assert (always["seat_games"], always["wins"], always["expected"]) == (200, 200, 100.0)
    assert always["ratio"] == pytest.approx(2.0) and always["verdict"] == "high"
    assert always["ci"][0] > 1.25 and always["outside"]
    assert never["ratio"] == 0.0 and never["verdict"] == "low" and never["ci"][1] < 0.8
    assert everyone["owned"]["ratio"] == pytest.approx(1.0)
    assert everyone["owned"]["verdict"] == "ok" and not everyone["owned"]["outside"]
    assert everyone["best_friend"] and not rows["Always"]["best_friend"]
    # a card nobody owned has no ratio, and a name with two ids is one row counted once a seat
    assert rows["Nobody"]["owned"]["ratio"] is None and rows["Nobody"]["owned"]["ci"] is None
    assert [r["card"] for r in table["cards"]] == ["Always", "Never", "Everyone", "Nobody", "Twin"]
    assert rows["Twin"]["owned"]["seat_games"] == 200
    # winners' and losers' holdings partition the seat-games
    assert always["seat_games"] + never["seat_games"] == table["seat_games"][2]
    assert always["wins"] + never["wins"] == table["wins"][2]
    assert rows["Always"]["played"]["seat_games"] == 0


def test_wilson_interval_of_the_ratio_matches_the_known_value() -> None:
    # 100 games, seat 0 always first and winning every other game; it alone owns card 0:
    # 50 wins in 100 seat-games, expected 50. Wilson 95% for 50/100 is (0.40383, 0.59617)
    # (closed form below), so the ratio's interval is that over the expected share 0.5.
    games = [_record(g, [g % 2], [[0], []]) for g in range(100)]
    row = balance_table({2: games}, ["A"], [False], {2: ["x", "x"]})["cards"][0]["owned"]
    z, n, p = 1.959963984540054, 100, 0.5
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert (centre - half, centre + half) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    assert row["ratio"] == pytest.approx(1.0)
    assert row["ci"] == pytest.approx([(centre - half) / 0.5, (centre + half) / 0.5], abs=1e-9)
    wider = balance_table({2: games}, ["A"], [False], {2: ["x", "x"]}, confidence=0.99)
    lo99, hi99 = wider["cards"][0]["owned"]["ci"]
    assert lo99 < row["ci"][0] and hi99 > row["ci"][1]


def test_expected_share_is_per_agent_and_turn_order_position() -> None:
    # agent 0 ("strong") wins every game from either seat, and owns card 0 ("A"): A is fair
    # (a flat 1/2 expectation would call it 2.0); agent 1 owns card 1 and never wins
    games = []
    for g in range(40):
        r = _record(g, [g % 2], [[0], [1]] if g % 2 == 0 else [[1], [0]])
        r.seating = [g % 2, 1 - g % 2]  # seat -> agent: agent 0 sits at seat g % 2 and wins
        games.append(r)
    table = balance_table({2: games}, ["A", "B"], [False, False], {2: ["strong", "weak"]})
    assert table["expected_share"][2] == {"strong": [1.0, 1.0], "weak": [0.0, 0.0]}
    rows = _rows(table)
    assert rows["A"]["owned"]["ratio"] == pytest.approx(1.0)
    assert rows["B"]["owned"]["ratio"] is None  # expected 0 wins: no ratio
    # one agent everywhere, the first player (position 0) always wins: its card is fair too
    first = [_record(g, [g % 2], [[0], []] if g % 2 == 0 else [[], [0]], first=g % 2)
             for g in range(40)]  # fmt: skip
    table = balance_table({2: first}, ["A"], [False], {2: ["x", "x"]})
    assert table["expected_share"][2] == {"x": [1.0, 0.0]}
    assert table["cards"][0]["owned"]["ratio"] == pytest.approx(1.0)


def test_bad_tables_raise() -> None:
    games = _fake_games(4)
    with pytest.raises(ValueError, match="LOW < 1 < HIGH"):
        balance_table({2: games}, NAMES, FRIEND, {2: ["x", "x"]}, band=(1.3, 0.8))
    with pytest.raises(ValueError, match="confidence"):
        balance_table({2: games}, NAMES, FRIEND, {2: ["x", "x"]}, confidence=1.0)
    with pytest.raises(ValueError, match="best_friend"):
        balance_table({2: games}, NAMES, FRIEND[:-1], {2: ["x", "x"]})
    games[1].extra = {}
    with pytest.raises(ValueError, match="BalanceObserver"):
        balance_table({2: games}, NAMES, FRIEND, {2: ["x", "x"]})
    with pytest.raises(ValueError, match="card id outside"):
        balance_table({2: _fake_games(2)}, NAMES[:3], FRIEND[:3], {2: ["x", "x"]})
    with pytest.raises(ValueError, match="games"):
        balance(["builder"], 0, (2,), out=None, progress=False)
    with pytest.raises(ValueError, match="2, 3 or 4"):
        balance(["builder"], 1, (5,), out=None, progress=False)
    with pytest.raises(ValueError, match="no agent"):
        balance([" "], 1, (2,), out=None, progress=False)


def test_observer_records_what_each_seat_owned_and_played() -> None:
    game = FortGame(3)
    bots = [make("builder", seed=s) for s in range(3)]
    played: list[set[int]] = [set() for _ in range(3)]

    class Both(BalanceObserver):  # an independent count of the plays, from the state after
        def after(self, state, seat, action):  # type: ignore[no-untyped-def]
            if self._was_play:
                played[seat].add(self._card)

        def before(self, state, seat, action):  # type: ignore[no-untyped-def]
            name, i = state.game.layout.decode(action)
            self._was_play, self._card = name == "PLAY_CARD", int(i)
            super().before(state, seat, action)

    record, state = play_game(game, bots, seed=5, observer=Both())
    assert record.extra["owned"] == [owned_cards(state, p).tolist() for p in range(3)]
    assert record.extra["played"] == [sorted(p) for p in played]
    assert all(record.extra["played"]) and all(record.extra["owned"])
    # a Best Friend starts in its seat's hand: every seat has played or owns one
    friends = set(np.flatnonzero(game.is_best_friend).tolist())
    held = zip(record.extra["owned"], record.extra["played"], strict=True)
    assert all(friends & set(o + p) for o, p in held)


def test_tiny_run_counts_add_up_and_draws_the_plot(tmp_path: Path) -> None:
    report = balance(["builder", "opportunist"], 3, (2, 3), seed=2, out=tmp_path, progress=False)
    assert report["total_games"] == 6 and report["seat_games"] == {2: 6, 3: 9}
    for n in (2, 3):
        assert 3 <= report["wins"][n] <= 6  # one winner a game, or a shared victory
        assert set(report["expected_share"][n]) == {"builder", "opportunist"}
    names = {c.name for c in FortGame(2).cards}
    assert {r["card"] for r in report["cards"]} == names
    for r in report["cards"]:
        for meas in ("owned", "played"):
            s = r[meas]
            assert 0 <= s["wins"] <= s["seat_games"] <= 15
            assert set(s["ratio_by_players"]) == {2, 3}
    assert Path(report["plot"]) == tmp_path / "balance.png"
    assert (tmp_path / "balance.png").read_bytes()[:4] == b"\x89PNG"
    listed = {(u["card"], u["measure"]) for u in report["unbalanced"]}
    assert listed == {
        (r["card"], m) for r in report["cards"] for m in ("owned", "played")
        if r[m]["verdict"] != "ok"
    }  # fmt: skip
    json.dumps(report)


def test_console_script_json(tmp_path: Path) -> None:
    proc = fort_env_cli(
        "analyze", "balance", "--games", "2", "--num-players", "2", "--json", "--out",
        str(tmp_path), "--band", "0.9,1.1", "--confidence", "0.9",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["games"] == 2 and report["seat_games"] == {"2": 4}
    assert report["band"] == [0.9, 1.1] and report["confidence"] == 0.9
    assert report["agents"] == ["builder", "opportunist"]
    assert (tmp_path / "balance.png").exists()


def test_console_script_table(tmp_path: Path) -> None:
    proc = fort_env_cli("analyze", "balance", "--games", "2", "--num-players", "2",
                        "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Card balance: 2 games" in proc.stdout and "Rocket Bros" in proc.stdout


@pytest.mark.parametrize(
    ("args", "option", "code"),
    [
        (["--band", "1.3,0.8"], "--band", 2),
        (["--band", "0.8"], "--band", 2),
        (["--num-players", "2,5"], "--num-players", 2),
        (["--agents", "nobody"], "--agents nobody", 1),
        (["--out", "/proc/forbidden"], "--out", 1),
    ],
)
def test_bad_arguments_are_one_line(args: list[str], option: str, code: int) -> None:
    result = CliRunner().invoke(app, ["analyze", "balance", "--games", "1", *args])
    assert result.exit_code == code, result.output
    text = result.stderr if result.stderr else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: "), lines


def test_options_before_the_subcommand_are_refused() -> None:
    result = CliRunner().invoke(app, ["analyze", "--games", "3", "balance"])
    assert result.exit_code == 2
    text = result.stderr if result.stderr else result.output
    assert "error: --games: give the options of 'analyze balance' after 'balance'" in text
    out_of_range = CliRunner().invoke(app, ["analyze", "balance", "--confidence", "1.5"])
    assert out_of_range.exit_code == 2 and "'--confidence'" in (
        out_of_range.stderr or out_of_range.output
    )
