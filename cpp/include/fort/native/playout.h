// Playouts: from a state, play to the end of the game with a built-in policy (policy.h) and
// return the returns. The C++ twin of fort_env/native/playout.py, whose docstring is the spec; in
// short:
//
//   * Decision k of a playout (k = 0, 1, ... counted from the given state, whoever acts) draws
//     from its own stream EventRng(seed, k) (rng.h), through policy_action(policy, state, rng).
//     The game's own random events (reshuffles) keep drawing from the state's ctx seed, as in
//     any game, so a playout is a function of (state, policy, seed) alone.
//   * The playout ends when the game is over (C_STAGE == ST_OVER). Its returns are
//     FortState.returns(): +1.0 for every winner (scoring.h winners: most points, then the
//     highest Fort Level, else shared, rulebook p.11), -1.0 for every other seat. A state that
//     is already over gives its returns after 0 decisions.
//   * A batch of n playouts from one state with seed s is playout i = the single playout with
//     seed s + i, i in [0, n) (the caller keeps s + n <= SEED_LIMIT); results are the same for
//     any thread count and schedule: nothing shared is mutable (the Game is const, the search
//     memo is per thread, search.h) and each playout's draws depend only on its own seed.
#pragma once

#include <cstdint>
#include <vector>

#include "fort/bots/policy.h"
#include "fort/constants.h"
#include "fort/game/state.h"

namespace fort {

// The outcome of one playout: returns per seat (num_players entries) and decisions taken.
struct PlayoutResult {
    std::vector<double> returns;
    int64_t decisions = 0;
};

// Play `state` (a copy: the caller's state is not touched) to the end with `policy`, the
// draws keyed by `seed` (above). MAX_PLAYOUT_DECISIONS (constants.h) is a guard, not a rule:
// a random game ends after a few hundred decisions; a state written from outside that would
// never end stops there. Throws std::invalid_argument for an unknown policy code,
// fort::StateError (errors.h) for a running state with no legal action, std::runtime_error past
// MAX_PLAYOUT_DECISIONS.
PlayoutResult playout(State state, Policy policy, uint64_t seed);

// Play to the end in place (no copy): `state` ends over; returns the decisions taken.
int64_t playout_in_place(State& state, Policy policy, uint64_t seed);

// returns_of: FortState.returns() of a finished state into out[0..num_players): +1 winners,
// -1 the others (zeros if the game is not over).
void returns_of(const State& state, double* out);

// n playouts from `state`, playout i with seed `seed + i`, on `threads` threads (1: the
// calling thread only; more: std::threads splitting i in contiguous blocks). Writes
// returns_out[i * num_players + p] and decisions_out[i] (either may be null). The first
// error (lowest i) is rethrown after every thread has finished. Nothing here touches Python:
// the caller may release the GIL.
void playouts(const State& state, Policy policy, uint64_t seed, int64_t n, int threads,
              double* returns_out, int64_t* decisions_out);

}  // namespace fort
