"""``puct``: information-set search guided by a trained policy (PUCT, as in AlphaZero).

A trained policy (``fort-env train``, ``fort-env expert``; saved by ``agents.learned.policy_file``)
gives the search its prior over actions and its value of a position; the search replaces
IS-MCTS's rollouts with the value head, and its UCB1 with the PUCT rule (Silver et al. 2017,
"Mastering the game of Go without human knowledge"; Cowling, Powley and Whitehouse 2012 for the
information sets).

Two engines run the same search. ``engine=core`` (what ``auto``, the default, picks whenever the
compiled core is usable) runs it in C++ with the network
on the core (``cpp/include/fort/bots/puct.h``, :mod:`agents.learned.core_network`): ~1,000
simulations in 50 ms on one core (``scripts/puct_speed.py``), leaves batched (``batch``, with
virtual loss) and trees in threads (``threads``), the GIL released. ``engine=python`` is the
reference below, one torch forward pass per simulation (35-100 in 50 ms). One tree per decision,
from the searching seat's point of view; each simulation:

1. **Determinise**: ``info["determinize"](rng)`` re-deals what the seat cannot see
   (``FortState.resample_hidden``), so the search never uses hidden information.
2. **Select**: at every decision with more than one legal action, whoever makes it, take the
   child maximising ``Q(a) + c * P(a) * sqrt(N) / (1 + n(a))`` over the actions legal in this
   determinisation: ``P`` the network's prior renormalised over them, ``n(a)`` the child's
   visits, ``N`` the sum of the visits of those children (availability, as in SO-ISMCTS),
   ``Q(a)`` the child's mean value for the seat that chooses (an unvisited child takes the
   node's own value: "first-play urgency" of the parent).
3. **Expand and evaluate**: at a node met for the first time, or one where this determinisation
   offers an action without a prior yet (a rival's hand differs between determinisations),
   one forward pass over the observations of every seat gives the acting seat's prior and a
   value for each seat; the iteration stops there. A finished game's value is its returns.
4. **Back up**: each node keeps the mean value of the seat that chose its action. Values are
   the value head's estimate of a seat's return (``win_loss``: -1..1) mapped to ``[0, 1]``.

The action played is the root's most visited legal child. The budget per decision is ``sims``
simulations or ``ms`` milliseconds, whichever ends first: ``puct`` alone is ``ms=50``;
``puct:sims=N`` alone has no time limit, and is then a function of the seat's information set,
the model and the agent's seed (reproducible from its seed, whatever the machine's load).
Settings by name: ``puct:ms=50:c=1.5:model=runs/full/latest/model.safetensors``.

Speed of the Python engine: a simulation is one forward pass of a position, where torch's
threads only wait on each other; the tournament runner plays on one torch thread
(``agents.arena.tournament.torch_threads``), and in a loop of your own
``torch.set_num_threads(1)`` does the same.

Without ``model`` the agent searches with the shipped network for the table's player count
(``agents.learned.zoo.search_model``: the ``puct`` network improved by expert iteration where
one ships, else the ``ppo`` one; chosen at its first decision, or named with
``puct:players=N``), so
``agents.make("puct")`` works on a fresh install; a run of your own is
``puct:model=runs/quick/latest/model.safetensors`` (:data:`DEFAULT_MODELS` names the training
presets' newest runs). No shipped model for the count raises ``ModelFileError`` in one line.
Needs ``info["determinize"]`` (the tournament runner gives it):
:class:`~agents.base.MissingInfoError` without it. Needs the ``train`` extra (torch, sb3).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent, MissingInfoError, check_logits, legal_from, masked_softmax
from agents.learned.core_network import core_critic, core_network
from agents.learned.forward import policy_logits, policy_observation_size, policy_values
from agents.learned.policy_file import preset_model, trained_num_players
from agents.learned.ppo_agent import load_policy
from agents.learned.zoo import search_model
from fort_env import FortState
from fort_env.native import backend as cpp_backend

__all__ = ["DEFAULT_MODELS", "ENGINES", "PUCTAgent"]

DEFAULT_MODELS = (preset_model("full"), preset_model("quick"))
UNLIMITED = 2**62  # "no simulation limit" (the time limit ends the search)
MAX_DEPTH = 2_000  # decisions walked in one iteration; a guard only (a game is a few hundred)
RETURN_RANGE = (-1.0, 1.0)  # win_loss returns (fort_env.envs.aec "Rewards"), mapped to [0, 1]
ENGINES = ("auto", "core", "python")
VALUES = ("obs", "table")
"""What values the search's leaves (``PUCTAgent(value=)``)."""
DEFAULT_MS = 50.0  # the time limit when neither ms nor sims is given
SEED_LIMIT = 2**62  # seeds of the C++ search (fort_env.game.constants.SEED_LIMIT)
MAX_BATCH = 256  # puct.h's limits on batch and threads
MAX_THREADS = 64


class Node:
    """A tree node: the action that led here, made by ``player``; its statistics and the
    acting seat's priors over the actions seen from it."""

    __slots__ = ("children", "player", "priors", "value", "visits")

    def __init__(self, player: int) -> None:
        self.player = player
        self.children: dict[int, Node] = {}
        self.priors: dict[int, float] = {}
        self.visits = 0
        self.value = 0.0  # sum of the backed-up values of ``player``


class PUCTAgent(BaseAgent):
    """Policy-guided information-set search (module docstring).

    Args:
        model: a saved policy (``NAME.safetensors``, :func:`agents.learned.ppo_agent.load_policy`);
            ``None``: the shipped model for the game's player count (module docstring).
        players: with ``model=None``, load the shipped model for this count now.
        ms: time limit per searched decision in milliseconds, above 0 (``None``: 50 unless
            ``sims`` is given, then none).
        sims: simulation limit per searched decision (``None``: none but ``ms``).
        iterations: the former name of ``sims``.
        c: the PUCT exploration constant.
        engine: ``core`` (C++), ``python`` (the reference) or ``auto`` (the default: ``core``
            when the compiled core is usable, else ``python``).
        batch: leaves per forward pass, with virtual loss (``core`` only; 1: sequential).
        threads: root-parallel trees (``core`` only).
        noise: the weight of Dirichlet(``alpha``) noise on the root's priors (``core`` only;
            0: none; self-play in ``fort-env expert`` uses it).
        alpha: that noise's concentration.
        value: what values the leaves (``core`` only): ``obs`` (the default: the value head
            on each seat's observation) or ``table`` (the model's whole-table critic on the
            determinised table: every seat's hidden cards of that determinisation). The
            default is the one measured stronger: on the same network (a quick-preset run with
            ``--critic table``) ``table`` won 0.490 [0.42, 0.56] of 200 games against ``obs``
            at 64 simulations, no better, so ``obs`` stays (docs/agents.md, "The whole-table
            critic").
        gumbel: Gumbel root selection with Sequential Halving (``core`` only; Danihelka et
            al. 2022, cpp/include/fort/bots/puct.h) in place of the most visited root action:
            ``gumbel_actions`` root actions sampled by Gumbel-top-k from the priors, the
            simulations shared among them in halving phases. Needs ``sims`` (its schedule is
            planned for them; ``ms`` may still cut it), ``threads=1`` and ``noise=0``.
        gumbel_actions: the root actions it considers, in [1, 256].
        seed: the agent's seed (determinisations).

    Raises:
        ModelFileError: a bad model file, no shipped model for ``players``, or (``core``) a
            network the core cannot run.
        ValueError: ``ms`` not above 0 or infinite, ``sims < 1``, ``c < 0``, an unknown engine,
            ``batch`` or ``threads`` out of range, ``noise`` outside [0, 1), ``alpha <= 0``, an
            unknown ``value``, ``value=table`` with a model without a critic, or ``gumbel``
            without ``sims``, with ``threads``/``noise``, or on the Python engine.
    """

    name = "puct"

    def __init__(
        self,
        model: str | Path | None = None,
        ms: float | None = None,
        sims: int | None = None,
        c: float = 1.5,
        seed: int | None = None,
        players: int | None = None,
        engine: str = "auto",
        batch: int = 1,
        threads: int = 1,
        noise: float = 0.0,
        alpha: float = 0.3,
        iterations: int | None = None,
        value: str = "obs",
        gumbel: bool = False,
        gumbel_actions: int = 16,
    ) -> None:
        super().__init__(None, seed)
        self.model: str | None = None
        if sims is None:
            sims = iterations
        if ms is not None and not (float(ms) > 0 and math.isfinite(float(ms))):
            raise ValueError(f"ms must be finite and above 0, got {ms}")
        if ms is None:  # 0.0 below: no time limit
            ms = DEFAULT_MS if sims is None else 0.0
        if sims is not None and int(sims) < 1:
            raise ValueError(f"sims must be at least 1, got {sims}")
        if not float(c) >= 0:
            raise ValueError(f"c must be at least 0, got {c}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if not 1 <= int(batch) <= MAX_BATCH:
            raise ValueError(f"batch must be in [1, {MAX_BATCH}], got {batch}")
        if not 1 <= int(threads) <= MAX_THREADS:
            raise ValueError(f"threads must be in [1, {MAX_THREADS}], got {threads}")
        if not 0.0 <= float(noise) < 1.0:
            raise ValueError(f"noise must be in [0, 1), got {noise}")
        if not (float(alpha) > 0 and math.isfinite(float(alpha))):
            raise ValueError(f"alpha must be finite and above 0, got {alpha}")
        if value not in VALUES:
            raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
        if gumbel not in (0, 1):  # a bool, or 0/1 from an agent spec
            raise ValueError(f"gumbel must be 0 or 1, got {gumbel!r}")
        if not 1 <= int(gumbel_actions) <= MAX_BATCH:
            raise ValueError(f"gumbel_actions must be in [1, {MAX_BATCH}], got {gumbel_actions}")
        if gumbel and (sims is None or int(threads) != 1 or float(noise) > 0.0):
            raise ValueError("gumbel needs sims (its schedule), threads=1 and noise=0")
        self.gumbel, self.gumbel_actions = bool(gumbel), int(gumbel_actions)
        self.value = value
        self.critic: Any = None  # the core's copy of the model's critic (value=table)
        if engine == "auto":
            engine = "core" if cpp_backend.available() else "python"
        if gumbel and engine == "python":
            raise ValueError("gumbel runs on the core engine only (the compiled core)")
        self.engine = engine
        self.batch, self.threads = int(batch), int(threads)
        self.noise, self.alpha = float(noise), float(alpha)
        self.policy: Any = None
        self.network: Any = None  # the core's copy (engine core)
        self.num_players: int | None = None
        self.observation_size = 0
        self._shipped = model is None
        if model is not None:
            self._load(Path(model))
        elif players is not None:
            self._load(search_model(int(players)))
        self.seconds = float(ms) / 1000.0
        self.iterations = int(sims) if sims is not None else UNLIMITED
        self.c = float(c)
        self.last_iterations = 0  # simulations run by the last search (for reports)
        # the root's visits per legal action in the last search (expert iteration's targets)
        self.last_visits: dict[int, int] = {}
        self.last_search: dict[str, Any] = {}  # the core's whole answer (engine core)

    def _load(self, model: Path) -> None:
        self.model = str(model)
        self.policy = load_policy(model)
        if self.engine == "core":  # refuses a network the core cannot run, before any search
            self.network = core_network(model)
            self.critic = core_critic(model) if self.value == "table" else None
            if self.value == "table" and self.critic is None:
                raise ValueError(f"puct:value=table needs a model with a critic; {model} has none")
        # the observation's size is the same for every player count: the file says which
        self.num_players = trained_num_players(model)
        self.observation_size = policy_observation_size(self.policy)

    # ------------------------------------------------------------------ protocol
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = legal_from(observation, info)
        if len(legal) == 1:
            return legal[0]
        determinize = info.get("determinize")
        if determinize is None:
            raise MissingInfoError(
                "puct needs info['determinize'] (play it with the tournament runner)"
            )
        if self.engine == "core":
            return self.search_core(determinize, int(info["seat"]), legal)
        return self.search(determinize, legal)

    def search_core(self, determinize: Any, seat: int, legal: list[int]) -> int:
        """Run the C++ search from one determinisation (module docstring); the best action.

        Raises:
            ValueError: the model was trained for a game of another size.
        """
        position = determinize(self.rng)  # a state of the seat's information set, no more
        if not isinstance(position, cpp_backend.CppFortState):
            position = cpp_backend.CppFortState.from_state(position)  # a Python-backend game
        self._check_table(position.game.num_players)
        result = cpp_backend.require().puct_search(
            position.core_state,
            seat,
            self.network,
            seed=int(self.rng.integers(SEED_LIMIT)),
            simulations=self.iterations,
            seconds=self.seconds,
            c=self.c,
            batch=self.batch,
            threads=self.threads,
            noise_alpha=self.alpha,
            noise_fraction=self.noise,
            critic=self.critic,
            gumbel=self.gumbel,
            gumbel_actions=self.gumbel_actions,
        )
        self.last_search = dict(result)
        self.last_iterations = int(result["simulations"])
        self.last_visits = dict(zip(result["actions"], result["visits"], strict=True))
        action = int(result["action"])
        if action not in legal:  # the seat's legal actions are the same in its information set
            raise RuntimeError(f"the C++ search returned {action}, not among the legal {legal}")
        return action

    def _check_table(self, n: int) -> None:
        """Load the shipped model for an ``n``-player table; refuse a model of another size."""
        if self._shipped and self.num_players != n:
            self._load(search_model(n))
        if n != self.num_players:
            raise ValueError(
                f"{self.model} was trained for {self.num_players} players; this game has {n}"
            )

    # ------------------------------------------------------------------ network
    def evaluate(self, state: FortState) -> tuple[np.ndarray, np.ndarray]:
        """The network on ``state``: the acting seat's prior (float64 ``(N,)``, zero on illegal
        actions) and every seat's value in ``[0, 1]`` (float64 ``(num_players,)``).

        Raises:
            ValueError: the policy was trained for a game of another size.
        """
        import torch

        n = state.game.num_players
        self._check_table(n)
        obs = np.stack([state.observation_tensor(seat) for seat in range(n)])
        if n != self.num_players or obs.shape[1] != self.observation_size:
            raise ValueError(
                f"{self.model} was trained for {self.num_players} players and observations of "
                f"{self.observation_size} entries; this game has {n} players and "
                f"{obs.shape[1]} entries"
            )
        actor = state.current_player()
        with torch.no_grad():
            x = torch.as_tensor(obs)
            logits = policy_logits(self.policy, x[actor : actor + 1])
            values = policy_values(self.policy, x)
        prior = masked_softmax(
            logits[0].numpy(), state.legal_actions_mask().astype(bool), self.model
        )
        lo, hi = RETURN_RANGE
        raw = values.numpy().astype(np.float64)
        check_logits(raw, self.model)  # a NaN value would poison the search's statistics
        value = np.clip((raw - lo) / (hi - lo), 0.0, 1.0)
        return prior, value

    # ------------------------------------------------------------------ search
    def search(self, determinize: Any, legal: list[int]) -> int:
        """Run the search from the positions ``determinize`` samples; the best root action."""
        root = Node(-1)
        deadline = time.perf_counter() + self.seconds if self.seconds > 0 else math.inf
        n = 0
        while n < self.iterations and time.perf_counter() < deadline:
            self._iterate(root, determinize(self.rng))
            n += 1
        self.last_iterations = n
        self.last_visits = {a: ch.visits for a, ch in root.children.items() if a in legal}
        return max(
            legal,
            key=lambda a: (
                (root.children[a].visits, root.children[a].value)
                if a in root.children
                else (-1, root.priors.get(a, 0.0))
            ),
        )

    def _iterate(self, root: Node, state: FortState) -> None:
        path = [root]
        node = root
        values: np.ndarray | None = None
        for _ in range(MAX_DEPTH):
            if state.is_terminal():
                lo, hi = RETURN_RANGE
                values = np.clip((np.asarray(state.returns(), float) - lo) / (hi - lo), 0, 1)
                break
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])  # no choice: no node
                continue
            player = state.current_player()
            if any(a not in node.priors for a in legal):
                prior, values = self.evaluate(state)
                for a in legal:
                    node.priors.setdefault(a, float(prior[a]))
                break
            a = self._select(node, legal)
            child = node.children.get(a)
            if child is None:
                child = node.children[a] = Node(player)
            state.apply_action(a)
            node = child
            path.append(node)
        if values is None:  # the depth guard: no value to back up
            return
        for nd in path:
            nd.visits += 1
            if nd.player >= 0:
                nd.value += float(values[nd.player])

    def _select(self, node: Node, legal: list[int]) -> int:
        total_prior = sum(node.priors[a] for a in legal) or 1.0
        visits = [node.children[a].visits if a in node.children else 0 for a in legal]
        sqrt_n = math.sqrt(max(1, sum(visits)))
        first_play = 0.5
        seen = [node.children[a] for a in legal if a in node.children and node.children[a].visits]
        if seen:  # first-play urgency: the mean of the tried children for this player
            first_play = sum(ch.value for ch in seen) / sum(ch.visits for ch in seen)
        best, best_score = legal[0], -math.inf
        for a, n_a in zip(legal, visits, strict=True):
            q = node.children[a].value / n_a if n_a else first_play
            score = q + self.c * (node.priors[a] / total_prior) * sqrt_n / (1 + n_a)
            if score > best_score:
                best, best_score = a, score
        return best

    def __repr__(self) -> str:
        return f"PUCTAgent(name={self.name!r}, model={self.model!r}, engine={self.engine!r})"
