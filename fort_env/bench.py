"""``fort-env bench``: how many decisions per second Fort feeds a learner, against peers.

Everything is measured in one process, one after another, and each figure is the median of
``rounds`` rounds, so the ratios to PettingZoo's ``connect_four_v3`` and ``texas_holdem_v4``
(4 players) compare like with like on the same machine at the same moment.

The AEC loop is the one users write (PettingZoo's documentation)::

    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        action = None if termination or truncation else rng.choice(legal)
        env.step(action)

Peers are optional (``pip install -e ".[bench]"``); a missing one is reported, not fatal.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .engine import FortGame, FortState
from .state_arrays import ARRAYS

DEFAULT_SECONDS = 2.0  # per round and per figure
DEFAULT_ROUNDS = 3


Runner = Callable[[float, int], tuple[int, int, float]]  # (seconds, seed) -> decisions, games, s
ROUND_SEED_STRIDE = 100_000  # each round plays games no earlier round played


def _median_rates(run: Runner, seconds: float, rounds: int) -> tuple[float, float]:
    """Median decisions/s and games/s over ``rounds`` rounds, each on fresh seeds (the
    engine memoises its play search per game, so replaying a seed would flatter it)."""
    per_decision, per_game = [], []
    for r in range(rounds):
        decisions, games, elapsed = run(seconds, r * ROUND_SEED_STRIDE)
        per_decision.append(decisions / elapsed)
        per_game.append(games / elapsed)
    return statistics.median(per_decision), statistics.median(per_game)


def aec_loop(make_env: Callable[[], Any]) -> Runner:
    """A runner of the standard AEC loop over whole games for about ``seconds``."""

    def run(seconds: float, seed: int) -> tuple[int, int, float]:
        env = make_env()
        rng = np.random.default_rng(seed)
        decisions, games = 0, 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.reset(seed=seed + games)
            for _agent in env.agent_iter():
                obs, _r, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                    decisions += 1
                env.step(action)
            games += 1
        return decisions, games, time.perf_counter() - start

    return run


def engine_loop(num_players: int) -> Runner:
    """Random legal play through ``FortState`` alone (mask + apply), whole games, on a new
    ``FortGame`` each round (an empty search memo)."""

    def run(seconds: float, seed: int) -> tuple[int, int, float]:
        game = FortGame(num_players)
        rng = np.random.default_rng(seed)
        decisions, games = 0, 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            state = game.new_initial_state(seed + games)
            while not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions += 1
            games += 1
        return decisions, games, time.perf_counter() - start

    return run


def _sample_states(game: FortGame, count: int, seed: int = 0) -> list[FortState]:
    rng = np.random.default_rng(seed)
    out: list[FortState] = []
    state = game.new_initial_state(seed)
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state(seed + len(out))
        out.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
    return out


def _micro(states: list[FortState], fn: Callable[[FortState], object], rounds: int) -> float:
    """Median over rounds of the mean microseconds per call over ``states``."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for s in states:
            fn(s)
        times.append((time.perf_counter() - start) / len(states) * 1e6)
    return statistics.median(times)


def _peer(name: str) -> Callable[[], Any] | None:
    try:
        if name == "connect_four_v3":
            from pettingzoo.classic import connect_four_v3

            return lambda: connect_four_v3.env()
        if name == "texas_holdem_v4 (4p)":
            from pettingzoo.classic import texas_holdem_v4

            return lambda: texas_holdem_v4.env(num_players=4)
    except ImportError:
        return None
    raise ValueError(name)


def run_bench(
    seconds: float = DEFAULT_SECONDS, rounds: int = DEFAULT_ROUNDS, num_players: int = 4
) -> dict[str, Any]:
    """Measure everything; returns a JSON-able dict (schema: the keys below, units in names).

    Keys: ``engine_decisions_per_s``, ``aec_decisions_per_s``, ``games_per_s``,
    ``clone_us``, ``observation_us``, ``mask_us``, ``state_bytes``,
    ``vector64_decisions_per_s`` (``FortVecEnv`` with B = 64, or None without the train extra),
    ``peers`` ({name: decisions/s or None}), ``ratios`` ({name: Fort AEC / peer}), ``config``.
    """
    from .env import env as fort_env_factory

    game = FortGame(num_players)
    out: dict[str, Any] = {
        "config": {"num_players": num_players, "seconds": seconds, "rounds": rounds},
    }
    rate, games = _median_rates(engine_loop(num_players), seconds, rounds)
    out["engine_decisions_per_s"], out["games_per_s"] = rate, games
    fort = aec_loop(lambda: fort_env_factory(num_players=num_players))
    out["aec_decisions_per_s"] = _median_rates(fort, seconds, rounds)[0]
    states = _sample_states(game, 300)
    out["clone_us"] = _micro(states, lambda s: s.clone(), rounds)
    out["observation_us"] = _micro(states, lambda s: s.observation_tensor(0), rounds)
    fresh = [s.clone() for s in states]
    game.search_memo.clear()  # a mask computed from scratch, not from the memo
    out["mask_us"] = _micro(fresh, lambda s: s.legal_actions_mask(), 1)
    s0 = states[0]
    out["state_bytes"] = int(sum(getattr(s0, name).nbytes for name in ARRAYS))
    try:
        from .vector import vector_decisions_per_second
    except ImportError:  # stable-baselines3 (the train extra) is not installed
        out["vector64_decisions_per_s"] = None
    else:
        rates = [vector_decisions_per_second(64, seconds, seed=r) for r in range(rounds)]
        out["vector64_decisions_per_s"] = statistics.median(rates)
    peers: dict[str, float | None] = {}
    for name in ("connect_four_v3", "texas_holdem_v4 (4p)"):
        make = _peer(name)
        peers[name] = None if make is None else _median_rates(aec_loop(make), seconds, rounds)[0]
    out["peers"] = peers
    out["ratios"] = {k: (out["aec_decisions_per_s"] / v if v else None) for k, v in peers.items()}
    return out


def format_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`run_bench`'s result."""
    cfg = result["config"]
    lines = [
        f"fort-env bench ({cfg['num_players']} players, "
        f"median of {cfg['rounds']} rounds of {cfg['seconds']:g} s)"
    ]
    rows = [
        ("engine: random play, decisions/s", f"{result['engine_decisions_per_s']:,.0f}"),
        ("engine: random games/s", f"{result['games_per_s']:.2f}"),
        ("AEC loop (fort_env.env()), decisions/s", f"{result['aec_decisions_per_s']:,.0f}"),
        ("clone(), us", f"{result['clone_us']:.1f}"),
        ("observation_tensor(), us", f"{result['observation_us']:.1f}"),
        ("legal_actions_mask() from scratch, us", f"{result['mask_us']:.1f}"),
        ("one state, bytes", f"{result['state_bytes']:,}"),
    ]
    vec = result.get("vector64_decisions_per_s")
    rows.append(("FortVecEnv B=64 (2p), learner decisions/s",
                 "needs the train extra" if vec is None else f"{vec:,.0f}"))  # fmt: skip
    for name, rate in result["peers"].items():
        if rate is None:
            rows.append((f"{name} AEC loop", "not installed (pip install -e '.[bench]')"))
        else:
            ratio = result["ratios"][name]
            rows.append(
                (f"{name} AEC loop, decisions/s", f"{rate:,.0f}  (Fort / it = {ratio:.2f})")
            )
    width = max(len(r[0]) for r in rows)
    lines += [f"  {k:<{width}}  {v}" for k, v in rows]
    return "\n".join(lines)
