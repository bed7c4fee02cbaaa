"""Fixtures shared by several test modules."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def untrained_policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained 2-player policy file with small networks (16 units): for the mechanics of
    the agents and tools that load a policy, which do not need a good one. Needs the
    ``train`` extra (skips without it)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents.learned.policy_file import save_policy
    from fort_env.envs.single_agent import SingleAgentEnv

    ppo = MaskablePPO(
        "MlpPolicy",
        SingleAgentEnv(num_players=2),
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [16], "vf": [16]}},
    )
    return save_policy(ppo, tmp_path_factory.mktemp("policy") / "policy", num_players=2)
