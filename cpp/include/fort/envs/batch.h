// The batched vector env: B single-agent games of one Game stepped in one call, the C++ twin of B
// fort_env.envs.single_agent.SingleAgentEnv (a learner seat, opponents acting until the learner's
// next decision, the same rewards), writing into caller-owned buffers (fort_env/envs/vector.py:
// FortBatchVecEnv is the SB3 VecEnv over it; docs/cpp.md "The batched vector env").
//
// Each env holds one game. Its seats are: the learner's (Python acts: SB3's policy), external
// seats (Python acts: a bot or a frozen policy), and built-in seats (a built-in policy,
// seat_policies.h, played here). A step applies one action per listed env for the seat to act, then plays the built-in
// seats until the env waits for the learner or an external seat (or the game ends: then the
// learner's episode is reported done and the env is dealt its next game, which is played up
// to such a seat too: auto-reset, SB3's convention).
//
// Seeds (reproducible, independent of the thread count and of the other envs):
//   - env i is seeded with a base seed b (an int in [0, 2**63)); its k-th game since then
//     (k = 0, 1, ...; a game re-dealt because it ended before the learner's first decision
//     counts too) is dealt from the game seed EventRng(b, k).below(SEED_LIMIT) (rng.h), with
//     BatchOptions::first_player starting (or the deal's own draw);
//   - the learner sits at BatchOptions::seat, or, rotating, at (b mod n + k) mod n, k the
//     episode's first game (a game dealt again keeps the seat and the opponents);
//   - a built-in policy's j-th decision of a game (j = 0, 1, ... over every built-in seat)
//     draws from EventRng(game_seed ^ POLICY_STREAM, j).
//
// Rewards (fort_env.envs.single_agent.SingleAgentEnv, fort_env.envs.aec.final_rewards), computed in double
// and stored as float32: 0 until the game ends, then the learner's final reward (win_loss: +1
// for a winner, -1 else; rank: 1 - 2 k / (n - 1) for place k, ties sharing the mean of their
// places; score_margin: (own total - best rival total) / SCORE_TRIGGER); plus, with shaping
// w != 0, w * (phi(s') - phi(s)) per learner step, phi = (own total - best rival total) / 25,
// s and s' the positions at the learner's consecutive decisions (or the end). An illegal
// learner action ends its episode with reward illegal_reward and nothing applied.
//
// Threads: the listed envs are shared out over `threads` threads (the caller's and
// threads - 1 workers started with the Batch), an env at a time. Nothing shared is written:
// the Game is const, each env's randomness is in its own state and counters, the search memo
// is per thread (search.h), so the outputs do not depend on the thread count or schedule.
// Errors inside a worker never escape it: an env that fails is reported after the step
// (std::runtime_error naming it) and must be reset.
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

// A seat code (Batch::set_opponents, Batch::seat_codes): a built-in policy's code
// (seat_policies.h), or:
inline constexpr int EXTERNAL = -1;  // Python acts for the seat
inline constexpr int LEARNER = -2;   // the learner's seat (per-seat table only)

// Keys the built-in policies' draws apart from the game's own events (ASCII "policies").
inline constexpr uint64_t POLICY_STREAM = 0x706F6C6963696573ULL;

// A game that ends before the learner's first decision is dealt again, at most this many
// times in a row (SingleAgentEnv.reset's bound; the rules give every seat a turn).
inline constexpr int MAX_REDEALS = 100;

struct BatchOptions {
    int num_envs = 1;                              // B >= 1
    int seat = -1;                                 // the learner's seat, -1: rotating
    int first_player = -1;                         // the seat starting each game, -1: drawn
    RewardMode reward = RewardMode::WIN_LOSS;
    double shaping = 0.0;                          // weight of the score-margin shaping
    double illegal_reward = -1.0;                  // an illegal learner action's reward
    int threads = 1;                               // threads stepping the envs (>= 1)
};

// Columns of BatchOut::end_info (the episode that ended).
inline constexpr int END_SEAT = 0;       // the learner's seat in it
inline constexpr int END_GAME_SEED = 1;  // its game seed
inline constexpr int END_WINNERS = 2;    // bit p set: seat p among the winners (0: illegal end)
inline constexpr int END_FIELDS = 3;

// The caller's buffers, each with one row per env (B rows; row i is env i's), C-contiguous.
// A call writes the rows of the envs it lists, and only those.
//   obs           float32 (B, D)  the observation of the seat to act (`actor`), D =
//                                 observation_size
//   mask          bool    (B, N)  that seat's legal actions, N = num_actions
//   actor         int8    (B,)    the seat to act: the learner's (`seat`) or an external one
//   seat          int8    (B,)    the learner's seat in the env's current game
//   game_seed     int64   (B,)    the current game's seed
//   reward        float32 (B,)    the learner's reward for its last action (set when the env
//                                 next waits for the learner or the episode ends)
//   done          bool    (B,)    the learner's episode ended after its last action
//   illegal       bool    (B,)    ... because that action was illegal
//   terminal_obs  float32 (B, D)  when done: the learner's last observation of the episode
//   end_info      int64   (B, 3)  when done: END_* columns of the episode that ended
//   end_scores    int32   (B, MAX_PLAYERS, SCORE_FIELDS)  when done (not illegal): the ended
//                                 game's score_breakdown, row p seat p's (rewards.h SCORE_*)
// reward, done, illegal are cleared when the learner's action is applied (and by reset), so
// after the learner's step and any external seats' steps they describe the whole transition.
struct BatchOut {
    float* obs = nullptr;
    bool* mask = nullptr;
    int8_t* actor = nullptr;
    int8_t* seat = nullptr;
    int64_t* game_seed = nullptr;
    float* reward = nullptr;
    bool* done = nullptr;
    bool* illegal = nullptr;
    float* terminal_obs = nullptr;
    int64_t* end_info = nullptr;
    int32_t* end_scores = nullptr;
};

class WorkerPool;

class Batch {
   public:
    // Throws std::invalid_argument for num_envs < 1, threads < 1, a seat or first_player
    // outside [-1, num_players), a non-finite shaping or illegal_reward, no game or no
    // policies. `game` must be validated with its rules, mask and views built (a _core.Game
    // is); `policies` plays the built-in seats.
    Batch(std::shared_ptr<const Game> game, const BatchOptions& options,
          std::shared_ptr<const SeatPolicies> policies);
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

    int num_envs() const { return static_cast<int>(envs_.size()); }
    int num_players() const { return game_->num_players; }
    int observation_size() const { return obs_size_; }
    int num_actions() const { return game_->num_actions; }
    int threads() const { return options_.threads; }
    const BatchOptions& options() const { return options_; }

    // The opponents of env ids[k]'s next games, from its next deal on: codes[k * (n - 1) + r]
    // for rival r (the seats other than the learner's, in seat order): a built-in policy's
    // code or EXTERNAL. Every env starts with every rival EXTERNAL. Throws std::invalid_argument
    // (nothing changed) for an env id out of range or an unknown code.
    void set_opponents(const int64_t* ids, int count, const int32_t* codes);

    // Deal a new game in each listed env and play it up to the learner or an external seat;
    // writes every buffer's row of those envs (reward 0, done and illegal false). seeds[k] >= 0
    // re-seeds env ids[k] with that base seed (its game count back to 0); -1 deals the env's
    // next game. Throws std::invalid_argument (nothing changed) for an env id out of range or
    // listed twice, a seed below -1, or -1 for an env never seeded; std::runtime_error after
    // the step for an env that failed inside (module comment).
    void reset(const int64_t* ids, int count, const int64_t* seeds, const BatchOut& out);

    // Apply actions[k] for the seat to act in env ids[k], then play on as the module comment
    // says; writes every buffer's row of those envs. The learner's action may be anything:
    // one that is not legal (or out of [0, N)) ends its episode (module comment). An external
    // seat's must be legal. Throws std::invalid_argument (nothing changed) for an env id out
    // of range or listed twice, an env not reset yet (or failed), an external seat's illegal
    // action; std::runtime_error after the step for an env that failed inside.
    void step(const int64_t* ids, int count, const int64_t* actions, const BatchOut& out);

    // A copy of env i's current state. Throws std::invalid_argument for i out of range or an
    // env not reset yet.
    State state(int i) const;

    // Env i's current per-seat codes (LEARNER, EXTERNAL or a built-in policy's), length n.
    std::vector<int> seat_codes(int i) const;

   private:
    struct Env;
    void check_ids(const int64_t* ids, int count) const;
    void run(int count, void (Batch::*fn)(int, int, const int64_t*, const int64_t*,
                                         const BatchOut&),
             const int64_t* ids, const int64_t* values, const BatchOut& out);
    void reset_one(int k, int i, const int64_t* ids, const int64_t* seeds, const BatchOut& out);
    void step_one(int k, int i, const int64_t* ids, const int64_t* actions, const BatchOut& out);
    void deal(Env& e, bool new_episode);
    void play_on(Env& e, int i, const BatchOut& out);
    void end_episode(Env& e, int i, const BatchOut& out, bool illegal);
    void write_actor(Env& e, int i, const BatchOut& out);
    double potential(const State& s, int seat) const;
    double final_reward(const State& s, int seat) const;

    std::shared_ptr<const Game> game_;
    BatchOptions options_;
    std::shared_ptr<const SeatPolicies> policies_;
    int obs_size_ = 0;
    std::vector<std::unique_ptr<Env>> envs_;
    std::unique_ptr<WorkerPool> pool_;
    mutable std::mutex busy_;  // held by a call; a second thread's call is refused
};

}  // namespace fort
