"""Agent specs as opponents: ``opponents="ppo"`` wherever an env takes an agent object.

The envs (``SingleAgentEnv``, so ``gymnasium.make("fort_env/Fort-v0")`` and ``make_vec``'s
``sync``/``async`` modes; ``FortBatchVecEnv``, so ``make_vec``'s ``vector_entry_point`` mode)
take an opponent as an object (``agents.make("ppo")``, a frozen policy, a function) or as a
spec string (``"ppo"``, ``"ismcts:ms=50"``, ``"ppo:runs/quick/latest/model.safetensors"``).
A string that names a policy the env plays itself stays a name (``"random"`` everywhere; in the
C++ batch also the heuristics of ``fort_env.native.policies.POLICIES``, played inside C++);
any other string is built by the agent registry, once per distinct spec and env (an env keeps
the agent it built for a spec, as it keeps one agent object given for every rival seat).

``fort_env`` does not import the bot zoo (``agents`` sits above it: the layer contracts of
``pyproject.toml``), so the registry reaches the envs through :func:`register_spec_resolver`,
which ``agents`` calls with ``agents.make`` as it is imported. When no resolver is registered
yet, the first spec to build loads the entry points of the group :data:`ENTRY_POINT_GROUP`
(``fort-env`` declares its ``agents`` package there), which imports ``agents`` and so
registers it; a user's own registry can register itself the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from fort_env.game.errors import ConfigError

__all__ = [
    "ENTRY_POINT_GROUP",
    "SpecResolver",
    "register_spec_resolver",
    "resolve_opponent",
    "resolve_opponents",
    "spec_resolver",
]

ENTRY_POINT_GROUP = "fort_env.agent_specs"
"""Entry points whose loading registers a resolver (``fort-env``: ``agents = "agents"``)."""

SpecResolver = Callable[[str], Any]
"""Builds the agent a spec string names (``agents.make``); raises ``ValueError`` for a spec
it does not know or cannot parse."""

_resolver: SpecResolver | None = None


def register_spec_resolver(resolver: SpecResolver | None) -> None:
    """Build the envs' spec strings with ``resolver`` from now on (``None``: none again).
    ``agents`` registers ``agents.make`` as it is imported."""
    global _resolver
    _resolver = resolver


def spec_resolver() -> SpecResolver | None:
    """The registered resolver; if there is none, the one loading :data:`ENTRY_POINT_GROUP`'s
    entry points registers (``None`` if none does: the ``agents`` package is not installed,
    or fails to import)."""
    if _resolver is None:
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                ep.load()  # the package registers its resolver as it is imported
            except Exception:  # a broken or absent plugin: the message below says what to do
                continue
            if _resolver is not None:
                break
    return _resolver


def resolve_opponent(opponent: Any, builtins: Collection[str] = ("random",)) -> Any:
    """``opponent`` as an env plays it: an object, ``None`` or a string of ``builtins``
    unchanged; any other string built by the registry (:func:`spec_resolver`).

    Other errors of the agent's construction pass through as they are (an ``ImportError``
    for ``"ppo"`` without torch, a ``ModelFileError`` for a bad model file).

    Raises:
        ConfigError: a string and no registry to build it (the message says what to pass
            instead), or a spec the registry refuses (its reason, e.g. an unknown agent).
    """
    if not isinstance(opponent, str) or opponent in builtins:
        return opponent
    resolver = spec_resolver()
    if resolver is None:
        raise ConfigError(
            f"opponent {opponent!r} is not one of the policies this env plays itself "
            f"{tuple(builtins)}, and no agent registry is loaded to build it: import agents "
            f"(the fort-env package's bot zoo) first, or pass an agent object, "
            f"opponents=agents.make({opponent!r})"
        )
    try:
        return resolver(opponent)
    except ValueError as exc:  # ConfigError, agents.spec.SpecError: the spec itself
        raise ConfigError(f"opponent {opponent!r}: {exc}") from None


def resolve_opponents(
    opponents: Sequence[Any],
    builtins: Collection[str] = ("random",),
    built: dict[str, Any] | None = None,
) -> list[Any]:
    """:func:`resolve_opponent` of each of ``opponents`` (one per rival seat), each spec built
    once: looked up in, and added to, ``built`` (an env's own cache of the agents it built,
    by spec; a fresh one if not given), so the same spec twice is one shared agent, as one
    agent object given for every rival seat is."""
    cache: dict[str, Any] = {} if built is None else built
    out = []
    for opponent in opponents:
        if isinstance(opponent, str) and opponent not in builtins:
            if opponent not in cache:
                cache[opponent] = resolve_opponent(opponent, builtins)
            out.append(cache[opponent])
        else:
            out.append(opponent)
    return out
