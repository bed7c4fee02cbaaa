// The batched envs' rewards (batch.h, self_play.h): fort_env.envs.aec.final_rewards and
// fort_env.envs.single_agent.SingleAgentEnv's shaping potential, in the same float64 operations.
#pragma once

#include <cstdint>
#include <vector>

#include "fort/game/state.h"
#include "fort/views/scoring.h"

namespace fort {

// The final reward modes of fort_env.envs.aec.REWARD_MODES, in that order.
enum class RewardMode : int { WIN_LOSS = 0, RANK = 1, SCORE_MARGIN = 2 };

// `seat`'s total minus the best rival's (fort_env.envs.aec.score_margin_rewards' numerator).
int score_margin(const std::vector<ScoreRow>& rows, int seat);

// SingleAgentEnv._phi: (seat's total - best rival's total) / SCORE_TRIGGER, from `rows`
// (score_breakdown of the position).
double shaping_potential(const std::vector<ScoreRow>& rows, int seat);
double shaping_potential(const State& s, int seat);

// fort_env.envs.aec.final_rewards(state, mode)[seat] of a finished game: win_loss +1 for a
// winner, -1 else; rank 1 - 2 k / (n - 1) for place k, ties sharing the mean of their places;
// score_margin (own total - best rival total) / SCORE_TRIGGER.
double final_reward(const State& s, int seat, RewardMode mode);

// The columns of an end_scores row (batch.h, self_play.h): ScoreRow's fields in its order.
inline constexpr int SCORE_TRACK = 0, SCORE_FORT_LEVEL = 1, SCORE_MADE_UP_RULE = 2,
                     SCORE_MACARONI = 3, SCORE_TOTAL = 4, SCORE_LEVEL = 5;
inline constexpr int SCORE_FIELDS = 6;

// A finished game's score_breakdown into one env's end_scores block, int32
// (MAX_PLAYERS, SCORE_FIELDS): row p is seat p's (rows past num_players are zeros).
void write_end_scores(const std::vector<ScoreRow>& rows, int32_t* out);

}  // namespace fort
