"""The wrappers of ``fort_env.envs.aec.env()``: PettingZoo's classic-env wrappers
(``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``) as
subclasses that read the episode attributes straight from the raw env, and refuse what the raw
env refuses with the raw env's errors (``fort_env.envs.aec``'s module docstring).
:func:`wrap_classic` puts them around a raw env.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from fort_env.game.inputs import as_action

__all__ = ["wrap_classic"]


def wrap_classic(raw: AECEnv, illegal_reward: float) -> AECEnv:
    """``raw`` wrapped as PettingZoo classic envs are. Wrappers, outermost last:
    TerminateIllegal (an illegal action ends the game with ``illegal_reward`` for its agent),
    AssertOutOfBounds, OrderEnforcing. Each is a subclass of PettingZoo's wrapper that reads
    the episode attributes straight from the raw env (``_ReadsRawAttributes``); PettingZoo's
    own code makes every check.
    """
    wrapped: AECEnv = _TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    wrapped = _AssertOutOfBoundsWrapper(wrapped)
    return _OrderEnforcingWrapper(wrapped)


class _RawAttribute:
    """A wrapper's attribute read straight from the raw env it wraps (a non-data descriptor).

    ``BaseWrapper`` forwards unknown attributes with ``__getattr__``, which Python calls only
    after a failed lookup: reading ``agent_selection`` through three wrappers is three failed
    lookups and three ``__getattr__`` calls, ~1 us each (the AEC loop makes ~19 such reads, 36
    ``__getattr__`` calls, per decision). This descriptor returns the same object in one step.
    If the raw env has no such attribute yet (before ``reset()``), the ``AttributeError``
    sends Python to the wrapper's own ``__getattr__``, which raises what it always did. Being
    a non-data descriptor, an attribute set on the wrapper itself still hides it, as before.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj._raw, self.name)


class _RawAttributeAfterReset(_RawAttribute):
    """:class:`_RawAttribute` for ``OrderEnforcingWrapper``'s guarded names: before
    ``reset()`` the ``AttributeError`` sends Python to that wrapper's ``__getattr__``, which
    raises "... cannot be accessed before reset"."""

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if not obj._has_reset:
            raise AttributeError(self.name)
        return getattr(obj._raw, self.name)


class _ReadsRawAttributes(wrappers.BaseWrapper):
    """Mixin of the wrappers of :func:`env`: the episode attributes that PettingZoo's loop and
    wrappers read on every decision come straight from the raw env (:class:`_RawAttribute`)."""

    agents = _RawAttribute()
    agent_selection = _RawAttribute()
    terminations = _RawAttribute()
    truncations = _RawAttribute()
    rewards = _RawAttribute()
    infos = _RawAttribute()
    _cumulative_rewards = _RawAttribute()  # the one private name BaseWrapper forwards

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        super().__init__(env, *args, **kwargs)


class _TerminateIllegalWrapper(_ReadsRawAttributes, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with :class:`_ReadsRawAttributes`."""


class _AssertOutOfBoundsWrapper(_ReadsRawAttributes, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with :class:`_ReadsRawAttributes`; a Python
    int in ``range(N)`` skips ``Discrete(N).contains`` (~2 us), which would accept it."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        space = self._raw.action_space(self._raw.possible_agents[0])
        assert isinstance(space, spaces.Discrete)
        self._start, self._stop = int(space.start), int(space.start + space.n)

    def step(self, action: Any) -> None:
        if type(action) is int and self._start <= action < self._stop:
            wrappers.BaseWrapper.step(self, action)  # in the action space: the check passes
        else:
            super().step(action)  # PettingZoo's assert; then the raw env's TypeError (bool)


class _OrderEnforcingWrapper(_ReadsRawAttributes, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with :class:`_ReadsRawAttributes`; before
    ``reset()`` the guarded names raise as PettingZoo's own wrapper does."""

    agents = _RawAttributeAfterReset()
    agent_selection = _RawAttributeAfterReset()
    terminations = _RawAttributeAfterReset()
    truncations = _RawAttributeAfterReset()
    rewards = _RawAttributeAfterReset()
    infos = _RawAttributeAfterReset()

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        space = self._raw.action_space(self._raw.possible_agents[0])
        assert isinstance(space, spaces.Discrete)
        self._num_actions = int(space.start + space.n)

    def __str__(self) -> str:
        return str(self.env)  # as OrderEnforcingWrapper's own: the env's name, "fort_v0"

    def step(self, action: Any) -> None:
        """As the raw env's ``step`` for what it refuses: an action that is not an integer
        (``TypeError``), one out of range (``IllegalActionError``), ``None`` for an agent that
        is not done (``ValueError``) and an action for a done agent (PettingZoo's
        ``ValueError``) reach the raw env, which raises and changes nothing, before any
        wrapper's check (PettingZoo's ``AssertOutOfBoundsWrapper`` would raise
        ``AssertionError`` for a numpy ``uint64``, numpy's ``ValueError`` for ``True``). An
        in-range action goes through the wrappers as a Python int: an illegal one ends the
        game (``TerminateIllegalWrapper``)."""
        raw = self._raw
        if self._has_reset and raw.agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                if action is not None:
                    raw.step(action)  # raises PettingZoo's "only valid action is None"
            else:
                if action is None:
                    raw.step(action)  # raises the raw env's ValueError
                action = as_action(action)  # the raw env's TypeError
                if not 0 <= action < self._num_actions:
                    raw.step(action)  # raises the raw env's IllegalActionError
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As ``AECEnv.last``; once every agent is done, the raw env's final view (not a
        ``KeyError``)."""
        if self._has_reset and not self._raw.agents:
            return self._raw.last(observe)
        return super().last(observe)
