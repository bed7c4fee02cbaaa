"""``ismcts``: single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse 2012, "Information Set Monte Carlo Tree Search", SO-ISMCTS).

One tree per decision, from the searching seat's point of view. Each iteration:

1. **Determinise**: ``info["determinize"](rng)`` re-deals everything the seat cannot see
   (``FortState.resample_hidden``), so the search never uses hidden information.
2. **Select**: walk down the tree from the root, playing the determinised state along. At a
   *branching* decision (a kind in ``tree_kinds`` with more than one legal action, made by the
   searching seat, or by anyone with ``rivals="tree"``) the child is chosen by UCB1 over the
   actions legal in this determinisation, with availability counts (a child's exploration
   term uses how often it was available, not the parent's visits). Other decisions are taken
   by the default policy without a tree node: with ``rivals="policy"`` the rivals' decisions
   are the builder's, a model of the opponent.
3. **Expand** one untried action (the default policy's choice if it is untried, else a random
   one; the C++ engine takes the builder's best-scored untried action, a move ordering). With
   progressive widening (``widen``, C++ engine) a node gets a new child only while fewer than
   ``max(1, widen * visits ** widen_alpha)`` of its children are available in this
   determinisation; otherwise UCB1 chooses among them.
4. **Roll out** with the default policy (the ``builder`` heuristic for every seat, or random)
   to the horizon: the end of the searching seat's current turn, or, for a decision made on a
   rival's turn (following), the end of its next turn; ``extra_turns`` more turn ends if set.
   The game's end stops it too.
5. **Evaluate** with :func:`agents.bots.evaluation.evaluate_all` (a value in ``[0, 1]`` per
   seat) and back the values up: each node keeps the mean value of the seat that chose its action.

The action played is the root's most visited child. The budget per searched decision is
``iterations`` iterations or ``seconds`` seconds, whichever ends first (``seconds=0``: no time
limit); ``ms`` gives the time limit in milliseconds instead (``ismcts:ms=50`` is
``ismcts:seconds=0.05``). Root decisions that are not branching kinds go to the heuristic.

Two engines run this search. ``engine="cpp"`` (the default whenever the compiled core is
usable, ``engine="auto"``) runs all of it in C++ (``cpp/include/fort/bots/ismcts.h``), with the
``builder`` heuristic and the evaluation ported there (``rollout_policy.h``, ``evaluation.h``,
checked against the Python ones by ``tests/test_ismcts.py``): some 10,000-40,000 iterations a
second against a few hundred (``scripts/ismcts_speed.py``). ``engine="python"`` runs the code
below. Their defaults differ where the C++ tuning found better ones (``widen=1``,
``rivals="policy"``, no iteration cap under a time limit; ``docs/agents.md``); the C++ engine
alone has ``widen``, ``bias`` (progressive bias towards the builder's choice) and ``margin``.

The C++ search never sees the true state: the agent draws one determinisation
``determinize(rng)`` (a state of the seat's information set, hidden cards re-dealt) and hands
that to C++, which re-deals it again for every iteration (``_core.resample_hidden`` is a
function of the information set and the seed). With an iteration budget its choice depends
only on what the seat can see and the agent's seed (``tests/test_ismcts.py`` re-deals the
hidden cards of the true state and gets the same choice).

Needs ``info["determinize"]`` (the tournament runner gives it); raises
:class:`~agents.base.MissingInfoError` without it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent, MissingInfoError, legal_from
from agents.bots.evaluation import WEIGHTS, Weights, evaluate_all
from agents.bots.greedy import HeuristicPolicy
from agents.bots.heuristics import BuilderAgent
from fort_env import FortState
from fort_env.game.decisions import DecisionKind as K
from fort_env.native import backend as cpp_backend

__all__ = ["ISMCTSAgent", "weights_sequence"]

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


ENGINES = ("auto", "cpp", "python")
RIVALS = ("tree", "policy")
PYTHON_ITERATIONS = 200  # the Python engine's default iteration budget
CPP_ITERATIONS = 2_000  # the C++ engine's without a time limit (with one: no cap)
# The C++ engine's defaults, from the tuning runs in docs/agents.md: with the rivals played by
# the builder (an opponent model) and widening, 4-player games gained about 11 points of win
# rate against three builders on two seed sets; 2-player games were unchanged.
CPP_WIDEN = 1.0
SEED_LIMIT = 2**62  # seeds of the C++ search (fort_env.game.constants.SEED_LIMIT)


def weights_sequence(w: Weights) -> list[float]:
    """``w`` as the flat list ``_core.ismcts_search`` takes
    (``cpp/include/fort/bots/evaluation.h``): ``level_value`` (6), then useful, surplus, pack,
    lookout, rule, cards, perks, scale, end_scale."""
    return [
        *w.level_value, w.useful, w.surplus, w.pack, w.lookout, w.rule, w.cards, w.perks,
        w.scale, w.end_scale,
    ]  # fmt: skip


def parse_kinds(kinds: str) -> frozenset[int]:
    """The decision kinds named by ``kinds`` (``ISMCTSAgent``'s argument).

    Raises:
        ValueError: an empty name or one that is neither ``default``, ``all`` nor a
            ``DecisionKind`` (the message lists them).
    """
    out: set[int] = set()
    for name in str(kinds).split("+"):
        key = name.strip().upper()
        if key == "DEFAULT":
            out |= DEFAULT_TREE_KINDS
        elif key == "ALL":
            out |= set(K)
        elif key in K.__members__:
            out.add(K[key])
        else:
            names = ", ".join(k.name.lower() for k in K)
            raise ValueError(
                f"kinds must be 'default', 'all' or decision kinds joined by '+' ({names}); "
                f"got {name!r} in {kinds!r}"
            )
    return frozenset(int(k) for k in out)


class ISMCTSAgent(BaseAgent):
    """SO-ISMCTS over determinisations (module docstring).

    Args:
        iterations: iterations per searched decision; ``None``: 200 on the Python engine, on
            the C++ engine 2,000 without a time limit and no cap with one.
        seconds: time limit per searched decision (0: none).
        ms: the time limit in milliseconds instead of ``seconds`` (give one of the two).
        c: UCB1 exploration constant (values are in [0, 1]).
        rollout: ``"heuristic"`` (the builder) or ``"random"`` default policy.
        extra_turns: turn ends to play past the horizon before evaluating.
        evaluation: the weights of the evaluation function (``agents.bots.evaluation.WEIGHTS``).
        engine: ``"cpp"``, ``"python"`` or ``"auto"`` (C++ when the compiled core is usable).
        widen: progressive widening's coefficient (C++ engine; 0: off); ``None``: 1 on the
            C++ engine, 0 on the Python one.
        widen_alpha: progressive widening's exponent, in (0, 1].
        kinds: the decision kinds that branch the tree (the others go to the heuristic, also
            at the root): ``"default"`` (``DEFAULT_TREE_KINDS``), ``"all"``, or kinds joined
            by ``+``, e.g. ``"default+pick_rule+pack"`` (names of
            ``fort_env.game.decisions.DecisionKind``, any case).
        rivals: ``"tree"`` (rivals' decisions branch the tree too) or ``"policy"`` (the
            default policy makes them: an opponent model); ``None``: ``"policy"`` on the C++
            engine, ``"tree"`` on the Python one.
        bias: progressive bias towards the builder's choice: ``bias / (visits + 1)`` added to
            its UCB1 score (C++ engine, ``rollout="heuristic"``).
        margin: keep the builder's choice at the root unless the most visited action's mean
            value beats it by more than this (C++ engine, ``rollout="heuristic"``).
        seed: the agent's seed.

    Raises:
        ValueError: an unknown ``rollout``, ``evaluation``, ``engine`` or ``kinds``; both
            ``seconds`` and ``ms``; a negative or infinite time limit, ``c``, ``widen``;
            ``iterations < 1``, ``extra_turns < 0``, ``widen_alpha`` outside (0, 1]; options
            of the C++ engine with ``engine="python"``.
        fort_env.game.errors.ConfigError: ``engine="cpp"`` without a usable compiled core.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = None,
        seconds: float = 0.0,
        ms: float | None = None,
        c: float = 0.1,
        rollout: str = "heuristic",
        extra_turns: int = 0,
        evaluation: str = "fitted",
        engine: str = "auto",
        widen: float | None = None,
        widen_alpha: float = 0.5,
        kinds: str = "default",
        rivals: str | None = None,
        bias: float = 0.0,
        margin: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(None, seed)
        if rollout not in ("heuristic", "random"):
            raise ValueError(f"rollout must be 'heuristic' or 'random', got {rollout!r}")
        if evaluation not in WEIGHTS:
            raise ValueError(f"evaluation must be one of {sorted(WEIGHTS)}, got {evaluation!r}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        tree_kinds = parse_kinds(kinds)
        if rivals is not None and rivals not in RIVALS:
            raise ValueError(f"rivals must be one of {RIVALS}, got {rivals!r}")
        if ms is not None:
            if seconds:
                raise ValueError(f"give seconds or ms, not both (seconds={seconds}, ms={ms})")
            seconds = float(ms) / 1000.0
        if not (float(seconds) >= 0 and math.isfinite(float(seconds))):
            raise ValueError(f"the time limit must be finite and at least 0, got {seconds} s")
        for label, value in (("c", c), ("widen", widen or 0), ("bias", bias), ("margin", margin)):
            if not (float(value) >= 0 and math.isfinite(float(value))):
                raise ValueError(f"{label} must be finite and at least 0, got {value}")
        if not 0 < float(widen_alpha) <= 1:
            raise ValueError(f"widen_alpha must be in (0, 1], got {widen_alpha}")
        if iterations is not None and int(iterations) < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if int(extra_turns) < 0:
            raise ValueError(f"extra_turns must be at least 0, got {extra_turns}")
        if engine == "cpp":
            cpp_backend.require()  # ConfigError saying why, now rather than mid-game
        self.engine = (
            engine if engine != "auto" else ("cpp" if cpp_backend.available() else "python")
        )
        if self.engine == "python" and (widen or bias or margin):
            raise ValueError("widen, bias and margin need the C++ engine (engine='cpp')")
        cpp = self.engine == "cpp"
        if widen is None:
            widen = CPP_WIDEN if cpp else 0.0
        if rivals is None:
            rivals = "policy" if cpp else "tree"
        self.seconds = float(seconds)
        if iterations is None:
            if self.engine == "python":
                iterations = PYTHON_ITERATIONS
            else:
                iterations = CPP_ITERATIONS if self.seconds == 0 else 2**62
        self.iterations = int(iterations)
        self.c = float(c)
        self.rollout = rollout
        self.extra_turns = int(extra_turns)
        self.weights = WEIGHTS[evaluation]
        self.widen = float(widen)
        self.widen_alpha = float(widen_alpha)
        self.kinds = kinds
        self.rivals = rivals
        self.bias = float(bias)
        self.margin = float(margin)
        self.tree_kinds = tree_kinds
        self.fallback = BuilderAgent()
        self.policy = HeuristicPolicy(BuilderAgent())
        self.last_iterations = 0  # iterations run by the last search (for reports)
        self.last_search: dict[str, Any] = {}  # the C++ search's last result (for reports)
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
        if self.engine == "cpp":
            return self.search_cpp(determinize, int(info["seat"]), legal)
        return self.search(determinize, int(info["seat"]), legal)

    def search_cpp(self, determinize: Any, seat: int, legal: list[int]) -> int:
        """Run the C++ search from one determinisation (module docstring); the best action."""
        position = determinize(self.rng)  # a state of the seat's information set, no more
        if not isinstance(position, cpp_backend.CppFortState):
            position = cpp_backend.CppFortState.from_state(position)  # a Python-backend game
        result = cpp_backend.require().ismcts_search(
            position.core_state,
            seat,
            seed=int(self.rng.integers(SEED_LIMIT)),
            iterations=self.iterations,
            seconds=self.seconds,
            c=self.c,
            rollout="builder" if self.rollout == "heuristic" else "random",
            extra_turns=self.extra_turns,
            tree_kinds=sorted(int(k) for k in self.tree_kinds),
            rivals_in_tree=self.rivals == "tree",
            widen_c=self.widen,
            widen_alpha=self.widen_alpha,
            bias=self.bias,
            margin=self.margin,
            weights=weights_sequence(self.weights),
        )
        self.last_iterations = int(result["iterations"])
        self.last_search = result
        action = int(result["action"])
        if action not in legal:  # the seat's legal actions are the same in its information set
            raise RuntimeError(f"the C++ search returned {action}, not among the legal {legal}")
        return action

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
            player = state.current_player()
            branch = kind in self.tree_kinds and (self.rivals == "tree" or player == seat)
            if in_tree and len(legal) > 1 and (steps == 0 or branch):
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
