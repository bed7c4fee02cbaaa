"""A saved policy's JSON description: what it holds, made from a network and checked on read.

:func:`describe_policy` says what network a policy is (either kind), :func:`layout_fingerprint`
what its inputs and outputs mean in this fort-env's game; :func:`read_description` reads a
description back, every field checked (format, version, the game, the network and its limits:
``MAX_DEPTH``, ``MAX_LAYER_WIDTH``, ``MAX_PARAMETERS``) before anything is allocated;
:func:`network_shapes` gives the ``state_dict`` shapes a checked description implies.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.learned.policy_format import (
    ACTIVATIONS,
    ACTOR_CRITIC,
    FORMAT,
    MAX_DEPTH,
    MAX_DESCRIPTION_BYTES,
    MAX_LAYER_WIDTH,
    MAX_PARAMETERS,
    PICKLE_RISK,
    SB3_POLICY,
    TABLE_INPUT,
    VERSION,
    _bad,
    _parameter_count,
    _short,
    is_sb3_zip,
    policy_paths,
)
from agents.learned.tensor_file import _regular_size
from fort_env.game.errors import ModelFileError, describe
from fort_env.views.observation import TABLE_PRIVATE_SLICES, table_size_of

__all__ = [
    "check_net_arch",
    "describe_policy",
    "expected_shapes",
    "layout_fingerprint",
    "network_shapes",
    "read_description",
    "trained_num_players",
]


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
    """The ``network`` entry of a description: what
    :func:`~agents.learned.policy_io.load_policy_file` rebuilds.

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


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 1 << 16 for x in value
    )


def check_net_arch(layers: Any, what: str = "net_arch") -> list[int]:
    """``layers``, a list of hidden layer widths, within
    :data:`~agents.learned.policy_format.MAX_DEPTH` and
    :data:`~agents.learned.policy_format.MAX_LAYER_WIDTH` (each an int >= 1).

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


def read_description(path: str | Path) -> dict[str, Any]:
    """The checked JSON description of a saved policy (``NAME``, either of its files).

    Raises:
        ModelFileError: a missing file, a pickled SB3 zip, or a description that is not
            valid JSON of this :data:`~agents.learned.policy_format.FORMAT` and
            :data:`~agents.learned.policy_format.VERSION` (names the field), or a network over
            the limits (module docstring).
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
    problem = _sidecar_problem(info)
    if problem is not None:
        raise _bad(description, problem)
    return info


MAX_TIMESTEPS = 2**63 - 1
"""The most timesteps a description may record (an int64, as torch and numpy count)."""


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _param_group_problem(where: str, group: Any) -> str | None:
    """What is wrong with an optimizer param group of a description (``None``: nothing):
    ``params`` a list of tensor indices, every number finite (``lr``, ``eps`` and
    ``weight_decay`` >= 0, ``betas`` two numbers in [0, 1)), nothing but numbers, bools,
    strings, ``null`` and lists of numbers, as ``torch.optim.Adam.state_dict`` gives."""
    if not isinstance(group, dict):
        return f"field {where!r} must be an object"
    params = group.get("params")
    if not isinstance(params, list) or not all(_is_int(x, 0, 1 << 20) for x in params):
        return f"field '{where}.params' must be a list of tensor indices"
    for key, value in group.items():
        field = f"{where}.{key}"
        if key == "params":
            continue
        if isinstance(value, list):
            if not all(_is_number(x) for x in value):
                return f"field {field!r} must hold finite numbers, got {describe(value)}"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if not _is_number(value):
                return f"field {field!r} must be finite, got {describe(value)}"
        elif value is not None and not isinstance(value, (bool, str)):
            return f"field {field!r} is not a setting of an optimizer: {describe(value)}"
    for key in ("lr", "eps", "weight_decay"):
        if key in group and not (_is_number(group[key]) and group[key] >= 0):
            return f"field '{where}.{key}' must be a finite number >= 0, got {describe(group[key])}"
    betas = group.get("betas")
    if "betas" in group and not (
        isinstance(betas, list) and len(betas) == 2 and all(0 <= b < 1 for b in betas)
    ):
        return f"field '{where}.betas' must be two numbers in [0, 1), got {describe(betas)}"
    return None


def _sidecar_problem(info: Mapping[str, Any]) -> str | None:
    """What is wrong with a description's fields beside the game and the network (``None``:
    nothing), so that a run that reads them (``value-fit``, ``expert``, ``train --resume``)
    fails at load, not when it saves after its games:

    - ``sha256``: 64 lowercase hex digits;
    - ``training``: an object (the record of how it was made) or ``null``;
    - ``timesteps``: an int in [0, :data:`MAX_TIMESTEPS`] or ``null``;
    - ``weights``: a file name, if present;
    - ``optimizer`` (a checkpoint's), if present: an object whose ``file`` is a file name,
      ``sha256`` 64 hex digits, ``param_groups`` a list of at most 64 param groups
      (:func:`_param_group_problem`: finite numbers), ``scalars`` an object of finite numbers.
    """
    if not _is_sha256(info.get("sha256")):
        return f"field 'sha256' must be 64 hex digits, got {describe(info.get('sha256'))}"
    training = info.get("training")
    if training is not None and not isinstance(training, dict):
        return f"field 'training' must be an object or null, got {describe(training)}"
    steps = info.get("timesteps")
    if steps is not None and not _is_int(steps, 0, MAX_TIMESTEPS):
        return f"field 'timesteps' must be an int in [0, 2**63 - 1] or null, got {describe(steps)}"
    if "weights" in info and not _is_file_name(info["weights"]):
        return f"field 'weights' must be a file name, got {describe(info['weights'])}"
    if "optimizer" not in info or info["optimizer"] is None:
        return None
    opt = info["optimizer"]
    if not isinstance(opt, dict):
        return f"field 'optimizer' must be an object, got {describe(opt)}"
    if not _is_file_name(opt.get("file")):
        return "field 'optimizer.file' is not a file name"
    if not _is_sha256(opt.get("sha256")):
        return f"field 'optimizer.sha256' must be 64 hex digits, got {describe(opt.get('sha256'))}"
    groups = opt.get("param_groups")
    if not isinstance(groups, list) or not 1 <= len(groups) <= 64:
        return "field 'optimizer.param_groups' must be a list of 1 to 64 param groups"
    for i, group in enumerate(groups):
        problem = _param_group_problem(f"optimizer.param_groups[{i}]", group)
        if problem is not None:
            return problem
    scalars = opt.get("scalars", {})
    if not isinstance(scalars, dict) or not all(_is_number(v) for v in scalars.values()):
        return "field 'optimizer.scalars' must be an object of finite numbers"
    return None


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch("[0-9a-f]{64}", value) is not None


def _is_file_name(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value not in ("", ".", "..")
        and Path(value).name == value
        and "\x00" not in value
    )


def trained_num_players(path: str | Path) -> int:
    """The player count a saved policy was trained for (its description's ``game``); 2-4.

    The observation has the same size at every count, so only the description tells.

    Raises:
        ModelFileError: as :func:`read_description`.
    """
    return int(read_description(path)["game"]["num_players"])
