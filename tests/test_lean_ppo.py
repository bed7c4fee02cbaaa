"""The lean PPO (``train.ppo``, ``fort-env train --algo ppo``).

- :func:`seat_advantages` equals GAE computed stream by stream (one list per env and seat) on
  random interleaved rollouts with games ending mid-rollout;
- the learner's samples, the league's seats, and the device path (``device="cpu"`` runs the
  code CUDA runs: pinned buffers aside, the same tensors and calls);
- a short run beats ``random``; its saved network is a ``fort-env-policy`` file that
  ``agents.make("ppo:PATH")`` plays; checkpoints resume; bad devices are one error.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from fort_env.native import backend as cpp_backend  # noqa: E402

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )

import agents  # noqa: E402
from agents.arena.tournament import run_tournament  # noqa: E402
from agents.learned.network import ActorCritic  # noqa: E402
from agents.learned.policy_file import load_policy_file, read_description  # noqa: E402
from fort_env.game.errors import ConfigError  # noqa: E402
from fort_env.game.inputs import MAX_SEED  # noqa: E402
from train.ppo import LeanPPO, SeatDraw  # noqa: E402
from train.ppo_ops import seat_advantages  # noqa: E402
from train.selfplay import League, learner_device, make_config, resolve_device, run  # noqa: E402


def reference_advantages(rewards, done, actor, values, bootstrap, gamma, lam):  # type: ignore[no-untyped-def]
    """GAE the slow way: for each env and seat, the list of its decisions; each decision's
    reward sums its seat's rewards up to its next decision (or the game's end)."""
    steps, num_envs, n = rewards.shape
    adv = np.zeros((steps, num_envs))
    for b in range(num_envs):
        for p in range(n):
            # walk forward, building (t, R, next index or end marker)
            decisions = [t for t in range(steps) if actor[t, b] == p]
            for k in range(len(decisions) - 1, -1, -1):
                t = decisions[k]
                r, end = 0.0, False
                u = t
                nxt = None
                while u < steps:
                    r += rewards[u, b, p]
                    if done[u, b]:
                        end = True
                        break
                    u += 1
                    if u < steps and actor[u, b] == p:
                        nxt = u
                        break
                if end:
                    next_v, next_a, live = 0.0, 0.0, 0.0
                elif nxt is None:
                    next_v, next_a, live = bootstrap[b, p], 0.0, 1.0
                else:
                    next_v, next_a, live = values[nxt, b], adv[nxt, b], 1.0
                delta = r + gamma * next_v * live - values[t, b]
                adv[t, b] = delta + gamma * lam * live * next_a
    return adv


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seat_advantages_equal_per_stream_gae(n: int) -> None:
    rng = np.random.default_rng(n)
    steps, num_envs = 40, 5
    rewards = rng.normal(size=(steps, num_envs, n)).astype(np.float32)
    done = rng.random((steps, num_envs)) < 0.08
    actor = rng.integers(n, size=(steps, num_envs))
    values = rng.normal(size=(steps, num_envs)).astype(np.float32)
    bootstrap = rng.normal(size=(num_envs, n)).astype(np.float32)
    got = seat_advantages(
        torch.tensor(rewards),
        torch.tensor(done),
        torch.tensor(actor),
        torch.tensor(values),
        torch.tensor(bootstrap),
        0.97,
        0.9,
    )
    want = reference_advantages(rewards, done, actor, values, bootstrap, 0.97, 0.9)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_seat_draw_gives_the_league_its_share() -> None:
    league = League({"builder": 1.0})
    draw = SeatDraw(league, 3, 0.5, seed=0)
    counts = np.zeros(3)
    for _ in range(2000):
        codes, who = draw.draw()
        counts += [w is not None for w in who]
        assert any(c == -2 for c in codes)  # one seat is always the learner's
    share = counts.sum() / (2000 * 2)  # two seats of three may go to the league
    assert 0.45 < share < 0.55
    with pytest.raises(ConfigError, match="built-in policy"):
        SeatDraw(League({"greedy": 1.0}), 2, 0.5, seed=0)


def test_every_learner_seat_is_a_sample_and_league_seats_are_not() -> None:
    cfg = make_config("tiny", algo="ppo", n_envs=4, n_steps=32, num_players=3)
    ppo = LeanPPO(cfg, League({"random": 1.0}), "cpu")
    ppo.reset(0)
    adv = ppo.collect()
    assert adv.shape == (32, 4) and bool(torch.isfinite(adv).all())
    # every step stops at a learner seat (random plays inside C++, no snapshot yet)
    assert bool(ppo.learn_mask.all()) and ppo.timesteps == 32 * 4
    codes_seen = ppo.env.codes
    assert (codes_seen == -2).any(axis=1).all()
    stats = ppo.update(adv, 1e-3)
    assert stats["samples"] == 128 and np.isfinite(stats["policy_loss"])


def test_devices() -> None:
    assert learner_device(make_config("quick", algo="maskable_ppo", device="auto")) == "cpu"
    assert learner_device(make_config("quick", device="cpu")) == "cpu"
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ConfigError, match="device must be"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA GPU"):
            resolve_device("cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (scripts/gpu_check.sh)")
@pytest.mark.parametrize("critic", ["obs", "table"])
def test_the_cuda_path_trains_and_matches_the_cpu_network(critic: str) -> None:
    """On a GPU: a rollout and an update run on CUDA (pinned buffers, the device generator),
    and the network's outputs on CUDA equal the same weights' on the CPU within 1e-4 (fp32,
    TF32 off by torch's default)."""
    cfg = make_config("tiny", algo="ppo", n_envs=8, n_steps=32, num_players=3, critic=critic)
    ppo = LeanPPO(cfg, League({"random": 1.0}), "cuda")
    ppo.reset(0)
    adv = ppo.collect()
    assert adv.device.type == "cuda" and bool(torch.isfinite(adv).all())
    stats = ppo.update(adv, 1e-3)
    assert stats["samples"] == 8 * 32 and np.isfinite(stats["policy_loss"])
    net = ppo.net
    obs = torch.rand(64, net.observation_size, device="cuda")
    logits, values = net(obs)
    cpu = copy.deepcopy(net).to("cpu")
    cpu_logits, cpu_values = cpu(obs.cpu())
    assert torch.allclose(logits.cpu(), cpu_logits, atol=1e-4)
    assert torch.allclose(values.cpu(), cpu_values, atol=1e-4)
    if critic == "table":
        table = torch.rand(16, net.table_size, device="cuda")
        got = net.table_values(table).cpu()
        assert torch.allclose(got, cpu.table_values(table.cpu()), atol=1e-4)


def test_a_short_run_beats_random_and_saves_a_playable_policy(tmp_path: Path) -> None:
    cfg = make_config(
        "tiny",
        algo="ppo",
        device="cpu",
        n_envs=16,
        n_steps=64,
        batch_size=512,
        n_epochs=2,
        net_arch=(64, 64),
        total_timesteps=60_000,
        opponents={"random": 1.0},
        snapshot_weight=0.3,
        eval_freq=30_000,
        eval_games=10,
        final_eval_games=2,
        final_eval_opponents=("random",),
        learning_rate=1e-3,
    )
    summary = run(cfg, tmp_path / "run", verbose=0, progress_bar=False)
    model = tmp_path / "run" / "model.safetensors"
    info = read_description(model)
    assert info["network"]["policy"] == "ActorCritic" and info["network"]["trunk"] == [64, 64]
    assert summary["algo"] == "ppo" and summary["device"] == "cpu"
    assert summary["timesteps"] >= 60_000
    policy, _ = load_policy_file(model)
    assert isinstance(policy, ActorCritic)
    # a snapshot joined the league at the evaluation and was played from Python
    state = json.loads((tmp_path / "run" / "checkpoints" / "state.json").read_text())
    assert state["league"]["snapshots"]
    result = run_tournament([f"ppo:{model}", "random"], 2, 100, seed=12345, progress=False)
    rate = next(iter(result["agents"].values()))["win_rate"]
    assert rate >= 0.7, result["agents"]
    agent = agents.make(f"ppo:{model}")
    assert agent.observation_size == policy.observation_size


def test_resume_continues_from_the_checkpoint(tmp_path: Path) -> None:
    base = dict(
        algo="ppo", device="cpu", n_envs=4, n_steps=32, batch_size=64, n_epochs=1,
        net_arch=(16,), opponents={"random": 1.0}, eval_freq=10**9, final_eval_games=2,
        final_eval_opponents=("random",),
    )  # fmt: skip
    out = tmp_path / "run"
    first = run(
        make_config("tiny", total_timesteps=256, **base), out, verbose=0, progress_bar=False
    )
    assert first["timesteps"] >= 256
    again = run(
        make_config("tiny", total_timesteps=512, **base),
        out,
        resume=True,
        verbose=0,
        progress_bar=False,
    )
    assert again["timesteps"] >= 512
    assert again["eval_seeds"] == first["eval_seeds"]  # kept by the run state


def test_the_cli_takes_algo_device_and_threads(tmp_path: Path) -> None:
    """--algo ppo trains through the same command; a bad --algo, a bad --device, or CUDA
    without a GPU is one error line (exit 2 for usage, 1 for the machine)."""
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    runner = CliRunner()
    out = tmp_path / "run"
    # --seed: the largest any command takes (the games' seeds derived from it are folded)
    args = ["train", "--preset", "tiny", "--algo", "ppo", "--device", "cpu", "--env-threads",
            "2", "--torch-threads", "1", "--out", str(out), "--no-progress",
            "--seed", str(MAX_SEED)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert (config["algo"], config["device"], config["env_threads"]) == ("ppo", "cpu", 2)
    assert config["seed"] == MAX_SEED
    bad = runner.invoke(app, ["train", "--preset", "tiny", "--algo", "a2c"])
    assert bad.exit_code == 2 and "--algo" in bad.output and "a2c" in bad.output
    bad = runner.invoke(app, ["train", "--preset", "tiny", "--device", "tpu"])
    assert bad.exit_code == 1 and "--device" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    if not torch.cuda.is_available():
        bad = runner.invoke(app, ["train", "--preset", "tiny", "--device", "cuda"])
        assert bad.exit_code == 1 and "no CUDA GPU" in bad.output


@pytest.mark.slow  # ~1 minute: MaskablePPO samples ~2,400/s here
def test_a_short_maskable_ppo_run_beats_random(tmp_path: Path) -> None:
    """The other --algo, through the same run(): round two's learner still learns."""
    cfg = make_config(
        "quick",
        algo="maskable_ppo",
        n_envs=16,
        n_steps=64,
        batch_size=256,
        n_epochs=4,
        net_arch=(64, 64),
        total_timesteps=50_000,
        time_budget_minutes=4.0,
        opponents={"random": 1.0},
        snapshot_weight=0.0,
        eval_freq=10**9,
        final_eval_games=2,
        final_eval_opponents=("random",),
        env_threads=1,
        torch_threads=1,
    )
    summary = run(cfg, tmp_path / "sb3", verbose=0, progress_bar=False)
    assert summary["algo"] == "maskable_ppo" and summary["timesteps"] >= 50_000
    model = tmp_path / "sb3" / "model.safetensors"
    assert read_description(model)["network"]["policy"] == "MaskableActorCriticPolicy"
    result = run_tournament([f"ppo:{model}", "random"], 2, 100, seed=4321, progress=False)
    rate = next(iter(result["agents"].values()))["win_rate"]
    assert rate >= 0.7, result["agents"]
