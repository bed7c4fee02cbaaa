// Re-dealing what a player cannot see: the C++ twin of fort_env/views/hidden.py, whose docstring
// specifies the canonical order of the hidden slots and every draw (one stream,
// EventRng(seed, RESAMPLE_EVENT)); the result is a function of the observer's information
// set and the seed only, and equal to hidden.resample_hidden_seeded's.
#pragma once

#include <cstdint>

#include "fort/game/state.h"

namespace fort {

// hidden.resample_hidden_seeded(state, observer, seed): a copy of `state` with everything
// `observer` cannot see re-dealt. `observer` in [0, num_players) and `seed` in
// [0, SEED_LIMIT) (the binding checks both). Throws std::invalid_argument when the hidden
// cards cannot be re-dealt (an inconsistent state: Python raises StateError there).
State resample_hidden(const State& state, int observer, uint64_t seed);

}  // namespace fort
