// fort_env/views/hidden.py in C++ (see include/fort/views/hidden.h). The steps, their order and
// every draw are those of hidden.resample_hidden_seeded (its docstring is the spec); the comments
// number them as it does.
#include "fort/views/hidden.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "fort/constants.h"
#include "fort/game/errors.h"
#include "fort/game/rng.h"
#include "fort/rules/search.h"

namespace fort {

namespace {

bool in_hidden_rival_zone(int64_t z) {
    for (const int64_t h : HIDDEN_RIVAL_ZONES)
        if (z == h) return true;
    return false;
}

// One hidden slot: where a hidden card lies, as the observer sees it.
struct Slot {
    int64_t zone, owner, sig, mark, coin_as;  // sig: suit class for a Lookout slot, else -1
    auto key() const { return std::tie(zone, owner, sig, mark, coin_as); }
};

// The counts of the exact fill check (hidden.py's docstring): B[p][k] unplaced Best Friends
// of seat p and suit class k, L[p][k] open Lookout slots, H[p] open hand and deck slots,
// N[k] free cards of class k.
struct Counts {
    int64_t num_cards;
    std::vector<int64_t> B, L, N;
    std::array<int64_t, MAX_PLAYERS> H{};
    explicit Counts(int64_t c)
        : num_cards(c),
          B(static_cast<size_t>(MAX_PLAYERS * c), 0),
          L(static_cast<size_t>(MAX_PLAYERS * c), 0),
          N(static_cast<size_t>(c), 0) {}
    int64_t& b(int64_t p, int64_t k) { return B[p * num_cards + k]; }
    int64_t& l(int64_t p, int64_t k) { return L[p * num_cards + k]; }
    bool fillable() const {
        for (int64_t p = 0; p < MAX_PLAYERS; ++p) {
            int64_t over = 0;
            for (int64_t k = 0; k < num_cards; ++k)
                over += std::max<int64_t>(B[p * num_cards + k] - L[p * num_cards + k], 0);
            if (over > H[p]) return false;
        }
        for (int64_t k = 0; k < num_cards; ++k) {
            int64_t shortage = 0;
            for (int64_t p = 0; p < MAX_PLAYERS; ++p)
                shortage += std::max<int64_t>(L[p * num_cards + k] - B[p * num_cards + k], 0);
            if (shortage > N[k]) return false;
        }
        return true;
    }
};

// One try of the re-deal (hidden.py _redeal: steps 1-6), drawing from `r`.
State redeal(const State& state, int observer, EventRng& r) {
    State s = state;  // clone
    const Game& g = *s.game;
    const int64_t nc = g.num_cards;

    // 1. The observer's own deck: same cards, new order.
    std::vector<int64_t> own_deck;
    for (int64_t c = 0; c < nc; ++c)
        if (s.zone[c] == Z_DECK && s.owner[c] == observer) own_deck.push_back(c);
    {
        const std::vector<int64_t> perm = r.permutation(static_cast<int64_t>(own_deck.size()));
        for (size_t i = 0; i < own_deck.size(); ++i)
            s.pos[own_deck[i]] = static_cast<int16_t>(perm[i]);
    }

    // 2. The hidden slots, in canonical order, and the hidden cards, by id.
    std::vector<uint8_t> hidden(static_cast<size_t>(nc), 0);
    for (int64_t c = 0; c < nc; ++c) {
        const int64_t z = s.zone[c], o = s.owner[c];
        hidden[c] = z == Z_PARK_DECK || (o >= 0 && o != observer && in_hidden_rival_zone(z));
    }
    const int64_t pending = s.ctx[C_PENDING_COIN];
    if (pending >= 0) {
        if (pending >= nc) throw std::out_of_range("resample_hidden: pending_coin out of range");
        hidden[pending] = 0;
    }
    std::vector<int64_t> cards;
    for (int64_t c = 0; c < nc; ++c)
        if (hidden[c]) cards.push_back(c);
    std::vector<Slot> slots;
    for (const int64_t c : cards) {
        const int64_t z = s.zone[c];
        slots.push_back(Slot{z, s.owner[c], z == Z_LOOKOUT ? g.suit_class[c] : -1, s.mark[c],
                             s.coin_as[c]});
    }
    std::sort(slots.begin(), slots.end(),
              [](const Slot& a, const Slot& b) { return a.key() < b.key(); });
    const size_t num_slots = slots.size();
    std::vector<int64_t> filled(num_slots, -1);  // slot -> card

    std::vector<int64_t> bound, free_cards;  // friends: their owner's slots; the others
    for (const int64_t c : cards)
        (g.is_best_friend[c] && s.owner[c] >= 0 ? bound : free_cards).push_back(c);
    Counts n(nc);
    for (const int64_t c : free_cards) ++n.N[g.suit_class[c]];
    for (const int64_t c : bound) ++n.b(s.owner[c], g.suit_class[c]);
    for (const Slot& sl : slots) {
        if (sl.owner >= 0 && (sl.zone == Z_HAND || sl.zone == Z_DECK))
            ++n.H[sl.owner];
        else if (sl.zone == Z_LOOKOUT && sl.owner >= 0)
            ++n.l(sl.owner, sl.sig);
    }

    // 2a. Best Friends held by rivals, each to an open slot of its owner.
    std::vector<size_t> options;
    for (const int64_t c : bound) {
        const int64_t p = s.owner[c], k = g.suit_class[c];
        --n.b(p, k);
        --n.H[p];
        const bool to_pile = n.H[p] >= 0 && n.fillable();
        ++n.H[p];
        --n.l(p, k);
        const bool to_lookout = n.l(p, k) >= 0 && n.fillable();
        ++n.l(p, k);
        options.clear();
        for (size_t j = 0; j < num_slots; ++j) {
            const Slot& sl = slots[j];
            if (filled[j] >= 0 || sl.owner != p) continue;
            if ((to_pile && (sl.zone == Z_HAND || sl.zone == Z_DECK)) ||
                (to_lookout && sl.zone == Z_LOOKOUT && sl.sig == k))
                options.push_back(j);
        }
        if (options.empty())
            throw std::invalid_argument("cannot re-deal Best Friend #" + std::to_string(c) +
                                        ": no slot of seat " + std::to_string(p));
        const size_t j = options[r.below(options.size())];
        filled[j] = c;
        if (slots[j].zone == Z_LOOKOUT)
            --n.l(p, k);
        else
            --n.H[p];
    }

    // 2b. Lookout slots still open: a free card with the slot's suits.
    std::vector<uint8_t> taken(static_cast<size_t>(nc), 0);
    std::vector<int64_t> candidates;
    for (size_t j = 0; j < num_slots; ++j) {
        if (filled[j] >= 0 || slots[j].zone != Z_LOOKOUT) continue;
        candidates.clear();
        for (const int64_t c : free_cards)
            if (g.suit_class[c] == slots[j].sig && !taken[c]) candidates.push_back(c);
        if (candidates.empty())
            throw std::invalid_argument(
                "cannot re-deal a rival's Lookout: no card with its suits");
        const int64_t c = candidates[r.below(candidates.size())];
        taken[c] = 1;
        filled[j] = c;
    }

    // 2c. Every other open slot: the free cards left, in a random order.
    std::vector<int64_t> left;
    for (const int64_t c : free_cards)
        if (!taken[c]) left.push_back(c);
    std::vector<size_t> open_slots;
    for (size_t j = 0; j < num_slots; ++j)
        if (filled[j] < 0) open_slots.push_back(j);
    if (left.size() != open_slots.size())
        throw std::invalid_argument("cannot re-deal: hidden cards and slots differ in number");
    {
        const std::vector<int64_t> perm = r.permutation(static_cast<int64_t>(left.size()));
        for (size_t i = 0; i < open_slots.size(); ++i) filled[open_slots[i]] = left[perm[i]];
    }

    // 2d. Write the slots: pos is the rank in the (zone, owner) pile.
    int16_t rank[NUM_ZONES][MAX_PLAYERS + 1] = {};
    for (size_t j = 0; j < num_slots; ++j) {
        const int64_t c = filled[j];
        const Slot& sl = slots[j];
        s.zone[c] = static_cast<int8_t>(sl.zone);
        s.owner[c] = static_cast<int8_t>(sl.owner);
        s.mark[c] = static_cast<int8_t>(sl.mark);
        s.coin_as[c] = static_cast<int8_t>(sl.coin_as);
        s.pos[c] = rank[sl.zone][sl.owner + 1]++;
    }

    // 3. Made-up rules the observer cannot see.
    const bool seeing_stack = s.ctx[C_DECISION] == K_PICK_RULE && s.ctx[C_ACTOR] == observer;
    std::vector<int64_t> rules, locs;
    for (int64_t i = 0; i < NUM_MADE_UP_RULES; ++i) {
        const int64_t loc = s.rule_loc[i];
        if (loc == IN_BOX || (loc == IN_STACK && !seeing_stack) || (loc >= 0 && loc != observer)) {
            rules.push_back(i);
            locs.push_back(loc);
        }
    }
    std::sort(locs.begin(), locs.end());
    {
        const std::vector<int64_t> perm = r.permutation(static_cast<int64_t>(rules.size()));
        for (size_t i = 0; i < rules.size(); ++i)
            s.rule_loc[rules[i]] = static_cast<int8_t>(locs[perm[i]]);
    }

    // 4. Future shuffles.
    s.ctx[C_SEED] = static_cast<int64_t>(r.below(static_cast<uint64_t>(SEED_LIMIT)));
    s.ctx[C_SHUFFLES] = 0;
    return s;
}

}  // namespace

bool can_go_on(State& state) {
    const int64_t stage = state.ctx[C_STAGE];
    if (stage == ST_OVER) return true;
    if (cached_legal_actions(state).empty()) return false;
    if (searched_stage(stage) && stage != ST_PLAY && stage != ST_FOLLOW) {
        State copy = state;  // search consumes its state
        return search(copy, state.ctx[C_SERIAL]);
    }
    return true;
}

State resample_hidden(const State& state, int observer, uint64_t seed) {
    for (int64_t k = 0; k < MAX_REDEALS; ++k) {
        EventRng r(seed, static_cast<uint64_t>(RESAMPLE_EVENT + k));
        State s = redeal(state, observer, r);
        if (can_go_on(s)) return s;
    }
    State s = state;  // every try dead-ended: the hidden cards stay where they are
    if (!can_go_on(s)) {
        if (cached_legal_actions(s).empty()) throw_no_legal_action();
        throw StateError("ctx.stage", NO_COMPLETION);
    }
    return s;
}

}  // namespace fort
