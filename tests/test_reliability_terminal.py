"""Text from files never reaches the terminal raw.

A shared record or card set could hold ESC, BEL, NUL or newlines in a name: printed raw, they
retitle the window, write the clipboard (OSC 52), plant links or clear the screen. Records and
card data refuse names holding one; what the commands print from a file goes through
``fort_env.game.inputs.terminal_text``, which shows each as its escape.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fort_env
from agents.arena.human import play_human
from agents.arena.ladder import format_ladder
from agents.bots.random_agent import RandomAgent
from fort_env import CardDataError
from fort_env.game.inputs import control_characters, terminal_text
from fort_env.records import RecordError, load_record, make_record, save_record
from fort_env.tools.cli import app
from fort_env.tools.cli_errors import one_line

DATA = Path(fort_env.__file__).parent / "data"
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # writes the clipboard
HOSTILE = [OSC52, "\x1b[2J", "\x1b]0;title\x07", "a\x00b", "two\nlines", "\rover", "\x9b31m",
           "\x7f", "abc\u202edcba", "tab\there"]  # fmt: skip
RAW = ["\x1b", "\x07", "\x00", "\n", "\r", "\x9b", "\x7f", "\u202e", "\t"]


def assert_no_raw_controls(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_terminal_text_shows_control_characters_as_escapes(text: str) -> None:
    shown = terminal_text(text)
    assert_no_raw_controls(shown)
    assert control_characters(text) and not control_characters(shown)
    assert shown.encode().decode("unicode_escape") == text  # each one's escape, nothing else
    assert terminal_text(shown) == shown  # escaping twice changes nothing


def test_terminal_text_keeps_ordinary_text_and_chosen_newlines() -> None:
    for plain in ("Chef", "Noodle Twins", "Ça va", "日本語", "🎲 dice", "C:\\cards", "[bold]x"):
        assert terminal_text(plain) == plain and control_characters(plain) == ""
    assert terminal_text("a\x1bb\nc\x07", keep_newlines=True) == "a\\x1bb\nc\\x07"
    assert terminal_text("a\nb") == "a\\nb"
    assert control_characters("x\x1by\x07z\x1b") == "\\x1b, \\x07"


def test_error_lines_escape_what_the_message_quotes() -> None:
    line = one_line(ValueError(f"cards from /tmp/{OSC52}: not a directory"))
    assert_no_raw_controls(line)
    assert "\\x1b]52;c;" in line


# ---------------------------------------------------------------------- records
def record_file(tmp_path: Path, **changes: Any) -> Path:
    state = fort_env.FortGame(2).new_initial_state(seed=3)
    record = make_record({"num_players": 2, "setup": "basic", "cards": None}, 3, [], state)
    for key, value in changes.items():
        if key.startswith("config."):
            record["config"][key.split(".", 1)[1]] = value
        else:
            record[key] = value
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_record_with_a_control_character_in_a_seat_name_is_refused(
    tmp_path: Path, name: str
) -> None:
    path = record_file(tmp_path, agents=["heuristic", name])
    with pytest.raises(RecordError, match=r"field 'agents\[1\]': a name without control") as e:
        load_record(path)
    assert_no_raw_controls(str(e.value))
    with pytest.raises(RecordError, match=r"agents\[1\]"):
        save_record(json.loads(path.read_text()), tmp_path / "copy.json")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "agents[1]" in result.output
    assert_no_raw_controls(result.output.rstrip("\n"))
    # names without control characters still load
    load_record(record_file(tmp_path, agents=["heuristic", "ppo:runs/café [best]"]))


@pytest.mark.parametrize("field", ["config.cards", "config.setup"])
def test_replay_prints_the_records_text_escaped(tmp_path: Path, field: str) -> None:
    """The record's card folder and setup are printed (then refused: no such folder or setup):
    their control characters as escapes, in the header and in the error line."""
    path = record_file(tmp_path, **{field: f"x{OSC52}\x1b[2J"})
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1, result.output
    assert_no_raw_controls(result.output.replace("\n", ""))
    assert "\\x1b]52;c;" in result.output


# ---------------------------------------------------------------------- card data
def card_set(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    text = (root / "cards.toml").read_text()
    assert old in text
    (root / "cards.toml").write_text(text.replace(old, new, 1))
    return root


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_card_name_with_a_control_character_is_refused(tmp_path: Path, name: str) -> None:
    toml_name = json.dumps(name)  # a TOML basic string: the same escapes as JSON's
    root = card_set(tmp_path, 'name = "Bones"', f"name = {toml_name}")
    with pytest.raises(CardDataError) as e:
        fort_env.FortGame(2, cards=str(root))
    assert e.value.field == "name" and e.value.card == "#1"
    assert "control characters" in str(e.value)
    assert_no_raw_controls(str(e.value))


def test_a_board_name_with_a_control_character_is_refused(tmp_path: Path) -> None:
    root = card_set(tmp_path, 'board = "red"', 'board = "red\\u001b[2J"')
    with pytest.raises(CardDataError) as e:
        fort_env.FortGame(2, cards=str(root))
    assert (e.value.card, e.value.field) == ("Blades", "board")
    assert_no_raw_controls(str(e.value))


# ---------------------------------------------------------------------- play and tables
class Named(RandomAgent):
    name = f"evil{OSC52}\x1b[2J\nbot"


def test_play_shows_a_bots_name_escaped() -> None:
    out: list[str] = []
    answers = iter(["q"])
    result = play_human(2, ["random"], seed=1, input_fn=lambda _: next(answers),
                        output_fn=out.append, agents=[Named(seed=0)])  # fmt: skip
    text = "\n".join(out)
    assert "evil\\x1b]52;c;" in text and "\\nbot" in text
    assert_no_raw_controls(text.replace("\n", ""))
    assert result.quit


def test_the_ladder_table_shows_names_escaped_and_not_as_markup() -> None:
    row = {"interval": [0.0, 1.0], "win_rate_ci95": [0.0, 1.0], "mu": 25.0, "ordinal": 0.0,
           "games": 2, "win_rate": 0.5, "ms_per_decision": 1.0}  # fmt: skip
    result = {
        "bots": [{**row, "name": f"plug{OSC52}[bold]x[/bold]"}, {**row, "name": "random"}],
        "num_players": 2, "games_per_table": 2, "tables": 1, "games": 2, "seed": 0,
        "workers": 1, "wall_seconds": 1.0,
    }  # fmt: skip
    table = format_ladder(result)
    assert_no_raw_controls(table.replace("\n", ""))
    assert "plug\\x1b]52;c;" in table and "[bold]x[/bold]" in table
