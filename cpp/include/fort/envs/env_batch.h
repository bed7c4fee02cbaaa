// What the two batched envs share (batch.h Batch: one learner seat per game; self_play.h
// SelfPlay: every seat a sample): B games of one Game stepped in one call, each game played by
// its built-in seats (seat_policies.h) up to the next decision of a seat Python plays (a stop),
// that seat's observation and legal actions written to the caller's buffers. Here: the
// options both take and their checks, the env ids' and seeds' checks, the worker pool, the
// deals and re-deals, the built-in seats' moves, the stop's and the finished game's rows. Each
// env keeps only its seats' rules and outputs, through the hooks below.
//
// Seeds (reproducible, independent of the thread count and of the other envs): env i is seeded
// with a base seed b (an int in [0, 2**63)); its k-th game since then (k = 0, 1, ...; a game
// dealt again because it ended before any decision that counts counts too) is dealt from the
// game seed EventRng(b, k).below(SEED_LIMIT) (rng.h), EnvOptions::first_player starting (or
// the deal's own draw); a built-in seat's j-th decision of a game (j = 0, 1, ... over every
// built-in seat) draws from EventRng(game_seed ^ POLICY_STREAM, j).
//
// Threads: the listed envs are shared out over `threads` threads (the caller's and
// threads - 1 workers started with the env), an env at a time. Nothing shared is written: the
// Game is const, each env's randomness is in its own state and counters, the search memo is
// per thread (search.h), so the outputs do not depend on the thread count or schedule. Errors
// inside a worker never escape it: an env that fails is reported after the call
// (std::runtime_error naming it) and must be reset. One call at a time: a second thread's call
// meanwhile is refused (std::runtime_error "... is busy").
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fort/envs/rewards.h"
#include "fort/envs/seat_policies.h"
#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// A seat code (Batch::set_opponents, SelfPlay::set_seats, seat_codes): a built-in policy's
// code (seat_policies.h), or:
inline constexpr int EXTERNAL = -1;  // Python acts for the seat
inline constexpr int LEARNER = -2;   // the learning policy's seat (Python acts)

// Keys the built-in policies' draws apart from the game's own events (ASCII "policies").
inline constexpr uint64_t POLICY_STREAM = 0x706F6C6963696573ULL;

// A game that ends before any decision that counts is dealt again, at most this many times in
// a row (SingleAgentEnv.reset's bound; the rules give every seat a turn).
inline constexpr int MAX_REDEALS = 100;

// The options both envs take.
struct EnvOptions {
    int num_envs = 1;                          // B >= 1
    int first_player = -1;                     // the seat starting each game, -1: drawn
    RewardMode reward = RewardMode::WIN_LOSS;  // the final reward
    double shaping = 0.0;                      // weight of the score-margin shaping
    int threads = 1;                           // threads stepping the envs (>= 1)
};

// The buffers both envs write, one row per env (B rows; row i is env i's), C-contiguous; a
// call writes the rows of the envs it lists, and only those. D = observation_size,
// N = num_actions.
//   obs         float32 (B, D)  the observation of the seat to act (`actor`)
//   mask        bool    (B, N)  its legal actions
//   actor       int8    (B,)    the seat to act (a LEARNER or EXTERNAL seat)
//   game_seed   int64   (B,)    the current game's seed
//   done        bool    (B,)    what ended in the last call (each env says what)
//   end_info    int64   (B, F)  when done: the env's END columns
//   end_scores  int32   (B, MAX_PLAYERS, SCORE_FIELDS)  when a game ended: its score_breakdown,
//                               row p seat p's (rewards.h SCORE_*; rows past n zeros)
// and, optionally (all three or none; nullptr: not written), `obs` again by its active
// features (views/observation.h active_features), W = feature_width():
//   features        int32   (B, W)  the non-zero entries' indices, increasing, then 0s
//   feature_values  float32 (B, W)  their values, then 0s
//   feature_counts  int32   (B,)    how many entries of the row are active (<= W)
// obs_kept (a promise, not a buffer): every obs row this env wrote in an earlier call into the
// same buffer address still holds what was written (nothing else wrote into obs since). Then a
// row written again is cleared only where the last observation was non-zero
// (views/observation.h observation_update); false (the default): every row written is cleared
// in full first.
struct EnvOut {
    float* obs = nullptr;
    bool* mask = nullptr;
    int8_t* actor = nullptr;
    int64_t* game_seed = nullptr;
    bool* done = nullptr;
    int64_t* end_info = nullptr;
    int32_t* end_scores = nullptr;
    int32_t* features = nullptr;
    float* feature_values = nullptr;
    int32_t* feature_counts = nullptr;
    bool obs_kept = false;
};

class WorkerPool;

class EnvBatch {
   public:
    virtual ~EnvBatch();
    EnvBatch(const EnvBatch&) = delete;
    EnvBatch& operator=(const EnvBatch&) = delete;

    int num_envs() const { return static_cast<int>(envs_.size()); }
    int num_players() const { return game_->num_players; }
    int observation_size() const { return obs_size_; }
    int num_actions() const { return game_->num_actions; }
    int threads() const { return options_.threads; }
    // W of EnvOut's features: max_active_features(game) (views/observation.h).
    int feature_width() const { return feature_width_; }

    // A copy of env i's current state. Throws std::invalid_argument for i out of range or an
    // env not reset (or failed).
    State state(int i) const;

   protected:
    // One env: its game and counters. The envs extend it with their seats' bookkeeping.
    struct Env {
        virtual ~Env() = default;
        State state;
        bool seeded = false;        // has a base seed
        bool ready = false;         // dealt, and no call failed since
        uint64_t base_seed = 0;
        uint64_t games = 0;         // games dealt since seeded (k of the header)
        uint64_t game_seed = 0;
        int actor = 0;              // the seat whose action the next step applies
        std::vector<int> codes;     // per seat of this game: LEARNER, EXTERNAL or a policy
        uint64_t policy_draws = 0;  // built-in decisions so far this game (j of the header)
        bool counted = false;       // this game reached a decision that counts (else: re-deal)
        std::vector<uint8_t> mask;  // the actor's legal actions, as written to EnvOut::mask
        const float* obs_at = nullptr;     // the obs row written last (nullptr: none yet)
        std::vector<int32_t> obs_written;  // its non-zero entries (observation_update)
        std::string error;          // what went wrong inside the last call, if anything
    };

    // `name` prefixes the option errors ("Batch: ..."); `no_decision` is the error after
    // MAX_REDEALS games in a row without a decision that counts. Throws std::invalid_argument
    // for no game, no policies, num_envs < 1, threads < 1, first_player outside
    // [-1, num_players), a non-finite shaping or an unknown reward mode. The constructor of the
    // env then adds num_envs Envs with add_env.
    EnvBatch(std::string name, std::string no_decision, std::shared_ptr<const Game> game,
             const EnvOptions& options, std::shared_ptr<const SeatPolicies> policies);
    void add_env(std::unique_ptr<Env> env);
    void check_option(bool ok, const std::string& what) const;

    // --- the hooks of an env (called inside a worker, for env i, its row of `out`)
    // A new game is being dealt to `e` (k: its count since seeded; again: the last one ended
    // without a decision that counts): set e.codes and the env's own fields for it.
    virtual void seat_game(Env& e, uint64_t k, bool again) = 0;
    // A LEARNER or EXTERNAL seat is to act in `e`: the stop (the env's shaping, if any).
    virtual void on_stop(Env& e, int i, const EnvOut& out, int code) = 0;
    // `e`'s game is over, after a decision that counted: write what its end says.
    virtual void on_game_over(Env& e, int i, const EnvOut& out) = 0;
    // The stop is written (obs, mask, actor, game_seed): write the env's own columns of it.
    virtual void write_seats(const Env& e, int i, const EnvOut& out) = 0;
    // Clear env i's per-transition outputs (done included) before a reset or a step.
    virtual void clear_row(int i, const EnvOut& out) = 0;
    // Before a step applies `a` in `e` (seat e.actor): false when the env handled the action
    // itself (nothing applied; the step goes on to play_on).
    virtual bool before_action(Env& e, int i, int64_t a, const EnvOut& out) = 0;
    // Whether a step's action must be legal for the seat to act in `e` (checked before
    // anything changes).
    virtual bool must_be_legal(const Env& e) const = 0;

    // --- the calls' common parts (each claims the env: one call at a time)
    std::unique_lock<std::mutex> claim() const;
    // Throws std::invalid_argument for an env id out of range or listed twice, and with
    // need_ready for an env with no game.
    void check_ids(const int64_t* ids, int count, bool need_ready) const;
    // For env ids[k], codes[k * width, (k + 1) * width): throws std::invalid_argument
    // (nothing changed) for an id out of range or a code neither a built-in policy's nor
    // EXTERNAL (nor LEARNER, with `learner`), and with `need_outside` for a row without a
    // LEARNER or EXTERNAL seat.
    void check_codes(const int64_t* ids, int count, const int32_t* codes, int width,
                     bool learner, bool need_outside) const;
    // reset and step as batch.h / self_play.h describe them; `seat_note` follows the seat in
    // the error for an illegal action.
    void reset_envs(const int64_t* ids, int count, const int64_t* seeds, const EnvOut& out);
    void step_envs(const int64_t* ids, int count, const int64_t* actions, const EnvOut& out,
                   const char* seat_note);
    // env i, in range, and with need_ready dealt; else std::invalid_argument
    const Env& env_at(int i, bool need_ready) const;

    // --- the pieces the hooks use
    // Deal `e` its next game (EventRng(base_seed, k)), seat_game, new state, counters reset.
    void deal(Env& e, bool again);
    // Play the built-in seats of `e` to its next stop (dealing the next game when one ends, and
    // again a game that ended before a decision that counts), then write the stop.
    void play_on(Env& e, int i, const EnvOut& out);
    // A finished game's winners as bits (bit p: seat p).
    static int64_t winner_bits(const State& s);
    // env i's row of end_scores (MAX_PLAYERS, SCORE_FIELDS), of end_info (`fields` columns)
    static int32_t* end_scores_row(int i, const EnvOut& out);
    static int64_t* end_info_row(int i, const EnvOut& out, int fields);
    float* obs_row(float* obs, int i) const {
        return obs + static_cast<size_t>(i) * static_cast<size_t>(obs_size_);
    }
    Env& env(int i) { return *envs_[static_cast<size_t>(i)]; }
    const Env& env(int i) const { return *envs_[static_cast<size_t>(i)]; }
    const EnvOptions& base_options() const { return options_; }

    std::shared_ptr<const Game> game_;

   private:
    template <typename Fn>
    void run(const int64_t* ids, int count, Fn fn);
    void write_stop(Env& e, int i, const EnvOut& out);

    std::string name_, no_decision_;
    EnvOptions options_;
    std::shared_ptr<const SeatPolicies> policies_;
    int obs_size_ = 0;
    int feature_width_ = 0;
    std::vector<std::unique_ptr<Env>> envs_;
    std::unique_ptr<WorkerPool> pool_;
    mutable std::mutex busy_;  // held by a call; a second thread's call is refused
};

}  // namespace fort
