"""The batched vector env in C++ (``_core.Batch``, cpp/include/fort/envs/batch.h) against
``SingleAgentEnv``: the same games, decision for decision, bit for bit.

Each env of a ``Batch`` is paired with a :class:`~fort_env.envs.single_agent.SingleAgentEnv` reset
with the env's base seed, which deals the batch's documented games and seats (its "Seeding"),
and whose opponents are scripted: an external seat
takes the same uniformly random legal action as the test gives the batch (one generator per
env on each side, consumed in decision order), a built-in ``random`` seat replays the C++
policy's documented draw (``EventRng(game_seed ^ POLICY_STREAM, j)``). After every learner
step the learner's observation (bytes), mask, reward (the float32 of SingleAgentEnv's float),
done, the seat and game seed, and at the end of an episode the terminal observation and the
winners are compared; a learner's illegal action is compared too. The reference runs on the
Python engine (this directory's default) or on the C++ one, and the batch with 1 or 4 threads.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from fort_env.core import FortState
from fort_env.envs import single_agent as wrappers
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.game.fields import C_SEED
from fort_env.game.rng import EventRng
from fort_env.native import backend as cpp_backend
from fort_env.native import playout
from fort_env.testing.differential import game as shared_game

if not cpp_backend.available():  # pragma: no cover - the optional-core test covers this
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )

core = cpp_backend.require()
SEED_LIMIT = 2**62
RANDOM = cpp_backend.policy_code("random")
EXTERNAL = core.EXTERNAL


def game_seeds(base: int) -> Iterator[int]:
    """The documented game seeds of an env seeded with ``base`` (batch.h)."""
    k = 0
    while True:
        yield EventRng(base, k).below(SEED_LIMIT)
        k += 1


class _Choose:
    """Uniformly random legal actions from one env's own generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, legal: Sequence[int]) -> int:
        return int(legal[int(self.rng.integers(len(legal)))])


@dataclass
class Reference:
    """One env's SingleAgentEnv and its scripted opponents."""

    env: SingleAgentEnv
    base: int
    seats: int
    fixed_seat: int | None
    choose: _Choose
    games: int = 0  # games dealt (k of batch.h)
    draws: dict[int, int] = field(default_factory=dict)  # game seed -> built-in decisions

    def reset(self) -> tuple[np.ndarray, dict[str, Any]]:
        first = self.games == 0
        self.games += 1
        return self.env.reset(seed=self.base if first else None)  # then its next game


def _info(state: FortState, seat: int) -> dict[str, Any]:
    """``minimal_info`` plus the game's seed (the built-in policy's stream is keyed by it) and
    the state, which the built-in policy's Python twin reads (fort_env.native.playout)."""
    return {**wrappers.minimal_info(state, seat), "seed": int(state.ctx[C_SEED]), "state": state}


def external(ref: list[Reference]) -> Callable[[Mapping[str, Any], Mapping[str, Any]], int]:
    """An external seat: the env's chooser (shared with its learner)."""

    def act(observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        return ref[0].choose(info["legal_actions"])

    return act


def builtin_random(ref: list[Reference]) -> Callable[[Mapping[str, Any], Mapping[str, Any]], int]:
    """A built-in ``random`` seat, replayed from batch.h's documented stream by the policy's
    Python twin (``fort_env.native.playout.policy_action``)."""

    def act(observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        draws = ref[0].draws
        seed = info["seed"]
        j = draws.get(seed, 0)
        draws[seed] = j + 1
        rng = EventRng(seed ^ core.POLICY_STREAM, j)
        return playout.policy_action(info["state"], "random", rng)

    return act


@dataclass
class Config:
    num_players: int = 2
    setup: str = "basic"
    rivals: tuple[int, ...] = (EXTERNAL,)  # per rival seat: EXTERNAL or RANDOM
    reward: str = "win_loss"
    shaping: float = 0.0
    seat: int | None = None
    first_player: int | None = None
    threads: int = 1
    num_envs: int = 3
    steps: int = 450  # random 2-player games give the learner about 200 decisions
    illegal: tuple[tuple[int, int], ...] = ()  # (step, env): the learner plays an illegal action
    base: int = 11


def run(config: Config, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Step a Batch and its references through ``config.steps`` learner steps, comparing
    everything after each; returns counts (episodes, learner steps, illegal ends)."""
    n, b = config.num_players, config.num_envs
    bases = [config.base + 1000 * i for i in range(b)]
    refs: list[Reference] = []
    for i in range(b):
        holder: list[Reference] = []
        opponents = [
            external(holder) if c == EXTERNAL else builtin_random(holder) for c in config.rivals
        ]
        env = SingleAgentEnv(
            num_players=n,
            setup=config.setup,
            opponents=opponents,
            reward=config.reward,
            shaping=config.shaping,
            first_player=config.first_player,
            opponent_info=_info,
            seat=config.seat,
        )
        ref = Reference(env, bases[i], n, config.seat, _Choose(bases[i]))
        holder.append(ref)
        refs.append(ref)
    batch = core.Batch(
        cpp_backend.core_game(shared_game(n, config.setup, "cpp")),
        b,
        seat=config.seat,
        first_player=config.first_player,
        reward=config.reward,
        shaping=config.shaping,
        threads=config.threads,
    )
    out = batch.buffers()
    ids = np.arange(b)
    batch.set_opponents(ids, np.array([config.rivals] * b, dtype=np.int32))
    batch.reset(ids, np.array(bases, dtype=np.int64), out)
    choose = [_Choose(base) for base in bases]  # the batch side's choosers

    def play_external() -> None:
        while True:
            waiting = np.flatnonzero(out["actor"] != out["seat"])
            if waiting.size == 0:
                return
            acts = [choose[i](np.flatnonzero(out["mask"][i])) for i in waiting]
            batch.step(waiting, np.array(acts), out)

    play_external()
    counts = {"episodes": 0, "steps": 0, "illegal": 0}
    expected = [ref.reset() for ref in refs]
    for i, (obs, _) in enumerate(expected):
        compare_live(out, i, obs, refs[i], f"reset env {i}")
    for step in range(config.steps):
        actions = np.empty(b, dtype=np.int64)
        for i in range(b):
            legal = np.flatnonzero(out["mask"][i])
            if (step, i) in config.illegal:
                illegal = np.flatnonzero(~out["mask"][i])
                actions[i] = illegal[0] if step % 2 else batch.num_actions + step  # in/out of range
            else:
                actions[i] = choose[i](legal)
        batch.step(ids, actions, out)
        play_external()
        for i, ref in enumerate(refs):
            where = f"step {step} env {i}"
            if (step, i) not in config.illegal:  # the learner's draw, on the reference side
                assert ref.choose(np.flatnonzero(ref.env.action_masks())) == actions[i], where
            obs, reward, terminated, truncated, info = ref.env.step(int(actions[i]))
            counts["steps"] += 1
            assert not truncated
            assert bool(out["done"][i]) == terminated, where
            assert np.float32(reward).tobytes() == out["reward"][i].tobytes(), (
                f"{where}: reward {reward!r} vs {out['reward'][i]!r}"
            )
            if terminated:
                counts["episodes"] += 1
                assert out["terminal_obs"][i].tobytes() == obs.tobytes(), where
                seat, seed, winners = out["end_info"][i].tolist()
                assert seat == info["seat"] and seed == info["game_seed"], where
                assert bool(out["illegal"][i]) == info.get("illegal_action", False), where
                if info.get("illegal_action"):
                    counts["illegal"] += 1
                    assert winners == 0
                else:
                    assert [p for p in range(n) if winners >> p & 1] == info["winners"], where
                obs, info = ref.reset()
            else:
                assert not out["illegal"][i]
            compare_live(out, i, obs, ref, where)
    return counts


def compare_live(
    out: dict[str, np.ndarray], i: int, obs: np.ndarray, ref: Reference, where: str
) -> None:
    env = ref.env
    assert out["obs"][i].tobytes() == obs.tobytes(), f"{where}: observation differs"
    assert np.array_equal(out["mask"][i], env.action_masks()), f"{where}: mask differs"
    assert int(out["seat"][i]) == env.seat == int(out["actor"][i]), where
    assert int(out["game_seed"][i]) == int(env.state.ctx[C_SEED]), where


CASES = {
    "2p external, win_loss": Config(),
    "2p random, shaping": Config(rivals=(RANDOM,), shaping=0.5, illegal=((40, 1), (77, 0))),
    "3p mixed, rank, shaping": Config(
        3, rivals=(RANDOM, EXTERNAL), reward="rank", shaping=0.5, steps=350
    ),
    "4p advanced, score_margin, fixed seat": Config(
        4, "advanced", (EXTERNAL, RANDOM, RANDOM), "score_margin", seat=2, first_player=1, steps=300
    ),
}


@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("name", list(CASES))
def test_batch_equals_single_agent_env_on_the_cpp_engine(
    name: str, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORT_ENV_BACKEND", "cpp")
    config = dataclasses.replace(CASES[name], threads=threads)
    counts = run(config, monkeypatch)
    assert counts["episodes"] >= config.num_envs  # every env went through an auto-reset
    assert counts["illegal"] == len(config.illegal)


def test_batch_equals_single_agent_env_on_the_python_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference on the Python engine (this directory's default backend)."""
    counts = run(
        Config(
            rivals=(RANDOM,), shaping=0.5, reward="rank", num_envs=2, steps=260, illegal=((30, 0),)
        ),
        monkeypatch,
    )
    assert counts["episodes"] >= 2 and counts["illegal"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("reward", ["win_loss", "rank", "score_margin"])
def test_batch_equals_single_agent_env_more_games(
    num_players: int, reward: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORT_ENV_BACKEND", "cpp")
    rivals = tuple(RANDOM if r % 2 else EXTERNAL for r in range(num_players - 1))
    for setup in ("basic", "advanced"):
        run(
            Config(
                num_players,
                setup,
                rivals,
                reward,
                shaping=0.25,
                num_envs=8,
                steps=2000,
                threads=2,
                base=7 + num_players,
                illegal=((500, 3), (1501, 6)),
            ),
            monkeypatch,
        )


def test_results_do_not_depend_on_the_thread_count() -> None:
    """1, 2 and 4 threads write the same bytes, step after step (built-in opponents)."""
    g = cpp_backend.core_game(shared_game(3, "basic", "cpp"))
    runs = []
    for threads in (1, 2, 4):
        batch = core.Batch(g, 16, reward="rank", shaping=0.3, threads=threads)
        out = batch.buffers()
        ids = np.arange(16)
        batch.set_opponents(ids, np.full((16, 2), RANDOM, np.int32))
        batch.reset(ids, np.arange(16) * 7, out)
        rng = np.random.default_rng(0)
        history = []
        for _ in range(120):
            acts = [rng.choice(np.flatnonzero(m)) for m in out["mask"]]
            batch.step(ids, np.array(acts), out)
            history.append(b"".join(a.tobytes() for a in out.values()))
        runs.append(history)
    assert runs[0] == runs[1] == runs[2]


# --------------------------------------------------------------------------- the GIL
def _ticks_during_a_reset(g: Any, b: int) -> tuple[float, float, list[float]]:
    """Reset ``b`` 4-player envs (three seats played by built-in random opponents) while a
    Python thread counts: the call's start and end and the thread's ticks."""
    batch = core.Batch(g, b, seat=0, first_player=3)
    out = batch.buffers()
    ids = np.arange(b)
    batch.set_opponents(ids, np.full((b, 3), RANDOM, np.int32))
    ticks: list[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())

    worker = threading.Thread(target=count)
    worker.start()
    try:
        time.sleep(0.02)
        start = time.perf_counter()
        batch.reset(ids, ids, out)
        end = time.perf_counter()
    finally:
        stop.set()
        worker.join()
    return start, end, ticks


def test_a_python_thread_runs_while_a_long_step_runs() -> None:
    """The GIL is released: a Python thread keeps counting while one long reset (many
    4-player games dealt and played to the learner by built-in opponents) runs in C++.

    Only ticks well inside the call count: with the GIL held, the other thread could still run
    for up to one switch interval just before the call and just after it. The batch doubles
    until the reset lasts four such margins (a quiet machine resets 3,000 envs in ~70 ms)."""
    g = cpp_backend.core_game(shared_game(4, "basic", "cpp"))
    margin = 4 * sys.getswitchinterval()
    b = 3000
    start, end, ticks = _ticks_during_a_reset(g, b)
    while end - start <= 4 * margin and b < 100_000:
        b *= 2
        start, end, ticks = _ticks_during_a_reset(g, b)
    assert end - start > 4 * margin, f"{b} envs reset in {end - start:.3f} s"
    inside = [t for t in ticks if start + margin < t < end - margin]
    assert len(inside) > 100, f"{len(inside)} ticks of the Python thread inside the step"


def _calls_during_a_long_reset(g: Any, b: int) -> tuple[bool, list[str], dict[str, np.ndarray]]:
    """Reset ``b`` envs in a thread and meanwhile make four other calls on the same Batch:
    whether the reset was still running after them, their RuntimeError messages, and the
    buffers they were given."""
    batch = core.Batch(g, b, seat=0, first_player=3)
    out, out2 = batch.buffers(), batch.buffers()
    ids = np.arange(b)
    batch.set_opponents(ids, np.full((b, 3), RANDOM, np.int32))
    batch.reset(ids[:1], ids[:1], out)
    entering = threading.Event()

    def long_reset() -> None:
        entering.set()
        batch.reset(ids, ids, out)

    worker = threading.Thread(target=long_reset)
    worker.start()
    entering.wait()
    time.sleep(0.05)
    refused = []
    for call in (
        lambda: batch.reset(ids[:1], ids[:1], out2),
        lambda: batch.step(ids[:1], np.zeros(1, np.int64), out2),
        lambda: batch.state(0),
        lambda: batch.set_opponents(ids[:1], np.zeros((1, 3), np.int32)),
    ):
        try:
            call()
        except RuntimeError as e:
            refused.append(str(e))
    busy = worker.is_alive()
    worker.join()
    return busy, refused, out2


def test_a_second_thread_cannot_step_a_busy_batch() -> None:
    """While one thread's long reset runs (GIL released), another thread's calls on the same
    Batch are refused with RuntimeError, not run on the half-stepped envs."""
    g = cpp_backend.core_game(shared_game(4, "basic", "cpp"))
    # The reset must outlast the other calls: doubled until it does (its length varies with
    # the build and the machine's load).
    b = 3000
    busy, refused, out2 = _calls_during_a_long_reset(g, b)
    while not busy and b < 48_000:
        b *= 2
        busy, refused, out2 = _calls_during_a_long_reset(g, b)
    assert busy, "the long reset ended before the other calls were made"
    assert refused == ["Batch is busy: another thread is stepping it"] * 4
    assert not out2["obs"].any()  # the refused calls wrote nothing


# --------------------------------------------------------------------------- the boundary
def _fresh(num_envs: int = 4, rivals: int = EXTERNAL) -> tuple[Any, dict[str, np.ndarray]]:
    batch = core.Batch(cpp_backend.core_game(shared_game(2, "basic", "cpp")), num_envs)
    out = batch.buffers()
    ids = np.arange(num_envs)
    batch.set_opponents(ids, np.full((num_envs, 1), rivals, np.int32))
    batch.reset(ids, ids + 100, out)
    return batch, out


def _snapshot(batch: Any, out: dict[str, np.ndarray]) -> tuple[bytes, list[bytes]]:
    buffers = b"".join(a.tobytes() for a in out.values())
    states = []
    for i in range(batch.num_envs):
        arrays = batch.state(i).to_arrays()
        states.append(b"".join(arrays[k].tobytes() for k in sorted(arrays)))
    return buffers, states


def _bad_buffers(out: dict[str, np.ndarray]) -> Iterator[tuple[dict[str, Any], str]]:
    for name, a in out.items():
        yield {k: v for k, v in out.items() if k != name}, f"out has no buffer '{name}'"
        wrong = np.float64 if a.dtype != np.float64 else np.float32
        yield {**out, name: a.astype(wrong)}, f"out\\['{name}'\\] must be a .* got dtype"
        yield {**out, name: np.zeros((a.shape[0] + 1, *a.shape[1:]), a.dtype)}, "got shape"
        yield {**out, name: list(a)}, f"out\\['{name}'\\] must be a numpy"
        if a.ndim >= 2:
            yield {**out, name: np.asfortranarray(a)}, f"out\\['{name}'\\] must be C-contiguous"
        ro = a.copy()
        ro.flags.writeable = False
        yield {**out, name: ro}, f"out\\['{name}'\\] must be writeable"


def test_bad_buffers_are_refused_and_nothing_changes() -> None:
    batch, out = _fresh()
    before = _snapshot(batch, out)
    ids = np.arange(4)
    actions = np.array([np.flatnonzero(m)[0] for m in out["mask"]])
    cases = 0
    for bad, message in _bad_buffers(out):
        with pytest.raises(ValueError, match=message):
            batch.step(ids, actions, bad)
        with pytest.raises(ValueError, match=message):
            batch.reset(ids, ids, bad)
        cases += 1
    assert cases == 11 * 5 + 5  # five ways per buffer, and non-contiguous for the 2-d and 3-d
    with pytest.raises(TypeError, match="out must be a dict"):
        batch.step(ids, actions, list(out.values()))
    assert _snapshot(batch, out) == before


def test_bad_arguments_are_refused_and_nothing_changes() -> None:
    batch, out = _fresh()
    before = _snapshot(batch, out)
    ids = np.arange(4)
    ok = np.array([np.flatnonzero(m)[0] for m in out["mask"]])
    bad_calls: list[tuple[Callable[[], Any], type[Exception], str]] = [
        (
            lambda: batch.step(ids.astype(float), ok, out),
            TypeError,
            "env_ids must be a numpy integer",
        ),
        (lambda: batch.step(list(ids), ok, out), TypeError, "env_ids must be a numpy integer"),
        (lambda: batch.step(ids[None], ok, out), ValueError, "env_ids must have shape"),
        (lambda: batch.step(ids, ok[:3], out), ValueError, r"actions must have shape \(4,\)"),
        (lambda: batch.step(ids, ok > 0, out), TypeError, "actions must be a numpy integer"),
        (lambda: batch.step(np.array([0, 1, 2, 4]), ok, out), ValueError, "not an env in"),
        (lambda: batch.step(np.array([0, -1, 2, 3]), ok, out), ValueError, "not an env in"),
        (lambda: batch.step(np.array([0, 1, 1, 3]), ok, out), ValueError, "env 1 twice"),
        (lambda: batch.reset(ids, np.array([0, -2, 0, 0]), out), ValueError, "base seed is >= 0"),
        (
            lambda: batch.set_opponents(ids, np.full((4, 1), 7, np.int32)),
            ValueError,
            "neither a built-in",
        ),
        (
            lambda: batch.set_opponents(ids, np.full((4, 2), 0, np.int32)),
            ValueError,
            r"shape \(4, 1\)",
        ),
        (lambda: batch.state(4), ValueError, "env must be an int in"),
        (lambda: batch.state(True), ValueError, "env must be an int in"),
    ]
    for call, error, message in bad_calls:
        with pytest.raises(error, match=message):
            call()
    assert _snapshot(batch, out) == before
    # an external seat's illegal action: refused before any env moves
    external = core.Batch(cpp_backend.core_game(shared_game(2, "basic", "cpp")), 4)
    ext_out = external.buffers()
    external.reset(ids, ids, ext_out)  # every rival EXTERNAL: some envs wait for it
    waiting = np.flatnonzero(ext_out["actor"] != ext_out["seat"])
    assert waiting.size
    ext_before = _snapshot(external, ext_out)
    acts = np.array([np.flatnonzero(ext_out["mask"][i])[0] for i in waiting])
    acts[-1] = np.flatnonzero(~ext_out["mask"][waiting[-1]])[0]
    with pytest.raises(ValueError, match=f"env {waiting[-1]}: action {acts[-1]} is not legal"):
        external.step(waiting, acts, ext_out)
    assert _snapshot(external, ext_out) == ext_before


def test_construction_errors() -> None:
    g = cpp_backend.core_game(shared_game(3, "basic", "cpp"))
    from fort_env.game.errors import ConfigError

    with pytest.raises(ValueError, match="num_envs must be an int in"):
        core.Batch(g, 0)
    with pytest.raises(ValueError, match="threads must be an int in"):
        core.Batch(g, 2, threads=0)
    with pytest.raises(ConfigError, match=r"seat must be None or in \[0, 3\), got 3"):
        core.Batch(g, 2, seat=3)
    with pytest.raises(ConfigError, match="first_player must be None"):
        core.Batch(g, 2, first_player=-1)
    with pytest.raises(ConfigError, match="reward must be one of"):
        core.Batch(g, 2, reward="points")
    with pytest.raises(ValueError, match="shaping must be a finite float"):
        core.Batch(g, 2, shaping=float("nan"))
    with pytest.raises(ValueError, match="illegal_reward must be a finite float"):
        core.Batch(g, 2, illegal_reward="x")


def test_an_env_must_be_reset_and_seeded_first() -> None:
    batch = core.Batch(cpp_backend.core_game(shared_game(2, "basic", "cpp")), 2)
    out = batch.buffers()
    ids = np.arange(2)
    with pytest.raises(ValueError, match="env 0 has no game: reset it first"):
        batch.step(ids, np.zeros(2, np.int64), out)
    with pytest.raises(ValueError, match="env 0 was never seeded"):
        batch.reset(ids, np.full(2, -1), out)
    with pytest.raises(ValueError, match="env 1 has no game"):
        batch.state(1)
    batch.reset(ids, np.array([3, 4]), out)
    first = out["game_seed"].copy()
    batch.reset(ids, np.full(2, -1), out)  # each env's next game
    assert list(out["game_seed"]) == [
        EventRng(3, 1).below(SEED_LIMIT),
        EventRng(4, 1).below(SEED_LIMIT),
    ]
    batch.reset(ids, np.array([3, 4]), out)  # re-seeded: the same first games again
    assert np.array_equal(out["game_seed"], first)
