// fort_env/rules/legality.py in C++: local legality, before the search (search.cc).
#include "fort/legality.h"

#include <algorithm>
#include <array>

#include "fort/base.h"
#include "fort/flow.h"
#include "fort/game.h"
#include "fort/handlers.h"
#include "fort/program.h"
#include "fort/search.h"
#include "fort/verbs.h"

namespace fort {

namespace {

// state.cards_in(zone, seat) appended to out as action `offset + card` (ascending ids).
void push_cards_in(const State& s, int64_t zone, int seat, int offset, std::vector<int>& out) {
    for (int c = 0; c < s.num_cards; ++c)
        if (s.zone[c] == zone && s.owner[c] == seat) out.push_back(offset + c);
}

template <typename Seq>
bool contains(const Seq& v, int x) {
    for (const auto y : v)
        if (static_cast<int>(y) == x) return true;
    return false;
}

// the first action of range `range` (actions.ActionLayout)
int off(const Game& g, int range) { return g.action_start[range]; }

// the multipliers of side `side` of `card` (cards.multipliers order), none for a blank
template <typename F>
void for_each_mult(const Game& g, int card, int side, F f) {
    const int effect = g.card_effects[2 * card + side];
    if (effect < 0) return;
    for (const auto& m : mults(g, effect)) f(static_cast<int>(m.mult), static_cast<int>(m.arg));
}

}  // namespace

// legality.raw_legal (rulebook p.6-16: each decision's own rules)
std::vector<int> raw_legal(State& state) {
    const Game& g = *state.game;
    const int64_t kind = state.ctx[C_DECISION];
    const int p = static_cast<int>(state.ctx[C_ACTOR]);
    std::vector<int> out;
    out.reserve(16);
    switch (kind) {
        case K_PLAY: {  // p.7; DIY and Recycling p.16
            push_cards_in(state, Z_HAND, p, off(g, R_PLAY_CARD), out);
            out.push_back(off(g, R_SKIP_PLAY));
            if (state.ctx[C_PLAYS] == 0 && has_perk(state, p, PERK_DIY) &&
                state.player(p, P_FORT_LEVEL) < MAX_FORT_LEVEL) {
                const auto c = cost(state, p, 1);
                if (payable(state, p, c.toys, c.pizza, c.either)) out.push_back(off(g, R_USE_DIY));
            }
            if (has_perk(state, p, PERK_RECYCLING)) push_cards_in(state, Z_DISCARD, p, off(g, R_RECYCLE), out);
            break;
        }
        case K_DECLARE_COIN:  // p.6
        case K_ANY_SUIT:      // p.13
            for (int s = 0; s < NUM_SUITS; ++s) out.push_back(off(g, R_SUIT) + s);
            break;
        case K_MODE: {  // p.7
            const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
            const auto& t = g.search_tables;
            for (int m = 0; m < NUM_MODES; ++m) {
                const int first = static_cast<int>(MODE_PLAN[m][0]);
                const int second = static_cast<int>(MODE_PLAN[m][1]);
                if (!t.blank(played, first) && (second < 0 || !t.blank(played, second)))
                    out.push_back(off(g, R_MODE) + m);
            }
            break;
        }
        case K_ADD: {  // p.6-7
            for (int c : addable(state)) out.push_back(off(g, R_ADD_CARD) + c);
            out.push_back(off(g, R_STOP_ADDING));
            break;
        }
        case K_ADD_COIN: {
            const int cid = static_cast<int>(state.ctx[C_PENDING_COIN]);
            for (int s : useful_suits(state))
                if (changes_outcome_with(state, cid, s)) out.push_back(off(g, R_SUIT) + s);
            break;
        }
        case K_RESOURCE: {  // p.12
            const int64_t pc = state.ctx[C_PC];
            const int verb = state.prog[pc * PROG_COLUMNS + 0];
            for (int r = PIZZA; r <= TOYS; ++r) {  // (PIZZA, TOYS)
                const bool ok = verb == V_GATHER
                                    ? state.player(p, P_STUFF_PIZZA + r) < STUFF_CAPACITY
                                    : state.player(p, P_STUFF_PIZZA + r) +
                                              state.player(p, P_PACK_PIZZA + r) > 0;
                if (ok) out.push_back(off(g, R_RESOURCE) + r);
            }
            break;
        }
        case K_PACK: {  // p.12; Sticky Fingers p.16
            const bool sticky = has_perk(state, p, PERK_STICKY_FINGERS) && is_leader(state, p);
            for (int i = 0; i < 4; ++i) {
                const int r = static_cast<int>(PACK_OPTIONS[i][0]);
                const bool supply = PACK_OPTIONS[i][1] != 0;
                if ((supply && sticky) || (!supply && state.player(p, P_STUFF_PIZZA + r) > 0))
                    out.push_back(off(g, R_PACK_FROM) + i);
            }
            break;
        }
        case K_LOOKOUT:  // p.12; Bribe p.16
            for (int c : lookout_sources(state, p))
                out.push_back(c < 0 ? off(g, R_LOOKOUT_PARK_DECK) : off(g, R_LOOKOUT_CARD) + c);
            break;
        case K_TRASH:  // p.12
            for (int c : trash_sources(state, p)) out.push_back(off(g, R_TRASH_CARD) + c);
            break;
        case K_RECRUIT:  // p.9, p.12
        case K_BIRTHDAY: {  // p.16
            bool deck = false;
            for (int c = 0; c < state.num_cards; ++c) {
                const int64_t z = state.zone[c];
                if (z == Z_PARK || (kind == K_RECRUIT && z == Z_YARD && state.owner[c] != p))
                    out.push_back(off(g, R_RECRUIT_CARD) + c);
                deck = deck || z == Z_PARK_DECK;
            }
            if (deck) out.push_back(off(g, R_RECRUIT_PARK_DECK));
            if (kind == K_BIRTHDAY) out.push_back(off(g, R_PASS));
            break;
        }
        case K_PAY: {  // p.12; cost modifiers R25
            const int t = static_cast<int>(state.ctx[C_PAY_TOYS]);
            const int z = static_cast<int>(state.ctx[C_PAY_PIZZA]);
            const int e = static_cast<int>(state.ctx[C_PAY_EITHER]);
            for (int i = 0; i < 4; ++i) {
                const int r = static_cast<int>(PAY_OPTIONS[i][0]);
                const bool from_pack = PAY_OPTIONS[i][1] != 0;
                int16_t& col = state.player(p, (from_pack ? P_PACK_PIZZA : P_STUFF_PIZZA) + r);
                if (col == 0) continue;
                const int fixed = r == TOYS ? t : z;
                if (fixed == 0 && e == 0) continue;
                // after paying this unit, the rest must still be payable
                const int nt = (r == TOYS && t) ? t - 1 : t;
                const int nz = (r == PIZZA && z) ? z - 1 : z;
                int ne = e;
                if ((r == TOYS && !t) || (r == PIZZA && !z)) ne = e - 1;
                col = static_cast<int16_t>(col - 1);
                const bool ok = payable(state, p, nt, nz, ne);
                col = static_cast<int16_t>(col + 1);
                if (ok) out.push_back(off(g, R_PAY) + i);
            }
            break;
        }
        case K_SPEND: {  // p.13
            const int64_t pc = state.ctx[C_PC];
            const int r_fixed = resource_of(state, state.prog[pc * PROG_COLUMNS + 1]);
            for (int i = 0; i < 4; ++i) {
                const int r = static_cast<int>(PAY_OPTIONS[i][0]);
                const bool from_pack = PAY_OPTIONS[i][1] != 0;
                if (r == r_fixed &&
                    state.player(p, (from_pack ? P_PACK_PIZZA : P_STUFF_PIZZA) + r) > 0)
                    out.push_back(off(g, R_SPEND_FROM) + i);
            }
            break;
        }
        case K_TRASH_RIVAL:  // p.13
            for (int c = 0; c < state.num_cards; ++c)
                if (state.zone[c] == Z_YARD && state.owner[c] != p)
                    out.push_back(off(g, R_TRASH_RIVAL_CARD) + c);
            break;
        case K_COPY_RIVAL: {  // p.13
            const auto rs = rivals(state, p);
            for (int k = 0; k < static_cast<int>(rs.size()); ++k)
                if (copy_status(state, p, static_cast<int>(rs[k])) != STATUS_NONE) out.push_back(off(g, R_COPY_RIVAL) + k);
            break;
        }
        case K_CONVERT:  // p.13
            for (int i : convert_options(state, p)) out.push_back(off(g, R_CONVERT) + i);
            break;
        case K_PICK_RULE:  // p.10
            for (int i = 0; i < NUM_MADE_UP_RULES; ++i)
                if (state.rule_loc[i] == IN_STACK) out.push_back(off(g, R_PICK_RULE) + i);
            break;
        case K_PICK_PERK:  // p.10
            for (int i = 0; i < NUM_PERKS; ++i)
                if (state.perk_loc[i] == IN_STACK) out.push_back(off(g, R_PICK_PERK) + i);
            break;
        case K_FOLLOW:  // p.8
        case K_FOLLOW_SECOND: {  // Copy Cat p.16
            const auto match = leader_suits(state);
            for (int c = 0; c < state.num_cards; ++c) {
                if (state.zone[c] != Z_HAND || state.owner[c] != p) continue;
                for (int k = 0; k < 2; ++k) {
                    const int s = g.suit_lists[2 * c + k];
                    if (s >= 0 && (s == COIN || contains(match, s))) {
                        out.push_back(off(g, R_FOLLOW_CARD) + c);
                        break;
                    }
                }
            }
            out.push_back(off(g, R_PASS));
            break;
        }
        case K_ROUGH_HOUSING:  // p.16, R16
            out.push_back(off(g, R_ROUGH_HOUSE));
            out.push_back(off(g, R_PASS));
            break;
        case K_DO_OVER:  // p.16
            out.push_back(off(g, R_DO_OVER));
            out.push_back(off(g, R_PASS));
            break;
        case K_STOP_OR_CONTINUE:  // p.6; docs/rules.md R3
            out.push_back(off(g, R_STOP_ACTION));
            out.push_back(off(g, R_CONTINUE_ACTION));
            break;
        case K_DRAFT:  // p.2
            push_cards_in(state, Z_DRAFT_PACK, p, off(g, R_DRAFT_CARD), out);
            break;
        default:
            break;
    }
    return out;
}

// legality.useful_suits
std::vector<int> useful_suits(const State& state) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    std::vector<int> out;
    const auto sides = used_sides(state);
    for (int k = 0; k < static_cast<int>(sides.size()); ++k) {
        const int side = static_cast<int>(sides[k]);
        for_each_mult(g, played, side, [&](int mult, int arg) {
            int s = mult == MULT_SUIT ? arg : -1;
            if (mult == MULT_ANY_SUIT)
                s = static_cast<int>(
                    state.ctx[side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
            if (s >= 0 && !contains(out, s)) out.push_back(s);
        });
    }
    return out;
}

// legality.addable (p.6-7: an added card must change the outcome)
std::vector<int> addable(State& state) {
    const Game& g = *state.game;
    const int leader = static_cast<int>(state.ctx[C_LEADER]);
    const auto useful = useful_suits(state);
    // changes_outcome per useful suit, computed when first needed (the verdicts are pure
    // functions of the state, so the order only changes what the memo holds)
    std::array<int8_t, NUM_SUITS> ok_suit;
    ok_suit.fill(-1);
    auto ok = [&](int s) {
        if (ok_suit[s] < 0) ok_suit[s] = changes_outcome(state, s) ? 1 : 0;
        return ok_suit[s] == 1;
    };
    std::vector<int> out;
    for (int c = 0; c < state.num_cards; ++c) {
        if (state.owner[c] != leader) continue;
        if (!(state.zone[c] == Z_HAND || (state.zone[c] == Z_LOOKOUT && state.mark[c] == 0)))
            continue;
        const int s0 = g.suit_lists[2 * c], s1 = g.suit_lists[2 * c + 1];
        const bool coin = s0 == COIN || s1 == COIN;
        for (int s : useful) {
            if ((coin || s0 == s || s1 == s) && ok(s)) {
                out.push_back(c);
                break;
            }
        }
    }
    return out;
}

// legality.changes_outcome_with
bool changes_outcome_with(State& state, int /*card*/, int suit) { return changes_outcome(state, suit); }

// legality.changes_outcome (p.7; docs/rules.md R7)
bool changes_outcome(State& state, int suit) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int full_side = static_cast<int>(MODE_PLAN[state.ctx[C_MODE]][2]);
    const auto sides = used_sides(state);
    for (int k = 0; k < static_cast<int>(sides.size()); ++k) {
        const int side = static_cast<int>(sides[k]);
        const int any_suit =
            static_cast<int>(state.ctx[side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
        bool counts = false;
        for_each_mult(g, played, side, [&](int mult, int arg) {
            counts = counts || (mult == MULT_SUIT && arg == suit) ||
                     (mult == MULT_ANY_SUIT && any_suit == suit);
        });
        if (!counts) continue;
        if (side == full_side) return true;
        ScratchState clone;  // state.clone()
        State& probe = clone.copy_of(state);
        probe.play_suits[suit] = static_cast<int16_t>(probe.play_suits[suit] + 1);
        const int effect = g.card_effects[2 * played + side];
        probe.ctx[C_BOTH_FULL] = effect >= 0 && repeats_plain_body(g, effect) ? BOTH_FULL_TAIL : 1;
        const int64_t goal = probe.ctx[C_SERIAL];
        start_action(probe, 0);
        if (search(probe, goal)) return true;
    }
    return false;
}

}  // namespace fort
