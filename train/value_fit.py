"""Refit a network's value head to who wins (``fort-env value-fit``); its policy unchanged.

Why: the value head of a PPO network is trained on the learner's return, discounted and shaped
by the score margin, not on the outcome: on held-out positions of games between the shipped
bots its squared error against the outcome is about 0.8 (the constant 0 scores 1.0;
docs/agents.md, "How well can a network learn who wins?"). ``puct`` backs up that head's
estimate of a seat's win/loss return at every leaf (cpp/include/fort/bots/puct.h), so it is
the search's evaluation. This module refits only the value head, a linear layer on the trunk's
last hidden layer, to the outcome: the trunk and the policy head are copied bit for bit, so
``ppo`` plays exactly as before (tested) and ``puct`` gets a value head that estimates who wins.

The data: ``games`` games of the network (its most probable legal action) against each of
``opponents`` in turn (``self``: a copy of the network sampling its policy; otherwise an agent
spec), seats rotated; every decision is kept with probability ``keep``, as one row per seat:
the seat's observation (what the value head reads) and its final return, +1 for a winner and
-1 for the others (``FortState.returns``, rulebook p.11). The fit: ridge regression in closed
form on the trunk's features (float64), its penalty chosen among :data:`RIDGE_PENALTIES` on the
last tenth of the training games, then refitted on them all. A separate set of
``holdout_games`` games (other deals) measures the squared error before and after.

The output (``out``: ``NAME.safetensors`` + ``NAME.json``) is checked with the settings before
the first game (:func:`check_out`): never the model itself, an existing pair only with
``overwrite``, never a folder's name; it is written as a pair, so a failure leaves an old pair
whole (``agents.learned.policy_io``).

Needs the ``train`` extra (torch). Raises ``ValueError`` for settings out of range and
``fort_env.ModelFileError`` for a model that cannot be loaded.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.arena.games import play_game
from agents.learned.policy_file import (
    load_policy_file,
    policy_paths,
    read_description,
    save_policy,
)
from agents.learned.ppo import PPOAgent
from fort_env import FortGame, FortState
from fort_env.game.files import check_target
from fort_env.game.inputs import MAX_SEED, SEED_RANGE
from train.config import fold_seed

__all__ = [
    "MIN_DECISIONS",
    "MIN_POSITIONS",
    "RIDGE_PENALTIES",
    "ValueFitConfig",
    "check_out",
    "fit_value_head",
    "play_positions",
    "run",
]

RIDGE_PENALTIES = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
"""The ridge penalties tried (on the sum of squares of the features' weights, not the bias)."""

HOLDOUT_SEED_OFFSET = 1_000_000_007  # the held-out deals: seeds far from the training ones
MIN_DECISIONS = 100
"""Decisions a game has at least, for the settings' check: random 2-4 player games took 209
or more (60 deals each); half of that, as the network's games may be shorter."""
MIN_POSITIONS = 5
"""Kept decisions expected, at least, in the validation games (the last tenth of the training
games, which choose the ridge penalty) and in the held-out games: fewer and the fit has
nothing to choose on (``keep=0.001`` of 10 games ended in torch's ``LinAlgError``)."""


@dataclass
class ValueFitConfig:
    """``fort-env value-fit``'s settings (kept in the new network's description)."""

    model: str
    """The network (``NAME.safetensors``) whose value head is refitted."""
    games: int = 2000
    """Training games (each opponent in turn; seats rotated)."""
    holdout_games: int = 200
    """Held-out games, on other deals, for the error before and after."""
    keep: float = 0.12
    """Share of decisions kept as positions."""
    opponents: str = "self,heuristic,builder,scorer"
    """Comma-separated opponents (``self``: the network sampling its own policy)."""
    seed: int = 0
    """Seeds the deals (game ``g``: ``seed * 100_000 + g``, folded into ``[0, 2**62)`` by
    ``train.config.fold_seed``), the agents and the keeping; an int in ``[0, 2**62)``."""

    def check(self) -> None:
        """Raises ValueError naming the first setting out of range."""
        if self.games < 10 or self.holdout_games < 1:
            raise ValueError(
                f"games must be at least 10 and holdout_games at least 1, got {self.games} "
                f"and {self.holdout_games}"
            )
        if not 0.0 < self.keep <= 1.0:
            raise ValueError(f"keep must be in (0, 1], got {self.keep}")
        validation = max(1, self.games // 10)
        for what, games in (
            (f"the validation games (the last {validation} of the {self.games} training games)",
             validation),
            (f"the {self.holdout_games} held-out games", self.holdout_games),
        ):  # fmt: skip
            expected = self.keep * games * MIN_DECISIONS
            if expected < MIN_POSITIONS:
                raise ValueError(
                    f"keep {self.keep:g} keeps about {expected:.2g} decisions of {what}; the "
                    f"fit needs at least {MIN_POSITIONS} there: raise keep, games or "
                    "holdout_games"
                )
        if not [o for o in self.opponents.split(",") if o.strip()]:
            raise ValueError("opponents must name at least one opponent")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be {SEED_RANGE}, got {self.seed}")


class _Keep:
    """An observer keeping each decision with probability ``keep``: every seat's observation."""

    def __init__(self, keep: float, rng: np.random.Generator, num_players: int) -> None:
        self.keep, self.rng, self.n = keep, rng, num_players
        self.obs: list[np.ndarray] = []

    def before(self, state: FortState, seat: int, action: int) -> None:
        if self.rng.random() < self.keep:
            self.obs.append(np.stack([state.observation_tensor(p) for p in range(self.n)]))

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        return {}


def play_positions(
    policy: Any,
    game: FortGame,
    opponents: list[str],
    games: int,
    base_seed: int,
    keep: float,
    log: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of ``games`` games of ``policy`` against ``opponents`` (in turn, seats
    rotated; game ``g`` dealt from ``base_seed + g``, its agents seeded ``10 * that + seat``,
    each folded into the engine's ``[0, 2**62)``): ``(obs float32 (M, D), outcome float32
    (M,), game int64 (M,))``, one row per kept decision and seat. ``log`` (a ``print``-like
    function), if given, gets a line every 100 games."""
    n = game.num_players
    rows: list[np.ndarray] = []
    outcomes: list[np.ndarray] = []
    game_ids: list[np.ndarray] = []
    for g in range(games):
        seed = fold_seed(base_seed + g)
        rival = opponents[g % len(opponents)]
        seats: list[Any] = [PPOAgent(policy=policy, seed=seed)]
        for i in range(1, n):
            if rival == "self":
                seats.append(
                    PPOAgent(policy=policy, deterministic=False, seed=fold_seed(seed * 10 + i))
                )
            else:
                seats.append(agents.make(rival, seed=fold_seed(seed * 10 + i)))
        shift = (g // len(opponents)) % n
        seats = seats[shift:] + seats[:shift]
        observer = _Keep(keep, np.random.default_rng(seed), n)
        _, state = play_game(game, seats, seed, index=g, observer=observer)
        returns = np.asarray(state.returns(), np.float32)
        for obs in observer.obs:
            rows.append(obs)
            outcomes.append(returns)
            game_ids.append(np.full(n, g, np.int64))
        if log is not None and (g + 1) % 100 == 0:
            log(f"value-fit: {g + 1} of {games} games, {sum(len(o) for o in outcomes)} rows")
    if not rows:
        size = game.observation_size
        return np.zeros((0, size), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    return (
        np.concatenate(rows).astype(np.float32),
        np.concatenate(outcomes),
        np.concatenate(game_ids),
    )


def _features(net: Any, obs: np.ndarray) -> Any:
    """The trunk's last hidden layer with a column of ones: float64 ``(M, H + 1)``."""
    import torch

    parts = []
    with torch.no_grad():
        for i in range(0, len(obs), 4096):
            parts.append(net.hidden(torch.from_numpy(obs[i : i + 4096])).double())
    hidden = torch.cat(parts) if parts else torch.zeros((0, net.value_head.in_features))
    return torch.cat([hidden, torch.ones((len(hidden), 1), dtype=torch.float64)], 1)


def _ridge(x: Any, y: Any, penalty: float) -> Any:
    import torch

    gram = x.T @ x
    eye = torch.eye(x.shape[1], dtype=torch.float64)
    eye[-1, -1] = 0.0  # the bias is not penalised
    return torch.linalg.solve(gram + penalty * eye, x.T @ y)


def _mse(x: Any, y: Any, w: Any) -> float:
    """Squared error of the clipped estimate (the search clips it to -1..1)."""
    return float(((x @ w).clamp(-1.0, 1.0) - y).pow(2).mean())


def fit_value_head(
    net: Any, obs: np.ndarray, outcome: np.ndarray, game_ids: np.ndarray
) -> dict[str, Any]:
    """Refit ``net.value_head`` in place to ``outcome`` (ridge regression on the trunk's
    features, the penalty chosen on the last tenth of the games); returns the penalty and the
    validation errors. The trunk and the policy head are not touched."""
    import torch

    last = np.unique(game_ids)
    if len(last) < 2:
        raise ValueError(
            f"{len(obs)} positions from {len(last)} game(s): the fit needs positions of two "
            "games at least (one to fit, one to choose the penalty on): raise keep or games"
        )
    x = _features(net, obs)
    y = torch.from_numpy(outcome).double()
    valid = torch.from_numpy(np.isin(game_ids, last[-max(1, len(last) // 10) :]))
    errors = {}
    try:
        for penalty in RIDGE_PENALTIES:
            w = _ridge(x[~valid], y[~valid], penalty)
            errors[penalty] = _mse(x[valid], y[valid], w)
        best = min(errors, key=lambda p: errors[p])
        w = _ridge(x, y, best)
    except torch.linalg.LinAlgError as exc:  # cannot happen with a position on each side
        raise ValueError(f"the ridge fit failed on {len(obs)} positions: {exc}") from None
    with torch.no_grad():
        net.value_head.weight.copy_(w[:-1].float()[None, :])
        net.value_head.bias.copy_(w[-1:].float())
    return {"penalty": best, "validation_mse": {str(k): v for k, v in errors.items()}}


def _value_mse(net: Any, obs: np.ndarray, outcome: np.ndarray) -> float:
    import torch

    x = _features(net, obs)
    w = torch.cat([net.value_head.weight.detach()[0], net.value_head.bias.detach()]).double()
    return _mse(x, torch.from_numpy(outcome).double(), w)


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)  # a hard link, or another path to the same file
    except OSError:  # one of them does not exist
        return False


def check_out(model: str | Path, out: str | Path, overwrite: bool = False) -> Path:
    """``out`` may take the refitted network of ``model`` (looks only; before the first game):

    - not empty (``--out ""``), not ending in a folder separator and not an existing folder
      (``--out DIR/`` would write ``DIR.safetensors`` beside ``DIR``): a network's NAME;
    - neither of its files is one of ``model``'s (by path, link or hard link), even with
      ``overwrite``: the run reads the model to the end;
    - neither exists unless ``overwrite``;
    - neither name is taken by a FIFO, a device, a directory or a link to one
      (``fort_env.game.files.check_target``).

    Returns ``out`` as a ``Path``.

    Raises:
        ValueError: empty, a folder, or the model itself.
        FileExistsError: the pair (or one of it) exists and ``overwrite`` is false.
        OutputFileError: a name that is not a regular file's.
    """
    text = os.fspath(out)
    if not text.strip():
        raise ValueError("out is empty: give the new network's NAME, e.g. runs/value-fit/net")
    separators = tuple(s for s in (os.sep, os.altsep, "/") if s)
    if text.endswith(separators) or Path(text).is_dir():
        raise ValueError(
            f"{text} is a folder: give the new network's NAME (NAME.safetensors + NAME.json "
            f"are written), e.g. {text.rstrip(''.join(separators)) or '.'}/{Path(model).stem}-fit"
        )
    weights, description = policy_paths(text)
    for mine, theirs in zip(policy_paths(text), policy_paths(model), strict=True):
        if _same_file(mine, theirs):
            raise ValueError(
                f"{mine} is the model's own file ({theirs}): value-fit never replaces the "
                "network it reads; give another out"
            )
    for path in (weights, description):
        check_target(path)
    if not overwrite:
        taken = [p for p in (weights, description) if os.path.lexists(p)]
        if taken:
            raise FileExistsError(
                f"{taken[0]} exists: pass --overwrite (overwrite=True) to replace it, or give "
                "another out"
            )
    return Path(text)


def run(
    config: ValueFitConfig, out: str | Path, log: Any = print, overwrite: bool = False
) -> dict[str, Any]:
    """Refit ``config.model``'s value head and save the network as ``out`` (``NAME`` or
    ``NAME.safetensors`` + ``NAME.json``; its description's ``training.value_fit`` is the
    returned report: the config, positions, penalty, held-out errors before and after,
    seconds). The settings, ``out`` (:func:`check_out`; an existing pair is replaced only with
    ``overwrite``) and the model's description are checked before the first game.

    Raises:
        ValueError: a bad config, or an ``out`` that is a folder or the model itself.
        FileExistsError: ``out`` exists and ``overwrite`` is false.
        ModelFileError: the model cannot be loaded (its description's fields included).
        OutputFileError: a name of ``out`` that is not a regular file's.
    """
    import torch

    config.check()
    out = check_out(config.model, out, overwrite)
    torch.set_num_threads(1)  # many small forward passes: threads only contend
    net, _ = load_policy_file(config.model)
    described = read_description(config.model)
    facts = described["game"]
    game = FortGame(facts["num_players"], facts["setup"], facts.get("card_set"))
    opponents = [o.strip() for o in config.opponents.split(",") if o.strip()]
    t0 = time.perf_counter()
    base = fold_seed(config.seed * 100_000)
    log(f"value-fit: {config.games} training games against {', '.join(opponents)}")
    obs, outcome, ids = play_positions(
        net, game, opponents, config.games, base, config.keep, log=log
    )
    log(f"value-fit: {config.holdout_games} held-out games")
    holdout_base = fold_seed(base + HOLDOUT_SEED_OFFSET)
    h_obs, h_outcome, _ = play_positions(
        net, game, opponents, config.holdout_games, holdout_base, config.keep
    )
    played = time.perf_counter() - t0
    if not len(h_obs):
        raise ValueError(
            f"no position was kept from the {config.holdout_games} held-out games (keep "
            f"{config.keep:g}): raise keep or holdout_games"
        )
    before = _value_mse(net, h_obs, h_outcome)
    fitted = fit_value_head(net, obs, outcome, ids)
    after = _value_mse(net, h_obs, h_outcome)
    report = {
        "config": asdict(config),
        "positions": {"train": len(obs), "holdout": len(h_obs)},
        **fitted,
        "holdout_mse": {"before": before, "after": after},
        "seconds": {"play": round(played, 1), "fit": round(time.perf_counter() - t0 - played, 1)},
    }
    if not all(math.isfinite(v) for v in (before, after)):
        raise ValueError("the held-out error is not finite: too few held-out positions?")
    training = dict(described.get("training") or {})
    training["value_fit"] = report
    path = save_policy(
        net,
        out,
        num_players=facts["num_players"],
        setup=facts["setup"],
        cards=facts.get("card_set"),
        training=training,
        timesteps=described.get("timesteps"),
    )
    log(f"value-fit: held-out MSE {before:.3f} -> {after:.3f}; wrote {path}")
    report["path"] = str(path)
    return report
