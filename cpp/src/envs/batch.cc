// The batched vector env (batch.h): B SingleAgentEnv games stepped in one call.
#include "fort/envs/batch.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fort/constants.h"
#include "fort/envs/rewards.h"
#include "fort/envs/worker_pool.h"
#include "fort/game/rng.h"
#include "fort/rules/deal.h"
#include "fort/rules/flow.h"
#include "fort/rules/handlers.h"
#include "fort/rules/search.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

namespace fort {

struct Batch::Env {
    State state;
    bool seeded = false;        // has a base seed
    bool ready = false;         // dealt, and no step failed since
    uint64_t base_seed = 0;
    uint64_t games = 0;         // games dealt since seeded (k of the header)
    uint64_t game_seed = 0;
    int seat = 0;               // the learner's seat in this game
    int actor = 0;              // the seat whose action the next step applies
    std::vector<int> rivals_next;  // per rival (seat order, the learner skipped): for new games
    std::vector<int> rivals_now;   // ... of this game
    std::vector<int> codes;        // per seat: LEARNER, EXTERNAL or a Policy code
    uint64_t policy_draws = 0;  // built-in decisions so far this game (j of the header)
    bool learner_acted = false;
    bool has_potential = false;  // the shaping's phi at the learner's last decision is known
    double potential = 0.0;
    std::vector<uint8_t> mask;  // the actor's legal actions, as written to BatchOut::mask
    std::string error;          // what went wrong inside the last call, if anything
};

namespace {

void check_option(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("Batch: " + what);
}

// Apply a legal action and check the end triggers (the flag is public as soon as a trigger
// happens, p.10): FortState.apply_action without the legality check.
void apply_and_check_end(State& state, int a) {
    apply(state, a);
    check_end(state);
}


}  // namespace

Batch::Batch(std::shared_ptr<const Game> game, const BatchOptions& options,
             std::shared_ptr<const SeatPolicies> policies)
    : game_(std::move(game)), options_(options), policies_(std::move(policies)) {
    check_option(game_ != nullptr, "no game");
    check_option(policies_ != nullptr, "no policies");
    const int n = game_->num_players;
    check_option(options.num_envs >= 1,
                 "num_envs must be >= 1, got " + std::to_string(options.num_envs));
    check_option(options.threads >= 1,
                 "threads must be >= 1, got " + std::to_string(options.threads));
    check_option(options.seat >= -1 && options.seat < n,
                 "seat must be -1 (rotating) or in [0, " + std::to_string(n) + "), got " +
                     std::to_string(options.seat));
    check_option(options.first_player >= -1 && options.first_player < n,
                 "first_player must be -1 (drawn) or in [0, " + std::to_string(n) + "), got " +
                     std::to_string(options.first_player));
    check_option(std::isfinite(options.shaping), "shaping must be finite");
    check_option(std::isfinite(options.illegal_reward), "illegal_reward must be finite");
    const int reward = static_cast<int>(options.reward);
    check_option(reward >= 0 && reward <= 2, "unknown reward mode " + std::to_string(reward));
    obs_size_ = static_cast<int>(game_->obs_offset[NUM_OBS_SLICES]);
    envs_.reserve(static_cast<size_t>(options.num_envs));
    for (int i = 0; i < options.num_envs; ++i) {
        auto e = std::make_unique<Env>();
        e->rivals_next.assign(static_cast<size_t>(n - 1), EXTERNAL);
        e->rivals_now = e->rivals_next;
        e->codes.assign(static_cast<size_t>(n), EXTERNAL);
        e->mask.assign(static_cast<size_t>(game_->num_actions), 0);
        envs_.push_back(std::move(e));
    }
    pool_ = std::make_unique<WorkerPool>(options.threads);
}

Batch::~Batch() = default;

// --------------------------------------------------------------------------- checks
void Batch::check_ids(const int64_t* ids, int count) const {
    std::vector<uint8_t> seen(envs_.size(), 0);
    for (int k = 0; k < count; ++k) {
        const int64_t i = ids[k];
        if (i < 0 || i >= num_envs())
            throw std::invalid_argument("env_ids[" + std::to_string(k) + "] = " +
                                        std::to_string(i) + " is not an env in [0, " +
                                        std::to_string(num_envs()) + ")");
        if (seen[static_cast<size_t>(i)]++)
            throw std::invalid_argument("env_ids lists env " + std::to_string(i) + " twice");
    }
}

namespace {

std::unique_lock<std::mutex> claim(std::mutex& busy) {
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock())
        throw std::runtime_error("Batch is busy: another thread is stepping it");
    return lock;
}

}  // namespace

// --------------------------------------------------------------------------- public calls
void Batch::set_opponents(const int64_t* ids, int count, const int32_t* codes) {
    auto lock = claim(busy_);
    const int rivals = num_players() - 1;
    for (int k = 0; k < count; ++k) {
        if (ids[k] < 0 || ids[k] >= num_envs())
            throw std::invalid_argument("env_ids[" + std::to_string(k) + "] = " +
                                        std::to_string(ids[k]) + " is not an env in [0, " +
                                        std::to_string(num_envs()) + ")");
        for (int r = 0; r < rivals; ++r) {
            const int c = codes[k * rivals + r];
            if (c != EXTERNAL && (c < 0 || c >= policies_->count()))
                throw std::invalid_argument(
                    "codes[" + std::to_string(k) + ", " + std::to_string(r) + "] = " +
                    std::to_string(c) + " is neither a built-in policy in [0, " +
                    std::to_string(policies_->count()) + ") nor EXTERNAL (-1)");
        }
    }
    for (int k = 0; k < count; ++k) {
        Env& e = *envs_[static_cast<size_t>(ids[k])];
        e.rivals_next.assign(codes + k * rivals, codes + (k + 1) * rivals);
    }
}

void Batch::reset(const int64_t* ids, int count, const int64_t* seeds, const BatchOut& out) {
    auto lock = claim(busy_);
    check_ids(ids, count);
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
    run(count, &Batch::reset_one, ids, seeds, out);
}

void Batch::step(const int64_t* ids, int count, const int64_t* actions, const BatchOut& out) {
    auto lock = claim(busy_);
    check_ids(ids, count);
    const int64_t n_actions = num_actions();
    for (int k = 0; k < count; ++k) {
        const Env& e = *envs_[static_cast<size_t>(ids[k])];
        if (!e.ready)
            throw std::invalid_argument("env " + std::to_string(ids[k]) +
                                        " has no game: reset it first");
        const int64_t a = actions[k];
        if (e.actor != e.seat && (a < 0 || a >= n_actions || !e.mask[static_cast<size_t>(a)]))
            throw std::invalid_argument("env " + std::to_string(ids[k]) + ": action " +
                                        std::to_string(a) + " is not legal for seat " +
                                        std::to_string(e.actor) + " (an external seat)");
    }
    run(count, &Batch::step_one, ids, actions, out);
}

State Batch::state(int i) const {
    auto lock = claim(busy_);
    if (i < 0 || i >= num_envs())
        throw std::invalid_argument("env " + std::to_string(i) + " is not in [0, " +
                                    std::to_string(num_envs()) + ")");
    const Env& e = *envs_[static_cast<size_t>(i)];
    if (!e.ready) throw std::invalid_argument("env " + std::to_string(i) + " has no game");
    return e.state;
}

std::vector<int> Batch::seat_codes(int i) const {
    auto lock = claim(busy_);
    if (i < 0 || i >= num_envs())
        throw std::invalid_argument("env " + std::to_string(i) + " is not in [0, " +
                                    std::to_string(num_envs()) + ")");
    return envs_[static_cast<size_t>(i)]->codes;
}

// --------------------------------------------------------------------------- the work
void Batch::run(int count,
                void (Batch::*fn)(int, int, const int64_t*, const int64_t*, const BatchOut&),
                const int64_t* ids, const int64_t* values, const BatchOut& out) {
    const std::function<void(int)> item = [&](int k) {
        Env& e = *envs_[static_cast<size_t>(ids[k])];
        e.error.clear();
        try {
            (this->*fn)(k, static_cast<int>(ids[k]), ids, values, out);
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

void Batch::reset_one(int k, int i, const int64_t* /*ids*/, const int64_t* seeds,
                      const BatchOut& out) {
    Env& e = *envs_[static_cast<size_t>(i)];
    if (seeds[k] >= 0) {
        e.base_seed = static_cast<uint64_t>(seeds[k]);
        e.games = 0;
        e.seeded = true;
    }
    out.reward[i] = 0.0f;
    out.done[i] = false;
    out.illegal[i] = false;
    deal(e, true);
    play_on(e, i, out);
    e.ready = true;
}

void Batch::step_one(int k, int i, const int64_t* /*ids*/, const int64_t* actions,
                     const BatchOut& out) {
    Env& e = *envs_[static_cast<size_t>(i)];
    const int64_t a = actions[k];
    if (e.actor == e.seat) {  // the learner's action opens a new transition
        out.reward[i] = 0.0f;
        out.done[i] = false;
        out.illegal[i] = false;
        if (a < 0 || a >= num_actions() || !e.mask[static_cast<size_t>(a)]) {
            end_episode(e, i, out, true);  // SingleAgentEnv: nothing applied, episode over
            deal(e, true);
            play_on(e, i, out);
            return;
        }
        e.learner_acted = true;
    }
    apply_and_check_end(e.state, static_cast<int>(a));
    play_on(e, i, out);
}

void Batch::deal(Env& e, bool new_episode) {
    const int n = num_players();
    const uint64_t k = e.games++;
    EventRng rng(e.base_seed, k);
    e.game_seed = rng.below(static_cast<uint64_t>(SEED_LIMIT));
    if (new_episode) {  // a game dealt again (SingleAgentEnv.reset's loop) keeps both
        e.seat = options_.seat >= 0 ? options_.seat
                                    : static_cast<int>((e.base_seed % n + k % n) % n);
        e.rivals_now = e.rivals_next;
    }
    for (int p = 0; p < n; ++p)
        e.codes[static_cast<size_t>(p)] =
            p == e.seat ? LEARNER : e.rivals_now[static_cast<size_t>(p < e.seat ? p : p - 1)];
    e.state = new_state(game_, e.game_seed, options_.first_player);
    e.policy_draws = 0;
    e.learner_acted = false;
    e.has_potential = false;
    e.potential = 0.0;
}

void Batch::play_on(Env& e, int i, const BatchOut& out) {
    int redeals = 0;
    for (;;) {
        State& s = e.state;
        if (is_over(s)) {
            if (!e.learner_acted) {  // SingleAgentEnv.reset: dealt again, with the same rivals
                if (++redeals > MAX_REDEALS)
                    throw std::runtime_error("the learner never got a decision in " +
                                             std::to_string(MAX_REDEALS) + " deals");
                deal(e, false);
                continue;
            }
            end_episode(e, i, out, false);
            deal(e, true);
            continue;
        }
        const int actor = static_cast<int>(s.ctx[C_ACTOR]);
        if (actor < 0 || actor >= num_players())
            throw std::logic_error("state: ctx.actor out of range");
        const int code = e.codes[static_cast<size_t>(actor)];
        if (code == LEARNER) {
            if (options_.shaping != 0.0) {  // SingleAgentEnv.step's shaping term
                const double phi = potential(s, e.seat);
                if (e.has_potential) {
                    double r = 0.0;
                    r += options_.shaping * (phi - e.potential);
                    out.reward[i] = static_cast<float>(r);
                }
                e.potential = phi;
                e.has_potential = true;
            }
            break;
        }
        if (code == EXTERNAL) break;
        EventRng rng(e.game_seed ^ POLICY_STREAM, e.policy_draws++);
        apply_and_check_end(s, policies_->action(code, s, rng));
    }
    write_actor(e, i, out);
}

void Batch::end_episode(Env& e, int i, const BatchOut& out, bool illegal) {
    const State& s = e.state;
    double r = 0.0;
    int64_t winner_bits = 0;
    int32_t* scores = out.end_scores + static_cast<size_t>(i) * MAX_PLAYERS * SCORE_FIELDS;
    if (illegal) {
        r = options_.illegal_reward;
        write_end_scores({}, scores);  // the game did not end: no scores
    } else {
        if (options_.shaping != 0.0) r += options_.shaping * (potential(s, e.seat) - e.potential);
        r += final_reward(s, e.seat);
        for (int p : winners(s)) winner_bits |= int64_t{1} << p;
        write_end_scores(score_breakdown(s), scores);
    }
    out.reward[i] = static_cast<float>(r);
    out.done[i] = true;
    out.illegal[i] = illegal;
    observation_tensor(s, e.seat, out.terminal_obs + static_cast<size_t>(i) * obs_size_);
    int64_t* info = out.end_info + static_cast<size_t>(i) * END_FIELDS;
    info[END_SEAT] = e.seat;
    info[END_GAME_SEED] = static_cast<int64_t>(e.game_seed);
    info[END_WINNERS] = winner_bits;
}

void Batch::write_actor(Env& e, int i, const BatchOut& out) {
    State& s = e.state;
    const int actor = static_cast<int>(s.ctx[C_ACTOR]);
    e.actor = actor;
    observation_tensor(s, actor, out.obs + static_cast<size_t>(i) * obs_size_);
    const size_t n = static_cast<size_t>(num_actions());
    std::fill(e.mask.begin(), e.mask.end(), uint8_t{0});
    for (int a : legal_actions(s)) e.mask[static_cast<size_t>(a)] = 1;
    bool* row = out.mask + static_cast<size_t>(i) * n;
    for (size_t a = 0; a < n; ++a) row[a] = e.mask[a] != 0;
    out.actor[i] = static_cast<int8_t>(actor);
    out.seat[i] = static_cast<int8_t>(e.seat);
    out.game_seed[i] = static_cast<int64_t>(e.game_seed);
}

// --------------------------------------------------------------------------- rewards
double Batch::potential(const State& s, int seat) const { return shaping_potential(s, seat); }

double Batch::final_reward(const State& s, int seat) const {
    return fort::final_reward(s, seat, options_.reward);
}

}  // namespace fort
