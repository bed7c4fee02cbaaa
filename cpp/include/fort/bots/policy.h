// Built-in policies: decisions made inside C++ with no Python call, for the batched envs'
// built-in seats (envs/batch.h, self_play.h: native/seat_policies.h hands them over) and for
// playouts (native/playout.h). A policy reads the whole state, so it is for opponents and
// simulations, never for a learner's observation (no hidden information reaches Python
// through it).
//
// Randomness: every draw comes from the specified generator (rng.h), an EventRng the caller
// keys by (seed, event), so a playout or an opponent's move is reproducible from its seed and
// independent of thread count and schedule.
#pragma once

#include <cstdint>

#include "fort/constants.h"
#include "fort/game/rng.h"
#include "fort/game/state.h"

namespace fort {

// The policies by code: the names are fort_env/game/constants.py's POLICIES, and each code is the
// generated POLICY_<NAME> (constants.h), so the two sides cannot drift. A new policy: append
// its name to POLICIES, run scripts/gen_constants.py, add it here and to policy_action.
enum class Policy : int {
    // Uniform over the exact legal actions (search.h legal_actions), by rejection over the
    // locally legal ones: with raw = raw_legal(state) (legality.h: the engine's order, no
    // repeats), draw j = rng.below(raw.size()) until raw[j] is legal; play raw[j]. Exactly
    // uniform, as every legal action is in raw; only the drawn action's equivalence class is
    // searched (search.h compute_legal's classes, verdicts and representative).
    RANDOM = POLICY_RANDOM,
    // The heuristic bots of agents/bots/heuristics.py, one C++ implementation parameterised by
    // the bot's style (rollout_policy.h heuristic_of / heuristic_action; the styles are generated
    // into weights.h): score for score the Python bot's, the best-scored legal action played,
    // ties broken with rng. Each reads only what the acting seat sees.
    BUILDER = POLICY_BUILDER,          // BuilderAgent: packs and advances
    SCORER = POLICY_SCORER,            // ScorerAgent: victory points and its made-up rule
    OPPORTUNIST = POLICY_OPPORTUNIST,  // OpportunistAgent: follows, recruits, trashes rivals'
};

// The built-in policy `policy`'s action for the acting seat of a non-terminal state, drawn
// with `rng`. Throws fort::StateError (errors.h: NO_LEGAL_ACTION, every policy alike) if the
// state has no legal action (a state the rules cannot reach) or std::invalid_argument for an
// unknown policy code.
int policy_action(Policy policy, State& state, EventRng& rng);

// Apply a legal action and check the end triggers: the engine's apply_action without the
// legality check (the caller chose `a` from the legal actions).
void apply_and_check_end(State& state, int a);

}  // namespace fort
