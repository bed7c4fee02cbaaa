"""Training scripts and presets for fort-env agents (``train.selfplay``, ``fort-env train``).

Importing this package registers the ``ppo:PATH`` agent (``agents.ppo``) in the bot zoo's
registry; ``agents.make("ppo:...")`` imports it on first use. The training modules themselves
(torch, stable-baselines3) load only when used.
"""

from __future__ import annotations

import agents as _agents


def _make_ppo(args: str | None) -> _agents.Agent:
    from agents.ppo import make_ppo_agent

    return make_ppo_agent(args)


if "ppo" not in _agents.available():
    _agents.register("ppo", _make_ppo)
