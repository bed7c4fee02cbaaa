// The game state as flat arrays: the C++ twin of fort_env/state_arrays.py (layout in
// docs/state.md). Field names, dtypes and shapes are those of state_arrays.ARRAYS; the scalar
// context ctx is indexed by the generated C_* constants (constants.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "fort/constants.h"
#include "fort/game.h"

namespace fort {

struct State {
    std::shared_ptr<const Game> game;  // the facts, shared by every state of the game
    int num_cards = 0;
    int num_players = 0;
    std::vector<int8_t> zone;        // (num_cards,) zone code (Z_*)
    std::vector<int8_t> owner;       // (num_cards,) seat, -1 for none
    std::vector<int16_t> pos;        // (num_cards,) order in a deck / Park slot
    std::vector<int8_t> mark;        // (num_cards,) 1: added to the current play
    std::vector<int8_t> coin_as;     // (num_cards,) declared suit of a coin, -1
    std::vector<int16_t> players;    // (num_players, NUM_PLAYER_FIELDS) row-major
    std::vector<int8_t> rule_loc;    // (NUM_MADE_UP_RULES,) seat, IN_STACK, IN_BOX
    std::vector<int8_t> perk_loc;    // (NUM_PERKS,) seat, IN_STACK, IN_BOX, USED
    std::vector<int16_t> play_suits; // (NUM_SUITS,)
    std::vector<int16_t> prog;       // (MAX_STEPS, PROG_COLUMNS) row-major
    std::vector<int8_t> done;        // (MAX_STEPS,)
    std::array<int64_t, NUM_CTX> ctx{};

    int16_t& player(int seat, int64_t field) { return players[seat * NUM_PLAYER_FIELDS + field]; }
    int16_t player(int seat, int64_t field) const {
        return players[seat * NUM_PLAYER_FIELDS + field];
    }
};

// StateArrays.empty: zeros, owner and coin_as -1, ctx at its defaults; holds `game`, which
// must be validate()d and not null.
State empty_state(std::shared_ptr<const Game> game);

}  // namespace fort
