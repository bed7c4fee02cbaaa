"""Stable-Baselines3 ``.zip`` files: pickled, so loaded only on the caller's word.

``MaskablePPO.save`` stores its ``data`` entry with cloudpickle: loading one runs whatever code
its author put there. :func:`load_sb3_zip` reads one only with ``trusted=True`` (``ppo:PATH:
trusted=1``, ``fort-env tournament --trust-pickle``), never because a file says so;
:func:`convert_sb3_zip` turns a trusted one into the project's format once.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from agents.learned.policy_format import PICKLE_RISK, _bad
from agents.learned.policy_io import save_policy

__all__ = ["convert_sb3_zip", "load_sb3_zip"]


def load_sb3_zip(path: str | Path, trusted: bool = False) -> Any:
    """The policy of a Stable-Baselines3 ``.zip`` (``MaskablePPO.save``), if ``trusted``.

    Loading unpickles the zip's ``data`` entry, which runs any code its author put there: pass
    ``trusted=True`` only for a file whose origin you trust (one you trained yourself).

    Raises:
        ModelFileError: ``trusted`` is false (nothing is read), or the file does not load.
    """
    p = Path(path)
    if not trusted:
        raise _bad(
            p,
            f"{PICKLE_RISK}. Load only files you trust: trusted=True "
            "(ppo:PATH:trusted=1, fort-env tournament --trust-pickle); or convert it once "
            "with agents.learned.policy_file.convert_sb3_zip",
        )
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(p, device="cpu")
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise _bad(p, f"does not load as a MaskablePPO model: {exc}") from None
    model.policy.set_training_mode(False)
    return model.policy


def convert_sb3_zip(
    zip_path: str | Path,
    out: str | Path,
    *,
    num_players: int,
    setup: str = "basic",
    cards: str | None = None,
    trusted: bool = False,
) -> Path:
    """Save the policy of a trusted SB3 ``.zip`` in this format
    (:func:`~agents.learned.policy_io.save_policy`).

    Raises:
        ModelFileError: not ``trusted`` (see :func:`load_sb3_zip`), or a mismatch.
    """
    policy = load_sb3_zip(zip_path, trusted=trusted)
    return save_policy(policy, out, num_players=num_players, setup=setup, cards=cards)
