// The apply path's bindings (helper A): _core.apply_unchecked (= rules.handlers.apply),
// _core.check_end (= rules.flow.check_end). Thin: every value from Python is checked here,
// then handed to the rules in src/.
#include "rules_bind.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fort/constants.h"
#include "fort/deal.h"
#include "fort/flow.h"
#include "fort/handlers.h"
#include "fort/state.h"

namespace py = pybind11;

namespace {

template <typename T>
using Arr = py::array_t<T, py::array::c_style | py::array::forcecast>;

// tables[name] as a C-contiguous array of T with the given shape (-1: any length).
template <typename T>
Arr<T> table(const py::dict& tables, const char* name, std::vector<py::ssize_t> shape) {
    if (!tables.contains(name))
        throw py::value_error(std::string("game tables: missing '") + name + "'");
    Arr<T> a = Arr<T>::ensure(tables[name]);
    if (!a) throw py::value_error(std::string("game tables: '") + name + "' is not an array");
    bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
    for (size_t i = 0; ok && i < shape.size(); ++i)
        ok = shape[i] < 0 || a.shape(static_cast<py::ssize_t>(i)) == shape[i];
    if (!ok) throw py::value_error(std::string("game tables: '") + name + "' has a bad shape");
    return a;
}

}  // namespace

void fill_apply_tables(fort::Game& game, const py::dict& tables) {
    const py::ssize_t c = game.num_cards;
    const auto nodes = table<int32_t>(tables, "effect_nodes", {-1, 4});
    game.nodes.resize(static_cast<size_t>(nodes.shape(0)));
    for (py::ssize_t i = 0; i < nodes.shape(0); ++i)
        game.nodes[i] = fort::EffectNode{nodes.at(i, 0), nodes.at(i, 1), nodes.at(i, 2),
                                         nodes.at(i, 3)};
    const auto effects = table<int32_t>(tables, "card_effects", {c, 2});
    game.card_effects.assign(effects.data(), effects.data() + effects.size());
    const auto suits = table<int8_t>(tables, "suit_lists", {c, 2});
    game.suit_lists.assign(suits.data(), suits.data() + suits.size());
    const auto counts = table<int16_t>(tables, "suit_counts", {c, fort::NUM_SUITS});
    game.suit_counts.assign(counts.data(), counts.data() + counts.size());
    const auto kind = table<int32_t>(tables, "kind", {c});
    game.kind.assign(kind.data(), kind.data() + kind.size());
    const auto steps = table<int32_t>(tables, "fort_steps", {fort::MAX_FORT_LEVEL, 3});
    for (int i = 0; i < fort::MAX_FORT_LEVEL; ++i)
        game.fort_steps[i] = fort::FortStep{steps.at(i, 0), steps.at(i, 1), steps.at(i, 2)};
    const auto points = table<int32_t>(tables, "level_points", {fort::MAX_FORT_LEVEL + 1});
    std::memcpy(game.level_points.data(), points.data(), sizeof(int32_t) * points.size());
    const auto starts = table<int32_t>(tables, "action_starts", {fort::NUM_RANGES});
    std::memcpy(game.action_start.data(), starts.data(), sizeof(int32_t) * starts.size());
    if (!tables.contains("num_actions"))
        throw py::value_error("game tables: missing 'num_actions'");
    game.num_actions = tables["num_actions"].cast<int>();
}

namespace {

// --- provisional: until wtD's _core.State lands, a state travels as a dict of arrays ------
std::shared_ptr<const fort::Game> game_from(const py::dict& tables) {
    auto g = std::make_shared<fort::Game>();
    g->num_players = tables["num_players"].cast<int>();
    g->advanced = tables["advanced"].cast<bool>();
    const auto bf = table<uint8_t>(tables, "is_best_friend", {-1});
    g->is_best_friend.assign(bf.data(), bf.data() + bf.size());
    g->num_cards = static_cast<int>(bf.size());
    const auto cb = table<int32_t>(tables, "card_board", {g->num_cards});
    g->card_board.assign(cb.data(), cb.data() + cb.size());
    const auto sb = table<int32_t>(tables, "seat_board", {g->num_players});
    g->seat_board.assign(sb.data(), sb.data() + sb.size());
    fill_apply_tables(*g, tables);
    g->build();
    return g;
}

template <typename T>
void load(std::vector<T>& dst, const py::dict& arrays, const char* name) {
    const auto a = table<T>(arrays, name, {-1});
    if (static_cast<size_t>(a.size()) != dst.size())
        throw py::value_error(std::string("state: '") + name + "' has a bad size");
    std::memcpy(dst.data(), a.data(), sizeof(T) * dst.size());
}

template <typename T>
py::array_t<T> out(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
    py::array_t<T> a(shape);
    std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
    return a;
}

}  // namespace

void bind_rules(py::module_& m) {
    m.def(
        "_apply_arrays",
        [](const py::dict& tables, const py::dict& arrays, const std::vector<int>& actions,
           bool end_check) {
            auto game = game_from(tables);
            fort::State s;
            s.game = game;
            s.num_cards = game->num_cards;
            s.num_players = game->num_players;
            const auto c = static_cast<size_t>(game->num_cards);
            s.zone.resize(c);
            s.owner.resize(c);
            s.pos.resize(c);
            s.mark.resize(c);
            s.coin_as.resize(c);
            s.players.resize(static_cast<size_t>(game->num_players * fort::NUM_PLAYER_FIELDS));
            s.rule_loc.resize(fort::NUM_MADE_UP_RULES);
            s.perk_loc.resize(fort::NUM_PERKS);
            s.play_suits.resize(fort::NUM_SUITS);
            s.prog.resize(fort::MAX_STEPS * fort::PROG_COLUMNS);
            s.done.resize(fort::MAX_STEPS);
            load(s.zone, arrays, "zone");
            load(s.owner, arrays, "owner");
            load(s.pos, arrays, "pos");
            load(s.mark, arrays, "mark");
            load(s.coin_as, arrays, "coin_as");
            {
                const auto a = table<int16_t>(arrays, "players", {game->num_players,
                                                                  fort::NUM_PLAYER_FIELDS});
                std::memcpy(s.players.data(), a.data(), sizeof(int16_t) * s.players.size());
                const auto p = table<int16_t>(arrays, "prog", {fort::MAX_STEPS,
                                                               fort::PROG_COLUMNS});
                std::memcpy(s.prog.data(), p.data(), sizeof(int16_t) * s.prog.size());
            }
            load(s.rule_loc, arrays, "rule_loc");
            load(s.perk_loc, arrays, "perk_loc");
            load(s.play_suits, arrays, "play_suits");
            load(s.done, arrays, "done");
            {
                const auto ctx = table<int64_t>(arrays, "ctx", {fort::NUM_CTX});
                std::memcpy(s.ctx.data(), ctx.data(), sizeof(int64_t) * fort::NUM_CTX);
            }
            for (int a : actions) {
                fort::apply(s, a);
                if (end_check) fort::check_end(s);
            }
            py::dict d;
            const auto cc = static_cast<py::ssize_t>(c);
            d["zone"] = out(s.zone, {cc});
            d["owner"] = out(s.owner, {cc});
            d["pos"] = out(s.pos, {cc});
            d["mark"] = out(s.mark, {cc});
            d["coin_as"] = out(s.coin_as, {cc});
            d["players"] = out(s.players, {game->num_players, fort::NUM_PLAYER_FIELDS});
            d["rule_loc"] = out(s.rule_loc, {fort::NUM_MADE_UP_RULES});
            d["perk_loc"] = out(s.perk_loc, {fort::NUM_PERKS});
            d["play_suits"] = out(s.play_suits, {fort::NUM_SUITS});
            d["prog"] = out(s.prog, {fort::MAX_STEPS, fort::PROG_COLUMNS});
            d["done"] = out(s.done, {fort::MAX_STEPS});
            d["ctx"] = out(std::vector<int64_t>(s.ctx.begin(), s.ctx.end()), {fort::NUM_CTX});
            return d;
        },
        py::arg("tables"), py::arg("arrays"), py::arg("actions"), py::arg("end_check") = true,
        "Provisional (until _core.State): apply actions to a state given as arrays.");
}
