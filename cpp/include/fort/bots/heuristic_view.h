// The heuristic bots' view of a position from one seat (rollout_policy.h): what
// fort_env.views.seat.SeatView.from_state gives HeuristicAgent (agents/bots/heuristics.py), read
// straight from the state. Only what the seat sees: its own hand, Lookout and made-up rule, the
// public zones, resources, levels, scores, perks and the pending decision's public context.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "fort/constants.h"
#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort::heuristic {

// What SeatView.from_state gives the heuristic (relative seat r: absolute (p + r) % n).
struct View {
    const State& s;
    const Game& g;
    int p;
    int n;
    int kind;
    int played;        // the leader's played card, -1
    int running_side;  // StateArrays.running_side
    int leader_resource;
    int my_rule = -1;
    std::vector<int> hand, lookout;

    View(const State& state, int seat)
        : s(state),
          g(*state.game),
          p(seat),
          n(state.num_players),
          kind(static_cast<int>(state.ctx[C_DECISION])),
          played(state.ctx[C_PLAYED_CARD] >= 0 ? static_cast<int>(state.ctx[C_PLAYED_CARD]) : -1),
          running_side(-1),
          leader_resource(static_cast<int>(state.ctx[C_LEADER_RESOURCE])) {
        const int64_t stage = state.ctx[C_STAGE];
        if (stage == OBS_RUNNING_STAGES[0] || stage == OBS_RUNNING_STAGES[1])
            running_side = static_cast<int>(state.ctx[C_PROGRAM_SIDE]);
        for (int i = 0; i < NUM_MADE_UP_RULES; ++i)
            if (state.rule_loc[i] == seat) {
                my_rule = i;
                break;
            }
        for (int c = 0; c < state.num_cards; ++c) {
            if (state.owner[c] != seat) continue;
            if (state.zone[c] == Z_HAND) hand.push_back(c);
            if (state.zone[c] == Z_LOOKOUT) lookout.push_back(c);
        }
    }
    int seat(int r) const { return (p + r) % n; }
    // resources[r]: Stuff pizza, Stuff toys, Pack pizza, Pack toys of relative seat r
    int res(int r, int k) const { return s.player(seat(r), P_STUFF_PIZZA + k); }
    int level(int r) const { return s.player(seat(r), P_FORT_LEVEL); }
    int score(int r) const { return s.player(seat(r), P_SCORE); }
    int pack_capacity(int r = 0) const {
        const int cap = level(r) + 1;
        return s.perk_loc[PERK_XXL_BACKPACK] == seat(r) ? cap + static_cast<int>(XXL_BACKPACK_BONUS)
                                                        : cap;
    }
    int stuff_room(int resource) const {
        return static_cast<int>(STUFF_CAPACITY) - res(0, resource);
    }
    bool in_hand(int c) const { return std::find(hand.begin(), hand.end(), c) != hand.end(); }
    bool in_lookout(int c) const {
        return std::find(lookout.begin(), lookout.end(), c) != lookout.end();
    }
    // the relative seat whose Yard holds c (0 if none)
    int rival_yard_owner(int c) const {
        if (s.zone[c] != Z_YARD || s.owner[c] < 0 || s.owner[c] == p) return 0;
        return (s.owner[c] - p + n) % n;
    }
    bool mine_owned(int c) const {
        if (s.owner[c] != p) return false;
        const int64_t z = s.zone[c];
        return z == Z_HAND || z == Z_DECK || z == Z_DISCARD || z == Z_YARD || z == Z_LOOKOUT;
    }
    // suit counts of all my cards (SeatView.all_my_cards)
    std::array<int, NUM_SUITS> my_suits() const {
        std::array<int, NUM_SUITS> out{};
        for (int c = 0; c < s.num_cards; ++c)
            if (mine_owned(c))
                for (int k = 0; k < NUM_SUITS; ++k) out[k] += g.suit_counts[c * NUM_SUITS + k];
        return out;
    }
    int suit_count(int c, int k) const { return g.suit_counts[c * NUM_SUITS + k]; }
};

}  // namespace fort::heuristic
