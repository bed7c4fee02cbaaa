// Local legality: the C++ twin of fort_env/game/rules/legality.py. The actions the rules allow at
// the pending decision, before the search (search.h) removes those after which the play
// cannot be completed (rulebook p.6-16; docs/rules.md "Exact masks").
#pragma once

#include <vector>

#include "fort/game/state.h"

namespace fort {

// legality.raw_legal: the actions allowed by the local rules of the pending decision, in the
// Python engine's order (not sorted). Reads the state only (probes run on clones).
std::vector<int> raw_legal(State& state);
// raw_legal into `out` (cleared first; its storage reused).
void raw_legal_into(State& state, std::vector<int>& out);

// legality.useful_suits: suits counted by a used action of the played card (its "x suit" and
// any-one-suit), in first-seen order.
std::vector<int> useful_suits(const State& state);

// legality.fully_counted: suits counted by the action used fully ("x suit", any-one-suit), in
// first-seen order.
std::vector<int> fully_counted(const State& state);

// legality.addable: cards that may be added now (hand, or Lookout cards not yet added) one of
// whose suits (a coin: declared as some suit) changes the outcome of a used action (p.6-7;
// changes_outcome on the play with the card added), ascending ids. Inside a legality probe
// (ctx.both_full set) every card with a counted suit or a coin (docs/rules.md R7).
std::vector<int> addable(State& state);

// legality.coin_suits: the suits the coin of `card`, being added (ADD_COIN), may be declared as:
// those with which one of its suits changes the outcome (README fact 1: "one suit of your
// choice"); all seven inside a legality probe. Ascending.
std::vector<int> coin_suits(State& state, int card);

// legality.changes_outcome_with: whether `card`, being added (ADD_COIN), changes the outcome
// with its coin declared as `suit`.
bool changes_outcome_with(State& state, int card, int suit);

// legality.changes_outcome: whether `card`, just added (its coin declared; `state` at the ADD
// decision that follows), changes the effect of a used action (p.7; docs/rules.md R7): one of
// its suits is counted by the action used fully, or a probe (the play searched from here, with
// ctx.both_full = BOTH_FULL_TAIL + the first repetition the card brings, or 1 for an action
// that is not one plain body repeated) finds a completion in which the other action uses it.
// Consumes `state` (the probe runs on it): callers pass a copy they no longer need.
bool changes_outcome(State& state, int card);

}  // namespace fort
