// fort_env/game/rules/legality.py in C++: local legality, before the search (search.cc).
#include "fort/rules/legality.h"

#include <algorithm>
#include <array>

#include "fort/game/game.h"
#include "fort/rules/base.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/program.h"
#include "fort/rules/search.h"
#include "fort/rules/verbs.h"

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

// legality.raw_legal (rulebook p.6-16: each decision's own rules): the rows function of the
// pending decision kind (the generated table LEGAL, dispatch.h; none for K_TERMINAL or a bad kind)
std::vector<int> raw_legal(State& state) {
    std::vector<int> out;
    out.reserve(16);
    raw_legal_into(state, out);
    return out;
}

void raw_legal_into(State& state, std::vector<int>& out) {
    out.clear();
    const int64_t kind = state.ctx[C_DECISION];
    if (kind < 0 || kind >= NUM_DECISION_KINDS || LEGAL[kind] == nullptr) return;
    const int p = static_cast<int>(state.ctx[C_ACTOR]);
    LEGAL[kind](state, p, out);
    // legality.recycle_rows: Recycling at every decision of the leader's own turn in
    // base.RECYCLE_STAGES (p.16; R15); the decision is asked again with the card in hand
    if (recycle_stage(state.ctx[C_STAGE]) && can_recycle(state, p))
        push_cards_in(state, Z_DISCARD, p, off(*state.game, R_RECYCLE), out);
}

// The rows functions of the decision kinds (verb_table.DECISIONS' rows column; legality._<rows>
// in Python), in DecisionKind order.

void legal_draft(State& state, int p, std::vector<int>& out) {  // p.2
    push_cards_in(state, Z_DRAFT_PACK, p, off(*state.game, R_DRAFT_CARD), out);
}

void legal_play(State& state, int p, std::vector<int>& out) {  // p.7; DIY and Recycling p.16
    const Game& g = *state.game;
    push_cards_in(state, Z_HAND, p, off(g, R_PLAY_CARD), out);
    out.push_back(off(g, R_SKIP_PLAY));
    if (state.ctx[C_PLAYS] == 0 && has_perk(state, p, PERK_DIY) &&
        state.player(p, P_FORT_LEVEL) < MAX_FORT_LEVEL) {
        const auto c = cost(state, p, 1);
        if (payable(state, p, c.toys, c.pizza, c.either)) out.push_back(off(g, R_USE_DIY));
    }
    // Recycling: raw_legal_into
}

// DECLARE_COIN (p.6), ANY_SUIT (p.13): every suit
void legal_suit(State& state, int p, std::vector<int>& out) {
    (void)p;
    for (int s = 0; s < NUM_SUITS; ++s) out.push_back(off(*state.game, R_SUIT) + s);
}

void legal_mode(State& state, int p, std::vector<int>& out) {  // p.7
    (void)p;
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const auto& t = g.search_tables;
    for (int m = 0; m < NUM_MODES; ++m) {
        const int first = static_cast<int>(MODE_PLAN[m][0]);
        const int second = static_cast<int>(MODE_PLAN[m][1]);
        if (!t.blank(played, first) && (second < 0 || !t.blank(played, second)))
            out.push_back(off(g, R_MODE) + m);
    }
}

void legal_add(State& state, int p, std::vector<int>& out) {  // p.6-7 (search.add_rows)
    (void)p;
    const Game& g = *state.game;
    for (int c : addable(state)) out.push_back(off(g, R_ADD_CARD) + c);
    out.push_back(off(g, R_STOP_ADDING));
}

void legal_add_coin(State& state, int p, std::vector<int>& out) {  // (search.add_coin_rows)
    (void)p;
    // an added card's coin is "one suit of your choice" (p.7; README fact 1): any suit
    // with which one of the card's suits changes the outcome (R7)
    const int cid = static_cast<int>(state.ctx[C_PENDING_COIN]);
    for (int s : coin_suits(state, cid)) out.push_back(off(*state.game, R_SUIT) + s);
}

void legal_resource(State& state, int p, std::vector<int>& out) {  // p.12
    const int64_t pc = state.ctx[C_PC];
    const int verb = state.prog[pc * PROG_COLUMNS + PROG_VERB];
    for (int r = PIZZA; r <= TOYS; ++r) {  // (PIZZA, TOYS)
        const bool ok = verb == V_GATHER
                            ? state.player(p, P_STUFF_PIZZA + r) < STUFF_CAPACITY
                            : state.player(p, P_STUFF_PIZZA + r) +
                                      state.player(p, P_PACK_PIZZA + r) > 0;
        if (ok) out.push_back(off(*state.game, R_RESOURCE) + r);
    }
}

void legal_pack(State& state, int p, std::vector<int>& out) {  // p.12; Sticky Fingers p.16
    const bool sticky = has_perk(state, p, PERK_STICKY_FINGERS) && is_leader(state, p);
    for (int i = 0; i < 4; ++i) {
        const int r = static_cast<int>(PACK_OPTIONS[i][0]);
        const bool supply = PACK_OPTIONS[i][1] != 0;
        if ((supply && sticky) || (!supply && state.player(p, P_STUFF_PIZZA + r) > 0))
            out.push_back(off(*state.game, R_PACK_FROM) + i);
    }
}

void legal_lookout(State& state, int p, std::vector<int>& out) {  // p.12; Bribe p.16
    const Game& g = *state.game;
    const std::size_t before = out.size();
    for (int c : lookout_sources(state, p))
        out.push_back(c < 0 ? off(g, R_LOOKOUT_PARK_DECK) : off(g, R_LOOKOUT_CARD) + c);
    // no card: the step was reached because Recycling can bring one (raw_legal_into adds
    // it); in the action used partially the leader may pass instead (R3, R15)
    if (out.size() == before && !state.ctx[C_PROGRAM_FULL]) out.push_back(off(g, R_PASS));
}

void legal_trash(State& state, int p, std::vector<int>& out) {  // p.12
    for (int c : trash_sources(state, p)) out.push_back(off(*state.game, R_TRASH_CARD) + c);
}

// RECRUIT (p.9, p.12), BIRTHDAY (p.16)
void legal_recruit(State& state, int p, std::vector<int>& out) {
    const Game& g = *state.game;
    const int64_t kind = state.ctx[C_DECISION];
    bool deck = false;
    for (int c = 0; c < state.num_cards; ++c) {
        const int64_t z = state.zone[c];
        if (z == Z_PARK || (kind == K_RECRUIT && z == Z_YARD && state.owner[c] != p))
            out.push_back(off(g, R_RECRUIT_CARD) + c);
        deck = deck || z == Z_PARK_DECK;
    }
    if (deck) out.push_back(off(g, R_RECRUIT_PARK_DECK));
    if (kind == K_BIRTHDAY) out.push_back(off(g, R_PASS));
}

void legal_pay(State& state, int p, std::vector<int>& out) {  // p.12; cost modifiers R25
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
        if (ok) out.push_back(off(*state.game, R_PAY) + i);
    }
}

void legal_spend(State& state, int p, std::vector<int>& out) {  // p.13
    const int64_t pc = state.ctx[C_PC];
    const int r_fixed = resource_of(state, state.prog[pc * PROG_COLUMNS + PROG_ARG]);
    for (int i = 0; i < 4; ++i) {
        const int r = static_cast<int>(PAY_OPTIONS[i][0]);
        const bool from_pack = PAY_OPTIONS[i][1] != 0;
        if (r == r_fixed && state.player(p, (from_pack ? P_PACK_PIZZA : P_STUFF_PIZZA) + r) > 0)
            out.push_back(off(*state.game, R_SPEND_FROM) + i);
    }
}

void legal_trash_rival(State& state, int p, std::vector<int>& out) {  // p.13
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_YARD && state.owner[c] != p)
            out.push_back(off(*state.game, R_TRASH_RIVAL_CARD) + c);
}

void legal_copy_rival(State& state, int p, std::vector<int>& out) {  // p.13
    const auto rs = rivals(state, p);
    for (int k = 0; k < static_cast<int>(rs.size()); ++k)
        if (copy_status(state, p, static_cast<int>(rs[k])) != STATUS_NONE)
            out.push_back(off(*state.game, R_COPY_RIVAL) + k);
}

void legal_convert(State& state, int p, std::vector<int>& out) {  // p.13
    for (int i : convert_options(state, p)) out.push_back(off(*state.game, R_CONVERT) + i);
}

void legal_pick_rule(State& state, int p, std::vector<int>& out) {  // p.10
    (void)p;
    for (int i = 0; i < NUM_MADE_UP_RULES; ++i)
        if (state.rule_loc[i] == IN_STACK) out.push_back(off(*state.game, R_PICK_RULE) + i);
}

void legal_pick_perk(State& state, int p, std::vector<int>& out) {  // p.10
    (void)p;
    for (int i = 0; i < NUM_PERKS; ++i)
        if (state.perk_loc[i] == IN_STACK) out.push_back(off(*state.game, R_PICK_PERK) + i);
}

// FOLLOW (p.8), FOLLOW_SECOND (Copy Cat p.16)
void legal_follow(State& state, int p, std::vector<int>& out) {
    const Game& g = *state.game;
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
}

void legal_do_over(State& state, int p, std::vector<int>& out) {  // p.16
    (void)p;
    out.push_back(off(*state.game, R_DO_OVER));
    out.push_back(off(*state.game, R_PASS));
}

void legal_rough_housing(State& state, int p, std::vector<int>& out) {  // p.16, R16
    (void)p;
    out.push_back(off(*state.game, R_ROUGH_HOUSE));
    out.push_back(off(*state.game, R_PASS));
}

void legal_stop_or_continue(State& state, int p, std::vector<int>& out) {  // p.6; R3
    (void)p;
    out.push_back(off(*state.game, R_STOP_ACTION));
    out.push_back(off(*state.game, R_CONTINUE_ACTION));
}

// legality.useful_suits
CountedSuits useful_suits(const State& state) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    CountedSuits out;
    const auto sides = used_sides(state);
    for (int k = 0; k < static_cast<int>(sides.size()); ++k) {
        const int side = static_cast<int>(sides[k]);
        for_each_mult(g, played, side, [&](int mult, int arg) {
            int s = mult == MULT_SUIT ? arg : -1;
            if (mult == MULT_ANY_SUIT)
                s = static_cast<int>(
                    state.ctx[side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
            if (s >= 0) out.add(s);
        });
    }
    return out;
}

// legality.fully_counted: suits counted by the action used fully, in first-seen order
CountedSuits fully_counted(const State& state) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int full_side = static_cast<int>(MODE_PLAN[state.ctx[C_MODE]][2]);
    const int any_suit =
        static_cast<int>(state.ctx[full_side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
    CountedSuits out;
    for_each_mult(g, played, full_side, [&](int mult, int arg) {
        const int s = mult == MULT_SUIT ? arg : mult == MULT_ANY_SUIT ? any_suit : -1;
        if (s >= 0) out.add(s);
    });
    return out;
}

// legality.addable (p.6-7: an added card must change the outcome)
std::vector<int> addable(State& state) {
    const Game& g = *state.game;
    const int leader = static_cast<int>(state.ctx[C_LEADER]);
    const auto useful = useful_suits(state);
    const auto full = fully_counted(state);
    const int64_t probing = state.ctx[C_BOTH_FULL];
    // in a probe whose other action runs second, used as far as it goes, only cards that
    // raise the count of the action used fully are tried (Python: only_raising)
    const auto& plan = MODE_PLAN[state.ctx[C_MODE]];
    const bool only_raising = probing >= BOTH_FULL_TAIL && plan[2] == plan[0];
    struct Verdict {
        int64_t zone;
        int suit_list;
        bool ok;
    };
    std::vector<Verdict> verdicts;  // cards alike (search.equivalence_key) share one
    std::vector<int> out;
    for (int c = 0; c < state.num_cards; ++c) {
        if (state.owner[c] != leader) continue;
        if (!(state.zone[c] == Z_HAND || (state.zone[c] == Z_LOOKOUT && state.mark[c] == 0)))
            continue;
        const int s0 = g.suit_lists[2 * c], s1 = g.suit_lists[2 * c + 1];
        bool serves = false;  // some suit of it serves a purpose (p.7)
        for (int s : {s0, s1})
            serves = serves || (s >= 0 && (s == COIN || contains(useful, s)));
        if (!serves) continue;
        // a suit counted by the action used fully changes its count (a coin: declared so)
        bool raises_full = false;
        for (int s : {s0, s1})
            raises_full = raises_full || (s >= 0 && s != COIN && contains(full, s)) ||
                          (s == COIN && !full.empty());
        if (probing != 0) {
            if (raises_full || !only_raising) out.push_back(c);
            continue;
        }
        if (!raises_full) {
            const int id = g.search_tables.suit_list_id(c);
            const auto it = std::find_if(verdicts.begin(), verdicts.end(), [&](const Verdict& v) {
                return v.zone == state.zone[c] && v.suit_list == id;
            });
            bool ok;
            if (it != verdicts.end()) {
                ok = it->ok;
            } else {
                ScratchState clone;  // state.clone()
                State& child = clone.copy_of(state);
                apply(child, off(g, R_ADD_CARD) + c);
                ok = child.ctx[C_DECISION] == K_ADD_COIN ? !coin_suits(child, c).empty()
                                                         : changes_outcome(child, c);
                verdicts.push_back({state.zone[c], id, ok});
            }
            if (!ok) continue;
        }
        out.push_back(c);
    }
    return out;
}

// legality.coin_suits (README fact 1; docs/rules.md R7)
std::vector<int> coin_suits(State& state, int card) {
    std::vector<int> out;
    if (state.ctx[C_BOTH_FULL] != 0) {
        for (int s = 0; s < NUM_SUITS; ++s) out.push_back(s);
        return out;
    }
    const auto useful = useful_suits(state);
    int uncounted = -1;  // the one verdict of the suits no used action counts: -1 not known
    for (int s = 0; s < NUM_SUITS; ++s) {
        bool ok;
        if (contains(useful, s)) {
            ok = changes_outcome_with(state, card, s);
        } else {
            if (uncounted < 0) uncounted = changes_outcome_with(state, card, s) ? 1 : 0;
            ok = uncounted == 1;
        }
        if (ok) out.push_back(s);
    }
    return out;
}

// legality.changes_outcome_with
bool changes_outcome_with(State& state, int card, int suit) {
    const Game& g = *state.game;
    const auto full = fully_counted(state);
    const int s0 = g.suit_lists[2 * card], s1 = g.suit_lists[2 * card + 1];
    if (contains(full, suit) || (s0 >= 0 && s0 != COIN && contains(full, s0)) ||
        (s1 >= 0 && s1 != COIN && contains(full, s1)))
        return true;  // it raises the count of the action used fully (as changes_outcome)
    const auto useful = useful_suits(state);
    if (!contains(useful, suit) && !(s0 >= 0 && s0 != COIN && contains(useful, s0)) &&
        !(s1 >= 0 && s1 != COIN && contains(useful, s1)))
        return false;  // no used action counts any of its suits (as changes_outcome)
    ScratchState clone;  // state.clone()
    State& child = clone.copy_of(state);
    apply(child, off(*state.game, R_SUIT) + suit);
    return changes_outcome(child, card);
}

// legality.changes_outcome (p.7; docs/rules.md R7)
bool changes_outcome(State& state, int card) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int full_side = static_cast<int>(MODE_PLAN[state.ctx[C_MODE]][2]);
    // the card's suits, its coin as declared
    std::vector<int> suits;
    for (int k = 0; k < 2; ++k) {
        const int s = g.suit_lists[2 * card + k];
        if (s >= 0) suits.push_back(s == COIN ? static_cast<int>(state.coin_as[card]) : s);
    }
    int partial_effect = -1, partial_suit = -1;
    const auto sides = used_sides(state);
    for (int k = 0; k < static_cast<int>(sides.size()); ++k) {
        const int side = static_cast<int>(sides[k]);
        const int any_suit =
            static_cast<int>(state.ctx[side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
        int counted = -1;  // the first suit of the card this side counts
        for (int s : suits) {
            if (counted >= 0) break;
            for_each_mult(g, played, side, [&](int mult, int arg) {
                if ((mult == MULT_SUIT && arg == s) || (mult == MULT_ANY_SUIT && any_suit == s))
                    counted = s;
            });
        }
        if (counted < 0) continue;
        if (side == full_side) return true;
        partial_effect = g.card_effects[2 * played + side];
        partial_suit = counted;
    }
    if (partial_suit < 0) return false;
    if (partial_effect >= 0 && repeats_plain_body(g, partial_effect)) {
        // its one multiplier counts partial_suit; the card's repetitions come last
        const auto mine = std::count(suits.begin(), suits.end(), partial_suit);
        const int64_t first = state.play_suits[partial_suit] - mine;
        state.ctx[C_BOTH_FULL] = BOTH_FULL_TAIL + first;
    } else {
        state.ctx[C_BOTH_FULL] = 1;
    }
    return search(state, state.ctx[C_SERIAL]);  // the probe runs on the copy it was given
}

}  // namespace fort
