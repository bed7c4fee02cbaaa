"""Gymnasium's registry: ``gymnasium.make("fort_env/Fort-v0", ...)``.

Importing ``fort_env`` registers :data:`GYM_ID` with Gymnasium, so

>>> import gymnasium, fort_env
>>> env = gymnasium.make("fort_env/Fort-v0", num_players=3)

gives :class:`fort_env.envs.single_agent.SingleAgentEnv` (the single-agent view of one learner seat
against opponents; its module docstring is the spec), wrapped as ``gymnasium.make`` wraps every
env (order enforcing, the passive env checker) and with ``env.spec`` set. The keyword arguments
are ``SingleAgentEnv``'s: ``num_players``, ``setup``, ``opponents``, ``seat``, ``reward``,
``shaping``, ``render_mode``, ...

Opponents default to a uniform random masked policy built into ``fort_env``; pass the bots of
the zoo as objects or as spec strings (built by the zoo's registry:
``fort_env.envs.opponent_specs``)::

    env = gymnasium.make("fort_env/Fort-v0", num_players=2, opponents="heuristic")
    import agents
    env = gymnasium.make("fort_env/Fort-v0", num_players=2, opponents=agents.make("heuristic"))

A game ends by the rules, so there is no step limit (``max_episode_steps=None``).

``gymnasium.make_vec(GYM_ID, num_envs=B, vectorization_mode="vector_entry_point", ...)`` gives
:class:`fort_env.envs.gym_vector.FortVectorEnv`: B games stepped together in C++ (same-step
autoreset); ``vectorization_mode="sync"`` or ``"async"`` gives Gymnasium's own vector envs of
``SingleAgentEnv`` (next-step autoreset).
"""

from __future__ import annotations

import gymnasium

GYM_ID = "fort_env/Fort-v0"
ENTRY_POINT = "fort_env.envs.single_agent:SingleAgentEnv"
# gymnasium.make_vec(GYM_ID, num_envs=B, vectorization_mode="vector_entry_point"): B games
# stepped in C++ behind Gymnasium's VectorEnv API (fort_env.envs.gym_vector: its docstring)
VECTOR_ENTRY_POINT = "fort_env.envs.gym_vector:FortVectorEnv"

__all__ = ["ENTRY_POINT", "GYM_ID", "VECTOR_ENTRY_POINT", "register"]


def register() -> None:
    """Register :data:`GYM_ID` in Gymnasium's registry (a no-op if it is already there)."""
    if GYM_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=GYM_ID,
        entry_point=ENTRY_POINT,
        vector_entry_point=VECTOR_ENTRY_POINT,
        nondeterministic=False,
    )


register()
