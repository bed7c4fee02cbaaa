"""How ``fort-env`` commands fail: one line on stderr naming the option, no traceback.

Two kinds of failure, two exit codes (as click's own):

- a bad argument found before any work (a value out of its range, a malformed list): exit 2.
  Ranges that typer can check are declared on the options themselves
  (``typer.Option(min=...)``): typer prints its usage error, ``Invalid value for '--rounds':
  ...``; the other checks call :func:`bad_option`, one line ``error: OPTION: problem``.
- a failure while running (a file that cannot be read or written, an agent spec that does not
  build, a corrupt record): exit 1, through :func:`fail` or the :func:`failures` context,
  one line ``error: OPTION: problem``.

Output whose reader has gone (``fort-env replay game.json | head``) is no failure: the command
ends quietly with :data:`CLOSED_OUTPUT_EXIT` (128 + SIGPIPE, as a shell reports ``cat`` killed
by a closed pipe), no message. :func:`failures` lets ``BrokenPipeError`` through, and the
``fort-env`` app (``fort_env/tools/cli.py``) ends with :func:`output_closed` wherever it is
raised, after pointing standard output at ``os.devnull`` as the Python documentation's "Note on
SIGPIPE" does, so that the flush at exit cannot fail again.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import NoReturn

import typer

from fort_env.game.errors import FortError
from fort_env.game.inputs import terminal_text

# What a command's work raises for bad input: the project's errors, bad values, files that
# cannot be read or written, an extra that is not installed, input nested too deep to parse.
EXPECTED = (FortError, ValueError, OSError, ImportError, RecursionError)
CLOSED_OUTPUT_EXIT = 141  # 128 + SIGPIPE: the output's reader went away (``| head``)


def one_line(problem: object) -> str:
    """``str(problem)`` on one line (an exception's message; its type if it has none), its
    control characters (a name or path from a file, in the message) as escapes
    (``fort_env.game.inputs.terminal_text``)."""
    text = terminal_text(" ".join(str(problem).split()))
    if isinstance(problem, BaseException):
        if not text:
            text = type(problem).__name__
        elif isinstance(problem, (ImportError, RecursionError, OSError)) and not isinstance(
            problem, FortError
        ):
            text = f"{type(problem).__name__}: {text}"
    return text


def fail(problem: object, option: str | None = None, code: int = 1) -> NoReturn:
    """Print ``error: [OPTION: ]problem`` on stderr and exit with ``code``.

    Raises:
        typer.Exit: always.
    """
    where = f"{option}: " if option else ""
    typer.echo(f"error: {where}{one_line(problem)}", err=True)
    raise typer.Exit(code)


def bad_option(option: str, problem: object) -> NoReturn:
    """A usage error naming ``option``: ``error: OPTION: problem`` on one line, exit 2.

    Raises:
        typer.Exit: always.
    """
    fail(problem, option, code=2)


@contextmanager
def failures(option: str | None = None) -> Iterator[None]:
    """Turn the :data:`EXPECTED` errors of the block into :func:`fail` (exit 1), naming
    ``option`` if given."""
    try:
        yield
    except BrokenPipeError:
        raise  # the output's reader went away: no failure (output_closed)
    except EXPECTED as exc:
        fail(exc, option)


def output_closed() -> NoReturn:
    """End a command whose standard output's reader went away (``| head``): no message, exit
    :data:`CLOSED_OUTPUT_EXIT`. Standard output is pointed at ``os.devnull`` first (the Python
    documentation's "Note on SIGPIPE"): what is still buffered goes nowhere instead of raising
    ``BrokenPipeError`` again when Python flushes it at exit.

    Raises:
        SystemExit: always.
    """
    with suppress(OSError, ValueError, AttributeError):  # no stdout, or one without a file
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    raise SystemExit(CLOSED_OUTPUT_EXIT)
