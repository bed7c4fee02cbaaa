// Cheap sufficient tests of the exact-mask search: the C++ twin of
// fort_env/game/rules/witness.py. Dead cards and modes (no step can start), and witness runs that
// complete a play without searching (docs/rules.md R32, rulebook p.6-8).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "fort/game/state.h"
#include "fort/rules/search.h"

namespace fort {

// witness.dead_modes_of_choice: at a PLAY, MODE or FOLLOW decision, the test
// `action -> true` for a card or mode that provably cannot be used; `active` false at other
// decisions (Python returns None there).
struct DeadTest {
    enum Kind : uint8_t { NONE, PLAY, MODE, FOLLOW };
    Kind kind = NONE;
    std::array<bool, 6> mode_flags{};  // MODE: dead_modes of the played card
    bool active() const { return kind != NONE; }
    bool operator()(State& state, int a) const;
};
DeadTest dead_modes_of_choice(State& state);

// witness.statuses: atom_status of each atom for `p` as at the start of an action (no
// resource chosen, no conversion direction, no payment under way).
void statuses(State& state, int p, const Atom* atoms, int n, int* out);

// witness.dead_modes: per mode of `card` (MODE_PLAN order), true when that way to use it
// provably cannot be completed by the leader now.
std::array<bool, 6> dead_modes(State& state, int card);

// witness.runs_straight_through: a sufficient test that playing card `a` (or choosing mode
// `a`, or following with card `a`) can be completed.
bool runs_straight_through(State& state, int a);

// witness.suits_if_played: the suits in play right after playing `card` (before adding), as
// (declared coin suit or -1, counts): one entry, or two for a coin (its lowest counted suit and
// its lowest uncounted one). A fixed-size list: the witness asks for it at every play tested.
struct PlayedSuits {
    using Entry = std::pair<int, std::array<int16_t, NUM_SUITS>>;
    std::array<Entry, 2> entries{};
    int size = 0;
    const Entry* begin() const { return entries.data(); }
    const Entry* end() const { return entries.data() + size; }
};
PlayedSuits suits_if_played(const State& state, int card, int side);

// witness.follow_plainly_usable: the counting witness for a follow with `card`.
bool follow_plainly_usable(State& state, int card);

// witness.plainly_usable: the simplest actions (one step, repeated or not) that `p` can do
// fully right now by plain counting. The action is side `side` of card `card`.
bool plainly_usable(State& state, int p, int card, int side, const int16_t* suits, int playing,
                    int any_suit = -1, int resource = -1);

}  // namespace fort
