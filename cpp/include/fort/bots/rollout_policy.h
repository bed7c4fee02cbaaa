// The heuristic bots in C++: a port of agents/bots/heuristics.py (HeuristicAgent, with the
// styles of BuilderAgent, ScorerAgent and OpportunistAgent) and the economy model it scores
// actions with (agents/bots/econ.py), for playouts, the batched env's opponents (policy.h
// Policy::BUILDER, SCORER, OPPORTUNIST) and as the move ordering of the C++ IS-MCTS (ismcts.h,
// the builder). One implementation, parameterised by the bot (Heuristic: its style and perk
// order, generated from Python into weights.h), as HeuristicAgent is by `self.style`. Python
// stays the reference: the scores here are those of HeuristicAgent's handlers, action for action
// and style for style (tests/test_ismcts.py, tests/test_cpp_heuristics.py compare them on
// positions of random games).
//
// What it reads: only what the acting seat sees (its SeatView: its own hand, Lookout and
// made-up rule, the public zones, resources, levels, scores, perks, the pending decision's
// public context), like the Python bot; so the same function is a fair opponent model.
//
// A card's worth for Friendship Bracelet is computed from the seat's current cards, in both
// (HeuristicAgent.card_values caches only the part that depends on the game and rule alone).
#pragma once

#include <vector>

#include "fort/bots/policy.h"
#include "fort/bots/weights.h"
#include "fort/game/rng.h"
#include "fort/game/state.h"

namespace fort {

// HEURISTIC_NEVER (weights.h, generated from heuristics.NEVER) is the score no action the bot
// wants gets: an action its handler does not score (still taken if it is the only one).

// One heuristic bot (a HeuristicAgent subclass): its style (weights.h BUILDER_STYLE,
// SCORER_STYLE, OPPORTUNIST_STYLE: heuristics.BUILDER, ...) and that style's perk_order as a
// rank per perk index (BUILDER_PERK_RANK, ...). `policy` names it, and keys its card values'
// cache.
struct Heuristic {
    Policy policy;                // Policy::BUILDER, SCORER or OPPORTUNIST
    const HeuristicStyle& style;  // self.style
    const int* perk_rank;         // NUM_PERKS entries: self.style.perk_order.index(PERKS[i])
};

// The bot a built-in heuristic policy plays (BuilderAgent for Policy::BUILDER, ScorerAgent for
// SCORER, OpportunistAgent for OPPORTUNIST). Throws std::invalid_argument for any other policy.
const Heuristic& heuristic_of(Policy policy);

// The bot's score of each action in `legal` (any legal actions of the pending decision, in any
// order; any action id in range is scored without reading outside the state) for the acting
// seat: HeuristicAgent's handler for the decision kind, NEVER for an action the handler does
// not score. Same length and order as `legal`.
std::vector<double> heuristic_scores(const Heuristic& self, const State& state,
                                     const std::vector<int>& legal);

// The bot's action among `legal`: the best score, ties (within 1e-9) broken uniformly with `rng`
// (Python breaks them with 1e-6 of noise from the bot's own generator). An empty `legal` throws
// fort::StateError (errors.h NO_LEGAL_ACTION), as every built-in policy does.
int heuristic_action(const Heuristic& self, const State& state, const std::vector<int>& legal,
                     EventRng& rng);

// The builder's (heuristic_of(Policy::BUILDER)) scores and action, for the search (ismcts.h).
std::vector<double> builder_scores(const State& state, const std::vector<int>& legal);
int builder_action(const State& state, const std::vector<int>& legal, EventRng& rng);

}  // namespace fort
