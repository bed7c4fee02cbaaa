// Local legality: the C++ twin of fort_env/rules/legality.py. The actions the rules allow at
// the pending decision, before the search (search.h) removes those after which the play
// cannot be completed (rulebook p.6-16; docs/rules.md "Exact masks").
#pragma once

#include <vector>

#include "fort/state.h"

namespace fort {

// legality.raw_legal: the actions allowed by the local rules of the pending decision, in the
// Python engine's order (not sorted). Reads the state only (probes run on clones).
std::vector<int> raw_legal(State& state);

// legality.useful_suits: suits counted by a used action of the played card (its "x suit" and
// any-one-suit), in first-seen order.
std::vector<int> useful_suits(const State& state);

// legality.addable: cards that may be added now (hand, or Lookout cards not yet added) whose
// suits change the outcome of a used action (p.6-7), ascending ids.
std::vector<int> addable(State& state);

// legality.changes_outcome_with / changes_outcome: whether one more `suit` changes what a
// used action does (p.7; docs/rules.md R7).
bool changes_outcome_with(State& state, int card, int suit);
bool changes_outcome(State& state, int suit);

}  // namespace fort
