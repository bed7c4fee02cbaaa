"""The README: its engine example runs as written and ends the game, its commands name real
options, it stays short, and every Python block in it is run by a test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
INTEGRATIONS = ROOT / "docs" / "integrations.md"


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
    """The first RLlib run writes a Ray token under the home folder: the route's page says so."""
    text = INTEGRATIONS.read_text(encoding="utf-8").split("## Ray RLlib", 1)
    assert len(text) == 2, "docs/integrations.md has no section '## Ray RLlib'"
    section = " ".join(text[1].split("\n## ", 1)[0].split())
    assert (
        "the first RLlib run writes a token to `~/.ray/auth_token` in your home folder" in section
    )


def test_the_readme_is_short_and_starts_with_the_main_job() -> None:
    """At most 220 lines; its first command after the venv trains the quick preset, and the
    tests command is the one CI runs (.ci/run)."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 220, f"README.md has {len(text.splitlines())} lines"
    commands = re.findall(r"```bash\n(.*?)```", text, re.S)
    assert commands[0].strip() == "python3.11 -m venv .venv && . .venv/bin/activate"
    assert commands[1].strip().endswith("&& fort-env train --preset quick")
    assert commands[2].strip() == 'pip install -c constraints.txt -e ".[dev]" && pytest -n 2 -q'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -c constraints.txt -e ".[dev]"' in ci and "pytest -n 2 -q" in ci


def test_every_python_block_of_the_readme_is_run() -> None:
    """The README's Python blocks are the two the tests exec: the PettingZoo loop
    (tests/test_env.py) and the engine example (above). A new one needs a test."""
    sections = re.split(r"^## ", README.read_text(encoding="utf-8"), flags=re.M)
    with_code = [s.splitlines()[0] for s in sections[1:] if "```python" in s]
    assert with_code == ["The PettingZoo environment", "Using the engine"]
    for section in sections[1:]:
        assert section.count("```python") <= 1, section.splitlines()[0]


def test_every_readme_route_links_its_section_of_the_integrations_page() -> None:
    """The routes table names Gymnasium, SB3, RLlib, OpenSpiel, TorchRL and Tianshou, each
    linking a heading that docs/integrations.md has (GitHub's and MkDocs' anchors)."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(docs/integrations\.md#([a-z0-9-]+)\)", text)
    page = INTEGRATIONS.read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,3} (.+)$", page, re.M)
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).strip().replace(" ", "-") for h in headings}
    assert set(links) <= anchors, set(links) - anchors
    for route in ("Gymnasium", "Stable-Baselines3", "RLlib", "OpenSpiel", "TorchRL", "Tianshou"):
        assert re.search(rf"^\| \[{route}\]\(docs/integrations\.md#", text, re.M), route
