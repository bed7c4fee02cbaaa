// Setup and randomness: the C++ twin of fort_env/game/rules/deal.py (rulebook p.2, p.9).
#pragma once

#include <cstdint>
#include <memory>

#include "fort/game/rng.h"
#include "fort/game/state.h"

namespace fort {

// deal.new_state: the initial state of seed `seed` (in [0, SEED_LIMIT)); first_player < 0
// draws the first seat. The caller has checked seed and first_player (bindings do, with the
// Python engine's errors); the game must be validate()d.
State new_state(std::shared_ptr<const Game> game, uint64_t seed, int first_player);

// Steps 10-11: each shuffles kids + Best Friends into a deck and draws 5; then the first turn.
void finish_setup(State& state, const Game& game);

// The generator of the next random event, keyed by (seed, events so far); counts the event.
EventRng event_rng(State& state);

void shuffle_park_deck(State& state, EventRng& rng);
// The Park deck's top card (lowest pos), or -1 if it is empty.
int top_of_park_deck(const State& state);
void refill_park(State& state, int slot);
// Draw phase (p.9): draw n, reshuffling the discard pile when the deck runs out.
void draw(State& state, int p, int n);

}  // namespace fort
