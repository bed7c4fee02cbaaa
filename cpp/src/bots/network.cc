// The forward pass of the policy-value network (see include/fort/bots/network.h).
#include "fort/bots/network.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace fort {

namespace {

size_t sz(int n) { return static_cast<size_t>(n); }

void check_finite(const float* p, size_t n, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(p[i]))
            throw std::invalid_argument(std::string("network: ") + what +
                                        " has a value that is not finite at flat index " +
                                        std::to_string(i));
}

void check_size(int n, const char* what) {
    if (n < 1)
        throw std::invalid_argument(std::string("network: ") + what + " must be at least 1, got " +
                                    std::to_string(n));
}

// The hot loops are compiled twice, for x86-64's baseline (SSE2) and for AVX2 with FMA (most
// x86 machines since 2013), the loader picking one at start-up (GCC's function multiversioning):
// the wider registers cut a forward pass by about a quarter where the CPU has them. Both do the
// same operations in the same order (CMake keeps FMA contraction off for this file), so they
// give the same bits.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FORT_VECTOR_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define FORT_VECTOR_CLONES
#endif

// y[0..n) += a * w[0..n): the inner loop of every layer (the compiler vectorises it).
inline void axpy(int n, float a, const float* __restrict w, float* __restrict y) {
    for (int i = 0; i < n; ++i) y[i] += a * w[i];
}

// y (k, L.out) = act(W x + b) for x (k, L.in), skipping zero inputs (network.h "Speed").
FORT_VECTOR_CLONES void dense(const DenseLayer& L, Activation act, const float* x, int k, float* y) {
    for (int r = 0; r < k; ++r) std::copy(L.bias.begin(), L.bias.end(), y + sz(r) * sz(L.out));
    for (int j = 0; j < L.in; ++j) {
        const float* w = L.weight_t.data() + sz(j) * sz(L.out);
        for (int r = 0; r < k; ++r) {
            const float xv = x[sz(r) * sz(L.in) + sz(j)];
            if (xv != 0.0f) axpy(L.out, xv, w, y + sz(r) * sz(L.out));
        }
    }
    const size_t n = sz(k) * sz(L.out);
    if (act == Activation::RELU) {
        for (size_t i = 0; i < n; ++i) y[i] = std::max(y[i], 0.0f);
    } else {
        for (size_t i = 0; i < n; ++i) y[i] = std::tanh(y[i]);
    }
}

// sum a[i] b[i]: eight partial sums, so that the compiler may vectorise the loop (one running
// sum would fix the order of the additions and keep it scalar).
FORT_VECTOR_CLONES float dot(int n, const float* __restrict a, const float* __restrict b) {
    constexpr int LANES = 8;
    float acc[LANES] = {};
    int i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int j = 0; j < LANES; ++j) acc[j] += a[i + j] * b[i + j];
    float total = 0.0f;
    for (; i < n; ++i) total += a[i] * b[i];
    for (int j = 0; j < LANES; ++j) total += acc[j];
    return total;
}

}  // namespace

DenseLayer DenseLayer::from_torch(int out, int in, const float* w, const float* b) {
    check_size(out, "a layer's output width");
    check_size(in, "a layer's input width");
    check_finite(w, sz(out) * sz(in), "a layer's weight");
    check_finite(b, sz(out), "a layer's bias");
    DenseLayer L;
    L.in = in;
    L.out = out;
    L.weight_t.resize(sz(in) * sz(out));
    for (int i = 0; i < out; ++i)
        for (int j = 0; j < in; ++j) L.weight_t[sz(j) * sz(out) + sz(i)] = w[sz(i) * sz(in) + sz(j)];
    L.bias.assign(b, b + out);
    return L;
}

Head Head::from_torch(int rows, int in, const float* w, const float* b) {
    check_size(rows, "a head's rows");
    check_size(in, "a head's input width");
    check_finite(w, sz(rows) * sz(in), "a head's weight");
    check_finite(b, sz(rows), "a head's bias");
    Head h;
    h.rows = rows;
    h.in = in;
    h.weight.assign(w, w + sz(rows) * sz(in));
    h.bias.assign(b, b + rows);
    return h;
}

PolicyValueNet::PolicyValueNet(int observation_size, int num_actions, Activation activation,
                               std::vector<DenseLayer> trunk, std::vector<DenseLayer> policy_tower,
                               std::vector<DenseLayer> value_tower, Head policy_head,
                               Head value_head)
    : observation_size_(observation_size),
      num_actions_(num_actions),
      activation_(activation),
      trunk_(std::move(trunk)),
      policy_tower_(std::move(policy_tower)),
      value_tower_(std::move(value_tower)),
      policy_head_(std::move(policy_head)),
      value_head_(std::move(value_head)) {
    check_size(observation_size, "observation_size");
    check_size(num_actions, "num_actions");
    if (activation != Activation::RELU && activation != Activation::TANH)
        throw std::invalid_argument("network: unknown activation code " +
                                    std::to_string(static_cast<int>(activation)));
    auto chain = [](const std::vector<DenseLayer>& layers, int width, const char* side) {
        for (size_t i = 0; i < layers.size(); ++i) {
            if (layers[i].in != width)
                throw std::invalid_argument(std::string("network: ") + side + " layer " +
                                            std::to_string(i) + " reads " +
                                            std::to_string(layers[i].in) + " inputs, but " +
                                            std::to_string(width) + " come to it");
            width = layers[i].out;
        }
        return width;
    };
    const int base = chain(trunk_, observation_size, "trunk");
    const int p = chain(policy_tower_, base, "policy tower");
    const int v = chain(value_tower_, base, "value tower");
    if (policy_head_.rows != num_actions || policy_head_.in != p)
        throw std::invalid_argument("network: the policy head is (" +
                                    std::to_string(policy_head_.rows) + ", " +
                                    std::to_string(policy_head_.in) + "), expected (" +
                                    std::to_string(num_actions) + ", " + std::to_string(p) + ")");
    if (value_head_.rows != 1 || value_head_.in != v)
        throw std::invalid_argument("network: the value head is (" +
                                    std::to_string(value_head_.rows) + ", " +
                                    std::to_string(value_head_.in) + "), expected (1, " +
                                    std::to_string(v) + ")");
}

const float* PolicyValueNet::run(const std::vector<DenseLayer>& layers, const float* in, int k,
                                 std::vector<float>& x, std::vector<float>& y) const {
    const float* cur = in;
    bool into_x = true;
    for (const DenseLayer& L : layers) {
        std::vector<float>& dst = into_x ? x : y;
        if (dst.size() < sz(k) * sz(L.out)) dst.resize(sz(k) * sz(L.out));
        dense(L, activation_, cur, k, dst.data());
        cur = dst.data();
        into_x = !into_x;
    }
    return cur;
}

void PolicyValueNet::features(const float* obs, int k, NetScratch& s) const {
    // the trunk in a/b, the towers in c/d: a tower must not write over the trunk's output
    const float* base = trunk_.empty() ? obs : run(trunk_, obs, k, s.a, s.b);
    const float* p = policy_tower_.empty() ? base : run(policy_tower_, base, k, s.c, s.d);
    s.policy_feat.assign(p, p + sz(k) * sz(policy_head_.in));
    const float* v = value_tower_.empty() ? base : run(value_tower_, base, k, s.c, s.d);
    s.value_feat.assign(v, v + sz(k) * sz(value_head_.in));
}

float PolicyValueNet::logit(const NetScratch& s, int r, int action) const {
    const int n = policy_head_.in;
    return policy_head_.bias[sz(action)] + dot(n, policy_head_.weight.data() + sz(action) * sz(n),
                                               s.policy_feat.data() + sz(r) * sz(n));
}

float PolicyValueNet::value(const NetScratch& s, int r) const {
    const int n = value_head_.in;
    return value_head_.bias[0] +
           dot(n, value_head_.weight.data(), s.value_feat.data() + sz(r) * sz(n));
}

void PolicyValueNet::forward(const float* obs, int k, float* logits, float* values,
                             NetScratch& s) const {
    features(obs, k, s);
    for (int r = 0; r < k; ++r) {
        if (logits != nullptr)
            for (int a = 0; a < num_actions_; ++a)
                logits[sz(r) * sz(num_actions_) + sz(a)] = logit(s, r, a);
        if (values != nullptr) values[r] = value(s, r);
    }
}

}  // namespace fort
