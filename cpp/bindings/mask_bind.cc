// fort_env.native._core: bindings of the mask path (legality.h, search.h). Thin: every value from
// Python is checked here; the rules are in src/rules/legality.cc, witness.cc, search.cc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bind_common.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/legality.h"
#include "fort/rules/search.h"

namespace py = pybind11;

namespace {

// Every entry point goes through the state's cache (search.h cached_legal_actions), which
// checks the state whenever the position is new: its arrays are writable from Python.
const std::vector<int>& legal_of(fort::State& s) {
    return fort::cached_legal_actions(s);  // std::invalid_argument -> ValueError
}

// The mask into a new numpy bool array, or into `obj` (checked) when it is not None.
py::array mask_into(fort::State& s, const py::handle& obj) {
    const int n = s.game->num_actions;
    py::array out;
    if (obj.is_none()) {
        out = fort_bind::new_array<bool>(n);
    } else {
        if (!py::isinstance<py::array_t<bool>>(obj) ||
            py::reinterpret_borrow<py::array>(obj).ndim() != 1 ||
            py::reinterpret_borrow<py::array>(obj).shape(0) != n)
            throw py::value_error("out must be a 1-d numpy bool array of length " +
                                  std::to_string(n) + " (num_distinct_actions), got " +
                                  py::repr(obj).cast<std::string>().substr(0, 80));
        out = py::reinterpret_borrow<py::array>(obj);
        if (!(out.flags() & py::array::c_style) || !out.writeable())
            throw py::value_error("out must be C-contiguous and writeable");
    }
    const std::vector<int>& legal = legal_of(s);
    auto* data = static_cast<bool*>(out.mutable_data());
    std::memset(data, 0, static_cast<std::size_t>(n));
    for (int a : legal) data[a] = true;
    return out;
}

// The legal actions as a Python list of ints (FortState.legal_actions' type).
py::list as_list(const std::vector<int>& legal) {
    py::list out(legal.size());
    for (std::size_t i = 0; i < legal.size(); ++i) {
        PyObject* item = PyLong_FromLong(legal[i]);
        if (!item) throw py::error_already_set();
        PyList_SET_ITEM(out.ptr(), static_cast<py::ssize_t>(i), item);  // steals the reference
    }
    return out;
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
            const std::vector<int>& legal = legal_of(s);
            py::array out = fort_bind::new_array<int32_t>(static_cast<py::ssize_t>(legal.size()));
            std::copy(legal.begin(), legal.end(), static_cast<int32_t*>(out.mutable_data()));
            return out;
        },
        py::arg("state"),
        "search.legal_actions: the legal actions, int32 array ascending (empty when terminal). "
        "Cached per position in the state (search.h cached_legal_actions).");
    m.def(
        "legal_list", [](fort::State& s) { return as_list(legal_of(s)); }, py::arg("state"),
        "FortState.legal_actions: the legal actions as a list of ints, ascending (empty when "
        "terminal); the cached list of legal_actions.");
    m.def("legal_mask", &mask_into, py::arg("state"), py::arg("out") = py::none(),
          "FortState.legal_actions_mask: bool, shape (num_distinct_actions,), into `out` if "
          "given (checked: ValueError), else into a new array; returns the array written.");
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
            legal_of(s);  // checks the state first, whatever the action
            if (overflow != 0 || a < 0 || a >= s.game->num_actions) return false;
            return fort::is_legal(s, static_cast<int>(a));  // false once the game is over
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
    m.def("search_nodes_peak", &fort::search_nodes_peak, py::arg("reset") = false,
          "The most positions one legality search of the calling thread expanded (since the "
          "last reset), against constants.SEARCH_NODE_BUDGET; reset=True starts again.");
}
