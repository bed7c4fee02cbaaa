"""The games of ``fort-env serve`` (``agents.arena.serve``'s module docstring): one game in play
(:class:`Game`: the person's seat, the bots, the moves as the seat saw them, its record and its
view), the games kept in memory with their limits (:class:`GameStore`), the rivals one may
choose (:func:`bot_choices`, the server's own: :func:`check_rivals`), and a new game from a
``POST /api/games`` body (:func:`new_game`).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from agents.arena.games import decision_info
from agents.arena.human import move_text, public_text, rivals_needed
from agents.arena.serve_guard import ApiError, int_field
from agents.arena.serve_view import seat_view
from agents.arena.server_limits import trim_memory
from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState
from fort_env.game.constants import SEED_LIMIT
from fort_env.game.facts import SETUPS
from fort_env.records import make_record
from fort_env.views.words import is_internal

__all__ = [
    "IDLE_TIMEOUT_S", "MAX_GAMES", "MAX_GAMES_PER_CLIENT", "NEEDS_MODEL", "NEW_GAME_KEYS", "Game",
    "GameStore", "Rivals", "bot_choices", "check_rivals", "new_game",
]  # fmt: skip

log = logging.getLogger("agents.arena.serve")  # the server's one log

MAX_GAMES = 256  # games kept at once, all clients together (the longest idle one makes room)
MAX_GAMES_PER_CLIENT = 8  # games kept at once for one client address (its own longest idle goes)
IDLE_TIMEOUT_S = 3600.0  # a game whose player has not acted for this long is dropped
NEEDS_MODEL = ("ppo", "puct", "rllib")  # bots that need a model file (bare ppo: shipped only)


Rivals = Mapping[str, Sequence[int]]
"""The server's own rivals: each agent spec with the player counts it plays
(:func:`check_rivals`)."""


def bot_choices(num_players: int, rivals: Rivals | None = None) -> list[str]:
    """The rivals one may choose for an ``num_players`` game (``agents.arena.serve``'s module
    docstring): the zoo's, sorted, then those of ``rivals`` that play ``num_players``-player
    games, in their order."""
    from agents import available
    from agents.learned.zoo import shipped_models

    names = [n for n in available() if n not in NEEDS_MODEL]
    if num_players in shipped_models():
        names.append("ppo")
    names.sort()
    extra = [s for s, counts in (rivals or {}).items() if num_players in counts]
    return names + [s for s in extra if s not in names]


def _plays(agent: Agent, num_players: int) -> None:
    """``agent`` takes the first decision of an ``num_players``-player game (raises if not)."""
    state = FortGame(num_players).new_initial_state(seed=0)
    seat = state.current_player()
    info = decision_info(state, seat)
    obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
    action = int(agent.act(obs, info))
    if action not in state.legal_actions():
        raise ValueError(f"it chose the illegal action {action} in a {num_players}-player game")


def check_rivals(specs: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """The rivals ``specs`` as :func:`create_app` takes them: each spec built with
    ``agents.make`` and tried on the first decision of a 2-, 3- and 4-player game; the player
    counts where it plays are the ones it is offered at.

    Raises:
        ValueError, FortError, OSError, ImportError: a spec that does not build (as
            ``agents.make`` raises), or that plays no game of 2 to 4 players (the problem at 2).
    """
    from agents import make

    out: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        spec = spec.strip()
        agent = make(spec, seed=0)
        counts: list[int] = []
        problems: list[str] = []
        for n in (2, 3, 4):
            try:
                _plays(agent, n)
            except Exception as exc:
                problems.append(f"{n} players: {' '.join(str(exc).split()) or type(exc).__name__}")
            else:
                counts.append(n)
        if not counts:
            raise ValueError(f"{spec!r} plays no game of 2 to 4 players ({problems[0]})")
        out[spec] = tuple(counts)
    return out


@dataclass
class Game:
    """One game in play: the person's seat, the bots at the others, the moves so far."""

    id: str
    state: FortState
    seat: int
    setup: str
    seed: int
    bots: dict[int, Agent]
    players: list[str]
    seed_chosen_by_client: bool = False
    actions: list[int] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    # when its player last acted (created it or sent an action: reading it does not count),
    # on the store's clock; and who created it (GameStore.add)
    last_used: float = field(default_factory=time.monotonic)
    client: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def advance(self) -> None:
        """Let the bots move until the person's decision or the end; at the end the bots are
        let go (a finished game keeps its moves, log and final state only)."""
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            seat = state.current_player()
            info = decision_info(state, seat)
            obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
            action = int(self.bots[seat].act(obs, info))
            if action not in state.legal_actions():
                raise RuntimeError(f"bot {self.players[seat]} chose illegal action {action}")
            if not is_internal(state, action):  # going on with an action: no move of theirs
                self.log.append({"player": seat, "text": public_text(state, action)})
            state.apply_action(action)
            self.actions.append(action)
        if state.is_terminal():
            self.bots = {}

    def play(self, action: int) -> None:
        """The person's action, then the bots' replies. Raises ApiError, the game unchanged,
        if it is not the person's turn or ``action`` is not legal."""
        if self.state.is_terminal():
            raise ApiError(409, "the game is over")
        if self.state.current_player() != self.seat:
            raise ApiError(409, "it is not your turn")
        legal = [int(a) for a in self.state.legal_actions()]
        if action not in legal:
            raise ApiError(422, f"action {action} is not legal now (legal: {legal})")
        if not is_internal(self.state, action):
            self.log.append({"player": self.seat, "text": move_text(self.state, action)})
        self.state.apply_action(action)
        self.actions.append(action)
        self.advance()

    def record(self) -> dict[str, Any]:
        config = {"num_players": self.state.game.num_players, "setup": self.setup, "cards": None}
        record = make_record(config, self.seed, self.actions, self.state)
        record["agents"] = self.players
        record["seed_chosen_by_client"] = self.seed_chosen_by_client
        return record

    def view(self) -> dict[str, Any]:
        out = {"id": self.id, **seat_view(self.state, self.seat)}
        out["players"] = self.players
        out["log"] = list(self.log)
        if self.state.is_terminal():
            out["seed"] = self.seed
            out["seed_chosen_by_client"] = self.seed_chosen_by_client
            out["record_url"] = f"/api/games/{self.id}/record"
            out["replay_url"] = f"/games/{self.id}/replay"
        return out


class GameStore:
    """The games in memory: each dropped after ``idle_s`` without an action of its player; at
    most ``per_client`` for one client (a new one replaces that client's longest idle game) and
    ``max_games`` in all (a new one replaces the longest idle game): a client at its cap, or
    many, refuse nobody a game. ``clock`` (``time.monotonic``) is for the tests."""

    def __init__(
        self,
        max_games: int = MAX_GAMES,
        idle_s: float = IDLE_TIMEOUT_S,
        per_client: int = MAX_GAMES_PER_CLIENT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_games < 1 or per_client < 1:
            raise ValueError(f"max_games and per_client must be >= 1: {max_games}, {per_client}")
        self.max_games = max_games
        self.idle_s = idle_s
        self.per_client = per_client
        self.clock = clock
        self.games: dict[str, Game] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        gone = [g for g, game in self.games.items() if now - game.last_used > self.idle_s]
        for gid in gone:
            del self.games[gid]
        if gone:
            trim_memory()  # their bots' memory back to the system (server_limits)

    def _evict_longest_idle(self, games: Iterable[Game]) -> None:
        oldest = min(games, key=lambda g: g.last_used)
        log.info("fort-env serve: game %s dropped for room (client %s)", oldest.id, oldest.client)
        del self.games[oldest.id]

    def add(self, game: Game, client: str = "") -> None:
        """Keep ``game``, created by ``client`` (``serve_guard.client_key``), as just used."""
        with self._lock:
            self._expire()
            game.client = client
            game.last_used = self.clock()
            while True:
                mine = [g for g in self.games.values() if g.client == client]
                if len(mine) < self.per_client:
                    break
                self._evict_longest_idle(mine)
            while len(self.games) >= self.max_games:
                self._evict_longest_idle(self.games.values())
            self.games[game.id] = game

    def get(self, gid: str) -> Game:
        """The game ``gid`` (404 if unknown or dropped); reading does not keep it alive."""
        with self._lock:
            self._expire()
            game = self.games.get(gid)
            if game is None:
                raise ApiError(404, f"no game {gid!r} (unknown, or dropped after being idle)")
            return game

    def touch(self, game: Game) -> None:
        """Its player acted: the game's idle time starts again."""
        with self._lock:
            game.last_used = self.clock()


NEW_GAME_KEYS = ("num_players", "seat", "bots", "setup", "seed")


def new_game(data: dict[str, Any], server_rivals: Rivals | None = None) -> Game:
    """A game from a ``POST /api/games`` body (raises ApiError naming the bad field); its bots
    are chosen among :func:`bot_choices` (``server_rivals``: the server's own)."""
    from agents import make

    extra = sorted(set(data) - set(NEW_GAME_KEYS))
    if extra:
        raise ApiError(400, f"unknown field(s) {extra}; expected {list(NEW_GAME_KEYS)}")
    n = int_field(data, "num_players", 2, 4, None)
    seat = int_field(data, "seat", 0, n - 1, 0)
    setup = data.get("setup", "basic")
    if setup not in SETUPS:
        raise ApiError(400, f"'setup' must be one of {list(SETUPS)}, got {json.dumps(setup)[:40]}")
    chosen = data.get("seed") is not None
    # no seed given: one from the OS's entropy (a deal is found from its seed at once, and
    # random.randrange(2**31) left 31 bits to brute-force from a seat's opening)
    if chosen:
        seed = int_field(data, "seed", 0, SEED_LIMIT - 1, 0)
    else:
        seed = secrets.randbelow(SEED_LIMIT)
    specs = data.get("bots")
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise ApiError(400, "'bots' must be a list of bot names")
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        raise ApiError(400, f"{rivals_needed(n, 'bot')}, got {len(specs)}")
    choices = bot_choices(n, server_rivals)
    for spec in specs:
        if spec not in choices:
            raise ApiError(400, f"unknown bot {spec[:40]!r}; choose from {choices}")
    rivals = iter(specs)
    bots: dict[int, Agent] = {}
    players: list[str] = []
    for p in range(n):
        if p == seat:
            players.append("you")
            continue
        spec = next(rivals)
        bots[p] = make(spec, seed=seed * 10 + p + 1)
        players.append(spec)
    state = FortGame(n, setup).new_initial_state(seed=seed)
    return Game(secrets.token_urlsafe(12), state, seat, setup, seed, bots, players, chosen)
