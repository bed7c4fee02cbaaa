"""The model zoo (``agents/zoo``, ``agents.learned.zoo``): the shipped policies load, match this
fort-env's layout, record how they were made, beat ``random``, and play by bare names.

A rules or card change alters the layout fingerprint (``policy_file.layout_fingerprint``), so
these tests fail until the zoo is retrained (``scripts/train_zoo.py``): that is their purpose.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents
from agents.arena.tournament import run_tournament
from agents.learned.policy_file import layout_fingerprint, load_policy_file
from agents.learned.zoo import ZooAgent, shipped_model, shipped_models
from fort_env import FortGame
from fort_env.game.errors import ModelFileError

SHIPPED = (2, 3, 4)
MAX_ZOO_BYTES = 20 * 2**20  # the bound on the shipped files


def test_a_model_ships_for_every_player_count_within_the_size_bound() -> None:
    models = shipped_models()
    assert sorted(models) == list(SHIPPED)
    total = sum(p.stat().st_size + p.with_suffix(".json").stat().st_size for p in models.values())
    assert total <= MAX_ZOO_BYTES


@pytest.mark.parametrize("players", SHIPPED)
def test_each_model_loads_matches_the_layout_and_records_its_making(players: int) -> None:
    path = shipped_model(players)
    _, info = load_policy_file(path)  # checks sizes, the fingerprint, the SHA-256, the probe
    assert info["game"]["num_players"] == players
    assert info["game"]["layout"] == layout_fingerprint(FortGame(players))
    zoo = info["zoo"]
    assert zoo["command"].startswith("fort-env train") and zoo["source"]["commit"]
    assert zoo["config"]["num_players"] == players
    for opponent in ("heuristic", "random"):
        result = zoo["results"][opponent]
        assert result["games"] >= 100 and 0 <= result["win_rate"] <= 1
        lo, hi = result["win_rate_ci95"]
        assert lo <= result["win_rate"] <= hi and isinstance(result["seed"], int)


@pytest.mark.parametrize("players", SHIPPED)
def test_each_model_beats_random(players: int) -> None:
    games = 24  # seats rotated; a trained model wins nearly all (its JSON has 100+ games)
    result = run_tournament(["ppo"] + ["random"] * (players - 1), players, games, seed=99,
                            progress=False)  # fmt: skip
    first = next(iter(result["agents"].values()))
    assert first["win_rate"] >= 0.75, result["agents"]


def test_bare_names() -> None:
    agent = agents.make("ppo")
    assert isinstance(agent, ZooAgent) and agent.path is None  # loads at the first decision
    state = FortGame(3).new_initial_state(0)
    from agents.arena.games import decision_info

    seat = state.current_player()
    obs = {"observation": state.observation_tensor(seat), "action_mask": state.legal_actions_mask()}
    action = agent.act(obs, decision_info(state, seat))
    assert action in state.legal_actions()
    assert agent.num_players == 3 and agent.path == str(shipped_model(3))
    four = agents.make("ppo:players=4:deterministic=0")
    assert four.num_players == 4 and not four.deterministic
    with pytest.raises(ModelFileError, match="players=N"):
        agents.make("ppo").act_batch(obs["observation"][None], obs["action_mask"][None])


def test_a_changed_layout_is_refused_naming_both(tmp_path: Path) -> None:
    src = shipped_model(2)
    copy = tmp_path / "m.safetensors"
    shutil.copyfile(src, copy)
    info = json.loads(src.with_suffix(".json").read_text())
    info["game"]["layout"] = "sha256:0000000000000000"
    copy.with_suffix(".json").write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=r"sha256:0000000000000000.*retrain"):
        load_policy_file(copy)


def test_puct_searches_with_the_puct_network_where_one_ships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agents.learned.zoo as zoo

    for name in ("ppo-2p.safetensors", "ppo-2p.json"):
        shutil.copyfile(zoo.ZOO_DIR / name, tmp_path / name)
    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path)
    assert zoo.search_model(2) == tmp_path / "ppo-2p.safetensors"  # no puct network: ppo's
    for name in ("puct-2p.safetensors", "puct-2p.json"):
        shutil.copyfile(tmp_path / name.replace("puct", "ppo"), tmp_path / name)
    assert zoo.search_model(2) == tmp_path / "puct-2p.safetensors"
    assert zoo.shipped_models("puct") == {2: tmp_path / "puct-2p.safetensors"}
    assert agents.make("puct:players=2:sims=2").model == str(tmp_path / "puct-2p.safetensors")
    with pytest.raises(ModelFileError, match="no shipped puct model for 3 players"):
        zoo.shipped_model(3, "puct")
    with pytest.raises(ModelFileError, match="no shipped model for 3 players"):
        zoo.search_model(3)
    with pytest.raises(ValueError, match="kind must be one of ppo, puct"):
        zoo.shipped_model(2, "alphazero")
