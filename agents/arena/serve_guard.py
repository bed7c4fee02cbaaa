"""The HTTP side of ``fort-env serve`` (``agents.arena.serve``'s module docstring, issue 42): the
``Host`` and ``Origin`` checks and the security headers (:class:`Guard`, an ASGI middleware),
the request head's size (:func:`head_size`, 431 past ``server_limits.MAX_HEAD_BYTES``), the
request body's limits (:func:`read_json_body`: JSON only, size, depth, UTF-8), the
integer fields of a body (:func:`int_field`), the address a client is counted by
(:func:`client_key`), and the refusal every handler raises (:class:`ApiError`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.arena.server_limits import MAX_HEAD_BYTES

__all__ = [
    "LOOPBACK_NAMES", "MAX_BODY_BYTES", "MAX_JSON_DEPTH", "SECURITY_HEADERS", "ApiError", "Guard",
    "client_key", "head_size", "host_name", "int_field", "json_depth", "read_json_body",
]  # fmt: skip

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


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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


class Guard:
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
        if head_size(scope) > MAX_HEAD_BYTES:  # whole in one write: h11's limit never saw it
            problem = 431, f"the request head is over {MAX_HEAD_BYTES} bytes"
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


def head_size(scope: Scope) -> int:
    """The size in bytes of the request head ``scope`` was parsed from, as sent in HTTP/1.1
    (request line, each ``name: value`` line, the blank line; the spaces around a value that
    the parser dropped are not counted)."""
    line = len(scope["method"]) + len(scope.get("raw_path") or scope["path"].encode()) + 11
    query = scope.get("query_string") or b""
    line += len(query) + 1 if query else 0
    return line + sum(len(k) + len(v) + 4 for k, v in scope.get("headers", ())) + 2


def json_depth(text: str) -> int:
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


async def read_json_body(request: Request) -> dict[str, Any]:
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
    if json_depth(text) > MAX_JSON_DEPTH:
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


def int_field(data: dict[str, Any], key: str, low: int, high: int, default: int | None) -> int:
    """The integer ``data[key]`` (``default`` where it is absent; absent with no default:
    400), in ``[low, high]`` (400 otherwise; a bool is no integer)."""
    value = data.get(key, default)
    if value is None and default is None and key not in data:
        raise ApiError(400, f"{key!r} is missing")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{key!r} must be an integer, got {json.dumps(value)[:40]}")
    if not low <= value <= high:
        raise ApiError(400, f"{key!r} must be in [{low}, {high}], got {value}")
    return value
