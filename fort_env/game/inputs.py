"""The checks of values a user hands the engine: actions and seeds, one check each.

Actions: ``int(x)`` would turn ``311.7``, ``"311"``, ``np.float32(311)`` or ``True`` into an
action; :func:`as_action` refuses them, so a caller's bug (a float policy output, a string from
a file) fails loudly instead of playing some action.

Seeds: one range, ``[0, SEED_LIMIT)`` (``fort_env.game.constants``), checked by :func:`is_seed` at
the deal, ``reset``, a record and a saved state alike.

Files: :func:`read_text_file` is the one way fort_env reads a text file it is handed (card data,
records): a regular file only, never blocking, at most ``max_bytes``, strict UTF-8.

Messages: :func:`describe` formats any input for an error message in bounded time and length
(an int of 5,000 digits is "an int of 5000 digits", not ``repr``'s ValueError).

Text for a terminal: :func:`terminal_text` is what every command prints text from a file
through (seat names of a record, card names, paths): a control character (``CONTROL_CHARACTERS``)
is shown as its escape (``\\x1b``), never sent to the terminal, which would act on it; records and
card data refuse names holding one (:func:`control_characters` finds them).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

import numpy as np

from fort_env.game.constants import SEED_LIMIT
from fort_env.game.errors import ConfigError, InputFileError, describe

# the words of every seed error: "an int in [0, 2**62)"
__all__ = [
    "CONTROL_CHARACTERS",
    "MAX_SEED",
    "SEED_RANGE",
    "as_action",
    "check_seed",
    "control_characters",
    "describe",
    "is_seed",
    "read_text_file",
    "terminal_text",
]

SEED_RANGE = f"an int in [0, 2**{SEED_LIMIT.bit_length() - 1})"

MAX_SEED = SEED_LIMIT - 1
"""The largest seed, and the upper bound of every ``fort-env`` command's ``--seed``.

One range for every command, and it is the engine's, ``[0, 2**62)``, not ``0..2**63-1``: a
command's seed deals games (directly, or as the base its runs derive their deals from), and
the engine refuses a deal seed of ``2**62`` or more (:func:`check_seed`; both engines keep a
seed in an int64 state field and bound the counters derived from it by the same limit). A
command that derives several seeds from one (``seed + i``, numpy's 32-bit legacy seed) folds
them back into the range, so every value up to ``MAX_SEED`` runs."""


# The default size limit of :func:`read_text_file`: 16 MiB, far above any card set or record
# fort_env writes (the shipped cards are ~10 KB; a 2,000-action record ~10 KB).
MAX_TEXT_FILE_BYTES = 16 * 2**20


def _shown_path(path: Any) -> str:
    """The path for a message: whole (quoted) up to 1,000 characters."""
    try:
        text = os.fsdecode(path)
    except Exception:
        return describe(path)
    if len(text) > 1000:
        return f"{text[:1000]!r}... ({len(text)} characters)"
    return repr(text)


def read_text_file(
    path: str | os.PathLike[str], what: str, max_bytes: int = MAX_TEXT_FILE_BYTES
) -> str:
    """The text of the regular file at ``path``, read at most ``max_bytes``, decoded strict UTF-8.

    Never blocks: the path is checked with ``os.stat`` to be a regular file before it is opened,
    it is opened with ``O_NONBLOCK`` (so a FIFO swapped in between does not block the open) and
    the open file is checked again with ``os.fstat`` before a byte is read. At most
    ``max_bytes + 1`` bytes are read, whatever the file's size.

    Args:
        path: the file (symlinks are followed; a loop is refused).
        what: what the file is for, for the message ("card data file", "record").
        max_bytes: the size limit (default ``MAX_TEXT_FILE_BYTES``, 16 MiB).

    Raises:
        InputFileError: the file is missing, a directory, not a regular file (a FIFO, device
            or socket), a symlink loop, unreadable, over ``max_bytes`` or not UTF-8; the message
            names ``what``, the path and the problem. Card data re-raises it as
            ``CardDataError`` and records as ``RecordError``.
        TypeError: ``path`` is not a str or ``os.PathLike``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what}: a path must be a str or os.PathLike, got {type(path).__name__}")
    shown = _shown_path(path)

    def fail(problem: str) -> InputFileError:
        return InputFileError(what, shown, problem)

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise fail("file not found") from None
    except (OSError, ValueError) as exc:  # ELOOP, EACCES, ENAMETOOLONG; ValueError: a NUL byte
        raise fail(f"cannot be read: {_os_problem(exc)}") from None
    if not stat.S_ISREG(mode):
        raise fail(_not_regular(mode))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        raise fail(f"cannot be read: {_os_problem(exc)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped for another kind of file after the stat
            raise fail(_not_regular(mode))
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise fail(f"cannot be read: {_os_problem(exc)}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise fail(f"larger than the limit of {max_bytes} bytes")
    data = b"".join(chunks)
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise fail(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def _os_problem(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe), not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def is_seed(value: Any) -> bool:
    """True if ``value`` is a seed: an int or numpy integer (not a bool, not a
    ``np.timedelta64``) in
    ``[0, SEED_LIMIT)``."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.timedelta64))
        and 0 <= int(value) < SEED_LIMIT
    )


def check_seed(value: Any) -> int:
    """``value`` as a Python int if :func:`is_seed`.

    Raises:
        ConfigError: not a seed ("seed must be an int in [0, 2**62), got ...").
    """
    if not is_seed(value):
        raise ConfigError(f"seed must be {SEED_RANGE}, got {describe(value)}")
    return int(value)


def as_action(action: Any) -> int:
    """``action`` as a Python int, if it is an integer.

    Accepted: a Python ``int`` (not ``bool``), a numpy integer scalar (``np.int64(3)``, what
    ``Discrete.sample`` returns) and a 0-d numpy integer array (what Stable-Baselines3's
    ``predict`` returns for a single observation). The value is not range-checked here (the
    engine names an out-of-range action with ``IllegalActionError``).

    Raises:
        TypeError: anything else (floats, strings, bools, numpy bools, ``np.timedelta64``
            (numpy calls it an integer; it is a duration), arrays of another shape or dtype,
            ``None``), naming the type.
    """
    if type(action) is int:  # the common case, first
        return action
    if isinstance(action, int) and not isinstance(action, bool):
        return int(action)
    if isinstance(action, np.integer) and not isinstance(action, np.timedelta64):
        return int(action)
    if (
        isinstance(action, np.ndarray)
        and action.ndim == 0
        and np.issubdtype(action.dtype, np.integer)
        and not np.issubdtype(action.dtype, np.timedelta64)
    ):
        return int(action)
    what = type(action).__name__
    if isinstance(action, np.ndarray):
        what = f"ndarray of dtype {action.dtype} and shape {action.shape}"
    raise TypeError(
        f"an action must be an int or a numpy integer (or a 0-d integer array), got {what}: "
        f"{describe(action)}"
    )


# ---------------------------------------------------------------------- text for a terminal
CONTROL_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""The characters a terminal acts on rather than shows: the C0 controls (ESC starts the
sequences that retitle a window, write the clipboard, plant links or clear the screen; BEL,
NUL, CR, newlines), DEL and the C1 controls, the Unicode line and paragraph separators, and
the bidirectional marks, embeddings, overrides and isolates (which reorder the text around
them)."""


_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    code = ord(char)
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: object, keep_newlines: bool = False) -> str:
    """``str(text)`` with every control character (:data:`CONTROL_CHARACTERS`) written as its
    escape, as Python writes it: ``\\x1b`` for ESC, ``\\x00`` for NUL, ``\\n`` for a newline,
    ``\\u202e`` for a right-to-left override; the rest unchanged (a backslash too: this is for
    reading, not parsing back).

    Args:
        text: what to print (any object: its ``str``).
        keep_newlines: leave ``\\n`` as it is, for text whose lines the program itself
            joined (a table of several lines); every other control is still escaped.
    """
    out = str(text)
    if keep_newlines:
        return "\n".join(CONTROL_CHARACTERS.sub(_escape, line) for line in out.split("\n"))
    return CONTROL_CHARACTERS.sub(_escape, out)


def control_characters(text: str) -> str:
    """The control characters of ``text`` (:data:`CONTROL_CHARACTERS`) as escapes, e.g.
    ``"\\x1b, \\x07"`` (each once, in order of appearance); ``""`` when it has none."""
    seen = dict.fromkeys(found.group() for found in CONTROL_CHARACTERS.finditer(text))
    return ", ".join(terminal_text(c) for c in seen)
