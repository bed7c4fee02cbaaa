"""Game records (``fort_env/records.py``) and the ``fort-env replay`` command."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import fort_env
from fort_env.records import (
    RECORD_FORMAT,
    RecordError,
    dumps_record,
    load_record,
    make_record,
    replay,
    save_record,
)
from fort_env.tools.cli import app
from fort_env.views.words import action_words

CONFIGS = [(2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced")]


def played(num_players: int, setup: str, seed: int, steps: int | None = None) -> fort_env.raw_env:
    """A raw env after ``steps`` random decisions (``None``: to the end) of game ``seed``."""
    env = fort_env.raw_env(num_players=num_players, setup=setup)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    while not any(env.terminations.values()) and (steps is None or done < steps):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        done += 1
    return env


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_replay_reproduces_finished_games(num_players: int, setup: str) -> None:
    for seed in range(4):
        env = played(num_players, setup, seed)
        record = env.to_record()
        assert record["format"] == RECORD_FORMAT and record["version"] == 1
        assert record["config"] == {"num_players": num_players, "setup": setup, "cards": None}
        assert record["seed"] == seed
        final = replay(json.loads(json.dumps(record)))
        expected = env.fort_state()
        assert final.is_terminal()
        assert final.to_dict() == expected.to_dict()
        assert final.score_breakdown() == expected.score_breakdown()
        assert record["result"] == {
            "scores": [row["total"] for row in expected.score_breakdown()],
            "winners": expected.winners(),
        }


def test_unfinished_game_replays_to_the_same_position() -> None:
    env = played(3, "basic", 8, steps=57)
    record = env.to_record()
    assert "result" not in record and len(record["actions"]) == 57
    assert replay(record).to_dict() == env.fort_state().to_dict()


def test_replay_calls_on_decision_before_each_action() -> None:
    record = played(2, "basic", 1, steps=30).to_record()
    seen: list[tuple[int, int]] = []
    replay(record, on_decision=lambda state, a: seen.append((state.current_player(), a)))
    assert [a for _, a in seen] == record["actions"]
    assert all(p >= 0 for p, _ in seen)


def test_fort_env_replay_is_records_replay() -> None:
    assert fort_env.replay is replay


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    record = played(2, "advanced", 3).to_record()
    path = tmp_path / "game.json"
    save_record(record, path)
    assert json.loads(path.read_text()) == record
    assert load_record(path) == record
    assert dumps_record(record).splitlines()[1] == '  "format": "fort-env-record",'


def test_make_record_matches_the_env() -> None:
    env = played(4, "basic", 2)
    made = make_record(env.config, 2, env.to_record()["actions"], env.fort_state())
    assert made == env.to_record()


def _tampered(record: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("format",), "other", "'format'"),
        (("version",), 2, "'version'"),
        (("config",), [], "'config'"),
        (("config", "num_players"), "2", "'config.num_players'"),
        (("config", "setup"), None, "'config.setup'"),
        (("config", "cards"), 3, "'config.cards'"),
        (("seed",), -1, "'seed'"),
        (("actions",), [1, "x"], "'actions'"),
        (("result",), [], "'result'"),
        (("first_player",), 2, "'first_player'"),
        (("first_player",), True, "'first_player'"),
        (("agents",), ["you"], "'agents'"),
        (("agents",), ["you", 3], "'agents'"),
    ],
)
def test_malformed_records_name_the_field(path: tuple[Any, ...], value: Any, message: str) -> None:
    record = played(2, "basic", 0).to_record()
    with pytest.raises(RecordError, match=message):
        replay(_tampered(record, path, value))


def test_records_that_do_not_replay_are_rejected() -> None:
    env = played(2, "basic", 0)
    record = env.to_record()
    draft = env.game.layout.DRAFT_CARD  # no draft in the basic setup
    with pytest.raises(RecordError, match=r"actions\[0\]"):
        replay(_tampered(record, ("actions", 0), draft))
    scores = record["result"]["scores"]
    with pytest.raises(RecordError, match="differs"):
        replay(_tampered(record, ("result", "scores"), [s + 1 for s in scores]))
    with pytest.raises(RecordError, match="do not finish"):
        replay(_tampered(record, ("actions",), record["actions"][:-1]))
    with pytest.raises(RecordError, match="not JSON"):
        bad = Path(__file__).with_name("golden") / "fort_2p_basic.txt"
        load_record(bad)


def test_cli_replay_prints_the_game_turn_by_turn(tmp_path: Path) -> None:
    env = played(3, "basic", 5)
    record = env.to_record()
    path = tmp_path / "game.json"
    save_record(record, path)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    n = len(record["actions"])
    assert lines[0].endswith(f"3 players, basic setup, shipped cards, seed 5, {n} decisions")
    assert "== Turn 1: player_" in result.output
    decisions = [line for line in lines if line.startswith(" ") and "  player_" in line]
    assert len(decisions) == n
    state = fort_env.FortGame(3).new_initial_state(seed=5)
    assert decisions[0].endswith(action_words(state, record["actions"][0], "their"))
    winners = ", ".join(f"player_{p}" for p in env.fort_state().winners())
    assert lines[-1] == f"Winners: {winners}"
    with_states = CliRunner().invoke(app, ["replay", "--states", str(path)])
    assert with_states.exit_code == 0 and "Park deck:" in with_states.output
    assert "Victory Track" in with_states.output and ": score " not in with_states.output
    # --raw: the action names and the table as code, decision by decision
    raw = CliRunner().invoke(app, ["replay", "--raw", "--states", str(path)])
    assert raw.exit_code == 0 and ": score " in raw.output
    rows = [r for r in raw.output.splitlines() if r.startswith(" ") and "  player_" in r]
    names: list[str] = []
    replay(record, on_decision=lambda s, a: names.append(s.action_to_string(a)))
    assert len(rows) == n and all(r.endswith(t) for r, t in zip(rows, names, strict=True))


def test_cli_replay_of_an_unfinished_draft(tmp_path: Path) -> None:
    path = tmp_path / "draft.json"
    save_record(played(2, "advanced", 4, steps=10).to_record(), path)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "== Draft ==" in result.output
    assert result.output.rstrip().endswith("== The record stops before the end of the game ==")


def test_cli_replay_rejects_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "something else"}')
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "error: FILE: field 'format'" in result.output


def test_a_bare_state_pickles_and_deep_copies_whole() -> None:
    """A FortState pickles through its dict: every field, the scalar context included."""
    import copy
    import pickle

    import numpy as np

    from fort_env import FortGame

    state = FortGame(3).new_initial_state(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(40):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    restored = pickle.loads(pickle.dumps(state))  # with its own FortGame: compare the dicts
    assert restored.to_dict() == state.to_dict()
    assert restored.legal_actions() == state.legal_actions()
    for other in (copy.deepcopy(state), state.clone()):  # sharing the game: states compare
        assert other == state and other.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("seed", [-1, 2**62, 2**63, 1.5, True])
def test_a_seed_out_of_range_is_refused_at_the_deal(seed: object) -> None:
    from fort_env import ConfigError, FortGame

    with pytest.raises(ConfigError, match="seed must be an int in"):
        FortGame(2).new_initial_state(seed=seed)  # type: ignore[arg-type]


def _load_in_thread(call: Any, fifo: Path) -> list[BaseException]:
    """``call()`` in a thread; if it blocks (on the FIFO), free it and fail."""
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail(f"reading {fifo} blocked")
    return outcome


@pytest.mark.parametrize("kind", ["FIFO", "directory", "not UTF-8", "missing", "symlink loop"])
def test_a_record_path_that_is_not_a_text_file_is_record_error(tmp_path: Path, kind: str) -> None:
    """Issue 26: a FIFO blocked forever; a directory, bad bytes or a loop raised OSError or
    UnicodeDecodeError."""
    path = tmp_path / "game.json"
    if kind == "FIFO":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "not UTF-8":
        path.write_bytes(b'{"format": "\xff"}')
    elif kind == "symlink loop":
        path.symlink_to(tmp_path / "loop")
        (tmp_path / "loop").symlink_to(path)
    outcome = _load_in_thread(lambda: load_record(path), path)
    assert len(outcome) == 1 and isinstance(outcome[0], RecordError), outcome
    assert str(path) in str(outcome[0])


def test_a_record_whose_card_directory_holds_a_fifo_is_refused(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    cards = tmp_path / "cards"
    shutil.copytree(Path(fort_env.__file__).parent / "data", cards)
    (cards / "rules.toml").unlink()
    os.mkfifo(cards / "rules.toml")
    record = make_record({"num_players": 2, "setup": "basic", "cards": str(cards)}, 1, [])
    outcome = _load_in_thread(lambda: replay(record), cards / "rules.toml")
    assert len(outcome) == 1 and isinstance(outcome[0], fort_env.CardDataError), outcome
    assert "FIFO" in str(outcome[0])


def test_huge_ints_in_a_record_are_record_errors(tmp_path: Path) -> None:
    """Issue 26: json's 4,300-digit ValueError escaped load_record; a 5,000-digit action or
    seed in a record dict raised repr's ValueError from the message."""
    path = tmp_path / "game.json"
    path.write_text('{"seed": ' + "7" * 5000 + "}")
    with pytest.raises(RecordError, match="4300"):
        load_record(path)
    record = make_record({"num_players": 2, "setup": "basic", "cards": None}, 1, [])
    for field, value in (("seed", 10**5000), ("actions", [10**5000])):
        with pytest.raises(RecordError, match="an int of 5001 digits"):
            replay({**record, field: value})


def test_a_record_keeps_a_fixed_first_player() -> None:
    """Games dealt with first_player=k (the tournament's rotation) replay from their record;
    records without it draw the first player from the seed, as before."""
    import agents
    from agents.arena.games import play_game

    game = fort_env.FortGame(3)
    for first in (1, 2):
        bots = [agents.make("random", seed=s) for s in range(3)]
        record_of, final = play_game(game, bots, seed=9, first_player=first, record_actions=True)
        assert record_of.actions is not None and record_of.seed == 9
        config = {"num_players": 3, "setup": "basic", "cards": None}
        record = make_record(config, 9, record_of.actions, final, first_player=first)
        assert record["first_player"] == first
        assert replay(json.loads(dumps_record(record))).to_dict() == final.to_dict()
        with pytest.raises(RecordError):  # the same actions from the seed's own first player
            replay({k: v for k, v in record.items() if k != "first_player"})
    assert "first_player" not in played(2, "basic", 0).to_record()


def test_cli_replay_columns_labels_and_counts(tmp_path: Path) -> None:
    """The decision column fits STOP_OR_CONTINUE, the breakdown says "Fort Level points" for
    the points and "Fort Level" for the level, and one card is "1 card"."""
    from fort_env.game.decisions import DecisionKind
    from fort_env.tools.cli import KIND_WIDTH, kind_words
    from fort_env.views.text import score_line, state_to_string

    for seed in range(30):
        env = played(2, "basic", seed)
        raw = CliRunner().invoke(app, ["replay", "--raw", _saved(env, tmp_path)]).output
        if "STOP_OR_CONTINUE" in raw:
            break
    else:
        pytest.fail("no STOP_OR_CONTINUE decision in 30 random games")
    output = CliRunner().invoke(app, ["replay", _saved(env, tmp_path)]).output
    assert "stop or continue" in output and "STOP_OR_CONTINUE" not in output
    for text, raw_form in ((output, False), (raw, True)):
        kinds = {kind_words(k, raw_form) for k in DecisionKind}
        rows = [line for line in text.splitlines() if line.startswith(" ") and "  player_" in line]
        starts = set()
        for line in rows:
            rest = line.split("  player_", 1)[1].split(None, 1)[1]  # the kind, then the action
            starts.add(len(line) - len(rest))
            assert rest[:KIND_WIDTH].rstrip() in kinds, line
            assert rest[KIND_WIDTH] == " " != rest[KIND_WIDTH + 1], line
        assert len(starts) == 1  # every kind, hence every action, starts in the same column
    breakdown = [line for line in output.splitlines() if line.startswith("player_")]
    assert len(breakdown) == 2 and all("Fort Level points " in line for line in breakdown)
    assert all(re.search(r"\(Fort Level \d\)$", line) for line in breakdown)
    assert "fort_level" not in output
    row = {"track": 3, "fort_level": 1, "made_up_rule": 0, "macaroni": 0, "total": 4, "level": 1}
    assert score_line(row) == (
        "Victory Track 3, Fort Level points 1, made-up rule 0, macaroni sculpture 0, total 4 "
        "(Fort Level 1)"
    )
    state = fort_env.FortGame(2).new_initial_state(seed=1)
    text = state_to_string(state)
    assert not re.search(r"\b1 cards\b", text) and " cards" in text
    deck = state.cards_in(fort_env.game.constants.DECK, 0)
    for c in deck[1:]:  # one card left in the deck
        state.zone[c] = fort_env.game.constants.DISCARD
    assert "deck: 1 card\n" in state_to_string(state)


def _saved(env: fort_env.raw_env, folder: Path) -> str:
    path = folder / "game.json"
    save_record(env.to_record(), path)
    return str(path)


def test_replay_takes_a_record_files_path(tmp_path: Path) -> None:
    """``fort_env.replay("game.json")`` loads the file (``load_record``), as the README says;
    it said "a record is a JSON object, got str" (issue 40)."""
    env = played(3, "basic", seed=12)
    record = env.to_record()
    path = tmp_path / "game.json"
    save_record(record, path)
    final = replay(record)
    for given in (str(path), path):
        assert fort_env.replay(given).to_dict() == final.to_dict()
    calls: list[int] = []
    replay(str(path), on_decision=lambda state, action: calls.append(action))
    assert calls == record["actions"]
    with pytest.raises(RecordError, match="file not found"):
        replay(str(tmp_path / "missing.json"))
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(RecordError, match="a record is a JSON object, got list"):
        replay(tmp_path / "list.json")
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert "fort_env.records.load_record(" in readme and 'fort_env.replay("game.json")' in readme
