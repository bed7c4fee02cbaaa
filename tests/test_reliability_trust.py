"""Issue 26, item 2: trust to unpickle comes only from the caller, never from a file.

``fort-env train --resume`` builds agents from specs stored in the run folder
(``checkpoints/state.json``: the league's bots and snapshots; ``config.json``: the opponents).
A spec planted there that asks for ``trusted=1`` is refused (``RunFolderError`` naming the file;
on the command line one line ``error: --resume: FILE: ...``) before any agent is built, so the
malicious zip it names never runs. ``rllib:PATH`` (Ray's pickled checkpoints) needs the same
explicit opt-in as an SB3 zip.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import agents
from fort_env import ConfigError, ModelFileError
from tests.test_reliability_models import malicious_zip


@pytest.fixture
def evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "PWNED"
    return malicious_zip(tmp_path / "evil.zip", marker), marker


def _run_folder(out: Path, state_change=None, config_change=None) -> Path:
    """A run folder that ``--resume`` reads: config.json, checkpoints/state.json and a
    (placeholder) latest.safetensors."""
    from train import selfplay

    config = dataclasses.asdict(selfplay.make_config("tiny"))
    if config_change:
        config_change(config)
    (out / "checkpoints").mkdir(parents=True)
    (out / "config.json").write_text(json.dumps(config))
    state = {"history": [], "evals": [], "best": 0.0, "last_eval": 0, "elapsed_before": 0.0}
    state["league"] = {"bots": {"random": 1.0}, "snapshots": [], "snapshot_weight": 0.0}
    if state_change:
        state_change(state)
    (out / "checkpoints" / "state.json").write_text(json.dumps(state))
    (out / "checkpoints" / "latest.safetensors").write_bytes(b"placeholder")
    return out


@pytest.mark.parametrize(
    "spec",
    [
        "ppo:{zip}:trusted=1",
        "ppo:{zip}:deterministic=0:trusted=1",
        "ppo:{zip}: trusted =1",
        "ppo:{zip}:trusted=1.0",
    ],
)
@pytest.mark.parametrize("where", ["bots", "snapshots"])
def test_state_json_cannot_grant_trust(
    evil: tuple[Path, Path], tmp_path: Path, spec: str, where: str
) -> None:
    from train import selfplay

    zip_path, marker = evil
    spec = spec.format(zip=zip_path)

    def plant(state: dict) -> None:
        if where == "bots":
            state["league"]["bots"][spec] = 1.0
        else:
            state["league"]["snapshots"] = [spec]
            state["league"]["snapshot_weight"] = 0.5

    out = _run_folder(tmp_path / "run", state_change=plant)
    with pytest.raises(selfplay.RunFolderError, match="trusted=1") as info:
        _, league = selfplay.load_state(out)
        for s in league.weights():  # before the fix: the league built it, unpickling the zip
            league.agent(s)
    assert "state.json" in str(info.value) and "--trust-pickle" in str(info.value)
    assert not marker.exists()


@pytest.mark.parametrize("field", ["opponents", "eval_opponents", "final_eval_opponents"])
def test_config_json_cannot_grant_trust(
    evil: tuple[Path, Path], tmp_path: Path, field: str
) -> None:
    from train.cli import train
    from train.selfplay import RunFolderError

    zip_path, marker = evil
    spec = f"ppo:{zip_path}:trusted=1"

    def plant(config: dict) -> None:
        config[field] = {spec: 1.0} if field == "opponents" else [spec]

    out = _run_folder(tmp_path / "run", config_change=plant)
    with pytest.raises(RunFolderError, match=r"config.json.*trusted=1"):
        train(out=out, resume=True, progress=False, verbose=0)
    assert not marker.exists()


def test_resume_on_the_command_line_refuses_a_planted_spec(
    evil: tuple[Path, Path], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    zip_path, marker = evil

    def plant(state: dict) -> None:
        state["league"]["bots"][f"ppo:{zip_path}:trusted=1"] = 1.0

    out = _run_folder(tmp_path / "run", state_change=plant)
    result = CliRunner().invoke(app, ["train", "--resume", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and lines[0].startswith("error: --resume: ")
    assert "state.json" in lines[0] and "trusted=1" in lines[0]
    assert "Traceback" not in result.output
    assert not marker.exists()


def test_the_caller_may_still_grant_trust(evil: tuple[Path, Path]) -> None:
    """The Python caller's own argument is the opt-in (the payload runs: the test is real)."""
    zip_path, marker = evil
    with pytest.raises(ModelFileError):  # not a real model, but it was unpickled
        agents.make(f"ppo:{zip_path}:trusted=1")
    assert marker.exists()


def test_check_file_spec() -> None:
    assert (
        agents.check_file_spec("ppo:x.safetensors:trusted=0", "f") == "ppo:x.safetensors:trusted=0"
    )
    assert agents.check_file_spec("random", "f") == "random"
    for bad in ("ppo:x.zip:trusted=1", "rllib:ckpt:trusted=1", "", 3, None):
        with pytest.raises(ConfigError, match=r"^f: "):
            agents.check_file_spec(bad, "f")


# ------------------------------------------------------------------------------ rllib
def _fake_rllib_checkpoint(tmp_path: Path, marker: Path) -> Path:
    """An RLModule directory whose pickles would create ``marker`` when loaded."""
    import pickle

    from tests.test_reliability_models import _Payload

    d = tmp_path / "ckpt"
    d.mkdir()
    for name in ("class_and_ctor_args.pkl", "module_state.pkl"):
        (d / name).write_bytes(pickle.dumps(_Payload(marker)))
    return d


def test_rllib_needs_the_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    ckpt = _fake_rllib_checkpoint(tmp_path, marker)
    for spec in (f"rllib:{ckpt}", f"rllib:{ckpt}:trusted=0", f"rllib:{ckpt}:deterministic=0"):
        with pytest.raises(ModelFileError, match=r"pickle.*rllib:PATH:trusted=1.*--trust-pickle"):
            agents.make(spec)
    assert not marker.exists()


def test_rllib_without_the_opt_in_is_one_line_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    marker = tmp_path / "PWNED"
    ckpt = _fake_rllib_checkpoint(tmp_path, marker)
    result = CliRunner().invoke(app, ["tournament", "--agents", f"rllib:{ckpt},random"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--trust-pickle" in lines[0]
    assert not marker.exists()


def test_trust_pickle_covers_rllib() -> None:
    assert agents.with_trust("rllib:ckpt") == "rllib:ckpt:trusted=1"
    assert agents.with_trust("ppo:m.zip:deterministic=0") == "ppo:m.zip:deterministic=0:trusted=1"
    assert agents.with_trust("ppo:m.zip:trusted=1") == "ppo:m.zip:trusted=1"
    assert agents.with_trust("random") == "random"
