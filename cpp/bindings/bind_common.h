// What every binding file of fort_env.native._core shares (owner: D): the declarations of the
// per-helper bind_* / load_game_* functions and the checks at the Python boundary.
//
// Adding a binding file: create cpp/bindings/<x>_bind.cc defining `void bind_<x>(py::module_&)`
// (and, if Game needs your tables, `void load_game_<x>(fort::Game&, GameKwargs&)`), declare it
// below and call it from core_module.cc (bind_*) or state_bind.cc (load_game_*). CMake picks up
// every cpp/bindings/*.cc and cpp/src/**/*.cc by itself.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort_bind {

namespace py = pybind11;

// The keyword tables of _core.Game(**tables) (fort_env/native/backend.py: game_tables). Each
// loader takes the entries it owns with take_*; a table nobody took is an error (TypeError).
struct GameKwargs {
    py::dict kw;
    std::set<std::string> taken;
};

// Raise fort_env.game.errors.<name>(message) from C++ (IllegalActionError, StateError, ConfigError).
[[noreturn]] inline void raise_fort_error(const char* name, const std::string& message) {
    py::object cls = py::module_::import("fort_env.game.errors").attr(name);
    py::set_error(cls, message.c_str());
    throw py::error_already_set();
}

// A new uninitialised 1-d numpy array of n entries of T (C-contiguous, writeable, owning its
// data): numpy's C API called directly, as np.empty does. py::array_t<T>(n) costs ~0.1-0.3 us
// more (it builds heap vectors for the shape and strides), which is a tenth of a hot call
// (legal_mask, observation) from Python.
template <typename T>
py::array new_array(py::ssize_t n) {
    auto& api = py::detail::npy_api::get();
    Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
    PyObject* descr = api.PyArray_DescrFromType_(py::detail::npy_format_descriptor<T>::value);
    if (!descr) throw py::error_already_set();
    // PyArray_NewFromDescr steals the reference to descr, also on failure
    PyObject* a =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, 1, dims, nullptr, nullptr, 0, nullptr);
    if (!a) throw py::error_already_set();
    return py::reinterpret_steal<py::array>(a);
}

// An int-like Python value as int64, or false if it does not fit.
inline bool as_i64(PyObject* obj, int64_t* out) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow != 0) return false;
    *out = static_cast<int64_t>(v);
    return true;
}

// A Python int or numpy integer (not a bool, not another __index__ type) as int64; false if
// it is none of those or does not fit. The one check of an int argument for every binding.
inline bool int_value(const py::handle& v, int64_t* out) {
    PyObject* o = v.ptr();
    if (PyBool_Check(o) || !PyIndex_Check(o)) return false;
    if (!PyLong_Check(o) && !py::isinstance(v, py::module_::import("numpy").attr("integer")))
        return false;
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    return as_i64(i.ptr(), out);
}

inline py::object take_object(GameKwargs& g, const char* name) {
    if (!g.kw.contains(name)) throw py::type_error(std::string("Game() needs the table ") + name);
    g.taken.insert(name);
    return g.kw[name];
}

// An int table entry (a Python int or numpy integer, not a bool) in [lo, hi].
inline int64_t take_int(GameKwargs& g, const char* name, int64_t lo, int64_t hi) {
    py::object v = take_object(g, name);
    int64_t out = 0;
    const bool is_int = !PyBool_Check(v.ptr()) && PyIndex_Check(v.ptr());
    if (is_int) {
        py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
        if (!i) throw py::error_already_set();
        if (as_i64(i.ptr(), &out) && out >= lo && out <= hi) return out;
    }
    throw py::value_error(std::string("Game table ") + name + " must be an int in [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                          py::repr(v).cast<std::string>());
}

inline bool take_bool(GameKwargs& g, const char* name) {
    py::object v = take_object(g, name);
    if (!PyBool_Check(v.ptr()) && !py::isinstance(v, py::module_::import("numpy").attr("bool_")))
        throw py::value_error(std::string("Game table ") + name + " must be a bool, got " +
                              py::repr(v).cast<std::string>());
    return v.cast<bool>();
}

// A numpy array entry of exactly dtype T and `ndim` dimensions, flattened (C order). The
// shape goes to *shape if given. Raises ValueError naming the table on any other dtype/ndim.
template <typename T>
std::vector<T> take_array(GameKwargs& g, const char* name, int ndim = 1,
                          std::vector<py::ssize_t>* shape = nullptr) {
    py::object v = take_object(g, name);
    if (!py::isinstance<py::array>(v))
        throw py::value_error(std::string("Game table ") + name + " must be a numpy array, got " +
                              py::str(py::type::of(v)).cast<std::string>());
    py::array a = v.cast<py::array>();
    if (!a.dtype().is(py::dtype::of<T>()) || a.ndim() != ndim)
        throw py::value_error(std::string("Game table ") + name + " must be a " +
                              std::to_string(ndim) + "-d " +
                              py::str(py::dtype::of<T>()).cast<std::string>() +
                              " array, got a " + std::to_string(a.ndim()) + "-d " +
                              py::str(a.dtype()).cast<std::string>() + " array");
    auto c = py::array_t<T, py::array::c_style>::ensure(a);
    if (shape) shape->assign(c.shape(), c.shape() + c.ndim());
    return std::vector<T>(c.data(), c.data() + c.size());
}

}  // namespace fort_bind

// Defined by each helper's binding file.
void bind_state(pybind11::module_& m);  // D: state_bind.cc
void bind_rules(pybind11::module_& m);  // A: rules_bind.cc
void bind_mask(pybind11::module_& m);   // B: mask_bind.cc
void bind_views(pybind11::module_& m);  // C: views_bind.cc
void bind_batch(pybind11::module_& m);  // the batched vector env (batch_bind.cc)
void bind_playout(pybind11::module_& m);  // playouts and built-in policies (playout_bind.cc)
void bind_search(pybind11::module_& m);   // IS-MCTS in C++ (search_bind.cc)
void load_game_rules(fort::Game& game, fort_bind::GameKwargs& tables);  // A
void load_game_mask(fort::Game& game, fort_bind::GameKwargs& tables);   // B
void load_game_views(fort::Game& game, fort_bind::GameKwargs& tables);  // C
