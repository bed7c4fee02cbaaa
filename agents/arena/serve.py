"""``fort-env serve``: play Fort in the browser against the bots (a local Starlette app).

The page (``agents/arena/static/play.html``, vanilla JavaScript) talks to a JSON API:

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
  the replay page's frame (``fort_env.tools.replay_html``) seen from the seat: rivals' hands and
  Lookouts as counts; each seat's made-up rules, the seat's own as ``made_up_rules`` (names),
  a rival's as ``made_up_rule_count`` until the end (then every seat's names). ``scores`` and
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
- **Headers.** Every response carries :data:`SECURITY_HEADERS` (a Content-Security-Policy that
  allows the pages' own inline script and style and nothing from elsewhere, no framing, no
  MIME sniffing, no referrer).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import re
import secrets
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.arena.games import decision_info
from agents.arena.human import describe_decision, hand_text, public_text, rivals_needed, unplayable
from agents.arena.server_limits import (
    UVICORN_LIMITS,
    Thinker,
    limit_malloc_arenas,
    trim_memory,
)
from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState
from fort_env.game.constants import MADE_UP_RULES, SEED_LIMIT
from fort_env.game.facts import SETUPS
from fort_env.records import make_record
from fort_env.tools.replay_html import BOARD_CSS, board_frame, build_frames, card_texts, render_html
from fort_env.views.text import SCORE_LABELS, card_label, state_to_string

__all__ = ["MAX_BODY_BYTES", "MAX_GAMES", "MAX_GAMES_PER_CLIENT", "MAX_JSON_DEPTH",
           "SECURITY_HEADERS", "ApiError", "GameStore", "bot_choices", "check_rivals", "create_app",
           "host_name", "seat_view", "serve"]  # fmt: skip

log = logging.getLogger(__name__)

MAX_GAMES = 256  # games kept at once, all clients together (the longest idle one makes room)
MAX_GAMES_PER_CLIENT = 8  # games kept at once for one client address (its own longest idle goes)
IDLE_TIMEOUT_S = 3600.0  # a game whose player has not acted for this long is dropped
MAX_BODY_BYTES = 4096  # a request body's size limit
MAX_JSON_DEPTH = 8  # a request body's nesting limit (the API's bodies nest 2 deep)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")  # the Host names always allowed
# on every response: the pages' own inline <script> and <style> (play.html, the replay page) and
# fetch() to this server only; nothing else loads, nothing frames the page, no MIME sniffing
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
NEEDS_MODEL = ("ppo", "puct", "rllib")  # bots that need a model file (bare ppo: shipped only)
PAGE = Path(__file__).resolve().parent / "static" / "play.html"


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


Rivals = Mapping[str, Sequence[int]]
"""The server's own rivals: each agent spec with the player counts it plays
(:func:`check_rivals`)."""


def bot_choices(num_players: int, rivals: Rivals | None = None) -> list[str]:
    """The rivals one may choose for an ``num_players`` game (module docstring): the zoo's,
    sorted, then those of ``rivals`` that play ``num_players``-player games, in their order."""
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


def _redact(board: dict[str, Any], seat: int) -> dict[str, Any]:
    """The replay frame as ``seat`` sees it: rivals' hands and Lookouts as counts."""
    for s in board["seats"]:
        if s["seat"] != seat:
            s["hand_count"] = len(s["hand"])
            s["lookout_count"] = len(s["lookout"])
            s["hand"] = []
            s["lookout"] = []
    return board


@lru_cache(maxsize=8)
def rule_texts(card_data: str) -> dict[str, str]:
    """Each made-up rule's name -> its text (the rulebook's glossary), from ``rules.toml`` in
    the card data directory ``card_data`` (``CardSet.source``; checked when the game loaded)."""
    with open(Path(card_data) / "rules.toml", "rb") as f:
        entries = tomllib.load(f).get("rule", [])
    return {str(e["name"]): str(e.get("text", "")) for e in entries if "name" in e}


def _add_made_up_rules(board: dict[str, Any], state: FortState, seat: int) -> None:
    """Each board seat's made-up rules: names for ``seat`` (and for every seat at the end, when
    they are scored), a count for a rival (taking one is public, which one is not)."""
    reveal = state.is_terminal()
    for s in board["seats"]:
        held = [MADE_UP_RULES[int(i)] for i in np.flatnonzero(state.rule_loc == s["seat"])]
        if s["seat"] == seat or reveal:
            s["made_up_rules"] = held
        else:
            s["made_up_rule_count"] = len(held)


def _legal(state: FortState, legal: list[int], texts: Mapping[str, str]) -> list[dict[str, Any]]:
    """The legal actions as buttons: ``id`` and ``text``; a made-up rule to take has the rule's
    text as ``detail``."""
    out: list[dict[str, Any]] = []
    for a in legal:
        item: dict[str, Any] = {"id": a, "text": state.action_to_string(a)}
        name, i = state.game.layout.decode(a)
        if name == "PICK_RULE":
            item["detail"] = texts.get(MADE_UP_RULES[i], "")
        out.append(item)
    return out


def seat_view(state: FortState, seat: int) -> dict[str, Any]:
    """What ``seat`` is shown of ``state`` (no other seat's hidden information): the replay
    page's board, the text view, the hand with its cards' texts, the seat's made-up rules, the
    decision and the legal actions (at the seat's own decisions), the scores; at the end the
    score breakdown and the winners."""
    terminal = state.is_terminal()
    to_move = None if terminal else int(state.current_player())
    mine = to_move == seat
    legal = [int(a) for a in state.legal_actions()] if mine else []
    # the public score (the Victory Track) while the game is on; the totals, with the made-up
    # rules that were hidden until then, at the end
    board = _redact(board_frame(state, 0, 0, None), seat)
    _add_made_up_rules(board, state, seat)
    scores = [int(s["score"]) for s in board["seats"]]
    if terminal:
        scores = [int(row["total"]) for row in state.score_breakdown()]
    cards = state.game.cards
    ids = {card_label(state, i): i for i in range(len(cards))}
    texts = rule_texts(state.game.card_set.source)
    view: dict[str, Any] = {
        "terminal": terminal,
        "to_move": to_move,
        "seat": seat,
        "legal": _legal(state, legal, texts),
        "scores": scores,
        "board": board,
        "table": state_to_string(state, viewer=seat),
        "hand": hand_text(state, seat),
        "hand_cards": [
            {
                "card": label,
                "public": cards[ids[label]].public or "-",
                "private": cards[ids[label]].private or "-",
            }
            for label in board["seats"][seat]["hand"]
        ],
        "decision": describe_decision(state) if mine else None,
        "unplayable": [line.strip() for line in unplayable(state, legal)] if mine else [],
        "final": None,
        "card_text": card_texts(state),  # every card's two actions (the game's data)
        "rule_text": dict(texts),  # every made-up rule's text (the game's data)
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
    # when its player last acted (created it or sent an action: reading it does not count),
    # on the store's clock; and who created it (GameStore.add)
    last_used: float = field(default_factory=time.monotonic)
    client: str = ""
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
            self.log.append({"player": seat, "text": public_text(state, action)})
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
        """Keep ``game``, created by ``client`` (:func:`client_key`), as just used."""
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


def client_key(host: str | None) -> str:
    """The address the per-client cap counts by: the client's IP, an IPv6 address's /64 (one
    host usually holds a whole /64), ``""`` when unknown."""
    if not host:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


# a Host header: a name or IPv4 address, or an IPv6 address in brackets; an optional port
_HOST = re.compile(r"(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::[0-9]{1,5})?")


def host_name(value: str) -> str:
    """The host name of a ``Host`` header or an ``--allowed-host`` value (``NAME``,
    ``NAME:PORT``, ``[IPv6]``, ``[IPv6]:PORT``, or a bare IPv6 address): lower case, IPv6
    without brackets. Raises ValueError for anything else (a scheme, a path, spaces)."""
    text = value.strip().lower()
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"
    match = _HOST.fullmatch(text)
    if match is None:
        raise ValueError(f"{value[:80]!r} is not a host name (NAME, NAME:PORT or [IPv6]:PORT)")
    v6 = match.group(1)
    if v6 is not None:
        try:
            ipaddress.IPv6Address(v6)
        except ValueError:
            raise ValueError(f"{value[:80]!r}: {v6!r} is not an IPv6 address") from None
        return v6
    return match.group(2)


class _Guard:
    """The ASGI middleware of the module docstring: ``Host`` (400) and ``Origin`` (403) checked
    before the app sees the request, :data:`SECURITY_HEADERS` on every response."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    def refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        hosts = headers.getlist("host")
        if len(hosts) != 1:
            return 400, "the request needs exactly one Host header"
        try:
            name = host_name(hosts[0])
        except ValueError:
            name = None
        if name not in self.allowed:
            allowed = sorted(self.allowed)
            return 400, (f"Host {hosts[0][:80]!r} is not served here (allowed: {allowed}; "
                         "fort-env serve --allowed-host NAME adds one)")  # fmt: skip
        origin = headers.get("origin")
        unsafe = method not in ("GET", "HEAD", "OPTIONS")
        if unsafe and origin is not None and not self.origin_allowed(origin):
            return 403, f"cross-origin requests are refused (Origin {origin[:80]!r})"
        return None

    def origin_allowed(self, origin: str) -> bool:
        try:
            parts = urlsplit(origin)
            parts.port  # noqa: B018 (raises ValueError for a bad port)
        except ValueError:
            return False
        return (
            parts.scheme in ("http", "https")
            and parts.hostname in self.allowed
            and parts.username is None
            and parts.password is None
            and parts.path == ""
            and not parts.query
            and not parts.fragment
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self.refusal(scope["method"], Headers(scope=scope))
        if problem is not None:
            status, message = problem
            response = JSONResponse({"error": message}, status_code=status,
                                    headers=SECURITY_HEADERS)  # fmt: skip
            await response(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _json_depth(text: str) -> int:
    """How deep ``text``'s brackets nest outside strings (as deep as the JSON parser would
    recurse on it), counted up to ``MAX_JSON_DEPTH + 1``."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
        elif ch in "]}":
            depth -= 1
    return deepest


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object: ``Content-Type: application/json`` (415), at most
    MAX_BODY_BYTES (413), UTF-8 JSON nested at most MAX_JSON_DEPTH deep (400)."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise ApiError(415, "the request body must be JSON, sent with Content-Type: "
                            f"application/json (got {media[:40] or 'none'!r})")  # fmt: skip
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
        text = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the request body is not JSON (UTF-8): {exc}") from None
    if _json_depth(text) > MAX_JSON_DEPTH:
        raise ApiError(400, f"the request body's JSON nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ApiError(400, f"the request body is not JSON: {exc}") from None
    except RecursionError:  # not reached after the depth check; never a 500
        raise ApiError(400, "the request body's JSON nests too deep") from None
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


def _new_game(data: dict[str, Any], server_rivals: Rivals | None = None) -> Game:
    """A game from a ``POST /api/games`` body (raises ApiError naming the bad field); its bots
    are chosen among :func:`bot_choices` (``server_rivals``: the server's own)."""
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
        html = PAGE.read_text(encoding="utf-8").replace("/*__REPLAY_CSS__*/", BOARD_CSS)
        return HTMLResponse(html)

    async def bots(request: Request) -> Response:
        raw = request.query_params.get("num_players", "2")
        if raw not in ("2", "3", "4"):
            raise ApiError(400, f"'num_players' must be 2, 3 or 4, got {raw[:20]!r}")
        return JSONResponse({"bots": bot_choices(int(raw), rivals)})

    async def create(request: Request) -> Response:
        game = _new_game(await _body(request), rivals)
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
        data = await _body(request)
        extra = sorted(set(data) - {"action"})
        if extra:
            raise ApiError(400, f"unknown field(s) {extra}; expected ['action']")
        # the game's own range, closed: [0, num_distinct_actions - 1] (it said [0, 2**31])
        action = _int(data, "action", 0, game.state.game.num_distinct_actions - 1, None)
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
        # sent by Starlette's outermost middleware, around _Guard: the headers added here
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
    middleware = [Middleware(_Guard, allowed=allowed)]
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
    and ``allowed_hosts``; ``rivals``: the server's own (:func:`create_app`)."""
    import uvicorn

    allowed = list(allowed_hosts)
    if host not in LOOPBACK:
        if host not in WILDCARD:
            # not a name a browser could send: skipped (uvicorn says whether it binds)
            with contextlib.suppress(ValueError):
                allowed.append(host_name(host))
        print(
            f"warning: serving on {host}, not loopback: anyone who can reach this machine can "
            "start games here (there is no login). Browsers must use an allowed name "
            "(--allowed-host NAME for each name other than the loopback ones and --host)."
        )
    app = create_app(allowed_hosts=allowed, rivals=rivals)
    limit_malloc_arenas()  # the bot threads' freed memory goes back (server_limits)
    print(f"Play Fort at http://{'[' + host + ']' if ':' in host else host}:{port}/")
    uvicorn.run(app, host=host, port=port, log_level="warning", **UVICORN_LIMITS)
