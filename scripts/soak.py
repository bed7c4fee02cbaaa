"""Soak test: many full games of random and heuristic players, every invariant at every step.

    python scripts/soak.py [--games 100000] [--workers 2] [--seed 0] [--agents random,heuristic,...]
                           [--setups basic,advanced] [--chunk 50] [--json]

Each game draws a player count (2-4), a setup, and an agent (``agents.make``) for every seat
from ``--agents``, all from ``--seed`` and the game's index, so a run is reproducible and any
game can be replayed alone (``--only INDEX``). Agents act through the tournament runner's own
``decision_info`` and lazy observation, as in ``fort-env tournament``. After every action the
invariants of ``fort_env/testing/invariants.py`` are checked (``check_state``: zones, Park, Stuff,
Pack, Lookout and Fort Level capacities, one made-up rule per seat; scores and Fort Levels
never fall), plus a legal action whenever the game is not over, the end within 5,000
decisions, and at the end equal turns, the end trigger set, and winners with the top total.

Memory: each worker reports its peak RSS (``resource.getrusage``, kilobytes on Linux) after
every chunk of games; the summary shows the first and last chunk's peak of the first worker
(flat memory: the two agree within a few MB) and the maximum over all workers. With
``--memory-log FILE`` every chunk also writes one CSV row as it finishes (games done, worker,
current and peak RSS in MB): the series that shows whether memory levels off.

Prints games, decisions, violations (with the first few described), games/s and decisions/s,
and exits with status 1 if there was any violation. ``docs/reliability.md`` gives the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import resource
import sys
import time
import traceback
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
from agents.arena.games import decision_info  # noqa: E402
from agents.base import LazyObservation  # noqa: E402
from fort_env import FortGame  # noqa: E402
from fort_env.game.fields import C_END_TRIGGERED, P_FORT_LEVEL, P_SCORE, P_TURNS  # noqa: E402
from fort_env.testing.invariants import MAX_DECISIONS, check_state  # noqa: E402

DEFAULT_AGENTS = ("random", "heuristic", "builder", "scorer", "opportunist")
_GAMES: dict[tuple[int, str], FortGame] = {}
_AGENTS: dict[str, Any] = {}


def _game(n: int, setup: str) -> FortGame:
    if (n, setup) not in _GAMES:
        _GAMES[(n, setup)] = FortGame(n, setup)
    return _GAMES[(n, setup)]


def _agent(spec: str) -> Any:
    if spec not in _AGENTS:
        _AGENTS[spec] = agents.make(spec)
    return _AGENTS[spec]


def deal(index: int, seed: int, specs: list[str], setups: list[str]) -> dict[str, Any]:
    """Game ``index``'s table: player count, setup, agents, deal seed (from ``seed``)."""
    rng = np.random.default_rng([seed, index])
    n = int(rng.integers(2, 5))
    return {
        "index": index,
        "num_players": n,
        "setup": setups[int(rng.integers(len(setups)))],
        "agents": [specs[int(rng.integers(len(specs)))] for _ in range(n)],
        "deal_seed": int(rng.integers(2**62)),
        "agent_seed": int(rng.integers(2**31)),
    }


def play(table: dict[str, Any]) -> int:
    """Play one game with every check; returns its decisions.

    Raises:
        AssertionError: a broken invariant (described).
    """
    game = _game(table["num_players"], table["setup"])
    seats = [_agent(spec) for spec in table["agents"]]
    for k, agent in enumerate(seats):
        agent.seed(table["agent_seed"] + k)
    state = game.new_initial_state(seed=table["deal_seed"])
    check_state(state)
    scores = state.players[:, P_SCORE].copy()
    levels = state.players[:, P_FORT_LEVEL].copy()
    decisions = 0
    while not state.is_terminal():
        seat = state.current_player()
        info = decision_info(state, seat)
        assert info["legal_actions"], f"no legal action at {state.decision.kind.name}"
        obs = LazyObservation(partial(state.observation_tensor, seat), info["action_mask"].copy)
        action = seats[seat].act(obs, info)
        assert info["action_mask"][action], f"{table['agents'][seat]} chose illegal {action}"
        state.apply_action(action)
        decisions += 1
        assert decisions < MAX_DECISIONS, "the game did not end"
        check_state(state)
        assert (state.players[:, P_SCORE] >= scores).all(), "a score fell"
        assert (state.players[:, P_FORT_LEVEL] >= levels).all(), "a Fort Level fell"
        scores = state.players[:, P_SCORE].copy()
        levels = state.players[:, P_FORT_LEVEL].copy()
    turns = state.players[:, P_TURNS]
    assert (turns == turns[0]).all(), f"unequal turns {turns.tolist()}"
    assert state.ctx[C_END_TRIGGERED] == 1, "over without an end trigger"
    totals = [row["total"] for row in state.score_breakdown()]
    winners = state.winners()
    assert winners and max(totals) == totals[winners[0]], "a winner without the top total"
    return decisions


def _current_rss_kb() -> int:
    """This process's resident set now, in kilobytes (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def run_chunk(args: tuple[list[int], int, list[str], list[str]]) -> dict[str, Any]:
    """Play games ``indices``; returns counts, violations and this process's peak RSS."""
    indices, seed, specs, setups = args
    decisions = 0
    violations = []
    for index in indices:
        table = deal(index, seed, specs, setups)
        try:
            decisions += play(table)
        except Exception as exc:  # every failure is a reported violation
            where = traceback.format_exc(limit=-1).strip().splitlines()
            violations.append({**table, "error": repr(exc), "where": where[1] if where else ""})
    return {
        "games": len(indices),
        "decisions": decisions,
        "violations": violations,
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_kb": _current_rss_kb(),
        "pid": multiprocessing.current_process().pid,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", default=",".join(DEFAULT_AGENTS))
    parser.add_argument("--setups", default="basic,advanced")
    parser.add_argument("--chunk", type=int, default=50, help="games per task (memory sample)")
    parser.add_argument("--only", type=int, default=None, help="replay game INDEX alone")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--memory-log", type=Path, default=None, help="CSV of RSS per chunk (MB)")
    args = parser.parse_args(argv)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    setups = [s.strip() for s in args.setups.split(",") if s.strip()]
    if args.games < 1 or args.workers < 1 or args.chunk < 1 or not specs or not setups:
        parser.error("--games, --workers and --chunk must be >= 1; --agents, --setups non-empty")
    for spec in specs:
        agents.make(spec)  # a bad spec fails here, once
    for setup in setups:
        _game(2, setup)
    if args.only is not None:
        table = deal(args.only, args.seed, specs, setups)
        print(table, "->", play(table), "decisions")
        return 0
    indices = list(range(args.games))
    chunks = [(indices[i : i + args.chunk], args.seed, specs, setups)
              for i in range(0, len(indices), args.chunk)]  # fmt: skip
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    log = None if args.memory_log is None else args.memory_log.open("w", buffering=1)
    if log is not None:
        log.write("games_done,worker,rss_mb,peak_rss_mb\n")
    with contextlib.ExitStack() as stack:
        if args.workers == 1:
            stream: Any = map(run_chunk, chunks)
        else:
            pool = stack.enter_context(multiprocessing.get_context("forkserver").Pool(args.workers))
            stream = pool.imap(run_chunk, chunks)
        for r in stream:  # in chunk order, written as they finish (a live memory series)
            results.append(r)
            if log is not None:
                done = sum(x["games"] for x in results)
                rss, peak = r["rss_kb"] / 1024, r["peak_rss_kb"] / 1024
                log.write(f"{done},{r['pid']},{rss:.1f},{peak:.1f}\n")
    if log is not None:
        log.close()
    seconds = time.perf_counter() - start
    games = sum(r["games"] for r in results)
    decisions = sum(r["decisions"] for r in results)
    violations = [v for r in results for v in r["violations"]]
    first_pid = results[0]["pid"]
    mine = [r["peak_rss_kb"] for r in results if r["pid"] == first_pid]
    summary = {
        "games": games,
        "decisions": decisions,
        "violations": len(violations),
        "seconds": round(seconds, 1),
        "games_per_s": round(games / seconds, 2),
        "decisions_per_s": round(decisions / seconds),
        "workers": args.workers,
        "peak_rss_mb_first_chunk": round(mine[0] / 1024, 1),
        "peak_rss_mb_last_chunk": round(mine[-1] / 1024, 1),
        "peak_rss_mb_max": round(max(r["peak_rss_kb"] for r in results) / 1024, 1),
        "agents": specs,
        "setups": setups,
        "seed": args.seed,
    }
    if args.json:
        print(json.dumps({**summary, "first_violations": violations[:5]}, indent=1))
    else:
        print(
            f"{games} games, {decisions} decisions, {len(violations)} violations in "
            f"{seconds:.0f} s ({summary['games_per_s']} games/s, "
            f"{summary['decisions_per_s']} decisions/s, {args.workers} workers); peak RSS "
            f"{summary['peak_rss_mb_first_chunk']} MB after the first chunk, "
            f"{summary['peak_rss_mb_last_chunk']} MB after the last (max "
            f"{summary['peak_rss_mb_max']} MB)"
        )
        for v in violations[:5]:
            print("VIOLATION", v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
