// One player's view as a flat float32 tensor: the C++ twin of fort_env/views/observation.py
// (slices, units and what each seat may see are documented there and in docs/DESIGN.md,
// "Observation"). The layout (OBS_* slice indices, sizes from the generated constants.h) is
// the same for 2, 3 and 4 players and depends only on the card set's size; Game::obs_offset
// holds it (filled by Game::build_views, observation.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "fort/constants.h"
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

// observation_tensor for a row written again and again (the batched envs' obs rows): only the
// entries listed in `written` are cleared, not the whole row (~95% of a row is zeros, and the
// clear was most of the writer's cost). Precondition: out holds an observation written by
// observation_record or observation_update, with `written` as that call left it, and nothing
// written into out since. Writes `player`'s observation of `s` (the same floats as
// observation_tensor) and lists its non-zero entries' indices in `written` (in the order
// written). Throws as observation_tensor; `written` then still lists every entry that may be
// non-zero, so the precondition holds for the next call.
void observation_update(const State& s, int player, float* out, std::vector<int32_t>& written);

// observation_tensor (the whole row cleared) that also lists the non-zero entries in
// `written`, for observation_update's next call on the same row.
void observation_record(const State& s, int player, float* out, std::vector<int32_t>& written);

// observation.max_active_features(layout): the most non-zero entries an observation can have:
// every fixed-size slice's entries, one per card (a card is in one zone: at most one entry of
// the card-by-card slices) and the played card. The padded width of active_features.
int64_t max_active_features(const Game& g);

// The non-zero entries of an observation row obs[0 .. size), in increasing index order, into
// index[0 .. k) and value[0 .. k), the rest of both up to `width` zeroed (padding: index 0,
// value 0); returns k. Throws std::logic_error if the row has more than `width` (never for a
// row of observation_tensor and width max_active_features: tested).
int64_t active_features(const float* obs, int64_t size, int32_t* index, float* value,
                        int64_t width);

// The table observation (fort_env/views/observation.py table_from_observations): `player`'s
// observation, then, for each other seat in turn order from its left, that seat's private
// slices (TABLE_PRIVATE_SLICES: hand, deck contents, Lookout cards, made-up rule, draft pack,
// draft kept). It shows every seat's hidden cards (never a deck's order): for critics in
// training and at the search's leaves, never for choosing an action. Length
// table_observation_size(game): D + (n - 1) * P floats.
inline constexpr int64_t TABLE_PRIVATE_SLICES[] = {OBS_MY_HAND,         OBS_MY_DECK,
                                                   OBS_MY_LOOKOUT,      OBS_MY_MADE_UP_RULE,
                                                   OBS_MY_DRAFT_PACK,   OBS_MY_DRAFT_KEPT};
int64_t table_observation_size(const Game& g);

// From every seat's observation of one position, obs (n, D) row-major with row p seat p's:
// writes `player`'s table observation into out[0 .. table_observation_size(g)).
void table_from_observations(const Game& g, const float* obs, int player, float* out);

// Writes `player`'s table observation of `s` (every seat's observation_tensor, then
// table_from_observations); `scratch` is resized to (n, D). Throws as observation_tensor.
void table_observation_tensor(const State& s, int player, float* out, std::vector<float>& scratch);

}  // namespace fort
