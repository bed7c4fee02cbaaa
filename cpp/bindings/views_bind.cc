// The views' bindings (owner: C): _core.observation, observation_size, score_breakdown,
// winners, resample_hidden, and the views' Game tables (load_game_views). Thin: every value
// from Python is checked here with the Python engine's exception types and messages, then
// handed to src/views/observation.cc, src/views/scoring.cc, src/views/hidden.cc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "bind_common.h"
#include "fort/constants.h"
#include "fort/rules/handlers.h"
#include "fort/rules/search.h"
#include "fort/views/hidden.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace py = pybind11;

namespace {

// A seat argument: a Python int or numpy integer (not a bool) in [0, n); else ValueError
// "<what> must be a seat in [0, n), got <repr>" (hidden.resample_hidden_seeded's words).
int check_seat(const py::handle& v, int n, const char* what) {
    PyObject* o = v.ptr();
    int64_t seat = -1;
    bool ok = false;
    if (PyLong_CheckExact(o)) {
        ok = fort_bind::as_i64(o, &seat);
    } else if (!PyBool_Check(o) && PyIndex_Check(o) &&
               py::isinstance(v, py::module_::import("numpy").attr("integer"))) {
        py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
        if (!i) throw py::error_already_set();
        ok = fort_bind::as_i64(i.ptr(), &seat);
    } else if (PyLong_Check(o) && !PyBool_Check(o)) {  // an int subclass
        ok = fort_bind::as_i64(o, &seat);
    }
    if (!ok || seat < 0 || seat >= n)
        throw py::value_error(std::string(what) + " must be a seat in [0, " + std::to_string(n) +
                              "), got " + py::repr(v).cast<std::string>());
    return static_cast<int>(seat);
}

// inputs.check_seed: an int or numpy integer (not a bool) in [0, 2**62), else ConfigError.
uint64_t check_seed(const py::handle& seed) {
    const bool is_int = !PyBool_Check(seed.ptr()) &&
                        (PyLong_Check(seed.ptr()) ||
                         py::isinstance(seed, py::module_::import("numpy").attr("integer")));
    int64_t v = -1;
    bool ok = false;
    if (is_int) {
        py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(seed.ptr()));
        if (!i) throw py::error_already_set();
        ok = fort_bind::as_i64(i.ptr(), &v) && v >= 0 && v < fort::SEED_LIMIT;
    }
    if (!ok)
        fort_bind::raise_fort_error("ConfigError", "seed must be an int in [0, 2**62), got " +
                                                       py::repr(seed).cast<std::string>());
    return static_cast<uint64_t>(v);
}

// The output buffer of _core.observation: a writeable, C-contiguous 1-d float32 numpy array
// of exactly `size` entries; else ValueError saying what is wrong.
float* check_out(const py::handle& out, int64_t size) {
    if (!py::isinstance<py::array>(out))
        throw py::value_error("out must be a numpy float32 array, got " +
                              py::str(py::type::of(out)).cast<std::string>());
    auto a = py::reinterpret_borrow<py::array>(out);
    if (!a.dtype().is(py::dtype::of<float>()))
        throw py::value_error("out must be a float32 array, got " +
                              py::str(a.dtype()).cast<std::string>());
    if (a.ndim() != 1 || a.shape(0) != size)
        throw py::value_error("out must have shape (" + std::to_string(size) + ",), got " +
                              py::str(py::tuple(py::cast(std::vector<py::ssize_t>(
                                          a.shape(), a.shape() + a.ndim()))))
                                  .cast<std::string>());
    if (!(a.flags() & py::array::c_style))
        throw py::value_error("out must be C-contiguous");
    if (!a.writeable()) throw py::value_error("out must be writeable");
    return static_cast<float*>(a.mutable_data());
}

py::list score_rows(const fort::State& s) {
    fort::check_indices(s);  // the arrays are writable from Python (ValueError)
    py::list out;
    for (const fort::ScoreRow& r : fort::score_breakdown(s)) {
        py::dict d;  // scoring.score_breakdown's keys, in its order
        d["track"] = r.track;
        d["fort_level"] = r.fort_level;
        d["made_up_rule"] = r.made_up_rule;
        d["macaroni"] = r.macaroni;
        d["total"] = r.total;
        d["level"] = r.level;
        out.append(d);
    }
    return out;
}

}  // namespace

// The views' tables of _core.Game(**tables) (native.backend._views_tables): after the rules'
// (suit_counts), checked by Game::build_views (ValueError naming the table).
void load_game_views(fort::Game& game, fort_bind::GameKwargs& tables) {
    game.suit_class = fort_bind::take_array<int32_t>(tables, "suit_class");
    game.printed_advances = fort_bind::take_array<int32_t>(tables, "printed_advances");
    game.build_views();
}

void bind_views(py::module_& m) {
    m.def(
        "observation_size",
        [](const fort::Game& g) { return g.obs_offset[fort::NUM_OBS_SLICES]; }, py::arg("game"),
        "observation_layout(game).size: the length of an observation of this game.");
    m.def(
        "observation",
        [](const fort::State& s, const py::handle& seat, const py::handle& out) {
            const fort::Game& g = *s.game;
            const int p = check_seat(seat, g.num_players, "seat");
            const int64_t size = g.obs_offset[fort::NUM_OBS_SLICES];
            py::array result = out.is_none() ? fort_bind::new_array<float>(size)
                                             : py::reinterpret_borrow<py::array>(out);
            float* buf = out.is_none() ? static_cast<float*>(result.mutable_data())
                                       : check_out(out, size);
            fort::observation_tensor(s, p, buf);
            return result;
        },
        py::arg("state"), py::arg("seat"), py::arg("out") = py::none(),
        R"doc(Seat's observation (fort_env.views.observation.observation_tensor), written into `out`
if given, else into a new array; returns the array written.

out: a writeable C-contiguous float32 numpy array of shape (observation_size(game),), every
entry overwritten. Raises ValueError for a seat outside [0, num_players) or another buffer,
IndexError for a state whose codes fall outside their slices.)doc");
    m.def(
        "table_observation_size",
        [](const fort::Game& g) { return fort::table_observation_size(g); }, py::arg("game"),
        "observation.table_observation_size(n, game): the length of a table observation.");
    m.def(
        "table_observation",
        [](const fort::State& s, const py::handle& seat) {
            const fort::Game& g = *s.game;
            const int p = check_seat(seat, g.num_players, "seat");
            py::array result = fort_bind::new_array<float>(fort::table_observation_size(g));
            std::vector<float> scratch;
            fort::table_observation_tensor(s, p, static_cast<float*>(result.mutable_data()), scratch);
            return result;
        },
        py::arg("state"), py::arg("seat"),
        R"doc(Seat's table observation (FortState.table_observation_tensor): its observation, then
each other seat's private slices, in a new float32 array of table_observation_size(game).
Raises ValueError for a seat outside [0, num_players), IndexError for a state whose codes fall
outside their slices.)doc");
    m.def("score_breakdown", &score_rows, py::arg("state"),
          "scoring.score_breakdown: per seat a dict track, fort_level, made_up_rule, macaroni, "
          "total, level.");
    m.def(
        "winners",
        [](const fort::State& s) {
            fort::check_indices(s);  // the arrays are writable from Python (ValueError)
            return fort::winners(s);
        },
        py::arg("state"),
        "scoring.winners: the seats with the most points (ties: highest Fort Level), ascending.");
    m.def(
        "resample_hidden",
        [](const fort::State& s, const py::handle& observer, const py::handle& seed) {
            const int p = check_seat(observer, s.game->num_players, "observer");
            const uint64_t sd = check_seed(seed);
            // The arrays are writable from Python: a zone, owner, seat or Fort Level out of
            // range is a ValueError before anything is read (found by scripts/fuzz_core.py);
            // the fields the legal actions read too (each try's position is checked: hidden.h).
            fort::check_search_indices(s);
            try {
                return fort::resample_hidden(s, p, sd);
            } catch (const std::invalid_argument& e) {
                py::object err =
                    py::module_::import("fort_env.game.errors").attr("StateError")("cards", e.what());
                PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
                throw py::error_already_set();
            }
        },
        py::arg("state"), py::arg("observer"), py::arg("seed"),
        R"doc(hidden.resample_hidden_seeded(state, observer, seed) as a new State.

Raises ValueError for an observer outside [0, num_players) or a state with a field the rules
index by out of range (a zone, owner, seat, Fort Level), ConfigError for a seed outside
[0, 2**62), StateError when the hidden cards cannot be re-dealt or the running state cannot go
on (the Python messages).)doc");
    m.attr("MAX_REDEALS") = fort::MAX_REDEALS;  // hidden.MAX_REDEALS (a test compares them)
}
