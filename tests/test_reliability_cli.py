"""Issue 12, command line: every bad argument is one error naming the option, no traceback.

Usage errors (a value out of the option's declared range, a malformed list) exit 2 with
typer's usage message; failures while running (a model file that does not exist, an agent
spec that does not build, an unwritable directory, a corrupt record) exit 1 with one line
``error: OPTION: problem``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fort_env.tools.cli import app

# ranges declared on the options: typer's usage error names the option
USAGE = [
    (["bench", "--rounds", "0"], "--rounds"),
    (["bench", "--seconds", "-1"], "--seconds"),
    (["bench", "--num-players", "5"], "--num-players"),
    (["train", "--n-envs", "0"], "--n-envs"),
    (["train", "--timesteps", "-5"], "--timesteps"),
    (["train", "--minutes", "-1"], "--minutes"),
    (["train", "--seed", "-1"], "--seed"),
    (["train", "--num-players", "5"], "--num-players"),
    (["tournament", "--agents", "random,random", "--games", "0"], "--games"),
    (["tournament", "--agents", "random,random", "--workers", "0"], "--workers"),
    (["tournament", "--agents", "random,random", "--seed", "-3"], "--seed"),
    (["analyze", "--games", "0"], "--games"),
    (["play", "--seat", "9"], "--seat"),
]

# checks in the commands: one line "error: OPTION: problem", exit 2
USAGE_LINES = [
    (["train", "--preset", "nope"], "--preset"),
    (["train", "--setup", "draft"], "--setup"),
    (["tournament", "--agents", "random", "--num-players", "2"], "--agents"),
    (["tournament", "--agents", "random,random", "--setup", "weird"], "--setup"),
    (["analyze", "--num-players", ""], "--num-players"),
    (["analyze", "--num-players", "2,5"], "--num-players"),
    (["analyze", "--num-players", "two"], "--num-players"),
    (["play", "--seat", "3", "--num-players", "2"], "--seat"),
]

FAILURES = [
    (["tournament", "--agents", "ppo:/nonexistent.zip,random"], "--agents ppo:/nonexistent.zip"),
    (["tournament", "--agents", "random:foo=bar,random"], "--agents random:foo=bar"),
    (["tournament", "--agents", "nobody,random"], "--agents nobody"),
    (["tournament", "--agents", "random,random", "--cards", "/nonexistent"], "--cards"),
    (["analyze", "--games", "1", "--out", "/proc/forbidden"], "--out"),
]


def _error_lines(result) -> list[str]:
    text = result.stderr if result.stderr else result.output
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(("args", "option"), USAGE, ids=lambda x: " ".join(x))
def test_usage_errors_exit_2_naming_the_option(args: list[str], option: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    text = result.stderr if result.stderr else result.output
    assert f"'{option}'" in text and "Traceback" not in text


@pytest.mark.parametrize(
    ("args", "option", "code"),
    [(*u, 2) for u in USAGE_LINES] + [(*f, 1) for f in FAILURES],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_one_line_naming_the_option(args: list[str], option: str, code: int) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)
    lines = _error_lines(result)
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: "), lines


@pytest.mark.parametrize(
    "content",
    ["[" * 100_000 + "]" * 100_000, '{"a":', "\udcff", '{"format": "nope"}', "[1, 2]"],
    ids=["deeply nested", "truncated", "not utf-8", "not a record", "a list"],
)
def test_replay_of_a_bad_file_is_one_line(tmp_path: Path, content: str) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    lines = _error_lines(result)
    assert len(lines) == 1 and lines[0].startswith("error: FILE: "), lines


def _console_script() -> Path:
    script = Path(sys.executable).parent / "fort-env"
    if not script.exists():
        pytest.skip("the fort-env console script is not installed next to this Python")
    return script


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["bench", "--rounds", "0"], 2, "'--rounds'"),
        (["tournament", "--agents", "random:foo=bar,random"], 1, "error: --agents random:foo=bar"),
    ],
)
def test_the_installed_console_script(args: list[str], code: int, expected: str) -> None:
    run = subprocess.run(
        [str(_console_script()), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == code, run.stderr
    assert expected in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
