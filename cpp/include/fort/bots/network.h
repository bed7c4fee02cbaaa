// A policy-value network on the compiled core: the forward pass of the networks the trainer
// writes, for the search of puct.h. Two shapes are covered by one description:
//
// - agents/learned/network.py ActorCritic (`fort-env train --algo ppo`): a shared trunk of
//   dense layers, then a policy head (logits over the N actions) and a value head;
// - SB3's MaskablePPO MlpPolicy (`--algo maskable_ppo`): no shared trunk, a policy tower and a
//   value tower of dense layers, then the heads (action_net, value_net).
//
// In both, a hidden layer is y = act(W x + b) with W of shape (out, in) as torch stores it.
// agents/learned/core_network.py maps a policy file's tensors onto this description; the
// differential test (tests/test_core_network.py) holds the forward pass to torch's within
// 1e-4 on observations from random games, for every architecture the trainer writes.
//
// Speed: the observation is mostly zeros (one-hot codes; ~96% zeros in play), and so is a
// ReLU layer's output, so a layer adds, for each non-zero input x_j, x_j times row j of the
// transposed weights (contiguous, vectorised by the compiler) instead of a dense
// matrix-vector product; the cost follows the non-zeros. A batch of rows is taken one weight
// row at a time, so each row of weights is read once per batch (puct.h batches leaves).
// The policy head is evaluated only for the actions asked for (the legal ones).
//
// Units: observations float32 (observation.h); logits float32; values float32 in the units
// the value head was trained on (win_loss returns, -1..1).
#pragma once

#include <cstdint>
#include <vector>

namespace fort {

enum class Activation : int { RELU = 0, TANH = 1 };

// One dense layer. weight_t is W transposed, (in, out) row-major: weight_t[j * out + i] =
// W[i][j], so that row j holds what input j adds to every output.
struct DenseLayer {
    int in = 0;
    int out = 0;
    std::vector<float> weight_t;
    std::vector<float> bias;

    // From torch's W (out, in) row-major and b (out,). Throws std::invalid_argument on sizes
    // that disagree or a value that is not finite.
    static DenseLayer from_torch(int out, int in, const float* w, const float* b);
};

// A head: W (rows, in) kept in torch's layout, so one row (one action's logit) is one
// contiguous dot product.
struct Head {
    int rows = 0;
    int in = 0;
    std::vector<float> weight;
    std::vector<float> bias;

    static Head from_torch(int rows, int in, const float* w, const float* b);
};

// Per-thread working memory of PolicyValueNet::features (no allocation once warm).
struct NetScratch {
    std::vector<float> a, b, c, d;   // ping-pong buffers: the trunk's (a, b), the towers' (c, d)
    std::vector<float> policy_feat;  // (k, policy features)
    std::vector<float> value_feat;   // (k, value features)
};

class PolicyValueNet {
  public:
    // Throws std::invalid_argument when the layers do not chain (each layer's `in` is the
    // previous one's `out`; the first reads observation_size; the heads read the last layer of
    // their side), the policy head's rows are not num_actions, the value head has not one row,
    // or a size is below 1.
    PolicyValueNet(int observation_size, int num_actions, Activation activation,
                   std::vector<DenseLayer> trunk, std::vector<DenseLayer> policy_tower,
                   std::vector<DenseLayer> value_tower, Head policy_head, Head value_head);

    int observation_size() const { return observation_size_; }
    int num_actions() const { return num_actions_; }

    // The features the heads read, for k observations obs (k, observation_size) row-major:
    // into s.policy_feat (k, policy_width()) and s.value_feat (k, value_width()).
    void features(const float* obs, int k, NetScratch& s) const;
    int policy_width() const { return policy_head_.in; }
    int value_width() const { return value_head_.in; }

    // After features(): row r's logit of `action` (0 <= action < num_actions) and value.
    float logit(const NetScratch& s, int r, int action) const;
    float value(const NetScratch& s, int r) const;

    // The whole forward pass: logits (k, num_actions) and values (k,), either may be null.
    void forward(const float* obs, int k, float* logits, float* values, NetScratch& s) const;

  private:
    // The layers of one side on k rows from `in` (the observation or a buffer), alternating
    // between x and y; returns where the last layer wrote.
    const float* run(const std::vector<DenseLayer>& layers, const float* in, int k,
                     std::vector<float>& x, std::vector<float>& y) const;

    int observation_size_;
    int num_actions_;
    Activation activation_;
    std::vector<DenseLayer> trunk_, policy_tower_, value_tower_;
    Head policy_head_, value_head_;
};

}  // namespace fort
