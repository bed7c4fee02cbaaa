"""Soak test of ``fort-env serve``: many concurrent games against bots, the server's memory
recorded (issue 42, item 3).

    python scripts/soak_serve.py [--clients 16] [--games 1] [--players 4] [--rival ismcts]
                                 [--seed 0] [--port 0] [--max-seconds 300] [--idle-seconds 10]
                                 [--interval 0.5] [--series FILE.csv] [--one-address]
                                 [--idle-sockets N]

Starts ``python -m fort_env.tools.cli serve --port P`` (a free loopback port unless ``--port``)
as a subprocess and waits until it answers; a ``--rival`` spec with arguments
(``ismcts:ms=20``) is passed to it as ``--rival SPEC``, a bare zoo name (``ismcts``,
``random``) is taken from the page's own list (``GET /api/bots``). Then ``--clients`` threads,
each from its own loopback address (127.0.0.2, 127.0.0.3, ...: the server keeps at most 8
games per client address, so sixteen games from one address would drop eight of them while
they are played; ``--one-address`` sends all from 127.0.0.1), each play ``--games`` full games
in turn through the JSON API: ``POST /api/games`` (the person
at seat 0, the rival at every other seat, seed ``--seed`` and the game's index), then a random
legal action (``legal`` of the view) per ``POST /api/games/{id}/actions`` until the game is
over. Meanwhile the server process's RSS (``VmRSS`` of ``/proc/PID/status``) and thread count
are sampled every ``--interval`` seconds.

Prints one JSON line: games finished and asked for, clients, requests, the person's actions,
the slowest request, wall seconds of the games, the server's RSS in MiB at start (answering,
before any game), its peak while the games ran, at the end of the games, and after
``--idle-seconds`` with no request (the kernel's own high-water mark ``VmHWM`` too), and its
peak thread count. ``--series FILE`` also writes every sample (seconds, RSS MiB, threads) as
CSV.

``--idle-sockets N`` also holds N connections that never send a byte open from 127.0.0.254
while the games run (reopening each one the server closes) and reports how many it opened,
how many the server refused at once (503: its cap per address) or closed later (its head
timeout), and the most it kept at once; the games must still finish.

``--max-seconds`` bounds the games: at the limit the clients stop (a request in flight is cut
off; the server may still finish that bot move), ``stopped_at_limit`` is true, and the figures
are still printed. Exit status 1 if any request failed unexpectedly (a status other than the
one expected, a broken connection, a server that died), with the first few failures in
``failures``; 0 otherwise. docs/reliability.md ("fort-env serve defends itself") gives the
figures.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 120.0  # the server imports the game, builds any --rival and tries it first
IDLE_ADDRESS = "127.0.0.254"  # where --idle-sockets come from (no client plays from there)


def free_port() -> int:
    """A TCP port free on the loopback address just now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proc_status(pid: int) -> dict[str, int]:
    """``VmRSS``, ``VmHWM`` (KiB) and ``Threads`` of process ``pid`` (empty once it is gone)."""
    out: dict[str, int] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "Threads"):
            out[key] = int(value.split()[0])
    return out


class Sampler(threading.Thread):
    """Samples the server's RSS and threads every ``interval`` seconds until stopped."""

    def __init__(self, pid: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.t0 = time.monotonic()
        self.samples: list[tuple[float, float, int]] = []  # seconds, RSS MiB, threads
        self._stop_event = threading.Event()
        self._lock = threading.Lock()

    def sample(self) -> tuple[float, float, int] | None:
        status = proc_status(self.pid)
        if "VmRSS" not in status:
            return None
        row = (time.monotonic() - self.t0, status["VmRSS"] / 1024, status.get("Threads", 0))
        with self._lock:
            self.samples.append(row)
        return row

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def peak(self, since: float = 0.0) -> tuple[float, int]:
        """The largest RSS (MiB) and thread count among the samples from ``since`` on."""
        with self._lock:
            rows = [r for r in self.samples if r[0] >= since]
        return max((r[1] for r in rows), default=0.0), max((r[2] for r in rows), default=0)


class IdleSockets(threading.Thread):
    """``count`` connections from ``address`` that never send a byte, kept open while the
    games run: each one the server closes is counted and opened again every ``interval``
    seconds (an attacker reconnecting). The server should keep at most its per-address cap of
    them and close the rest, answering 503, and close the ones it keeps after its head
    timeout; the games must go on meanwhile."""

    def __init__(self, port: int, count: int, address: str = IDLE_ADDRESS) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.count = count
        self.address = address
        self.sockets: list[socket.socket] = []
        self.opened = 0
        self.refused = 0  # closed by the server with a 503 (its per-address cap)
        self.closed = 0  # closed by the server without a word (its head timeout)
        self.held_max = 0
        self.done = threading.Event()

    def open_one(self) -> None:
        sock = socket.socket()
        sock.bind((self.address, 0))
        sock.connect(("127.0.0.1", self.port))
        sock.setblocking(False)
        self.sockets.append(sock)
        self.opened += 1

    def sweep(self) -> None:
        kept = []
        for sock in self.sockets:
            try:
                data = sock.recv(4096)
            except BlockingIOError:
                kept.append(sock)
                continue
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 503"):
                self.refused += 1
            else:
                self.closed += 1
            sock.close()
        self.sockets = kept
        self.held_max = max(self.held_max, len(kept))

    def run(self) -> None:
        while not self.done.is_set():
            while len(self.sockets) < self.count:
                self.open_one()
            time.sleep(0.2)
            self.sweep()
        for sock in self.sockets:
            sock.close()


class Soak:
    """The clients' shared state: counts, failures, the deadline."""

    def __init__(self, base: str, args: argparse.Namespace, rival: str) -> None:
        self.base = base
        self.args = args
        self.rival = rival
        self.deadline = 0.0
        self.lock = threading.Lock()
        self.games_done = 0
        self.requests = 0
        self.actions = 0
        self.slowest = 0.0
        self.failures: list[str] = []
        self.stopped = threading.Event()

    def fail(self, what: str) -> None:
        with self.lock:
            self.failures.append(what)

    def request(
        self,
        client: httpx.Client,
        method: str,
        path: str,
        expect: int,
        body: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """The JSON answer, or None when the request failed (recorded) or the limit cut it."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.stopped.set()
            return None
        start = time.monotonic()
        try:
            response = client.request(method, self.base + path, json=body, timeout=left)
        except httpx.TimeoutException:
            if time.monotonic() >= self.deadline - 0.05:
                self.stopped.set()  # cut off by --max-seconds: not a failure
            else:
                self.fail(f"{method} {path}: timed out")
            return None
        except httpx.HTTPError as exc:
            self.fail(f"{method} {path}: {type(exc).__name__}: {exc}")
            return None
        took = time.monotonic() - start
        with self.lock:
            self.requests += 1
            self.slowest = max(self.slowest, took)
        if response.status_code != expect:
            self.fail(f"{method} {path}: {response.status_code} {response.text[:200]}")
            return None
        try:
            data = response.json()
        except ValueError:
            self.fail(f"{method} {path}: not JSON: {response.text[:200]}")
            return None
        if not isinstance(data, dict):
            self.fail(f"{method} {path}: not a JSON object: {response.text[:200]}")
            return None
        return data

    def play(self, client: httpx.Client, index: int, rng: random.Random) -> bool:
        """One full game (seat 0 against the rival); False if it stopped short."""
        body = {
            "num_players": self.args.players,
            "seat": 0,
            "bots": [self.rival],
            "seed": self.args.seed * 100_000 + index,
        }
        view = self.request(client, "POST", "/api/games", 201, body)
        if view is None:
            return False
        gid = view["id"]
        while not view.get("terminal"):
            legal = [int(a["id"]) for a in view.get("legal", [])]
            if not legal:
                self.fail(f"game {gid}: not over and no legal action for the person")
                return False
            action = rng.choice(legal)
            view = self.request(
                client, "POST", f"/api/games/{gid}/actions", 200, {"action": action}
            )
            if view is None:
                return False
            with self.lock:
                self.actions += 1
        if view.get("final") is None:
            self.fail(f"game {gid}: over without its final scores")
            return False
        with self.lock:
            self.games_done += 1
        return True

    def client(self, k: int) -> None:
        rng = random.Random(self.args.seed * 1_000 + k)
        # each client from its own loopback address (127.0.0.2, .3, ...): the server keeps at
        # most MAX_GAMES_PER_CLIENT games per address, so one address would model one person
        address = "127.0.0.1" if self.args.one_address else f"127.0.0.{2 + k % 250}"
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(transport=transport) as client:
            for g in range(self.args.games):
                if self.stopped.is_set() or self.failures:
                    return
                if not self.play(client, k * self.args.games + g, rng):
                    return


def start_server(args: argparse.Namespace, port: int, log: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "fort_env.tools.cli", "serve", "--port", str(port)]
    from agents.spec import parse

    rival = parse(args.rival)
    if rival.path is not None or rival.args:  # a spec with arguments: the server must offer it
        command += ["--rival", args.rival]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)


def wait_until_up(server: subprocess.Popen[bytes], base: str, players: int) -> list[str]:
    """The rivals the server offers, once it answers (RuntimeError if it dies or never does)."""
    give_up = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < give_up:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            response = httpx.get(f"{base}/api/bots?num_players={players}", timeout=2)
            if response.status_code == 200:
                return [str(b) for b in response.json()["bots"]]
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"the server did not answer within {STARTUP_SECONDS:.0f} s")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (threads)")
    parser.add_argument("--games", type=int, default=1, help="games per client, one after another")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument(
        "--rival", default="ismcts", help="the bots' spec at every other seat (default ismcts)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=0, help="0: a free loopback port")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=300.0,
        help="stop the clients after this long (the figures are still printed)",
    )
    parser.add_argument(
        "--idle-seconds",
        type=float,
        default=10.0,
        help="wait this long after the games before the last RSS sample",
    )
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples")
    parser.add_argument(
        "--one-address",
        action="store_true",
        help="every client from 127.0.0.1 (one person to the server's per-client "
        "cap) instead of one loopback address each",
    )
    parser.add_argument("--series", type=Path, help="write every sample here (CSV)")
    parser.add_argument(
        "--idle-sockets",
        type=int,
        default=0,
        help=f"hold this many connections that never send a byte, from {IDLE_ADDRESS}, open "
        "while the games run (reopened as the server closes them)",
    )
    args = parser.parse_args(argv)
    if args.clients < 1 or args.games < 1 or args.max_seconds <= 0 or args.interval <= 0:
        parser.error("--clients and --games must be >= 1, --max-seconds and --interval > 0")

    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        server = start_server(args, port, log)
        sampler = Sampler(server.pid, args.interval)
        try:
            try:
                offered = wait_until_up(server, base, args.players)
            except RuntimeError as exc:
                log.seek(0)
                tail = log.read().decode(errors="replace")[-2000:]
                print(f"soak_serve: {exc}\n{tail}", file=sys.stderr)
                return 1
            if args.rival not in offered:
                print(
                    f"soak_serve: the server does not offer {args.rival!r} for {args.players} "
                    f"players; it offers {offered}",
                    file=sys.stderr,
                )
                return 1
            start = sampler.sample()
            sampler.start()
            idle_sockets = IdleSockets(port, args.idle_sockets)
            if args.idle_sockets:
                idle_sockets.start()
                time.sleep(0.5)  # they are there before the first game
            soak = Soak(base, args, args.rival)
            t0 = time.monotonic()
            soak.deadline = t0 + args.max_seconds
            threads = [
                threading.Thread(target=soak.client, args=(k,), daemon=True)
                for k in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.monotonic() - t0
            idle_sockets.done.set()
            end = sampler.sample()
            peak_rss, peak_threads = sampler.peak()
            time.sleep(args.idle_seconds)
            idle = sampler.sample()
            hwm = proc_status(server.pid).get("VmHWM", 0) / 1024
            sampler.stop()
            if server.poll() is not None:
                soak.fail(f"the server exited with status {server.returncode}")
        finally:
            stop_server(server)
        log.seek(0)
        server_log = log.read().decode(errors="replace")

    def mib(row: tuple[float, float, int] | None) -> float | None:
        return None if row is None else round(row[1], 1)

    result = {
        "games": soak.games_done,
        "games_asked": args.clients * args.games,
        "clients": args.clients,
        "players": args.players,
        "rival": args.rival,
        "seed": args.seed,
        "client_addresses": 1 if args.one_address else min(args.clients, 250),
        "requests": soak.requests,
        "actions": soak.actions,
        "slowest_request_s": round(soak.slowest, 2),
        "wall_s": round(wall, 1),
        "stopped_at_limit": soak.stopped.is_set(),
        "rss_start_mib": mib(start),
        "rss_peak_mib": round(max(peak_rss, start[1] if start else 0.0), 1),
        "rss_end_mib": mib(end),
        "rss_idle_mib": mib(idle),
        "idle_s": args.idle_seconds,
        "vm_hwm_mib": round(hwm, 1),
        "threads_start": start[2] if start else None,
        "threads_peak": peak_threads,
        "samples": len(sampler.samples),
        "failures": len(soak.failures),
    }
    if args.idle_sockets:
        result.update(
            idle_sockets=args.idle_sockets,
            idle_opened=idle_sockets.opened,
            idle_refused_503=idle_sockets.refused,
            idle_closed=idle_sockets.closed,
            idle_held_max=idle_sockets.held_max,
        )
    if soak.failures:
        result["first_failures"] = soak.failures[:5]
        print(server_log[-2000:], file=sys.stderr)
    if args.series is not None:
        with args.series.open("w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["seconds", "rss_mib", "threads"])
            writer.writerows((round(t, 2), round(r, 1), n) for t, r, n in sampler.samples)
    print(json.dumps(result))
    return 1 if soak.failures else 0


if __name__ == "__main__":
    sys.exit(main())
