"""Bots and training read a position through ``FortState``'s accessors (``cards_in``,
``perks_held``, ``made_up_rules_held``, ``fort_level``, ...) or a ``SeatView``, never the
state's raw arrays (docs/DESIGN.md, "Layers"). The import contracts keep ``agents/`` and
``train/`` from importing the state's layout; this scan keeps them from reading it through an
attribute: any ``x.zone``, ``x.owner``, ``x.rule_loc``, ... in their source fails, named by
file and line, whatever ``x`` is (the scan cannot know a state from another object, so a
non-state attribute of one of these names is listed in :data:`NOT_A_STATE` with its reason).
"""

from __future__ import annotations

import ast
from pathlib import Path

from fort_env.game.state_arrays import ARRAYS

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("agents", "train")

# The state's arrays (fort_env/game/state_arrays.py) and its scalar context. ``play_suits`` is
# left out: it is also a SeatView field (a copy, the suits the play has counted), which bots
# read by design.
RAW = frozenset(ARRAYS) - {"play_suits"} | {"ctx"}

# (file, expression) -> why it is not a state's array
NOT_A_STATE = {
    ("agents/cli.py", "result.players"): "a played game's agent names (HumanGame.players)",
    ("agents/arena/serve.py", "game.players"): "a served game's seats (serve_games.Game)",
    ("agents/arena/serve_games.py", "self.players"): "a served game's seats (Game.players)",
    ("train/ppo.py", "self.done"): "the rollout buffer's game-ended flags, (steps, envs)",
    ("train/ppo.py", "env.done"): "the self-play batch's game-ended flags, one per game",
}


def raw_reads(path: Path, name: str) -> list[str]:
    """``"FILE:LINE: EXPR"`` for each attribute access of a raw state array in ``path``
    (``name``: the path as :data:`NOT_A_STATE` spells it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in RAW]
    nodes.sort(key=lambda n: (n.lineno, n.col_offset))
    exprs = [(n.lineno, ast.unparse(n)) for n in nodes]
    return [f"{name}:{line}: {expr}" for line, expr in exprs if (name, expr) not in NOT_A_STATE]


def scanned_files() -> list[tuple[Path, str]]:
    out = []
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            out.append((path, path.relative_to(ROOT).as_posix()))
    return out


def test_the_scan_covers_the_packages() -> None:
    names = {name for _, name in scanned_files()}
    assert {"agents/bots/evaluation.py", "agents/arena/serve.py", "train/ppo.py"} <= names
    assert {"zone", "owner", "pos", "mark", "coin_as", "players", "rule_loc", "perk_loc"} <= RAW
    assert {"prog", "done", "ctx"} <= RAW


def test_bots_and_training_read_no_raw_state_array() -> None:
    found = [line for path, name in scanned_files() for line in raw_reads(path, name)]
    assert not found, (
        "raw state arrays read in agents/ or train/ (use FortState's accessors, e.g. "
        "state.cards_in(zone, owner), state.perks_held(seat), state.made_up_rules_held(seat), "
        "or a SeatView):\n" + "\n".join(found)
    )


def test_every_exception_is_still_there() -> None:
    """A stale entry of NOT_A_STATE would let a real state read of that spelling through."""
    for file, expr in NOT_A_STATE:
        tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
        exprs = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert expr in exprs, f"{file}: {expr} is gone; drop it from NOT_A_STATE"


def test_the_scan_catches_a_planted_read(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(
        "def act(state, seat):\n"
        "    hand = state.cards_in(1, seat)  # an accessor: fine\n"
        "    mine = state.owner == seat\n"
        "    return (state.game.zone, hand, mine, obj.rule_loc[0], ctx)\n",
        encoding="utf-8",
    )
    assert raw_reads(bot, "agents/bot.py") == [
        "agents/bot.py:3: state.owner",
        "agents/bot.py:4: state.game.zone",
        "agents/bot.py:4: obj.rule_loc",
    ]
