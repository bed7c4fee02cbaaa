// SO-ISMCTS on the compiled core (see include/fort/bots/ismcts.h).
#include "fort/bots/ismcts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "fort/bots/policy.h"
#include "fort/bots/rollout_policy.h"
#include "fort/constants.h"
#include "fort/game/errors.h"
#include "fort/game/rng.h"
#include "fort/rules/search.h"
#include "fort/views/hidden.h"

namespace fort {

namespace {

constexpr int MAX_PLAYOUT = 2000;  // decisions in one iteration; a guard only (a game is ~300)
// Events of the search's random streams (EventRng(seed, event)): one for the determinisations'
// seeds, one for everything else (tie-breaks, rollouts).
constexpr uint64_t EVENT_DEAL = 1;
constexpr uint64_t EVENT_PLAY = 2;

struct Node {
    int action = -1;
    int player = -1;  // the seat that chose `action`
    int first_child = -1;
    int next_sibling = -1;
    int64_t visits = 0;
    int64_t avail = 0;
    double reward = 0.0;     // sum of `player`'s backed-up values
    bool preferred = false;  // the rollout policy's choice among all the actions legal when made
};

class Tree {
  public:
    explicit Tree(const SearchSettings& s) : s_(s), play_(s.seed, EVENT_PLAY) {
        nodes_.reserve(4096);
        nodes_.push_back(Node{});
    }

    void iterate(State& d, int seat);
    SearchResult result(const std::vector<int>& root_legal) const;
    int64_t size() const { return static_cast<int64_t>(nodes_.size()); }

  private:
    int policy(State& d, const std::vector<int>& legal) {
        if (legal.size() == 1) return legal[0];
        if (s_.rollout == Rollout::RANDOM) return legal[play_.below(legal.size())];
        return builder_action(d, legal, play_);
    }
    int child_of(int node, int action) const {
        for (int k = nodes_[node].first_child; k >= 0; k = nodes_[k].next_sibling)
            if (nodes_[k].action == action) return k;
        return -1;
    }
    int add_child(int node, int action, int player) {
        Node nd;
        nd.action = action;
        nd.player = player;
        nd.next_sibling = nodes_[node].first_child;
        nodes_.push_back(nd);
        const int id = static_cast<int>(nodes_.size()) - 1;
        nodes_[node].first_child = id;
        return id;
    }
    // The child to follow at `node` for decision `legal` (the state's own); expands if it
    // must. Sets *expanded.
    int select(int node, State& d, const std::vector<int>& legal, bool* expanded);

    const SearchSettings& s_;
    EventRng play_;
    std::vector<Node> nodes_;
    std::vector<int> path_;
    std::vector<int> avail_, untried_;
};

int Tree::select(int node, State& d, const std::vector<int>& legal, bool* expanded) {
    avail_.clear();
    untried_.clear();
    for (const int a : legal) {
        const int k = child_of(node, a);
        if (k >= 0) {
            nodes_[k].avail += 1;
            avail_.push_back(k);
        } else {
            untried_.push_back(a);
        }
    }
    bool expand = !untried_.empty();
    if (expand && s_.widen_c > 0.0 && !avail_.empty()) {
        const double allowed = std::max(
            1.0, s_.widen_c * std::pow(static_cast<double>(nodes_[node].visits), s_.widen_alpha));
        expand = static_cast<double>(avail_.size()) < allowed;
    }
    const int player = static_cast<int>(d.ctx[C_ACTOR]);
    if (expand) {
        int a = untried_[0];
        if (untried_.size() > 1) {
            if (s_.rollout == Rollout::BUILDER) {
                a = builder_action(d, untried_, play_);  // move ordering: the best-scored first
            } else {
                a = untried_[play_.below(untried_.size())];
            }
        }
        const int k = add_child(node, a, player);
        nodes_[k].avail = 1;
        // no child was available: `a` is the policy's best of every legal action here
        nodes_[k].preferred = avail_.empty() && s_.rollout == Rollout::BUILDER;
        *expanded = true;
        return k;
    }
    *expanded = false;
    int best = avail_[0];
    double best_score = -1e300;
    for (const int k : avail_) {
        const Node& ch = nodes_[k];
        const double v = static_cast<double>(ch.visits);
        double score =
            ch.reward / v + s_.c * std::sqrt(std::log(static_cast<double>(ch.avail)) / v);
        if (ch.preferred) score += s_.bias / (v + 1.0);  // progressive bias
        if (score > best_score) best = k, best_score = score;
    }
    return best;
}

void Tree::iterate(State& d, int seat) {
    path_.clear();
    path_.push_back(0);
    int node = 0;
    int ends_left = 1 + s_.extra_turns;
    int64_t leader = d.ctx[C_LEADER];
    bool waiting_for_my_turn = leader != seat;  // a decision on a rival's turn (following)
    bool in_tree = true;
    for (int steps = 0; !is_over(d) && steps < MAX_PLAYOUT; ++steps) {
        const std::vector<int> legal = legal_actions(d);
        if (legal.empty()) throw_no_legal_action();
        const int64_t kind = d.ctx[C_DECISION];
        int a;
        // the root branches whatever its kind (the caller chose to search it)
        if (in_tree && legal.size() > 1 &&
            (steps == 0 ||
             (((s_.tree_kinds >> kind) & 1u) && (s_.rivals_in_tree || d.ctx[C_ACTOR] == seat)))) {
            bool expanded = false;
            node = select(node, d, legal, &expanded);
            path_.push_back(node);
            a = nodes_[node].action;
            if (expanded) in_tree = false;  // the rest is the rollout
        } else {
            a = policy(d, legal);
        }
        apply_and_check_end(d, a);
        const int64_t new_leader = d.ctx[C_LEADER];
        if (new_leader != leader) {  // a turn ended
            if (waiting_for_my_turn) {
                if (leader == seat) {
                    waiting_for_my_turn = false;
                    --ends_left;
                }
            } else {
                --ends_left;
            }
            leader = new_leader;
            if (ends_left <= 0) break;
        }
    }
    const std::vector<double> values = evaluate_all(d, s_.weights);
    nodes_[0].visits += 1;
    for (size_t k = 1; k < path_.size(); ++k) {
        Node& nd = nodes_[path_[k]];
        nd.visits += 1;
        nd.reward += values[nd.player];
    }
}

SearchResult Tree::result(const std::vector<int>& root_legal) const {
    SearchResult r;
    int best = -1;
    for (const int a : root_legal) {
        const int k = child_of(0, a);
        if (k < 0) continue;
        const Node& ch = nodes_[k];
        r.actions.push_back(a);
        r.visits.push_back(ch.visits);
        r.values.push_back(ch.visits ? ch.reward / static_cast<double>(ch.visits) : 0.0);
        if (best < 0 || ch.visits > nodes_[best].visits ||
            (ch.visits == nodes_[best].visits &&
             ch.reward * static_cast<double>(nodes_[best].visits) >
                 nodes_[best].reward * static_cast<double>(ch.visits)))
            best = k;
    }
    // keep the policy's choice unless the best child's mean beats it by more than `margin`
    for (int k = nodes_[0].first_child; k >= 0 && best >= 0 && s_.margin > 0.0;
         k = nodes_[k].next_sibling) {
        const Node& ch = nodes_[k];
        if (!ch.preferred || ch.visits == 0 || k == best) continue;
        const double mean_best = nodes_[best].reward / static_cast<double>(nodes_[best].visits);
        if (ch.reward / static_cast<double>(ch.visits) >= mean_best - s_.margin) best = k;
        break;
    }
    r.action = best >= 0 ? nodes_[best].action : root_legal[0];
    r.nodes = size();
    return r;
}

void check_settings(const SearchSettings& s) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("ismcts: " + what); };
    if (s.iterations < 1) bad("iterations must be at least 1, got " + std::to_string(s.iterations));
    if (!(s.seconds >= 0.0) || !std::isfinite(s.seconds))
        bad("seconds must be finite and at least 0, got " + std::to_string(s.seconds));
    if (!(s.c >= 0.0) || !std::isfinite(s.c))
        bad("c must be finite and at least 0, got " + std::to_string(s.c));
    if (s.extra_turns < 0)
        bad("extra_turns must be at least 0, got " + std::to_string(s.extra_turns));
    if (!(s.bias >= 0.0) || !std::isfinite(s.bias))
        bad("bias must be finite and at least 0, got " + std::to_string(s.bias));
    if (!(s.margin >= 0.0) || !std::isfinite(s.margin))
        bad("margin must be finite and at least 0, got " + std::to_string(s.margin));
    if (!(s.widen_c >= 0.0) || !std::isfinite(s.widen_c))
        bad("widen_c must be finite and at least 0, got " + std::to_string(s.widen_c));
    if (!(s.widen_alpha > 0.0 && s.widen_alpha <= 1.0))
        bad("widen_alpha must be in (0, 1], got " + std::to_string(s.widen_alpha));
    if (s.rollout != Rollout::RANDOM && s.rollout != Rollout::BUILDER)
        bad("unknown rollout policy code " + std::to_string(static_cast<int>(s.rollout)));
    if (s.tree_kinds >> NUM_DECISION_KINDS)
        bad("tree_kinds has bits beyond the " + std::to_string(NUM_DECISION_KINDS) +
            " decision kinds");
}

}  // namespace

uint32_t default_tree_kinds() {
    uint32_t m = 0;
    for (const int64_t k :
         {K_PLAY, K_MODE, K_ANY_SUIT, K_DECLARE_COIN, K_RESOURCE, K_FOLLOW, K_FOLLOW_SECOND,
          K_ROUGH_HOUSING, K_DO_OVER, K_STOP_OR_CONTINUE, K_PICK_PERK, K_COPY_RIVAL})
        m |= 1u << k;
    return m;
}

SearchResult ismcts_search(const State& position, int seat, const SearchSettings& settings) {
    check_settings(settings);
    if (is_over(position)) throw std::invalid_argument("ismcts: the game is over");
    if (seat < 0 || seat >= position.num_players || position.ctx[C_ACTOR] != seat)
        throw std::invalid_argument("ismcts: seat " + std::to_string(seat) +
                                    " is not the acting seat (" +
                                    std::to_string(position.ctx[C_ACTOR]) + ")");
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    State root = position;  // the root's legal actions: the seat sees them (no leak)
    const std::vector<int> root_legal = legal_actions(root);
    if (root_legal.empty()) throw_no_legal_action();
    Tree tree(settings);
    EventRng deals(settings.seed, EVENT_DEAL);
    int64_t n = 0;
    if (root_legal.size() > 1) {
        const double budget = settings.seconds;
        while (n < settings.iterations) {
            if (budget > 0.0 &&
                std::chrono::duration<double>(Clock::now() - start).count() >= budget)
                break;
            const uint64_t seed = deals.next_u64() % static_cast<uint64_t>(SEED_LIMIT);
            State d = resample_hidden(position, seat, seed);
            tree.iterate(d, seat);
            ++n;
        }
    }
    SearchResult r = tree.result(root_legal);
    r.iterations = n;
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
}

}  // namespace fort
