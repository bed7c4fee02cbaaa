// One player's view as a flat float32 tensor: the C++ twin of fort_env/views/observation.py
// (slices, units and what each seat may see are documented there and in docs/DESIGN.md,
// "Observation"). The layout (OBS_* slice indices, sizes from the generated constants.h) is
// the same for 2, 3 and 4 players and depends only on the card set's size; Game::obs_offset
// holds it (filled by Game::build_views, observation.cc).
#pragma once

#include <cstdint>

#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// observation._layout(num_cards).size: the tensor's length for a card set of num_cards.
int64_t observation_size(int64_t num_cards);

// observation.observation_tensor(state, player): writes `player`'s observation into
// out[0 .. g.obs_offset[NUM_OBS_SLICES]) (every entry; out is not read). `player` must be a
// seat in [0, num_players) (the binding checks it). Throws std::out_of_range on a state
// whose codes would write outside their slice (a zone, seat, level, kind or suit out of
// range), before nothing but `out` is touched.
void observation_tensor(const State& s, int player, float* out);

}  // namespace fort
