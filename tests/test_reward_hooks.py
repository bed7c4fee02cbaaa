"""Per-seat scores in the vector envs' final infos and batched reward functions on the C++
fast path (issue 38, item 4; ``fort_env/envs/reward_hooks.py``)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from fort_env.native import backend as cpp_backend

if not cpp_backend.available():  # pragma: no cover
    pytest.skip("compiled core not built", allow_module_level=True)

from fort_env.envs.registration import GYM_ID
from fort_env.envs.reward_hooks import StepEvents, final_margin_bonus
from fort_env.envs.self_play import SelfPlayBatch
from fort_env.envs.vector import FortBatchVecEnv, random_legal_actions
from fort_env.game.errors import ConfigError


def _play(env: FortBatchVecEnv, games: int, seed: int = 0) -> list[tuple[np.ndarray, dict]]:
    """Step with random legal actions until ``games`` episodes ended: (rewards, info) each."""
    rng = np.random.default_rng(seed)
    env.reset()
    ended: list[tuple[np.ndarray, dict]] = []
    while len(ended) < games:
        _, rewards, dones, infos = env.step(random_legal_actions(env.action_masks(), rng))
        ended += [(rewards[i], infos[i]) for i in np.flatnonzero(dones)]
    return ended


@pytest.mark.parametrize("n", [2, 3, 4])
def test_final_info_has_every_seats_score_as_the_state_scores_it(n: int) -> None:
    """The batch's end_scores equal FortState.score_breakdown() of the ended game: replayed
    from its seed with the same actions would be costly, so checked against the winners, the
    totals' sum and the won flag, and (below) against the Python path's own final info."""
    env = FortBatchVecEnv(8, seed=3, num_players=n)
    for _, info in _play(env, 12):
        if info.get("illegal_action"):
            continue
        rows, scores = info["score_breakdown"], info["scores"]
        assert len(rows) == n and scores == [r["total"] for r in rows]
        for r in rows:
            assert r["total"] == r["track"] + r["fort_level"] + r["made_up_rule"] + r["macaroni"]
        best = max(scores)
        assert all(scores[w] == best for w in info["winners"])
        assert info["won"] == (info["seat"] in info["winners"])


def test_the_python_single_agent_path_reports_the_same_keys() -> None:
    env = gymnasium.make(GYM_ID, num_players=3)
    _, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    while True:
        mask = info["action_mask"]
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated:
            break
    state = env.unwrapped.state
    assert info["score_breakdown"] == state.score_breakdown()
    assert info["scores"] == [r["total"] for r in state.score_breakdown()]


def test_self_play_batch_writes_end_scores() -> None:
    sp = SelfPlayBatch(4, num_players=3)
    sp.reset(seed=1)
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 6:
        sp.step(random_legal_actions(sp.mask, rng))
        for i in np.flatnonzero(sp.done):
            block = sp.end_scores[i]
            assert (block[3] == 0).all()  # rows past n are zeros
            totals = block[:3, 4]
            assert (totals == block[:3, :4].sum(axis=1)).all()
            winners = [p for p in range(3) if sp.end_info[i, 1] >> p & 1]
            assert winners and all(totals[w] == totals.max() for w in winners)
            checked += 1


def test_gym_vector_final_info_carries_scores() -> None:
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=4, vectorization_mode="vector_entry_point", num_players=2
    )
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        _, _, term, _, infos = envs.step(random_legal_actions(infos["action_mask"], rng))
        if term.any():
            i = int(np.flatnonzero(term)[0])
            final = infos["final_info"]
            scores = final["scores"][i]
            assert len(scores) == 2 and len(final["score_breakdown"][i]) == 2
            break
    else:
        pytest.fail("no game ended")
    envs.close()


def test_a_reward_function_replaces_the_rewards_on_the_fast_path() -> None:
    seen: list[StepEvents] = []

    def fn(ev: StepEvents) -> np.ndarray:
        seen.append(ev)
        return final_margin_bonus(0.5)(ev)

    plain = _play(FortBatchVecEnv(6, seed=11, num_players=2), 10)
    hooked = _play(FortBatchVecEnv(6, seed=11, num_players=2, reward_fn=fn), 10)
    assert seen and all(ev.done.shape == (6,) and ev.end_scores.shape == (6, 4, 6) for ev in seen)
    assert not seen[0].reward.flags.writeable  # the events are read-only views
    for (r0, info0), (r1, info1) in zip(plain, hooked, strict=True):
        assert info0["game_seed"] == info1["game_seed"]  # same games, same actions
        if info0.get("illegal_action"):
            continue
        scores, seat = info0["scores"], info0["seat"]
        margin = scores[seat] - max(s for p, s in enumerate(scores) if p != seat)
        assert r1 == pytest.approx(r0 + 0.5 * margin, abs=1e-5)


@pytest.mark.parametrize(
    ("fn", "words"),
    [
        (lambda ev: np.zeros(3), "shape"),
        (lambda ev: np.full(4, np.inf), "non-finite"),
        (lambda ev: "a", "4 numbers"),
    ],
)
def test_a_bad_reward_function_is_one_clear_error(fn, words: str) -> None:  # type: ignore[no-untyped-def]
    env = FortBatchVecEnv(4, seed=0, reward_fn=fn)
    env.reset()
    with pytest.raises(ConfigError, match=words):
        env.step(random_legal_actions(env.action_masks(), np.random.default_rng(0)))
    with pytest.raises(ConfigError, match="callable"):
        FortBatchVecEnv(4, reward_fn=3)  # type: ignore[arg-type]


def test_the_documented_example_runs() -> None:
    """docs/integrations.md's reward-hook example runs as written."""
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
    section = doc.read_text(encoding="utf-8").split("A reward of your own stays on", 1)
    assert len(section) == 2, "docs/integrations.md no longer shows a reward of your own"
    block = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert block
    scope: dict[str, object] = {"FortBatchVecEnv": FortBatchVecEnv}
    exec(compile(block.group(1), "docs/integrations.md", "exec"), scope)
    venv = scope["venv"]
    assert isinstance(venv, FortBatchVecEnv) and venv.reward_fn is scope["margin_bonus"]
    assert _play(venv, 2)


# ---------------------------------------------------------------------- hooks that misbehave
def _vector_env(reward_fn) -> gymnasium.vector.VectorEnv:  # type: ignore[no-untyped-def]
    return gymnasium.make_vec(
        GYM_ID, num_envs=3, vectorization_mode="vector_entry_point", num_players=2,
        reward_fn=reward_fn,
    )  # fmt: skip


def _in_thread(call, seconds: float = 60.0):  # type: ignore[no-untyped-def]
    """``call()`` in a daemon thread; its result, or a failure if it does not end in time (a
    deadlock must fail the test, not hang the run)."""
    import threading

    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["result"] = call()
        except BaseException as e:  # re-raised below, in the test's thread
            out["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the call did not return in {seconds} s (a deadlock)")
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["result"]


def test_a_reward_fn_may_read_the_env_it_is_called_from() -> None:
    """FortVectorEnv's lock was not reentrant: a reward_fn calling envs.action_masks()
    deadlocked the step. It reads the masks of the games the step leads to."""
    seen: list[np.ndarray] = []
    holder: dict[str, object] = {}

    def fn(ev: StepEvents) -> np.ndarray:
        seen.append(holder["envs"].action_masks())  # type: ignore[attr-defined]
        return ev.reward

    envs = _vector_env(fn)
    holder["envs"] = envs
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        actions = random_legal_actions(infos["action_mask"], rng)
        _, _, _, _, infos = _in_thread(lambda a=actions: envs.step(a), seconds=20)
        assert np.array_equal(seen[-1], infos["action_mask"])
    envs.close()
    batch = FortBatchVecEnv(2, seed=1, reward_fn=lambda ev: (batch.action_masks(), ev.reward)[1])
    batch.reset()
    _in_thread(lambda: batch.step(random_legal_actions(batch.action_masks(), rng)))


@pytest.mark.parametrize("call", ["step", "reset", "close"])
def test_a_reward_fn_cannot_step_or_reset_the_env_it_is_called_from(call: str) -> None:
    holder: dict[str, object] = {"call": call}

    def fn(ev: StepEvents) -> np.ndarray:
        envs, what = holder["envs"], holder["call"]
        if what == "step":
            envs.step(np.zeros(3, dtype=np.int64))  # type: ignore[attr-defined]
        elif what is not None:
            getattr(envs, str(what))()
        return ev.reward

    envs = _vector_env(fn)
    holder["envs"] = envs
    _, infos = envs.reset(seed=0)
    actions = random_legal_actions(infos["action_mask"], np.random.default_rng(0))
    with pytest.raises(RuntimeError, match=rf"{call}\(\) cannot be called from inside reward_fn"):
        _in_thread(lambda: envs.step(actions), seconds=20)
    # the env is whole: the step that raised is kept, and the next one plays on from it
    kept = envs.unwrapped.failed_step
    assert kept is not None
    holder["call"] = None
    envs.step(random_legal_actions(kept[4]["action_mask"], np.random.default_rng(1)))
    assert envs.unwrapped.failed_step is None


@pytest.mark.parametrize("value", [1e39, -1e39, np.float64(3.5e38)])
def test_rewards_past_float32_are_refused_not_made_infinite(value: float) -> None:
    """They were checked in float64, then cast to float32: infinities reached the learner."""
    env = FortBatchVecEnv(2, seed=0, reward_fn=lambda ev: np.full(2, value))
    env.reset()
    with pytest.raises(ConfigError, match=r"non-finite reward for env 0.*float32"):
        env.step(random_legal_actions(env.action_masks(), np.random.default_rng(0)))
    near = FortBatchVecEnv(2, seed=0, reward_fn=lambda ev: np.full(2, 3.0e38))
    near.reset()
    _, rewards, _, _ = near.step(
        random_legal_actions(near.action_masks(), np.random.default_rng(0))
    )
    assert rewards.dtype == np.float32 and np.isfinite(rewards).all()


@pytest.mark.parametrize(
    "result",
    [
        np.ones(2, dtype=complex),
        [1 + 0j, 2 + 0j],
        ["1.5", "2"],
        np.array(["1", "2"]),
        [None, 1.0],
        [object(), object()],
    ],
    ids=["complex-array", "complex-list", "str-list", "str-array", "none", "objects"],
)
def test_rewards_that_are_not_real_numbers_are_refused(result: object) -> None:
    env = FortBatchVecEnv(2, seed=0, reward_fn=lambda ev: result)
    env.reset()
    with pytest.raises(ConfigError, match=r"reward_fn must return 2 numbers \(real"):
        env.step(random_legal_actions(env.action_masks(), np.random.default_rng(0)))


def test_real_numbers_of_any_dtype_are_rewards() -> None:
    for result in (
        [1, 0],
        [True, False],
        np.array([1, 2], dtype=np.uint8),
        np.zeros(2, np.float16),
    ):
        env = FortBatchVecEnv(2, seed=0, reward_fn=lambda ev, r=result: r)
        env.reset()
        _, rewards, _, _ = env.step(
            random_legal_actions(env.action_masks(), np.random.default_rng(0))
        )
        assert rewards.dtype == np.float32
        np.testing.assert_array_equal(rewards, np.asarray(result, dtype=np.float32))


class Boom(Exception):
    pass


def test_a_raising_reward_fn_loses_no_transition() -> None:
    """The games advance in the step before reward_fn runs: when it raises, the step's
    observations, dones, infos (the ended games' last observations) and built-in rewards are
    kept in failed_step, equal to what a twin env without the hook returned, and the env plays
    on from them as the twin does."""

    def fn(ev: StepEvents) -> np.ndarray:
        if ev.done.any():
            raise Boom("the hook failed")
        return ev.reward

    hooked = FortBatchVecEnv(4, seed=5, num_players=2, reward_fn=fn)
    twin = FortBatchVecEnv(4, seed=5, num_players=2)
    rng = np.random.default_rng(2)
    obs, twin_obs = hooked.reset(), twin.reset()
    raised = 0
    for _ in range(400):
        np.testing.assert_array_equal(obs, twin_obs)
        actions = random_legal_actions(twin.action_masks(), rng)
        expected = twin.step(actions)
        try:
            got = hooked.step(actions)
            assert hooked.failed_step is None
        except Boom as e:
            assert "failed_step" in "".join(e.__notes__)
            got = hooked.failed_step
            assert got is not None and expected[2].any()
            raised += 1
        for a, b in zip(got[:3], expected[:3], strict=True):
            np.testing.assert_array_equal(a, b)
        for info, twin_info in zip(got[3], expected[3], strict=True):
            assert info.keys() == twin_info.keys()
            if "terminal_observation" in info:
                np.testing.assert_array_equal(
                    info["terminal_observation"], twin_info["terminal_observation"]
                )
                assert info.get("scores") == twin_info.get("scores")
        obs, twin_obs = got[0], expected[0]
        if raised >= 3:
            break
    assert raised >= 3


def test_the_gymnasium_vector_env_keeps_a_failed_step_in_its_own_form() -> None:
    def fn(ev: StepEvents) -> np.ndarray:
        if ev.done.any():
            raise Boom("the hook failed")
        return ev.reward

    envs = _vector_env(fn)
    twin = _vector_env(None)
    _, infos = envs.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        actions = random_legal_actions(infos["action_mask"], rng)
        expected = twin.step(actions)
        try:
            got = envs.step(actions)
        except Boom:
            got = envs.unwrapped.failed_step
            assert got is not None
            np.testing.assert_array_equal(got[0], expected[0])
            np.testing.assert_array_equal(got[1], expected[1])
            np.testing.assert_array_equal(got[2], expected[2])
            ended = int(np.flatnonzero(got[2])[0])
            np.testing.assert_array_equal(
                got[4]["final_obs"][ended], expected[4]["final_obs"][ended]
            )
            break
        infos = got[4]
    else:
        pytest.fail("no game ended")
