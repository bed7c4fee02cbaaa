// Playouts (playout.h).
#include "fort/native/playout.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "fort/game/rng.h"
#include "fort/rules/search.h"
#include "fort/views/scoring.h"

namespace fort {

int64_t playout_in_place(State& state, Policy policy, uint64_t seed) {
    const MemoOff no_memo;  // search.h: a playout's positions rarely recur
    int64_t k = 0;
    while (!is_over(state)) {
        if (k >= MAX_PLAYOUT_DECISIONS)
            throw std::runtime_error("playout: the game did not end within " +
                                     std::to_string(MAX_PLAYOUT_DECISIONS) + " decisions");
        EventRng rng(seed, static_cast<uint64_t>(k));
        apply_and_check_end(state, policy_action(policy, state, rng));
        ++k;
    }
    return k;
}

void returns_of(const State& state, double* out) {
    const int n = state.num_players;
    if (!is_over(state)) {
        std::fill(out, out + n, 0.0);
        return;
    }
    std::fill(out, out + n, -1.0);
    for (int p : winners(state)) out[p] = 1.0;
}

PlayoutResult playout(State state, Policy policy, uint64_t seed) {
    PlayoutResult r;
    r.decisions = playout_in_place(state, policy, seed);
    r.returns.resize(static_cast<std::size_t>(state.num_players));
    returns_of(state, r.returns.data());
    return r;
}

namespace {

// Playouts [lo, hi) of a batch; stops at its first error, whose index goes to *error_at.
void run_block(const State& start, Policy policy, uint64_t seed, int64_t lo, int64_t hi,
               double* returns_out, int64_t* decisions_out, int64_t* error_at,
               std::exception_ptr* error) {
    const int np = start.num_players;
    int64_t i = lo;
    try {
        State s = start;  // one copy per block; copy assignment below reuses its arrays
        for (; i < hi; ++i) {
            s = start;
            const int64_t k = playout_in_place(s, policy, seed + static_cast<uint64_t>(i));
            if (decisions_out) decisions_out[i] = k;
            if (returns_out) returns_of(s, returns_out + i * np);
        }
    } catch (...) {  // nothing may escape a thread: kept for the caller to rethrow
        *error_at = i;
        *error = std::current_exception();
    }
}

}  // namespace

void playouts(const State& state, Policy policy, uint64_t seed, int64_t n, int threads,
              double* returns_out, int64_t* decisions_out) {
    if (n <= 0) return;
    const int64_t t = std::max<int64_t>(1, std::min<int64_t>(threads, n));
    std::vector<int64_t> error_at(static_cast<std::size_t>(t), n);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(t));
    auto block = [&](int64_t j) {
        const int64_t lo = n * j / t, hi = n * (j + 1) / t;
        run_block(state, policy, seed, lo, hi, returns_out, decisions_out, &error_at[j],
                  &errors[j]);
    };
    if (t == 1) {
        block(0);
    } else {
        std::vector<std::thread> pool;
        pool.reserve(static_cast<std::size_t>(t - 1));
        try {
            for (int64_t j = 1; j < t; ++j) pool.emplace_back(block, j);
        } catch (...) {  // no thread to be had (std::system_error): join those that started
            for (auto& th : pool) th.join();
            throw;
        }
        block(0);  // the calling thread takes the first block
        for (auto& th : pool) th.join();
    }
    // The lowest failing playout's error, whatever the thread count (each block stops at its
    // first error, and the block holding the lowest one reaches it).
    const auto first = std::min_element(error_at.begin(), error_at.end()) - error_at.begin();
    if (errors[static_cast<std::size_t>(first)]) std::rethrow_exception(errors[first]);
}

}  // namespace fort
