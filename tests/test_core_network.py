"""The network on the compiled core (agents/learned/core_network.py, cpp/src/bots/network.cc):
its forward pass equals torch's within 1e-4 on 10,000 observations of random games, for every
architecture the trainer writes, and bad tensors are refused with one error naming them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch

from agents.learned.core_network import core_network, network_from_policy
from agents.learned.network import ActorCritic
from agents.learned.ppo import policy_logits, policy_values
from fort_env import FortGame
from fort_env.game.errors import ModelFileError
from fort_env.native import backend

pytestmark = pytest.mark.skipif(not backend.available(), reason="needs the compiled core")

TOLERANCE = 1e-4
OBSERVATIONS = 10_000


@pytest.fixture(scope="module")
def observations() -> np.ndarray:
    """10,000 observations float32 (of the acting seat) from random 2-4-player games."""
    rng = np.random.default_rng(20261127)
    rows: list[np.ndarray] = []
    seed = 0
    while len(rows) < OBSERVATIONS:
        state = FortGame(2 + seed % 3).new_initial_state(seed)
        seed += 1
        while not state.is_terminal() and len(rows) < OBSERVATIONS:
            rows.append(state.observation_tensor(state.current_player()))
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return np.asarray(rows, dtype=np.float32)


def _randomise(module: Any, seed: int) -> Any:
    """Weights of trained magnitude (the fresh heads' 0.01 gain would hide a wrong product)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * (1.0 / max(1, p.shape[-1]) ** 0.5))
    return module.train(False)


def _maskable(net_arch: list[int], activation: str, seed: int) -> Any:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from fort_env.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(num_players=2)
    policy = MaskableActorCriticPolicy(
        env.observation_space,
        env.action_space,
        lr_schedule=lambda _: 0.0,
        net_arch={"pi": net_arch, "vf": net_arch[:1]},
        activation_fn=getattr(torch.nn, activation),
    )
    return _randomise(policy, seed)


def _architectures() -> dict[str, Any]:
    game = FortGame(2)
    d, n = game.observation_size, game.num_distinct_actions
    return {
        "ActorCritic ReLU (64,)": _randomise(ActorCritic(d, n, (64,)), 1),
        "ActorCritic ReLU (128, 64)": _randomise(ActorCritic(d, n, (128, 64)), 2),
        "ActorCritic Tanh (64, 32)": _randomise(ActorCritic(d, n, (64, 32), "Tanh"), 3),
        "MaskablePPO Tanh pi (64, 64) vf (64,)": _maskable([64, 64], "Tanh", 4),
        "MaskablePPO ReLU pi (32,) vf (32,)": _maskable([32], "ReLU", 5),
    }


def _assert_same(core_net: Any, policy: Any, obs: np.ndarray) -> None:
    logits, values = core_net.forward(obs)
    with torch.no_grad():
        x = torch.as_tensor(obs)
        want_logits = policy_logits(policy, x).numpy()
        want_values = policy_values(policy, x).numpy()
    assert logits.shape == want_logits.shape and logits.dtype == np.float32
    assert values.shape == want_values.shape and values.dtype == np.float32
    np.testing.assert_allclose(logits, want_logits, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(values, want_values, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", list(_architectures()))
def test_forward_equals_torch_for_every_architecture(name: str, observations: np.ndarray) -> None:
    policy = _architectures()[name]
    _assert_same(network_from_policy(policy), policy, observations)


def test_the_shipped_models_on_the_core_equal_torch(observations: np.ndarray) -> None:
    from agents.learned.ppo import load_policy
    from agents.learned.zoo import shipped_model

    for players in (2, 3, 4):
        path = shipped_model(players)
        _assert_same(core_network(path), load_policy(path), observations[:2_000])


def test_a_batch_of_one_equals_the_batch(observations: np.ndarray) -> None:
    net = network_from_policy(_architectures()["ActorCritic ReLU (128, 64)"])
    logits, values = net.forward(observations[:50])
    for i in range(0, 50, 7):
        one_logits, one_values = net.forward(observations[i : i + 1])
        np.testing.assert_array_equal(one_logits[0], logits[i])
        np.testing.assert_array_equal(one_values[0], values[i])
    empty_logits, empty_values = net.forward(observations[:0])
    assert empty_logits.shape == (0, net.num_actions) and empty_values.shape == (0,)


def _layers(*shapes: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.zeros(s, np.float32), np.zeros(s[0], np.float32)) for s in shapes]


def test_bad_tensors_are_refused_with_one_error() -> None:
    core = backend.require()
    ok = {
        "trunk": _layers((8, 5)),
        "policy_tower": [],
        "value_tower": [],
        "policy_head": _layers((3, 8))[0],
        "value_head": _layers((1, 8))[0],
    }
    net = core.PolicyValueNet(5, 3, "ReLU", **ok)
    assert (net.observation_size, net.num_actions) == (5, 3)
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"trunk": _layers((8, 6))}, ValueError, "trunk layer 0 reads 6 inputs, but 5 come"),
        ({"policy_head": _layers((4, 8))[0]}, ValueError, r"policy head is \(4, 8\), expected"),
        ({"value_head": _layers((2, 8))[0]}, ValueError, r"value head is \(2, 8\)"),
        (
            {"trunk": [(np.zeros((8, 5)), np.zeros(8, np.float32))]},
            ValueError,
            "trunk\\[0\\] weight must be a 2-d float32 array, got a 2-d float64",
        ),
        ({"trunk": [(np.zeros((8, 5), np.float32),)]}, TypeError, "weight, bias"),
        ({"trunk": "x"}, TypeError, "trunk must be a list"),
        (
            {"trunk": [(np.zeros((8, 5), np.float32), np.zeros(7, np.float32))]},
            ValueError,
            "bias has 7 entries for a weight of 8 rows",
        ),
    ]
    for change, error, message in bad:
        with pytest.raises(error, match=message):
            core.PolicyValueNet(5, 3, "ReLU", **{**ok, **change})
    nan = _layers((8, 5))
    nan[0][0][2, 3] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        core.PolicyValueNet(5, 3, "ReLU", **{**ok, "trunk": nan})
    with pytest.raises(ValueError, match="activation must be 'ReLU' or 'Tanh'"):
        core.PolicyValueNet(5, 3, "GELU", **ok)
    with pytest.raises(ValueError, match="obs must have 5 columns, got 4"):
        net.forward(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="obs must be a 2-d float32"):
        net.forward(np.zeros(5, np.float32))


def test_an_activation_the_core_does_not_run_is_a_model_file_error(tmp_path: Path) -> None:
    game = FortGame(2)
    policy = ActorCritic(game.observation_size, game.num_distinct_actions, (8,), "GELU")
    with pytest.raises(ModelFileError, match="activation GELU does not run on the core"):
        network_from_policy(policy, tmp_path / "m.safetensors")
