// The batched vector env (batch.h): B SingleAgentEnv games stepped in one call; what it shares
// with the self-play batch is env_batch.cc.
#include "fort/envs/batch.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fort/constants.h"
#include "fort/envs/rewards.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace fort {

struct Batch::LearnerEnv : EnvBatch::Env {
    int seat = 0;                  // the learner's seat in this game
    std::vector<int> rivals_next;  // per rival (seat order, the learner skipped): for new games
    std::vector<int> rivals_now;   // ... of this game
    bool has_potential = false;    // the shaping's phi at the learner's last decision is known
    double potential = 0.0;
};

// Every Env of a Batch is a LearnerEnv (the constructor adds them).
Batch::LearnerEnv& Batch::learner(Env& e) { return static_cast<LearnerEnv&>(e); }
const Batch::LearnerEnv& Batch::learner(const Env& e) { return static_cast<const LearnerEnv&>(e); }

namespace {

// The hooks get the BatchOut that reset/step handed to EnvBatch.
const BatchOut& batch_out(const EnvOut& out) { return static_cast<const BatchOut&>(out); }

}  // namespace

Batch::Batch(std::shared_ptr<const Game> game, const BatchOptions& options,
             std::shared_ptr<const SeatPolicies> policies)
    : EnvBatch("Batch", "the learner never got a decision", std::move(game), options,
               std::move(policies)),
      options_(options) {
    const int n = num_players();
    check_option(options.seat >= -1 && options.seat < n,
                 "seat must be -1 (rotating) or in [0, " + std::to_string(n) + "), got " +
                     std::to_string(options.seat));
    check_option(std::isfinite(options.illegal_reward), "illegal_reward must be finite");
    for (int i = 0; i < options.num_envs; ++i) {
        auto e = std::make_unique<LearnerEnv>();
        e->rivals_next.assign(static_cast<size_t>(n - 1), EXTERNAL);
        e->rivals_now = e->rivals_next;
        e->codes.assign(static_cast<size_t>(n), EXTERNAL);
        add_env(std::move(e));
    }
}

void Batch::set_opponents(const int64_t* ids, int count, const int32_t* codes) {
    auto lock = claim();
    const int rivals = num_players() - 1;
    check_codes(ids, count, codes, rivals, false, false);
    for (int k = 0; k < count; ++k)
        learner(env(static_cast<int>(ids[k])))
            .rivals_next.assign(codes + k * rivals, codes + (k + 1) * rivals);
}

std::vector<int> Batch::seat_codes(int i) const {
    auto lock = claim();
    return env_at(i, false).codes;
}

// --------------------------------------------------------------------------- the hooks
void Batch::seat_game(Env& env, uint64_t k, bool again) {
    LearnerEnv& e = learner(env);
    const int n = num_players();
    if (!again) {  // a game dealt again (SingleAgentEnv.reset's loop) keeps both
        e.seat = options_.seat >= 0 ? options_.seat
                                    : static_cast<int>((e.base_seed % n + k % n) % n);
        e.rivals_now = e.rivals_next;
    }
    for (int p = 0; p < n; ++p)
        e.codes[static_cast<size_t>(p)] =
            p == e.seat ? LEARNER : e.rivals_now[static_cast<size_t>(p < e.seat ? p : p - 1)];
    e.has_potential = false;
    e.potential = 0.0;
}

void Batch::on_stop(Env& env, int i, const EnvOut& out, int code) {
    LearnerEnv& e = learner(env);
    if (code != LEARNER || options_.shaping == 0.0) return;
    // SingleAgentEnv.step's shaping term
    const double phi = shaping_potential(e.state, e.seat);
    if (e.has_potential) {
        double r = 0.0;
        r += options_.shaping * (phi - e.potential);
        batch_out(out).reward[i] = static_cast<float>(r);
    }
    e.potential = phi;
    e.has_potential = true;
}

void Batch::on_game_over(Env& e, int i, const EnvOut& out) {
    end_episode(learner(e), i, batch_out(out), false);
}

void Batch::write_seats(const Env& e, int i, const EnvOut& out) {
    batch_out(out).seat[i] = static_cast<int8_t>(learner(e).seat);
}

void Batch::clear_row(int i, const EnvOut& out) {
    const BatchOut& o = batch_out(out);
    o.reward[i] = 0.0f;
    o.done[i] = false;
    o.illegal[i] = false;
}

bool Batch::before_action(Env& env, int i, int64_t a, const EnvOut& out) {
    LearnerEnv& e = learner(env);
    if (e.actor != e.seat) return true;
    clear_row(i, out);  // the learner's action opens a new transition
    if (a < 0 || a >= num_actions() || !e.mask[static_cast<size_t>(a)]) {
        end_episode(e, i, batch_out(out), true);  // SingleAgentEnv: nothing applied, episode over
        deal(e, false);
        return false;
    }
    e.counted = true;  // the learner acted: this game is its episode
    return true;
}

bool Batch::must_be_legal(const Env& e) const { return e.actor != learner(e).seat; }

void Batch::end_episode(LearnerEnv& e, int i, const BatchOut& out, bool illegal) {
    const State& s = e.state;
    double r = 0.0;
    int64_t winners = 0;
    if (illegal) {
        r = options_.illegal_reward;
        write_end_scores({}, end_scores_row(i, out));  // the game did not end: no scores
    } else {
        const std::vector<ScoreRow> rows = score_breakdown(s);
        if (options_.shaping != 0.0)
            r += options_.shaping * (shaping_potential(rows, e.seat) - e.potential);
        r += final_reward(s, e.seat, options_.reward);
        winners = winner_bits(s);
        write_end_scores(rows, end_scores_row(i, out));
    }
    out.reward[i] = static_cast<float>(r);
    out.done[i] = true;
    out.illegal[i] = illegal;
    observation_tensor(s, e.seat, obs_row(out.terminal_obs, i));
    int64_t* info = end_info_row(i, out, END_FIELDS);
    info[END_SEAT] = e.seat;
    info[END_GAME_SEED] = static_cast<int64_t>(e.game_seed);
    info[END_WINNERS] = winners;
}

}  // namespace fort
