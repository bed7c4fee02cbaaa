"""The agent protocol: how a bot is asked for an action, and what it is given.

An agent is any object with ``name``, ``seed(seed)`` and ``act(observation, info) -> int``::

    class Agent(Protocol):
        name: str
        def seed(self, seed: int | None) -> None: ...
        def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int: ...

It is asked once per decision of its seat (a Fort turn is many small decisions; see
``fort_env.game.decisions``) and must return one legal action (an ``int`` in ``[0, N)``).

``observation`` is the PettingZoo dict observation of the acting seat:

- ``"observation"``: float32, shape ``(game.observation_size,)``: ``state.observation_tensor``;
  decode it with ``fort_env.observation_layout(n).view(obs, name)`` or
  :class:`~fort_env.views.seat.SeatView`.
- ``"action_mask"``: int8, shape ``(game.num_distinct_actions,)``: 1 for each legal action.

``info`` carries:

==================  ===========================================================================
key                 value
==================  ===========================================================================
``action_mask``     the same mask (PettingZoo puts it in ``infos[agent]``)
``seat``            the acting seat (absolute engine seat, 0..n-1)
``game``            the :class:`fort_env.FortGame` (static facts: cards, layout, Fort costs)
``legal_actions``   the legal actions, ascending ``list[int]``
``view``            a :class:`~fort_env.views.seat.SeatView` of the acting seat (what it can see)
``determinize``     ``rng -> FortState``: ``state.resample_hidden(seat, rng)``, a copy of the
                    true state in which everything the seat cannot see is re-dealt at random
==================  ===========================================================================

The tournament runner (``agents.arena.tournament``) gives every key. Agents never get the true
state: the only way to search the engine is ``determinize``, whose states agree with what the
seat sees and nothing else. From the PettingZoo env (``fort_env.env()``) ``info`` holds only
``action_mask``; every agent here then works from the observation alone (using the shipped card
set for ``game`` unless one is passed to its constructor), except the search agents
(``greedy``, ``ismcts``), which need ``determinize`` and raise :class:`MissingInfoError`.
``observation`` may be a lazy mapping that computes ``"observation"`` on first access, so an
agent that reads only ``info["view"]`` costs no observation tensor.

Agents are seedable: ``seed(s)`` resets the agent's own generator, and the same seed and the
same sequence of positions give the same actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from fort_env import FortGame
from fort_env.views.seat import SeatView

__all__ = ["Agent", "BaseAgent", "LazyObservation", "MissingInfoError", "legal_from"]


@runtime_checkable
class Agent(Protocol):
    """A bot: ``act`` returns a legal action for the acting seat (module docstring)."""

    name: str

    def seed(self, seed: int | None) -> None:
        """Reset the agent's random generator (``None``: fresh entropy)."""

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        """One legal action for the decision described by ``observation`` and ``info``."""


class MissingInfoError(KeyError):
    """An agent needs an ``info`` key that its caller did not give (e.g. ``determinize``)."""


class LazyObservation(Mapping[str, np.ndarray]):
    """``{"observation", "action_mask"}`` computing each array on first access."""

    def __init__(
        self, observation: Callable[[], np.ndarray], action_mask: Callable[[], np.ndarray]
    ) -> None:
        self._make = {"observation": observation, "action_mask": action_mask}
        self._cache: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = self._make[key]()
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)


def legal_from(observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> list[int]:
    """The legal actions: ``info["legal_actions"]`` if given, else from the action mask."""
    legal = info.get("legal_actions")
    if legal is not None:
        return list(legal)
    mask = info.get("action_mask")
    if mask is None:
        mask = observation["action_mask"]
    return [int(a) for a in np.flatnonzero(np.asarray(mask))]


_DEFAULT_GAMES: dict[int, FortGame] = {}


def masked_softmax(logits: np.ndarray, legal: np.ndarray, source: object = None) -> np.ndarray:
    """A policy's action probabilities over the legal actions only.

    Args:
        logits: shape ``(N,)``, any float dtype; legal: bool ``(N,)``, at least one True.
        source: the model, for the message (its path; default "the policy").

    Returns:
        float64 ``(N,)``, zero on illegal actions, summing to 1 (computed in float64 so that
        ``rng.choice`` accepts it).

    Raises:
        ModelFileError: a legal action's logit is NaN or infinite (overflowing weights): no
            action is picked from such logits (``argmax`` of NaN could be an illegal one).
    """
    z = np.asarray(logits, dtype=np.float64).copy()
    check_logits(z[legal], source)
    z[~legal] = -np.inf
    probs = np.exp(z - z[legal].max())
    return probs / probs.sum()


def check_logits(logits: np.ndarray, source: object = None) -> None:
    """Raise ``ModelFileError`` if any of ``logits`` (the legal actions') is not finite.

    Raises:
        ModelFileError: NaN or infinite logits, naming ``source`` (default "the policy").
    """
    if not np.isfinite(logits).all():
        from fort_env.game.errors import ModelFileError

        raise ModelFileError(
            source if source is not None else "the policy",
            "its logits for this observation are not finite (NaN or infinite: the weights "
            "overflow); no action is taken from them",
        )


def act_on_probabilities(probs: np.ndarray, deterministic: bool, rng: np.random.Generator) -> int:
    """The most likely action if ``deterministic``, else a draw from ``probs``."""
    if deterministic:
        return int(np.argmax(probs))
    return int(rng.choice(probs.size, p=probs))


class BaseAgent:
    """Common plumbing: a name, a seeded generator, and the game/view found in ``info``.

    Args:
        game: the game to decode observations with when ``info`` has no ``"game"`` (the
            PettingZoo env); ``None`` means the shipped card set.
        seed: the initial seed of the agent's generator.
    """

    name = "base"

    def __init__(self, game: FortGame | None = None, seed: int | None = None) -> None:
        self._game = game
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def game_of(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> FortGame:
        """The game: ``info["game"]``, the one given to the constructor, or the shipped set."""
        game = info.get("game") or self._game
        if game is not None:
            return game
        n = self._num_players(observation)
        if n not in _DEFAULT_GAMES:
            _DEFAULT_GAMES[n] = FortGame(n)
        return _DEFAULT_GAMES[n]

    @staticmethod
    def _num_players(observation: Mapping[str, np.ndarray]) -> int:
        from fort_env import observation_layout

        if 2 not in _DEFAULT_GAMES:
            _DEFAULT_GAMES[2] = FortGame(2)
        layout = observation_layout(2, _DEFAULT_GAMES[2])  # the same for every player count
        seats = layout.view(observation["observation"], "seats")
        return round(float(seats.sum()))

    def view_of(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> SeatView:
        """``info["view"]`` if given, else decoded from the observation."""
        view = info.get("view")
        if view is not None:
            return view
        return SeatView.from_observation(
            observation["observation"], self.game_of(observation, info)
        )

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
