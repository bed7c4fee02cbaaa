// agents/bots/evaluation.py in C++ (see include/fort/bots/evaluation.h).
#include "fort/bots/evaluation.h"

#include <algorithm>
#include <cmath>

#include "fort/bots/policy.h"
#include "fort/game/game.h"
#include "fort/views/scoring.h"

namespace fort {

namespace {

constexpr int STARTING_CARDS = 10;  // 8 kid cards and 2 Best Friends (rulebook p.2)

bool owned_zone(int64_t z) {
    for (const int64_t o : OWNED_ZONES)
        if (z == o) return true;
    return false;
}

// evaluation._estimate
double estimate(const State& s, int p, const EvalWeights& w) {
    const Game& g = *s.game;
    const int level = s.player(p, P_FORT_LEVEL);
    double v = s.player(p, P_SCORE) + w.level_value[std::clamp<int>(level, 0, MAX_FORT_LEVEL)];
    const int toys = s.player(p, P_STUFF_TOYS) + s.player(p, P_PACK_TOYS);
    const int pizza = s.player(p, P_STUFF_PIZZA) + s.player(p, P_PACK_PIZZA);
    int useful = 0;
    if (level < MAX_FORT_LEVEL) {
        const FortStep& step = g.fort_steps[std::max(level, 0)];
        const int use_t = std::min(toys, step.toys), use_p = std::min(pizza, step.pizza);
        useful = use_t + use_p + std::min(toys - use_t + pizza - use_p, step.either);
    }
    v += w.useful * useful + w.surplus * (toys + pizza - useful);
    if (w.pack != 0.0) v += w.pack * (s.player(p, P_PACK_PIZZA) + s.player(p, P_PACK_TOYS));
    if (w.lookout != 0.0 || w.cards != 0.0) {
        int lookout = 0, owned = 0;
        for (int c = 0; c < s.num_cards; ++c) {
            if (s.owner[c] != p) continue;
            lookout += s.zone[c] == Z_LOOKOUT;
            owned += owned_zone(s.zone[c]);
        }
        v += w.lookout * lookout + w.cards * (owned - STARTING_CARDS);
    }
    if (w.perks != 0.0) {
        int perks = 0;
        for (int i = 0; i < NUM_PERKS; ++i) perks += s.perk_loc[i] == p;
        v += w.perks * perks;
    }
    v += w.rule * made_up_rule_points(s, p);
    if (s.ctx[C_SCULPTURE] == p) v += static_cast<double>(MACARONI_POINTS);
    return v;
}

}  // namespace

std::vector<double> seat_values(const State& state, const EvalWeights& w) {
    const int n = state.num_players;
    std::vector<double> out(static_cast<size_t>(n));
    if (state.ctx[C_END_TRIGGERED]) {
        const std::vector<ScoreRow> rows = score_breakdown(state);
        for (int p = 0; p < n; ++p) out[p] = rows[p].total + 0.1 * estimate(state, p, w);
    } else {
        for (int p = 0; p < n; ++p) out[p] = estimate(state, p, w);
    }
    return out;
}

std::vector<double> evaluate_all(const State& state, const EvalWeights& w) {
    const int n = state.num_players;
    std::vector<double> out(static_cast<size_t>(n), 0.0);
    if (is_over(state)) {
        for (const int p : winners(state)) out[p] = 1.0;
        return out;
    }
    const std::vector<double> v = seat_values(state, w);
    const double scale = state.ctx[C_END_TRIGGERED] ? w.end_scale : w.scale;
    for (int p = 0; p < n; ++p) {
        double best = -1e300;
        for (int q = 0; q < n; ++q)
            if (q != p) best = std::max(best, v[q]);
        out[p] = 1.0 / (1.0 + std::exp(-(v[p] - best) / scale));
    }
    return out;
}

}  // namespace fort
