"""The card language and the card data loader (``fort_env/game/cards.py``), checked against trees,
bounds and error reports written by hand from ``docs/cards.md``.

Texts are parsed with unusual spacing on purpose: ``parse_action`` is cached, and a text the
shipped cards already use would come back from the cache instead of being parsed again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fort_env import CardDataError
from fort_env.game.cards import (
    ADVANCE,
    ATOM,
    DATA_DIR,
    GATHER,
    LOOKOUT_V,
    MAX_ACTION_STEPS,
    MULT_ANY_SUIT,
    MULT_CONST,
    MULT_FORT_LEVEL,
    MULT_LOOKOUT_SIZE,
    MULT_PACK_SIZE,
    MULT_SUIT,
    PACK,
    REPEAT,
    SCORE,
    SPEND,
    THEN,
    TRASH_THIS,
    VERBS,
    all_steps,
    count_verb,
    effect_to_string,
    first_step,
    load_card_set,
    max_steps,
    multipliers,
    parse_action,
    single_step,
)
from fort_env.game.constants import MADE_UP_RULES, PERKS, SUITS
from tests.scenario import replaced

SHOVEL, BOOK = SUITS.index("shovel"), SUITS.index("book")


@pytest.fixture(autouse=True)
def fresh_parse_cache() -> None:
    """``parse_action`` and ``load_card_set`` are cached: start each test with nothing cached,
    so every text here is really parsed (a mutation check runs tests after others warmed the
    caches)."""
    parse_action.cache_clear()
    load_card_set.cache_clear()


# ---------------------------------------------------------------------------- the language
@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("  score ", (ATOM, SCORE, 0)),
        ("gather( pizza )", (ATOM, GATHER, 0)),
        ("gather(toys)  ", (ATOM, GATHER, 1)),
        (" spend(any)", (ATOM, SPEND, 2)),
        ("advance( -1)", (ATOM, ADVANCE, -1)),
        ("advance(+1) ", (ATOM, ADVANCE, 1)),
        (" advance", (ATOM, ADVANCE, 0)),
        ("score  x  3", (REPEAT, (ATOM, SCORE, 0), MULT_CONST, 3)),
        ("score x  shovel", (REPEAT, (ATOM, SCORE, 0), MULT_SUIT, SHOVEL)),
        ("score x  any_suit", (REPEAT, (ATOM, SCORE, 0), MULT_ANY_SUIT, 0)),
        ("score x  fort_level", (REPEAT, (ATOM, SCORE, 0), MULT_FORT_LEVEL, 0)),
        ("score x  pack_size", (REPEAT, (ATOM, SCORE, 0), MULT_PACK_SIZE, 0)),
        ("score x  lookout_size", (REPEAT, (ATOM, SCORE, 0), MULT_LOOKOUT_SIZE, 0)),
        # "->" chains to the left; "x" binds tighter than "->"
        (
            "pack ->score -> trash_this",
            (THEN, (THEN, (ATOM, PACK, 0), (ATOM, SCORE, 0)), (ATOM, TRASH_THIS, 0)),
        ),
        (
            "spend(toys) ->  gather(pizza) x 2",
            (THEN, (ATOM, SPEND, 1), (REPEAT, (ATOM, GATHER, 0), MULT_CONST, 2)),
        ),
        (
            "( spend(any) -> score ) x book",
            (REPEAT, (THEN, (ATOM, SPEND, 2), (ATOM, SCORE, 0)), MULT_SUIT, BOOK),
        ),
        ("   ", None),
    ],
)
def test_parse_trees(text: str, tree: tuple | None) -> None:
    assert parse_action(text) == tree
    if tree is not None:  # the printer writes the canonical text back
        assert parse_action(effect_to_string(tree) + " ") == tree
    else:
        assert effect_to_string(tree) == ""


def test_printer_by_hand() -> None:
    tree = parse_action("( spend(any) -> score )  x book ->  advance(-1)")
    assert effect_to_string(tree) == "(spend(any) -> score) x book -> advance(-1)"
    assert effect_to_string(parse_action("gather(toys)  x 2")) == "gather(toys) x 2"
    assert effect_to_string(parse_action("score  x fort_level")) == "score x fort_level"
    assert effect_to_string(parse_action("advance(+1)  ")) == "advance(+1)"
    assert effect_to_string(parse_action(" advance(0)")) == "advance"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("dance ", f"unknown verb 'dance' (known: {', '.join(VERBS)})"),
        ("gather  ", "verb 'gather' needs a resource"),
        ("spend ", "verb 'spend' needs a resource"),
        ("gather(gold) ", "verb 'gather' does not take argument 'gold'"),
        ("score(2) ", "verb 'score' does not take argument '2'"),
        ("advance(+2) ", "verb 'advance' does not take argument '+2'"),
        ("score x  pancakes", "unknown multiplier 'pancakes'"),
        ("score x  suit", "unknown multiplier 'suit'"),
        ("score x  const", "unknown multiplier 'const'"),
        ("score -> ", ""),
    ],
)
def test_parse_errors(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=None) as err:
        parse_action(text)
    assert words in str(err.value)


def test_tree_queries_by_hand() -> None:
    # Moose's private action shape, with a Then in front
    tree = parse_action(" advance -> (spend(any) -> score) x shovel -> score x 2")
    assert count_verb(tree, SCORE) == 2 and count_verb(tree, ADVANCE) == 1
    assert count_verb(tree, PACK) == 0 and count_verb(None, SCORE) == 0
    assert multipliers(tree) == [(MULT_SUIT, SHOVEL), (MULT_CONST, 2)]
    assert multipliers(parse_action("(score x 2)  x book")) == [(MULT_SUIT, BOOK), (MULT_CONST, 2)]
    assert multipliers(None) == [] and multipliers(parse_action(" pack")) == []
    assert first_step(tree) == (ADVANCE, 0) and first_step(None) is None
    assert all_steps(tree) == [(ADVANCE, 0), (SPEND, 2), (SCORE, 0), (SCORE, 0)]
    assert single_step(tree) is None and single_step(None) is None
    assert single_step(parse_action("gather(toys)  x 2")) == (GATHER, 1, MULT_CONST, 2)
    assert single_step(parse_action("  pack")) == (PACK, 0, MULT_CONST, 1)


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("score  -> pack", 2),
        ("score x  7", 7),
        # bounds: a suit or "any one suit" 26 (the played card, 6 hand, 6 Lookout cards, two
        # suits each), Fort Level 5, Pack size 8 (6 + XXL Backpack's 2), Lookout size 6
        ("score x  glue", 26),
        ("score x  any_suit", 26),
        ("score x  fort_level", 5),
        ("score x  pack_size", 8),
        ("score x  lookout_size", 6),
        ("(gather(any) ->  pack) x shovel", 52),
        ("(score x 2 -> pack)  x 3", 9),
    ],
)
def test_max_steps_by_hand(text: str, steps: int) -> None:
    assert max_steps(parse_action(text)) == steps
    assert max_steps(None) == 0


# ---------------------------------------------------------------------------- the loader
def test_a_copy_loads_like_the_shipped_set(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(DATA_DIR, root)
    mine, shipped = load_card_set(str(root)), load_card_set(None)
    assert mine.cards == shipped.cards and mine.boards == shipped.boards
    assert (mine.fort_steps, mine.level_points) == (shipped.fort_steps, shipped.level_points)
    assert (mine.rules, mine.perks) == (MADE_UP_RULES, PERKS)
    assert mine.source == str(root) and shipped.source == str(DATA_DIR)
    cards = shipped.cards
    assert len(cards) == 68 and shipped.num_park_cards == 60
    assert [c.id for c in cards] == list(range(68))
    assert all(not c.is_best_friend for c in cards[:60]) and all(
        c.is_best_friend for c in cards[60:]
    )
    assert shipped.boards == ("red", "blue", "green", "yellow")
    assert [c.board for c in cards[60:]] == [b for b in shipped.boards for _ in (0, 1)]
    # copies of one design share a kind; kinds are numbered in order of first appearance
    designs = {(c.name, c.suits, c.public, c.private, c.is_best_friend) for c in mine.cards}
    assert len({c.kind for c in mine.cards}) == len(designs)  # one kind per design
    buds = [c for c in cards if c.name == "Bud"]
    assert len(buds) == 3 and len({c.kind for c in buds}) == 1
    firsts = []
    for c in cards:
        if c.kind not in firsts:
            firsts.append(c.kind)
    assert firsts == list(range(len(firsts)))
    doc = next(c for c in mine.cards if c.name == "Doc")
    assert doc.suits == (BOOK,) and doc.private == "score x lookout_size"
    assert doc.private_effect == (REPEAT, (ATOM, SCORE, 0), MULT_LOOKOUT_SIZE, 0)
    assert doc.public_effect == (ATOM, LOOKOUT_V, 0)
    assert [c.private_effect for c in mine.cards] == [c.private_effect for c in shipped.cards]
    assert [c.public_effect for c in mine.cards] == [c.public_effect for c in shipped.cards]
    assert shipped.fort_steps[0].toys == 1 and shipped.level_points == (0, 0, 1, 3, 9, 23)


BONES = 'name = "Bones"\nsuits = ["book"]\npublic = "gather(pizza) -> pack"\n'
SMOKE = (
    'name = "Smoke"\nsuits = ["coin"]\npublic = "gather(any)"\nprivate = "pack"\nboard = "yellow"\n'
)
SWEET_PEA = (
    'name = "Sweet Pea"\nsuits = ["glue"]\npublic = "gather(toys) x glue"\n'
    'private = "score"\nboard = "yellow"\n'
)
YELLOW = "[[card]]\n" + SMOKE + "\n[[card]]\n" + SWEET_PEA  # both yellow Best Friends
BLADES = 'name = "Blades"\nsuits = ["coin"]\npublic = "gather(any)"\nprivate = "pack"\n'
BROKEN = [
    # (id, file, old, new, count, card, field, problem)
    ("empty", "cards.toml", None, "x = 1\n", 1, None, "card", "no [[card]] entries"),
    ("empty list", "cards.toml", None, "card = []\n", 1, None, "card", "no [[card]] entries"),
    ("three boards", "cards.toml", YELLOW, "", 1, None, "board",
     "need 4 boards of Best Friends, got ['red', 'blue', 'green']"),
    ("perk without name", "perks.toml", 'name = "Birthday Party"\n', "", 1, "#1", "name",
     "missing"),
    ("no name", "cards.toml", 'name = "Bones"\n', "", 1, "#1", "name", "missing"),
    ("name not str", "cards.toml", 'name = "Bones"', "name = 3", 1, "#1", "name",
     "expected str, got 3"),
    ("three suits", "cards.toml", BONES, BONES.replace('["book"]', '["book", "book", "glue"]'), 1,
     "Bones", "suits", f"need 1 or 2 of {SUITS}, got ['book', 'book', 'glue']"),
    ("no suit", "cards.toml", BONES, BONES.replace('["book"]', "[]"), 1, "Bones", "suits",
     f"need 1 or 2 of {SUITS}, got []"),
    ("public missing", "cards.toml", BONES, BONES.replace('public = "gather(pizza) -> pack"\n', ""),
     1, "Bones", "public", "missing"),
    ("too long", "cards.toml", BONES, BONES.replace("gather(pizza) -> pack", "(score x 12) x 12"),
     1, "Bones", "public",
     f"'(score x 12) x 12' can unroll to 144 steps; the limit is {MAX_ACTION_STEPS}"),
    ("unknown field", "cards.toml", BONES, BONES + 'colour = "red"\n', 1, "Bones", "colour",
     "unknown field"),
    ("friend with copies", "cards.toml", BLADES, BLADES + "copies = 1\n", 1, "Blades", "copies",
     "a Best Friend is not in the Park deck"),
    ("board not str", "cards.toml", 'board = "red"', "board = 1", 2, "Blades", "board",
     "expected str, got 1"),
    ("copies 0", "cards.toml", 'copy_pack"\ncopies = 1', 'copy_pack"\ncopies = 0', 2, "Bones",
     "copies", "must be in [1, 60], got 0"),
    ("copies bool", "cards.toml", 'copy_pack"\ncopies = 1', 'copy_pack"\ncopies = true', 2,
     "Bones", "copies", "expected int, got True"),
    ("lone friend", "cards.toml", 'name = "Zip"\nsuits = ["skateboard"]\npublic = '
     '"gather(pizza) x skateboard"\nprivate = "score"\nboard = "red"', 'name = "Zip"\nsuits = '
     '["skateboard"]\npublic = "gather(pizza) x skateboard"\nprivate = "score"\nboard = "blue"',
     1, "red", "board", "board 'red' has 1 Best Friends, need 2"),
    ("green has 4", "cards.toml", 'board = "yellow"', 'board = "green"', 2, "green", "board",
     "board 'green' has 4 Best Friends, need 2"),
    ("step missing", "fort.toml", "[[step]]   # 4 -> 5", "[[oldstep]]", 1, "fort track", "step",
     "need 5 [[step]] entries"),
    ("negative cost", "fort.toml", "toys = 1\npizza = 0\neither = 1",
     "toys = -1\npizza = 0\neither = 1", 1, "step 0->1", "toys", "must be in [0, 99], got -1"),
    ("zero cost", "fort.toml", "toys = 1\npizza = 0\neither = 1", "toys = 0\npizza = 0\neither = 0",
     1, "step 0->1", "cost", "bad cost [0, 0, 0]"),
    ("cost missing", "fort.toml", "toys = 1\npizza = 0\neither = 1", "toys = 1\npizza = 0", 1,
     "step 0->1", "either", "missing"),
    ("negative points", "fort.toml", "victory_points = [0, 0, 1, 3, 9, 23]",
     "victory_points = [0, 0, 1, 3, 9, -23]", 1, "fort track", "victory_points",
     "need 6 non-negative integers, got [0, 0, 1, 3, 9, -23]"),
    ("no rules", "rules.toml", None, "x = 1\n", 1, None, "rule", "no [[rule]] entries"),
    ("no perks", "perks.toml", None, "x = 1\n", 1, None, "perk", "no [[perk]] entries"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("file", "old", "new", "count", "card", "field", "problem"),
    [b[1:] for b in BROKEN],
    ids=[b[0] for b in BROKEN],
)
def test_malformed_data_is_reported_exactly(
    tmp_path: Path, file: str, old: str | None, new: str, count: int, card, field, problem: str
) -> None:
    root = tmp_path / "cards"
    shutil.copytree(DATA_DIR, root)
    text = (root / file).read_text()
    (root / file).write_text(new if old is None else replaced(text, old, new, count))
    with pytest.raises(CardDataError) as err:
        load_card_set(str(root))
    e = err.value
    assert (e.path, e.card, e.field, e.problem) == (root / file, card, field, problem)
    where = ", ".join(f"{k} {v!r}" for k, v in (("card", card), ("field", field)) if v is not None)
    assert str(e) == (
        f"{root / file}: {where}: {problem}" if where else f"{root / file}: {problem}"
    )
    assert "None" not in str(e)  # no "card None, field None" (issue 40)


def test_a_renamed_rule_or_perk_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "cards"
    shutil.copytree(DATA_DIR, root)
    text = (root / "rules.toml").read_text()
    (root / "rules.toml").write_text(replaced(text, '"Loner"', '"Hermit"'))
    with pytest.raises(CardDataError) as err:
        load_card_set(str(root))
    names = list(MADE_UP_RULES)
    names[names.index("Loner")] = "Hermit"
    assert (err.value.path, err.value.card, err.value.field) == (root / "rules.toml", None, "name")
    assert err.value.problem == f"need exactly {sorted(MADE_UP_RULES)}, got {list(names)}"


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    root = tmp_path / "cards"
    shutil.copytree(DATA_DIR, root)
    (root / "perks.toml").unlink()
    with pytest.raises(CardDataError) as err:
        load_card_set(str(root))
    assert (err.value.path, err.value.card, err.value.field, err.value.problem) == (
        root / "perks.toml", None, None, "file not found",
    )  # fmt: skip
    (root / "perks.toml").write_text("[[perk]\nname = 1")
    with pytest.raises(CardDataError) as err:
        load_card_set(str(root) + "/")  # another cache key
    assert err.value.path == Path(str(root) + "/") / "perks.toml"
    assert err.value.field is None and err.value.problem.startswith("not valid TOML: ")
    with pytest.raises(CardDataError) as err:
        load_card_set(str(tmp_path / "nowhere"))
    assert (err.value.path, err.value.problem) == (
        tmp_path / "nowhere", "not a directory of card data",
    )  # fmt: skip
    assert str(err.value) == f"{tmp_path / 'nowhere'}: not a directory of card data"


def test_limits_are_inclusive(tmp_path: Path) -> None:
    """An action of exactly MAX_ACTION_STEPS steps and a Fort step costing exactly 1 load."""
    root = tmp_path / "cards"
    shutil.copytree(DATA_DIR, root)
    text = (root / "cards.toml").read_text()
    longest = f"score x {MAX_ACTION_STEPS}"
    (root / "cards.toml").write_text(
        replaced(text, BONES, BONES.replace("gather(pizza) -> pack", longest))
    )
    fort = (root / "fort.toml").read_text()
    (root / "fort.toml").write_text(
        replaced(fort, "toys = 1\npizza = 0\neither = 1", "toys = 0\npizza = 0\neither = 1")
    )
    cards = load_card_set(str(root))
    bones = next(c for c in cards.cards if c.name == "Bones")
    assert bones.public == longest and max_steps(bones.public_effect) == MAX_ACTION_STEPS
    step = cards.fort_steps[0]
    assert (step.toys, step.pizza, step.either) == (0, 0, 1)
