"""``fort-env serve`` defends itself (issue 42, item 3): ``Host`` and ``Origin`` checked (DNS
rebinding, cross-site posts), JSON bodies only (no CORS "simple request" creates a game), size
and nesting limits (4xx, never 500), per-client limits that lock nobody else out, expiry by the
player's inactivity (a GET keeps nothing alive), security headers on every response."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for it; httpx works the same
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from starlette.datastructures import Headers
from typer.testing import CliRunner

from agents.arena import serve
from agents.arena.serve import (
    MAX_BODY_BYTES,
    MAX_JSON_DEPTH,
    PAGE,
    SECURITY_HEADERS,
    GameStore,
    client_key,
    create_app,
    host_name,
)
from fort_env.tools.cli import app as cli_app

JSON = {"content-type": "application/json"}
NEW = {"num_players": 2, "bots": ["random"], "seed": 5}


class Clock:
    """A fake ``time.monotonic`` for the store."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_client(
    store: GameStore, *, address: str = "testclient", hosts: tuple[str, ...] = ("testserver",)
) -> TestClient:
    # raise_server_exceptions: any exception in the app (a 500) fails the test
    return TestClient(create_app(store, allowed_hosts=hosts), client=(address, 50000))


def assert_error(r: Any, status: int, *words: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    message = r.json()["error"]
    for word in words:
        assert word in message, message
    assert "Traceback" not in r.text


def create(client: TestClient, **headers: str) -> Any:
    return client.post("/api/games", json=NEW, headers=headers)


# -- Host and Origin --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example",
     "localhost.attacker.example:8000", "testserver", "127.0.0.1:8000@evil", "[::2]:8000",
     "local host", "localhost:port", "[::1"],
)  # fmt: skip
def test_a_host_that_is_not_allowed_is_refused(host: str) -> None:
    """DNS rebinding: a page at attacker.example resolved to 127.0.0.1 sends its own Host."""
    store = GameStore()
    client = make_client(store, hosts=())  # the default: loopback names only
    for method, path, body in [("GET", "/", None), ("GET", "/api/bots", None),
                               ("POST", "/api/games", NEW)]:  # fmt: skip
        r = client.request(method, path, json=body, headers={"host": host})
        assert_error(r, 400, "Host", "--allowed-host")
        assert r.headers["x-frame-options"] == "DENY"
    assert store.games == {}


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:8000", "localhost", "LOCALHOST:65535", "[::1]", "[::1]:8000"]
)
def test_the_loopback_names_are_served_by_default(host: str) -> None:
    store = GameStore()
    client = make_client(store, hosts=())
    assert client.get("/api/bots", headers={"host": host}).status_code == 200
    assert create(client, host=host).status_code == 201
    assert len(store.games) == 1


def test_allowed_hosts_add_names() -> None:
    client = make_client(GameStore(), hosts=("fort.lan", "192.168.1.5:8000", "[fd00::1]"))
    for host in ("fort.lan", "FORT.LAN:8000", "192.168.1.5:9000", "[fd00::1]:80", "localhost"):
        assert client.get("/api/bots", headers={"host": host}).status_code == 200, host
    assert_error(client.get("/api/bots", headers={"host": "other.lan"}), 400, "Host")
    with pytest.raises(ValueError, match="not a host name"):
        create_app(allowed_hosts=["http://fort.lan/"])


def test_host_names_are_parsed_strictly() -> None:
    assert host_name("LocalHost:8000") == "localhost"
    assert host_name("[::1]:8000") == host_name("::1") == "::1"
    assert host_name("fort.lan") == "fort.lan"
    for bad in ("", "http://x", "x/y", "a b", "x:", "x:123456", "[::1]x", "[zz::1]", "x:1:2"):
        with pytest.raises(ValueError):
            host_name(bad)
    guard = serve.Guard(create_app(), frozenset(serve.LOOPBACK_NAMES))
    assert guard.refusal("GET", Headers(raw=[])) == (400, "the request needs exactly one Host "
                                                          "header")  # fmt: skip
    two = Headers(raw=[(b"host", b"localhost"), (b"host", b"attacker.example")])
    assert guard.refusal("GET", two) is not None


@pytest.mark.parametrize(
    "origin",
    ["http://attacker.example", "https://attacker.example:8000", "null", "http://localhost.evil",
     "ftp://localhost", "http://localhost:99999", "http://localhost/path", "http://u@localhost",
     "localhost", "", "http://[::1"],
)  # fmt: skip
def test_a_post_from_another_origin_is_refused(origin: str) -> None:
    store = GameStore()
    client = make_client(store)
    assert_error(create(client, origin=origin), 403, "cross-origin")
    assert store.games == {}
    # nor on a game's actions, which are left as they were
    view = create(client).json()
    action = {"action": view["legal"][0]["id"]}
    r = client.post(f"/api/games/{view['id']}/actions", json=action, headers={"origin": origin})
    assert_error(r, 403, "cross-origin")
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:8000", "http://localhost:8000", "https://localhost", "http://[::1]:8000",
     "http://testserver"],
)  # fmt: skip
def test_a_post_from_an_allowed_origin_is_served(origin: str) -> None:
    store = GameStore()
    client = make_client(store)
    r = create(client, origin=origin)
    assert r.status_code == 201, r.text
    assert "access-control-allow-origin" not in r.headers
    view = r.json()
    action = {"action": view["legal"][0]["id"]}
    r = client.post(f"/api/games/{view['id']}/actions", json=action, headers={"origin": origin})
    assert r.status_code == 200, r.text


def test_a_get_with_a_foreign_origin_is_answered_without_cors() -> None:
    """Reads change nothing; no Access-Control-Allow-Origin header lets a page read them."""
    r = make_client(GameStore()).get("/api/bots", headers={"origin": "http://attacker.example"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers


# -- JSON only, size and nesting --------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", "application/jsonx", "text/json"],
)  # fmt: skip
def test_a_post_that_is_not_declared_json_is_415(content_type: str | None) -> None:
    """A cross-origin text/plain POST is a CORS simple request (no preflight): refused."""
    import json

    store = GameStore()
    client = make_client(store)
    headers = {} if content_type is None else {"content-type": content_type}
    r = client.post("/api/games", content=json.dumps(NEW).encode(), headers=headers)
    assert_error(r, 415, "Content-Type: application/json")
    assert store.games == {}
    view = create(client).json()
    body = json.dumps({"action": view["legal"][0]["id"]}).encode()
    r = client.post(f"/api/games/{view['id']}/actions", content=body, headers=headers)
    assert_error(r, 415, "application/json")
    assert client.get(f"/api/games/{view['id']}").json() == view


def test_json_with_parameters_or_other_case_is_json() -> None:
    import json

    client = make_client(GameStore())
    for ct in ("application/json; charset=utf-8", "Application/JSON"):
        body = json.dumps(NEW).encode()
        r = client.post("/api/games", content=body, headers={"content-type": ct})
        assert r.status_code == 201, r.text


def test_bodies_over_the_limit_are_413() -> None:
    store = GameStore()
    client = make_client(store)
    pad = {**NEW, "pad": "x" * MAX_BODY_BYTES}
    assert_error(client.post("/api/games", json=pad), 413, "bytes")  # by Content-Length

    def chunks() -> Iterator[bytes]:  # chunked: no Content-Length, the bytes read count
        yield b'{"num_players": 2, "pad": "'
        for _ in range(MAX_BODY_BYTES // 1000 + 1):
            yield b"x" * 1000
        yield b'"}'

    assert_error(client.post("/api/games", content=chunks(), headers=JSON), 413, "bytes")
    # a Content-Length that says less than is sent
    big = b'{"pad": "' + b"x" * 2 * MAX_BODY_BYTES + b'"}'
    r = client.post("/api/games", content=big, headers={**JSON, "content-length": "10"})
    assert_error(r, 413, "bytes")
    r = client.post("/api/games", content=b"{}", headers={**JSON, "content-length": "-1"})
    assert_error(r, 413, "bytes")
    assert store.games == {}
    assert MAX_BODY_BYTES <= 16 * 1024


@pytest.mark.parametrize(
    "body",
    [b"[" * 2000 + b"]" * 2000,  # the reproduction: 4 KB of nested brackets answered 500
     b"[" * 4000, b'{"a":' * 600 + b"1" + b"}" * 600, b'{"num_players": ' + b"[" * 3000,
     b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1)],
)  # fmt: skip
def test_deeply_nested_json_is_400_never_500(body: bytes) -> None:
    assert len(body) <= MAX_BODY_BYTES
    store = GameStore()
    client = make_client(store)  # raise_server_exceptions: a RecursionError would raise here
    assert_error(client.post("/api/games", content=body, headers=JSON), 400, "nest")
    view = create(client).json()
    r = client.post(f"/api/games/{view['id']}/actions", content=body, headers=JSON)
    assert_error(r, 400, "nest")
    assert len(store.games) == 1


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    client = make_client(GameStore())
    body = {**NEW, "setup": "[" * 1000 + '\\"{' * 100}
    assert_error(client.post("/api/games", json=body), 400, "'setup'")
    deep_ok = {**NEW, "bots": ["random"]}  # 2 levels, well within the limit
    assert client.post("/api/games", json=deep_ok).status_code == 201


# -- per-client limits, expiry by the player's inactivity ----------------------------------


def test_a_client_at_its_cap_does_not_block_another() -> None:
    """64 games from one page answered every user 429 for an hour: now a client's cap makes
    room among its own games only."""
    clock = Clock()
    store = GameStore(per_client=3, clock=clock)
    attacker = make_client(store, address="10.0.0.66")
    user = make_client(store, address="10.0.0.7")
    mine = create(user).json()["id"]
    theirs = []
    for _ in range(10):
        clock.now += 1
        r = create(attacker)
        assert r.status_code == 201, r.text
        theirs.append(r.json()["id"])
    # the attacker keeps its 3 latest games; the user's game is untouched
    assert set(store.games) == {mine, *theirs[-3:]}
    clock.now += 1
    r = create(user)
    assert r.status_code == 201, r.text
    assert user.get(f"/api/games/{mine}").status_code == 200
    assert sum(g.client == "10.0.0.7" for g in store.games.values()) == 2


def test_the_global_cap_drops_the_longest_idle_game_instead_of_refusing() -> None:
    clock = Clock()
    store = GameStore(max_games=3, per_client=2, clock=clock)
    ids = []
    for address in ("10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"):
        clock.now += 1
        r = create(make_client(store, address=address))
        assert r.status_code == 201, r.text  # nobody is refused
        ids.append(r.json()["id"])
    assert set(store.games) == set(ids[-3:])
    assert serve.MAX_GAMES >= 8 * serve.MAX_GAMES_PER_CLIENT


def test_clients_are_counted_by_address_and_ipv6_by_64() -> None:
    assert client_key("192.0.2.1") == "192.0.2.1"
    assert client_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert client_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key(None) == client_key("") == ""
    store = GameStore(per_client=1)
    a = make_client(store, address="2001:db8::1")
    b = make_client(store, address="2001:db8::2")
    first = create(a).json()["id"]
    second = create(b).json()["id"]  # the same /64: the same client
    assert set(store.games) == {second} and first != second


def test_games_expire_by_their_players_inactivity_not_by_reads() -> None:
    """One GET an hour kept a game alive: reads no longer count, actions do."""
    clock = Clock()
    store = GameStore(idle_s=100, clock=clock)
    client = make_client(store)
    read_only = create(client).json()
    played = create(client).json()
    for _ in range(3):  # reads at 40, 80, 120: none keeps a game alive
        clock.now += 40
        if clock.now < 1100:
            for path in (f"/api/games/{read_only['id']}", f"/api/games/{read_only['id']}/record",
                         f"/games/{read_only['id']}/replay"):  # fmt: skip
                assert client.get(path).status_code in (200, 409)
        if clock.now == 1080:  # the player of the other game acts
            r = client.post(f"/api/games/{played['id']}/actions",
                            json={"action": played["legal"][0]["id"]})  # fmt: skip
            assert r.status_code == 200, r.text
    assert clock.now == 1120
    assert_error(client.get(f"/api/games/{read_only['id']}"), 404, "idle")
    assert client.get(f"/api/games/{played['id']}").status_code == 200
    clock.now = 1181  # 101 s after its player's last action
    assert_error(client.get(f"/api/games/{played['id']}"), 404, "idle")
    assert store.games == {}


# -- security headers -------------------------------------------------------------------------


def test_every_response_carries_the_security_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    store = GameStore()
    client = TestClient(create_app(store, allowed_hosts=["testserver"]),
                        raise_server_exceptions=False)  # fmt: skip
    view = create(client).json()
    gid = view["id"]
    responses = [
        client.get("/"),
        client.get("/api/bots"),
        client.get(f"/api/games/{gid}"),
        client.get(f"/api/games/{gid}/record"),  # 409
        client.get("/nothing"),  # 404 from the router
        client.delete("/api/games"),  # 405
        client.post("/api/games", json={"num_players": 9}),  # 400
        client.post("/api/games", content=b"{}"),  # 415
        client.get("/", headers={"host": "attacker.example"}),  # 400, the Host
        create(client, origin="http://attacker.example"),  # 403, the Origin
    ]

    def broken(self: Any, action: int) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(serve.Game, "play", broken)
    responses.append(client.post(f"/api/games/{gid}/actions",
                                 json={"action": view["legal"][0]["id"]}))  # fmt: skip
    assert [r.status_code for r in responses] == [200, 200, 200, 409, 404, 405, 400, 415, 400,
                                                  403, 500]  # fmt: skip
    for r in responses:
        for key, value in SECURITY_HEADERS.items():
            assert r.headers.get_list(key) == [value], (r.request.url, key)
    assert "secret" not in responses[-1].text
    csp = SECURITY_HEADERS["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert "unsafe-eval" not in csp and "*" not in csp
    assert SECURITY_HEADERS["x-frame-options"] == "DENY"
    assert SECURITY_HEADERS["x-content-type-options"] == "nosniff"


def test_the_page_needs_nothing_the_policy_forbids() -> None:
    """The page's script and style are inline (hence 'unsafe-inline'), the board's
    (``fort_env.tools.board``) put into it as served; it loads nothing from elsewhere and does
    not eval."""
    client = TestClient(create_app(), base_url="http://localhost")
    html = client.get("/").text
    assert "/*__BOARD_" not in html and "const FortBoard" in html and ".seat.acting" in html
    assert "/*__BOARD_JS__*/" in PAGE.read_text(encoding="utf-8")
    assert "<script>" in html and "<style>" in html  # inline: 'unsafe-inline' is needed
    for forbidden in ("src=", "<link", "http://", "https://", "eval(", "new Function"):
        assert forbidden not in html, forbidden


# -- the command ------------------------------------------------------------------------------


def test_the_allowed_host_option(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, list[str]]] = []
    monkeypatch.setattr(serve, "serve", lambda host, port, allowed_hosts: calls.append(
        (host, port, allowed_hosts)))  # fmt: skip
    args = ["serve", "--allowed-host", "Fort.LAN", "--allowed-host", "[::1]:80"]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert calls == [("127.0.0.1", 8000, ["fort.lan", "::1"])]
    result = CliRunner().invoke(cli_app, ["serve", "--allowed-host", "http://fort.lan/"])
    assert result.exit_code == 2
    assert "error: --allowed-host" in result.output and "not a host name" in result.output
    assert len(calls) == 1


def test_serve_allows_the_address_it_binds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    from agents.arena import serve_protocol

    apps: list[Any] = []

    class Server:  # what serve runs: the app it built, on sockets bound here instead
        def __init__(self, app: Any, sockets: Any) -> None:
            apps.append(app)

        def run(self, sockets: Any) -> None:
            pass

    monkeypatch.setattr(serve_protocol, "bind_sockets", lambda host, port: [socket.socket()])
    monkeypatch.setattr(serve_protocol, "make_server", Server)
    serve.serve("192.168.1.5", 8000, ["fort.lan"])
    serve.serve("0.0.0.0", 8000)
    assert "--allowed-host" in capsys.readouterr().out
    bound, wildcard = (TestClient(app) for app in apps)
    for host in ("192.168.1.5:8000", "fort.lan", "localhost:8000"):
        assert bound.get("/api/bots", headers={"host": host}).status_code == 200, host
    assert wildcard.get("/api/bots", headers={"host": "localhost"}).status_code == 200
    assert wildcard.get("/api/bots", headers={"host": "0.0.0.0:8000"}).status_code == 400
