"""Masked PPO on Fort in one file, CleanRL style, on Gymnasium's vector API.

    python examples/cleanrl_ppo.py --num-envs 64 --total-steps 200000 --seed 1

The learner holds one seat of 2-player games against the built-in uniform random opponent
(played inside C++); ``gymnasium.make_vec("fort_env/Fort-v0", vectorization_mode=
"vector_entry_point")`` steps the games together in C++ (``fort_env.envs.gym_vector``). Invalid
actions are masked out of the policy's logits (Huang & Ontañón 2020, "A Closer Look at Invalid
Action Masking in Policy Gradient Algorithms"), with the mask from ``infos["action_mask"]``,
which is never all zeros (same-step autoreset). The rest is CleanRL's ``ppo.py``: GAE, clipped
surrogate and value losses, an entropy bonus, minibatch epochs, every tensor on ``--device``.
The network is a shared 256-256 trunk with a policy and a value head.

It prints the learner samples per second and, every ``--log-every`` updates, the win rate of
the games that ended since the last print. Needs the ``train`` extra (torch) and the compiled
core. A script to read and adapt, not the project's trainer (``fort-env train``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import gymnasium
import numpy as np
import torch
from torch import nn

import fort_env  # noqa: F401  (registers "fort_env/Fort-v0")


@dataclass
class Args:
    seed: int = 1
    num_envs: int = 64
    num_steps: int = 64  # steps per env per rollout
    total_steps: int = 200_000  # learner samples
    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 2
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    device: str = "cpu"
    threads: int = 1  # C++ threads stepping the games
    log_every: int = 10


HELP = {
    "seed": "seed of the games (env i: seed + i), torch and the sampling",
    "num_envs": "games stepped together in C++ (the vector env's B)",
    "num_steps": "steps per env per rollout (a rollout has num_envs * num_steps samples)",
    "total_steps": "learner samples to train on",
    "learning_rate": "Adam's learning rate",
    "gamma": "discount",
    "gae_lambda": "GAE's lambda",
    "minibatches": "minibatches per epoch",
    "epochs": "passes over each rollout",
    "clip": "PPO's clip range of the probability ratio",
    "ent_coef": "entropy bonus weight",
    "vf_coef": "value loss weight",
    "max_grad_norm": "gradient norm clip",
    "device": "torch device of the network (cpu, cuda)",
    "threads": "C++ threads stepping the games",
    "log_every": "rollouts between two log lines (samples/s, win rate)",
}


class Agent(nn.Module):
    """A shared trunk, a policy head over the N actions and a value head."""

    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(obs_size, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU()
        )
        self.policy = nn.Linear(256, num_actions)
        self.value = nn.Linear(256, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        logits = self.policy(h).masked_fill(~mask, torch.finfo(torch.float32).min)
        return logits, self.value(h).squeeze(-1)


def train(args: Args) -> dict[str, float]:
    """Run PPO; returns the learner samples per second and the last logged win rate."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    device = torch.device(args.device)
    envs = gymnasium.make_vec(
        "fort_env/Fort-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        num_players=2,
        threads=args.threads,
    )
    obs_space, action_space = envs.single_observation_space, envs.single_action_space
    assert isinstance(obs_space, gymnasium.spaces.Box)
    assert isinstance(action_space, gymnasium.spaces.Discrete)
    obs_size, num_actions = int(obs_space.shape[0]), int(action_space.n)
    agent = Agent(obs_size, num_actions).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    b, t_max = args.num_envs, args.num_steps
    obs_buf = torch.zeros((t_max, b, obs_size), device=device)
    mask_buf = torch.zeros((t_max, b, num_actions), dtype=torch.bool, device=device)
    act_buf = torch.zeros((t_max, b), dtype=torch.long, device=device)
    logp_buf = torch.zeros((t_max, b), device=device)
    rew_buf = torch.zeros((t_max, b), device=device)
    done_buf = torch.zeros((t_max, b), device=device)
    val_buf = torch.zeros((t_max, b), device=device)

    obs_np, infos = envs.reset(seed=args.seed)
    obs = torch.as_tensor(obs_np, device=device)
    mask = torch.as_tensor(infos["action_mask"], device=device)
    updates = max(1, args.total_steps // (b * t_max))
    wins = games = 0
    win_rate = float("nan")
    start = time.perf_counter()
    for update in range(1, updates + 1):
        for t in range(t_max):
            obs_buf[t], mask_buf[t] = obs, mask
            with torch.no_grad():
                logits, value = agent(obs, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            act_buf[t], logp_buf[t], val_buf[t] = action, dist.log_prob(action), value
            obs_np, reward, term, trunc, infos = envs.step(action.cpu().numpy())
            done = np.logical_or(term, trunc)
            rew_buf[t] = torch.as_tensor(reward, device=device)
            done_buf[t] = torch.as_tensor(done, device=device)
            obs = torch.as_tensor(obs_np, device=device)
            mask = torch.as_tensor(infos["action_mask"], device=device)
            if done.any():
                games += int(done.sum())
                wins += int(infos["final_info"]["won"][done].sum())

        with torch.no_grad():  # GAE; a done at step t ends the episode after t's reward
            _, next_value = agent(obs, mask)
            adv = torch.zeros_like(rew_buf)
            last = torch.zeros(b, device=device)
            for t in reversed(range(t_max)):
                nonterminal = 1.0 - done_buf[t]
                following = next_value if t == t_max - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * following * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            returns = adv + val_buf

        flat = {
            "obs": obs_buf.reshape(-1, obs_size),
            "mask": mask_buf.reshape(-1, num_actions),
            "act": act_buf.reshape(-1),
            "logp": logp_buf.reshape(-1),
            "adv": adv.reshape(-1),
            "ret": returns.reshape(-1),
        }
        n = b * t_max
        size = n // args.minibatches
        for _ in range(args.epochs):
            order = torch.randperm(n, device=device)
            for k in range(args.minibatches):
                idx = order[k * size : (k + 1) * size]
                logits, value = agent(flat["obs"][idx], flat["mask"][idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(flat["act"][idx]) - flat["logp"][idx]).exp()
                a = flat["adv"][idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * (value - flat["ret"][idx]).pow(2).mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if update % args.log_every == 0 or update == updates:
            win_rate = wins / games if games else float("nan")
            sps = update * n / (time.perf_counter() - start)
            print(f"update {update}/{updates}  samples/s {sps:,.0f}  win rate {win_rate:.3f} "
                  f"({games} games)")  # fmt: skip
            wins = games = 0
    envs.close()
    samples = updates * b * t_max
    return {"samples_per_s": samples / (time.perf_counter() - start), "win_rate": win_rate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, value in vars(Args()).items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(value),
            default=value,
            help=f"{HELP[name]} (default: %(default)s)",
        )
    train(Args(**vars(parser.parse_args())))


if __name__ == "__main__":
    main()
