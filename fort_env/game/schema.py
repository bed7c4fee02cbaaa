"""The one table of a state's named fields, for both engines (``docs/state.md``).

Each row names a scalar of the context ``ctx`` (int64) or a column of ``players`` (int16, one
row per seat), with its value in a fresh state. ``scripts/gen_constants.py`` writes the index
constants from this table twice, spelled the same: ``fort_env/game/fields.py`` for Python
(``C_CONVERT_FROM``, ``P_STUFF_PIZZA``...) and ``cpp/include/fort/constants.h`` for C++, so the
twin modules of the two engines read alike; ``tests/differential/test_constants_header.py``
fails when either generated file is stale. Adding a field: add a row here, then run
``python scripts/gen_constants.py``.

This module imports nothing, so the generator can read it whatever state the rest is in.
"""

from __future__ import annotations

# (name, default): the scalar context, in ctx order. The names are the keys of
# ``to_dict()["ctx"]``; a constant ``C_<NAME>`` indexes each.
CTX_TABLE: tuple[tuple[str, int], ...] = (
    ("seed", 0),  # the generator's key (fort_env.game.rng)
    ("shuffles", 0),  # random events so far: the generator's counter
    ("first_player", 0),
    ("leader", 0),
    ("end_triggered", 0),
    ("stage", 0),  # fort_env.game.stages
    ("actor", 0),  # seat to act
    ("decision", 0),  # DecisionKind of the pending decision
    ("played_card", -1),
    ("plays", 0),
    ("mode", -1),  # actions.MODES index of the play
    ("action_step", 0),
    ("any_suit_public", -1),
    ("any_suit_private", -1),
    ("any_suit_side", 0),
    ("pending_coin", -1),
    ("resource_choice", -1),
    ("convert_from", -1),
    ("leader_resource", -1),
    ("program_length", 0),
    ("pc", 0),
    ("program_full", 0),
    ("program_owner", -1),
    ("program_side", 0),
    ("program_failed", 0),
    ("pay_toys", 0),
    ("pay_pizza", 0),
    ("pay_either", 0),
    ("reward", 0),
    ("follower", -1),
    ("follow_trash", 0),
    ("rough_housing", -1),
    ("trash_this", 0),
    ("serial", 0),
    ("draft_round", 0),
    ("sculpture", -1),
    ("copied", 0),
    ("both_full", 0),
    ("continue_pc", -1),
)

# The columns of ``players`` (per seat), in order; a constant ``P_<NAME>`` indexes each.
PLAYER_TABLE: tuple[str, ...] = (
    "stuff_pizza",
    "stuff_toys",
    "pack_pizza",
    "pack_toys",
    "fort_level",
    "score",
    "turns",
)


def constant_name(prefix: str, field: str) -> str:
    """The constant both engines use for a field: ``("C", "convert_from")`` ->
    ``"C_CONVERT_FROM"``."""
    return f"{prefix}_{field.upper()}"
