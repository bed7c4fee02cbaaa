"""The project's saved policies: weights in safetensors plus a JSON description. No pickle.

A Stable-Baselines3 ``.zip`` stores its ``data`` entry with cloudpickle, so loading one runs
whatever code its author put in it. A policy saved here is two files instead, side by side:

- ``NAME.safetensors``: the policy network's tensors (``policy.state_dict()``), a format that
  holds only tensors and a JSON header (https://huggingface.co/docs/safetensors);
- ``NAME.json``: what the tensors are (:data:`FORMAT`, :data:`VERSION`): the game they play
  (``num_players``, ``setup``, ``card_set``) with its ``observation_size`` and
  ``num_actions``, the network (``net_arch``, ``activation_fn``), the training config and
  timesteps, and the SHA-256 of the tensor file.

Loading (:func:`load_policy_file`) reads the JSON, checks it against this fort-env's game (the
observation and action sizes must match, so a policy trained before the observation layout
changed is refused with a clear error rather than playing nonsense), builds sb3-contrib's
``MaskableActorCriticPolicy`` from the description and loads the tensors into it (strictly: every
tensor present, every shape right). A checkpoint adds ``NAME.optimizer.safetensors`` (Adam's
moments) so that training resumes where it stopped (:func:`save_checkpoint_files`,
:func:`load_into_model`).

Limits, checked before anything is allocated (:func:`read_description`, then the tensor file's
size and header): a network of at most :data:`MAX_DEPTH` hidden layers per head, each at most
:data:`MAX_LAYER_WIDTH` wide, :data:`MAX_PARAMETERS` parameters in all (the ``full`` training
preset's ``(512, 256)`` has about 2 million: the limits leave 8x room), a description of at most
:data:`MAX_DESCRIPTION_BYTES`; both files must be regular files (a directory, a FIFO, a device
or a link to one is refused from ``os.stat`` alone, never opened); the tensor file's size must be
what the described network implies (its tensors plus a header of at most
:data:`MAX_HEADER_BYTES`), checked before the file is hashed (a sparse file of terabytes, or
``/proc/self/mem``, costs nothing); its header must name exactly the described tensors,
float32, of the described shapes, filling the file. After loading, every weight must be finite
and at most :data:`MAX_WEIGHT` in magnitude, and the network's logits and values must be finite
on probe observations (zeros, ones, the game's opening view and positions of a couple of short
random games: :data:`PROBE_GAMES`); at play time, an agent whose
logits for the observation are not finite raises ``ModelFileError`` rather than pick an action
(``agents.base.masked_softmax``).

A plain SB3 ``.zip`` loads only with an explicit opt-in (:func:`load_sb3_zip`,
``trusted=True``; ``ppo:PATH:trusted=1``; ``fort-env tournament --trust-pickle``);
:func:`convert_sb3_zip` turns a trusted one into this format once.

Needs the ``[train]`` extra (torch, sb3-contrib, safetensors).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fort_env.game.errors import FortError, ModelFileError, describe
from fort_env.game.files import write_bytes, write_text
from fort_env.game.inputs import _not_regular, _os_problem
from fort_env.views.observation import TABLE_PRIVATE_SLICES, table_size_of

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "MAX_LAYER_WIDTH",
    "MAX_PARAMETERS",
    "MAX_WEIGHT",
    "VERSION",
    "check_net_arch",
    "convert_sb3_zip",
    "describe_policy",
    "expected_shapes",
    "is_sb3_zip",
    "layout_fingerprint",
    "load_checkpoint",
    "load_into_model",
    "load_policy_file",
    "load_sb3_zip",
    "missing_model",
    "network_shapes",
    "policy_paths",
    "preset_model",
    "read_description",
    "save_checkpoint_files",
    "save_policy",
    "train_command",
    "trained_num_players",
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
# Limits of a description (module docstring): generous for what `fort-env train` produces (the
# presets' widest network is full's (512, 256), ~2M parameters with the 1,482-entry observation).
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


# --------------------------------------------------------------------------- paths
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
    8-byte length, a JSON header of :data:`MAX_HEADER_BYTES` and the data; at least a length
    and an empty header (``{}``). Checked before the file is hashed or read, so a sparse file of
    terabytes (or ``/proc/self/mem``, 0 bytes) costs nothing; the header (:func:`_check_header`,
    at most ``MAX_HEADER_BYTES`` read) then names a missing or misshapen tensor and checks the
    exact size.

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


# --------------------------------------------------------------------------- describe
def layout_fingerprint(game: Any) -> str:
    """What a policy's inputs and outputs mean, hashed: the observation's slices (name, offset,
    shape), the action ranges (name, start, size) and the card set's contents (every card,
    board, Fort step, Fort Level's points, made-up rule and perk). Two games with the same
    fingerprint give a network the same observation layout and action meanings; a change of
    the rules' encoding or of the cards changes it, so a saved model is refused rather than
    play a game it was not trained for. Returns ``sha256:`` and 16 hex digits.

    Args:
        game: a ``fort_env.FortGame``.
    """
    from fort_env.views.observation import observation_layout

    cards = game.card_set
    facts = {
        "observation": [
            [s.name, s.offset, list(s.shape)]
            for s in observation_layout(game.num_players, game).slices
        ],
        "actions": [list(r) for r in game.layout.ranges()],
        "cards": [repr(c) for c in cards.cards],
        "boards": list(cards.boards),
        "fort_steps": [repr(s) for s in cards.fort_steps],
        "level_points": list(cards.level_points),
        "rules": list(cards.rules),
        "perks": list(cards.perks),
    }
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _game_facts(num_players: int, setup: str, cards: str | None) -> dict[str, Any]:
    from fort_env import FortGame
    from fort_env.game.facts import config_card_set

    game = FortGame(num_players, setup, cards)
    return {
        "num_players": num_players,
        "setup": setup,
        "card_set": config_card_set(game),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_distinct_actions),
        "layout": layout_fingerprint(game),
    }


def describe_policy(policy: Any) -> dict[str, Any]:
    """The ``network`` entry of a description: what :func:`load_policy_file` rebuilds.

    Two kinds: sb3-contrib's ``MaskableActorCriticPolicy`` (``net_arch`` ``{pi, vf}``: two
    towers) and the project's :class:`agents.learned.network.ActorCritic` (``trunk``: one
    shared MLP, ``fort-env train --algo ppo``).

    Raises:
        ModelFileError: a policy this format cannot describe (neither kind, or an SB3 policy
            without a flat observation and an MLP).
    """
    if getattr(policy, "kind", None) == ACTOR_CRITIC:
        if policy.activation_fn not in ACTIVATIONS:
            raise ModelFileError(
                type(policy).__name__, f"activation {policy.activation_fn} is not saved"
            )
        described = {
            "policy": ACTOR_CRITIC,
            "trunk": [int(x) for x in policy.trunk_widths],
            "activation_fn": policy.activation_fn,
            "observation_size": int(policy.observation_size),
            "num_actions": int(policy.num_actions),
        }
        if getattr(policy, "critic", None) is not None:
            described["critic"] = {
                "input": TABLE_INPUT,
                "private_slices": list(TABLE_PRIVATE_SLICES),
                "trunk": [int(x) for x in policy.critic_widths],
                "input_size": int(policy.table_size),
            }
        return described
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if type(policy) is not MaskableActorCriticPolicy:
        raise ModelFileError(type(policy).__name__, "only MaskableActorCriticPolicy is saved")
    if policy.features_extractor_class is not FlattenExtractor:
        raise ModelFileError(type(policy).__name__, "only the flat (MLP) features are saved")
    activation = policy.activation_fn.__name__
    if activation not in ACTIVATIONS:
        raise ModelFileError(type(policy).__name__, f"activation {activation} is not saved")
    obs_space, act_space = policy.observation_space, policy.action_space
    if not isinstance(obs_space, spaces.Box) or len(obs_space.shape) != 1:
        raise ModelFileError(type(policy).__name__, "only flat Box observations are saved")
    if not isinstance(act_space, spaces.Discrete):
        raise ModelFileError(type(policy).__name__, "only Discrete actions are saved")
    arch = policy.net_arch
    if isinstance(arch, list):
        arch = {"pi": list(arch), "vf": list(arch)}
    return {
        "policy": "MaskableActorCriticPolicy",
        "net_arch": {"pi": [int(x) for x in arch["pi"]], "vf": [int(x) for x in arch["vf"]]},
        "activation_fn": activation,
        "share_features_extractor": bool(policy.share_features_extractor),
        "observation_size": int(obs_space.shape[0]),
        "num_actions": int(act_space.n),
    }


def _policy_of(model_or_policy: Any) -> Any:
    return getattr(model_or_policy, "policy", model_or_policy)


def _tensors(state: Mapping[str, Any]) -> dict[str, Any]:
    # own contiguous copies: safetensors refuses tensors that share memory
    return {k: v.detach().cpu().contiguous().clone() for k, v in state.items()}


# --------------------------------------------------------------------------- save
def _write_tensors(path: Path, tensors: Mapping[str, Any]) -> None:
    """Write ``tensors`` as a safetensors file with the permissions of the run's other files.

    ``safetensors.torch.save_file`` creates its file with mode 0600 whatever the umask; the
    bytes go through ``fort_env.game.files.write_bytes`` instead (the umask's mode, 0644 under
    the usual 022, as the description beside it; a fresh file renamed into place, never
    written through a symlink).
    """
    from safetensors.torch import save

    write_bytes(path, save(dict(tensors), metadata={"format": FORMAT}))


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
    ``NAME.json``; returns the ``.safetensors`` path (``agents.make(f"ppo:{path}")``).

    Args:
        model_or_policy: a ``MaskablePPO`` or its ``MaskableActorCriticPolicy``.
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.json``.
        num_players, setup, cards: the game it was trained for (checked: its observation
            and action sizes must be the policy's).
        training: the training configuration, kept in the description (JSON-able).
        timesteps: learner timesteps trained (default: the model's ``num_timesteps``).

    Raises:
        ModelFileError: the policy does not fit that game, or cannot be described.
    """
    policy = _policy_of(model_or_policy)
    weights, description = policy_paths(path)
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
    weights.parent.mkdir(parents=True, exist_ok=True)
    _write_tensors(weights, _tensors(policy.state_dict()))
    info = {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "network": network,
        "training": None if training is None else dict(training),
        "timesteps": None if timesteps is None else int(timesteps),
        "weights": weights.name,
        "sha256": _sha256(weights),
    }
    write_text(description, json.dumps(info, indent=1) + "\n")
    return weights


# --------------------------------------------------------------------------- load
def _short(exc: BaseException) -> str:
    """An exception's message on one line, at most 300 characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _bad(path: Path, problem: str) -> ModelFileError:
    return ModelFileError(path, problem)


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 1 << 16 for x in value
    )


def check_net_arch(layers: Any, what: str = "net_arch") -> list[int]:
    """``layers``, a list of hidden layer widths, within :data:`MAX_DEPTH` and
    :data:`MAX_LAYER_WIDTH` (each an int >= 1).

    Raises:
        ValueError: otherwise (names ``what`` and the limit).
    """
    if not isinstance(layers, list) or len(layers) > MAX_DEPTH:
        raise ValueError(f"{what} must be a list of at most {MAX_DEPTH} layer widths")
    for x in layers:
        if not isinstance(x, int) or isinstance(x, bool) or not 1 <= x <= MAX_LAYER_WIDTH:
            raise ValueError(
                f"{what}: a layer width must be an int in [1, {MAX_LAYER_WIDTH}], got {describe(x)}"
            )
    return layers


def expected_shapes(
    observation_size: int, num_actions: int, pi: list[int], vf: list[int]
) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` shapes of the ``MaskableActorCriticPolicy`` a description names
    (an MLP per head, ``nn.Sequential`` of Linear and activation; flat features have no
    tensors), computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    last = {}
    for head, layers in (("policy_net", pi), ("value_net", vf)):
        prev = observation_size
        for i, width in enumerate(layers):
            shapes[f"mlp_extractor.{head}.{2 * i}.weight"] = (width, prev)
            shapes[f"mlp_extractor.{head}.{2 * i}.bias"] = (width,)
            prev = width
        last[head] = prev
    shapes["action_net.weight"] = (num_actions, last["policy_net"])
    shapes["action_net.bias"] = (num_actions,)
    shapes["value_net.weight"] = (1, last["value_net"])
    shapes["value_net.bias"] = (1,)
    return shapes


def network_shapes(game: Mapping[str, Any], net: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` shapes of a (checked) description's network, of either kind."""
    if net["policy"] == ACTOR_CRITIC:
        from agents.learned.network import actor_critic_shapes

        critic = net.get("critic") or {}
        return actor_critic_shapes(
            game["observation_size"],
            game["num_actions"],
            net["trunk"],
            critic.get("trunk", ()),
            critic.get("input_size", 0),
        )
    arch = net["net_arch"]
    return expected_shapes(game["observation_size"], game["num_actions"], arch["pi"], arch["vf"])


def _parameter_count(shapes: Mapping[str, tuple[int, ...]]) -> int:
    total = 0
    for shape in shapes.values():
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def read_description(path: str | Path) -> dict[str, Any]:
    """The checked JSON description of a saved policy (``NAME``, either of its files).

    Raises:
        ModelFileError: a missing file, a pickled SB3 zip, or a description that is not
            valid JSON of this :data:`FORMAT` and :data:`VERSION` (names the field), or a
            network over the limits (module docstring).
    """
    from fort_env.game.inputs import read_text_file

    weights, description = policy_paths(path)
    given = Path(path)
    if is_sb3_zip(given):
        raise _bad(given, f"{PICKLE_RISK}; it is not loaded without trusted=True")
    for p in (weights, description):
        _regular_size(p)  # missing, or not a regular file: a FIFO, a device, a directory
    try:
        text = read_text_file(description, "policy description", MAX_DESCRIPTION_BYTES)
    except ValueError as exc:  # InputFileError: not a regular file, too big, not UTF-8
        raise _bad(description, getattr(exc, "problem", str(exc))) from None
    try:
        info = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _bad(description, f"not a JSON description: {_short(exc)}") from None
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise _bad(description, f"not a {FORMAT} description (field 'format')")
    if info.get("version") != VERSION:
        raise _bad(
            description, f"version {describe(info.get('version'))}; this fort-env reads {VERSION}"
        )
    game, net = info.get("game"), info.get("network")
    if not isinstance(game, dict) or not isinstance(net, dict):
        raise _bad(description, "fields 'game' and 'network' must be objects")
    checks = {
        "game.num_players": game.get("num_players") in (2, 3, 4)
        and not isinstance(game.get("num_players"), bool),
        "game.setup": game.get("setup") in ("basic", "advanced"),
        "game.card_set": "card_set" in game
        and (game["card_set"] is None or isinstance(game["card_set"], str)),
        "game.observation_size": _int_list([game.get("observation_size")]),
        "game.num_actions": _int_list([game.get("num_actions")]),
        "game.layout": "layout" not in game  # policies saved before the fingerprint
        or (isinstance(game["layout"], str) and len(game["layout"]) <= 80),
        "network.policy": net.get("policy") in (SB3_POLICY, ACTOR_CRITIC),
        "network.activation_fn": net.get("activation_fn") in ACTIVATIONS,
        "sha256": isinstance(info.get("sha256"), str),
    }
    if net.get("policy") == ACTOR_CRITIC:
        checks["network.trunk"] = _int_list(net.get("trunk")) and len(net["trunk"]) >= 1
        critic = net.get("critic")
        checks["network.critic"] = critic is None or (
            isinstance(critic, dict)
            and set(critic) == {"input", "private_slices", "trunk", "input_size"}
            and critic["input"] == TABLE_INPUT
            and critic["private_slices"] == list(TABLE_PRIVATE_SLICES)
            and _int_list(critic["trunk"])
            and len(critic["trunk"]) >= 1
            and _int_list([critic["input_size"]])
        )
    else:
        checks["network.net_arch"] = (
            isinstance(net.get("net_arch"), dict)
            and set(net["net_arch"]) == {"pi", "vf"}
            and all(_int_list(v) for v in net["net_arch"].values())
        )
        checks["network.share_features_extractor"] = isinstance(
            net.get("share_features_extractor"), bool
        )
    for field, ok in checks.items():
        if not ok:
            raise _bad(description, f"field {field!r} is missing or malformed")
    layers = {"trunk": net["trunk"]} if net["policy"] == ACTOR_CRITIC else dict(net["net_arch"])
    if net["policy"] == ACTOR_CRITIC and net.get("critic") is not None:
        layers["critic.trunk"] = net["critic"]["trunk"]
        try:
            table = table_size_of(game["observation_size"], game["num_players"])
        except ValueError as exc:
            raise _bad(description, f"field 'game.observation_size': {exc}") from None
        if net["critic"]["input_size"] != table:
            raise _bad(
                description,
                f"field 'network.critic.input_size': the whole-table critic reads "
                f"{net['critic']['input_size']} features; a {game['num_players']}-player "
                f"table observation of this game has {table} (a critic of another layout)",
            )
    for head, widths in layers.items():
        where = head if head in ("trunk", "critic.trunk") else f"net_arch.{head}"
        try:
            check_net_arch(widths, f"field 'network.{where}'")
        except ValueError as exc:
            raise _bad(description, str(exc)) from None
    shapes = network_shapes(game, net)
    count = _parameter_count(shapes)
    if count > MAX_PARAMETERS:
        raise _bad(
            description,
            f"the described network has {count} parameters; the limit is {MAX_PARAMETERS}",
        )
    return info


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


def trained_num_players(path: str | Path) -> int:
    """The player count a saved policy was trained for (its description's ``game``); 2-4.

    The observation has the same size at every count, so only the description tells.

    Raises:
        ModelFileError: as :func:`read_description`.
    """
    return int(read_description(path)["game"]["num_players"])


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
    from safetensors import SafetensorError
    from safetensors.torch import load_file

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
    # the size, then the header (at most MAX_HEADER_BYTES read), then the hash: a sparse file
    # of terabytes, or /proc/self/mem (size 0), is refused before a byte of it is hashed
    _check_size(
        weights, _regular_size(weights), 4 * _parameter_count(shapes), "the described network"
    )
    _check_header(weights, shapes)
    if check_hash and _sha256(weights) != info["sha256"]:
        raise _bad(weights, "its SHA-256 differs from the description's (not the same save)")
    try:
        tensors = load_file(str(weights), device="cpu")
    except (SafetensorError, OSError, ValueError) as exc:
        raise _bad(weights, f"not a safetensors file: {_short(exc)}") from None
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

    from agents.learned.ppo import policy_logits, policy_values

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
    """Save the policy of a trusted SB3 ``.zip`` in this format (:func:`save_policy`).

    Raises:
        ModelFileError: not ``trusted`` (see :func:`load_sb3_zip`), or a mismatch.
    """
    policy = load_sb3_zip(zip_path, trusted=trusted)
    return save_policy(policy, out, num_players=num_players, setup=setup, cards=cards)


# --------------------------------------------------------------------------- checkpoints
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
    """:func:`save_policy` plus the optimizer's state (``NAME.optimizer.safetensors``, its
    param groups in the description's ``optimizer``), for :func:`load_into_model` (a
    MaskablePPO) or :func:`load_checkpoint` (a network and its optimizer).

    Args:
        model: a ``MaskablePPO`` (its policy's optimizer is saved), or a network with
            ``optimizer`` given.
        optimizer: the network's optimizer (required for a bare network).
        timesteps: as :func:`save_policy`'s.
    """
    weights = save_policy(
        model, path, num_players=num_players, setup=setup, training=training, timesteps=timesteps
    )
    _, description = policy_paths(weights)
    tensors, rest = _optimizer_tensors(
        optimizer if optimizer is not None else model.policy.optimizer
    )
    opt_path = weights.with_name(weights.name[: -len(WEIGHTS_SUFFIX)] + OPTIMIZER_SUFFIX)
    _write_tensors(opt_path, tensors)
    info = json.loads(description.read_text(encoding="utf-8"))
    info["optimizer"] = {**rest, "sha256": _sha256(opt_path), "file": opt_path.name}
    write_text(description, json.dumps(info, indent=1) + "\n")
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
    from safetensors import SafetensorError
    from safetensors.torch import load_file

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
        size = _regular_size(opt_path)  # before the hash: a sparse file costs nothing
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
        if _sha256(opt_path) != opt.get("sha256"):
            raise _bad(opt_path, "missing, or not the optimizer state of this checkpoint")
        try:
            tensors = load_file(str(opt_path), device="cpu")
            scalars = opt.get("scalars", {})
            if not isinstance(scalars, dict):
                raise ValueError("its 'scalars' is not an object")
            state: dict[int, dict[str, Any]] = {}
            for name, value in [*tensors.items(), *scalars.items()]:
                _, index, key = str(name).split(".", 2)
                state.setdefault(int(index), {})[key] = value
            groups = opt.get("param_groups")
            optimizer.load_state_dict({"state": state, "param_groups": groups})
        except (SafetensorError, OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
            raise _bad(opt_path, f"does not fit the optimizer: {_short(exc)}") from None
    return info
