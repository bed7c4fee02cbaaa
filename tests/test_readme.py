"""The README's engine example runs as written and ends the game."""

from __future__ import annotations

import re
from pathlib import Path

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
