"""Issue 42, round three: the smaller findings, each reproduced and now a clear error (or correct).

- An agent spec's ``seed=abc`` (or ``1.5``, on ``random``, ``builder``, ``ismcts``, ``puct``)
  ended in numpy's ``TypeError``: now a ``ConfigError`` naming the agent and the argument, and
  one ``error:`` line from ``fort-env tournament``.
- ``shaping=1e308`` (or ``inf``, ``nan``) was accepted and rewards became ``inf``: every env
  that takes a shaping weight refuses a non-finite one or one over ``MAX_SHAPING``.
- ``fort-env replay`` printed a record's illegal action as if it had been played, then the
  error: now only the error.
- Threads stepping one ``make_vec(..., "vector_entry_point")`` env got a ``KeyError`` from
  inside it: the env serialises the calls, and the games stay consistent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from typer.testing import CliRunner

import agents
import fort_env
from fort_env.envs.aec import MAX_SHAPING
from fort_env.envs.registration import GYM_ID
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.game.errors import ConfigError
from fort_env.records import make_record, save_record
from fort_env.tools.cli import app

needs_core = pytest.mark.skipif(
    not fort_env.native.backend.available(), reason="needs the compiled core"
)


# ------------------------------------------------------------------- agent spec seeds
@pytest.mark.parametrize("name", ["random", "builder", "ismcts", "puct", "heuristic", "greedy"])
@pytest.mark.parametrize("value", ["abc", "1.5", "-1", str(2**62), "1e3", ""])
def test_a_bad_seed_argument_names_the_agent_and_the_argument(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=r"argument seed=.* is not a seed") as err:
        agents.make(f"{name}:seed={value}")
    text = str(err.value)
    assert f"agent {name!r}" in text or (name == "heuristic" and "agent 'builder'" in text)
    assert f"seed={value!r}" in text and "[0, 2**62)" in text
    assert "\n" not in text


def test_a_good_seed_argument_still_seeds_the_agent() -> None:
    from agents.bots.random_agent import RandomAgent

    assert isinstance(agents.make("random:seed=7"), RandomAgent)
    agents.make("builder:seed=0")
    agents.make(f"random:seed={2**62 - 1}")


@pytest.mark.parametrize("value", ["abc", "1.5"])
def test_the_tournament_command_prints_one_error_line(value: str) -> None:
    spec = f"random:seed={value}"
    result = CliRunner().invoke(app, ["tournament", "--agents", f"{spec},random", "--games", "1"])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    text = result.stderr if result.stderr else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: --agents {spec}: agent 'random': argument seed="), lines
    assert "Traceback" not in result.output and "TypeError" not in result.output


# ------------------------------------------------------------------- shaping
def _vector(**kwargs: Any) -> Any:
    from fort_env.envs.vector import FortBatchVecEnv

    return FortBatchVecEnv(2, **kwargs)


def _gym_vector(**kwargs: Any) -> Any:
    return gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point", **kwargs)


def _self_play(**kwargs: Any) -> Any:
    from fort_env.envs.self_play import SelfPlayBatch

    return SelfPlayBatch(2, **kwargs)


ENVS: dict[str, Callable[..., Any]] = {
    "SingleAgentEnv": SingleAgentEnv,
    "gymnasium.make": lambda **kw: gymnasium.make(GYM_ID, **kw),
    "FortBatchVecEnv": _vector,
    "make_vec": _gym_vector,
    "SelfPlayBatch": _self_play,
}
CPP_ENVS = ("FortBatchVecEnv", "make_vec", "SelfPlayBatch")


@pytest.mark.parametrize(
    "shaping",
    [1e308, float("inf"), float("-inf"), float("nan"), MAX_SHAPING + 1, -1e4, True, "0.5"],
    ids=str,
)
@pytest.mark.parametrize("kind", sorted(ENVS))
def test_a_non_finite_or_huge_shaping_is_refused(kind: str, shaping: Any) -> None:
    if kind in CPP_ENVS and not fort_env.native.backend.available():
        pytest.skip("needs the compiled core")
    if kind in ("FortBatchVecEnv", "make_vec"):
        pytest.importorskip("stable_baselines3")
    with pytest.raises(ConfigError, match=r"shaping must be a finite number in \[-1000, 1000\]"):
        ENVS[kind](shaping=shaping)


def test_the_bound_is_allowed_and_rewards_stay_finite() -> None:
    assert MAX_SHAPING == 1000.0
    for shaping in (MAX_SHAPING, -MAX_SHAPING):
        env = SingleAgentEnv(num_players=2, shaping=shaping)
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(400):
            mask = env.action_masks()
            _, reward, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert np.isfinite(reward)
            if terminated:
                break


# ------------------------------------------------------------------- replay of an illegal action
def test_replay_prints_the_error_not_the_refused_action(tmp_path: Path) -> None:
    game = fort_env.FortGame(2)
    state = game.new_initial_state(seed=3)
    actions = []
    for _ in range(12):
        action = int(state.legal_actions()[0])
        actions.append(action)
        state.apply_action(action)
    bad_at = 7
    replayed = game.new_initial_state(seed=3)
    for action in actions[:bad_at]:
        replayed.apply_action(action)
    mask = replayed.legal_actions_mask()
    illegal = int(np.flatnonzero(~mask)[0])  # in range, but not legal here
    actions[bad_at] = illegal
    path = tmp_path / "game.json"
    save_record(make_record({"num_players": 2, "setup": "basic", "cards": None}, 3, actions), path)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1, result.output
    printed = [line for line in result.output.splitlines() if line.strip()]
    decisions = [line for line in printed if line[:5].strip().isdigit()]
    assert [int(line[:5]) for line in decisions] == list(range(bad_at)), decisions
    assert not any(line.startswith(f"{bad_at:5d}  ") for line in printed), printed
    errors = [line for line in printed if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: FILE: "), printed
    assert f"actions[{bad_at}] = {illegal} does not replay" in errors[0]
    assert printed[-1] == errors[0]  # nothing printed after the error either


def test_replay_of_a_good_record_still_prints_every_decision(tmp_path: Path) -> None:
    game = fort_env.FortGame(2)
    state = game.new_initial_state(seed=5)
    actions = []
    for _ in range(10):
        action = int(state.legal_actions()[-1])
        actions.append(action)
        state.apply_action(action)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(make_record({"num_players": 2, "setup": "basic"}, 5, actions)))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    decisions = [line for line in result.output.splitlines() if line[:5].strip().isdigit()]
    assert [int(line[:5]) for line in decisions] == list(range(10))
    assert "chosen by the client" not in result.output
    # a record of fort-env serve whose seed the client chose says so
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "seed_chosen_by_client": True}))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "The seed was chosen by the client" in result.output


# ------------------------------------------------------------------- threads on the vector env
THREADS = 4
STEPS = 40


def _illegal_actions(masks: np.ndarray) -> np.ndarray:
    """An action each mask does not allow (every game ends: the next one is dealt)."""
    return np.argmin(masks, axis=1).astype(np.int64)


def _reference_seeds(make: Callable[[], Any], games: int, seed: int) -> list[list[int]]:
    """Env i's first ``games`` game seeds, ended one per step by illegal actions: a game's
    seed depends only on the env's seed and the game's index, not on the actions."""
    env = make()
    _, infos = env.reset(seed=seed)
    seeds = [[int(s)] for s in infos["game_seed"]]
    for _ in range(games - 1):
        _, _, terminations, _, infos = env.step(_illegal_actions(env.action_masks()))
        assert terminations.all()
        for i, s in enumerate(infos["game_seed"]):
            seeds[i].append(int(s))
    env.close()
    return seeds


def _step_from_threads(env: Any, step: Callable[[np.ndarray], Any]) -> list[Any]:
    from fort_env.envs.vector import random_legal_actions

    results: list[Any] = []
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(k: int) -> None:
        rng = np.random.default_rng(k)
        start.wait()
        try:
            for _ in range(STEPS):
                # another thread may step between these two calls: the actions may then be
                # illegal in the games as they are, which ends those games (not an error)
                actions = random_legal_actions(env.action_masks(), rng)
                results.append(step(actions))
        except BaseException as exc:  # the finding: KeyError (or RuntimeError) from inside
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert not any(w.is_alive() for w in workers), "a thread is stuck"
    assert errors == [], [repr(e) for e in errors]
    assert len(results) == THREADS * STEPS
    return results


@needs_core
def test_threads_stepping_one_make_vec_env_are_serialised() -> None:
    pytest.importorskip("stable_baselines3")
    num_envs = 4

    def make() -> Any:
        return gymnasium.make_vec(
            GYM_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", num_players=2
        )

    env = make()
    _, infos = env.reset(seed=11)
    seen = [{int(s)} for s in infos["game_seed"]]
    ended = np.zeros(num_envs, dtype=int)
    size = env.single_observation_space.shape[0]
    for obs, rewards, terminations, truncations, infos in _step_from_threads(env, env.step):
        # each step's results are its own, whole: shapes, finite values, live masks
        assert obs.shape == (num_envs, size) and np.isfinite(obs).all()
        assert np.isfinite(rewards).all() and not truncations.any()
        assert infos["action_mask"].any(axis=1).all()
        if terminations.any():
            assert (infos["_final_obs"] == terminations).all()
        ended += terminations
        for i, s in enumerate(infos["game_seed"]):
            seen[i].add(int(s))
    env.close()
    # every ended game was replaced by exactly the env's next game: the games seen are the
    # first ones of the env's seed sequence, one more than the games that ended
    reference = _reference_seeds(make, int(ended.max()) + 2, seed=11)
    for i in range(num_envs):
        assert len(seen[i]) == ended[i] + 1, (i, len(seen[i]), ended[i])
        assert seen[i] == set(reference[i][: len(seen[i])]), i


@needs_core
def test_threads_stepping_one_batch_vec_env_are_serialised() -> None:
    pytest.importorskip("stable_baselines3")
    from fort_env.envs.vector import FortBatchVecEnv

    env = FortBatchVecEnv(3, seed=5, num_players=3)
    env.reset()
    seen = [{int(s)} for s in env.get_attr("_buf")[0]["game_seed"]]
    ended = np.zeros(3, dtype=int)
    for obs, rewards, dones, infos in _step_from_threads(env, env.step):
        assert obs.shape[0] == 3 and np.isfinite(obs).all() and np.isfinite(rewards).all()
        ended += dones
        for i, info in enumerate(infos):
            seen[i].add(int(info["game_seed"]))  # of an ended game, where dones[i]
            if dones[i]:
                assert "terminal_observation" in info
    for i, s in enumerate(env.get_attr("_buf")[0]["game_seed"]):
        seen[i].add(int(s))  # the games in play now
    for i in range(3):
        assert len(seen[i]) == ended[i] + 1, (i, len(seen[i]), ended[i])
