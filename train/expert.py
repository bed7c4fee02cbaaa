"""Expert iteration for the policy-guided search (``puct``): a network improved by its own search,
as in AlphaZero (Silver et al. 2017) and expert iteration (Anthony, Tian and Barber 2017).

``fort-env expert --rounds N`` (``train/cli.py``) runs :func:`run`. Each round:

1. **Self-play in C++.** ``workers`` processes play ``games`` games of the C++ search
   (``_core.puct_search``, ``cpp/include/fort/bots/puct.h``) on every seat, ``sims``
   simulations a decision with Dirichlet noise on the root's priors (``noise``, ``alpha``);
   for the first ``explore`` searched decisions of a game the move is drawn in proportion to
   the root's visits, then it is the most visited. Every searched decision is a sample: the
   acting seat's observation, its legal actions, the root's visit distribution and, when the
   game ends, that seat's return (+1 a winner, -1 the others: ``FortState.returns``, rulebook
   p.11). Each worker streams its samples to ``round-K/samples/shard-W.npz`` on disk; nothing
   is held in memory between rounds.
2. **Fit.** A copy of the best network so far is fitted to the samples of the last ``window``
   rounds (read back from disk): the policy head to the visit distributions (cross-entropy
   over the legal actions), the value head to the returns (mean squared error), ``epochs``
   passes with Adam on ``device`` (``auto``: CUDA when torch sees a GPU). The last
   :data:`HOLDOUT` of the round's games is held out; the losses before and after the fit are
   measured on it, so a fit that does not generalise shows.
3. **Gate.** The candidate plays ``gate_games`` games against the best (``puct:sims=
   gate_sims`` both; the same deals every round, seats rotated, ``agents.arena.tournament``);
   it becomes the best when its win rate reaches ``threshold`` times the fair share: 0.55 in a
   2-player game (AlphaZero's gate), ``1.1 / n`` among ``n`` players (one candidate against
   ``n - 1`` copies of the best); on the luck-corrected win rate where a table critic ships
   (:func:`gate`).

Written under ``OUT``: ``best.safetensors`` + ``best.json`` (the accepted network: play it as
``puct:model=OUT/best.safetensors``; its description's ``training.expert`` says how it was
made), ``round-K/candidate.*``, ``round-K/samples/``, and ``expert.json`` (the config, and per
round: samples, hold-out losses, the gate's result with its Wilson interval, seconds).

Needs the ``train`` extra (torch) and the compiled core.
"""

from __future__ import annotations

import io
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned.policy_file import (
    copy_policy,
    load_policy_file,
    policy_paths,
    read_description,
    save_policy,
)
from agents.learned.ppo import policy_logits, policy_values
from agents.spec import format_spec
from fort_env import FortGame
from fort_env.game.files import check_folders, check_target, make_folders, write_bytes, write_text
from train.expert_config import ExpertConfig

__all__ = ["ExpertConfig", "Samples", "fit", "gate", "load_samples", "run", "self_play"]

HOLDOUT = 0.1  # fraction of a round's games held out to measure the fit
MAX_DECISIONS = 5_000  # a guard per game (a 4-player game has a few hundred decisions)
SEED_LIMIT = 2**62  # seeds of the C++ search (fort_env.game.constants.SEED_LIMIT)


@dataclass
class Samples:
    """Search samples, one per searched decision. ``obs`` float32 ``(M, observation_size)``: the
    acting seat's observation; ``visits`` float32 ``(M, num_actions)``: the root's visit
    distribution (sums to 1, zero off the legal actions); ``mask`` bool ``(M, num_actions)``:
    the legal actions; ``value`` float32 ``(M,)``: the acting seat's final return (-1 or +1);
    ``game`` int64 ``(M,)``: the game (for the hold-out split); ``search_value`` float32
    ``(M,)``: the root's visit-weighted mean value for the acting seat, -1..1; ``table``
    float32 ``(M, T)``: the acting seat's table observation when the network has a whole-table
    critic (``T = 0`` without one)."""

    obs: np.ndarray
    visits: np.ndarray
    mask: np.ndarray
    value: np.ndarray
    game: np.ndarray
    search_value: np.ndarray
    table: np.ndarray

    def __len__(self) -> int:
        return len(self.obs)

    def take(self, rows: np.ndarray) -> Samples:
        """The samples at ``rows`` (indices or a boolean mask)."""
        return Samples(*(getattr(self, f)[rows] for f in FIELDS))

    def split(self, games: range) -> tuple[Samples, Samples]:
        """``(train, holdout)``: the samples of the last :data:`HOLDOUT` of ``games`` apart."""
        held = max(1, round(len(games) * HOLDOUT)) if len(games) > 1 else 0
        cut = self.game >= games.stop - held
        return self.take(~cut), self.take(cut)


FIELDS = ("obs", "visits", "mask", "value", "game", "search_value", "table")


def concat(parts: list[Samples]) -> Samples:
    """The samples of all ``parts``, in order."""
    return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


# --------------------------------------------------------------------------- self-play
def _cpp_state(state: Any) -> Any:
    from fort_env.native import backend

    return (
        state if isinstance(state, backend.CppFortState) else backend.CppFortState.from_state(state)
    )


def self_play(
    model: str, config: ExpertConfig, games: range, seed: int, shard: str | Path
) -> dict[str, Any]:
    """Play ``games`` (their numbers) of the C++ search on every seat; write their samples.

    The samples go to ``shard`` (``.npz``, the fields of :class:`Samples`). Runs in a worker
    process (:func:`run`) or in the caller's. Returns ``{"samples", "games", "seconds"}``.

    Raises:
        ModelFileError: ``model`` is missing, corrupt or does not run on the core.
    """
    from agents.learned.puct import PUCTAgent

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    noise = 0.0 if config.gumbel else config.noise  # Gumbel's draws explore instead
    search = PUCTAgent(
        model, sims=config.sims, c=config.c, engine="core", batch=config.batch,
        noise=noise, alpha=config.alpha, seed=int(rng.integers(SEED_LIMIT)),
        gumbel=config.gumbel, gumbel_actions=config.gumbel_actions,
    )  # fmt: skip
    described = read_description(model)
    n = int(described["game"]["num_players"])
    with_table = described["network"].get("critic") is not None
    fast = PUCTAgent(
        model, sims=config.fast_sims, c=config.c, engine="core", batch=config.batch,
        noise=noise, alpha=config.alpha, seed=int(rng.integers(SEED_LIMIT)),
        gumbel=config.gumbel, gumbel_actions=config.gumbel_actions,
    )  # fmt: skip
    game = FortGame(n)
    obs: list[np.ndarray] = []
    tables: list[np.ndarray] = []
    search_value: list[float] = []
    visits: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    seats: list[int] = []
    index: list[int] = []
    value: list[float] = []
    for g in games:
        state = _cpp_state(game.new_initial_state(seed=int(rng.integers(SEED_LIMIT))))
        first = len(seats)
        searched = 0
        for _ in range(MAX_DECISIONS):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            seat = state.current_player()
            full = config.full_share >= 1.0 or rng.random() < config.full_share
            searcher = search if full else fast
            # the search reads the state only through its own re-deals for `seat` (no leak)
            searcher.search_core(lambda _rng, _s=state: _s, seat, legal)
            r = searcher.last_search
            counts = np.asarray(r["visits"], dtype=np.float64)
            if full:  # only full searches are samples (playout-cap randomisation)
                target = np.zeros(game.num_distinct_actions, dtype=np.float32)
                if config.gumbel:  # the paper's policy target: the improved policy
                    target[r["actions"]] = np.asarray(r["improved_policy"], dtype=np.float32)
                else:
                    target[r["actions"]] = counts / counts.sum()
                obs.append(state.observation_tensor(seat))
                if with_table:
                    tables.append(state.table_observation_tensor(seat))
                q = (  # [0, 1] for the seat; Gumbel may visit nothing (one action considered)
                    float(np.dot(counts, r["values"]) / counts.sum())
                    if counts.sum() > 0
                    else float(r["root_value"])
                )
                search_value.append(2.0 * q - 1.0)
                visits.append(target)
                masks.append(state.legal_actions_mask().astype(bool))
                seats.append(seat)
                index.append(g)
            if searched < config.explore and not config.gumbel:
                action = int(rng.choice(r["actions"], p=counts / counts.sum()))
            else:
                action = int(r["action"])
            searched += 1
            state.apply_action(action)
        returns = state.returns()  # zeros if the guard stopped it: no outcome to learn
        value.extend(float(returns[s]) for s in seats[first:])
    size, actions = game.observation_size, game.num_distinct_actions
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        obs=np.asarray(obs, dtype=np.float32).reshape(-1, size),
        visits=np.asarray(visits, dtype=np.float32).reshape(-1, actions),
        mask=np.asarray(masks, dtype=bool).reshape(-1, actions),
        value=np.asarray(value, dtype=np.float32),
        game=np.asarray(index, dtype=np.int64),
        search_value=np.asarray(search_value, dtype=np.float32),
        table=np.asarray(tables, dtype=np.float32).reshape(len(obs), -1),
    )
    write_bytes(shard, buffer.getvalue())
    return {"samples": len(obs), "games": len(games), "seconds": time.perf_counter() - started}


def load_samples(shards: list[Path]) -> Samples:
    """The samples of ``shards`` (written by :func:`self_play`), in order; nothing unpickled.

    Raises:
        ValueError: a shard that is not such a file (names it).
    """
    parts = []
    for path in shards:
        try:
            with np.load(path, allow_pickle=False) as data:
                parts.append(Samples(*(data[f] for f in FIELDS)))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a samples shard of fort-env expert: {exc}") from None
    return concat(parts)


# --------------------------------------------------------------------------- fitting
def value_targets(data: Samples, q_mix: float) -> np.ndarray:
    """The value targets of ``data``: ``(1 - q_mix) * outcome + q_mix * search value``."""
    return ((1.0 - q_mix) * data.value + q_mix * data.search_value).astype(np.float32)


def _losses(
    policy: Any, data: Samples, rows: np.ndarray, device: Any, q_mix: float = 0.0
) -> tuple[Any, Any]:
    """(cross-entropy to the visits over the legal actions, value MSE) on ``rows``; the value
    MSE is the value head's, plus the whole-table critic's when the network has one. The
    targets mix outcome and search value by ``q_mix`` (:func:`value_targets`)."""
    import torch

    x = torch.as_tensor(data.obs[rows], device=device)
    logits = policy_logits(policy, x)
    logits = logits.masked_fill(~torch.as_tensor(data.mask[rows], device=device), -1e9)
    log_p = torch.log_softmax(logits, dim=1)
    cross_entropy = -(torch.as_tensor(data.visits[rows], device=device) * log_p).sum(1).mean()
    v = policy_values(policy, x)
    target = torch.as_tensor(value_targets(data.take(rows), q_mix), device=device)
    mse = ((v - target) ** 2).mean()
    if getattr(policy, "critic", None) is not None and data.table.shape[1]:
        critic = policy.table_values(torch.as_tensor(data.table[rows], device=device))
        mse = mse + ((critic - target) ** 2).mean()
    return cross_entropy, mse


def evaluate(policy: Any, data: Samples, device: str = "cpu") -> dict[str, float]:
    """``{"policy_cross_entropy", "value_mse"}`` of ``policy`` on ``data`` against the
    outcomes (the value head), with ``"critic_mse"`` when the network has a whole-table critic
    and the samples its tables; NaN if empty."""
    import torch

    if not len(data):
        return {"policy_cross_entropy": float("nan"), "value_mse": float("nan")}
    policy.to(device)
    dev = torch.device(device)
    rows = np.arange(len(data))
    outcome = torch.as_tensor(data.value, device=dev)
    with torch.no_grad():
        ce, _ = _losses(policy, data, rows, dev)
        v = policy_values(policy, torch.as_tensor(data.obs, device=dev))
        out = {"policy_cross_entropy": float(ce), "value_mse": float(((v - outcome) ** 2).mean())}
        if getattr(policy, "critic", None) is not None and data.table.shape[1]:
            c = policy.table_values(torch.as_tensor(data.table, device=dev))
            out["critic_mse"] = float(((c - outcome) ** 2).mean())
    return out


def fit(policy: Any, data: Samples, config: ExpertConfig, device: str = "cpu") -> dict[str, float]:
    """Fit ``policy`` in place on ``device``: cross-entropy to the visits plus the value's MSE,
    ``config.epochs`` passes of minibatches with Adam (gradients clipped at norm 0.5). Leaves
    the policy on the CPU in eval mode. Returns the last epoch's mean losses."""
    import torch

    rng = np.random.default_rng(config.seed)
    dev = torch.device(device)
    policy.to(dev)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate)
    policy.train(True)
    last = {"policy_cross_entropy": float("nan"), "value_mse": float("nan")}
    for _ in range(config.epochs):
        sums = np.zeros(2)
        order = rng.permutation(len(data))
        steps = 0
        for k in range(0, len(order), config.batch_size):
            ce, mse = _losses(policy, data, order[k : k + config.batch_size], dev, config.q_mix)
            optimizer.zero_grad()
            (ce + mse).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            sums += (ce.item(), mse.item())
            steps += 1
        if steps:
            last = {"policy_cross_entropy": sums[0] / steps, "value_mse": sums[1] / steps}
    policy.train(False)
    policy.to("cpu")
    return last


# --------------------------------------------------------------------------- gate
def gate(candidate: Path, best: Path, num_players: int, config: ExpertConfig) -> dict[str, Any]:
    """The candidate against ``num_players - 1`` copies of the best (module docstring, 3.).

    Where a table critic ships for the game (``agents.arena.luck.shipped_critic``), the gate
    decides on the candidate's luck-corrected win rate (AIVAT, ``agents.arena.luck``; its
    interval is narrower than the raw one's by the square root of the variance reduction);
    the raw figures are kept beside it.

    Returns ``{"games", "win_rate", "win_rate_ci95", "needed", "accepted", "seed"}`` (raw),
    plus ``"luck_corrected": {"win_rate", "win_rate_ci95", "variance_reduction", "critic",
    "critic_sha256"}`` when corrected; ``"decided_on"``: ``"luck_corrected"`` or ``"raw"``.
    """
    from agents.arena.luck import shipped_critic
    from agents.arena.tournament import run_tournament

    needed = config.threshold * 2.0 / num_players  # the share over the fair 1/n: 1.1 at 0.55
    if config.gate_games == 0:  # no gate: every candidate is taken
        return {"games": 0, "accepted": True, "needed": needed}
    seed = int(np.random.default_rng([config.seed, 7]).integers(SEED_LIMIT))  # every round's
    settings: dict[str, Any] = {"sims": config.gate_sims, "c": config.c, "batch": config.batch}
    if config.gumbel:
        settings.update(gumbel=1, gumbel_actions=config.gumbel_actions)
    # by the spec grammar, so that a run folder holding ':' reads back whole
    specs = [format_spec("puct", None, {"model": str(candidate), **settings})]
    specs += [format_spec("puct", None, {"model": str(best), **settings})] * (num_players - 1)
    result = run_tournament(
        specs, num_players, config.gate_games, seed=seed, workers=config.workers, progress=False,
        critic=shipped_critic(num_players),
    )  # fmt: skip
    mine = result["agents"][specs[0]]  # the first spec keeps its name (unique_names)
    rate = float(mine["win_rate"])
    out: dict[str, Any] = {
        "games": int(result["games"]),
        "win_rate": rate,
        "win_rate_ci95": mine["win_rate_ci95"],
        "needed": needed,
        "seed": seed,
        "decided_on": "raw",
    }
    luck = result.get("luck_corrected")
    if luck is not None:
        c = luck["agents"][specs[0]]
        out["luck_corrected"] = {
            "win_rate": c["win_rate"],
            "win_rate_ci95": c["win_rate_ci95"],
            "variance_reduction": c["variance_reduction"],
            "critic": luck["critic"],
            "critic_sha256": luck["critic_sha256"],
        }
        out["decided_on"] = "luck_corrected"
        rate = float(c["win_rate"])
    out["accepted"] = rate >= needed
    return out


# --------------------------------------------------------------------------- the loop
def _save(policy: Any, path: Path, described: dict[str, Any], report: dict[str, Any]) -> Path:
    facts = described["game"]
    training = dict(described.get("training") or {})
    training["expert"] = report
    return save_policy(
        policy,
        path,
        num_players=facts["num_players"],
        setup=facts["setup"],
        cards=facts.get("card_set"),
        training=training,
        timesteps=described.get("timesteps"),
    )


def _copy_policy(source: str | Path, target: Path) -> None:
    """``source``'s tensors and description as ``target`` (``NAME.safetensors`` + ``.json``),
    checked and written as a pair (``agents.learned.policy_io.copy_policy``)."""
    copy_policy(source, target)


def check_out(out: str | Path, config: ExpertConfig) -> Path:
    """``out`` may take a run of ``config``, checked before the first game (looks only):
    not empty (``--out ""`` would write into the current folder); no ``expert.json`` there yet;
    and nothing the run writes (``best.*``, ``expert.json``, every round's folder, samples
    folder, shards and candidate) is a symlinked folder inside ``out`` or a name taken by a
    FIFO, a device, a directory or a link to one (``fort_env.game.files``). Returns ``out``.

    Raises:
        ValueError: ``out`` is empty.
        FileExistsError: ``OUT/expert.json`` exists already.
        OutputFileError: a folder or file name of the run is not its to write (names it).
    """
    if not str(out).strip():
        raise ValueError("the output folder is empty: name a folder, e.g. runs/expert")
    out = Path(out)
    if (out / "expert.json").exists():
        raise FileExistsError(f"{out / 'expert.json'} exists; choose another --out")
    for name in ("best.safetensors", "best.json", "expert.json"):
        check_target(out / name)
    for k in range(1, config.rounds + 1):
        folder = out / f"round-{k:03d}"
        check_folders(out, folder / "samples")
        if folder.is_dir():
            for name in ("candidate.safetensors", "candidate.json"):
                check_target(folder / name)
        if (folder / "samples").is_dir():
            for w in range(config.workers):
                check_target(folder / "samples" / f"shard-{w:02d}.npz")
    return out


def run(config: ExpertConfig, out: str | Path, echo: Any = print) -> dict[str, Any]:
    """Expert iteration (module docstring); returns the report written to ``OUT/expert.json``.

    Raises:
        ModelFileError: ``config.model`` is missing, corrupt or does not run on the core.
        FileExistsError: ``OUT/expert.json`` exists already.
        OutputFileError: a folder inside ``out`` is a symlink, or a name the run writes is
            taken by something that is not a regular file (:func:`check_out`).
        ValueError: a setting out of range (:meth:`ExpertConfig.check`), or ``out`` empty.
    """
    import torch

    from agents.arena.games import torch_threads
    from agents.learned.core_network import core_network
    from train.device import resolve_device

    config.check()
    out = check_out(out, config)  # every argument and output checked before the first game
    core_network(config.model)  # refuses a bad model before any game
    device = resolve_device(config.device)
    described = read_description(config.model)
    n = int(described["game"]["num_players"])
    out.mkdir(parents=True, exist_ok=True)
    best = out / "best.safetensors"
    if policy_paths(config.model)[0].resolve() != best.resolve():  # else: start from it as is
        _copy_policy(config.model, best)
    torch.manual_seed(config.seed)
    report: dict[str, Any] = {
        "config": asdict(config),
        "device": device,
        "rounds": [],
        "accepted": [],
    }
    seeds = np.random.default_rng(config.seed)
    context = get_context("spawn")  # torch and threads in the parent: no fork
    begun = time.perf_counter()
    written: list[list[Path]] = []  # per round, the shards its self-play wrote
    for k in range(1, config.rounds + 1):
        if k > 1 and config.minutes and time.perf_counter() - begun >= 60 * config.minutes:
            echo(f"stopping before round {k}: the {config.minutes:g} minutes are spent")
            break
        folder = out / f"round-{k:03d}"
        make_folders(out, folder / "samples")  # never through a linked folder
        first = (k - 1) * config.games
        games = range(first, first + config.games)
        started = time.perf_counter()
        chunks = [c for c in np.array_split(np.arange(first, games.stop), config.workers) if len(c)]
        tasks = [
            (
                str(best),
                config,
                range(int(c[0]), int(c[-1]) + 1),
                int(seeds.integers(SEED_LIMIT)),
                folder / "samples" / f"shard-{w:02d}.npz",
            )
            for w, c in enumerate(chunks)
        ]
        if config.workers == 1:
            played = [self_play(*t) for t in tasks]
        else:
            with ProcessPoolExecutor(len(tasks), mp_context=context) as pool:
                played = list(pool.map(self_play, *zip(*tasks, strict=True)))
        play_seconds = time.perf_counter() - started
        written.append([t[-1] for t in tasks])  # this run's shards only, never a folder's
        data = load_samples([p for shards in written[-config.window :] for p in shards])
        train_part, holdout = data.split(games)
        policy, _ = load_policy_file(best)
        threads = torch_threads(os.cpu_count() or 1)  # the fit: every core
        before = evaluate(policy, holdout, device)
        started = time.perf_counter()
        losses = fit(policy, train_part, config, device)
        fit_seconds = time.perf_counter() - started
        after = evaluate(policy, holdout, device)
        torch_threads(threads)
        entry: dict[str, Any] = {
            "round": k,
            "samples": {
                "new": sum(p["samples"] for p in played),
                "train": len(train_part),
                "holdout": len(holdout),
            },
            "holdout": {"before": before, "after": after},
            "train_losses": losses,
        }
        candidate = _save(policy, folder / "candidate", described, {**report, "current": entry})
        started = time.perf_counter()
        entry["gate"] = gate(candidate, best, n, config)
        entry["seconds"] = {
            "self_play": play_seconds,
            "fit": fit_seconds,
            "gate": time.perf_counter() - started,
        }
        if entry["gate"]["accepted"]:
            _copy_policy(candidate, best)
        report["rounds"].append(entry)
        report["accepted"] = [e["round"] for e in report["rounds"] if e["gate"]["accepted"]]
        write_text(out / "expert.json", json.dumps(report, indent=1) + "\n")
        g = entry["gate"]
        echo(
            f"round {k}: {entry['samples']['new']} samples in {play_seconds:.0f} s; hold-out "
            f"cross-entropy {before['policy_cross_entropy']:.3f} -> "
            f"{after['policy_cross_entropy']:.3f}, value MSE {before['value_mse']:.3f} -> "
            f"{after['value_mse']:.3f}"
            + (
                f", critic MSE {before['critic_mse']:.3f} -> {after['critic_mse']:.3f}"
                if "critic_mse" in after
                else ""
            )
            + "; gate "
            + (
                f"{g['win_rate']:.3f}"
                + (
                    f" (luck-corrected {g['luck_corrected']['win_rate']:.3f})"
                    if "luck_corrected" in g
                    else ""
                )
                + f" (needs {g['needed']:.3f}): "
                if g["games"]
                else "off: "
            )
            + ("accepted" if g["accepted"] else "rejected")
        )
    return report
