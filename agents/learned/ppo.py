"""``ppo:PATH``: a policy trained with MaskablePPO (``train/selfplay.py``), as an agent.

``agents.make("ppo:runs/quick/latest/model.safetensors")`` loads a policy saved by
``agents.learned.policy_file.save_policy`` (``model.safetensors`` + ``model.json``: tensors and a
JSON description, checked against the game; nothing is unpickled) and plays it at any seat of a game
of the size it was trained for: it reads ``observation["observation"]`` (the seat's own view,
as the learner saw it in training) and ``observation["action_mask"]``, and never takes a masked
action. Arguments after the path, ``ppo:PATH:deterministic=0``, are passed to
:class:`PPOAgent`: ``deterministic=1`` (default) takes the most probable legal action,
``deterministic=0`` samples from the masked policy with the agent's own seeded generator (so
``seed()`` makes it reproducible). The path may not contain ``:``.

A Stable-Baselines3 ``.zip`` (``MaskablePPO.save``) is pickled: loading it runs any code its
author put in it, so it loads only with ``ppo:PATH.zip:trusted=1`` (``trusted=True``), for a
file whose origin you trust; without it the agent raises ``ModelFileError`` and reads nothing.

A policy whose logits for an observation are not finite (NaN or infinite) never plays: the
agent raises ``ModelFileError`` instead of picking an action from them (the load-time checks
of ``agents.learned.policy_file`` refuse most such files first).

Loaded policies are cached per process by (path, modification time), so a league of frozen
snapshots loads each file once. Needs the ``[train]`` extra (torch, sb3-contrib, safetensors).
"""

from __future__ import annotations

from typing import Any

# the agent and the forward passes live below the zoo (which plays PPOAgent), so that this
# module, which builds either, closes no import circle; their names stay importable from here
from agents.learned.forward import policy_logits, policy_observation_size, policy_values
from agents.learned.ppo_agent import PPOAgent, load_policy

__all__ = [
    "PPOAgent",
    "load_policy",
    "make_ppo_agent",
    "policy_logits",
    "policy_observation_size",
    "policy_values",
]


def make_ppo_agent(args: str | None) -> Any:
    """The registry factory: ``args`` is ``PATH[:key=value...]`` (``agents.make("ppo:...")``;
    a path holding ``:`` is quoted, ``ppo:"C:/m.safetensors"``), or, without a path, the
    shipped model (``agents.learned.zoo``): ``ppo``, ``ppo:players=N``, ``ppo:deterministic=0``.
    Read by ``agents.spec``: with a path it takes ``deterministic`` and ``trusted``, without
    one ``players`` and ``deterministic``.

    Raises:
        ValueError: a bad ``key=value`` argument (``agents.spec.SpecError``: ``deterministic``
            and ``trusted`` are taken, each 0 or 1; ``players`` 2-4 without a path).
        ModelFileError: the file does not load (:func:`load_policy`), or no model ships for
            ``players``.
    """
    from agents.spec import Param, convert, parse

    deterministic = Param("deterministic", bool, True)
    spec = parse(f"ppo:{args}" if args else "ppo")
    if spec.path is None:  # no path: the zoo's model (ppo, ppo:players=4, ...)
        from agents.learned.zoo import ZooAgent

        zoo = {"players": Param("players", int), "deterministic": deterministic}
        kwargs = convert("ppo", spec.args, zoo)
        if kwargs.get("players", 2) not in (2, 3, 4):
            raise ValueError(f"ppo: players must be 2, 3 or 4, got {kwargs['players']!r}")
        return ZooAgent(kwargs.get("players"), kwargs.get("deterministic", True))
    params = {"deterministic": deterministic, "trusted": Param("trusted", bool, False)}
    return PPOAgent(spec.path, **convert("ppo", spec.args, params))
