"""Issue 42, model files (round three): checked before they cost, regular files only, and a
network that overflows on real positions refused at load.

- A sparse multi-GiB ``NAME.safetensors`` is refused by its size (against the size the
  description's network implies) before a byte of it is hashed.
- ``NAME.safetensors`` or ``NAME.json`` that is (or links to) ``/proc/self/mem``, a device, a
  FIFO or a directory is refused with ``ModelFileError`` naming the file (never ``OSError``;
  a FIFO is never opened, so nothing blocks).
- Weights within every load-time limit that stay finite on the old probes (zeros, ones, the
  opening view) but overflow on positions of real games are refused at load with
  ``ModelFileError`` naming the file, in ``ppo:`` and ``puct:`` alike.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import agents
import agents.learned.policy_io as policy_io
from agents.learned.policy_file import load_policy_file, policy_paths, read_description
from fort_env import FortGame, ModelFileError
from tests.test_reliability_models import _model, _rewrite, _saved_policy


def _within(seconds: float, call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a thread; fail the test if it has not returned after ``seconds`` (a
    FIFO opened for reading blocks forever). Returns what it raised (``None``: nothing)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # the error is the result
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the call did not return within {seconds} s (blocked)"
    return outcome[0]


def _no_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path, limit: int) -> bytes:
        raise AssertionError(f"{path} was read before its size was checked")

    # where load_policy_file and load_checkpoint (through read_tensor_file) read a tensor file
    monkeypatch.setattr(policy_io, "_read_bytes", refuse)


def _no_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(data: bytes) -> str:
        raise AssertionError(f"{len(data)} bytes were hashed before their header was checked")

    monkeypatch.setattr(policy_io, "_sha256_bytes", refuse)


# ------------------------------------------------------------------- (a) size before hash
def test_a_sparse_huge_weights_file_is_refused_by_size_before_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = _saved_policy(tmp_path / "p")
    with weights.open("r+b") as f:
        f.truncate(4 * 2**30)  # 4 GiB, sparse: hashing it took ~35 s
    _no_read(monkeypatch)
    start = time.perf_counter()
    with pytest.raises(ModelFileError, match=r"p\.safetensors: .*4294967296 bytes") as err:
        load_policy_file(weights)
    assert time.perf_counter() - start < 5
    assert "described network" in str(err.value)
    with pytest.raises(ModelFileError, match=r"p\.safetensors"):
        agents.make(f"ppo:{weights}")


def test_a_truncated_weights_file_is_refused_by_size_before_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = _saved_policy(tmp_path / "p")
    weights.write_bytes(weights.read_bytes()[:100])
    _no_hash(monkeypatch)
    with pytest.raises(ModelFileError, match=r"p\.safetensors: not a safetensors file"):
        load_policy_file(weights)


def test_a_checkpoint_s_optimizer_file_is_sized_before_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.learned.policy_file import load_into_model, save_checkpoint_files

    model = _model()
    save_checkpoint_files(model, tmp_path / "c", num_players=2, setup="basic", training={})
    optimizer = tmp_path / "c.optimizer.safetensors"
    with optimizer.open("r+b") as f:
        f.truncate(4 * 2**30)
    real = policy_io._read_bytes  # reads the weights and the optimizer file

    def only_the_weights(path: Path, limit: int) -> bytes:
        if path.name.endswith(".optimizer.safetensors"):
            raise AssertionError(f"{path} was read before its size was checked")
        return real(path, limit)

    monkeypatch.setattr(policy_io, "_read_bytes", only_the_weights)
    with pytest.raises(ModelFileError, match=r"c\.optimizer\.safetensors: .*bytes"):
        load_into_model(_model(), tmp_path / "c")


# ------------------------------------------------------------------- (b) regular files only
def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


def _link(target: str) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.symlink_to(target)
        return path

    return make


KINDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "/proc/self/mem": (_link("/proc/self/mem"), ""),
    "/dev/zero": (_link("/dev/zero"), "device"),
    "/dev/null": (_link("/dev/null"), "device"),
    "a FIFO": (_fifo, "FIFO"),
    "a directory": (_directory, "directory"),
    "a link to a FIFO": (lambda p: _link(str(_fifo(p.with_name("fifo"))))(p), "FIFO"),
    "a link to a directory": (
        lambda p: _link(str(_directory(p.with_name("folder"))))(p),
        "directory",
    ),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("which", ["safetensors", "json"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_only_regular_files_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, which: str
) -> None:
    if kind == "/proc/self/mem" and not Path("/proc/self/mem").exists():
        pytest.skip("no /proc here")
    weights = _saved_policy(tmp_path / "p")
    description = policy_paths(weights)[1]
    target = weights if which == "safetensors" else description
    target.unlink()
    make, words = KINDS[kind]
    make(target)
    if which == "safetensors":
        _no_read(monkeypatch)  # refused before any read of the tensors
    for load in (load_policy_file, read_description, lambda p: agents.make(f"ppo:{p}")):
        if which == "safetensors" and load is read_description:
            continue  # the description alone does not read the tensors
        for name in (weights, description, tmp_path / "p"):
            raised = _within(20, lambda load=load, name=name: load(name))
            assert isinstance(raised, ModelFileError), (kind, which, repr(raised))
            assert f"p.{which}" in str(raised), str(raised)
            assert words in str(raised), str(raised)


# --------------------------------------------------------- (c) non-finite on real positions
def _overflowing_on_real_positions(tmp_path: Path) -> Path:
    """A ReLU policy within every limit (weights at most MAX_WEIGHT, finite) whose first hidden
    unit is ``relu(turns_0 - 1.5)``: 0 on the zeros, the ones and the opening (no seat has had
    a turn), positive once the seat to act has had two turns; seven layers of 1e6 then
    overflow float32. The value head is zero (finite everywhere)."""
    import torch

    from fort_env.views.observation import observation_layout

    model = _model(arch=(4,) * 8)
    weights = save_policy_of(model, tmp_path / "p")
    game = FortGame(2)
    turns = next(s for s in observation_layout(2, game).slices if s.name == "turns").offset
    tensors = {k: torch.zeros_like(v) for k, v in model.policy.state_dict().items()}
    tensors["mlp_extractor.policy_net.0.weight"][0, turns] = 1.0
    tensors["mlp_extractor.policy_net.0.bias"][0] = -1.5
    for i in range(1, 8):
        tensors[f"mlp_extractor.policy_net.{2 * i}.weight"][0, 0] = 1e6
    tensors["action_net.weight"][:, 0] = 1.0
    return _rewrite(weights, tensors, activation_fn="ReLU")


def save_policy_of(model: Any, path: Path) -> Path:
    from agents.learned.policy_file import save_policy

    return save_policy(model, path, num_players=2)


def test_the_crafted_network_passes_the_old_probes(tmp_path: Path) -> None:
    """The case is real: finite on zeros, ones and the opening, inf on a played position."""
    import numpy as np
    import torch
    from safetensors.torch import load_file

    from agents.learned.policy_io import _build_policy
    from agents.learned.ppo import policy_logits

    weights = _overflowing_on_real_positions(tmp_path)
    info = json.loads(policy_paths(weights)[1].read_text())
    policy = _build_policy(info)
    policy.load_state_dict(load_file(str(weights)), strict=True)
    game = FortGame(2)
    state = game.new_initial_state(0)
    size = game.observation_size
    opening = state.observation_tensor(state.current_player())
    old = torch.stack(
        [torch.zeros(size), torch.ones(size), torch.as_tensor(opening, dtype=torch.float32)]
    )
    with torch.no_grad():
        assert bool(torch.isfinite(policy_logits(policy, old)).all())
    rng = np.random.default_rng(0)
    late = []
    while not state.is_terminal():
        late.append(state.observation_tensor(state.current_player()))
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    with torch.no_grad():
        logits = policy_logits(policy, torch.as_tensor(np.array(late), dtype=torch.float32))
    assert not bool(torch.isfinite(logits).all())


def test_a_network_that_overflows_on_real_positions_is_refused_at_load(tmp_path: Path) -> None:
    weights = _overflowing_on_real_positions(tmp_path)
    with pytest.raises(ModelFileError, match=r"p\.safetensors: .*not finite") as err:
        load_policy_file(weights)
    assert "position" in str(err.value)
    with pytest.raises(ModelFileError, match=r"p\.safetensors: .*not finite"):
        agents.make(f"ppo:{weights}")
    with pytest.raises(ModelFileError, match=r"p\.safetensors: .*not finite"):
        agents.make(f"puct:model={weights}:sims=4")


def test_the_probe_is_cheap_and_a_good_model_still_loads(tmp_path: Path) -> None:
    from agents.learned.policy_io import _probe_observations

    for n in (2, 3, 4):
        size = FortGame(n).observation_size
        game = {"num_players": n, "setup": "basic", "card_set": None, "observation_size": size}
        _probe_observations(game)  # warm up the card set's caches
        start = time.perf_counter()
        observations, labels = _probe_observations(game)
        elapsed = time.perf_counter() - start
        assert observations.shape == (len(labels), size) and len(labels) >= 8
        assert "the opening view" in labels and any("after" in x for x in labels)
        assert elapsed < 1.0, elapsed  # ~10 ms on the C++ engine; generous for a loaded machine
    weights = _saved_policy(tmp_path / "good")
    _, info = load_policy_file(weights)
    assert info["sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
