"""The whole-table critic (issue 37): the table observation, equal in both engines and in the
trainer's gather; the critic saved beside the actor and refused when it does not fit; the lean
PPO's ``critic="table"`` path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import fort_env
from fort_env.game.errors import ModelFileError
from fort_env.native import backend as cpp_backend
from fort_env.views.observation import (
    TABLE_PRIVATE_SLICES,
    observation_layout,
    table_observation_size,
)

torch = pytest.importorskip("torch")

needs_core = pytest.mark.skipif(not cpp_backend.available(), reason="no compiled core")


def _random_positions(n: int, games: int, seed: int):  # type: ignore[no-untyped-def]
    """(cpp state, python state) pairs of random positions of ``games`` games."""
    rng = random.Random(seed)
    for g in range(games):
        a = fort_env.FortGame(n).new_initial_state(seed=seed + g)
        b = fort_env.FortGame(n, backend="python").new_initial_state(seed=seed + g)
        while not a.is_terminal():
            if rng.random() < 0.08:
                yield a, b
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)


@needs_core
@pytest.mark.parametrize("n", [2, 3, 4])
def test_both_engines_write_the_same_table_observation(n: int) -> None:
    count = 0
    for a, b in _random_positions(n, games=3, seed=40 + n):
        for p in range(n):
            ta, tb = a.table_observation_tensor(p), b.table_observation_tensor(p)
            assert ta.dtype == np.float32 and ta.shape == (table_observation_size(n, a.game),)
            np.testing.assert_array_equal(ta, tb)
        count += 1
    assert count > 10


@pytest.mark.parametrize("n", [2, 4])
def test_the_table_shows_each_rivals_hidden_cards_and_nothing_else_new(n: int) -> None:
    state = fort_env.FortGame(n, backend="python").new_initial_state(seed=3)
    layout = observation_layout(n, state.game)
    table = state.table_observation_tensor(0)
    d = layout.size
    np.testing.assert_array_equal(table[:d], state.observation_tensor(0))
    hand = layout["my_hand"]
    width = sum(layout[name].size for name in TABLE_PRIVATE_SLICES)
    for k in range(1, n):
        block = table[d + (k - 1) * width : d + k * width]
        rival = state.observation_tensor(k)  # seat k is k places to seat 0's left
        np.testing.assert_array_equal(block[: hand.size], layout.view(rival, "my_hand"))
        assert block[: hand.size].sum() > 0  # a dealt hand: seat 0 could not see it before
    with pytest.raises(ValueError, match="seat"):
        state.table_observation_tensor(n)


@needs_core
def test_the_trainers_gather_is_the_table_observation() -> None:
    pytest.importorskip("stable_baselines3")
    from train.ppo import LeanPPO
    from train.selfplay import League, make_config

    cfg = make_config("tiny", algo="ppo", num_players=3, n_envs=4, n_steps=8, critic="table")
    ppo = LeanPPO(cfg, League({"random": 1.0}), "cpu")
    ppo.reset(5)
    ppo.collect()
    actor = torch.from_numpy(ppo.env.actor.astype(np.int64))
    tables = ppo._tables(ppo._everyone(), actor).numpy()
    for i in range(ppo.env.num_envs):
        expected = ppo.env.state(i).table_observation_tensor(int(actor[i]))
        np.testing.assert_array_equal(tables[i], expected)


def _actor_critic(n: int, critic: tuple[int, ...] = (32,)):  # type: ignore[no-untyped-def]
    from agents.learned.network import ActorCritic

    game = fort_env.FortGame(n)
    torch.manual_seed(0)
    size = table_observation_size(n, game)
    return ActorCritic(game.observation_size, game.num_distinct_actions, (64,), critic=critic,
                       table_size=size), game  # fmt: skip


def test_the_critic_is_saved_beside_the_actor_and_the_actor_plays_as_before(
    tmp_path: Path,
) -> None:
    from agents.learned.policy_file import load_policy_file, read_description, save_policy

    net, game = _actor_critic(2)
    path = save_policy(net, tmp_path / "m", num_players=2)
    info = read_description(path)
    assert info["network"]["critic"] == {
        "input": "table",
        "private_slices": list(TABLE_PRIVATE_SLICES),
        "trunk": [32],
        "input_size": table_observation_size(2, game),
    }
    loaded, _ = load_policy_file(path)
    state = game.new_initial_state(seed=1)
    obs = torch.from_numpy(state.observation_tensor(0))[None]
    table = torch.from_numpy(state.table_observation_tensor(0))[None]
    with torch.no_grad():
        torch.testing.assert_close(loaded(obs)[0], net(obs)[0])
        torch.testing.assert_close(loaded.table_values(table), net.table_values(table))
    # an actor alone (no critic) with the same actor weights gives the same logits
    from agents.learned.network import ActorCritic

    bare = ActorCritic(game.observation_size, game.num_distinct_actions, (64,))
    bare.load_state_dict(
        {k: v for k, v in net.state_dict().items() if k.startswith(("trunk", "policy", "value"))}
    )
    with torch.no_grad():
        torch.testing.assert_close(bare(obs)[0], loaded(obs)[0])


def test_a_critic_of_another_layout_is_refused_with_one_error(tmp_path: Path) -> None:
    from agents.learned.policy_file import load_policy_file, save_policy

    net, _ = _actor_critic(3)
    path = save_policy(net, tmp_path / "m", num_players=3)
    description = path.with_suffix(".json")
    info = json.loads(description.read_text())
    info["network"]["critic"]["input_size"] += 1
    description.write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=r"critic\.input_size.*another layout"):
        load_policy_file(path)
    info["network"]["critic"]["input_size"] -= 1
    info["network"]["critic"]["trunk"] = [16]  # the tensors say 32
    description.write_text(json.dumps(info))
    with pytest.raises(ModelFileError):
        load_policy_file(path)
    info["network"]["critic"]["private_slices"] = ["my_hand"]  # another table layout
    description.write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=r"network\.critic"):
        load_policy_file(path)
    info["network"]["critic"]["private_slices"] = list(TABLE_PRIVATE_SLICES)
    info["network"]["critic"]["input"] = "obs"
    description.write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=r"network\.critic"):
        load_policy_file(path)


@needs_core
def test_lean_ppo_with_the_table_critic_learns_its_values() -> None:
    pytest.importorskip("stable_baselines3")
    from train.ppo import LeanPPO
    from train.selfplay import League, make_config

    cfg = make_config("tiny", algo="ppo", n_envs=8, n_steps=16, critic="table", critic_arch=(32,))
    ppo = LeanPPO(cfg, League({"random": 1.0}), "cpu")
    assert ppo.net.critic is not None
    ppo.reset(0)
    adv = ppo.collect()
    # the stored values are the critic's on the stored tables
    with torch.no_grad():
        expected = ppo.net.table_values(ppo.tables.reshape(-1, ppo.tables.shape[-1]))
    torch.testing.assert_close(ppo.values.reshape(-1), expected, rtol=1e-5, atol=1e-6)
    before = [p.detach().clone() for p in ppo.net.critic.parameters()]
    stats = ppo.update(adv, 1e-3)
    assert "critic_loss" in stats and np.isfinite(stats["critic_loss"])
    after = list(ppo.net.critic.parameters())
    assert any(not torch.equal(b, a) for b, a in zip(before, after, strict=True))


@needs_core
def test_the_cores_critic_equals_torchs() -> None:
    from agents.learned.core_network import critic_from_policy

    net, _ = _actor_critic(4, critic=(48, 24))
    core_critic = critic_from_policy(net)
    tables = []
    for a, _ in _random_positions(4, games=1, seed=9):
        tables += [a.table_observation_tensor(p) for p in range(4)]
    x = np.stack(tables).astype(np.float32)
    _, values = core_critic.forward(x)
    with torch.no_grad():
        expected = net.table_values(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(values, expected, atol=1e-4, rtol=1e-4)
    bare, _ = _actor_critic(4, critic=())
    assert critic_from_policy(bare) is None


def _constant_critic_model(tmp_path: Path, bias: float) -> Path:
    """An actor-critic file whose critic says ``bias`` for every table (zero weights)."""
    from agents.learned.policy_file import save_policy

    net, _ = _actor_critic(2, critic=(8,))
    with torch.no_grad():
        for p in net.critic.parameters():
            p.zero_()
        net.critic_head.weight.zero_()
        net.critic_head.bias.fill_(bias)
    return save_policy(net, tmp_path / f"const{bias}", num_players=2)


@needs_core
def test_the_search_values_its_leaves_with_the_critic(tmp_path: Path) -> None:
    from agents.learned.puct import PUCTAgent

    state = fort_env.FortGame(2).new_initial_state(seed=4)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    model = _constant_critic_model(tmp_path, 0.5)  # unit value (0.5 + 1) / 2 = 0.75
    table = PUCTAgent(model=model, sims=30, seed=1, value="table")
    table.search_core(lambda r: state.clone(), seat, state.legal_actions())
    found = table.last_search
    assert found["root_value"] == pytest.approx(0.75)
    # every visited edge backed up 0.75 from each leaf (no game ends in 30 simulations here)
    visited = [v for v, n in zip(found["values"], found["visits"], strict=True) if n]
    assert visited and all(v == pytest.approx(0.75) for v in visited)
    obs = PUCTAgent(model=model, sims=30, seed=1, value="obs")
    obs.search_core(lambda r: state.clone(), seat, state.legal_actions())
    assert obs.last_search["root_value"] != pytest.approx(0.75)
    default = PUCTAgent(model=model, sims=2, seed=1)
    assert default.value == "obs" and default.critic is None  # measured no stronger


@needs_core
def test_a_critic_of_another_table_is_refused_by_the_search(tmp_path: Path) -> None:
    from agents.learned.core_network import critic_from_policy, network_from_policy
    from agents.learned.puct import PUCTAgent
    from agents.learned.zoo import shipped_model

    net4, _ = _actor_critic(4, critic=(8,))
    net2, _ = _actor_critic(2, critic=(8,))
    state = cpp_backend.CppFortState.from_state(fort_env.FortGame(2).new_initial_state(seed=4))
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="table observation"):
        cpp_backend.require().puct_search(
            state.core_state, state.current_player(), network_from_policy(net2), seed=1,
            simulations=4, seconds=0, c=1.5, batch=1, threads=1, noise_alpha=0.3,
            noise_fraction=0.0, critic=critic_from_policy(net4),
        )  # fmt: skip
    with pytest.raises(ValueError, match="needs a model with a critic"):
        PUCTAgent(model=shipped_model(2), value="table")
    with pytest.raises(ValueError, match="value must be"):
        PUCTAgent(players=2, value="oracle")
