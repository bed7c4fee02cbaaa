"""Training checkpoints: a policy file plus its optimizer's state, to resume where it stopped.

:func:`save_checkpoint_files` adds ``NAME.optimizer.safetensors`` (Adam's moments; the param
groups and the file's hash in the description) to a saved policy; :func:`load_checkpoint` and
:func:`load_into_model` load both back into a freshly built learner, and
:func:`load_initial_weights` starts a new run's network from a policy file (fine-tuning).
Nothing is unpickled. A checkpoint's three files are written as one
(:func:`~agents.learned.policy_io.write_policy_files`: the description, holding both tensor
files' hashes, renamed into place first) and each tensor file is read once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.learned.policy_description import describe_policy, network_shapes
from agents.learned.policy_format import (
    MAX_HEADER_BYTES,
    OPTIMIZER_SUFFIX,
    WEIGHTS_SUFFIX,
    _bad,
    _parameter_count,
    _short,
    policy_paths,
)
from agents.learned.policy_io import (
    _policy_save,
    load_policy_file,
    read_tensor_file,
    write_policy_files,
)
from agents.learned.tensor_file import _regular_size, _sha256_bytes, _tensor_bytes

__all__ = ["load_checkpoint", "load_initial_weights", "load_into_model", "save_checkpoint_files"]


def _optimizer_tensors(optimizer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """An optimizer's ``state_dict`` split into tensors (``state.I.KEY``) and JSON."""
    import torch

    sd = optimizer.state_dict()
    tensors: dict[str, Any] = {}
    scalars: dict[str, Any] = {}
    for index, entry in sd["state"].items():
        for key, value in entry.items():
            name = f"state.{index}.{key}"
            if isinstance(value, torch.Tensor):
                tensors[name] = value.detach().cpu().contiguous().clone()
            else:
                scalars[name] = value
    groups = [
        {k: list(v) if isinstance(v, tuple) else v for k, v in group.items()}
        for group in sd["param_groups"]
    ]
    return tensors, {"param_groups": groups, "scalars": scalars}


def save_checkpoint_files(
    model: Any,
    path: str | Path,
    *,
    num_players: int,
    setup: str,
    training: Mapping[str, Any],
    optimizer: Any = None,
    timesteps: int | None = None,
) -> Path:
    """:func:`~agents.learned.policy_io.save_policy` plus the optimizer's state
    (``NAME.optimizer.safetensors``, its param groups in the description's ``optimizer``), for
    :func:`load_into_model` (a MaskablePPO) or :func:`load_checkpoint` (a network and its
    optimizer). The three files are written as one (module docstring): a failure leaves an
    existing checkpoint whole.

    Args:
        model: a ``MaskablePPO`` (its policy's optimizer is saved), or a network with
            ``optimizer`` given.
        optimizer: the network's optimizer (required for a bare network).
        timesteps: as :func:`~agents.learned.policy_io.save_policy`'s.

    Raises:
        ModelFileError, OutputFileError: as :func:`~agents.learned.policy_io.save_policy`.
    """
    weights, data, info = _policy_save(
        model,
        path,
        num_players=num_players,
        setup=setup,
        cards=None,
        training=training,
        timesteps=timesteps,
    )
    _, description = policy_paths(weights)
    tensors, rest = _optimizer_tensors(
        optimizer if optimizer is not None else model.policy.optimizer
    )
    opt_path = weights.with_name(weights.name[: -len(WEIGHTS_SUFFIX)] + OPTIMIZER_SUFFIX)
    opt_data = _tensor_bytes(tensors)
    info["optimizer"] = {**rest, "sha256": _sha256_bytes(opt_data), "file": opt_path.name}
    weights.parent.mkdir(parents=True, exist_ok=True)
    write_policy_files(description, info, [(weights, data), (opt_path, opt_data)])
    return weights


def load_into_model(model: Any, path: str | Path) -> dict[str, Any]:
    """Load a checkpoint (:func:`save_checkpoint_files`) into a freshly built ``MaskablePPO``
    of the same configuration: the policy's tensors, the optimizer's state (if saved) and
    ``num_timesteps``. Nothing is unpickled.

    Returns:
        The checkpoint's description.

    Raises:
        ModelFileError: a missing or mismatched file, or a network of another shape.
    """
    info = load_checkpoint(model.policy, model.policy.optimizer, path)
    steps = info.get("timesteps")
    if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0:
        model.num_timesteps = steps
    return info


def load_checkpoint(network: Any, optimizer: Any, path: str | Path) -> dict[str, Any]:
    """Load a checkpoint (:func:`save_checkpoint_files`) into ``network`` (built with the
    described shape) and its ``optimizer`` (Adam's moments, if saved). Nothing is unpickled.

    Returns:
        The checkpoint's description (``timesteps`` is the count it was saved at).

    Raises:
        ModelFileError: a missing or mismatched file, or a network of another shape.
    """
    policy, info = load_policy_file(path)
    if describe_policy(network) != {**info["network"]}:
        raise _bad(
            policy_paths(path)[1],
            f"the checkpoint's network {info['network']} is not the configured one "
            f"{describe_policy(network)}",
        )
    network.load_state_dict(policy.state_dict(), strict=True)
    opt = info.get("optimizer")
    if isinstance(opt, dict):
        weights, _ = policy_paths(path)
        name = opt.get("file")
        if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
            raise _bad(policy_paths(path)[1], "field 'optimizer.file' is not a file name")
        opt_path = weights.with_name(name)
        size = _regular_size(opt_path)  # before a byte is read: a sparse file costs nothing
        # at most four float32 per parameter (Adam keeps two moments, AMSGrad a third) and a
        # step count per tensor, as for the largest network allowed
        shapes = network_shapes(info["game"], info["network"])
        limit = 4 * 4 * _parameter_count(shapes) + 8 * len(shapes) + 8 + MAX_HEADER_BYTES
        if size > limit:
            raise _bad(
                opt_path,
                f"{size} bytes: larger than Adam's state of the described network (at most "
                f"{limit} bytes); not the optimizer state of this checkpoint",
            )
        # read once, bounded by the size checked, hashed and parsed from the same bytes
        tensors = read_tensor_file(
            opt_path,
            limit,
            str(opt.get("sha256")),  # compared always: a missing hash matches nothing
            mismatch="missing, or not the optimizer state of this checkpoint",
        )
        try:
            scalars = opt.get("scalars", {})
            if not isinstance(scalars, dict):
                raise ValueError("its 'scalars' is not an object")
            state: dict[int, dict[str, Any]] = {}
            for name, value in [*tensors.items(), *scalars.items()]:
                _, index, key = str(name).split(".", 2)
                state.setdefault(int(index), {})[key] = value
            groups = opt.get("param_groups")
            optimizer.load_state_dict({"state": state, "param_groups": groups})
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
            raise _bad(opt_path, f"does not fit the optimizer: {_short(exc)}") from None
    return info


def load_initial_weights(
    network: Any, path: str | Path, *, num_players: int, setup: str
) -> dict[str, Any]:
    """Start ``network`` (a fresh ``ActorCritic`` of the lean PPO) from the weights of the
    policy file ``path``: fine-tuning, e.g. from a zoo model. The file is loaded with every
    check of :func:`~agents.learned.policy_io.load_policy_file` (nothing is unpickled); the
    optimizer starts fresh. A whole-table critic the file lacks starts fresh (a zoo model has
    none); every other tensor comes from the file.

    Returns:
        The file's description.

    Raises:
        ModelFileError: a missing, corrupt or mismatched file; a policy saved for another
            table (player count, setup) or of another shape (trunk, activation, critic), or
            an SB3 policy (names the file and the difference).
    """
    policy, info = load_policy_file(path)
    description = policy_paths(path)[1]
    game = info["game"]
    if (game["num_players"], game["setup"]) != (num_players, setup):
        raise _bad(
            description,
            f"a policy for the {game['num_players']}-player {game['setup']} game cannot start "
            f"a run of the {num_players}-player {setup} game",
        )
    mine, theirs = describe_policy(network), dict(info["network"])
    if theirs.get("policy") != mine.get("policy"):
        raise _bad(
            description,
            f"a {theirs.get('policy')} network cannot start the lean PPO's {mine.get('policy')}",
        )
    if "critic" in mine and "critic" not in theirs:  # a fresh critic beside the loaded actor
        mine = {k: v for k, v in mine.items() if k != "critic"}
    if mine != theirs:
        raise _bad(
            description,
            f"its network {theirs} is not the configured one {mine} (train with the "
            "preset whose net_arch and critic it was saved with)",
        )
    state = policy.state_dict()
    missing, unexpected = network.load_state_dict(state, strict=False)
    assert not unexpected and all(k.startswith("critic") for k in missing), (missing, unexpected)
    return info
