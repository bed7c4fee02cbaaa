// Turn flow: the C++ twin of fort_env/game/rules/flow.py: the phases of a turn (p.6-p.10) from
// Cleanup to Draw, the followers' round (p.8), recruiting (p.9), Do-Over and Birthday Party
// (p.16), and the end triggers (p.10).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fort/game/state.h"

namespace fort {

// flow.used_sides: the played card's actions the mode uses, in order (one or two sides).
struct Sides {
    int n = 0;
    int side[2] = {-1, -1};
    int size() const { return n; }
    int operator[](int i) const { return side[i]; }
    const int* begin() const { return side; }
    const int* end() const { return side + n; }
};

// flow.leader_suits: up to 2 distinct suits, in the played card's order.
struct SuitList {
    int n = 0;
    int suit[2] = {-1, -1};
    int size() const { return n; }
    int operator[](int i) const { return suit[i]; }
    const int* begin() const { return suit; }
    const int* end() const { return suit + n; }
};

// flow.follow_counts' result: a follower's suit counts and its "any one suit".
struct FollowCounts {
    std::array<int16_t, NUM_SUITS> counts{};
    int any_suit = -1;
};

void begin_turn(State& state);            // flow.begin_turn (Cleanup, p.7)
void to_play(State& state);               // flow.to_play (Play phase, p.7)
void after_declare_played(State& state);  // flow.after_declare_played
Sides used_sides(const State& state);     // flow.used_sides
void after_mode(State& state);            // flow.after_mode (p.6-7, p.13)
void start_action(State& state, int step);  // flow.start_action
void end_leader_play(State& state);       // flow.end_leader_play (p.8)
void next_follower(State& state, int after);  // flow.next_follower (p.8, p.16 R16)
void start_follow_program(State& state);  // flow.start_follow_program
FollowCounts follow_counts(const State& state, const std::vector<int>& cards);  // R11
SuitList leader_suits(const State& state);  // flow.leader_suits (p.8)
void end_follow(State& state);            // flow.end_follow
void after_follow(State& state);          // flow.after_follow (p.12, p.16)
bool recruit_options(const State& state, int p, bool yards);  // flow.recruit_options
void to_recruit(State& state);            // flow.to_recruit (p.9)
void to_birthday(State& state);           // flow.to_birthday (p.16)
void end_turn(State& state);              // flow.end_turn (Discard and Draw, p.9; p.10)
void check_end(State& state);             // flow.check_end (end triggers, p.10)

}  // namespace fort
