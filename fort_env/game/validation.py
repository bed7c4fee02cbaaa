"""Validation of a loaded state (``FortState.from_dict``): ranges and cross-field invariants.

``from_dict`` (``state_arrays.py``) parses the dict into arrays and checks types and loose
ranges; then it calls :func:`validate_state`, which checks what the engine relies on, so that a
state that loads either plays to the end with the game's invariants held or is refused with a
``StateError`` naming the field (``docs/state.md``, "What from_dict checks"). In order:

1. **Ranges** of every ``ctx`` field (the seed through ``fort_env.game.inputs.is_seed``, seats, the
   stage, the decision kind, card ids, suits, resources, counters; the legality search's
   internal flags must be 0) and of the players' rows (Stuff at most 4 of each, Fort Level 0-5,
   the Pack within its capacity, the Lookout within Level + 1, score and turns at most 999,
   turns as the round from the first player to the leader gives them).
2. **Cards**: each Best Friend with its board's seat (or out of the game), unique orders in the
   Park deck and in each deck, Park slots 0-2, the draft zones only during the draft (and
   each seat's kept cards and pack size those of the draft round and the seats done), cards in
   play only with the leader during a play, followed cards only with the follower during a
   follow, marks only on added cards, declared coin suits only on coin cards.
3. **Made-up rules and perks**: at most one rule per seat; only once-per-game perks used.
4. **Flow**: the decision kind belongs to the stage, the actor is the seat the stage names
   (the leader, the follower, the program's owner), the played card, mode, follower and
   pending coin are set exactly where the stage needs them; the suits counted for the play
   are those of the cards in it.
5. **The running action** (``program``): rows of the played card's effect (verbs, arguments,
   "then" ranges), the program counter inside it, the pending decision the one its current
   row asks for, a payment no larger than the step's cost.
6. **It can go on**: a position that is not over has a legal action (the engine's own legality
   computation; an error in it is reported as a ``StateError``).

The checks read the arrays and ``ctx`` only through indices (``ctx[C_STAGE]``...), so they hold
whether ``ctx`` is a list or an array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from fort_env.game import actions as A
from fort_env.game.cards import ADVANCE, VERB_ARGS, VERBS, all_steps, max_steps
from fort_env.game.constants import (
    BIRTHDAY_PARTY,
    COIN,
    COPY_CAT,
    DECK,
    DIY,
    DO_OVER,
    DRAFT_KEPT,
    DRAFT_PACK,
    FOLLOWED,
    HAND,
    IN_PLAY,
    IN_STACK,
    LOOKOUT,
    MAX_FORT_LEVEL,
    NUM_SUITS,
    OUT_OF_GAME,
    PARK,
    PARK_DECK,
    PARK_SIZE,
    PERKS,
    RECYCLING,
    ROUGH_HOUSING,
    SEED_LIMIT,
    STARTING_KIDS,
    STUFF_CAPACITY,
    TERMINAL_PLAYER,
    TRASH,
    USED,
    XXL,
    XXL_BACKPACK_BONUS,
    ZONES,
)
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import StateError
from fort_env.game.fields import (
    C_ACTION_STEP,
    C_ACTOR,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_ANY_SUIT_SIDE,
    C_BOTH_FULL,
    C_CONTINUE_PC,
    C_CONVERT_FROM,
    C_COPIED,
    C_DECISION,
    C_DRAFT_ROUND,
    C_END_TRIGGERED,
    C_FIRST_PLAYER,
    C_FOLLOW_TRASH,
    C_FOLLOWER,
    C_LEADER,
    C_LEADER_RESOURCE,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PC,
    C_PENDING_COIN,
    C_PLAYED_CARD,
    C_PLAYS,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_PROGRAM_LENGTH,
    C_PROGRAM_OWNER,
    C_PROGRAM_SIDE,
    C_RESOURCE_CHOICE,
    C_REWARD,
    C_ROUGH_HOUSING,
    C_SCULPTURE,
    C_SEED,
    C_SERIAL,
    C_SHUFFLES,
    C_STAGE,
    C_TRASH_THIS,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    P_SCORE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
    P_TURNS,
)
from fort_env.game.inputs import SEED_RANGE, is_seed
from fort_env.game.rules import program, search, verbs
from fort_env.game.rules.base import FULL, NONE, SEARCHED_STAGES
from fort_env.game.stages import (
    ST_ACTION,
    ST_ADD,
    ST_ADD_COIN,
    ST_ANY_SUIT,
    ST_BIRTHDAY,
    ST_DECLARE,
    ST_DO_OVER,
    ST_DRAFT,
    ST_FOLLOW,
    ST_FOLLOW_RUN,
    ST_FOLLOW_SECOND,
    ST_MODE,
    ST_OVER,
    ST_PLAY,
    ST_RECRUIT,
    ST_ROUGH_HOUSING,
)
from fort_env.game.state_arrays import CTX_FIELDS, MAX_STEPS, PLAYER_FIELDS

if TYPE_CHECKING:
    from fort_env.game.facts import GameFacts as FortGame

ONCE_PERKS = frozenset((DIY, DO_OVER, RECYCLING, ROUGH_HOUSING))  # trashed when used (p.16)
# Decisions an action's program asks for (stages ACTION and FOLLOW_RUN): the verbs' own
# (VERB_RULES' decision column), the resource of an "any resource" step, and the Fort Level
# rewards (a made-up rule, a perk) that a level bought in the action brings.
PROGRAM_DECISIONS = frozenset(
    {*verbs.VERB_DECISION.values(), DecisionKind.RESOURCE, DecisionKind.PICK_RULE,
     DecisionKind.PICK_PERK}
)  # fmt: skip
# The leader's own action adds one (R3: stop the action used partially, or go on).
ACTION_DECISIONS = PROGRAM_DECISIONS | {DecisionKind.STOP_OR_CONTINUE}
# The decision kinds each stage may be waiting on.
STAGE_DECISIONS: dict[int, frozenset[int]] = {
    ST_DRAFT: frozenset((DecisionKind.DRAFT,)),
    ST_PLAY: frozenset((DecisionKind.PLAY,)),
    ST_DECLARE: frozenset((DecisionKind.DECLARE_COIN,)),
    ST_MODE: frozenset((DecisionKind.MODE,)),
    ST_ANY_SUIT: frozenset((DecisionKind.ANY_SUIT,)),
    ST_ADD: frozenset((DecisionKind.ADD,)),
    ST_ADD_COIN: frozenset((DecisionKind.ADD_COIN,)),
    ST_ACTION: ACTION_DECISIONS,
    ST_FOLLOW: frozenset((DecisionKind.FOLLOW,)),
    ST_FOLLOW_SECOND: frozenset((DecisionKind.FOLLOW_SECOND,)),
    ST_FOLLOW_RUN: PROGRAM_DECISIONS,
    ST_DO_OVER: frozenset((DecisionKind.DO_OVER,)),
    ST_RECRUIT: frozenset((DecisionKind.RECRUIT,)),
    ST_BIRTHDAY: frozenset((DecisionKind.BIRTHDAY,)),
    ST_OVER: frozenset((DecisionKind.TERMINAL,)),
    ST_ROUGH_HOUSING: frozenset((DecisionKind.ROUGH_HOUSING,)),
}
LEADER_STAGES = frozenset(
    (ST_PLAY, ST_DECLARE, ST_MODE, ST_ANY_SUIT, ST_ADD, ST_ADD_COIN, ST_ACTION, ST_DO_OVER,
     ST_RECRUIT, ST_BIRTHDAY)
)  # fmt: skip
FOLLOW_STAGES = frozenset((ST_FOLLOW, ST_FOLLOW_SECOND, ST_FOLLOW_RUN))
# Stages of the leader's play after a card was played, before the followers.
CARD_STAGES = frozenset((ST_DECLARE, ST_MODE, ST_ANY_SUIT, ST_ADD, ST_ADD_COIN, ST_ACTION))
# Stages during which the turn's played card is in play (set in ctx.played_card).
PLAYED_STAGES = CARD_STAGES | FOLLOW_STAGES | {ST_ROUGH_HOUSING}
# Stages during which the leader has cards in play.
PLAY_UNDER_WAY = LEADER_STAGES | FOLLOW_STAGES | {ST_ROUGH_HOUSING}
COUNTER_LIMIT = SEED_LIMIT  # shuffles and serial: counters stored in int64
COUNT_LIMIT = 999  # a player's score and turns (int16; a game ends near 25 points)


def _fail(field: str, problem: str) -> NoReturn:
    raise StateError(field, problem)


def validate_state(game: FortGame, s: Any) -> None:
    """Check a state built by ``from_dict`` (its arrays and ``ctx``) against ``game``.

    Args:
        game: the game the state belongs to.
        s: the loaded state (a ``FortState``: ``zone``, ``owner``, ... arrays and ``ctx``).

    Raises:
        StateError: a field out of range or inconsistent with another, or a position the
            engine cannot continue from; ``err.field`` names the field.
    """
    ctx = [int(x) for x in s.ctx]
    _check_ctx_ranges(game, ctx)
    _check_players(game, s, ctx)
    _check_rules_and_perks(game, s)
    _check_cards(game, s, ctx)
    _check_flow(game, s, ctx)
    _check_play_suits(game, s, ctx)
    _check_program(game, s, ctx)
    _check_can_go_on(s)


# --------------------------------------------------------------------------- 1. ranges
def _ctx_ranges(game: FortGame) -> dict[int, tuple[int, int]]:
    """Inclusive ranges of the ctx fields (the seed is checked by ``is_seed``)."""
    n, c = game.num_players, game.num_cards
    last_seat, last_card = n - 1, c - 1
    max_cost = max(max(st.toys, st.pizza, st.either + 1) for st in game.fort_steps)
    ranges = {
        C_SHUFFLES: (0, COUNTER_LIMIT - 1),
        C_FIRST_PLAYER: (0, last_seat),
        C_LEADER: (0, last_seat),
        C_END_TRIGGERED: (0, 1),
        C_STAGE: (0, ST_ROUGH_HOUSING),
        C_ACTOR: (TERMINAL_PLAYER, last_seat),
        C_DECISION: (0, len(DecisionKind) - 1),
        C_PLAYED_CARD: (-1, last_card),
        C_PLAYS: (0, 2),  # a card or DIY, then one Do-Over
        C_MODE: (-1, len(A.MODES) - 1),
        C_ACTION_STEP: (0, 1),
        C_ANY_SUIT_PUBLIC: (-1, NUM_SUITS - 1),
        C_ANY_SUIT_PRIVATE: (-1, NUM_SUITS - 1),
        C_ANY_SUIT_SIDE: (0, 1),
        C_PENDING_COIN: (-1, last_card),
        C_RESOURCE_CHOICE: (-1, 1),
        C_CONVERT_FROM: (-1, 1),
        C_LEADER_RESOURCE: (-1, 1),
        C_PROGRAM_LENGTH: (0, MAX_STEPS),
        C_PC: (0, MAX_STEPS),
        C_PROGRAM_FULL: (0, 1),
        C_PROGRAM_OWNER: (-1, last_seat),
        C_PROGRAM_SIDE: (0, 1),
        C_PROGRAM_FAILED: (0, 0),  # set only inside the legality search
        C_PAY_TOYS: (0, max_cost),
        C_PAY_PIZZA: (0, max_cost),
        C_PAY_EITHER: (0, max_cost),
        C_REWARD: (0, 2),
        C_FOLLOWER: (-1, last_seat),
        C_FOLLOW_TRASH: (0, 1),
        C_ROUGH_HOUSING: (-2, last_seat),  # -2: the holder followed this card (R16)
        C_TRASH_THIS: (0, 1),
        C_SERIAL: (0, COUNTER_LIMIT - 1),
        C_DRAFT_ROUND: (0, STARTING_KIDS),
        C_SCULPTURE: (-1, last_seat),
        C_COPIED: (0, 0),  # unused
        C_BOTH_FULL: (0, 0),  # set only inside the legality search's probes
        C_CONTINUE_PC: (-1, MAX_STEPS - 1),
    }
    return ranges


def _check_ctx_ranges(game: FortGame, ctx: list[int]) -> None:
    if not is_seed(ctx[C_SEED]):
        _fail("ctx.seed", f"must be {SEED_RANGE}, got {ctx[C_SEED]}")
    for i, (lo, hi) in _ctx_ranges(game).items():
        if not lo <= ctx[i] <= hi:
            _fail(f"ctx.{CTX_FIELDS[i]}", f"must be in [{lo}, {hi}], got {ctx[i]}")
    if ctx[C_STAGE] == ST_DRAFT and game.setup != "advanced":
        _fail("ctx.stage", "the draft (stage 0) exists only in the advanced setup")
    if ctx[C_PC] > ctx[C_PROGRAM_LENGTH]:
        _fail("ctx.pc", f"{ctx[C_PC]} is past the program's {ctx[C_PROGRAM_LENGTH]} rows")


def _check_players(game: FortGame, s: Any, ctx: list[int]) -> None:
    players = s.players
    for p in range(game.num_players):
        row = [int(x) for x in players[p]]
        where = f"players[{p}]"
        for col in (P_STUFF_PIZZA, P_STUFF_TOYS):
            if row[col] > STUFF_CAPACITY:
                _fail(f"{where}.{PLAYER_FIELDS[col]}", f"Stuff holds at most {STUFF_CAPACITY}")
        for col in (P_SCORE, P_TURNS):  # counters stored as int16: keep room to count on
            if row[col] > COUNT_LIMIT:
                _fail(f"{where}.{PLAYER_FIELDS[col]}", f"at most {COUNT_LIMIT}, got {row[col]}")
        level = row[P_FORT_LEVEL]
        if level > MAX_FORT_LEVEL:
            _fail(f"{where}.fort_level", f"at most {MAX_FORT_LEVEL}, got {level}")
        cap = level + 1 + (XXL_BACKPACK_BONUS if s.perk_loc[XXL] == p else 0)
        if row[P_PACK_PIZZA] + row[P_PACK_TOYS] > cap:
            _fail(f"{where}.pack_pizza", f"the Pack holds at most {cap} (Fort Level + 1)")
        lookout = int(np.count_nonzero((s.zone == LOOKOUT) & (s.owner == p)))
        if lookout > level + 1:
            _fail("cards", f"seat {p} has {lookout} Lookout cards; at most Fort Level + 1")
    # A round runs from the first player; the seats that already played in this round have
    # one more turn than the leader and the seats after it (all equal once the game is over).
    turns = [int(t) for t in players[:, P_TURNS]]
    n, first, leader = game.num_players, ctx[C_FIRST_PLAYER], ctx[C_LEADER]
    done = n if ctx[C_STAGE] == ST_OVER else (leader - first) % n
    base = turns[leader] - (1 if ctx[C_STAGE] == ST_OVER else 0)
    expected = [base + int((p - first) % n < done) for p in range(n)]
    if ctx[C_STAGE] == ST_DRAFT:
        expected = [0] * n
    if turns != expected:
        _fail("players.turns", f"{turns}; with first player {first} and leader {leader} "
                               f"the round gives {expected}")  # fmt: skip


def _check_rules_and_perks(game: FortGame, s: Any) -> None:
    held = [int(x) for x in s.rule_loc if x >= 0]
    for p in set(held):
        if held.count(p) > 1:
            _fail("made_up_rules", f"seat {p} holds {held.count(p)} made-up rules; at most one")
    for i, loc in enumerate(s.perk_loc):
        if loc == USED and i not in ONCE_PERKS:
            _fail(f"perks.{PERKS[i]}", "only a once-per-game perk can be used up (-3)")


# --------------------------------------------------------------------------- 2. cards
def _check_cards(game: FortGame, s: Any, ctx: list[int]) -> None:
    zone, owner, pos = s.zone, s.owner, s.pos
    n = game.num_players
    stage = ctx[C_STAGE]
    leader, follower = ctx[C_LEADER], ctx[C_FOLLOWER]
    seats = list(game.board_of_seat)
    for cid, card in enumerate(game.cards):
        z, o = int(zone[cid]), int(owner[cid])
        where = f"cards[{cid}]"
        if card.is_best_friend:
            seat = seats.index(card.board) if card.board in seats else -1
            if (seat < 0) != (z == OUT_OF_GAME):
                _fail(f"{where}.zone", "a Best Friend is out of the game iff its board is")
            if seat >= 0 and z != TRASH and o != seat:
                _fail(f"{where}.owner", f"a Best Friend of seat {seat}'s board")
            if z in (PARK_DECK, PARK, DRAFT_PACK):
                _fail(f"{where}.zone", f"a Best Friend is never in {ZONES[z]}")
        elif z == OUT_OF_GAME:
            _fail(f"{where}.zone", "only Best Friends of boards not in the game are out of it")
        if z in (DRAFT_PACK, DRAFT_KEPT) and stage != ST_DRAFT:
            _fail(f"{where}.zone", "draft zones exist only during the draft")
        if z == IN_PLAY and (stage not in PLAY_UNDER_WAY or o != leader):
            _fail(f"{where}.zone", "cards in play are the leader's, during the leader's turn")
        if z == FOLLOWED and (stage not in (ST_FOLLOW_SECOND, ST_FOLLOW_RUN) or o != follower):
            _fail(f"{where}.zone", "followed cards are the follower's, during the follow")
        if s.mark[cid] and (
            stage in (ST_PLAY, ST_DRAFT)
            or (stage != ST_OVER and (z not in (IN_PLAY, LOOKOUT) or o != leader))
        ):
            _fail(f"{where}.mark", "only cards added to the play under way are marked")
        if s.coin_as[cid] >= 0 and not game.has_coin[cid]:
            _fail(f"{where}.coin_as", "only a coin card has a declared suit")
        if o >= n:
            _fail(f"{where}.owner", f"no seat {o}")
    if stage == ST_DRAFT:
        for z in (HAND, IN_PLAY, FOLLOWED, LOOKOUT, TRASH, 4, 5):  # 4 discard, 5 yard
            if (zone == z).any():
                _fail("cards", f"no card is in {ZONES[z]} during the draft")
        _check_draft(s, n, ctx)
    _unique_positions("park_deck", pos[zone == PARK_DECK])
    for p in range(n):  # (the Best Friends wait unordered during the draft)
        if stage != ST_DRAFT:
            _unique_positions(f"deck of seat {p}", pos[(zone == DECK) & (owner == p)])
    park = pos[zone == PARK]
    if len(park) > PARK_SIZE or (len(park) and (park.min() < 0 or park.max() >= PARK_SIZE)):
        _fail("cards", f"Park slots are 0..{PARK_SIZE - 1}, got {sorted(park.tolist())}")
    _unique_positions("park", park)


def _check_draft(s: Any, n: int, ctx: list[int]) -> None:
    """The draft (p.2, ``handlers.on_draft_card``): in round r the seats from the first player
    up to the actor (excluded) have kept r + 1 cards and hold packs of STARTING_KIDS - r - 1,
    the others r and STARTING_KIDS - r; a seat with an empty pack could not draft (found by
    scripts/fuzz_core.py: a card moved to another seat's pack left the draft stuck)."""
    r, first, actor = ctx[C_DRAFT_ROUND], ctx[C_FIRST_PLAYER], ctx[C_ACTOR]
    picked = (actor - first) % n
    for p in range(n):
        done = int((p - first) % n < picked)
        owned = s.owner == p
        kept = int(((s.zone == DRAFT_KEPT) & owned).sum())
        pack = int(((s.zone == DRAFT_PACK) & owned).sum())
        if kept != r + done or pack != STARTING_KIDS - r - done:
            _fail("cards", f"seat {p} has kept {kept} and holds {pack} in its draft pack; "
                           f"draft round {r} with {picked} seats done gives {r + done} and "
                           f"{STARTING_KIDS - r - done}")  # fmt: skip


def _unique_positions(what: str, positions: np.ndarray) -> None:
    if len(np.unique(positions)) != len(positions):
        _fail("cards", f"two cards share a pos in the {what} (its order must be unique)")


# --------------------------------------------------------------------------- 4. flow
def _check_flow(game: FortGame, s: Any, ctx: list[int]) -> None:
    stage, kind, actor = ctx[C_STAGE], ctx[C_DECISION], ctx[C_ACTOR]
    leader, follower, played = ctx[C_LEADER], ctx[C_FOLLOWER], ctx[C_PLAYED_CARD]
    owner = ctx[C_PROGRAM_OWNER]
    if kind not in STAGE_DECISIONS.get(stage, frozenset()):  # probe stages: never saved
        _fail("ctx.decision", f"{DecisionKind(kind).name} is not a decision of stage {stage}")
    if stage == ST_OVER:
        if actor != TERMINAL_PLAYER:
            _fail("ctx.actor", f"the game is over: the actor is {TERMINAL_PLAYER}")
        return
    if actor < 0:
        _fail("ctx.actor", f"a seat acts in a game that is not over, got {actor}")
    if stage in LEADER_STAGES and stage != ST_ACTION and actor != leader:
        _fail("ctx.actor", f"the leader ({leader}) acts at stage {stage}, not seat {actor}")
    if stage in FOLLOW_STAGES:
        if follower < 0 or follower == leader:
            _fail("ctx.follower", f"a rival of the leader follows at stage {stage}")
        if stage != ST_FOLLOW_RUN and actor != follower:
            _fail("ctx.actor", f"the follower ({follower}) acts, not seat {actor}")
    elif follower >= 0:
        _fail("ctx.follower", f"no follow is under way at stage {stage}")
    if stage in (ST_ACTION, ST_FOLLOW_RUN):
        runner = leader if stage == ST_ACTION else follower
        if owner != runner or actor != runner:
            _fail("ctx.program_owner", f"the action is seat {runner}'s: owner and actor")
    if ctx[C_ROUGH_HOUSING] == leader:
        _fail("ctx.rough_housing", "the leader cannot Rough House its own play")
    # the played card
    diy = stage == ST_ACTION and played < 0
    if stage in PLAYED_STAGES and not diy:
        if played < 0:
            _fail("ctx.played_card", f"stage {stage} needs the played card")
    elif stage not in (ST_DO_OVER,) and played >= 0:
        _fail("ctx.played_card", f"no card is being played at stage {stage}")
    if played >= 0:
        zones = (IN_PLAY, TRASH) if stage == ST_DO_OVER else (IN_PLAY,)
        if s.zone[played] not in zones or s.owner[played] != leader:
            _fail("ctx.played_card", f"card {played} is not in play with the leader")
        if game.has_coin[played] and stage not in (ST_DECLARE,) and s.coin_as[played] < 0:
            _fail(f"cards[{played}].coin_as", "the played coin card's suit was declared")
    if diy and (
        s.perk_loc[DIY] != USED or ctx[C_MODE] != 1 or ctx[C_PLAYS] < 1 or ctx[C_ACTION_STEP] != 0
    ):
        _fail("ctx.played_card", "an action with no played card is DIY's (used, mode 1)")
    if stage in (ST_ANY_SUIT, ST_ADD, ST_ADD_COIN, ST_ACTION) and ctx[C_MODE] < 0:
        _fail("ctx.mode", f"stage {stage} follows the choice of a mode")
    if stage in (ST_PLAY, ST_DECLARE, ST_MODE) and ctx[C_MODE] >= 0:
        _fail("ctx.mode", f"no mode is chosen yet at stage {stage}")
    if stage in CARD_STAGES | {ST_DO_OVER} and ctx[C_PLAYS] < 1:
        _fail("ctx.plays", "a card was played this turn")
    if stage in FOLLOW_STAGES and s.game.effects[played][A.PUBLIC] is None:
        _fail("ctx.played_card", "a blank public action is not followed")
    # the coin whose suit is being declared
    pending = ctx[C_PENDING_COIN]
    if stage in (ST_DECLARE, ST_ADD_COIN):
        if pending < 0 or not game.has_coin[pending] or s.coin_as[pending] >= 0:
            _fail("ctx.pending_coin", "a coin card waiting for its suit")
        if stage == ST_DECLARE and pending != played:
            _fail("ctx.pending_coin", "the played coin card")
        if stage == ST_ADD_COIN and (not s.mark[pending] or s.owner[pending] != leader):
            _fail("ctx.pending_coin", "a coin card just added")
    elif pending >= 0:
        _fail("ctx.pending_coin", f"no coin suit is declared at stage {stage}")
    if stage == ST_ANY_SUIT:
        side = ctx[C_ANY_SUIT_SIDE]
        slot = C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE
        first, second, _ = A.MODE_PLAN[ctx[C_MODE]]
        if side not in (first, second) or not game.has_any_suit[played][side] or ctx[slot] >= 0:
            _fail("ctx.any_suit_side", "an action of the mode whose any-one-suit is not chosen")
    # perks a stage needs
    needs = {ST_FOLLOW_SECOND: (COPY_CAT, actor), ST_DO_OVER: (DO_OVER, leader),
             ST_BIRTHDAY: (BIRTHDAY_PARTY, leader),
             ST_ROUGH_HOUSING: (ROUGH_HOUSING, actor)}  # fmt: skip
    if stage in needs:
        perk, seat = needs[stage]
        if s.perk_loc[perk] != seat:
            _fail(f"perks.{PERKS[perk]}", f"stage {stage} needs seat {seat} to hold it")
    if stage == ST_FOLLOW_SECOND and not ((s.zone == FOLLOWED) & (s.owner == follower)).any():
        _fail("cards", "a second follow card comes after a first one")
    if stage == ST_DO_OVER and ctx[C_PLAYS] != 1:
        _fail("ctx.plays", "Do-Over is offered after the first play")
    if stage == ST_ROUGH_HOUSING and (actor == leader or ctx[C_ROUGH_HOUSING] != -1):
        _fail("ctx.rough_housing", "Rough Housing is offered to a rival who did not follow")
    if ctx[C_ROUGH_HOUSING] >= 0 and s.perk_loc[ROUGH_HOUSING] != USED:
        _fail("ctx.rough_housing", "Rough Housing was used: the perk is used up (-3)")
    # made-up rule and perk rewards
    reward = ctx[C_REWARD]
    want = {1: DecisionKind.PICK_RULE, 2: DecisionKind.PICK_PERK}.get(reward)
    if (want is not None) != (kind in (DecisionKind.PICK_RULE, DecisionKind.PICK_PERK)) or (
        want and kind != want
    ):
        _fail("ctx.reward", f"reward {reward} with decision {DecisionKind(kind).name}")
    if kind == DecisionKind.PICK_RULE and not (s.rule_loc == IN_STACK).any():
        _fail("made_up_rules", "a made-up rule to pick is in the stack")
    if kind == DecisionKind.PICK_PERK and not (s.perk_loc == IN_STACK).any():
        _fail("perks", "a perk to pick is in the row")
    if (ctx[C_PAY_TOYS] + ctx[C_PAY_PIZZA] + ctx[C_PAY_EITHER] > 0) != (kind == DecisionKind.PAY):
        _fail("ctx.pay_toys", "a cost is left to pay exactly at a PAY decision")


def _check_play_suits(game: FortGame, s: Any, ctx: list[int]) -> None:
    """During the leader's play of a card, ``play_suits`` counts its cards' suits (none at
    the PLAY decision and in DIY's action)."""
    stage, played = ctx[C_STAGE], ctx[C_PLAYED_CARD]
    if stage not in CARD_STAGES | {ST_PLAY}:
        return
    expected = np.zeros(NUM_SUITS, dtype=np.int64)  # at PLAY and in DIY's action: none
    cards = [played, *np.flatnonzero(s.mark).tolist()] if played >= 0 else []
    for cid in cards:
        for suit in game.suit_lists[cid]:
            if suit != COIN:
                expected[suit] += 1
            elif s.coin_as[cid] >= 0:
                expected[int(s.coin_as[cid])] += 1
    if not np.array_equal(expected, np.asarray(s.play_suits, dtype=np.int64)):
        _fail("play_suits", f"the cards in play count {expected.tolist()}")


# --------------------------------------------------------------------------- 5. program
def _check_program(game: FortGame, s: Any, ctx: list[int]) -> None:
    stage = ctx[C_STAGE]
    length, pc = ctx[C_PROGRAM_LENGTH], ctx[C_PC]
    rows = np.asarray(s.prog[:length], dtype=np.int64)
    for i, (verb, arg, lo, hi) in enumerate(rows.tolist()):
        allowed = VERB_ARGS.get(verb) if 0 <= verb < len(VERBS) else None
        args = set(allowed.values()) if allowed is not None else {0}
        if not 0 <= verb < len(VERBS) or arg not in args:
            _fail(f"program[{i}]", f"verb {verb} with argument {arg}")
        if (lo, hi) != (-1, -1) and not 0 <= lo < hi <= i:
            _fail(f"program[{i}]", f"'then' range [{lo}, {hi}) must end before row {i}")
    done = np.asarray(s.done, dtype=np.int64)
    if done[min(pc, MAX_STEPS) :].any() and stage in (ST_ACTION, ST_FOLLOW_RUN):
        _fail("program", "a row at or after the program counter is done")
    if stage not in (ST_ACTION, ST_FOLLOW_RUN):
        return
    played, mode, step = ctx[C_PLAYED_CARD], ctx[C_MODE], ctx[C_ACTION_STEP]
    if stage == ST_FOLLOW_RUN:
        effect, side, full = game.effects[played][A.PUBLIC], A.PUBLIC, True
    elif played < 0:  # DIY: advance with one more resource, used fully
        effect, side, full = (0, ADVANCE, 1), A.PRIVATE, True
    else:
        plan = A.MODE_PLAN[mode]
        side = plan[step]
        if side < 0:
            _fail("ctx.action_step", f"mode {A.MODES[mode]} has no action {step}")
        effect, full = game.effects[played][side], side == plan[2]
    if effect is None:
        _fail("ctx.program_side", "a blank action is not carried out")
    if ctx[C_PROGRAM_SIDE] != side:
        _fail("ctx.program_side", f"the running action is side {side}")
    if bool(ctx[C_PROGRAM_FULL]) != full:
        _fail("ctx.program_full", f"the running action is {'' if full else 'not '}used fully")
    steps = set(all_steps(effect))
    for i, (verb, arg, _, _) in enumerate(rows.tolist()):
        if (verb, arg) not in steps:
            _fail(f"program[{i}]", f"{VERBS[verb]}({arg}) is no step of the running action")
    if length > max_steps(effect):
        _fail("ctx.program_length", f"the running action unrolls to at most {max_steps(effect)}")
    kind, owner = ctx[C_DECISION], ctx[C_PROGRAM_OWNER]
    if kind in (DecisionKind.PICK_RULE, DecisionKind.PICK_PERK):
        if pc < 1 or rows[pc - 1][0] != ADVANCE or not done[pc - 1]:
            _fail("ctx.reward", "a reward follows the Advance Fort step just done")
        return
    if pc >= length:
        _fail("ctx.pc", f"the pending decision needs a row: pc {pc} of {length}")
    verb, arg = int(rows[pc][0]), int(rows[pc][1])
    if kind == DecisionKind.PAY:
        if verb != ADVANCE:
            _fail("ctx.decision", "a payment belongs to an Advance Fort step")
        level = int(s.players[owner, P_FORT_LEVEL])
        if level >= MAX_FORT_LEVEL:
            _fail(f"players[{owner}].fort_level", "no Advance Fort past the top level")
        t, z, e = program.cost(s, owner, arg)
        if ctx[C_PAY_TOYS] > t or ctx[C_PAY_PIZZA] > z or ctx[C_PAY_EITHER] > e:
            _fail("ctx.pay_toys", f"more left to pay than the step costs ({t}, {z}, {e})")
        return
    status = verbs.atom_status(s, owner, verb, arg)  # the engine asks only if the step can be done
    if status == NONE or (ctx[C_PROGRAM_FULL] and status != FULL):
        _fail("ctx.decision", f"row {pc} ({VERBS[verb]}) cannot be done (fully) here")
    if (
        kind == DecisionKind.STOP_OR_CONTINUE
    ):  # R3: asked only where stopping is allowed, once a step
        if ctx[C_CONTINUE_PC] == pc or not program.may_stop_before(s, pc):
            _fail("ctx.decision", f"STOP_OR_CONTINUE, but stopping before row {pc} is not offered")
        return
    need = program.choice_needed(s, owner, verb, arg)
    if need != kind:
        name = "none" if need is None else DecisionKind(need).name
        _fail(
            "ctx.decision",
            f"{DecisionKind(kind).name}, but row {pc} ({VERBS[verb]}) asks for {name}",
        )


# --------------------------------------------------------------------------- 6. go on
def _check_can_go_on(s: Any) -> None:
    """A position that is not over has a legal action; the engine computes it without error."""
    if s.ctx[C_STAGE] == ST_OVER:
        return
    try:
        legal = search.legal_actions(s)
    except (IndexError, KeyError, ValueError, AssertionError, OverflowError) as exc:
        s.legal_cache = None
        raise StateError("ctx", f"the engine cannot continue from here: {exc!r}") from None
    if not legal:
        _fail("ctx.decision", f"no legal action at {DecisionKind(int(s.ctx[C_DECISION])).name}")
    # The masks take a play already under way as completable (every action that led to it
    # was checked), so a loaded one must be: search it once, as the masks would have.
    under_way = s.ctx[C_STAGE] in SEARCHED_STAGES and s.ctx[C_STAGE] not in (ST_PLAY, ST_FOLLOW)
    if under_way and not search.search(s.clone(), int(s.ctx[C_SERIAL])):
        _fail("ctx.stage", "the play under way cannot be completed within the rules (p.7)")
