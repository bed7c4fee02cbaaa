"""Bots that fail lose their table instead of ending the run: :class:`GuardedAgent` wraps a bot
(built from its spec, in whichever process plays it) so that whatever goes wrong inside it
becomes one :class:`BotFailure` naming the bot and the problem:

- an exception (``SystemExit`` included) raised while it is built, seeded or choosing;
- an action that is not an integer (``fort_env.game.inputs.as_action``) or not legal at the
  decision (the engine's message would not name the bot);
- a decision that takes longer than ``decision_timeout`` seconds (:func:`call_with_timeout`).

Once failed, the wrapper raises the same :class:`BotFailure` at once on every later call: a bot
interrupted mid-decision may be left in any state, so it is never asked again. ``fort-env
ladder`` (``agents.arena.ladder``) plays every bot so and records a failure as the failing bot's
forfeit of the table; the other tables are played.

How a decision is cut short: in a process's main thread (the ladder's own process and its
worker processes), a ``SIGALRM`` timer raises :class:`DecisionTimeout` (a ``BaseException``, so
a bot's ``except Exception`` does not swallow it; the timer fires again every
:data:`ALARM_REPEAT_S` until the bot gives up) inside the bot's Python code, and Python stops
there. A bot blocked inside C code that never returns to Python cannot be interrupted so.
Elsewhere (another thread, or no ``SIGALRM``: Windows) the decision runs in a daemon thread
that is abandoned, still running, when its time is up (Python cannot stop a thread).
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from fort_env.game.errors import FortError
from fort_env.game.inputs import as_action

__all__ = [
    "ALARM_REPEAT_S", "DEFAULT_DECISION_TIMEOUT_S", "BotFailure", "DecisionTimeout",
    "GuardedAgent", "call_with_timeout", "describe_failure",
]  # fmt: skip

DEFAULT_DECISION_TIMEOUT_S = 60.0
"""The ladder's default limit on one decision of a plugin bot (``--decision-timeout``)."""
ALARM_REPEAT_S = 0.5
"""After its time is up, a bot that catches :class:`DecisionTimeout` is interrupted again this
often until it returns."""

T = TypeVar("T")


class BotFailure(FortError):
    """A bot failed: ``bot`` (its name in the run) and ``problem`` (what went wrong, on one
    line). Picklable, so it crosses from a worker process to the run unchanged."""

    def __init__(self, bot: str, problem: str) -> None:
        self.bot = bot
        self.problem = problem
        super().__init__(f"bot {bot!r} {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.bot, self.problem))


class DecisionTimeout(BaseException):
    """Raised inside a bot's code when its decision's time is up (:func:`call_with_timeout`).
    A ``BaseException``: a bot's ``except Exception`` lets it through."""


def call_with_timeout(fn: Callable[..., T], seconds: float | None, *args: Any) -> T:
    """``fn(*args)``, interrupted after ``seconds`` (``None`` or ``0``: no limit).

    In the main thread with ``SIGALRM``, a timer raises :class:`DecisionTimeout` inside ``fn``
    (again every :data:`ALARM_REPEAT_S` if ``fn`` catches it); a timer set before (another
    tool's) is put back after, less the time spent. Elsewhere ``fn`` runs in a daemon thread,
    left running when its time is up.

    Raises:
        DecisionTimeout: ``fn`` took longer than ``seconds``.
        BaseException: whatever ``fn`` raised.
    """
    if not seconds:
        return fn(*args)
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        return _with_alarm(fn, float(seconds), args)
    return _with_thread(fn, float(seconds), args)


def _with_alarm(fn: Callable[..., T], seconds: float, args: tuple[Any, ...]) -> T:
    armed = [True]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:  # never once the call has returned (the restoring code must run whole)
            raise DecisionTimeout

    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds, ALARM_REPEAT_S)
    start = time.monotonic()
    try:
        try:
            return fn(*args)
        finally:
            armed[0] = False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay > 0:  # someone else's timer: it goes on, less the time spent here
            left = max(old_delay - (time.monotonic() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, old_interval)


def _with_thread(fn: Callable[..., T], seconds: float, args: tuple[Any, ...]) -> T:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, name="fort-bot-decision", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise DecisionTimeout
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def describe_failure(exc: BaseException) -> str:
    """An exception on one line, with where in the bot's code it was raised: ``raised
    RuntimeError: MESSAGE (at FILE:LINE in FUNCTION)``, ``called sys.exit(3)``."""
    if isinstance(exc, SystemExit):
        text = f"called sys.exit({exc.code!r})"
    else:
        message = " ".join(str(exc).split())
        text = (
            f"raised {type(exc).__name__}: {message}" if message else f"raised {type(exc).__name__}"
        )
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        text += f" (at {last.filename}:{last.lineno} in {last.name})"
    return text


def _legal_text(legal: list[int]) -> str:
    shown = ", ".join(str(a) for a in legal[:8])
    return f"[{shown}{', ...' if len(legal) > 8 else ''}] ({len(legal)} legal)"


class GuardedAgent:
    """The bot ``spec`` (built with ``agents.make`` on first use), playing as ``name``, whose
    failures are :class:`BotFailure` (module docstring); ``decision_timeout`` seconds at most
    per call (``None``: no limit). Pickled, it carries its spec and limit only: each process
    builds its own bot."""

    def __init__(self, name: str, spec: str, decision_timeout: float | None = None) -> None:
        if decision_timeout is not None and not decision_timeout >= 0:
            raise ValueError(f"decision_timeout must be >= 0 seconds, got {decision_timeout}")
        self.name = name
        self.spec = spec
        self.decision_timeout = decision_timeout or None
        self._agent: Any = None
        self._failure: BotFailure | None = None
        self._decisions = 0  # since the last seed(): one game's

    def __getstate__(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "decision_timeout": self.decision_timeout}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["name"], state["spec"], state["decision_timeout"])  # type: ignore[misc]

    @property
    def failure(self) -> BotFailure | None:
        """The failure that ended this bot, if any."""
        return self._failure

    def _fail(self, problem: str) -> BotFailure:
        self._failure = BotFailure(self.name, problem)
        return self._failure

    def _guarded(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        if self._failure is not None:
            raise self._failure
        try:
            return call_with_timeout(fn, self.decision_timeout, *args)
        except DecisionTimeout:
            limit = f"{self.decision_timeout:g}"
            raise self._fail(f"took more than {limit} s {what} (the decision time limit)") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise self._fail(f"{describe_failure(exc)} {what}") from None

    def _built(self) -> Any:
        if self._agent is None:
            from agents import make

            self._agent = self._guarded("while being built", make, self.spec)
        return self._agent

    def seed(self, seed: int | None) -> None:
        """Seed the bot for the next game (built first if need be)."""
        agent = self._built()
        self._decisions = 0
        seed_agent = getattr(agent, "seed", None)
        if callable(seed_agent):
            self._guarded("while being seeded", seed_agent, seed)

    def act(self, observation: Any, info: Mapping[str, Any]) -> int:
        """The bot's action, checked: an integer among ``info["legal_actions"]``.

        Raises:
            BotFailure: the bot raised, took too long, or chose no legal action.
        """
        agent = self._built()
        self._decisions += 1
        where = f"at its decision {self._decisions} of the game"
        raw = self._guarded(where, agent.act, observation, info)
        try:
            action = as_action(raw)
        except TypeError:
            raise self._fail(f"returned {raw!r:.60} ({type(raw).__name__}), not an action, "
                             f"{where}") from None  # fmt: skip
        legal = [int(a) for a in info["legal_actions"]]
        if action not in legal:
            raise self._fail(f"chose action {action}, which is not legal {where}; legal: "
                             f"{_legal_text(legal)}")  # fmt: skip
        return action
