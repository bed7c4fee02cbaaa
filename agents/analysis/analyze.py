"""``fort-env analyze``: simulate many games and report how the card set plays.

For each player count it plays ``games`` games with the given agents (seated in turn, with
seat rotation, through :func:`agents.arena.tournament.run_tournament`, every game dealt afresh) and
reports:

- **end triggers**: the share of games whose end was triggered by 25 points, a Fort at Level 5
  or an empty Park deck (rulebook p.10; two can hold at once);
- **scores**: the winners' and the losers' final totals, and the winners' mean breakdown
  (Victory Track, Fort Level points, made-up rule, sculpture; rulebook p.11);
- **game length** in rounds (one turn of every player);
- **first-player advantage**: win rate by turn-order position (0 = the first player) against
  the fair ``1/n``, and by player board (its Best Friends), which the rotation keeps apart;
- **cards** (by name, all copies together): *play rate* (played / times in the leader's hand
  at a Play decision), *recruit rate* (recruited / times offered in the Park or a rival's
  Yard at a Recruit decision), and the *owner win lift*: wins of the players who had the card
  at the end over the wins expected of them (each owner expected ``winners / n``); above 1
  means owners win more often than average;
- **suits**: the owner win lift by each player's main suit (the plain suit they hold most of)
  and the mean share of each suit in winners' and losers' cards.

Tables go to the console (rich) and PNG plots (matplotlib, Agg backend) to ``out``:
``end_triggers.png``, ``scores.png``, ``game_length.png``, ``first_player.png``, ``cards.png``,
``suits.png``. :func:`analyze` returns the numbers as a JSON-able dict.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.games import TRIGGERS, GameRecord
from agents.arena.tournament import run_tournament
from fort_env import FortGame, FortState
from fort_env.game.constants import HAND, PARK, PLAIN_SUITS, SUITS, YARD
from fort_env.game.decisions import DecisionKind as K
from fort_env.game.files import write_bytes
from fort_env.views.scoring import owned_cards

__all__ = ["CardStats", "analyze", "print_report"]

PLOTS = ("end_triggers", "scores", "game_length", "first_player", "cards", "suits")


class CardStats:
    """Observer (``agents.arena.games.Observer``) counting, per card id, the times it was
    offered and chosen at Play and Recruit decisions, and who owned it at the end."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] | None = None

    def _init(self, game: FortGame) -> dict[str, np.ndarray]:
        if self.arrays is None:
            c = game.num_cards
            self.arrays = {k: np.zeros(c, dtype=np.int64) for k in
                           ("play_offered", "played", "recruit_offered", "recruited")}  # fmt: skip
        return self.arrays

    def before(self, state: FortState, seat: int, action: int) -> None:
        a = self._init(state.game)
        kind = state.decision_kind
        name, i = state.game.layout.decode(action)
        if kind == K.PLAY:
            a["play_offered"][state.cards_in(HAND, seat)] += 1
            if name == "PLAY_CARD":
                a["played"][i] += 1
        elif kind in (K.RECRUIT, K.BIRTHDAY):
            offered = [state.cards_in(PARK)]
            if kind == K.RECRUIT:  # and the rivals' Yards
                n = state.game.num_players
                offered += [state.cards_in(YARD, q) for q in range(n) if q != seat]
            a["recruit_offered"][np.concatenate(offered)] += 1  # distinct cards: += is exact
            if name == "RECRUIT_CARD":  # the Park deck's top card is drawn unseen: no choice
                a["recruited"][i] += 1

    def after(self, state: FortState, seat: int, action: int) -> None:
        pass

    def end(self, state: FortState) -> dict[str, Any]:
        a = self._init(state.game)
        return {
            **{k: v.tolist() for k, v in a.items()},
            "owned": [owned_cards(state, p).tolist() for p in range(state.game.num_players)],
        }


def _share(counts: dict[str, int], games: int) -> dict[str, float]:
    return {k: v / games for k, v in counts.items()}


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not len(values):
        return {}
    q = np.percentile(values, [10, 50, 90])
    return {
        "mean": float(np.mean(values)),
        "p10": float(q[0]),
        "median": float(q[1]),
        "p90": float(q[2]),
    }


def analyze(
    agent_specs: Sequence[str],
    games: int,
    player_counts: Sequence[int] = (2, 3, 4),
    seed: int = 0,
    workers: int = 1,
    out: str | Path | None = "analysis",
    setup: str = "basic",
    cards: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Simulate ``games`` games per player count and summarise them (module docstring).

    Args:
        agent_specs: agents seated in turn (``["heuristic"]``: every seat; two specs in a
            4-player game: A, B, A, B), then rotated over the seats.
        games: games per player count.
        player_counts: the player counts to simulate.
        out: directory for the PNG plots (created), or ``None`` for no plots.

    Returns:
        ``{"agents", "games", "by_players": {n: {...}}, "cards": [...], "suits": [...],
        "plots": [paths]}``.
    """
    game = FortGame(2, setup, cards)
    names = sorted(
        {c.name for c in game.cards}, key=lambda nm: next(c.id for c in game.cards if c.name == nm)
    )
    name_index = {nm: k for k, nm in enumerate(names)}
    card_name = np.array([name_index[c.name] for c in game.cards])
    is_friend = {c.name: bool(c.is_best_friend) for c in game.cards}
    m = len(names)
    totals = {k: np.zeros(m) for k in ("play_offered", "played", "recruit_offered", "recruited",
                                        "owner_games", "owner_wins", "owner_expected")}  # fmt: skip
    suit_lift = np.zeros((len(PLAIN_SUITS), 3))  # wins, expected, players
    suit_share = {"winners": np.zeros(len(SUITS)), "losers": np.zeros(len(SUITS))}
    share_n = {"winners": 0, "losers": 0}
    by_players: dict[int, Any] = {}
    for n in player_counts:
        specs = [agent_specs[k % len(agent_specs)] for k in range(n)]
        game_n = FortGame(n, setup, cards)
        result = run_tournament(specs, n, games, seed=seed, workers=workers, setup=setup,
                                cards=cards, progress=progress, return_records=True,
                                observer=CardStats, duplicate_deals=False)  # fmt: skip
        records: list[GameRecord] = result.pop("records")
        win_scores = [r.totals[w] for r in records for w in r.winners]
        parts = ("track", "fort_level", "made_up_rule", "macaroni")
        win_rows = [r.breakdown[w] for r in records for w in r.winners]
        win_breakdown = {k: float(np.mean([row[k] for row in win_rows])) for k in parts}
        lose_scores = [t for r in records for s, t in enumerate(r.totals) if s not in r.winners]
        seat_wins = np.zeros(n)
        board_wins = np.zeros(n)
        for r in records:
            for w in r.winners:
                seat_wins[r.position(w)] += 1
                board_wins[w] += 1
            expected = len(r.winners) / n
            extra = r.extra
            for key in ("play_offered", "played", "recruit_offered", "recruited"):
                np.add.at(totals[key], card_name, np.asarray(extra[key]))
            for seat, owned in enumerate(extra["owned"]):
                won = seat in r.winners
                owned_names = np.unique(card_name[owned]) if owned else np.zeros(0, int)
                totals["owner_games"][owned_names] += 1
                totals["owner_wins"][owned_names] += won
                totals["owner_expected"][owned_names] += expected
                counts = game.suit_counts[owned].sum(axis=0) if owned else np.zeros(len(SUITS))
                if counts[: len(PLAIN_SUITS)].sum():
                    main = int(np.argmax(counts[: len(PLAIN_SUITS)]))
                    suit_lift[main] += (won, expected, 1)
                    key = "winners" if won else "losers"
                    suit_share[key] += counts / counts.sum()
                    share_n[key] += 1
        by_players[n] = {
            "games": games,
            "end_trigger_shares": _share(result["end_triggers"], games),
            "winning_scores": _percentiles(win_scores),
            "losing_scores": _percentiles(lose_scores),
            "winner_breakdown": win_breakdown,
            "rounds": _percentiles([r.rounds for r in records]),
            "seat_win_rates": (seat_wins / games).tolist(),
            "board_win_rates": {
                b: float(board_wins[k] / games) for k, b in enumerate(game_n.board_of_seat)
            },
            "first_player_win_rate": result["first_player_win_rate"],
            "fair_win_rate": 1.0 / n,
            "shared_victories": result["shared_victories"],
            "_raw": {"win": win_scores, "lose": lose_scores, "rounds": [r.rounds for r in records]},
        }
    card_rows = []
    for k, nm in enumerate(names):
        card_rows.append({
            "card": nm,
            "best_friend": is_friend[nm],
            "play_rate": _ratio(totals["played"][k], totals["play_offered"][k]),
            "recruit_rate": _ratio(totals["recruited"][k], totals["recruit_offered"][k]),
            "owner_win_lift": _ratio(totals["owner_wins"][k], totals["owner_expected"][k]),
            "owner_games": int(totals["owner_games"][k]),
        })  # fmt: skip
    suit_rows = []
    for s in PLAIN_SUITS:
        suit_rows.append({
            "suit": SUITS[s],
            "main_suit_win_lift": _ratio(suit_lift[s, 0], suit_lift[s, 1]),
            "main_suit_players": int(suit_lift[s, 2]),
            "share_in_winners": float(suit_share["winners"][s] / max(share_n["winners"], 1)),
            "share_in_losers": float(suit_share["losers"][s] / max(share_n["losers"], 1)),
        })  # fmt: skip
    report: dict[str, Any] = {
        "agents": list(agent_specs),
        "games": games,
        "by_players": by_players,
        "cards": card_rows,
        "suits": suit_rows,
        "plots": [],
    }
    if out is not None:
        report["plots"] = [str(p) for p in write_plots(report, Path(out))]
    for n in by_players:
        by_players[n].pop("_raw")
    return report


def _ratio(a: float, b: float) -> float | None:
    return float(a / b) if b else None


def write_plots(report: dict[str, Any], out: Path) -> list[Path]:
    """Write the six PNG plots of ``report`` into ``out`` (created); their paths.

    Raises:
        ImportError: matplotlib is missing (it comes with the ``train`` extra).
    """
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(
            "plots need matplotlib: pip install -c constraints.txt -e '.[train]' "
            "(or pip install matplotlib)"
        ) from e

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    by = report["by_players"]
    counts = list(by)
    paths = []

    def save(fig: Any, name: str) -> None:
        path = out / f"{name}.png"
        fig.tight_layout()
        buffer = io.BytesIO()  # written by fort_env.game.files: only over a regular file
        fig.savefig(buffer, dpi=100, format="png")
        plt.close(fig)
        write_bytes(path, buffer.getvalue())
        paths.append(path)

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(TRIGGERS)
    for k, t in enumerate(TRIGGERS):
        ax.bar(
            np.arange(len(counts)) + k * width,
            [by[n]["end_trigger_shares"][t] for n in counts],
            width,
            label=t,
        )
    ax.set_xticks(np.arange(len(counts)) + width, [f"{n} players" for n in counts])
    ax.set_ylabel("share of games")
    ax.set_title("End triggers")
    ax.legend()
    save(fig, "end_triggers")

    fig, axes = plt.subplots(1, len(counts), figsize=(4 * len(counts), 3.5), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        raw = by[n]["_raw"]
        bins = np.arange(0, max([*raw["win"], *raw["lose"], 1]) + 5, 4)
        ax.hist(raw["lose"], bins=bins, alpha=0.6, label="losers")
        ax.hist(raw["win"], bins=bins, alpha=0.6, label="winners")
        ax.axvline(48, color="k", linestyle="--", linewidth=1, label="rulebook example (48)")
        ax.set_title(f"Final scores, {n} players")
        ax.set_xlabel("total points")
        ax.legend(fontsize=7)
    save(fig, "scores")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for n in counts:
        rounds = by[n]["_raw"]["rounds"]
        ax.hist(
            rounds,
            bins=(np.arange(0, max(rounds) + 2) - 0.5).tolist(),
            alpha=0.5,
            label=f"{n} players",
        )
    ax.set_xlabel("rounds")
    ax.set_title("Game length")
    ax.legend()
    save(fig, "game_length")

    fig, axes = plt.subplots(1, len(counts), figsize=(3.5 * len(counts), 3), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        rates = by[n]["seat_win_rates"]
        ax.bar(range(n), rates)
        ax.axhline(1 / n, color="k", linestyle="--", linewidth=1)
        ax.set_xticks(range(n), ["first"] + [f"+{s}" for s in range(1, n)])
        ax.set_title(f"Win rate by turn order, {n} players", fontsize=9)
    save(fig, "first_player")

    rows = report["cards"]
    labels = [r["card"] + (" (BF)" if r["best_friend"] else "") for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(14, 0.22 * len(rows) + 1.5), sharey=True)
    for ax, key, title in zip(axes, ("play_rate", "recruit_rate", "owner_win_lift"),
                              ("play rate (when in hand)", "recruit rate (when offered)",
                               "owner win lift (1 = average)"), strict=True):  # fmt: skip
        ax.barh(range(len(rows)), [r[key] or 0.0 for r in rows])
        ax.set_title(title)
        if key == "owner_win_lift":
            ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
    axes[0].set_yticks(range(len(rows)), labels, fontsize=7)
    axes[0].invert_yaxis()
    save(fig, "cards")

    suits = report["suits"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    names = [s["suit"] for s in suits]
    axes[0].bar(names, [s["main_suit_win_lift"] or 0.0 for s in suits])
    axes[0].axhline(1.0, color="k", linestyle="--", linewidth=1)
    axes[0].set_title("Win lift by main suit")
    x = np.arange(len(names))
    axes[1].bar(x - 0.2, [s["share_in_winners"] for s in suits], 0.4, label="winners")
    axes[1].bar(x + 0.2, [s["share_in_losers"] for s in suits], 0.4, label="losers")
    axes[1].set_xticks(x, names)
    axes[1].set_title("Share of cards by suit")
    axes[1].legend()
    for ax in axes:
        ax.tick_params(axis="x", labelsize=8)
    save(fig, "suits")
    return paths


def print_report(report: dict[str, Any], console: Any = None) -> None:
    """Print ``report`` as rich tables."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    t = Table(
        title=f"{report['games']} games per player count; agents: {', '.join(report['agents'])}"
    )
    for col in ("players", *TRIGGERS, "win score (median, p10-p90)", "lose score (median)",
                "rounds (mean)", "win rate by turn order", "first player / fair",
                "win rate by board (r/b/g/y)"):  # fmt: skip
        t.add_column(col, justify="right")
    for n, r in report["by_players"].items():
        w, lo = r["winning_scores"], r["losing_scores"]
        t.add_row(
            str(n),
            *[f"{r['end_trigger_shares'][k]:.2f}" for k in TRIGGERS],
            f"{w['median']:.0f} ({w['p10']:.0f}-{w['p90']:.0f})",
            f"{lo['median']:.0f}",
            f"{r['rounds']['mean']:.1f}",
            " ".join(f"{x:.2f}" for x in r["seat_win_rates"]),
            f"{r['first_player_win_rate']:.2f} / {r['fair_win_rate']:.2f}",
            " ".join(f"{b[0]}:{x:.2f}" for b, x in r["board_win_rates"].items()),
        )
    console.print(t)
    bt = Table(title="Winners' mean score breakdown (rulebook example: 17 + 23 + 4 + 4 = 48)")
    for col in ("players", "track", "Fort Level points", "made-up rule", "sculpture"):
        bt.add_column(col, justify="right")
    for n, r in report["by_players"].items():
        b = r["winner_breakdown"]
        bt.add_row(
            str(n), *(f"{b[k]:.1f}" for k in ("track", "fort_level", "made_up_rule", "macaroni"))
        )
    console.print(bt)
    ct = Table(title="Cards (all copies of a name together)")
    for col in ("card", "play rate", "recruit rate", "owner win lift", "owners"):
        ct.add_column(col, justify="left" if col == "card" else "right")
    for r in sorted(report["cards"], key=lambda r: -(r["owner_win_lift"] or 0.0)):
        ct.add_row(
            r["card"] + (" (BF)" if r["best_friend"] else ""),
            _fmt(r["play_rate"]),
            _fmt(r["recruit_rate"]),
            _fmt(r["owner_win_lift"]),
            str(r["owner_games"]),
        )
    console.print(ct)
    st = Table(title="Suits")
    for col in ("suit", "win lift as main suit", "share in winners", "share in losers"):
        st.add_column(col, justify="right")
    for r in report["suits"]:
        st.add_row(
            r["suit"],
            _fmt(r["main_suit_win_lift"]),
            f"{r['share_in_winners']:.3f}",
            f"{r['share_in_losers']:.3f}",
        )
    console.print(st)
    if report["plots"]:
        console.print("plots: " + ", ".join(report["plots"]))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"
