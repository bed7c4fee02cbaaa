"""``greedy``: one-play lookahead over determinised states.

At the decisions that shape the leader's own play (``PLAY``, ``MODE``, ``DO_OVER``) the agent
draws ``samples`` determinisations (``info["determinize"]``: the true state with everything
the seat cannot see re-dealt), and for each legal action clones the state, takes the action,
and plays on with the default policy (the ``builder`` heuristic for every seat) until the play
is over: the leader reaches the Recruit phase (so rivals' follows are included), the turn
passes, or the game ends. The action with the best mean :func:`agents.bots.evaluation.evaluate`
wins. Every other decision is the heuristic's.

Needs ``info["determinize"]`` (the tournament runner gives it); raises
:class:`~agents.base.MissingInfoError` without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent, MissingInfoError, legal_from
from agents.bots.evaluation import WEIGHTS, evaluate
from agents.bots.heuristics import BuilderAgent, HeuristicAgent
from fort_env import FortState
from fort_env.game.decisions import DecisionKind as K
from fort_env.views.seat import SeatView

__all__ = ["GreedyAgent", "HeuristicPolicy"]

LOOKAHEAD_KINDS = frozenset((K.PLAY, K.MODE, K.DO_OVER))
MAX_PLAYOUT = 400  # decisions; a play is far shorter


class HeuristicPolicy:
    """A heuristic as a state -> action function for playouts (each seat sees only its view)."""

    def __init__(self, agent: HeuristicAgent) -> None:
        self.agent = agent

    def __call__(self, state: FortState, legal: list[int] | None = None) -> int:
        legal = state.legal_actions() if legal is None else legal
        if len(legal) == 1:
            return legal[0]
        view = SeatView.from_state(state, state.current_player())
        return self.agent.choose(view, legal)


def play_is_over(state: FortState, leader: int) -> bool:
    """The leader's play and its follows are done (Recruit phase, next turn, or game over)."""
    if state.is_terminal() or state.leader != leader:
        return True
    return state.decision_kind in (K.RECRUIT, K.BIRTHDAY)


class GreedyAgent(BaseAgent):
    """One-play lookahead with the evaluation function of ``agents.bots.evaluation``.

    Args:
        samples: determinisations per decision (the same ones for every action).
        evaluation: the weights of the evaluation function (``agents.bots.evaluation.WEIGHTS``).
        seed: the agent's seed.
    """

    name = "greedy"

    def __init__(
        self, samples: int = 3, evaluation: str = "fitted", seed: int | None = None
    ) -> None:
        super().__init__(None, seed)
        self.samples = int(samples)
        self.weights = WEIGHTS[evaluation]
        self.fallback = BuilderAgent(seed=seed)
        self.policy = HeuristicPolicy(BuilderAgent(seed=seed))

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        child = np.random.SeedSequence(seed).spawn(2) if seed is not None else [None, None]
        self.fallback.seed(child[0])  # type: ignore[arg-type]
        self.policy.agent.seed(child[1])  # type: ignore[arg-type]

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = legal_from(observation, info)
        if len(legal) == 1:
            return legal[0]
        view = self.view_of(observation, info)
        if view.kind not in LOOKAHEAD_KINDS:
            return self.fallback.choose(view, legal)
        determinize = info.get("determinize")
        if determinize is None:
            raise MissingInfoError(
                "greedy needs info['determinize'] (play it with the tournament runner)"
            )
        seat = int(info["seat"])
        totals = np.zeros(len(legal))
        for _ in range(self.samples):
            root = determinize(self.rng)
            leader = root.leader
            for k, a in enumerate(legal):
                s = root.clone()
                s.apply_action(a)
                steps = 0
                while not play_is_over(s, leader) and steps < MAX_PLAYOUT:
                    s.apply_action(self.policy(s))
                    steps += 1
                totals[k] += evaluate(s, seat, self.weights)
        noise = self.rng.random(len(legal)) * 1e-9
        return legal[int(np.argmax(totals + noise))]
