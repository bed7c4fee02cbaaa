"""Fort as an OpenSpiel game: importing this module registers ``"python_fort"`` with pyspiel.

``import fort_env`` imports it as soon as pyspiel is imported, before or after
(``fort_env.envs.openspiel_hook``). Needs the ``openspiel`` extra
(``pip install -c constraints.txt -e ".[openspiel]"``)::

    import pyspiel
    import fort_env  # registers "python_fort"

    game = pyspiel.load_game("python_fort", {"players": 3, "setup": "basic"})
    state = game.new_initial_state()  # a chance node: the deal

=====================  =======================================================================
Parameters             ``players`` (int 2..4, default 2; OpenSpiel's usual name for the player
                       count), ``setup`` (``"basic"``, the default, or ``"advanced"``: the
                       draft, rulebook p.2), ``deals`` (int >= 1, default 65536: the number of
                       distinct deals the root chance node draws from), ``max_history`` (int
                       >= 1, default 1024: the entries the full information-state tensor
                       holds), ``info_state`` (``"full"``, the default, or ``"compact"``: which
                       information-state tensor the game gives, below), ``history_window``
                       (int >= 1, default 576: the decisions the compact one holds). A bad
                       value raises ``ConfigError``, a ``ValueError`` naming the parameter
                       (pyspiel may wrap it in a ``RuntimeError``)
Game type              sequential, imperfect information, explicit stochastic, general sum
                       (ties are shared wins: every tied winner gets +1), terminal rewards
Chance                 one chance node at the root draws the deal: outcome ``k`` (uniform over
                       ``deals``) is the engine's seed. The engine's later shuffles are a
                       function of that seed (``rules.base.event_rng``), so every later node is a
                       player node; the seed is hidden from the players like the deck order
Actions                the engine's flat layout: ``num_distinct_actions`` =
                       ``FortGame.num_distinct_actions``; ``legal_actions()`` the engine's
Returns                ``FortState.returns()``: +1 for each winner, -1 for the others
Observation tensor     ``FortState.observation_tensor(player)``: float32 ``(D,)``,
                       D = ``FortGame.observation_size`` (``fort_env/views/observation.py``)
Observation string     ``p<player>``, the table as text from that seat (``text.py``), the
                       pending decision and a digest of the observation tensor (so two states
                       share a string exactly when the seat's observations are equal)
Information state      ``info_state="full"``: perfect recall, the observation, then the
                       history as the player saw it (below); float32 ``(D + M * W,)``,
                       M = ``max_history``, 215,498 floats, 6-14 ms a call.
                       ``info_state="compact"``: the observation, then the last K decisions
                       as the player saw them, a few bits each ("Compact information state"
                       below); float32 ``(D + K * w,)``, K = ``history_window``, 13,578-14,730
                       floats, under 1 ms a call
Information string     the observation string, then ``history:`` and one token per entry
                       (``HistoryCodec.token``): ``deal +c3,17``, ``p1 PLAY PLAY_CARD 12``,
                       ``p0 PICK_RULE PICK_RULE ?``, ``p0 LOOKOUT LOOKOUT_CARD ~12``; it has
                       no length bound
Resampling             ``resample_from_infostate(player, sampler)`` re-deals what ``player``
                       cannot see (``FortState.resample_hidden``) from a generator seeded by
                       ``sampler``; OpenSpiel's IS-MCTS uses it
Bots                   OpenSpiel's Python bots (MCTS, IS-MCTS) play it; wrap them in
                       :class:`RestartableBot` for ``evaluate_bots`` (it calls ``restart_at``,
                       and seeds IS-MCTS's re-deals from the bot's own generator,
                       :func:`seed_resampler`: "Reproducible IS-MCTS" below)
Max game length        ``MAX_GAME_LENGTH`` decisions (random games here last 136-830); a bound
                       for tools that need one, not a rule of the game
=====================  =======================================================================

Information state
-----------------

The full one (``info_state="full"``, the default). What CFR-style algorithms need: two
histories a player can tell apart give that player different information states, and two it
cannot tell apart the same one. The tensor is the player's current observation (D floats, as
``observation_tensor``) followed by a history block
of ``max_history`` rows of W floats; row ``k`` is the ``k``-th entry of the game as the player
saw it (the deal, then every decision in order), rows past the last entry are zeros. One row
(``HistoryCodec.fields`` gives the offsets; W = 209 for the shipped card set of C = 68 cards):

=================  ==========  =============================================================
field              size        meaning
=================  ==========  =============================================================
``actor``          5           one-hot: who acted, as a seat relative to the player (0 the
                               player, 1..3 the rivals in turn order, as in the observation),
                               or the last slot for the deal
``kind``           26          one-hot ``DecisionKind`` decided (zeros for the deal)
``range``          29          one-hot action range (``fort_env.game.actions.RANGES``)
``index``          C           one-hot index within the range (a card id, a mode, a suit...);
                               zeros when the action is hidden from the player
``form``           2           ``hidden``: the player does not see which action of the range
                               it was (the deal's seed, a rival's made-up rule or draft
                               pick); ``suits``: it sees only the card's suits, and
                               ``index`` is the smallest card id with those suits
``revealed_cards`` C           cards the player sees after this entry and did not see before
                               it (its own draws, Park refills, a rival's cards turned face
                               up, a draft pack passed to it, its deal)
``revealed_rules`` 11          made-up rules likewise (the stack while it picks a rule)
=================  ==========  =============================================================

**Visibility** (``HistoryCodec._form``). What a seat *sees* is read off its own observation
(``CARD_SLICES``, ``RULE_SLICES``: the cards and made-up rules it shows one by one), so the
history can show nothing the observations do not. The actor sees its own action in full. Any
other seat sees an action in full when it names no card or rule (skip, mode, suit, resource,
pay, spend, convert, copy a rival's Pack, pick a perk, pass, stop or continue, Do-Over, Rough
Housing, DIY, recruit from the Park deck: public steps of the play, rulebook p.6-p.10), or names
a card or rule the seat saw before the action or sees after it (a card played, added from the
hand, followed with, trashed, recruited, recycled, tucked from the Park or a Yard: face up, or
leaving a face-up zone). Otherwise it is hidden: a made-up rule picked (R24: "privately (only
the chooser sees the stack while choosing)"), a card kept in the draft (R30: "each seeing only
the pack they hold"), except the suits that a rival's Lookout shows ("tucked under the board;
rivals see only its suits", ``constants.LOOKOUT``): a card tucked from the hand or the top of
the Park deck (R17: "taken unseen; it shows its suits") shows its suits, and a card added from
the Lookout (R8) its suits other than the coin and whether it has a coin (the play's suits
grow by them, and its coin is declared next). The engine has no chance node after the deal
(its draws are functions of the seed); what they show a seat is in ``revealed_cards``. Every
field is a function of the seat's observations before and after each entry, so a re-deal of
what the seat cannot see (``resample_from_infostate``, ``tests/test_openspiel.py``) leaves its
information state unchanged.

**Longer games.** A history of more than ``max_history`` entries has no tensor:
``information_state_tensor`` raises ``ValueError`` naming the parameter (dropping the oldest
entries would no longer be perfect recall). The default, 1024, covers every game seen: the
longest of 72,000 random games (2,000 per player count and setup, 20,000 more of 3 and 4
players) took 830 decisions, the median 326-428, and the built-in bots' games are shorter.
``max_history=MAX_GAME_LENGTH + 1`` covers every game the bound allows, at 209 floats an entry
(about 1M floats). The string has no bound.

**Resampling.** A state from ``resample_from_infostate(player, ...)`` keeps ``player``'s view of
the history exactly. The other seats' past private choices and draws are not known to
``player``, so none is invented: in the new state every other seat's history shows each entry
as a seat that is not its actor and sees only the public zones saw it, with the cards every
seat saw turned up (``Entry.known_to``).

Compact information state
-------------------------

For learning from tensors (NFSP, Deep CFR), where the full tensor (215,498 floats, about 1,400
of them non-zero) is too big and too slow: ``pyspiel.load_game("python_fort", {"info_state":
"compact"})``. The tensor is the player's observation (D floats, as ``observation_tensor``)
followed by ``history_window`` rows (K, default 576) of w floats: row ``k`` is the ``k``-th most
recent decision as the player saw it (row 0 the last one), rows past the first decision are
zeros (the deal is not a decision: what it showed is in the observation). One row
(``CompactCodec.fields``; w = ``num_players + 19`` for the shipped card set), each field a
function of the same ``Entry.forms`` as the full state's row:

==========  ===============  ===============================================================
field       size             meaning
==========  ===============  ===============================================================
``actor``   ``num_players``  one-hot: who decided, as a seat relative to the player (0 the
                             player, then the rivals in turn order)
``kind``    5                the ``DecisionKind`` decided, in binary (least significant bit
                             first)
``range``   5                the action's range (``fort_env.game.actions.RANGES``), in binary
``index``   7                the index within the range, in binary; zero when the action is
                             hidden from the player, the suit class's card when it shows
                             only suits
``form``    2                ``hidden``, ``suits``: as the full state's ``form``
==========  ===============  ===============================================================

**What it keeps.** Every action of the last K decisions as the player saw it, under the
visibility rules above, so it shows nothing the full state hides: a re-deal of what the seat
cannot see leaves it unchanged (``tests/test_openspiel_compact.py``). Within the window it is
perfect recall for actions: two histories whose last K decisions differ in an action as the
player saw it (its own actions always) give different tensors. It drops what the full state
also holds: decisions older than K, and each entry's ``revealed_cards`` and
``revealed_rules`` (what is face up now is in the observation). The information-state *string*
is the full one in both games (it has no bound), so methods keyed on strings (tabular CFR,
IS-MCTS) keep perfect recall.

**The window.** The default, 576, covers the 95th percentile of game length in every
configuration, so at least 95% of games (every 2-player game seen) fit in it whole. Decisions
until the end in 2,000 random games per configuration (the command below): 95th percentile
398 and 415 (2 players, basic and advanced), 504 and 527 (3), 528 and 561 (4); the longest
485-721. A smaller window is cheaper (``history_window=64``: 2,826 floats for 2 players)::

    python - <<'PY'
    import numpy as np
    from fort_env import FortGame
    for players in (2, 3, 4):
        for setup in ("basic", "advanced"):
            game, rng, lengths = FortGame(players, setup), np.random.default_rng(players), []
            for seed in range(2000):  # 2,000 random games: decisions until the end
                state, n = game.new_initial_state(seed=seed), 0
                while not state.is_terminal():
                    state.apply_action(int(rng.choice(state.legal_actions())))
                    n += 1
                lengths.append(n)
            print(players, setup, np.percentile(lengths, [50, 95, 99]), max(lengths))
    PY

**Size and speed.** D = 1,482, so 13,578 floats for 2 players, 14,154 for 3 and 14,730 for 4
(the full state: 215,498). The first ``information_state_tensor`` call on one position of each
of 300 random games per player count (advanced setup), on the 2-core development machine
shared with other jobs (load 3-4): median 0.70, 0.66 and 0.77 ms for 2, 3 and 4 players, 90th
percentile 0.9-2.7 ms (the full state: median 10.3, 9.9 and 8.6 ms; an earlier run at load 4-6:
0.72, 0.67 and 0.83 ms, the full state 6.4, 13.5 and 8.9 ms). Most of it is pyspiel turning the
tensor into a list of Python floats (about 45 ns a float); filling the tensor takes 0.1-0.25 ms
(each decision's rows are computed once, when it is applied: ``Entry.codes``). The command::

    python - <<'PY'
    import time, numpy as np, pyspiel
    import fort_env.envs.openspiel  # registers "python_fort"
    for players in (2, 3, 4):
        for info_state in ("compact", "full"):
            game = pyspiel.load_game("python_fort", {
                "players": players, "setup": "advanced", "info_state": info_state})
            rng, times = np.random.default_rng(players), []
            for deal in range(300):  # one position of each of 300 random games
                state = game.new_initial_state()
                state.apply_action(deal)
                for _ in range(rng.integers(1, 700)):
                    if not state.is_terminal():
                        state.apply_action(int(rng.choice(state.legal_actions())))
                t0 = time.perf_counter()
                state.information_state_tensor(int(rng.integers(players)))
                times.append(time.perf_counter() - t0)
            ms = np.percentile(times, [50, 90]) * 1e3
            print(players, info_state, game.information_state_tensor_size(), ms)
    PY

Reproducible IS-MCTS
--------------------

OpenSpiel's Python ``ISMCTSBot`` samples each world with ``state.resample_from_infostate(player,
pyspiel.UniformProbabilitySampler(0., 1.))``, a sampler seeded from entropy: two runs with the
same ``random_state`` search different worlds and may play differently. :func:`seed_resampler`
gives the bot a resampler that draws each re-deal's seed from the bot's own generator (its
``random_state``), so its play is a function of its seed; :class:`RestartableBot` does it for
the IS-MCTS bots it wraps. Two runs of ``evaluate_bots`` with the same seeds (the bots'
``random_state`` and ``evaluate_bots``' generator) then play the same game, action for action::

    bots = [
        RestartableBot(ismcts.ISMCTSBot(game, evaluator, 2.0, 100,
                                        random_state=np.random.RandomState(seed)))
        for seed in (1, 2)
    ]
    evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))

``resample_from_infostate`` takes a ``numpy.random.Generator`` or ``RandomState`` (one draw
seeds the re-deal) or a callable giving a float in [0, 1) (OpenSpiel's samplers, a
Generator's ``random``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from fort_env.core import FortGame, FortState
from fort_env.envs.openspiel_info import (  # the information states (re-exported)
    CARD_SLICES,
    FULL,
    GAME_NAME,
    HIDDEN,
    RULE_SLICES,
    SUITS,
    CompactCodec,
    Entry,
    FortCompactInfoStateObserver,
    FortInfoStateObserver,
    FortObserver,
    HistoryCodec,
    Seen,
    SeenHistory,
)
from fort_env.game.errors import ConfigError
from fort_env.game.rules.base import top_of_park_deck
from fort_env.views.text import state_to_string

__all__ = [
    "CARD_SLICES", "DEFAULT_HISTORY_WINDOW", "DEFAULT_MAX_HISTORY", "FULL", "GAME_NAME", "HIDDEN",
    "INFO_STATES", "MAX_GAME_LENGTH", "RULE_SLICES", "SUITS", "CompactCodec",
    "Entry", "FortCompactInfoStateObserver", "FortInfoStateObserver", "FortObserver",
    "HistoryCodec", "OpenSpielFortGame", "OpenSpielState", "RestartableBot", "Seen", "SeenHistory",
    "seed_resampler",
]  # fmt: skip

MAX_GAME_LENGTH = 5000
DEFAULT_DEALS = 65536
# Entries of the information state's history: the deal and every decision. The longest of
# 72,000 random games of every configuration took 830 decisions (module docstring).
DEFAULT_MAX_HISTORY = 1024
# The information states: "full" (perfect recall, max_history entries) or "compact" (the last
# history_window decisions, a few bits each). The default window covers the 95th percentile of
# random games' lengths in every configuration (561 decisions for 4 players, advanced; 2,000
# random games each, module docstring, "Compact information state").
INFO_STATES = ("full", "compact")
DEFAULT_HISTORY_WINDOW = 576
_DEFAULTS: dict[str, Any] = {
    "players": 2, "setup": "basic", "deals": DEFAULT_DEALS, "max_history": DEFAULT_MAX_HISTORY,
    "info_state": "full", "history_window": DEFAULT_HISTORY_WINDOW,
}  # fmt: skip
_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Fort",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def _positive_int(p: dict[str, Any], name: str) -> int:
    value = p[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a positive int, got {value!r}")
    return value


_GENERATORS = (np.random.Generator, np.random.RandomState)


def _redeal_seed(sampler: Any) -> int | None:
    """The seed of a re-deal drawn from ``sampler`` (``OpenSpielState.resample_from_infostate``):
    a Generator's or RandomState's next 63-bit integer, a callable's next float in [0, 1)
    scaled to 32 bits, or ``None`` (fresh entropy)."""
    if isinstance(sampler, np.random.Generator):
        return int(sampler.integers(2**63))
    if isinstance(sampler, np.random.RandomState):
        return int(sampler.randint(2**63, dtype=np.int64))
    if callable(sampler):
        return int(float(sampler()) * 2**32)
    return None


class OpenSpielFortGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game (parameters in the module docstring).

    ``info_state`` is ``"full"`` or ``"compact"``: which information state
    ``information_state_tensor`` gives (``codec`` or ``compact``).

    Raises:
        ConfigError: a bad player count, setup, number of deals, ``max_history``,
            ``info_state`` or ``history_window`` (a ``ValueError``, naming the parameter).
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        deals = _positive_int(p, "deals")
        max_history = _positive_int(p, "max_history")
        window = _positive_int(p, "history_window")
        if p["info_state"] not in INFO_STATES:
            raise ConfigError(f"info_state must be 'full' or 'compact', got {p['info_state']!r}")
        self.fort = FortGame(int(p["players"]), str(p["setup"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.fort.num_distinct_actions,
            max_chance_outcomes=deals,
            num_players=self.fort.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, p)
        self.deals = deals
        self.info_state: str = p["info_state"]
        self.codec = HistoryCodec(self.fort, max_history)
        self.compact = CompactCodec(self.fort, window)

    def new_initial_state(self) -> OpenSpielState:
        """The root: a chance node whose outcome is the deal's seed."""
        return OpenSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> FortObserver | FortInfoStateObserver | FortCompactInfoStateObserver:
        """The observer for observations (``perfect_recall=False``, or no type) or for
        information states (``perfect_recall=True``: the full or the compact one, as
        ``info_state`` says)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if self.info_state == "compact":
                return FortCompactInfoStateObserver(self.compact)
            return FortInfoStateObserver(self.codec)
        return FortObserver(self.fort.observation_size)


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A position: the root chance node, then a wrapped :class:`~fort_env.FortState`.

    ``seen_history`` is what each seat saw of the game so far (the information state's
    history, module docstring): one entry for the deal and one per decision.
    """

    def __init__(self, game: OpenSpielFortGame, fort: FortState | None = None) -> None:
        super().__init__(game)
        # Only the FortState and small values live on the state: pyspiel clones a Python
        # state by deep-copying its attributes, and FortState copies itself cheaply (sharing
        # its immutable FortGame), which a reference to the FortGame here would not do. The
        # seen history is immutable: clones share it (SeenHistory.__deepcopy__).
        self.deals = game.deals
        self.fort: FortState | None = fort
        self.seen_history = SeenHistory()

    @property
    def fort_game(self) -> FortGame:
        """The engine's game (``OpenSpielFortGame.fort``)."""
        return self.get_game().fort  # type: ignore[no-any-return]

    @property
    def codec(self) -> HistoryCodec:
        """The game's :class:`HistoryCodec` (``OpenSpielFortGame.codec``)."""
        return self.get_game().codec  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ pyspiel API
    def current_player(self) -> int:
        if self.fort is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.fort.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.fort.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        assert self.fort is not None and player >= 0
        return self.fort.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deals: ``[(seed, 1 / deals) for seed in range(deals)]``."""
        assert self.fort is None
        p = 1.0 / self.deals
        return [(k, p) for k in range(self.deals)]

    def _apply_action(self, action: int) -> None:
        codec = self.codec
        if self.fort is None:
            self.fort = self.fort_game.new_initial_state(seed=int(action))
            seen = codec.seen(self.fort)
            self.seen_history = self.seen_history.append(codec.deal_entry(seen), seen)
            return
        fort = self.fort
        actor, kind = fort.current_player(), int(fort.decision.kind)
        top = top_of_park_deck(fort) if codec.takes_park_deck_top(action) else -1
        before = self.seen_history.seen
        fort.apply_action(int(action))
        after = codec.seen(fort)
        if before is None:  # pragma: no cover - a state is dealt before it acts
            before = after
        entry = codec.action_entry(actor, kind, int(action), top, before, after)
        self.seen_history = self.seen_history.append(entry, after)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        assert self.fort is not None
        return self.fort.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.fort is not None and self.fort.is_terminal()

    def returns(self) -> list[float]:
        if self.fort is None:
            return [0.0] * self.fort_game.num_players
        return [float(r) for r in self.fort.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A state ``player_id`` cannot tell from this one (hidden cards and future shuffles
        re-dealt).

        The re-deal draws from a generator seeded by ``probability_sampler``: one draw from a
        ``numpy.random.Generator`` or ``RandomState`` (:func:`seed_resampler` passes the
        IS-MCTS bot's own), or one call of a callable giving a float in [0, 1) (OpenSpiel's
        ``UniformProbabilitySampler``, which is seeded from entropy; a Generator's
        ``random``); anything else: fresh entropy.

        ``player_id``'s information state (tensor and string, full or compact) is the same in
        both. The new state's history keeps only what ``player_id`` knows: its own view of
        every entry, and, for the other seats, the public view (module docstring,
        "Resampling")."""
        assert self.fort is not None, "no information state before the deal"
        rng = np.random.default_rng(_redeal_seed(probability_sampler))
        fort = self.fort.resample_hidden(player_id, rng)
        out = OpenSpielState(self.get_game(), fort)
        out.seen_history = self.seen_history.known_to(player_id, self.codec.seen(fort))
        return out

    def __str__(self) -> str:
        return "chance: the deal" if self.fort is None else state_to_string(self.fort)


def seed_resampler(bot: Any, rng: np.random.Generator | np.random.RandomState | None = None) -> Any:
    """Make OpenSpiel's Python ``ISMCTSBot`` re-deal its sampled worlds from ``rng``, by
    default its own generator (the ``random_state`` it was built with); returns ``bot``.

    Left alone, the bot samples each world with ``state.resample_from_infostate(player,
    pyspiel.UniformProbabilitySampler(0., 1.))``, a sampler seeded from entropy, so two runs
    with the same ``random_state`` search different worlds and may play differently. Seeded,
    each re-deal's seed is the next draw of ``rng``, so the bot's play is a function of its
    ``random_state`` (and of the states it is given)::

        bot = seed_resampler(ismcts.ISMCTSBot(game, evaluator, 2.0, 100,
                                              random_state=np.random.RandomState(7)))

    :class:`RestartableBot` does this for the bots it wraps.

    Raises:
        TypeError: ``bot`` has no ``set_resampler``, or no ``rng`` was given and it has no
            generator of its own (``_random_state``).
    """
    if not callable(getattr(bot, "set_resampler", None)):
        raise TypeError(f"{type(bot).__name__} has no set_resampler: not an ISMCTSBot")
    if rng is None:
        rng = getattr(bot, "_random_state", None)
        if not isinstance(rng, _GENERATORS):
            raise TypeError(f"{type(bot).__name__} has no generator (_random_state): pass rng")
    source = rng

    def resample(state: OpenSpielState, player: int) -> OpenSpielState:
        return state.resample_from_infostate(player, source)

    bot.set_resampler(resample)
    return bot


class RestartableBot(pyspiel.Bot):  # type: ignore[misc]
    """A bot that ``open_spiel.python.algorithms.evaluate_bots`` can run: it adds ``restart_at``
    to a bot that keeps no state between its decisions, and makes an IS-MCTS bot reproducible.

    ``evaluate_bots`` starts by calling ``bot.restart_at(state)``, which OpenSpiel's Python
    ``ISMCTSBot`` and ``MCTSBot`` do not implement ("RestartAt(state) not implemented"). They
    search afresh from each state they are given, so restarting them anywhere is
    ``restart()``: this wrapper says so and passes ``step``, ``inform_action`` and ``restart``
    through::

        bots = [
            RestartableBot(ismcts.ISMCTSBot(game, evaluator, 2.0, 100,
                                            random_state=np.random.RandomState(seed)))
            for seed in (1, 2)
        ]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)

    With ``seeded`` (the default) a wrapped bot that re-deals worlds (``ISMCTSBot``: it has
    ``set_resampler``) and has no resampler yet draws them from its own generator
    (:func:`seed_resampler`): two runs of ``evaluate_bots`` with the same seeds (the bots'
    ``random_state`` and ``evaluate_bots``' generator) play the same games.

    Do not wrap a bot that tracks the game (one that needs ``inform_action`` to follow it): its
    own ``restart_at`` is the one to implement.
    """

    def __init__(self, bot: Any, *, seeded: bool = True) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        if (
            seeded
            and callable(getattr(bot, "set_resampler", None))
            and getattr(bot, "_resampler_cb", None) is None
            and isinstance(getattr(bot, "_random_state", None), _GENERATORS)
        ):
            seed_resampler(bot)

    def step(self, state: pyspiel.State) -> int:
        return int(self.bot.step(state))

    def restart(self) -> None:
        self.bot.restart()

    def restart_at(self, state: pyspiel.State) -> None:
        self.bot.restart()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)


pyspiel.register_game(_GAME_TYPE, OpenSpielFortGame)
