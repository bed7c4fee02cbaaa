"""Named constants of the game of Fort (rulebook pages cited per group)."""

from __future__ import annotations

# --- Suits (rulebook p.4 "Card Anatomy"). The coin is the wild suit. ---------------------
SUITS: tuple[str, ...] = ("book", "crown", "glue", "shovel", "skateboard", "squirtgun", "coin")
NUM_SUITS = len(SUITS)
COIN = SUITS.index("coin")
PLAIN_SUITS = tuple(range(COIN))  # the six suits that are not the coin

# --- Resources (rulebook p.5 "Stuff", p.12 "Gather Resource"). ---------------------------
PIZZA, TOYS = 0, 1
RESOURCES: tuple[str, ...] = ("pizza", "toys")
STUFF_CAPACITY = 4  # of each resource (rulebook p.5, player board C)

# --- Capacities and track (rulebook p.5, p.10). -------------------------------------------
MAX_FORT_LEVEL = 5
XXL_BACKPACK_BONUS = 2  # perk glossary p.16
SCORE_TRIGGER = 25  # end trigger on the Victory Track (rulebook p.10)
MACARONI_POINTS = 4  # rulebook p.10-11
HAND_SIZE = 5  # cards drawn in the Draw phase (rulebook p.9)
STARTING_KIDS = 8  # kid cards each player draws or drafts at setup (rulebook p.2)
PARK_SIZE = 3  # face-up Park row (rulebook p.2 step 8)
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# --- Card zones: where each card is. --------------------------------------------------------
PARK_DECK = 0  # facedown Park deck; `pos` orders it (lowest on top)
PARK = 1  # face-up Park row; `pos` is the slot
HAND = 2
DECK = 3  # a player's facedown deck; `pos` orders it (lowest on top)
DISCARD = 4  # a player's face-up discard pile
YARD = 5  # a player's face-up Yard
LOOKOUT = 6  # tucked under the board; rivals see only its suits
IN_PLAY = 7  # the leader's played and added cards during a turn
FOLLOWED = 8  # a follower's discarded card(s) while its follow resolves
TRASH = 9  # returned to the box
DRAFT_PACK = 10  # advanced setup: a pack being passed, held by `owner`
DRAFT_KEPT = 11  # advanced setup: kept face down by `owner`
OUT_OF_GAME = 12  # Best Friends of boards not in this game
ZONES: tuple[str, ...] = (
    "park_deck", "park", "hand", "deck", "discard", "yard", "lookout", "in_play",
    "followed", "trash", "draft_pack", "draft_kept", "out_of_game",
)  # fmt: skip

# --- Made-up rules (glossary p.15) and perks (glossary p.16): fixed names. ----------------
MADE_UP_RULES: tuple[str, ...] = (
    "Big Plans", "Friendship Bracelet", "Piggy Bank", "Pizza Party", "Loner", "Minimalism",
    "Popularity", "Play Palace", "Secret Stash", "Sleepover", "Slime Lab",
)  # fmt: skip
PERKS: tuple[str, ...] = (
    "Birthday Party", "Bribe", "Copy Cat", "DIY", "Do-Over", "Recycling", "Rough Housing",
    "Sticky Fingers", "XXL Backpack",
)  # fmt: skip
BIRTHDAY_PARTY, BRIBE, COPY_CAT, DIY, DO_OVER, RECYCLING, ROUGH_HOUSING, STICKY_FINGERS, XXL = (
    range(len(PERKS))
)
RULE_INDEX = {name: i for i, name in enumerate(MADE_UP_RULES)}

# Location codes for made-up rules and perks (>= 0 means: held by that seat).
IN_BOX = -2  # not dealt into this game
IN_STACK = -1  # rules: the facedown stack; perks: the face-up row
USED = -3  # a once-per-game perk, trashed on use

TERMINAL_PLAYER = -4  # OpenSpiel's kTerminalPlayerId
SEED_LIMIT = 2**62  # seeds are ints in [0, SEED_LIMIT): they are stored and digested as int64
# Positions one legality search may expand (the searches of one legal_actions, or a search for a
# completion begun outside any other: fort_env/game/rules/search.py, cpp/src/rules/search.cc)
# before it stops with StateError. Games of the shipped cards needed at most 3,866 (7,200
# built-in-policy playouts: scripts/search_peak.py); a state written through the views, or a
# card set whose actions branch at every step, may need exponentially many. The C++ core
# expanded ~250k a second in an inline timing, so this bounds the time one call holds the GIL
# to about 0.4 s (issue 42, docs/reliability.md).
SEARCH_NODE_BUDGET = 100_000
