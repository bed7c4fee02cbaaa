// fort_env.native._core: the Python bindings of the C++ core (docs/cpp.md). Thin: every value that
// comes from Python is checked here, with the Python engine's exception types and messages
// (fort_env.game.errors), then handed to the rules in src/; no rule lives in this file.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bind_common.h"
#include "fort/constants.h"
#include "fort/game/errors.h"
#include "fort/game/rng.h"

namespace py = pybind11;
using fort_bind::as_i64;

namespace {

// Python's `x & (2**64 - 1)` for any int x (rng.py masks every value to 64 bits).
uint64_t as_u64_masked(const py::int_& x) {
    const unsigned long long v = PyLong_AsUnsignedLongLongMask(x.ptr());
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw py::error_already_set();
    return static_cast<uint64_t>(v);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "The compiled core of fort_env (docs/cpp.md); use it through fort_env.native.backend.";

    // fort::StateError (errors.h: a running position the engine cannot go on from, found inside
    // the core) is fort_env.game.errors.StateError(field, problem), whichever function met it.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const fort::StateError& e) {
            try {
                py::object err = py::module_::import("fort_env.game.errors")
                                     .attr("StateError")(e.field(), e.what());
                PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
            } catch (py::error_already_set& failed) {
                failed.restore();
            }
        }
    });

    m.def("mix", [](const py::int_& z) { return fort::mix(as_u64_masked(z)); }, py::arg("z"),
          "The SplitMix64 finaliser of z mod 2**64 (fort_env.game.rng.mix).");

    py::class_<fort::EventRng>(m, "EventRng",
                               "fort_env.game.rng.EventRng in C++: the draws of one random event.")
        .def(py::init([](const py::int_& seed, const py::int_& event) {
                 return fort::EventRng(as_u64_masked(seed), as_u64_masked(event));
             }),
             py::arg("seed"), py::arg("event"))
        .def("next_u64", &fort::EventRng::next_u64, "The next raw draw, an int in [0, 2**64).")
        .def(
            "below",
            [](fort::EventRng& self, const py::int_& n) -> py::object {
                const int below_one = PyObject_RichCompareBool(n.ptr(), py::int_(1).ptr(), Py_LT);
                if (below_one < 0) throw py::error_already_set();
                if (below_one == 1)
                    throw py::value_error("below(n) needs n >= 1, got " +
                                          py::str(n).cast<std::string>());
                int64_t small = 0;
                if (small >= 1) return py::int_(self.below(static_cast<uint64_t>(small)));
                // n >= 2**63: up to 2**64 exactly (every draw accepted, as in Python)
                const py::int_ two64 = py::reinterpret_steal<py::int_>(
                    PyNumber_Lshift(py::int_(1).ptr(), py::int_(64).ptr()));
                if (n.equal(two64)) return py::int_(self.next_u64());
                const unsigned long long big = PyLong_AsUnsignedLongLong(n.ptr());
                if (PyErr_Occurred()) {
                    PyErr_Clear();
                    throw py::value_error("below(n) needs n <= 2**64, got " +
                                          py::str(n).cast<std::string>());
                }
                return py::int_(self.below(static_cast<uint64_t>(big)));
            },
            py::arg("n"), "A uniform int in [0, n). Raises ValueError if n < 1 (or n > 2**64).")
        .def(
            "permutation",
            [](fort::EventRng& self, const py::int_& n) {
                int64_t v = 0;
                if (!as_i64(n.ptr(), &v))
                    throw py::value_error("permutation(n) needs n < 2**63, got " +
                                          py::str(n).cast<std::string>());
                return self.permutation(v);  // a list of ints; empty for n <= 0, as range(n)
            },
            py::arg("n"), "A uniform permutation of range(n) (Fisher-Yates), as a list of ints.");

    // One line per part (bind_common.h).
    bind_state(m);  // D: Game, State, deal (state_bind.cc)
    bind_rules(m);  // A: apply_unchecked, check_end, ... (rules_bind.cc)
    bind_mask(m);   // B: legal_actions, legal_mask, is_legal (mask_bind.cc)
    bind_views(m);  // C: observation, score_breakdown, winners, ... (views_bind.cc)
    bind_batch(m);    // the batched vector env (batch_bind.cc)
    bind_playout(m);  // playouts and built-in policies (playout_bind.cc)
    bind_search(m);   // IS-MCTS in C++ (search_bind.cc)

    m.def("noop", []() {}, "Does nothing: measures the cost of one call (docs/cpp.md).");

    py::dict layout;
    layout["NUM_CTX"] = fort::NUM_CTX;
    layout["NUM_PLAYER_FIELDS"] = fort::NUM_PLAYER_FIELDS;
    layout["MAX_STEPS"] = fort::MAX_STEPS;
    layout["NUM_ZONES"] = fort::NUM_ZONES;
    layout["NUM_DECISION_KINDS"] = fort::NUM_DECISION_KINDS;
    layout["NUM_STAGES"] = fort::NUM_STAGES;
    layout["NUM_MADE_UP_RULES"] = fort::NUM_MADE_UP_RULES;
    layout["NUM_PERKS"] = fort::NUM_PERKS;
    m.attr("LAYOUT") = layout;
}
