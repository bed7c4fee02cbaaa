"""The league: the opponents of training, bots and frozen snapshots, drawn by weight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.spec import format_spec

__all__ = ["League", "opponent_kind", "snapshot_spec"]


class League:
    """The opponents of training: bots and frozen snapshots, each with a sampling weight.

    Called as ``league(rng, num_rivals)`` by :class:`~fort_env.envs.single_agent.SingleAgentEnv` at
    each reset, it draws one opponent per rival seat. Agents are built with ``agents.make`` on first
    use and cached in the process (the cache is not pickled: each env worker builds its own,
    and ``agents.learned.ppo`` caches loaded snapshots by file).

    Args:
        bots: agent spec -> weight.
        snapshots: ``ppo:PATH`` specs of frozen learners, newest last.
        snapshot_weight: total weight shared equally by the snapshots.
    """

    def __init__(
        self,
        bots: Mapping[str, float],
        snapshots: Sequence[str] = (),
        snapshot_weight: float = 0.0,
    ) -> None:
        self.bots = dict(bots)
        self.snapshots = list(snapshots)
        self.snapshot_weight = float(snapshot_weight)
        self._cache: dict[str, Any] = {}

    def weights(self) -> dict[str, float]:
        """Spec -> normalised sampling probability."""
        w = dict(self.bots)
        if self.snapshots and self.snapshot_weight > 0:
            for s in self.snapshots:
                w[s] = w.get(s, 0.0) + self.snapshot_weight / len(self.snapshots)
        total = sum(w.values())
        return {k: v / total for k, v in w.items() if v > 0}

    def agent(self, spec: str) -> Any:
        """The (cached) agent built from ``spec``."""
        if spec not in self._cache:
            self._cache[spec] = agents.make(spec)
        return self._cache[spec]

    def __call__(self, rng: np.random.Generator, num_rivals: int) -> list[Any]:
        w = self.weights()
        specs = list(w)
        picks = rng.choice(len(specs), size=num_rivals, p=np.array([w[s] for s in specs]))
        return [self.agent(specs[i]) for i in picks]

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_cache"] = {}
        return d


def snapshot_spec(path: str | Path, deterministic: bool) -> str:
    """The ``ppo:PATH`` spec of a frozen learner saved at ``path`` (``:deterministic=0`` when
    it samples), written by the spec grammar (``agents.spec.format_spec``) so that a path
    holding ``:`` (``runs/10:00/...``, ``C:/...``) reads back whole."""
    return format_spec("ppo", str(path), {} if deterministic else {"deterministic": 0})


def opponent_kind(name: str) -> str:
    """A short label for metrics: ``snapshot`` for frozen learners, else the bot's spec."""
    return "snapshot" if name.startswith("ppo:") else name
