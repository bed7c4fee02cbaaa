"""Game records (``fort_env/records.py``) and the ``fort-env replay`` command."""

from __future__ import annotations

import copy
import json
import os
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
    assert decisions[0].endswith(state.action_to_string(record["actions"][0]))
    winners = ", ".join(f"player_{p}" for p in env.fort_state().winners())
    assert lines[-1] == f"Winners: {winners}"
    with_states = CliRunner().invoke(app, ["replay", "--states", str(path)])
    assert with_states.exit_code == 0 and "Park deck:" in with_states.output


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
