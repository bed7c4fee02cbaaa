// The self-play batch: B games of one Game stepped in one call, in which every seat is a
// sample (fort_env/envs/self_play.py: SelfPlayBatch is its Python face; train/ppo.py learns
// from it; docs/cpp.md "The self-play batch").
//
// Unlike batch.h's single-agent env (one learner seat, its rivals played until its next
// decision), here a step applies one action for whichever seat is to act and stops at the next
// decision of any seat Python plays. Each seat of each game has a code (set_seats):
//   - LEARNER: the learning policy plays it (Python); its decisions are training samples;
//   - EXTERNAL: Python plays it with another policy (a frozen snapshot of the league);
//   - a built-in policy's code (seat_policies.h): played here, never seen by Python.
// A game needs at least one LEARNER or EXTERNAL seat. Every seat starts LEARNER.
//
// Rewards are per seat: `rewards[i, p]` is seat p's reward over the last call's transition
// in env i (from the decision that call applied to the next decision written, or to the end
// of the game): with shaping w != 0, w * (phi_p(s') - phi_p(s)), phi_p = (p's total - best
// rival's total) / SCORE_TRIGGER at consecutive stops s, s' (rewards.h); at the end of a game
// the final reward of every seat is added (rewards.h final_reward). Summed over the steps
// between two decisions of seat p, they telescope to SingleAgentEnv's reward for p's
// transition, so the every-seat returns equal the single-agent env's for each seat.
//
// Seeds and threads as env_batch.h says (what the two batched envs share is its EnvBatch): a
// game that ends before any LEARNER or EXTERNAL decision is dealt again (at most MAX_REDEALS
// times).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fort/envs/env_batch.h"
#include "fort/envs/seat_policies.h"
#include "fort/game/game.h"
#include "fort/game/state.h"

namespace fort {

// EnvOptions (num_envs, first_player, reward: the final reward of every seat, shaping,
// threads): nothing more.
using SelfPlayOptions = EnvOptions;

// Columns of SelfPlayOut::end_info (the game that ended in the last call).
inline constexpr int SP_END_GAME_SEED = 0;  // its game seed
inline constexpr int SP_END_WINNERS = 1;    // bit p set: seat p among the winners
inline constexpr int SP_END_FIELDS = 2;

// The caller's buffers: EnvOut's (env_batch.h: obs, mask, actor, game_seed, done, end_info,
// end_scores) and the seats', one row per env (B rows), C-contiguous; a call writes the rows
// of the envs it lists, and only those. n = num_players.
//   actor      int8    (B,)    the seat to act: a LEARNER or EXTERNAL seat
//   codes      int8    (B, n)  the current game's seat codes (LEARNER, EXTERNAL, a policy's)
//   rewards    float32 (B, n)  each seat's reward over the last call's transition (0 on reset)
//   done       bool    (B,)    a game ended in the last call (the row shows the next game's
//                              first stop; `rewards` include the ended game's final rewards)
//   end_info   int64   (B, 2)  when done: SP_END_* columns of the game that ended
//   end_scores int32   (B, MAX_PLAYERS, SCORE_FIELDS)  when done: its score_breakdown
struct SelfPlayOut : EnvOut {
    int8_t* codes = nullptr;
    float* rewards = nullptr;
};

class SelfPlay final : public EnvBatch {
   public:
    // Throws std::invalid_argument for num_envs < 1, threads < 1, first_player outside
    // [-1, num_players), a non-finite shaping, an unknown reward mode, no game or no
    // policies. `game` must be validated with its rules, mask and views built (a _core.Game
    // is); `policies` plays the built-in seats.
    SelfPlay(std::shared_ptr<const Game> game, const SelfPlayOptions& options,
             std::shared_ptr<const SeatPolicies> policies);

    const SelfPlayOptions& options() const { return base_options(); }

    // The seat codes of env ids[k]'s games from its next deal on: codes[k * n + p] for seat
    // p, LEARNER, EXTERNAL or a built-in policy's code, at least one of them LEARNER or
    // EXTERNAL. Throws std::invalid_argument (nothing changed) for an env id out of range, an
    // unknown code or a row of built-in policies only.
    void set_seats(const int64_t* ids, int count, const int32_t* codes);

    // Deal each listed env a new game and play it to its first LEARNER or EXTERNAL decision;
    // writes the envs' rows (rewards 0, done false). seeds[k] >= 0 re-seeds env ids[k]; -1
    // deals its next game. Throws std::invalid_argument (nothing changed) for an env id out of
    // range or listed twice, a seed below -1, or -1 for an env never seeded;
    // std::runtime_error after the call for an env that failed inside (reset it).
    void reset(const int64_t* ids, int count, const int64_t* seeds, const SelfPlayOut& out) {
        reset_envs(ids, count, seeds, out);
    }

    // Apply actions[k] for the seat to act in env ids[k] (a legal action), play the built-in
    // seats on to the next LEARNER or EXTERNAL decision (dealing the next game when one ends);
    // writes the envs' rows. Throws std::invalid_argument (nothing changed) for an env id out
    // of range or listed twice, an env not reset (or failed), an illegal action;
    // std::runtime_error after the call for an env that failed inside (reset it).
    void step(const int64_t* ids, int count, const int64_t* actions, const SelfPlayOut& out) {
        step_envs(ids, count, actions, out, "");
    }

    // Every seat's observation of each listed env's current position: obs (count, n, D)
    // float32, row k for env ids[k] (what a value bootstrap at the end of a rollout needs).
    // Throws std::invalid_argument for a bad env id or an env not reset.
    void observe(const int64_t* ids, int count, float* obs) const;

    // Env i's current seat codes (length n). Throws std::invalid_argument for i out of range
    // or an env not reset. (state(i): EnvBatch.)
    std::vector<int> seat_codes(int i) const;

   private:
    struct SeatsEnv;
    static SeatsEnv& seats(Env& e);
    void seat_game(Env& e, uint64_t k, bool again) override;
    void on_stop(Env& e, int i, const EnvOut& out, int code) override;
    void on_game_over(Env& e, int i, const EnvOut& out) override;
    void write_seats(const Env& e, int i, const EnvOut& out) override;
    void clear_row(int i, const EnvOut& out) override;
    bool before_action(Env& e, int i, int64_t a, const EnvOut& out) override;
    bool must_be_legal(const Env& e) const override;
};

}  // namespace fort
