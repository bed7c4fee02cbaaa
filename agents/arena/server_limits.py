"""The browser server's resource bounds (``fort-env serve``, issue 42 item 3): how many bot
moves are computed at once, how much memory their threads keep, and what uvicorn allows a
connection (header size, idle time, connections at once).

- :class:`Thinker`: bot moves run in worker threads, at most :data:`BOT_THREADS` at once
  (anyio's own pool would run up to 40: sixteen concurrent 4-player ``ismcts`` games took the
  server from 74 MB to 1.3-1.4 GB that was never given back); later requests wait their turn.
- :func:`limit_malloc_arenas`: glibc gives each thread that allocates its own arena and keeps
  freed memory in it; capping the arenas (``mallopt(M_ARENA_MAX)``) and trimming after a game
  returns that memory to the system. A no-op off glibc.
- :data:`UVICORN_LIMITS`: uvicorn's settings for :func:`agents.arena.serve.serve`: the h11
  protocol with a 16 KiB limit on a request's head (a 100 KB header was accepted), at most
  :data:`MAX_CONNECTIONS` connections (more get 503, so half-open sockets cannot pile up without
  bound), idle keep-alive connections closed after 5 s.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

BOT_THREADS = 4
"""Bot moves computed at once (worker threads); each runs whole, the rest wait."""
MAX_CONNECTIONS = 128
"""Connections uvicorn serves at once; more are answered 503 (uvicorn ``limit_concurrency``)."""
MALLOC_ARENAS = 2
"""glibc malloc arenas (``M_ARENA_MAX``) the server's threads share."""
UVICORN_LIMITS: dict[str, Any] = {
    "http": "h11",
    "h11_max_incomplete_event_size": 16 * 1024,
    "limit_concurrency": MAX_CONNECTIONS,
    "timeout_keep_alive": 5,
}

_M_ARENA_MAX = -8  # glibc malloc.h
T = TypeVar("T")


class Thinker:
    """Runs bot moves in worker threads, at most ``threads`` at once (an anyio
    ``CapacityLimiter``, made in the event loop on first use)."""

    def __init__(self, threads: int = BOT_THREADS) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.threads = threads
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread once one of the ``threads`` is free."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._limiter)


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas for this process; True if applied (False off glibc)."""
    libc = _libc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, arenas) == 1)


def trim_memory() -> bool:
    """Give freed heap memory back to the system (glibc ``malloc_trim(0)``); True if some was."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)
