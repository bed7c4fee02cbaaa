// fort_env/game/rng.py in C++ (see include/fort/game/rng.h).
#include "fort/game/rng.h"

#include <cstddef>
#include <numeric>
#include <utility>

namespace fort {

uint64_t mix(uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

EventRng::EventRng(uint64_t seed, uint64_t event) noexcept : x_(mix(seed ^ mix(event + GAMMA))) {}

uint64_t EventRng::next_u64() noexcept {
    x_ += GAMMA;
    return mix(x_);
}

uint64_t EventRng::below(uint64_t n) noexcept {
    if (n == 0) return 0;
    // limit = 2**64 - (2**64 % n); 2**64 % n == (2**64 - n) % n, computed without overflow.
    // A draw r is accepted iff r < limit, i.e. iff r <= UINT64_MAX - (2**64 % n).
    const uint64_t rem = (0 - n) % n;
    const uint64_t max_ok = UINT64_MAX - rem;
    while (true) {
        const uint64_t r = next_u64();
        if (r <= max_ok) return r % n;
    }
}

std::vector<int64_t> EventRng::permutation(int64_t n) {
    std::vector<int64_t> a(n > 0 ? static_cast<std::size_t>(n) : 0);
    std::iota(a.begin(), a.end(), int64_t{0});
    for (int64_t i = n - 1; i > 0; --i) {
        const auto j = static_cast<int64_t>(below(static_cast<uint64_t>(i) + 1));
        std::swap(a[i], a[j]);
    }
    return a;
}

}  // namespace fort
