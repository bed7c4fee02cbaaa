// _core.Game, _core.State and _core.deal (owner: D): the game's facts and the state as Python
// sees them. A State's arrays are zero-copy numpy views onto its C++ vectors (each view keeps
// the State alive); to_arrays / from_arrays copy. Every value from Python is checked here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bind_common.h"
#include "fort/constants.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/deal.h"

namespace py = pybind11;
using fort_bind::as_i64;
using fort_bind::raise_fort_error;

namespace {

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

// core._check_first_player: None (draw it), or an int or numpy integer (not a bool, not a
// np.timedelta64) in [0, n); anything else is its ConfigError, in its words.
int check_first_player(const py::handle& first_player, int n) {
    if (first_player.is_none()) return -1;
    int64_t v = -1;
    const bool duration =
        py::isinstance(first_player, py::module_::import("numpy").attr("timedelta64"));
    if (duration || !fort_bind::int_value(first_player, &v) || v < 0 || v >= n)
        raise_fort_error("ConfigError", "first_player must be in [0, " + std::to_string(n) +
                                            "), got " + py::repr(first_player).cast<std::string>());
    return static_cast<int>(v);
}

// One array field of a State: where its data is, its dtype and its shape.
struct Field {
    const char* name;
    py::dtype dtype;
    void* data;
    std::vector<py::ssize_t> shape;
    size_t itemsize;
};

template <typename T>
Field field(const char* name, std::vector<T>& v, std::vector<py::ssize_t> shape) {
    return Field{name, py::dtype::of<T>(), v.data(), std::move(shape), sizeof(T)};
}

// Every array of state_arrays.ARRAYS, in its order, then "ctx".
std::vector<Field> fields(fort::State& s) {
    const py::ssize_t c = s.num_cards;
    return {
        field("zone", s.zone, {c}),
        field("owner", s.owner, {c}),
        field("pos", s.pos, {c}),
        field("mark", s.mark, {c}),
        field("coin_as", s.coin_as, {c}),
        field("players", s.players, {s.num_players, fort::NUM_PLAYER_FIELDS}),
        field("rule_loc", s.rule_loc, {fort::NUM_MADE_UP_RULES}),
        field("perk_loc", s.perk_loc, {fort::NUM_PERKS}),
        field("play_suits", s.play_suits, {fort::NUM_SUITS}),
        field("prog", s.prog, {fort::MAX_STEPS, fort::PROG_COLUMNS}),
        field("done", s.done, {fort::MAX_STEPS}),
        Field{"ctx", py::dtype::of<int64_t>(), s.ctx.data(), {fort::NUM_CTX}, sizeof(int64_t)},
    };
}

std::string shape_str(const std::vector<py::ssize_t>& shape) {
    std::string out = "(";
    for (size_t i = 0; i < shape.size(); ++i)
        out += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    return out + ")";
}

py::array view_of(const Field& f, const py::handle& base) {
    return py::array(f.dtype, f.shape, f.data, base);  // writable, zero-copy, keeps base alive
}

// A view of one array: builds only that field (array() is called once per array of each
// state Python wraps, so this is on the path of CppFortState's first use of an array).
py::array view(fort::State& s, const std::string& name, const py::handle& base) {
    const py::ssize_t c = s.num_cards;
    if (name == "zone") return view_of(field("zone", s.zone, {c}), base);
    if (name == "owner") return view_of(field("owner", s.owner, {c}), base);
    if (name == "pos") return view_of(field("pos", s.pos, {c}), base);
    if (name == "mark") return view_of(field("mark", s.mark, {c}), base);
    if (name == "coin_as") return view_of(field("coin_as", s.coin_as, {c}), base);
    if (name == "ctx")
        return view_of(Field{"ctx", py::dtype::of<int64_t>(), s.ctx.data(), {fort::NUM_CTX},
                             sizeof(int64_t)},
                       base);
    for (const Field& f : fields(s))
        if (name == f.name) return view_of(f, base);
    throw py::key_error("State has no array " + name);
}

py::dict to_arrays(fort::State& s) {
    py::dict d;
    for (const Field& f : fields(s)) {
        py::array a(f.dtype, f.shape);  // a fresh copy
        size_t n = f.itemsize;
        for (py::ssize_t k : f.shape) n *= static_cast<size_t>(k);
        if (n) std::memcpy(a.mutable_data(), f.data, n);
        d[f.name] = a;
    }
    return d;
}

fort::State from_arrays(std::shared_ptr<fort::Game> game, const py::dict& arrays) {
    fort::State s = fort::empty_state(std::move(game));
    std::vector<Field> fs = fields(s);
    for (auto item : arrays) {
        const auto key = py::str(item.first).cast<std::string>();
        bool known = false;
        for (const Field& f : fs) known = known || key == f.name;
        if (!known) throw py::value_error("from_arrays: unknown array " + py::repr(item.first).cast<std::string>());
    }
    for (const Field& f : fs) {
        if (!arrays.contains(f.name))
            throw py::value_error(std::string("from_arrays: the array ") + f.name + " is missing");
        py::object v = arrays[f.name];
        if (!py::isinstance<py::array>(v))
            throw py::value_error(std::string("from_arrays: ") + f.name + " must be a numpy array");
        py::array a = v.cast<py::array>();
        std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
        // Any integer array whose values fit is taken (another byte order, width, layout,
        // a read-only or unpickled array): compared by kind and value, not dtype identity.
        const char kind = a.dtype().kind();
        if ((kind != 'i' && kind != 'u') || shape != f.shape)
            throw py::value_error(std::string("from_arrays: ") + f.name +
                                  " must be an integer array of shape " + shape_str(f.shape) +
                                  " (values fitting " + py::str(f.dtype).cast<std::string>() +
                                  "), got " + py::str(a.dtype()).cast<std::string>() +
                                  " of shape " + shape_str(shape));
        py::module_ np = py::module_::import("numpy");
        if (!a.dtype().equal(f.dtype) && a.size() > 0) {
            const py::object info = np.attr("iinfo")(f.dtype);
            const py::object lo = a.attr("min")(), hi = a.attr("max")();
            if (lo < info.attr("min") || hi > info.attr("max"))
                throw py::value_error(std::string("from_arrays: ") + f.name + " holds values in [" +
                                      py::str(lo).cast<std::string>() + ", " +
                                      py::str(hi).cast<std::string>() + "], outside " +
                                      py::str(f.dtype).cast<std::string>() + "'s [" +
                                      py::str(info.attr("min")).cast<std::string>() + ", " +
                                      py::str(info.attr("max")).cast<std::string>() + "]");
        }
        // a C-contiguous copy of any layout in the field's dtype (native byte order), then
        // into the state
        py::array c = np.attr("ascontiguousarray")(a, f.dtype);
        const size_t n = static_cast<size_t>(c.size()) * f.itemsize;
        if (n) std::memcpy(f.data, c.data(), n);
    }
    return s;
}

std::shared_ptr<fort::Game> make_game(const py::kwargs& kwargs) {
    auto game = std::make_shared<fort::Game>();
    fort_bind::GameKwargs tables{py::dict(kwargs), {}};
    // --- phase 1 (the deal)
    game->num_players = static_cast<int>(
        fort_bind::take_int(tables, "num_players", fort::MIN_PLAYERS, fort::MAX_PLAYERS));
    game->advanced = fort_bind::take_bool(tables, "advanced");
    game->is_best_friend = fort_bind::take_array<uint8_t>(tables, "is_best_friend");
    game->card_board = fort_bind::take_array<int32_t>(tables, "card_board");
    game->seat_board = fort_bind::take_array<int32_t>(tables, "seat_board");
    game->num_cards = static_cast<int>(game->is_best_friend.size());
    // --- the others' tables (their *_bind.cc)
    load_game_rules(*game, tables);
    load_game_mask(*game, tables);
    load_game_views(*game, tables);
    for (auto item : tables.kw) {
        const auto key = py::str(item.first).cast<std::string>();
        if (!tables.taken.count(key)) throw py::type_error("Game() got an unknown table " + key);
    }
    game->validate();  // std::invalid_argument -> ValueError
    return game;
}

}  // namespace

void bind_state(py::module_& m) {
    py::class_<fort::Game, std::shared_ptr<fort::Game>>(
        m, "Game",
        "The game's facts as flat tables (fort_env.native.backend.game_tables), checked; shared "
        "read-only by every State of the game.")
        .def(py::init(&make_game),
             R"doc(Game(**tables): tables as fort_env.native.backend.game_tables(game) returns them.

Raises TypeError for a missing or unknown table, ValueError for a table of another
dtype/ndim or out of range (the message names the table).)doc")
        .def_property_readonly("num_players", [](const fort::Game& g) { return g.num_players; })
        .def_property_readonly("num_cards", [](const fort::Game& g) { return g.num_cards; })
        .def_property_readonly("advanced", [](const fort::Game& g) { return g.advanced; });

    py::class_<fort::State>(
        m, "State",
        "A game state in C++ (fort::State): the arrays of state_arrays.ARRAYS and ctx. array() "
        "and ctx_view() are zero-copy numpy views (writable; each keeps the state alive).")
        .def_property_readonly("game", [](const fort::State& s) {
            return std::const_pointer_cast<fort::Game>(s.game);
        })
        .def_property_readonly("num_cards", [](const fort::State& s) { return s.num_cards; })
        .def_property_readonly("num_players", [](const fort::State& s) { return s.num_players; })
        .def("clone", [](const fort::State& s) { return fort::State(s); },
             "An independent copy (the Game shared).")
        .def(
            "array",
            [](py::object self, const std::string& name) {
                return view(self.cast<fort::State&>(), name, self);
            },
            py::arg("name"),
            "A zero-copy numpy view of the array `name` (state_arrays.ARRAYS: its dtype and "
            "shape). Raises KeyError for another name.")
        .def(
            "ctx_view",
            [](py::object self) { return view(self.cast<fort::State&>(), "ctx", self); },
            "A zero-copy int64 numpy view of ctx, shape (NUM_CTX,).")
        .def("to_arrays", [](fort::State& s) { return to_arrays(s); },
             "Copies of every array (state_arrays.ARRAYS names) and \"ctx\", as a dict.")
        .def_static("from_arrays", &from_arrays, py::arg("game"), py::arg("arrays"),
                    "A State of `game` holding copies of `arrays` (as to_arrays gives them). "
                    "Raises ValueError naming a missing, unknown or ill-typed/shaped array.");

    m.def(
        "is_terminal", [](const fort::State& s) { return s.ctx[fort::C_STAGE] == fort::ST_OVER; },
        py::arg("state"), "FortState.is_terminal: whether the game is over (p.10).");
    m.def(
        "current_player",
        [](const fort::State& s) {
            return s.ctx[fort::C_STAGE] == fort::ST_OVER ? fort::TERMINAL_PLAYER
                                                         : s.ctx[fort::C_ACTOR];
        },
        py::arg("state"),
        "FortState.current_player: the seat to act, or TERMINAL_PLAYER (-4) once the game is "
        "over.");

    m.def(
        "deal",
        [](std::shared_ptr<fort::Game> game, const py::object& seed,
           const py::object& first_player) {
            const uint64_t s = check_seed(seed);
            const int first = check_first_player(first_player, game->num_players);
            return fort::new_state(std::move(game), s, first);
        },
        py::arg("game"), py::arg("seed"), py::arg("first_player") = py::none(),
        R"doc(The initial state of a game (fort_env.game.rules.deal.new_state) as a State.

Raises ConfigError for a bad seed or first_player (the Python engine's messages).)doc");
}
