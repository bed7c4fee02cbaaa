"""The browser server's resource bounds (``fort-env serve``): how many bot moves are computed at
once, how much memory their threads and finished games keep, and what a connection is allowed
(head size, time to send the head, idle time, connections at once, per address).

- :class:`Thinker`: bot moves run in worker threads, at most :data:`BOT_THREADS` at once
  (anyio's own pool would run up to 40: sixteen concurrent 4-player ``ismcts`` games took the
  server from 74 MB to 1.3-1.4 GB that was never given back); later requests wait their turn.
- :func:`limit_malloc_arenas`: glibc gives each thread that allocates its own arena and keeps
  freed memory in it; capping the arenas (``mallopt(M_ARENA_MAX)``) and trimming
  (:func:`trim_memory`: when the bot threads are let go after :data:`RELEASE_AFTER_S` without
  a move, when games expire) returns that memory to the system. A no-op off glibc.
- :data:`UVICORN_LIMITS`: uvicorn's own settings for :func:`agents.arena.serve.serve`: a 16 KiB
  limit on a request head still arriving (h11's ``max_incomplete_event_size``), at most
  :data:`MAX_CONNECTIONS` connections (more get 503), idle keep-alive connections closed after
  5 s. What they leave open (a head that never comes, one address holding every connection,
  a big head sent whole) is closed by ``agents.arena.serve_protocol`` (:data:`HEAD_TIMEOUT_S`,
  :data:`MAX_CONNECTIONS_PER_CLIENT`) and ``serve_guard.Guard`` (:data:`MAX_HEAD_BYTES`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
import anyio.to_thread

BOT_THREADS = 4
"""Bot moves computed at once (worker threads); each runs whole, the rest wait."""
MAX_CONNECTIONS = 128
"""Connections uvicorn serves at once; more are answered 503 (uvicorn ``limit_concurrency``)."""
MAX_CONNECTIONS_PER_CLIENT = 16
"""Connections at once from one client address (``serve_guard.client_key``); one more is
answered 503 and closed (``serve_protocol``). A browser opens about six per server."""
HEAD_TIMEOUT_S = 10.0
"""Seconds a request head (request line and headers) has to arrive whole, from the moment the
server waits for it, first byte included (``serve_protocol``)."""
MAX_HEAD_BYTES = 16 * 1024
"""A request head's size limit, however it arrives: still incomplete (h11) or whole (431,
``serve_guard.Guard``)."""
MALLOC_ARENAS = 2
"""glibc malloc arenas (``M_ARENA_MAX``) the server's threads share."""
RELEASE_AFTER_S = 2.0
"""Seconds without a bot move after which the bot threads end and their memory goes back to
the system (:class:`Thinker`)."""
TRIM_DELAY_S = 0.2
"""How long after its threads are joined a released pool's memory is trimmed."""
UVICORN_LIMITS: dict[str, Any] = {
    "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
    "limit_concurrency": MAX_CONNECTIONS,
    "timeout_keep_alive": 5,
}
"""uvicorn's own settings (``uvicorn.Config``); the protocol, ``http``, is
``serve_protocol.GuardedH11Protocol`` (h11 with the limits above)."""

_M_ARENA_MAX = -8  # glibc malloc.h
T = TypeVar("T")


class Thinker:
    """Runs bot moves in worker threads, at most ``threads`` at once, later ones waiting their
    turn (an anyio ``CapacityLimiter``, made in the event loop on first use).

    The moves run in a thread pool of the Thinker's own, which it lets go once no move has run
    for ``release_after_s``: the pool's threads end, and the freed heap goes back to the system
    (:func:`trim_memory`). The C++ core keeps scratch memory per thread (the legality search's
    memo, up to about 60 MiB a thread, emptied but never shrunk), so long-lived bot threads
    held it for good: after sixteen 4-player ``ismcts`` games the server stayed near 290-370
    MiB until a request or an expiry came. While moves keep coming the threads stay (no
    thread or memo is rebuilt per move). ``release_after_s`` ``None``: never let go."""

    def __init__(
        self, threads: int = BOT_THREADS, release_after_s: float | None = RELEASE_AFTER_S
    ) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.threads = threads
        self.release_after_s = release_after_s
        self.releases = 0  # how many times the pool was let go (for the tests)
        self._limiter: anyio.CapacityLimiter | None = None
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._running = 0
        self._timer: threading.Timer | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread once one of the ``threads`` is free."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(self._move, fn, args, limiter=self._limiter)

    def _move(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        # in anyio's worker thread, which only waits: a thread of the pool runs the bots
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="fort-bot")
            pool = self._pool
            self._running += 1
        try:
            return pool.submit(fn, *args).result()
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0 and self.release_after_s is not None:
                    self._timer = threading.Timer(self.release_after_s, self._release)
                    self._timer.daemon = True
                    self._timer.start()

    def _release(self) -> None:
        """Let the idle pool go (its threads end, and their memory with them), then trim."""
        with self._lock:
            if self._running or self._pool is None:
                return
            pool, self._pool = self._pool, None
            self.releases += 1
        pool.shutdown(wait=True)
        # a joined thread has ended for Python; its C++ thread-local memory is freed a moment
        # later, as the operating-system thread exits
        time.sleep(TRIM_DELAY_S)
        trim_memory()


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
