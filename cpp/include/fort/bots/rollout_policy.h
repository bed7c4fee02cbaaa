// The `builder` heuristic in C++: a port of agents/bots/heuristics.py (HeuristicAgent with the
// BUILDER style) and the economy model it scores actions with (agents/bots/econ.py), for playouts
// and as the move ordering of the C++ IS-MCTS (ismcts.h). Python stays the reference: the
// scores here are those of HeuristicAgent's handlers, action for action
// (tests/test_ismcts.py compares them on positions of random games).
//
// What it reads: only what the acting seat sees (its SeatView: its own hand, Lookout and
// made-up rule, the public zones, resources, levels, scores, perks, the pending decision's
// public context), like the Python bot; so the same function is a fair opponent model.
//
// One departure from Python, on purpose: a card's static worth for Friendship Bracelet is
// computed from the seat's current cards; Python caches it from the first position it was
// asked about (HeuristicAgent.card_values is keyed by game and rule only).
#pragma once

#include <vector>

#include "fort/bots/weights.h"
#include "fort/game/rng.h"
#include "fort/game/state.h"

namespace fort {

// HEURISTIC_NEVER (weights.h, generated from heuristics.NEVER) is the score no action the bot
// wants gets: an action its handler does not score (still taken if it is the only one).

// The builder's score of each action in `legal` (any legal actions of the pending decision,
// in any order) for the acting seat: HeuristicAgent's handler for the decision kind, NEVER
// for an action the handler does not score. Same length and order as `legal`.
std::vector<double> builder_scores(const State& state, const std::vector<int>& legal);

// The builder's action among `legal`: the best score, ties broken uniformly with `rng` (Python
// breaks them with 1e-6 of noise from the bot's own generator). An empty `legal` throws
// fort::StateError (errors.h NO_LEGAL_ACTION), as every built-in policy does.
int builder_action(const State& state, const std::vector<int>& legal, EventRng& rng);

}  // namespace fort
