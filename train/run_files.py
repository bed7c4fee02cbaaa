"""A run folder's JSON files read back, checked: the error that names the file and field.

``config.json`` (``train.config.config_from_dict``) and ``checkpoints/state.json``
(``train.checkpoints.load_state``) are read by :func:`read_run_json`; a file that cannot be
resumed raises :class:`RunFolderError` (``fort-env train --resume`` prints it as one line).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fort_env.game.errors import ConfigError
from fort_env.game.inputs import read_text_file

__all__ = [
    "MAX_LEAGUE_ENTRIES",
    "MAX_RUN_JSON_BYTES",
    "RunFolderError",
    "is_int",
    "is_number",
    "read_run_json",
]


class RunFolderError(ConfigError):
    """A run folder's file (``config.json``, ``checkpoints/state.json``) cannot be resumed
    from: unreadable, not JSON, or a field of the wrong type or out of range. Names the file
    and the field; ``fort-env train --resume`` prints it as one line."""

    def __init__(self, path: object, problem: str) -> None:
        self.path, self.problem = path, problem
        self._init_args = (path, problem)
        super().__init__(f"{path}: {problem}")


# The largest run-folder JSON read back (bytes): state.json holds one history point per
# rollout (~200 bytes; the full preset writes ~5,000) and every evaluation.
MAX_RUN_JSON_BYTES = 64 * 2**20
# The league a run folder may name: more bots or snapshots than any preset uses by far.
MAX_LEAGUE_ENTRIES = 256


def read_run_json(path: Path) -> Any:
    """The JSON value of a run folder's file (a regular file, at most
    :data:`MAX_RUN_JSON_BYTES`, strict UTF-8).

    Raises:
        RunFolderError: the file cannot be read or is not JSON.
    """
    try:
        text = read_text_file(path, "run file", max_bytes=MAX_RUN_JSON_BYTES)
    except ConfigError:
        raise
    except ValueError as exc:  # InputFileError: missing, not a regular file, too big, not UTF-8
        raise RunFolderError(path, getattr(exc, "problem", str(exc))) from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RunFolderError(path, f"not JSON: {' '.join(str(exc).split())[:300]}") from None


def is_int(v: Any) -> bool:
    """An ``int`` that is not a ``bool`` (JSON's integers)."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """A finite JSON number (int or float, not a bool) below 1e300 in magnitude."""
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v) and abs(v) < 1e300
