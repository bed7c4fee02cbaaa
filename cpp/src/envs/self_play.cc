// The self-play batch (self_play.h): B games, every LEARNER seat a sample.
#include "fort/envs/self_play.h"

#include <algorithm>
#include <cmath>
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

struct SelfPlay::Env {
    State state;
    bool seeded = false;        // has a base seed
    bool ready = false;         // dealt, and no step failed since
    uint64_t base_seed = 0;
    uint64_t games = 0;         // games dealt since seeded
    uint64_t game_seed = 0;
    int actor = 0;              // the seat whose action the next step applies
    std::vector<int> codes_next;  // per seat: for new games (set_seats)
    std::vector<int> codes;       // per seat: of this game
    uint64_t policy_draws = 0;  // built-in decisions so far this game
    bool stopped = false;           // this game has stopped for a LEARNER or EXTERNAL seat
    std::vector<double> potential;  // per seat: phi at the last stop (shaping only)
    std::vector<uint8_t> mask;      // the actor's legal actions, as written to the mask
    std::string error;              // what went wrong inside the last call, if anything
};

namespace {

void check_option(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("SelfPlay: " + what);
}

std::unique_lock<std::mutex> claim(std::mutex& busy) {
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock())
        throw std::runtime_error("SelfPlay is busy: another thread is stepping it");
    return lock;
}

bool played_outside(int code) { return code == LEARNER || code == EXTERNAL; }

// Apply a legal action and check the end triggers (the flag is public as soon as a trigger
// happens, p.10): FortState.apply_action without the legality check.
void apply_and_check_end(State& state, int a) {
    apply(state, a);
    check_end(state);
}

}  // namespace

SelfPlay::SelfPlay(std::shared_ptr<const Game> game, const SelfPlayOptions& options,
                   std::shared_ptr<const SeatPolicies> policies)
    : game_(std::move(game)), options_(options), policies_(std::move(policies)) {
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
    envs_.reserve(static_cast<size_t>(options.num_envs));
    for (int i = 0; i < options.num_envs; ++i) {
        auto e = std::make_unique<Env>();
        e->codes_next.assign(static_cast<size_t>(n), LEARNER);
        e->codes = e->codes_next;
        e->potential.assign(static_cast<size_t>(n), 0.0);
        e->mask.assign(static_cast<size_t>(game_->num_actions), 0);
        envs_.push_back(std::move(e));
    }
    pool_ = std::make_unique<WorkerPool>(options.threads);
}

SelfPlay::~SelfPlay() = default;

// --------------------------------------------------------------------------- checks
void SelfPlay::check_ids(const int64_t* ids, int count, bool need_ready) const {
    std::vector<uint8_t> seen(envs_.size(), 0);
    for (int k = 0; k < count; ++k) {
        const int64_t i = ids[k];
        if (i < 0 || i >= num_envs())
            throw std::invalid_argument("env_ids[" + std::to_string(k) + "] = " +
                                        std::to_string(i) + " is not an env in [0, " +
                                        std::to_string(num_envs()) + ")");
        if (seen[static_cast<size_t>(i)]++)
            throw std::invalid_argument("env_ids lists env " + std::to_string(i) + " twice");
        if (need_ready && !envs_[static_cast<size_t>(i)]->ready)
            throw std::invalid_argument("env " + std::to_string(i) + " has no game: reset it first");
    }
}

// --------------------------------------------------------------------------- public calls
void SelfPlay::set_seats(const int64_t* ids, int count, const int32_t* codes) {
    auto lock = claim(busy_);
    const int n = num_players();
    for (int k = 0; k < count; ++k) {
        if (ids[k] < 0 || ids[k] >= num_envs())
            throw std::invalid_argument("env_ids[" + std::to_string(k) + "] = " +
                                        std::to_string(ids[k]) + " is not an env in [0, " +
                                        std::to_string(num_envs()) + ")");
        bool outside = false;
        for (int p = 0; p < n; ++p) {
            const int c = codes[k * n + p];
            if (!played_outside(c) && (c < 0 || c >= policies_->count()))
                throw std::invalid_argument(
                    "codes[" + std::to_string(k) + ", " + std::to_string(p) + "] = " +
                    std::to_string(c) + " is neither a built-in policy in [0, " +
                    std::to_string(policies_->count()) + "), EXTERNAL (-1) nor LEARNER (-2)");
            outside = outside || played_outside(c);
        }
        if (!outside)
            throw std::invalid_argument("codes[" + std::to_string(k) +
                                        "]: every seat is a built-in policy; at least one must "
                                        "be LEARNER (-2) or EXTERNAL (-1)");
    }
    for (int k = 0; k < count; ++k) {
        Env& e = *envs_[static_cast<size_t>(ids[k])];
        e.codes_next.assign(codes + k * n, codes + (k + 1) * n);
    }
}

void SelfPlay::reset(const int64_t* ids, int count, const int64_t* seeds,
                     const SelfPlayOut& out) {
    auto lock = claim(busy_);
    check_ids(ids, count, false);
    for (int k = 0; k < count; ++k) {
        const Env& e = *envs_[static_cast<size_t>(ids[k])];
        if (seeds[k] < -1)
            throw std::invalid_argument("seeds[" + std::to_string(k) + "] = " +
                                        std::to_string(seeds[k]) +
                                        ": a base seed is >= 0 (or -1: the env's next game)");
        if (seeds[k] == -1 && !e.seeded)
            throw std::invalid_argument("env " + std::to_string(ids[k]) +
                                        " was never seeded: give it a seed >= 0");
    }
    const size_t n = static_cast<size_t>(num_players());
    run(ids, count, [&](int k, int i) {
        Env& e = *envs_[static_cast<size_t>(i)];
        if (seeds[k] >= 0) {
            e.base_seed = static_cast<uint64_t>(seeds[k]);
            e.games = 0;
            e.seeded = true;
        }
        std::fill_n(out.rewards + static_cast<size_t>(i) * n, n, 0.0f);
        out.done[i] = false;
        deal(e);
        play_on(e, i, out);
        e.ready = true;
    });
}

void SelfPlay::step(const int64_t* ids, int count, const int64_t* actions,
                    const SelfPlayOut& out) {
    auto lock = claim(busy_);
    check_ids(ids, count, true);
    const int64_t n_actions = num_actions();
    for (int k = 0; k < count; ++k) {
        const Env& e = *envs_[static_cast<size_t>(ids[k])];
        const int64_t a = actions[k];
        if (a < 0 || a >= n_actions || !e.mask[static_cast<size_t>(a)])
            throw std::invalid_argument("env " + std::to_string(ids[k]) + ": action " +
                                        std::to_string(a) + " is not legal for seat " +
                                        std::to_string(e.actor));
    }
    const size_t n = static_cast<size_t>(num_players());
    run(ids, count, [&](int k, int i) {
        Env& e = *envs_[static_cast<size_t>(i)];
        std::fill_n(out.rewards + static_cast<size_t>(i) * n, n, 0.0f);
        out.done[i] = false;
        apply_and_check_end(e.state, static_cast<int>(actions[k]));
        play_on(e, i, out);
    });
}

void SelfPlay::observe(const int64_t* ids, int count, float* obs) const {
    auto lock = claim(busy_);
    check_ids(ids, count, true);
    const int n = num_players();
    for (int k = 0; k < count; ++k) {
        const Env& e = *envs_[static_cast<size_t>(ids[k])];
        for (int p = 0; p < n; ++p)
            observation_tensor(e.state, p,
                               obs + (static_cast<size_t>(k) * n + p) * static_cast<size_t>(obs_size_));
    }
}

const SelfPlay::Env& SelfPlay::dealt_env(int i) const {
    if (i < 0 || i >= num_envs())
        throw std::invalid_argument("env " + std::to_string(i) + " is not in [0, " +
                                    std::to_string(num_envs()) + ")");
    const Env& e = *envs_[static_cast<size_t>(i)];
    if (!e.ready) throw std::invalid_argument("env " + std::to_string(i) + " has no game");
    return e;
}

State SelfPlay::state(int i) const {
    auto lock = claim(busy_);
    return dealt_env(i).state;
}

std::vector<int> SelfPlay::seat_codes(int i) const {
    auto lock = claim(busy_);
    return dealt_env(i).codes;
}

// --------------------------------------------------------------------------- the work
template <typename Fn>
void SelfPlay::run(const int64_t* ids, int count, Fn fn) {
    const std::function<void(int)> item = [&](int k) {
        const int i = static_cast<int>(ids[k]);
        Env& e = *envs_[static_cast<size_t>(i)];
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
        const Env& e = *envs_[static_cast<size_t>(ids[k])];
        if (!e.error.empty())
            throw std::runtime_error("env " + std::to_string(ids[k]) + " failed (reset it): " +
                                     e.error);
    }
}

void SelfPlay::deal(Env& e) {
    EventRng rng(e.base_seed, e.games++);
    e.game_seed = rng.below(static_cast<uint64_t>(SEED_LIMIT));
    e.codes = e.codes_next;
    e.state = new_state(game_, e.game_seed, options_.first_player);
    e.policy_draws = 0;
    e.stopped = false;
}

// Play the built-in seats to the next LEARNER or EXTERNAL decision, crediting the shaping
// since the last stop and, when a game ends, every seat's final reward (then the next game is
// dealt and played to its first stop, which sets the potentials afresh).
void SelfPlay::play_on(Env& e, int i, const SelfPlayOut& out) {
    const int n = num_players();
    float* rewards = out.rewards + static_cast<size_t>(i) * static_cast<size_t>(n);
    int redeals = 0;
    for (;;) {
        State& s = e.state;
        if (is_over(s)) {
            if (!e.stopped) {  // no stop in this game: deal it again
                if (++redeals > MAX_REDEALS)
                    throw std::runtime_error("no LEARNER or EXTERNAL seat got a decision in " +
                                             std::to_string(MAX_REDEALS) + " deals");
                deal(e);
                continue;
            }
            const std::vector<ScoreRow> rows = score_breakdown(s);
            int64_t winner_bits = 0;
            for (int p : winners(s)) winner_bits |= int64_t{1} << p;
            for (int p = 0; p < n; ++p) {
                double r = final_reward(s, p, options_.reward);
                if (options_.shaping != 0.0)
                    r += options_.shaping *
                         (shaping_potential(rows, p) - e.potential[static_cast<size_t>(p)]);
                rewards[p] = static_cast<float>(rewards[p] + r);
            }
            out.done[i] = true;
            int64_t* info = out.end_info + static_cast<size_t>(i) * SP_END_FIELDS;
            info[SP_END_GAME_SEED] = static_cast<int64_t>(e.game_seed);
            info[SP_END_WINNERS] = winner_bits;
            write_end_scores(rows, out.end_scores + static_cast<size_t>(i) * MAX_PLAYERS *
                                                        SCORE_FIELDS);
            deal(e);
            continue;
        }
        const int actor = static_cast<int>(s.ctx[C_ACTOR]);
        if (actor < 0 || actor >= n) throw std::logic_error("state: ctx.actor out of range");
        const int code = e.codes[static_cast<size_t>(actor)];
        if (played_outside(code)) {
            if (options_.shaping != 0.0) {
                const std::vector<ScoreRow> rows = score_breakdown(s);
                for (int p = 0; p < n; ++p) {
                    const double phi = shaping_potential(rows, p);
                    double& last = e.potential[static_cast<size_t>(p)];
                    // the first stop of a game sets the baseline: SingleAgentEnv's first step
                    if (e.stopped)
                        rewards[p] = static_cast<float>(rewards[p] + options_.shaping * (phi - last));
                    last = phi;
                }
            }
            e.stopped = true;
            break;
        }
        EventRng rng(e.game_seed ^ POLICY_STREAM, e.policy_draws++);
        apply_and_check_end(s, policies_->action(code, s, rng));
    }
    write_stop(e, i, out);
}

void SelfPlay::write_stop(Env& e, int i, const SelfPlayOut& out) {
    State& s = e.state;
    const int n = num_players();
    const int actor = static_cast<int>(s.ctx[C_ACTOR]);
    e.actor = actor;
    observation_tensor(s, actor, out.obs + static_cast<size_t>(i) * static_cast<size_t>(obs_size_));
    const size_t N = static_cast<size_t>(num_actions());
    std::fill(e.mask.begin(), e.mask.end(), uint8_t{0});
    for (int a : legal_actions(s)) e.mask[static_cast<size_t>(a)] = 1;
    bool* row = out.mask + static_cast<size_t>(i) * N;
    for (size_t a = 0; a < N; ++a) row[a] = e.mask[a] != 0;
    out.actor[i] = static_cast<int8_t>(actor);
    for (int p = 0; p < n; ++p)
        out.codes[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(p)] =
            static_cast<int8_t>(e.codes[static_cast<size_t>(p)]);
    out.game_seed[i] = static_cast<int64_t>(e.game_seed);
}

}  // namespace fort
