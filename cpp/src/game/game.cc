// fort_env/game/facts.py's facts in C++ (see include/fort/game/game.h): the checks at the boundary,
// and the derived per-card tables GameFacts.__init__ and FortGame compute (rules, A).
#include "fort/game/game.h"

#include <stdexcept>
#include <string>

namespace fort {

namespace {

[[noreturn]] void bad(const std::string& table, const std::string& problem) {
    throw std::invalid_argument("game table '" + table + "': " + problem);
}

void need_size(const std::string& table, size_t got, size_t want) {
    if (got != want)
        bad(table, "has " + std::to_string(got) + " entries, need " + std::to_string(want));
}

// The argument range of a verb (cards.VERB_ARGS: gather/spend a resource or ANY_RESOURCE,
// advance a cost modifier -1..+1, every other verb 0).
bool verb_arg_ok(int32_t verb, int32_t arg) {
    if (verb == V_GATHER || verb == V_SPEND) return arg >= 0 && arg <= ANY_RESOURCE;
    if (verb == V_ADVANCE) return arg >= -1 && arg <= 1;
    return arg == 0;
}

}  // namespace

void Game::validate() const {
    // Phase 1 and rules (A). The other blocks check their own tables where they are built:
    // the mask path's SearchTables in their constructor (search.cc), the views' in
    // build_views (observation.cc).
    validate_rules();
}

void Game::validate_rules() const {
    // --- phase 1 (the deal)
    if (num_players < MIN_PLAYERS || num_players > MAX_PLAYERS)
        throw std::invalid_argument("num_players must be 2, 3 or 4, got " +
                                    std::to_string(num_players));
    if (num_cards < 0 || num_cards > 32767)
        throw std::invalid_argument("num_cards must be in [0, 32767], got " +
                                    std::to_string(num_cards));
    if (is_best_friend.size() != static_cast<size_t>(num_cards) ||
        card_board.size() != static_cast<size_t>(num_cards))
        throw std::invalid_argument("is_best_friend and card_board need num_cards entries");
    if (seat_board.size() != static_cast<size_t>(num_players))
        throw std::invalid_argument("seat_board needs num_players entries");
    // --- end phase 1

    // --- rules (A): absent in a game made for the deal only (C++ tests); apply() refuses
    // every action of such a game (num_actions is 0)
    if (nodes.empty() && card_effects.empty() && num_actions == 0) return;
    const auto c = static_cast<size_t>(num_cards);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const EffectNode& n = nodes[i];
        const auto here = static_cast<int32_t>(i);
        const std::string where = "effect_nodes[" + std::to_string(i) + "]";
        if (n.kind == E_ATOM) {
            if (n.a < 0 || n.a >= NUM_VERBS || !verb_arg_ok(n.a, n.b) || n.c != 0)
                bad(where, "a bad step (verb, arg)");
        } else if (n.kind == E_THEN) {
            // children come first: the tree is acyclic and every index is in range
            if (n.a < 0 || n.a >= here || n.b < 0 || n.b >= here || n.c != 0)
                bad(where, "a 'then' node must name two earlier nodes");
        } else if (n.kind == E_REPEAT) {
            if (n.a < 0 || n.a >= here) bad(where, "a repeat node must name an earlier body");
            if (n.b < 0 || n.b >= NUM_MULTS) bad(where, "unknown multiplier");
            const bool arg_ok = n.b == MULT_SUIT    ? n.c >= 0 && n.c < NUM_SUITS
                                : n.b == MULT_CONST ? n.c >= 0 && n.c <= MAX_STEPS
                                                    : n.c == 0;
            if (!arg_ok) bad(where, "a bad multiplier argument");
        } else {
            bad(where, "unknown node kind " + std::to_string(n.kind));
        }
    }
    need_size("card_effects", card_effects.size(), 2 * c);
    for (int32_t root : card_effects)
        if (root < -1 || root >= static_cast<int32_t>(nodes.size()))
            bad("card_effects", "names a node out of range");
    need_size("suit_lists", suit_lists.size(), 2 * c);
    need_size("suit_counts", suit_counts.size(), c * NUM_SUITS);
    for (size_t i = 0; i < c; ++i) {
        const int8_t s0 = suit_lists[2 * i], s1 = suit_lists[2 * i + 1];
        if (s0 < 0 || s0 >= NUM_SUITS || s1 < -1 || s1 >= NUM_SUITS)
            bad("suit_lists", "card " + std::to_string(i) + " needs 1 or 2 suits");
        for (int s = 0; s < NUM_SUITS; ++s) {
            const int want = (s0 == s) + (s1 == s);
            if (suit_counts[i * NUM_SUITS + s] != want)
                bad("suit_counts", "card " + std::to_string(i) + " disagrees with suit_lists");
        }
    }
    need_size("kind", kind.size(), c);
    for (int32_t k : kind)
        if (k < 0) bad("kind", "a negative kind");
    for (const FortStep& st : fort_steps)
        if (st.toys < 0 || st.pizza < 0 || st.either < 0) bad("fort_steps", "a negative cost");
    int32_t offset = 0;
    for (int r = 0; r < NUM_RANGES; ++r) {
        if (action_start[r] != offset) bad("action_starts", "differs from actions.RANGES");
        offset += static_cast<int32_t>(RANGE_SIZE[r] < 0 ? num_cards : RANGE_SIZE[r]);
    }
    if (num_actions != offset) bad("num_actions", "differs from actions.RANGES");
    // --- end rules (A)
}

void Game::build_rules() {
    if (rules_built) return;
    validate_rules();
    // handlers.on_use_diy runs (ATOM, ADVANCE, 1): DIY's Advance Fort at one more resource
    diy_effect = static_cast<int32_t>(nodes.size());
    nodes.push_back(EffectNode{static_cast<int32_t>(E_ATOM), static_cast<int32_t>(V_ADVANCE), 1, 0});
    node_mults.assign(nodes.size(), {});
    node_atoms.assign(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i) {  // children first, so one pass
        const EffectNode& n = nodes[i];
        std::vector<Mult>& out = node_mults[i];
        if (n.kind == E_ATOM) {
            node_atoms[i] = 1;
        } else if (n.kind == E_THEN) {  // cards.multipliers: left's, then right's
            out = node_mults[n.a];
            out.insert(out.end(), node_mults[n.b].begin(), node_mults[n.b].end());
            node_atoms[i] = node_atoms[n.a] < 0 || node_atoms[n.b] < 0
                                ? -1
                                : node_atoms[n.a] + node_atoms[n.b];
        } else {  // REPEAT: its own, outermost first, then its body's
            out.push_back(Mult{n.b, n.c});
            out.insert(out.end(), node_mults[n.a].begin(), node_mults[n.a].end());
            node_atoms[i] = -1;
        }
    }
    const auto c = static_cast<size_t>(num_cards);
    has_coin.assign(c, 0);
    has_any_suit.assign(2 * c, 0);
    improvable.assign(2 * c, 0);
    for (size_t i = 0; i < c; ++i) {
        has_coin[i] = suit_lists[2 * i] == COIN || suit_lists[2 * i + 1] == COIN;
        for (int side = 0; side < 2; ++side) {
            const int32_t root = card_effects[2 * i + side];
            if (root < 0) continue;
            for (const Mult& m : node_mults[root]) {
                if (m.mult == MULT_ANY_SUIT) has_any_suit[2 * i + side] = 1;
                if (m.mult == MULT_SUIT || m.mult == MULT_ANY_SUIT) improvable[2 * i + side] = 1;
            }
        }
    }
    action_range.assign(static_cast<size_t>(num_actions), 0);
    action_index.assign(static_cast<size_t>(num_actions), 0);
    for (int r = 0; r < NUM_RANGES; ++r) {
        const int32_t end = r + 1 < NUM_RANGES ? action_start[r + 1] : num_actions;
        for (int32_t a = action_start[r]; a < end; ++a) {
            action_range[a] = static_cast<int16_t>(r);
            action_index[a] = a - action_start[r];
        }
    }
    rules_built = true;
}

}  // namespace fort
