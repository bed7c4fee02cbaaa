"""The project's own actor-critic network: one shared MLP trunk, a policy head and a value head.

``train.ppo`` (the lean PPO, ``fort-env train --algo ppo``) learns it; a saved one is a
``fort-env-policy`` file like MaskablePPO's (``agents.learned.policy_file``: network kind
``ActorCritic``), played by ``agents.make("ppo:PATH")``. Sharing the trunk halves the cost of
a forward and backward pass against SB3's two towers of the same widths (CleanRL's Atari PPO
shares its trunk the same way; docs/agents.md has the measured ablation).

Shapes: observations float32 ``(K, D)``; logits float32 ``(K, N)``; values float32 ``(K,)``.
Tensor names (the safetensors file): ``trunk.{2i}.weight`` ``(width_i, width_{i-1})`` and
``trunk.{2i}.bias`` for hidden layer i (``nn.Sequential`` of Linear and activation),
``policy_head.weight`` ``(N, last)``, ``policy_head.bias``, ``value_head.weight`` ``(1, last)``,
``value_head.bias``.

The whole-table critic (optional, ``critic=`` widths): an MLP of its own that reads the *table
observation* of a seat, float32 ``(K, n * D)``: every seat's observation of the position, the
seat's own first, then the next seats in turn order (``fort_env.views.table``). It sees every
hand, Lookout and Pack (never the deck's order): the critic of *perfect-training,
imperfect-execution* (PerfectDou, NeurIPS 2022; the asymmetric actor-critic of Pinto et al.
2018). Only training and the search's leaves use it; the policy never reads it, so a network
plays the same with or without one. Tensors ``critic.{2i}.weight`` / ``.bias`` for its hidden
layers and ``critic_head.weight`` ``(1, last)`` / ``.bias``.

Sparse observations (:class:`SparseObservations`): an observation is 1,482 floats of which
about 50-70 are non-zero (at most 99), so the trunk's first layer may read a batch as its
*active features* instead: :func:`active_features` gives each row's (index, value) pairs
padded to one width, :func:`sparse_observations` indexes them for the layer, and
:func:`sparse_linear` computes ``x @ weight.T + bias`` from them with ``embedding_bag`` sums,
forward and backward, reading the dense layer's own ``weight`` and ``bias``: a network's
tensors and policy file are the same whichever input it is given, and
:meth:`ActorCritic.forward` takes either (equal within 1e-5, gradients too:
``tests/test_sparse_layer.py``). ``train.ppo``'s update uses it on a CPU (docs/performance.md,
"A sparse first layer": about 3x faster than the dense layer there, slower on a GPU).
:class:`PaddedFeatures` is the same input as the batched envs write it (C++ finds each row's
active entries as it writes the observation: ``SelfPlayBatch(features=True)``): the forward
pass reads it with one ``embedding_bag`` over the first layer's transposed weight, kept
between calls while the weight is unchanged (for acting: no gradient to the values).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

__all__ = [
    "KIND",
    "ActorCritic",
    "Observations",
    "PaddedFeatures",
    "SparseObservations",
    "active_features",
    "actor_critic_shapes",
    "sparse_linear",
    "sparse_observations",
]

KIND = "ActorCritic"
"""The ``network.policy`` value of a description of this network."""


def actor_critic_shapes(
    observation_size: int,
    num_actions: int,
    trunk: Sequence[int],
    critic: Sequence[int] = (),
    table_size: int = 0,
) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` shapes of an :class:`ActorCritic`, computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    prev = observation_size
    for i, width in enumerate(trunk):
        shapes[f"trunk.{2 * i}.weight"] = (width, prev)
        shapes[f"trunk.{2 * i}.bias"] = (width,)
        prev = width
    shapes["policy_head.weight"] = (num_actions, prev)
    shapes["policy_head.bias"] = (num_actions,)
    shapes["value_head.weight"] = (1, prev)
    shapes["value_head.bias"] = (1,)
    prev = table_size
    for i, width in enumerate(critic):
        shapes[f"critic.{2 * i}.weight"] = (width, prev)
        shapes[f"critic.{2 * i}.bias"] = (width,)
        prev = width
    if critic:
        shapes["critic_head.weight"] = (1, prev)
        shapes["critic_head.bias"] = (1,)
    return shapes


class SparseObservations(NamedTuple):
    """K observations of size D by their active (non-zero) features, indexed both ways: by
    row (the layer's forward pass) and by feature (its weight gradient). Build it with
    :func:`sparse_observations`.

    The entries (one per active feature of a row) are stored row by row in ``columns`` /
    ``values``, row k's at ``row_offsets[k]:row_offsets[k + 1]``; the same entries sorted by
    feature (stable) in ``rows_by_column`` / ``values_by_column``, feature j's at
    ``column_offsets[j]:column_offsets[j + 1]``.
    """

    columns: torch.Tensor
    """int64 ``(nnz,)``: each entry's feature."""
    values: torch.Tensor
    """``(nnz,)``: each entry's value (the observation's dtype)."""
    row_offsets: torch.Tensor
    """int64 ``(K + 1,)``."""
    rows_by_column: torch.Tensor
    """int64 ``(nnz,)``: the entries' rows, in feature order."""
    values_by_column: torch.Tensor
    """``(nnz,)``: the entries' values, in feature order."""
    column_offsets: torch.Tensor
    """int64 ``(D + 1,)``."""

    @property
    def num_rows(self) -> int:
        """K."""
        return int(self.row_offsets.shape[0]) - 1

    @property
    def size(self) -> int:
        """D."""
        return int(self.column_offsets.shape[0]) - 1

    def dense(self) -> torch.Tensor:
        """The observations as a dense ``(K, D)`` tensor (tests, debugging)."""
        k = self.num_rows
        counts = self.row_offsets[1:] - self.row_offsets[:-1]
        rows = torch.arange(k, device=self.columns.device).repeat_interleave(counts)
        out = torch.zeros((k, self.size), dtype=self.values.dtype, device=self.values.device)
        return out.index_put_((rows, self.columns), self.values, accumulate=True)


class PaddedFeatures(NamedTuple):
    """K observations by their active features padded to one width W: row k's non-zero
    entries are ``values[k, j]`` at feature ``indices[k, j]``; an entry whose value is 0 is
    padding, whatever its index (the form of :func:`active_features`, and of the batched envs'
    ``features``/``feature_values`` buffers)."""

    indices: torch.Tensor
    """int32 or int64 ``(K, W)``."""
    values: torch.Tensor
    """``(K, W)``, the first layer's dtype."""


Observations = torch.Tensor | SparseObservations | PaddedFeatures
"""What the trunk reads: dense ``(K, D)`` observations, :class:`SparseObservations` or
:class:`PaddedFeatures`."""


def active_features(
    obs: torch.Tensor, width: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's active features, padded to one width: ``(indices, values)``, both ``(K, W)``
    (int64 and ``obs``'s dtype), a row's features in increasing order, then padding (index 0,
    value 0) up to ``W``. ``W`` is ``width``, or the most active features of a row.

    Raises:
        ValueError: ``obs`` is not 2-D, or a row has more than ``width`` active features.
    """
    if obs.dim() != 2:
        raise ValueError(f"observations must be (K, D), got shape {tuple(obs.shape)}")
    k, d = obs.shape
    flat = obs.reshape(-1)
    where = (flat != 0).nonzero()[:, 0]  # row-major: rows in order, features ascending
    rows = torch.div(where, d, rounding_mode="floor")
    counts = torch.bincount(rows, minlength=k)
    most = int(counts.max()) if where.numel() else 0
    if width is None:
        width = most
    elif most > width:
        raise ValueError(f"a row has {most} active features, more than the width {width}")
    starts = counts.cumsum(0) - counts
    slot = rows * width + torch.arange(where.numel(), device=obs.device) - starts[rows]
    indices = torch.zeros(k * width, dtype=torch.int64, device=obs.device)
    values = torch.zeros(k * width, dtype=obs.dtype, device=obs.device)
    indices[slot] = where - rows * d
    values[slot] = flat[where]
    return indices.view(k, width), values.view(k, width)


def sparse_observations(
    indices: torch.Tensor, values: torch.Tensor, size: int
) -> SparseObservations:
    """:class:`SparseObservations` of padded active features ``(K, W)`` (:func:`active_features`'
    form; an entry whose value is 0 is padding, whatever its index) of observations of size
    ``size``. An index repeated in a row counts its values' sum."""
    if indices.shape != values.shape or indices.dim() != 2:
        raise ValueError(
            f"indices and values must both be (K, W), got {tuple(indices.shape)} and "
            f"{tuple(values.shape)}"
        )
    k = indices.shape[0]
    valid = values != 0
    where = valid.reshape(-1).nonzero()[:, 0]  # one search, two cheap gathers
    columns = indices.reshape(-1).index_select(0, where)
    vals = values.reshape(-1).index_select(0, where)
    counts = valid.to(torch.int32).sum(1)
    row_offsets = torch.zeros(k + 1, dtype=torch.int64, device=indices.device)
    row_offsets[1:] = counts.cumsum(0)
    rows = torch.arange(k, device=indices.device).repeat_interleave(counts)
    # a narrow key sorts about twice as fast as int64 on a CPU
    key = columns.to(torch.int16 if size <= torch.iinfo(torch.int16).max else torch.int64)
    order = torch.argsort(key, stable=True)
    column_offsets = torch.zeros(size + 1, dtype=torch.int64, device=indices.device)
    column_offsets[1:] = torch.bincount(columns, minlength=size).cumsum(0)
    return SparseObservations(
        columns,
        vals,
        row_offsets,
        rows.index_select(0, order),
        vals.index_select(0, order),
        column_offsets,
    )


class _SparseMatmul(torch.autograd.Function):
    """``x @ weight.T`` for sparse ``x``: the forward pass sums each row's features' columns of
    ``weight`` (``embedding_bag`` over the rows), the weight's gradient each feature's rows of
    the output's gradient (``embedding_bag`` over the features): nnz * width multiply-adds
    each way, where the dense layer does K * D * width."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        weight: torch.Tensor,
        columns: torch.Tensor,
        values: torch.Tensor,
        row_offsets: torch.Tensor,
        rows_by_column: torch.Tensor,
        values_by_column: torch.Tensor,
        column_offsets: torch.Tensor,
    ) -> torch.Tensor:
        ctx.save_for_backward(rows_by_column, values_by_column, column_offsets)
        return F.embedding_bag(
            columns,
            weight.t().contiguous(),
            row_offsets,
            mode="sum",
            per_sample_weights=values,
            include_last_offset=True,
        )

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        rows_by_column, values_by_column, column_offsets = ctx.saved_tensors
        grad_weight = None
        if ctx.needs_input_grad[0]:
            grad_weight = F.embedding_bag(
                rows_by_column,
                grad.contiguous(),
                column_offsets,
                mode="sum",
                per_sample_weights=values_by_column,
                include_last_offset=True,
            ).t()
        return grad_weight, None, None, None, None, None, None


def sparse_linear(
    obs: SparseObservations, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """``F.linear(obs.dense(), weight, bias)`` without the dense observations: ``(K, out)`` for
    ``weight`` ``(out, D)``. Differentiable in ``weight`` and ``bias`` (not in the values).

    Raises:
        ValueError: ``weight``'s second dimension is not the observations' size.
    """
    if weight.dim() != 2 or weight.shape[1] != obs.size:
        raise ValueError(
            f"weight {tuple(weight.shape)} does not read observations of size {obs.size}"
        )
    out = _SparseMatmul.apply(weight, *obs)
    return out if bias is None else out + bias


class ActorCritic(nn.Module):
    """A shared MLP trunk with a policy head (logits over the N actions) and a value head.

    Args:
        observation_size: D.
        num_actions: N.
        trunk: the hidden layers' widths (at least one).
        activation_fn: a ``torch.nn`` activation's class name (``ReLU``, ``Tanh``, ...).
        critic: the whole-table critic's hidden widths; empty: no critic (module docstring).
        table_size: the table observation's length ``n * D`` (required with ``critic``).

    Raises:
        ValueError: an empty trunk, or a critic without a positive ``table_size``.

    Initialisation (CleanRL's ``layer_init``): orthogonal weights, gain sqrt(2) in the trunk,
    0.01 for the policy head (near-uniform first policy), 1 for the value head; zero biases.
    """

    kind = KIND

    def __init__(
        self,
        observation_size: int,
        num_actions: int,
        trunk: Sequence[int] = (256, 256),
        activation_fn: str = "ReLU",
        critic: Sequence[int] = (),
        table_size: int = 0,
    ) -> None:
        super().__init__()
        if not trunk:
            raise ValueError("the trunk needs at least one hidden layer")
        if critic and table_size < 1:
            raise ValueError("a whole-table critic needs the table observation's size")
        self.observation_size = int(observation_size)
        self.num_actions = int(num_actions)
        self.trunk_widths = [int(w) for w in trunk]
        self.activation_fn = activation_fn
        self.trunk, prev = _mlp(self.observation_size, self.trunk_widths, activation_fn)
        self.policy_head = _init(nn.Linear(prev, self.num_actions), 0.01)
        self.value_head = _init(nn.Linear(prev, 1), 1.0)
        self.critic_widths = [int(w) for w in critic]
        self.table_size = int(table_size) if critic else 0
        self.critic: nn.Sequential | None = None
        self.critic_head: nn.Linear | None = None
        if critic:
            self.critic, prev = _mlp(self.table_size, self.critic_widths, activation_fn)
            self.critic_head = _init(nn.Linear(prev, 1), 1.0)

    def forward(self, obs: Observations) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (K, N), values (K,))`` for observations ``(K, D)``, dense or
        :class:`SparseObservations`."""
        hidden = self.hidden(obs)
        return self.policy_head(hidden), self.value_head(hidden)[:, 0]

    def hidden(self, obs: Observations) -> torch.Tensor:
        """The trunk's output ``(K, last)``; sparse observations go through the first layer's
        weights by :func:`sparse_linear`."""
        if isinstance(obs, SparseObservations):
            first = self.trunk[0]
            assert isinstance(first, nn.Linear)
            return self.trunk[1:](sparse_linear(obs, first.weight, first.bias))
        if isinstance(obs, PaddedFeatures):
            first = self.trunk[0]
            assert isinstance(first, nn.Linear)
            summed = F.embedding_bag(
                obs.indices, self._first_weight_t(), per_sample_weights=obs.values, mode="sum"
            )
            return self.trunk[1:](summed + first.bias)
        return self.trunk(obs)

    def _first_weight_t(self) -> torch.Tensor:
        """The first layer's weight transposed, ``(D, width)`` contiguous: what
        ``embedding_bag`` sums rows of. Outside autograd it is kept until the weight changes
        (its version counter: an optimizer step or ``load_state_dict`` bumps it), so acting
        transposes it once per update, not once per step."""
        first = self.trunk[0]
        assert isinstance(first, nn.Linear)
        weight = first.weight
        if torch.is_grad_enabled() and weight.requires_grad:
            return weight.t().contiguous()
        key = (weight._version, weight.data_ptr(), weight.device)
        cached = getattr(self, "_first_t", None)
        if cached is None or cached[0] != key:
            cached = (key, weight.detach().t().contiguous())
            self._first_t = cached
        return cached[1]

    def action_logits(self, obs: Observations) -> torch.Tensor:
        """The policy head's logits, ``(K, N)``."""
        return self.policy_head(self.hidden(obs))

    def state_values(self, obs: Observations) -> torch.Tensor:
        """The value head's estimates, ``(K,)``."""
        return self.value_head(self.hidden(obs))[:, 0]

    def table_values(self, table: torch.Tensor) -> torch.Tensor:
        """The whole-table critic's estimates ``(K,)`` for table observations ``(K, n * D)``.

        Raises:
            ValueError: the network has no critic.
        """
        if self.critic is None or self.critic_head is None:
            raise ValueError("this network has no whole-table critic")
        return self.critic_head(self.critic(table))[:, 0]


def _mlp(inputs: int, widths: Sequence[int], activation_fn: str) -> tuple[nn.Sequential, int]:
    """Dense layers of ``widths`` with the activation after each; returns it and its width."""
    layers: list[nn.Module] = []
    prev = inputs
    for width in widths:
        layers += [_init(nn.Linear(prev, width), math.sqrt(2)), getattr(nn, activation_fn)()]
        prev = width
    return nn.Sequential(*layers), prev


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer
