// The batched envs' rewards (rewards.h).
#include "fort/envs/rewards.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "fort/constants.h"

namespace fort {

namespace {
constexpr double SCORE_MARGIN_SCALE = static_cast<double>(SCORE_TRIGGER);  // aec.py's
}  // namespace

int score_margin(const std::vector<ScoreRow>& rows, int seat) {
    int best = std::numeric_limits<int>::min();
    for (size_t p = 0; p < rows.size(); ++p)
        if (static_cast<int>(p) != seat) best = std::max(best, rows[p].total);
    return rows[static_cast<size_t>(seat)].total - best;
}

double shaping_potential(const std::vector<ScoreRow>& rows, int seat) {
    return score_margin(rows, seat) / SCORE_MARGIN_SCALE;
}

double shaping_potential(const State& s, int seat) {
    return shaping_potential(score_breakdown(s), seat);
}

double final_reward(const State& s, int seat, RewardMode mode) {
    switch (mode) {
        case RewardMode::WIN_LOSS: {  // FortState.returns
            const std::vector<int> w = winners(s);
            return std::find(w.begin(), w.end(), seat) != w.end() ? 1.0 : -1.0;
        }
        case RewardMode::RANK: {  // aec.rank_rewards over (total, Fort Level)
            const std::vector<ScoreRow> rows = score_breakdown(s);
            const int n = static_cast<int>(rows.size());
            const auto key = [&](int p) {
                return std::pair<int, int>{rows[static_cast<size_t>(p)].total,
                                           s.player(p, P_FORT_LEVEL)};
            };
            int better = 0, tied = 0;
            for (int p = 0; p < n; ++p) {
                better += key(p) > key(seat);
                tied += key(p) == key(seat);
            }
            double sum = 0.0;  // np.mean: the places' values summed in order, then divided
            for (int place = better; place < better + tied; ++place)
                sum += 1.0 - 2.0 * place / (n - 1);
            return sum / tied;
        }
        case RewardMode::SCORE_MARGIN:
            return score_margin(score_breakdown(s), seat) / SCORE_MARGIN_SCALE;
    }
    throw std::logic_error("unknown reward mode");
}

void write_end_scores(const std::vector<ScoreRow>& rows, int32_t* out) {
    for (int p = 0; p < MAX_PLAYERS; ++p) {
        int32_t* r = out + static_cast<size_t>(p) * SCORE_FIELDS;
        if (p >= static_cast<int>(rows.size())) {
            for (int k = 0; k < SCORE_FIELDS; ++k) r[k] = 0;
            continue;
        }
        const ScoreRow& row = rows[static_cast<size_t>(p)];
        r[SCORE_TRACK] = row.track;
        r[SCORE_FORT_LEVEL] = row.fort_level;
        r[SCORE_MADE_UP_RULE] = row.made_up_rule;
        r[SCORE_MACARONI] = row.macaroni;
        r[SCORE_TOTAL] = row.total;
        r[SCORE_LEVEL] = row.level;
    }
}

}  // namespace fort
