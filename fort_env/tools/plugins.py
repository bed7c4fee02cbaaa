"""Extensions found by entry points, so that ``fort_env`` never imports the packages above it.

``agents`` and ``train`` add their commands to ``fort-env`` (group ``fort_env.commands``) and
the PPO figure to ``fort-env bench`` (group ``fort_env.bench``) by declaring entry points in
``pyproject.toml``; a missing optional dependency makes the plugin absent, not the CLI broken.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any


def plugins(group: str) -> dict[str, Any]:
    """Every loadable plugin of ``group``, by entry-point name (those that fail to import are
    skipped: their extra is not installed)."""
    out: dict[str, Any] = {}
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            out[ep.name] = ep.load()
        except ImportError:
            continue
    return out


def plugin(group: str, name: str) -> Any | None:
    """The plugin ``name`` of ``group``, or None if it is absent or cannot be imported."""
    for ep in entry_points(group=group, name=name):
        try:
            return ep.load()
        except ImportError:
            return None
    return None
