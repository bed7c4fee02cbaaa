// The search's tables and state copies (fort_env/game/rules/search.py SearchTables): what the
// exact legal mask (search.cc) reads of a card set, built once per game, and the byte-for-byte
// copies its probes start from.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/base.h"
#include "fort/rules/search.h"

namespace fort {

namespace {

// cards.first_step / all_steps / single_step (the *_of functions) over the Game's effect nodes (A's tables)
Atom first_step_of(const Game& g, int node) {
    while (node >= 0 && g.nodes[node].kind != E_ATOM) node = g.nodes[node].a;
    if (node < 0) return Atom{};
    return Atom{g.nodes[node].a, g.nodes[node].b};
}

void all_steps_of(const Game& g, int node, std::vector<Atom>& out) {
    if (node < 0) return;
    const auto& n = g.nodes[node];
    if (n.kind == E_ATOM) {
        out.push_back(Atom{n.a, n.b});
    } else if (n.kind == E_THEN) {
        all_steps_of(g, n.a, out);
        all_steps_of(g, n.b, out);
    } else {
        all_steps_of(g, n.a, out);
    }
}

SingleStep single_step_of(const Game& g, int node) {
    if (node < 0) return SingleStep{};
    const auto& n = g.nodes[node];
    if (n.kind == E_ATOM) return SingleStep{n.a, n.b, static_cast<int>(MULT_CONST), 1};
    if (n.kind == E_REPEAT && g.nodes[n.a].kind == E_ATOM)
        return SingleStep{g.nodes[n.a].a, g.nodes[n.a].b, n.b, n.c};
    return SingleStep{};
}

}  // namespace

// ---------------------------------------------------------------- clones
namespace {
// One array of a State into a pooled one's: a memcpy once the sizes match (a pooled State
// holds the arrays of the game it last copied, so after its first copy they always do),
// without vector::operator='s checks; the rare resize (another game) goes through it.
template <typename T>
void copy_array(std::vector<T>& dst, const std::vector<T>& src) {
    if (dst.size() != src.size()) {
        dst = src;
        return;
    }
    if (!src.empty()) std::memcpy(dst.data(), src.data(), src.size() * sizeof(T));
}
}  // namespace

State& ScratchState::copy_of(const State& source) {
    // Every array and ctx, byte for byte (what `*state_ = source` does, for a fifth of its
    // instructions); the copy's legal cache is invalid, as a copied State's is (state.h).
    State& d = *state_;
    d.game = source.game;
    d.num_cards = source.num_cards;
    d.num_players = source.num_players;
    copy_array(d.zone, source.zone);
    copy_array(d.owner, source.owner);
    copy_array(d.pos, source.pos);
    copy_array(d.mark, source.mark);
    copy_array(d.coin_as, source.coin_as);
    copy_array(d.players, source.players);
    copy_array(d.rule_loc, source.rule_loc);
    copy_array(d.perk_loc, source.perk_loc);
    copy_array(d.play_suits, source.play_suits);
    copy_array(d.prog, source.prog);
    copy_array(d.done, source.done);
    d.ctx = source.ctx;
    d.legal_cache.valid = false;
    return d;
}

// ---------------------------------------------------------------- SearchTables
// search.SearchTables.__init__ (per card and side; the memo is not here, see search.h)
SearchTables::SearchTables(const Game& g) {
    const int n = g.num_cards;
    blank_.resize(2 * n);
    first_atom_.resize(2 * n);
    atoms_.resize(2 * n);
    first_reads_.resize(2 * n);
    changes_.resize(2 * n);
    plain_reads_.resize(2 * n);
    single_.resize(2 * n);
    counted_suits_.assign(n, 0);
    suit_list_id_.assign(n, 0);
    for (int c = 0; c < n; ++c) {
        for (int side = 0; side < 2; ++side) {
            const int e = 2 * c + side;
            const int node = g.card_effects[e];
            blank_[e] = node < 0;
            first_atom_[e] = first_step_of(g, node);
            std::vector<Atom> steps;
            all_steps_of(g, node, steps);
            std::sort(steps.begin(), steps.end(), [](const Atom& x, const Atom& y) {
                return x.verb != y.verb ? x.verb < y.verb : x.arg < y.arg;
            });
            steps.erase(std::unique(steps.begin(), steps.end(),
                                    [](const Atom& x, const Atom& y) {
                                        return x.verb == y.verb && x.arg == y.arg;
                                    }),
                        steps.end());
            if (static_cast<int>(steps.size()) > MAX_ATOMS)
                throw std::invalid_argument("card_effects: an action has more than " +
                                            std::to_string(MAX_ATOMS) + " distinct steps");
            uint32_t changes = 0;
            for (const Atom& a : steps) changes |= static_cast<uint32_t>(VERB_CHANGES[a.verb]);
            changes_[e] = changes;
            atoms_[e] = std::move(steps);
            const Atom f = first_atom_[e];
            first_reads_[e] = f.verb < 0 ? 0u : static_cast<uint32_t>(VERB_READS[f.verb]);
            const SingleStep st = single_step_of(g, node);
            single_[e] = st;
            // verbs.plain_reads
            plain_reads_[e] = st.verb < 0 ? static_cast<uint32_t>(ALL_TAGS)
                                          : static_cast<uint32_t>(VERB_READS[st.verb] |
                                                                  COUNT_READS[st.mult]);
            if (node >= 0)
                for (const auto& m : mults(g, node))
                    if (m.mult == MULT_SUIT) counted_suits_[c] |= 1u << m.arg;
        }
        // suit tuples compared as in Python (order kept: (book, glue) != (glue, book))
        suit_list_id_[c] = c;
        for (int d = 0; d < c; ++d) {
            if (g.suit_lists[2 * d] == g.suit_lists[2 * c] &&
                g.suit_lists[2 * d + 1] == g.suit_lists[2 * c + 1]) {
                suit_list_id_[c] = suit_list_id_[d];
                break;
            }
        }
    }
}

}  // namespace fort
