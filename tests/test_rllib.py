"""Fort on Ray RLlib (``fort_env.envs.rllib``): the env adapter, one PPO iteration with two env
runners on a local Ray instance, and env runners spread over a two-node cluster.

Ray pins an older gymnasium than the dev extra, so these run in the rllib extra's own venv
(``.ci/run``: ``.venv-rllib``); elsewhere the module is skipped. The Ray tests are kept tiny
(1000-step batch, one 64-unit layer, one epoch).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip(
    "ray.rllib", reason="needs the rllib extra (Ray RLlib), installed in its own venv"
)

import ray
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from fort_env.envs.rllib import (
    POLICY_ID,
    ActionMaskingTorchRLModule,
    FortMultiAgentEnv,
    policy_mapping_fn,
    ppo_config,
)
from fort_env.game.errors import ConfigError, IllegalActionError, ModelFileError

TINY = {"hiddens": (64,), "train_batch_size": 1000, "minibatch_size": 250, "num_epochs": 1}


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """The driver's tiny learner and the rllib agent run faster on one thread of 2 busy cores."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ------------------------------------------------------------------ the env alone (no Ray)
def test_env_plays_a_masked_game_to_the_end() -> None:
    env = FortMultiAgentEnv({"num_players": 2})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        (agent,) = obs  # one agent acts at a time
        assert space.contains(obs[agent])
        legal = np.flatnonzero(obs[agent]["action_mask"])
        assert legal.size > 0
        obs, rewards, terms, truncs, _ = env.step({agent: int(rng.choice(legal))})
        steps += 1
        if terms["__all__"]:
            break
    assert set(obs) == set(rewards) == {"player_0", "player_1"}
    assert sorted(rewards.values()) in ([-1.0, 1.0], [1.0, 1.0])  # win_loss (or shared win)
    assert all(terms[a] for a in env.possible_agents) and not truncs["__all__"]
    assert all(o["action_mask"].sum() == 0 for o in obs.values())
    assert steps > 50


def test_env_raises_on_illegal_action_and_bad_config() -> None:
    env = FortMultiAgentEnv({"num_players": 3, "max_decisions": 5})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})
    with pytest.raises(ValueError, match="no action for the acting agent"):
        env.step({})
    for _ in range(5):  # truncation: every agent gets truncated, reward 0
        (agent,) = obs
        obs, rewards, terms, truncs, _ = env.step(
            {agent: int(np.flatnonzero(obs[agent]["action_mask"])[0])}
        )
    assert truncs["__all__"] and not terms["__all__"] and set(rewards.values()) == {0.0}
    with pytest.raises(ConfigError, match="unknown env_config"):
        FortMultiAgentEnv({"players": 2})
    assert policy_mapping_fn("player_3") == POLICY_ID


# ------------------------------------------------------------------ PPO on Ray
@pytest.fixture
def local_ray():
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


class _UnmaskedModule(ActionMaskingTorchRLModule):
    """The same module with the masking removed: it must end in an illegal action."""

    def _mask_action_logits(self, batch, action_mask):
        return batch


def test_ppo_trains_one_iteration_on_two_env_runners(local_ray, tmp_path, monkeypatch) -> None:
    import agents
    from agents.arena.tournament import run_tournament
    from train.rllib_selfplay import iteration_summary

    algo = ppo_config(num_players=2, num_env_runners=2, seed=0, **TINY).build_algo()
    try:
        assert algo.env_runner_group.num_healthy_remote_workers() == 2
        result = algo.train()
        checkpoint = algo.save_to_path(str(tmp_path / "checkpoint"))
    finally:
        algo.stop()
    row = iteration_summary(result)  # what fort-env train --backend rllib logs
    assert row["iteration"] == 1 and row["env_steps"] == row["env_steps_total"] >= 1000
    assert set(row["returns_mean"]) == {"player_0", "player_1"}
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= TINY["train_batch_size"]
    # both seats played the one shared policy, from both remote runners
    assert set(runners["num_agent_steps_sampled"]) == {"player_0", "player_1"}
    assert set(runners["num_module_steps_sampled"]) == {POLICY_ID}
    assert runners["num_episodes"] >= 1  # at least one game finished (~300 decisions)
    # an illegal action raises in the env and fails train() (no runner restarts hide it)
    assert result["fault_tolerance"]["num_remote_worker_restarts"] == 0
    assert np.isfinite(result["learners"][POLICY_ID]["total_loss"])

    # the trained policy plays as the agent rllib:CHECKPOINT:trusted=1 (a tournament raises on
    # an illegal action); RLlib checkpoints are pickled, so without trusted=1 nothing is read
    with pytest.raises(ModelFileError, match="trusted=1"):
        agents.make(f"rllib:{checkpoint}")
    spec = f"rllib:{checkpoint}:trusted=1"
    games = run_tournament([spec, "random"], 2, 2, seed=0, progress=False)
    assert games["agents"][spec]["games"] == 2
    # a path relative to the working directory, as docs/integrations.md writes it (loaded afresh)
    from agents.learned import rllib_agent

    rllib_agent._MODULES.clear()
    monkeypatch.chdir(tmp_path)
    games = run_tournament(["rllib:checkpoint:trusted=1", "random"], 2, 2, seed=0, progress=False)
    assert games["agents"]["rllib:checkpoint:trusted=1"]["games"] == 2

    # ... which is what happens without the mask: sampling in the driver, for speed.
    spec = RLModuleSpec(module_class=_UnmaskedModule, model_config={"fcnet_hiddens": [16]})
    config = ppo_config(num_players=2, num_env_runners=0, seed=0, **TINY).rl_module(
        rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: spec})
    )
    unmasked = config.build_algo()
    try:
        with pytest.raises(RuntimeError) as info:
            unmasked.train()
    finally:
        unmasked.stop()
    assert isinstance(info.value.__cause__, IllegalActionError)


# ------------------------------------------------------------------ a two-node cluster
@pytest.fixture(scope="module")
def two_nodes():
    """A Ray cluster of two nodes on this machine, one CPU each; yields its address."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_env_runners_spread_over_two_nodes(two_nodes) -> None:
    nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(nodes) == 2
    # one CPU per node and one per env runner: the two runners must land on different nodes
    algo = ppo_config(num_players=2, num_env_runners=2, seed=0, **TINY).build_algo()
    try:
        placed = algo.env_runner_group.foreach_env_runner(
            lambda runner: ray.get_runtime_context().get_node_id(),
            local_env_runner=False,
        )
        sampled = algo.env_runner_group.foreach_env_runner(
            lambda runner: sum(len(e) for e in runner.sample(num_timesteps=50)),
            local_env_runner=False,
        )
    finally:
        algo.stop()
    assert sorted(placed) == sorted(nodes)  # one runner on each node
    assert all(n >= 50 for n in sampled)


def test_tournament_on_the_cluster_plays_the_same_games(two_nodes) -> None:
    from agents.arena.tournament import run_tournament

    # (random bots: the heuristics' card-value cache keeps state between games, so their games
    # depend on which games a process played before, with --workers too)
    args = (["random", "random"], 2, 6)
    on_ray = run_tournament(*args, seed=5, progress=False, ray_address=two_nodes)
    here = run_tournament(*args, seed=5, progress=False)
    assert on_ray["ray_address"] == two_nodes
    for key in ("game_length", "end_triggers", "first_player_win_rate"):
        assert on_ray[key] == here[key], key
    for name, row in here["agents"].items():  # the same games; only think times differ
        for field in ("games", "wins", "mean_score", "mean_rank", "seat_games"):
            assert on_ray["agents"][name][field] == row[field], (name, field)
