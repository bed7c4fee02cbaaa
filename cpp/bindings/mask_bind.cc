// fort_env._core: bindings of the mask path (legality.h, search.h). Thin: every value from
// Python is checked here; the rules are in src/legality.cc, witness.cc, search.cc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bind_common.h"
#include "fort/game.h"
#include "fort/legality.h"
#include "fort/search.h"
#include "fort/state.h"

namespace py = pybind11;

namespace {

bool terminal(const fort::State& s) { return s.ctx[fort::C_STAGE] == fort::ST_OVER; }

// Every entry point checks the state first: its arrays are writable from Python.
std::vector<int> legal_of(fort::State& s) {
    fort::check_search_indices(s);  // std::invalid_argument -> ValueError
    if (terminal(s)) return {};  // FortState.legal_actions: none once the game is over
    return fort::legal_actions(s);
}

}  // namespace

// The mask path needs no table of its own from Python: search.SearchTables is derived from
// the rules' tables, which load_game_rules has loaded and built (build_rules) by now.
void load_game_mask(fort::Game& game, fort_bind::GameKwargs& /*tables*/) {
    game.search_tables = fort::SearchTables(game);  // std::invalid_argument -> ValueError
}

void bind_mask(py::module_& m) {
    m.def(
        "legal_actions",
        [](fort::State& s) {
            const std::vector<int> legal = legal_of(s);
            py::array_t<int32_t> out(static_cast<py::ssize_t>(legal.size()));
            std::copy(legal.begin(), legal.end(), out.mutable_data());
            return out;
        },
        py::arg("state"),
        "search.legal_actions: the legal actions, int32 array ascending (empty when terminal).");
    m.def(
        "legal_mask",
        [](fort::State& s, const py::object& obj) {
            const int n = s.game->num_actions;
            if (!py::isinstance<py::array_t<bool>>(obj) ||
                py::reinterpret_borrow<py::array>(obj).ndim() != 1 ||
                py::reinterpret_borrow<py::array>(obj).shape(0) != n)
                throw py::value_error("out must be a 1-d numpy bool array of length " +
                                      std::to_string(n) + " (num_distinct_actions), got " +
                                      py::repr(obj).cast<std::string>().substr(0, 80));
            auto out = py::reinterpret_borrow<py::array>(obj);
            if (!(out.flags() & py::array::c_style) || !out.writeable())
                throw py::value_error("out must be C-contiguous and writeable");
            auto* data = static_cast<bool*>(out.mutable_data());
            std::memset(data, 0, static_cast<std::size_t>(n));
            for (int a : legal_of(s)) data[a] = true;
        },
        py::arg("state"), py::arg("out"),
        "FortState.legal_actions_mask into `out` (bool, shape (num_distinct_actions,)).");
    m.def(
        "is_legal",
        [](fort::State& s, py::handle action) {
            if (PyBool_Check(action.ptr()) || !PyIndex_Check(action.ptr()))
                throw py::type_error("action must be an int, got " +
                                     py::repr(action).cast<std::string>());
            int overflow = 0;
            py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(action.ptr()));
            if (!as_int) throw py::error_already_set();
            const long long a = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
            if (a == -1 && PyErr_Occurred()) throw py::error_already_set();
            fort::check_search_indices(s);
            if (overflow != 0 || a < 0 || a >= s.game->num_actions || terminal(s)) return false;
            return fort::is_legal(s, static_cast<int>(a));
        },
        py::arg("state"), py::arg("action"),
        "Whether `action` (an int) is legal now (out of range: False).");
    m.def(
        "raw_legal",
        [](fort::State& s) {
            fort::check_search_indices(s);
            return fort::raw_legal(s);
        },
        py::arg("state"),
        "legality.raw_legal: the locally legal actions, in the Python engine's order.");
    m.def("search_memo_size", &fort::search_memo_size,
          "Entries in the calling thread's search memo.");
    m.def("clear_search_memo", &fort::clear_search_memo, "Empty the calling thread's search memo.");
}
