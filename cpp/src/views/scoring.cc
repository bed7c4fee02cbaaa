// fort_env/views/scoring.py in C++ (see include/fort/views/scoring.h): end-of-game scoring
// (rulebook p.11) and the made-up rules' points (glossary p.15).
#include "fort/views/scoring.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "fort/constants.h"

namespace fort {

namespace {

bool is_owned_zone(int64_t z) {
    for (const int64_t o : OWNED_ZONES)
        if (z == o) return true;
    return false;
}

}  // namespace

// scoring.owned_cards
std::vector<int> owned_cards(const State& s, int p) {
    std::vector<int> out;
    for (int c = 0; c < s.game->num_cards; ++c)
        if (is_owned_zone(s.zone[c]) && s.owner[c] == p) out.push_back(c);
    return out;
}

// scoring.made_up_rule_points (glossary p.15)
int made_up_rule_points(const State& s, int p) {
    int rule = -1;
    for (int i = 0; i < NUM_MADE_UP_RULES; ++i)
        if (s.rule_loc[i] == p) {
            rule = i;
            break;
        }
    if (rule < 0) return 0;
    const Game& g = *s.game;
    const std::vector<int> cards = owned_cards(s, p);
    int64_t suits[NUM_SUITS] = {};
    for (const int c : cards)
        for (int64_t k = 0; k < NUM_SUITS; ++k) suits[k] += g.suit_counts[c * NUM_SUITS + k];
    auto pl = [&](int64_t field) { return static_cast<int>(s.player(p, field)); };
    switch (rule) {
        case RULE_BIG_PLANS: {  // every Advance Fort printed on your cards (not the DIY perk)
            int total = 0;
            for (const int c : cards) total += g.printed_advances[c];
            return total;
        }
        case RULE_FRIENDSHIP_BRACELET: {
            int distinct = 0;
            for (int64_t k = 0; k < NUM_PLAIN_SUITS; ++k) distinct += suits[k] != 0;
            return distinct + (distinct == NUM_PLAIN_SUITS ? static_cast<int>(ALL_SIX_BONUS) : 0);
        }
        case RULE_PIGGY_BANK:
            return pl(P_STUFF_TOYS) + pl(P_PACK_TOYS);
        case RULE_PIZZA_PARTY:
            return pl(P_STUFF_PIZZA) + pl(P_PACK_PIZZA);
        case RULE_LONER:
            for (const int c : cards)
                if (g.is_best_friend[c]) return 0;
            return static_cast<int>(LONER_POINTS);
        case RULE_MINIMALISM:
            return pl(P_FORT_LEVEL) == MINIMALISM_LEVEL ? static_cast<int>(MINIMALISM_POINTS) : 0;
        case RULE_POPULARITY: {
            int count = 0;
            for (int c = 0; c < g.num_cards; ++c) count += s.zone[c] == Z_LOOKOUT && s.owner[c] == p;
            return count;
        }
        case RULE_PLAY_PALACE:
            return static_cast<int>(suits[1]);  // crown
        case RULE_SECRET_STASH:
            return pl(P_PACK_PIZZA) + pl(P_PACK_TOYS);
        case RULE_SLEEPOVER: {
            std::vector<size_t> counts;
            for (int q = 0; q < g.num_players; ++q) counts.push_back(owned_cards(s, q).size());
            const size_t mine = counts[p];
            const size_t best = *std::max_element(counts.begin(), counts.end());
            if (mine < best) return 0;
            return std::count(counts.begin(), counts.end(), best) == 1
                       ? static_cast<int>(SLEEPOVER_MOST)
                       : static_cast<int>(SLEEPOVER_TIED);
        }
        case RULE_SLIME_LAB:
            return static_cast<int>(suits[0]);  // book
        default:
            throw std::logic_error("made_up_rule_points: unknown rule");
    }
}

// scoring.score_breakdown
std::vector<ScoreRow> score_breakdown(const State& s) {
    const Game& g = *s.game;
    std::vector<ScoreRow> out;
    for (int p = 0; p < g.num_players; ++p) {
        ScoreRow row;
        row.track = s.player(p, P_SCORE);
        row.level = s.player(p, P_FORT_LEVEL);
        if (row.level < 0 || row.level > MAX_FORT_LEVEL)
            throw std::out_of_range("score_breakdown: Fort Level out of range");
        row.fort_level = g.level_points[row.level];
        row.made_up_rule = made_up_rule_points(s, p);
        row.macaroni = s.ctx[C_SCULPTURE] == p ? static_cast<int>(MACARONI_POINTS) : 0;
        row.total = row.track + row.fort_level + row.made_up_rule + row.macaroni;
        out.push_back(row);
    }
    return out;
}

// scoring.winners (p.11)
std::vector<int> winners(const State& s) {
    const std::vector<ScoreRow> rows = score_breakdown(s);
    std::pair<int, int> best{0, 0};
    for (size_t p = 0; p < rows.size(); ++p) {
        const std::pair<int, int> key{rows[p].total, rows[p].level};
        if (p == 0 || key > best) best = key;
    }
    std::vector<int> out;
    for (size_t p = 0; p < rows.size(); ++p)
        if (std::pair<int, int>{rows[p].total, rows[p].level} == best)
            out.push_back(static_cast<int>(p));
    return out;
}

}  // namespace fort
