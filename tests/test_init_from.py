"""Fine-tuning: ``fort-env train --init-from FILE`` (``Config.init_from``).

A lean PPO run starts from a policy file's weights (every tensor equal, the critic fresh when
the file has none), the file is loaded with every check of ``load_policy_file``, a file that
does not fit (another table, another shape, an SB3 policy, ``--algo maskable_ppo``) is one error
before a run folder is made, a resumed run ignores it, and ``config.json`` records it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from fort_env.native import backend as cpp_backend  # noqa: E402

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )

from agents.learned.network import ActorCritic  # noqa: E402
from agents.learned.policy_file import load_policy_file, save_policy  # noqa: E402
from fort_env.game.errors import ConfigError, ModelFileError  # noqa: E402
from train.config import config_from_dict  # noqa: E402
from train.ppo import build_network  # noqa: E402
from train.run_files import RunFolderError  # noqa: E402
from train.selfplay import make_config, run  # noqa: E402

BASE = dict(
    algo="ppo", device="cpu", n_envs=4, n_steps=32, batch_size=64, n_epochs=1, net_arch=(16,),
    opponents={"random": 1.0}, eval_freq=10**9, final_eval_games=2,
    final_eval_opponents=("random",), total_timesteps=256,
)  # fmt: skip


def saved_network(path: Path, num_players: int = 2, trunk: tuple[int, ...] = (16,)) -> Path:
    """A random ActorCritic of the game's sizes saved as a policy file; returns its path."""
    from fort_env import FortGame

    game = FortGame(num_players=num_players)
    torch.manual_seed(7)
    net = ActorCritic(game.observation_size, game.num_distinct_actions, trunk)
    return save_policy(net, path, num_players=num_players, setup="basic", training={})


def tensors(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def test_the_network_starts_from_the_file(tmp_path: Path) -> None:
    path = saved_network(tmp_path / "start")
    loaded, _ = load_policy_file(path)
    fresh = build_network(make_config("tiny", **BASE))
    started = build_network(make_config("tiny", init_from=str(path), **BASE))
    want = tensors(loaded)
    assert set(tensors(started)) == set(want)
    for name, value in tensors(started).items():
        assert torch.equal(value, want[name]), name
    assert not torch.equal(tensors(fresh)["policy_head.weight"], want["policy_head.weight"])
    # a resumed run's network is built without it (its checkpoint is loaded over it)
    unstarted = build_network(make_config("tiny", init_from=str(path), **BASE), init=False)
    assert not torch.equal(tensors(unstarted)["trunk.0.weight"], want["trunk.0.weight"])


def test_a_whole_table_critic_starts_fresh_beside_the_loaded_actor(tmp_path: Path) -> None:
    path = saved_network(tmp_path / "start")
    want = tensors(load_policy_file(path)[0])
    net = build_network(make_config("tiny", init_from=str(path), critic="table", **BASE))
    got = tensors(net)
    assert net.critic is not None
    assert {k for k in got if not k.startswith("critic")} == set(want)
    for name in want:
        assert torch.equal(got[name], want[name]), name


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"num_players": 3}, "2-player basic game cannot start a run of the 3-player"),
        ({"net_arch": (32,)}, "is not the configured one"),
    ],
)
def test_a_file_that_does_not_fit_is_one_error_before_a_run_folder(
    tmp_path: Path, change: dict[str, object], words: str
) -> None:
    path = saved_network(tmp_path / "start")
    config = make_config("tiny", init_from=str(path), **{**BASE, **change})
    out = tmp_path / "run"
    with pytest.raises(ModelFileError, match=words) as info:
        run(config, out, verbose=0, progress_bar=False)
    assert "start.json" in str(info.value)
    assert not out.exists()


def test_a_corrupt_or_missing_file_is_refused_by_the_policy_checks(tmp_path: Path) -> None:
    path = saved_network(tmp_path / "start")
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="SHA-256"):
        build_network(make_config("tiny", init_from=str(path), **BASE))
    with pytest.raises(ModelFileError):
        build_network(make_config("tiny", init_from=str(tmp_path / "none"), **BASE))


def test_maskable_ppo_cannot_start_from_a_file(tmp_path: Path) -> None:
    path = saved_network(tmp_path / "start")
    config = make_config("tiny", init_from=str(path), **{**BASE, "algo": "maskable_ppo"})
    with pytest.raises(ConfigError, match="lean PPO only"):
        run(config, tmp_path / "run", verbose=0, progress_bar=False)
    assert not (tmp_path / "run").exists()


def test_a_run_from_a_file_records_it_and_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    path = saved_network(tmp_path / "start")
    out = tmp_path / "run"
    config = make_config("tiny", init_from=str(path), **BASE)
    run(config, out, verbose=0, progress_bar=False)
    saved = json.loads((out / "config.json").read_text())
    assert saved["init_from"] == str(path)
    assert config_from_dict(saved).init_from == str(path)
    path.unlink()  # a resumed run reads its checkpoint, not the file it started from
    again = run(
        config_from_dict({**saved, "total_timesteps": 512}),
        out,
        resume=True,
        verbose=0,
        progress_bar=False,
    )
    assert again["timesteps"] >= 512


def test_config_json_checks_the_field() -> None:
    assert config_from_dict({"init_from": None}).init_from is None
    with pytest.raises(RunFolderError, match="init_from"):
        config_from_dict({"init_from": 3})


def test_the_cli_takes_init_from(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    runner = CliRunner()
    path = saved_network(tmp_path / "start", trunk=(32,))  # the tiny preset's trunk
    out = tmp_path / "run"
    args = ["train", "--preset", "tiny", "--algo", "ppo", "--device", "cpu", "--out", str(out),
            "--no-progress", "--init-from", str(path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["init_from"] == str(path)
    bad = runner.invoke(app, [*args[:-1], str(tmp_path / "missing.safetensors")])
    assert bad.exit_code == 1 and "--init-from" in bad.output and "missing" in bad.output
    assert len(bad.output.strip().splitlines()) == 1 and not (tmp_path / "missing").exists()
    bad = runner.invoke(app, [*args, "--resume"])
    assert bad.exit_code == 1 and "--init-from" in bad.output
