// fort_env/game/rules/witness.py in C++: dead cards and modes, and witness runs
// (docs/rules.md R32).
#include "fort/rules/witness.h"

#include <algorithm>
#include <vector>

#include "fort/game/game.h"
#include "fort/rules/base.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/legality.h"
#include "fort/rules/program.h"
#include "fort/rules/verbs.h"

namespace fort {

namespace {

int off(const Game& g, int range) { return g.action_start[range]; }

}  // namespace

// witness.dead_modes_of_choice: the returned test, applied to one action
bool DeadTest::operator()(State& state, int a) const {
    const Game& g = *state.game;
    switch (kind) {
        case PLAY: {  // dead_card
            if (!(off(g, R_PLAY_CARD) <= a && a < off(g, R_PLAY_CARD) + g.num_cards)) return false;
            const int card = a - off(g, R_PLAY_CARD);
            const auto& t = g.search_tables;
            const auto dead = dead_modes(state, card);
            for (int m = 0; m < NUM_MODES; ++m) {
                const int first = static_cast<int>(MODE_PLAN[m][0]);
                const int second = static_cast<int>(MODE_PLAN[m][1]);
                if (!t.blank(card, first) && (second < 0 || !t.blank(card, second)) && !dead[m])
                    return false;
            }
            return true;
        }
        case MODE:
            return mode_flags[static_cast<std::size_t>(a - off(g, R_MODE))];
        case FOLLOW:
            return off(g, R_FOLLOW_CARD) <= a && a < off(g, R_FOLLOW_CARD) + g.num_cards;
        default:
            return false;
    }
}

// witness.dead_modes_of_choice
DeadTest dead_modes_of_choice(State& state) {
    DeadTest out;
    const int64_t kind = state.ctx[C_DECISION];
    if (kind == K_PLAY) {
        out.kind = DeadTest::PLAY;
    } else if (kind == K_MODE) {
        out.kind = DeadTest::MODE;
        out.mode_flags = dead_modes(state, static_cast<int>(state.ctx[C_PLAYED_CARD]));
    } else if (kind == K_FOLLOW) {
        // A follower uses the public action fully (p.8): if its first step cannot be done
        // now, discarding a card (which only shrinks the hand) cannot change that.
        const auto& t = state.game->search_tables;
        const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
        const Atom atom = t.first_atom(played, PUBLIC);
        if (atom.verb >= 0) {
            int status = 0;
            statuses(state, static_cast<int>(state.ctx[C_ACTOR]), &atom, 1, &status);
            if (status == STATUS_NONE) out.kind = DeadTest::FOLLOW;
        }
    }
    return out;
}

// witness.statuses
void statuses(State& state, int p, const Atom* atoms, int n, int* out) {
    const int64_t saved[5] = {state.ctx[C_RESOURCE_CHOICE], state.ctx[C_CONVERT_FROM],
                              state.ctx[C_PAY_TOYS], state.ctx[C_PAY_PIZZA],
                              state.ctx[C_PAY_EITHER]};
    state.ctx[C_RESOURCE_CHOICE] = state.ctx[C_CONVERT_FROM] = -1;
    state.ctx[C_PAY_TOYS] = state.ctx[C_PAY_PIZZA] = state.ctx[C_PAY_EITHER] = 0;
    for (int i = 0; i < n; ++i) out[i] = atom_status(state, p, atoms[i].verb, atoms[i].arg);
    state.ctx[C_RESOURCE_CHOICE] = saved[0];
    state.ctx[C_CONVERT_FROM] = saved[1];
    state.ctx[C_PAY_TOYS] = saved[2];
    state.ctx[C_PAY_PIZZA] = saved[3];
    state.ctx[C_PAY_EITHER] = saved[4];
}

// witness.dead_modes (docs/rules.md R32: a step that cannot be done now cannot become possible
// before the actions start)
std::array<bool, 6> dead_modes(State& state, int card) {
    const auto& t = state.game->search_tables;
    const int leader = static_cast<int>(state.ctx[C_LEADER]);
    bool first_dead[2], all_dead[2];
    for (int side = 0; side < 2; ++side) {
        const auto& atoms = t.atoms(card, side);
        const int n = static_cast<int>(atoms.size());
        int status[SearchTables::MAX_ATOMS];
        statuses(state, leader, atoms.data(), n, status);
        all_dead[side] = std::all_of(status, status + n, [](int x) { return x == STATUS_NONE; });
        const Atom first = t.first_atom(card, side);
        first_dead[side] = true;
        if (first.verb >= 0) {
            for (int i = 0; i < n; ++i)
                if (atoms[i].verb == first.verb && atoms[i].arg == first.arg)
                    first_dead[side] = status[i] == STATUS_NONE;
        }
    }
    std::array<bool, 6> out{};
    for (int m = 0; m < NUM_MODES; ++m) {
        const int first = static_cast<int>(MODE_PLAN[m][0]);
        const int second = static_cast<int>(MODE_PLAN[m][1]);
        const int full = static_cast<int>(MODE_PLAN[m][2]);
        const bool runs_first_alone = second < 0 || full == first;
        const int other = full == first ? second : first;
        // with `second < 0`, Python's `other` is -1, i.e. the last side (PRIVATE)
        const int oth = other < 0 ? 1 : other;
        const bool harmless =
            all_dead[oth] || (t.first_reads(card, full) & t.changes(card, oth)) == 0;
        out[m] = first_dead[full] && (runs_first_alone || harmless);
    }
    return out;
}

// witness.runs_straight_through (docs/rules.md R32 "Witnesses")
bool runs_straight_through(State& state, int a) {
    const Game& g = *state.game;
    const auto& t = g.search_tables;
    const int64_t kind = state.ctx[C_DECISION];
    struct Plan {
        int nsteps;
        int side[2];
        bool full[2];
        bool has_suits;
        std::array<int16_t, NUM_SUITS> suits;
        int coin;
    };
    // at most two sides times two ways to count a played coin (suits_if_played)
    std::array<Plan, 4> plans;
    int num_plans = 0;
    int card = -1;
    if (kind == K_PLAY && off(g, R_PLAY_CARD) <= a && a < off(g, R_PLAY_CARD) + g.num_cards) {
        card = a - off(g, R_PLAY_CARD);
        for (int side = PUBLIC; side <= PRIVATE; ++side)  // (PUBLIC, PRIVATE)
            for (const auto& cs : suits_if_played(state, card, side))
                plans[static_cast<size_t>(num_plans++)] =
                    Plan{1, {side, -1}, {true, false}, true, cs.second, cs.first};
    } else if (kind == K_FOLLOW && off(g, R_FOLLOW_CARD) <= a && a < off(g, R_FOLLOW_CARD) + g.num_cards) {
        return follow_plainly_usable(state, a - off(g, R_FOLLOW_CARD));
    } else if (kind == K_MODE) {
        card = static_cast<int>(state.ctx[C_PLAYED_CARD]);
        const int m = a - off(g, R_MODE);
        const int first = static_cast<int>(MODE_PLAN[m][0]);
        const int second = static_cast<int>(MODE_PLAN[m][1]);
        const int full = static_cast<int>(MODE_PLAN[m][2]);
        if (second < 0)
            plans[static_cast<size_t>(num_plans++)] =
                Plan{1, {first, -1}, {true, false}, false, {}, -1};
        else if (full == second)
            plans[static_cast<size_t>(num_plans++)] =
                Plan{2, {first, second}, {false, true}, false, {}, -1};
        else
            return false;  // "X fully, then Y" shares the class of "X only"
    } else {
        return false;
    }
    const int p = static_cast<int>(state.ctx[C_LEADER]);
    const int playing = kind == K_PLAY ? card : -1;
    for (int i = 0; i < num_plans; ++i) {
        const Plan& plan = plans[static_cast<size_t>(i)];
        bool skip = false;
        for (int k = 0; k < plan.nsteps; ++k)
            skip = skip || t.blank(card, plan.side[k]) || g.has_any_suit[2 * card + plan.side[k]];
        if (skip) continue;
        if (plan.nsteps == 1) {
            const int16_t* counted = plan.has_suits ? plan.suits.data() : state.play_suits.data();
            if (plainly_usable(state, p, card, plan.side[0], counted, playing)) return true;
        } else {  // "Y, then X (fully)": Y used as far as it goes never fails; if none of
            // its steps can change what X reads (its step's status and its count), X is
            // exactly as plainly usable after Y as now
            const int y = plan.side[0], x = plan.side[1];
            if ((t.plain_reads(card, x) & t.changes(card, y)) == 0 &&
                plainly_usable(state, p, card, x, state.play_suits.data(), -1))
                return true;
        }
        ScratchState clone;  // state.clone()
        State& probe = clone.copy_of(state);
        if (plan.has_suits) {  // as if played ("trash this card" names it)
            probe.zone[card] = static_cast<int8_t>(Z_IN_PLAY);
            std::copy(plan.suits.begin(), plan.suits.end(), probe.play_suits.begin());
            probe.ctx[C_PLAYED_CARD] = card;
            if (plan.coin >= 0) probe.coin_as[card] = static_cast<int8_t>(plan.coin);
        }
        bool completed = true;
        // per call, not per thread: raw_legal can search, and a search can come back here
        std::vector<int> options;
        for (int k = 0; k < plan.nsteps; ++k) {
            const int side = plan.side[k];
            probe.ctx[C_STAGE] = ST_PROBE;
            load_program(probe, g.card_effects[2 * card + side], p, side, plan.full[k],
                         probe.play_suits.data(), -1);
            run_program(probe);
            // Choices inside the action: take the first allowed option each time. Any run
            // that ends with the action used fully is a witness; a failed one proves nothing.
            // (A run the rules reach ends within its steps and rewards; the bound only stops
            // a state from outside that would loop: no witness then, the search decides.)
            for (int guard = 0; probe.ctx[C_STAGE] == ST_PROBE && !probe.ctx[C_PROGRAM_FAILED];
                 ++guard) {
                raw_legal_into(probe, options);
                if (options.empty() || guard > 8 * MAX_STEPS) break;
                apply(probe, options[0]);
            }
            if (probe.ctx[C_STAGE] != ST_PROBE_DONE) {
                completed = false;
                break;
            }
        }
        if (completed) return true;
    }
    return false;
}

// witness.suits_if_played (p.6: a played coin counts only as the suit declared for it)
PlayedSuits suits_if_played(const State& state, int card, int side) {
    const Game& g = *state.game;
    std::array<int16_t, NUM_SUITS> base{};
    for (int s = 0; s < NUM_SUITS; ++s) base[s] = g.suit_counts[card * NUM_SUITS + s];
    PlayedSuits out;
    if (!g.has_coin[card]) {
        out.entries[0] = {-1, base};
        out.size = 1;
        return out;
    }
    base[COIN] = 0;
    int lowest_counted = -1;
    bool counted[NUM_SUITS] = {};
    const int effect = g.card_effects[2 * card + side];
    if (effect >= 0) {
        for (const auto& m : mults(g, effect)) {
            if (m.mult != MULT_SUIT) continue;
            const int arg = static_cast<int>(m.arg);
            counted[arg] = true;
            if (lowest_counted < 0 || arg < lowest_counted) lowest_counted = arg;
        }
    }
    int uncounted = 0;
    while (uncounted < NUM_SUITS - 1 && counted[uncounted]) ++uncounted;
    for (int s : {lowest_counted, uncounted}) {
        if (s < 0) continue;
        auto suits = base;
        suits[s] = static_cast<int16_t>(suits[s] + 1);
        out.entries[static_cast<size_t>(out.size++)] = {s, suits};
    }
    return out;
}

// witness.follow_plainly_usable (p.8; R11: the follower's counts, the leader's resource)
bool follow_plainly_usable(State& state, int card) {
    const int p = static_cast<int>(state.ctx[C_ACTOR]);
    if (has_perk(state, p, PERK_COPY_CAT)) return false;
    const auto fc = follow_counts(state, std::vector<int>{card});
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int resource = static_cast<int>(state.ctx[C_LEADER_RESOURCE]);
    return plainly_usable(state, p, played, PUBLIC, fc.counts.data(), card, fc.any_suit, resource);
}

// witness.plainly_usable (docs/rules.md R32: the simplest actions need no run)
bool plainly_usable(State& state, int p, int card, int side, const int16_t* suits, int playing,
                    int any_suit, int resource) {
    const auto& t = state.game->search_tables;
    const auto step = t.single_step(card, side);
    if (step.verb < 0) return false;
    const int64_t n = count_for(state, step.mult, step.mult_arg, p, suits, any_suit);
    if (n < 1) return false;  // no step: not a full use (p.7 FAQ)
    if (step.verb == V_SCORE || step.verb == V_TRASH_THIS) return true;
    if (step.verb == V_GATHER) {
        const int stuff[2] = {state.player(p, P_STUFF_PIZZA), state.player(p, P_STUFF_TOYS)};
        int have;
        if (step.arg != ANY_RESOURCE)
            have = stuff[step.arg];
        else
            have = resource >= 0 ? stuff[resource] : std::min(stuff[0], stuff[1]);
        return have + n <= STUFF_CAPACITY;
    }
    if (n == 1 && VERB_ONE_STEP[step.verb]) {
        const Atom atom{step.verb, step.arg};
        int status = 0;
        if (playing < 0) {
            statuses(state, p, &atom, 1, &status);
            return status == STATUS_FULL;
        }
        const int8_t where = state.zone[playing];
        state.zone[playing] = static_cast<int8_t>(Z_IN_PLAY);  // trash, Lookout choose from hand
        statuses(state, p, &atom, 1, &status);
        state.zone[playing] = where;
        return status == STATUS_FULL;
    }
    return false;
}

}  // namespace fort
