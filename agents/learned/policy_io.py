"""Save a policy and load one back: the tensors and the description, nothing unpickled.

:func:`save_policy` writes ``NAME.safetensors`` + ``NAME.json``; :func:`load_policy_file` checks
the description (``agents.learned.policy_description``) against this fort-env's game, the tensor
file's size, header and hash (``agents.learned.tensor_file``), builds the described network,
loads the tensors strictly, and runs it on probe observations (every logit and value finite).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.learned.policy_description import (
    _game_facts,
    describe_policy,
    network_shapes,
    read_description,
)
from agents.learned.policy_format import (
    ACTOR_CRITIC,
    FORMAT,
    MAX_HEADER_BYTES,
    MAX_WEIGHT,
    VERSION,
    _bad,
    _parameter_count,
    _short,
    policy_paths,
)
from agents.learned.tensor_file import (
    _check_header,
    _check_size,
    _load_tensors,
    _read_bytes,
    _regular_size,
    _sha256_bytes,
    _tensor_bytes,
)
from fort_env.game.errors import FortError, ModelFileError, describe
from fort_env.game.files import write_files

__all__ = [
    "PROBE_ACTIONS",
    "PROBE_EVERY",
    "PROBE_GAMES",
    "copy_policy",
    "load_policy_file",
    "read_tensor_file",
    "save_policy",
    "write_policy_files",
]


def _policy_of(model_or_policy: Any) -> Any:
    return getattr(model_or_policy, "policy", model_or_policy)


def _tensors(state: Mapping[str, Any]) -> dict[str, Any]:
    # own contiguous copies: safetensors refuses tensors that share memory
    return {k: v.detach().cpu().contiguous().clone() for k, v in state.items()}


def _policy_save(
    model_or_policy: Any,
    path: str | Path,
    *,
    num_players: int,
    setup: str,
    cards: str | None,
    training: Mapping[str, Any] | None,
    timesteps: int | None,
) -> tuple[Path, bytes, dict[str, Any]]:
    """What :func:`save_policy` writes, in memory: ``(weights path, its bytes, description)``.

    Raises:
        ModelFileError: the policy does not fit that game, or cannot be described.
    """
    policy = _policy_of(model_or_policy)
    weights, _ = policy_paths(path)
    network = describe_policy(policy)
    game = _game_facts(num_players, setup, cards)
    if (network["observation_size"], network["num_actions"]) != (
        game["observation_size"],
        game["num_actions"],
    ):
        raise ModelFileError(
            weights,
            f"the policy takes observations of {network['observation_size']} and "
            f"{network['num_actions']} actions; a {num_players}-player {setup} game has "
            f"{game['observation_size']} and {game['num_actions']}",
        )
    if timesteps is None:
        timesteps = getattr(model_or_policy, "num_timesteps", None)
    if timesteps is not None:
        try:  # an int or a numpy integer, not a bool, a float or a string
            steps = None if isinstance(timesteps, bool) else operator.index(timesteps)
        except TypeError:
            steps = None
        if steps is None or steps < 0:
            raise ModelFileError(
                weights, f"timesteps must be an int >= 0 or None, got {describe(timesteps)}"
            )
        timesteps = steps
    if training is not None and not isinstance(training, Mapping):
        raise ModelFileError(
            weights, f"the training record must be a mapping, got {type(training).__name__}"
        )
    data = _tensor_bytes(_tensors(policy.state_dict()))
    info = {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "network": network,
        "training": None if training is None else dict(training),
        "timesteps": None if timesteps is None else int(timesteps),
        "weights": weights.name,
        "sha256": _sha256_bytes(data),
    }
    return weights, data, info


def write_policy_files(
    description: Path, info: Mapping[str, Any], tensor_files: list[tuple[Path, bytes]]
) -> None:
    """Write a policy's description and its tensor files as one (module docstring): every file
    to a temporary first, then the description renamed into place, then the tensor files in
    the order given. The description must hold each tensor file's SHA-256.

    Raises:
        ModelFileError: the description is not JSON (a training record of other types), before
            anything is written.
        OutputFileError: a target is not a regular file's name (``fort_env.game.files``).
        OSError: the folder cannot be written (nothing is replaced).
    """
    try:
        text = json.dumps(info, indent=1) + "\n"
    except (TypeError, ValueError, RecursionError) as exc:
        raise _bad(description, f"cannot be written: not JSON: {_short(exc)}") from None
    write_files([(description, text.encode("utf-8")), *tensor_files])


def save_policy(
    model_or_policy: Any,
    path: str | Path,
    *,
    num_players: int,
    setup: str = "basic",
    cards: str | None = None,
    training: Mapping[str, Any] | None = None,
    timesteps: int | None = None,
) -> Path:
    """Save a MaskablePPO model's policy (or the policy itself) as ``NAME.safetensors`` and
    ``NAME.json``, as a pair (module docstring: a failure leaves an existing pair whole);
    returns the ``.safetensors`` path (``agents.make(f"ppo:{path}")``).

    Args:
        model_or_policy: a ``MaskablePPO`` or its ``MaskableActorCriticPolicy``.
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.json``.
        num_players, setup, cards: the game it was trained for (checked: its observation
            and action sizes must be the policy's).
        training: the training configuration, kept in the description (JSON-able).
        timesteps: learner timesteps trained (default: the model's ``num_timesteps``).

    Raises:
        ModelFileError: the policy does not fit that game, or cannot be described (a
            ``training`` that is not JSON, ``timesteps`` not an int >= 0), before anything is
            written.
        OutputFileError: ``NAME.safetensors`` or ``NAME.json`` is not a regular file's name
            (a FIFO, a device, a directory, a link to one), before anything is written.
    """
    weights, data, info = _policy_save(
        model_or_policy,
        path,
        num_players=num_players,
        setup=setup,
        cards=cards,
        training=training,
        timesteps=timesteps,
    )
    weights.parent.mkdir(parents=True, exist_ok=True)
    write_policy_files(policy_paths(weights)[1], info, [(weights, data)])
    return weights


def copy_policy(source: str | Path, target: str | Path) -> Path:
    """Copy the saved policy ``source`` as ``target`` (``NAME``, either file's name), as a pair
    (:func:`write_policy_files`): the description is read and checked
    (:func:`~agents.learned.policy_description.read_description`), the tensor file read once
    (its size bounded by the described network) and compared with the description's SHA-256,
    then both written; the copy's ``weights`` names its own tensor file. Returns the copy's
    ``.safetensors`` path.

    Raises:
        ModelFileError: ``source`` is missing, corrupt, or its files are not one save.
        OutputFileError: a target name is not a regular file's (``fort_env.game.files``).
    """
    weights, _ = policy_paths(source)
    target_weights, target_description = policy_paths(target)
    info = read_description(source)
    shapes = network_shapes(info["game"], info["network"])
    data_bytes = 4 * _parameter_count(shapes)
    _check_size(weights, _regular_size(weights), data_bytes, "the described network")
    data = _read_bytes(weights, data_bytes + 8 + MAX_HEADER_BYTES)
    _check_size(weights, len(data), data_bytes, "the described network")
    if _sha256_bytes(data) != info["sha256"]:
        raise _bad(weights, "its SHA-256 differs from the description's (not the same save)")
    info = {**info, "weights": target_weights.name}
    write_policy_files(target_description, info, [(target_weights, data)])
    return target_weights


def read_tensor_file(
    path: Path,
    limit: int,
    sha256: Any = None,
    mismatch: str = "its SHA-256 differs from the description's (not the same save)",
) -> dict[str, Any]:
    """The tensors of the safetensors file at ``path``, read once: sized from ``os.stat``
    against ``limit`` bytes, read (at most ``limit`` bytes), compared with ``sha256`` (hex;
    ``None``: not compared; ``mismatch`` is the problem named if it differs), parsed from those
    bytes. No file is mapped into memory.

    Raises:
        ModelFileError: not a regular file, over ``limit``, another hash, not safetensors, or
            changed while it was read (names the file).
    """
    size = _regular_size(path)
    if size > limit:
        raise _bad(path, f"{size} bytes: larger than the {limit} bytes allowed here")
    data = _read_bytes(path, limit)
    if len(data) > limit:
        raise _bad(path, f"grew past the {limit} bytes allowed while it was read")
    if sha256 is not None and _sha256_bytes(data) != sha256:
        raise _bad(path, mismatch)
    return _load_tensors(path, data)


def load_policy_file(path: str | Path, check_hash: bool = True) -> tuple[Any, dict[str, Any]]:
    """Build the policy a description names and load its tensors; nothing is unpickled.

    Args:
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.json``.
        check_hash: compare the tensor file with the description's SHA-256.

    Returns:
        ``(policy, description)``: the network (a ``MaskableActorCriticPolicy`` or an
        ``ActorCritic``) on the CPU in eval mode,
        and the checked description.

    Raises:
        ModelFileError: a missing, corrupt or mismatched file (names it and the problem), a
            description for a game this fort-env does not play (other observation or action
            sizes), or a pickled SB3 zip.
    """
    import torch

    info = read_description(path)
    weights, description = policy_paths(path)
    g = info["game"]
    try:
        facts = _game_facts(g["num_players"], g["setup"], g["card_set"])
    except FortError as exc:
        raise _bad(description, f"its game cannot be built here: {exc}") from None
    for key in ("observation_size", "num_actions"):
        if g[key] != facts[key]:
            raise _bad(
                description,
                f"saved for a {g['num_players']}-player {g['setup']} game with {key} "
                f"{g[key]}; this fort-env's has {facts[key]} (the observation layout or the "
                "action set changed since it was saved)",
            )
    if "layout" in g and g["layout"] != facts["layout"]:
        raise _bad(
            description,
            f"trained for the layout {g['layout']}; this fort-env's {g['num_players']}-player "
            f"game has {facts['layout']} (the observation, the actions or the cards changed "
            "since it was trained: retrain it)",
        )
    shapes = network_shapes(g, info["network"])
    # the size from os.stat first: a sparse file of terabytes, or /proc/self/mem (size 0), is
    # refused before a byte of it is read; then the bytes, read once, bounded by that check;
    # the header, the hash and the tensors all come from them (module docstring)
    data_bytes = 4 * _parameter_count(shapes)
    what = "the described network"
    _check_size(weights, _regular_size(weights), data_bytes, what)
    data = _read_bytes(weights, data_bytes + 8 + MAX_HEADER_BYTES)
    _check_size(weights, len(data), data_bytes, what)  # it may have changed since the stat
    _check_header(weights, shapes, data)
    if check_hash and _sha256_bytes(data) != info["sha256"]:
        raise _bad(weights, "its SHA-256 differs from the description's (not the same save)")
    tensors = _load_tensors(weights, data)
    del data
    for name, t in tensors.items():
        if not bool(torch.isfinite(t).all()):
            raise _bad(weights, f"tensor {name!r} holds NaN or infinite values")
        if t.numel() and float(t.abs().max()) > MAX_WEIGHT:
            raise _bad(
                weights,
                f"tensor {name!r} holds values of magnitude {float(t.abs().max()):.3g}; the "
                f"limit is {MAX_WEIGHT:g} (trained weights are far smaller)",
            )
    policy = _build_policy(info)
    try:
        policy.load_state_dict(tensors, strict=True)
    except RuntimeError as exc:
        text = " ".join(str(exc).split())
        raise _bad(weights, f"the tensors do not fit the described network: {text}") from None
    policy.train(False)  # eval mode (SB3's set_training_mode does the same)
    _probe(policy, weights, g)
    return policy, info


PROBE_GAMES = (0, 1)
"""The seeds of the random games whose positions :func:`_probe` runs a loaded network on."""
PROBE_EVERY = 24
"""A position every this many actions of a probe game (from the opening)."""
PROBE_ACTIONS = 360
"""At most this many actions of a probe game (a random 2-player game takes ~360)."""


def _probe_observations(game: Mapping[str, Any]) -> Any:
    """The probe observations of a described game, float32 ``(K, D)`` (numpy), and what each
    is: zeros, ones, and the views of the seat to act at every :data:`PROBE_EVERY`-th position
    (opening included) of short games of uniformly random legal actions (seeds
    :data:`PROBE_GAMES`, at most :data:`PROBE_ACTIONS` actions each). Deterministic; ~10 ms on
    the C++ engine (~0.1 s on the Python one).

    Returns:
        ``(observations, labels)``: the array and one label per row for messages.
    """
    import numpy as np

    from fort_env import FortGame

    fort = FortGame(game["num_players"], game["setup"], game["card_set"])
    size = int(game["observation_size"])
    rows = [np.zeros(size, np.float32), np.ones(size, np.float32)]
    labels = ["zeros", "ones"]
    for seed in PROBE_GAMES:
        state = fort.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for step in range(PROBE_ACTIONS + 1):
            if state.is_terminal():
                break
            if step % PROBE_EVERY == 0:
                view = state.observation_tensor(state.current_player())
                rows.append(np.asarray(view, dtype=np.float32).reshape(size))
                labels.append(
                    "the opening view" if step == 0 and seed == PROBE_GAMES[0]
                    else f"a position of a random game (seed {seed}, after {step} actions)"
                )  # fmt: skip
            legal = state.legal_actions()
            state.apply_action(int(legal[int(rng.integers(len(legal)))]))
    return np.stack(rows), labels


def _probe(policy: Any, path: Path, game: Mapping[str, Any]) -> None:
    """The policy's logits and values are finite on probe observations
    (:func:`_probe_observations`: zeros, ones, the opening view and positions of a couple of
    short random games of the described game), so finite weights that overflow on real
    positions are refused at load rather than in the middle of a game.

    Raises:
        ModelFileError: they are not (names the file and the first such observation).
    """
    import torch

    from agents.learned.forward import policy_logits, policy_values

    observations, labels = _probe_observations(game)
    probes = torch.as_tensor(observations, dtype=torch.float32)
    with torch.no_grad():
        logits, values = policy_logits(policy, probes), policy_values(policy, probes)
    finite = torch.isfinite(logits).all(dim=1) & torch.isfinite(values.reshape(len(probes)))
    if not bool(finite.all()):
        first = labels[int(torch.nonzero(~finite)[0, 0])]
        raise _bad(
            path,
            "its logits or values are not finite (NaN or infinite) for a probe observation "
            f"({first}): the weights overflow",
        )


def _build_policy(info: Mapping[str, Any]) -> Any:
    """A fresh network of the described kind and shape (CPU)."""
    if info["network"].get("policy") == ACTOR_CRITIC:
        from agents.learned.network import ActorCritic

        g, net = info["game"], info["network"]
        critic = net.get("critic") or {}
        return ActorCritic(
            g["observation_size"],
            g["num_actions"],
            net["trunk"],
            net["activation_fn"],
            critic=critic.get("trunk", ()),
            table_size=critic.get("input_size", 0),
        )
    import gymnasium
    import numpy as np
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    g, net = info["game"], info["network"]
    obs = gymnasium.spaces.Box(0.0, np.inf, shape=(g["observation_size"],), dtype=np.float32)
    act = gymnasium.spaces.Discrete(g["num_actions"])
    return MaskableActorCriticPolicy(
        obs,
        act,
        lr_schedule=lambda _: 0.0,
        net_arch={"pi": list(net["net_arch"]["pi"]), "vf": list(net["net_arch"]["vf"])},
        activation_fn=getattr(torch.nn, net["activation_fn"]),
        share_features_extractor=net["share_features_extractor"],
        ortho_init=False,  # every tensor is then loaded: the QR of SB3's init is wasted time
    ).to("cpu")
