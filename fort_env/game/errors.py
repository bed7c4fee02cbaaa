"""Exceptions raised by fort_env. Every one says what was wrong and where."""

from __future__ import annotations

import reprlib
from typing import Any

# The most characters :func:`describe` returns; an int of more digits is shown by its size.
DESCRIBE_MAX_CHARS = 200
_DESCRIBE_MAX_DIGITS = 60


def _digits(n: int) -> str:
    """The number of decimal digits of ``n > 0``, without converting it to text."""
    bits = n.bit_length()
    digits = int((bits - 1) * 0.30102999566398120) + 1  # floor(log10(2**(bits-1))) + 1
    if bits > 1 << 22:  # very large: the estimate (off by at most one) is enough
        return f"about {digits}"
    return str(digits + 1 if n >= 10**digits else digits)


class _ShortRepr(reprlib.Repr):
    """``reprlib`` with ints shown by size past 60 digits (never ``str(int)`` of a huge int,
    which raises ValueError past 4,300 digits) and nesting cut at 4 levels (no recursion)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother = 4, 80, 80
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 20

    def repr_int(self, x: int, level: int) -> str:
        if abs(x).bit_length() > 196:  # 2**196 has 60 digits
            return f"<{'a negative' if x < 0 else 'an'} int of {_digits(abs(x))} digits>"
        return repr(x)


_SHORT_REPR = _ShortRepr()


def describe(value: Any) -> str:
    """A short description of any value for an error message; never raises.

    Bounded in time and length whatever ``value`` is: an int over 60 digits (including one
    past Python's 4,300-digit ``repr`` limit) is "<an int of N digits>" (computed from its bit
    length), containers are cut after 20 items and 4 levels of nesting (``reprlib``), and the
    result after ``DESCRIBE_MAX_CHARS`` (200) characters.
    """
    try:
        text = _SHORT_REPR.repr(value)
    except Exception:  # a broken __repr__ or __len__
        text = f"<a {type(value).__name__}>"
    if len(text) > DESCRIBE_MAX_CHARS:
        text = text[: DESCRIBE_MAX_CHARS - 3] + "..."
    return text


class FortError(Exception):
    """Base class of every fort_env error.

    Subclasses whose ``__init__`` takes other arguments than the message keep them in
    ``_init_args``, so the error pickles and copies (process pools, Ray tasks and actors).
    """

    _init_args: tuple[object, ...] | None = None

    def __reduce__(self) -> tuple[object, ...]:
        args = self.args if self._init_args is None else self._init_args
        return (type(self), args, self.__dict__)


class CardDataError(FortError):
    """A card data file is malformed: names the file, the card and the field.

    Raised at load time (``FortGame(cards=...)``), never during play. The message names the
    card and the field only where there is one (``PATH: card 'Chef', field 'public': ...``,
    ``PATH: field 'copies': ...``, ``PATH: not a directory of card data``); the attributes hold
    ``None`` where not.
    """

    def __init__(self, path: object, card: object, field: object, problem: str) -> None:
        self.path, self.card, self.field, self.problem = path, card, field, problem
        self._init_args = (path, card, field, problem)
        parts = (("card", card), ("field", field))
        where = ", ".join(f"{name} {value!r}" for name, value in parts if value is not None)
        super().__init__(f"{path}: {where}: {problem}" if where else f"{path}: {problem}")


class InputFileError(FortError, ValueError):
    """A text file that fort_env reads (``fort_env.game.inputs.read_text_file``) cannot be used:
    missing, not a regular file (a directory, a FIFO, a device, a socket), a symlink loop,
    unreadable, over its size limit or not UTF-8. Names what the file is for, the path and the
    problem. Callers that own a more specific error (card data, records) re-raise it as theirs.
    """

    def __init__(self, what: str, path: object, problem: str) -> None:
        self.what, self.path, self.problem = what, path, problem
        self._init_args = (what, path, problem)
        super().__init__(f"{what} {path}: {problem}")


class IllegalActionError(FortError, ValueError):
    """An action that the current decision does not allow.

    The state is left exactly as it was before the call.
    """

    def __init__(self, action: int, decision: str, why: str = "not legal") -> None:
        self.action, self.decision = action, decision
        self._init_args = (action, decision, why)
        super().__init__(f"action {describe(action)} is {why} at decision {decision}")


class StateError(FortError, ValueError):
    """A saved state (``FortState.from_dict``) is corrupt: names the field and the problem."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self._init_args = (field, problem)
        super().__init__(f"corrupt state, field {field!r}: {problem}")


class ConfigError(FortError, ValueError):
    """A bad game configuration (player count, setup name, ...)."""


class ModelFileError(FortError, ValueError):
    """A saved policy cannot be used: a missing, corrupt or mismatched file, or a pickled
    model (a Stable-Baselines3 ``.zip``) loaded without the explicit opt-in. Names the file."""

    def __init__(self, path: object, problem: str) -> None:
        self.path = path
        super().__init__(f"{path}: {problem}")


class OutputFileError(FortError, OSError):
    """A file or folder that fort_env would write cannot be written safely: the name is taken
    by something that is not a regular file (a directory, a FIFO, a device, a socket, or a
    symlink to one: ``/dev/null``, ``/proc/self/fd/1``), or a folder inside an output folder is
    a symlink (or not a folder). Names the path and the problem; nothing is written and nothing
    is replaced (``fort_env.game.files``). An ``OSError`` too, as the other failures to write.
    """

    def __init__(self, path: object, problem: str) -> None:
        self.path, self.problem = path, problem
        self._init_args = (path, problem)
        super().__init__(f"{path}: {problem}")
