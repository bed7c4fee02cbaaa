// The built-in policies (bots/policy.h) as the batched envs take them (envs/seat_policies.h):
// code c is Policy(c), c in [0, NUM_POLICIES). It sits here, above both, because the bots may
// not include the envs nor the envs the bots (docs/cpp.md "Layout"); the binding
// (bindings/batch_bind.cc) gives one to every Batch and SelfPlay it makes.
#pragma once

#include "fort/bots/policy.h"
#include "fort/constants.h"
#include "fort/envs/seat_policies.h"

namespace fort {

class BuiltinPolicies final : public SeatPolicies {
   public:
    int count() const override { return NUM_POLICIES; }
    // policy_action: stateless (its scratch space is per thread), so shared by every thread.
    int action(int code, State& state, EventRng& rng) const override {
        return policy_action(static_cast<Policy>(code), state, rng);
    }
};

}  // namespace fort
