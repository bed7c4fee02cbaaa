"""The observation by its active features, as the batched envs write it (``features=True``).

C++ writes, beside each observation, its non-zero entries (indices increasing, values, count)
padded to ``feature_width``: equal to the dense row's non-zeros at every stop of random games
(2-4 players, both setups, both batched envs), the width the Python layout's bound
(``max_active_features``, never exceeded by an observation of either engine), the buffers
checked at the boundary; the network reads them (:class:`PaddedFeatures`) as it reads the dense
rows, and its kept transposed weight follows the weight.
"""

from __future__ import annotations

import numpy as np
import pytest

from fort_env.core import FortGame
from fort_env.envs.self_play import FEATURE_BUFFERS, SelfPlayBatch
from fort_env.envs.vector import random_legal_actions
from fort_env.game.errors import ConfigError
from fort_env.native import backend as cpp_backend
from fort_env.views.observation import max_active_features

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )


def assert_features_match(buffers: dict[str, np.ndarray], obs_name: str = "obs") -> int:
    """Every row's features are its observation's non-zeros (then zeros); returns the widest."""
    obs, index = buffers[obs_name], buffers["features"]
    values, counts = buffers["feature_values"], buffers["feature_counts"]
    widest = 0
    for i in range(obs.shape[0]):
        nonzero = np.flatnonzero(obs[i])
        k = int(counts[i])
        assert k == nonzero.size
        np.testing.assert_array_equal(index[i, :k], nonzero)
        np.testing.assert_array_equal(values[i, :k], obs[i, nonzero])
        assert not index[i, k:].any() and not values[i, k:].any()
        widest = max(widest, k)
    return widest


@pytest.mark.parametrize(
    ("num_players", "setup", "threads"), [(2, "basic", 1), (3, "advanced", 2), (4, "basic", 2)]
)
def test_the_self_play_batchs_features_are_its_observations(
    num_players: int, setup: str, threads: int
) -> None:
    env = SelfPlayBatch(12, num_players=num_players, setup=setup, threads=threads, features=True)
    assert env.feature_width == max_active_features(num_players, env.game)
    assert env.features.shape == env.feature_values.shape == (12, env.feature_width)
    assert env.features.dtype == np.int32 and env.feature_values.dtype == np.float32
    env.reset(7)
    rng = np.random.default_rng(num_players)
    widest = 0
    for _ in range(600):
        widest = max(widest, assert_features_match(env.buffers))
        env.step(random_legal_actions(env.mask, rng))
    assert 50 < widest <= env.feature_width  # real rows, within the bound


def test_the_single_agent_batchs_features_are_its_observations() -> None:
    core = cpp_backend.require()
    game = FortGame(3)
    batch = core.Batch(cpp_backend.core_game(game), 8, threads=2)
    out = batch.buffers(features=True)
    assert set(FEATURE_BUFFERS) <= set(out)
    ids = np.arange(8)
    batch.reset(ids, ids + 3, out)
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert_features_match(out)
        batch.step(ids, random_legal_actions(out["mask"], rng), out)


@pytest.mark.parametrize("backend", ["python", "cpp"])
def test_no_observation_has_more_active_entries_than_the_bound(backend: str) -> None:
    """The bound counts every fixed-size slice's entries, one per card and the played card:
    over random games of both engines no observation of any seat exceeds it."""
    rng = np.random.default_rng(3)
    for num_players in (2, 4):
        game = FortGame(num_players, backend=backend)
        bound = max_active_features(num_players, game)
        assert bound < game.observation_size
        for seed in range(3 if backend == "python" else 10):
            state = game.new_initial_state(seed=seed)
            while not state.is_terminal():
                for p in range(num_players):
                    assert np.count_nonzero(state.observation_tensor(p)) <= bound
                state.apply_action(int(rng.choice(state.legal_actions())))


def test_feature_buffers_are_checked_at_the_boundary() -> None:
    core = cpp_backend.require()
    sp = core.SelfPlay(cpp_backend.core_game(FortGame(2)), 2)
    good = sp.buffers(features=True)
    ids, seeds = np.arange(2), np.array([1, 2])
    for name in FEATURE_BUFFERS:  # one asks for all three
        partial = {k: v for k, v in good.items() if k != name}
        with pytest.raises(ValueError, match=name):
            sp.reset(ids, seeds, partial)
    wrong = dict(good, features=np.zeros((2, sp.feature_width), np.int64))
    with pytest.raises(ValueError, match="features"):
        sp.reset(ids, seeds, wrong)
    narrow = dict(good, feature_values=np.zeros((2, sp.feature_width - 1), np.float32))
    with pytest.raises(ValueError, match="feature_values"):
        sp.reset(ids, seeds, narrow)
    plain = sp.buffers()
    assert not set(FEATURE_BUFFERS) & set(plain)
    sp.reset(ids, seeds, plain)  # without them: not written, no error
    with pytest.raises(ConfigError, match="features"):
        SelfPlayBatch(2, features="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="feature_counts"):
        SelfPlayBatch(2, features=True, buffers=plain)


def test_the_network_reads_padded_features_as_dense_rows() -> None:
    torch = pytest.importorskip("torch")
    from agents.learned.network import ActorCritic, PaddedFeatures

    env = SelfPlayBatch(16, num_players=2, features=True)
    env.reset(3)
    torch.manual_seed(0)
    net = ActorCritic(env.observation_size, env.num_actions, (64, 32))
    widest = int(env.feature_counts.max())
    padded = PaddedFeatures(
        torch.from_numpy(env.features[:, :widest]), torch.from_numpy(env.feature_values[:, :widest])
    )
    dense = torch.from_numpy(env.obs)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    for _ in range(2):  # the kept transpose follows an optimizer step
        with torch.no_grad():
            for got, want in zip(net(padded), net(dense), strict=True):
                torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
        logits, values = net(dense)
        (logits.square().mean() + values.mean()).backward()
        optimizer.step()
        optimizer.zero_grad()
    # with autograd the transpose is taken afresh and gradients reach the first layer
    logits, _ = net(padded)
    logits.sum().backward()
    assert net.trunk[0].weight.grad is not None and net.trunk[0].weight.grad.abs().sum() > 0
