// Built-in policies (policy.h).
#include "fort/policy.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "fort/flow.h"
#include "fort/handlers.h"
#include "fort/rollout_policy.h"
#include "fort/search.h"

namespace fort {

namespace {

int random_action(State& state, EventRng& rng) {
    const std::vector<int> legal = legal_actions(state);
    if (legal.empty()) throw std::logic_error("policy: no legal action in a running game");
    return legal[rng.below(legal.size())];
}

}  // namespace

int policy_action(Policy policy, State& state, EventRng& rng) {
    switch (policy) {
        case Policy::RANDOM:
            return random_action(state, rng);
        case Policy::BUILDER:
            return builder_action(state, legal_actions(state), rng);
    }
    throw std::invalid_argument("policy: unknown policy code " +
                                std::to_string(static_cast<int>(policy)));
}

void apply_and_check_end(State& state, int a) {
    apply(state, a);
    check_end(state);  // the flag is public as soon as a trigger happens (p.10)
}

}  // namespace fort
