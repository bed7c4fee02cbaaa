"""Issue 12, command line: every bad argument is one error naming the option, no traceback.

Usage errors (a value out of the option's declared range, a malformed list) exit 2 with
typer's usage message; failures while running (a model file that does not exist, an agent
spec that does not build, an unwritable directory, a corrupt record) exit 1 with one line
``error: OPTION: problem``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fort_env.tools.cli import app

# ranges declared on the options: typer's usage error names the option
USAGE = [
    (["bench", "--rounds", "0"], "--rounds"),
    (["bench", "--seconds", "-1"], "--seconds"),
    (["bench", "--num-players", "5"], "--num-players"),
    (["train", "--n-envs", "0"], "--n-envs"),
    (["train", "--timesteps", "-5"], "--timesteps"),
    (["train", "--minutes", "-1"], "--minutes"),
    (["train", "--seed", "-1"], "--seed"),
    (["train", "--num-players", "5"], "--num-players"),
    (["tournament", "--agents", "random,random", "--games", "0"], "--games"),
    (["tournament", "--agents", "random,random", "--workers", "0"], "--workers"),
    (["tournament", "--agents", "random,random", "--seed", "-3"], "--seed"),
    (["analyze", "--games", "0"], "--games"),
    (["play", "--seat", "9"], "--seat"),
]

# checks in the commands: one line "error: OPTION: problem", exit 2
USAGE_LINES = [
    (["train", "--preset", "nope"], "--preset"),
    (["train", "--setup", "draft"], "--setup"),
    (["tournament", "--agents", "random", "--num-players", "2"], "--agents"),
    (["tournament", "--agents", "random,random", "--setup", "weird"], "--setup"),
    (["analyze", "--num-players", ""], "--num-players"),
    (["analyze", "--num-players", "2,5"], "--num-players"),
    (["analyze", "--num-players", "two"], "--num-players"),
    (["play", "--seat", "3", "--num-players", "2"], "--seat"),
]

FAILURES = [
    (["tournament", "--agents", "ppo:/nonexistent.zip,random"], "--agents ppo:/nonexistent.zip"),
    (["tournament", "--agents", "random:foo=bar,random"], "--agents random:foo=bar"),
    (["tournament", "--agents", "nobody,random"], "--agents nobody"),
    (["tournament", "--agents", "random,random", "--cards", "/nonexistent"], "--cards"),
    (["analyze", "--games", "1", "--out", "/proc/forbidden"], "--out"),
]


def _error_lines(result) -> list[str]:
    text = result.stderr if result.stderr else result.output
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(("args", "option"), USAGE, ids=lambda x: " ".join(x))
def test_usage_errors_exit_2_naming_the_option(args: list[str], option: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    text = result.stderr if result.stderr else result.output
    assert f"'{option}'" in text and "Traceback" not in text


@pytest.mark.parametrize(
    ("args", "option", "code"),
    [(*u, 2) for u in USAGE_LINES] + [(*f, 1) for f in FAILURES],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_one_line_naming_the_option(args: list[str], option: str, code: int) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)
    lines = _error_lines(result)
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: "), lines


@pytest.mark.parametrize(
    "content",
    ["[" * 100_000 + "]" * 100_000, '{"a":', "\udcff", '{"format": "nope"}', "[1, 2]"],
    ids=["deeply nested", "truncated", "not utf-8", "not a record", "a list"],
)
def test_replay_of_a_bad_file_is_one_line(tmp_path: Path, content: str) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    lines = _error_lines(result)
    assert len(lines) == 1 and lines[0].startswith("error: FILE: "), lines


def _console_script() -> Path:
    script = Path(sys.executable).parent / "fort-env"
    if not script.exists():
        pytest.skip("the fort-env console script is not installed next to this Python")
    return script


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["bench", "--rounds", "0"], 2, "'--rounds'"),
        (["tournament", "--agents", "random:foo=bar,random"], 1, "error: --agents random:foo=bar"),
    ],
)
def test_the_installed_console_script(args: list[str], code: int, expected: str) -> None:
    run = subprocess.run(
        [str(_console_script()), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == code, run.stderr
    assert expected in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


# ------------------------------------------ issue 26, item 7: run folders and crafted models
def _run_folder(out: Path) -> Path:
    import dataclasses
    import json

    from train import selfplay

    (out / "checkpoints").mkdir(parents=True)
    config = dataclasses.asdict(selfplay.make_config("tiny"))
    (out / "config.json").write_text(json.dumps(config))
    state = {"history": [], "evals": [], "best": 0.0, "last_eval": 0, "elapsed_before": 0.0}
    state["league"] = {"bots": {"random": 1.0}, "snapshots": [], "snapshot_weight": 0.0}
    (out / "checkpoints" / "state.json").write_text(json.dumps(state))
    (out / "checkpoints" / "latest.safetensors").write_bytes(b"placeholder")
    return out


RUN_CORRUPTIONS = [
    ("checkpoints/state.json", '{"history": []}', "field 'league': missing"),
    ("checkpoints/state.json", "[1, 2]", "must be a JSON object"),
    ("checkpoints/state.json", "{not json", "not JSON"),
    ("checkpoints/state.json", b"\xff\xfe", "not UTF-8"),
    ("checkpoints/state.json", '{"league": {"bots": [], "snapshots": [], "snapshot_weight": 0},'
     ' "history": [], "evals": [], "best": 0, "last_eval": 0, "elapsed_before": 0}', "league.bots"),
    ("checkpoints/state.json", '{"league": {"bots": {"random": 1}, "snapshots": [],'
     ' "snapshot_weight": 0}, "history": [{"timesteps": "x"}], "evals": [], "best": 0,'
     ' "last_eval": 0, "elapsed_before": 0}', "field 'history'"),
    ("checkpoints/state.json", '{"league": {"bots": {"random": 1}, "snapshots": [],'
     ' "snapshot_weight": 0}, "history": [], "evals": [], "best": "high",'
     ' "last_eval": 0, "elapsed_before": 0}', "field 'best'"),
    ("config.json", '{"net_arch": "big"}', "field 'net_arch'"),
    ("config.json", '{"net_arch": [65536]}', "layer width"),
    ("config.json", '{"n_envs": 1e9}', "field 'n_envs'"),
    ("config.json", '{"num_players": 9}', "field 'num_players'"),
    ("config.json", '{"bogus": 1}', "unknown field"),
    ("config.json", '{"opponents": {"random": "a lot"}}', "field 'opponents'"),
    ("config.json", "null", "must be a JSON object"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "words"), RUN_CORRUPTIONS)
def test_a_corrupt_run_folder_is_one_line_naming_resume(
    tmp_path: Path, name: str, content: str | bytes, words: str
) -> None:
    out = _run_folder(tmp_path / "run")
    if isinstance(content, bytes):
        (out / name).write_bytes(content)
    else:
        (out / name).write_text(content)
    result = CliRunner().invoke(app, ["train", "--resume", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.startswith("error")]
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: --resume: {out / name}: "), lines[0]
    assert words in lines[0]


def _crafted_model(tmp_path: Path, kind: str) -> Path:
    import hashlib
    import json

    pytest.importorskip("sb3_contrib")
    from safetensors.torch import load_file, save_file

    from tests.test_reliability_models import _saved_policy

    weights = _saved_policy(tmp_path / "bad")
    description = weights.with_suffix(".json")
    info = json.loads(description.read_text())
    if kind == "huge-weights":
        tensors = load_file(str(weights))
        tensors["action_net.weight"].fill_(3e38)
        save_file(tensors, str(weights))
    elif kind == "wide":
        info["network"]["net_arch"]["pi"] = [65536]
    elif kind == "deep":
        info["network"]["net_arch"]["pi"] = [16] * 20_000
    info["sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    description.write_text(json.dumps(info))
    return weights


@pytest.mark.parametrize("kind", ["huge-weights", "wide", "deep"])
def test_a_crafted_model_is_one_line(tmp_path: Path, kind: str) -> None:
    weights = _crafted_model(tmp_path, kind)
    args = ["tournament", "--agents", f"ppo:{weights},random", "--games", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: --agents ppo:{weights}: "), lines
    assert "bad." in lines[0]
