"""Issue 12, card data: every malformed entry is a CardDataError naming file, card and field."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

import fort_env
from fort_env import CardDataError, FortGame
from fort_env.game.cards import (
    MAX_ACTION_NESTING,
    MAX_ACTION_STEPS,
    MAX_BOARDS,
    MAX_CARD_FILE_BYTES,
    MAX_CHAINED_STEPS,
    MAX_COPIES,
    MAX_LEVEL_POINTS,
    MAX_STEP_COST,
    chained_steps,
    parse_action,
)
from fort_env.game.errors import StateError
from fort_env.native import backend as cpp_backend

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


# ------------------------------------------------------------------ issue 26: numbers, files
BONES_PUBLIC = 'name = "Bones"\nsuits = ["book"]\npublic = "gather(pizza) -> pack"'
SHIPPED_POINTS = "victory_points = [0, 0, 1, 3, 9, 23]"
LAST_STEP = "toys = 2\npizza = 2\neither = 2"


def _numbers_at(tmp_path: Path, points: int, cost: int, mult: int) -> Path:
    root = _copy(tmp_path, "fort.toml", SHIPPED_POINTS, f"victory_points = {[points] * 6}")
    fort = (root / "fort.toml").read_text()
    assert fort.count(LAST_STEP) == 1
    (root / "fort.toml").write_text(
        fort.replace(LAST_STEP, f"toys = {cost}\npizza = 2\neither = 2")
    )
    cards = (root / "cards.toml").read_text()
    assert BONES_PUBLIC in cards
    new = BONES_PUBLIC.replace("gather(pizza) -> pack", f"score x {mult}")
    (root / "cards.toml").write_text(cards.replace(BONES_PUBLIC, new))
    return root


def _play(game: FortGame, seed: int) -> tuple[list[dict[str, int]], list[int], int]:
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
        steps += 1
    return state.score_breakdown(), state.winners(), steps


@pytest.mark.skipif(not cpp_backend.available(), reason="the C++ core is not usable")
def test_numbers_at_their_limits_play_alike_on_both_backends(tmp_path: Path) -> None:
    """Victory points 999, a step cost 99 and a multiplier of 128 load and play the same game
    on both engines (issue 26: 2**31 - 1 points loaded, then the C++ totals overflowed)."""
    root = _numbers_at(tmp_path, MAX_LEVEL_POINTS, MAX_STEP_COST, MAX_ACTION_STEPS)
    py, cpp = (
        FortGame(2, cards=str(root), backend="python"),
        FortGame(2, cards=str(root), backend="cpp"),
    )
    assert py.card_set.level_points == (MAX_LEVEL_POINTS,) * 6
    for seed in (0, 1):
        rows, winners, steps = _play(py, seed)
        assert _play(cpp, seed) == (rows, winners, steps)
        assert all(row["fort_level"] == MAX_LEVEL_POINTS for row in rows)
        assert max(row["total"] for row in rows) <= np.iinfo(np.int16).max


@pytest.mark.parametrize(
    ("points", "cost", "mult", "file", "card", "field", "limit"),
    [
        (MAX_LEVEL_POINTS + 1, 2, 2, "fort.toml", "fort track", "victory_points[0]", "[0, 999]"),
        (2**31 - 1, 2, 2, "fort.toml", "fort track", "victory_points[0]", "[0, 999]"),
        (10**4000, 2, 2, "fort.toml", "fort track", "victory_points[0]", "[0, 999]"),
        (0, MAX_STEP_COST + 1, 2, "fort.toml", "step 4->5", "toys", "[0, 99]"),
        (0, 2**40, 2, "fort.toml", "step 4->5", "toys", "[0, 99]"),
        (0, 2, MAX_ACTION_STEPS + 1, "cards.toml", "Bones", "public", "1..128"),
        (0, 2, 0, "cards.toml", "Bones", "public", "1..128"),
        (0, 2, 10**150, "cards.toml", "Bones", "public", "1..128"),
    ],
    ids=[
        "points+1",
        "points 2**31-1",
        "points 4001 digits",
        "cost+1",
        "cost 2**40",
        "mult+1",
        "mult 0",
        "mult 151 digits",
    ],
)
def test_numbers_past_their_limits_are_refused_by_name(
    tmp_path: Path, points: int, cost: int, mult: int, file: str, card: str, field: str, limit: str
) -> None:
    root = _numbers_at(tmp_path, points, cost, mult)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root), backend="python")
    e = err.value
    assert (Path(e.path).name, e.card, e.field) == (file, card, field)
    assert limit in e.problem and len(str(e)) < 400


@pytest.mark.parametrize(("copies", "ok"), [(MAX_COPIES, True), (MAX_COPIES + 1, False)])
def test_copies_limit(tmp_path: Path, copies: int, ok: bool) -> None:
    """One Park card of 60 copies is a whole deck; 61 is refused naming the card."""
    park = '[[card]]\nname = "Solo"\nsuits = ["book"]\npublic = "score"\nprivate = "pack"\n'
    text = (DATA / "cards.toml").read_text()
    friends = "[[card]]" + "[[card]]".join(c for c in text.split("[[card]]")[1:] if "board =" in c)
    root = _copy(tmp_path, "cards.toml", None, park + f"copies = {copies}\n\n" + friends)
    if ok:
        game = FortGame(2, cards=str(root), backend="python")
        assert sum(c.name == "Solo" for c in game.cards) == MAX_COPIES
    else:
        with pytest.raises(CardDataError) as err:
            FortGame(2, cards=str(root))
        assert (err.value.card, err.value.field) == ("Solo", "copies")
        assert "[1, 60]" in err.value.problem


def test_too_many_boards_are_refused(tmp_path: Path) -> None:
    extra = "".join(
        f'[[card]]\nname = "F{i}{j}"\nsuits = ["book"]\npublic = ""\nprivate = "score"\n'
        f'board = "extra{i}"\n\n'
        for i in range(MAX_BOARDS - 4 + 1)
        for j in range(2)
    )
    root = _copy(tmp_path, "cards.toml", None, (DATA / "cards.toml").read_text() + "\n" + extra)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert (err.value.card, err.value.field) == (f"extra{MAX_BOARDS - 4}", "board")
    assert f"the limit is {MAX_BOARDS}" in err.value.problem


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(" * 800 + "score" + ")" * 800, "characters; the limit is 200"),
        ("(" * 9 + "score" + ")" * 9, "parentheses 9 deep; the limit is 8"),
        (" -> ".join(["score"] * 3000), "characters; the limit is 200"),
        ("score" + " " * 300, "characters; the limit is 200"),
    ],
    ids=["800 parentheses", "9 parentheses", "3000-step chain", "long text"],
)
def test_deep_or_long_actions_are_refused_before_parsing(
    tmp_path: Path, text: str, words: str
) -> None:
    """Issue 26: these raised RecursionError from the parser's tree walk."""
    new = BONES_PUBLIC.replace('"gather(pizza) -> pack"', f'"{text}"')
    root = _copy(tmp_path, "cards.toml", BONES_PUBLIC, new)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert (err.value.card, err.value.field) == ("Bones", "public")
    assert words in err.value.problem
    assert parse_action("(" * MAX_ACTION_NESTING + "score" + ")" * MAX_ACTION_NESTING)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("victory_points = " + "[" * 3000 + "]" * 3000, "nested too deeply"),
        ("a = " + "{b = " * 3000 + "1" + "}" * 3000, "nested too deeply"),
        ("victory_points = [" + "9" * 5000 + "]", "4300"),
    ],
    ids=["3000 arrays", "3000 inline tables", "5000-digit int"],
)
def test_toml_that_python_cannot_read_is_card_data_error(
    tmp_path: Path, text: str, words: str
) -> None:
    """Issue 26: tomllib raised RecursionError and ValueError."""
    root = _copy(tmp_path, "fort.toml", None, text)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert (Path(err.value.path).name, err.value.card, err.value.field) == ("fort.toml", None, None)
    assert words in err.value.problem


def _replace_with(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "symlink loop":
        other = path.with_name("loop")
        path.symlink_to(other)
        other.symlink_to(path)
    elif kind == "not UTF-8":
        path.write_bytes(b"# caf\xe9\n")
    elif kind == "too large":
        path.write_text("#" * (MAX_CARD_FILE_BYTES + 1))
    elif kind == "FIFO":
        os.mkfifo(path)


@pytest.mark.parametrize("filename", ["cards.toml", "fort.toml", "rules.toml", "perks.toml"])
@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("directory", "is a directory"),
        ("symlink loop", "symbolic links"),
        ("not UTF-8", "not UTF-8 text (byte 5"),
        ("too large", f"larger than the limit of {MAX_CARD_FILE_BYTES} bytes"),
        ("FIFO", "is a FIFO"),
    ],
)
def test_a_file_that_is_not_a_readable_text_file_is_card_data_error(
    tmp_path: Path, filename: str, kind: str, words: str
) -> None:
    """Issue 26: IsADirectoryError, OSError, UnicodeDecodeError; a FIFO blocked forever."""
    if kind == "FIFO" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    root = _copy(tmp_path, filename, None, (DATA / filename).read_text())
    _replace_with(root / filename, kind)
    outcome: list[BaseException] = []

    def load() -> None:
        try:
            FortGame(2, cards=str(root))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # blocked on the FIFO: open its other end to free the thread
        os.close(os.open(root / filename, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail(f"loading a card directory whose {filename} is a FIFO blocked")
    assert len(outcome) == 1 and isinstance(outcome[0], CardDataError), outcome
    e = outcome[0]
    assert (Path(e.path), e.card, e.field) == (root / filename, None, None)
    assert words in e.problem


CHAIN = "(recruit -> trash_rival -> lookout -> trash) x {k}"


def _chain_cards(tmp_path: Path, k: int) -> Path:
    """Every card's public action the chain repeated k times (issue 42, item 3)."""
    root = tmp_path / f"x{k}"
    shutil.copytree(DATA, root)
    text = (root / "cards.toml").read_text()
    lines = [
        f'public = "{CHAIN.format(k=k)}"' if line.startswith("public = ") else line
        for line in text.splitlines()
    ]
    (root / "cards.toml").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize("k", [5, 32])
def test_a_long_repeated_chain_is_refused_at_load(tmp_path: Path, k: int) -> None:
    """Issue 42: at x 6 one decision took 12 s, at x 32 it never returned (GIL held). The
    chain unrolls to 4k steps, past MAX_CHAINED_STEPS: refused when the cards load."""
    with pytest.raises(CardDataError, match=f"to {4 * k} steps") as err:
        FortGame(2, cards=str(_chain_cards(tmp_path, k)))
    assert err.value.field == "public" and str(MAX_CHAINED_STEPS) in err.value.problem
    assert chained_steps(parse_action(CHAIN.format(k=k))) == 4 * k


@pytest.mark.parametrize("backend", ["python", "cpp"])
def test_a_chain_at_the_limit_loads_and_plays(tmp_path: Path, backend: str) -> None:
    if backend == "cpp" and not cpp_backend.available():
        pytest.skip("compiled core not built")
    k = MAX_CHAINED_STEPS // 4
    game = FortGame(2, cards=str(_chain_cards(tmp_path, k)), backend=backend)
    rng = np.random.default_rng(0)
    s = game.new_initial_state(1)
    for _ in range(150 if backend == "cpp" else 40):
        if s.is_terminal():
            break
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert chained_steps(parse_action("(gather(toys) -> pack) x glue")) == 0  # suit counts: 0


def test_the_search_budget_stops_what_loading_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search past constants.SEARCH_NODE_BUDGET is one StateError, not a hang: here with
    the budget lowered so that a shipped position's search exceeds it (Python engine)."""
    from fort_env.game.rules import search

    game = FortGame(2, backend="python")
    rng = np.random.default_rng(3)
    s = game.new_initial_state(3)
    monkeypatch.setattr(search, "SEARCH_NODE_BUDGET", 0)
    refused = 0
    for _ in range(300):
        if s.is_terminal():
            break
        s.legal_cache = None
        try:
            legal = s.legal_actions()
        except StateError as e:
            assert "legality search" in str(e)
            refused += 1
            monkeypatch.setattr(search, "SEARCH_NODE_BUDGET", 10**9)
            legal = s.legal_actions()
            monkeypatch.setattr(search, "SEARCH_NODE_BUDGET", 0)
        s.apply_action(int(rng.choice(legal)))
    assert refused > 0
