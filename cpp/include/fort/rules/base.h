// Shared pieces of the rules: the C++ twin of fort_env/game/rules/base.py (decision kinds, step
// statuses and the BOTH_FULL_TAIL / REWARD_* flags are generated into constants.h), small
// queries on a seat (capacities, perks, rivals) that every rules module uses, and the
// StateArrays accessors (cards_in, count_in) the rules call.
#pragma once

#include <cstdint>
#include <vector>

#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// The rivals of seat p in turn order (base.rivals): p+1, p+2, ... mod num_players.
struct Rivals {
    int n = 0;
    int seat[MAX_RIVALS] = {};
    int size() const { return n; }
    int operator[](int k) const { return seat[k]; }
    const int* begin() const { return seat; }
    const int* end() const { return seat + n; }
};

// base.rivals
inline Rivals rivals(const State& state, int p) {
    Rivals r;
    const int n = state.num_players;
    r.n = n - 1;
    for (int k = 1; k < n; ++k) r.seat[k - 1] = (p + k) % n;
    return r;
}

// base.pack_capacity: Fort Level + 1, +2 with XXL Backpack (p.5, p.16)
inline int pack_capacity(const State& state, int p) {
    const int cap = state.player(p, P_FORT_LEVEL) + 1;
    return state.perk_loc[PERK_XXL_BACKPACK] == p ? cap + static_cast<int>(XXL_BACKPACK_BONUS)
                                                   : cap;
}

// base.lookout_capacity: Fort Level + 1 (p.5)
inline int lookout_capacity(const State& state, int p) {
    return state.player(p, P_FORT_LEVEL) + 1;
}

// base.has_perk
inline bool has_perk(const State& state, int p, int64_t perk) {
    return state.perk_loc[perk] == p;
}

// base.is_leader
inline bool is_leader(const State& state, int p) { return state.ctx[C_LEADER] == p; }

// base.can_recycle: p holds Recycling, it is p's turn, and p's discard pile has a card
// (p.16 "Anytime on your turn"; docs/rules.md R15)
inline bool can_recycle(const State& state, int p) {
    if (state.perk_loc[PERK_RECYCLING] != p || state.ctx[C_LEADER] != p) return false;
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_DISCARD && state.owner[c] == p) return true;
    return false;
}

// base.RECYCLE_STAGES: the stages at whose decisions the leader may use Recycling: the Play
// decision, the leader's actions (ST_PROBE: the search's witness runs of them), Do-Over, the
// Recruit phase and Birthday Party (docs/rules.md R15)
inline bool recycle_stage(int64_t stage) {
    return stage == ST_PLAY || stage == ST_ACTION || stage == ST_PROBE || stage == ST_DO_OVER ||
           stage == ST_RECRUIT || stage == ST_BIRTHDAY;
}

// base.set_decision
inline void set_decision(State& state, int64_t kind, int64_t player) {
    state.ctx[C_DECISION] = kind;
    state.ctx[C_ACTOR] = player;
}

// base.mults: an action's multipliers (mult, arg) in cards.multipliers order; none if blank.
inline const std::vector<Mult>& mults(const Game& game, int32_t effect) {
    static const std::vector<Mult> none;
    return effect < 0 ? none : game.node_mults[effect];
}

// base.repeats_plain_body: one body (a step or a "then" chain) repeated by one multiplier,
// the body itself without multipliers: (X -> Y) x suit.
inline bool repeats_plain_body(const Game& game, int32_t effect) {
    return effect >= 0 && game.nodes[effect].kind == E_REPEAT &&
           game.node_mults[game.nodes[effect].a].empty();
}

// StateArrays.count_in: how many cards of `seat` are in `zone`.
inline int count_in(const State& state, int64_t zone, int seat) {
    int k = 0;
    for (int c = 0; c < state.num_cards; ++c)
        k += state.zone[c] == zone && state.owner[c] == seat;
    return k;
}

inline constexpr int ANY_SEAT = -99;  // cards_in's "seat is None"

// StateArrays.cards_in: ids (ascending) of the cards in `zone` of `seat` (of any seat if
// ANY_SEAT).
inline std::vector<int> cards_in(const State& state, int64_t zone, int seat = ANY_SEAT) {
    std::vector<int> ids;
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == zone && (seat == ANY_SEAT || state.owner[c] == seat))
            ids.push_back(c);
    return ids;
}

}  // namespace fort
