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

This module gathers the format's public names; each job lives in its own module, lowest
first: ``policy_format`` (names, limits, paths), ``tensor_file`` (the guarded reads and writes
of a safetensors file), ``policy_description`` (the description made and checked),
``policy_io`` (save and load), ``sb3_zip`` (pickled zips, on trust) and
``policy_checkpoint`` (the optimizer's state beside a policy).

Needs the ``[train]`` extra (torch, sb3-contrib, safetensors).
"""

from __future__ import annotations

from agents.learned.policy_checkpoint import (
    load_checkpoint,
    load_initial_weights,
    load_into_model,
    save_checkpoint_files,
)
from agents.learned.policy_description import (
    check_net_arch,
    describe_policy,
    expected_shapes,
    layout_fingerprint,
    network_shapes,
    read_description,
    trained_num_players,
)
from agents.learned.policy_format import (
    ACTIVATIONS,
    ACTOR_CRITIC,
    FORMAT,
    MAX_DEPTH,
    MAX_DESCRIPTION_BYTES,
    MAX_HEADER_BYTES,
    MAX_LAYER_WIDTH,
    MAX_PARAMETERS,
    MAX_WEIGHT,
    OPTIMIZER_SUFFIX,
    PICKLE_RISK,
    SB3_POLICY,
    TABLE_INPUT,
    VERSION,
    WEIGHTS_SUFFIX,
    is_sb3_zip,
    missing_model,
    policy_paths,
    preset_model,
    train_command,
)
from agents.learned.policy_io import (
    PROBE_ACTIONS,
    PROBE_EVERY,
    PROBE_GAMES,
    copy_policy,
    load_policy_file,
    save_policy,
)
from agents.learned.sb3_zip import convert_sb3_zip, load_sb3_zip

__all__ = [
    "ACTIVATIONS",
    "ACTOR_CRITIC",
    "FORMAT",
    "MAX_DEPTH",
    "MAX_DESCRIPTION_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_LAYER_WIDTH",
    "MAX_PARAMETERS",
    "MAX_WEIGHT",
    "OPTIMIZER_SUFFIX",
    "PICKLE_RISK",
    "PROBE_ACTIONS",
    "PROBE_EVERY",
    "PROBE_GAMES",
    "SB3_POLICY",
    "TABLE_INPUT",
    "VERSION",
    "WEIGHTS_SUFFIX",
    "check_net_arch",
    "convert_sb3_zip",
    "copy_policy",
    "describe_policy",
    "expected_shapes",
    "is_sb3_zip",
    "layout_fingerprint",
    "load_checkpoint",
    "load_initial_weights",
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
