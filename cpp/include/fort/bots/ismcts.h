// Information-set Monte Carlo tree search in C++ (single observer, SO-ISMCTS: Cowling, Powley
// and Whitehouse 2012), the engine of agents/bots/ismcts.py on the compiled core. One tree per
// decision, from the searching seat's point of view. Each iteration:
//
// 1. Determinise: resample_hidden(position, seat, seed_i) (hidden.h) re-deals everything the
//    seat cannot see. `position` is only ever read through that re-deal (and for the root's
//    legal actions, which the seat sees), so the search is a function of the seat's
//    information set and the settings: handing it any state of that information set gives
//    the same result (tests/test_ismcts.py permutes the hidden cards to show it).
// 2. Select: walk down from the root, playing the determinised state along. At a branching
//    decision (a kind in `tree_kinds` with more than one legal action, made by the searching
//    seat or, with `rivals_in_tree`, by anyone) the
//    child is chosen by UCB1 among the children whose action is legal in this
//    determinisation, with availability counts (a child's exploration term uses how often it
//    was available, not its parent's visits). Other decisions go to the rollout policy.
// 3. Expand one untried action, the rollout policy's best-scored first (move ordering: the
//    builder heuristic's scores, rollout_policy.h). With progressive widening (widen_c > 0) a
//    node gets a new child only while fewer than max(1, widen_c * visits^widen_alpha) of its
//    children are available; otherwise UCB1 picks among them.
// 4. Roll out with the rollout policy (the builder heuristic for every seat, or random) to the
//    horizon: the end of the searching seat's current turn (for a decision on a rival's turn,
//    the end of its next one), then `extra_turns` more turn ends; the game's end stops it too.
// 5. Evaluate with evaluate_all (evaluation.h) and back up: each node keeps the sum of the
//    values of the seat that chose its action.
//
// The answer is the root's most visited child (ties: the higher mean value). The budget is
// `iterations` iterations or `seconds` of wall-clock time, whichever ends first. Every random
// draw comes from EventRng(seed, event) streams, so with an iteration budget the search is a
// function of (information set, settings, seed); a time budget makes it depend on the
// machine's speed too.
#pragma once

#include <cstdint>
#include <vector>

#include "fort/bots/evaluation.h"
#include "fort/game/state.h"

namespace fort {

// The rollout policies of the search (SearchSettings::rollout).
enum class Rollout : int {
    RANDOM = 0,   // uniform over the legal actions
    BUILDER = 1,  // the builder heuristic (rollout_policy.h)
};

struct SearchSettings {
    int64_t iterations = 1000;  // iteration budget, >= 1
    double seconds = 0.0;       // wall-clock budget, 0: none
    double c = 0.1;             // UCB1's exploration constant (values are in [0, 1])
    Rollout rollout = Rollout::BUILDER;
    int extra_turns = 0;         // turn ends to play past the horizon, >= 0
    uint32_t tree_kinds = 0;     // bit k: decision kind k branches the tree
    bool rivals_in_tree = true;  // rivals' decisions branch too (else the rollout policy makes
                                 // them: an opponent model)
    double widen_c = 0.0;        // progressive widening's coefficient, 0: off
    double widen_alpha = 0.5;    // and exponent
    double bias = 0.0;           // progressive bias: bias / (visits + 1) added to the UCB1 score of
                                 // the rollout policy's own choice (with the builder)
    double margin = 0.0;         // keep the builder's root choice unless the most visited child's
                                 // mean value is higher by more than this
    EvalWeights weights;
    uint64_t seed = 0;
};

// Kinds that branch the tree by default (agents/bots/ismcts.py DEFAULT_TREE_KINDS): the choices that
// shape a play (play, modes, suits, resources, follows, perks, copy a rival's Pack, R3's stop).
uint32_t default_tree_kinds();

struct SearchResult {
    int action = -1;              // the chosen action
    int64_t iterations = 0;       // iterations run
    double seconds = 0.0;         // wall-clock time spent
    std::vector<int> actions;     // the root's children (legal actions tried), ascending
    std::vector<int64_t> visits;  // their visits
    std::vector<double> values;   // their mean value for the searching seat
    int64_t nodes = 0;            // tree nodes made
};

// Search the decision pending at `position` for `seat`, which must be the acting seat of a
// running game. Throws std::invalid_argument for a seat that is not acting, a finished game or
// bad settings (iterations < 1, negative or non-finite seconds, c, widening, extra_turns).
SearchResult ismcts_search(const State& position, int seat, const SearchSettings& settings);

}  // namespace fort
