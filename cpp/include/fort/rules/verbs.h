// The verbs of the action language: the C++ twin of fort_env/game/rules/verbs.py: whether a step
// can be done now (its status) and carrying out the steps that need no choice (p.12-15).
// VERB_RULES' columns (VERB_DECISION, VERB_ONE_STEP, VERB_READS, VERB_CHANGES, COUNT_READS)
// are generated into constants.h.
#pragma once

#include <vector>

#include "fort/game/state.h"

namespace fort {

// verbs.atom_status: STATUS_FULL, STATUS_PARTIAL (copying part of a Pack) or STATUS_NONE.
int atom_status(const State& state, int p, int verb, int arg);
// verbs.copy_status: copying `source`'s Pack into p's Stuff.
int copy_status(const State& state, int p, int source);
// verbs.lookout_sources: cards that may be tucked (hand; with Bribe, Park and every Yard and
// -1 for the Park deck's top card), in the Python order.
std::vector<int> lookout_sources(const State& state, int p);
// verbs.trash_sources: p's hand and discard pile, ascending ids.
std::vector<int> trash_sources(const State& state, int p);
// verbs.convert_options: indices into CONVERT_OPTIONS allowed now, ascending.
std::vector<int> convert_options(const State& state, int p);
// verbs.do_atom: carry out a step that needs no choice.
void do_atom(State& state, int p, int verb, int arg);

}  // namespace fort
