// Built-in policies (policy.h): the C++ twin of fort_env/native/playout.py's policy_action and
// random_action (the uniform choice), and the heuristic bots (rollout_policy.h).
#include "fort/bots/policy.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "fort/bots/rollout_policy.h"
#include "fort/game/errors.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/legality.h"
#include "fort/rules/search.h"
#include "fort/rules/witness.h"

namespace fort {

namespace {

// compute_legal's equivalence classes of one decision (search.cc), with their verdicts worked
// out only for the classes a draw lands in. Kept per thread so that a decision allocates
// nothing once the vectors have grown.
struct Classes {
    std::vector<EqKey> keys;     // per class, in order of first appearance among the raw
    std::vector<int> first;      // per class: its first member (compute_legal's cls[0])
    std::vector<int> members;    // per class: how many raw actions it holds
    std::vector<int8_t> verdict; // per class: -1 not yet known, 0 illegal, 1 legal
    std::vector<int> of;         // per raw index: its class, or -1 (unsearched: legal)

    void build(const State& state, const std::vector<int>& raw) {
        keys.clear(), first.clear(), members.clear(), verdict.clear(), of.clear();
        for (int a : raw) {
            if (unsearched(state, a)) {
                of.push_back(-1);
                continue;
            }
            const EqKey key = equivalence_key(state, a);
            const auto it = std::find(keys.begin(), keys.end(), key);
            if (it == keys.end()) {
                of.push_back(static_cast<int>(keys.size()));
                keys.push_back(key);
                first.push_back(a);
                members.push_back(1);
                verdict.push_back(-1);
            } else {
                const auto c = static_cast<std::size_t>(it - keys.begin());
                of.push_back(static_cast<int>(c));
                ++members[c];
            }
        }
    }
};

// Whether class c's actions are legal: compute_legal's verdict for it (the same tests in the
// same order, on the same representative). compute_legal accepts the last class unsearched
// when every earlier one failed in a state known to be completable; the same shortcut is
// taken here when that much is known, else the class is searched (same verdict: the state
// is completable, so its last open class completes it).
bool class_legal(State& state, Classes& cls, std::size_t c, const DeadTest& dead) {
    const int a = cls.first[c];
    bool ok;
    const bool known_completable =
        state.ctx[C_STAGE] != ST_PLAY && state.ctx[C_STAGE] != ST_FOLLOW;
    const bool last_open = c + 1 == cls.keys.size() &&
                           std::all_of(cls.verdict.begin(), cls.verdict.begin() + c,
                                       [](int8_t v) { return v == 0; });
    if (dead.active() && dead(state, a)) {
        ok = false;  // no step of any way to use it can start: docs/rules.md R32
    } else if (known_completable && last_open) {
        ok = true;
    } else if (runs_straight_through(state, a)) {
        ok = true;
    } else {
        ScratchState clone;
        State& child = clone.copy_of(state);
        apply(child, a);
        ok = search(child, state.ctx[C_SERIAL]);
    }
    cls.verdict[c] = ok ? 1 : 0;
    return ok;
}

// Policy::RANDOM (policy.h): rejection over raw_legal.
int random_action(State& state, EventRng& rng) {
    const std::vector<int> raw = raw_legal(state);
    if (raw.empty()) throw_no_legal_action();
    const uint64_t m = raw.size();
    if (!searched_stage(state.ctx[C_STAGE]) || constraint_met(state))
        return raw[rng.below(m)];  // compute_legal keeps every raw action here
    thread_local Classes cls;
    cls.build(state, raw);
    bool dead_known = false;
    DeadTest dead;
    uint64_t illegal = 0;  // raw actions known to be illegal
    while (true) {
        const uint64_t j = rng.below(m);
        const int c = cls.of[j];
        if (c < 0) return raw[j];
        const auto cu = static_cast<std::size_t>(c);
        if (cls.verdict[cu] < 0) {
            if (!dead_known) dead = dead_modes_of_choice(state), dead_known = true;
            if (!class_legal(state, cls, cu, dead)) {
                illegal += static_cast<uint64_t>(cls.members[cu]);
                if (illegal == m) throw_no_legal_action();
            }
        }
        if (cls.verdict[cu] == 1) return raw[j];
    }
}

}  // namespace

int policy_action(Policy policy, State& state, EventRng& rng) {
    switch (policy) {
        case Policy::RANDOM:
            return random_action(state, rng);
        case Policy::BUILDER:
        case Policy::SCORER:
        case Policy::OPPORTUNIST: {
            const std::vector<int> legal = legal_actions(state);
            if (legal.empty()) throw_no_legal_action();  // as random_action
            return heuristic_action(heuristic_of(policy), state, legal, rng);
        }
    }
    throw std::invalid_argument("policy: unknown policy code " +
                                std::to_string(static_cast<int>(policy)));
}

void apply_and_check_end(State& state, int a) {
    apply(state, a);
    check_end(state);  // the flag is public as soon as a trigger happens (p.10)
}

}  // namespace fort
