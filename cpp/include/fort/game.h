// The game's facts: the C++ twin of fort_env/game.py (GameFacts) and core.FortGame. Python
// flattens them (fort_env/cpp_backend.py: game_tables) and hands them over as numpy arrays and
// ints; C++ parses no text and checks every table at the boundary (validate()). One Game is
// shared, read-only, by every State of that game (State::game).
//
// Owner: A (rules) after the skeleton commit. B and C add their fields in their own marked
// blocks below (and the matching checks in src/game.cc, and the loaders load_game_mask /
// load_game_views in their *_bind.cc; see cpp/bindings/bind_common.h).
#pragma once

#include <cstdint>
#include <vector>

#include "fort/constants.h"

namespace fort {

struct Game {
    // --- phase 1 (the deal)
    int num_players = 0;
    bool advanced = false;                // setup: "basic" (false) or "advanced" (true)
    int num_cards = 0;
    std::vector<uint8_t> is_best_friend;  // per card: a Best Friend (marked B)
    std::vector<int32_t> card_board;      // per card: index into the card set's boards, -1
    std::vector<int32_t> seat_board;      // per seat: index of the board it plays
    // --- end phase 1

    // --- rules (A)
    // --- end rules (A)

    // --- mask path (B)
    // --- end mask path (B)

    // --- views (C)
    // --- end views (C)

    // Checks sizes and ranges of every table; throws std::invalid_argument naming the table.
    void validate() const;
};

}  // namespace fort
