"""Files written and read with care (docs/reliability.md, "Files: writers and loaders").

- Writers own only regular files: a FIFO, a device, a directory or a link to one at an output
  name is refused with ``OutputFileError`` naming it and is never replaced; a symlinked folder
  inside an output tree is refused (``fort_env/game/files.py`` and every writer).
- Loaders read a tensor file once: the size, header and hash are checked on the bytes that are
  then parsed, so a file rewritten while it loads gives ``ModelFileError``, never a signal.
- A policy's pair is written as one; its sidecar fields are checked at load; ``value-fit`` and
  ``expert`` check their arguments before the first game.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from fort_env.game.errors import OutputFileError
from fort_env.game.files import (
    check_folders,
    check_target,
    make_folders,
    open_for_writing,
    write_bytes,
    write_files,
    write_text,
)

ROOT = Path(__file__).resolve().parents[1]


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _is_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(os.lstat(path).st_mode)


def _special_names(folder: Path) -> dict[str, Path]:
    """Names an output may be given that are not regular files: a FIFO, a link to a FIFO (as
    ``/dev/null`` or ``/proc/self/fd/1`` are links to non-regular files), a directory, a link
    to a directory, a link loop. Nothing under /dev is touched."""
    fifo = _fifo(folder / "fifo")
    (folder / "dir").mkdir()
    (folder / "to-fifo").symlink_to(fifo)
    (folder / "to-dir").symlink_to(folder / "dir")
    (folder / "loop").symlink_to(folder / "loop")
    return {name: folder / name for name in ("fifo", "to-fifo", "dir", "to-dir", "loop")}


def _unchanged(names: dict[str, Path]) -> None:
    folder = names["fifo"].parent
    assert _is_fifo(names["fifo"])
    assert os.readlink(names["to-fifo"]) == str(names["fifo"])
    assert os.readlink(names["to-dir"]) == str(folder / "dir")
    assert list((folder / "dir").iterdir()) == []
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary left


# --------------------------------------------------------------------------- the helper
def test_the_writer_refuses_every_name_that_is_not_a_regular_file(tmp_path: Path) -> None:
    names = _special_names(tmp_path)
    for name, path in names.items():
        with pytest.raises(OutputFileError, match=rf"{name}: is ") as err:
            write_text(path, "x")
        assert err.value.path == path and isinstance(err.value, OSError)
    with pytest.raises(OutputFileError, match="to-fifo: is a symlink to a FIFO"):
        check_target(names["to-fifo"])
    _unchanged(names)


def test_a_link_to_a_regular_file_or_to_nothing_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "a").symlink_to(victim)
    (tmp_path / "b").symlink_to(tmp_path / "nothing")
    write_text(tmp_path / "a", "new")
    write_text(tmp_path / "b", "new")
    assert victim.read_text() == "keep" and not (tmp_path / "nothing").exists()
    assert not (tmp_path / "a").is_symlink() and (tmp_path / "b").read_text() == "new"


def test_several_files_are_written_as_one(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("old a")
    (tmp_path / "b").write_text("old b")
    fifo = _fifo(tmp_path / "c")
    with pytest.raises(OutputFileError, match="c: is a FIFO"):
        write_files([(tmp_path / "a", b"new a"), (tmp_path / "b", b"new b"), (fifo, b"c")])
    assert (tmp_path / "a").read_text() == "old a" and (tmp_path / "b").read_text() == "old b"
    write_files([(tmp_path / "a", b"new a"), (tmp_path / "b", b"new b")])
    assert (tmp_path / "a").read_text() == "new a" and (tmp_path / "b").read_text() == "new b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "c"]


def test_a_symlinked_folder_inside_an_output_tree_is_refused(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x").write_text("keep")
    make_folders(out, out / "round-001" / "samples")
    (out / "round-002").symlink_to(elsewhere)
    with pytest.raises(OutputFileError, match=r"round-002: is a symlink .* inside the output"):
        make_folders(out, out / "round-002" / "samples")
    with pytest.raises(OutputFileError, match="round-002: is a symlink"):
        write_bytes(out / "round-002" / "x", b"new", root=out)
    with pytest.raises(OutputFileError, match="round-002: is a symlink"):
        check_folders(out, out / "round-002")
    (out / "round-003").write_text("a file")
    with pytest.raises(OutputFileError, match=r"round-003: is not a regular file|not a folder"):
        make_folders(out, out / "round-003" / "samples")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["x"]
    assert (elsewhere / "x").read_text() == "keep"
    # the root itself may be a link: the user chose it
    (tmp_path / "latest").symlink_to(out)
    write_text(tmp_path / "latest" / "round-001" / "y", "ok", root=tmp_path / "latest")
    assert (out / "round-001" / "y").read_text() == "ok"


def test_a_log_opened_for_writing_refuses_a_fifo_and_replaces_a_link(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "fifo")
    with pytest.raises(OutputFileError, match="FIFO"):
        open_for_writing(fifo)
    (tmp_path / "to-fifo").symlink_to(fifo)
    with pytest.raises(OutputFileError, match="symlink to a FIFO"):
        open_for_writing(tmp_path / "to-fifo")
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "log").symlink_to(victim)
    with open_for_writing(tmp_path / "log") as log:
        log.write("line\n")
    assert victim.read_text() == "keep" and (tmp_path / "log").read_text() == "line\n"
    assert not (tmp_path / "log").is_symlink() and _is_fifo(fifo)


# --------------------------------------------------------------------------- the writers
def _within(seconds: float, call) -> BaseException | None:  # type: ignore[no-untyped-def]
    """``call()`` in a thread that must return within ``seconds`` (a FIFO opened for writing
    blocks until a reader comes); returns what it raised."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the writer blocked on a FIFO"
    return outcome[0]


def test_records_pages_plots_and_ladders_refuse_special_files(tmp_path: Path) -> None:
    import fort_env
    from fort_env.records import make_record, save_record
    from fort_env.tools.replay_html import write_replay_html

    state = fort_env.FortGame(2).new_initial_state(seed=1)
    actions = []
    for _ in range(3):
        actions.append(state.legal_actions()[0])
        state.apply_action(actions[-1])
    record = make_record({"num_players": 2, "setup": "basic", "cards": None}, 1, actions)
    names = _special_names(tmp_path)
    for path in names.values():
        for write in (save_record, write_replay_html):
            error = _within(10, lambda w=write, p=path: w(record, p))
            assert isinstance(error, OutputFileError), (path, error)
            assert str(path) in str(error)
    _unchanged(names)


def test_ladder_outputs_and_doc_are_refused_or_written_safely(tmp_path: Path) -> None:
    from agents.arena.ladder import write_section

    fifo = _fifo(tmp_path / "agents.md")
    error = _within(10, lambda: write_section(fifo, 2, "body"))
    assert isinstance(error, OutputFileError) and _is_fifo(fifo)
    victim = tmp_path / "victim.md"
    (tmp_path / "new.md").symlink_to(victim)  # a link to nothing yet: never written through
    write_section(tmp_path / "new.md", 2, "body")
    assert not victim.exists() and "body" in (tmp_path / "new.md").read_text()


def test_play_save_is_refused_before_the_game(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    fifo = _fifo(tmp_path / "game.json")
    (tmp_path / "link.json").symlink_to(fifo)
    for path in (fifo, tmp_path / "link.json"):
        result = CliRunner().invoke(
            app, ["play", "--opponents", "random", "--seed", "1", "--save", str(path)]
        )
        assert result.exit_code == 2, result.output
        assert "--save" in result.output and "FIFO" in result.output
    assert _is_fifo(fifo)


# --------------------------------------------------------------------------- loaders
RACE = textwrap.dedent(
    """
    import os, sys, threading, time
    import torch
    from agents.learned.policy_file import load_policy_file
    from fort_env import ModelFileError

    weights, seconds = sys.argv[1], float(sys.argv[2])
    good, other = open(weights, "rb").read(), open(sys.argv[3], "rb").read()
    expected = load_policy_file(weights)[0].state_dict()
    stop = threading.Event()

    def rewrite():  # in place: the same file truncated and written again, A or B or half
        fd = os.open(weights, os.O_WRONLY)
        k = 0
        while not stop.is_set():
            data = (good, other, good[: len(good) // 2])[k % 3]
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
            k += 1
        os.ftruncate(fd, 0)
        os.pwrite(fd, good, 0)
        os.close(fd)

    worker = threading.Thread(target=rewrite)
    worker.start()
    loads = refused = 0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            try:
                policy, _ = load_policy_file(weights)
            except ModelFileError:
                refused += 1
                continue
            loads += 1
            got = policy.state_dict()
            assert all(torch.equal(got[k], expected[k]) for k in expected), "other weights"
    finally:
        stop.set()
        worker.join()
    print(loads, refused)
    """
)


def test_a_model_rewritten_while_it_loads_gives_model_file_error_never_a_signal(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    """The file is truncated and rewritten in place in a loop (the description's own bytes,
    another network's, half of them) while it is loaded again and again, in a subprocess so
    that a SIGBUS shows as its exit status. Each load gives the described weights exactly or
    ``ModelFileError``. With ``safetensors.torch.load_file`` (a memory map) this died of SIGBUS
    within seconds, and could load the other network's weights under the first's hash."""
    import torch

    from agents.learned.policy_file import load_policy_file, save_policy

    policy, _ = load_policy_file(untrained_policy_file)
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.01)
    other = save_policy(policy, tmp_path / "other", num_players=2)
    weights = tmp_path / "p.safetensors"
    weights.write_bytes(untrained_policy_file.read_bytes())
    (tmp_path / "p.json").write_bytes(untrained_policy_file.with_suffix(".json").read_bytes())
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, "-c", RACE, str(weights), "4", str(other)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    loads, refused = map(int, run.stdout.split()[-2:])
    assert refused > 0, "the rewrites never reached a load: the test proves nothing"
    assert loads + refused >= 10


def test_a_float64_tensor_is_named_with_its_dtype(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    import hashlib

    from safetensors.torch import load, save

    from agents.learned.policy_file import load_policy_file
    from fort_env import ModelFileError

    tensors = load(untrained_policy_file.read_bytes())
    name = sorted(tensors)[0]
    tensors[name] = tensors[name].double()
    data = save(tensors)
    weights = tmp_path / "p.safetensors"
    weights.write_bytes(data)
    info = json.loads(untrained_policy_file.with_suffix(".json").read_text())
    info["sha256"] = hashlib.sha256(data).hexdigest()
    (tmp_path / "p.json").write_text(json.dumps(info))
    shape = list(tensors[name].shape)
    with pytest.raises(ModelFileError) as err:
        load_policy_file(weights)
    assert f"should be float32 of shape {shape}, got float64 of shape {shape}" in str(err.value)


# --------------------------------------------------------------------------- pairs, sidecars
def _copy_of(policy: Path, folder: Path, name: str = "p") -> Path:
    """A copy of a saved policy's pair as ``folder/name``; returns its ``.safetensors``."""
    weights = folder / f"{name}.safetensors"
    weights.write_bytes(policy.read_bytes())
    (folder / f"{name}.json").write_bytes(policy.with_suffix(".json").read_bytes())
    return weights


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("training", [1, 2, 3], "field 'training' must be an object or null"),
        ("training", "notes", "field 'training' must be an object or null"),
        ("timesteps", "abc", "field 'timesteps' must be an int"),
        ("timesteps", -1, "field 'timesteps' must be an int"),
        ("timesteps", 1.5, "field 'timesteps' must be an int"),
        ("timesteps", True, "field 'timesteps' must be an int"),
        ("timesteps", 2**64, "field 'timesteps' must be an int"),
        ("sha256", "abc", "field 'sha256' must be 64 hex digits"),
        ("weights", "../x.safetensors", "field 'weights' must be a file name"),
        ("optimizer", [1], "field 'optimizer' must be an object"),
    ],
)
def test_sidecar_fields_are_checked_at_load(
    tmp_path: Path, untrained_policy_file: Path, field: str, value: object, words: str
) -> None:
    from agents.learned.policy_file import load_policy_file, read_description
    from fort_env import ModelFileError

    weights = _copy_of(untrained_policy_file, tmp_path)
    info = json.loads(weights.with_suffix(".json").read_text())
    info[field] = value
    weights.with_suffix(".json").write_text(json.dumps(info))
    for load in (read_description, load_policy_file):
        with pytest.raises(ModelFileError, match=words) as err:
            load(weights)
        assert "p.json" in str(err.value)


def test_a_checkpoint_s_optimizer_settings_are_checked_at_load(tmp_path: Path) -> None:
    from agents.learned.policy_file import read_description, save_checkpoint_files
    from fort_env import ModelFileError
    from tests.test_reliability_models import _model

    save_checkpoint_files(_model(), tmp_path / "c", num_players=2, setup="basic", training={})
    description = tmp_path / "c.json"
    good = json.loads(description.read_text())
    read_description(description)  # the saved one loads
    for where, value, words in [
        ("lr", float("nan"), "must be finite"),
        ("lr", -1.0, "'optimizer.param_groups[0].lr' must be a finite number >= 0"),
        ("betas", [0.9, 1.5], "betas' must be two numbers in"),
        ("eps", "tiny", "'optimizer.param_groups[0].eps' must be a finite number"),
        ("params", "all", "params' must be a list of tensor indices"),
        ("weird", {"a": 1}, "is not a setting of an optimizer"),
    ]:
        info = json.loads(json.dumps(good))
        info["optimizer"]["param_groups"][0][where] = value
        description.write_text(json.dumps(info))  # NaN as JSON's NaN token
        with pytest.raises(ModelFileError, match=re.escape(words)):
            read_description(description)


def test_a_failed_save_leaves_the_old_pair_whole(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    """The description is made (a training record that is not JSON) and the targets checked
    before anything is written: the old pair still loads. It was: the new weights were written,
    then the description failed, and the old pair no longer loaded (another hash)."""
    from agents.learned.policy_file import load_policy_file, save_policy
    from fort_env import ModelFileError

    weights = _copy_of(untrained_policy_file, tmp_path)
    old = (weights.read_bytes(), weights.with_suffix(".json").read_bytes())
    policy, _ = load_policy_file(weights)
    import torch

    with torch.no_grad():
        next(iter(policy.parameters())).add_(1.0)
    with pytest.raises(ModelFileError, match="not JSON"):
        save_policy(policy, weights, num_players=2, training={"bad": object()})
    with pytest.raises(ModelFileError, match="timesteps"):
        save_policy(policy, weights, num_players=2, timesteps="abc")  # type: ignore[arg-type]
    (tmp_path / "q.safetensors").write_bytes(b"old q")
    _fifo(tmp_path / "q.json")
    with pytest.raises(OutputFileError, match=r"q\.json: is a FIFO"):
        save_policy(policy, tmp_path / "q", num_players=2)
    assert (tmp_path / "q.safetensors").read_bytes() == b"old q"
    assert (weights.read_bytes(), weights.with_suffix(".json").read_bytes()) == old
    load_policy_file(weights)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_pair_interrupted_between_its_renames_is_refused_never_mismatched(
    tmp_path: Path, untrained_policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The description is renamed into place first: if the weights' rename fails, the new
    description sits beside the old weights and the hash check refuses the pair. New weights
    beside an old description (the order before) would be the mismatch this rules out."""
    import torch

    import fort_env.game.files as files
    from agents.learned.policy_file import load_policy_file, save_policy
    from fort_env import ModelFileError

    weights = _copy_of(untrained_policy_file, tmp_path)
    old_weights = weights.read_bytes()
    policy, _ = load_policy_file(weights)
    with torch.no_grad():
        next(iter(policy.parameters())).add_(1.0)
    real = os.replace

    def fail_on_weights(src: str, dst: object) -> None:
        if str(dst).endswith(".safetensors"):
            raise OSError(28, "No space left on device")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(files.os, "replace", fail_on_weights)
    with pytest.raises(OSError, match="No space"):
        save_policy(policy, weights, num_players=2, training={"note": "new"})
    monkeypatch.setattr(files.os, "replace", real)
    assert weights.read_bytes() == old_weights  # never new weights beside an old description
    assert json.loads(weights.with_suffix(".json").read_text())["training"] == {"note": "new"}
    with pytest.raises(ModelFileError, match="SHA-256"):
        load_policy_file(weights)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


# --------------------------------------------------------------------------- value-fit
def _value_fit(args: list[str]):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    return CliRunner().invoke(app, ["value-fit", *args])


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played fails the test: the checks must come before the first game."""
    import train.value_fit as value_fit

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the arguments were checked")

    monkeypatch.setattr(value_fit, "play_positions", refuse)


def test_value_fit_refuses_bad_outputs_before_the_first_game(
    tmp_path: Path, untrained_policy_file: Path, no_games: None
) -> None:
    model = _copy_of(untrained_policy_file, tmp_path, "model")
    folder = tmp_path / "dir"
    folder.mkdir()
    existing = _copy_of(untrained_policy_file, tmp_path, "old")
    _fifo(tmp_path / "fifo.json")
    cases = [
        ([str(folder) + "/"], "is a folder"),
        ([str(folder)], "is a folder"),
        ([""], "is empty"),
        ([str(model)], "is the model's own file"),
        ([str(tmp_path / "model"), "--overwrite"], "is the model's own file"),
        ([str(tmp_path / "model.json"), "--overwrite"], "is the model's own file"),
        ([str(existing)], "exists: pass --overwrite"),
        ([str(tmp_path / "fifo")], "fifo.json: is a FIFO"),
    ]
    (tmp_path / "link.safetensors").symlink_to(model)  # another name for the model's file
    (tmp_path / "link.json").symlink_to(tmp_path / "model.json")
    cases.append(([str(tmp_path / "link"), "--overwrite"], "is the model's own file"))
    for out, words in cases:
        result = _value_fit(["--model", str(model), "--out", *out])
        assert result.exit_code == 2, (out, result.output)
        assert "error: --out:" in result.output and words in result.output, (out, result.output)
    assert sorted(p.name for p in folder.iterdir()) == []
    assert existing.read_bytes() == untrained_policy_file.read_bytes()


def test_value_fit_checks_keep_and_the_model_s_sidecar_before_the_first_game(
    tmp_path: Path, untrained_policy_file: Path, no_games: None
) -> None:
    model = _copy_of(untrained_policy_file, tmp_path, "model")
    out = str(tmp_path / "new")
    result = _value_fit(["--model", str(model), "--out", out, "--games", "10", "--keep", "0.001"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "keep 0.001 keeps about" in result.output and "raise keep" in result.output
    info = json.loads(model.with_suffix(".json").read_text())
    info["training"] = [1, 2, 3]
    model.with_suffix(".json").write_text(json.dumps(info))
    result = _value_fit(["--model", str(model), "--out", out, "--games", "10"])
    assert result.exit_code == 1 and "error: --model:" in result.output, result.output
    assert "field 'training' must be an object" in result.output
    assert not list(tmp_path.glob("new*"))


def test_the_ridge_fit_gives_a_clear_error_without_positions() -> None:
    import numpy as np

    from agents.learned.policy_file import load_policy_file
    from train.value_fit import fit_value_head

    net, _ = load_policy_file("agents/zoo/ppo-2p.safetensors")
    obs = np.zeros((3, net.observation_size), np.float32)
    with pytest.raises(ValueError, match="two games at least"):
        fit_value_head(net, obs, np.ones(3, np.float32), np.zeros(3, np.int64))


# --------------------------------------------------------------------------- expert, train
def test_expert_refuses_an_empty_out_and_a_linked_round_folder_before_the_first_game(
    tmp_path: Path, untrained_policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from train import expert

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the output was checked")

    monkeypatch.setattr(expert, "self_play", refuse)
    config = expert.ExpertConfig(model=str(untrained_policy_file), rounds=3, workers=2)
    with pytest.raises(ValueError, match="empty"):
        expert.run(config, "", echo=lambda *_: None)
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    (elsewhere / "samples").mkdir(parents=True)
    (elsewhere / "samples" / "shard-00.npz").write_bytes(b"keep")
    out.mkdir()
    (out / "round-002").symlink_to(elsewhere)
    with pytest.raises(OutputFileError, match="round-002: is a symlink"):
        expert.run(config, out, echo=lambda *_: None)
    (out / "round-002").unlink()
    (out / "round-001" / "samples").mkdir(parents=True)
    _fifo(out / "round-001" / "samples" / "shard-01.npz")
    with pytest.raises(OutputFileError, match=r"shard-01\.npz: is a FIFO"):
        expert.run(config, out, echo=lambda *_: None)
    assert (elsewhere / "samples" / "shard-00.npz").read_bytes() == b"keep"
    assert sorted(p.name for p in out.iterdir()) == ["round-001"]  # no best.* copied yet

    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    result = CliRunner().invoke(app, ["expert", "--out", "", "--model", str(untrained_policy_file)])
    assert result.exit_code == 2 and "error: --out: is empty" in result.output, result.output


def test_a_training_run_refuses_linked_folders_and_special_files_before_it_starts(
    tmp_path: Path,
) -> None:
    pytest.importorskip("sb3_contrib")
    from train.config import make_config
    from train.progress import mark_latest
    from train.runner import run

    out, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    (out / "league").symlink_to(elsewhere)
    config = make_config("tiny")
    with pytest.raises(OutputFileError, match="league: is a symlink"):
        run(config, out, verbose=0, progress_bar=False)
    (out / "league").unlink()
    _fifo(out / "eval.json")
    with pytest.raises(OutputFileError, match=r"eval\.json: is a FIFO"):
        run(config, out, verbose=0, progress_bar=False)
    assert sorted(p.name for p in out.iterdir()) == ["eval.json"]
    assert list(elsewhere.iterdir()) == []
    (tmp_path / "latest").mkdir()  # not fort-env's link: never replaced
    with pytest.raises(OutputFileError, match="latest: is not a symlink"):
        mark_latest(out)
    assert (tmp_path / "latest").is_dir()
