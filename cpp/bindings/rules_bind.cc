// The apply path's bindings (helper A): the rules' Game tables (load_game_rules), and
// _core.apply_unchecked (= rules.handlers.apply) and _core.check_end (= rules.flow.check_end).
// Thin: every value from Python is checked here or by the rules before anything changes.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bind_common.h"
#include "fort/constants.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/search.h"

namespace py = pybind11;

namespace {

// A table of exactly `shape` (-1: any length), flattened.
template <typename T>
std::vector<T> take_shaped(fort_bind::GameKwargs& tables, const char* name,
                           std::vector<py::ssize_t> shape) {
    std::vector<py::ssize_t> got;
    std::vector<T> v =
        fort_bind::take_array<T>(tables, name, static_cast<int>(shape.size()), &got);
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] >= 0 && got[i] != shape[i])
            throw py::value_error(std::string("Game table ") + name + " has shape (" +
                                  [&] {
                                      std::string t;
                                      for (auto k : got) t += std::to_string(k) + ",";
                                      return t;
                                  }() +
                                  ") where dimension " + std::to_string(i) + " must be " +
                                  std::to_string(shape[i]));
    return v;
}

// _core.apply_action's results (fort_env.native.backend reads them by these values)
constexpr int APPLY_DONE = 0;
constexpr int APPLY_NOT_LEGAL = 1;
constexpr int APPLY_OUT_OF_RANGE = 2;

}  // namespace

// The rules (A) block of _core.Game(**tables): native.backend._apply_path_tables' entries.
void load_game_rules(fort::Game& game, fort_bind::GameKwargs& tables) {
    const py::ssize_t c = game.num_cards;
    const auto nodes = take_shaped<int32_t>(tables, "effect_nodes", {-1, 4});
    game.nodes.clear();
    for (size_t i = 0; i + 3 < nodes.size(); i += 4)
        game.nodes.push_back(fort::EffectNode{nodes[i], nodes[i + 1], nodes[i + 2], nodes[i + 3]});
    game.card_effects = take_shaped<int32_t>(tables, "card_effects", {c, 2});
    game.suit_lists = take_shaped<int8_t>(tables, "suit_lists", {c, 2});
    game.suit_counts = take_shaped<int16_t>(tables, "suit_counts", {c, fort::NUM_SUITS});
    game.kind = take_shaped<int32_t>(tables, "kind", {c});
    const auto steps = take_shaped<int32_t>(tables, "fort_steps", {fort::MAX_FORT_LEVEL, 3});
    for (int i = 0; i < fort::MAX_FORT_LEVEL; ++i)
        game.fort_steps[i] = fort::FortStep{steps[3 * i], steps[3 * i + 1], steps[3 * i + 2]};
    const auto points = take_shaped<int32_t>(tables, "level_points", {fort::MAX_FORT_LEVEL + 1});
    for (int i = 0; i <= fort::MAX_FORT_LEVEL; ++i) game.level_points[i] = points[i];
    const auto starts = take_shaped<int32_t>(tables, "action_starts", {fort::NUM_RANGES});
    for (int r = 0; r < fort::NUM_RANGES; ++r) game.action_start[r] = starts[r];
    game.num_actions = static_cast<int>(fort_bind::take_int(tables, "num_actions", 0, 1 << 30));
    game.build_rules();  // checks the tables (std::invalid_argument -> ValueError), derives
}

void bind_rules(py::module_& m) {
    m.def(
        "apply_unchecked",
        [](fort::State& state, const py::object& action) {
            int64_t a = -1;
            const bool is_int = !PyBool_Check(action.ptr()) && PyIndex_Check(action.ptr());
            if (is_int) {
                py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(action.ptr()));
                if (!i) throw py::error_already_set();
                if (!fort_bind::as_i64(i.ptr(), &a)) a = -1;
            }
            if (!is_int)
                throw py::type_error("action must be an int, got " +
                                     py::repr(action).cast<std::string>());
            if (a < 0 || a >= state.game->num_actions)
                throw py::index_error("action " + py::repr(action).cast<std::string>() +
                                      " outside [0, " + std::to_string(state.game->num_actions) +
                                      ")");
            fort::check_indices(state);
            fort::apply(state, static_cast<int>(a));
        },
        py::arg("state"), py::arg("action"),
        R"doc(Apply a locally legal action (fort_env.game.rules.handlers.apply), in place.

No check that the action is legal beyond what keeps memory safe: IndexError for an action
outside [0, num_actions) or a game that is over, ValueError for an action of a range the
pending decision does not offer or a state with a field the rules index by out of range (a
seat, card, suit, program row); the state is then unchanged. TypeError for a non-int. An
action of the right range that the rules do not allow gives what the Python engine gives.)doc");

    m.def(
        "apply_action",
        [](fort::State& state, const py::handle& action) {
            // FortState.apply_action (the caller turned the action into an int with
            // inputs.as_action and raises IllegalActionError on 1 or 2)
            if (PyBool_Check(action.ptr()) || !PyLong_Check(action.ptr()))
                throw py::type_error("action must be an int, got " +
                                     py::repr(action).cast<std::string>());
            int64_t a = -1;
            if (!fort_bind::as_i64(action.ptr(), &a) || a < 0 || a >= state.game->num_actions)
                return APPLY_OUT_OF_RANGE;
            // the cached legal actions: the state was checked when they were computed
            if (!fort::is_legal(state, static_cast<int>(a))) return APPLY_NOT_LEGAL;
            fort::apply(state, static_cast<int>(a));
            fort::check_end(state);  // the flag is public as soon as a trigger happens (p.10)
            state.legal_cache.valid = false;  // spares the next call a comparison
            return APPLY_DONE;
        },
        py::arg("state"), py::arg("action"),
        R"doc(FortState.apply_action on the C++ state: returns 0 when `action` (an int) was legal
and is applied (then check_end), 1 when it is not legal now (or the game is over), 2 when it
is outside [0, num_actions); the state changes only on 0. The legality test uses the
state's cached legal actions (search.h cached_legal_actions). TypeError for a non-int,
ValueError for a state with a field out of range (search.h check_search_indices).)doc");

    m.def(
        "check_end", [](fort::State& state) { fort::check_end(state); }, py::arg("state"),
        "The end triggers (fort_env.game.rules.flow.check_end): sets ctx end_triggered at 25+ "
        "points, a Fort at Level 5 or an empty Park deck (p.10).");
}
