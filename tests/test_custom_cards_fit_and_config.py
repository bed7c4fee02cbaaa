"""Records of games with a custom card set (``fort_env/records.py`` + ``FortGame(cards=dir)``),
the evaluation fit (``agents/analysis/fit_evaluation.py``) and the training configuration and resume
state (``train/config.py``, ``train/checkpoints.py``)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import fort_env
from agents.analysis import fit_evaluation
from fort_env.game.cards import DATA_DIR
from fort_env.records import RecordError, load_record, replay, save_record
from tests.scenario import act, build, player, replaced

# The coin Best Friends' private action "pack" becomes "score x 3": every seat starts with one.
COIN_FRIENDS = ('public = "gather(any)"\nprivate = "pack"', 3)
FLIPPER = ('public = "gather(any) x coin"\nprivate = "pack"', 1)


@pytest.fixture(scope="module")
def custom_cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cards") / "cards"
    shutil.copytree(DATA_DIR, root)
    text = (root / "cards.toml").read_text()
    for old, count in (COIN_FRIENDS, FLIPPER):
        new = old.replace('private = "pack"', 'private = "score x 3"')
        text = replaced(text, old, new, count)
    (root / "cards.toml").write_text(text)
    return root


def played_custom(cards: Path, seed: int) -> tuple[fort_env.raw_env, int]:
    """A random game with the custom cards; returns the env and how many times a coin Best
    Friend's changed private action was used."""
    env = fort_env.raw_env(num_players=2, cards=str(cards))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    used = 0
    playing = ""
    while not any(env.terminations.values()):
        state = env.fort_state()
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(rng.choice(legal))
        text = state.action_to_string(action)
        if text.startswith("play "):
            playing = text
        elif text.startswith("use ") and "private" in text:
            used += any(f"play {n} " in playing for n in ("Blades", "Ace", "Flipper", "Smoke"))
        env.step(action)
    return env, used


def test_custom_card_set_changes_the_rules(custom_cards: Path) -> None:
    game = fort_env.FortGame(2, cards=str(custom_cards))
    blades = next(c for c in game.cards if c.name == "Blades")
    assert blades.private == "score x 3"
    s = build(2, leader=0, hands={0: [blades.id]})
    card_set = game.new_initial_state(0).to_dict()["card_set"]
    s = fort_env.FortState.from_dict(game, s.to_dict() | {"card_set": card_set})
    act(s, "play Blades")
    while s.decision.kind.name != "MODE":  # a coin: declare its suit
        s.apply_action(s.legal_actions()[0])
    act(s, "use private (fully)")
    assert player(s, 0)["score"] == 3  # 0 + 3 (the shipped "pack" scores nothing)


def test_record_of_a_custom_card_set_replays_only_with_it(
    custom_cards: Path, tmp_path: Path
) -> None:
    for seed in range(30):
        env, used = played_custom(custom_cards, seed)
        if used:
            break
    else:
        pytest.fail("no game of 30 used a changed card")
    record = env.to_record()
    assert record["config"]["cards"] == str(custom_cards)
    assert "result" in record
    path = tmp_path / "game.json"
    save_record(record, path)
    again = load_record(path)
    assert again == record
    final = replay(again)
    assert final.to_dict() == env.fort_state().to_dict()
    shipped = json.loads(json.dumps(record))
    shipped["config"]["cards"] = None
    with pytest.raises(RecordError):
        replay(shipped)
    missing = json.loads(json.dumps(record))
    missing["config"]["cards"] = str(tmp_path / "nowhere")
    with pytest.raises(fort_env.FortError):
        replay(missing)


# ---------------------------------------------------------------------------- fit_evaluation
def test_features_by_hand() -> None:
    """The position of ``tests/test_agent_values.py`` (seat 0: Level 2, score 7, Stuff 1 pizza
    2 toys, Pack 1 toy, Lookout 2, 7 cards owned)."""
    s = build(2, leader=0, hands={0: ["Doc", "Bones", "Kitty"]}, lookout={0: ["Prince", "Tiny"]},
              level={0: 2}, score={0: 7}, stuff={0: (1, 2)}, pack={0: (0, 1)},
              perks={0: ["DIY"]}, sculpture=0)  # fmt: skip
    f = dict(zip(fit_evaluation.FEATURES, fit_evaluation.features(s, 0), strict=True))
    assert f == {
        "track": 7, "level_points": 1, "level": 2, "useful": 3, "surplus": 1, "pack": 1,
        "lookout": 2, "rule": 0, "sculpture": 1, "cards": 7, "perks": 1,
        "level>=1": 1, "level>=2": 1, "level>=3": 0, "level>=4": 0,
    }  # fmt: skip


def test_fit_recovers_known_coefficients() -> None:
    """Synthetic data from a known logistic model (no intercept): Newton's method finds it."""
    rng = np.random.default_rng(0)
    true = np.array([1.5, -0.7, 0.0])
    x = rng.normal(size=(20_000, 3))
    y = (rng.random(20_000) < 1 / (1 + np.exp(-x @ true))).astype(float)
    w = fit_evaluation.fit(x, y)
    np.testing.assert_allclose(w, true, atol=0.08)
    # the gradient of the penalised log-likelihood is zero at the fit
    p = 1 / (1 + np.exp(-x @ w))
    np.testing.assert_allclose(x.T @ (p - y) + 1e-3 * w, 0, atol=1e-6)


def test_play_collects_turn_starts_before_the_end() -> None:
    winners, rows = fit_evaluation._play(3)
    assert winners and set(winners) <= {0, 1}
    assert rows and all(len(r) == 2 for r in rows)
    assert all(len(f) == len(fit_evaluation.FEATURES) for r in rows for f in r)
    tracks = [r[0][0] for r in rows]
    assert tracks == sorted(tracks) and tracks[0] == 0  # the track only rises; turn 1 at 0
    assert all(f[0] < 25 for r in rows for f in r)  # no row after the end is triggered


# ---------------------------------------------------------------------------- training config
def test_config_round_trips_through_config_json(tmp_path: Path) -> None:
    selfplay = pytest.importorskip("train.selfplay")
    for preset in selfplay.PRESETS:
        config = selfplay.make_config(preset, seed=11, net_arch=(16, 8))
        text = json.dumps(dataclasses.asdict(config))
        back = selfplay.config_from_dict(json.loads(text))
        assert back == config and isinstance(back.net_arch, tuple)
    with pytest.raises(selfplay.RunFolderError, match="unknown field 'no_such_field'"):
        selfplay.config_from_dict({"preset": "tiny", "no_such_field": 1})


def test_run_state_round_trips_and_moves_with_the_directory(tmp_path: Path) -> None:
    selfplay = pytest.importorskip("train.selfplay")
    out = tmp_path / "run"
    league = selfplay.League(
        {"random": 1.0, "builder": 2.0},
        [
            f"ppo:{out}/league/snapshot_256.safetensors",
            f"ppo:{out}/league/snapshot_512.safetensors:deterministic=0",
        ],
        0.5,
    )
    state = {"history": [{"timesteps": 256, "train_win_rate": {"random": 0.5}}],
             "evals": [{"timesteps": 256, "random": 0.5, "luck_corrected": {"random": 0.4},
                        "luck_corrected_ci95": {"random": [0.3, 0.5]}}],
             "best": 0.5, "last_eval": 256,
             "elapsed_before": 3.5, "timesteps": 512}  # fmt: skip
    selfplay.save_state(out, league, state)
    (out / "checkpoints" / "latest.safetensors").write_bytes(b"")
    saved = json.loads((out / "checkpoints" / "state.json").read_text())
    assert str(out) not in json.dumps(saved)  # paths are stored relative to the run
    moved = tmp_path / "moved"
    shutil.move(out, moved)
    loaded, lg = selfplay.load_state(moved)
    assert loaded == state
    assert lg.bots == {"random": 1.0, "builder": 2.0} and lg.snapshot_weight == 0.5
    assert lg.snapshots == [
        f"ppo:{moved}/league/snapshot_256.safetensors",
        f"ppo:{moved}/league/snapshot_512.safetensors:deterministic=0",
    ]
    w = lg.weights()  # normalised: 1 + 2 + 0.5 shared by the two snapshots
    assert math.isclose(w["random"], 1 / 3.5) and math.isclose(w["builder"], 2 / 3.5)
    assert all(math.isclose(w[s], 0.25 / 3.5) for s in lg.snapshots)
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        selfplay.load_state(tmp_path / "empty")
