"""Writing files into folders the user chose, safely: a fresh file renamed into place, and only
over a regular file.

Every file the project writes into a user-chosen folder (``train``'s and ``expert``'s run
folders, ``value-fit``'s network, ``tournament --save``, ``ladder --out``, ``play --save``,
``replay --html``, the plots of ``analyze`` and ``balance``, policy files) goes through
:func:`write_bytes`, :func:`write_text` or :func:`write_files`:

- **Only a regular file is replaced.** The name must be free, a regular file, or a symlink to a
  regular file (the link is replaced, its target untouched). A directory, a FIFO, a device, a
  socket, or a symlink to one of those (``/dev/null``, ``/proc/self/fd/1``, a link loop) is
  refused with :class:`~fort_env.game.errors.OutputFileError` naming the path, before a byte is
  written: renaming a file over ``/dev/null`` as root would replace the system's ``/dev/null``.
- **A fresh file, renamed into place.** The bytes go to a new file with a temporary name in the
  same folder (created exclusively, so a symlink planted there is never followed), which is then
  renamed over the final name (``os.replace``): a reader never sees a half-written file, and a
  planted link (for instance under a predictable path in /tmp) cannot redirect a write.
- **No symlinked folder inside an output folder.** Writers that make a tree under a folder the
  user named (``expert``'s ``OUT/round-001/samples``, ``train``'s ``checkpoints`` and
  ``league``) create and check its folders with :func:`make_folders` / :func:`check_folders`
  (or pass ``root=`` to :func:`write_bytes`): a folder below the root that is a symlink (to
  another directory, whose files would be replaced) or not a folder is refused. The root itself
  may be a link: the user chose it (``runs/quick/latest``).
- :func:`write_files` writes several files as one: every temporary first (a failure there
  replaces nothing), then the renames in the order given (a policy's description before its
  weights, ``agents.learned.policy_io``).
- :func:`open_for_writing` is for a file written as it goes (a log): the same refusals, a link
  at the name removed (never followed: ``O_NOFOLLOW``), the file checked again once open.

The checks look before they write, so a name swapped for a FIFO between the look and the rename
is not caught; what they stop is a name that is already not a regular file when the command
starts or writes.

Files get the mode ``0o666`` less the umask (0644 under the usual 022), as ``open`` gives.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from fort_env.game.errors import OutputFileError

__all__ = [
    "check_folders",
    "check_target",
    "make_folders",
    "open_for_writing",
    "write_bytes",
    "write_files",
    "write_text",
]

_NOT_REPLACED = "fort-env writes only regular files and never replaces anything else"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _problem(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_target(path: str | os.PathLike[str]) -> Path:
    """``path`` may be written by :func:`write_bytes`: it does not exist, or it is a regular
    file, or a symlink to a regular file, or a symlink to nothing (the link is replaced).
    Looks only (``os.lstat``, ``os.stat``): nothing is opened, so a FIFO cannot block.
    Returns ``path`` as a ``Path``.

    Raises:
        OutputFileError: ``path`` is a directory, a FIFO, a device, a socket, a symlink to one
            of them or a symlink loop, or cannot be looked at (names it and what it is).
    """
    target = Path(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    except (OSError, ValueError) as exc:  # EACCES, ENAMETOOLONG, ENOTDIR; ValueError: a NUL
        problem = _problem(exc) if isinstance(exc, OSError) else str(exc)
        raise OutputFileError(target, f"cannot be written: {problem}") from None
    if stat.S_ISREG(st.st_mode):
        return target
    if not stat.S_ISLNK(st.st_mode):
        raise OutputFileError(
            target, f"is {_kind(st.st_mode)}, not a regular file; {_NOT_REPLACED}"
        )
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return target  # a link to nothing: replaced by the file, nothing written through it
    except OSError as exc:  # ELOOP
        raise OutputFileError(
            target, f"is a symlink that cannot be followed ({_problem(exc)}); {_NOT_REPLACED}"
        ) from None
    if not stat.S_ISREG(st.st_mode):
        raise OutputFileError(
            target,
            f"is a symlink to {_kind(st.st_mode)} ({os.path.realpath(target)}), not to a "
            f"regular file; {_NOT_REPLACED}",
        )
    return target


def _folder_chain(root: Path, folder: Path) -> list[Path]:
    """The folders from just below ``root`` down to ``folder`` (empty if they are the same).

    Raises:
        OutputFileError: ``folder`` is not inside ``root`` (compared as written, ``..`` refused).
    """
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        raise OutputFileError(folder, f"is not inside the output folder {root}") from None
    if ".." in parts:
        raise OutputFileError(folder, f"leaves the output folder {root} ('..')")
    return [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def _check_folder(path: Path, root: Path) -> bool:
    """True if ``path`` is a real folder, False if it does not exist.

    Raises:
        OutputFileError: a symlink, or something other than a folder (names it).
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise OutputFileError(path, f"cannot be looked at: {_problem(exc)}") from None
    if stat.S_ISLNK(st.st_mode):
        raise OutputFileError(
            path,
            f"is a symlink (to {os.readlink(path)}) inside the output folder {root}; fort-env "
            "does not write through a linked folder (its files there would be replaced): "
            "remove the link or choose another output folder",
        )
    if not stat.S_ISDIR(st.st_mode):
        raise OutputFileError(path, f"is {_kind(st.st_mode)}, not a folder")
    return True


def check_folders(root: str | os.PathLike[str], folder: str | os.PathLike[str]) -> None:
    """Every folder from just below ``root`` down to ``folder`` that exists is a real folder:
    not a symlink (to another directory, whose files a write would replace), not a file.
    ``root`` itself is not checked (the user chose it; it may be a link). Looks only.

    Raises:
        OutputFileError: a folder of the chain is a symlink or not a folder, or ``folder`` is
            not inside ``root`` (names it).
    """
    root = Path(root)
    for path in _folder_chain(root, Path(folder)):
        if not _check_folder(path, root):
            return


def make_folders(root: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` inside ``root`` (``root`` and its parents as ``mkdir -p``; below it one
    folder at a time), each checked as :func:`check_folders` does. Returns ``folder``.

    Raises:
        OutputFileError: as :func:`check_folders`.
        OSError: a folder cannot be created.
    """
    root, folder = Path(root), Path(folder)
    chain = _folder_chain(root, folder)
    root.mkdir(parents=True, exist_ok=True)
    for path in chain:
        if not _check_folder(path, root):
            with contextlib.suppress(FileExistsError):  # made meanwhile: checked below
                path.mkdir()
            _check_folder(path, root)
    return folder


def _write_temporary(target: Path, data: bytes) -> str:
    """``data`` in a fresh file beside ``target``; returns its path (the caller renames it)."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), 0o666 & ~_umask())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def write_files(
    items: Sequence[tuple[str | os.PathLike[str], bytes]],
    *,
    root: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """Write each ``(path, data)`` as :func:`write_bytes` does, as one: every target is
    checked and every temporary written before anything is renamed, so a refused target, a
    full disk or an interrupt there leaves every old file as it was; the renames then follow
    in the order given. Returns the paths.

    Raises:
        OutputFileError: a target is not a regular file's name (:func:`check_target`), or a
            folder between ``root`` and a target is a symlink (:func:`check_folders`).
        OSError: a folder does not exist or cannot be written (nothing is left behind).
    """
    targets = [Path(p) for p, _ in items]
    for target in targets:
        if root is not None:
            check_folders(root, target.parent)
        check_target(target)
    temporaries: list[str] = []
    try:
        for target, (_, data) in zip(targets, items, strict=True):
            temporaries.append(_write_temporary(target, data))
        for target, tmp in zip(targets, list(temporaries), strict=True):
            os.replace(tmp, target)
            temporaries.remove(tmp)
    except BaseException:
        for tmp in temporaries:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    return targets


def write_bytes(
    path: str | os.PathLike[str], data: bytes, *, root: str | os.PathLike[str] | None = None
) -> Path:
    """Write ``data`` to ``path`` through a fresh temporary file in its folder, renamed over
    ``path`` (module docstring). With ``root``, the folders from below ``root`` to ``path``'s
    folder must be real folders (:func:`check_folders`). Returns ``path`` as a ``Path``.

    Raises:
        OutputFileError: ``path`` is a directory, a FIFO, a device, a socket or a link to one
            (:func:`check_target`), or a folder below ``root`` is a symlink; nothing written.
        OSError: the folder does not exist or cannot be written (nothing is left behind).
    """
    return write_files([(path, data)], root=root)[0]


def write_text(
    path: str | os.PathLike[str],
    text: str,
    encoding: str = "utf-8",
    *,
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """:func:`write_bytes` of ``text`` encoded (UTF-8 by default)."""
    return write_bytes(path, text.encode(encoding), root=root)


def open_for_writing(path: str | os.PathLike[str], encoding: str = "utf-8") -> IO[str]:
    """``path`` opened for writing text from its start, for a file written as it goes (a log
    that a reader may follow): refused as :func:`write_bytes` refuses a target; a symlink at
    the name is removed first (its target untouched); the file is opened with ``O_NOFOLLOW``
    and ``O_NONBLOCK`` (a FIFO swapped in meanwhile neither blocks nor is followed) and checked
    again with ``fstat`` before a byte is written. Created with the umask's mode.

    Raises:
        OutputFileError: not a regular file's name (names it and what it is).
        OSError: the folder does not exist or cannot be written.
    """
    target = check_target(path)
    if target.is_symlink():
        target.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, flags, 0o666)
    except OSError as exc:
        if exc.errno is None or not os.path.lexists(target):
            raise
        check_target(target)  # what took the name, named
        raise OutputFileError(target, f"cannot be written: {_problem(exc)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OutputFileError(target, f"is {_kind(mode)}, not a regular file; {_NOT_REPLACED}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "w", encoding=encoding)
