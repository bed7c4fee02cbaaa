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
