// The search's evaluation function in C++: a port of agents/evaluation.py (its docstring
// explains the features, the fitted weights and the two scales). Python keeps the weights
// (agents.evaluation.WEIGHTS) and hands them over (ismcts.h: SearchSettings::weights), so
// there is one source of the numbers; tests/test_ismcts.py checks that the two agree.
#pragma once

#include <array>
#include <vector>

#include "fort/constants.h"
#include "fort/state.h"

namespace fort {

// agents.evaluation.Weights, in victory points.
struct EvalWeights {
    std::array<double, MAX_FORT_LEVEL + 1> level_value{0.0, 8.0, 13.5, 24.5, 37.5, 60.0};
    double useful = 2.0;
    double surplus = 0.35;
    double pack = 0.0;
    double lookout = 0.0;
    double rule = 0.5;
    double cards = -0.8;
    double perks = 0.7;
    double scale = 9.0;
    double end_scale = 3.0;
};

// Number of floats in EvalWeights' flat form (level_value then the nine scalars, in the
// order of the fields above).
inline constexpr int EVAL_WEIGHT_COUNT = MAX_FORT_LEVEL + 1 + 9;

// evaluation.values: every seat's estimated standing in points (the real totals plus a tenth
// of the estimate once the end is triggered).
std::vector<double> seat_values(const State& state, const EvalWeights& w);

// evaluation.evaluate_all: every seat's value in [0, 1]: 1/0 for a win/loss at the end of the
// game, else sigmoid((value - best rival's value) / scale).
std::vector<double> evaluate_all(const State& state, const EvalWeights& w);

}  // namespace fort
