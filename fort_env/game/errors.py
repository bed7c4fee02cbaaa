"""Exceptions raised by fort_env. Every one says what was wrong and where."""

from __future__ import annotations


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

    Raised at load time (``FortGame(cards=...)``), never during play.
    """

    def __init__(self, path: object, card: object, field: object, problem: str) -> None:
        self.path, self.card, self.field, self.problem = path, card, field, problem
        self._init_args = (path, card, field, problem)
        super().__init__(f"{path}: card {card!r}, field {field!r}: {problem}")


class IllegalActionError(FortError, ValueError):
    """An action that the current decision does not allow.

    The state is left exactly as it was before the call.
    """

    def __init__(self, action: int, decision: str, why: str = "not legal") -> None:
        self.action, self.decision = action, decision
        self._init_args = (action, decision, why)
        super().__init__(f"action {action} is {why} at decision {decision}")


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
