// fort_env/game/rules/deal.py in C++ (see include/fort/rules/deal.h). Every step follows the Python
// function of the same name, in the same order, so both draw the same numbers.
#include "fort/rules/deal.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "fort/rules/base.h"
#include "fort/rules/flow.h"

namespace fort {

namespace {

// Ids (ascending) of the cards in `zone` held by `p` (any owner if p is ignored).
std::vector<int> cards_of(const State& s, int zone, int p) {
    std::vector<int> ids;
    for (int c = 0; c < s.num_cards; ++c)
        if (s.zone[c] == zone && s.owner[c] == p) ids.push_back(c);
    return ids;
}

// Python's negative indexing of the card arrays: -1 is the last card.
int py_index(const State& s, int cid) { return cid < 0 ? s.num_cards + cid : cid; }

}  // namespace

State new_state(std::shared_ptr<const Game> game_ptr, uint64_t seed, int first_player) {
    const Game& game = *game_ptr;
    State s = empty_state(std::move(game_ptr));
    s.ctx[C_SEED] = static_cast<int64_t>(seed);
    EventRng rng = event_rng(s);
    const int n = game.num_players;
    const int first = first_player < 0 ? static_cast<int>(rng.below(n)) : first_player;
    s.ctx[C_FIRST_PLAYER] = s.ctx[C_LEADER] = first;
    // Made-up rules: a facedown stack of N+1 (step 6); perks: a face-up row of N+1 (step 7).
    std::fill(s.rule_loc.begin(), s.rule_loc.end(), static_cast<int8_t>(IN_BOX));
    auto rules = rng.permutation(NUM_MADE_UP_RULES);
    for (int i = 0; i <= n && i < NUM_MADE_UP_RULES; ++i) s.rule_loc[rules[i]] = IN_STACK;
    std::fill(s.perk_loc.begin(), s.perk_loc.end(), static_cast<int8_t>(IN_BOX));
    auto perks = rng.permutation(NUM_PERKS);
    for (int i = 0; i <= n && i < NUM_PERKS; ++i) s.perk_loc[perks[i]] = IN_STACK;
    // Best Friends by board; the rest of the boards' friends stay in the box.
    for (int cid = 0; cid < game.num_cards; ++cid) {
        if (game.is_best_friend[cid]) {
            int seat = -1;
            for (int p = 0; p < n; ++p) {
                if (game.seat_board[p] == game.card_board[cid]) {
                    seat = p;
                    break;
                }
            }
            s.zone[cid] = static_cast<int8_t>(seat >= 0 ? Z_DECK : Z_OUT_OF_GAME);
            s.owner[cid] = static_cast<int8_t>(seat);
        } else {
            s.zone[cid] = Z_PARK_DECK;
        }
    }
    shuffle_park_deck(s, rng);
    for (int slot = 0; slot < PARK_SIZE; ++slot) refill_park(s, slot);
    // Each player draws 8 kid cards (step 9) or drafts them (advanced setup).
    for (int p = 0; p < n; ++p) {
        for (int k = 0; k < STARTING_KIDS; ++k) {
            // As the Python engine: an empty Park deck gives -1, which indexes the last card.
            const int cid = py_index(s, top_of_park_deck(s));
            s.zone[cid] = static_cast<int8_t>(game.advanced ? Z_DRAFT_PACK : Z_DECK);
            s.owner[cid] = static_cast<int8_t>(p);
        }
    }
    if (!game.advanced) {
        finish_setup(s, game);
    } else {
        s.ctx[C_DRAFT_ROUND] = 0;
        s.ctx[C_STAGE] = ST_DRAFT;
        set_decision(s, K_DRAFT, first);
    }
    return s;
}

void finish_setup(State& state, const Game& game) {
    EventRng rng = event_rng(state);
    for (int p = 0; p < game.num_players; ++p) {
        std::vector<int> ids;
        for (int c = 0; c < state.num_cards; ++c)
            if (state.owner[c] == p && (state.zone[c] == Z_DECK || state.zone[c] == Z_DRAFT_KEPT))
                ids.push_back(c);
        const auto order = rng.permutation(static_cast<int64_t>(ids.size()));
        for (size_t i = 0; i < ids.size(); ++i) {
            state.zone[ids[i]] = Z_DECK;
            state.pos[ids[i]] = static_cast<int16_t>(order[i]);
        }
        draw(state, p, HAND_SIZE);
    }
    begin_turn(state);
}

EventRng event_rng(State& state) {
    const int64_t count = state.ctx[C_SHUFFLES];
    state.ctx[C_SHUFFLES] = count + 1;
    return EventRng(static_cast<uint64_t>(state.ctx[C_SEED]), static_cast<uint64_t>(count));
}

void shuffle_park_deck(State& state, EventRng& rng) {
    std::vector<int> ids;
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_PARK_DECK) ids.push_back(c);
    const auto order = rng.permutation(static_cast<int64_t>(ids.size()));
    for (size_t i = 0; i < ids.size(); ++i) state.pos[ids[i]] = static_cast<int16_t>(order[i]);
}

int top_of_park_deck(const State& state) {
    int best = -1;
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_PARK_DECK && (best < 0 || state.pos[c] < state.pos[best]))
            best = c;  // strict <: the first of equal positions, as numpy's argmin
    return best;
}

void refill_park(State& state, int slot) {
    const int cid = top_of_park_deck(state);
    if (cid >= 0) {
        state.zone[cid] = Z_PARK;
        state.pos[cid] = static_cast<int16_t>(slot);
    }
}

void draw(State& state, int p, int n) {
    while (n > 0) {
        std::vector<int> ids = cards_of(state, Z_DECK, p);
        if (ids.empty()) {
            const std::vector<int> pile = cards_of(state, Z_DISCARD, p);
            if (pile.empty()) return;
            const auto order = event_rng(state).permutation(static_cast<int64_t>(pile.size()));
            for (size_t i = 0; i < pile.size(); ++i) {
                state.zone[pile[i]] = Z_DECK;
                state.pos[pile[i]] = static_cast<int16_t>(order[i]);
            }
            ids = pile;
        }
        // lowest pos on top; ties keep id order (numpy's stable argsort)
        std::stable_sort(ids.begin(), ids.end(),
                         [&](int a, int b) { return state.pos[a] < state.pos[b]; });
        const size_t take = std::min(ids.size(), static_cast<size_t>(n));
        for (size_t i = 0; i < take; ++i) state.zone[ids[i]] = Z_HAND;
        n -= static_cast<int>(take);
    }
}

}  // namespace fort
