"""Issue 12, card data: every malformed entry is a CardDataError naming file, card and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import fort_env
from fort_env import CardDataError, FortGame

DATA = Path(fort_env.__file__).parent / "data"

# (id, file, (old, new): old replaced by new (old None: the whole file is new), card, field)
CASES = [
    ("card entry not a table", "cards.toml", (None, "card = [1]"), "#1", "card"),
    (
        "step entry not a table",
        "fort.toml",
        (None, "victory_points = [0, 0, 1, 3, 9, 23]\nstep = [1, 2, 3, 4, 5]"),
        "step 0->1",
        "step",
    ),
    ("rule entry not a table", "rules.toml", (None, 'rule = ["Big Plans"]'), "#1", "rule"),
    ("perk entry not a table", "perks.toml", (None, "perk = [[1]]"), "#1", "perk"),
    (
        "boolean victory points",
        "fort.toml",
        ("victory_points = [0, 0, 1, 3, 9, 23]", "victory_points = [false, true, 1, 3, 9, 23]"),
        "fort track",
        "victory_points",
    ),
    (
        "boolean step cost",
        "fort.toml",
        ("toys = 1\npizza = 0", "toys = true\npizza = 0"),
        "step 0->1",
        "toys",
    ),
    (
        "float step cost",
        "fort.toml",
        ("toys = 1\npizza = 0", "toys = 1.0\npizza = 0"),
        "step 0->1",
        "toys",
    ),
    (
        "unknown step field",
        "fort.toml",
        ("toys = 1\npizza = 0", "toys = 1\nwood = 2\npizza = 0"),
        "step 0->1",
        "wood",
    ),
    (
        "boolean copies",
        "cards.toml",
        ('private = "copy_pack"\ncopies = 1', 'private = "copy_pack"\ncopies = true'),
        "Bones",
        "copies",
    ),
    (
        "integer suit",
        "cards.toml",
        ('name = "Bones"\nsuits = ["book"]', 'name = "Bones"\nsuits = [3]'),
        "Bones",
        "suits",
    ),
    (
        "table suit",
        "cards.toml",
        ('name = "Bones"\nsuits = ["book"]', 'name = "Bones"\nsuits = [{a = 1}]'),
        "Bones",
        "suits",
    ),
    ("integer name", "cards.toml", ('name = "Bones"', "name = 7"), "#1", "name"),
    (
        "public not a string",
        "cards.toml",
        ('public = "gather(pizza) -> pack"', "public = 5"),
        "Bones",
        "public",
    ),
    ("board not a string", "cards.toml", ('board = "', 'board = 1 # "'), None, "board"),
    ("once not a boolean", "perks.toml", ("once = false", 'once = "no"'), "Birthday Party", "once"),
    (
        "rule text not a string",
        "rules.toml",
        ('[[rule]]\nname = "Big Plans"\ntext = "', '[[rule]]\nname = "Big Plans"\ntext = 3 # "'),
        "Big Plans",
        "text",
    ),
    (
        "unknown rule field",
        "rules.toml",
        ('[[rule]]\nname = "Big Plans"', '[[rule]]\nname = "Big Plans"\ncolour = "red"'),
        "Big Plans",
        "colour",
    ),
    ("rule name not a string", "rules.toml", ('name = "Big Plans"', "name = 1"), "#1", "name"),
]


def _copy(tmp_path: Path, filename: str, old: str | None, new: str) -> Path:
    """The shipped data with ``old`` replaced by ``new`` in ``filename`` (``old=None``: the
    whole file is ``new``)."""
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    text = (root / filename).read_text()
    if old is None:
        text = new
    else:
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / filename).write_text(text)
    return root


@pytest.mark.parametrize(
    ("filename", "change", "card", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_entry_is_card_data_error(
    tmp_path: Path, filename: str, change: tuple[str, str], card: object, field: object
) -> None:
    root = _copy(tmp_path, filename, *change)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    e = err.value
    assert Path(e.path) == root / filename
    assert filename in str(e)
    if field is not None:
        assert e.field == field, str(e)
    if card is not None:
        assert e.card == card, str(e)


def test_not_a_table_names_the_entry(tmp_path: Path) -> None:
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    # an array whose second entry is not a table
    (root / "cards.toml").write_text('card = [{name = "A"}, 1]\n')
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert (err.value.card, err.value.field) == ("#2", "card")
    assert "expected a [[card]] table, got 1" in str(err.value)
