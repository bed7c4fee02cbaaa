"""``fort-env serve``: play Fort in the browser against the bots (a local Starlette app).

The page (``agents/arena/static/play.html``, vanilla JavaScript) talks to a JSON API:

- ``GET /api/bots?num_players=N`` -> ``{"bots": [...]}``: the rivals one may choose (the bot
  zoo: ``agents.available()`` without the bots that need a model file, plus the bare ``ppo``
  where a shipped model exists for ``N`` players).
- ``POST /api/games`` with ``{"num_players", "seat", "bots": [...], "setup", "seed"}`` -> 201
  and the view below (``bots``: one spec per rival seat in seat order, or one for all;
  ``seat`` defaults to 0, ``setup`` to basic, ``seed`` to one drawn from the operating
  system's entropy, ``secrets.randbelow(SEED_LIMIT)``: a seed reveals the deal, so it must not
  be guessable). A game whose seed the client chose is marked so: ``seed_chosen_by_client`` is
  true in its record (and in the view once it is over); whoever chose the seed could know every
  hidden card, so such a game proves nothing about the player.
- ``GET /api/games/{id}`` -> the view: ``{"id", "terminal", "to_move", "seat", "legal":
  [{"id", "text"}], "scores", "players", "log", "board", "table", "hand", "decision",
  "unplayable", "final"}``. ``board`` is the replay page's frame (``fort_env.tools.
  replay_html``) seen from the seat: rivals' hands and Lookouts as counts; ``table`` the text
  view (``fort_env.views.text.state_to_string`` with ``viewer``); ``log`` every move so far as
  the seat saw it (a rival's hidden choice without what it was).
- ``POST /api/games/{id}/actions`` with ``{"action": int}`` -> the view after the bots have
  replied, up to the person's next decision or the end of the game.
- ``GET /api/games/{id}/record`` -> the game record (``fort_env.records``), and ``GET
  /games/{id}/replay`` its replay page: once the game is over (before, the seed and the rivals'
  actions would give their hidden cards away: 409).

Bad input (a malformed or illegal action, an unknown game or bot, a bad or oversized body)
gets a 4xx JSON ``{"error": "..."}`` naming the problem and leaves the game as it was; no
stack trace reaches the client. Games live in memory: at most :data:`MAX_GAMES`, each dropped
after :data:`IDLE_TIMEOUT_S` without a request. The bots think in a worker thread
(``run_in_threadpool``), off the event loop; one request at a time acts on a game.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agents.arena.games import decision_info
from agents.arena.human import _describe, _hand_text, _public_text, unplayable
from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState
from fort_env.game.constants import SEED_LIMIT
from fort_env.game.facts import SETUPS
from fort_env.records import make_record
from fort_env.tools.replay_html import _CSS, _card_texts, _frame, build_frames, render_html
from fort_env.views.text import SCORE_LABELS, state_to_string

__all__ = ["MAX_BODY_BYTES", "MAX_GAMES", "ApiError", "GameStore", "bot_choices", "create_app",
           "seat_view", "serve"]  # fmt: skip

log = logging.getLogger(__name__)

MAX_GAMES = 64  # games kept at once
IDLE_TIMEOUT_S = 3600.0  # a game without a request for this long is dropped
MAX_BODY_BYTES = 4096  # a request body's size limit
NEEDS_MODEL = ("ppo", "puct", "rllib")  # bots that need a model file (bare ppo: shipped only)
PAGE = Path(__file__).resolve().parent / "static" / "play.html"


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bot_choices(num_players: int) -> list[str]:
    """The rivals one may choose for an ``num_players`` game (module docstring)."""
    from agents import available
    from agents.learned.zoo import shipped_models

    names = [n for n in available() if n not in NEEDS_MODEL]
    if num_players in shipped_models():
        names.append("ppo")
    return sorted(names)


def _redact(board: dict[str, Any], seat: int) -> dict[str, Any]:
    """The replay frame as ``seat`` sees it: rivals' hands and Lookouts as counts."""
    for s in board["seats"]:
        if s["seat"] != seat:
            s["hand_count"] = len(s["hand"])
            s["lookout_count"] = len(s["lookout"])
            s["hand"] = []
            s["lookout"] = []
    return board


def seat_view(state: FortState, seat: int) -> dict[str, Any]:
    """What ``seat`` is shown of ``state`` (no other seat's hidden information): the replay
    page's board, the text view, the hand, the decision and the legal actions (at the seat's
    own decisions), the scores; at the end the score breakdown and the winners."""
    terminal = state.is_terminal()
    to_move = None if terminal else int(state.current_player())
    mine = to_move == seat
    legal = [int(a) for a in state.legal_actions()] if mine else []
    # the public score (the Victory Track) while the game is on; the totals, with the made-up
    # rules that were hidden until then, at the end
    board = _redact(_frame(state, 0, 0, None), seat)
    scores = [int(s["score"]) for s in board["seats"]]
    if terminal:
        scores = [int(row["total"]) for row in state.score_breakdown()]
    view: dict[str, Any] = {
        "terminal": terminal,
        "to_move": to_move,
        "seat": seat,
        "legal": [{"id": a, "text": state.action_to_string(a)} for a in legal],
        "scores": scores,
        "board": board,
        "table": state_to_string(state, viewer=seat),
        "hand": _hand_text(state, seat),
        "decision": _describe(state) if mine else None,
        "unplayable": [line.strip() for line in unplayable(state, legal)] if mine else [],
        "final": None,
        "card_text": _card_texts(state),  # every card's two actions (the game's data)
    }
    if terminal:
        view["final"] = {
            "scores": state.score_breakdown(),
            "winners": [int(w) for w in state.winners()],
            "labels": dict(SCORE_LABELS),
        }
    return view


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
    last_used: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def advance(self) -> None:
        """Let the bots move until the person's decision or the end."""
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            seat = state.current_player()
            info = decision_info(state, seat)
            obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
            action = int(self.bots[seat].act(obs, info))
            if action not in state.legal_actions():
                raise RuntimeError(f"bot {self.players[seat]} chose illegal action {action}")
            self.log.append({"player": seat, "text": _public_text(state, action)})
            state.apply_action(action)
            self.actions.append(action)

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
        self.log.append({"player": self.seat, "text": self.state.action_to_string(action)})
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
    """The games in memory: at most ``max_games``, each dropped after ``idle_s`` unused."""

    def __init__(self, max_games: int = MAX_GAMES, idle_s: float = IDLE_TIMEOUT_S) -> None:
        self.max_games = max_games
        self.idle_s = idle_s
        self.games: dict[str, Game] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = time.monotonic()
        for gid in [g for g, game in self.games.items() if now - game.last_used > self.idle_s]:
            del self.games[gid]

    def add(self, game: Game) -> None:
        with self._lock:
            self._expire()
            if len(self.games) >= self.max_games:
                raise ApiError(429, f"too many games in play (at most {self.max_games}); "
                                    "try again when one has been idle for a while")  # fmt: skip
            self.games[game.id] = game

    def get(self, gid: str) -> Game:
        with self._lock:
            self._expire()
            game = self.games.get(gid)
            if game is None:
                raise ApiError(404, f"no game {gid!r} (unknown, or dropped after being idle)")
            game.last_used = time.monotonic()
            return game


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object; at most MAX_BODY_BYTES read."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise ApiError(413, f"the request body is over {MAX_BODY_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ApiError(413, f"the request body is over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def _int(data: dict[str, Any], key: str, low: int, high: int, default: int | None) -> int:
    value = data.get(key, default)
    if value is None and default is None and key not in data:
        raise ApiError(400, f"{key!r} is missing")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{key!r} must be an integer, got {json.dumps(value)[:40]}")
    if not low <= value <= high:
        raise ApiError(400, f"{key!r} must be in [{low}, {high}], got {value}")
    return value


NEW_GAME_KEYS = ("num_players", "seat", "bots", "setup", "seed")


def _new_game(data: dict[str, Any]) -> Game:
    """A game from a ``POST /api/games`` body (raises ApiError naming the bad field)."""
    from agents import make

    extra = sorted(set(data) - set(NEW_GAME_KEYS))
    if extra:
        raise ApiError(400, f"unknown field(s) {extra}; expected {list(NEW_GAME_KEYS)}")
    n = _int(data, "num_players", 2, 4, None)
    seat = _int(data, "seat", 0, n - 1, 0)
    setup = data.get("setup", "basic")
    if setup not in SETUPS:
        raise ApiError(400, f"'setup' must be one of {list(SETUPS)}, got {json.dumps(setup)[:40]}")
    chosen = data.get("seed") is not None
    # no seed given: one from the OS's entropy (a deal is found from its seed at once, and
    # random.randrange(2**31) left 31 bits to brute-force from a seat's opening)
    seed = _int(data, "seed", 0, SEED_LIMIT - 1, 0) if chosen else secrets.randbelow(SEED_LIMIT)
    specs = data.get("bots")
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise ApiError(400, "'bots' must be a list of bot names")
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        raise ApiError(400, f"{n} players need 1 or {n - 1} bots, got {len(specs)}")
    choices = bot_choices(n)
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


def create_app(store: GameStore | None = None) -> Starlette:
    """The app: the page at ``/``, the JSON API under ``/api`` (module docstring)."""
    games = store if store is not None else GameStore()

    async def page(request: Request) -> Response:
        html = PAGE.read_text(encoding="utf-8").replace("/*__REPLAY_CSS__*/", _CSS)
        return HTMLResponse(html)

    async def bots(request: Request) -> Response:
        raw = request.query_params.get("num_players", "2")
        if raw not in ("2", "3", "4"):
            raise ApiError(400, f"'num_players' must be 2, 3 or 4, got {raw[:20]!r}")
        return JSONResponse({"bots": bot_choices(int(raw))})

    async def create(request: Request) -> Response:
        game = _new_game(await _body(request))
        games.add(game)
        try:
            with game.lock:
                await run_in_threadpool(game.advance)
        except BaseException:
            games.games.pop(game.id, None)
            raise
        return JSONResponse(game.view(), status_code=201)

    async def show(request: Request) -> Response:
        game = games.get(request.path_params["gid"])
        if not game.lock.acquire(blocking=False):
            raise ApiError(409, "the game is busy with another request")
        try:
            return JSONResponse(game.view())
        finally:
            game.lock.release()

    async def act(request: Request) -> Response:
        game = games.get(request.path_params["gid"])
        data = await _body(request)
        extra = sorted(set(data) - {"action"})
        if extra:
            raise ApiError(400, f"unknown field(s) {extra}; expected ['action']")
        # the game's own range, closed: [0, num_distinct_actions - 1] (it said [0, 2**31])
        action = _int(data, "action", 0, game.state.game.num_distinct_actions - 1, None)
        if not game.lock.acquire(blocking=False):
            raise ApiError(409, "the game is busy with another request")
        try:
            await run_in_threadpool(game.play, action)
            return JSONResponse(game.view())
        finally:
            game.lock.release()

    def finished(request: Request) -> Game:
        game = games.get(request.path_params["gid"])
        if not game.state.is_terminal():
            raise ApiError(409, "the record is shown when the game is over (it would reveal "
                                "the rivals' hidden cards)")  # fmt: skip
        return game

    async def record(request: Request) -> Response:
        return JSONResponse(finished(request).record())

    async def replay_page(request: Request) -> Response:
        game = finished(request)
        data = await run_in_threadpool(build_frames, game.record())
        title = f"Fort replay: {len(game.players)} players, seed {game.seed}"
        return HTMLResponse(render_html(data, title))

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("fort-env serve: %s %s failed", request.method, request.url.path)
        return JSONResponse({"error": "internal error (see the server's log)"}, status_code=500)

    routes = [
        Route("/", page),
        Route("/api/bots", bots),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{gid}", show),
        Route("/api/games/{gid}/actions", act, methods=["POST"]),
        Route("/api/games/{gid}/record", record),
        Route("/games/{gid}/replay", replay_page),
    ]
    handlers: dict[Any, Any] = {
        ApiError: api_error,
        HTTPException: http_error,
        Exception: server_error,
    }
    return Starlette(routes=routes, exception_handlers=handlers)


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted; warns when bound beyond loopback."""
    import uvicorn

    if host not in LOOPBACK:
        print(
            f"warning: serving on {host}, not loopback: anyone who can reach this machine can "
            "start games here (there is no login)."
        )
    print(f"Play Fort at http://{'[' + host + ']' if ':' in host else host}:{port}/")
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
