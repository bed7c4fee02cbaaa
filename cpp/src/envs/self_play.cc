// The self-play batch (self_play.h): B games, every LEARNER seat a sample; what it shares with
// the batched vector env is env_batch.cc.
#include "fort/envs/self_play.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fort/constants.h"
#include "fort/envs/rewards.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace fort {

struct SelfPlay::SeatsEnv : EnvBatch::Env {
    std::vector<int> codes_next;    // per seat: for new games (set_seats)
    std::vector<double> potential;  // per seat: phi at the last stop (shaping only)
};

// Every Env of a SelfPlay is a SeatsEnv (the constructor adds them).
SelfPlay::SeatsEnv& SelfPlay::seats(Env& e) { return static_cast<SeatsEnv&>(e); }

namespace {

// The hooks get the SelfPlayOut that reset/step handed to EnvBatch.
const SelfPlayOut& self_play_out(const EnvOut& out) {
    return static_cast<const SelfPlayOut&>(out);
}

}  // namespace

SelfPlay::SelfPlay(std::shared_ptr<const Game> game, const SelfPlayOptions& options,
                   std::shared_ptr<const SeatPolicies> policies)
    : EnvBatch("SelfPlay", "no LEARNER or EXTERNAL seat got a decision", std::move(game),
               options, std::move(policies)) {
    const size_t n = static_cast<size_t>(num_players());
    for (int i = 0; i < options.num_envs; ++i) {
        auto e = std::make_unique<SeatsEnv>();
        e->codes_next.assign(n, LEARNER);
        e->codes = e->codes_next;
        e->potential.assign(n, 0.0);
        add_env(std::move(e));
    }
}

void SelfPlay::set_seats(const int64_t* ids, int count, const int32_t* codes) {
    auto lock = claim();
    const int n = num_players();
    check_codes(ids, count, codes, n, true, true);
    for (int k = 0; k < count; ++k)
        seats(env(static_cast<int>(ids[k]))).codes_next.assign(codes + k * n, codes + (k + 1) * n);
}

void SelfPlay::observe(const int64_t* ids, int count, float* obs) const {
    auto lock = claim();
    check_ids(ids, count, true);
    const int n = num_players();
    for (int k = 0; k < count; ++k) {
        const State& s = env(static_cast<int>(ids[k])).state;
        for (int p = 0; p < n; ++p) observation_tensor(s, p, obs_row(obs, k * n + p));
    }
}

std::vector<int> SelfPlay::seat_codes(int i) const {
    auto lock = claim();
    return env_at(i, true).codes;
}

// --------------------------------------------------------------------------- the hooks
void SelfPlay::seat_game(Env& e, uint64_t /*k*/, bool /*again*/) {
    e.codes = seats(e).codes_next;  // unchanged within a call: a game dealt again keeps them
}

// A stop credits every seat's shaping since the last stop of this game; the first stop of a
// game sets the baseline (SingleAgentEnv's first step).
void SelfPlay::on_stop(Env& env, int i, const EnvOut& out, int /*code*/) {
    SeatsEnv& e = seats(env);
    const double shaping = base_options().shaping;
    if (shaping != 0.0) {
        const int n = num_players();
        float* rewards = self_play_out(out).rewards + static_cast<size_t>(i) * n;
        const std::vector<ScoreRow> rows = score_breakdown(e.state);
        for (int p = 0; p < n; ++p) {
            const double phi = shaping_potential(rows, p);
            double& last = e.potential[static_cast<size_t>(p)];
            if (e.counted) rewards[p] = static_cast<float>(rewards[p] + shaping * (phi - last));
            last = phi;
        }
    }
    e.counted = true;
}

// Every seat's final reward (and the shaping since the last stop) is credited.
void SelfPlay::on_game_over(Env& env, int i, const EnvOut& out) {
    SeatsEnv& e = seats(env);
    const SelfPlayOut& o = self_play_out(out);
    const State& s = e.state;
    const int n = num_players();
    const double shaping = base_options().shaping;
    float* rewards = o.rewards + static_cast<size_t>(i) * n;
    const std::vector<ScoreRow> rows = score_breakdown(s);
    for (int p = 0; p < n; ++p) {
        double r = final_reward(s, p, base_options().reward);
        if (shaping != 0.0)
            r += shaping * (shaping_potential(rows, p) - e.potential[static_cast<size_t>(p)]);
        rewards[p] = static_cast<float>(rewards[p] + r);
    }
    o.done[i] = true;
    int64_t* info = end_info_row(i, o, SP_END_FIELDS);
    info[SP_END_GAME_SEED] = static_cast<int64_t>(e.game_seed);
    info[SP_END_WINNERS] = winner_bits(s);
    write_end_scores(rows, end_scores_row(i, o));
}

void SelfPlay::write_seats(const Env& e, int i, const EnvOut& out) {
    const size_t n = static_cast<size_t>(num_players());
    int8_t* row = self_play_out(out).codes + static_cast<size_t>(i) * n;
    for (size_t p = 0; p < n; ++p) row[p] = static_cast<int8_t>(e.codes[p]);
}

void SelfPlay::clear_row(int i, const EnvOut& out) {
    const size_t n = static_cast<size_t>(num_players());
    std::fill_n(self_play_out(out).rewards + static_cast<size_t>(i) * n, n, 0.0f);
    out.done[i] = false;
}

bool SelfPlay::before_action(Env& /*e*/, int i, int64_t /*a*/, const EnvOut& out) {
    clear_row(i, out);
    return true;
}

bool SelfPlay::must_be_legal(const Env& /*e*/) const { return true; }

}  // namespace fort
