"""Files written into user-chosen folders never follow a planted symlink and are never seen
half-written (issue 42: fort_env/game/files.py and its callers)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fort_env.game.errors import OutputFileError
from fort_env.game.files import write_bytes, write_text
from fort_env.records import save_record


def _plant(folder: Path, name: str) -> Path:
    """A symlink ``folder/name`` to a victim file; returns the victim."""
    victim = folder / "victim.txt"
    victim.write_text("keep me")
    (folder / name).symlink_to(victim)
    return victim


def test_a_write_replaces_a_planted_symlink_instead_of_following_it(tmp_path: Path) -> None:
    victim = _plant(tmp_path, "out.json")
    write_text(tmp_path / "out.json", "{}")
    assert victim.read_text() == "keep me"
    assert not (tmp_path / "out.json").is_symlink()
    assert (tmp_path / "out.json").read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "victim.txt"]


def test_mode_follows_the_umask_and_nothing_is_left_on_failure(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_bytes(tmp_path / "a.bin", b"x")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    (tmp_path / "dir").mkdir()
    with pytest.raises(OutputFileError, match="dir: is a directory"):
        write_bytes(tmp_path / "dir", b"x")
    with pytest.raises(FileNotFoundError):
        write_bytes(tmp_path / "missing" / "a.bin", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "dir"]


def test_a_saved_record_does_not_write_through_a_symlink(tmp_path: Path) -> None:
    import fort_env

    state = fort_env.FortGame(2).new_initial_state(seed=1)
    actions = []
    for _ in range(5):
        actions.append(state.legal_actions()[0])
        state.apply_action(actions[-1])
    from fort_env.records import make_record

    victim = _plant(tmp_path, "game.json")
    record = make_record({"num_players": 2, "setup": "basic", "cards": None}, 1, actions)
    save_record(record, tmp_path / "game.json")
    assert victim.read_text() == "keep me"
    assert (tmp_path / "game.json").read_text().startswith("{")


def test_expert_copies_a_policy_without_following_a_symlink(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    from train import expert

    victim = _plant(tmp_path, "best.safetensors")
    expert._copy_policy(untrained_policy_file, tmp_path / "best")
    assert victim.read_text() == "keep me"
    assert (tmp_path / "best.safetensors").read_bytes() == untrained_policy_file.read_bytes()


def test_a_saved_policy_does_not_write_through_symlinks(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    from agents.learned.policy_file import load_policy_file, save_policy

    victim = _plant(tmp_path, "p.safetensors")
    (tmp_path / "p.json").symlink_to(victim)
    policy, _ = load_policy_file(untrained_policy_file)
    save_policy(policy, tmp_path / "p", num_players=2)
    assert victim.read_text() == "keep me"
    load_policy_file(tmp_path / "p.safetensors")  # a whole, loadable policy
