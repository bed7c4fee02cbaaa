"""Tournaments: seat rotation, the result schema, JSON output, Wilson intervals, ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import cli
from agents.arena.tournament import format_table, run_tournament, unique_names, wilson_interval

AGENT_KEYS = {
    "spec", "games", "wins", "win_rate", "win_rate_ci95", "mean_score", "mean_rank",
    "seat_games", "seat_win_rates", "rating", "think_seconds_per_game",
    "think_seconds_per_decision",
}  # fmt: skip
RUN_KEYS = {
    "agents", "games", "num_players", "setup", "seed", "workers", "wall_seconds", "game_length",
    "end_triggers", "first_player_win_rate", "shared_victories",
}  # fmt: skip


def test_wilson_interval_numbers() -> None:
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert wilson_interval(90, 100) == pytest.approx((0.82563, 0.94477), abs=1e-5)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(5, 10, confidence=0.99) == pytest.approx((0.18423, 0.81577), abs=1e-5)
    with pytest.raises(ValueError, match="integer count"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="integer count"):
        wilson_interval(2.5, 10)


def test_unique_names() -> None:
    assert unique_names(["heuristic", "random", "random", "random"]) == [
        "heuristic", "random", "random#2", "random#3",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def three_player() -> dict:
    return run_tournament(["builder", "random", "scorer"], 3, 6, seed=3, progress=False)


def test_seat_rotation(three_player: dict) -> None:
    for a in three_player["agents"].values():
        assert a["seat_games"] == [2, 2, 2]
        assert a["games"] == 6


def test_result_schema(three_player: dict) -> None:
    r = three_player
    assert set(r) >= RUN_KEYS
    assert set(r["agents"]) == {"builder", "random", "scorer"}
    for a in r["agents"].values():
        assert set(a) >= AGENT_KEYS
        lo, hi = a["win_rate_ci95"]
        assert lo <= a["win_rate"] <= hi
        assert 1.0 <= a["mean_rank"] <= 3.0
        assert set(a["rating"]) == {"mu", "sigma", "ordinal"}
    assert set(r["end_triggers"]) == {"score_25", "fort_level_5", "park_deck_empty"}
    assert sum(r["end_triggers"].values()) >= r["games"]
    assert set(r["game_length"]) == {"decisions", "rounds"}
    wins = sum(a["wins"] for a in r["agents"].values())
    # every game has at least one winner; a shared victory (2 or 3 winners at this table of 3)
    # counts as a win for each winner
    shared = r["shared_victories"]
    assert wins == int(wins)
    assert r["games"] + shared <= wins <= r["games"] + (r["num_players"] - 1) * shared
    json.dumps(r)


def test_same_seed_same_result_any_worker_count() -> None:
    def strip(r: dict) -> dict:
        r = dict(r)
        for key in ("wall_seconds", "workers"):
            r.pop(key)
        r["agents"] = {
            k: {kk: vv for kk, vv in v.items() if not kk.startswith("think")}
            for k, v in r["agents"].items()
        }
        return r

    one = run_tournament(["heuristic", "random"], 2, 4, seed=9, workers=1, progress=False)
    two = run_tournament(["heuristic", "random"], 2, 4, seed=9, workers=2, progress=False)
    assert strip(one) == strip(two)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="one agent per seat"):
        run_tournament(["heuristic"], 2, 2, progress=False)
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament(["heuristic", "nope"], 2, 2, progress=False)
    with pytest.raises(ValueError):
        run_tournament(["heuristic", "random"], 2, 0, progress=False)


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    cli.tournament(
        "heuristic,random", num_players=2, games=2, seed=1, json_output=True, progress=False
    )
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["games"] == 2 and set(data["agents"]) == {"heuristic", "random"}


def test_table_output(three_player: dict) -> None:
    text = format_table(three_player)
    for name in ("builder", "random", "scorer", "end triggers", "first-player win rate"):
        assert name in text


def test_typer_commands() -> None:
    import typer
    from typer.testing import CliRunner

    app = typer.Typer()
    cli.register(app)
    runner = CliRunner()
    result = runner.invoke(
        app, ["tournament", "--agents", "heuristic,random", "--games", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["games"] == 2
    bad = runner.invoke(app, ["tournament", "--agents", "heuristic", "--games", "2"])
    assert bad.exit_code == 2
    assert "one agent per seat" in bad.output


def test_the_command_builds_each_agent_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process the agents the command's check built are the ones that play: a model
    file is read once, not once per check (3 times before)."""
    import typer
    from typer.testing import CliRunner

    import agents

    made: list[str] = []
    real = agents.make

    def counting(spec: str, seed: int | None = None) -> agents.Agent:
        made.append(spec)
        return real(spec, seed)

    monkeypatch.setattr(agents, "make", counting)
    app = typer.Typer()
    cli.register(app)
    args = ["tournament", "--agents", "builder,random", "--games", "2", "--seed", "3", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert sorted(made) == ["builder", "random"]
    played = json.loads(result.stdout.strip().splitlines()[-1])
    by_spec = run_tournament(["builder", "random"], 2, 2, seed=3, progress=False)
    assert played["game_length"] == by_spec["game_length"]  # the same games
    assert played["end_triggers"] == by_spec["end_triggers"]
    for name, row in by_spec["agents"].items():
        assert (played["agents"][name]["wins"], played["agents"][name]["mean_score"]) == (
            row["wins"],
            row["mean_score"],
        )


def test_summarize_counts_shared_victories_for_each_winner() -> None:
    """Three hand-made 3-player games: a sole winner, a two-way and a three-way shared victory."""
    from agents.arena.games import GameRecord
    from agents.arena.tournament import summarize

    def record(i: int, winners: list[int], totals: list[int]) -> GameRecord:
        return GameRecord(
            index=i, seating=[0, 1, 2], totals=totals, breakdown=[{}, {}, {}], winners=winners,
            ranks=[1 + sum(o > t for o in totals) for t in totals], levels=[0, 0, 0],
            decisions=10, rounds=3, triggers=["score_25"], think=[0.0, 0.0, 0.0],
            decisions_by_seat=[4, 3, 3], first_player=i % 3,
        )  # fmt: skip

    records = [record(0, [0], [25, 10, 5]), record(1, [0, 2], [20, 3, 20]),
               record(2, [0, 1, 2], [9, 9, 9])]  # fmt: skip
    r = summarize(records, ["a", "b", "c"], ["random"] * 3, 3)
    assert r["shared_victories"] == 2
    assert [r["agents"][n]["games"] for n in "abc"] == [3, 3, 3]
    assert [r["agents"][n]["wins"] for n in "abc"] == [3, 1, 2]
    assert r["agents"]["a"]["win_rate"] == 1.0
    assert r["agents"]["b"]["mean_rank"] == pytest.approx((2 + 3 + 1) / 3)
    # first players: seat 0 (won), seat 1 (lost), seat 2 (won)
    assert r["first_player_win_rate"] == pytest.approx(2 / 3)


def test_table_keeps_the_run_folder_of_long_model_names(three_player: dict) -> None:
    """Model specs deep in a folder: the table shows each whole from its preset's folder on
    (the run folder tells two runs apart), never cut with an ellipsis."""
    from agents.arena.tournament import display_names, short_name

    deep = "ppo:/home/someone/projects/a-long-folder-name/fort-env/runs/quick"
    a, b = f"{deep}/20261126-190912/model.safetensors", f"{deep}/20261126-191544/model.safetensors"
    result = json.loads(json.dumps(three_player))
    agents = result["agents"]
    agents[a], agents[f"{b}:deterministic=0"] = agents.pop("builder"), agents.pop("random")
    text = format_table(result)
    assert "ppo:.../quick/20261126-190912/model.safetensors " in text
    assert "ppo:.../quick/20261126-191544/model.safetensors:deterministic=0 " in text
    assert "…" not in text and "scorer" in text
    assert short_name("puct:model=/x/y/runs/full/latest/model.safetensors:ms=50") == (
        "puct:model=.../full/latest/model.safetensors:ms=50"
    )
    assert short_name("ismcts:ms=50") == "ismcts:ms=50"
    # two names alike once shortened: both shown whole
    same = ["ppo:/a/b/runs/q/r/model.safetensors", "ppo:/c/d/runs/q/r/model.safetensors"]
    assert display_names(same) == {n: n for n in same}


def test_save_writes_records_that_replay(tmp_path: Path) -> None:
    """--save DIR: one record per game (the first N with --save-games) that fort-env replay
    reads; the games' seats, first players and results are the tournament's."""
    from typer.testing import CliRunner

    from fort_env.records import load_record, replay
    from fort_env.tools.cli import app

    out = tmp_path / "games"
    args = ["tournament", "--agents", "builder,random", "--games", "4", "--seed", "2", "--json"]
    result = CliRunner().invoke(app, [*args, "--save", str(out), "--save-games", "3"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["game-0000.json", "game-0001.json", "game-0002.json"]
    records = [load_record(f) for f in files]
    assert [r.get("first_player", 0) for r in records] == [0, 0, 1]  # rotation blocks of 2
    wins = {"builder": 0.0, "random": 0.0}
    for record in records:
        final = replay(record)  # raises unless the actions and the result replay
        assert final.is_terminal() and sorted(record["agents"]) == ["builder", "random"]
        for seat in final.winners():
            wins[record["agents"][seat]] += 1
    assert wins["builder"] <= summary["agents"]["builder"]["wins"]
    shown = CliRunner().invoke(app, ["replay", str(files[2])])
    assert shown.exit_code == 0, shown.output
    assert "player_0: " in shown.output.splitlines()[1] and "Winners:" in shown.output
    every = CliRunner().invoke(app, [*args, "--games", "2", "--save", str(tmp_path / "all")])
    assert every.exit_code == 0 and len(list((tmp_path / "all").iterdir())) == 2
    alone = CliRunner().invoke(app, [*args, "--save-games", "1"])
    assert alone.exit_code == 2 and "--save-games" in alone.output


def test_a_tournament_without_seed_draws_one_and_its_json_is_citable() -> None:
    """Issue 38: a fresh seed printed, and the result names version, commit and models."""
    import json
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "fort_env.tools.cli", "tournament", "--agents", "ppo,random",
           "--games", "2", "--json"]  # fmt: skip
    runs = [subprocess.run(cmd, capture_output=True, text=True, check=True) for _ in range(2)]
    seeds = [r.stderr.split("tournament seed ")[1].split()[0] for r in runs]
    assert seeds[0] != seeds[1]
    out = json.loads(runs[0].stdout)
    prov = out["provenance"]
    assert prov["fort_env_version"] and prov["layout"].startswith("sha256:")
    assert [a["spec"] for a in prov["agents"]] == ["ppo", "random"]
    ppo_model = prov["agents"][0]["models"][0]
    assert ppo_model["path"].endswith("ppo-2p.safetensors") and len(ppo_model["sha256"]) == 64
    assert prov["agents"][1]["models"] == []
    again = subprocess.run([*cmd, "--seed", seeds[0]], capture_output=True, text=True, check=True)

    def outcome(result: dict) -> dict:  # type: ignore[type-arg]
        return {k: (v["wins"], v["mean_score"]) for k, v in result["agents"].items()}

    assert outcome(json.loads(again.stdout)) == outcome(out)  # the printed seed replays it


def test_the_json_names_each_model_file_however_its_spec_writes_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model path written plain, quoted or with its ``:`` escaped (agents.spec's grammar) is
    the file the result's provenance names, with that file's sha256: one parser reads the
    spec that plays and the spec that is cited."""
    import hashlib
    import shutil

    from agents.learned.zoo import shipped_model

    shipped = shipped_model(4)
    plain_dir, colon_dir = tmp_path / "plain", tmp_path / "10:00"
    for folder in (plain_dir, colon_dir):
        folder.mkdir()
        for source in (shipped, shipped.with_suffix(".json")):
            shutil.copy(source, folder / source.name)
    plain, colon = plain_dir / shipped.name, colon_dir / shipped.name
    escaped = str(colon).replace(":", "\\:")
    specs = [
        f"ppo:{plain}",  # unquoted
        f"ppo:'{colon}'",  # a quoted bare path holding ':'
        f'puct:sims=2:model="{colon}"',  # a quoted value
        f"puct:sims=2:model={escaped}",  # an escaped ':'
    ]
    cli.tournament(",".join(specs), num_players=4, games=4, seed=3, json_output=True,
                   progress=False)  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4
    sha256 = hashlib.sha256(shipped.read_bytes()).hexdigest()
    entries = out["provenance"]["agents"]
    assert [e["spec"] for e in entries] == specs
    expected = [plain, colon, colon, colon]
    assert [e["models"] for e in entries] == [
        [{"path": str(path), "sha256": sha256}] for path in expected
    ]


def test_agent_objects_and_functions_play_in_a_tournament() -> None:
    """Issue 38: a function or an agent object is accepted beside specs, named by its name."""
    import numpy as np

    import agents

    def first_legal(observation, info):  # type: ignore[no-untyped-def]
        return int(np.flatnonzero(info["action_mask"])[0])

    result = run_tournament([first_legal, agents.make("random")], 2, 4, seed=1, progress=False)
    assert set(result["agents"]) == {"first_legal", "random"}
    assert sum(a["games"] for a in result["agents"].values()) == 8
    with pytest.raises(ValueError, match="not a spec"):
        run_tournament([3, "random"], 2, 2, progress=False)


def test_run_tournament_returns_the_provenance_the_command_line_prints() -> None:
    from agents.arena.tournament import run_tournament

    result = run_tournament(["heuristic", "ppo"], 2, 2, seed=3, progress=False)
    prov = result["provenance"]
    assert [a["spec"] for a in prov["agents"]] == ["heuristic", "ppo"]
    assert prov["agents"][1]["models"] and len(prov["agents"][1]["models"][0]["sha256"]) == 64
    bare = run_tournament(["heuristic", "random"], 2, 2, seed=3, progress=False,
                          with_provenance=False)  # fmt: skip
    assert "provenance" not in bare
