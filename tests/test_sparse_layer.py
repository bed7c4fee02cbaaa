"""The sparse first layer (``agents.learned.network``: ``active_features``,
``sparse_observations``, ``sparse_linear``; issue 41, item 3).

- ``sparse_linear`` equals the dense ``F.linear`` within 1e-5, outputs and the weight's and
  bias's gradients, on random sparse observations shaped like Fort's (1,482 features, a few
  dozen active, some of them not 0/1, some rows empty), at several batch sizes, read from
  ``active_features`` at the batch's own width, with extra padding, and from hand-made padded
  rows (features out of order, padding in between, padding entries with non-zero indices);
- an ``ActorCritic`` gives the same logits, values and parameter gradients from the sparse
  and the dense observations, and its tensors (the policy file's) are the same either way;
- ``train.ppo_ops.legal_actions``: the log-softmax over a sample's legal actions' logits equals
  the masked log-softmax over all of them (log-probabilities and entropy);
- the lean PPO's update (``train.ppo.LeanPPO``) gives the same losses and weights within 1e-5
  with ``sparse_input`` and ``legal_logits`` on and off.
"""

from __future__ import annotations

import copy

import pytest

pytest.importorskip("torch")

import torch
from torch.nn import functional as F

from agents.learned.network import (
    ActorCritic,
    SparseObservations,
    active_features,
    actor_critic_shapes,
    sparse_linear,
    sparse_observations,
)

D = 1482  # Fort's observation size (2 players, basic setup)
ATOL = 1e-5


def random_observations(rows: int, seed: int, size: int = D) -> torch.Tensor:
    """Fort-like observations: 0 to 99 active features a row (row 0 has none), mostly 1.0, a
    few (up to 16 a row) other values, positive and negative."""
    g = torch.Generator().manual_seed(seed)
    obs = torch.zeros(rows, size)
    for r in range(1, rows):
        active = int(torch.randint(0, 100, (1,), generator=g))
        cols = torch.randperm(size, generator=g)[:active]
        obs[r, cols] = 1.0
        odd = cols[: int(torch.randint(0, 17, (1,), generator=g))]
        obs[r, odd] = (torch.rand(len(odd), generator=g) * 6 - 2).masked_fill_(
            torch.rand(len(odd), generator=g) < 0.1, 0.5
        )
    return obs


def layer(seed: int, size: int = D, width: int = 256) -> torch.nn.Linear:
    torch.manual_seed(seed)
    lin = torch.nn.Linear(size, width)
    torch.nn.init.normal_(lin.bias)  # non-zero biases: their gradient is checked too
    return lin


def outputs_and_grads(
    lin: torch.nn.Linear, x: torch.Tensor | SparseObservations, upstream: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    lin.zero_grad(set_to_none=True)
    if isinstance(x, SparseObservations):
        out = sparse_linear(x, lin.weight, lin.bias)
    else:
        out = F.linear(x, lin.weight, lin.bias)
    (out * upstream).sum().backward()
    assert lin.weight.grad is not None and lin.bias.grad is not None
    return out.detach(), lin.weight.grad.clone(), lin.bias.grad.clone()


def assert_same(got: tuple[torch.Tensor, ...], want: tuple[torch.Tensor, ...]) -> None:
    for a, b in zip(got, want, strict=True):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b, atol=ATOL, rtol=ATOL)


@pytest.mark.parametrize("rows", [1, 7, 64, 1024])
@pytest.mark.parametrize("extra", [0, 13])
def test_sparse_linear_equals_the_dense_layer(rows: int, extra: int) -> None:
    x = random_observations(rows, seed=rows + extra)
    lin = layer(seed=rows)
    # a mean over the batch upstream, as the PPO losses give
    upstream = torch.randn(rows, 256, generator=torch.Generator().manual_seed(1)) / rows
    want = outputs_and_grads(lin, x, upstream)
    most = int((x != 0).sum(1).max())
    indices, values = active_features(x, None if extra == 0 else most + extra)
    assert indices.shape == values.shape == (rows, most + extra)
    assert indices.dtype == torch.int64 and values.dtype == x.dtype
    sparse = sparse_observations(indices, values, D)
    assert sparse.num_rows == rows and sparse.size == D
    assert torch.equal(sparse.dense(), x)
    assert_same(outputs_and_grads(lin, sparse, upstream), want)


def test_hand_made_padding_and_order() -> None:
    """Padding (value 0) anywhere in a row and with any index, features in any order, a
    feature repeated in a row (its values add up)."""
    x = random_observations(32, seed=5)
    lin = layer(seed=5)
    upstream = torch.randn(32, 256) / 32
    width = 120
    indices = torch.randint(0, D, (32, width))  # padding entries keep these random indices
    values = torch.zeros(32, width)
    g = torch.Generator().manual_seed(6)
    for r in range(32):
        cols = (x[r] != 0).nonzero()[:, 0]
        slots = torch.randperm(width, generator=g)[: len(cols)]
        indices[r, slots] = cols[torch.randperm(len(cols), generator=g)]
        values[r, slots] = x[r, indices[r, slots]]
    # row 3: one feature split over two entries
    free = (values[3] == 0).nonzero()[:2, 0]
    indices[3, free] = 17
    values[3, free] = torch.tensor([0.25, 1.5])
    x[3, 17] += 1.75
    sparse = sparse_observations(indices, values, D)
    torch.testing.assert_close(sparse.dense(), x)
    assert_same(outputs_and_grads(lin, sparse, upstream), outputs_and_grads(lin, x, upstream))


def test_empty_rows_and_batches() -> None:
    lin = layer(seed=2, size=50, width=8)
    for x in (torch.zeros(5, 50), torch.zeros(0, 50)):
        indices, values = active_features(x)
        assert indices.shape == (x.shape[0], 0)
        sparse = sparse_observations(indices, values, 50)
        upstream = torch.ones(x.shape[0], 8)
        assert_same(outputs_and_grads(lin, sparse, upstream), outputs_and_grads(lin, x, upstream))


def test_bad_inputs_are_errors() -> None:
    x = random_observations(4, seed=3, size=40)
    most = int((x != 0).sum(1).max())
    with pytest.raises(ValueError, match="more than the width"):
        active_features(x, most - 1)
    with pytest.raises(ValueError, match=r"\(K, D\)"):
        active_features(x[0])
    indices, values = active_features(x)
    with pytest.raises(ValueError, match=r"\(K, W\)"):
        sparse_observations(indices, values[:, :-1], 40)
    with pytest.raises(ValueError, match="does not read"):
        sparse_linear(sparse_observations(indices, values, 40), torch.zeros(8, 41))


@pytest.mark.parametrize("rows", [3, 256])
def test_actor_critic_reads_sparse_observations(rows: int) -> None:
    """Same logits, values and gradients of every parameter from either input; the tensors (the
    policy file's) are the dense network's, so a file loads into either use."""
    torch.manual_seed(0)
    net = ActorCritic(D, 676, (64, 32))
    assert {k: tuple(v.shape) for k, v in net.state_dict().items()} == actor_critic_shapes(
        D, 676, (64, 32)
    )
    x = random_observations(rows, seed=11)
    sparse = sparse_observations(*active_features(x), D)

    def run(obs: torch.Tensor | SparseObservations) -> list[torch.Tensor]:
        net.zero_grad(set_to_none=True)
        logits, values = net(obs)
        loss = F.log_softmax(logits, dim=1)[:, :5].mean() + values.square().mean()
        loss.backward()
        grads = [p.grad.clone() for p in net.parameters() if p.grad is not None]
        assert len(grads) == len(list(net.parameters()))
        return [logits.detach(), values.detach(), *grads]

    assert_same(tuple(run(sparse)), tuple(run(x)))
    with torch.no_grad():
        torch.testing.assert_close(
            net.action_logits(sparse), net.action_logits(x), atol=ATOL, rtol=0
        )
        torch.testing.assert_close(net.state_values(sparse), net.state_values(x), atol=ATOL, rtol=0)
    loaded = ActorCritic(D, 676, (64, 32))
    loaded.load_state_dict(net.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(loaded(sparse)[0], net(x)[0], atol=ATOL, rtol=0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_sparse_linear_on_cuda() -> None:
    x = random_observations(512, seed=9).cuda()
    lin = layer(seed=9).cuda()
    upstream = (torch.randn(512, 256) / 512).cuda()
    sparse = sparse_observations(*active_features(x), D)
    assert_same(outputs_and_grads(lin, sparse, upstream), outputs_and_grads(lin, x, upstream))


def test_legal_actions_give_the_masked_log_softmax() -> None:
    from train.ppo_ops import MASKED_LOGIT, legal_actions, masked_logits

    g = torch.Generator().manual_seed(4)
    mask = torch.rand(50, 676, generator=g) < 0.01
    mask[torch.arange(50), torch.randint(0, 676, (50,), generator=g)] = True  # one at least
    actions = torch.multinomial(mask.float(), 1, generator=g)[:, 0]
    logits = torch.randn(50, 676, generator=g) * 3
    legal, padding, position = legal_actions(mask, actions)
    assert legal.shape == padding.shape == (50, int(mask.sum(1).max()))
    assert torch.equal((~padding).sum(1), mask.sum(1))
    assert torch.equal(legal.gather(1, position[:, None])[:, 0], actions)
    full = F.log_softmax(masked_logits(logits, mask), dim=1)
    short = F.log_softmax(logits.gather(1, legal).masked_fill(padding, MASKED_LOGIT), dim=1)
    torch.testing.assert_close(short.gather(1, position[:, None]), full.gather(1, actions[:, None]))
    entropy = [-(lp.exp() * lp).sum(1) for lp in (short, full)]
    torch.testing.assert_close(entropy[0], entropy[1])


def test_lean_ppo_update_is_the_same_sparse_or_dense() -> None:
    """One update (two epochs) from the same rollout and state with the sparse first layer
    (the active features C++ wrote) and the legal-only log-softmax on and off: the same losses
    and weights within 1e-5. The dense update reads the rollout's observations rebuilt from
    those features."""
    pytest.importorskip("stable_baselines3")
    from fort_env.native import backend as cpp_backend

    if not cpp_backend.available():  # pragma: no cover
        pytest.skip(f"compiled core not usable: {cpp_backend.why_unavailable()}")
    from train.ppo import LeanPPO
    from train.selfplay import League, make_config

    cfg = make_config("tiny", algo="ppo", n_envs=4, n_steps=32, num_players=3, n_epochs=2)
    ppo = LeanPPO(cfg, League({"random": 1.0}), "cpu")
    assert ppo.sparse_input and ppo.legal_logits  # the CPU's defaults
    ppo.reset(0)
    adv = ppo.collect()
    steps, envs, _ = ppo.features.shape
    dense = torch.zeros((steps, envs, ppo.env.observation_size))
    dense.scatter_add_(2, ppo.features.long(), ppo.feature_values)  # padding adds 0 at 0
    assert int((dense != 0).sum(2).max()) == ppo._widest  # the rollout's widest row
    start = copy.deepcopy(ppo.net.state_dict()), ppo.generator.get_state()
    results = {}
    for sparse, legal in [(False, False), (True, False), (False, True), (True, True)]:
        ppo.net.load_state_dict(start[0])
        ppo.optimizer = torch.optim.Adam(ppo.net.parameters(), lr=1e-3, eps=1e-5)
        ppo.generator.set_state(start[1])
        ppo.sparse_input, ppo.legal_logits = sparse, legal
        ppo.obs = torch.zeros((0,)) if sparse else dense
        stats = ppo.update(adv, 1e-3)
        results[sparse, legal] = stats, copy.deepcopy(ppo.net.state_dict())
    dense_stats, dense_net = results[False, False]
    for key, (stats, net) in results.items():
        assert stats.keys() == dense_stats.keys()
        for k, v in dense_stats.items():
            assert stats[k] == pytest.approx(v, abs=1e-5), (key, k)
        for name, tensor in dense_net.items():
            torch.testing.assert_close(net[name], tensor, atol=1e-5, rtol=1e-5, msg=str(key))
