"""A safetensors file read and written with care: regular files only, sized before read, read
once.

A tensor file is looked at through ``os.stat`` before it is opened (a FIFO, a device or a
directory is refused without blocking, :func:`_regular_size`), sized against the described
network before a byte of it is read (:func:`_check_size`: a sparse file of terabytes costs
nothing), opened without blocking and checked again (:func:`_open_regular`), and then read
**once** into memory (:func:`_read_bytes`, bounded by the size the check allowed). Everything
after works on those bytes: the header (:func:`_check_header`: exactly the described float32
tensors, the exact size), the SHA-256 (:func:`_sha256_bytes`) and the tensors themselves
(:func:`_load_tensors`, ``safetensors.torch.load`` of the bytes). So the hash covers the bytes
that are loaded, and a file rewritten while it loads gives ``ModelFileError`` (a size, header or
hash that no longer fits), never a signal: ``safetensors.torch.load_file`` maps the file into
memory, and a file truncated under the map killed the interpreter with SIGBUS.
:func:`_tensor_bytes` makes the bytes of a file to write (``fort_env.game.files`` writes them).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.learned.policy_format import (
    FORMAT,
    MAX_HEADER_BYTES,
    _bad,
    _parameter_count,
    _short,
)
from fort_env.game.errors import describe
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


def _sha256_bytes(data: bytes) -> str:
    """The SHA-256 of ``data`` (hex)."""
    return hashlib.sha256(data).hexdigest()


def _read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, read once, at most ``limit + 1`` of them (one
    more than a caller allows, so that a file grown since it was sized shows as too long).

    Raises:
        ModelFileError: not a regular file, or a read fails (``/proc/self/mem``: EIO).
    """
    with _open_regular(path) as f:
        try:
            return f.read(limit + 1)
        except OSError as exc:
            raise _bad(path, f"cannot be read: {_os_problem(exc)}") from None


def _tensor_bytes(tensors: Mapping[str, Any]) -> bytes:
    """``tensors`` as the bytes of a safetensors file (the format's metadata in its header),
    for ``fort_env.game.files`` to write: ``safetensors.torch.save_file`` would create its file
    with mode 0600 whatever the umask, and write through a symlink at the name."""
    from safetensors.torch import save

    return save(dict(tensors), metadata={"format": FORMAT})


def _load_tensors(path: Path, data: bytes) -> dict[str, Any]:
    """The tensors of the safetensors bytes ``data`` (read from ``path``), copied out of them
    (``safetensors.torch.load``: no file is mapped, so nothing can change underneath).

    Raises:
        ModelFileError: ``data`` is not a safetensors file (names ``path``).
    """
    from safetensors import SafetensorError
    from safetensors.torch import load

    try:
        return load(data)
    except (SafetensorError, OSError, ValueError) as exc:
        raise _bad(path, f"not a safetensors file: {_short(exc)}") from None


def _check_size(path: Path, size: int, data_bytes: int, what: str) -> None:
    """A safetensors file of ``size`` bytes may hold ``data_bytes`` of tensors: at most its
    8-byte length, a JSON header of :data:`~agents.learned.policy_format.MAX_HEADER_BYTES` and
    the data; at least a length and an empty header (``{}``). Checked on the size ``os.stat``
    gives before the file is read, so a sparse file of terabytes (or ``/proc/self/mem``, 0
    bytes) costs nothing, and again on the bytes read (the file may have changed); the header
    (:func:`_check_header`) then names a missing or misshapen tensor and checks the exact size.

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


# safetensors' dtype names, as torch names them (for messages)
_DTYPES = {
    "F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
    "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "I64": "int64", "I32": "int32",
    "I16": "int16", "I8": "int8", "U64": "uint64", "U32": "uint32", "U16": "uint16",
    "U8": "uint8", "BOOL": "bool",
}  # fmt: skip


def _check_header(path: Path, shapes: Mapping[str, tuple[int, ...]], data: bytes) -> None:
    """The safetensors bytes ``data`` (read from ``path`` by :func:`_read_bytes`) hold exactly
    the tensors ``shapes`` names, float32, of those shapes, and nothing else, and are exactly
    their header and tensors long; read from the header alone (nothing allocated).

    Raises:
        ModelFileError: otherwise (names the file, the tensor and the problem: a tensor of
            another dtype or shape names the dtype and the shape it has).
    """
    import struct

    size = len(data)
    if size < 8:
        raise _bad(path, "not a safetensors file: shorter than its header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER_BYTES or n > size - 8:
        raise _bad(path, f"not a safetensors file: a header of {n} bytes")
    try:
        header = json.loads(data[8 : 8 + n].decode("utf-8"))
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
            if isinstance(entry, dict):
                dtype = entry.get("dtype")
                kind = (
                    "no dtype" if dtype is None
                    else _DTYPES.get(dtype, describe(dtype)) if isinstance(dtype, str)
                    else describe(dtype)
                )  # fmt: skip
                got = f"{kind} of shape {describe(entry.get('shape'))}"
            else:
                got = describe(entry)
            raise _bad(
                path,
                f"the tensors do not fit the described network: tensor {name!r} should be "
                f"float32 of shape {list(shape)}, got {got}",
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
