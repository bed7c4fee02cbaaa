"""The connections of ``fort-env serve`` (``agents.arena.serve``): what uvicorn's own settings
(``server_limits.UVICORN_LIMITS``) leave open, closed here.

uvicorn arms its only idle timer (``timeout_keep_alive``) after a response: a connection that
never sends a byte, or sends its head a byte at a time, is kept for ever, and every open
connection counts toward ``limit_concurrency``, past which every client gets 503. So 130
silent sockets answered everyone 503 for as long as they stayed open. :class:`GuardedH11Protocol`
(uvicorn's h11 protocol, subclassed) adds:

- **a head timeout**: a request's head (request line and headers) must arrive whole within
  ``head_timeout_s`` (:data:`~agents.arena.server_limits.HEAD_TIMEOUT_S`) of the moment the
  server waits for it (the connection opened, or the previous response sent), its first byte
  included; otherwise the connection is closed (with 408 if part of a head came);
- **a cap per client address**: at most ``max_per_client``
  (:data:`~agents.arena.server_limits.MAX_CONNECTIONS_PER_CLIENT`) connections at once from one
  address (``serve_guard.client_key``: an IP, an IPv6 /64); one more is answered 503 and
  closed at once, and is not counted toward ``limit_concurrency`` while it closes, so one
  address, even reconnecting in a loop, cannot fill ``limit_concurrency``.

A head over 16 KiB sent in one write is complete when h11 parses it, so h11's limit (on a head
still incomplete) does not see it; ``serve_guard.Guard`` refuses it (431).

:func:`bind_sockets` opens the listening sockets before anything is printed, so that a busy
port or a host that is not this machine's is one :class:`~fort_env.game.errors.ConfigError`
(the command's one ``error:`` line), not "Play Fort at ..." and uvicorn's log;
:func:`make_server` is the uvicorn server on those sockets.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from agents.arena.serve_guard import client_key
from agents.arena.server_limits import (
    HEAD_TIMEOUT_S,
    MAX_CONNECTIONS_PER_CLIENT,
    UVICORN_LIMITS,
)
from fort_env.game.errors import ConfigError

__all__ = ["GuardedH11Protocol", "bind_sockets", "guarded_protocol", "make_server"]

BACKLOG = 2048  # uvicorn's default listen backlog


def _plain_response(status: int, reason: str, text: str) -> bytes:
    body = text.encode("ascii")
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a head timeout and a cap of connections per client address
    (module docstring); the limits are class attributes (:func:`guarded_protocol` makes a
    class with others)."""

    head_timeout_s: float = HEAD_TIMEOUT_S
    max_per_client: int = MAX_CONNECTIONS_PER_CLIENT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._head_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self.client_key = client_key(self.client[0] if self.client else None)
        if self.client_key and self.max_per_client:
            same = sum(
                1 for c in self.connections if getattr(c, "client_key", None) == self.client_key
            )  # this one included
            if same > self.max_per_client:
                # not counted toward limit_concurrency while it closes: an address reconnecting
                # in a loop would otherwise keep the count up for everyone
                self.connections.discard(self)
                text = "too many connections from your address"
                transport.write(_plain_response(503, "Service Unavailable", text))
                transport.close()
                return
        self._sync_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._sync_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._sync_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    # ------------------------------------------------------------------ the head timer
    def _waiting_for_head(self) -> bool:
        return self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE

    def _sync_head_timer(self) -> None:
        """Armed while the server waits for a head (not re-armed by each byte: the head has
        ``head_timeout_s`` in all), cancelled once it has come."""
        if self.transport.is_closing() or not self._waiting_for_head():
            self._cancel_head_timer()
        elif self._head_timer is None and self.head_timeout_s:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return
        if self.conn.trailing_data[0]:  # part of a head came: say why it is closed
            text = "the request head came too slowly"
            self.transport.write(_plain_response(408, "Request Timeout", text))
        self.transport.close()


def guarded_protocol(
    head_timeout_s: float = HEAD_TIMEOUT_S, max_per_client: int = MAX_CONNECTIONS_PER_CLIENT
) -> type[GuardedH11Protocol]:
    """:class:`GuardedH11Protocol` with these limits (``0``: none), for uvicorn's ``http``."""
    if head_timeout_s < 0 or max_per_client < 0:
        raise ValueError(f"limits must be >= 0: {head_timeout_s}, {max_per_client}")
    attrs = {"head_timeout_s": float(head_timeout_s), "max_per_client": int(max_per_client)}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), attrs)


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening TCP sockets on every address ``host`` resolves to (as asyncio's
    ``create_server`` binds them: ``SO_REUSEADDR``, IPv6 sockets IPv6 only), port ``port``
    (``0``: a free one, the same on every address).

    Raises:
        ConfigError: ``host`` does not resolve or is not an address of this machine, ``port``
            is in use or not allowed; one line naming ``--host`` or ``--port``.
    """
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        problem = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(
            f"--host {host!r}: not a name or address to listen on ({problem})"
        ) from None
    sockets: list[socket.socket] = []
    seen: set[tuple[int, Any]] = set()
    try:
        for family, kind, proto, _, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(sockets) > 1:  # one free port for every address
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            try:
                sock.bind(address)
            except OSError as exc:
                raise _bind_error(host, port, address, exc) from None
            sock.listen(BACKLOG)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _bind_error(host: str, port: int, address: Any, exc: OSError) -> ConfigError:
    where = f"[{address[0]}]:{address[1]}" if ":" in str(address[0]) else f"{address[0]}:{port}"
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return ConfigError(f"--port {port}: {where} is already in use (another server?); "
                           "choose another with --port")  # fmt: skip
    if exc.errno == errno.EADDRNOTAVAIL:
        return ConfigError(f"--host {host!r}: {address[0]} is not an address of this machine "
                           f"({reason})")  # fmt: skip
    if exc.errno == errno.EACCES:
        return ConfigError(f"--port {port}: not allowed to listen on {where} ({reason}; ports "
                           "below 1024 need privileges)")  # fmt: skip
    return ConfigError(f"--host {host!r} --port {port}: cannot listen on {where} ({reason})")


def make_server(
    app: Any, sockets: list[socket.socket], protocol: type[H11Protocol] = GuardedH11Protocol
) -> uvicorn.Server:
    """The uvicorn server of ``app`` with ``server_limits.UVICORN_LIMITS`` and ``protocol``;
    run it with ``server.run(sockets=sockets)``."""
    host, port = sockets[0].getsockname()[:2]
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", http=protocol,
                            **UVICORN_LIMITS)  # fmt: skip
    return uvicorn.Server(config)
