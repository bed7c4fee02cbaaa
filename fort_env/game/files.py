"""Writing files into folders the user chose, safely: a fresh file renamed into place.

Every file the project writes into a user-chosen folder (``train``'s and ``expert``'s run
folders, ``tournament --save``, ``ladder --out``, ``play --save``, ``replay --html``, policy
files) goes through :func:`write_bytes` or :func:`write_text`: the bytes are written to a new
file with a temporary name in the same folder (created exclusively, so a symlink planted there
is never followed) and then renamed over the final name (``os.replace``), which replaces a
symlink at that name rather than writing through it. A reader never sees a half-written file,
and a planted link (for instance under a predictable path in /tmp) cannot redirect a write to
another file (issue 42, "Files written safely").

Files get the mode ``0o666`` less the umask (0644 under the usual 022), as ``open`` gives.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_bytes", "write_text"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a fresh temporary file in its folder, renamed over
    ``path`` (module docstring). Returns ``path`` as a ``Path``.

    Raises:
        OSError: the folder does not exist or cannot be written (nothing is left behind).
        IsADirectoryError: ``path`` is a directory.
    """
    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        raise IsADirectoryError(f"{target} is a directory")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_bytes` of ``text`` encoded (UTF-8 by default)."""
    return write_bytes(path, text.encode(encoding))
