"""Issue 12, model files: a saved policy loads without unpickling; a pickled zip runs nothing.

The project's policies are ``NAME.safetensors`` + ``NAME.json`` (``agents/learned/policy_file.py``).
A Stable-Baselines3 ``.zip`` keeps its ``data`` entry as cloudpickle: the malicious zip built
here would create a marker file when unpickled. Without the explicit opt-in it is refused
before anything of it is read; with it, the payload runs (which shows the test is real).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import agents
from agents.learned.policy_file import (
    load_into_model,
    load_policy_file,
    load_sb3_zip,
    policy_paths,
    save_checkpoint_files,
    save_policy,
)
from agents.learned.ppo import PPOAgent, load_policy
from fort_env import FortGame, ModelFileError


class _Payload:
    """Unpickling this calls ``open(marker, "w")``: it creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def malicious_zip(path: Path, marker: Path) -> Path:
    """An SB3-style model zip whose ``data`` entry holds a pickled payload (SB3 writes
    ``{"key": {":type:": ..., ":serialized:": base64(cloudpickle)}}``)."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {
        "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob},
        "observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>", ":serialized:": blob},
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.9.2")
    path.write_bytes(buf.getvalue())
    return path


@pytest.fixture
def evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "PWNED"
    return malicious_zip(tmp_path / "model.zip", marker), marker


def test_the_payload_is_real_when_trusted(evil: tuple[Path, Path]) -> None:
    path, marker = evil
    with contextlib.suppress(Exception):  # SB3 fails after unpickling: the payload ran
        load_sb3_zip(path, trusted=True)
    assert marker.exists()


@pytest.mark.parametrize(
    "load",
    [
        lambda p: agents.make(f"ppo:{p}"),
        lambda p: agents.make(f"ppo:{p}:trusted=0"),
        lambda p: load_policy(p),
        lambda p: PPOAgent(p),
        lambda p: load_sb3_zip(p),
        lambda p: load_policy_file(p),
    ],
    ids=["make", "make trusted=0", "load_policy", "PPOAgent", "load_sb3_zip", "load_policy_file"],
)
def test_a_malicious_zip_runs_nothing_without_opt_in(evil: tuple[Path, Path], load: Any) -> None:
    path, marker = evil
    with pytest.raises(ModelFileError, match="cloudpickle") as err:
        load(path)
    assert str(path) in str(err.value) and "trusted" in str(err.value)
    assert not marker.exists()


def test_a_zip_disguised_as_safetensors_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    good = _saved_policy(tmp_path / "good")
    evil = tmp_path / "evil.safetensors"
    malicious_zip(evil, marker)
    info = json.loads(policy_paths(good)[1].read_text())
    info["sha256"] = __import__("hashlib").sha256(evil.read_bytes()).hexdigest()
    (tmp_path / "evil.json").write_text(json.dumps(info))
    # the zip is recognised by its content, whatever its name
    with pytest.raises(ModelFileError):
        agents.make(f"ppo:{evil}")
    with pytest.raises(ModelFileError, match="cloudpickle"):
        load_policy_file(evil)
    assert not marker.exists()


def test_tournament_cli_refuses_the_zip(evil: tuple[Path, Path]) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    path, marker = evil
    result = CliRunner().invoke(app, ["tournament", "--agents", f"ppo:{path},random"])
    assert result.exit_code == 1
    assert "cloudpickle" in result.output and "--trust-pickle" in result.output
    assert not marker.exists()


def test_resume_and_league_never_load_a_zip(evil: tuple[Path, Path], tmp_path: Path) -> None:
    from train import selfplay

    path, marker = evil
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    shutil.copy(path, out / "checkpoints" / "latest.zip")
    state = {"history": [], "evals": [], "best": 0.0, "last_eval": 0, "elapsed_before": 0.0}
    league = selfplay.League({"random": 1.0}, [f"ppo:{path}"], 0.5)
    selfplay.save_state(out, league, state)
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        selfplay.load_state(out)
    with pytest.raises(ModelFileError):  # a snapshot named in state.json
        league.agent(league.snapshots[0])
    assert not marker.exists()


# ------------------------------------------------------------------- the safetensors format
def _model(num_players: int = 2, arch: tuple[int, ...] = (16,)) -> Any:
    from sb3_contrib import MaskablePPO

    from fort_env.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(num_players=num_players)
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": list(arch), "vf": list(arch)}},
    )


def _saved_policy(path: Path) -> Path:
    return save_policy(_model(), path, num_players=2)


def _probabilities(agent: Any, seed: int = 3) -> list[np.ndarray]:
    state = FortGame(2).new_initial_state(seed=seed)
    out = []
    for _ in range(20):
        mask = state.legal_actions_mask()
        out.append(
            agent.action_probabilities(state.observation_tensor(state.current_player()), mask)
        )
        state.apply_action(int(np.flatnonzero(mask)[0]))
    return out


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    model = _model()
    weights = save_policy(model, tmp_path / "p", num_players=2, training={"note": "test"})
    assert weights == tmp_path / "p.safetensors" and (tmp_path / "p.json").is_file()
    info = json.loads((tmp_path / "p.json").read_text())
    game = FortGame(2)
    assert info["game"]["observation_size"] == game.observation_size
    assert info["game"]["num_actions"] == game.num_distinct_actions
    assert info["network"]["net_arch"] == {"pi": [16], "vf": [16]}
    assert info["training"] == {"note": "test"}
    ours = PPOAgent(policy=model.policy)
    for name in (weights, tmp_path / "p.json", tmp_path / "p"):
        loaded = agents.make(f"ppo:{name}")
        for a, b in zip(_probabilities(ours), _probabilities(loaded), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


def test_saved_files_get_the_umask_mode_like_the_run_s_other_files(tmp_path: Path) -> None:
    """safetensors' own writer made model.safetensors 0600 beside a 0644 model.json."""
    import os

    old = os.umask(0o022)
    try:
        model = _model()
        weights = save_checkpoint_files(
            model, tmp_path / "c", num_players=2, setup="basic", training={}
        )
    finally:
        os.umask(old)
    optimizer = tmp_path / "c.optimizer.safetensors"
    for path in (weights, tmp_path / "c.json", optimizer):
        assert path.stat().st_mode & 0o777 == 0o644, (path, oct(path.stat().st_mode))
    assert load_policy_file(weights)[1]["optimizer"]["file"] == optimizer.name


def test_saving_for_the_wrong_game_is_refused(tmp_path: Path) -> None:
    from agents.learned.policy_io import _build_policy

    game = {"num_players": 2, "setup": "basic", "card_set": None}
    network = {
        "net_arch": {"pi": [8], "vf": [8]},
        "activation_fn": "Tanh",
        "share_features_extractor": True,
    }
    n = FortGame(2).num_distinct_actions
    other = _build_policy({"game": {**game, "observation_size": 100, "num_actions": n},
                           "network": network})  # fmt: skip
    with pytest.raises(ModelFileError, match=f"observations of 100 and {n} actions"):
        save_policy(other, tmp_path / "p", num_players=2)
    assert not (tmp_path / "p.json").exists()


def _tamper(tmp_path: Path, change: Any) -> Path:
    weights = _saved_policy(tmp_path / "p")
    description = policy_paths(weights)[1]
    info = json.loads(description.read_text())
    change(info)
    description.write_text(json.dumps(info))
    return weights


def _set(path: str, value: Any) -> Any:
    def change(info: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = info
        for key in parents:
            node = node[key]
        node[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_set("game.observation_size", 1234), "observation_size"),
        (_set("game.num_actions", 675), "num_actions"),
        (_set("game.num_players", 7), "game.num_players"),
        (_set("network.activation_fn", "system"), "network.activation_fn"),
        (_set("network.net_arch", {"pi": [32], "vf": [16]}), "do not fit"),
        (_set("network.net_arch", {"pi": ["16"], "vf": [16]}), "network.net_arch"),
        (_set("sha256", "0" * 64), "SHA-256"),
        (_set("format", "other"), "format"),
        (_set("version", 99), "version"),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_a_mismatched_description_is_a_clear_error(tmp_path: Path, change: Any, words: str) -> None:
    weights = _tamper(tmp_path, change)
    with pytest.raises(ModelFileError, match=words):
        load_policy_file(weights)


def test_corrupt_or_missing_files(tmp_path: Path) -> None:
    weights = _saved_policy(tmp_path / "p")
    description = policy_paths(weights)[1]
    description.write_text("{not json")
    with pytest.raises(ModelFileError, match="not a JSON description"):
        load_policy_file(weights)
    weights = _saved_policy(tmp_path / "q")
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError):  # the hash, then the format
        load_policy_file(weights)
    with pytest.raises(ModelFileError, match="not a safetensors file"):
        load_policy_file(weights, check_hash=False)
    weights.unlink()
    with pytest.raises(ModelFileError, match="no trained model"):
        agents.make(f"ppo:{weights}")


def test_the_agent_names_an_observation_of_another_size(tmp_path: Path) -> None:
    agent = agents.make(f"ppo:{_saved_policy(tmp_path / 'p')}")
    state = FortGame(2).new_initial_state(seed=0)
    mask = state.legal_actions_mask()
    obs = {"observation": state.observation_tensor(0)[:-3], "action_mask": mask}
    with pytest.raises(ValueError, match=f"observations of {FortGame(2).observation_size} entries"):
        agent.act(obs, {})


def test_ppo_spec_arguments(tmp_path: Path) -> None:
    weights = _saved_policy(tmp_path / "p")
    assert agents.make(f"ppo:{weights}:deterministic=0").deterministic is False  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="not 'temperature'"):
        agents.make(f"ppo:{weights}:temperature=2")
    with pytest.raises(ValueError, match="0 or 1"):
        agents.make(f"ppo:{weights}:trusted=7")


def test_checkpoint_restores_weights_optimizer_and_steps(tmp_path: Path) -> None:
    import torch

    model = _model()
    model.learn(64)  # one update: Adam has moments
    save_checkpoint_files(model, tmp_path / "latest", num_players=2, setup="basic", training={})
    fresh = _model()
    assert fresh.num_timesteps == 0
    load_into_model(fresh, tmp_path / "latest.safetensors")
    assert fresh.num_timesteps == model.num_timesteps == 64
    for key, value in model.policy.state_dict().items():
        torch.testing.assert_close(fresh.policy.state_dict()[key], value)
    a, b = model.policy.optimizer.state_dict(), fresh.policy.optimizer.state_dict()
    assert a["state"].keys() == b["state"].keys() and a["state"]
    for index, entry in a["state"].items():
        for key, value in entry.items():
            torch.testing.assert_close(b["state"][index][key], value)
    fresh.learn(64, reset_num_timesteps=False)  # and training goes on
    assert fresh.num_timesteps == 128


def test_a_checkpoint_of_another_network_is_refused(tmp_path: Path) -> None:
    model = _model(arch=(16,))
    save_checkpoint_files(model, tmp_path / "latest", num_players=2, setup="basic", training={})
    with pytest.raises(ModelFileError, match="not the configured one"):
        load_into_model(_model(arch=(8,)), tmp_path / "latest")


def test_a_trusted_sb3_zip_still_plays_and_converts(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agents.learned.policy_file import convert_sb3_zip
    from fort_env.tools.cli import app

    model = _model()
    model.save(tmp_path / "sb3.zip")
    zipped = tmp_path / "sb3.zip"
    result = CliRunner().invoke(
        app, ["tournament", "--agents", f"ppo:{zipped},random", "--games", "2", "--json",
              "--trust-pickle"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    trusted = agents.make(f"ppo:{zipped}:trusted=1")
    converted = convert_sb3_zip(zipped, tmp_path / "converted", num_players=2, trusted=True)
    ours = agents.make(f"ppo:{converted}")
    for a, b in zip(_probabilities(trusted), _probabilities(ours), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


# ------------------------------------------------- issue 26, item 4: crafted descriptions
def _rewrite(weights: Path, tensors: dict[str, Any] | None = None, **network: Any) -> Path:
    """Rewrite a saved policy's tensors and/or its description's network, with a matching
    SHA-256 (what a crafted file would carry)."""
    import hashlib

    from safetensors.torch import save_file

    description = policy_paths(weights)[1]
    info = json.loads(description.read_text())
    info["network"].update(network)
    if tensors is not None:
        save_file(tensors, str(weights))
    info["sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    description.write_text(json.dumps(info))
    return weights


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make building a network fail the test: the limits must refuse first."""
    import agents.learned.policy_io as policy_io  # where load_policy_file builds it

    def refuse(info: Any) -> Any:
        raise AssertionError("the network was built before the description was checked")

    monkeypatch.setattr(policy_io, "_build_policy", refuse)


@pytest.mark.parametrize(
    ("net_arch", "words"),
    [
        ({"pi": [65536], "vf": [16]}, "layer width must be an int in"),  # 16 GiB of weights
        ({"pi": [16] * 20_000, "vf": [16]}, "at most 16 layer widths"),  # a minute to build
        ({"pi": [4096] * 3, "vf": [16]}, "parameters; the limit is"),
    ],
    ids=["wide", "deep", "parameters"],
)
def test_network_limits_are_checked_before_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, net_arch: Any, words: str
) -> None:
    import time

    from agents.learned.policy_file import read_description

    weights = _rewrite(_saved_policy(tmp_path / "p"), net_arch=net_arch)
    _no_build(monkeypatch)
    start = time.perf_counter()
    with pytest.raises(ModelFileError, match=words) as info:
        read_description(weights)  # accepted before the fix
    assert "p.json" in str(info.value)
    with pytest.raises(ModelFileError, match=words):
        agents.make(f"ppo:{weights}")
    assert time.perf_counter() - start < 5


def test_the_presets_networks_are_within_the_limits() -> None:
    from agents.learned.policy_file import MAX_PARAMETERS, check_net_arch, expected_shapes
    from train.selfplay import PRESETS

    game = FortGame(4, "advanced")
    for config in PRESETS.values():
        arch = check_net_arch(list(config.net_arch))
        shapes = expected_shapes(game.observation_size, game.num_distinct_actions, arch, arch)
        assert sum(int(np.prod(s)) for s in shapes.values()) * 4 < MAX_PARAMETERS


def test_expected_shapes_are_the_policys(tmp_path: Path) -> None:
    from agents.learned.policy_file import expected_shapes
    from agents.learned.policy_io import _build_policy

    for pi, vf, share in (([8, 4], [5], True), ([], [3], False), ([7], [], True)):
        info = {
            "game": {"observation_size": 11, "num_actions": 5},
            "network": {"net_arch": {"pi": pi, "vf": vf}, "activation_fn": "Tanh",
                        "share_features_extractor": share},
        }  # fmt: skip
        built = {k: tuple(v.shape) for k, v in _build_policy(info).state_dict().items()}
        assert built == expected_shapes(11, 5, pi, vf)


def test_tensor_shapes_are_checked_before_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from safetensors.torch import load_file

    weights = _saved_policy(tmp_path / "p")
    tensors = load_file(str(weights))
    tensors["mlp_extractor.policy_net.0.weight"] = tensors["mlp_extractor.policy_net.0.weight"][:8]
    _rewrite(weights, tensors)
    _no_build(monkeypatch)
    with pytest.raises(ModelFileError, match=r"mlp_extractor.policy_net.0.weight.*\[16, 1482\]"):
        load_policy_file(weights)


def test_huge_finite_weights_are_refused(tmp_path: Path) -> None:
    """3e38 passes a NaN/inf check but makes NaN logits (and then an illegal action)."""
    from safetensors.torch import load_file

    weights = _saved_policy(tmp_path / "p")
    tensors = load_file(str(weights))
    tensors["action_net.weight"].fill_(3e38)
    _rewrite(weights, tensors)
    with pytest.raises(
        ModelFileError, match=r"p.safetensors: tensor 'action_net.weight'.*magnitude"
    ):
        load_policy_file(weights)


def test_overflowing_logits_are_refused_at_load(tmp_path: Path) -> None:
    """Weights within the magnitude bound can still overflow through a deep ReLU network:
    the probe forward pass refuses them."""
    model = _model(arch=(16,) * 8)
    weights = save_policy(model, tmp_path / "p", num_players=2)
    tensors = {k: v.clone().fill_(1e6) for k, v in model.policy.state_dict().items()}
    _rewrite(weights, tensors, activation_fn="ReLU")
    with pytest.raises(ModelFileError, match=r"not finite .* for a probe observation"):
        load_policy_file(weights)


def _nan_agent() -> Any:
    model = _model()
    with __import__("torch").no_grad():
        model.policy.action_net.bias.fill_(float("nan"))
    return PPOAgent(policy=model.policy)


def test_non_finite_logits_never_play_an_illegal_action() -> None:
    state = FortGame(2).new_initial_state(seed=1)
    mask = state.legal_actions_mask()
    assert not mask[0]  # argmax of NaN logits is action 0: illegal here
    obs = state.observation_tensor(state.current_player())
    for deterministic in (True, False):
        agent = _nan_agent()
        agent.deterministic = deterministic
        with pytest.raises(ModelFileError, match="not finite"):
            agent.act({"observation": obs, "action_mask": mask}, {})
        with pytest.raises(ModelFileError, match="not finite"):
            agent.act_batch(obs[None], mask[None])


def test_a_description_without_card_set_is_a_clear_error(tmp_path: Path) -> None:
    """Found by scripts/fuzz_models.py: a missing 'game.card_set' was a KeyError."""

    def drop(info: dict[str, Any]) -> None:
        del info["game"]["card_set"]

    with pytest.raises(ModelFileError, match=r"game\.card_set"):
        load_policy_file(_tamper(tmp_path, drop))
