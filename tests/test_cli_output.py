"""``fort-env`` output whose reader goes away (``fort-env replay game.json | head``) ends the
command quietly: exit 141 (128 + SIGPIPE, what a shell reports for ``cat`` in that place), no
``error:`` line, no traceback (issue 40: it printed ``error: FILE: BrokenPipeError``, exit 1).

The console script runs as a user runs it, its standard output a pipe whose reading end is
closed before the command writes (no race: every write fails), or after the first line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import fort_env
from fort_env.records import save_record
from fort_env.tools.cli_errors import CLOSED_OUTPUT_EXIT, failures
from tests.test_console_script import SCRIPT


def script() -> str:
    assert SCRIPT.is_file(), "the fort-env console script is not installed (pip install -e .)"
    return str(SCRIPT)


@pytest.fixture(scope="module")
def game_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env = fort_env.raw_env(num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not any(env.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    path = tmp_path_factory.mktemp("records") / "game.json"
    save_record(env.to_record(), path)
    return path


def run_with_closed_output(*args: str) -> subprocess.CompletedProcess[bytes]:
    """``fort-env ARGS`` with standard output a pipe nobody reads (closed before it starts)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([script(), *args], stdout=write, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=240)  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "GAME"),  # typer.echo (click's own EPIPE handler)
        ("replay", "GAME", "--states"),
        ("ladder", "--help"),  # rich (its own EPIPE handler)
    ],
)
def test_a_closed_output_ends_the_command_quietly(game_file: Path, args: tuple[str, ...]) -> None:
    proc = run_with_closed_output(*(str(game_file) if a == "GAME" else a for a in args))
    assert proc.returncode == CLOSED_OUTPUT_EXIT == 141, proc.stderr.decode()[-2000:]
    assert proc.stderr == b""


def test_a_reader_that_stops_after_a_line(game_file: Path) -> None:
    """``| head -1``: the pipe breaks in the middle of the replay (inside its ``failures``
    block, where the ``OSError`` was turned into ``error: FILE: BrokenPipeError``)."""
    proc = subprocess.Popen([script(), "replay", str(game_file), "--states"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=240) == 141, err.decode()[-2000:]
    assert first.startswith(str(game_file).encode()) and err == b""


def test_the_whole_output_still_exits_0(game_file: Path) -> None:
    proc = subprocess.run([script(), "replay", str(game_file)], capture_output=True, timeout=240)
    assert proc.returncode == 0 and proc.stderr == b""
    assert b"== Game over ==" in proc.stdout


def test_failures_lets_a_broken_pipe_through() -> None:
    """The ``error: OPTION: problem`` line is for failures; a reader gone is none."""
    with pytest.raises(BrokenPipeError), failures("FILE"):
        raise BrokenPipeError(32, "Broken pipe")
    import typer

    with pytest.raises(typer.Exit), failures("FILE"):
        raise OSError(5, "Input/output error")  # other OS errors are still failures
