// Applying an action: the C++ twin of fort_env/game/rules/handlers.py: one handler per action range
// (fort_env/game/verb_table.py RANGES), found through the generated table HANDLERS (dispatch.h,
// indexed by the generated R_* codes). Every handler is called as handler(state, acting seat, index within its range, pending
// decision kind).
#pragma once

#include <cstdint>

#include "fort/game/state.h"
#include "fort/rules/dispatch.h"

namespace fort {

// handlers.apply: apply an action known to be (locally) legal. Throws std::out_of_range for
// an action outside [0, num_actions) or a terminal state, std::invalid_argument for an
// action of a range the pending decision does not offer (decision_offers); the state is then
// unchanged. An error deeper in the rules (std::logic_error: a state the engine cannot
// reach; std::overflow_error: a program past MAX_STEPS) may leave it changed, as in Python.
void apply(State& state, int a);

// Throws std::invalid_argument if a field the rules use as an index (a seat, a card, a suit,
// a program row...) is out of range: apply's precondition for a state from outside
// (_core.apply_unchecked checks it; the engine's own states always meet it).
void check_indices(const State& state);

// handlers._count_suits: count card c's suits for the play; a coin waits for its declared
// suit (decision `kind` at `stage`, p.6). Returns whether that decision is now pending.
bool count_suits(State& state, int p, int c, int64_t stage, int64_t kind);
// handlers.recruit
void recruit(State& state, int p, int c);
// handlers.after_recruit
void after_recruit(State& state, int p, int kind);

// The handlers on_<range>, the table HANDLERS (action range R_* -> its handler) and
// decision_offers are declared in the generated dispatch.h (from fort_env/game/verb_table.py).

}  // namespace fort
