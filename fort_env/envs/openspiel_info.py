"""The OpenSpiel bridge's information states (``fort_env.envs.openspiel``, whose module docstring
is the spec): what each seat has seen of the game (:class:`Seen`, :class:`Entry`,
:class:`SeenHistory`), the full perfect-recall encoding (:class:`HistoryCodec`), the compact one
(:class:`CompactCodec`, ``info_state=compact``) and the observers OpenSpiel asks for.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.actions import RANGES
from fort_env.game.constants import COIN, MADE_UP_RULES, MAX_PLAYERS
from fort_env.game.decisions import DecisionKind
from fort_env.views.hidden import suit_class
from fort_env.views.observation import observation_layout
from fort_env.views.text import state_to_string

GAME_NAME = "python_fort"  # the name pyspiel.load_game takes
# An ``fort_env.envs.openspiel.OpenSpielState`` (this module sits below it: no import back)
OpenSpielState = Any

# ---------------------------------------------------------------------- the information state
# The observation's slices that show cards one by one (fort_env/views/observation.py): a seat
# *sees* a card while one of them shows it. "played_card" repeats a card of "in_play" or
# "trash". Rivals' hands, decks, draft packs and kept cards, the Park deck and rivals' Lookouts
# (suits only) have no such slice.
CARD_SLICES = (
    "my_hand", "my_deck", "my_discard", "my_yard", "my_lookout", "my_draft_pack",
    "my_draft_kept", "in_play", "followed", "park", "trash", "rival_yard", "rival_discard",
)  # fmt: skip
# ... and the made-up rules one by one: my own, and the stack while I choose from it.
RULE_SLICES = ("my_made_up_rule", "rule_stack")

# How an entry shows its action to an observer (the "form" field).
FULL, HIDDEN, SUITS = 0, 1, 2
_CHANCE_SLOT = MAX_PLAYERS  # the "actor" field's last slot: the deal
_CARD_RANGES = frozenset(name for name, size in RANGES if size == "C")
_RANGE_POS = {name: k for k, (name, _) in enumerate(RANGES)}
_RULES = len(MADE_UP_RULES)

Form = tuple[int, int, int]  # (range position or -1, index or -1, FULL / HIDDEN / SUITS)


class Seen:
    """What every seat sees at one position: ``cards`` bool ``(num_players, num_cards)`` and
    ``rules`` bool ``(num_players, 11)``, read off each seat's observation (``CARD_SLICES``,
    ``RULE_SLICES``). Immutable."""

    __slots__ = ("cards", "rules")

    def __init__(self, cards: np.ndarray, rules: np.ndarray) -> None:
        cards.flags.writeable = False
        rules.flags.writeable = False
        self.cards = cards
        self.rules = rules


class Entry:
    """One entry of the history (the deal, or one decision), as every seat saw it.

    ``actor`` (-1 for the deal), ``kind`` (the ``DecisionKind`` decided, -1 for the deal);
    per seat: ``forms[q]`` (the action as seat ``q`` saw it: ``(range, index, form)``),
    ``reveals[q]`` (cards ``q`` sees after this entry and did not see before, ascending),
    ``rule_reveals[q]`` (made-up rules likewise); ``outsider`` (the action as a seat that is
    not its actor and sees only public zones saw it) and ``public`` (cards every seat sees
    after it and not every seat saw before). For a decision, ``codes[q]`` is its row of the
    compact information state for seat ``q`` (:class:`CompactCodec`) and ``outsider_code``
    that code for ``outsider`` without the actor's bit (``HistoryCodec.action_entry`` gives
    both; the deal has none). Immutable; rows and tokens are cached.
    """

    __slots__ = (
        "_known", "_rows", "_tokens", "actor", "codes", "forms", "kind", "outsider",
        "outsider_code", "public", "reveals", "rule_reveals",
    )  # fmt: skip

    def __init__(
        self,
        actor: int,
        kind: int,
        forms: tuple[Form, ...],
        reveals: tuple[tuple[int, ...], ...],
        rule_reveals: tuple[tuple[int, ...], ...],
        outsider: Form,
        public: tuple[int, ...],
        *,
        codes: tuple[int, ...] = (),
        outsider_code: int = 0,
    ) -> None:
        self.actor, self.kind, self.forms = actor, kind, forms
        self.reveals, self.rule_reveals = reveals, rule_reveals
        self.outsider, self.public = outsider, public
        self.codes, self.outsider_code = codes, outsider_code
        self._rows: dict[int, np.ndarray] = {}
        self._known: dict[int, Entry] = {}
        self._tokens: dict[int, str] = {}

    def known_to(self, player: int) -> Entry:
        """This entry as far as ``player`` knows it: its own view, and the outsider's view
        and the public reveals for every other seat (``OpenSpielState.resample_from_infostate``)."""
        known = self._known.get(player)
        if known is None:
            known = self._known[player] = self._known_to(player)
        return known

    def _known_to(self, player: int) -> Entry:
        n = len(self.forms)
        codes = self.codes
        if codes:
            outsider = self.outsider_code
            codes = tuple(
                codes[q] if q == player else (1 << ((self.actor - q) % n)) | outsider
                for q in range(n)
            )
        return Entry(
            self.actor,
            self.kind,
            tuple(self.forms[q] if q == player else self.outsider for q in range(n)),
            tuple(self.reveals[q] if q == player else self.public for q in range(n)),
            tuple(self.rule_reveals[q] if q == player else () for q in range(n)),
            self.outsider,
            self.public,
            codes=codes,
            outsider_code=self.outsider_code,
        )


class SeenHistory:
    """The entries so far and what every seat sees now (``seen``; ``None`` before the deal).
    Immutable, so clones of a state share it (``__deepcopy__`` returns it)."""

    __slots__ = ("entries", "seen")

    def __init__(self, entries: tuple[Entry, ...] = (), seen: Seen | None = None) -> None:
        self.entries = entries
        self.seen = seen

    def __deepcopy__(self, memo: dict[int, Any]) -> SeenHistory:
        return self

    def __len__(self) -> int:
        return len(self.entries)

    def append(self, entry: Entry, seen: Seen) -> SeenHistory:
        return SeenHistory((*self.entries, entry), seen)

    def known_to(self, player: int, seen: Seen) -> SeenHistory:
        """The history as far as ``player`` knows it (:meth:`Entry.known_to`), with ``seen``
        (the re-dealt position's)."""
        return SeenHistory(tuple(e.known_to(player) for e in self.entries), seen)


class HistoryCodec:
    """The information state of one game's seats: the history entries' visibility rules, the
    fixed-size tensor layout and the text (module docstring, "Information state").

    Attributes:
        observation_size: D, the observation's length.
        max_history: M, the most entries the tensor holds.
        fields: ``{name: (offset, size)}`` of one entry's row, in the row's order.
        width: W, the length of one entry's row.
        size: ``D + M * W``, the information-state tensor's length.
        code_fields: ``{name: (offset, size)}`` of a decision's row of the compact information
            state (``Entry.codes``, :class:`CompactCodec`).
    """

    def __init__(self, fort: FortGame, max_history: int) -> None:
        self.num_players = fort.num_players
        self.num_cards = c = fort.num_cards
        self.max_history = max_history
        lay = fort.layout
        self._decode = [lay.decode(a) for a in range(lay.num_actions)]
        # What a rival sees of a card that only shows its suits (fort_env/views/hidden.py):
        # tucked into a Lookout, the card's suits (the Lookout's suit counts grow by them);
        # added from a Lookout, its suits other than the coin (the play's suits grow by them)
        # and whether it shows a coin (its suit is declared next). Each class is named by its
        # smallest card id.
        self.tuck_class = suit_class(fort)
        counts = np.asarray(fort.suit_counts).copy()
        counts[:, COIN] = np.minimum(counts[:, COIN], 1)
        first: dict[bytes, int] = {}
        self.add_class = np.array([first.setdefault(counts[k].tobytes(), k) for k in range(c)])
        obs = observation_layout(fort.num_players, fort)
        self.observation_size = obs.size
        self._card_idx = np.concatenate(
            [np.arange(obs[s].offset, obs[s].offset + obs[s].size) for s in CARD_SLICES]
        )
        self._rule_idx = np.concatenate(
            [np.arange(obs[s].offset, obs[s].offset + obs[s].size) for s in RULE_SLICES]
        )
        sizes = (
            ("actor", MAX_PLAYERS + 1),
            ("kind", len(DecisionKind)),
            ("range", len(RANGES)),
            ("index", max(lay.sizes.values())),
            ("form", 2),
            ("revealed_cards", c),
            ("revealed_rules", _RULES),
        )
        self.fields: dict[str, tuple[int, int]] = {}
        offset = 0
        for name, size in sizes:
            self.fields[name] = (offset, size)
            offset += size
        self.width = offset
        self.size = self.observation_size + max_history * self.width
        # The compact rows' bits (CompactCodec): every field but the actor's, which comes
        # first (num_players bits), so these offsets are above it.
        self.code_fields = _code_fields(fort)
        self._code_at = {name: off for name, (off, _) in self.code_fields.items()}

    # ------------------------------------------------------------------ recording
    def takes_park_deck_top(self, action: int) -> bool:
        """Whether ``action`` tucks the Park deck's top card (Bribe, R17)."""
        return self._decode[action][0] == "LOOKOUT_PARK_DECK"

    def seen(self, fort: FortState) -> Seen:
        """What every seat sees at ``fort``, from each seat's observation."""
        n, c = self.num_players, self.num_cards
        cards = np.zeros((n, c), dtype=bool)
        rules = np.zeros((n, _RULES), dtype=bool)
        for q in range(n):
            obs = fort.observation_tensor(q)
            cards[q] = obs[self._card_idx].reshape(-1, c).any(axis=0)
            rules[q] = obs[self._rule_idx].reshape(-1, _RULES).any(axis=0)
        return Seen(cards, rules)

    def deal_entry(self, after: Seen) -> Entry:
        """The deal: its seed is hidden from every seat; each sees the cards it is dealt."""
        n = self.num_players
        chance: Form = (-1, -1, HIDDEN)
        every = after.cards.all(axis=0)
        return Entry(
            -1,
            -1,
            (chance,) * n,
            tuple(tuple(np.flatnonzero(after.cards[q]).tolist()) for q in range(n)),
            tuple(tuple(np.flatnonzero(after.rules[q]).tolist()) for q in range(n)),
            chance,
            tuple(np.flatnonzero(every).tolist()),
        )

    def action_entry(
        self, actor: int, kind: int, action: int, top: int, before: Seen, after: Seen
    ) -> Entry:
        """Seat ``actor`` took ``action`` at a decision of ``kind``, going from ``before`` to
        ``after``; ``top`` is the Park deck's top card before it (-1 if empty)."""
        n = self.num_players
        name, i = self._decode[action]
        cards = before.cards | after.cards  # a seat saw the card before or sees it after
        rules = before.rules | after.rules
        forms = tuple(
            (_RANGE_POS[name], i, FULL)
            if q == actor
            else self._form(name, i, top, cards[q], rules[q])
            for q in range(n)
        )
        outsider = self._form(name, i, top, cards.all(axis=0), rules.all(axis=0))
        new_cards = after.cards & ~before.cards
        new_rules = after.rules & ~before.rules
        public = after.cards.all(axis=0) & ~before.cards.all(axis=0)
        codes = tuple((1 << ((actor - q) % n)) | self.form_code(kind, forms[q]) for q in range(n))
        return Entry(
            actor,
            kind,
            forms,
            tuple(tuple(np.flatnonzero(new_cards[q]).tolist()) for q in range(n)),
            tuple(tuple(np.flatnonzero(new_rules[q]).tolist()) for q in range(n)),
            outsider,
            tuple(np.flatnonzero(public).tolist()),
            codes=codes,
            outsider_code=self.form_code(kind, outsider),
        )

    def form_code(self, kind: int, form: Form) -> int:
        """The bits of a compact row (``code_fields``) for a decision of ``kind`` whose action
        a seat saw as ``form``: the kind, the range, the index unless the action is hidden,
        and the form; the actor's bit is the caller's."""
        at = self._code_at
        r, i, shown = form
        code = (kind << at["kind"]) | (r << at["range"])
        if shown != HIDDEN:
            code |= i << at["index"]
        if shown != FULL:
            code |= 1 << (at["form"] + shown - 1)
        return code

    def _form(self, name: str, i: int, top: int, cards: np.ndarray, rules: np.ndarray) -> Form:
        """How a seat that is not the actor saw action ``(name, i)``: in full when it names a
        card (or made-up rule) the seat saw before or sees after it, else hidden, except the
        suits that a Lookout shows (module docstring, "Visibility")."""
        r = _RANGE_POS[name]
        if name in _CARD_RANGES:
            if cards[i]:
                return (r, i, FULL)
            if name == "LOOKOUT_CARD":
                return (r, int(self.tuck_class[i]), SUITS)
            if name == "ADD_CARD":
                return (r, int(self.add_class[i]), SUITS)
            return (r, -1, HIDDEN)
        if name == "PICK_RULE":
            return (r, i, FULL) if rules[i] else (r, -1, HIDDEN)
        if name == "LOOKOUT_PARK_DECK" and not cards[top]:
            return (r, int(self.tuck_class[top]), SUITS)
        return (r, i, FULL)

    # ------------------------------------------------------------------ reading
    def row(self, entry: Entry, player: int) -> np.ndarray:
        """The offsets of the ones in ``entry``'s row for ``player``: int64, ascending."""
        cached = entry._rows.get(player)
        if cached is not None:
            return cached
        f = self.fields
        slot = _CHANCE_SLOT if entry.actor < 0 else (entry.actor - player) % self.num_players
        ones = [f["actor"][0] + slot]
        if entry.kind >= 0:
            ones.append(f["kind"][0] + entry.kind)
        r, i, form = entry.forms[player]
        if r >= 0:
            ones.append(f["range"][0] + r)
        if form != HIDDEN:
            ones.append(f["index"][0] + i)
        if form != FULL:
            ones.append(f["form"][0] + form - 1)
        ones += [f["revealed_cards"][0] + k for k in entry.reveals[player]]
        ones += [f["revealed_rules"][0] + k for k in entry.rule_reveals[player]]
        out = np.array(ones, dtype=np.int64)
        out.flags.writeable = False
        entry._rows[player] = out
        return out

    def history_indices(self, history: SeenHistory, player: int) -> np.ndarray:
        """Where the ones of ``player``'s history lie in the history block (entry ``k``'s row
        at ``k * width``).

        Raises:
            ValueError: the history has more than ``max_history`` entries.
        """
        if len(history) > self.max_history:
            raise ValueError(
                f"the history has {len(history)} entries, more than max_history="
                f"{self.max_history}: load the game with a larger max_history "
                f"(pyspiel.load_game({GAME_NAME!r}, {{'max_history': ...}}))"
            )
        if not history.entries:
            return np.zeros(0, dtype=np.int64)
        w = self.width
        return np.concatenate([k * w + self.row(e, player) for k, e in enumerate(history.entries)])

    def token(self, entry: Entry, player: int) -> str:
        """``entry`` as ``player`` saw it, as text: ``deal``, ``p1 PLAY PLAY_CARD 12``,
        ``p1 PICK_RULE PICK_RULE ?``, ``p1 LOOKOUT LOOKOUT_CARD ~12`` (a card with the suits of
        card 12), then ``+c`` the cards and ``+r`` the made-up rules it revealed."""
        cached = entry._tokens.get(player)
        if cached is None:
            cached = entry._tokens[player] = self._token(entry, player)
        return cached

    def _token(self, entry: Entry, player: int) -> str:
        if entry.actor < 0:
            text = "deal"
        else:
            r, i, form = entry.forms[player]
            index = str(i) if form == FULL else ("?" if form == HIDDEN else f"~{i}")
            text = f"p{entry.actor} {DecisionKind(entry.kind).name} {RANGES[r][0]} {index}"
        if entry.reveals[player]:
            text += " +c" + ",".join(map(str, entry.reveals[player]))
        if entry.rule_reveals[player]:
            text += " +r" + ",".join(map(str, entry.rule_reveals[player]))
        return text


def _bits(count: int) -> int:
    """The bits that write every value below ``count``."""
    return max(1, (count - 1).bit_length())


def _code_fields(fort: FortGame) -> dict[str, tuple[int, int]]:
    """``{name: (offset, size)}`` of a compact row (:class:`CompactCodec`), in the row's
    order: the actor's one-hot seat (``num_players`` bits), then ``kind``, ``range`` and
    ``index`` in unsigned binary (least significant bit first) and ``form`` (``hidden``,
    ``suits``)."""
    sizes = (
        ("actor", fort.num_players),
        ("kind", _bits(len(DecisionKind))),
        ("range", _bits(len(RANGES))),
        ("index", _bits(max(fort.layout.sizes.values()))),
        ("form", 2),
    )
    fields: dict[str, tuple[int, int]] = {}
    offset = 0
    for name, size in sizes:
        fields[name] = (offset, size)
        offset += size
    return fields


class CompactCodec:
    """The compact information state: the observation, then the last ``window`` decisions as
    the player saw them, most recent first, each row a few bits (module docstring, "Compact
    information state").

    A row is the bits of one int, the decision's *code* for the player (``Entry.codes``): bit
    ``k`` of the code is float ``k`` of the row, and ``fields`` says which bits are which.

    Attributes:
        observation_size: D, the observation's length.
        window: K, the decisions the tensor holds.
        fields: ``{name: (offset, size)}`` of one row, in the row's order: ``actor`` (one-hot
            seat relative to the player, as in the observation), ``kind``, ``range``,
            ``index`` (unsigned binary, least significant bit first; zero when the action is
            hidden from the player), ``form`` (``hidden``, ``suits``).
        width: w, the length of one row (``num_players + 19`` for the shipped cards).
        size: ``D + K * w``, the tensor's length.
    """

    def __init__(self, fort: FortGame, window: int) -> None:
        self.num_players = fort.num_players
        self.window = window
        self.observation_size = fort.observation_size
        self.fields = _code_fields(fort)
        self.width = sum(size for _, size in self.fields.values())
        self.size = self.observation_size + window * self.width
        self._shifts = np.arange(self.width, dtype=np.int64)

    def codes(self, history: SeenHistory, player: int) -> np.ndarray:
        """The codes of the last ``window`` decisions of ``history`` for ``player``, most
        recent first: int64, at most ``window`` of them (the deal is not a decision)."""
        entries = history.entries
        start = max(1, len(entries) - self.window)
        window = entries[start:]
        return np.fromiter(
            (e.codes[player] for e in reversed(window)), dtype=np.int64, count=len(window)
        )

    def rows(self, codes: np.ndarray) -> np.ndarray:
        """The rows of ``codes``: uint8 ``(len(codes), width)``, bit ``k`` in column ``k``."""
        return ((codes[:, None] >> self._shifts) & 1).astype(np.uint8)


def _observation_string(state: OpenSpielState, player: int) -> str:
    """``player``'s observation as text (``FortObserver.string_from``)."""
    if state.fort is None:
        return f"p{player} before the deal"
    fort = state.fort
    d = fort.decision
    digest = blake2b(fort.observation_tensor(player).tobytes(), digest_size=8).hexdigest()
    return (
        f"p{player}\n{state_to_string(fort, viewer=player)}\n"
        f"decision: {d.kind.name} of player {d.player} {d.context}\nview: {digest}"
    )


class FortObserver:
    """OpenSpiel's Python observer protocol (``tensor``, ``dict``, ``set_from``,
    ``string_from``) for observations (``perfect_recall=False``).

    ``tensor``: float32 ``(D,)`` (``FortState.observation_tensor``); all zeros at the root.
    """

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        if state.fort is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.fort.observation_tensor(player)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return _observation_string(state, player)


class FortInfoStateObserver:
    """The observer for information states (``perfect_recall=True``): the observation, then
    the history as ``player`` saw it (module docstring, "Information state").

    ``tensor``: float32 ``(D + M * W,)`` (``HistoryCodec.size``); ``dict``:
    ``"observation"`` ``(D,)`` and ``"history"`` ``(M, W)``, views of it.

    Raises:
        ValueError: from ``set_from``, a history longer than ``max_history`` entries.
    """

    def __init__(self, codec: HistoryCodec) -> None:
        self.codec = codec
        self.tensor = np.zeros(codec.size, np.float32)
        d = codec.observation_size
        self.dict = {
            "observation": self.tensor[:d],
            "history": self.tensor[d:].reshape(codec.max_history, codec.width),
        }

    def set_from(self, state: OpenSpielState, player: int) -> None:
        ones = self.codec.history_indices(state.seen_history, player)
        self.tensor.fill(0.0)
        d = self.codec.observation_size
        if state.fort is not None:
            self.tensor[:d] = state.fort.observation_tensor(player)
        self.tensor[d + ones] = 1.0

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return _information_state_string(state, player)


class FortCompactInfoStateObserver:
    """The observer for compact information states (``perfect_recall=True`` in a game loaded
    with ``info_state="compact"``): the observation, then the last ``history_window``
    decisions as ``player`` saw them, most recent first (module docstring, "Compact
    information state").

    ``tensor``: float32 ``(D + K * w,)`` (``CompactCodec.size``); ``dict``: ``"observation"``
    ``(D,)`` and ``"history"`` ``(K, w)``, views of it. The string is the full information
    state's (it has no bound).
    """

    def __init__(self, codec: CompactCodec) -> None:
        self.codec = codec
        self.tensor = np.zeros(codec.size, np.float32)
        d = codec.observation_size
        self.dict = {
            "observation": self.tensor[:d],
            "history": self.tensor[d:].reshape(codec.window, codec.width),
        }

    def set_from(self, state: OpenSpielState, player: int) -> None:
        codes = self.codec.codes(state.seen_history, player)
        self.tensor.fill(0.0)
        if state.fort is not None:
            self.dict["observation"][:] = state.fort.observation_tensor(player)
        self.dict["history"][: len(codes)] = self.codec.rows(codes)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return _information_state_string(state, player)


def _information_state_string(state: OpenSpielState, player: int) -> str:
    """The observation string, then ``history:`` and every entry's token (module docstring)."""
    codec = state.codec
    history = "; ".join(codec.token(e, player) for e in state.seen_history.entries)
    return f"{_observation_string(state, player)}\nhistory: {history}"
