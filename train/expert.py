"""Expert iteration for the policy-guided search (``puct``): a trained network improved from
games, as in AlphaZero (Silver et al. 2017) and expert iteration (Anthony, Tian and Barber 2017).

``puct`` (``agents/learned/puct.py``) takes two things from a network: a prior over actions and a
value of a position for every seat. A PPO run (``train/selfplay.py``) trains them for another
job: its critic estimates the learner's *shaped, discounted* return against its league (the
dense score-margin shaping of ``fort_env.envs.single_agent`` included), while the search backs up
who wins. This module fits the network to the search's own targets:

1. **Value from outcomes.** The network plays every seat of ``value_games`` games against
   itself (actions sampled from its masked policy, games stepped in lockstep so that one
   forward pass serves a whole batch); at a random ``1 / num_players`` of the decisions every
   seat's observation is kept with that seat's final return (``FortState.returns``: +1 a
   winner, -1 the others, rulebook p.11). The value head is fitted to them (mean squared error).
2. **Policy from search.** ``puct`` plays every seat of ``search_games`` games; at each
   searched decision the root's visit distribution is kept with the seat's observation and
   legal-action mask (and, for the value, the seat's final return). The policy head is fitted
   to the visit distributions (cross-entropy over the legal actions).

The games of the last :data:`HOLDOUT` fraction are held out: the losses before and after the
fit are measured on them (``report["holdout"]``), so a fit that does not generalise shows.
The result is a policy file like any other (``agents.learned.policy_file.save_policy``; its
description's ``training.expert`` says how it was made), playable as ``ppo:PATH`` and
``puct:model=PATH``. ``fort-env expert`` is the command line (``train/cli.py``).

Needs the ``train`` extra (torch, sb3-contrib).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.games import GAME_TORCH_THREADS, torch_threads
from agents.learned.policy_file import load_policy_file, read_description, save_policy
from agents.learned.ppo import PPOAgent, policy_logits, policy_values
from agents.learned.puct import PUCTAgent
from fort_env import FortGame

__all__ = ["ExpertConfig", "Samples", "fit", "policy_games", "run", "search_games"]

HOLDOUT = 0.1  # fraction of the games held out to measure the fit
BATCH_GAMES = 64  # games stepped together in policy_games (one forward pass per step)
MAX_DECISIONS = 5_000  # a guard per game (a 4-player game has a few hundred decisions)


@dataclass
class ExpertConfig:
    """One round of expert iteration (``fort-env expert``; written to ``expert.json``)."""

    model: str
    """The network to start from (``NAME.safetensors``)."""
    value_games: int = 4_000
    """Games of the network against itself whose outcomes train the value head."""
    value_keep: float = 0.1
    """Fraction of those games' decisions at which every seat's view is kept (about 30
    samples per 2-player game at 0.1; a sample is 6 kB)."""
    search_games: int = 0
    """Games of ``puct`` against itself whose root visits train the policy head (0: none)."""
    search_ms: float = 50.0
    """``puct``'s time per searched decision in those games (its ``ms``)."""
    search_iterations: int = 100_000
    """``puct``'s iteration limit per searched decision (with ``search_ms=0``: the budget)."""
    epochs: int = 3
    """Passes over the samples."""
    learning_rate: float = 1e-4
    """Adam step size."""
    batch_size: int = 512
    """Minibatch size."""
    seed: int = 0
    """Seeds the deals, the sampling, the searches and the minibatches."""


@dataclass
class Samples:
    """Training samples: ``obs`` float32 ``(N, observation_size)``; ``target`` the value
    target float32 ``(N,)`` in [-1, 1], or the visit distribution float32 ``(N, num_actions)``;
    ``mask`` bool ``(N, num_actions)`` (policy samples only); ``game`` int64 ``(N,)``, the
    game each sample comes from (for the hold-out split)."""

    obs: np.ndarray
    target: np.ndarray
    game: np.ndarray
    mask: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.obs)

    def __add__(self, other: Samples) -> Samples:
        """The samples of both (value samples: ``mask`` None); game numbers kept as given."""
        return Samples(
            np.concatenate([self.obs, other.obs]),
            np.concatenate([self.target, other.target]),
            np.concatenate([self.game, other.game]),
        )

    def split(self, games: int) -> tuple[Samples, Samples]:
        """``(train, holdout)``: the samples of the last :data:`HOLDOUT` of ``games`` apart."""
        held = max(1, round(games * HOLDOUT)) if games > 1 else 0  # one game: all to train
        cut = self.game >= games - held
        return self._take(~cut), self._take(cut)

    def _take(self, keep: np.ndarray) -> Samples:
        mask = None if self.mask is None else self.mask[keep]
        return Samples(self.obs[keep], self.target[keep], self.game[keep], mask)


def _stack(obs: list[np.ndarray], target: list[Any], game: list[int], size: int) -> Samples:
    return Samples(
        np.asarray(obs, dtype=np.float32).reshape(-1, size),
        np.asarray(target, dtype=np.float32),
        np.asarray(game, dtype=np.int64),
    )


# --------------------------------------------------------------------------- games
def policy_games(
    policy: Any, game: FortGame, games: int, seed: int, keep: float = 0.1, progress: Any = None
) -> Samples:
    """``games`` games of ``policy`` on every seat (sampled actions); value samples.

    At each decision, with probability ``keep``, every seat's observation is kept; its target
    is that seat's final return. Few positions of many games rather than many of few: the
    positions of one game share its outcome. Returns :class:`Samples` (``mask`` None).
    """
    rng = np.random.default_rng(seed)
    # the network samples from its masked policy, 64 positions per forward pass
    player = PPOAgent(policy=policy, deterministic=False, seed=int(rng.integers(2**62)))
    n, size = game.num_players, game.observation_size
    obs: list[np.ndarray] = []
    target: list[float] = []
    index: list[int] = []
    for first in range(0, games, BATCH_GAMES):
        ids = list(range(first, min(games, first + BATCH_GAMES)))
        states = [game.new_initial_state(seed=int(rng.integers(2**62))) for _ in ids]
        kept: list[list[np.ndarray]] = [[] for _ in ids]  # per game: kept seat views
        live = [i for i, s in enumerate(states) if not s.is_terminal()]
        for _ in range(MAX_DECISIONS):
            if not live:
                break
            x = np.stack([states[i].observation_tensor(states[i].current_player()) for i in live])
            masks = np.stack([states[i].legal_actions_mask() for i in live])
            choice = player.act_batch(x, masks)
            for row, i in enumerate(live):
                if rng.random() < keep:
                    kept[i].append(np.stack([states[i].observation_tensor(s) for s in range(n)]))
                states[i].apply_action(int(choice[row]))
            live = [i for i in live if not states[i].is_terminal()]
        for i, state in enumerate(states):
            returns = state.returns() if state.is_terminal() else np.zeros(n)
            for views in kept[i]:
                obs.extend(views)
                target.extend(returns.tolist())
                index.extend([ids[i]] * n)
        if progress is not None:
            progress(len(ids))
    return _stack(obs, target, index, size)


def search_games(
    agent: PUCTAgent, game: FortGame, games: int, seed: int, progress: Any = None
) -> tuple[Samples, Samples]:
    """``games`` games of ``agent`` (``puct``) on every seat; ``(policy, value)`` samples.

    Policy samples: at each searched decision, the acting seat's observation, its legal-action
    mask and the root's visit distribution. Value samples: the same observations with the
    seat's final return.
    """
    rng = np.random.default_rng(seed)
    size, actions = game.observation_size, game.num_distinct_actions
    obs: list[np.ndarray] = []
    visits: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    seats: list[int] = []
    index: list[int] = []
    returns_of: dict[int, np.ndarray] = {}
    for g in range(games):
        state = game.new_initial_state(seed=int(rng.integers(2**62)))
        agent.seed(int(rng.integers(2**62)))
        for _ in range(MAX_DECISIONS):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            seat = state.current_player()
            action = agent.search(lambda r, _s=state, _p=seat: _s.resample_hidden(_p, r), legal)
            counts = np.zeros(actions, dtype=np.float32)
            for a, v in agent.last_visits.items():
                counts[a] = v
            if counts.sum() > 0:
                obs.append(state.observation_tensor(seat))
                visits.append(counts / counts.sum())
                masks.append(state.legal_actions_mask())
                seats.append(seat)
                index.append(g)
            state.apply_action(action)
        returns_of[g] = state.returns()
        if progress is not None:
            progress(1)
    value_target = [float(returns_of[g][s]) for g, s in zip(index, seats, strict=True)]
    policy = _stack(obs, visits, index, size)
    policy.target = policy.target.reshape(-1, actions)
    policy.mask = np.asarray(masks, dtype=bool).reshape(-1, actions)
    return policy, _stack(obs, value_target, index, size)


# --------------------------------------------------------------------------- fitting
def _value_loss(policy: Any, data: Samples) -> float:
    import torch

    if not len(data):
        return float("nan")
    with torch.no_grad():
        v = policy_values(policy, torch.as_tensor(data.obs))
        return float(((v - torch.as_tensor(data.target)) ** 2).mean())


def _policy_loss(policy: Any, data: Samples) -> float:
    import torch

    if not len(data):
        return float("nan")
    with torch.no_grad():
        return float(_cross_entropy(policy, data, np.arange(len(data))))


def _cross_entropy(policy: Any, data: Samples, rows: np.ndarray) -> Any:
    import torch

    assert data.mask is not None
    logits = policy_logits(policy, torch.as_tensor(data.obs[rows]))
    logits = logits.masked_fill(~torch.as_tensor(data.mask[rows]), -1e9)
    log_p = torch.log_softmax(logits, dim=1)
    return -(torch.as_tensor(data.target[rows]) * log_p).sum(dim=1).mean()


def fit(
    policy: Any,
    value: Samples,
    search: Samples | None,
    config: ExpertConfig,
) -> dict[str, float]:
    """Fit ``policy`` in place: the value head to ``value`` (MSE), the policy head to
    ``search`` (cross-entropy to the visit distributions), ``config.epochs`` passes with Adam.

    Returns the mean training losses of the last epoch (``value_loss``, ``policy_loss``).
    """
    import torch

    rng = np.random.default_rng(config.seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate)
    policy.train(True)
    last: dict[str, float] = {}
    for _ in range(config.epochs):
        sums = {"value_loss": 0.0, "policy_loss": 0.0}
        steps = max(1, -(-len(value) // config.batch_size))
        order = rng.permutation(len(value))
        search_order = rng.permutation(len(search)) if search is not None and len(search) else None
        for k in range(steps):
            rows = order[k * config.batch_size : (k + 1) * config.batch_size]
            loss = torch.zeros(())
            if len(rows):
                v = policy_values(policy, torch.as_tensor(value.obs[rows]))
                value_loss = ((v - torch.as_tensor(value.target[rows])) ** 2).mean()
                loss = loss + value_loss
                sums["value_loss"] += value_loss.item()
            if search is not None and search_order is not None:
                # the search samples are fewer: cycle through them alongside the value's
                per = max(1, -(-len(search) // steps))
                srows = search_order[(k * per) % len(search) :][:per]
                policy_loss = _cross_entropy(policy, search, srows)
                loss = loss + policy_loss
                sums["policy_loss"] += policy_loss.item()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
        last = {k: v / steps for k, v in sums.items()}
    policy.train(False)
    return last


# --------------------------------------------------------------------------- the round
def run(config: ExpertConfig, out: str | Path, echo: Any = print) -> dict[str, Any]:
    """One round: games, fit, hold-out losses; writes ``OUT/model.safetensors`` (+ ``.json``)
    and ``OUT/expert.json`` (the config, sample counts, losses and timings); returns the latter.

    Raises:
        ModelFileError: ``config.model`` is missing or corrupt.
        FileExistsError: ``OUT/model.safetensors`` exists already.
        ValueError: negative game counts, no game at all, or ``value_keep`` outside (0, 1].
    """
    import json

    import torch

    if config.value_games < 0 or config.search_games < 0:
        raise ValueError("value_games and search_games must be at least 0")
    if not 0 < config.value_keep <= 1:
        raise ValueError(f"value_keep must be in (0, 1], got {config.value_keep}")
    if config.value_games + config.search_games == 0:
        raise ValueError("no games: give value_games or search_games")
    out = Path(out)
    if (out / "model.safetensors").exists():
        raise FileExistsError(f"{out / 'model.safetensors'} exists; choose another --out")
    torch.manual_seed(config.seed)
    policy, _ = load_policy_file(config.model)
    policy.train(False)
    described = read_description(config.model)
    facts = described["game"]
    game = FortGame(facts["num_players"], facts["setup"], facts.get("card_set"))
    threads = torch_threads(GAME_TORCH_THREADS)  # the games' forward passes are small
    started = time.perf_counter()
    value = policy_games(policy, game, config.value_games, config.seed, config.value_keep)
    value_seconds = time.perf_counter() - started
    echo(f"value games: {config.value_games} -> {len(value)} samples in {value_seconds:.0f} s")
    value_train, value_hold = value.split(config.value_games)
    search_train = search_hold = None
    search_seconds = 0.0
    if config.search_games:
        agent = PUCTAgent(
            model=config.model, ms=config.search_ms, iterations=config.search_iterations
        )
        started = time.perf_counter()
        search, search_value = search_games(agent, game, config.search_games, config.seed + 1)
        search_seconds = time.perf_counter() - started
        echo(f"search games: {config.search_games} -> {len(search)} samples")
        echo(f"  in {search_seconds:.0f} s")
        # each source holds out its own last games; the search games' outcomes train the value
        search_train, search_hold = search.split(config.search_games)
        more_train, more_hold = search_value.split(config.search_games)
        value_train, value_hold = value_train + more_train, value_hold + more_hold
    torch_threads(threads)  # the fit's minibatches use every thread
    before = {
        "value_mse": _value_loss(policy, value_hold),
        "policy_cross_entropy": _policy_loss(policy, search_hold) if search_hold else None,
    }
    started = time.perf_counter()
    losses = fit(policy, value_train, search_train, config)
    fit_seconds = time.perf_counter() - started
    after = {
        "value_mse": _value_loss(policy, value_hold),
        "policy_cross_entropy": _policy_loss(policy, search_hold) if search_hold else None,
    }
    echo(f"hold-out value MSE {before['value_mse']:.3f} -> {after['value_mse']:.3f}")
    if search_hold:
        echo(
            f"hold-out policy cross-entropy {before['policy_cross_entropy']:.3f} -> "
            f"{after['policy_cross_entropy']:.3f}"
        )
    report = {
        "config": asdict(config),
        "samples": {
            "value": len(value_train),
            "policy": 0 if search_train is None else len(search_train),
            "value_holdout": len(value_hold),
            "policy_holdout": 0 if search_hold is None else len(search_hold),
        },
        "holdout": {"before": before, "after": after},
        "train_losses": losses,
        "seconds": {
            "value_games": value_seconds,
            "search_games": search_seconds,
            "fit": fit_seconds,
        },
    }
    training = dict(described.get("training") or {})
    training["expert"] = report
    save_policy(
        policy,
        out / "model",
        num_players=facts["num_players"],
        setup=facts["setup"],
        cards=facts.get("card_set"),
        training=training,
        timesteps=described.get("timesteps"),
    )
    (out / "expert.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report
