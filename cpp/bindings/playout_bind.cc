// The playouts' bindings: _core.playout, _core.playouts, _core.POLICIES. Thin: every value from
// Python is checked here (fort_env/native/playout.py's messages), then handed to
// src/native/playout.cc with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "bind_common.h"
#include "fort/bots/policy.h"
#include "fort/constants.h"
#include "fort/native/playout.h"
#include "fort/rules/search.h"

namespace py = pybind11;

namespace {

// inputs.check_seed's rule and words (ConfigError), as views_bind.cc's check_seed.
uint64_t check_seed(const py::handle& seed) {
    int64_t v = -1;
    if (!fort_bind::int_value(seed, &v) || v < 0 || v >= fort::SEED_LIMIT)
        fort_bind::raise_fort_error("ConfigError", "seed must be an int in [0, 2**62), got " +
                                                       py::repr(seed).cast<std::string>());
    return static_cast<uint64_t>(v);
}

// A policy code: an int in [0, NUM_POLICIES) (the names: fort_env.native.playout.POLICIES).
fort::Policy check_policy(const py::handle& policy) {
    int64_t v = -1;
    if (!fort_bind::int_value(policy, &v) || v < 0 || v >= fort::NUM_POLICIES)
        throw py::value_error("policy must be a policy code in [0, " +
                              std::to_string(fort::NUM_POLICIES) + "), got " +
                              py::repr(policy).cast<std::string>());
    return static_cast<fort::Policy>(v);
}

int64_t check_count(const py::handle& v, const char* what, int64_t lo, int64_t hi) {
    int64_t out = 0;
    if (!fort_bind::int_value(v, &out) || out < lo || out > hi)
        throw py::value_error(std::string(what) + " must be an int in [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + "], got " +
                              py::repr(v).cast<std::string>());
    return out;
}

}  // namespace

void bind_playout(py::module_& m) {
    // fort_env.native.playout compares it with len(POLICIES): a build older than the Python source
    // is reported, not asked for a code it does not know
    m.attr("NUM_POLICIES") = fort::NUM_POLICIES;
    m.def(
        "policy_action",
        [](const fort::State& s, const py::handle& policy, const py::handle& seed,
           const py::handle& event) {
            const fort::Policy p = check_policy(policy);
            const uint64_t sd = check_seed(seed);
            const auto e = static_cast<uint64_t>(check_count(event, "event", 0, INT64_MAX));
            fort::check_search_indices(s);
            if (fort::is_over(s)) throw py::value_error("the game is over: no action to choose");
            fort::State copy = s;  // the policy reads the state only; a copy keeps it so
            fort::EventRng rng(sd, e);
            py::gil_scoped_release release;
            return fort::policy_action(p, copy, rng);
        },
        py::arg("state"), py::arg("policy"), py::arg("seed"), py::arg("event"),
        R"doc(The built-in policy's action at a running state, drawn from EventRng(seed, event).

fort_env.native.playout.policy_action's twin (decision k of a playout draws with event k). The state
is not changed. Raises ValueError for an unknown policy code, a negative event, a finished
game or a state with a field out of range; ConfigError for a bad seed; StateError for a running
state with no legal action (fort::StateError, every policy alike).)doc");
    m.def(
        "playout",
        [](const fort::State& s, const py::handle& policy, const py::handle& seed) {
            const fort::Policy p = check_policy(policy);
            const uint64_t sd = check_seed(seed);
            fort::check_search_indices(s);  // the arrays are writable from Python
            fort::State copy = s;  // copied under the GIL: Python may write `s` meanwhile
            fort::PlayoutResult r;
            {
                py::gil_scoped_release release;
                r = fort::playout(std::move(copy), p, sd);
            }
            py::array_t<double> returns(static_cast<py::ssize_t>(r.returns.size()));
            std::copy(r.returns.begin(), r.returns.end(), returns.mutable_data());
            return py::make_tuple(returns, r.decisions);
        },
        py::arg("state"), py::arg("policy"), py::arg("seed"),
        R"doc(fort_env.native.playout.playout on a C++ state: (returns, decisions).

returns: float64 array (num_players,), +1 winners, -1 the others; decisions: an int, the
decisions taken. The state is not changed. Raises ValueError for an unknown policy code or a
state with a field out of range, ConfigError for a seed outside [0, 2**62), StateError for a
position with no legal action.)doc");
    m.def(
        "playouts",
        [](const fort::State& s, const py::handle& n, const py::handle& policy,
           const py::handle& seed, const py::handle& threads) {
            const int64_t count = check_count(n, "n", 0, fort::SEED_LIMIT);
            const fort::Policy p = check_policy(policy);
            const uint64_t sd = check_seed(seed);
            const int64_t t = check_count(threads, "threads", 1, fort::MAX_PLAYOUT_THREADS);
            if (static_cast<int64_t>(sd) + count > fort::SEED_LIMIT)
                fort_bind::raise_fort_error(
                    "ConfigError", "seed + n must be at most 2**62 (playout i uses seed + i), got "
                                   "seed " + std::to_string(sd) + " and n " +
                                   std::to_string(count));
            fort::check_search_indices(s);
            const fort::State start = s;  // copied under the GIL: Python may write `s` meanwhile
            const py::ssize_t np = s.num_players;
            py::array_t<double> returns({static_cast<py::ssize_t>(count), np});
            py::array_t<int64_t> decisions(static_cast<py::ssize_t>(count));
            double* r = returns.mutable_data();
            int64_t* d = decisions.mutable_data();
            {
                py::gil_scoped_release release;
                fort::playouts(start, p, sd, count, static_cast<int>(t), r, d);
            }
            return py::make_tuple(returns, decisions);
        },
        py::arg("state"), py::arg("n"), py::arg("policy"), py::arg("seed"),
        py::arg("threads") = 1,
        R"doc(fort_env.native.playout.playouts on a C++ state: (returns, decisions).

n playouts, playout i with seed + i; returns float64 (n, num_players), decisions int64 (n,).
The GIL is released while they run, on `threads` threads; the results do not depend on it.
Raises ValueError for a bad n, threads or policy code, ConfigError for a bad seed or
seed + n > 2**62.)doc");
}
