"""The model zoo: trained policies shipped inside the package, played by bare names.

``agents/zoo/`` holds one policy file per player count and kind, ``{kind}-{n}p.safetensors``
+ ``{kind}-{n}p.json`` (``agents.learned.policy_file``'s format: nothing unpickled, checked
against this fort-env's game and its layout fingerprint): ``ppo`` the lean PPO's networks
(``fort-env train``), ``puct`` a network improved for the search by expert iteration
(``fort-env expert``) where one ships. Each JSON's ``zoo`` entry records how it was made (the
command, the config, the seed, the source commit) and ``results`` what it measured (games,
wins, Wilson intervals, the evaluation seeds): ``docs/agents.md``, "The model zoo".

Names: ``ppo`` plays the shipped model for the table's player count (chosen when the agent
first sees a game: ``info["game"].num_players``), ``ppo:players=N`` names one;
``ppo:deterministic=0`` samples. ``ppo:PATH`` still plays a file of your own. ``puct`` searches
with :func:`search_model`: the ``puct`` network for the count, else the ``ppo`` one.

Raises (at the first decision, or at once with ``players``): ``ModelFileError`` when no model
ships for that player count.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fort_env.game.errors import ModelFileError

__all__ = ["KINDS", "ZOO_DIR", "ZooAgent", "search_model", "shipped_model", "shipped_models"]

ZOO_DIR = Path(__file__).resolve().parent.parent / "zoo"
"""Where the shipped policies live (``agents/zoo``, package data)."""

KINDS = ("ppo", "puct")
"""The kinds of shipped network: ``ppo`` (``fort-env train``), ``puct`` (``fort-env expert``)."""


def shipped_model(num_players: int, kind: str = "ppo") -> Path:
    """The shipped ``kind`` network for ``num_players`` (its ``.safetensors`` path).

    Raises:
        ModelFileError: none ships for that count.
        ValueError: an unknown kind.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    path = ZOO_DIR / f"{kind}-{int(num_players)}p.safetensors"
    if not path.is_file():
        have = ", ".join(f"{n}" for n in shipped_models(kind)) or "none"
        raise ModelFileError(
            path,
            f"no shipped model for {num_players} players (shipped: {have}); give {kind}:PATH"
            if kind == "ppo"
            else f"no shipped {kind} model for {num_players} players (shipped: {have})",
        )
    return path


def shipped_models(kind: str = "ppo") -> dict[int, Path]:
    """Player count -> shipped ``kind`` network path, for every such model in ``agents/zoo``."""
    out = {}
    for n in (2, 3, 4):
        path = ZOO_DIR / f"{kind}-{n}p.safetensors"
        if path.is_file() and path.with_suffix(".json").is_file():
            out[n] = path
    return out


def search_model(num_players: int) -> Path:
    """The network bare ``puct`` searches with: the shipped ``puct`` network for the count if
    one ships, else the ``ppo`` one.

    Raises:
        ModelFileError: neither ships for that count.
    """
    return shipped_models("puct").get(int(num_players)) or shipped_model(num_players)


class ZooAgent:
    """``ppo`` by its bare name: the shipped model for the game's player count.

    Args:
        players: load the model for this count now (else at the first decision).
        deterministic, seed: as ``agents.learned.ppo_agent.PPOAgent``'s.
    """

    name = "ppo"

    def __init__(
        self, players: int | None = None, deterministic: bool = True, seed: int | None = None
    ) -> None:
        self.deterministic = bool(deterministic)
        self._seed = seed
        self._agent: Any = None
        self.num_players: int | None = None
        if players is not None:
            self._load(int(players))

    def _load(self, num_players: int) -> Any:
        from agents.learned.ppo_agent import PPOAgent

        if self._agent is None or self.num_players != num_players:
            self._agent = PPOAgent(
                shipped_model(num_players), deterministic=self.deterministic, seed=self._seed
            )
            self.num_players = num_players
        return self._agent

    @property
    def path(self) -> str | None:
        """The loaded model's path (``None`` before the first decision)."""
        return None if self._agent is None else self._agent.path

    def seed(self, seed: int | None) -> None:
        self._seed = seed
        if self._agent is not None:
            self._agent.seed(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        game = info.get("game")
        if game is None and self._agent is None:
            raise ModelFileError("ppo", "the bare name needs info['game'] or ppo:players=N")
        agent = self._load(game.num_players) if game is not None else self._agent
        return int(agent.act(observation, info))

    def join_table(self, game: Any) -> None:
        """Load the shipped model for ``game``'s table size (``game.num_players``): what the
        vector envs call before each game an opponent plays (``FortBatchVecEnv``)."""
        self._load(int(game.num_players))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """As ``PPOAgent.act_batch``; needs the model loaded (``ppo:players=N``,
        :meth:`join_table`, or a first decision through :meth:`act`).

        Raises:
            ModelFileError: no model loaded yet.
        """
        if self._agent is None:
            raise ModelFileError(
                "ppo", "act_batch needs ppo:players=N or join_table(game) (the table's size)"
            )
        return np.asarray(self._agent.act_batch(observations, masks))

    def __repr__(self) -> str:
        return f"ZooAgent(players={self.num_players}, path={self.path!r})"
