"""Luck-corrected results: AIVAT with a fixed whole-table critic.

Fort is a game of heavy luck: a 200-game win rate has a 95% interval of about +-6 points, and
playing the same deals with seats swapped barely helps (the draws diverge as soon as play
does). AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling, "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games", AAAI 2018) takes the luck of
each chance event out of a game's result, with any value function ``V`` fixed in advance:

    corrected_p = u_p - sum over chance events e of ( V_p(after e) - E[ V_p(after e') ] )

where ``u_p`` is seat ``p``'s result (1 if it is among the winners, else 0: the tournament's
win, shared victories counting for each winner) and the expectation is over the outcomes the
event could have had, given everything before it. Each term has mean zero given the game so
far, so ``E[corrected] = E[u]`` whatever ``V`` is (unbiased); the closer ``V`` is to the true
chance of winning, the more of the luck it removes.

**Chance in Fort** (``fort_env.views.chance``): the deal, and every action that takes a card
from a deck (the draw phase, a Park refill) or reshuffles a discard pile. For the deal, ``K``
fresh deals (the same first player) give the expectation; for an action, ``K`` copies of the
position before it with every deck's order redrawn (:func:`~fort_env.views.chance
.reshuffle_decks`), each played the same action. An action that takes nothing from a deck and
shuffles nothing is not a chance event: its term is exactly 0. The copies' draws come from a
generator of their own (seeded from the game's seed and :data:`LUCK_KEY`), independent of the
real draws and of the agents. Estimating the expectation from ``K`` samples keeps every term
unbiased; a small ``K`` only leaves some noise in.

**Weights.** Every term has mean zero, so ``u - sum(w_e * term_e)`` is unbiased for any
weights fixed in advance (control variates). A critic's terms are partly noise (its error in
telling one draw from another), and a noisy term adds variance; the shipped critics carry
weights by when the event happens (:class:`LuckWeights`: the deal, then stretches of rounds),
fitted by least squares on calibration games played before any evaluation
(``scripts/table_critic/calibrate.py``; their seeds are in the critic's JSON). A critic
without weights takes every term out in full (AIVAT as published).

**Decisions are not corrected.** AIVAT also corrects the decisions of an agent whose action
probabilities are known; the project's bots either play deterministically or do not expose
their probabilities, and a term left out costs variance, never bias.

**V** is a whole-table critic (:class:`TableCritic`): a policy file with a critic
(``agents.learned.network.ActorCritic``) that reads a seat's table observation, every seat's
hidden cards included (never a deck's order), trained on who won. The shipped ones
(``agents/zoo/critic-Np``) were fitted on games between the zoo's bots played before any game
they judge. ``V_p = (critic(table_p) + 1) / 2``, then shifted equally so that the seats' values
sum to 1; a finished game's ``V`` is its result. **Never judge games with a critic fitted on
them**: the estimator is unbiased only for a ``V`` fixed before the games it judges (fitted
on them, it can make the variance, and any test, arbitrarily small).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fort_env import FortGame, FortState
from fort_env.game.errors import ConfigError, ModelFileError
from fort_env.views.chance import cards_in_decks, chance_state, reshuffle_decks

__all__ = [
    "DEFAULT_SAMPLES",
    "LUCK_KEY",
    "LuckCorrection",
    "LuckObserverFactory",
    "LuckWeights",
    "TableCritic",
    "choose_critic",
    "luck_summary",
    "shipped_critic",
]  # fmt: skip

LUCK_KEY = 0x4C55434B  # "LUCK": the key of the resampling generator's seed (module docstring)
DEFAULT_SAMPLES = 8  # chance outcomes sampled per event (K)
ZOO = Path(__file__).resolve().parent.parent / "zoo"

Values = Callable[[Sequence[FortState]], np.ndarray]
"""A value function: positions -> float64 ``(len, num_players)``, each seat's chance to win."""

MAX_WEIGHT_BINS = 16


@dataclass(frozen=True)
class LuckWeights:
    """How much of each chance event's term is taken out, by when it happens: the deal's
    weight, then one weight per stretch of rounds (``round_edges`` ascending: rounds
    ``[0, e0)``, ``[e0, e1)``, ..., ``[e_last, inf)``; a round is a turn of every seat).

    Every term has mean zero, so any weights fixed in advance keep the estimate unbiased
    (control variates); weights fitted on calibration games (``scripts/table_critic/
    calibrate.py``, stored in the critic's JSON) keep a critic's noisy terms from adding
    variance. ``LuckWeights.plain()``: every weight 1 (AIVAT as published).

    Raises:
        ModelFileError: (``from_json``) a malformed entry: names the file and the field.
    """

    deal: float = 1.0
    round_edges: tuple[int, ...] = ()
    weights: tuple[float, ...] = (1.0,)

    @classmethod
    def plain(cls) -> LuckWeights:
        return cls()

    @classmethod
    def from_json(cls, entry: Any, where: Path) -> LuckWeights:
        """The ``zoo.luck_weights`` entry of a critic's JSON, checked."""

        def bad(field: str) -> ModelFileError:
            return ModelFileError(where, f"field 'zoo.luck_weights.{field}' is malformed")

        if not isinstance(entry, dict) or set(entry) - {"deal", "round_edges", "weights", "fit"}:
            raise bad("(the object)")
        edges, weights, deal = entry.get("round_edges"), entry.get("weights"), entry.get("deal")
        if (
            not isinstance(edges, list)
            or len(edges) >= MAX_WEIGHT_BINS
            or not all(isinstance(e, int) and not isinstance(e, bool) and e > 0 for e in edges)
            or edges != sorted(set(edges))
        ):
            raise bad("round_edges")
        for field, values in (("weights", weights), ("deal", [deal])):
            if (
                not isinstance(values, list)
                or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in values)
                or not all(math.isfinite(w) and 0.0 <= w <= 2.0 for w in values)
            ):
                raise bad(field)
        assert isinstance(weights, list)
        if len(weights) != len(edges) + 1:
            raise bad("weights")
        return cls(float(deal), tuple(edges), tuple(float(w) for w in weights))  # type: ignore[arg-type]

    def of_round(self, rounds: int) -> float:
        """The weight of a chance event in round ``rounds`` (0 = the first round)."""
        return self.weights[bisect.bisect_right(self.round_edges, rounds)]


class TableCritic:
    """A saved whole-table critic as a value function of positions (``V`` above).

    Args:
        path: a policy file (``NAME.safetensors`` or ``NAME.json``) with a whole-table critic.
        game: the game it will judge: its player count, setup and card set must be the file's.

    Raises:
        ModelFileError: every check of ``load_policy_file`` (description, layout fingerprint,
            size, header, SHA-256, finite values), a file without a critic, or one saved for
            another game (names the file and what differs).
    """

    def __init__(self, path: str | Path, game: FortGame) -> None:
        from agents.learned.policy_file import layout_fingerprint, load_policy_file, policy_paths
        from fort_env.game.facts import config_card_set

        weights = policy_paths(path)[0]
        policy, info = load_policy_file(path)
        g = info["game"]
        mine = (game.num_players, game.setup, config_card_set(game))
        if (g["num_players"], g["setup"], g["card_set"]) != mine or g.get(
            "layout"
        ) != layout_fingerprint(game):
            raise ModelFileError(
                weights,
                f"a critic for a {g['num_players']}-player {g['setup']} game of card set "
                f"{g['card_set']!r} (layout {g.get('layout')}); this table is a {mine[0]}-player "
                f"{mine[1]} game of card set {mine[2]!r} (layout {layout_fingerprint(game)})",
            )
        if getattr(policy, "critic", None) is None:
            raise ModelFileError(weights, "it has no whole-table critic (network.critic)")
        self.policy = policy
        layer = policy.critic[0]  # the first Linear, transposed once: rows by input feature
        self._first = (layer.weight.detach().t().contiguous(), layer.bias.detach())
        self.path = weights
        self.sha256 = str(info["sha256"])
        entry = (
            (info.get("zoo") or {}).get("luck_weights")
            if isinstance(info.get("zoo"), dict)
            else None
        )
        self.weights = (
            LuckWeights.plain() if entry is None else LuckWeights.from_json(entry, weights)
        )
        self.num_players = game.num_players

    def critic(self, tables: np.ndarray) -> np.ndarray:
        """The critic's raw outputs (return units, +1 a win, -1 a loss) for table observations
        ``(k, D)``: float64 ``(k,)``. Computed by torch on the caller's threads (a tournament's
        workers run torch on one): numpy's BLAS starts a thread per core, and on a loaded
        machine those threads spin against each other (a pass of 18 rows took 280 ms)."""
        import torch

        x = np.asarray(tables, np.float32)
        # A table observation is about 96% zeros, and the positions a correction values share
        # most of their nonzero features: the first layer reads only the columns some row
        # uses (a tenth of the multiply-adds; the same sums as the dense layer).
        cols = np.flatnonzero(np.any(x != 0, axis=0))
        with torch.no_grad():
            first = self._first
            h = torch.from_numpy(np.ascontiguousarray(x[:, cols])) @ first[0][cols] + first[1]
            for layer in list(self.policy.critic)[1:]:
                h = layer(h)
            return self.policy.critic_head(h)[:, 0].numpy().astype(np.float64)

    def __call__(self, states: Sequence[FortState]) -> np.ndarray:
        """``V``: float64 ``(len(states), num_players)``, each seat's chance to win."""
        n = self.num_players
        out = np.empty((len(states), n))
        running = [i for i, s in enumerate(states) if not s.is_terminal()]
        for i, s in enumerate(states):
            if s.is_terminal():
                out[i] = [float(p in s.winners()) for p in range(n)]
        if running:
            tables = np.stack(
                [states[i].table_observation_tensor(p) for i in running for p in range(n)]
            )
            v = (self.critic(tables).reshape(len(running), n) + 1.0) / 2.0
            out[running] = v + (1.0 - v.sum(axis=1, keepdims=True)) / n
        return out


class LuckCorrection:
    """An observer of one game (``agents.arena.games.Observer``) that adds up each seat's luck.

    ``end`` returns ``{"luck": [float per seat], "chance_events": int}``; a seat's corrected
    result is ``won - luck`` (module docstring).

    Args:
        values: ``V`` (a :class:`TableCritic`, or any function of the same shape).
        samples: ``K``, the chance outcomes sampled per event (at least 1).
        weights: the share of each term taken out (:class:`LuckWeights`); default: the
            critic's own (``values.weights``), else every weight 1.
        keep_terms: also return every event's unweighted term (``"terms"``: ``[rounds, term per
            seat...]`` rows, ``rounds`` the rounds finished when it happened; the deal's is -1),
            for studies of where the luck lies and for fitting weights.
    """

    def __init__(
        self,
        values: Values,
        samples: int = DEFAULT_SAMPLES,
        keep_terms: bool = False,
        weights: LuckWeights | None = None,
    ) -> None:
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ConfigError(f"luck samples must be an int >= 1, got {samples!r}")
        self.values = values
        self.samples = samples
        self.weights = weights or getattr(values, "weights", None) or LuckWeights.plain()
        self.luck: np.ndarray | None = None
        self.events = 0
        self._before: FortState | None = None
        self._decks = 0
        self._shuffles = 0
        self._rng: np.random.Generator | None = None
        self.terms: list[list[float]] | None = [] if keep_terms else None

    def _start(self, state: FortState) -> None:
        """The deal's term, at the game's first decision (``state`` is the deal)."""
        seed, _, first = chance_state(state)
        self._rng = np.random.default_rng(np.random.SeedSequence([seed, LUCK_KEY]))
        game: FortGame = state.game  # type: ignore[assignment]
        deals = [
            game.new_initial_state(int(self._rng.integers(2**62)), first_player=first)
            for _ in range(self.samples)
        ]
        v = self.values([state, *deals])
        term = v[0] - v[1:].mean(axis=0)
        self.luck = self.weights.deal * term
        self.events = 1
        if self.terms is not None:
            self.terms.append([-1.0, *term])

    def before(self, state: FortState, seat: int, action: int) -> None:
        if self._rng is None:
            self._start(state)
        self._before = state.clone()
        self._decks = cards_in_decks(state)
        self._shuffles = chance_state(state)[1]

    def after(self, state: FortState, seat: int, action: int) -> None:
        before = self._before
        if before is None or self._rng is None or self.luck is None:
            return
        if cards_in_decks(state) == self._decks and chance_state(state)[1] == self._shuffles:
            return  # no card left a deck and nothing was shuffled: no chance in this action
        others = []
        for _ in range(self.samples):
            s = reshuffle_decks(before, self._rng)
            s.apply_action(action)
            others.append(s)
        v = self.values([state, *others])
        term = v[0] - v[1:].mean(axis=0)
        n = before.game.num_players
        rounds = sum(before.turns_taken(p) for p in range(n)) // n
        self.luck += self.weights.of_round(rounds) * term
        self.events += 1
        if self.terms is not None:
            self.terms.append([float(rounds), *term])

    def end(self, state: FortState) -> dict[str, Any]:
        n = state.game.num_players
        luck = np.zeros(n) if self.luck is None else self.luck
        out: dict[str, Any] = {"luck": [float(x) for x in luck], "chance_events": self.events}
        if self.terms is not None:
            out["terms"] = self.terms
        return out


_CRITICS: dict[tuple[str, int, str, str | None], TableCritic] = {}


@dataclass(frozen=True)
class LuckObserverFactory:
    """A picklable ``() -> LuckCorrection`` for tournaments' workers: the critic file is
    loaded once per process (and checked there), then each game gets a fresh observer."""

    critic: str
    num_players: int
    setup: str = "basic"
    cards: str | None = None
    samples: int = DEFAULT_SAMPLES

    def load(self) -> TableCritic:
        """The critic, loaded (and cached) in this process. Raises as :class:`TableCritic`."""
        key = (self.critic, self.num_players, self.setup, self.cards)
        if key not in _CRITICS:
            game = FortGame(self.num_players, self.setup, self.cards)
            _CRITICS[key] = TableCritic(self.critic, game)
        return _CRITICS[key]

    def __call__(self) -> LuckCorrection:
        return LuckCorrection(self.load(), self.samples)


def shipped_critic(num_players: int, setup: str = "basic", cards: str | None = None) -> Path | None:
    """The zoo's table critic for this table (``agents/zoo/critic-Np.safetensors``), or
    ``None`` where none ships: another setup, a card set of one's own, or no file."""
    if setup != "basic" or cards is not None:
        return None
    path = ZOO / f"critic-{num_players}p.safetensors"
    return path if path.is_file() else None


def choose_critic(
    critic: str | None,
    raw: bool,
    required: bool,
    num_players: int,
    setup: str = "basic",
    cards: str | None = None,
) -> Path | None:
    """The critic a comparison uses: ``critic`` if given, else the zoo's for this table;
    ``None`` with ``raw`` (raw results only) or where none ships and none is required.

    Raises:
        ConfigError: ``raw`` with ``critic`` or ``required``; ``required`` (``--luck-corrected``)
            and no critic for this table; ``critic`` names no file.
    """
    if raw and (critic is not None or required):
        raise ConfigError("raw results take no critic: drop --raw, or --critic/--luck-corrected")
    if raw:
        return None
    if critic is not None:
        from agents.learned.policy_file import policy_paths

        weights = policy_paths(critic)[0]
        if not weights.is_file():
            raise ConfigError(f"critic {critic}: no such file ({weights})")
        return weights
    found = shipped_critic(num_players, setup, cards)
    if found is None and required:
        raise ConfigError(
            f"no table critic ships for a {num_players}-player {setup} game"
            + (" of your own cards" if cards is not None else "")
            + ": give one with --critic PATH (a policy file with a whole-table critic, fitted on "
            "other games: scripts/table_critic/), or drop --luck-corrected"
        )
    return found


def _interval(values: np.ndarray, blocks: np.ndarray) -> tuple[float, float, float]:
    """Mean and normal 95% interval of ``values``, with the games of one deal block (one
    rotation of the seats, ``agents.arena.tournament``) as one unit: ``(mean, lo, hi)``."""
    mean = float(values.mean())
    if len(values) < 2:  # no spread to measure: the widest a win's deviation can be
        return mean, mean - 1.0, mean + 1.0
    if len(np.unique(blocks)) < 2:  # one deal block: its games as the units
        blocks = np.arange(len(values))
    ids = np.unique(blocks)
    sums = np.array([values[blocks == b].sum() for b in ids])
    counts = np.array([np.count_nonzero(blocks == b) for b in ids])
    # the ratio estimator's variance over independent blocks (blocks may differ in size)
    resid = sums - mean * counts
    var = float((resid**2).sum() / (len(ids) - 1) * len(ids)) / float(counts.sum()) ** 2
    half = 1.959964 * var**0.5
    return mean, mean - half, mean + half


def luck_summary(records: Sequence[Any], names: Sequence[str], num_players: int) -> dict[str, Any]:
    """Per agent: raw and corrected win rates side by side, over games whose
    ``record.extra`` holds a :class:`LuckCorrection`'s result (``GameRecord``s).

    Returns ``{NAME: {"games", "raw_win_rate", "raw_ci95", "raw_variance", "win_rate",
    "win_rate_ci95", "variance", "variance_reduction", "luck", "luck_ci95"}}``: ``win_rate`` is
    the corrected mean, the intervals are normal 95% intervals with a deal block as the unit,
    the variances those of one game's result, and ``variance_reduction`` = raw variance /
    corrected variance.
    ``luck`` (with ``luck_ci95``) is the mean luck taken out, raw minus corrected on the same
    games: its expectation is 0, so an interval far from 0 flags a biased chance model.
    """
    raw: list[list[float]] = [[] for _ in names]
    fixed: list[list[float]] = [[] for _ in names]
    block: list[list[int]] = [[] for _ in names]
    for r in records:
        luck = r.extra["luck"]
        for seat, i in enumerate(r.seating):
            won = float(seat in r.winners)
            raw[i].append(won)
            fixed[i].append(won - luck[seat])
            block[i].append(r.index // num_players)
    out: dict[str, Any] = {}
    for i, name in enumerate(names):
        u, c, b = np.array(raw[i]), np.array(fixed[i]), np.array(block[i])
        if len(u) == 0:
            continue
        rm, rlo, rhi = _interval(u, b)
        cm, clo, chi = _interval(c, b)
        lm, llo, lhi = _interval(u - c, b)
        rv = float(u.var(ddof=1)) if len(u) > 1 else float("nan")
        cv = float(c.var(ddof=1)) if len(c) > 1 else float("nan")
        out[name] = {
            "games": len(u),
            "raw_win_rate": rm,
            "raw_ci95": [rlo, rhi],
            "raw_variance": rv,
            "win_rate": cm,
            "win_rate_ci95": [clo, chi],
            "variance": cv,
            "variance_reduction": rv / cv if cv > 0 else float("inf"),
            "luck": lm,
            "luck_ci95": [llo, lhi],
        }
    return out
