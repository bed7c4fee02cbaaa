// agents/bots/econ.py in C++: the economy model the heuristic bots (rollout_policy.h) score
// actions with. An Econ is a seat's resources, level, score and what its actions did; simulate
// runs a card's effect on it as far as it goes, and econ_value weighs the result by a style
// (weights.h HeuristicStyle, generated from econ.Style). The functions keep the Python names
// (econ.simulate -> simulate, econ._atom -> atom, ...), so the two can be read side by side.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "fort/bots/heuristic_view.h"
#include "fort/bots/weights.h"
#include "fort/constants.h"
#include "fort/game/game.h"

namespace fort::econ {

// econ.Econ
struct Econ {
    int stuff[2] = {0, 0};  // [pizza, toys]
    int pack[2] = {0, 0};
    int level = 0;
    int score = 0;
    int lookout = 0;
    int pack_cap = 1;
    int lookout_bonus = 0;
    int spare_cards = 0;
    const Game* game = nullptr;  // fort_steps
    int num_rivals = 0;
    int rival_packs[MAX_RIVALS][2] = {};
    int rival_yard_cards = 0;
    int trashed = 0;
    int recruited = 0;
    int rival_trashed = 0;
    int trash_this = 0;
    int choice = -1;
    int convert_from = -1;

    int total(int r) const { return stuff[r] + pack[r]; }

    // Econ.need: (toys, pizza, either) still missing for the next Fort step.
    std::array<int, 3> need() const {
        if (level >= MAX_FORT_LEVEL) return {0, 0, 0};
        const FortStep& step = game->fort_steps[level];
        const int toys = total(TOYS), pizza = total(PIZZA);
        const int short_t = std::max(0, step.toys - toys),
                  short_p = std::max(0, step.pizza - pizza);
        const int spare = std::max(0, toys - step.toys) + std::max(0, pizza - step.pizza);
        return {short_t, short_p, std::max(0, step.either - spare)};
    }

    // Econ.wanted
    int wanted() const {
        const auto n = need();
        if (n[0] != n[1]) return n[0] > n[1] ? TOYS : PIZZA;
        return stuff[TOYS] < stuff[PIZZA] ? TOYS : PIZZA;
    }
};

// econ.Counts
struct Counts {
    std::array<int, NUM_SUITS> suits{};
    int any_suit = 0;
};

// econ.econ_value: the worth of e to the style `st`, with made-up rule `rule` (-1: none).
double econ_value(const Econ& e, const HeuristicStyle& st, int rule);

// econ.advance: one Fort step paid from e with a card's cost modifier, if e can pay it.
bool advance(Econ& e, int modifier);

// econ.simulate: run effect `root` (-1: blank) on e in place, as far as it goes.
bool simulate(const Game& g, int32_t root, Econ& e, const Counts& counts, int resource);

// econ.simulate_play: a copy of e after using the sides in `order` (0 public, 1 private).
Econ simulate_play(const Game& g, int card, const int* order, int n_order, const Econ& e,
                   const Counts& counts, int resource = -1);

// Econ.of(view) for relative seat 0.
Econ econ_of(const heuristic::View& v);

}  // namespace fort::econ
