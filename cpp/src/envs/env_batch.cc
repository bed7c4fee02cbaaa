// What the batched envs share (env_batch.h): options, checks, the worker pool, deals, the
// built-in seats' moves, the stop's row.
#include "fort/envs/env_batch.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fort/constants.h"
#include "fort/envs/worker_pool.h"
#include "fort/game/rng.h"
#include "fort/rules/deal.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/search.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace fort {

namespace {

// Apply a legal action and check the end triggers (the flag is public as soon as a trigger
// happens, p.10): FortState.apply_action without the legality check.
void advance(State& state, int a) {
    apply(state, a);
    check_end(state);
}

bool played_outside(int code) { return code == LEARNER || code == EXTERNAL; }

std::string not_an_env(int k, int64_t i, int count) {
    return "env_ids[" + std::to_string(k) + "] = " + std::to_string(i) +
           " is not an env in [0, " + std::to_string(count) + ")";
}

}  // namespace

EnvBatch::EnvBatch(std::string name, std::string no_decision, std::shared_ptr<const Game> game,
                   const EnvOptions& options, std::shared_ptr<const SeatPolicies> policies)
    : game_(std::move(game)),
      name_(std::move(name)),
      no_decision_(std::move(no_decision)),
      options_(options),
      policies_(std::move(policies)) {
    check_option(game_ != nullptr, "no game");
    check_option(policies_ != nullptr, "no policies");
    const int n = game_->num_players;
    check_option(options.num_envs >= 1,
                 "num_envs must be >= 1, got " + std::to_string(options.num_envs));
    check_option(options.threads >= 1,
                 "threads must be >= 1, got " + std::to_string(options.threads));
    check_option(options.first_player >= -1 && options.first_player < n,
                 "first_player must be -1 (drawn) or in [0, " + std::to_string(n) + "), got " +
                     std::to_string(options.first_player));
    check_option(std::isfinite(options.shaping), "shaping must be finite");
    const int reward = static_cast<int>(options.reward);
    check_option(reward >= 0 && reward <= 2, "unknown reward mode " + std::to_string(reward));
    obs_size_ = static_cast<int>(game_->obs_offset[NUM_OBS_SLICES]);
    feature_width_ = static_cast<int>(max_active_features(*game_));
    envs_.reserve(static_cast<size_t>(options.num_envs));
    pool_ = std::make_unique<WorkerPool>(options.threads);
}

EnvBatch::~EnvBatch() = default;

void EnvBatch::add_env(std::unique_ptr<Env> env) {
    env->mask.assign(static_cast<size_t>(game_->num_actions), 0);
    envs_.push_back(std::move(env));
}

void EnvBatch::check_option(bool ok, const std::string& what) const {
    if (!ok) throw std::invalid_argument(name_ + ": " + what);
}

// --------------------------------------------------------------------------- checks
std::unique_lock<std::mutex> EnvBatch::claim() const {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock())
        throw std::runtime_error(name_ + " is busy: another thread is stepping it");
    return lock;
}

void EnvBatch::check_ids(const int64_t* ids, int count, bool need_ready) const {
    std::vector<uint8_t> seen(envs_.size(), 0);
    for (int k = 0; k < count; ++k) {
        const int64_t i = ids[k];
        if (i < 0 || i >= num_envs()) throw std::invalid_argument(not_an_env(k, i, num_envs()));
        if (seen[static_cast<size_t>(i)]++)
            throw std::invalid_argument("env_ids lists env " + std::to_string(i) + " twice");
        if (need_ready && !env(static_cast<int>(i)).ready)
            throw std::invalid_argument("env " + std::to_string(i) +
                                        " has no game: reset it first");
    }
}

void EnvBatch::check_codes(const int64_t* ids, int count, const int32_t* codes, int width,
                           bool learner, bool need_outside) const {
    const int policies = policies_->count();
    for (int k = 0; k < count; ++k) {
        if (ids[k] < 0 || ids[k] >= num_envs())
            throw std::invalid_argument(not_an_env(k, ids[k], num_envs()));
        bool outside = false;
        for (int p = 0; p < width; ++p) {
            const int c = codes[k * width + p];
            const bool allowed = c == EXTERNAL || (learner && c == LEARNER);
            if (!allowed && (c < 0 || c >= policies))
                throw std::invalid_argument(
                    "codes[" + std::to_string(k) + ", " + std::to_string(p) + "] = " +
                    std::to_string(c) + " is neither a built-in policy in [0, " +
                    std::to_string(policies) +
                    (learner ? "), EXTERNAL (-1) nor LEARNER (-2)" : ") nor EXTERNAL (-1)"));
            outside = outside || allowed;
        }
        if (need_outside && !outside)
            throw std::invalid_argument("codes[" + std::to_string(k) +
                                        "]: every seat is a built-in policy; at least one must "
                                        "be LEARNER (-2) or EXTERNAL (-1)");
    }
}

const EnvBatch::Env& EnvBatch::env_at(int i, bool need_ready) const {
    if (i < 0 || i >= num_envs())
        throw std::invalid_argument("env " + std::to_string(i) + " is not in [0, " +
                                    std::to_string(num_envs()) + ")");
    const Env& e = env(i);
    if (need_ready && !e.ready)
        throw std::invalid_argument("env " + std::to_string(i) + " has no game");
    return e;
}

// --------------------------------------------------------------------------- public calls
State EnvBatch::state(int i) const {
    auto lock = claim();
    return env_at(i, true).state;
}

void EnvBatch::reset_envs(const int64_t* ids, int count, const int64_t* seeds,
                          const EnvOut& out) {
    auto lock = claim();
    check_ids(ids, count, false);
    for (int k = 0; k < count; ++k) {
        if (seeds[k] < -1)
            throw std::invalid_argument("seeds[" + std::to_string(k) + "] = " +
                                        std::to_string(seeds[k]) +
                                        ": a base seed is >= 0 (or -1: the env's next game)");
        if (seeds[k] == -1 && !env(static_cast<int>(ids[k])).seeded)
            throw std::invalid_argument("env " + std::to_string(ids[k]) +
                                        " was never seeded: give it a seed >= 0");
    }
    run(ids, count, [&](int k, int i) {
        Env& e = env(i);
        if (seeds[k] >= 0) {
            e.base_seed = static_cast<uint64_t>(seeds[k]);
            e.games = 0;
            e.seeded = true;
        }
        clear_row(i, out);
        deal(e, false);
        play_on(e, i, out);
        e.ready = true;
    });
}

void EnvBatch::step_envs(const int64_t* ids, int count, const int64_t* actions,
                         const EnvOut& out, const char* seat_note) {
    auto lock = claim();
    check_ids(ids, count, true);
    const int64_t n_actions = num_actions();
    for (int k = 0; k < count; ++k) {
        const Env& e = env(static_cast<int>(ids[k]));
        const int64_t a = actions[k];
        if (must_be_legal(e) && (a < 0 || a >= n_actions || !e.mask[static_cast<size_t>(a)]))
            throw std::invalid_argument("env " + std::to_string(ids[k]) + ": action " +
                                        std::to_string(a) + " is not legal for seat " +
                                        std::to_string(e.actor) + seat_note);
    }
    run(ids, count, [&](int k, int i) {
        Env& e = env(i);
        if (before_action(e, i, actions[k], out)) advance(e.state, static_cast<int>(actions[k]));
        play_on(e, i, out);
    });
}

// --------------------------------------------------------------------------- the work
template <typename Fn>
void EnvBatch::run(const int64_t* ids, int count, Fn fn) {
    const std::function<void(int)> item = [&](int k) {
        const int i = static_cast<int>(ids[k]);
        Env& e = env(i);
        e.error.clear();
        try {
            fn(k, i);
        } catch (const std::exception& ex) {
            e.error = ex.what();
            e.ready = false;
        } catch (...) {
            e.error = "unknown error";
            e.ready = false;
        }
    };
    pool_->run(count, item);
    for (int k = 0; k < count; ++k) {
        const Env& e = env(static_cast<int>(ids[k]));
        if (!e.error.empty())
            throw std::runtime_error("env " + std::to_string(ids[k]) + " failed (reset it): " +
                                     e.error);
    }
}

void EnvBatch::deal(Env& e, bool again) {
    const uint64_t k = e.games++;
    EventRng rng(e.base_seed, k);
    e.game_seed = rng.below(static_cast<uint64_t>(SEED_LIMIT));
    seat_game(e, k, again);
    e.state = new_state(game_, e.game_seed, options_.first_player);
    e.policy_draws = 0;
    e.counted = false;
}

void EnvBatch::play_on(Env& e, int i, const EnvOut& out) {
    int redeals = 0;
    for (;;) {
        State& s = e.state;
        if (is_over(s)) {
            if (!e.counted) {  // SingleAgentEnv.reset: dealt again, with the same seats
                if (++redeals > MAX_REDEALS)
                    throw std::runtime_error(no_decision_ + " in " +
                                             std::to_string(MAX_REDEALS) + " deals");
                deal(e, true);
                continue;
            }
            on_game_over(e, i, out);
            deal(e, false);
            continue;
        }
        const int actor = static_cast<int>(s.ctx[C_ACTOR]);
        if (actor < 0 || actor >= num_players())
            throw std::logic_error("state: ctx.actor out of range");
        const int code = e.codes[static_cast<size_t>(actor)];
        if (played_outside(code)) {
            on_stop(e, i, out, code);
            break;
        }
        EventRng rng(e.game_seed ^ POLICY_STREAM, e.policy_draws++);
        advance(s, policies_->action(code, s, rng));
    }
    write_stop(e, i, out);
}

void EnvBatch::write_stop(Env& e, int i, const EnvOut& out) {
    State& s = e.state;
    const int actor = static_cast<int>(s.ctx[C_ACTOR]);
    e.actor = actor;
    float* obs = obs_row(out.obs, i);
    // the row as this env wrote it last: clear only its non-zero entries (EnvOut::obs_kept)
    const bool kept = out.obs_kept && e.obs_at == obs;
    e.obs_at = nullptr;  // unknown until written
    if (kept)
        observation_update(s, actor, obs, e.obs_written);
    else
        observation_record(s, actor, obs, e.obs_written);
    e.obs_at = obs;
    if (out.features != nullptr) {
        const size_t w = static_cast<size_t>(feature_width_), row = static_cast<size_t>(i) * w;
        out.feature_counts[i] = static_cast<int32_t>(active_features(
            obs, obs_size_, out.features + row, out.feature_values + row, feature_width_));
    }
    const size_t n = static_cast<size_t>(num_actions());
    std::fill(e.mask.begin(), e.mask.end(), uint8_t{0});
    thread_local std::vector<int> legal;  // this worker's list, its storage reused
    compute_legal_into(s, legal);
    for (int a : legal) e.mask[static_cast<size_t>(a)] = 1;
    bool* row = out.mask + static_cast<size_t>(i) * n;
    for (size_t a = 0; a < n; ++a) row[a] = e.mask[a] != 0;
    out.actor[i] = static_cast<int8_t>(actor);
    out.game_seed[i] = static_cast<int64_t>(e.game_seed);
    write_seats(e, i, out);
}

int64_t EnvBatch::winner_bits(const State& s) {
    int64_t bits = 0;
    for (int p : winners(s)) bits |= int64_t{1} << p;
    return bits;
}

int32_t* EnvBatch::end_scores_row(int i, const EnvOut& out) {
    return out.end_scores + static_cast<size_t>(i) * MAX_PLAYERS * SCORE_FIELDS;
}

int64_t* EnvBatch::end_info_row(int i, const EnvOut& out, int fields) {
    return out.end_info + static_cast<size_t>(i) * static_cast<size_t>(fields);
}

}  // namespace fort
