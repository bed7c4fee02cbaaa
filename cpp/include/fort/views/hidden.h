// Re-dealing what a player cannot see: the C++ twin of fort_env/views/hidden.py, whose docstring
// specifies the canonical order of the hidden slots and every draw (one stream,
// EventRng(seed, RESAMPLE_EVENT)); the result is a function of the observer's information
// set and the seed only, and equal to hidden.resample_hidden_seeded's.
#pragma once

#include <cstdint>

#include "fort/game/state.h"

namespace fort {

// hidden.MAX_REDEALS: tries of the re-deal (try k draws from EventRng(seed, RESAMPLE_EVENT + k))
// before the state is kept as it is.
inline constexpr int64_t MAX_REDEALS = 64;

// hidden.can_go_on: the position is over, or has a legal action and, in a play under way, the
// play can be completed (the check validation.py makes of a loaded state). Fills the state's
// legal-action cache (search.h cached_legal_actions; throws as it does for a bad state).
bool can_go_on(State& state);

// hidden.resample_hidden_seeded(state, observer, seed): a copy of `state` with everything
// `observer` cannot see re-dealt, the first of up to MAX_REDEALS tries whose position can go
// on (else a copy of `state`). `observer` in [0, num_players) and `seed` in [0, SEED_LIMIT)
// (the binding checks both). Throws std::invalid_argument when the hidden cards cannot be
// re-dealt (an inconsistent state: Python raises StateError there), fort::StateError (errors.h)
// when no try can go on and neither can `state`.
State resample_hidden(const State& state, int observer, uint64_t seed);

}  // namespace fort
