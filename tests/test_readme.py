"""The README's engine example runs as written and ends the game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_engine_example_in_readme_runs() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using the engine", 1)
    assert len(section) == 2, "README.md has no section '## Using the engine'"
    match = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert match, "no python block in '## Using the engine'"
    scope: dict[str, object] = {}
    exec(compile(match.group(1), "README.md", "exec"), scope)
    assert scope["state"].is_terminal()  # type: ignore[attr-defined]


def test_play_section_commands_name_real_options() -> None:
    """Every option the README's "Play, save and replay a game" commands use is one its
    command takes (``--help``), and its replay line reads what ``play --save`` writes."""
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    text = README.read_text(encoding="utf-8").split("## Play, save and replay a game", 1)
    assert len(text) == 2, "README.md has no section '## Play, save and replay a game'"
    match = re.search(r"```bash\n(.*?)```", text[1], re.S)
    assert match, "no bash block in '## Play, save and replay a game'"
    commands = [line.split("#")[0] for line in match.group(1).replace("\\\n", " ").splitlines()]
    seen = set()
    for command in filter(str.strip, commands):
        words = command.split()
        assert words[0] == "fort-env", command
        options = [w for w in words if w.startswith("--")]
        shown = CliRunner().invoke(app, [words[1], "--help"], env={"COLUMNS": "200"})
        assert shown.exit_code == 0, shown.output
        for option in options:
            assert option in shown.output, f"{words[1]} has no {option}"
        seen.add(words[1])
    assert seen == {"play", "replay", "tournament"}


@pytest.mark.slow  # trains (the tiny preset stands in for quick: seconds, not 9 minutes)
def test_the_readme_commands_in_order_on_a_fresh_folder(tmp_path: Path) -> None:
    """A new user's path through the README, in a folder with no runs/: train, then every
    later command that names the newest run (``runs/PRESET/latest``), the shipped models by
    bare name, saving and replaying a game. ``quick`` is replaced by ``tiny`` (the same
    command and run layout, a smaller budget)."""
    from tests.test_console_script import fort_env_cli

    text = README.read_text(encoding="utf-8")
    assert "fort-env train --preset quick" in text
    assert "ppo:runs/quick/latest/model.safetensors" in text
    trained = fort_env_cli("train", "--preset", "tiny", "--no-progress", cwd=tmp_path, timeout=600)
    assert trained.returncode == 0, trained.stderr[-2000:]
    latest = tmp_path / "runs" / "tiny" / "latest" / "model.safetensors"
    assert latest.is_file()
    steps = [
        ("tournament", "--agents", "ppo:runs/tiny/latest/model.safetensors,random", "--games",
         "2", "--save", "games", "--save-games", "1"),
        ("tournament", "--agents", "ppo,heuristic", "--games", "2"),
        ("replay", "games/game-0000.json"),
    ]  # fmt: skip
    for args in steps:
        proc = fort_env_cli(*args, cwd=tmp_path, timeout=600)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
    played = fort_env_cli("play", "--seed", "3", "--opponents", "ppo", "--save", "mine.json",
                          stdin="q\n", cwd=tmp_path)  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    assert (tmp_path / "mine.json").is_file()


def test_the_ray_section_says_where_rays_token_goes() -> None:
    """Issue 40: the first RLlib run writes a Ray token under the home folder, unannounced."""
    text = README.read_text(encoding="utf-8").split(
        "## Distributed training and tournaments on Ray", 1
    )
    assert len(text) == 2
    section = " ".join(text[1].split("\n## ", 1)[0].split())
    assert (
        "the first RLlib run writes a token to `~/.ray/auth_token` in your home folder" in section
    )
