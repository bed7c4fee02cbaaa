"""An agent spec string works wherever an env takes an agent object (``opponents="ppo"`` in
``gymnasium.make``/``make_vec`` and ``FortBatchVecEnv``), through the registry ``agents``
registers with ``fort_env.envs.opponent_specs``: the same games as the object, one agent per
spec, the built-in policies still played inside C++, one clear error otherwise."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("torch")  # the ppo agent

import agents
import fort_env  # noqa: F401  (registers fort_env/Fort-v0)
from fort_env.envs import opponent_specs
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.envs.vector import FortBatchVecEnv, random_legal_actions
from fort_env.game.errors import ConfigError
from fort_env.native import backend as cpp_backend

needs_core = pytest.mark.skipif(not cpp_backend.available(), reason="needs the compiled core")


def trajectory(env: Any, steps: int, seed: int = 3) -> list[np.ndarray]:
    """Observations of a vector env stepped with seeded random legal actions."""
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = [obs]
    for _ in range(steps):
        obs, *_, infos = env.step(random_legal_actions(infos["action_mask"], rng))
        seen.append(obs)
    return seen


@needs_core
def test_make_vec_plays_a_spec_as_the_agent_it_names() -> None:
    """``make_vec(..., opponents="ppo")`` deals and plays the same games as
    ``opponents=agents.make("ppo")`` (the zoo's policy, deterministic, called from Python)."""

    def make(opponents: Any) -> Any:
        return gymnasium.make_vec("fort_env/Fort-v0", num_envs=3, opponents=opponents,
                                  vectorization_mode="vector_entry_point")  # fmt: skip

    by_spec = trajectory(make("ppo"), 40)
    by_object = trajectory(make(agents.make("ppo")), 40)
    assert len(by_spec) == len(by_object) == 41
    for a, b in zip(by_spec, by_object, strict=True):
        np.testing.assert_array_equal(a, b)
    against_random = trajectory(make("random"), 40)
    assert any(not np.array_equal(a, b) for a, b in zip(by_spec, against_random, strict=True))


@needs_core
def test_the_batch_builds_specs_once_and_keeps_built_in_names() -> None:
    venv = FortBatchVecEnv(2, seed=0, num_players=3, opponents=["ppo", "ppo"])
    ppo, again = venv._default
    assert ppo is again and ppo.name == "ppo" and callable(ppo.act)
    venv.set_opponents("ppo")
    assert venv._default == [ppo, ppo]  # the env keeps the agent it built for the spec
    venv.set_opponents(["builder", "random"])  # played inside C++: names stay names
    assert venv._default == ["builder", "random"]
    venv.set_opponent_sampler(lambda rng, n: ["ppo", "heuristic"])  # a sampler's specs too
    venv.reset()
    rng = np.random.default_rng(0)
    names: list[list[str]] = []
    while not names:
        _, _, dones, infos = venv.step(random_legal_actions(venv.action_masks(), rng))
        names += [infos[i]["opponents"] for i in np.flatnonzero(dones)]
    assert names[0] in (["ppo", "heuristic"], ["builder", "random"])
    assert venv._built["ppo"] is ppo  # built once, whatever the draws


def test_single_agent_env_takes_specs_too() -> None:
    env = gymnasium.make("fort_env/Fort-v0", num_players=3, opponents=["random", "greedy"])
    env.reset(seed=0)
    uniform, greedy = env.unwrapped.opponents
    assert uniform.name == "random" and greedy.name == "greedy"
    assert type(greedy) is type(agents.make("greedy"))
    plain = SingleAgentEnv(num_players=2, opponents="random")  # needs no registry
    assert plain.opponents[0].name == "random"


def test_an_unknown_spec_names_it_and_the_known_agents() -> None:
    with pytest.raises(ConfigError, match=r"opponent 'herustic': unknown agent 'herustic'"):
        SingleAgentEnv(num_players=2, opponents="herustic")
    with pytest.raises(ConfigError, match=r"opponent 'ppo:players=9'"):
        SingleAgentEnv(num_players=2, opponents="ppo:players=9")


def test_without_a_registry_the_error_says_what_to_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """No resolver registered and no entry point that registers one: one ConfigError naming
    the spec, the env's own policies, and the object to pass instead."""
    import importlib.metadata

    monkeypatch.setattr(opponent_specs, "_resolver", None)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: [])
    with pytest.raises(ConfigError) as caught:
        SingleAgentEnv(num_players=2, opponents="ppo")
    message = str(caught.value)
    assert "opponent 'ppo'" in message and "import agents" in message
    assert "opponents=agents.make('ppo')" in message


def test_an_entry_point_registers_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing registered, the entry points of ``fort_env.agent_specs`` are loaded (the
    way ``import agents`` happens for a user who never imported it); a broken one is skipped."""
    import importlib.metadata

    built: list[str] = []

    class Plugin:
        def __init__(self, fn: Any) -> None:
            self.fn = fn

        def load(self) -> None:
            self.fn()

    def broken() -> None:
        raise ImportError("an extra that is not installed")

    def registers() -> None:
        opponent_specs.register_spec_resolver(lambda spec: built.append(spec) or agents.make(spec))

    def entry_points(group: str) -> list[Plugin]:
        assert group == opponent_specs.ENTRY_POINT_GROUP
        return [Plugin(broken), Plugin(registers)]

    monkeypatch.setattr(opponent_specs, "_resolver", None)
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    env = SingleAgentEnv(num_players=2, opponents="scorer")
    assert built == ["scorer"] and env.opponents[0].name == "scorer"
