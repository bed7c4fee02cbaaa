// End-of-game scoring (rulebook p.11) and the made-up rules (glossary p.15): the C++ twin of
// fort_env/views/scoring.py. "Cards you have" are those in your deck, discard pile, hand, Yard and
// Lookout (p.15); a coin is never counted as a suit by a made-up rule.
#pragma once

#include <vector>

#include "fort/game/state.h"

namespace fort {

// One seat's row of scoring.score_breakdown (the same keys, in the same order).
struct ScoreRow {
    int track = 0;         // Victory Track
    int fort_level = 0;    // the Fort Level's points (Game::level_points)
    int made_up_rule = 0;  // made_up_rule_points
    int macaroni = 0;      // MACARONI_POINTS for the sculpture's holder
    int total = 0;         // track + fort_level + made_up_rule + macaroni (p.11)
    int level = 0;         // the Fort Level itself (the tie-break; not part of the total)
};

// scoring.owned_cards: ids of the cards seat p has in the zones made-up rules count.
std::vector<int> owned_cards(const State& s, int p);

// scoring.made_up_rule_points: points from p's made-up rule (0 without one), glossary p.15.
int made_up_rule_points(const State& s, int p);

// scoring.score_breakdown: one row per seat. Throws std::out_of_range on a Fort Level
// outside 0..MAX_FORT_LEVEL.
std::vector<ScoreRow> score_breakdown(const State& s);

// scoring.winners: most points; tie -> highest Fort Level; still tied -> shared (p.11).
std::vector<int> winners(const State& s);

}  // namespace fort
