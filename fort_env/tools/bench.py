"""``fort-env bench``: how many decisions per second Fort feeds a learner, against peers.

Everything is measured in one process and each figure is the median of ``rounds`` rounds. The
AEC loops of Fort and of PettingZoo's ``connect_four_v3`` and ``texas_holdem_v4`` (4 players)
run interleaved, one round of each in turn, and each ratio is the median of the per-round
ratios: a slow spell of a shared machine then slows both sides of a ratio alike.

The AEC loop is the one users write (PettingZoo's documentation)::

    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        action = None if termination or truncation else rng.choice(legal)
        env.step(action)

The engine loop (random legal play through ``FortState``: ``legal_actions()`` then
``apply_action()`` per decision, from Python) runs interleaved the same way with OpenSpiel's
C++ games called from Python one decision at a time in the same loop (4-player ``hanabi``,
``chess``, ``leduc_poker``; chance outcomes drawn with their probabilities and not counted as
decisions)::

    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])

Peers are optional (``pip install -c constraints.txt -e ".[bench]"``); a missing one is
reported, not fatal.

Adding a figure: compute it in :func:`_run_bench` and store it under a new key with its unit
in the name (``out["x_per_s"] = ...``), add the key to :func:`run_bench`'s docstring and one
row to :func:`format_bench`.

The env's share of MaskablePPO's rollout (``fort-env bench --ppo``)
------------------------------------------------------------------

``train.bench_ppo.ppo_rollout_share`` (the ``fort_env.bench`` plugin ``ppo_rollout``, since
``fort_env`` does not import ``train``) measures the env's share of MaskablePPO's rollout time
in the ``quick`` preset. It builds the quick preset's learner with ``train/selfplay.py``'s own
builders (``make_vec_env``, ``make_model``: the same ``SingleAgentEnv`` in ``Monitor``, league,
MLP policy and PPO hyperparameters, ``n_envs`` and ``n_steps``), except that the ``n_envs``
environments run in this process (``vec_env="dummy"``, SB3's ``DummyVecEnv``) so that the time
can be split; then it times ``MaskablePPO.collect_rollouts`` (after one warm-up rollout) for a
few rollouts of ``n_steps * n_envs`` learner decisions each, with a PPO update
(``model.train()``) between them, as ``learn()`` does. Definitions:

- **rollout time**: wall time inside ``collect_rollouts`` (policy forward passes, the vector
  env, the rollout buffer, GAE). The PPO update is not part of it (reported apart).
- **env time** (the headline figure, ``env_share``): wall time inside the vector env's calls
  during the rollout: ``step()`` and ``env_method("action_masks")`` (sb3-contrib's mask
  query). It *includes* the opponents' moves, which ``SingleAgentEnv.step`` plays before
  returning (the learner's trainer waits for them either way), the automatic resets of
  finished games (dealing, and the opponents' moves up to the learner's first decision), the
  ``Monitor`` wrapper and ``DummyVecEnv``'s own bookkeeping.
- **opponents' time** (``opponent_share``): the part of env time spent inside the opponents'
  ``act()`` calls (their policies: the bots' heuristics and searches, the snapshots' torch
  forward passes), split by kind in ``opponent_seconds_by_kind``.
- **env without opponents** (``env_share_excl_opponents``, the "engine-only" figure): env time
  minus opponents' time: the engine (applying every seat's actions, the legal moves of every
  seat, the learner's observation tensors, the info and ``SeatView`` given to opponents, the
  shaping's scores) and the thin wrappers (``SingleAgentEnv``, ``Monitor``, ``DummyVecEnv``).
  Engine calls a bot makes inside its own ``act()`` (heuristics, searches) count as opponents'
  time, so this is what the env costs whatever the opponents' policies cost.

The league is the quick preset's as it stands after the first evaluation (the first one always
adds a snapshot): its bots plus one frozen snapshot of the learner holding ``snapshot_weight``;
``snapshot=False`` measures the league at the start of training (bots only). The shares are
ratios of sums over the measured rollouts; ``per_rollout_env_share`` shows their spread. The
training run itself uses ``SubprocVecEnv`` (one process per env): there the env work is spread
over the cores and pays inter-process copies, so its wall-clock share differs, but the split of
the work between env and learner is the one measured here. Needs the ``train`` extra; without
it the result is ``{"error": ...}``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from fort_env.core import BACKEND_VARIABLE, FortGame, FortState
from fort_env.game.state_arrays import ARRAYS
from fort_env.tools.plugins import plugin

CTX_BYTES = 8  # each ctx field is saved and digested as an int64

DEFAULT_SECONDS = 2.0  # per round and per figure
DEFAULT_ROUNDS = 3
DEFAULT_PPO_ROLLOUTS = 3  # measured rollouts of ``fort-env bench --ppo`` (after one warm-up)
PPO_ENV_SHARE_TARGET = 0.10  # issue 16: env <= 10% of the rollout time (was 25%)
TRAIN_EXTRA = "pip install -c constraints.txt -e '.[train]'"


Runner = Callable[[float, int], tuple[int, int, float]]  # (seconds, seed) -> decisions, games, s
ROUND_SEED_STRIDE = 100_000  # each round plays games no earlier round played
PEERS = ("connect_four_v3", "texas_holdem_v4 (4p)")  # PettingZoo envs in the same AEC loop
# OpenSpiel games (bench name -> pyspiel.load_game string) in the same engine loop as Fort's
ENGINE_PEERS = {"hanabi (4p)": "hanabi(players=4)", "chess": "chess", "leduc_poker": "leduc_poker"}
MASK_PLAY_DECISIONS = 2_000  # decisions timed per round for mask_play_us
# rounds (at least) of mask_us: one is ~1 ms, so a few ms of another job's time slice would
# dominate it; the median of 7 is steady on the shared machine
MASK_ROUNDS = 7


def _interleaved(
    loops: Mapping[str, Runner], seconds: float, rounds: int
) -> dict[str, list[tuple[float, float]]]:
    """Each loop's (decisions/s, games/s) in every round; within a round the loops run one
    after another, so a slow spell of the machine slows a round's loops alike. Each round
    plays on fresh seeds (the engine memoises its play search, so replaying a seed would
    flatter it)."""
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in loops}
    for r in range(rounds):
        for name, run in loops.items():
            decisions, games, elapsed = run(seconds, r * ROUND_SEED_STRIDE)
            out[name].append((decisions / elapsed, games / elapsed))
    return out


def _decisions(per_round: list[tuple[float, float]]) -> list[float]:
    return [rate for rate, _games in per_round]


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


def engine_loop(
    num_players: int, backend: str | None = None, clock: Callable[[], float] = time.perf_counter
) -> Runner:
    """Random legal play through ``FortState`` alone (legal actions + apply), whole games, on a
    new ``FortGame`` each round (an empty search memo); ``clock`` measures the seconds (wall
    time; ``time.thread_time`` for CPU time, as ``scripts/bindbench/hot_calls.py`` does)."""

    def run(seconds: float, seed: int) -> tuple[int, int, float]:
        game = FortGame(num_players, backend=backend)
        rng = np.random.default_rng(seed)
        decisions, games = 0, 0
        start = clock()
        while clock() - start < seconds:
            state = game.new_initial_state(seed + games)
            while not state.is_terminal():
                legal = state.legal_actions()  # a plain list: index it (rng.choice copies it)
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
            games += 1
        return decisions, games, clock() - start

    return run


def _chance_action(outcomes: list[tuple[int, float]], u: float) -> int:
    """The outcome a uniform ``u`` in [0, 1) draws from ``(action, probability)`` pairs (the
    last one if rounding leaves ``u`` past the sum)."""
    for action, p in outcomes:
        u -= p
        if u < 0.0:
            return action
    return outcomes[-1][0]


def openspiel_loop(game_string: str, clock: Callable[[], float] = time.perf_counter) -> Runner:
    """The engine loop on an OpenSpiel game (``pyspiel.load_game(game_string)``), its C++
    called from Python one decision at a time; chance outcomes are drawn with their
    probabilities and not counted as decisions. ``clock``: as :func:`engine_loop`'s."""
    import pyspiel  # the caller checked it is installed (_engine_peer)

    def run(seconds: float, seed: int) -> tuple[int, int, float]:
        game = pyspiel.load_game(game_string)
        rng = np.random.default_rng(seed)
        decisions, games = 0, 0
        start = clock()
        while clock() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(_chance_action(state.chance_outcomes(), rng.random()))
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
            games += 1
        return decisions, games, clock() - start

    return run


def _engine_peer(name: str) -> Runner | None:
    """The engine loop of OpenSpiel's game ``name`` (:data:`ENGINE_PEERS`), or None without
    ``open_spiel``."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return None
    return openspiel_loop(ENGINE_PEERS[name])


def mask_in_play(game: FortGame, decisions: int, seed: int) -> tuple[float, float]:
    """Mean and median microseconds of ``legal_actions_mask()`` over ``decisions`` decisions
    of random games, each position seen for the first time with the search memo as play
    leaves it (what an env pays per decision; the mean carries the rare long searches)."""
    rng = np.random.default_rng(seed)
    times: list[float] = []
    games = 0
    while len(times) < decisions:
        state = game.new_initial_state(seed + games)
        while not state.is_terminal() and len(times) < decisions:
            start = time.perf_counter()
            mask = state.legal_actions_mask()
            times.append(time.perf_counter() - start)
            legal = mask.nonzero()[0]
            state.apply_action(int(legal[rng.integers(len(legal))]))
        games += 1
    return statistics.fmean(times) * 1e6, statistics.median(times) * 1e6


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


def _mask_from_scratch(game: FortGame, states: list[FortState]) -> float:
    """Mean microseconds of ``legal_actions_mask()`` over fresh clones of ``states`` (no
    cached legal actions) with the search memos emptied first: a mask computed from scratch."""
    fresh = [s.clone() for s in states]
    game.search_tables.search_memo.clear()  # the Python search's memo
    if game.backend == "cpp":
        from fort_env.native import backend as cpp_backend

        cpp_backend.require().clear_search_memo()  # the C++ search's (this thread's)
    return _micro(fresh, lambda s: s.legal_actions_mask(), 1)


def _median_ratio(ours: list[float], theirs: list[float]) -> float:
    """Median over rounds of ours / theirs, each pair measured in the same round."""
    return statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


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


@contextlib.contextmanager
def _backend_default(backend: str | None) -> Iterator[None]:
    """Within the block, games made without a backend (the env's, the vector env's) use
    ``backend`` (``$FORT_ENV_BACKEND``); ``None`` leaves the default alone."""
    if backend is None:
        yield
        return
    saved = os.environ.get(BACKEND_VARIABLE)
    os.environ[BACKEND_VARIABLE] = backend
    try:
        yield
    finally:
        if saved is None:
            del os.environ[BACKEND_VARIABLE]
        else:
            os.environ[BACKEND_VARIABLE] = saved


def run_bench(
    seconds: float = DEFAULT_SECONDS,
    rounds: int = DEFAULT_ROUNDS,
    num_players: int = 4,
    ppo: bool = False,
    ppo_rollouts: int = DEFAULT_PPO_ROLLOUTS,
    ppo_options: Mapping[str, Any] | None = None,
    train: bool = False,
    train_options: Mapping[str, Any] | None = None,
    backend: str | None = None,
) -> dict[str, Any]:
    """Measure everything; returns a JSON-able dict (schema: the keys below, units in names).

    Keys: ``engine_decisions_per_s``, ``aec_decisions_per_s``, ``games_per_s``,
    ``clone_us``, ``observation_us``, ``mask_us`` (from scratch: search memo emptied, new
    positions), ``mask_play_us`` and ``mask_play_median_us`` (:func:`mask_in_play`: mean
    and median per decision, the memo as play leaves it),
    ``state_bytes``,
    ``vector64_decisions_per_s`` (``FortVecEnv`` with B = 64, or None without the train extra),
    ``playout_decisions_per_s`` (``fort_env.native.playout``: random playouts inside the C++ core,
    one thread; None on the Python backend),
    ``vector64_batch_decisions_per_s`` (``FortBatchVecEnv``, the games in C++, B = 64; None on
    the Python backend or without the train extra),
    ``self_play64_decisions_per_s`` (``SelfPlayBatch``, B = 64, every seat a learner, random
    legal actions: the lean PPO's env side; None on the Python backend),
    ``peers`` ({name: decisions/s or None}), ``ratios`` ({name: median over rounds of Fort
    AEC / peer, measured in the same round}), ``engine_peers`` ({OpenSpiel game: decisions/s
    in the engine loop, or None without ``open_spiel``}), ``engine_ratios`` ({game: median
    over rounds of Fort's engine loop / the game's, same round}), ``config``;
    with ``ppo``, also ``ppo_rollout``: :func:`ppo_rollout_share` of the quick preset over
    ``ppo_rollouts`` rollouts (``ppo_options``: more keyword arguments for it), or
    ``{"error": ...}`` without the train extra; with ``train``, also ``train``: the quick
    preset's trainer end to end against the MaskablePPO baseline in the same run
    (``train.bench_ppo.train_throughput``, the ``fort_env.bench`` plugin ``train``;
    ``train_options``: its keyword arguments, e.g. ``seconds``, ``device``): ``samples_per_s``,
    ``baseline_samples_per_s``, ``ratio``, ``device``, ...

    ``backend`` (``"python"``, ``"cpp"``; ``None``: ``fort_env.core.default_backend()``) is
    the engine every Fort figure runs on (``config["backend"]``). Raises ``ConfigError`` for an
    unknown backend or ``"cpp"`` without the compiled core.
    """
    game = FortGame(num_players, backend=backend)
    with _backend_default(game.backend):
        out = _run_bench(game, seconds, rounds, ppo, ppo_rollouts, ppo_options)
    if train:
        measure = plugin("fort_env.bench", "train")
        out["train"] = (
            {"error": f"needs the train extra ({TRAIN_EXTRA})"}
            if measure is None
            else measure(**dict(train_options or {}))
        )
    return out


def _run_bench(
    game: FortGame,
    seconds: float,
    rounds: int,
    ppo: bool,
    ppo_rollouts: int,
    ppo_options: Mapping[str, Any] | None,
) -> dict[str, Any]:
    from fort_env.envs.aec import env as fort_env_factory

    num_players = game.num_players
    out: dict[str, Any] = {
        "config": {
            "num_players": num_players,
            "seconds": seconds,
            "rounds": rounds,
            "backend": game.backend,
        },
    }
    # The engine loops of Fort and of OpenSpiel's games, interleaved round by round.
    loops: dict[str, Runner] = {"fort": engine_loop(num_players, game.backend)}
    for name in ENGINE_PEERS:
        run = _engine_peer(name)
        if run is not None:
            loops[name] = run
    engine = _interleaved(loops, seconds, rounds)
    out["engine_decisions_per_s"] = statistics.median(_decisions(engine["fort"]))
    out["games_per_s"] = statistics.median(g for _rate, g in engine["fort"])
    # The AEC loops of Fort and its peers, likewise (module docstring).
    loops = {"fort": aec_loop(lambda: fort_env_factory(num_players=num_players))}
    for name in PEERS:
        make = _peer(name)
        if make is not None:
            loops[name] = aec_loop(make)
    per_round = {
        name: _decisions(rates) for name, rates in _interleaved(loops, seconds, rounds).items()
    }
    out["aec_decisions_per_s"] = statistics.median(per_round["fort"])
    states = _sample_states(game, 300)
    out["clone_us"] = _micro(states, lambda s: s.clone(), rounds)
    out["observation_us"] = _micro(states, lambda s: s.observation_tensor(0), rounds)
    out["mask_us"] = statistics.median(
        _mask_from_scratch(game, states) for _ in range(max(rounds, MASK_ROUNDS))
    )
    in_play = [
        mask_in_play(game, MASK_PLAY_DECISIONS, r * ROUND_SEED_STRIDE) for r in range(rounds)
    ]
    out["mask_play_us"] = statistics.median(mean for mean, _median in in_play)
    out["mask_play_median_us"] = statistics.median(median for _mean, median in in_play)
    s0 = states[0]
    arrays = sum(getattr(s0, name).nbytes for name in ARRAYS)
    out["state_bytes"] = int(arrays + CTX_BYTES * len(s0.ctx))  # ctx: a list of int64 values
    try:
        from fort_env.envs.vector_speed import (
            batch_decisions_per_second,
            vector_decisions_per_second,
        )
    except ImportError:  # stable-baselines3 (the train extra) is not installed
        out["vector64_decisions_per_s"] = out["vector64_batch_decisions_per_s"] = None
    else:
        rates = [vector_decisions_per_second(64, seconds, seed=r) for r in range(rounds)]
        out["vector64_decisions_per_s"] = statistics.median(rates)
        out["vector64_batch_decisions_per_s"] = (
            statistics.median([batch_decisions_per_second(64, seconds, r) for r in range(rounds)])
            if game.backend == "cpp"
            else None
        )
    if game.backend == "cpp":  # the lean PPO's env: every seat a learner, in C++
        from fort_env.envs.self_play import self_play_decisions_per_second

        out["self_play64_decisions_per_s"] = statistics.median(
            [self_play_decisions_per_second(64, seconds, r) for r in range(rounds)]
        )
    else:
        out["self_play64_decisions_per_s"] = None
    from fort_env.native.playout import (
        playout_decisions_per_second,  # random playouts inside the C++ core
    )

    playout_rates = [x for r in range(rounds if game.backend == "cpp" else 0)
                     if (x := playout_decisions_per_second(seconds, num_players,
                                                           r * ROUND_SEED_STRIDE))]  # fmt: skip
    out["playout_decisions_per_s"] = statistics.median(playout_rates) if playout_rates else None
    out["peers"] = {
        name: statistics.median(per_round[name]) if name in per_round else None for name in PEERS
    }
    out["ratios"] = {
        name: _median_ratio(per_round["fort"], per_round[name]) if name in per_round else None
        for name in PEERS
    }
    fort_engine = _decisions(engine["fort"])
    out["engine_peers"] = {
        name: statistics.median(_decisions(engine[name])) if name in engine else None
        for name in ENGINE_PEERS
    }
    out["engine_ratios"] = {
        name: _median_ratio(fort_engine, _decisions(engine[name])) if name in engine else None
        for name in ENGINE_PEERS
    }
    if ppo:
        measure = plugin("fort_env.bench", "ppo_rollout")
        out["ppo_rollout"] = (
            {"error": f"needs the train extra ({TRAIN_EXTRA})"}
            if measure is None
            else measure(rollouts=ppo_rollouts, **dict(ppo_options or {}))
        )
    return out


def _ppo_rows(ppo: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The table rows of :func:`ppo_rollout_share`'s result."""
    title = f"env share of MaskablePPO rollout ({ppo.get('preset', 'quick')} preset)"
    if "error" in ppo:
        return [(title, ppo["error"])]
    met = "met" if ppo["target_met"] else "not met"
    kinds = ", ".join(
        f"{k} {v / ppo['rollout_seconds']:.1%}" for k, v in ppo["opponent_seconds_by_kind"].items()
    )
    spread = ", ".join(f"{x:.1%}" for x in ppo["per_rollout_env_share"])
    return [
        (title, f"{ppo['env_share']:.1%}  (target <= {ppo['target']:.0%}: {met}; {spread})"),
        ("  of it, opponents' moves (act())", f"{ppo['opponent_share']:.1%}  ({kinds})"),
        ("  of it, engine + wrappers (no opponents)", f"{ppo['env_share_excl_opponents']:.1%}"),
        ("  env share of rollout + PPO update", f"{ppo['env_share_of_iteration']:.1%}"),
        (
            "MaskablePPO rollout, learner samples/s",
            f"{ppo['samples_per_s']:,.0f}  (with the update: "
            f"{ppo['samples_per_s_with_update']:,.0f}; {ppo['rollouts']} x "
            f"{ppo['n_envs']} envs x {ppo['n_steps']} steps, in process)",
        ),
    ]


def _train_rows(train: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The table rows of ``train.bench_ppo.train_throughput``'s result."""
    title = "trainer end to end (quick preset), learner samples/s"
    if "error" in train:
        return [(title, train["error"])]
    rows = [
        (
            title,
            f"{train['samples_per_s']:,.0f}  ({train['algo']} on {train['device']}, "
            f"{train['n_envs']} envs x {train['n_steps']} steps, {train['env_threads']} env / "
            f"{train['torch_threads']} torch threads)",
        )
    ]
    if train.get("baseline_samples_per_s") is not None:
        rows.append(
            (
                "  MaskablePPO baseline, samples/s",
                f"{train['baseline_samples_per_s']:,.0f}  (trainer / baseline = "
                f"{train['ratio']:.2f})",
            )
        )
    busy = train.get("contended")
    if busy:
        k = busy["processes"]
        rows += [
            (
                f"  beside {k} busy processes: default, samples/s",
                f"{busy['samples_per_s']:,.0f}  (/ one torch thread = "
                f"{busy['samples_per_s'] / busy['one_thread_samples_per_s']:.2f}, / baseline = "
                f"{busy['samples_per_s'] / busy['baseline_samples_per_s']:.2f})",
            ),
            (
                f"  beside {k} busy processes: one torch thread",
                f"{busy['one_thread_samples_per_s']:,.0f}",
            ),
            (f"  beside {k} busy processes: baseline", f"{busy['baseline_samples_per_s']:,.0f}"),
        ]
    return rows


def format_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`run_bench`'s result."""
    cfg = result["config"]
    lines = [
        f"fort-env bench ({cfg['num_players']} players, {cfg.get('backend', 'python')} "
        f"backend, median of {cfg['rounds']} rounds of {cfg['seconds']:g} s)"
    ]
    rows = [
        ("engine: random play, decisions/s", f"{result['engine_decisions_per_s']:,.0f}"),
        ("engine: random games/s", f"{result['games_per_s']:.2f}"),
        ("AEC loop (fort_env.env()), decisions/s", f"{result['aec_decisions_per_s']:,.0f}"),
        ("clone(), us", f"{result['clone_us']:.1f}"),
        ("observation_tensor(), us", f"{result['observation_us']:.1f}"),
        ("legal_actions_mask() from scratch, us", f"{result['mask_us']:.1f}"),
        (
            "legal_actions_mask() in play (memo as play leaves it), mean us",
            f"{result['mask_play_us']:.1f}  (median {result['mask_play_median_us']:.1f})",
        ),
        ("one state, bytes", f"{result['state_bytes']:,}"),
    ]
    vec = result.get("vector64_decisions_per_s")
    rows.append(("FortVecEnv B=64 (2p), learner decisions/s",
                 "needs the train extra" if vec is None else f"{vec:,.0f}"))  # fmt: skip
    batch = result.get("vector64_batch_decisions_per_s")
    rows.append(("FortBatchVecEnv B=64 (2p, C++), learner decisions/s",
                 "needs cpp, train extra" if batch is None else f"{batch:,.0f}"))  # fmt: skip
    sp = result.get("self_play64_decisions_per_s")
    rows.append(("SelfPlayBatch B=64 (2p, C++, every seat learns), decisions/s",
                 "cpp backend only" if sp is None else f"{sp:,.0f}"))  # fmt: skip
    pl = result.get("playout_decisions_per_s")
    rows.append(("playouts inside C++ (random, 1 thread), decisions/s",
                 "cpp backend only" if pl is None else f"{pl:,.0f}"))  # fmt: skip
    for name, rate in result["engine_peers"].items():
        if rate is None:
            hint = "not installed (pip install -c constraints.txt -e '.[bench]')"
            rows.append((f"OpenSpiel {name} engine loop", hint))
        else:
            ratio = result["engine_ratios"][name]
            rows.append(
                (
                    f"OpenSpiel {name} engine loop, decisions/s",
                    f"{rate:,.0f}  (Fort engine / it = {ratio:.2f})",
                )
            )
    for name, rate in result["peers"].items():
        if rate is None:
            hint = "not installed (pip install -c constraints.txt -e '.[bench]')"
            rows.append((f"{name} AEC loop", hint))
        else:
            ratio = result["ratios"][name]
            rows.append(
                (f"{name} AEC loop, decisions/s", f"{rate:,.0f}  (Fort / it = {ratio:.2f})")
            )
    if "ppo_rollout" in result:
        rows += _ppo_rows(result["ppo_rollout"])
    if "train" in result:
        rows += _train_rows(result["train"])
    width = max(len(r[0]) for r in rows)
    lines += [f"  {k:<{width}}  {v}" for k, v in rows]
    return "\n".join(lines)
