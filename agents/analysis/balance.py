"""``fort-env analyze balance``: does any card make its owner win too often, or too rarely?

For each player count it plays ``games`` games with the given agents (seated in turn: two
specs in a 4-player game sit A, B, A, B), with seat rotation, every game dealt afresh, through
:func:`agents.arena.tournament.run_tournament` (and its worker processes). For every seat of every
game it records which cards the seat **owned** at the end (hand, discard pile, deck, Yard, Lookout:
the zones made-up rules count, ``fort_env.views.scoring.owned_cards``) and which it **played** as
the leader at least once. Cards are grouped by name (all copies together; a seat with two copies
counts once).

The measure, per card and per measure (owned, played)
------------------------------------------------------

- ``seat_games`` ``N``: the seat-games in which the seat owned (played) the card;
- ``wins`` ``W``: those seat-games the seat won (a shared victory is a win for each winner);
- ``expected`` ``E``: the sum, over those seat-games, of the seat's **expected share**: the win
  rate of that agent spec at that turn-order position in that player count, over the whole run
  (so the first-player advantage and a stronger bot do not leak into the cards they happen to
  hold; over all seat-games ``sum E == sum W``);
- ``ratio`` ``W / E``: 1 is a fair card; 1.4 means owners won 1.4x as often as expected;
- ``ci``: the Wilson score interval of the win proportion ``W / N`` (95% by default,
  :func:`agents.arena.tournament.wilson_interval`, from scipy) scaled by ``N / E``. The expectation
  is treated as known (it is estimated from every seat-game of the run, far more than any one card);
- ``verdict``: ``"high"`` when the whole interval lies above the band's top (1.25 by default),
  ``"low"`` when it lies below the band's bottom (0.8), else ``"ok"``; ``outside`` says whether
  the point ratio alone lies outside the band.

Owning a card is not an experiment: winners often recruit more cards, and a strong position
lets a player recruit the card it wants, so the ratio measures association, not cause. The
played measure, which every seat gets about equally often, is the less biased of the two.

:func:`balance` runs the games and returns a JSON-able report (schema in its docstring);
:func:`balance_table` computes the rows from game records (usable on records made elsewhere);
:func:`write_plot` draws the ratios with their intervals and the band; :func:`print_balance`
prints rich tables.
"""

from __future__ import annotations

import io
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.games import GameRecord
from agents.arena.tournament import run_tournament, wilson_interval
from fort_env import FortGame, FortState
from fort_env.game.decisions import DecisionKind as K
from fort_env.game.files import write_bytes
from fort_env.views.scoring import owned_cards

__all__ = [
    "BAND", "MEASURES", "BalanceObserver", "balance", "balance_table", "print_balance",
    "write_plot",
]  # fmt: skip

MEASURES = ("owned", "played")
BAND = (0.8, 1.25)  # issue 15: no card's owner win ratio outside this band, with confidence
PLOT_NAME = "balance.png"


class BalanceObserver:
    """Observer (``agents.arena.games.Observer``) recording, per seat, the card ids it played
    as the leader and, at the end, the card ids it owned.

    ``end`` returns ``{"played": [[id, ...] per seat], "owned": [[id, ...] per seat]}`` (ids
    sorted, each once)."""

    def __init__(self) -> None:
        self.played: list[set[int]] | None = None

    def before(self, state: FortState, seat: int, action: int) -> None:
        if state.decision_kind != K.PLAY:
            return
        name, i = state.game.layout.decode(action)
        if name == "PLAY_CARD":
            if self.played is None:
                self.played = [set() for _ in range(state.game.num_players)]
            self.played[seat].add(int(i))

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        n = state.game.num_players
        played = self.played or [set() for _ in range(n)]
        return {
            "played": [sorted(p) for p in played],
            "owned": [sorted(int(c) for c in owned_cards(state, p)) for p in range(n)],
        }


def _check_band(band: Sequence[float], confidence: float) -> tuple[float, float]:
    if len(band) != 2:
        raise ValueError(f"band must be two numbers LOW,HIGH, got {list(band)!r}")
    low, high = float(band[0]), float(band[1])
    if not 0 < low < 1 < high:
        raise ValueError(f"band must satisfy 0 < LOW < 1 < HIGH, got {low:g},{high:g}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence:g}")
    return low, high


def balance_table(
    records: Mapping[int, Sequence[GameRecord]],
    card_names: Sequence[str],
    best_friend: Sequence[bool],
    specs: Mapping[int, Sequence[str]],
    confidence: float = 0.95,
    band: Sequence[float] = BAND,
) -> dict[str, Any]:
    """Per-card owner/player win ratios from finished games (module docstring).

    Args:
        records: per player count, the games' records with ``record.extra`` from
            :class:`BalanceObserver` (``seating``, ``winners``, ``first_player`` are used).
        card_names: the name of each card id (length = the game's number of cards); ids with
            the same name are one row.
        best_friend: per card id, whether it is a Best Friend.
        specs: per player count, the agent spec of each agent index (``record.seating`` values).
        confidence: of the Wilson intervals, in (0, 1).
        band: ``(low, high)`` with ``0 < low < 1 < high``.

    Returns:
        ``{"seat_games": {n: int}, "wins": {n: int}, "expected_share": {n: {spec: [float per
        position]}}, "cards": [row, ...]}``; each row is ``{"card", "best_friend", "owned":
        stats, "played": stats}`` and ``stats`` is ``{"seat_games", "wins", "expected",
        "ratio" (float | None), "ci" ([lo, hi] | None), "verdict" ("high" | "low" | "ok"),
        "outside" (bool), "ratio_by_players" ({n: float | None})}``, rows in the order of
        each name's first card id.

    Raises:
        ValueError: a bad ``band`` or ``confidence``; ``card_names`` and ``best_friend`` of
            different lengths; a record without the observer's ``owned``/``played`` lists, or
            with a card id outside ``card_names``.
    """
    low, high = _check_band(band, confidence)
    if len(card_names) != len(best_friend):
        raise ValueError(f"{len(card_names)} card names but {len(best_friend)} best_friend flags")
    names: list[str] = list(dict.fromkeys(card_names))
    index = {nm: k for k, nm in enumerate(names)}
    name_of = np.array([index[nm] for nm in card_names], dtype=np.int64)
    m = len(names)
    friend = np.zeros(m, dtype=bool)
    for cid, nm in enumerate(card_names):
        friend[index[nm]] |= bool(best_friend[cid])
    counts = list(records)
    # acc[measure][quantity] is (player counts, names): seat-games, wins, expected
    acc = {
        meas: {q: np.zeros((len(counts), m)) for q in ("games", "wins", "expected")}
        for meas in MEASURES
    }
    seat_games: dict[int, int] = {}
    wins_by_n: dict[int, int] = {}
    shares: dict[int, dict[str, list[float]]] = {}
    for j, n in enumerate(counts):
        recs = records[n]
        spec_of = list(specs[n])
        kinds = list(dict.fromkeys(spec_of))
        games = np.zeros((len(kinds), n))
        won = np.zeros((len(kinds), n))
        for r in recs:
            for seat, i in enumerate(r.seating):
                k = kinds.index(spec_of[i])
                games[k, r.position(seat)] += 1
                won[k, r.position(seat)] += seat in r.winners
        share = np.divide(won, games, out=np.zeros_like(won), where=games > 0)
        shares[n] = {kind: share[k].tolist() for k, kind in enumerate(kinds)}
        seat_games[n] = int(games.sum())
        wins_by_n[n] = int(won.sum())
        for r in recs:
            extra = r.extra
            if not all(isinstance(extra.get(meas), list) for meas in MEASURES):
                raise ValueError(
                    f"game {r.index} ({n} players) has no owned/played lists: "
                    "play it with observer=BalanceObserver"
                )
            for seat, i in enumerate(r.seating):
                win = float(seat in r.winners)
                exp = share[kinds.index(spec_of[i]), r.position(seat)]
                for meas in MEASURES:
                    ids = np.asarray(extra[meas][seat], dtype=np.int64)
                    if ids.size and (ids.min() < 0 or ids.max() >= len(card_names)):
                        raise ValueError(
                            f"game {r.index}: card id outside 0..{len(card_names) - 1}"
                        )
                    held = np.unique(name_of[ids])
                    a = acc[meas]
                    a["games"][j, held] += 1
                    a["wins"][j, held] += win
                    a["expected"][j, held] += exp
    rows = []
    for k, nm in enumerate(names):
        row: dict[str, Any] = {"card": nm, "best_friend": bool(friend[k])}
        for meas in MEASURES:
            a = acc[meas]
            row[meas] = _stats(
                a["games"][:, k], a["wins"][:, k], a["expected"][:, k], counts, confidence,
                low, high,
            )  # fmt: skip
        rows.append(row)
    return {
        "seat_games": seat_games,
        "wins": wins_by_n,
        "expected_share": shares,
        "cards": rows,
    }


def _stats(
    games: np.ndarray,
    wins: np.ndarray,
    expected: np.ndarray,
    counts: Sequence[int],
    confidence: float,
    low: float,
    high: float,
) -> dict[str, Any]:
    g, w, e = int(games.sum()), int(wins.sum()), float(expected.sum())
    ratio = w / e if e > 0 else None
    ci = None
    verdict = "ok"
    if g and e > 0:
        lo, hi = wilson_interval(w, g, confidence)
        ci = [lo * g / e, hi * g / e]
        verdict = "high" if ci[0] > high else "low" if ci[1] < low else "ok"
    return {
        "seat_games": g,
        "wins": w,
        "expected": e,
        "ratio": ratio,
        "ci": ci,
        "verdict": verdict,
        "outside": ratio is not None and not low <= ratio <= high,
        "ratio_by_players": {
            n: (float(wins[j] / expected[j]) if expected[j] > 0 else None)
            for j, n in enumerate(counts)
        },
    }


def balance(
    agent_specs: Sequence[str],
    games: int,
    player_counts: Sequence[int] = (2, 3, 4),
    seed: int = 0,
    workers: int = 1,
    out: str | Path | None = "analysis",
    setup: str = "basic",
    cards: str | None = None,
    confidence: float = 0.95,
    band: Sequence[float] = BAND,
    progress: bool = True,
) -> dict[str, Any]:
    """Play ``games`` games per player count and measure each card's balance (module
    docstring).

    Args:
        agent_specs: agents seated in turn (``["builder", "opportunist"]`` in a 3-player game:
            builder, opportunist, builder), then rotated over the seats.
        games: games per player count (``>= 1``).
        player_counts: the player counts to simulate (each 2, 3 or 4).
        seed: the run's seed; every game is dealt afresh from it.
        workers: processes to play in.
        out: directory for ``balance.png`` (created), or ``None`` for no plot.
        setup, cards: as for ``FortGame``.
        confidence: of the Wilson intervals, in (0, 1).
        band: the fair band ``(low, high)``, ``0 < low < 1 < high``.

    Returns:
        ``{"agents", "games" (per player count), "total_games", "player_counts", "seed",
        "setup", "confidence", "band", "wall_seconds", "unbalanced" ([{"card", "measure",
        "verdict"}]), "outside" ([{"card", "measure", "ratio"}]), "plot" (path | None)}``
        plus the keys of :func:`balance_table`.

    Raises:
        ValueError: no agents, ``games < 1``, a player count not in 2..4, a bad band or
            confidence, or what :func:`agents.arena.tournament.run_tournament` raises.
        ImportError: ``out`` given without matplotlib.
    """
    specs = [s.strip() for s in agent_specs if s.strip()]
    if not specs:
        raise ValueError("no agent given")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if not player_counts or any(n not in (2, 3, 4) for n in player_counts):
        raise ValueError(f"player counts must each be 2, 3 or 4, got {list(player_counts)!r}")
    _check_band(band, confidence)
    game = FortGame(player_counts[0], setup, cards)
    card_names = [c.name for c in game.cards]
    friends = [bool(c.is_best_friend) for c in game.cards]
    records: dict[int, list[GameRecord]] = {}
    seat_specs: dict[int, list[str]] = {}
    start = time.perf_counter()
    for n in player_counts:
        seat_specs[n] = [specs[k % len(specs)] for k in range(n)]
        result = run_tournament(seat_specs[n], n, games, seed=seed, workers=workers, setup=setup,
                                cards=cards, progress=progress, return_records=True,
                                observer=BalanceObserver, duplicate_deals=False)  # fmt: skip
        records[n] = result["records"]
    wall = time.perf_counter() - start
    table = balance_table(records, card_names, friends, seat_specs, confidence, band)
    report: dict[str, Any] = {
        "agents": specs,
        "games": games,
        "total_games": games * len(player_counts),
        "player_counts": list(player_counts),
        "seed": seed,
        "setup": setup,
        "confidence": confidence,
        "band": [float(band[0]), float(band[1])],
        "wall_seconds": round(wall, 1),
        **table,
    }
    report["unbalanced"] = [
        {"card": r["card"], "measure": meas, "verdict": r[meas]["verdict"]}
        for r in table["cards"] for meas in MEASURES if r[meas]["verdict"] != "ok"
    ]  # fmt: skip
    report["outside"] = [
        {"card": r["card"], "measure": meas, "ratio": r[meas]["ratio"]}
        for r in table["cards"] for meas in MEASURES if r[meas]["outside"]
    ]  # fmt: skip
    report["plot"] = str(write_plot(report, Path(out))) if out is not None else None
    return report


def write_plot(report: Mapping[str, Any], out: Path) -> Path:
    """Draw ``out/balance.png``: per card, the owned and played ratios with their intervals,
    sorted by the owned ratio, the band shaded. Returns its path.

    Raises:
        ImportError: matplotlib is missing (it comes with the ``train`` extra).
    """
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(
            "the plot needs matplotlib: pip install -c constraints.txt -e '.[train]' "
            "(or pip install matplotlib)"
        ) from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(report["cards"], key=lambda r: r["owned"]["ratio"] or 0.0)
    labels = [r["card"] + (" (BF)" if r["best_friend"] else "") for r in rows]
    low, high = report["band"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.24 * len(rows) + 1.8), sharey=True)
    y = np.arange(len(rows))
    for ax, meas in zip(axes, MEASURES, strict=True):
        ratio = np.array([np.nan if r[meas]["ratio"] is None else r[meas]["ratio"] for r in rows])
        ci = np.array([r[meas]["ci"] or [np.nan, np.nan] for r in rows])
        err = np.vstack([ratio - ci[:, 0], ci[:, 1] - ratio])
        colours = [
            "tab:red" if r[meas]["verdict"] != "ok" else
            "tab:orange" if r[meas]["outside"] else "tab:blue"
            for r in rows
        ]  # fmt: skip
        ax.axvspan(low, high, color="tab:green", alpha=0.12, label=f"band [{low:g}, {high:g}]")
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
        ax.errorbar(ratio, y, xerr=np.nan_to_num(err), fmt="none", ecolor="grey", linewidth=1)
        ax.scatter(ratio, y, c=colours, s=14, zorder=3)
        ax.set_title(f"win ratio of seats that {meas} the card")
        ax.set_xlabel(f"wins / expected ({round(100 * report['confidence'])}% Wilson interval)")
    axes[0].set_yticks(y, labels, fontsize=7)
    axes[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"Card balance: {report['total_games']} games ({', '.join(report['agents'])}; "
        f"{'/'.join(str(n) for n in report['player_counts'])} players)",
        fontsize=10,
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / PLOT_NAME
    fig.tight_layout()
    buffer = io.BytesIO()  # written by fort_env.game.files: only over a regular file
    fig.savefig(buffer, dpi=100, format="png")
    plt.close(fig)
    write_bytes(path, buffer.getvalue())
    return path


def print_balance(report: Mapping[str, Any], console: Any = None) -> None:
    """Print ``report`` (from :func:`balance`) as a rich table, highest owned ratio first."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    low, high = report["band"]
    pct = round(100 * report["confidence"])
    t = Table(
        title=f"Card balance: {report['total_games']} games ({report['games']} per player count, "
        f"{'/'.join(str(n) for n in report['player_counts'])} players); agents: "
        f"{', '.join(report['agents'])}; band [{low:g}, {high:g}], {pct}% Wilson intervals"
    )
    columns = ("card", "owned ratio", f"owned {pct}% CI", "owners", "played ratio",
               f"played {pct}% CI", "players", "owned ratio by players", "verdict")  # fmt: skip
    for col in columns:
        t.add_column(col, justify="left" if col == "card" else "right")
    for r in sorted(report["cards"], key=lambda r: -(r["owned"]["ratio"] or 0.0)):
        o, p = r["owned"], r["played"]
        bad = [f"{meas} {r[meas]['verdict']}" for meas in MEASURES if r[meas]["verdict"] != "ok"]
        out = [meas for meas in MEASURES if r[meas]["outside"]]
        verdict = ", ".join(bad) or ("outside: " + ", ".join(out) if out else "ok")
        style = "red" if bad else "yellow" if out else None
        t.add_row(
            r["card"] + (" (BF)" if r["best_friend"] else ""),
            _fmt(o["ratio"]), _ci(o["ci"]), str(o["seat_games"]),
            _fmt(p["ratio"]), _ci(p["ci"]), str(p["seat_games"]),
            " ".join(_fmt(x) for x in o["ratio_by_players"].values()),
            verdict,
            style=style,
        )  # fmt: skip
    console.print(t)
    console.print(
        f"{len(report['unbalanced'])} confidently outside the band, "
        f"{len(report['outside'])} with the point ratio outside; "
        f"{report['wall_seconds']} s" + (f"; plot: {report['plot']}" if report.get("plot") else "")
    )


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _ci(ci: Sequence[float] | None) -> str:
    return "-" if ci is None else f"{ci[0]:.2f}-{ci[1]:.2f}"
