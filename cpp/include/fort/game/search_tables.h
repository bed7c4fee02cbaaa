// The exact-mask search's per-game tables (search.SearchTables of
// fort_env/game/rules/search.py): facts derived from the card programs once per game, held by
// the Game (game.h: Game::search_tables) and read by the search (rules/search.h) and the
// witness probes (rules/witness.h).
//
// The type lives here, in the game layer, so that game.h can hold the tables by value without
// including the rules (docs/cpp.md "Layout": game sits below rules). What fills them is rules:
// the constructor from a Game is defined in src/rules/search.cc (as Game::build_views is in
// src/views/observation.cc), and the binding builds them once the rules' tables are loaded
// (bindings/mask_bind.cc: load_game_mask).
#pragma once

#include <cstdint>
#include <vector>

namespace fort {

struct Game;

// One step of an action: (verb, arg).
struct Atom {
    int verb = -1;
    int arg = 0;
};

// cards.single_step: (verb, arg, mult, mult_arg) of an action that is one step, repeated or
// not (MULT_CONST, 1 when not); verb -1 for a blank action or any other shape.
struct SingleStep {
    int verb = -1;
    int arg = 0;
    int mult = 0;
    int mult_arg = 0;
};

// search.SearchTables: per-game tables of the search, from the card programs (Game's nodes),
// indexed by card and side (PUBLIC 0, PRIVATE 1). Built once with the Game (src/rules/search.cc).
struct SearchTables {
    static constexpr int MAX_ATOMS = 64;  // distinct steps of one action (checked)

    SearchTables() = default;
    explicit SearchTables(const Game& game);

    bool blank(int card, int side) const { return blank_[2 * card + side] != 0; }
    // the action's first step (verb -1: blank)
    Atom first_atom(int card, int side) const { return first_atom_[2 * card + side]; }
    // its distinct steps, sorted
    const std::vector<Atom>& atoms(int card, int side) const { return atoms_[2 * card + side]; }
    // tag bitmasks (constants TAG_*): what the first step's status reads, what any step may
    // change, what a one-step action (repeated or not) reads, its count included
    uint32_t first_reads(int card, int side) const { return first_reads_[2 * card + side]; }
    uint32_t changes(int card, int side) const { return changes_[2 * card + side]; }
    uint32_t plain_reads(int card, int side) const { return plain_reads_[2 * card + side]; }
    SingleStep single_step(int card, int side) const { return single_[2 * card + side]; }
    // GameFacts.counted_suits as a bitmask (bit s: a fixed "x suit" of either action counts s)
    uint32_t counted_suits(int card) const { return counted_suits_[card]; }
    // index of the card's suit tuple among the distinct ones (equivalence keys)
    int suit_list_id(int card) const { return suit_list_id_[card]; }

    std::vector<uint8_t> blank_;
    std::vector<Atom> first_atom_;
    std::vector<std::vector<Atom>> atoms_;
    std::vector<uint32_t> first_reads_, changes_, plain_reads_;
    std::vector<SingleStep> single_;
    std::vector<uint32_t> counted_suits_;
    std::vector<int32_t> suit_list_id_;
};

}  // namespace fort
