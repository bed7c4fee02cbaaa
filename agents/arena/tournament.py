"""Tournaments: many games between agents, with seat rotation, statistics and ratings.

``run_tournament(agent_specs, num_players, games, seed, workers, setup)`` plays ``games`` games
on the engine (``FortGame``/``FortState``, not the PettingZoo env, for speed) in ``workers``
processes and returns a JSON-able dict. ``fort-env tournament`` prints it (``--json``) or
:func:`format_table` of it.

How games are set up
--------------------

- One agent per seat: ``len(agent_specs) == num_players``. Agents are named by their spec;
  a spec given twice is named ``spec#2``, ``spec#3``, ...
- **Seats** in the results are turn-order positions: seat 0 is the first player (rulebook
  p.2 step 1), seat 1 plays next, and so on.
- **Seat rotation**: game ``g`` puts agent ``i`` at engine seat ``(i + g) % num_players`` (the
  seat fixes the player board, hence the Best Friends), and the first player is engine seat
  ``block % num_players`` for the game's rotation block ``block = g // num_players``. Over a
  multiple of ``num_players`` games every agent plays every turn-order position and every
  board equally often, and the board is not tied to the turn order (otherwise the counts differ
  by at most one; ``seat_games`` reports them).
- **Deals**: the games of one rotation block share one deal, seeded from ``(seed, block)``, so
  every agent plays the same cards from every seat (duplicate-style; card luck cancels out).
  Agent ``i`` in game ``g`` is seeded from ``(seed, g, i)``. The same arguments give the same
  games, whatever the number of workers.
- Each decision gives the acting agent the observation (lazily computed) and an ``info`` with
  ``seat``, ``game``, ``legal_actions``, ``action_mask``, ``view`` and ``determinize``
  (``agents.base``). Agents never get the true state.

Result schema (``--json``)
--------------------------

::

    {
      "agents": {                       # one entry per agent, keyed by its (unique) name
        NAME: {
          "spec": str,                  # the spec given to agents.make
          "games": int,
          "wins": float,                # shared victories count as a win for each winner
          "win_rate": float,            # wins / games
          "win_rate_ci95": [lo, hi],    # Wilson score interval, 95%
          "mean_score": float,          # final total (score_breakdown()["total"])
          "mean_rank": float,           # 1 = best; tied players share the better rank
          "seat_games": [int, ...],     # games per seat (turn-order position, 0 = first player)
          "seat_win_rates": [float | null, ...],   # per seat; null if never seated there
          "rating": {"mu": float, "sigma": float, "ordinal": float},  # OpenSkill PlackettLuce,
                                        # averaged over game orders (openskill_ratings)
          "think_seconds_per_game": float,          # the agent's time in act(), per game
          "think_seconds_per_decision": float
        }
      },
      "games": int, "num_players": int, "setup": str, "seed": int, "workers": int,
      "ray_address": str,               # only with --ray-address (agents/arena/ray_games.py)
      "wall_seconds": float,
      "game_length": {"decisions": {"mean", "min", "max"}, "rounds": {"mean", "min", "max"}},
      "end_triggers": {"score_25": int, "fort_level_5": int, "park_deck_empty": int},
      "first_player_win_rate": float,   # games won by the first player (shared victories count)
      "shared_victories": int,          # games with more than one winner
      "provenance": {...},              # agents/arena/provenance.py (with_provenance=True)
      "luck_corrected": {               # only with a critic (agents/arena/luck.py)
        "critic": str, "critic_sha256": str, "samples": int,
        "agents": {NAME: {"games": int,
                          "raw_win_rate": float, "raw_ci95": [lo, hi], "raw_variance": float,
                          "win_rate": float, "win_rate_ci95": [lo, hi],   # corrected
                          "variance": float, "variance_reduction": float,
                          "luck": float, "luck_ci95": [lo, hi]}}   # raw - corrected
      }
    }

Raw and luck-corrected figures never share a name: the corrected ones live only under
``luck_corrected``, their intervals normal ones with a deal block as the unit.

``end_triggers`` count, per game, the conditions that held when the end was triggered
(rulebook p.10; ``FortState._check_end``): 25+ points on the Victory Track, a Fort at Level 5,
an empty Park deck. Two can hold at once, so they may sum to more than ``games``. A round is
one turn of every player (``rounds`` = turns taken by the first player).
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.games import (
    GAME_TORCH_THREADS,
    TRIGGERS,
    GameRecord,
    init_worker,
    run_one,
    torch_threads,
)
from agents.arena.luck import (
    DEFAULT_SAMPLES,
    LuckCorrection,
    LuckObserverFactory,
    luck_summary,
)
from fort_env import FortGame

__all__ = [
    "display_names", "format_table", "game_records", "run_tournament", "save_game_records",
    "short_name", "summarize", "unique_names", "wilson_interval",
]  # fmt: skip

PATH_KEEP = 3
"""Path components a table keeps of an agent's file: ``PRESET/RUN/FILE`` (:func:`short_name`)."""


def wilson_interval(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a win rate, ``(low, high)`` (95% by default); ``(0, 1)`` for
    zero games. From ``scipy.stats.binomtest(...).proportion_ci(method="wilson")``.

    Raises:
        ValueError: ``wins`` outside ``[0, games]`` or not an integer count.
    """
    if games <= 0:
        return (0.0, 1.0)
    if wins != int(wins) or not 0 <= wins <= games:
        raise ValueError(f"wins must be an integer count in [0, {games}], got {wins!r}")
    from scipy.stats import binomtest  # ~0.2 s to import: only when a summary is made

    ci = binomtest(int(wins), int(games)).proportion_ci(confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def unique_names(specs: Sequence[str]) -> list[str]:
    """Specs made unique: the second ``random`` is ``random#2``, and so on."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


def short_name(name: str, keep: int = PATH_KEEP) -> str:
    """An agent's name as a table shows it: every path in it cut to its last ``keep``
    components (``ppo:/home/me/fort/runs/quick/20261126-190912/model.safetensors`` ->
    ``ppo:.../quick/20261126-190912/model.safetensors``), so the run folder that tells two
    models apart stays; names without a long path are unchanged."""
    from agents.spec import SpecError, format_spec, parse

    def cut(value: str) -> str:
        pieces = value.split("/")
        return ".../" + "/".join(pieces[-keep:]) if len(pieces) > keep else value

    try:
        spec = parse(name)  # the grammar of agents.make: a quoted path keeps its ':'
    except SpecError:
        return name  # a label, not a spec (an agent object's name)
    path = None if spec.path is None else cut(spec.path)
    args = {k: cut(v) for k, v in spec.args.items()}
    if path == spec.path and args == spec.args:
        return name  # nothing to cut: as written
    return format_spec(spec.name, path, args)


def display_names(names: Sequence[str]) -> dict[str, str]:
    """Name -> what a table shows (:func:`short_name`); the full names if two would be shown
    alike."""
    short = {name: short_name(name) for name in names}
    return short if len(set(short.values())) == len(short) else {n: n for n in names}


def _label(agent: Any) -> str:
    """The name an agent object or function plays under in a result."""
    name = getattr(agent, "name", None) or getattr(agent, "__name__", None)
    return str(name or type(agent).__name__)


def run_tournament(
    agent_specs: Sequence[Any],
    num_players: int,
    games: int,
    seed: int = 0,
    workers: int = 1,
    setup: str = "basic",
    cards: str | None = None,
    progress: bool = True,
    return_records: bool = False,
    observer: Any = None,
    duplicate_deals: bool = True,
    ray_address: str | None = None,
    record_games: int = 0,
    critic: str | Path | None = None,
    luck_samples: int = DEFAULT_SAMPLES,
    with_provenance: bool = True,
) -> dict[str, Any]:
    """Play ``games`` games between ``agent_specs`` and summarise them (module docstring).

    Args:
        agent_specs: one per seat, ``len == num_players``: a spec (``agents.make``), or an
            agent object (with ``act``) or a plain function ``(observation, info) -> action``,
            named by its ``name`` (or ``__name__``). Objects play in this process with
            ``workers=1``; with more workers they must be picklable; not on Ray.
        num_players: 2, 3 or 4.
        games: number of games (a multiple of ``num_players`` balances the seats exactly).
        seed: the run's seed; deals and agents' seeds derive from it.
        workers: processes to play in (1: in this process).
        setup: ``"basic"`` or ``"advanced"``.
        cards: a card data directory, or ``None`` for the shipped set.
        progress: show a tqdm progress bar on stderr.
        return_records: also return the per-game :class:`GameRecord` list under ``"records"``
            (not JSON-able as is; for analysis).
        observer: a picklable factory ``() -> Observer`` run on every game (analysis); what
            it returns at the end of a game is in ``record.extra``.
        duplicate_deals: the games of a rotation block share one deal (module docstring);
            ``False`` deals every game afresh (for analysis with the same agent everywhere,
            where replaying a deal adds no information).
        ray_address: play the games in Ray tasks on this cluster instead (``local``,
            ``auto`` or ``HOST:PORT``; ``agents.arena.ray_games``); ``workers`` is then unused.
        record_games: the first ``record_games`` games keep their actions
            (``GameRecord.actions``), for :func:`game_records` / :func:`save_game_records`;
            they are returned with ``return_records``.
        critic: a whole-table critic file: the result also holds luck-corrected win rates
            (``"luck_corrected"``, :mod:`agents.arena.luck`; ``agents.arena.luck
            .shipped_critic`` names the zoo's for a table); ``None``: raw results only.
        luck_samples: the chance outcomes the correction samples per chance event.
        with_provenance: attach ``"provenance"`` (``agents.arena.provenance``: fort-env's
            version and commit, the layout, each agent's spec and model files with their
            sha256), as the command line's JSON has it.

    Every process playing the games runs torch on one intra-op thread
    (:func:`torch_threads`); with ``workers=1`` the caller's count is restored after.

    Raises:
        ValueError: the number of agents differs from ``num_players``, ``games < 1`` or
            ``workers < 1``; an unknown agent spec.
        ModelFileError: a critic file that fails a check of ``load_policy_file``, has no
            critic, or was saved for another table (before any game is played).
        ConfigError: ``luck_samples`` is not an int >= 1.
    """
    from tqdm import tqdm

    from agents import make

    # an agent object (or a plain function) plays as itself, named by its name
    specs = [s.strip() if isinstance(s, str) else _label(s) for s in agent_specs]
    players = [s.strip() if isinstance(s, str) else s for s in agent_specs]
    if len(specs) != num_players:
        raise ValueError(
            f"{len(specs)} agents for {num_players} players: give one agent per seat "
            f"(e.g. --agents heuristic{',random' * (num_players - 1)})"
        )
    if games < 1 or workers < 1:
        raise ValueError("games and workers must be at least 1")
    for p in players:  # fail fast on unknown names, in this process
        if isinstance(p, str):
            make(p)
        elif not (callable(getattr(p, "act", None)) or callable(p)):
            raise ValueError(f"agent {p!r}: not a spec, an agent (with act) or a function")
    FortGame(num_players, setup, cards)  # and on a bad configuration
    if ray_address is not None and any(not isinstance(p, str) for p in players):
        raise ValueError("agents played on Ray are given by spec; an agent object plays locally")
    if ray_address is not None:  # and on no Ray or no cluster there
        from agents.arena.ray_games import connect

        connect(ray_address)
    luck: LuckObserverFactory | None = None
    if critic is not None:
        luck = LuckObserverFactory(str(critic), num_players, setup, cards, luck_samples)
        LuckCorrection(luck.load(), luck_samples)  # every check, before the first game
        observer = luck if observer is None else _Both(observer, luck)
    jobs = [(g, seed, duplicate_deals, g < record_games) for g in range(games)]
    records: list[GameRecord] = []
    start = time.perf_counter()
    bar = tqdm(total=games, file=sys.stderr, disable=not progress, desc="games", unit="game")
    try:
        if ray_address is not None:
            from agents.arena.ray_games import play_on_ray

            for chunk in play_on_ray(ray_address, jobs, specs, num_players, setup, cards,
                                     observer):  # fmt: skip
                records.extend(chunk)
                bar.update(len(chunk))
        elif workers == 1:
            # torch is loaded by now if an agent needs it (the agents were made above)
            threads_before = torch_threads(GAME_TORCH_THREADS)
            init_worker(players, num_players, setup, cards, observer)
            try:
                for job in jobs:
                    records.append(run_one(job))
                    bar.update(1)
            finally:  # in the caller's process: give it back its torch threads
                torch_threads(threads_before)
        else:
            # forkserver, not fork: a parent that has run torch (a PPO or puct bot built in
            # this process, e.g. by the ladder or a training run's evaluation) has OpenMP
            # threads, and a forked child of it can deadlock in libgomp (seen: the ladder's
            # workers hung at 0% CPU). SB3's SubprocVecEnv makes the same choice.
            with ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("forkserver"),
                initializer=init_worker,
                initargs=(players, num_players, setup, cards, observer),
            ) as pool:
                futures = [pool.submit(run_one, job) for job in jobs]
                for future in as_completed(futures):
                    records.append(future.result())
                    bar.update(1)
    finally:
        bar.close()
    wall = time.perf_counter() - start
    records.sort(key=lambda r: r.index)
    result = summarize(records, unique_names(specs), specs, num_players)
    result.update(games=games, num_players=num_players, setup=setup, seed=seed, workers=workers)
    if ray_address is not None:
        result["ray_address"] = ray_address
    result["wall_seconds"] = round(wall, 3)
    if luck is not None:
        loaded = luck.load()
        result["luck_corrected"] = {
            "critic": str(loaded.path),
            "critic_sha256": loaded.sha256,
            "samples": luck_samples,
            "agents": luck_summary(records, unique_names(specs), num_players),
        }
    if with_provenance:
        from agents.arena.provenance import provenance

        result["provenance"] = provenance(specs, num_players, setup, cards)
    if return_records:
        result["records"] = records
    return result


class _Both:
    """Two observer factories as one: each game gets one observer of each; their ``end``
    results are merged (picklable when both are)."""

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second

    def __call__(self) -> Any:
        return _BothObserver(self.first(), self.second())


class _BothObserver:
    def __init__(self, first: Any, second: Any) -> None:
        self.parts = (first, second)

    def before(self, state: Any, seat: int, action: int) -> None:
        for p in self.parts:
            p.before(state, seat, action)

    def after(self, state: Any, seat: int, action: int) -> None:
        for p in self.parts:
            p.after(state, seat, action)

    def end(self, state: Any) -> dict[str, Any]:
        return {**self.parts[0].end(state), **self.parts[1].end(state)}


def game_records(
    records: Sequence[GameRecord],
    names: Sequence[str],
    num_players: int,
    setup: str = "basic",
    cards: str | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """``(game index, record)`` for each game that kept its actions (``record_games``): the
    saved-game format of ``fort_env.records`` (``fort-env replay`` reads it), with the deal's
    seed, the first player the rotation gave, the result, and ``agents``: the name of the
    agent at each seat."""
    from fort_env.records import make_record

    config = {"num_players": num_players, "setup": setup, "cards": cards}
    out = []
    for r in records:
        if r.actions is None or r.seed is None:
            continue
        record = make_record(config, r.seed, r.actions, first_player=r.first_player)
        record["result"] = {"scores": list(r.totals), "winners": list(r.winners)}
        record["agents"] = [names[i] for i in r.seating]
        out.append((r.index, record))
    return out


def save_game_records(
    records: Sequence[GameRecord],
    names: Sequence[str],
    out: str | Path,
    num_players: int,
    setup: str = "basic",
    cards: str | None = None,
) -> list[Path]:
    """Write :func:`game_records` into the folder ``out`` as ``game-NNNN.json`` (the game's
    index, zero-padded to sort); returns the paths.

    Raises:
        OSError: the folder or a file cannot be written.
    """
    from fort_env.records import save_record

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    saved = game_records(records, names, num_players, setup, cards)
    digits = max(4, len(str(max((g for g, _ in saved), default=0))))
    paths = []
    for g, record in saved:
        path = folder / f"game-{g:0{digits}d}.json"
        save_record(record, path)
        paths.append(path)
    return paths


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": float(np.mean(values)),
        "min": float(np.min(values)),
        "max": float(np.max(values)),
    }


RATING_ORDERS = 16  # game orders the OpenSkill ratings are averaged over
RATING_MAX_UPDATES = 40_000  # cap on rating updates (orders x games) for long runs


def openskill_ratings(
    records: Sequence[GameRecord], k: int, seed: int = 0
) -> list[dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings of ``k`` agents from finished games.

    OpenSkill updates online, so its result depends on the order of the games; the order of
    parallel games means nothing, so the ratings are rated over :data:`RATING_ORDERS` random
    orders of the games (fewer for very long runs) and ``mu`` and ``sigma`` averaged.
    ``ordinal = mu - 3 sigma``. Each game is one match of ``num_players`` one-player teams
    ranked by final score (ties share a rank).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    orders = max(1, min(RATING_ORDERS, RATING_MAX_UPDATES // max(len(records), 1)))
    rng = np.random.default_rng(seed)
    mu = np.zeros(k)
    sigma = np.zeros(k)
    for o in range(orders):
        ratings = [model.rating() for _ in range(k)]
        sequence = range(len(records)) if o == 0 else rng.permutation(len(records))
        for j in sequence:
            r = records[int(j)]
            rated = model.rate([[ratings[i]] for i in r.seating], ranks=[float(x) for x in r.ranks])
            for seat, i in enumerate(r.seating):
                ratings[i] = rated[seat][0]
        mu += [x.mu for x in ratings]
        sigma += [x.sigma for x in ratings]
    mu /= orders
    sigma /= orders
    return [
        {"mu": float(m), "sigma": float(s), "ordinal": float(m - 3 * s)}
        for m, s in zip(mu, sigma, strict=True)
    ]


def summarize(
    records: Sequence[GameRecord], names: Sequence[str], specs: Sequence[str], num_players: int
) -> dict[str, Any]:
    """Per-agent and per-run statistics of finished games (the schema above)."""
    k = len(names)
    games = np.zeros(k)
    wins = np.zeros(k)
    score_sum = np.zeros(k)
    rank_sum = np.zeros(k)
    think = np.zeros(k)
    decisions = np.zeros(k)
    seat_games = np.zeros((k, num_players))
    seat_wins = np.zeros((k, num_players))
    triggers = dict.fromkeys(TRIGGERS, 0)
    first_wins = 0
    shared = 0
    for r in records:
        for seat, i in enumerate(r.seating):
            won = seat in r.winners
            pos = r.position(seat)
            games[i] += 1
            wins[i] += won
            score_sum[i] += r.totals[seat]
            rank_sum[i] += r.ranks[seat]
            think[i] += r.think[seat]
            decisions[i] += r.decisions_by_seat[seat]
            seat_games[i, pos] += 1
            seat_wins[i, pos] += won
        first_wins += r.first_player in r.winners
        shared += len(r.winners) > 1
        for t in r.triggers:
            triggers[t] += 1
    ratings = openskill_ratings(records, k)
    agents: dict[str, Any] = {}
    for i, name in enumerate(names):
        n = max(games[i], 1)
        lo, hi = wilson_interval(int(wins[i]), int(games[i]))
        agents[name] = {
            "spec": specs[i],
            "games": int(games[i]),
            "wins": float(wins[i]),
            "win_rate": float(wins[i] / n),
            "win_rate_ci95": [lo, hi],
            "mean_score": float(score_sum[i] / n),
            "mean_rank": float(rank_sum[i] / n),
            "seat_games": [int(x) for x in seat_games[i]],
            "seat_win_rates": [
                float(seat_wins[i, s] / seat_games[i, s]) if seat_games[i, s] else None
                for s in range(num_players)
            ],
            "rating": ratings[i],
            "think_seconds_per_game": float(think[i] / n),
            "think_seconds_per_decision": float(think[i] / max(decisions[i], 1)),
        }
    return {
        "agents": agents,
        "game_length": {
            "decisions": _stats([r.decisions for r in records]),
            "rounds": _stats([r.rounds for r in records]),
        },
        "end_triggers": triggers,
        "first_player_win_rate": first_wins / max(len(records), 1),
        "shared_victories": shared,
    }


def format_table(result: dict[str, Any]) -> str:
    """A readable rendering of a :func:`run_tournament` result (rich tables, as text)."""
    from io import StringIO

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from fort_env.game.inputs import terminal_text
    from fort_env.views.text import plural

    # agent names may come from files (a plugin's name, a model's path): no control
    # character or rich markup reaches the terminal
    shown = {
        name: escape(terminal_text(text))
        for name, text in display_names(list(result["agents"])).items()
    }
    width = max(len(name) for name in shown.values())
    table = Table(
        title=f"{plural(result['games'], 'game')}, {result['num_players']} players "
        f"({result['setup']})"
    )
    for col in (
        "agent",
        "win rate",
        "95% CI",
        "mean score",
        "mean rank",
        "seat win rates",
        "rating (mu±sigma)",
        "s/game",
    ):
        if col == "agent":  # never cut: a model's run folder is what tells two apart
            table.add_column(col, justify="left", no_wrap=True, min_width=width)
        else:
            table.add_column(col, justify="right")
    luck = result.get("luck_corrected")
    if luck is not None:
        table.add_column("luck-corrected", justify="right")
        table.add_column("95% CI", justify="right")
        table.add_column("var ÷", justify="right")
    ranked = sorted(result["agents"].items(), key=lambda kv: -kv[1]["rating"]["ordinal"])
    for name, a in ranked:
        seats = " ".join("-" if x is None else f"{x:.2f}" for x in a["seat_win_rates"])
        lo, hi = a["win_rate_ci95"]
        corrected = []
        if luck is not None:
            c = luck["agents"][name]
            clo, chi = c["win_rate_ci95"]
            corrected = [
                f"{c['win_rate']:.3f}", f"[{clo:.3f}, {chi:.3f}]", f"{c['variance_reduction']:.2f}"
            ]  # fmt: skip
        table.add_row(
            shown[name],
            f"{a['win_rate']:.3f}",
            f"[{lo:.3f}, {hi:.3f}]",
            f"{a['mean_score']:.1f}",
            f"{a['mean_rank']:.2f}",
            seats,
            f"{a['rating']['mu']:.1f}±{a['rating']['sigma']:.1f}",
            f"{a['think_seconds_per_game']:.2f}",
            *corrected,
        )
    length = result["game_length"]
    trig = ", ".join(f"{k} {v}" for k, v in result["end_triggers"].items())
    where = (
        f"Ray at {result['ray_address']}"
        if "ray_address" in result
        else f"{result['workers']} worker(s)"
    )
    lines = [
        f"game length: {length['rounds']['mean']:.1f} rounds "
        f"({length['rounds']['min']:.0f}-{length['rounds']['max']:.0f}), "
        f"{length['decisions']['mean']:.0f} decisions",
        f"end triggers: {trig}",
        f"first-player win rate: {result['first_player_win_rate']:.3f}; "
        f"shared victories: {result['shared_victories']}",
        f"wall time: {result['wall_seconds']:.1f} s with {where}; seed {result['seed']}",
    ]
    if luck is not None:
        lines.append(
            f"luck-corrected (AIVAT, agents/arena/luck.py): critic {luck['critic']} "
            f"(sha256 {luck['critic_sha256'][:12]}), {luck['samples']} samples per chance "
            "event; 'var ÷': the raw variance of a game's result over the corrected one"
        )
    buf = StringIO()
    console = Console(
        file=buf, width=max(140, width + 110), force_terminal=False, color_system=None,
        force_jupyter=False,
    )  # fmt: skip
    console.print(table)
    for line in lines:
        console.print(line)
    return buf.getvalue()
