// fort_env.native._core: bindings of IS-MCTS in C++ (ismcts.h), the builder heuristic
// (rollout_policy.h), the evaluation function (evaluation.h), the policy-value network
// (network.h) and the PUCT search it guides (puct.h). Thin: every value from Python is
// checked here (ValueError/TypeError naming the argument); the search runs on a copy of the
// position with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bind_common.h"
#include "fort/bots/evaluation.h"
#include "fort/bots/ismcts.h"
#include "fort/bots/network.h"
#include "fort/bots/policy.h"
#include "fort/bots/puct.h"
#include "fort/bots/rollout_policy.h"
#include "fort/constants.h"
#include "fort/game/rng.h"
#include "fort/rules/handlers.h"
#include "fort/rules/search.h"

namespace py = pybind11;

namespace {

// An int argument (a Python int or numpy integer, not a bool) in [lo, hi].
int64_t int_arg(const py::handle& v, const char* name, int64_t lo, int64_t hi) {
    int64_t out = 0;
    const bool integer = !PyBool_Check(v.ptr()) && PyIndex_Check(v.ptr());
    if (!integer)
        throw py::type_error(std::string(name) + " must be an int, got " +
                             py::repr(v).cast<std::string>());
    if (fort_bind::int_value(v, &out) && out >= lo && out <= hi) return out;
    throw py::value_error(std::string(name) + " must be an int in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got " + py::repr(v).cast<std::string>());
}

// A finite float argument (a Python or numpy int or float, not a bool, not a complex).
double float_arg(const py::handle& v, const char* name) {
    const py::module_ np = py::module_::import("numpy");
    if (PyBool_Check(v.ptr()) ||
        !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr()) ||
          py::isinstance(v, np.attr("floating")) || py::isinstance(v, np.attr("integer"))))
        throw py::type_error(std::string(name) + " must be a number, got " +
                             py::repr(v).cast<std::string>());
    const double x = v.cast<double>();
    if (!std::isfinite(x))
        throw py::value_error(std::string(name) + " must be finite, got " +
                              py::repr(v).cast<std::string>());
    return x;
}

// The weights of agents.bots.evaluation.Weights as a flat sequence (bots/weights.h: EvalWeights).
fort::EvalWeights weights_arg(const py::handle& v) {
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v))
        throw py::type_error("weights must be a sequence of " +
                             std::to_string(fort::EVAL_WEIGHT_COUNT) + " numbers");
    const auto seq = py::reinterpret_borrow<py::sequence>(v);
    if (static_cast<int>(py::len(seq)) != fort::EVAL_WEIGHT_COUNT)
        throw py::value_error("weights must have " + std::to_string(fort::EVAL_WEIGHT_COUNT) +
                              " entries (level_value[6], useful, surplus, pack, lookout, rule, "
                              "cards, perks, scale, end_scale), got " +
                              std::to_string(py::len(seq)));
    std::vector<double> x;
    for (const auto& item : seq) x.push_back(float_arg(item, "weights entry"));
    fort::EvalWeights w;
    for (int k = 0; k <= fort::MAX_FORT_LEVEL; ++k) w.level_value[k] = x[k];
    size_t i = fort::MAX_FORT_LEVEL + 1;
    for (double* field : {&w.useful, &w.surplus, &w.pack, &w.lookout, &w.rule, &w.cards, &w.perks,
                          &w.scale, &w.end_scale})
        *field = x[i++];
    if (!(w.scale > 0.0) || !(w.end_scale > 0.0))
        throw py::value_error("weights: scale and end_scale must be positive");
    return w;
}

// The position as the engine's own states are: indices in range, the game running, the seat
// acting. A copy, so that the search runs without the GIL on memory Python cannot touch.
fort::State checked_copy(const fort::State& s) {
    fort::check_indices(s);         // std::invalid_argument -> ValueError
    fort::check_search_indices(s);  // the fields the mask path indexes by
    return s;
}

std::vector<int> legal_list(const py::handle& v, const fort::State& s) {
    std::vector<int> out;
    for (const auto& item : py::reinterpret_borrow<py::iterable>(v))
        out.push_back(static_cast<int>(int_arg(item, "legal entry", 0, s.game->num_actions - 1)));
    if (out.empty()) throw py::value_error("legal must name at least one action");
    return out;
}

// A float32 array argument of `ndim` dimensions (any strides: copied to C order).
py::array_t<float, py::array::c_style> float_array(const py::handle& v, const std::string& name,
                                                   int ndim) {
    if (!py::isinstance<py::array>(v))
        throw py::type_error(name + " must be a numpy float32 array, got " +
                             py::str(py::type::of(v)).cast<std::string>());
    const auto a = py::reinterpret_borrow<py::array>(v);
    if (!a.dtype().is(py::dtype::of<float>()) || a.ndim() != ndim)
        throw py::value_error(name + " must be a " + std::to_string(ndim) +
                              "-d float32 array, got a " + std::to_string(a.ndim()) + "-d " +
                              py::str(a.dtype()).cast<std::string>() + " array");
    auto c = py::array_t<float, py::array::c_style>::ensure(a);
    if (!c) throw py::value_error(name + " could not be copied to a C-ordered float32 array");
    return c;
}

// A (weight, bias) pair: weight (out, in), bias (out,), as torch's nn.Linear holds them.
std::pair<py::array_t<float, py::array::c_style>, py::array_t<float, py::array::c_style>>
linear_arg(const py::handle& v, const std::string& name) {
    if (!py::isinstance<py::tuple>(v) || py::len(v) != 2)
        throw py::type_error(name + " must be a (weight, bias) tuple");
    const auto t = py::reinterpret_borrow<py::tuple>(v);
    auto w = float_array(t[0], name + " weight", 2);
    auto b = float_array(t[1], name + " bias", 1);
    if (b.shape(0) != w.shape(0))
        throw py::value_error(name + ": the bias has " + std::to_string(b.shape(0)) +
                              " entries for a weight of " + std::to_string(w.shape(0)) + " rows");
    return {w, b};
}

std::vector<fort::DenseLayer> layers_arg(const py::handle& v, const std::string& name) {
    if (!py::isinstance<py::list>(v)) throw py::type_error(name + " must be a list of (weight, bias)");
    std::vector<fort::DenseLayer> out;
    int i = 0;
    for (const auto& item : py::reinterpret_borrow<py::list>(v)) {
        auto [w, b] = linear_arg(item, name + "[" + std::to_string(i++) + "]");
        out.push_back(fort::DenseLayer::from_torch(static_cast<int>(w.shape(0)),
                                                   static_cast<int>(w.shape(1)), w.data(),
                                                   b.data()));
    }
    return out;
}

fort::Head head_arg(const py::handle& v, const std::string& name) {
    auto [w, b] = linear_arg(v, name);
    return fort::Head::from_torch(static_cast<int>(w.shape(0)), static_cast<int>(w.shape(1)),
                                  w.data(), b.data());
}

}  // namespace

void bind_search(py::module_& m) {
    py::class_<fort::PolicyValueNet>(m, "PolicyValueNet", R"doc(A policy-value network on the core
(cpp/include/fort/bots/network.h): dense layers as torch's nn.Linear holds them.

PolicyValueNet(observation_size, num_actions, activation, trunk, policy_tower, value_tower,
policy_head, value_head): activation 'ReLU' or 'Tanh'; trunk, policy_tower, value_tower: lists
of (weight float32 (out, in), bias float32 (out,)) tuples, applied in order (the towers read
the trunk's output, or the observation without a trunk); policy_head (weight (num_actions,
last), bias) and value_head (weight (1, last), bias). The arrays are copied. Raises TypeError or
ValueError naming a bad argument, a layer that does not read its predecessor's width, or a
value that is not finite. agents/learned/core_network.py builds one from a policy file.)doc")
        .def(py::init([](const py::handle& observation_size, const py::handle& num_actions,
                         const std::string& activation, const py::handle& trunk,
                         const py::handle& policy_tower, const py::handle& value_tower,
                         const py::handle& policy_head, const py::handle& value_head) {
                 fort::Activation act;
                 if (activation == "ReLU") {
                     act = fort::Activation::RELU;
                 } else if (activation == "Tanh") {
                     act = fort::Activation::TANH;
                 } else {
                     throw py::value_error("activation must be 'ReLU' or 'Tanh', got '" +
                                           activation + "'");
                 }
                 return fort::PolicyValueNet(
                     static_cast<int>(int_arg(observation_size, "observation_size", 1, 1 << 24)),
                     static_cast<int>(int_arg(num_actions, "num_actions", 1, 1 << 24)), act,
                     layers_arg(trunk, "trunk"), layers_arg(policy_tower, "policy_tower"),
                     layers_arg(value_tower, "value_tower"), head_arg(policy_head, "policy_head"),
                     head_arg(value_head, "value_head"));
             }),
             py::arg("observation_size"), py::arg("num_actions"), py::arg("activation"),
             py::arg("trunk"), py::arg("policy_tower"), py::arg("value_tower"),
             py::arg("policy_head"), py::arg("value_head"))
        .def_property_readonly("observation_size", &fort::PolicyValueNet::observation_size)
        .def_property_readonly("num_actions", &fort::PolicyValueNet::num_actions)
        .def(
            "forward",
            [](const fort::PolicyValueNet& net, const py::handle& obs) {
                auto x = float_array(obs, "obs", 2);
                if (x.shape(1) != net.observation_size())
                    throw py::value_error("obs must have " +
                                          std::to_string(net.observation_size()) +
                                          " columns, got " + std::to_string(x.shape(1)));
                const int k = static_cast<int>(x.shape(0));
                py::array_t<float> logits({static_cast<py::ssize_t>(k),
                                           static_cast<py::ssize_t>(net.num_actions())});
                py::array_t<float> values(static_cast<py::ssize_t>(k));
                if (k > 0) {
                    const float* in = x.data();
                    float* lp = logits.mutable_data();
                    float* vp = values.mutable_data();
                    py::gil_scoped_release release;
                    fort::NetScratch scratch;
                    net.forward(in, k, lp, vp, scratch);
                }
                return py::make_tuple(logits, values);
            },
            py::arg("obs"),
            "(logits float32 (K, num_actions), values float32 (K,)) for observations float32 "
            "(K, observation_size): the network's forward pass (no mask, no softmax).");
    m.def(
        "puct_search",
        [](const fort::State& state, const py::handle& seat, const fort::PolicyValueNet& net,
           const py::handle& seed, const py::handle& simulations, const py::handle& seconds,
           const py::handle& c, const py::handle& batch, const py::handle& threads,
           const py::handle& noise_alpha, const py::handle& noise_fraction,
           const fort::PolicyValueNet* critic, const py::handle& gumbel,
           const py::handle& gumbel_actions) {
            fort::PuctSettings s;
            const int p = static_cast<int>(int_arg(seat, "seat", 0, state.num_players - 1));
            s.seed = static_cast<uint64_t>(int_arg(seed, "seed", 0, fort::SEED_LIMIT - 1));
            s.simulations = int_arg(simulations, "simulations", 1, INT64_MAX);
            s.seconds = float_arg(seconds, "seconds");
            s.c = float_arg(c, "c");
            s.batch = static_cast<int>(int_arg(batch, "batch", 1, 256));
            s.threads = static_cast<int>(int_arg(threads, "threads", 1, 64));
            s.noise_alpha = float_arg(noise_alpha, "noise_alpha");
            s.noise_fraction = float_arg(noise_fraction, "noise_fraction");
            if (!PyBool_Check(gumbel.ptr()))
                throw py::type_error("gumbel must be a bool, got " +
                                     py::repr(gumbel).cast<std::string>());
            s.gumbel = gumbel.ptr() == Py_True;
            s.gumbel_actions = static_cast<int>(int_arg(gumbel_actions, "gumbel_actions", 1, 256));
            const fort::State position = checked_copy(state);
            fort::PuctResult r;
            {
                py::gil_scoped_release release;
                r = fort::puct_search(position, p, net, s, critic);  // invalid_argument -> ValueError
            }
            py::dict out;
            out["action"] = r.action;
            out["simulations"] = r.simulations;
            out["seconds"] = r.seconds;
            out["actions"] = r.actions;
            out["visits"] = r.visits;
            out["values"] = r.values;
            out["priors"] = r.priors;
            out["root_value"] = r.root_value;
            out["nodes"] = r.nodes;
            out["evaluations"] = r.evaluations;
            if (s.gumbel) out["improved_policy"] = r.improved_policy;
            return out;
        },
        py::arg("state"), py::arg("seat"), py::arg("net"), py::kw_only(), py::arg("seed"),
        py::arg("simulations"), py::arg("seconds"), py::arg("c"), py::arg("batch"),
        py::arg("threads"), py::arg("noise_alpha"), py::arg("noise_fraction"),
        py::arg("critic") = nullptr, py::arg("gumbel") = false, py::arg("gumbel_actions") = 16,
        R"doc(PUCT for `seat`'s pending decision, guided by `net` (cpp/include/fort/bots/puct.h).

`state` is read only through resample_hidden(state, seat, .) and for the root's legal
actions. seed: int in [0, 2**62); simulations >= 1; seconds >= 0 (0: no time limit); c >= 0;
batch in [1, 256] (leaves per forward pass, virtual loss); threads in [1, 64] (root-parallel
trees); noise_alpha > 0 and noise_fraction in [0, 1) (root Dirichlet noise, 0: none); critic:
None, or a PolicyValueNet over the table observation whose value head values the leaves
(agents.learned.core_network.critic_network); gumbel: bool, Gumbel root selection with
Sequential Halving over the `gumbel_actions` (int in [1, 256]) best root actions (threads 1,
noise_fraction 0). Returns a
dict: action, simulations, seconds, actions/visits/values/priors (the root's legal actions,
ascending; values: mean value in [0, 1] for `seat`), root_value, nodes, evaluations, and with
gumbel improved_policy (softmax of logits + sigma(completed q), by action). Raises
ValueError or TypeError naming a bad argument; ValueError for a state that is over, a seat
that is not acting, or a network of another observation size or action count.)doc");
    m.def(
        "ismcts_search",
        [](const fort::State& state, const py::handle& seat, const py::handle& seed,
           const py::handle& iterations, const py::handle& seconds, const py::handle& c,
           const std::string& rollout, const py::handle& extra_turns, const py::object& tree_kinds,
           const py::handle& rivals_in_tree, const py::handle& widen_c,
           const py::handle& widen_alpha, const py::handle& bias, const py::handle& margin,
           const py::handle& weights) {
            fort::SearchSettings s;
            const int p = static_cast<int>(int_arg(seat, "seat", 0, state.num_players - 1));
            s.seed = static_cast<uint64_t>(int_arg(seed, "seed", 0, fort::SEED_LIMIT - 1));
            s.iterations = int_arg(iterations, "iterations", 1, INT64_MAX);
            s.seconds = float_arg(seconds, "seconds");
            s.c = float_arg(c, "c");
            if (rollout == "builder") {
                s.rollout = fort::Rollout::BUILDER;
            } else if (rollout == "random") {
                s.rollout = fort::Rollout::RANDOM;
            } else {
                throw py::value_error("rollout must be 'builder' or 'random', got '" + rollout +
                                      "'");
            }
            s.extra_turns = static_cast<int>(int_arg(extra_turns, "extra_turns", 0, 1000));
            if (tree_kinds.is_none()) {
                s.tree_kinds = fort::default_tree_kinds();
            } else {
                for (const auto& k : py::reinterpret_borrow<py::iterable>(tree_kinds))
                    s.tree_kinds |=
                        1u << int_arg(k, "tree_kinds entry", 0, fort::NUM_DECISION_KINDS - 1);
            }
            if (!PyBool_Check(rivals_in_tree.ptr()))
                throw py::type_error("rivals_in_tree must be a bool, got " +
                                     py::repr(rivals_in_tree).cast<std::string>());
            s.rivals_in_tree = rivals_in_tree.cast<bool>();
            s.widen_c = float_arg(widen_c, "widen_c");
            s.widen_alpha = float_arg(widen_alpha, "widen_alpha");
            s.bias = float_arg(bias, "bias");
            s.margin = float_arg(margin, "margin");
            s.weights = weights_arg(weights);
            const fort::State position = checked_copy(state);
            fort::SearchResult r;
            {
                py::gil_scoped_release release;
                r = fort::ismcts_search(position, p, s);  // std::invalid_argument -> ValueError
            }
            py::dict out;
            out["action"] = r.action;
            out["iterations"] = r.iterations;
            out["seconds"] = r.seconds;
            out["actions"] = r.actions;
            out["visits"] = r.visits;
            out["values"] = r.values;
            out["nodes"] = r.nodes;
            return out;
        },
        py::arg("state"), py::arg("seat"), py::kw_only(), py::arg("seed"), py::arg("iterations"),
        py::arg("seconds"), py::arg("c"), py::arg("rollout"), py::arg("extra_turns"),
        py::arg("tree_kinds"), py::arg("rivals_in_tree"), py::arg("widen_c"),
        py::arg("widen_alpha"), py::arg("bias"), py::arg("margin"), py::arg("weights"),
        R"doc(IS-MCTS for `seat`'s pending decision (cpp/include/fort/bots/ismcts.h).

`state` is read only through resample_hidden(state, seat, .) and for the root's legal
actions, so any state of seat's information set gives the same answer. seed: int in
[0, 2**62); iterations >= 1; seconds >= 0 (0: no time limit); c >= 0; rollout 'builder' or
'random'; extra_turns in [0, 1000]; tree_kinds: decision kinds that branch (None: the
default set); rivals_in_tree: whether rivals' decisions branch too (a bool); widen_c >= 0
(0: no progressive widening), widen_alpha in (0, 1]; bias >= 0 (progressive bias towards
the builder's choice); margin >= 0 (keep the builder's root choice unless beaten by more);
weights: the 15 numbers of
agents.bots.evaluation.Weights (level_value first). Returns a dict: action,
iterations, seconds, actions/visits/values (the root's children), nodes. Raises ValueError or
TypeError naming a bad argument, ValueError for a state that is over or whose acting seat is
not `seat`.)doc");
    m.def(
        "builder_scores",
        [](const fort::State& state, const py::handle& legal) {
            const fort::State s = checked_copy(state);
            return fort::builder_scores(s, legal_list(legal, s));
        },
        py::arg("state"), py::arg("legal"),
        "The builder heuristic's score of each action of `legal` for the acting seat "
        "(agents.bots.heuristics.HeuristicAgent's handlers; -1e9 for an action they do not score).");
    m.def(
        "heuristic_scores",
        [](const fort::State& state, const py::handle& legal, const py::handle& policy) {
            const int64_t code = int_arg(policy, "policy", 0, fort::NUM_POLICIES - 1);
            // std::invalid_argument (ValueError) for a policy that is not a heuristic
            const fort::Heuristic& bot = fort::heuristic_of(static_cast<fort::Policy>(code));
            const fort::State s = checked_copy(state);
            return fort::heuristic_scores(bot, s, legal_list(legal, s));
        },
        py::arg("state"), py::arg("legal"), py::arg("policy"),
        "The heuristic bot `policy` (a code of POLICIES: builder, scorer or opportunist)'s score "
        "of each action of `legal` for the acting seat (agents.bots.heuristics.HeuristicAgent's "
        "handlers with that bot's style; -1e9 for an action they do not score).");
    m.def(
        "builder_action",
        [](const fort::State& state, const py::handle& seed) {
            fort::State s = checked_copy(state);
            if (fort::is_over(s)) throw py::value_error("the game is over");
            fort::EventRng rng(
                static_cast<uint64_t>(int_arg(seed, "seed", 0, fort::SEED_LIMIT - 1)), 0);
            return fort::policy_action(fort::Policy::BUILDER, s, rng);
        },
        py::arg("state"), py::arg("seed"),
        "The builder heuristic's action for the acting seat (ties drawn from EventRng(seed, 0)).");
    m.def(
        "evaluate_all",
        [](const fort::State& state, const py::handle& weights) {
            const fort::State s = checked_copy(state);
            return fort::evaluate_all(s, weights_arg(weights));
        },
        py::arg("state"), py::arg("weights"),
        "agents.bots.evaluation.evaluate_all: every seat's value in [0, 1].");
    m.def(
        "default_tree_kinds",
        []() {
            std::vector<int> out;
            const uint32_t m = fort::default_tree_kinds();
            for (int k = 0; k < fort::NUM_DECISION_KINDS; ++k)
                if ((m >> k) & 1u) out.push_back(k);
            return out;
        },
        "The decision kinds that branch the C++ search's tree by default, ascending.");
}
