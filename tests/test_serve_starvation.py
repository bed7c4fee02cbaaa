"""``fort-env serve`` cannot be starved (``agents/arena/serve_protocol.py``, ``serve_guard.Guard``;
docs/reliability.md): silent sockets and slow heads are closed after the head timeout, one
address holds at most ``MAX_CONNECTIONS_PER_CLIENT`` connections, a head over 16 KiB is
refused however it arrives, and a busy port or a bad host is one line. A real uvicorn server
runs in a thread on a free loopback port; the idle sockets come from 127.0.0.2 (any 127/8
address is this machine's on Linux), the player from 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")

from agents.arena.serve import create_app, serve  # noqa: E402
from agents.arena.serve_protocol import (  # noqa: E402
    GuardedH11Protocol,
    bind_sockets,
    guarded_protocol,
    make_server,
)
from agents.arena.server_limits import (  # noqa: E402
    HEAD_TIMEOUT_S,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_CLIENT,
    MAX_HEAD_BYTES,
)
from fort_env.game.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
IDLE_ADDRESS = "127.0.0.2"


@contextmanager
def live_server(protocol: type[GuardedH11Protocol] = GuardedH11Protocol) -> Iterator[int]:
    """A real server (uvicorn, the app, ``protocol``) in a thread; yields its port."""
    sockets = bind_sockets("127.0.0.1", 0)
    server = make_server(create_app(), sockets, protocol)
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(20)


def idle_sockets(port: int, count: int, address: str = IDLE_ADDRESS) -> list[socket.socket]:
    out = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", port))
        out.append(sock)
    return out


def closed_by_server(sock: socket.socket, wait: float = 0.0) -> bytes | None:
    """What the server sent before closing ``sock`` (``b""``: nothing), or None if it is open."""
    sock.settimeout(wait or 0.001)
    data = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return data
            data += chunk
    except (TimeoutError, BlockingIOError):
        return None
    except ConnectionResetError:
        return data


def play_a_game(port: int) -> int:
    """A whole 2-player game against ``random`` through the API; the number of requests."""
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=30) as client:
        r = client.post("/api/games", json={"num_players": 2, "bots": ["random"], "seed": 3})
        assert r.status_code == 201, r.text
        view, requests = r.json(), 1
        while not view["terminal"]:
            action = view["legal"][0]["id"]
            r = client.post(f"/api/games/{view['id']}/actions", json={"action": action})
            assert r.status_code == 200, (r.status_code, r.text)
            view, requests = r.json(), requests + 1
        assert client.get(f"/api/games/{view['id']}/record").status_code == 200
    return requests


def test_idle_sockets_from_one_address_do_not_starve_the_others() -> None:
    """Before: 130 connections that never send a byte got every client a 503 (they all count
    toward ``limit_concurrency``, 128, and nothing closed them)."""
    assert MAX_CONNECTIONS_PER_CLIENT < MAX_CONNECTIONS
    with live_server() as port:
        idle = idle_sockets(port, 130)
        time.sleep(0.3)
        refused = [closed_by_server(s, 0.05) for s in idle]
        closed = [r for r in refused if r is not None]
        # one address keeps MAX_CONNECTIONS_PER_CLIENT; the rest are answered 503 and closed
        assert len(closed) == 130 - MAX_CONNECTIONS_PER_CLIENT
        assert all(r.startswith(b"HTTP/1.1 503 ") for r in closed)
        start = time.monotonic()
        assert play_a_game(port) > 2  # while the idle sockets are open
        if time.monotonic() - start < HEAD_TIMEOUT_S:  # still within the head timeout
            held = [s for s in idle if closed_by_server(s) is None]
            assert len(held) == MAX_CONNECTIONS_PER_CLIENT
        for s in idle:
            s.close()


def test_an_address_reconnecting_in_a_loop_does_not_starve_the_others() -> None:
    """The refused connections of one address do not count toward ``limit_concurrency``
    while they close: 130 sockets from one address, reopened as fast as the server closes
    them, while a game is played from another."""
    with live_server() as port:
        stop = threading.Event()
        opened = [0]

        def storm() -> None:
            held = idle_sockets(port, 130)
            while not stop.is_set():
                for k, sock in enumerate(held):
                    if closed_by_server(sock) is not None:
                        sock.close()
                        held[k] = idle_sockets(port, 1)[0]
                        opened[0] += 1
            for sock in held:
                sock.close()

        thread = threading.Thread(target=storm, daemon=True)
        thread.start()
        time.sleep(0.3)
        try:
            assert play_a_game(port) > 2
        finally:
            stop.set()
            thread.join(10)
        assert opened[0] > 130  # the storm went on while the game was played


def test_a_head_must_come_whole_within_the_head_timeout() -> None:
    """The timer starts when the server waits for a head (connection opened, or the previous
    response sent) and is not reset by each byte: a silent socket, a head cut short and a
    head sent a byte every 0.1 s are all closed; a keep-alive connection gets the same time
    for its next head."""
    with live_server(guarded_protocol(head_timeout_s=0.6)) as port:
        silent, partial, drip, keep = idle_sockets(port, 4, "127.0.0.1")
        partial.sendall(b"GET /api/bots HTTP/1.1\r\nHo")
        keep.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        keep.settimeout(5)
        assert keep.recv(65536).startswith(b"HTTP/1.1 200 ")
        keep.sendall(b"GET /api/bots HT")
        head = b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        start = time.monotonic()
        for k, byte in enumerate(head):
            if closed_by_server(drip) is not None:
                break
            try:
                drip.send(bytes([byte]))
            except OSError:
                break
            time.sleep(0.1)
            assert k < len(head) - 1, "the whole head went through a byte at a time"
        assert time.monotonic() - start < 2.0
        assert closed_by_server(silent, 1.0) == b""  # nothing came: closed without a word
        assert closed_by_server(partial, 1.0).startswith(b"HTTP/1.1 408 ")  # type: ignore[union-attr]
        assert b"HTTP/1.1 408 " in closed_by_server(keep, 1.0)  # type: ignore[operator]
        # a prompt client is served as before
        assert play_a_game(port) > 2


def test_a_head_over_16_kib_is_refused_however_it_arrives() -> None:
    """Before: a 100 KB head sent in one write was served (h11's limit is on a head still
    incomplete); a 15 KB one is still served."""
    with live_server() as port:
        for size, status in ((100_000, b"431"), (MAX_HEAD_BYTES + 100, b"431"), (15_000, b"200")):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * size
                         + b"\r\n\r\n")  # fmt: skip
            sock.settimeout(5)
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 " + status), (size, answer[:80])
            sock.close()
        drip = socket.create_connection(("127.0.0.1", port))  # in pieces: h11's own limit
        drip.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        for _ in range(30):
            try:
                drip.sendall(b"a" * 1000)
            except OSError:
                break
            time.sleep(0.01)
        assert closed_by_server(drip, 2.0) is not None


@pytest.fixture
def busy_port() -> Iterator[int]:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    yield holder.getsockname()[1]
    holder.close()


def test_a_busy_port_or_a_bad_host_is_one_error_before_anything_is_printed(
    busy_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError, match=f"--port {busy_port}: 127.0.0.1:{busy_port} is "
                                          "already in use"):  # fmt: skip
        serve("127.0.0.1", busy_port)
    with pytest.raises(ConfigError, match=r"--host 'no-such-host\.invalid': not a name"):
        serve("no-such-host.invalid", 8000)
    with pytest.raises(ConfigError, match=r"192\.0\.2\.1 is not an address of this machine"):
        serve("192.0.2.1", 8000)  # TEST-NET-1: never this machine's
    assert capsys.readouterr().out == ""  # no "Play Fort at ..." before the error


def test_the_serve_command_says_so_in_one_line(busy_port: int) -> None:
    """Before: "Play Fort at ..." and then uvicorn's ERROR lines."""
    for args in (["--port", str(busy_port)], ["--host", "no-such-host.invalid"]):
        done = subprocess.run(
            [sys.executable, "-c", "from fort_env.tools.cli import app; app()", "serve", *args],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: --"), done.stderr


def test_bind_sockets_port_zero_and_limits() -> None:
    sockets = bind_sockets("localhost", 0)  # every address of the name, one free port
    try:
        assert len({s.getsockname()[1] for s in sockets}) == 1
    finally:
        for s in sockets:
            s.close()
    with pytest.raises(ValueError, match=">= 0"):
        guarded_protocol(head_timeout_s=-1)
    limited: Any = guarded_protocol(1.5, 3)
    assert (limited.head_timeout_s, limited.max_per_client) == (1.5, 3)
    assert issubclass(limited, GuardedH11Protocol)
