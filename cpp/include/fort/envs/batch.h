// The batched vector env: B single-agent games of one Game stepped in one call, the C++ twin of B
// fort_env.envs.single_agent.SingleAgentEnv (a learner seat, opponents acting until the learner's
// next decision, the same rewards), writing into caller-owned buffers (fort_env/envs/vector.py:
// FortBatchVecEnv is the SB3 VecEnv over it; docs/cpp.md "The batched vector env").
//
// Each env holds one game. Its seats are: the learner's (Python acts: SB3's policy), external
// seats (Python acts: a bot or a frozen policy), and built-in seats (a built-in policy,
// seat_policies.h, played here). A step applies one action per listed env for the seat to
// act, then plays the built-in seats until the env waits for the learner or an external seat
// (or the game ends: then the learner's episode is reported done and the env is dealt its next
// game, which is played up to such a seat too: auto-reset, SB3's convention). What the two
// batched envs share is env_batch.h's EnvBatch.
//
// Seeds and threads as env_batch.h says (a game re-dealt because it ended before the learner's
// first decision counts too): the learner sits at BatchOptions::seat, or, rotating, at
// (b mod n + k) mod n, k the episode's first game (a game dealt again keeps the seat and the
// opponents).
//
// Rewards (fort_env.envs.single_agent.SingleAgentEnv, fort_env.envs.aec.final_rewards),
// computed in double and stored as float32: 0 until the game ends, then the learner's final reward (win_loss: +1
// for a winner, -1 else; rank: 1 - 2 k / (n - 1) for place k, ties sharing the mean of their
// places; score_margin: (own total - best rival total) / SCORE_TRIGGER); plus, with shaping
// w != 0, w * (phi(s') - phi(s)) per learner step, phi = (own total - best rival total) / 25,
// s and s' the positions at the learner's consecutive decisions (or the end). An illegal
// learner action ends its episode with reward illegal_reward and nothing applied.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fort/envs/env_batch.h"
#include "fort/envs/seat_policies.h"
#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// EnvOptions (num_envs, first_player, reward, shaping, threads) and the learner's.
struct BatchOptions : EnvOptions {
    int seat = -1;                 // the learner's seat, -1: rotating
    double illegal_reward = -1.0;  // an illegal learner action's reward
};

// Columns of BatchOut::end_info (the episode that ended).
inline constexpr int END_SEAT = 0;       // the learner's seat in it
inline constexpr int END_GAME_SEED = 1;  // its game seed
inline constexpr int END_WINNERS = 2;    // bit p set: seat p among the winners (0: illegal end)
inline constexpr int END_FIELDS = 3;

// The caller's buffers: EnvOut's (env_batch.h: obs, mask, actor, game_seed, done, end_info,
// end_scores) and the learner's, one row per env (B rows), C-contiguous. A call writes the
// rows of the envs it lists, and only those.
//   actor         int8    (B,)    the seat to act: the learner's (`seat`) or an external one
//   seat          int8    (B,)    the learner's seat in the env's current game
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
struct BatchOut : EnvOut {
    int8_t* seat = nullptr;
    float* reward = nullptr;
    bool* illegal = nullptr;
    float* terminal_obs = nullptr;
};

class Batch final : public EnvBatch {
   public:
    // Throws std::invalid_argument for num_envs < 1, threads < 1, a seat or first_player
    // outside [-1, num_players), a non-finite shaping or illegal_reward, no game or no
    // policies. `game` must be validated with its rules, mask and views built (a _core.Game
    // is); `policies` plays the built-in seats.
    Batch(std::shared_ptr<const Game> game, const BatchOptions& options,
          std::shared_ptr<const SeatPolicies> policies);

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
    // the step for an env that failed inside (env_batch.h).
    void reset(const int64_t* ids, int count, const int64_t* seeds, const BatchOut& out) {
        reset_envs(ids, count, seeds, out);
    }

    // Apply actions[k] for the seat to act in env ids[k], then play on as the module comment
    // says; writes every buffer's row of those envs. The learner's action may be anything:
    // one that is not legal (or out of [0, N)) ends its episode (module comment). An external
    // seat's must be legal. Throws std::invalid_argument (nothing changed) for an env id out
    // of range or listed twice, an env not reset yet (or failed), an external seat's illegal
    // action; std::runtime_error after the step for an env that failed inside.
    void step(const int64_t* ids, int count, const int64_t* actions, const BatchOut& out) {
        step_envs(ids, count, actions, out, " (an external seat)");
    }

    // Env i's current per-seat codes (LEARNER, EXTERNAL or a built-in policy's), length n
    // (every seat EXTERNAL before the first reset). Throws std::invalid_argument for i out of
    // range. (state(i): EnvBatch.)
    std::vector<int> seat_codes(int i) const;

   private:
    struct LearnerEnv;
    static LearnerEnv& learner(Env& e);
    static const LearnerEnv& learner(const Env& e);
    void seat_game(Env& e, uint64_t k, bool again) override;
    void on_stop(Env& e, int i, const EnvOut& out, int code) override;
    void on_game_over(Env& e, int i, const EnvOut& out) override;
    void write_seats(const Env& e, int i, const EnvOut& out) override;
    void clear_row(int i, const EnvOut& out) override;
    bool before_action(Env& e, int i, int64_t a, const EnvOut& out) override;
    bool must_be_legal(const Env& e) const override;
    void end_episode(LearnerEnv& e, int i, const BatchOut& out, bool illegal);

    BatchOptions options_;
};

}  // namespace fort
