"""One game between agents, and a worker's share of a tournament.

:func:`play_game` plays one game on the engine and returns its :class:`GameRecord`;
:func:`init_worker` and :func:`run_one` are what a tournament's worker process (or a Ray task,
``agents.arena.ray_games``) runs: build the agents once, then play the games it is given
(``agents.arena.tournament`` says how games are seated, seeded and dealt).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np

from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState
from fort_env.game.constants import MAX_FORT_LEVEL, PARK_DECK, SCORE_TRIGGER
from fort_env.views.seat import SeatView

__all__ = [
    "GAME_TORCH_THREADS", "TRIGGERS", "DecisionInfo", "GameRecord", "Job", "Observer",
    "decision_info",
    "derive_seed", "init_worker", "play_game", "run_one", "torch_threads",
]  # fmt: skip

TRIGGERS = ("score_25", "fort_level_5", "park_deck_empty")


@dataclass
class GameRecord:
    """What one game produced. Per-seat lists are by engine seat; ``position(seat)`` is the
    seat's turn-order position (0 = the first player)."""

    index: int
    seating: list[int]  # seating[seat] = agent index
    totals: list[int]  # final total per seat
    breakdown: list[dict[str, int]]
    winners: list[int]  # seats
    ranks: list[int]  # per seat, 1 = best; ties share the better rank
    levels: list[int]
    decisions: int
    rounds: int
    triggers: list[str]
    think: list[float]  # seconds in act() per seat
    decisions_by_seat: list[int]
    first_player: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None  # the deal's seed (new_initial_state), set by run_one
    actions: list[int] | None = None  # every action in order, when asked (record_actions)

    def position(self, seat: int) -> int:
        """Turn-order position of engine seat ``seat`` (0 = the first player)."""
        return (seat - self.first_player) % len(self.seating)


def _ranks(totals: list[int], levels: list[int]) -> list[int]:
    keys = [(t, lv) for t, lv in zip(totals, levels, strict=True)]
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def _triggers(state: FortState) -> list[str]:
    out = []
    if np.any(state.scores() >= SCORE_TRIGGER):
        out.append("score_25")
    if np.any(state.fort_levels() >= MAX_FORT_LEVEL):
        out.append("fort_level_5")
    if not len(state.cards_in(PARK_DECK)):
        out.append("park_deck_empty")
    return out


class DecisionInfo(Mapping[str, Any]):
    """The ``info`` an agent gets for a decision of ``seat`` (``agents.base``): ``seat``,
    ``game``, ``legal_actions`` (ascending ints), ``action_mask`` (int8 ``(N,)``), ``view``
    (a :class:`SeatView`) and ``determinize`` (``rng -> FortState``).

    ``view`` is built on first access (a random or network agent never pays for it), so, like
    ``determinize``, it is valid while the decision is pending: read it in ``act``.
    """

    _KEYS = ("seat", "game", "legal_actions", "action_mask", "view", "determinize")

    def __init__(self, state: FortState, seat: int) -> None:
        legal = state.legal_actions()
        mask = np.zeros(state.game.num_distinct_actions, dtype=np.int8)
        mask[legal] = 1
        self._state = state
        self._items: dict[str, Any] = {
            "seat": seat,
            "game": state.game,
            "legal_actions": legal,
            "action_mask": mask,
            "determinize": lambda rng, _s=state, _p=seat: _s.resample_hidden(_p, rng),
        }

    def __getitem__(self, key: str) -> Any:
        if key == "view" and key not in self._items:
            self._items[key] = SeatView.from_state(self._state, self._items["seat"])
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)


def decision_info(state: FortState, seat: int) -> DecisionInfo:
    """The ``info`` an agent gets for a decision of ``seat`` (:class:`DecisionInfo`)."""
    return DecisionInfo(state, seat)


def act_in_env(agent: Any, env: Any) -> int:
    """The action ``agent`` chooses for the agent to act in a Fort PettingZoo env: any bot of
    the zoo in a plain PettingZoo loop (issue 38), with the ``info`` the tournament runner gives
    (:class:`DecisionInfo`: ``game``, ``determinize``, ``view``...), which the env's own
    ``info`` leaves out (a callable in every step's infos would break libraries that copy or
    batch them). Search bots (``puct``, ``ismcts``, ``greedy``) determinise from the seat's
    information set only, as in a tournament; bare ``ppo`` reads the table's size from
    ``info["game"]``.

    Args:
        agent: an agent (``agents.make(spec)``) or a plain function ``(observation, info) ->
            action``.
        env: ``fort_env.env()`` / ``raw_env()`` (any wrapper of it), its ``agent_selection``
            to act; or ``fort_env.parallel_env()`` (its acting seat).

    Returns:
        The chosen action (an int of the AEC env's action space; in the parallel view the
        acting seat's action, every other seat sends ``env.wait_action``).

    Raises:
        ValueError: the game is over.
    """
    raw = getattr(env, "aec_env", None) or env.unwrapped
    state = raw.fort_state()
    if state.is_terminal():
        raise ValueError("the game is over: no agent is to act")
    seat = state.current_player()
    info = decision_info(state, seat)
    obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
    act = getattr(agent, "act", None)
    return int(act(obs, info) if act is not None else agent(obs, info))


class Observer(Protocol):
    """Watches a game: ``before(state, seat, action)`` before each action is applied,
    ``after(state, seat, action)`` after it, ``end(state)`` at the end (its result goes into
    the game's record)."""

    def before(self, state: FortState, seat: int, action: int) -> None: ...

    def after(self, state: FortState, seat: int, action: int) -> None: ...

    def end(self, state: FortState) -> dict[str, Any]: ...


def play_game(
    game: FortGame,
    agents: Sequence[Agent],
    seed: int,
    index: int = 0,
    observer: Observer | None = None,
    first_player: int = 0,
    record_actions: bool = False,
) -> tuple[GameRecord, FortState]:
    """Play one game, ``agents[seat]`` at each engine seat, dealt from ``seed``, with
    ``first_player`` starting (rulebook p.2 step 1).

    ``observer`` (analysis) sees every action; what its ``end`` returns goes into
    ``record.extra``. With ``record_actions``, ``record.actions`` lists every action (what a
    saved game, ``fort_env.records``, needs). Returns the record and the final state.

    Raises:
        fort_env.IllegalActionError: an agent returned an illegal action.
    """
    state = game.new_initial_state(seed=seed, first_player=first_player)
    n = game.num_players
    think = [0.0] * n
    counts = [0] * n
    decisions = 0
    triggers: list[str] = []
    taken: list[int] | None = [] if record_actions else None
    while not state.is_terminal():
        seat = state.current_player()
        info = decision_info(state, seat)
        obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
        t0 = time.perf_counter()
        action = int(agents[seat].act(obs, info))
        think[seat] += time.perf_counter() - t0
        counts[seat] += 1
        if observer is not None:
            observer.before(state, seat, action)
        state.apply_action(action)
        if taken is not None:
            taken.append(action)
        if observer is not None:
            observer.after(state, seat, action)
        decisions += 1
        if not triggers and state.end_triggered:
            triggers = _triggers(state)
    rows = state.score_breakdown()
    totals = [r["total"] for r in rows]
    levels = [int(x) for x in state.fort_levels()]
    record = GameRecord(
        index=index,
        seating=list(range(n)),
        totals=totals,
        breakdown=rows,
        winners=list(state.winners()),
        ranks=_ranks(totals, levels),
        levels=levels,
        decisions=decisions,
        rounds=state.turns_taken(first_player),
        triggers=triggers,
        think=think,
        decisions_by_seat=counts,
        first_player=first_player,
        seed=seed,
        actions=taken,
    )
    if observer is not None:
        record.extra = observer.end(state)
    return record, state


# ---------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


GAME_TORCH_THREADS = 1  # torch threads of a process playing games (torch_threads)


def derive_seed(*key: int) -> int:
    """A 32-bit seed derived from the integers ``key`` (numpy's SeedSequence)."""
    return int(np.random.SeedSequence(list(key)).generate_state(1, dtype=np.uint32)[0])


def torch_threads(n: int | None) -> int | None:
    """Set torch's intra-op threads to ``n`` if torch is loaded (else nothing); returns the
    count before, or ``None`` if torch is not loaded or ``n`` is ``None``.

    The games' networks (``ppo``, ``puct``) evaluate one position at a time, a few hundred
    thousand multiply-adds, where more threads only wait on each other; with another process
    busy on the 2 cores, torch's default (a thread per core) made a ``puct`` iteration 2.37 ms
    against 0.61 ms on one thread, so a 50 ms search ran 24 iterations instead of 83
    (``python scripts/puct_speed.py --model M --busy 1``; docs/agents.md).
    """
    torch = sys.modules.get("torch")
    if torch is None or n is None:
        return None
    before = int(torch.get_num_threads())
    torch.set_num_threads(n)
    return before


def init_worker(
    specs: list[Any], num_players: int, setup: str, cards: str | None, observer: Any = None
) -> None:
    from agents import FunctionAgent, make

    def build(s: Any) -> Any:
        if isinstance(s, str):
            return make(s)
        return s if callable(getattr(s, "act", None)) else FunctionAgent(s)

    _WORKER["game"] = FortGame(num_players, setup, cards)
    _WORKER["agents"] = [build(s) for s in specs]
    _WORKER["observer"] = observer  # a factory: () -> Observer, or None
    torch_threads(GAME_TORCH_THREADS)  # after make: the agents' imports load torch


Job = tuple[int, int, bool, bool]
"""What :func:`run_one` plays: ``(game index, run seed, duplicate deals, record actions)``."""


def run_one(args: Job) -> GameRecord:
    """Play game ``g`` of a run with seed ``seed`` (in a worker, or in-process); with
    ``duplicate``, the games of a rotation block share one deal; with ``record_actions``, the
    record keeps the game's actions (``GameRecord.actions``)."""
    g, seed, duplicate, record_actions = args
    game: FortGame = _WORKER["game"]
    agents: list[Agent] = _WORKER["agents"]
    n = game.num_players
    seating = [0] * n  # seat -> agent index
    for i in range(n):
        seating[(i + g) % n] = i
    for i, agent in enumerate(agents):
        seed_agent = getattr(agent, "seed", None)
        if callable(seed_agent):  # a user's agent may have nothing to seed
            seed_agent(derive_seed(seed, g, i))
    factory = _WORKER.get("observer")
    observer = factory() if factory is not None else None
    block = g // n
    deal = derive_seed(seed, block, 1_000_003) if duplicate else derive_seed(seed, g, 2_000_003)
    bots = [agents[i] for i in seating]
    record, _ = play_game(game, bots, deal, g, observer, first_player=block % n,
                          record_actions=record_actions)  # fmt: skip
    record.seating = seating
    return record
