"""The ladder: one seat-rotated round robin of every bot, OpenSkill ratings, a table, a plot and
a generated section of ``docs/agents.md``.

``fort-env ladder`` (:func:`agents.cli_ladder.register_ladder`) calls :func:`run_ladder` and
prints :func:`format_ladder`. It writes files only where asked: ``--write-docs`` writes
:func:`plot_ladder` (``docs/ladder-Np.png``) and replaces the section of ``docs/agents.md``
between :func:`markers` with :func:`ladder_markdown` (:func:`write_section`); ``--doc`` and
``--plot`` name other files (each alone writes only itself); ``--out DIR`` writes the result,
the plot and the section into ``DIR`` (:func:`write_outputs`).

How the games are played
------------------------

- **Bots**: :func:`default_bots` lists them: ``random``, the three heuristics (``builder``,
  which ``heuristic`` names, ``scorer``, ``opportunist``), ``greedy``, IS-MCTS at two time
  budgets (``ismcts:ms=A``, ``ismcts:ms=B``), the PPO policies of the ``quick`` and ``full``
  training presets when their model files exist and play the ladder's player count (the
  presets' newest runs, ``runs/quick/latest/model.safetensors`` and
  ``runs/full/latest/model.safetensors``, or the paths given; :func:`left_out` says why one is
  missing), the zoo's shipped policy ``ppo`` (``agents.learned.zoo``) when one ships for the
  player count, and the policy-guided search when an agent named in :data:`GUIDED_NAMES` is
  registered and builds without arguments (searching with the shipped model), and every agent
  an installed plugin registers (``agents.plugin_agents``: the ``fort_env.agents`` entry
  points) that builds without arguments and plays the player count. More agent specs can be
  added (``--add``).
- **Tables**: every combination of ``num_players`` different bots plays ``games`` games
  (for 2 players: every pair). Each table is one :func:`agents.arena.tournament.run_tournament`
  run, so seats rotate and the games of a rotation block share one deal (that module's
  docstring); ``games`` a multiple of ``num_players`` balances the seats exactly.
- **Seeds**: table ``t`` of a ladder with seed ``S`` is a tournament with seed
  ``SeedSequence([S, LADDER_KEY, t])`` (:data:`LADDER_KEY` keeps a ladder's deals apart from
  a tournament's with the same ``--seed``). Without ``--seed`` the command draws a fresh seed
  from the operating system and prints it: the same seed, bots, games and player count give
  the same games (whatever ``--workers``), except that the IS-MCTS bots stop on the clock, so
  their play depends on the machine's speed.
- **Failures**: every bot plays through ``agents.arena.bot_guard.GuardedAgent``. A bot that
  raises (or calls ``sys.exit()``), returns an action that is not legal, or, for a plugin bot
  (an agent that is not built in, ``agents.is_built_in``), thinks longer than
  ``decision_timeout`` seconds over one decision, forfeits its table: the forfeit is
  recorded under ``"forfeits"`` naming the bot and the error, the table's games count in the
  ratings as that many losses of the failing bot to the others (:func:`forfeit_matches`; a
  bot that fails everywhere sinks to the bottom) and in no other figure (games, win rates,
  scores: the games actually played), and the other tables are played.
- **Ratings**: OpenSkill (Plackett-Luce) over all the games of all the tables
  (:func:`agents.arena.tournament.openskill_ratings`, averaged over random game orders), each game
  ranked by final score. The interval is ``mu +- 2 sigma`` (about 95%); the table is ordered
  by ``ordinal = mu - 3 sigma``, OpenSkill's conservative estimate. Win rates count shared
  victories as wins, with Wilson 95% intervals.

Result schema (:func:`run_ladder`, ``--json``)
----------------------------------------------

::

    {
      "bots": [                        # best first (by ordinal)
        {"name": str, "spec": str, "games": int, "wins": float, "win_rate": float,
         "win_rate_ci95": [lo, hi], "mean_score": float, "mean_rank": float,
         "mu": float, "sigma": float, "ordinal": float, "interval": [mu - 2 sigma, mu + 2 sigma],
         "ms_per_decision": float, "forfeits": int}     # tables it forfeited
      ],
      "forfeits": [                    # tables one bot failed at (module docstring)
        {"table": [name, ...], "bot": name, "error": str}
      ],
      "decision_timeout": float | null,  # seconds per decision of a plugin bot
      "head_to_head": {ROW: {COLUMN: float | null}},   # 2 players: ROW's win rate against
                                                       # COLUMN (null on the diagonal)
      "num_players": int, "games_per_table": int, "tables": int, "games": int,
      "seed": int, "workers": int, "setup": str, "wall_seconds": float,
      "command": str                   # the command line that reproduces the run
    }
"""

from __future__ import annotations

import io
import itertools
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.bot_guard import DEFAULT_DECISION_TIMEOUT_S, BotFailure, GuardedAgent
from agents.arena.games import GameRecord
from agents.arena.luck import luck_summary
from agents.arena.provenance import provenance
from agents.arena.tournament import display_names, openskill_ratings, run_tournament, summarize
from agents.learned.policy_file import missing_model, preset_model
from fort_env.game.files import check_target, write_bytes, write_text

__all__ = [
    "GUIDED_NAMES", "LADDER_KEY", "Bot", "default_bots", "forfeit_lines", "forfeit_matches",
    "format_ladder", "ladder_markdown", "left_out", "markers", "output_paths", "plot_ladder",
    "run_ladder", "write_outputs", "write_section",
]  # fmt: skip

LADDER_KEY = 0x1ADDE5  # mixed into every table's seed (module docstring)
DEFAULT_ISMCTS_MS = (10, 50)
PPO_DEFAULTS = {"ppo-quick": preset_model("quick"), "ppo-full": preset_model("full")}
# the policy-guided search (issue 17 item 3) joins the ladder once registered under one of these
GUIDED_NAMES = ("guided", "puct")
INTERVAL_SIGMAS = 2.0


@dataclass(frozen=True)
class Bot:
    """A ladder entrant: ``name`` in the table, ``spec`` for :func:`agents.make`."""

    name: str
    spec: str


def default_bots(
    ismcts_ms: Sequence[float] = DEFAULT_ISMCTS_MS,
    ppo_quick: str | os.PathLike[str] | None = None,
    ppo_full: str | os.PathLike[str] | None = None,
    add: Sequence[str] = (),
    num_players: int = 2,
) -> list[Bot]:
    """The ladder's bots (module docstring) for tables of ``num_players``.

    ``ppo_quick`` / ``ppo_full``: a model file (``.safetensors``, ``agents.learned.policy_file``);
    if ``None``, the preset's newest run (``runs/PRESET/latest/model.safetensors``, relative to
    the working directory) is used when it exists and was trained for ``num_players`` players,
    and the bot is left out otherwise (:func:`left_out` says why). The guided search joins on
    the same condition (its default model).

    Raises:
        FileNotFoundError: a PPO model file given explicitly does not exist.
        ValueError: an IS-MCTS budget that is not a positive number of milliseconds, a PPO
            model given explicitly that was trained for another player count, or the same bot
            twice.
    """
    from agents import available, make, plugin_agents
    from agents.learned.policy_file import trained_num_players
    from agents.spec import format_spec

    bots = [Bot(s, s) for s in ("random", "builder", "scorer", "opportunist", "greedy")]
    for ms in ismcts_ms:
        if not (ms > 0 and math.isfinite(ms)):
            raise ValueError(f"an IS-MCTS budget must be a positive number of ms, got {ms}")
        text = f"{ms:g}"
        bots.append(Bot(f"ismcts:ms={text}", f"ismcts:ms={text}"))
    for name, given in (("ppo-quick", ppo_quick), ("ppo-full", ppo_full)):
        if given is not None:
            path = Path(given)
            if not path.is_file():
                raise FileNotFoundError(f"{name}: no model file at {path}")
            trained_for = trained_num_players(path)
            if trained_for != num_players:
                raise ValueError(
                    f"{name}: {path} was trained for {trained_for} players, "
                    f"the ladder's tables have {num_players}"
                )
        elif (
            PPO_DEFAULTS[name].is_file() and trained_num_players(PPO_DEFAULTS[name]) == num_players
        ):
            path = PPO_DEFAULTS[name]
        else:
            continue
        bots.append(Bot(name, format_spec("ppo", str(path))))  # quoted if it holds ':'/'='
    shipped = _shipped_counts()
    if num_players in shipped:  # the zoo's policy for this table (agents.learned.zoo)
        bots.append(Bot("ppo", "ppo"))
    for guided in GUIDED_NAMES:
        if guided in available():
            try:
                agent = make(guided)
            except (ValueError, OSError, ImportError):
                continue  # needs arguments: add it with --add
            plays = getattr(agent, "num_players", num_players)
            if plays is None and num_players not in shipped:
                continue  # no shipped model to search with at this count
            if plays is not None and plays != num_players:
                continue  # its model plays another player count: --add puct:model=
            bots.append(Bot(guided, guided))
            break
    extra = [s.strip() for s in add]
    for name in plugin_agents():  # installed plugins' bots (issue 38): those that build alone
        if name in extra or any(b.name == name for b in bots):
            continue
        try:
            agent = make(name)
        except (Exception, SystemExit):  # a plugin's bug (sys.exit() too): it stays out
            continue
        plays = getattr(agent, "num_players", None)
        if isinstance(plays, int) and plays != num_players:
            continue
        bots.append(Bot(name, name))
    bots.extend(Bot(s, s) for s in extra)
    names = [b.name for b in bots]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"the same bot twice in the ladder: {', '.join(twice)}")
    return bots


def _shipped_counts() -> set[int]:
    """The player counts the zoo ships a policy for (none without the train extra)."""
    try:
        from agents.learned.zoo import shipped_models
    except ImportError:
        return set()
    return set(shipped_models())


def left_out(
    num_players: int = 2,
    ppo_quick: str | os.PathLike[str] | None = None,
    ppo_full: str | os.PathLike[str] | None = None,
) -> list[str]:
    """One line per PPO bot :func:`default_bots` leaves out, saying why and how to get it:
    ``ppo-quick left out: no trained model at runs/quick/latest/model.safetensors: train one
    with `fort-env train --preset quick```."""
    from agents.learned.policy_file import trained_num_players

    out = []
    for name, given in (("ppo-quick", ppo_quick), ("ppo-full", ppo_full)):
        path = PPO_DEFAULTS[name]
        if given is not None:
            continue
        if not path.is_file():
            out.append(f"{name} left out: {missing_model(path)}")
            continue
        trained_for = trained_num_players(path)
        if trained_for != num_players:
            out.append(
                f"{name} left out: {path} plays {trained_for} players, not {num_players} "
                f"(give --{name} PATH)"
            )
    return out


def _derive(*key: int) -> int:
    return int(np.random.SeedSequence(list(key)).generate_state(1, dtype=np.uint32)[0])


def run_ladder(
    bots: Sequence[Bot],
    num_players: int = 2,
    games: int = 20,
    seed: int = 0,
    workers: int = 1,
    setup: str = "basic",
    cards: str | None = None,
    progress: bool = True,
    command: str = "",
    critic: str | Path | None = None,
    decision_timeout: float | None = DEFAULT_DECISION_TIMEOUT_S,
) -> dict[str, Any]:
    """Play every table of ``num_players`` different bots for ``games`` games; rate them.

    A bot that fails forfeits its table (module docstring, "Failures"); ``decision_timeout``
    is the most seconds a plugin bot may take over one decision (``None`` or 0: no limit).

    Returns the JSON-able result of the module docstring (``command`` is stored as given).
    With ``critic`` (a whole-table critic file, ``agents.arena.luck``), each bot's row also
    holds its luck-corrected win rate over all its tables (``luck_corrected``: ``win_rate``,
    ``win_rate_ci95``, ``variance_reduction``) and the result names the critic.

    Raises:
        ValueError: fewer bots than ``num_players``, ``num_players`` not 2-4, ``games < 1``,
            ``workers < 1``, a negative ``decision_timeout``, every table forfeited.
    """
    from tqdm import tqdm

    from agents import is_built_in

    if not 2 <= num_players <= 4:
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players}")
    if len(bots) < num_players:
        raise ValueError(f"{len(bots)} bots for {num_players}-player tables: need more bots")
    if games < 1 or workers < 1:
        raise ValueError("games and workers must be at least 1")
    if decision_timeout is not None and not 0 <= decision_timeout < math.inf:
        raise ValueError(f"decision_timeout must be >= 0 seconds, got {decision_timeout}")
    limits = [None if is_built_in(b.spec) else (decision_timeout or None) for b in bots]
    forfeits: list[dict[str, Any]] = []
    k = len(bots)
    tables = list(itertools.combinations(range(k), num_players))
    records: list[GameRecord] = []
    start = time.perf_counter()
    bar = tqdm(
        total=len(tables) * games, file=sys.stderr, disable=not progress, desc="ladder",
        unit="game",
    )  # fmt: skip
    try:
        for t, table in enumerate(tables):
            bar.set_postfix_str(" v ".join(bots[i].name for i in table))
            # each table builds its own bots (in the processes that play them), guarded
            players = [GuardedAgent(bots[i].name, bots[i].spec, limits[i]) for i in table]
            try:
                result = run_tournament(
                    players, num_players, games,
                    seed=_derive(seed, LADDER_KEY, t), workers=workers, setup=setup,
                    cards=cards, progress=False, return_records=True, critic=critic,
                    with_provenance=False,
                )  # fmt: skip
            except BotFailure as exc:  # the bot forfeits the table; the others are played
                names = [bots[i].name for i in table]
                forfeits.append({"table": names, "bot": exc.bot, "error": exc.problem})
                if progress:
                    bar.write(f"{exc.bot} forfeits {' v '.join(names)}: {exc.problem}",
                              file=sys.stderr)  # fmt: skip
                bar.update(games)
                continue
            for r in result["records"]:
                r.seating = [table[i] for i in r.seating]  # table index -> ladder index
                r.index = len(records)
                records.append(r)
            bar.update(games)
    finally:
        bar.close()
    wall = time.perf_counter() - start
    if not records:
        raise ValueError(
            "every table was forfeited: " + "; ".join(f"{f['bot']} {f['error']}" for f in forfeits)
        )
    names = [b.name for b in bots]
    summary = summarize(records, names, [b.spec for b in bots], num_players)
    corrected = luck_summary(records, names, num_players) if critic is not None else {}
    if forfeits:  # a forfeited table's games are rated as the failing bot's losses
        lost = forfeit_matches(forfeits, names, games)
        for name, rating in zip(names, openskill_ratings([*records, *lost], k), strict=True):
            summary["agents"][name]["rating"] = rating
    rows = []
    for name in names:
        a = summary["agents"][name]
        mu, sigma = a["rating"]["mu"], a["rating"]["sigma"]
        rows.append(
            {
                "name": name,
                "spec": a["spec"],
                "games": a["games"],
                "wins": a["wins"],
                "win_rate": a["win_rate"],
                "win_rate_ci95": a["win_rate_ci95"],
                "mean_score": a["mean_score"],
                "mean_rank": a["mean_rank"],
                "mu": mu,
                "sigma": sigma,
                "ordinal": a["rating"]["ordinal"],
                "interval": [mu - INTERVAL_SIGMAS * sigma, mu + INTERVAL_SIGMAS * sigma],
                "ms_per_decision": 1000.0 * a["think_seconds_per_decision"],
                "forfeits": sum(f["bot"] == name for f in forfeits),
            }
        )
        if name in corrected:
            c = corrected[name]
            rows[-1]["luck_corrected"] = {
                "win_rate": c["win_rate"],
                "win_rate_ci95": c["win_rate_ci95"],
                "variance_reduction": c["variance_reduction"],
            }
    rows.sort(key=lambda row: -row["ordinal"])
    return {
        "bots": rows,
        "head_to_head": _head_to_head(records, names) if num_players == 2 else {},
        "num_players": num_players,
        "games_per_table": games,
        "tables": len(tables),
        "games": len(records),
        "seed": seed,
        "workers": workers,
        "setup": setup,
        "wall_seconds": round(wall, 1),
        "command": command,
        "forfeits": forfeits,
        "decision_timeout": decision_timeout or None,
        "provenance": provenance([b.spec for b in bots], num_players, setup, cards),
        **({"critic": _critic_of(critic)} if critic is not None else {}),
    }


def _critic_of(path: str | Path) -> dict[str, str]:
    """The critic a ladder was corrected with: its file and SHA-256."""
    from agents.learned.policy_file import read_description

    return {"path": str(path), "sha256": str(read_description(path)["sha256"])}


def forfeit_matches(
    forfeits: Sequence[dict[str, Any]], names: Sequence[str], games: int
) -> list[GameRecord]:
    """The rating matches of forfeited tables (module docstring, "Failures"): ``games`` per
    table, the failing bot last and the others sharing first place. Only ``seating`` and
    ``ranks`` mean anything (what ``openskill_ratings`` reads); they are not games and are
    kept out of every other figure."""
    index = {name: i for i, name in enumerate(names)}
    out = []
    for f in forfeits:
        seating = [index[name] for name in f["table"]]
        n = len(seating)
        ranks = [n if name == f["bot"] else 1 for name in f["table"]]
        for _ in range(games):
            out.append(GameRecord(
                index=-1, seating=seating, totals=[0] * n, breakdown=[], winners=[],
                ranks=ranks, levels=[0] * n, decisions=0, rounds=0, triggers=[],
                think=[0.0] * n, decisions_by_seat=[0] * n,
            ))  # fmt: skip
    return out


def _head_to_head(records: Sequence[GameRecord], names: Sequence[str]) -> dict[str, Any]:
    """Two-player games: ``out[a][b]`` = a's win rate in its games against b."""
    k = len(names)
    wins = np.zeros((k, k))
    played = np.zeros((k, k))
    for r in records:
        a, b = r.seating
        for seat, (me, other) in enumerate(((a, b), (b, a))):
            played[me, other] += 1
            wins[me, other] += seat in r.winners
    return {
        names[i]: {
            names[j]: (float(wins[i, j] / played[i, j]) if played[i, j] else None) for j in range(k)
        }
        for i in range(k)
    }


# ---------------------------------------------------------------------- output
def format_ladder(result: dict[str, Any]) -> str:
    """The ladder as a rich table (plain text), with the run's line below it."""
    from io import StringIO

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from fort_env.game.inputs import terminal_text
    from fort_env.views.text import plural

    # a bot's name (a plugin's, a model's path) is shown as it is: its control characters as
    # escapes, its brackets not read as rich markup
    shown = {
        name: escape(terminal_text(text))
        for name, text in display_names([row["name"] for row in result["bots"]]).items()
    }
    width = max(len(name) for name in shown.values())
    table = Table(
        title=f"Ladder: {result['num_players']} players, "
        f"{plural(result['games_per_table'], 'game')} per table, "
        f"{plural(result['tables'], 'table')}, {plural(result['games'], 'game')}"
    )
    columns = ("#", "bot", "mu", "mu ± 2 sigma", "ordinal", "games", "win rate", "95% CI")
    corrected = ("luck-corrected", "95% CI", "var ÷") if "critic" in result else ()
    for col in (*columns, *corrected, "ms/dec"):
        if col == "bot":  # never cut: a model's run folder is what tells two apart
            table.add_column(col, justify="left", no_wrap=True, min_width=width)
        else:
            table.add_column(col, justify="right")
    for rank, row in enumerate(result["bots"], 1):
        lo, hi = row["interval"]
        wlo, whi = row["win_rate_ci95"]
        table.add_row(
            str(rank),
            shown[row["name"]],
            f"{row['mu']:.2f}",
            f"[{lo:.1f}, {hi:.1f}]",
            f"{row['ordinal']:.2f}",
            str(row["games"]),
            f"{row['win_rate']:.3f}",
            f"[{wlo:.2f}, {whi:.2f}]",
            *_corrected_cells(row, bool(corrected)),
            f"{row['ms_per_decision']:.1f}",
        )
    buf = StringIO()
    console = Console(file=buf, width=max(120, width + 90), force_terminal=False, color_system=None)
    console.print(table)
    console.print(
        f"seed {result['seed']}; {result['workers']} worker(s); wall time "
        f"{result['wall_seconds']:.0f} s"
    )
    for line in forfeit_lines(result):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return buf.getvalue()


def _corrected_cells(row: dict[str, Any], shown: bool) -> list[str]:
    """A row's luck-corrected cells of the ladder table (none when the ladder is raw)."""
    if not shown:
        return []
    c = row.get("luck_corrected")
    if c is None:
        return ["-", "-", "-"]
    lo, hi = c["win_rate_ci95"]
    return [f"{c['win_rate']:.3f}", f"[{lo:.2f}, {hi:.2f}]", f"{c['variance_reduction']:.2f}"]


def forfeit_lines(result: dict[str, Any]) -> list[str]:
    """One line per table a bot forfeited (module docstring, "Failures"), naming the bot, the
    table and the error; none if every table was played."""
    out = []
    for f in result.get("forfeits", []):
        out.append(f"forfeit: {f['bot']} lost the table {' v '.join(f['table'])}: "
                   f"{f['error']}")  # fmt: skip
    return out


def plot_ladder(result: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write the ratings (``mu`` with its ``mu +- 2 sigma`` interval, best on top) as a PNG.

    Raises:
        ImportError: matplotlib is not installed (the ``train`` extra).
        OSError: the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["bots"][::-1]  # best on top
    y = np.arange(len(rows))
    mu = np.array([r["mu"] for r in rows])
    err = np.array([[r["mu"] - r["interval"][0], r["interval"][1] - r["mu"]] for r in rows]).T
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.5))
    ax.errorbar(mu, y, xerr=err, fmt="o", capsize=3)
    ax.set_yticks(y, [r["name"] for r in rows])
    ax.set_xlabel("OpenSkill rating mu (bars: mu ± 2 sigma)")
    ax.set_title(
        f"Fort ladder, {result['num_players']} players: {result['games_per_table']} games "
        f"per table\nseed {result['seed']}",
        fontsize=10,
    )
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    plt.close(fig)
    write_bytes(out, buffer.getvalue())
    return out


def output_paths(out: str | os.PathLike[str], num_players: int) -> list[Path]:
    """The files :func:`write_outputs` writes into ``out``: ``ladder-Np.json``, ``.png``,
    ``.md``."""
    stem = f"ladder-{num_players}p"
    return [Path(out) / f"{stem}.{ext}" for ext in ("json", "png", "md")]


def write_outputs(result: dict[str, Any], out: str | os.PathLike[str]) -> list[Path]:
    """Write a ladder into the folder ``out``: ``ladder-Np.json`` (the result), ``ladder-Np.png``
    (:func:`plot_ladder`) and ``ladder-Np.md`` (:func:`ladder_markdown`, showing the plot).
    Returns the paths.

    Raises:
        ImportError: matplotlib is not installed (the ``train`` extra).
        OutputFileError: one of the names is not a regular file's (a FIFO, a device, a
            directory, a link to one), before anything is written.
        OSError: the folder or a file cannot be written.
    """
    import json

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    data, plot, text = output_paths(folder, result["num_players"])
    for path in (data, plot, text):
        check_target(path)
    write_text(data, json.dumps(result, indent=1) + "\n")
    plot = plot_ladder(result, plot)
    write_text(text, ladder_markdown(result, plot.name))
    return [data, plot, text]


def markers(num_players: int) -> tuple[str, str]:
    """The comment lines around the generated section of a ``num_players`` ladder."""
    return (
        f"<!-- ladder:{num_players}p:begin (generated by `fort-env ladder`: edits here are "
        "replaced when it runs) -->",
        f"<!-- ladder:{num_players}p:end -->",
    )


def ladder_markdown(result: dict[str, Any], plot: str | None = None, when: str = "") -> str:
    """The document section (without the markers): how it was made, the table, the plot
    (``plot``: the image's path relative to the document), the head-to-head table."""
    n = result["num_players"]
    when = when or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"### Ladder, {n} players",
        "",
        f"Generated by `{result['command']}` on {when}: {result['tables']} tables of {n} "
        f"different bots, {result['games_per_table']} games each ({result['games']} games), "
        f"seed {result['seed']}, {result['workers']} worker(s), {result['wall_seconds']:.0f} s "
        "of wall time. The figures below are from that run. `ismcts:ms=N` searches a "
        "decision for at most N ms (on the C++ engine; the Python engine also stops at 200 "
        "iterations); `ms/dec` "
        "is a bot's mean time per decision, unsearched decisions included.",
        "",
        "| # | bot | rating mu | mu ± 2 sigma | ordinal | games | win rate | 95% CI | ms/dec |",
        "|--:|:----|--:|:--:|--:|--:|--:|:--:|--:|",
    ]
    for rank, row in enumerate(result["bots"], 1):
        lo, hi = row["interval"]
        wlo, whi = row["win_rate_ci95"]
        lines.append(
            f"| {rank} | `{row['name']}` | {row['mu']:.2f} | [{lo:.1f}, {hi:.1f}] | "
            f"{row['ordinal']:.2f} | {row['games']} | {row['win_rate']:.3f} | "
            f"[{wlo:.2f}, {whi:.2f}] | {row['ms_per_decision']:.1f} |"
        )
    forfeits = forfeit_lines(result)
    if forfeits:
        lines += ["", *(f"- {line}" for line in forfeits)]
    if plot:
        lines += ["", f"![OpenSkill ratings of the {n}-player ladder]({plot})"]
    h2h = result.get("head_to_head") or {}
    if h2h:
        order = [row["name"] for row in result["bots"]]
        lines += [
            "",
            "Head to head: the row bot's win rate against the column bot "
            f"({result['games_per_table']} games per pair, shared victories count as wins).",
            "",
            "| | " + " | ".join(f"`{name}`" for name in order) + " |",
            "|:--|" + "--:|" * len(order),
        ]
        for a in order:
            cells = ["-" if h2h[a][b] is None else f"{h2h[a][b]:.2f}" for b in order]
            lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _begin_prefix(num_players: int) -> str:
    """What every version of the begin marker starts with (its comment text may change)."""
    return f"<!-- ladder:{num_players}p:begin"


def check_section(doc: str | os.PathLike[str], num_players: int) -> None:
    """Refuse a document whose ladder markers are broken (before any game is played).

    Raises:
        ValueError: a begin marker without its end (or the reverse), or either twice.
        OutputFileError: ``doc`` is not a regular file's name (a FIFO, a device, a directory,
            a link to one: ``fort_env.game.files.check_target``), never opened.
    """
    path = check_target(doc)
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    head, end = _begin_prefix(num_players), markers(num_players)[1]
    nb, ne = text.count(head), text.count(end)
    if (nb, ne) not in ((0, 0), (1, 1)) or (nb and text.index(head) > text.index(end)):
        raise ValueError(
            f"{path}: the {num_players}-player ladder section's markers are broken "
            f"({nb} begin, {ne} end; expected one '{head} ...' line before one '{end}')"
        )


def write_section(doc: str | os.PathLike[str], num_players: int, body: str) -> Path:
    """Put ``body`` between the ``num_players`` markers of ``doc``: replace what is there,
    append the section if the markers are not there yet, create the file if it is missing.

    Raises:
        ValueError: broken markers (:func:`check_section`).
        OutputFileError: ``doc`` is not a regular file's name (:func:`check_section`).
        OSError: the file cannot be read or written.
    """
    check_section(doc, num_players)
    path = Path(doc)
    begin, end = markers(num_players)
    section = f"{begin}\n{body.rstrip()}\n{end}\n"
    if not path.exists():  # a link to nothing is replaced, never written through
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, f"# Agents\n\n{section}")
        return path
    text = path.read_text(encoding="utf-8")
    head = _begin_prefix(num_players)
    if head in text:
        i = text.index(head)
        j = text.index(end) + len(end)
        if j < len(text) and text[j] == "\n":
            j += 1
        text = text[:i] + section + text[j:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    write_text(path, text)
    return path
