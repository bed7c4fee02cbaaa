"""A safetensors file read and written with care: regular files only, sized before hashed.

A tensor file is looked at through ``os.stat`` before it is opened (a FIFO, a device or a
directory is refused without blocking, :func:`_regular_size`), opened without blocking and
checked again (:func:`_open_regular`), sized against the described network before it is hashed
(:func:`_check_size`: a sparse file of terabytes costs nothing), and its header read alone
(:func:`_check_header`: exactly the described float32 tensors). :func:`_write_tensors` writes
one with the run's permissions, never through a symlink.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.learned.policy_format import FORMAT, MAX_HEADER_BYTES, _bad, _parameter_count
from fort_env.game.errors import describe
from fort_env.game.files import write_bytes
from fort_env.game.inputs import _not_regular, _os_problem

__all__: list[str] = []  # the package's own helpers; the public names are policy_file's


def _regular_size(path: Path) -> int:
    """The size of the regular file at ``path`` (symlinks followed), from ``os.stat`` alone:
    nothing is opened, so a FIFO cannot block.

    Raises:
        ModelFileError: the file is missing, not a regular file (a directory, a FIFO, a
            device, a socket), a symlink loop or cannot be looked at (names it).
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _bad(path, "no such file (a saved policy is NAME.safetensors + NAME.json)") from None
    except (OSError, ValueError) as exc:  # ELOOP, EACCES, ENAMETOOLONG; ValueError: a NUL byte
        raise _bad(path, f"cannot be read: {_os_problem(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _bad(path, _not_regular(st.st_mode))
    return int(st.st_size)


def _open_regular(path: Path) -> Any:
    """``path`` opened for reading (binary), if it is a regular file: opened with
    ``O_NONBLOCK`` (a FIFO swapped in after :func:`_regular_size` does not block the open) and
    checked again with ``os.fstat`` before a byte is read.

    Raises:
        ModelFileError: not a regular file, or it cannot be opened (names it).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise _bad(path, "no such file (a saved policy is NAME.safetensors + NAME.json)") from None
    except (OSError, ValueError) as exc:
        raise _bad(path, f"cannot be read: {_os_problem(exc)}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise _bad(path, f"cannot be read: {_os_problem(exc)}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _bad(path, _not_regular(mode))
    return os.fdopen(fd, "rb")


def _sha256(path: Path) -> str:
    """The SHA-256 of the regular file at ``path`` (hex).

    Raises:
        ModelFileError: not a regular file, or a read fails (``/proc/self/mem``: EIO).
    """
    h = hashlib.sha256()
    with _open_regular(path) as f:
        try:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        except OSError as exc:
            raise _bad(path, f"cannot be read: {_os_problem(exc)}") from None
    return h.hexdigest()


def _check_size(path: Path, size: int, data_bytes: int, what: str) -> None:
    """A safetensors file of ``size`` bytes may hold ``data_bytes`` of tensors: at most its
    8-byte length, a JSON header of :data:`~agents.learned.policy_format.MAX_HEADER_BYTES` and
    the data; at least a length and an empty header (``{}``). Checked before the file is hashed
    or read, so a sparse file of terabytes (or ``/proc/self/mem``, 0 bytes) costs nothing; the
    header (:func:`_check_header`, at most ``MAX_HEADER_BYTES`` read) then names a missing or
    misshapen tensor and checks the exact size.

    Raises:
        ModelFileError: otherwise (names the file, its size and the expected one).
    """
    if not 8 + 2 <= size <= data_bytes + 8 + MAX_HEADER_BYTES:
        raise _bad(
            path,
            f"not a safetensors file of {what}: {size} bytes, where {what}'s tensors take "
            f"{data_bytes} bytes plus a header of at most {MAX_HEADER_BYTES} bytes (the "
            "tensors do not fit: truncated, padded or another file)",
        )


def _write_tensors(path: Path, tensors: Mapping[str, Any]) -> None:
    """Write ``tensors`` as a safetensors file with the permissions of the run's other files.

    ``safetensors.torch.save_file`` creates its file with mode 0600 whatever the umask; the
    bytes go through ``fort_env.game.files.write_bytes`` instead (the umask's mode, 0644 under
    the usual 022, as the description beside it; a fresh file renamed into place, never
    written through a symlink).
    """
    from safetensors.torch import save

    write_bytes(path, save(dict(tensors), metadata={"format": FORMAT}))


def _check_header(path: Path, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """The safetensors file at ``path`` holds exactly the tensors ``shapes`` names, float32,
    of those shapes, and nothing else; read from its header alone (nothing allocated).

    Raises:
        ModelFileError: otherwise (names the tensor and the problem).
    """
    import struct

    size = _regular_size(path)
    try:
        with _open_regular(path) as f:
            head = f.read(8)
            if len(head) < 8:
                raise _bad(path, "not a safetensors file: shorter than its header")
            (n,) = struct.unpack("<Q", head)
            if n > MAX_HEADER_BYTES or n > size - 8:
                raise _bad(path, f"not a safetensors file: a header of {n} bytes")
            raw = f.read(n)
    except OSError as exc:
        raise _bad(path, f"cannot be read: {exc.strerror or exc}") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise _bad(path, "not a safetensors file: its header is not JSON") from None
    if not isinstance(header, dict):
        raise _bad(path, "not a safetensors file: its header is not an object")
    header.pop("__metadata__", None)
    if set(header) != set(shapes):
        missing = sorted(set(shapes) - set(header))[:3]
        extra = sorted(map(str, set(header) - set(shapes)))[:3]
        raise _bad(
            path,
            f"the tensors do not fit the described network: missing {missing}, "
            f"unexpected {[describe(x) for x in extra]}",
        )
    for name, shape in shapes.items():
        entry = header[name]
        ok = (
            isinstance(entry, dict)
            and entry.get("dtype") == "F32"
            and isinstance(entry.get("shape"), list)
            and tuple(entry["shape"]) == shape
        )
        if not ok:
            shown = entry.get("shape") if isinstance(entry, dict) else entry
            raise _bad(
                path,
                f"the tensors do not fit the described network: tensor {name!r} should be "
                f"float32 of shape {list(shape)}, got {describe(shown)}",
            )
        offsets = entry.get("data_offsets")
        numel = _parameter_count({name: shape})
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in offsets)
            and 0 <= offsets[0] <= offsets[1]
            and offsets[1] - offsets[0] == 4 * numel
        ):
            raise _bad(path, f"tensor {name!r}: data_offsets do not fit its shape")
    if size != 8 + n + _parameter_count(shapes) * 4:
        raise _bad(
            path,
            f"not a safetensors file of the described network: {size} bytes, not its header "
            "and tensors alone (truncated, or data appended)",
        )
