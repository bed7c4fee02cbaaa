// The search's evaluation function in C++: a port of agents/bots/evaluation.py (its docstring
// explains the features, the fitted weights and the two scales). Python keeps the weights
// (agents.bots.evaluation.WEIGHTS) and hands them over (ismcts.h: SearchSettings::weights), so
// there is one source of the numbers; tests/test_ismcts.py checks that the two agree.
#pragma once

#include <vector>

#include "fort/bots/weights.h"
#include "fort/game/state.h"

namespace fort {

// EvalWeights (agents.bots.evaluation.Weights, defaults: FITTED) and EVAL_WEIGHT_COUNT, the
// length of its flat form (level_value then the other fields in order), are generated from the
// Python source into weights.h (scripts/gen_weights.py).

// evaluation.values: every seat's estimated standing in points (the real totals plus a tenth
// of the estimate once the end is triggered).
std::vector<double> seat_values(const State& state, const EvalWeights& w);

// evaluation.evaluate_all: every seat's value in [0, 1]: 1/0 for a win/loss at the end of the
// game, else sigmoid((value - best rival's value) / scale).
std::vector<double> evaluate_all(const State& state, const EvalWeights& w);

}  // namespace fort
