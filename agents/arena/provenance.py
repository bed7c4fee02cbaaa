"""What a result was measured with, so that a figure can be cited.

:func:`provenance` is attached to every result JSON of ``fort-env tournament`` and ``fort-env
ladder``: fort-env's version, the git commit of the checkout it runs from and whether that tree
was clean (``None`` when it is not a git checkout, e.g. an installed wheel), the card set's and
the observation's fingerprint (``agents.learned.policy_file.layout_fingerprint``), and for every
agent its spec with the sha256 of each model file it names (``ppo:PATH``, ``puct:model=PATH``;
for bare ``ppo`` and ``puct``, the shipped model for the table's player count).
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from agents.spec import parse

__all__ = ["model_files", "provenance", "source_commit"]

_ROOT = Path(__file__).resolve().parents[2]
_MODEL_SUFFIXES = (".safetensors", ".zip")
"""The suffixes of the model files a spec can name (a policy file, a Stable-Baselines3 zip)."""


def source_commit(root: Path = _ROOT) -> tuple[str | None, bool | None]:
    """``(commit, clean)`` of the git checkout at ``root``; ``(None, None)`` if there is none
    (or git is missing). ``clean`` ignores untracked files."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()  # fmt: skip
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head or None, status.strip() == ""


def _sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def model_files(spec: str, num_players: int) -> list[Path]:
    """The model files an agent spec loads: its bare path and each argument value (``model=``
    and any other) that names an existing ``.safetensors`` or ``.zip`` file, read by the spec
    grammar (``agents.spec.parse``: quoted and escaped values are unquoted first), or for bare
    ``ppo`` / ``puct`` the shipped network for ``num_players`` (none if none ships).

    Raises:
        SpecError: ``spec`` does not parse (``agents.spec.parse``).
    """
    parsed = parse(spec)
    values = list(parsed.args.values())
    if parsed.path is not None:
        values.insert(0, parsed.path)
    found = [Path(v) for v in values if Path(v).suffix in _MODEL_SUFFIXES and Path(v).is_file()]
    names_a_model = "model" in parsed.args or any(v.endswith(_MODEL_SUFFIXES) for v in values)
    if not found and not names_a_model and parsed.name in ("ppo", "puct"):
        from agents.learned.zoo import search_model, shipped_models
        from fort_env.game.errors import ModelFileError

        if parsed.name == "ppo":
            shipped = shipped_models().get(num_players)
            found += [shipped] if shipped is not None else []
        else:
            with contextlib.suppress(ModelFileError):  # none ships for that count
                found.append(search_model(num_players))
    return found


def provenance(
    specs: Sequence[str], num_players: int, setup: str = "basic", cards: str | None = None
) -> dict[str, Any]:
    """The provenance object of a result (module docstring): ``{"fort_env_version", "commit",
    "clean", "layout", "agents": [{"spec", "models": [{"path", "sha256"}]}]}``."""
    from agents.learned.policy_file import layout_fingerprint
    from fort_env import FortGame

    try:
        version: str | None = metadata.version("fort-env")
    except metadata.PackageNotFoundError:
        version = None
    commit, clean = source_commit()
    entries = []
    for spec in dict.fromkeys(specs):  # each spec once, in order
        models = [{"path": str(p), "sha256": _sha256(p)} for p in model_files(spec, num_players)]
        entries.append({"spec": spec, "models": models})
    return {
        "fort_env_version": version,
        "commit": commit,
        "clean": clean,
        "layout": layout_fingerprint(FortGame(num_players, setup, cards)),
        "agents": entries,
    }
