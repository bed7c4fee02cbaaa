// PUCT over determinisations with the network on the core (see include/fort/bots/puct.h).
#include "fort/bots/puct.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fort/bots/policy.h"
#include "fort/constants.h"
#include "fort/game/errors.h"
#include "fort/game/rng.h"
#include "fort/rules/search.h"
#include "fort/views/hidden.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace fort {

namespace {

constexpr int MAX_DEPTH = 2000;  // decisions walked in one simulation; a guard only (~300 a game)
constexpr int MAX_BATCH = 256;
constexpr int MAX_THREADS = 64;
// Events of a tree's random streams (EventRng(seed, event)): tree t draws its determinisations'
// seeds from EVENT_TREE + 2 t and its root noise from EVENT_TREE + 2 t + 1.
constexpr uint64_t EVENT_TREE = 100;
constexpr double FIRST_PLAY_VALUE = 0.5;  // an unvisited edge's value when none is visited yet

using Clock = std::chrono::steady_clock;

// A win_loss return or value estimate (-1..1) as a value in [0, 1].
double unit_value(double r) { return std::clamp((r + 1.0) / 2.0, 0.0, 1.0); }

// A uniform double in (0, 1).
double uniform01(EventRng& rng) {
    return (static_cast<double>(rng.next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// A Gamma(alpha, 1) draw (Marsaglia and Tsang 2000; alpha < 1 by the boost u^(1/alpha)).
double gamma_draw(double alpha, EventRng& rng) {
    if (alpha < 1.0) return gamma_draw(alpha + 1.0, rng) * std::pow(uniform01(rng), 1.0 / alpha);
    const double d = alpha - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        // a standard normal by Box-Muller
        const double z = std::sqrt(-2.0 * std::log(uniform01(rng))) *
                         std::cos(6.283185307179586 * uniform01(rng));
        const double v = std::pow(1.0 + c * z, 3);
        if (v <= 0.0) continue;
        const double u = uniform01(rng);
        if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) return d * v;
    }
}

struct Edge {
    int action = -1;
    int player = -1;  // the seat that chose `action`
    float prior = 0.0f;
    int64_t visits = 0;  // counted when a simulation passes (virtual loss until backed up)
    double value = 0.0;  // sum of `player`'s backed-up values
    int child = -1;      // the node after it, -1 until a simulation passes
};

struct Node {
    std::vector<Edge> edges;
    int find(int action) const {
        for (size_t i = 0; i < edges.size(); ++i)
            if (edges[i].action == action) return static_cast<int>(i);
        return -1;
    }
};

struct Step {
    int node;
    int edge;
};

// A simulation waiting for the network: where it stopped, how it got there, what to expand.
struct Leaf {
    int node = 0;
    int actor = -1;
    std::vector<Step> path;
    std::vector<int> legal;
};

class Tree {
  public:
    Tree(const PolicyValueNet& net, const PolicyValueNet* critic, const PuctSettings& s, int seat,
         int index)
        : net_(net),
          critic_(critic),
          s_(s),
          seat_(seat),
          deals_(s.seed, EVENT_TREE + 2 * static_cast<uint64_t>(index)),
          noise_(s.seed, EVENT_TREE + 2 * static_cast<uint64_t>(index) + 1) {
        nodes_.reserve(1024);
        nodes_.emplace_back();
    }

    // Runs up to `simulations` simulations, stopping once `seconds` (> 0) have passed since
    // `start` (checked per batch; elapsed time compared as a double: no overflow).
    void run(const State& position, int64_t simulations, Clock::time_point start, double seconds);
    // The same with Gumbel root selection and Sequential Halving (puct.h); afterwards
    // gumbel_choice() is the chosen root edge (-1 if the root was never expanded) and
    // improved_policy() the policy target by root edge.
    void run_gumbel(const State& position, int64_t simulations, Clock::time_point start,
                    double seconds);
    int gumbel_choice() const { return gumbel_choice_; }
    const std::vector<double>& improved_policy() const { return improved_; }

    const Node& root() const { return nodes_[0]; }
    const std::vector<double>& root_priors() const { return root_priors_; }  // by root edge
    double root_value() const { return root_value_; }
    int64_t simulations() const { return simulations_; }
    int64_t evaluations() const { return evaluations_; }
    int64_t size() const { return static_cast<int64_t>(nodes_.size()); }

  private:
    // Plays one determinisation down the tree: backs up a finished game at once, or queues a
    // leaf (its observations appended to obs_).
    void descend(State& d);
    int select(const Node& node, const std::vector<int>& legal) const;
    void evaluate_pending();
    void add_root_noise(Node& root);
    void back_up(const std::vector<Step>& path, const std::vector<double>& values);
    void simulate(const State& position);  // one determinisation, descended
    double completed_q(const Edge& e) const;  // mean value, the root's value if unvisited

    const PolicyValueNet& net_;
    const PolicyValueNet* critic_;  // null: leaves valued by net_'s value head
    const PuctSettings& s_;
    int seat_;
    int num_players_ = 0;
    const Game* game_ = nullptr;  // the searched game's (set by run)
    EventRng deals_, noise_;
    std::vector<Node> nodes_;
    std::vector<Leaf> pending_;
    std::vector<float> obs_;  // (pending leaves * num_players, observation size)
    std::vector<float> table_;  // (pending leaves * num_players, table size): critic_'s input
    NetScratch scratch_, critic_scratch_;
    std::vector<double> root_priors_;
    double root_value_ = FIRST_PLAY_VALUE;
    bool root_expanded_ = false;
    int64_t simulations_ = 0;
    int64_t evaluations_ = 0;
    int forced_ = -1;  // gumbel: the root edge the next simulation takes, -1: PUCT's choice
    int gumbel_choice_ = -1;
    std::vector<double> improved_;
};

int Tree::select(const Node& node, const std::vector<int>& legal) const {
    double total_prior = 0.0, seen_value = 0.0;
    int64_t total_visits = 0, seen_visits = 0;
    for (const int a : legal) {
        const Edge& e = node.edges[static_cast<size_t>(node.find(a))];
        total_prior += e.prior;
        total_visits += e.visits;
        if (e.visits > 0) seen_value += e.value, seen_visits += e.visits;
    }
    if (total_prior <= 0.0) total_prior = 1.0;
    const double first_play =
        seen_visits > 0 ? seen_value / static_cast<double>(seen_visits) : FIRST_PLAY_VALUE;
    const double sqrt_n = std::sqrt(static_cast<double>(std::max<int64_t>(1, total_visits)));
    int best = node.find(legal[0]);
    double best_score = -1e300;
    for (const int a : legal) {
        const int k = node.find(a);
        const Edge& e = node.edges[static_cast<size_t>(k)];
        const double n = static_cast<double>(e.visits);
        const double q = e.visits > 0 ? e.value / n : first_play;
        const double score = q + s_.c * (e.prior / total_prior) * sqrt_n / (1.0 + n);
        if (score > best_score) best = k, best_score = score;
    }
    return best;
}

void Tree::back_up(const std::vector<Step>& path, const std::vector<double>& values) {
    for (const Step& st : path) {
        Edge& e = nodes_[static_cast<size_t>(st.node)].edges[static_cast<size_t>(st.edge)];
        e.value += values[static_cast<size_t>(e.player)];
    }
}

void Tree::descend(State& d) {
    Leaf leaf;
    int node = 0;
    for (int steps = 0; steps < MAX_DEPTH; ++steps) {
        if (is_over(d)) {
            // FortState.returns: +1 for a winner, -1 else
            std::vector<double> values(static_cast<size_t>(d.num_players), unit_value(-1.0));
            for (const int p : winners(d)) values[static_cast<size_t>(p)] = unit_value(1.0);
            back_up(leaf.path, values);
            return;
        }
        std::vector<int> legal = legal_actions(d);
        if (legal.empty()) throw_no_legal_action();
        if (legal.size() == 1) {
            apply_and_check_end(d, legal[0]);  // no choice: no node
            continue;
        }
        const Node& here = nodes_[static_cast<size_t>(node)];
        const bool missing = std::any_of(legal.begin(), legal.end(),
                                         [&](int a) { return here.find(a) < 0; });
        if (missing) {  // a leaf: every seat's observation goes to the network
            const size_t size = static_cast<size_t>(net_.observation_size());
            const size_t at = obs_.size();
            obs_.resize(at + size * static_cast<size_t>(d.num_players));
            for (int p = 0; p < d.num_players; ++p)
                observation_tensor(d, p, obs_.data() + at + size * static_cast<size_t>(p));
            leaf.node = node;
            leaf.actor = static_cast<int>(d.ctx[C_ACTOR]);
            leaf.legal = std::move(legal);
            pending_.push_back(std::move(leaf));
            return;
        }
        const int k = node == 0 && forced_ >= 0 ? forced_ : select(here, legal);
        Edge& e = nodes_[static_cast<size_t>(node)].edges[static_cast<size_t>(k)];
        e.visits += 1;  // the value comes at the back-up: a virtual loss until then
        leaf.path.push_back(Step{node, k});
        const int action = e.action;
        if (e.child < 0) {
            const int child = static_cast<int>(nodes_.size());
            e.child = child;  // before emplace_back, which may move the edges' node
            nodes_.emplace_back();
        }
        node = nodes_[static_cast<size_t>(node)].edges[static_cast<size_t>(k)].child;
        apply_and_check_end(d, action);
    }
    // the depth guard: nothing to back up; take back the visits counted on the way
    for (const Step& st : leaf.path)
        nodes_[static_cast<size_t>(st.node)].edges[static_cast<size_t>(st.edge)].visits -= 1;
}

void Tree::evaluate_pending() {
    if (pending_.empty()) return;
    const int n = num_players_;
    const int rows = static_cast<int>(pending_.size()) * n;
    net_.features(obs_.data(), rows, scratch_);
    evaluations_ += rows;
    if (critic_ != nullptr) {  // each seat's table observation of each leaf, for the critic
        const Game& g = *game_;
        const size_t t = static_cast<size_t>(critic_->observation_size());
        const size_t d = static_cast<size_t>(net_.observation_size());
        table_.resize(t * static_cast<size_t>(rows));
        for (int r = 0; r < rows; ++r)
            table_from_observations(g, obs_.data() + d * static_cast<size_t>(r - r % n), r % n,
                                    table_.data() + t * static_cast<size_t>(r));
        critic_->features(table_.data(), rows, critic_scratch_);
    }
    std::vector<double> values(static_cast<size_t>(n));
    std::vector<double> priors;
    for (size_t i = 0; i < pending_.size(); ++i) {
        const Leaf& leaf = pending_[i];
        const int base = static_cast<int>(i) * n;
        for (int p = 0; p < n; ++p) {
            const double v = critic_ != nullptr ? critic_->value(critic_scratch_, base + p)
                                                : net_.value(scratch_, base + p);
            if (!std::isfinite(v)) throw std::runtime_error("puct: the network gave a value that is not finite");
            values[static_cast<size_t>(p)] = unit_value(v);
        }
        // the acting seat's prior: a softmax of its logits over the legal actions
        priors.resize(leaf.legal.size());
        double top = -1e300, total = 0.0;
        for (size_t j = 0; j < leaf.legal.size(); ++j) {
            priors[j] = net_.logit(scratch_, base + leaf.actor, leaf.legal[j]);
            if (!std::isfinite(priors[j])) throw std::runtime_error("puct: the network gave a logit that is not finite");
            top = std::max(top, priors[j]);
        }
        for (double& x : priors) total += (x = std::exp(x - top));
        Node& node = nodes_[static_cast<size_t>(leaf.node)];
        for (size_t j = 0; j < leaf.legal.size(); ++j) {
            if (node.find(leaf.legal[j]) >= 0) continue;  // met in an earlier determinisation
            Edge e;
            e.action = leaf.legal[j];
            e.player = leaf.actor;
            e.prior = static_cast<float>(priors[j] / total);
            node.edges.push_back(e);
        }
        if (leaf.node == 0 && !root_expanded_) {
            root_expanded_ = true;
            root_value_ = values[static_cast<size_t>(seat_)];
            for (const Edge& e : node.edges) root_priors_.push_back(e.prior);
            if (s_.noise_fraction > 0.0) add_root_noise(node);  // never with gumbel (checked)
        }
        back_up(leaf.path, values);
    }
    pending_.clear();
    obs_.clear();
}

void Tree::add_root_noise(Node& root) {
    std::vector<double> g(root.edges.size());
    double total = 0.0;
    for (double& x : g) total += (x = gamma_draw(s_.noise_alpha, noise_));
    const double f = s_.noise_fraction;
    for (size_t i = 0; i < g.size(); ++i)
        root.edges[i].prior =
            static_cast<float>((1.0 - f) * root.edges[i].prior + f * (total > 0.0 ? g[i] / total : 0.0));
}

void Tree::simulate(const State& position) {
    const uint64_t seed = deals_.next_u64() % static_cast<uint64_t>(SEED_LIMIT);
    State d = resample_hidden(position, seat_, seed);
    descend(d);
    ++simulations_;
}

double Tree::completed_q(const Edge& e) const {
    return e.visits > 0 ? e.value / static_cast<double>(e.visits) : root_value_;
}

void Tree::run_gumbel(const State& position, int64_t simulations, Clock::time_point start,
                      double seconds) {
    num_players_ = position.num_players;
    game_ = position.game.get();
    const auto out_of_time = [&] {
        return seconds > 0.0 &&
               std::chrono::duration<double>(Clock::now() - start).count() >= seconds;
    };
    while (!root_expanded_ && simulations_ < simulations && !out_of_time()) {
        simulate(position);  // the first simulation expands the root
        evaluate_pending();
    }
    if (!root_expanded_) return;
    const size_t m = nodes_[0].edges.size();
    std::vector<double> base(m);  // g(a) + logit(a), the logits up to a constant
    for (size_t i = 0; i < m; ++i)
        base[i] = -std::log(-std::log(uniform01(noise_))) +
                  std::log(std::max(root_priors_[i], 1e-30));
    const auto score = [&](size_t i) {
        int64_t most = 0;
        for (const Edge& e : nodes_[0].edges) most = std::max(most, e.visits);
        return base[i] + (s_.c_visit + static_cast<double>(most)) * s_.c_scale *
                             completed_q(nodes_[0].edges[i]);
    };
    const auto by_score = [&](std::vector<size_t>& v) {
        std::vector<double> key(m);
        for (const size_t i : v) key[i] = score(i);
        std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
    };
    std::vector<size_t> kept(m);
    std::iota(kept.begin(), kept.end(), size_t{0});
    std::stable_sort(kept.begin(), kept.end(), [&](size_t a, size_t b) { return base[a] > base[b]; });
    kept.resize(std::min(m, static_cast<size_t>(s_.gumbel_actions)));
    const int phases = kept.size() > 1 ? static_cast<int>(std::ceil(std::log2(static_cast<double>(kept.size())))) : 0;
    bool stopped = false;
    for (int phase = 0; phase < phases && !stopped; ++phase) {
        const int64_t left = simulations - simulations_;
        const int64_t each = std::max<int64_t>(
            1, left / (phases - phase) / static_cast<int64_t>(kept.size()));
        for (const size_t i : kept) {
            for (int64_t j = 0; j < each && !stopped; ++j) {
                if (simulations_ >= simulations || out_of_time()) {
                    stopped = true;
                    break;
                }
                forced_ = static_cast<int>(i);
                simulate(position);
                if (static_cast<int>(pending_.size()) >= s_.batch) evaluate_pending();
            }
        }
        forced_ = -1;
        evaluate_pending();
        by_score(kept);
        if (!stopped) kept.resize((kept.size() + 1) / 2);
    }
    by_score(kept);
    gumbel_choice_ = static_cast<int>(kept[0]);
    improved_.assign(m, 0.0);  // softmax(logit + sigma(completed q)), without the Gumbel draws
    double top = -1e300, total = 0.0;
    int64_t most = 0;
    for (const Edge& e : nodes_[0].edges) most = std::max(most, e.visits);
    for (size_t i = 0; i < m; ++i) {
        improved_[i] = std::log(std::max(root_priors_[i], 1e-30)) +
                       (s_.c_visit + static_cast<double>(most)) * s_.c_scale *
                           completed_q(nodes_[0].edges[i]);
        top = std::max(top, improved_[i]);
    }
    for (double& x : improved_) total += (x = std::exp(x - top));
    for (double& x : improved_) x /= total;
}

void Tree::run(const State& position, int64_t simulations, Clock::time_point start,
               double seconds) {
    num_players_ = position.num_players;
    game_ = position.game.get();
    while (simulations_ < simulations) {
        if (seconds > 0.0 &&
            std::chrono::duration<double>(Clock::now() - start).count() >= seconds)
            break;
        // the root alone first: every simulation of a first batch would stop there
        const int64_t room =
            root_expanded_ ? std::min<int64_t>(s_.batch, simulations - simulations_) : 1;
        for (int64_t i = 0; i < room; ++i) simulate(position);
        evaluate_pending();
    }
}

void check_settings(const PuctSettings& s) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("puct: " + what); };
    if (s.simulations < 1)
        bad("simulations must be at least 1, got " + std::to_string(s.simulations));
    if (!(s.seconds >= 0.0) || !std::isfinite(s.seconds))
        bad("seconds must be finite and at least 0, got " + std::to_string(s.seconds));
    if (!(s.c >= 0.0) || !std::isfinite(s.c))
        bad("c must be finite and at least 0, got " + std::to_string(s.c));
    if (s.batch < 1 || s.batch > MAX_BATCH)
        bad("batch must be in [1, " + std::to_string(MAX_BATCH) + "], got " + std::to_string(s.batch));
    if (s.threads < 1 || s.threads > MAX_THREADS)
        bad("threads must be in [1, " + std::to_string(MAX_THREADS) + "], got " +
            std::to_string(s.threads));
    if (!(s.noise_alpha > 0.0) || !std::isfinite(s.noise_alpha))
        bad("noise_alpha must be finite and above 0, got " + std::to_string(s.noise_alpha));
    if (!(s.noise_fraction >= 0.0 && s.noise_fraction < 1.0))
        bad("noise_fraction must be in [0, 1), got " + std::to_string(s.noise_fraction));
    if (s.gumbel_actions < 1 || s.gumbel_actions > MAX_BATCH)
        bad("gumbel_actions must be in [1, " + std::to_string(MAX_BATCH) + "], got " +
            std::to_string(s.gumbel_actions));
    if (!(s.c_visit > 0.0) || !std::isfinite(s.c_visit))
        bad("c_visit must be finite and above 0, got " + std::to_string(s.c_visit));
    if (!(s.c_scale >= 0.0) || !std::isfinite(s.c_scale))
        bad("c_scale must be finite and at least 0, got " + std::to_string(s.c_scale));
    if (s.gumbel && s.threads != 1)
        bad("gumbel needs threads 1 (one tree), got " + std::to_string(s.threads));
    if (s.gumbel && s.noise_fraction > 0.0)
        bad("gumbel explores by its Gumbel draws: noise_fraction must be 0");
}

}  // namespace

PuctResult puct_search(const State& position, int seat, const PolicyValueNet& net,
                       const PuctSettings& settings, const PolicyValueNet* critic) {
    check_settings(settings);
    if (is_over(position)) throw std::invalid_argument("puct: the game is over");
    if (seat < 0 || seat >= position.num_players || position.ctx[C_ACTOR] != seat)
        throw std::invalid_argument("puct: seat " + std::to_string(seat) +
                                    " is not the acting seat (" +
                                    std::to_string(position.ctx[C_ACTOR]) + ")");
    const int64_t obs_size = position.game->obs_offset[NUM_OBS_SLICES];
    if (net.observation_size() != obs_size || net.num_actions() != position.game->num_actions)
        throw std::invalid_argument(
            "puct: the network reads observations of " + std::to_string(net.observation_size()) +
            " entries and scores " + std::to_string(net.num_actions()) +
            " actions; this game's are " + std::to_string(obs_size) + " and " +
            std::to_string(position.game->num_actions));
    if (critic != nullptr && critic->observation_size() != table_observation_size(*position.game))
        throw std::invalid_argument(
            "puct: the critic reads " + std::to_string(critic->observation_size()) +
            " entries; this game's table observation has " +
            std::to_string(table_observation_size(*position.game)));
    const auto start = Clock::now();
    State root = position;  // the root's legal actions: the seat sees them (no leak)
    const std::vector<int> legal = legal_actions(root);
    if (legal.empty()) throw_no_legal_action();
    PuctResult r;
    r.actions = legal;
    std::sort(r.actions.begin(), r.actions.end());
    const size_t m = r.actions.size();
    r.visits.assign(m, 0);
    r.values.assign(m, 0.0);
    r.priors.assign(m, m == 1 ? 1.0 : 0.0);
    if (m == 1) {
        r.action = r.actions[0];
        r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return r;
    }
    const int t_count = settings.threads;
    std::vector<std::unique_ptr<Tree>> trees;
    for (int t = 0; t < t_count; ++t) trees.push_back(std::make_unique<Tree>(net, critic, settings, seat, t));
    auto share = [&](int t) {
        return settings.simulations / t_count + (t < settings.simulations % t_count ? 1 : 0);
    };
    std::vector<std::exception_ptr> errors(static_cast<size_t>(t_count));
    auto grow = [&](int t) {
        try {
            if (settings.gumbel)
                trees[static_cast<size_t>(t)]->run_gumbel(position, share(t), start,
                                                          settings.seconds);
            else
                trees[static_cast<size_t>(t)]->run(position, share(t), start, settings.seconds);
        } catch (...) {
            errors[static_cast<size_t>(t)] = std::current_exception();
        }
    };
    {
        // Joins every started thread however this block is left (a thread that fails to start
        // throws std::system_error here; unjoined threads would call std::terminate).
        struct Joiner {
            std::vector<std::thread> threads;
            ~Joiner() {
                for (std::thread& w : threads)
                    if (w.joinable()) w.join();
            }
        } workers;
        for (int t = 1; t < t_count; ++t) workers.threads.emplace_back(grow, t);
        grow(0);
    }
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<double> value_sum(m, 0.0);
    bool have_priors = false;
    for (const auto& tree : trees) {
        r.simulations += tree->simulations();
        r.evaluations += tree->evaluations();
        r.nodes += tree->size();
        const Node& rt = tree->root();
        for (size_t i = 0; i < m; ++i) {
            const int k = rt.find(r.actions[i]);
            if (k < 0) continue;
            const Edge& e = rt.edges[static_cast<size_t>(k)];
            r.visits[i] += e.visits;
            value_sum[i] += e.value;
            if (!have_priors && static_cast<size_t>(k) < tree->root_priors().size())
                r.priors[i] = tree->root_priors()[static_cast<size_t>(k)];
        }
        if (!have_priors && !tree->root_priors().empty()) {
            have_priors = true;
            r.root_value = tree->root_value();
        }
    }
    size_t best = 0;
    for (size_t i = 0; i < m; ++i) {
        if (r.visits[i] > 0) r.values[i] = value_sum[i] / static_cast<double>(r.visits[i]);
        const auto key = [&](size_t j) { return std::make_tuple(r.visits[j], r.values[j], r.priors[j]); };
        if (key(i) > key(best)) best = i;
    }
    r.action = r.actions[best];
    const Tree& first = *trees[0];
    if (settings.gumbel && first.gumbel_choice() >= 0) {  // the halving's answer, not the visits
        const Node& rt = first.root();
        r.action = rt.edges[static_cast<size_t>(first.gumbel_choice())].action;
        r.improved_policy.assign(m, 0.0);
        for (size_t i = 0; i < m; ++i) {
            const int k = rt.find(r.actions[i]);
            if (k >= 0) r.improved_policy[i] = first.improved_policy()[static_cast<size_t>(k)];
        }
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
}

}  // namespace fort
