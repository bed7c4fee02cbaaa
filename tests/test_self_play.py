"""``fort_env.envs.self_play.SelfPlayBatch``: every seat a sample, per-seat rewards.

Each game the C++ batch plays is replayed in the Python engine from its seed with the same
actions: the same observations, masks and actors at every stop, and per-seat rewards whose sum
between a seat's decisions is ``SingleAgentEnv``'s reward for that seat (shaping telescoped,
final reward at the end). Built-in seats play as ``fort_env.native.playout``'s policies, the
errors at the boundary leave the batch unchanged, and the seeds reproduce.
"""

from __future__ import annotations

import numpy as np
import pytest

from fort_env.core import FortGame
from fort_env.envs.aec import SCORE_MARGIN_SCALE, final_rewards
from fort_env.envs.self_play import EXTERNAL, LEARNER, SelfPlayBatch, seat_code
from fort_env.game.errors import ConfigError
from fort_env.native import backend as cpp_backend

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )


def margins(state) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Every seat's shaping potential: (own total - best rival total) / 25."""
    totals = np.array([row["total"] for row in state.score_breakdown()], dtype=np.float64)
    best = np.array([np.delete(totals, p).max() for p in range(len(totals))])
    return (totals - best) / SCORE_MARGIN_SCALE


def random_actions(batch: SelfPlayBatch, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in batch.mask], dtype=np.int64)


@pytest.mark.parametrize(
    ("num_players", "reward", "shaping", "threads"),
    [
        (2, "win_loss", 0.5, 1),
        (3, "rank", 0.25, 2),
        (4, "score_margin", 0.0, 3),
        (2, "rank", 1.0, 2),
    ],
)
def test_the_games_and_rewards_are_the_python_engines(
    num_players: int, reward: str, shaping: float, threads: int
) -> None:
    """Replay every game in Python: same stops, masks, observations; per-seat rewards summed
    between decisions equal the single-agent env's (final reward plus the shaping's
    telescoped potential differences)."""
    num_envs, steps = 4, 1500
    batch = SelfPlayBatch(
        num_envs, num_players=num_players, reward=reward, shaping=shaping, threads=threads
    )
    batch.reset(seed=11)
    game = FortGame(num_players, backend="python")
    rng = np.random.default_rng(0)
    seeds = [int(s) for s in batch.buffers["game_seed"]]
    states = [game.new_initial_state(s) for s in seeds]
    phi = [margins(s) for s in states]
    totals = [np.zeros(num_players) for _ in range(num_envs)]
    finished = 0
    for _ in range(steps):
        for i, state in enumerate(states):
            actor = int(batch.actor[i])
            assert actor == state.current_player()
            assert np.flatnonzero(batch.mask[i]).tolist() == state.legal_actions()
            np.testing.assert_array_equal(batch.obs[i], state.observation_tensor(actor))
            assert batch.codes[i].tolist() == [LEARNER] * num_players
        actions = random_actions(batch, rng)
        batch.step(actions)
        for i in range(num_envs):
            state = states[i]
            state.apply_action(int(actions[i]))
            totals[i] += batch.rewards[i]
            if state.is_terminal():
                assert batch.done[i]
                expected = final_rewards(state, reward) + shaping * (margins(state) - phi[i])
                np.testing.assert_allclose(totals[i], expected, atol=1e-5)
                winners = sum(1 << p for p in range(num_players) if state.returns()[p] > 0)
                assert batch.end_info[i, 1] == winners
                assert batch.end_info[i, 0] == seeds[i]
                finished += 1
                seeds[i] = int(batch.buffers["game_seed"][i])
                states[i] = game.new_initial_state(seeds[i])
                phi[i] = margins(states[i])
                totals[i] = np.zeros(num_players)
            else:
                assert not batch.done[i]
                # mid-game: the rewards so far are the shaping's telescoped differences
                now = margins(state)
                np.testing.assert_allclose(totals[i], shaping * (now - phi[i]), atol=1e-5)
    assert finished >= num_envs  # several whole games were checked


def test_builtin_and_external_seats() -> None:
    """Built-in seats are played inside C++ (never a stop for them); EXTERNAL seats stop
    like LEARNER ones; codes apply from each env's next deal and are shown per game."""
    builder = seat_code("builder")
    batch = SelfPlayBatch(3, num_players=3)
    codes = np.array([[LEARNER, builder, builder], [EXTERNAL, LEARNER, 0], [LEARNER] * 3])
    batch.set_seats(np.arange(3), codes)
    batch.reset(seed=5)
    np.testing.assert_array_equal(batch.codes, codes)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(3000):
        for i in range(3):
            assert batch.codes[i, batch.actor[i]] in (LEARNER, EXTERNAL)
            seen.add((i, int(batch.codes[i, batch.actor[i]])))
        batch.step(random_actions(batch, rng))
    assert {(0, LEARNER), (1, EXTERNAL), (1, LEARNER)} <= seen
    assert (0, EXTERNAL) not in seen


def test_seeds_reproduce_whatever_the_threads() -> None:
    def play(threads: int, seed: int) -> list[np.ndarray]:
        batch = SelfPlayBatch(8, num_players=2, shaping=0.5, threads=threads)
        batch.set_seats(
            np.arange(8), np.array([[LEARNER, seat_code("random")]] * 4 + [[LEARNER] * 2] * 4)
        )
        batch.reset(seed=seed)
        rng = np.random.default_rng(3)
        out = []
        for _ in range(300):
            batch.step(random_actions(batch, rng))
            out.append(np.concatenate([batch.obs.ravel(), batch.rewards.ravel()]))
        return out

    a, b = play(1, 7), play(3, 7)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = play(1, 8)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_observe_all_gives_every_seats_view() -> None:
    batch = SelfPlayBatch(2, num_players=3)
    batch.reset(seed=0)
    views = batch.observe_all()
    assert views.shape == (2, 3, batch.observation_size) and views.dtype == np.float32
    for i in range(2):
        state = batch.state(i)
        for p in range(3):
            np.testing.assert_array_equal(views[i, p], state.observation_tensor(p))


def test_bad_input_gives_one_clear_error_and_changes_nothing() -> None:
    batch = SelfPlayBatch(2, num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(2, dtype=np.int64))
    batch.reset(seed=0)
    before = {k: v.copy() for k, v in batch.buffers.items()}
    illegal = np.array([int(np.flatnonzero(~batch.mask[0])[0]), 0])
    with pytest.raises(ValueError, match="not legal"):
        batch.step(illegal)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="integer"):
        batch.step(np.zeros(2, dtype=np.float32))
    with pytest.raises(ValueError, match="built-in policy"):
        batch.set_seats(np.arange(2), np.array([[LEARNER, 99], [LEARNER, LEARNER]]))
    with pytest.raises(ValueError, match="at least one"):
        batch.set_seats(np.arange(1), np.array([[0, 0]]))
    with pytest.raises(ValueError, match="not an env"):
        batch.set_seats(np.array([5]), np.array([[LEARNER, LEARNER]]))
    for k, v in before.items():
        np.testing.assert_array_equal(batch.buffers[k], v)
    with pytest.raises(ConfigError, match="seed"):
        batch.reset(seed=-1)
    with pytest.raises(ConfigError, match="reward"):
        SelfPlayBatch(1, reward="points")
    with pytest.raises(ValueError, match="num_envs"):
        SelfPlayBatch(0)
    with pytest.raises(ValueError, match="threads"):
        SelfPlayBatch(1, threads=0)
    with pytest.raises(ConfigError, match=r"nobody"):
        seat_code("nobody")


def test_bad_buffers_are_refused_by_the_core() -> None:
    """The binding checks every buffer (dtype, shape, contiguity, writeability) before the
    GIL is released; a wrong one is a ValueError naming it, nothing written."""
    from fort_env.native import backend

    core = backend.require()
    game = FortGame(2)
    sp = core.SelfPlay(backend.core_game(game), 2)
    good = sp.buffers()
    ids, seeds = np.arange(2), np.array([1, 2])
    bad_cases = {
        "obs": np.zeros((2, sp.observation_size), np.float64),
        "mask": np.zeros((2, sp.num_actions + 1), bool),
        "rewards": np.zeros((2, 3), np.float32),
        "codes": np.zeros((2, 2), np.int8)[:, ::-1],
        "done": np.zeros(2, bool)[::1].copy(),
    }
    bad_cases["done"].setflags(write=False)
    for name, array in bad_cases.items():
        out = dict(good, **{name: array})
        with pytest.raises(ValueError, match=name):
            sp.reset(ids, seeds, out)
    missing = {k: v for k, v in good.items() if k != "end_info"}
    with pytest.raises(ValueError, match="end_info"):
        sp.reset(ids, seeds, missing)
    with pytest.raises(TypeError):
        sp.reset(ids, seeds, [1, 2])
    obs = np.zeros((2, 2, sp.observation_size), np.float32)
    with pytest.raises(ValueError, match="no game"):
        sp.observe(ids, obs)
    sp.reset(ids, seeds, good)
    with pytest.raises(ValueError, match="obs"):
        sp.observe(ids, np.zeros((2, 3, sp.observation_size), np.float32))
