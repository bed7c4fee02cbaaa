// PUCT search guided by a policy-value network, on the compiled core: AlphaZero's search
// (Silver et al. 2017, "Mastering the game of Go without human knowledge") over
// determinisations of the searching seat's information set (Cowling, Powley and Whitehouse
// 2012), the engine of agents/learned/puct.py's `puct` (the C++ twin of its Python search,
// kept as `puct:engine=python`). One tree per decision, from the searching seat's point of
// view. Each simulation:
//
// 1. Determinise: resample_hidden(position, seat, seed_i) (hidden.h) re-deals everything the
//    seat cannot see, so the search is a function of the seat's information set.
// 2. Select: from the root, at every decision with more than one legal action, whoever makes
//    it, follow the edge maximising Q(a) + c P(a) sqrt(N) / (1 + n(a)) among the actions legal
//    in this determinisation: P the prior renormalised over them, n(a) the edge's visits, N
//    the sum of those edges' visits (availability, as in SO-ISMCTS), Q(a) the edge's mean
//    value for the seat that chose it (an unvisited edge: the mean of the visited ones, else
//    0.5: "first-play urgency"). Decisions with one legal action are played without a node.
// 3. Expand and evaluate: at a node met for the first time, or where this determinisation
//    offers an action without an edge yet (a rival's hand differs between determinisations),
//    the network reads every seat's observation (observation.h): the acting seat's logits over
//    the legal actions give the new edges' priors (softmax over the legal actions), the value
//    head a value for each seat. A finished game's value is its win/loss returns.
//    With a whole-table critic (`critic` not null), each seat's value comes from the critic
//    on that seat's table observation of the leaf instead (observation.h,
//    table_from_observations): the determinisation is a whole table, so the critic reads
//    every hand of it, as it did in training (agents/learned/network.py). The priors still come
//    from the acting seat's observation alone.
// 4. Back up: each edge on the path adds the value of the seat that chose it. Values are the
//    value head's estimate of a seat's win_loss return (-1..1) mapped to [0, 1], clipped.
//
// Batching (`batch` > 1): up to `batch` leaves are gathered before one forward pass over
// all of them; an edge's visit is counted when a simulation passes it and its value when the
// evaluation comes back, so a pending simulation counts as a loss there ("virtual loss") and
// steers the next ones elsewhere. With batch 1 this is the plain sequential search.
// Threads (`threads` > 1): root parallelisation, one tree per thread with its own seeds
// (EventRng(seed, EVENT_TREE + 2 t) for its determinisations, + 2 t + 1 for its noise), the
// simulation budget split between them, the roots' edge statistics summed at the end.
//
// Root noise (noise_fraction > 0, for self-play in expert iteration): the root's priors
// become (1 - f) P + f Dirichlet(alpha) over the root's legal actions, drawn per tree.
//
// Gumbel root selection (`gumbel` true; Danihelka, Guez, Schrittwieser and Silver 2022,
// "Policy improvement by planning with Gumbel", ICLR): after the root's expansion, each root
// action a gets g(a) ~ Gumbel(0, 1) (from the tree's noise stream; no Dirichlet noise), the
// `gumbel_actions` actions with the largest g(a) + logit(a) are kept, and Sequential Halving
// shares the remaining simulations among them: ceil(log2 k) phases of equal budget, each
// giving every kept action the same number of simulations (those simulations take that
// action at the root; below it selection is PUCT as above), then keeping the better half by
// g(a) + logit(a) + sigma(q(a)), sigma(q) = (c_visit + max_b n(b)) * c_scale * q, q the
// edge's mean value in [0, 1] (the root's value if unvisited). The answer is the last one
// kept (the best by that score if the time budget ends a phase early). `improved_policy`
// is softmax(logit + sigma(q completed)) over the root's actions: the paper's policy target.
// Needs threads == 1.
//
// The answer is the root's most visited legal action (ties: the higher mean value, then the
// higher prior). The budget is `simulations` or `seconds` of wall-clock time, whichever ends
// first. With a simulation budget the result is a function of (information set, network,
// settings, seed), whatever the machine's load and on any x86-64 CPU (network.cc is compiled
// without contracting products into FMA, so its SSE2 and AVX2 versions give the same bits); a
// time budget makes it depend on speed too. Each tree's first simulation only expands its
// root, so the root's visits sum to simulations - threads (less any simulation stopped by the
// depth guard, which backs up nothing).
#pragma once

#include <cstdint>
#include <vector>

#include "fort/bots/network.h"
#include "fort/game/state.h"

namespace fort {

struct PuctSettings {
    int64_t simulations = 800;  // simulation budget, >= 1 (all threads together)
    double seconds = 0.0;       // wall-clock budget, 0: none
    double c = 1.5;             // the PUCT exploration constant, >= 0
    int batch = 1;              // leaves per forward pass, in [1, 256]
    int threads = 1;            // root-parallel trees, in [1, 64]
    double noise_alpha = 0.3;   // root Dirichlet noise's concentration, > 0
    double noise_fraction = 0.0;  // its weight in [0, 1), 0: none
    bool gumbel = false;        // Gumbel root selection with Sequential Halving (above)
    int gumbel_actions = 16;    // root actions it considers, in [1, 256]
    double c_visit = 50.0;      // sigma's constants (the paper's), > 0 and >= 0
    double c_scale = 1.0;
    uint64_t seed = 0;
};

struct PuctResult {
    int action = -1;              // the chosen action
    int64_t simulations = 0;      // simulations run (all trees)
    double seconds = 0.0;         // wall-clock time spent
    std::vector<int> actions;     // the root's legal actions, ascending
    std::vector<int64_t> visits;  // their visits (all trees; they sum to simulations - threads)
    std::vector<double> values;   // their mean value for the searching seat (0 if unvisited)
    std::vector<double> priors;   // the network's prior over them (without noise)
    double root_value = 0.0;      // the network's value of the root for the searching seat,
                                  // [0, 1], from the first determinisation
    int64_t nodes = 0;            // tree nodes made (all trees)
    int64_t evaluations = 0;      // network rows evaluated (all trees)
    std::vector<double> improved_policy;  // gumbel: softmax(logit + sigma(q)) by action, else empty
};

// Search the decision pending at `position` for `seat`, which must be the acting seat of a
// running game. `critic`, if not null, values the leaves (step 3): a PolicyValueNet whose
// observation is the table observation (its one "action" unused; its value head the critic's).
// Throws std::invalid_argument for a seat that is not acting, a finished game, bad settings, a
// network whose observation size or action count is not this game's, or a critic whose input
// is not this game's table observation size.
PuctResult puct_search(const State& position, int seat, const PolicyValueNet& net,
                       const PuctSettings& settings, const PolicyValueNet* critic = nullptr);

}  // namespace fort
