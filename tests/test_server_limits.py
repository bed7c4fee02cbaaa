"""The browser server's resource bounds (``agents/arena/server_limits.py``, issue 42 item 3)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytest.importorskip("starlette")
anyio = pytest.importorskip("anyio")

from agents.arena import serve as serve_module  # noqa: E402
from agents.arena.server_limits import (  # noqa: E402
    BOT_THREADS,
    UVICORN_LIMITS,
    Thinker,
    limit_malloc_arenas,
    trim_memory,
)


def test_bot_moves_run_at_most_bot_threads_at_once() -> None:
    """Twelve games asking at once: never more than BOT_THREADS moves run together, and every
    one runs (anyio's default pool would run 40 at once)."""
    thinker = Thinker()
    lock = threading.Lock()
    running, peak, done = 0, 0, []

    def move(k: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.02)
        with lock:
            running -= 1
        return k

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for k in range(12):

                async def one(k: int = k) -> None:
                    done.append(await thinker.run(move, k))

                tg.start_soon(one)

    anyio.run(main)
    assert sorted(done) == list(range(12))
    assert 1 < peak <= BOT_THREADS
    with pytest.raises(ValueError, match="at least 1"):
        Thinker(0)


def test_serve_hands_uvicorn_the_limits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    from agents.arena.serve_protocol import GuardedH11Protocol

    seen: dict[str, Any] = {}

    def run(self: Any, sockets: Any = None) -> None:
        seen.update(vars(self.config), port=sockets[0].getsockname()[1])

    monkeypatch.setattr(uvicorn.Server, "run", run)
    serve_module.serve(port=0)
    for key, value in UVICORN_LIMITS.items():
        assert seen[key] == value
    assert seen["h11_max_incomplete_event_size"] <= 16 * 1024
    assert seen["limit_concurrency"] >= 1 and seen["timeout_keep_alive"] <= 10
    assert seen["http"] is GuardedH11Protocol  # the head timeout and the per-address cap
    # port 0: a free port, bound before anything is printed, and the one printed
    port = seen["port"]
    assert port > 0 and f"Play Fort at http://127.0.0.1:{port}/" in capsys.readouterr().out


def test_a_header_past_the_limit_is_refused_by_h11() -> None:
    """The limit uvicorn passes to h11: a 100 KB request head is a protocol error there."""
    h11 = pytest.importorskip("h11")
    conn = h11.Connection(
        h11.SERVER, max_incomplete_event_size=UVICORN_LIMITS["h11_max_incomplete_event_size"]
    )
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000)
    with pytest.raises(h11.RemoteProtocolError):
        conn.next_event()


def test_malloc_settings_apply_on_glibc() -> None:
    import platform

    applied = limit_malloc_arenas()
    trim_memory()  # never raises
    if platform.libc_ver()[0] == "glibc":
        assert applied


def test_the_bot_threads_are_let_go_when_idle_and_their_memory_with_them() -> None:
    """The C++ core keeps each thread's legality-search memo (emptied, never shrunk): bot
    threads that lived for ever held it, and the server stayed near 290-370 MiB after its
    games. The Thinker's threads stay while moves keep coming (the memo is reused) and end
    after ``release_after_s`` without a move (a new thread starts with none)."""
    from fort_env import FortGame
    from fort_env.native import backend as cpp_backend

    if not cpp_backend.available():
        pytest.skip("the compiled core is not built")
    core = cpp_backend.require()
    game = FortGame(3, backend="cpp")

    def move() -> int:
        """A few searches on this thread; its memo's size."""
        state = game.new_initial_state(seed=1)
        for _ in range(40):
            state.apply_action(int(state.legal_actions()[0]))
        return int(core.search_memo_size())

    thinker = Thinker(threads=1, release_after_s=0.3)

    async def two_moves() -> list[int]:
        return [await thinker.run(move), await thinker.run(core.search_memo_size)]

    first, kept = anyio.run(two_moves)
    assert first > 0 and kept == first  # one thread while moves come: its memo kept
    deadline = time.monotonic() + 10
    while thinker.releases == 0:
        assert time.monotonic() < deadline, "the idle pool was never let go"
        time.sleep(0.05)

    size = anyio.run(thinker.run, core.search_memo_size)
    assert size == 0  # a fresh thread: the old one's memo went with it
    assert thinker.releases == 1
    never = Thinker(release_after_s=None)
    anyio.run(never.run, lambda: None)
    time.sleep(0.1)
    assert never.releases == 0


def test_a_finished_game_lets_its_bots_go() -> None:
    from agents.arena.serve_games import new_game

    game = new_game({"num_players": 2, "bots": ["random"], "seed": 4})
    game.advance()
    while not game.state.is_terminal():
        assert game.bots
        game.play(int(game.state.legal_actions()[0]))
    assert game.bots == {} and game.record()["agents"] == game.players
