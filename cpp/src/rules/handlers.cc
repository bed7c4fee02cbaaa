// fort_env/game/rules/handlers.py in C++ (see include/fort/rules/handlers.h): one handler per
// action range, in the Python module's order.
#include "fort/rules/handlers.h"

#include <stdexcept>
#include <string>

#include "fort/rules/base.h"
#include "fort/rules/deal.h"
#include "fort/rules/flow.h"
#include "fort/rules/program.h"

namespace fort {

namespace {

// A card id from the state (ctx or the Park deck's top) as an index; throws where Python
// would index card -1 (only reachable by an action the decision does not allow).
int card_at(const State& state, int64_t c, const char* what) {
    if (c < 0 || c >= state.num_cards)
        throw std::out_of_range(std::string(what) + ": no such card " + std::to_string(c));
    return static_cast<int>(c);
}

}  // namespace

// handlers.apply
void apply(State& state, int a) {
    const Game& game = *state.game;
    if (a < 0 || a >= game.num_actions)
        throw std::out_of_range("action " + std::to_string(a) + " outside [0, " +
                                std::to_string(game.num_actions) + ")");
    const int64_t actor = state.ctx[C_ACTOR];
    const int64_t kind = state.ctx[C_DECISION];
    if (actor < 0 || actor >= state.num_players)
        throw std::out_of_range("no seat to act (the game is over)");
    const int range = game.action_range[a];
    if (!decision_offers(kind, range))
        throw std::invalid_argument("action " + std::to_string(a) +
                                    " is not of a range the pending decision offers");
    // Python clears state.legal_cache here; State::legal_cache (state.h LegalCache) needs no
    // clearing: it is keyed by the position's bytes, so the handler's changes make it stale
    HANDLERS[range](state, static_cast<int>(actor), game.action_index[a], static_cast<int>(kind));
}

namespace {

void need(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("state: ") + what + " out of range");
}

bool within(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// |value| of the ctx counters check_indices accepts: a sum of a few of them cannot overflow.
constexpr int64_t COUNTER_BOUND = int64_t{1} << 40;
// |value| of the payment counters check_indices accepts: the rules hold them in an int
// (legality.cc, program.cc payable) and add a few of them (found by scripts/fuzz_core.py's
// playouts of raw states: pay_either = -2**31 after the cast, minus 1, overflowed). A cost
// is at most 99 per card (card data limits), so this is far above any game.
constexpr int64_t PAY_BOUND = int64_t{1} << 20;

}  // namespace

// Memory safety of apply from Python: every field the rules use as an index is in range.
void check_indices(const State& state) {
    const Game& game = *state.game;
    const int n = state.num_players, c = state.num_cards;
    need(n == game.num_players && c == game.num_cards, "the game's size");
    const auto& x = state.ctx;
    need(within(x[C_LEADER], 0, n - 1), "ctx.leader");
    need(within(x[C_FIRST_PLAYER], 0, n - 1), "ctx.first_player");
    need(within(x[C_FOLLOWER], -1, n - 1), "ctx.follower");
    need(within(x[C_PROGRAM_OWNER], -1, n - 1), "ctx.program_owner");
    need(within(x[C_PLAYED_CARD], -1, c - 1), "ctx.played_card");
    need(within(x[C_PENDING_COIN], -1, c - 1), "ctx.pending_coin");
    need(within(x[C_MODE], -1, NUM_MODES - 1), "ctx.mode");
    need(within(x[C_ACTION_STEP], 0, 1), "ctx.action_step");
    need(within(x[C_ANY_SUIT_PUBLIC], -1, NUM_SUITS - 1), "ctx.any_suit_public");
    need(within(x[C_ANY_SUIT_PRIVATE], -1, NUM_SUITS - 1), "ctx.any_suit_private");
    need(within(x[C_ANY_SUIT_SIDE], 0, 1), "ctx.any_suit_side");
    need(within(x[C_RESOURCE_CHOICE], -1, NUM_RESOURCES - 1), "ctx.resource_choice");
    need(within(x[C_LEADER_RESOURCE], -1, NUM_RESOURCES - 1), "ctx.leader_resource");
    need(within(x[C_PROGRAM_SIDE], 0, 1), "ctx.program_side");
    // Counters the rules add to or sum: not indices, but signed overflow is undefined in C++
    // where Python's ints just grow (found by scripts/fuzz_core.py: pay_toys + pay_pizza +
    // pay_either overflowed in run_program). The bounds are far above what any loaded state
    // has (validation.py: a payment is at most a step's cost, the counters below 2**62).
    for (const int64_t field : {C_PAY_TOYS, C_PAY_PIZZA, C_PAY_EITHER, C_REWARD, C_PLAYS,
                                C_DRAFT_ROUND, C_FOLLOW_TRASH, C_TRASH_THIS, C_COPIED,
                                C_BOTH_FULL, C_PROGRAM_FULL, C_PROGRAM_FAILED, C_END_TRIGGERED})
        need(within(x[field], -COUNTER_BOUND, COUNTER_BOUND), "a ctx counter");
    for (const int64_t field : {C_PAY_TOYS, C_PAY_PIZZA, C_PAY_EITHER})
        need(within(x[field], -PAY_BOUND, PAY_BOUND), "a ctx payment counter");
    need(within(x[C_SHUFFLES], -SEED_LIMIT, SEED_LIMIT), "ctx.shuffles");
    need(within(x[C_SERIAL], -SEED_LIMIT, SEED_LIMIT), "ctx.serial");
    const int64_t len = x[C_PROGRAM_LENGTH];
    need(within(len, 0, MAX_STEPS), "ctx.program_length");
    need(within(x[C_PC], 0, len), "ctx.pc");
    const int64_t kind = x[C_DECISION];
    const int64_t stage = x[C_STAGE];
    const bool in_program =
        program_decision(kind) ||
        (kind == K_RECRUIT && stage != ST_RECRUIT && stage != ST_BIRTHDAY);
    need(!in_program || x[C_PROGRAM_OWNER] >= 0, "ctx.program_owner");
    need(!(kind == K_FOLLOW || kind == K_FOLLOW_SECOND) || x[C_FOLLOWER] >= 0, "ctx.follower");
    bool rows_ok = true;  // branch-free scans; the message only when something is wrong
    for (int64_t k = 0; k < len; ++k) {
        const int16_t* row = &state.prog[static_cast<size_t>(k) * PROG_COLUMNS];
        const int16_t verb = row[PROG_VERB], lo = row[PROG_REQ_LO], hi = row[PROG_REQ_HI];
        const bool resource = verb == V_GATHER || verb == V_SPEND;
        rows_ok &= within(verb, 0, NUM_VERBS - 1) & (!resource | within(row[PROG_ARG], 0, ANY_RESOURCE));
        rows_ok &= lo == -1 ? hi == -1 : within(lo, 0, len) & within(hi, lo, len);
    }
    need(rows_ok, "a program row");
    unsigned cards_ok = 1;
    for (int i = 0; i < c; ++i) {
        cards_ok &= static_cast<unsigned>(static_cast<uint8_t>(state.zone[i]) < NUM_ZONES) &
                    static_cast<unsigned>(static_cast<uint8_t>(state.owner[i] + 1) <= n) &
                    static_cast<unsigned>(static_cast<uint8_t>(state.coin_as[i] + 1) <= NUM_SUITS);
    }
    if (!cards_ok) {
        for (int i = 0; i < c; ++i) {
            need(within(state.zone[i], 0, NUM_ZONES - 1), "a card's zone");
            need(within(state.owner[i], -1, n - 1), "a card's owner");
            need(within(state.coin_as[i], -1, NUM_SUITS - 1), "a card's coin_as");
        }
    }
    for (int p = 0; p < n; ++p)
        need(within(state.player(p, P_FORT_LEVEL), 0, MAX_FORT_LEVEL), "a Fort Level");
}

// handlers._count_suits
bool count_suits(State& state, int p, int c, int64_t stage, int64_t kind) {
    const Game& game = *state.game;
    for (int k = 0; k < 2; ++k) {
        const int s = game.suit_lists[2 * c + k];
        if (s >= 0 && s != COIN) state.play_suits[s] += 1;
    }
    if (!game.has_coin[c]) return false;
    state.ctx[C_PENDING_COIN] = c;
    state.ctx[C_STAGE] = stage;
    set_decision(state, kind, p);
    return true;
}

// handlers.on_play_card (Play phase, p.7)
void on_play_card(State& state, int p, int c, int kind) {
    (void)kind;
    state.zone[c] = Z_IN_PLAY;
    state.ctx[C_PLAYED_CARD] = c;
    state.ctx[C_PLAYS] += 1;
    if (!count_suits(state, p, c, ST_DECLARE, K_DECLARE_COIN)) after_declare_played(state);
}

// handlers.on_skip_play
void on_skip_play(State& state, int p, int i, int kind) {
    (void)p, (void)i, (void)kind;
    end_leader_play(state);
}

// handlers.on_use_diy (DIY, p.16): no card; its one action (mode "private only") cannot be
// followed.
void on_use_diy(State& state, int p, int i, int kind) {
    (void)i, (void)kind;
    state.perk_loc[PERK_DIY] = USED;
    state.ctx[C_PLAYS] += 1;
    state.ctx[C_MODE] = 1;
    state.ctx[C_ACTION_STEP] = 0;
    state.ctx[C_STAGE] = ST_ACTION;
    load_program(state, state.game->diy_effect, p, PRIVATE, true, state.play_suits.data(), -1);
    run_program(state);
}

// handlers.on_recycle (Recycling, p.16; R15): the card goes to hand and the pending decision,
// whichever it is, is asked again
void on_recycle(State& state, int p, int c, int kind) {
    (void)p, (void)kind;
    state.perk_loc[PERK_RECYCLING] = USED;
    state.zone[c] = Z_HAND;
}

// handlers.on_suit: a played or added coin's suit, or "any one suit" (p.13)
void on_suit(State& state, int p, int s, int kind) {
    if (kind == K_DECLARE_COIN || kind == K_ADD_COIN) {
        const int c = card_at(state, state.ctx[C_PENDING_COIN], "pending_coin");
        state.coin_as[c] = static_cast<int8_t>(s);
        state.play_suits[s] += 1;
        state.ctx[C_PENDING_COIN] = -1;
        if (kind == K_DECLARE_COIN) {
            after_declare_played(state);
        } else {
            state.ctx[C_STAGE] = ST_ADD;
            set_decision(state, K_ADD, p);
        }
    } else {  // ANY_SUIT
        const int64_t side = state.ctx[C_ANY_SUIT_SIDE];
        state.ctx[side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE] = s;
        after_mode(state);
    }
}

// handlers.on_mode (p.7)
void on_mode(State& state, int p, int m, int kind) {
    (void)p, (void)kind;
    state.ctx[C_MODE] = m;
    after_mode(state);
}

// handlers.on_add_card (p.6-7)
void on_add_card(State& state, int p, int c, int kind) {
    (void)kind;
    state.mark[c] = 1;
    if (state.zone[c] == Z_HAND) state.zone[c] = Z_IN_PLAY;
    count_suits(state, p, c, ST_ADD_COIN, K_ADD_COIN);
}

// handlers.on_stop_adding
void on_stop_adding(State& state, int p, int i, int kind) {
    (void)p, (void)i, (void)kind;
    start_action(state, 0);
}

// handlers.on_resource (p.12)
void on_resource(State& state, int p, int r, int kind) {
    (void)p, (void)kind;
    state.ctx[C_RESOURCE_CHOICE] = r;
    run_program(state);
}

// handlers.on_pack_from (p.12; Sticky Fingers, p.16)
void on_pack_from(State& state, int p, int i, int kind) {
    (void)kind;
    const auto r = static_cast<int>(PACK_OPTIONS[i][0]);
    const bool supply = PACK_OPTIONS[i][1] != 0;
    if (!supply) state.player(p, P_STUFF_PIZZA + r) -= 1;
    state.player(p, P_PACK_PIZZA + r) += 1;
    step_done(state);
    run_program(state);
}

// handlers.on_lookout_card (p.12; Bribe, p.16)
void on_lookout_card(State& state, int p, int c, int kind) {
    (void)kind;
    if (state.zone[c] == Z_PARK) refill_park(state, state.pos[c]);
    state.zone[c] = Z_LOOKOUT;
    state.owner[c] = static_cast<int8_t>(p);
    step_done(state);
    run_program(state);
}

// handlers.on_lookout_park_deck
void on_lookout_park_deck(State& state, int p, int i, int kind) {
    (void)i;
    on_lookout_card(state, p, card_at(state, top_of_park_deck(state), "Park deck"), kind);
}

// handlers.on_trash_card (p.12)
void on_trash_card(State& state, int p, int c, int kind) {
    (void)p, (void)kind;
    state.zone[c] = Z_TRASH;
    step_done(state);
    run_program(state);
}

// handlers.recruit (p.9): the Park slot it leaves is refilled after it moved
void recruit(State& state, int p, int c) {
    if (state.zone[c] == Z_PARK) {
        const int slot = state.pos[c];
        state.zone[c] = Z_DISCARD;
        refill_park(state, slot);
    } else {
        state.zone[c] = Z_DISCARD;
    }
    state.owner[c] = static_cast<int8_t>(p);
}

// handlers.on_recruit_card
void on_recruit_card(State& state, int p, int c, int kind) {
    recruit(state, p, c);
    after_recruit(state, p, kind);
}

// handlers.on_recruit_park_deck
void on_recruit_park_deck(State& state, int p, int i, int kind) {
    (void)i;
    recruit(state, p, card_at(state, top_of_park_deck(state), "Park deck"));
    after_recruit(state, p, kind);
}

// handlers.after_recruit: the Recruit phase, Birthday Party's extra recruit, or a step
void after_recruit(State& state, int p, int kind) {
    (void)p, (void)kind;
    const int64_t stage = state.ctx[C_STAGE];
    if (stage == ST_RECRUIT) {
        to_birthday(state);
    } else if (stage == ST_BIRTHDAY) {
        end_turn(state);
    } else {
        step_done(state);
        run_program(state);
    }
}

// handlers.on_pay (Advance Fort, p.12; R25)
void on_pay(State& state, int p, int i, int kind) {
    (void)kind;
    const auto r = static_cast<int>(PAY_OPTIONS[i][0]);
    const bool from_pack = PAY_OPTIONS[i][1] != 0;
    state.player(p, (from_pack ? P_PACK_PIZZA : P_STUFF_PIZZA) + r) -= 1;
    const int64_t fixed = r == TOYS ? C_PAY_TOYS : C_PAY_PIZZA;
    if (state.ctx[fixed] > 0)
        state.ctx[fixed] -= 1;
    else
        state.ctx[C_PAY_EITHER] -= 1;
    if (state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] + state.ctx[C_PAY_EITHER] == 0) {
        level_up(state, p);
        run_program(state);
    }
}

// handlers.on_spend_from (p.13)
void on_spend_from(State& state, int p, int i, int kind) {
    (void)kind;
    const auto r = static_cast<int>(PAY_OPTIONS[i][0]);
    const bool from_pack = PAY_OPTIONS[i][1] != 0;
    state.player(p, (from_pack ? P_PACK_PIZZA : P_STUFF_PIZZA) + r) -= 1;
    step_done(state);
    run_program(state);
}

// handlers.on_trash_rival_card (p.13)
void on_trash_rival_card(State& state, int p, int c, int kind) {
    (void)p, (void)kind;
    state.zone[c] = Z_TRASH;
    step_done(state);
    run_program(state);
}

// handlers.on_copy_rival (p.13)
void on_copy_rival(State& state, int p, int k, int kind) {
    (void)kind;
    const Rivals rs = rivals(state, p);
    if (k >= rs.size()) throw std::out_of_range("copy_rival: no rival " + std::to_string(k));
    copy_from(state, p, rs[k]);
    step_done(state);
    run_program(state);
}

// handlers.on_convert (p.13)
void on_convert(State& state, int p, int i, int kind) {
    (void)kind;
    const auto src = static_cast<int>(CONVERT_OPTIONS[i][0]);
    const bool in_pack = CONVERT_OPTIONS[i][1] != 0;
    const int64_t col = in_pack ? P_PACK_PIZZA : P_STUFF_PIZZA;
    state.player(p, col + src) -= 1;
    state.player(p, col + 1 - src) += 1;
    state.ctx[C_CONVERT_FROM] = src;
    step_done(state);
    run_program(state);
}

// handlers.on_pick_rule (p.10)
void on_pick_rule(State& state, int p, int i, int kind) {
    (void)kind;
    state.rule_loc[i] = static_cast<int8_t>(p);
    state.ctx[C_REWARD] = 0;
    run_program(state);
}

// handlers.on_pick_perk (p.10)
void on_pick_perk(State& state, int p, int i, int kind) {
    (void)kind;
    state.perk_loc[i] = static_cast<int8_t>(p);
    state.ctx[C_REWARD] = 0;
    run_program(state);
}

// handlers.on_follow_card (p.8; Copy Cat and Rough Housing, p.16)
void on_follow_card(State& state, int p, int c, int kind) {
    state.zone[c] = Z_FOLLOWED;
    if (has_perk(state, p, PERK_ROUGH_HOUSING))
        state.ctx[C_ROUGH_HOUSING] = -2;  // Rough Housing is instead of following (p.16)
    if (kind == K_FOLLOW && has_perk(state, p, PERK_COPY_CAT)) {
        state.ctx[C_STAGE] = ST_FOLLOW_SECOND;
        set_decision(state, K_FOLLOW_SECOND, p);
        return;
    }
    start_follow_program(state);
}

// handlers.on_pass
void on_pass(State& state, int p, int i, int kind) {
    (void)i;
    if (kind == K_FOLLOW)
        next_follower(state, p);
    else if (kind == K_FOLLOW_SECOND)
        start_follow_program(state);
    else if (kind == K_DO_OVER)
        to_recruit(state);
    else if (kind == K_BIRTHDAY)
        end_turn(state);
    else if (kind == K_ROUGH_HOUSING)
        after_follow(state);  // the perk is kept
    else if (kind == K_LOOKOUT) {
        // a tuck only Recycling could make, in the action used partially: skipped as a step
        // that cannot be done (R3, R15)
        state.ctx[C_PC] += 1;
        run_program(state);
    } else
        throw std::logic_error("pass at decision " + std::to_string(kind));
}

// handlers.on_rough_house (Rough Housing, p.16; R16)
void on_rough_house(State& state, int p, int i, int kind) {
    (void)i, (void)kind;
    state.perk_loc[PERK_ROUGH_HOUSING] = USED;
    state.ctx[C_ROUGH_HOUSING] = p;
    after_follow(state);  // every other rival has followed or passed (R16)
}

// handlers.on_do_over (Do-Over, p.16)
void on_do_over(State& state, int p, int i, int kind) {
    (void)p, (void)i, (void)kind;
    state.perk_loc[PERK_DO_OVER] = USED;
    to_play(state);
}

// handlers.on_draft_card: advanced setup (p.2): keep one card; when all have kept, pass
// packs to the left.
void on_draft_card(State& state, int p, int c, int kind) {
    (void)kind;
    state.zone[c] = Z_DRAFT_KEPT;
    const int n = state.num_players;
    const int64_t first = state.ctx[C_FIRST_PLAYER];
    const int nxt = (p + 1) % n;
    if (nxt != first) {
        set_decision(state, K_DRAFT, nxt);
        return;
    }
    for (int card = 0; card < state.num_cards; ++card)  // pass to the left
        if (state.zone[card] == Z_DRAFT_PACK)
            state.owner[card] = static_cast<int8_t>((state.owner[card] + 1) % n);
    state.ctx[C_DRAFT_ROUND] += 1;
    if (state.ctx[C_DRAFT_ROUND] >= STARTING_KIDS)
        finish_setup(state, *state.game);
    else
        set_decision(state, K_DRAFT, first);
}

// handlers.on_stop_action: R3: end the action used partially here; the rest of its steps are
// not done.
void on_stop_action(State& state, int p, int i, int kind) {
    (void)p, (void)i, (void)kind;
    state.ctx[C_PC] = state.ctx[C_PROGRAM_LENGTH];
    run_program(state);
}

// handlers.on_continue_action: R3: go on with the action used partially: its next step is
// carried out.
void on_continue_action(State& state, int p, int i, int kind) {
    (void)p, (void)i, (void)kind;
    state.ctx[C_CONTINUE_PC] = state.ctx[C_PC];
    run_program(state);
}

}  // namespace fort
