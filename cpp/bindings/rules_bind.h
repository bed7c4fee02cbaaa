// The apply path's bindings (helper A): see rules_bind.cc.
#pragma once

#include <pybind11/pybind11.h>

#include "fort/game.h"

// Fill the apply path's block of `game` from cpp_backend.game_tables(game)'s entries
// (effect_nodes, card_effects, suit_lists, suit_counts, kind, fort_steps, level_points,
// action_starts, num_actions); throws ValueError for a missing entry or a bad shape. Call
// Game::build() afterwards (it validates every table).
void fill_apply_tables(fort::Game& game, const pybind11::dict& tables);

// _core.apply_unchecked, _core.check_end (and the provisional test hooks).
void bind_rules(pybind11::module_& m);
