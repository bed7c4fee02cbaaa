"""The lean PPO: masked PPO on the self-play batch, every seat a sample, every tensor on the device.

``fort-env train --algo ppo`` (``Config.algo = "ppo"``) runs :func:`learn`; ``train.runner.run``
does the rest (outputs, final evaluation). CleanRL's ``ppo.py`` is the model: one readable
loop, a masked categorical policy, GAE, clipped surrogate, value and entropy terms. What is
Fort's own:

1. **Every seat a sample.** The games are ``fort_env.envs.self_play.SelfPlayBatch``'s: the
   learner plays every seat not given to a league opponent, and each of its decisions is a
   sample. Each new game draws one seat for the learner and gives each other seat to a league
   opponent with probability ``Config.league_share`` (the league's weights: built-in bots play
   inside C++, frozen snapshots from Python, one batched forward pass per snapshot and step,
   on the training device), else to the learner too.
2. **Returns per seat.** The steps of one env interleave its seats' decisions, so GAE runs
   per (env, seat) stream (``train.ppo_ops.seat_advantages``): a sample's reward is the sum
   of that seat's rewards from its decision to its next one (the self-play batch's per-seat
   rewards, which telescope to the single-agent env's), its next value the value at that next
   decision, and a game's end closes every seat's stream. At the end of a rollout, a seat
   still waiting for its next decision bootstraps from the value of its own view of the
   current position.
3. **The hardware.** Observations and masks are written by C++ into preallocated buffers
   (pinned when the device is CUDA), copied once per step to the device; sampling (Gumbel-max
   over the masked logits), advantages and the update never leave the device. The network is
   ``agents.learned.network.ActorCritic`` (a shared trunk). On the CPU the network reads the
   observations as their active features (``sparse_input``), as C++ writes them beside the
   dense rows (``SelfPlayBatch(features=True)``; the rollout keeps only them): the trunk's
   first layer, the update's largest cost when dense, then costs its ~70 active features of
   1,482 instead of all of them, and the loss's log-softmax and entropy run over each
   sample's legal actions (``legal_logits``; 4 on average of 676) instead of every action
   (docs/performance.md, "A sparse first layer").

Timesteps count the learner's samples (decisions of ``LEARNER`` seats), as MaskablePPO's count
the learner's decisions. Checkpoints (``checkpoints/latest.*``: the network, Adam's moments,
the step count) and the run state are ``train.checkpoints``'s, so ``--resume`` works the same way.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections import defaultdict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.learned.network import (
    ActorCritic,
    Observations,
    PaddedFeatures,
    sparse_observations,
)
from agents.learned.policy_file import (
    load_checkpoint,
    load_initial_weights,
    save_checkpoint_files,
    save_policy,
)
from fort_env.envs.self_play import EXTERNAL, LEARNER, SelfPlayBatch, seat_code
from fort_env.game.errors import ConfigError
from fort_env.game.files import make_folders
from fort_env.views.observation import (
    observation_layout,
    table_observation_size,
    table_private_columns,
)
from train.checkpoints import save_state
from train.config import Config, fold_seed
from train.device import learner_device, resolve_threads
from train.evaluation import evaluation_due, periodic_evaluation
from train.league import League, opponent_kind, snapshot_spec
from train.ppo_ops import (
    MASKED_LOGIT,
    legal_actions,
    masked_logits,
    sample_actions,
    seat_advantages,
)
from train.progress import ProgressCallback
from train.threads import ThreadTuner

__all__ = ["LeanPPO", "SeatDraw", "build_network", "learn"]


class SeatDraw:
    """Who plays each seat of each new game: the learner, a built-in bot (a C++ policy code)
    or a frozen snapshot (``EXTERNAL``, its spec kept here). See the module docstring.

    Raises:
        ConfigError: a league bot that is not a built-in policy (the lean PPO plays bots in
            C++ only).
    """

    def __init__(self, league: League, num_players: int, share: float, seed: int) -> None:
        self.league = league
        self.num_players = num_players
        self.share = share
        self.rng = np.random.default_rng(seed)
        for spec in league.bots:
            try:
                seat_code(spec)
            except ConfigError:
                raise ConfigError(
                    f"league bot {spec!r}: the lean PPO (--algo ppo) plays league bots inside "
                    "C++, and this is not a built-in policy (fort_env.native.policies.POLICIES); "
                    "use --algo maskable_ppo or drop it from the league"
                ) from None

    def draw(self) -> tuple[list[int], list[str | None]]:
        """One game's seat codes and, per seat, the league spec playing it (``None``: the
        learner)."""
        weights = self.league.weights()
        specs = list(weights)
        probs = np.array([weights[s] for s in specs])
        codes = [LEARNER] * self.num_players
        who: list[str | None] = [None] * self.num_players
        anchor = int(self.rng.integers(self.num_players))
        for p in range(self.num_players):
            if p == anchor or not specs or self.rng.random() >= self.share:
                continue
            spec = specs[int(self.rng.choice(len(specs), p=probs))]
            who[p] = spec
            codes[p] = EXTERNAL if spec.startswith("ppo:") else seat_code(spec)
        return codes, who


def build_network(config: Config, init: bool = True) -> ActorCritic:
    """A fresh network of the configured shape (``net_arch``; the whole-table critic with
    ``critic="table"``) on the CPU, started from ``config.init_from``'s weights when set and
    ``init`` (a resumed run loads its checkpoint instead).

    Raises:
        ModelFileError: ``init_from`` names a file that cannot start this network
            (``agents.learned.policy_file.load_initial_weights``).
    """
    from fort_env import FortGame

    game = FortGame(num_players=config.num_players, setup=config.setup)
    net = ActorCritic(
        game.observation_size,
        game.num_distinct_actions,
        config.net_arch,
        critic=config.critic_arch if config.critic == "table" else (),
        table_size=table_observation_size(config.num_players, game),
    )
    if init and config.init_from is not None:
        load_initial_weights(
            net, config.init_from, num_players=config.num_players, setup=config.setup
        )
    return net


class LeanPPO:
    """The learner's state: the network, Adam, the self-play batch and the rollout storage
    (module docstring). :func:`learn` drives it; tests and ``fort-env bench --train`` use it
    directly (:meth:`collect`, :meth:`update`).

    Args:
        config: the run's configuration (``n_envs`` games, ``n_steps`` per rollout, PPO's
            hyperparameters, ``net_arch`` as the trunk).
        league: the league (bots and snapshots); ``league_share`` of the seats go to it.
        device: a resolved torch device name (``train.device.resolve_device``).
        env_threads: threads stepping the games.
        sparse_input: the update feeds the trunk the minibatches' active features
            (``agents.learned.network.sparse_linear``) instead of the dense observations: the
            same results within float rounding, faster on a CPU, slower on a GPU (where the
            dense layer costs next to nothing). ``None``: ``config.sparse_input`` where the
            config has such a field and it is not ``None``, else on a CPU only.
        legal_logits: the update's log-softmax and entropy read the logits of each sample's
            legal actions only (:func:`legal_actions`): the same results within float
            rounding, faster on a CPU. ``None``: ``config.legal_logits`` where the config has
            such a field and it is not ``None``, else on a CPU only.
        init_weights: start the network from ``config.init_from`` when set
            (:func:`build_network`); false when a checkpoint will be loaded over it.
    """

    def __init__(
        self,
        config: Config,
        league: League,
        device: str,
        env_threads: int = 1,
        sparse_input: bool | None = None,
        legal_logits: bool | None = None,
        init_weights: bool = True,
    ) -> None:
        self.config = config
        self.device = torch.device(device)
        if sparse_input is None:
            sparse_input = getattr(config, "sparse_input", None)
        self.sparse_input = self.device.type == "cpu" if sparse_input is None else sparse_input
        if legal_logits is None:
            legal_logits = getattr(config, "legal_logits", None)
        self.legal_logits = self.device.type == "cpu" if legal_logits is None else legal_logits
        self.league = league
        pinned = self.device.type == "cuda"
        num_envs, steps = config.n_envs, config.n_steps
        probe = SelfPlayBatch(
            1, num_players=config.num_players, setup=config.setup, features=self.sparse_input
        )
        n, d, na = probe.num_players, probe.observation_size, probe.num_actions
        buffers = None
        if pinned:  # C++ writes straight into page-locked memory: one async copy per step
            self._pinned = {
                "obs": torch.zeros((num_envs, d), dtype=torch.float32).pin_memory(),
                "mask": torch.zeros((num_envs, na), dtype=torch.bool).pin_memory(),
            }
            fresh = probe.buffers  # the others' dtypes, with B rows
            buffers = {k: np.zeros((num_envs, *v.shape[1:]), v.dtype) for k, v in fresh.items()}
            buffers.update({k: t.numpy() for k, t in self._pinned.items()})
        self.env = SelfPlayBatch(
            num_envs,
            num_players=config.num_players,
            setup=config.setup,
            reward=config.reward,
            shaping=config.shaping,
            threads=env_threads,
            buffers=buffers,
            features=self.sparse_input,  # C++ writes each observation's active features too
        )
        self.table = config.critic == "table"
        layout = observation_layout(n, probe.game)
        self._private = torch.from_numpy(table_private_columns(layout)).to(self.device)
        self.net = build_network(config, init_weights).to(self.device)
        # _rotation[p]: the seats of p's table observation, p first, then in turn order
        seats = torch.arange(n, device=self.device)
        self._rotation = (seats[None, :] + seats[:, None]) % n
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate, eps=1e-5)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(config.seed)
        self.seats = SeatDraw(league, n, config.league_share, config.seed)
        self.who_now: list[list[str | None]] = []
        self.who_next: list[list[str | None]] = []
        self.snapshots: dict[str, tuple[ActorCritic, bool]] = {}
        self.timesteps = 0
        self.results: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=config.log_window))
        dev = self.device
        # the observations: dense, or (sparse_input) their active features as C++ wrote them,
        # padded to the env's width; _widest: the most of a row in this rollout
        width = self.env.feature_width if self.sparse_input else 0
        self.obs = torch.zeros(
            (0,) if self.sparse_input else (steps, num_envs, d), dtype=torch.float32, device=dev
        )
        self.features = torch.zeros((steps, num_envs, width), dtype=torch.int32, device=dev)
        self.feature_values = torch.zeros((steps, num_envs, width), dtype=torch.float32, device=dev)
        self._widest = 0
        self.mask = torch.zeros((steps, num_envs, na), dtype=torch.bool, device=dev)
        self.actions = torch.zeros((steps, num_envs), dtype=torch.int64, device=dev)
        self.logp = torch.zeros((steps, num_envs), dtype=torch.float32, device=dev)
        self.values = torch.zeros((steps, num_envs), dtype=torch.float32, device=dev)
        # critic="table": each sample's table observation; the value head's own estimates
        self.tables = torch.zeros(
            (steps, num_envs, self.net.table_size) if self.table else (0,),
            dtype=torch.float32,
            device=dev,
        )
        self.actor = torch.zeros((steps, num_envs), dtype=torch.int64, device=dev)
        self.learn_mask = torch.zeros((steps, num_envs), dtype=torch.bool, device=dev)
        self.rewards = torch.zeros((steps, num_envs, n), dtype=torch.float32, device=dev)
        self.done = torch.zeros((steps, num_envs), dtype=torch.bool, device=dev)

    # ------------------------------------------------------------------ games
    def reset(self, seed: int) -> None:
        """Seat every env's first two games (the second is queued: C++ deals a game's
        successor the moment it ends) and deal the first ones."""
        ids = np.arange(self.env.num_envs)
        first = [self.seats.draw() for _ in ids]
        self.env.set_seats(ids, np.array([c for c, _ in first]))
        self.who_now = [w for _, w in first]
        self.env.reset(seed)
        self._queue(ids)

    def _queue(self, envs: np.ndarray) -> None:
        """Draw and hand C++ the seats of the listed envs' next games."""
        drawn = [self.seats.draw() for _ in envs]
        if len(self.who_next) < self.env.num_envs:
            self.who_next = [[] for _ in range(self.env.num_envs)]
        for i, (_, who) in zip(envs, drawn, strict=True):
            self.who_next[int(i)] = who
        self.env.set_seats(envs, np.array([c for c, _ in drawn]))

    def _snapshot(self, spec: str) -> tuple[ActorCritic, bool]:
        """The frozen network of a ``ppo:PATH[:deterministic=0]`` spec, on the device."""
        if spec not in self.snapshots:
            agent = self.league.agent(spec)
            net = copy.deepcopy(agent.policy).to(self.device).eval()
            self.snapshots[spec] = (net, bool(agent.deterministic))
        return self.snapshots[spec]

    def _to_device(self, name: str) -> torch.Tensor:
        host = (
            self._pinned[name]
            if self.device.type == "cuda"
            else torch.from_numpy(self.env.buffers[name])
        )
        return host.to(self.device, non_blocking=True)

    # ------------------------------------------------------------------ rollout
    @torch.no_grad()
    def collect(self) -> torch.Tensor:
        """Play ``n_steps`` steps of every env into the storage; returns the advantages
        ``(T, B)`` (GAE per seat stream). Counts the learner's samples in ``timesteps``."""
        env, cfg = self.env, self.config
        rows = np.arange(env.num_envs)
        self._widest = 0
        for t in range(cfg.n_steps):
            mask = self._to_device("mask")
            obs = self._observations(t)
            actor = env.actor.astype(np.int64)
            codes = env.codes.copy()
            learner = codes[rows, actor] == LEARNER
            logits, values = self.net(obs)
            if self.table:
                table = self._tables(self._everyone(), torch.from_numpy(actor).to(self.device))
                values = self.net.table_values(table)
                self.tables[t] = table
            logits = masked_logits(logits, mask)
            actions = sample_actions(logits, self.generator)
            if not learner.all():  # snapshots' seats: a forward pass per snapshot
                for spec in {self.who_now[i][actor[i]] for i in np.flatnonzero(~learner)}:
                    assert spec is not None
                    idx = [i for i in np.flatnonzero(~learner) if self.who_now[i][actor[i]] == spec]
                    net, deterministic = self._snapshot(spec)
                    sel = torch.as_tensor(idx, device=self.device)
                    snap_obs = (
                        PaddedFeatures(obs.indices[sel], obs.values[sel])
                        if isinstance(obs, PaddedFeatures)
                        else obs[sel]
                    )
                    snap_logits = masked_logits(net.action_logits(snap_obs), mask[sel])
                    actions[sel] = sample_actions(snap_logits, self.generator, deterministic)
            if isinstance(obs, torch.Tensor):  # (sparse: stored by _observations)
                self.obs[t] = obs
            self.mask[t] = mask
            self.actions[t] = actions
            self.logp[t] = F.log_softmax(logits, dim=1).gather(1, actions[:, None])[:, 0]
            self.values[t] = values
            self.actor[t] = torch.from_numpy(actor).to(self.device)
            self.learn_mask[t] = torch.from_numpy(learner).to(self.device)
            env.step(actions.cpu().numpy())
            self.rewards[t] = torch.from_numpy(env.rewards).to(self.device)
            self.done[t] = torch.from_numpy(env.done).to(self.device)
            self.timesteps += int(learner.sum())
            if env.done.any():
                self._games_ended(np.flatnonzero(env.done), codes)
        everyone = self._everyone()
        if self.table:  # every seat's table observation, (B * n, table size)
            seats = torch.arange(env.num_players, device=self.device).repeat(env.num_envs)
            bootstrap = self.net.table_values(
                self._tables(everyone.repeat_interleave(env.num_players, dim=0), seats)
            )
        else:
            bootstrap = self.net.state_values(everyone.reshape(-1, env.observation_size))
        bootstrap = bootstrap.reshape(env.num_envs, env.num_players)
        return seat_advantages(
            self.rewards, self.done, self.actor, self.values, bootstrap, cfg.gamma, cfg.gae_lambda
        )

    def _observations(self, t: int) -> Observations:
        """The observations of step ``t`` on the device: dense ``(B, D)``, or with
        ``sparse_input`` the active features C++ wrote (stored whole for the update, read up
        to the step's widest row)."""
        if not self.sparse_input:
            return self._to_device("obs")
        env = self.env
        self.features[t] = torch.from_numpy(env.features)
        self.feature_values[t] = torch.from_numpy(env.feature_values)
        widest = int(env.feature_counts.max())
        self._widest = max(self._widest, widest)
        return PaddedFeatures(self.features[t, :, :widest], self.feature_values[t, :, :widest])

    def _everyone(self) -> torch.Tensor:
        """Every seat's observation of every env's position, ``(B, n, D)`` on the device."""
        return torch.from_numpy(self.env.observe_all()).to(self.device)

    def _tables(self, everyone: torch.Tensor, seat: torch.Tensor) -> torch.Tensor:
        """Row b's table observation for seat ``seat[b]`` from every seat's observations
        ``everyone`` ``(K, n, D)``: ``(K, table size)``, the seat's observation, then each
        other seat's private slices in turn order (``fort_env.views.observation
        .table_from_observations``, tested equal)."""
        rows = torch.arange(everyone.shape[0], device=self.device)
        order = self._rotation[seat]  # (K, n)
        own = everyone[rows, seat]
        others = everyone[rows[:, None], order[:, 1:]][:, :, self._private]
        return torch.cat([own, others.reshape(everyone.shape[0], -1)], dim=1)

    def _games_ended(self, envs: np.ndarray, codes: np.ndarray) -> None:
        """Record the learner's results against the league and queue the next seats."""
        winners = self.env.end_info[envs, 1]
        for i, bits in zip(envs, winners, strict=True):
            who = self.who_now[i]
            rivals = [s for s in who if s is not None]
            if rivals:  # games against the league: did a learner seat win?
                won = any(codes[i, p] == LEARNER and bits >> p & 1 for p in range(len(who)))
                for spec in set(rivals):
                    self.results[opponent_kind(spec)].append(float(won))
                self.results["all"].append(float(won))
            self.who_now[i] = self.who_next[i]
        self._queue(envs)

    # ------------------------------------------------------------------ update
    def update(self, advantages: torch.Tensor, learning_rate: float) -> dict[str, float]:
        """``n_epochs`` passes of clipped PPO over the rollout's learner samples, in
        minibatches of ``batch_size``; returns the last epoch's mean losses."""
        cfg = self.config
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        keep = self.learn_mask.reshape(-1)
        mask = self.mask.reshape(-1, self.mask.shape[-1])[keep]
        actions = self.actions.reshape(-1)[keep]
        old_logp = self.logp.reshape(-1)[keep]
        adv = advantages.reshape(-1)[keep]
        returns = adv + self.values.reshape(-1)[keep]
        tables = self.tables.reshape(-1, self.tables.shape[-1])[keep] if self.table else None
        count, size = int(actions.shape[0]), self.env.observation_size
        obs, features = self.obs, None
        if self.sparse_input:  # the samples' active features (C++'s), to the rollout's widest
            w = self._widest
            features = (
                self.features[:, :, :w].reshape(-1, w)[keep].long(),
                self.feature_values[:, :, :w].reshape(-1, w)[keep],
            )
        else:
            obs = self.obs.reshape(-1, size)[keep]
        legal = legal_actions(mask, actions) if self.legal_logits else None
        stats: dict[str, float] = {}
        for _ in range(cfg.n_epochs):
            order = torch.randperm(count, device=self.device, generator=self.generator)
            sums: dict[str, float] = defaultdict(float)
            batches = 0
            for start in range(0, count, cfg.batch_size):
                mb = order[start : start + cfg.batch_size]
                batch: Observations = (
                    obs[mb]
                    if features is None
                    else sparse_observations(features[0][mb], features[1][mb], size)
                )
                logits, values = self.net(batch)
                if legal is None:
                    logp_all = F.log_softmax(masked_logits(logits, mask[mb]), dim=1)
                    logp = logp_all.gather(1, actions[mb, None])[:, 0]
                else:  # the legal actions' logits only: (minibatch, L)
                    choices, padding, position = (t[mb] for t in legal)
                    at_legal = logits.gather(1, choices).masked_fill(padding, MASKED_LOGIT)
                    logp_all = F.log_softmax(at_legal, dim=1)
                    logp = logp_all.gather(1, position[:, None])[:, 0]
                entropy = -(logp_all.exp() * logp_all).sum(dim=1).mean()
                ratio = torch.exp(logp - old_logp[mb])
                a = adv[mb]
                a = (a - a.mean()) / (a.std(unbiased=False) + 1e-8)
                pg = torch.max(
                    -a * ratio, -a * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)
                ).mean()
                v_loss = 0.5 * (values - returns[mb]).pow(2).mean()
                critic_loss = torch.zeros((), device=self.device)
                if tables is not None:  # the critic's loss; the value head learns beside it
                    critic_values = self.net.table_values(tables[mb])
                    critic_loss = 0.5 * (critic_values - returns[mb]).pow(2).mean()
                    sums["critic_loss"] += float(critic_loss.detach())
                loss = pg - cfg.ent_coef * entropy + cfg.vf_coef * (v_loss + critic_loss)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                batches += 1
                sums["policy_loss"] += float(pg.detach())
                sums["value_loss"] += float(v_loss.detach())
                sums["entropy"] += float(entropy.detach())
            stats = {k: v / max(batches, 1) for k, v in sums.items()}
        stats["samples"] = float(count)
        return stats


# --------------------------------------------------------------------------- the run
def learn(
    config: Config,
    out: Path,
    league: League,
    state: dict[str, Any],
    start: float,
    *,
    resume: bool = False,
    verbose: int = 1,
    progress_bar: bool = True,
    device: str | None = None,
) -> tuple[ActorCritic, int, float]:
    """Train ``config`` with the lean PPO into ``out`` (checkpoints, snapshots, periodic
    evaluations, TensorBoard ``tb/ppo``) on ``device`` (default:
    ``train.device.learner_device(config)``); returns the network (on the CPU), its timesteps
    and the training wall time over every session (seconds). The checkpoint is saved whatever
    happens.

    Raises:
        ConfigError: a bad ``device`` or a league bot that is not a built-in policy.
        ModelFileError: ``resume`` and a checkpoint that does not fit.
    """
    from torch.utils.tensorboard import SummaryWriter

    if device is None:
        device = learner_device(config)
    env_threads, torch_threads = resolve_threads(config)
    ppo = LeanPPO(config, league, device, env_threads, init_weights=not resume)
    checkpoint = out / "checkpoints" / "latest"
    if resume:
        info = load_checkpoint(ppo.net, ppo.optimizer, checkpoint.with_suffix(".safetensors"))
        ppo.timesteps = int(info.get("timesteps") or 0)
    ppo.reset(fold_seed(config.seed + 1000 * len(state["evals"]), count=config.n_envs))
    writer = SummaryWriter(str(make_folders(out, out / "tb" / "ppo")))
    budget = None if config.time_budget_minutes is None else config.time_budget_minutes * 60

    def elapsed() -> float:
        return float(state["elapsed_before"]) + time.perf_counter() - start

    def fraction() -> float:
        frac = ppo.timesteps / config.total_timesteps
        return min(1.0, max(frac, elapsed() / budget) if budget else frac)

    def save() -> Path:
        make_folders(out, checkpoint.parent)  # never a linked folder (fort_env.game.files)
        path = save_checkpoint_files(
            ppo.net,
            checkpoint,
            num_players=config.num_players,
            setup=config.setup,
            training=dataclasses.asdict(config),
            optimizer=ppo.optimizer,
            timesteps=ppo.timesteps,
        )
        state["timesteps"] = ppo.timesteps
        save_state(out, league, state)
        return path

    def add_snapshot() -> None:
        path = save_policy(
            ppo.net,
            make_folders(out, out / "league") / f"snapshot_{ppo.timesteps}",
            num_players=config.num_players,
            setup=config.setup,
            training=dataclasses.asdict(config),
            timesteps=ppo.timesteps,
        )
        league.snapshots.append(snapshot_spec(path, config.snapshot_deterministic))
        del league.snapshots[: -config.max_snapshots]

    progress = _Progress(config.total_timesteps, budget, elapsed) if progress_bar else None
    tuner = ThreadTuner(
        # torch_threads=0: one thread or every usable core, re-measured as the run goes
        (1, torch_threads)
        if config.torch_threads == 0 and ppo.device.type == "cpu"
        else (torch_threads,),
        torch.set_num_threads,
        log=print if verbose else None,
    )
    state["thread_choices"] = tuner.choices
    log: Callable[[str, float], Any] = lambda k, v: writer.add_scalar(k, v, ppo.timesteps)  # noqa: E731
    try:
        if progress:
            progress.start(ppo.timesteps)
        while ppo.timesteps < config.total_timesteps:
            if budget is not None and elapsed() > budget:
                state["stopped_by_budget"] = True
                if verbose:
                    print(
                        f"time budget of {config.time_budget_minutes} minutes reached at "
                        f"{ppo.timesteps} steps"
                    )
                break
            t0, steps0 = time.perf_counter(), ppo.timesteps
            advantages = ppo.collect()
            lr = config.learning_rate * (1 - (1 - config.lr_final_fraction) * fraction())
            stats = ppo.update(advantages, lr)
            seconds = time.perf_counter() - t0
            sps = (ppo.timesteps - steps0) / max(seconds, 1e-9)
            log("charts/torch_threads", tuner.current)
            tuner.record(ppo.timesteps - steps0, seconds)
            log("charts/SPS", sps)
            log("charts/learning_rate", lr)
            for k, v in stats.items():
                log(f"train/{k}", v)
            point: dict[str, Any] = {
                "timesteps": ppo.timesteps,
                "wall_seconds": round(elapsed(), 1),
                "train_win_rate": {},
            }
            for kind, results in ppo.results.items():
                if results:
                    rate = float(np.mean(results))
                    log(f"league/win_rate_vs_{kind}", rate)
                    point["train_win_rate"][kind] = rate
            state["history"].append(point)
            if progress:
                progress.step(ppo.timesteps)
            if evaluation_due(config, state, ppo.timesteps, elapsed()):
                state["last_eval"] = ppo.timesteps
                state["last_eval_seconds"] = elapsed()
                periodic_evaluation(
                    config,
                    out,
                    league,
                    state,
                    ppo.timesteps,
                    elapsed(),
                    save(),
                    add_snapshot,
                    log,
                    verbose,
                )
    finally:
        total = elapsed()
        if progress:  # before elapsed_before takes this session's time (it would count twice)
            progress.end(ppo.timesteps)
        state["elapsed_before"] = total
        save()
        writer.close()
    return ppo.net.cpu().eval(), ppo.timesteps, total


class _Progress(ProgressCallback):
    """``train.progress.ProgressCallback`` driven by hand (no SB3 model)."""

    def start(self, timesteps: int) -> None:
        self.num_timesteps = timesteps
        self._on_training_start()

    def step(self, timesteps: int) -> None:
        self.num_timesteps = timesteps
        self._on_step()

    def end(self, timesteps: int) -> None:
        self.num_timesteps = timesteps
        self._on_training_end()
