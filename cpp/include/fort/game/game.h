// The game's facts: the C++ twin of fort_env/game/facts.py (GameFacts) and core.FortGame. Python
// flattens them (fort_env/native/backend.py: game_tables) and hands them over as numpy arrays and
// ints; C++ parses no text and checks every table at the boundary (validate()). One Game is
// shared, read-only, by every State of that game (State::game).
//
// Owner: A (rules). B and C add their fields in their own marked blocks below (and their
// checks where the block is built, and the loaders load_game_mask / load_game_views in their
// *_bind.cc; see cpp/bindings/bind_common.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fort/constants.h"
#include "fort/game/search_tables.h"  // mask path (B): SearchTables

namespace fort {

// One node of an effect tree (fort_env/game/cards.py: (ATOM, verb, arg), (THEN, left, right),
// (REPEAT, body, mult, mult_arg)), children named by their index in Game::nodes.
struct EffectNode {
    int32_t kind = 0;  // E_ATOM, E_THEN, E_REPEAT
    int32_t a = 0;     // ATOM: verb; THEN: left node; REPEAT: body node
    int32_t b = 0;     // ATOM: arg; THEN: right node; REPEAT: mult (MULT_*)
    int32_t c = 0;     // REPEAT: mult_arg; else 0
};

// One multiplier (cards.multipliers): its kind and argument.
struct Mult {
    int32_t mult = 0;
    int32_t arg = 0;
};

// The cost of one Fort step (cards.FortStep): toys, pizza, either.
struct FortStep {
    int32_t toys = 0;
    int32_t pizza = 0;
    int32_t either = 0;
};

// What a Fort step costs with a card's cost modifier (game.advance_cost's tuple).
struct Cost {
    int32_t toys = 0;
    int32_t pizza = 0;
    int32_t either = 0;
};

// game.advance_cost: (toys, pizza, either) to pay for Fort step `step` with a card's cost
// modifier -1, 0 or +1 (p.13; docs/rules.md R25: -1 removes one printed resource of the
// payer's choice, which for a step printing both is one toy and one pizza turned into one
// "either" unit).
inline Cost advance_cost(const FortStep& step, int modifier) {
    Cost c{step.toys, step.pizza, step.either};
    if (modifier > 0) {
        c.either += modifier;
    } else if (modifier < 0) {
        if (c.toys > 0 && c.pizza > 0) {
            c = Cost{c.toys - 1, c.pizza - 1, c.either + 1};
        } else if (c.toys > 0) {
            c.toys -= 1;
        } else if (c.pizza > 0) {
            c.pizza -= 1;
        } else {
            c.either = c.either - 1 > 0 ? c.either - 1 : 0;
        }
    }
    return c;
}

struct Game {
    // --- phase 1 (the deal)
    int num_players = 0;
    bool advanced = false;                // setup: "basic" (false) or "advanced" (true)
    int num_cards = 0;
    std::vector<uint8_t> is_best_friend;  // per card: a Best Friend (marked B)
    std::vector<int32_t> card_board;      // per card: index into the card set's boards, -1
    std::vector<int32_t> seat_board;      // per seat: index of the board it plays
    // --- end phase 1

    // --- rules (A): the card programs and the facts the apply path reads
    // Effect trees, flattened (native.backend._apply_path_tables); an effect is named by the
    // index of its root node, -1 for a blank action.
    std::vector<EffectNode> nodes;
    std::vector<int32_t> card_effects;    // (num_cards, 2): root of public / private, -1
    std::vector<int8_t> suit_lists;       // (num_cards, 2): the card's suits, -1 padded
    std::vector<int16_t> suit_counts;     // (num_cards, NUM_SUITS): GameFacts.suit_counts
    std::vector<int32_t> kind;            // per card: index of its design (Card.kind)
    std::array<FortStep, MAX_FORT_LEVEL> fort_steps{};  // fort_steps[L]: cost from L to L+1
    std::array<int32_t, MAX_FORT_LEVEL + 1> level_points{};  // points of Fort Level 0..5
    std::array<int32_t, NUM_RANGES> action_start{};  // ActionLayout: start of each range
    int num_actions = 0;                   // ActionLayout.num_actions
    // Derived by build_rules() (as GameFacts.__init__ and FortGame do in Python):
    bool rules_built = false;
    int32_t diy_effect = -1;               // handlers.on_use_diy's (ATOM, ADVANCE, 1)
    std::vector<std::vector<Mult>> node_mults;  // per node: cards.multipliers(node)
    std::vector<int32_t> node_atoms;       // per node: steps of unroll(node, no counts) if
                                           // it has no multiplier, else -1
    std::vector<uint8_t> has_coin;         // per card: COIN in its suits
    std::vector<uint8_t> has_any_suit;     // (num_cards, 2): a "x any_suit" multiplier
    std::vector<uint8_t> improvable;       // (num_cards, 2): a "x suit"/"x any_suit" one
    std::vector<int16_t> action_range;     // per action: its range (R_*) (ActionLayout.decode)
    std::vector<int32_t> action_index;     // per action: its index within the range

    // The root of card `c`'s public (side 0) or private (side 1) action, -1 if blank.
    int32_t effect(int c, int side) const { return card_effects[2 * c + side]; }

    // Checks the phase-1 and rules (A) tables; throws std::invalid_argument naming the table.
    void validate_rules() const;
    // validate_rules(), then fill the derived tables (the DIY node appended to nodes). Called
    // once the rules' tables are loaded (rules_bind.cc: load_game_rules); a second call does
    // nothing.
    void build_rules();
    // --- end rules (A)

    // --- mask path (B)
    // The exact-mask search's per-card tables (search.SearchTables), derived from the rules'
    // tables after build_rules() (mask_bind.cc: load_game_mask).
    SearchTables search_tables;
    // --- end mask path (B)

    // --- views (C)
    // observation, scoring, hidden (fort_env/views/observation.py, scoring.py, hidden.py); filled
    // from game_tables' "views (C)" block by load_game_views, then build_views().
    std::vector<int32_t> suit_class;        // per card: smallest id with the same suits
                                            // (hidden.suit_class)
    std::vector<int32_t> printed_advances;  // per card: Advance Fort steps printed on its
                                            // two actions (scoring: Big Plans)
    std::array<int64_t, NUM_OBS_SLICES + 1> obs_offset{};  // observation slices' offsets
                                                           // for num_cards; last: the size
    // Checks the views' tables (and suit_counts' size); fills obs_offset (observation.cc).
    // Throws std::invalid_argument naming the table.
    void build_views();
    // --- end views (C)

    // Checks sizes and ranges of every table; throws std::invalid_argument naming the table.
    void validate() const;
};

}  // namespace fort
