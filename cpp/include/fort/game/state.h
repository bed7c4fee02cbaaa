// The game state as flat arrays: the C++ twin of fort_env/game/state_arrays.py (layout in
// docs/state.md). Field names, dtypes and shapes are those of state_arrays.ARRAYS; the scalar
// context ctx is indexed by the generated C_* constants (constants.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "fort/constants.h"
#include "fort/game/game.h"

namespace fort {

// The legal actions of one position, kept by the State they were computed on
// (search.h cached_legal_actions), with the bytes of that position: they are reused only while
// every array and ctx still equal those bytes. Python writes into a State's arrays through
// zero-copy numpy views that C++ cannot see, so a flag alone could not say the position is
// unchanged; a byte comparison (~2 KB, tens of ns) can, whoever wrote.
//
// A copy of a State starts with an empty cache: the search copies States all the time
// (ScratchState) and never reads their caches, and a clone from Python is usually played on
// at once (the cache would be stale after its first action anyway).
struct LegalCache {
    bool valid = false;
    std::vector<uint8_t> position;  // state_bytes() of the position `legal` belongs to
    std::vector<int> legal;         // ascending; empty once the game is over

    LegalCache() = default;
    LegalCache(const LegalCache& /*other*/) {}
    LegalCache& operator=(const LegalCache& /*other*/) {
        valid = false;
        return *this;
    }
    LegalCache(LegalCache&&) noexcept = default;
    LegalCache& operator=(LegalCache&&) noexcept = default;
    ~LegalCache() = default;
};

// A new field is copied by ScratchState::copy_of (search.cc) too, which copies field by field.
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
    LegalCache legal_cache;          // not part of the position (see LegalCache)

    int16_t& player(int seat, int64_t field) { return players[seat * NUM_PLAYER_FIELDS + field]; }
    int16_t player(int seat, int64_t field) const {
        return players[seat * NUM_PLAYER_FIELDS + field];
    }
};

// Whether the game is over (core.FortState.is_terminal).
inline bool is_over(const State& state) { return state.ctx[C_STAGE] == ST_OVER; }

// Every array of the state (state_arrays.ARRAYS' order) and ctx, as bytes, into `out`
// (resized; its storage reused).
void state_bytes(const State& s, std::vector<uint8_t>& out);

// Whether the state's arrays and ctx equal `bytes` (as state_bytes wrote them), byte for byte.
bool same_bytes(const State& s, const std::vector<uint8_t>& bytes);

// StateArrays.empty: zeros, owner and coin_as -1, ctx at its defaults; holds `game`, which
// must be validate()d and not null.
State empty_state(std::shared_ptr<const Game> game);

}  // namespace fort
