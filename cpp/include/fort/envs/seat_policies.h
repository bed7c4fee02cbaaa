// The built-in seats of the batched envs (batch.h, self_play.h): the decisions made inside C++
// for a seat whose code is a policy code rather than LEARNER or EXTERNAL.
//
// Declared here, at the envs' level, so that the envs depend on no bot: the bots sit beside
// the envs and may not include them, nor the envs the bots (docs/cpp.md "Layout"). The
// built-in policies (bots/policy.h) are handed over as a SeatPolicies by
// native/seat_policies.h, which the binding (bindings/batch_bind.cc) gives every env it makes.
#pragma once

#include "fort/game/rng.h"
#include "fort/game/state.h"

namespace fort {

class SeatPolicies {
   public:
    virtual ~SeatPolicies() = default;

    // The codes a seat may be given: [0, count()).
    virtual int count() const = 0;

    // Policy `code`'s action (in [0, count())) for the acting seat of a running `state`,
    // drawing only from `rng` (the env keys it: batch.h "Seeds"), so that an env's games are a
    // function of its seed. Called from the env's worker threads at once, on different states:
    // it must not write anything shared. What it throws fails that env (the call reports it).
    virtual int action(int code, State& state, EventRng& rng) const = 0;
};

}  // namespace fort
