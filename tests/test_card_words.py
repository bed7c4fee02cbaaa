"""Cards in words (``fort_env.views.words``): every action of the card language reads as the
rulebook's English, not as code (rulebook pp.12-14)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fort_env import FortGame
from fort_env.game import verb_table
from fort_env.game.cards import (
    MULTS,
    VERBS,
    all_steps,
    load_card_set,
    multipliers,
    parse_action,
)
from fort_env.game.constants import SUITS
from fort_env.game.decisions import DecisionKind
from fort_env.tools.board import card_texts
from fort_env.views.words import (
    BLANK,
    DECISION_WORDS,
    MULT_WORDS,
    action_words,
    card_words,
    decision_words,
    effect_words,
    text_words,
)

# the card language's own words: a verb, a multiplier or an argument as written in it
CODE_WORDS = sorted({*VERBS, *MULTS, "pizza)", "toys)", "any)"} - {"const"}, key=len)


def code_tokens(text: str) -> list[str]:
    """What in ``text`` is the card language rather than English: brackets, underscores,
    arrows, an ``x`` between words, a verb or multiplier name of the language."""
    found = [t for t in ("(", ")", "_", "->", "[", "]", "{", "}") if t in text]
    found += re.findall(r"\w x \w", text)
    found += [w for w in CODE_WORDS if "_" in w and w in text]
    return found


def test_every_shipped_card_reads_without_code() -> None:
    cards = load_card_set().cards
    seen = set()
    for card in cards:
        public, private = card_words(card)
        for side, text, effect in (("public", public, card.public), ("private", private,
                                                                      card.private)):  # fmt: skip
            assert not code_tokens(text), (card.name, side, effect, text)
            assert text[0].isupper(), (card.name, side, text)
            assert text == BLANK or len(text.split()) >= 2
            seen.add(effect)
    assert len(seen) > 40  # every shipped action text was rendered


@pytest.mark.parametrize(
    ("name", "side", "words"),
    [
        ("Ghost", "public", "Gather 1 pizza or 1 toy for each crown you show, all of one kind"),
        ("Noodle Twins", "private", "Score 1 point for each book you show, then trash this card"),
        ("Einstein", "private", "Score 1 point for each resource in your Pack"),
        ("Einstein", "public", "Pack 1 resource from your Stuff for each book you show"),
        ("Dot", "public", "Advance Fort, paying 1 resource less"),
        ("Bug", "public", "Gather 1 pizza for each shovel you show"),
        ("Bug", "private", "Score 1 point for each Fort Level you have"),
        ("Lefty", "private", "Advance Fort, then score 2 points"),
        ("Munch", "private", "Spend 1 pizza from your Stuff or Pack, then score 3 points"),
        ("Bud", "public", "Gather 2 pizza or 2 toys"),
        ("Bud", "private", "Trash 1 card from your hand or discard pile"),
        ("Blitz", "public", "For each squirtgun you show: recruit 1 card, then gather 1 toy"),
        ("The Scrappers", "public",
         "Trash 1 card from a rival's Yard, then gather 1 pizza or 1 toy"),
        ("Icky & Sticky", "public",
         "For each glue you show: gather 1 toy, then pack 1 resource from your Stuff"),
    ],
)  # fmt: skip
def test_hand_picked_cards_read_as_the_rulebook_says(name: str, side: str, words: str) -> None:
    card = next(c for c in load_card_set().cards if c.name == name)
    public, private = card_words(card)
    assert (public if side == "public" else private) == words
    assert card_words(card, raw=True) == (card.public or "-", card.private or "-")


def test_every_verb_argument_and_multiplier_reads_in_words() -> None:
    """Generated from the verb table: each verb with each of its arguments, alone, with each
    kind of multiplier and inside a repeated group, reads as English with the verb's own
    words and the multiplier's "for each" clause."""
    mults = ["", "2", *(f"{s}" for s in SUITS), *(m for m in MULT_WORDS if m != "suit")]
    for code, verb in enumerate(verb_table.VERBS):
        for arg in verb.args or [None]:
            atom = verb.name if arg is None else f"{verb.name}({arg})"
            for mult in mults:
                text = atom if not mult else f"{atom} x {mult}"
                words = text_words(text)
                assert not code_tokens(words), (text, words)
                assert words.lower().startswith(verb.words.verb.lower()), (text, words)
                if mult in SUITS:
                    assert f"for each {mult} you show" in words, (text, words)
                elif mult in MULT_WORDS:
                    assert MULT_WORDS[mult] in words, (text, words)
                elif mult == "2":
                    assert re.search(r"\b2\b|twice", words), (text, words)
                assert parse_action(text) is not None and all_steps(parse_action(text)) == [
                    (code, verb.args[arg] if arg is not None and verb.args else 0)
                ]
            grouped = text_words(f"(gather(toys) -> {atom}) x glue -> score")
            assert grouped.startswith("For each glue you show: gather 1 toy, then ")
            assert grouped.endswith(". Then score 1 point."), grouped
            assert not code_tokens(grouped), grouped


def test_a_custom_card_using_every_verb_reads_in_words(tmp_path: Path) -> None:
    """A card set of one's own uses the same language: a card whose two actions use every
    verb, every argument and every kind of multiplier, loaded from a directory, reads as
    English on the board and in the terminal's hand."""
    public = (
        "gather(pizza) -> gather(toys) x crown -> (gather(any) -> pack) x any_suit -> "
        "lookout x fort_level -> trash x 2 -> recruit x pack_size -> score x lookout_size"
    )
    private = (
        "advance(-1) -> advance(+1) -> advance -> (spend(any) -> score) x 3 -> spend(pizza) -> "
        "spend(toys) -> trash_rival -> copy_pack -> copy_rival_pack -> convert x coin -> "
        "trash_this"
    )
    steps = all_steps(parse_action(public)) + all_steps(parse_action(private))
    assert {v for v, _ in steps} == set(range(len(VERBS)))  # every verb...
    for code, verb in enumerate(verb_table.VERBS):  # ...with every argument it takes
        assert {a for v, a in steps if v == code} == set((verb.args or {0: 0}).values()), verb
    used = {m for m, _ in multipliers(parse_action(public)) + multipliers(parse_action(private))}
    assert used == set(range(len(MULTS)))  # every kind of multiplier

    data = tmp_path / "cards"
    shutil.copytree(load_card_set().source, data)
    toml = (data / "cards.toml").read_text(encoding="utf-8")
    bones = (
        'name = "Bones"\nsuits = ["book"]\npublic = "gather(pizza) -> pack"\nprivate = "copy_pack"'
    )
    assert bones in toml
    mine = f'name = "Bones"\nsuits = ["book"]\npublic = "{public}"\nprivate = "{private}"'
    (data / "cards.toml").write_text(toml.replace(bones, mine), encoding="utf-8")
    game = FortGame(2, cards=str(data))
    card = next(c for c in game.cards if c.name == "Bones")
    assert card_words(card) == (
        "Gather 1 pizza, then gather 1 toy for each crown you show, then for each icon you show "
        "of one suit you choose: gather 1 pizza or 1 toy, all of one kind, then pack 1 resource "
        "from your Stuff. Then tuck 1 card from your hand into your Lookout for each Fort Level "
        "you have, then trash 2 cards from your hand or discard pile, then recruit 1 card for "
        "each resource in your Pack, then score 1 point for each card in your Lookout.",
        "Advance Fort, paying 1 resource less, then advance Fort, paying 1 resource more, then "
        "advance Fort, then 3 times: spend 1 pizza or 1 toy from your Stuff or Pack, all of one "
        "kind, then score 1 point. Then spend 1 pizza from your Stuff or Pack, then spend 1 toy "
        "from your Stuff or Pack, then trash 1 card from a rival's Yard, then copy your Pack "
        "into your Stuff, then copy a rival's Pack into your Stuff, then convert 1 resource in "
        "your Stuff or Pack to the other kind for each coin you show, then trash this card.",
    )
    state = game.new_initial_state(seed=0)
    texts = card_texts(state)
    label = next(k for k in texts if k.startswith("Bones [book]#"))
    assert texts[label] == f"public: {card_words(card)[0]} | private: {card_words(card)[1]}"
    assert not code_tokens(texts[label].replace(label, ""))


def test_nested_groups_and_blanks() -> None:
    assert effect_words(None) == BLANK
    assert text_words("(gather(toys) -> pack) x 2 -> score") == (
        "Twice: gather 1 toy, then pack 1 resource from your Stuff. Then score 1 point."
    )
    assert text_words("recruit -> (gather(toys) -> pack) x book") == (
        "Recruit 1 card, then for each book you show: gather 1 toy, then pack 1 resource from "
        "your Stuff"
    )  # the group runs to the end: one sentence
    # a group inside a group: the inner one ends at "; then"
    assert text_words("((gather(toys) -> pack) x book -> score) x 2 -> trash_this") == (
        "Twice: for each book you show: gather 1 toy, then pack 1 resource from your Stuff; "
        "then score 1 point. Then trash this card."
    )
    assert text_words("advance(+1) x 3") == "Advance Fort 3 times, paying 1 resource more"
    assert (
        text_words("copy_pack x glue")
        == "Copy your Pack into your Stuff once for each glue you show"
    )
    assert (
        text_words("(score -> pack) x 1") == "Score 1 point, then pack 1 resource from your Stuff"
    )


def test_moves_and_decisions_read_in_words() -> None:
    """Every action of every decision a game reaches has words without code, and so has
    every decision kind."""
    assert set(DECISION_WORDS) == set(verb_table.DECISION_NAMES)
    game = FortGame(3)
    layout = game.layout
    state = game.new_initial_state(seed=2)
    for a in range(game.num_distinct_actions):  # every action, whatever the position
        text = action_words(state, a)
        assert text and not [t for t in ("(", ")", "_", "->") if t in text], text
    mode = layout.MODE
    assert action_words(state, mode + 0) == "use only the public action, fully"
    assert action_words(state, mode + 3) == (
        "use the public action as far as you like, then the private one fully"
    )
    assert action_words(state, layout.CONVERT + 1) == "convert 1 pizza into 1 toy in your Pack"
    assert action_words(state, layout.CONVERT + 2) == "convert 1 toy into 1 pizza in your Stuff"
    actor = state.current_player()
    assert action_words(state, layout.COPY_RIVAL + 0) == f"copy player {(actor + 1) % 3}'s Pack"
    for kind in DecisionKind:
        words = decision_words(kind)
        assert words[0].isupper() and "_" not in words


def test_a_move_says_whose_things_it_uses() -> None:
    """A choice offered to the reader uses "your" Stuff; a move someone else made (a bot's in
    the terminal, any in a replay) uses "their"."""
    game = FortGame(2)
    state = game.new_initial_state(seed=1)
    layout = game.layout
    assert action_words(state, layout.PAY + 0) == "pay 1 toy from your Stuff"
    assert action_words(state, layout.PAY + 3, "their") == "pay 1 pizza from their Pack"
    assert action_words(state, layout.PACK_FROM + 3, "their") == (
        "pack 1 toy from the supply, with Sticky Fingers"
    )
    assert action_words(state, layout.LOOKOUT_PARK_DECK, "their") == (
        "tuck the top card of the Park deck into their Lookout"
    )
    assert "your" not in " ".join(
        action_words(state, a, "their") for a in range(game.num_distinct_actions)
    )
