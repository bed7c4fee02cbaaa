"""``fort-env play``: a person plays Fort in the terminal against bots.

The person's first decision shows the table from their seat
(``fort_env.views.text.state_to_string`` with ``viewer`` set: rivals' hands and Lookout cards
hidden) and their hand with the cards' texts; each later decision shows only the lines of it
that changed since (``t`` shows it all again, with the decision and its choices). Then what is
being decided, and the legal actions numbered. Cards, moves and decisions read in the
rulebook's English (``fort_env.views.words``: "Gather 1 toy for each crown you show", the
Victory Track); ``raw=True`` (``fort-env play --raw``) shows the card language and the action
names as code instead (``action_to_string``). At a Play decision, each card in hand that cannot
be played says why. They type a number; anything else (text, a number out of range, an empty
line) is refused with a message and asked again, never a crash. ``?`` or ``h`` lists the keys,
``q`` quits. A decision with a single legal action (e.g. a follow with no matching card, where
only "pass" is left) is shown and taken for them. The bots' moves are printed as they happen,
without what the person may not see (a rival's made-up rule choice, which card went into a
Lookout, a draft pick), and without internal steps (going on with an action used partially:
``words.is_internal``). At the end the score breakdown (rulebook p.11) and the winners are
shown.

``input_fn`` and ``output_fn`` are injectable, so the loop runs under test with scripted input.
The game's actions are kept (``PlayResult.actions``), so ``fort-env play --save GAME.json``
writes it as a record that ``fort-env replay`` reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from agents.arena.games import decision_info
from agents.base import Agent, LazyObservation
from fort_env import FortGame, FortState
from fort_env.game.constants import HAND, LOOKOUT, MADE_UP_RULES
from fort_env.game.decisions import DecisionKind
from fort_env.game.inputs import terminal_text
from fort_env.game.verb_table import MODES
from fort_env.views import words
from fort_env.views.text import SCORE_LABELS, card_label, state_to_string

__all__ = [
    "HELP", "HumanQuit", "PlayResult", "TableView", "describe_decision", "hand_text",
    "move_text", "play_human", "public_text", "resolve_opponents", "unplayable",
]  # fmt: skip


class HumanQuit(Exception):
    """The person typed ``q`` (or the input ended)."""


@dataclass
class PlayResult:
    """How a game with a person ended."""

    state: FortState
    human_seat: int
    winners: list[int]
    breakdown: list[dict[str, int]]
    quit: bool = False
    seed: int = 0  # the deal (the first player drawn from it)
    actions: list[int] = field(default_factory=list)  # every action of the game, in order
    players: list[str] = field(default_factory=list)  # who sat at each seat ("you" or a spec)


def resolve_opponents(opponents: Sequence[str], num_players: int) -> list[str]:
    """One spec per rival seat: a single spec is used for every rival; otherwise exactly
    ``num_players - 1`` specs.

    Raises:
        ValueError: the count does not fit.
    """
    specs = [s.strip() for s in opponents if s.strip()]
    if len(specs) == 1:
        return specs * (num_players - 1)
    if len(specs) != num_players - 1:
        raise ValueError(f"{rivals_needed(num_players, 'opponent')}, got {len(specs)}")
    return specs


def rivals_needed(num_players: int, noun: str) -> str:
    """How many specs a game of ``num_players`` takes for its rivals, in words: ``2 players
    need 1 opponent (one spec for every rival, or one per rival)``, ``3 players need 1 or 2
    opponents (...)``; ``noun`` is what a spec is called (``opponent``, ``bot``)."""
    rivals = num_players - 1
    count = f"1 {noun}" if rivals == 1 else f"1 or {rivals} {noun}s"
    return f"{num_players} players need {count} (one spec for every rival, or one per rival)"


def move_text(state: FortState, action: int, raw: bool = False, own: str = "your") -> str:
    """``action`` as the person reads it: in words (``words.action_words``; ``own``: "your"
    for the person's own choices, "their" for a rival's move), or with ``raw`` its code name
    (``action_to_string``)."""
    return state.action_to_string(action) if raw else words.action_words(state, action, own)


def public_text(state: FortState, action: int, raw: bool = False) -> str:
    """How a bot's action looks to the other players (no hidden information); ``raw``: the
    action's code name where it hides nothing."""
    game = state.game
    name, i = game.layout.decode(action)
    if name == "PICK_RULE":
        return "takes a made-up rule (face down)"
    if name == "DRAFT_CARD":
        return "keeps a card (face down)"
    if name == "LOOKOUT_PARK_DECK":
        return "tucks the top card of the Park deck into their Lookout"
    if name == "LOOKOUT_CARD":
        return f"tucks a card [{'/'.join(game.cards[i].suit_names)}] into their Lookout"
    if name == "ADD_CARD" and i in state.cards_in(LOOKOUT):  # a Lookout's face is hidden
        return f"adds a Lookout card [{'/'.join(game.cards[i].suit_names)}]"
    return move_text(state, action, raw, own="their")


def describe_decision(state: FortState, raw: bool = False) -> str:
    """What is being decided, the played card with its two actions, how it is being used and
    what is left to pay: in words (``fort_env.views.words``), or with ``raw`` in the code form
    (the decision kind's name, the card language)."""
    d = state.decision
    ctx = d.context
    if raw:
        parts = [f"Decision: {d.kind.name.lower().replace('_', ' ')}"]
    else:
        parts = [f"Decision: {words.decision_words(d.kind)}"]
    if "played_card" in ctx:
        card = state.game.cards[ctx["played_card"]]
        parts.append(f"played card: {card.name} [{'/'.join(card.suit_names)}]: "
                     f"{words.card_text(card, raw)}")  # fmt: skip
    if "mode" in ctx:
        mode = ctx["mode"] if raw else words.mode_words(MODES.index(ctx["mode"]))
        parts.append(f"{'mode' if raw else 'using'}: {mode}")
    if "side" in ctx:
        if raw:
            how = " (fully)" if ctx.get("full") else ""
            parts.append(f"resolving the {ctx['side']} action{how}")
        else:
            how = "fully" if ctx.get("full") else "partially: you may stop after any step"
            parts.append(f"now: the {ctx['side']} action, {how}")
    if "cost" in ctx:
        t, z, e = ctx["cost"]
        parts.append(f"left to pay: {t} toys, {z} pizza, {e} either" if raw else
                     f"left to pay: {t} toys, {z} pizza, {e} of either kind")  # fmt: skip
    return "\n".join(parts)


def hand_text(state: FortState, seat: int, raw: bool = False) -> str:
    """The seat's made-up rule and its hand, each card with its two actions (in words, or with
    ``raw`` in the card language)."""
    cards = state.game.cards
    held = state.made_up_rules_held(seat)
    rule = MADE_UP_RULES[int(held[0])] if len(held) else "none yet"
    lines = [f"Your made-up rule: {rule}", "Your cards in hand:"]
    for c in state.cards_in(HAND, seat):
        card = cards[int(c)]
        lines.append(f"  {card.name} [{'/'.join(card.suit_names)}]: {words.card_text(card, raw)}")
    return "\n".join(lines)


def unplayable(state: FortState, legal: Sequence[int]) -> list[str]:
    """At a Play decision: one line per card in the acting seat's hand that it cannot play,
    saying why. Every card in hand may be started; the exact mask leaves out a card none of
    whose actions can be used fully from here (a play must use one fully, rulebook p.6)."""
    if state.decision.kind != DecisionKind.PLAY:
        return []
    seat = state.current_player()
    offset = state.game.layout.PLAY_CARD
    allowed = set(legal)
    return [
        f"  (cannot play {card_label(state, int(c))}: neither of its actions can be used fully "
        "now, and a play must use one fully, rulebook p.6)"
        for c in state.cards_in(HAND, seat)
        if offset + int(c) not in allowed
    ]


class TableView:
    """The table from one seat, printed in full once, then only the lines that changed
    (:meth:`changes`): a decision costs a few lines instead of the whole table. ``raw``: the
    code form (``score``, the card language) instead of words."""

    def __init__(self, seat: int, raw: bool = False) -> None:
        self.seat = seat
        self.raw = raw
        self.shown: dict[str, str] = {}

    def _table(self, state: FortState) -> str:
        return state_to_string(state, viewer=self.seat, words=not self.raw)

    def lines(self, state: FortState) -> dict[str, str]:
        """The table (``state_to_string``) and the hand with its texts, keyed by what each
        line is about (``"Player 1"``, ``"Player 1 yard"``, ``"Park"``, ``"Your hand"``...)."""
        out: dict[str, str] = {}
        owner = ""
        for line in self._table(state).splitlines():
            if line.startswith("Player "):
                owner = f"Player {line.split()[1].rstrip(':')}"  # "Player 1"
                out[owner] = line
            elif line.startswith("  ") and owner:
                zone, _, rest = line.strip().partition(": ")
                if owner != f"Player {self.seat}" or zone != "hand":  # "Your hand" shows it
                    out[f"{owner} {zone}"] = f"{owner} {zone}: {rest}"
            else:
                out[line.partition(":")[0]] = line
        out["Your hand"] = hand_text(state, self.seat, self.raw)
        return out

    def full(self, state: FortState) -> str:
        """The whole table (as ``state_to_string`` prints it) and the hand; remembered."""
        self.shown = self.lines(state)
        return self._table(state) + "\n" + self.shown["Your hand"]

    def changes(self, state: FortState) -> str:
        """The lines that changed since the table was last shown (all of it the first time)."""
        if not self.shown:
            return self.full(state)
        now = self.lines(state)
        changed = [text for key, text in now.items() if self.shown.get(key) != text]
        self.shown = now
        return "\n".join(changed)


def _shown(output_fn: Callable[[str], None], text: str) -> None:
    """``output_fn(text)`` with the control characters of ``text`` (but its line breaks) as
    escapes (``fort_env.game.inputs.terminal_text``)."""
    output_fn(terminal_text(text, keep_newlines=True))


def _show_table(view: TableView, state: FortState, output_fn: Callable[[str], None],
                pending: Sequence[str] = ()) -> None:  # fmt: skip
    """``t``: the whole table, then the pending decision (``pending``: its lines)."""
    output_fn(view.full(state))
    for line in pending:
        output_fn(line)


HELP = (
    "Keys:",
    "  0, 1, 2...  take the choice with that number",
    "  t           show the whole table again, then the decision and its choices",
    "  ?, h        this list of keys",
    "  q           quit the game",
)
"""What ``?`` or ``h`` prints at a choice (``t`` only where a table is there to show)."""


def ask(legal: Sequence[int], labels: Sequence[str], input_fn: Callable[[str], str],
        output_fn: Callable[[str], None],
        show_table: Callable[[], None] | None = None) -> int:  # fmt: skip
    """Show the numbered actions and read a valid choice (asks again on bad input).

    ``show_table``: what ``t`` prints (the whole table and the decision), if given; the
    choices are listed again after it. ``?`` or ``h`` lists the keys (:data:`HELP`).

    Raises:
        HumanQuit: ``q``/``quit`` typed, or the input ended (EOF).
    """

    def choices() -> None:
        for k, label in enumerate(labels):
            output_fn(f"  [{k}] {label}")

    choices()
    table = ", t for the table" if show_table is not None else ""
    while True:
        try:
            raw = input_fn(f"Your choice (0-{len(legal) - 1}{table}, ? for help, q to quit): ")
        except (EOFError, KeyboardInterrupt) as exc:
            raise HumanQuit from exc
        text = raw.strip().lower()
        if text in ("q", "quit", "exit"):
            raise HumanQuit
        if text in ("?", "h", "help"):
            for line in HELP:
                if show_table is not None or not line.lstrip().startswith("t "):
                    output_fn(line)
            continue
        if show_table is not None and text in ("t", "table"):
            show_table()
            choices()
            continue
        if not text.isdigit():
            output_fn(f"Please type a number from 0 to {len(legal) - 1}.")
            continue
        k = int(text)
        if not 0 <= k < len(legal):
            output_fn(f"{k} is not one of the choices: type a number from 0 to {len(legal) - 1}.")
            continue
        return legal[k]


def play_human(
    num_players: int,
    opponents: Sequence[str],
    seed: int = 0,
    human_seat: int = 0,
    setup: str = "basic",
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
    agents: Sequence[Agent] | None = None,
    raw: bool = False,
) -> PlayResult:
    """Play one game with a person at ``human_seat`` and bots (``opponents`` specs) elsewhere.

    Args:
        num_players: 2, 3 or 4.
        opponents: agent specs (one for every rival, or one spec for all).
        seed: the deal (the first player is drawn from it, rulebook p.2).
        human_seat: the person's seat.
        input_fn, output_fn: how to read a line and print text (injectable for tests).
        agents: ready-made rival agents (overrides ``opponents``).
        raw: show the card language and the action names as code (``--raw``), not words.

    Raises:
        ValueError: a bad seat or opponent list.
    """
    from agents import make

    if not 0 <= human_seat < num_players:
        raise ValueError(f"seat must be in [0, {num_players}), got {human_seat}")
    # every line shown goes through terminal_text: a control character in a bot's or a card's
    # name is shown as its escape (\x1b), never acted on by the terminal
    output_fn = partial(_shown, output_fn)
    game = FortGame(num_players, setup)
    if agents is None:
        specs = resolve_opponents(opponents, num_players)
        agents = [make(spec, seed=seed * 10 + k + 1) for k, spec in enumerate(specs)]
    bots: dict[int, Agent] = {}
    rivals = iter(agents)
    for seat in range(num_players):
        if seat != human_seat:
            bots[seat] = next(rivals)
    state = game.new_initial_state(seed=seed)
    output_fn(f"Fort, {num_players} players. You are player {human_seat}; "
              f"player {state.current_player()} starts.")  # fmt: skip
    for seat, bot in bots.items():
        output_fn(f"  player {seat}: {terminal_text(bot.name)}")
    output_fn("The table is shown once; then each decision shows what changed (t: all of it; "
              "?: the keys).")  # fmt: skip
    view = TableView(human_seat, raw)
    actions: list[int] = []
    quit_ = False
    try:
        while not state.is_terminal():
            seat = state.current_player()
            if seat == human_seat:
                legal = state.legal_actions()
                if len(legal) == 1 and not raw and words.is_internal(state, legal[0]):
                    action = legal[0]  # an internal step, taken without a word
                    state.apply_action(action)
                    actions.append(int(action))
                    continue
                output_fn("")
                changed = view.changes(state)
                if changed:
                    output_fn(changed)
                pending = [describe_decision(state, raw)]
                if len(legal) == 1:
                    action = legal[0]
                    output_fn(pending[0])
                    output_fn(f"  (only one choice: {move_text(state, action, raw)})")
                else:
                    pending += unplayable(state, legal)
                    for line in pending:
                        output_fn(line)
                    labels = [move_text(state, a, raw) for a in legal]
                    show = partial(_show_table, view, state, output_fn, pending)
                    action = ask(legal, labels, input_fn, output_fn, show)
            else:
                info = decision_info(state, seat)
                obs = LazyObservation(
                    partial(state.observation_tensor, seat), info["action_mask"].copy
                )
                action = int(bots[seat].act(obs, info))
                if raw or not words.is_internal(state, action):  # not a move of theirs
                    output_fn(f"player {seat}: {public_text(state, action, raw)}")
            state.apply_action(action)
            actions.append(int(action))
    except HumanQuit:
        quit_ = True
        output_fn("You left the game.")
    breakdown = state.score_breakdown()
    winners = state.winners() if state.is_terminal() else []
    output_fn("")
    output_fn(final_table(breakdown, winners, human_seat))
    players = ["you" if seat == human_seat else str(bots[seat].name) for seat in range(num_players)]
    return PlayResult(state, human_seat, list(winners), breakdown, quit_, seed, actions, players)


FINAL_COLUMNS = ("track", "fort_level", "made_up_rule", "macaroni", "total", "level")


def final_table(breakdown: list[dict[str, int]], winners: Sequence[int], human_seat: int) -> str:
    """The score breakdown as text (rulebook p.11: the Victory Track, the Fort Level's points,
    the made-up rule, the sculpture; the Fort Level itself last, the tie-break), each column
    headed by its words (``fort_env.views.text.SCORE_LABELS``)."""
    cols = [c for c in FINAL_COLUMNS if c in breakdown[0]] if breakdown else []
    widths = [max(6, len(SCORE_LABELS.get(c, c))) for c in cols]
    heads = " ".join(f"{SCORE_LABELS.get(c, c):>{w}}" for c, w in zip(cols, widths, strict=True))
    lines = [f"{'player':<12}" + heads]
    for p, row in enumerate(breakdown):
        who = f"{p}{' (you)' if p == human_seat else ''}"
        cells = " ".join(f"{row[c]:>{w}}" for c, w in zip(cols, widths, strict=True))
        lines.append(f"{who:<12}" + cells)
    if winners:
        names = ", ".join("you" if w == human_seat else f"player {w}" for w in winners)
        lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {names}")
    else:
        lines.append("The game was not finished.")
    return "\n".join(lines)
