// The game's random numbers: the C++ twin of fort_env/game/rng.py (its docstring is the spec).
//
// SplitMix64 keyed by (seed, event); below(n) by rejection (no modulo bias); permutation(n)
// by Fisher-Yates, Durstenfeld's form. The test vectors of tests/test_rng.py hold here too
// (cpp/tests/test_core.cc, tests/differential/test_deal.py).
#pragma once

#include <cstdint>
#include <vector>

namespace fort {

inline constexpr uint64_t GAMMA = 0x9E3779B97F4A7C15ULL;  // golden-ratio increment

// The SplitMix64 finaliser: a bijection of 64-bit ints.
uint64_t mix(uint64_t z) noexcept;

// The draws of one random event of one game.
class EventRng {
   public:
    EventRng(uint64_t seed, uint64_t event) noexcept;

    // The next raw 64-bit draw.
    uint64_t next_u64() noexcept;

    // A uniform int in [0, n); n >= 1 (the caller checks; n == 0 returns 0 without drawing).
    uint64_t below(uint64_t n) noexcept;

    // A uniform permutation of 0..n-1 (Fisher-Yates).
    std::vector<int64_t> permutation(int64_t n);

   private:
    uint64_t x_;
};

}  // namespace fort
