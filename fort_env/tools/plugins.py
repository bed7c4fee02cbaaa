"""Extensions found by entry points, so that ``fort_env`` never imports the packages above it.

``agents`` and ``train`` add their commands to ``fort-env`` (group ``fort_env.commands``) and
the PPO figure to ``fort-env bench`` (group ``fort_env.bench``) by declaring entry points in
``pyproject.toml``; a missing optional dependency makes the plugin absent, not the CLI broken.
A plugin that fails to import for another reason (any other exception, or ``sys.exit()`` in
it: ``SystemExit``) is skipped too, with one :class:`PluginLoadWarning` naming it, so that the
other commands, ``--help`` included, still work.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points
from typing import Any


class PluginLoadWarning(UserWarning):
    """A ``fort-env`` plugin failed to import (not for a missing extra) and was skipped."""


_MISSING = object()


def _failure_text(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _warn(name: str, group: str, where: str, exc: BaseException) -> None:
    warnings.warn(
        f"plugin {name!r} of {group} ({where}) failed and is skipped: {_failure_text(exc)}",
        PluginLoadWarning,
        stacklevel=4,
    )


def _load(ep: EntryPoint) -> Any:
    """``ep.load()``, or ``_MISSING`` if it cannot be imported (warned unless ImportError)."""
    try:
        return ep.load()
    except ImportError:  # its extra is not installed: the plugin is simply absent
        return _MISSING
    except (Exception, SystemExit) as exc:  # the plugin's own bug: say so, keep the CLI
        _warn(ep.name, ep.group, ep.value, exc)
        return _MISSING


@contextmanager
def plugin_failures(name: str, group: str) -> Iterator[None]:
    """Run a loaded plugin's hook (a command plugin's ``register(app)``): an exception or
    ``SystemExit`` in it becomes one :class:`PluginLoadWarning` naming it, not the caller's
    failure."""
    try:
        yield
    except (Exception, SystemExit) as exc:
        _warn(name, group, "while registering", exc)


def plugins(group: str) -> dict[str, Any]:
    """Every loadable plugin of ``group``, by entry-point name (those that fail to import are
    skipped: module docstring)."""
    out: dict[str, Any] = {}
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        loaded = _load(ep)
        if loaded is not _MISSING:
            out[ep.name] = loaded
    return out


def plugin(group: str, name: str) -> Any | None:
    """The plugin ``name`` of ``group``, or None if it is absent or cannot be imported."""
    for ep in entry_points(group=group, name=name):
        loaded = _load(ep)
        return None if loaded is _MISSING else loaded
    return None
