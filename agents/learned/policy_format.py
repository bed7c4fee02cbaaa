"""The policy file format's names and limits, and where a saved policy's files are.

A saved policy is ``NAME.safetensors`` (tensors) + ``NAME.json`` (its description): the
format's name and version, the network kinds and activations a description may name, the
limits checked before anything is allocated (``agents.learned.policy_file``'s docstring), and
the paths: :func:`policy_paths` (a policy's two files from either name), :func:`preset_model`
(a training preset's newest model), :func:`is_sb3_zip` (a pickled SB3 zip, by content).
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from pathlib import Path

from fort_env.game.errors import ModelFileError

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "MAX_LAYER_WIDTH",
    "MAX_PARAMETERS",
    "MAX_WEIGHT",
    "VERSION",
    "is_sb3_zip",
    "missing_model",
    "policy_paths",
    "preset_model",
    "train_command",
]

FORMAT = "fort-env-policy"
VERSION = 1
WEIGHTS_SUFFIX = ".safetensors"
OPTIMIZER_SUFFIX = ".optimizer.safetensors"
# The network kinds a description may name (``network.policy``): SB3's two towers, or the
# project's shared trunk (agents.learned.network.KIND; not imported: it needs torch).
SB3_POLICY = "MaskableActorCriticPolicy"
ACTOR_CRITIC = "ActorCritic"
TABLE_INPUT = "table"
"""``network.critic.input`` of an ActorCritic with a whole-table critic: it reads the table
observation (``fort_env.views.table``), ``num_players * observation_size`` floats."""
# The activations a description may name (torch.nn class names); nothing else is looked up.
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")
# Limits of a description (policy_file's docstring): generous for what `fort-env train` produces
# (the presets' widest network is full's (512, 256), ~2M parameters with the 1,482-entry
# observation).
MAX_LAYER_WIDTH = 4096
MAX_DEPTH = 16
MAX_PARAMETERS = 1 << 24  # 16.8M float32: 64 MiB of tensors
MAX_WEIGHT = 1e6  # trained weights are O(1); 3e38 would overflow the first matrix product
MAX_DESCRIPTION_BYTES = 4 * 2**20
MAX_HEADER_BYTES = 1 << 20  # the safetensors JSON header (the project's files: ~2 KB)
PICKLE_RISK = (
    "a Stable-Baselines3 .zip stores its 'data' entry with cloudpickle: loading it runs any "
    "code its author put there"
)


def policy_paths(path: str | Path) -> tuple[Path, Path]:
    """``(NAME.safetensors, NAME.json)`` of a saved policy named by either file or by
    ``NAME`` itself."""
    p = Path(path)
    if p.name.endswith(OPTIMIZER_SUFFIX):
        p = p.with_name(p.name[: -len(OPTIMIZER_SUFFIX)])
    elif p.suffix in (WEIGHTS_SUFFIX, ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + WEIGHTS_SUFFIX), p.with_name(p.name + ".json")


def preset_model(preset: str) -> Path:
    """The newest model of a training preset, ``runs/PRESET/latest/model.safetensors``
    (relative to the working directory): ``fort-env train --preset PRESET`` writes each run into
    ``runs/PRESET/YYYYmmdd-HHMMSS`` and points the link ``runs/PRESET/latest`` at the newest.
    The defaults that name a trained model (``puct``, ``fort-env ladder``) are these paths."""
    return Path("runs") / preset / "latest" / "model.safetensors"


def train_command(path: str | Path) -> str | None:
    """The command that makes the model at ``path`` when it is a preset's newest model
    (``.../runs/PRESET/latest/FILE``, :func:`preset_model`): ``fort-env train --preset
    PRESET``; else ``None``."""
    parts = Path(path).parts
    if len(parts) >= 4 and parts[-4] == "runs" and parts[-2] == "latest":
        return f"fort-env train --preset {parts[-3]}"
    return None


def missing_model(path: str | Path) -> str:
    """One line saying that no model is at ``path``, with the command that trains one for a
    preset's path: ``no trained model at runs/quick/latest/model.safetensors: train one with
    `fort-env train --preset quick```."""
    command = train_command(path)
    text = f"no trained model at {Path(path)}"
    return text if command is None else f"{text}: train one with `{command}`"


def is_sb3_zip(path: str | Path) -> bool:
    """True if ``path`` is a zip archive (what ``MaskablePPO.save`` writes), by content."""
    p = Path(path)
    return p.is_file() and zipfile.is_zipfile(p)


def _short(exc: BaseException) -> str:
    """An exception's message on one line, at most 300 characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _bad(path: Path, problem: str) -> ModelFileError:
    return ModelFileError(path, problem)


def _parameter_count(shapes: Mapping[str, tuple[int, ...]]) -> int:
    total = 0
    for shape in shapes.values():
        n = 1
        for d in shape:
            n *= d
        total += n
    return total
