"""``fort-env serve``: play Fort in the browser against the bots (a local Starlette app).

The page (``agents/arena/static/play.html``, vanilla JavaScript; the board on it is the replay
page's, ``fort_env.tools.board``: its styles and script are put into the page as it is served)
talks to a JSON API:

- ``GET /api/bots?num_players=N`` -> ``{"bots": [...]}``: the rivals one may choose (the bot
  zoo: ``agents.available()`` without the bots that need a model file, plus the bare ``ppo``
  where a shipped model exists for ``N`` players), then the server's own rivals
  (``create_app(rivals=...)``, ``fort-env serve --rival SPEC``: a model you trained, say) that
  play ``N``-player games (:func:`check_rivals`).
- ``POST /api/games`` with ``{"num_players", "seat", "bots": [...], "setup", "seed"}`` -> 201
  and the view below (``bots``: one spec per rival seat in seat order, or one for all;
  ``seat`` defaults to 0, ``setup`` to basic, ``seed`` to one drawn from the operating
  system's entropy, ``secrets.randbelow(SEED_LIMIT)``: a seed reveals the deal, so it must not
  be guessable). A game whose seed the client chose is marked so: ``seed_chosen_by_client`` is
  true in its record (and in the view once it is over); whoever chose the seed could know every
  hidden card, so such a game proves nothing about the player.
- ``GET /api/games/{id}`` -> the view: ``{"id", "terminal", "to_move", "seat", "legal":
  [{"id", "text"[, "detail"]}], "scores", "players", "log", "board", "table", "hand",
  "hand_cards", "decision", "unplayable", "final", "card_text", "rule_text"}``. ``board`` is
  the replay page's frame built from what the seat may see
  (``fort_env.tools.board.board_frame`` with ``viewer``; the view: ``serve_view``): rivals'
  hands and Lookouts as counts; each seat's made-up rules, the seat's own as
  ``made_up_rules`` (names), a rival's as ``made_up_rule_count`` until the end (then every
  seat's names). ``scores`` and
  each board seat's ``score`` are the Victory Track while the game is on, the totals at the end.
  ``hand_cards`` is the seat's hand, in the board's order, each card with its two actions
  (``{"card", "public", "private"}``); ``card_text`` and ``rule_text`` the card set's texts of
  every card and made-up rule (the rulebook's; a legal ``take made-up rule`` action has its
  rule's text as ``detail``); ``table`` the text view (``fort_env.views.text.state_to_string``
  with ``viewer``); ``players`` who sits where (``"you"``, a rival's spec); ``log`` every move
  so far as the seat saw it (a rival's hidden choice without what it was).
- ``POST /api/games/{id}/actions`` with ``{"action": int}`` -> the view after the bots have
  replied, up to the person's next decision or the end of the game.
- ``GET /api/games/{id}/record`` -> the game record (``fort_env.records``; its ``agents``
  names the seats: ``"you"`` and the rivals' specs), and ``GET /games/{id}/replay`` its replay
  page (which names the seats so): once the game is over (before, the seed and the rivals'
  actions would give their hidden cards away: 409).

Bad input (a malformed or illegal action, an unknown game or bot, a bad or oversized body)
gets a 4xx JSON ``{"error": "..."}`` naming the problem and leaves the game as it was; no
stack trace reaches the client. The bots think in worker threads, at most
``server_limits.BOT_THREADS`` at once, off the event loop; one request at a time acts on a game.

The server defends itself against the web pages its user visits and against other clients
(issue 42):

- **Host and Origin.** A request whose ``Host`` is not an allowed name (the loopback names
  ``127.0.0.1``, ``localhost``, ``[::1]``, any port, plus ``create_app(allowed_hosts=...)``,
  ``fort-env serve --allowed-host NAME``) gets 400: a DNS-rebinding page cannot reach the API.
  A ``POST`` whose ``Origin`` is present and is not ``http(s)://ALLOWED-NAME[:PORT]`` gets 403.
- **JSON only.** A ``POST`` body must be ``Content-Type: application/json`` (415 otherwise), so a
  cross-origin form or ``text/plain`` post (a CORS "simple request") cannot create games; at
  most :data:`MAX_BODY_BYTES` (413, from ``Content-Length`` and from the bytes read), UTF-8,
  nested at most :data:`MAX_JSON_DEPTH` deep (400: never a ``RecursionError``).
- **Limits that lock nobody else out.** Games live in memory, each dropped after
  :data:`IDLE_TIMEOUT_S` without an action of its player (creating it or ``POST .../actions``;
  reading it does not count). A client (an IP address; an IPv6 /64) keeps at most
  :data:`MAX_GAMES_PER_CLIENT` games: a new one replaces that client's own longest idle game;
  at most :data:`MAX_GAMES` in all: a new one replaces the longest idle game. Nobody is refused
  a new game.
- **Connections.** A request head must come whole within ``server_limits.HEAD_TIMEOUT_S`` of
  the moment the server waits for it, first byte included (the connection is closed
  otherwise); one client address holds at most ``server_limits.MAX_CONNECTIONS_PER_CLIENT``
  connections (one more gets 503); a head over ``server_limits.MAX_HEAD_BYTES`` gets 431
  however it arrives (``serve_protocol``). A busy port or a host that is not this machine's is
  one ``ConfigError`` before anything is printed.
- **Headers.** Every response carries :data:`SECURITY_HEADERS` (a Content-Security-Policy that
  allows the pages' own inline script and style and nothing from elsewhere, no framing, no
  MIME sniffing, no referrer).

The parts, one job each: ``serve_guard`` (the Host/Origin checks, the headers, the body's
limits), ``serve_games`` (a game, the store of games and its limits, the rivals),
``serve_view`` (what a seat is shown), ``serve_protocol`` (the connections, the sockets); this
module puts them into the app and runs it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agents.arena.serve_games import (
    IDLE_TIMEOUT_S,
    MAX_GAMES,
    MAX_GAMES_PER_CLIENT,
    Game,
    GameStore,
    Rivals,
    bot_choices,
    check_rivals,
    new_game,
)
from agents.arena.serve_guard import (
    LOOPBACK_NAMES,
    MAX_BODY_BYTES,
    MAX_JSON_DEPTH,
    SECURITY_HEADERS,
    ApiError,
    Guard,
    client_key,
    host_name,
    int_field,
    read_json_body,
)
from agents.arena.serve_view import rule_texts, seat_view
from agents.arena.server_limits import Thinker, limit_malloc_arenas
from fort_env.tools.board import with_board
from fort_env.tools.replay_html import build_frames, render_html

# the server's names, wherever they live (serve_games, serve_guard, serve_view): tests and
# callers import them from here
__all__ = ["IDLE_TIMEOUT_S", "LOOPBACK_NAMES", "MAX_BODY_BYTES", "MAX_GAMES",
           "MAX_GAMES_PER_CLIENT", "MAX_JSON_DEPTH", "PAGE", "SECURITY_HEADERS", "ApiError", "Game",
           "GameStore", "Guard", "bot_choices", "check_rivals", "client_key", "create_app",
           "host_name", "rule_texts", "seat_view", "serve"]  # fmt: skip

log = logging.getLogger(__name__)

PAGE = Path(__file__).resolve().parent / "static" / "play.html"
"""The play page; served with the board's styles and script in it (``fort_env.tools.board``)."""


def create_app(
    store: GameStore | None = None,
    allowed_hosts: Iterable[str] = (),
    rivals: Rivals | None = None,
) -> Starlette:
    """The app: the page at ``/``, the JSON API under ``/api`` (module docstring). The loopback
    names are always allowed in ``Host`` (and ``Origin``); ``allowed_hosts`` adds names
    (:func:`host_name`'s forms; ValueError for others). ``rivals``: agent specs offered besides
    the zoo's, each with the player counts it plays (:func:`check_rivals` makes it)."""
    games = store if store is not None else GameStore()
    allowed = frozenset(LOOPBACK_NAMES) | {host_name(h) for h in allowed_hosts}
    rivals = dict(rivals or {})
    thinker = Thinker()  # bot moves: BOT_THREADS at once (server_limits)

    async def page(request: Request) -> Response:
        return HTMLResponse(with_board(PAGE.read_text(encoding="utf-8")))

    async def bots(request: Request) -> Response:
        raw = request.query_params.get("num_players", "2")
        if raw not in ("2", "3", "4"):
            raise ApiError(400, f"'num_players' must be 2, 3 or 4, got {raw[:20]!r}")
        return JSONResponse({"bots": bot_choices(int(raw), rivals)})

    async def create(request: Request) -> Response:
        game = new_game(await read_json_body(request), rivals)
        games.add(game, client_key(request.client.host if request.client else None))
        try:
            with game.lock:
                await thinker.run(game.advance)
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
        data = await read_json_body(request)
        extra = sorted(set(data) - {"action"})
        if extra:
            raise ApiError(400, f"unknown field(s) {extra}; expected ['action']")
        # the game's own range, closed: [0, num_distinct_actions - 1] (it said [0, 2**31])
        action = int_field(data, "action", 0, game.state.game.num_distinct_actions - 1, None)
        if not game.lock.acquire(blocking=False):
            raise ApiError(409, "the game is busy with another request")
        games.touch(game)  # its player acted (a GET does not keep a game alive)
        try:
            await thinker.run(game.play, action)
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
        data = await thinker.run(build_frames, game.record())
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
        # sent by Starlette's outermost middleware, around Guard: the headers added here
        return JSONResponse({"error": "internal error (see the server's log)"}, status_code=500,
                            headers=SECURITY_HEADERS)  # fmt: skip

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
    middleware = [Middleware(Guard, allowed=allowed)]
    return Starlette(routes=routes, exception_handlers=handlers, middleware=middleware)


LOOPBACK = LOOPBACK_NAMES
WILDCARD = ("0.0.0.0", "::", "")  # bind addresses that are no name a browser uses


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    allowed_hosts: Iterable[str] = (),
    rivals: Rivals | None = None,
) -> None:
    """Run the app with uvicorn until interrupted; warns when bound beyond loopback. The
    ``Host`` names allowed: the loopback names, ``host`` itself (unless a wildcard address)
    and ``allowed_hosts``; ``rivals``: the server's own (:func:`create_app`). The sockets are
    bound first (``port`` 0: a free port, the one printed), and the connections are guarded
    (``serve_protocol``: a head timeout, a cap per client address).

    Raises:
        ConfigError: ``host`` does not resolve or is not this machine's, ``port`` is in use
            or not allowed (``serve_protocol.bind_sockets``), before anything is printed.
    """
    from agents.arena.serve_protocol import bind_sockets, make_server

    sockets = bind_sockets(host, port)
    try:
        allowed = list(allowed_hosts)
        if host not in LOOPBACK:
            if host not in WILDCARD:
                # not a name a browser could send: skipped
                with contextlib.suppress(ValueError):
                    allowed.append(host_name(host))
            print(
                f"warning: serving on {host}, not loopback: anyone who can reach this machine "
                "can start games here (there is no login). Browsers must use an allowed name "
                "(--allowed-host NAME for each name other than the loopback ones and --host)."
            )
        app = create_app(allowed_hosts=allowed, rivals=rivals)
        limit_malloc_arenas()  # the bot threads' freed memory goes back (server_limits)
        server = make_server(app, sockets)
        bound = sockets[0].getsockname()[1]
        print(f"Play Fort at http://{'[' + host + ']' if ':' in host else host}:{bound}/",
              flush=True)  # fmt: skip
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()
