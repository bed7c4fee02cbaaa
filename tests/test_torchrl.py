"""TorchRL's PettingZoo route (issue 38, item 6; the ``torchrl`` extra, part of ``dev``):
``PettingZooWrapper(fort_env.env(), use_mask=True)`` passes ``check_env_specs`` and a random
rollout through it takes only legal actions."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import fort_env


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")
@pytest.mark.parametrize("num_players", [2, 3])
def test_the_wrapper_passes_torchrls_checks_and_plays_legally(num_players: int) -> None:
    env = PettingZooWrapper(
        env=fort_env.env(num_players=num_players),
        use_mask=True,
        categorical_actions=True,
        return_state=False,
        seed=0,
    )
    check_env_specs(env)
    rollout = env.rollout(120)
    acted = 0
    for p in range(num_players):
        group = rollout[f"player_{p}"]
        for t in range(rollout.batch_size[0]):
            if bool(group["mask"][t, 0]):  # this seat acted at step t
                action = int(group["action"][t, 0])
                assert bool(group["action_mask"][t, 0, action]), (p, t, action)
                acted += 1
    assert acted >= 100
    env.close()
