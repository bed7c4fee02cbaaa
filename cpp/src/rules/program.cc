// fort_env/game/rules/program.py in C++ (see include/fort/rules/program.h): the action-program
// interpreter (rulebook p.6-7, p.12-14; docs/rules.md R5, R7).
#include "fort/rules/program.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "fort/game/errors.h"
#include "fort/rules/base.h"
#include "fort/rules/flow.h"
#include "fort/rules/verbs.h"

namespace fort {

// program.count_for
int count_for(const State& state, int mult, int arg, int p, const int16_t* suits, int any_suit) {
    switch (mult) {
        case MULT_CONST:
            return arg;
        case MULT_SUIT:
            return suits[arg];
        case MULT_ANY_SUIT:
            return any_suit >= 0 ? suits[any_suit] : 0;
        case MULT_FORT_LEVEL:
            return state.player(p, P_FORT_LEVEL);
        case MULT_PACK_SIZE:
            return state.player(p, P_PACK_PIZZA) + state.player(p, P_PACK_TOYS);
        case MULT_LOOKOUT_SIZE:
            return count_in(state, Z_LOOKOUT, p);
        default:
            throw std::logic_error("count_for: unknown multiplier " + std::to_string(mult));
    }
}

// program.load_program (p.14 "Per": multipliers counted when the action starts, R5)
void load_program(State& state, int32_t effect, int p, int side, bool full, const int16_t* suits,
                  int any_suit) {
    const Game& game = *state.game;
    const std::vector<Mult>& ms = mults(game, effect);
    std::array<int, 32> small{};  // the counts; on the heap for an action with more
    std::vector<int> big(ms.size() > small.size() ? ms.size() : 0);
    int* counts = big.empty() ? small.data() : big.data();
    for (size_t k = 0; k < ms.size(); ++k)
        counts[k] = count_for(state, ms[k].mult, ms[k].arg, p, suits, any_suit);
    // unrolled here first, so that an overflow throws before the state changes; only its
    // first n rows are written (no need to zero the rest of the buffer)
    std::array<int16_t, MAX_STEPS * PROG_COLUMNS> rows;
    const int n = unroll(game, effect, counts, rows.data());
    // padded with zero rows, as Python's (equal states compare equal)
    const auto used = rows.begin() + static_cast<std::ptrdiff_t>(n) * PROG_COLUMNS;
    std::fill(std::copy(rows.begin(), used, state.prog.begin()), state.prog.end(), int16_t{0});
    std::fill(state.done.begin(), state.done.end(), int8_t{0});
    state.ctx[C_PROGRAM_LENGTH] = n;
    state.ctx[C_PC] = 0;
    state.ctx[C_PROGRAM_FULL] = full ? 1 : 0;
    state.ctx[C_PROGRAM_OWNER] = p;
    state.ctx[C_PROGRAM_SIDE] = side;
    state.ctx[C_PROGRAM_FAILED] = 0;
    state.ctx[C_RESOURCE_CHOICE] = -1;
    state.ctx[C_CONVERT_FROM] = -1;
    state.ctx[C_REWARD] = 0;
    state.ctx[C_COPIED] = 0;
    state.ctx[C_CONTINUE_PC] = -1;
    if (full && n == 0)  // a blank (or x 0) action cannot be used fully (p.7 FAQ)
        state.ctx[C_PROGRAM_FAILED] = 1;
}

namespace {

// unroll's walk: `k` is the index (in cards.multipliers order) of the first multiplier of
// `node`'s subtree, so every repetition of a nested multiplier reads the same count.
struct Unroller {
    const Game& game;
    const int* counts;
    int16_t* rows;
    int n = 0;

    // program.unroll's emit: the rows [start, end) the node produced.
    std::pair<int, int> emit(int32_t node, size_t k) {
        const int start = n;
        const EffectNode& e = game.nodes[node];
        if (e.kind == E_ATOM) {
            if (n >= MAX_STEPS)
                throw std::overflow_error("an action unrolls to more than " +
                                          std::to_string(MAX_STEPS) + " steps");
            int16_t* row = rows + n * PROG_COLUMNS;
            row[PROG_VERB] = static_cast<int16_t>(e.a);
            row[PROG_ARG] = static_cast<int16_t>(e.b);
            row[PROG_REQ_LO] = -1;
            row[PROG_REQ_HI] = -1;
            ++n;
        } else if (e.kind == E_THEN) {
            const auto [lo, hi] = emit(e.a, k);
            const auto [r0, r1] = emit(e.b, k + game.node_mults[e.a].size());
            for (int i = r0; i < r1; ++i) {
                int16_t* row = rows + i * PROG_COLUMNS;
                if (row[PROG_REQ_LO] < 0) {
                    row[PROG_REQ_LO] = static_cast<int16_t>(lo);
                    row[PROG_REQ_HI] = static_cast<int16_t>(hi);
                }
            }
        } else {
            for (int rep = 0; rep < counts[k]; ++rep) emit(e.a, k + 1);
        }
        return {start, n};
    }
};

}  // namespace

// program.unroll
int unroll(const Game& game, int32_t effect, const int* counts, int16_t* rows) {
    Unroller u{game, counts, rows};
    if (effect >= 0) u.emit(effect, 0);
    return u.n;
}

// program.run_program
void run_program(State& state) {
    const auto p = static_cast<int>(state.ctx[C_PROGRAM_OWNER]);
    const bool full = state.ctx[C_PROGRAM_FULL] != 0;
    while (true) {
        if (state.ctx[C_PROGRAM_FAILED]) return;
        if (state.ctx[C_REWARD]) {
            set_decision(state, state.ctx[C_REWARD] == REWARD_RULE ? K_PICK_RULE : K_PICK_PERK,
                         p);
            return;
        }
        const auto pc = static_cast<int>(state.ctx[C_PC]);
        if (pc >= state.ctx[C_PROGRAM_LENGTH]) {
            program_done(state);
            return;
        }
        const int16_t* row = &state.prog[static_cast<size_t>(pc) * PROG_COLUMNS];
        const int verb = row[PROG_VERB], arg = row[PROG_ARG];
        const int lo = row[PROG_REQ_LO], hi = row[PROG_REQ_HI];
        if (lo >= 0 && std::none_of(state.done.begin() + lo, state.done.begin() + hi,
                                    [](int8_t d) { return d != 0; })) {
            if (full) {
                state.ctx[C_PROGRAM_FAILED] = 1;
                return;
            }
            state.ctx[C_PC] = pc + 1;
            continue;
        }
        const int status = atom_status(state, p, verb, arg);
        if (status != STATUS_FULL && full) {
            state.ctx[C_PROGRAM_FAILED] = 1;
            return;
        }
        if (status == STATUS_NONE) {
            state.ctx[C_PC] = pc + 1;  // as far as it goes: skip what cannot be done
            continue;
        }
        if (!full && state.ctx[C_CONTINUE_PC] != pc && may_stop_before(state, pc)) {
            set_decision(state, K_STOP_OR_CONTINUE, p);  // R3: stop here, or go on
            return;
        }
        const int decision = choice_needed(state, p, verb, arg);
        const bool paying = state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] +
                                state.ctx[C_PAY_EITHER] > 0;
        if (decision == K_PAY && !paying && start_payment(state, p, arg))
            continue;  // a free step: already levelled up
        if (decision >= 0) {
            set_decision(state, decision, p);
            return;
        }
        do_atom(state, p, verb, arg);
        step_done(state);
    }
}

// program.may_stop_before: whether the leader may stop the action used partially before step
// pc, a step that can be done now (p.6; docs/rules.md R3): in the leader's own play, outside
// the legality probes, once a step of the action was done; not where the right side of a
// "then" already begun is still ahead (p.14), nor when a card added counts only for this
// action (p.7).
bool may_stop_before(const State& state, int pc) {
    if (state.ctx[C_STAGE] != ST_ACTION || state.ctx[C_BOTH_FULL]) return false;
    const auto& done = state.done;
    if (std::none_of(done.begin(), done.begin() + pc, [](int8_t d) { return d != 0; }))
        return false;
    const auto n = static_cast<int>(state.ctx[C_PROGRAM_LENGTH]);
    for (int k = pc; k < n; ++k) {
        const int lo = state.prog[static_cast<size_t>(k) * PROG_COLUMNS + PROG_REQ_LO];
        const int hi = state.prog[static_cast<size_t>(k) * PROG_COLUMNS + PROG_REQ_HI];
        if (lo >= 0 && lo < pc &&
            std::any_of(done.begin() + lo, done.begin() + std::min(hi, pc),
                        [](int8_t d) { return d != 0; }))
            return false;  // the right side of a "then" already begun is still to come
    }
    return !added_only_for_this_action(state);
}

// program.added_only_for_this_action: whether a card added to the play (from hand or
// Lookout) has no suit counted by the action used fully, so that only the running (partial)
// action justifies it (p.7).
bool added_only_for_this_action(const State& state) {
    const Game& game = *state.game;
    const auto played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int64_t mode = state.ctx[C_MODE];
    if (played < 0 || played >= game.num_cards || mode < 0 || mode >= NUM_MODES)
        throw std::logic_error("added_only_for_this_action outside a play");
    const auto full_side = static_cast<int>(MODE_PLAN[mode][2]);
    // counted[s + 1]: suit s (or -1, an undeclared "any one suit", as Python's set holds it)
    bool counted[NUM_SUITS + 1] = {};
    const auto mark_suit = [&](int64_t s) {
        if (s >= -1 && s < NUM_SUITS) counted[s + 1] = true;
    };
    for (const Mult& m : mults(game, game.effect(played, full_side))) {
        if (m.mult == MULT_SUIT)
            mark_suit(m.arg);
        else if (m.mult == MULT_ANY_SUIT)
            mark_suit(state.ctx[full_side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
    }
    for (int c = 0; c < state.num_cards; ++c) {
        if (!state.mark[c]) continue;
        bool any = false;
        for (int k = 0; k < 2; ++k) {
            const int s = game.suit_lists[2 * c + k];
            if (s < 0) continue;
            const int t = s == COIN ? state.coin_as[c] : s;
            any = any || (t >= -1 && t < NUM_SUITS && counted[t + 1]);
        }
        if (!any) return true;
    }
    return false;
}

// program.step_done
void step_done(State& state) {
    const int64_t pc = state.ctx[C_PC];
    state.done.at(static_cast<size_t>(pc)) = 1;
    state.ctx[C_PC] = pc + 1;
}

// program.program_done
void program_done(State& state) {
    const int64_t stage = state.ctx[C_STAGE];
    if (stage == ST_ACTION) {
        const int64_t both_full = state.ctx[C_BOTH_FULL];
        const bool tail = both_full >= BOTH_FULL_TAIL && !state.ctx[C_PROGRAM_FULL];
        if (tail && !repetition_used(state, static_cast<int>(both_full - BOTH_FULL_TAIL))) {
            state.ctx[C_PROGRAM_FAILED] = 1;  // legality.changes_outcome's probe: no change
            return;
        }
        if (state.ctx[C_PROGRAM_SIDE] == PUBLIC)
            state.ctx[C_LEADER_RESOURCE] = state.ctx[C_RESOURCE_CHOICE];
        start_action(state, static_cast<int>(state.ctx[C_ACTION_STEP]) + 1);
    } else if (stage == ST_FOLLOW_RUN) {
        end_follow(state);
    } else if (stage == ST_PROBE) {
        state.ctx[C_STAGE] = ST_PROBE_DONE;
        state.ctx[C_SERIAL] += 1;
    } else {
        throw StateError("ctx.stage", PROGRAM_IN_NO_STAGE);  // a state written from outside
    }
}

// program.repetition_used: the running action is one plain body repeated
// (base.repeats_plain_body), so its repetition k is the steps from k * len(body) on; some step
// of repetition `first` or a later one was carried out (in a probe: repetition `first` was).
bool repetition_used(const State& state, int first) {
    const Game& game = *state.game;
    const auto played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    if (played < 0 || played >= game.num_cards)
        throw std::logic_error("repetition_used without a played card");
    const int32_t effect = game.effect(played, static_cast<int>(state.ctx[C_PROGRAM_SIDE]));
    if (!repeats_plain_body(game, effect))
        throw std::logic_error("repetition_used: not one plain body repeated");
    const int body = game.node_atoms[game.nodes[effect].a];
    const auto end = static_cast<int>(state.ctx[C_PROGRAM_LENGTH]);
    const int from = std::min(end, std::max(0, first * body));
    return std::any_of(state.done.begin() + from, state.done.begin() + end,
                       [](int8_t d) { return d != 0; });
}

// program.choice_needed
int choice_needed(const State& state, int p, int verb, int arg) {
    (void)p;
    if ((verb == V_GATHER || verb == V_SPEND) && arg == ANY_RESOURCE &&
        state.ctx[C_RESOURCE_CHOICE] < 0)
        return K_RESOURCE;
    if (verb == V_SPEND) return K_SPEND;
    return static_cast<int>(VERB_DECISION[verb]);
}

// program.resource_of
int resource_of(const State& state, int arg) {
    return arg == ANY_RESOURCE ? static_cast<int>(state.ctx[C_RESOURCE_CHOICE]) : arg;
}

// program.cost (game.advance_cost, R25)
Cost cost(const State& state, int p, int modifier) {
    const int level = state.player(p, P_FORT_LEVEL);
    if (level < 0 || level >= MAX_FORT_LEVEL)
        throw std::out_of_range("cost: no Fort step from level " + std::to_string(level));
    return advance_cost(state.game->fort_steps[level], modifier);
}

// program.payable
bool payable(const State& state, int p, int t, int z, int e) {
    const int toys = state.player(p, P_STUFF_TOYS) + state.player(p, P_PACK_TOYS);
    const int pizza = state.player(p, P_STUFF_PIZZA) + state.player(p, P_PACK_PIZZA);
    return toys >= t && pizza >= z && toys + pizza >= t + z + e;
}

// program.start_payment
bool start_payment(State& state, int p, int modifier) {
    const Cost c = cost(state, p, modifier);
    state.ctx[C_PAY_TOYS] = c.toys;
    state.ctx[C_PAY_PIZZA] = c.pizza;
    state.ctx[C_PAY_EITHER] = c.either;
    if (c.toys + c.pizza + c.either == 0) {
        level_up(state, p);
        return true;
    }
    return false;
}

// program.level_up (p.10: a made-up rule at Level 1, a perk at Level 2, the macaroni
// sculpture to the first at Level 5)
void level_up(State& state, int p) {
    state.player(p, P_FORT_LEVEL) += 1;
    const int level = state.player(p, P_FORT_LEVEL);
    const auto any_is = [](const std::vector<int8_t>& loc, int v) {
        return std::any_of(loc.begin(), loc.end(), [v](int8_t x) { return x == v; });
    };
    if (level == 1 && any_is(state.rule_loc, IN_STACK) && !any_is(state.rule_loc, p))
        state.ctx[C_REWARD] = REWARD_RULE;
    else if (level == 2 && any_is(state.perk_loc, IN_STACK))
        state.ctx[C_REWARD] = REWARD_PERK;
    else if (level == MAX_FORT_LEVEL && state.ctx[C_SCULPTURE] < 0)
        state.ctx[C_SCULPTURE] = p;
    step_done(state);
}

// program.gain (Stuff holds at most STUFF_CAPACITY of each, p.5)
void gain(State& state, int p, int r, int n) {
    int16_t& v = state.player(p, P_STUFF_PIZZA + r);
    v = static_cast<int16_t>(std::min<int>(STUFF_CAPACITY, v + n));
}

// program.copy_from
void copy_from(State& state, int p, int source) {
    const int status = copy_status(state, p, source);
    gain(state, p, PIZZA, state.player(source, P_PACK_PIZZA));
    gain(state, p, TOYS, state.player(source, P_PACK_TOYS));
    if (status != STATUS_FULL && state.ctx[C_PROGRAM_FULL]) state.ctx[C_PROGRAM_FAILED] = 1;
}

}  // namespace fort
