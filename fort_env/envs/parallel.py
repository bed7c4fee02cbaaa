"""Fort as a PettingZoo ``ParallelEnv``: ``fort_env.parallel_env()``, a view of the turn-based game.

=================  =============================================================================
Creation           ``fort_env.parallel_env(num_players=..., ...)``: the keyword arguments of
                   ``fort_env.env()`` (``setup``, ``render_mode``, ``reward``, ``cards``,
                   ``max_decisions``)
Actions            ``Discrete(N + 1)``: the AEC env's N actions, then ``WAIT = N``
Agents             ``player_0`` .. ``player_{n-1}``, as the AEC env's
Observation        ``Dict(observation=Box(float32, (D,)), action_mask=Box(0, 1, (N + 1,), int8))``
=================  =============================================================================

Fort is turn-based: one seat decides at a time (``fort_env.envs.aec``'s module docstring is the
game's spec). This view steps every live agent at once, as a ``ParallelEnv`` does, with one
convention that keeps masked sampling sound.

The mask convention: ``WAIT``
-----------------------------

The action space is ``Discrete(N + 1)``: the AEC env's ``N`` actions and one more, ``WAIT = N``
(``env.wait_action``).

- The seat to act: its ``action_mask`` is the AEC env's mask (its legal actions, at least one)
  with ``WAIT`` illegal (0).
- Every other live seat: ``WAIT`` is its one legal action (``action_mask`` is 1 at ``N`` and 0
  elsewhere).

So no observation ever has an all-zero mask, not even the final one of an ended game (``WAIT``
only): a masked softmax or ``Discrete.sample(mask=...)`` always has something to draw.
PettingZoo's ``turn_based_aec_to_parallel`` hands the waiting seats the AEC env's all-zero
masks instead, which breaks IPPO/MAPPO-style masked sampling (NaN log-probabilities, or an
exception from ``sample``). ``infos[agent]`` carries the same mask as ``"action_mask"`` and
``"acting"``: whether the agent is the seat to act (its transition is a real decision; a
waiting seat's ``WAIT`` steps change nothing).

``step(actions)``
-----------------

``actions`` maps agents to actions. The seat to act must be in it, with an action its mask
allows; every other live seat sends ``WAIT`` or may be left out (a missing waiting seat waits).
An action that breaks this raises before anything changes (the game, its record, ``agents``):

- the acting seat's action not legal (``WAIT`` included): :class:`IllegalActionError`, the
  error the AEC env raises (``raw_env``'s, not the ``TerminateIllegalWrapper``'s game end);
  not an integer: ``TypeError``; ``None``: ``ValueError``;
- a waiting seat's action other than ``WAIT``: :class:`IllegalActionError` naming the agent and
  the seat to act; not an integer: ``TypeError`` naming the agent;
- the acting seat missing, or a key that is not a live agent: ``ValueError``.

(:class:`IllegalActionError` is a ``ValueError``.) Being strict costs nothing with PettingZoo's
``parallel_api_test``, which samples each agent's action from its observation's mask.

It returns, for every agent live before the step, its observation, the step's reward (the AEC
env's per-step reward: 0 until the game ends, then each agent's final reward by the ``reward``
mode), terminated, truncated and info. When the game ends (by the rules, or truncated at
``max_decisions``) every agent terminates (or truncates) together and ``agents`` becomes empty;
a ``step`` after that warns and returns empty dicts (call ``reset()``).

Other methods
-------------

``reset(seed=s)`` deals the AEC env's game ``reset(seed=s)`` deals (``seed=None``: the AEC env's
seeding); ``state()`` and ``state_space`` are the AEC env's (every seat's observation, seat 0
first); ``render()`` is the AEC env's (``render_mode`` ``None``, ``"human"``, ``"ansi"``).
``aec_env`` is the underlying ``raw_env`` (for ``to_record()``, ``fort_state()``,
``action_to_string()``...): read it, do not step it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils.env_logger import EnvLogger

from fort_env.envs.aec import raw_env
from fort_env.game.errors import IllegalActionError, describe
from fort_env.game.inputs import as_action

Observation = dict[str, np.ndarray]


def parallel_env(**kwargs: Any) -> FortParallelEnv:
    """Fort as a PettingZoo ``ParallelEnv``: ``FortParallelEnv(**kwargs)``, with the keyword
    arguments of ``fort_env.env()`` (the module docstring gives the ``WAIT`` convention)."""
    return FortParallelEnv(**kwargs)


class FortParallelEnv(ParallelEnv):  # type: ignore[no-any-unimported]
    """The turn-based game as a PettingZoo ``ParallelEnv`` (the module docstring is its spec).

    Mask convention: ``Discrete(N + 1)`` actions, ``WAIT = N`` (``wait_action``). The seat to
    act has the AEC env's mask with ``WAIT`` illegal; every other live seat has ``WAIT`` as its
    only legal action. No mask is ever all zeros (PettingZoo's ``turn_based_aec_to_parallel``
    gives waiting seats all-zero masks, which breaks IPPO/MAPPO-style masked sampling).

    Args:
        num_players: 2, 3 or 4.
        setup: ``"basic"`` or ``"advanced"``.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
        reward: ``"win_loss"``, ``"rank"`` or ``"score_margin"``.
        cards: a card data directory, or ``None`` for the shipped set.
        max_decisions: truncate after this many decisions, or ``None``.

    Raises:
        ConfigError: a bad argument (as ``fort_env.env()``).
        CardDataError: malformed card data.
    """

    metadata: ClassVar[dict[str, Any]] = {**raw_env.metadata, "is_parallelizable": True}

    def __init__(
        self,
        num_players: int = 4,
        setup: str = "basic",
        render_mode: str | None = None,
        reward: str = "win_loss",
        cards: str | Path | None = None,
        max_decisions: int | None = None,
    ) -> None:
        self.aec_env = raw_env(
            num_players=num_players,
            setup=setup,
            render_mode=render_mode,
            reward=reward,
            cards=cards,
            max_decisions=max_decisions,
        )
        self.render_mode = render_mode
        self.possible_agents: list[str] = self.aec_env.possible_agents[:]
        self.agents: list[str] = []
        n = self.aec_env.game.num_distinct_actions
        self.wait_action = n  # WAIT: the one legal action of every seat that is not to act
        aec_space = self.aec_env.observation_space(self.possible_agents[0])
        assert isinstance(aec_space, spaces.Dict)
        box = aec_space["observation"]  # the AEC env's own Box object
        obs_space = spaces.Dict(
            {
                "observation": box,
                "action_mask": spaces.Box(0, 1, shape=(n + 1,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(n + 1)
        # one object each, shared by every agent: the same object on every call
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = self.aec_env.state_space
        self._wait_mask = np.zeros(n + 1, dtype=np.int8)
        self._wait_mask[n] = 1
        self._has_reset = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ Parallel API
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Deal a new game, as the AEC env's ``reset(seed, options)``; every agent's
        observation and info.

        Raises:
            ConfigError: a seed out of range.
        """
        self.aec_env.reset(seed=seed, options=options)
        self._has_reset = True
        self.agents = self.possible_agents[:]
        return self._views(self.agents)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply the acting seat's action; every other live seat waits (module docstring).

        Returns:
            Observations, rewards, terminations, truncations and infos of every agent live
            before the step.

        Raises:
            IllegalActionError: the acting seat's action is not legal (``WAIT`` included), or
                a waiting seat's action is not ``WAIT``; nothing changes.
            TypeError: an action is not an integer; nothing changes.
            ValueError: the acting seat has no action, or a key is not a live agent.
            RuntimeError: before ``reset()``.
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return {}, {}, {}, {}, {}
        aec = self.aec_env
        actor = aec.agent_selection
        unknown = [agent for agent in actions if agent not in self.agents]
        if unknown:
            raise ValueError(
                f"actions for agents that are not live: {describe(unknown)} (live: {self.agents})"
            )
        if actor not in actions:
            raise ValueError(f"no action for {actor}, the seat to act")
        for agent, action in actions.items():
            if agent != actor:
                self._check_wait(agent, action, actor)
        aec.step(actions[actor])  # raises, changing nothing, if the action is not legal
        live = self.agents
        rewards = {agent: float(aec.rewards[agent]) for agent in live}
        terminations = {agent: bool(aec.terminations[agent]) for agent in live}
        truncations = {agent: bool(aec.truncations[agent]) for agent in live}
        observations, infos = self._views(live)
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _check_wait(self, agent: str, action: Any, actor: str) -> None:
        """Raise unless ``action`` is ``WAIT`` (``agent`` is not the seat to act)."""
        try:
            value = as_action(action)
        except TypeError as e:
            raise TypeError(f"{agent} (waiting; {actor} is to act): {e}") from None
        if value != self.wait_action:
            decision = self.aec_env.fort_state().decision.kind.name
            raise IllegalActionError(
                value,
                decision,
                f"not legal for {agent}: {agent} is not to act ({actor} is), its only legal "
                f"action is WAIT = {self.wait_action}",
            )

    def _views(self, agents: list[str]) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Each agent's observation and info, with the ``WAIT`` convention's masks."""
        aec = self.aec_env
        observations: dict[str, Observation] = {}
        infos: dict[str, dict[str, Any]] = {}
        for agent in agents:
            view = aec.observe(agent)
            small = view["action_mask"]  # fresh; all zeros unless the agent is to act
            acting = bool(small.any())
            if acting:
                mask = np.zeros(self.wait_action + 1, dtype=np.int8)
                mask[: self.wait_action] = small
            else:
                mask = self._wait_mask.copy()
            observations[agent] = {"observation": view["observation"], "action_mask": mask}
            info: dict[str, Any] = dict(aec.infos.get(agent, {}))
            info["action_mask"] = mask.copy()
            info["acting"] = acting
            infos[agent] = info
        return observations, infos

    def state(self) -> np.ndarray:
        """The AEC env's global view: every seat's observation, seat 0 first, float32."""
        return self.aec_env.state()  # type: ignore[no-any-return]

    def render(self) -> str | None:
        """The AEC env's ``render()``: the table as text (``"ansi"`` returns it)."""
        return self.aec_env.render()  # type: ignore[no-any-return]

    def close(self) -> None:
        """Nothing to release."""
        self.aec_env.close()
