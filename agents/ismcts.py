"""``ismcts``: single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse 2012, "Information Set Monte Carlo Tree Search", SO-ISMCTS).

One tree per decision, from the searching seat's point of view. Each iteration:

1. **Determinise**: ``info["determinize"](rng)`` re-deals everything the seat cannot see
   (``FortState.resample_hidden``), so the search never uses hidden information.
2. **Select**: walk down the tree from the root, playing the determinised state along. At a
   *branching* decision (a kind in ``tree_kinds`` with more than one legal action, whoever
   makes it) the child is chosen by UCB1 over the actions legal in this determinisation, with
   availability counts (a child's exploration term uses how often it was available, not the
   parent's visits). Other decisions are taken by the default policy without a tree node.
3. **Expand** one untried action (the default policy's choice if it is untried, else a random
   one).
4. **Roll out** with the default policy (the ``builder`` heuristic for every seat, or random)
   to the horizon: the end of the searching seat's current turn, or, for a decision made on a
   rival's turn (following), the end of its next turn; ``extra_turns`` more turn ends if set.
   The game's end stops it too.
5. **Evaluate** with :func:`agents.evaluation.evaluate_all` (a value in ``[0, 1]`` per seat) and
   back the values up: each node keeps the mean value of the seat that chose its action.

The action played is the root's most visited child. The budget per searched decision is
``iterations`` iterations or ``seconds`` seconds, whichever ends first (``seconds=0``: no time
limit). Root decisions that are not branching kinds go to the heuristic.

Needs ``info["determinize"]`` (the tournament runner gives it); raises
:class:`~agents.base.MissingInfoError` without it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from fort_env import FortState
from fort_env.decisions import DecisionKind as K

from .base import BaseAgent, MissingInfoError, legal_from
from .evaluation import WEIGHTS, evaluate_all
from .greedy import HeuristicPolicy
from .heuristics import BuilderAgent

__all__ = ["ISMCTSAgent"]

DEFAULT_TREE_KINDS = frozenset(
    (
        K.PLAY,
        K.MODE,
        K.ANY_SUIT,
        K.DECLARE_COIN,
        K.RESOURCE,
        K.FOLLOW,
        K.FOLLOW_SECOND,
        K.ROUGH_HOUSING,
        K.DO_OVER,
        K.STOP_OR_CONTINUE,
        K.PICK_PERK,
        K.COPY_RIVAL,
    )
)
MAX_ROLLOUT = 2_000  # decisions; a guard only


class Node:
    """A tree node: the action that led here, made by ``player``; its statistics."""

    __slots__ = ("avail", "children", "player", "reward", "visits")

    def __init__(self, player: int) -> None:
        self.player = player
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


class ISMCTSAgent(BaseAgent):
    """SO-ISMCTS over determinisations (module docstring).

    Args:
        iterations: iterations per searched decision.
        seconds: time limit per searched decision (0: none).
        c: UCB1 exploration constant (values are in [0, 1]).
        rollout: ``"heuristic"`` or ``"random"`` default policy.
        extra_turns: turn ends to play past the horizon before evaluating.
        evaluation: the weights of the evaluation function (``agents.evaluation.WEIGHTS``).
        seed: the agent's seed.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int = 200,
        seconds: float = 0.0,
        c: float = 0.1,
        rollout: str = "heuristic",
        extra_turns: int = 0,
        evaluation: str = "fitted",
        seed: int | None = None,
    ) -> None:
        super().__init__(None, seed)
        if rollout not in ("heuristic", "random"):
            raise ValueError(f"rollout must be 'heuristic' or 'random', got {rollout!r}")
        self.iterations = int(iterations)
        self.seconds = float(seconds)
        self.c = float(c)
        self.rollout = rollout
        self.extra_turns = int(extra_turns)
        self.weights = WEIGHTS[evaluation]
        self.tree_kinds = DEFAULT_TREE_KINDS
        self.fallback = BuilderAgent()
        self.policy = HeuristicPolicy(BuilderAgent())
        self.last_iterations = 0  # iterations run by the last search (for reports)
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        children = np.random.SeedSequence(seed).spawn(2) if seed is not None else [None, None]
        self.fallback.seed(children[0])  # type: ignore[arg-type]
        self.policy.agent.seed(children[1])  # type: ignore[arg-type]

    # ------------------------------------------------------------------ protocol
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = legal_from(observation, info)
        if len(legal) == 1:
            return legal[0]
        view = self.view_of(observation, info)
        if view.kind not in self.tree_kinds:
            return self.fallback.choose(view, legal)
        determinize = info.get("determinize")
        if determinize is None:
            raise MissingInfoError(
                "ismcts needs info['determinize'] (play it with the tournament runner)"
            )
        return self.search(determinize, int(info["seat"]), legal)

    # ------------------------------------------------------------------ search
    def search(self, determinize: Any, seat: int, legal: list[int]) -> int:
        """Run the search from the position ``determinize`` samples; the best root action."""
        root = Node(-1)
        deadline = time.perf_counter() + self.seconds if self.seconds > 0 else math.inf
        n = 0
        while n < self.iterations and time.perf_counter() < deadline:
            state = determinize(self.rng)
            self._iterate(root, state, seat)
            n += 1
        self.last_iterations = n
        best = max(
            legal,
            key=lambda a: (
                (root.children[a].visits, root.children[a].reward)
                if a in root.children
                else (-1, 0.0)
            ),
        )
        return best

    def _default(self, state: FortState, legal: list[int]) -> int:
        if self.rollout == "random":
            return legal[int(self.rng.integers(len(legal)))]
        return self.policy(state, legal)

    def _iterate(self, root: Node, state: FortState, seat: int) -> None:
        path = [root]
        node = root
        ends_left = 1 + self.extra_turns
        leader = state.leader
        # a decision on a rival's turn (following): wait for the end of my next turn too
        waiting_for_my_turn = leader != seat
        in_tree = True
        steps = 0
        while not state.is_terminal() and steps < MAX_ROLLOUT:
            legal = state.legal_actions()
            kind = state.decision_kind
            if in_tree and len(legal) > 1 and kind in self.tree_kinds:
                player = state.current_player()
                untried = [a for a in legal if a not in node.children]
                for a in legal:
                    child = node.children.get(a)
                    if child is not None:
                        child.avail += 1
                if untried:
                    preferred = self._default(state, legal) if self.rollout == "heuristic" else -1
                    a = (
                        preferred
                        if preferred in untried
                        else untried[int(self.rng.integers(len(untried)))]
                    )
                    child = node.children[a] = Node(player)
                    child.avail = 1
                    in_tree = False  # expanded: the rest is the rollout
                else:
                    a = self._ucb(node, legal)
                    child = node.children[a]
                node = child
                path.append(node)
            else:
                a = legal[0] if len(legal) == 1 else self._default(state, legal)
            state.apply_action(a)
            steps += 1
            new_leader = state.leader
            if new_leader != leader:  # a turn ended
                if waiting_for_my_turn:
                    if leader == seat:
                        waiting_for_my_turn = False
                        ends_left -= 1
                else:
                    ends_left -= 1
                leader = new_leader
                if ends_left <= 0:
                    break
        values = evaluate_all(state, self.weights)
        for nd in path[1:]:
            nd.visits += 1
            nd.reward += values[nd.player]

    def _ucb(self, node: Node, legal: list[int]) -> int:
        best, best_score = legal[0], -math.inf
        for a in legal:
            child = node.children[a]
            score = child.reward / child.visits + self.c * math.sqrt(
                math.log(child.avail) / child.visits
            )
            if score > best_score:
                best, best_score = a, score
        return best
