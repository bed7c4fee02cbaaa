"""Self-play training (``train/``): a subprocess smoke test, the CLI, the ppo agent, and a
learning test marked ``expensive`` (``pytest -m expensive``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra

import agents
from agents.arena.tournament import run_tournament
from fort_env.game.errors import ModelFileError
from fort_env.game.inputs import MAX_SEED
from train import selfplay

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = ("model.safetensors", "model.json", "config.json", "eval.json", "learning_curve.png")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The training script, run as a user would, with the ``tiny`` preset (seconds)."""
    out = tmp_path_factory.mktemp("run") / "tiny"
    proc = subprocess.run(
        [sys.executable, "-m", "train", "--preset", "tiny", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "vs random" in proc.stdout  # the evaluation table is printed
    return out


def test_smoke_writes_every_output(tiny_run: Path) -> None:
    for name in OUTPUTS:
        assert (tiny_run / name).is_file(), name
    assert any((tiny_run / "tb").rglob("events.out.tfevents.*"))
    config = json.loads((tiny_run / "config.json").read_text())
    assert config["preset"] == "tiny" and config["total_timesteps"] == 512
    summary = json.loads((tiny_run / "eval.json").read_text())
    assert summary["timesteps"] >= 512
    assert set(summary["final"]) == {"random", "heuristic"}
    for final in summary["final"].values():
        assert 0.0 <= final["win_rate"] <= 1.0 and final["games"] == 2
    assert summary["evals"] and summary["history"]
    # every periodic evaluation records its game count and each rate's Wilson 95% interval
    for entry in summary["evals"]:
        assert entry["games"] == config["eval_games"]
        for opponent in config["eval_opponents"]:
            low, high = entry["ci95"][opponent]
            assert 0.0 <= low <= entry[opponent] <= high <= 1.0
    # The league grew a frozen snapshot of the learner (tiny preset: snapshot_weight > 0).
    assert any(spec.startswith("ppo:") for spec in summary["league"])
    assert list((tiny_run / "league").glob("snapshot_*.safetensors"))
    assert not list(tiny_run.rglob("*.zip"))  # nothing pickled is written


def test_model_loads_as_an_agent(tiny_run: Path) -> None:
    path = tiny_run / "model.safetensors"
    agent = agents.make(f"ppo:{path}", seed=0)
    assert agent.name == f"ppo:{path}"
    result = run_tournament([f"ppo:{path}", "random"], 2, 2, seed=1, progress=False)
    assert sum(a["games"] for a in result["agents"].values()) == 4
    sampled = agents.make(f"ppo:{path}:deterministic=0", seed=3)
    assert sampled.deterministic is False  # type: ignore[attr-defined]


def test_ppo_agent_takes_only_legal_actions(tiny_run: Path) -> None:
    from fort_env import FortGame

    agent = agents.make(f"ppo:{tiny_run / 'model.safetensors'}:deterministic=0", seed=0)
    game = FortGame(2)
    state = game.new_initial_state(seed=4)
    for _ in range(100):
        if state.is_terminal():
            break
        seat = state.current_player()
        mask = state.legal_actions_mask().astype(np.int8)
        obs = {"observation": state.observation_tensor(seat), "action_mask": mask}
        action = agent.act(obs, {"action_mask": mask})
        assert mask[action]
        state.apply_action(action)


def test_ppo_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        agents.make("ppo:players=5")
    with pytest.raises(ValueError, match="not 'model'"):
        agents.make("ppo:model=x")
    with pytest.raises(ModelFileError, match="no trained model"):
        agents.make(f"ppo:{tmp_path / 'missing.safetensors'}")


def test_resume_continues_the_run(
    tiny_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming starts from the checkpoint's weights and step count, keeps the history, the
    evaluations and the league's snapshots, and trains only the steps still missing."""
    import shutil

    import torch
    from sb3_contrib import MaskablePPO

    from train.cli import train

    before = json.loads((tiny_run / "checkpoints" / "state.json").read_text())
    old_steps = before["timesteps"]
    assert old_steps >= 512 and before["history"] and before["league"]["snapshots"]
    from agents.learned.policy_file import load_policy_file

    saved, _ = load_policy_file(tiny_run / "checkpoints" / "latest.safetensors")
    saved_params = {k: v.clone() for k, v in saved.state_dict().items()}

    out = tmp_path / "resumed"
    shutil.copytree(tiny_run, out)
    seen: dict = {}
    learn = MaskablePPO.learn

    def spy(self: MaskablePPO, total_timesteps: int, *args: object, **kwargs: object) -> object:
        seen["start"] = self.num_timesteps
        seen["total"] = total_timesteps
        seen["reset"] = kwargs.get("reset_num_timesteps")
        seen["params"] = {k: v.clone() for k, v in self.policy.state_dict().items()}
        return learn(self, total_timesteps, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "learn", spy)
    summary = train(out=out, resume=True, timesteps=1024, progress=False, verbose=0)

    # the session began where the checkpoint ended, with its weights, and ran the missing steps
    assert seen["start"] == old_steps and seen["total"] == 1024 - old_steps
    assert seen["reset"] is False
    assert seen["params"].keys() == saved_params.keys()
    for key, value in saved_params.items():
        assert torch.equal(seen["params"][key], value), key
    assert 1024 <= summary["timesteps"] < 1024 + 256  # one rollout = n_steps 128 x 2 envs
    # the old history and evaluations are kept; the new points count on from the old steps
    n = len(before["history"])
    assert summary["history"][:n] == before["history"]
    new_points = [p["timesteps"] for p in summary["history"][n:]]
    assert new_points and all(old_steps < s <= summary["timesteps"] for s in new_points)
    assert new_points == sorted(set(new_points))
    assert len(new_points) == (summary["timesteps"] - old_steps) // 256
    assert summary["evals"][: len(before["evals"])] == before["evals"]
    assert summary["evals"][-1]["timesteps"] > old_steps
    # the league's snapshots come back (moved to the new directory), newer ones added after
    old_snapshots = [
        s.replace("{out}", str(out.resolve()), 1) for s in before["league"]["snapshots"]
    ]
    after = json.loads((out / "checkpoints" / "state.json").read_text())
    assert after["elapsed_before"] > before["elapsed_before"]
    restored = [s.replace("{out}", str(out.resolve()), 1) for s in after["league"]["snapshots"]]
    kept = [s for s in old_snapshots if s in restored]
    assert kept == old_snapshots[-len(kept) :] and kept, (old_snapshots, restored)
    assert all(s in summary["league"] for s in restored)
    assert json.loads((out / "config.json").read_text())["total_timesteps"] == 1024


def test_cli_registers_on_a_typer_app(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from train.cli import register

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """A throwaway app (fort_env.tools.cli calls register(app) the same way)."""

    register(app)
    runner = CliRunner()
    help_text = runner.invoke(app, ["train", "--help"]).output
    assert "--preset" in help_text and "--out" in help_text and "--resume" in help_text
    out = tmp_path / "cli"
    # the largest seed any command takes: numpy's and the env's seeds derived from it are folded
    args = ["train", "--preset", "tiny", "--out", str(out), "--timesteps", "256", "--no-progress"]
    args += ["--seed", str(MAX_SEED)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert all((out / name).is_file() for name in OUTPUTS)
    assert json.loads((out / "config.json").read_text())["seed"] == MAX_SEED
    again = runner.invoke(app, args)  # the run exists: refuse to overwrite it silently
    assert again.exit_code == 1 and "--resume" in again.output


def test_learning_curve_plots_intervals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation panel draws each periodic rate with its recorded interval, and takes
    older entries without one; the metadata keys (the luck-corrected rates among them) are not
    plotted as opponents."""
    from matplotlib.axes import Axes

    calls: list[tuple[list[float], list[float], list[list[float]], str]] = []
    errorbar = Axes.errorbar

    def spy(self: Axes, x: object, y: object, yerr: object = None, **kw: object) -> object:
        calls.append((list(x), list(y), yerr, str(kw.get("label"))))  # type: ignore[call-overload]
        return errorbar(self, x, y, yerr=yerr, **kw)

    monkeypatch.setattr(Axes, "errorbar", spy)
    summary = {
        "timesteps": 300,
        "history": [{"timesteps": 100, "train_win_rate": {"all": 0.5}}],
        "evals": [
            {"timesteps": 100, "wall_seconds": 1.0, "heuristic": 0.25},  # an older run's entry
            {
                "timesteps": 200,
                "wall_seconds": 2.0,
                "heuristic": 0.5,
                "games": 40,
                "ci95": {"heuristic": [0.35, 0.65]},
                # where a table critic ships, train.evaluation adds the corrected rates
                "luck_corrected": {"heuristic": 0.45},
                "luck_corrected_ci95": {"heuristic": [0.4, 0.5]},
            },
        ],
    }
    selfplay.plot_learning_curve(summary, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").stat().st_size > 0
    [(xs, ys, yerr, label)] = calls  # one series: heuristic (no metadata key)
    assert xs == [100, 200] and ys == [0.25, 0.5]
    np.testing.assert_allclose(yerr, [[0.0, 0.15], [0.0, 0.15]])
    assert label == "vs heuristic (40 games each)"


def test_presets_and_overrides() -> None:
    assert {"quick", "full", "tiny"} <= set(selfplay.PRESETS)
    config = selfplay.make_config("quick", seed=3, total_timesteps=None)
    assert config.seed == 3
    assert config.total_timesteps == selfplay.PRESETS["quick"].total_timesteps
    with pytest.raises(ValueError, match="unknown preset"):
        selfplay.make_config("huge")
    with pytest.raises(ValueError, match="unknown config fields"):
        selfplay.make_config("quick", learning_rat=1.0)
    assert selfplay.make_config("full", num_players=4, setup="advanced").num_players == 4
    with pytest.raises(ValueError, match="num_players must be 2-4, got 5"):
        selfplay.make_config("quick", num_players=5)
    with pytest.raises(ValueError, match="setup must be one of basic, advanced"):
        selfplay.make_config("quick", setup="draft")


def test_cli_trains_a_three_player_model(tmp_path: Path) -> None:
    """``--num-players 3 --setup advanced``: the run's config, its evaluation and its model's
    description are 3-player ones, and the model plays a 3-player table."""
    from agents.learned.policy_file import read_description
    from train.cli import train

    out = tmp_path / "three"
    summary = train(
        "tiny", out, timesteps=256, progress=False, verbose=0, num_players=3, setup="advanced"
    )
    config = json.loads((out / "config.json").read_text())
    assert (config["num_players"], config["setup"]) == (3, "advanced")
    vs_random = summary["tournaments"]["random"]
    assert (vs_random["num_players"], vs_random["setup"]) == (3, "advanced")
    spec = f"ppo:{out / 'model.safetensors'}"
    result = run_tournament([spec, "random", "random"], 3, 2, seed=5, setup="advanced")
    assert result["num_players"] == 3
    assert read_description(out / "model.safetensors")["game"]["num_players"] == 3


def test_league_sampling_and_pickling() -> None:
    import pickle

    league = selfplay.League({"random": 1.0, "builder": 3.0})
    rng = np.random.default_rng(0)
    names = [o.name for _ in range(200) for o in league(rng, 1)]
    assert 0.6 < names.count("builder") / len(names) < 0.9
    copy = pickle.loads(pickle.dumps(league))
    assert copy.weights() == league.weights() and copy._cache == {}


@pytest.mark.expensive
def test_learns_to_beat_random(tmp_path: Path) -> None:
    """A short run of the quick preset (a few minutes) beats the random bot in >= 80% of
    2-player games (quick runs measured 100% from 50k timesteps on)."""
    config = selfplay.make_config(
        "quick",
        total_timesteps=80_000,
        time_budget_minutes=5.0,
        eval_freq=10**9,
        final_eval_games=50,
        final_eval_opponents=("random",),
    )
    summary = selfplay.run(config, tmp_path / "learn", verbose=0, progress_bar=False)
    assert summary["final"]["random"]["win_rate"] >= 0.8, summary["final"]


def test_ppo_agent_probabilities_match_the_masked_policy(tiny_run: Path) -> None:
    """PPOAgent's lean forward gives the distribution sb3-contrib's masked policy gives."""
    import torch

    from fort_env import FortGame

    agent = agents.make(f"ppo:{tiny_run / 'model.safetensors'}", seed=0)
    policy = agent.policy  # type: ignore[attr-defined]
    state = FortGame(2).new_initial_state(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if state.is_terminal():
            break
        seat = state.current_player()
        mask = state.legal_actions_mask()
        obs = state.observation_tensor(seat)
        ours = agent.action_probabilities(obs, mask)  # type: ignore[attr-defined]
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
            theirs = dist.distribution.probs[0].numpy()
        np.testing.assert_allclose(ours, theirs, atol=1e-6)
        assert ours[~mask].sum() == 0.0 and abs(ours.sum() - 1.0) < 1e-12
        legal = np.flatnonzero(mask)
        state.apply_action(int(legal[rng.integers(len(legal))]))


def test_ppo_agent_act_batch_is_act_row_by_row(tiny_run: Path) -> None:
    """One forward pass over K positions chooses what ``act`` chooses for each (the most
    probable action; and, sampling, the same draws from the same seed)."""
    from fort_env import FortGame

    game = FortGame(2)
    observations, masks = [], []
    for seed in range(12):
        state = game.new_initial_state(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 40))):
            state.apply_action(int(rng.choice(state.legal_actions())))
        observations.append(state.observation_tensor(state.current_player()))
        masks.append(state.legal_actions_mask())
    obs, mask = np.stack(observations), np.stack(masks)
    path = tiny_run / "model.safetensors"
    for spec in (f"ppo:{path}", f"ppo:{path}:deterministic=0"):
        one, batched = agents.make(spec, seed=5), agents.make(spec, seed=5)
        rows = [
            one.act({"observation": o, "action_mask": m.astype(np.int8)}, {})
            for o, m in zip(obs, mask, strict=True)
        ]
        together = batched.act_batch(obs, mask)  # type: ignore[attr-defined]
        assert together.dtype == np.int64 and together.tolist() == rows
        assert mask[np.arange(len(rows)), together].all()
    with pytest.raises(ValueError, match="takes observations of"):
        batched.act_batch(obs[:, :10], mask)  # type: ignore[attr-defined]


def test_lr_schedule_is_linear_to_the_final_fraction() -> None:
    """SB3's LinearSchedule from learning_rate (progress 1) to lr_final_fraction of it (0)."""
    import pickle

    config = selfplay.make_config("quick", learning_rate=1e-3, lr_final_fraction=0.25)
    schedule = selfplay.lr_schedule(config)
    assert schedule(1.0) == pytest.approx(1e-3)
    assert schedule(0.5) == pytest.approx(0.625e-3)
    assert schedule(0.0) == pytest.approx(0.25e-3)
    assert pickle.loads(pickle.dumps(schedule))(0.0) == pytest.approx(0.25e-3)  # saved models
