// fort_env._core: the Python bindings of the C++ core (docs/cpp.md). Thin: every value that
// comes from Python is checked here, with the Python engine's exception types and messages
// (fort_env.errors), then handed to the rules in src/; no rule lives in this file.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fort/constants.h"
#include "fort/deal.h"
#include "fort/rng.h"
#include "fort/state.h"
#include "rules_bind.h"

namespace py = pybind11;

namespace {

// Raise fort_env.errors.<name>(message) from C++.
[[noreturn]] void raise_fort_error(const char* name, const std::string& message) {
    py::object cls = py::module_::import("fort_env.errors").attr(name);
    py::set_error(cls, message.c_str());
    throw py::error_already_set();
}

// Python's `x & (2**64 - 1)` for any int x (rng.py masks every value to 64 bits).
uint64_t as_u64_masked(const py::int_& x) {
    const unsigned long long v = PyLong_AsUnsignedLongLongMask(x.ptr());
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw py::error_already_set();
    return static_cast<uint64_t>(v);
}

// An int-like Python value as int64, or false if it does not fit.
bool as_i64(PyObject* obj, int64_t* out) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow != 0) return false;
    *out = static_cast<int64_t>(v);
    return true;
}

// deal.new_state's check of the seed: an int (or numpy integer, not a bool) in [0, 2**62).
uint64_t check_seed(const py::handle& seed) {
    const py::object np_integer = py::module_::import("numpy").attr("integer");
    bool ok = !PyBool_Check(seed.ptr()) &&
              (PyLong_Check(seed.ptr()) || py::isinstance(seed, np_integer));
    int64_t v = -1;
    if (ok) {
        py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(seed.ptr()));
        if (!as_int) throw py::error_already_set();
        ok = as_i64(as_int.ptr(), &v) && v >= 0 && v < fort::SEED_LIMIT;
    }
    if (!ok)
        raise_fort_error("ConfigError", "seed must be an int in [0, 2**62), got " +
                                            py::repr(seed).cast<std::string>());
    return static_cast<uint64_t>(v);
}

// deal.new_state's check of first_player: None (draw it), or int(first_player) in [0, n).
int check_first_player(const py::handle& first_player, int n) {
    if (first_player.is_none()) return -1;
    py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(first_player.ptr()));
    if (!as_int) throw py::error_already_set();  // int()'s own TypeError/ValueError
    int64_t v = -1;
    if (!as_i64(as_int.ptr(), &v) || v < 0 || v >= n)
        raise_fort_error("ConfigError", "first_player must be in [0, " + std::to_string(n) +
                                            "), got " + py::repr(first_player).cast<std::string>());
    return static_cast<int>(v);
}

template <typename T>
std::vector<T> to_vector(const py::array_t<T, py::array::c_style | py::array::forcecast>& a,
                         const char* name) {
    if (a.ndim() != 1) throw py::value_error(std::string(name) + " must be a 1-d array");
    return std::vector<T>(a.data(), a.data() + a.size());
}

template <typename T>
py::array_t<T> to_array(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
    py::array_t<T> out(shape);
    if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
    return out;
}

py::dict state_to_dict(const fort::State& s) {
    py::dict d;
    const py::ssize_t c = s.num_cards;
    d["zone"] = to_array(s.zone, {c});
    d["owner"] = to_array(s.owner, {c});
    d["pos"] = to_array(s.pos, {c});
    d["mark"] = to_array(s.mark, {c});
    d["coin_as"] = to_array(s.coin_as, {c});
    d["players"] = to_array(s.players, {s.num_players, fort::NUM_PLAYER_FIELDS});
    d["rule_loc"] = to_array(s.rule_loc, {fort::NUM_MADE_UP_RULES});
    d["perk_loc"] = to_array(s.perk_loc, {fort::NUM_PERKS});
    d["play_suits"] = to_array(s.play_suits, {fort::NUM_SUITS});
    d["prog"] = to_array(s.prog, {fort::MAX_STEPS, fort::PROG_COLUMNS});
    d["done"] = to_array(s.done, {fort::MAX_STEPS});
    d["ctx"] = to_array(std::vector<int64_t>(s.ctx.begin(), s.ctx.end()), {fort::NUM_CTX});
    return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "The compiled core of fort_env (docs/cpp.md); use it through fort_env.cpp_backend.";

    m.def("mix", [](const py::int_& z) { return fort::mix(as_u64_masked(z)); }, py::arg("z"),
          "The SplitMix64 finaliser of z mod 2**64 (fort_env.rng.mix).");

    py::class_<fort::EventRng>(m, "EventRng",
                               "fort_env.rng.EventRng in C++: the draws of one random event.")
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

    m.def(
        "deal",
        [](const py::object& seed, const py::object& first_player, int num_players,
           bool advanced,
           const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& is_best_friend,
           const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& card_board,
           const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& seat_board) {
            fort::GameTables game;
            game.num_players = num_players;
            game.advanced = advanced;
            game.is_best_friend = to_vector(is_best_friend, "is_best_friend");
            game.card_board = to_vector(card_board, "card_board");
            game.seat_board = to_vector(seat_board, "seat_board");
            game.num_cards = static_cast<int>(game.is_best_friend.size());
            game.validate();  // std::invalid_argument -> ValueError
            const uint64_t s = check_seed(seed);
            const int first = check_first_player(first_player, num_players);
            return state_to_dict(fort::new_state(game, s, first));
        },
        py::arg("seed"), py::arg("first_player"), py::kw_only(), py::arg("num_players"),
        py::arg("advanced"), py::arg("is_best_friend"), py::arg("card_board"),
        py::arg("seat_board"),
        R"doc(The initial state of a game (fort_env.rules.deal.new_state), as arrays.

Returns a dict of numpy arrays named as state_arrays.ARRAYS (same dtypes and shapes) plus
"ctx" (int64, shape (NUM_CTX,)). Raises ConfigError for a bad seed or first_player (the Python
engine's messages), ValueError for malformed tables.)doc");

    bind_rules(m);

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
