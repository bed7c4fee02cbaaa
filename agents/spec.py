"""The grammar of an agent spec, ``NAME[:ARG]...``, and the typed reading of its arguments.

One parser for every place that reads a spec: :func:`agents.make`, the factories of ``ppo`` and
``rllib``, ``agents.with_trust`` / ``asks_trust`` (trust is read exactly as ``make`` reads it),
and the tables' short names (``agents.arena.tournament.short_name``).

Grammar::

    spec  = NAME [":" arg]...
    arg   = KEY "=" value | value          (a bare value: the path of ppo:PATH, rllib:PATH;
                                            only first, and only for agents that take one)
    KEY   = [A-Za-z_][A-Za-z0-9_]*
    value = '"' ... '"' | "'" ... "'" | text up to the next unescaped ":"

- Space around a key or an unquoted value is dropped (``ms = 50`` is ``ms=50``).
- A value that holds ``:`` is quoted, ``model="C:/m.safetensors"`` or ``model='a:b'``, or has
  its ``:`` escaped, ``model=C\\:/m.safetensors``. Inside quotes a backslash escapes the
  quote that opened them and a backslash (``"a\\"b"`` is ``a"b``); in an unquoted value it
  escapes ``:`` and a backslash. Any other backslash is itself (``models\\x.safetensors``).
- A bare value with ``=`` in it is read as a key only if the text before the ``=`` is a key:
  ``ppo:runs/lr=3e-4/model.safetensors`` is a path.

Typed arguments: each agent declares its parameters once. For a class that is its
constructor's signature (:func:`params_of`: the annotation gives the type, the default the
default); ``ppo`` and ``rllib`` declare theirs as :class:`Param` tables. A value is converted
by its declared type, never guessed: ``int`` takes an integer literal, ``float`` a number
(``inf``/``nan`` included: the agent checks the range), ``bool`` ``0``/``1``/``true``/``false``,
``str`` (and ``Path``) the text as is; ``seed`` an int in ``[0, 2**62)``. A parameter of
another type (a ``FortGame``) cannot come from a spec.

Errors: :class:`SpecError` (a ``ConfigError``, so a ``ValueError``), one line naming the agent,
the argument and its value: ``agent 'ismcts': argument ms='fast' is not a number``.
:func:`format_spec` writes a spec back so that :func:`parse` reads the same parts
(``tests/test_spec.py`` checks the round trip on generated specs).
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fort_env.game.errors import ConfigError, describe
from fort_env.game.inputs import SEED_RANGE, is_seed

__all__ = [
    "AgentSpec",
    "Param",
    "SpecError",
    "build",
    "convert",
    "format_spec",
    "params_of",
    "parse",
]  # fmt: skip

KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")
SEED_KEY = "seed"
_QUOTES = "\"'"


class SpecError(ConfigError):
    """An agent spec that does not parse, or an argument its agent does not take or cannot
    read (the message names the agent, the argument and the value)."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: the agent's ``name``, its bare ``path`` argument (``None`` without one)
    and its ``key=value`` arguments in the order given (values as text, unquoted)."""

    name: str
    path: str | None = None
    args: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return format_spec(self.name, self.path, self.args)


def _read_value(text: str, i: int, spec: str) -> tuple[str, int]:
    """The value starting at ``text[i]`` and the index just past it (at a ``:`` or the end)."""
    n = len(text)
    j = i
    while j < n and text[j].isspace():
        j += 1
    if j < n and text[j] in _QUOTES:
        quote, out, j = text[j], [], j + 1
        while j < n and text[j] != quote:
            if text[j] == "\\" and j + 1 < n and text[j + 1] in (quote, "\\"):
                j += 1
            out.append(text[j])
            j += 1
        if j >= n:
            raise SpecError(f"agent spec {spec!r}: a quote ({quote}) is not closed")
        j += 1
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] != ":":
            raise SpecError(
                f"agent spec {spec!r}: {text[j:]!r} follows a closing quote (a ':' must)"
            )
        return "".join(out), j
    out = []
    while j < n and text[j] != ":":
        if text[j] == "\\" and j + 1 < n and text[j + 1] in ":\\":
            j += 1
        out.append(text[j])
        j += 1
    return "".join(out).strip(), j  # an escaped character is never space: strip is safe


def parse(spec: str) -> AgentSpec:
    """Read ``spec`` (module docstring): ``"puct:ms=50:model='C:/m.safetensors'"`` ->
    ``AgentSpec("puct", None, {"ms": "50", "model": "C:/m.safetensors"})``.

    Raises:
        SpecError: no name, an empty argument, a quote not closed, a bare value after the
            first argument or a second one, an argument given twice.
    """
    text = spec.strip()
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"agent spec {spec!r} has no agent name")
    path: str | None = None
    args: dict[str, str] = {}
    i, first = 0, True
    if not rest.strip():
        sep = ""  # ``NAME:`` is ``NAME``
    while sep:
        m = KEY.match(rest, i)
        if m is None and rest[i:].lstrip()[:1] in ("", ":"):
            raise SpecError(f"agent spec {spec!r}: an empty argument (two ':' or a ':' at the end)")
        value, j = _read_value(rest, m.end() if m else i, spec)
        if m is None:
            if not first:
                raise SpecError(
                    f"agent {name!r}: argument {value!r} is not key=value (quote a value that "
                    "holds ':', e.g. model=\"C:/m.safetensors\")"
                )
            path = value
        elif m.group(1) in args:
            raise SpecError(f"agent {name!r}: argument {m.group(1)} is given twice")
        else:
            args[m.group(1)] = value
        first = False
        sep = rest[j : j + 1]
        i = j + 1
    return AgentSpec(name, path, args)


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_spec(name: str, path: str | None = None, args: Mapping[str, Any] | None = None) -> str:
    """The spec text that :func:`parse` reads as ``AgentSpec(name, path, args)`` (values
    written with ``str``; quoted where they must be).

    Raises:
        SpecError: ``name`` is empty or holds ``:``, or a key is not a key (``[A-Za-z_]\\w*``).
    """
    if not name.strip() or ":" in name or name != name.strip():
        raise SpecError(
            f"an agent name cannot be empty, hold ':' or start or end with space: {name!r}"
        )
    parts = [name]
    if path is not None:
        p = str(path)
        plain = p and p == p.strip() and not any(c in p for c in ":\\\"'=")
        parts.append(p if plain else _quoted(p))
    for key, raw in (args or {}).items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise SpecError(f"agent {name!r}: {key!r} is not an argument name")
        v = str(raw)
        plain = v == v.strip() and not any(c in v for c in ":\\\"'")
        parts.append(f"{key}={v if plain else _quoted(v)}")
    return ":".join(parts)


# ------------------------------------------------------------------ typed arguments
def _to_int(raw: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", raw.strip()):
        raise ValueError
    return int(raw)


def _to_bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word not in ("0", "1", "true", "false"):
        raise ValueError
    return word in ("1", "true")


def _to_str(raw: str) -> str:
    return raw


_KINDS: dict[Any, tuple[Callable[[str], Any], str]] = {
    int: (_to_int, "an integer"),
    float: (float, "a number"),
    bool: (_to_bool, "0 or 1 (or true/false)"),
    str: (_to_str, "text"),
    Path: (_to_str, "a path"),
}


@dataclass(frozen=True)
class Param:
    """One parameter an agent takes from a spec: its ``name``, its ``type`` (``int``,
    ``float``, ``bool``, ``str`` or ``Path``) and its ``default`` (documentation: the agent
    applies it when the argument is absent)."""

    name: str
    type: Any
    default: Any = None

    def convert(self, agent: str, raw: str) -> Any:
        """``raw`` as this parameter's type.

        Raises:
            SpecError: ``raw`` is not of the type (names ``agent``, the argument, the value);
                a ``seed`` that is not an int in ``[0, 2**62)``.
        """
        if self.name == SEED_KEY:
            value = _to_int(raw) if re.fullmatch(r"\s*[+-]?\d+\s*", raw) else None
            if not is_seed(value):
                raise SpecError(
                    f"agent {agent!r}: argument {SEED_KEY}={describe(raw)} is not a seed: it "
                    f"must be {SEED_RANGE}"
                )
            return value
        to, what = _KINDS[self.type]
        try:
            return to(raw)
        except ValueError:
            raise SpecError(
                f"agent {agent!r}: argument {self.name}={raw!r} is not {what}"
            ) from None


_BY_NAME = {"bool": bool, "str": str, "Path": Path, "pathlib.Path": Path, "float": float,
            "int": int}  # fmt: skip


def _spec_type(annotation: Any) -> Any:
    """The :data:`_KINDS` type a parameter's annotation names (``int | None`` -> ``int``;
    ``str | Path | None`` -> ``str``; text first, then float, then int when it names several),
    or ``None`` if it cannot come from a spec. A string annotation (one that did not
    evaluate) is read by its names."""
    if isinstance(annotation, str):
        options = [_BY_NAME.get(word.strip()) for word in annotation.split("|")]
    else:
        options = list(typing.get_args(annotation)) or [annotation]
    for kind in (bool, str, Path, float, int):
        if kind in options:
            return kind
    return None


def params_of(cls: Callable[..., Any]) -> dict[str, Param]:
    """The parameters ``cls``'s constructor takes from a spec: its keyword parameters whose
    annotation is a spec type (:class:`Param`; none: text), with their defaults."""
    target = getattr(cls, "__init__") if isinstance(cls, type) else cls  # noqa: B009
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # a name imported only for type checking: read the annotations' text
        hints = {}
    out = {}
    for p in inspect.signature(cls).parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        annotation = hints.get(p.name, p.annotation)
        kind = _spec_type(str if annotation is inspect.Parameter.empty else annotation)
        if kind is not None:
            default = None if p.default is inspect.Parameter.empty else p.default
            out[p.name] = Param(p.name, kind, default)
    return out


def convert(agent: str, args: Mapping[str, str], params: Mapping[str, Param]) -> dict[str, Any]:
    """``args`` (a spec's raw values) converted by ``agent``'s declared ``params``.

    Raises:
        SpecError: an argument ``agent`` does not take (the message lists the ones it takes),
            or a value not of its type.
    """
    out = {}
    for key, raw in args.items():
        param = params.get(key)
        if param is None:
            takes = ", ".join(params) if params else "no arguments"
            raise SpecError(f"agent {agent!r} takes {takes}, not {key!r} (in {key}={raw!r})")
        out[key] = param.convert(agent, raw)
    return out


def build(agent: str, cls: Callable[..., Any], args: str | None) -> Any:
    """``cls(**arguments)``: the ``key=value`` text ``args`` (what follows ``NAME:``) read by
    ``cls``'s constructor's declared parameters (:func:`params_of`).

    Raises:
        SpecError: a bare value (``cls`` takes no path), or as :func:`parse` and
            :func:`convert`.
    """
    spec = parse(f"{agent}:{args}" if args else agent)
    if spec.path is not None:
        raise SpecError(f"agent {agent!r}: argument {spec.path!r} is not key=value")
    return cls(**convert(agent, spec.args, params_of(cls)))
