// fort_env/views/observation.py in C++ (see include/fort/views/observation.h). One function,
// observation_tensor, writing the slices in the order the Python one does; the per-seat
// lookup tables of Python's fast path (_seat_tables) become direct index arithmetic here.
#include "fort/views/observation.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fort/constants.h"

namespace fort {

int64_t observation_size(int64_t num_cards) {
    int64_t size = 0;
    for (int64_t i = 0; i < NUM_OBS_SLICES; ++i)
        size += num_cards * OBS_SLICE_CARDS[i] + OBS_SLICE_FIXED[i];
    return size;
}

// observation._layout: the slices' offsets for this card set; views' tables checked.
void Game::build_views() {
    const auto c = static_cast<size_t>(num_cards);
    if (suit_class.size() != c)
        throw std::invalid_argument("suit_class needs num_cards entries");
    if (printed_advances.size() != c)
        throw std::invalid_argument("printed_advances needs num_cards entries");
    if (suit_counts.size() != c * NUM_SUITS)
        throw std::invalid_argument("suit_counts needs num_cards * NUM_SUITS entries");
    for (size_t i = 0; i < c; ++i) {
        const int32_t k = suit_class[i];
        // the smallest id with the same suits: itself or an earlier card of its own class
        bool ok = k >= 0 && static_cast<size_t>(k) <= i && suit_class[k] == k;
        for (int64_t j = 0; ok && j < NUM_SUITS; ++j)
            ok = suit_counts[i * NUM_SUITS + j] == suit_counts[k * NUM_SUITS + j];
        if (!ok) throw std::invalid_argument("suit_class[" + std::to_string(i) + "] is wrong");
        if (printed_advances[i] < 0)
            throw std::invalid_argument("printed_advances must be >= 0");
    }
    int64_t offset = 0;
    for (int64_t i = 0; i < NUM_OBS_SLICES; ++i) {
        obs_offset[i] = offset;
        offset += num_cards * OBS_SLICE_CARDS[i] + OBS_SLICE_FIXED[i];
    }
    obs_offset[NUM_OBS_SLICES] = offset;
}

namespace {

// Python's `t.rel[x]` (a tuple of n seats, negative indices from the end): the seat x
// relative to the observer. Out of range: IndexError in Python, std::out_of_range here.
inline int64_t rel_of(int64_t x, int64_t player, int64_t n, const char* what) {
    if (x < 0) x += n;
    if (x < 0 || x >= n) throw std::out_of_range(std::string("observation: bad seat in ") + what);
    return ((x - player) % n + n) % n;
}

// A one-hot index within a slice of `size` entries, checked.
inline int64_t in_slice(int64_t i, int64_t size, const char* what) {
    if (i < 0 || i >= size)
        throw std::out_of_range(std::string("observation: ") + what + " out of range");
    return i;
}

// observation_tensor's writes, each through set(index, value), in Python's order (the entries
// a seat's view may make non-zero; the caller clears the rest).
template <typename Set>
void write_entries(const State& s, int player, Set&& set) {
    const Game& g = *s.game;
    const int64_t c = g.num_cards;
    const int64_t n = g.num_players;
    const auto& off = g.obs_offset;
    int64_t rel[MAX_PLAYERS] = {0, 0, 0, 0};
    for (int64_t q = 0; q < n; ++q) rel[q] = ((q - player) % n + n) % n;
    for (int64_t q = 0; q < n; ++q) set(off[OBS_SEATS] + rel[q], 1.0f);  // the template

    // Cards: each zone the observer may see card by card; pile sizes by (zone, owner).
    int64_t piles[NUM_ZONES][MAX_PLAYERS + 1] = {};  // [zone][owner + 1]
    float lookout[MAX_PLAYERS - 1][NUM_SUITS] = {};  // rivals' Lookout suits, by rival - 1
    for (int64_t card = 0; card < c; ++card) {
        const int64_t z = s.zone[card];
        const int64_t o = s.owner[card];
        if (z < 0 || z >= NUM_ZONES || o < -1 || o >= n)
            throw std::out_of_range("observation: card " + std::to_string(card) +
                                    " has a bad zone or owner");
        ++piles[z][o + 1];
        const int64_t r = o < 0 ? MAX_PLAYERS : rel[o];
        const int64_t sl = OBS_CARD_SLICE[z][r];
        if (sl >= 0) set(off[sl] + OBS_CARD_BLOCK[z][r] * c + card, 1.0f);
        if (z == Z_LOOKOUT && o >= 0 && o != player) {
            const int16_t* counts = &g.suit_counts[card * NUM_SUITS];
            for (int64_t k = 0; k < NUM_SUITS; ++k) lookout[r - 1][k] += counts[k];
        }
    }
    for (int64_t q = 0; q < n; ++q)
        for (int64_t j = 0; j < 5; ++j)
            set(off[OBS_PILE_SIZES] + 5 * rel[q] + j, static_cast<float>(
                static_cast<double>(piles[OBS_PILE_ZONES[j]][q + 1]) / OBS_SIZE_SCALE));
    set(off[OBS_PARK_DECK_SIZE], static_cast<float>(static_cast<double>(piles[Z_PARK_DECK][0]) / OBS_PARK_DECK_CARDS));

    // Per seat: resources, score, turns (scaled), Fort Level (one-hot), perks, rule holders.
    for (int64_t q = 0; q < n; ++q) {
        auto scaled = [&](int64_t field) {
            return static_cast<float>(static_cast<double>(s.player(static_cast<int>(q), field)) /
                                      OBS_PLAYER_DIVISOR[field]);
        };
        for (int64_t j = 0; j < 4; ++j) set(off[OBS_RESOURCES] + 4 * rel[q] + j, scaled(j));
        set(off[OBS_SCORE] + rel[q], scaled(P_SCORE));
        set(off[OBS_TURNS] + rel[q], scaled(P_TURNS));
        const int64_t level = s.player(static_cast<int>(q), P_FORT_LEVEL);
        set(off[OBS_FORT_LEVEL] + rel[q] * (MAX_FORT_LEVEL + 1) +
            in_slice(level, MAX_FORT_LEVEL + 1, "fort_level"), 1.0f);
    }
    for (int64_t i = 0; i < NUM_PERKS; ++i) {
        const int64_t loc = s.perk_loc[i];
        if (loc == USED) {
            set(off[OBS_PERK_USED] + i, 1.0f);
        } else if (loc == IN_STACK) {
            set(off[OBS_PERK_ROW] + i, 1.0f);
        } else if (loc >= 0 && loc < n) {
            set(off[OBS_PERKS] + rel[loc] * NUM_PERKS + i, 1.0f);
        }
    }
    int64_t stack_size = 0;
    for (int64_t i = 0; i < NUM_MADE_UP_RULES; ++i) {
        const int64_t loc = s.rule_loc[i];
        stack_size += loc == IN_STACK;
        if (loc >= 0) {
            if (loc < n) set(off[OBS_HAS_MADE_UP_RULE] + rel[loc], 1.0f);
            if (loc == player) set(off[OBS_MY_MADE_UP_RULE] + i, 1.0f);
        }
    }
    // Rivals' Lookouts: suits only, summed per rival.
    for (int64_t r = 0; r < MAX_PLAYERS - 1; ++r)
        for (int64_t k = 0; k < NUM_SUITS; ++k)
            set(off[OBS_RIVAL_LOOKOUT_SUITS] + r * NUM_SUITS + k, lookout[r][k]);

    const auto& ctx = s.ctx;
    const int64_t kind = ctx[C_DECISION];
    set(off[OBS_DECISION] + in_slice(kind, NUM_DECISION_KINDS, "decision"), 1.0f);
    if (kind != K_TERMINAL) set(off[OBS_ACTOR] + rel_of(ctx[C_ACTOR], player, n, "actor"), 1.0f);
    set(off[OBS_LEADER] + rel_of(ctx[C_LEADER], player, n, "leader"), 1.0f);
    set(off[OBS_FIRST_PLAYER] + rel_of(ctx[C_FIRST_PLAYER], player, n, "first_player"), 1.0f);
    if (ctx[C_PLAYED_CARD] >= 0)
        set(off[OBS_PLAYED_CARD] + in_slice(ctx[C_PLAYED_CARD], c, "played_card"), 1.0f);
    if (ctx[C_MODE] >= 0) set(off[OBS_MODE] + in_slice(ctx[C_MODE], NUM_MODES, "mode"), 1.0f);
    if (ctx[C_STAGE] == OBS_RUNNING_STAGES[0] || ctx[C_STAGE] == OBS_RUNNING_STAGES[1]) {
        set(off[OBS_RUNNING_ACTION] + in_slice(ctx[C_PROGRAM_SIDE], 2, "program_side"), 1.0f);
        set(off[OBS_RUNNING_ACTION] + 2, static_cast<float>(ctx[C_PROGRAM_FULL]));
    }
    for (int64_t k = 0; k < NUM_SUITS; ++k)
        set(off[OBS_PLAY_SUITS] + k, static_cast<float>(s.play_suits[k]));
    if (ctx[C_ANY_SUIT_PUBLIC] >= 0)
        set(off[OBS_ANY_SUIT] + in_slice(ctx[C_ANY_SUIT_PUBLIC], NUM_SUITS, "any_suit"), 1.0f);
    if (ctx[C_ANY_SUIT_PRIVATE] >= 0)
        set(off[OBS_ANY_SUIT] + NUM_SUITS +
            in_slice(ctx[C_ANY_SUIT_PRIVATE], NUM_SUITS, "any_suit"), 1.0f);
    if (ctx[C_RESOURCE_CHOICE] >= 0)
        set(off[OBS_RESOURCE_CHOICE] + in_slice(ctx[C_RESOURCE_CHOICE], 2, "resource"), 1.0f);
    if (ctx[C_LEADER_RESOURCE] >= 0)
        set(off[OBS_RESOURCE_CHOICE] + 2 + in_slice(ctx[C_LEADER_RESOURCE], 2, "resource"), 1.0f);
    if (ctx[C_CONVERT_FROM] >= 0)
        set(off[OBS_CONVERT_FROM] + in_slice(ctx[C_CONVERT_FROM], 2, "convert_from"), 1.0f);
    // numpy stores a Python int into float32 through a double
    set(off[OBS_COST_TO_PAY], static_cast<float>(static_cast<double>(ctx[C_PAY_TOYS])));
    set(off[OBS_COST_TO_PAY] + 1, static_cast<float>(static_cast<double>(ctx[C_PAY_PIZZA])));
    set(off[OBS_COST_TO_PAY] + 2, static_cast<float>(static_cast<double>(ctx[C_PAY_EITHER])));
    if (kind == K_PICK_RULE && ctx[C_ACTOR] == player)
        for (int64_t i = 0; i < NUM_MADE_UP_RULES; ++i)
            if (s.rule_loc[i] == IN_STACK) set(off[OBS_RULE_STACK] + i, 1.0f);
    const int64_t sculpture = ctx[C_SCULPTURE];
    set(off[OBS_SCULPTURE] +
        (sculpture < 0 ? MAX_PLAYERS : rel_of(sculpture, player, n, "sculpture")), 1.0f);
    set(off[OBS_RULE_STACK_SIZE], static_cast<float>(stack_size));
    set(off[OBS_END_TRIGGERED], static_cast<float>(ctx[C_END_TRIGGERED]));
}

}  // namespace

void observation_tensor(const State& s, int player, float* buf) {
    std::fill(buf, buf + s.game->obs_offset[NUM_OBS_SLICES], 0.0f);
    write_entries(s, player, [buf](int64_t i, float v) { buf[i] = v; });
}

void observation_update(const State& s, int player, float* buf, std::vector<int32_t>& written) {
    for (const int32_t i : written) buf[i] = 0.0f;
    written.clear();
    write_entries(s, player, [buf, &written](int64_t i, float v) {
        // a zero written over the cleared row leaves it as it was: only the others are listed
        if (v != 0.0f) written.push_back(static_cast<int32_t>(i));
        buf[i] = v;
    });
}

void observation_record(const State& s, int player, float* buf, std::vector<int32_t>& written) {
    std::fill(buf, buf + s.game->obs_offset[NUM_OBS_SLICES], 0.0f);
    written.clear();
    observation_update(s, player, buf, written);
}

int64_t max_active_features(const Game& g) {
    int64_t fixed = 0;
    for (int64_t i = 0; i < NUM_OBS_SLICES; ++i) fixed += OBS_SLICE_FIXED[i];
    return fixed + g.num_cards + 1;  // + one entry per card, + the played card
}

int64_t active_features(const float* obs, int64_t size, int32_t* index, float* value,
                        int64_t width) {
    int64_t k = 0;
    for (int64_t j = 0; j < size; ++j) {
        if (obs[j] == 0.0f) continue;
        if (k == width)
            throw std::logic_error("observation: more than " + std::to_string(width) +
                                   " active features");
        index[k] = static_cast<int32_t>(j);
        value[k] = obs[j];
        ++k;
    }
    std::fill(index + k, index + width, 0);
    std::fill(value + k, value + width, 0.0f);
    return k;
}

int64_t table_observation_size(const Game& g) {
    int64_t priv = 0;
    for (const int64_t slice : TABLE_PRIVATE_SLICES)
        priv += g.obs_offset[static_cast<size_t>(slice) + 1] - g.obs_offset[static_cast<size_t>(slice)];
    return g.obs_offset[NUM_OBS_SLICES] + (g.num_players - 1) * priv;
}

void table_from_observations(const Game& g, const float* obs, int player, float* out) {
    const int n = g.num_players;
    const size_t d = static_cast<size_t>(g.obs_offset[NUM_OBS_SLICES]);
    out = std::copy(obs + d * static_cast<size_t>(player), obs + d * static_cast<size_t>(player + 1), out);
    for (int k = 1; k < n; ++k) {
        const float* row = obs + d * static_cast<size_t>((player + k) % n);
        for (const int64_t slice : TABLE_PRIVATE_SLICES)
            out = std::copy(row + g.obs_offset[static_cast<size_t>(slice)],
                            row + g.obs_offset[static_cast<size_t>(slice) + 1], out);
    }
}

void table_observation_tensor(const State& s, int player, float* out, std::vector<float>& scratch) {
    const Game& g = *s.game;
    const size_t d = static_cast<size_t>(g.obs_offset[NUM_OBS_SLICES]);
    scratch.resize(d * static_cast<size_t>(g.num_players));
    for (int p = 0; p < g.num_players; ++p) observation_tensor(s, p, scratch.data() + d * static_cast<size_t>(p));
    table_from_observations(g, scratch.data(), player, out);
}

}  // namespace fort
