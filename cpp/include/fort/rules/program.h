// The action-program interpreter: the C++ twin of fort_env/game/rules/program.py. An action is
// unrolled into steps (verb, arg, req_lo, req_hi) with its multipliers counted when it starts
// (docs/rules.md R5), then carried out step by step until one needs a choice ("then" chains
// and the other action used partially: skipping what cannot be done, and stopped after any
// step if the leader chooses, p.6-7, p.14, docs/rules.md R3).
#pragma once

#include <cstdint>

#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// program.count_for: the count of multiplier (mult, arg) for seat p, `suits` the suit counts
// of the play (NUM_SUITS entries), `any_suit` the chosen "any one suit" (-1 none).
int count_for(const State& state, int mult, int arg, int p, const int16_t* suits, int any_suit);

// program.load_program: unroll `effect` (a node of state.game, -1 blank) for seat p, counts
// fixed now, into state.prog (zero rows after it) and reset the program's ctx fields.
// Throws std::overflow_error (Python's OverflowError) if it unrolls past MAX_STEPS rows;
// the state is then unchanged.
void load_program(State& state, int32_t effect, int p, int side, bool full, const int16_t* suits,
                  int any_suit);

// program.unroll: the steps of `effect` given its multipliers' counts (`counts` in
// cards.multipliers order, one per multiplier), written as rows of 4 into `rows`
// (MAX_STEPS * PROG_COLUMNS entries); returns the number of rows.
int unroll(const Game& game, int32_t effect, const int* counts, int16_t* rows);

// program.run_program: carry out steps until one needs a choice, or the action ends.
void run_program(State& state);
// program.may_stop_before: the leader may stop the partial action before step pc (R3).
bool may_stop_before(const State& state, int pc);
// program.added_only_for_this_action (p.7, R3)
bool added_only_for_this_action(const State& state);
// program.step_done
void step_done(State& state);
// program.program_done
void program_done(State& state);
// program.repetition_used: whether some step of repetition `first` (0-based) of the running
// action (one plain body repeated), or of a later one, was carried out (legality R7 probes).
bool repetition_used(const State& state, int first);
// program.choice_needed: the decision kind a step asks, or -1 (Python's None).
int choice_needed(const State& state, int p, int verb, int arg);
// program.resource_of
int resource_of(const State& state, int arg);
// program.cost: (toys, pizza, either) for p to advance from its Fort Level with `modifier`.
Cost cost(const State& state, int p, int modifier);
// program.payable
bool payable(const State& state, int p, int t, int z, int e);
// program.start_payment: set the cost to pay; true if free (the level is gained at once).
bool start_payment(State& state, int p, int modifier);
// program.level_up: one Fort Level up and its reward (p.10).
void level_up(State& state, int p);
// program.gain
void gain(State& state, int p, int r, int n);
// program.copy_from
void copy_from(State& state, int p, int source);

}  // namespace fort
