"""Every seat a sample: B Fort games stepped together in C++, for self-play learners.

:class:`SelfPlayBatch` is the Python face of the compiled core's ``_core.SelfPlay``
(``cpp/include/fort/envs/self_play.h`` is the spec). Each env holds one game; each seat of it
is played by the learning policy (``LEARNER``), by another policy called from Python
(``EXTERNAL``: a frozen snapshot), or by a built-in policy inside C++ (a code of
``fort_env.native.policies.POLICIES``: ``random``, the heuristics). A step applies one action
per env for its seat to act, plays the built-in seats on to the next ``LEARNER`` or
``EXTERNAL`` decision and deals the next game when one ends (auto-reset). This is the
multi-agent self-play of PufferLib's and OpenSpiel's AlphaZero loops: with every seat
``LEARNER``, each decision of each seat is a training sample, with its own seat's return.

The arrays (numpy, preallocated once, written in place by C++ with the GIL released;
``B = num_envs``, ``n = num_players``, ``D = observation_size``, ``N = num_actions``):

========== ============ ========== ==========================================================
name       dtype        shape      meaning
========== ============ ========== ==========================================================
obs        float32      (B, D)     the observation of the seat to act
mask       bool         (B, N)     its legal actions
actor      int8         (B,)       the seat to act (a ``LEARNER`` or ``EXTERNAL`` seat)
codes      int8         (B, n)     the current game's seat codes
game_seed  int64        (B,)       the current game's seed
rewards    float32      (B, n)     each seat's reward over the last step's transition
done       bool         (B,)       a game ended in the last step (the row is the next game's)
end_info   int64        (B, 2)     when ``done``: the ended game's seed and winners (bit p)
end_scores int32        (B, 4, 6)  when ``done``: its ``score_breakdown``, row p seat p's
                                   (columns ``fort_env.views.scoring.SCORE_COLUMNS``)
========== ============ ========== ==========================================================

With ``features=True``, ``obs`` again by its active (non-zero) entries, padded to
``W = feature_width`` (``fort_env.views.observation.max_active_features``: the most an
observation can have), written by C++ in the same call: what a sparse first layer reads
(``agents.learned.network.sparse_linear``) without searching the dense rows for non-zeros:

============== ======= ====== =================================================================
features       int32   (B, W) the active entries' indices, increasing, then 0s
feature_values float32 (B, W) their values, then 0s
feature_counts int32   (B,)   how many entries of the row are active
============== ======= ====== =================================================================

Rewards per seat (self_play.h): the final reward of ``reward`` (``fort_env.envs.aec``'s modes)
when a game ends, plus, with ``shaping`` w, w times the change of the seat's score margin / 25
between consecutive stops. Summed between two decisions of a seat they are that seat's
``SingleAgentEnv`` reward, so a learner's per-seat returns are the single-agent env's.

Seeds: ``reset(seed)`` seeds env i with ``seed + i`` (SB3's and Gymnasium's vector convention);
env i's k-th game is dealt from ``EventRng(seed + i, k)``, built-in policies draw from the
game's seed: the same seeds and actions give the same games whatever ``threads`` is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.envs.checks import check_shaping
from fort_env.envs.rewards import REWARD_MODES
from fort_env.game.errors import ConfigError
from fort_env.game.inputs import SEED_RANGE, check_seed, is_seed
from fort_env.native import backend as cpp_backend

if TYPE_CHECKING:
    import fort_env.native._core as _core  # its stub _core.pyi

__all__ = ["EXTERNAL", "LEARNER", "SelfPlayBatch", "seat_code", "self_play_decisions_per_second"]

LEARNER = -2
"""Seat code: the learning policy plays the seat (its decisions are samples)."""
EXTERNAL = -1
"""Seat code: another policy plays the seat from Python (a frozen snapshot)."""

# The buffers a step writes, in the order of the table above; then those of ``features=True``.
BUFFERS = (
    "obs", "mask", "actor", "codes", "game_seed", "rewards", "done", "end_info", "end_scores",
)  # fmt: skip
FEATURE_BUFFERS = ("features", "feature_values", "feature_counts")


def seat_code(player: str | int) -> int:
    """The seat code of ``player``: ``"learner"`` (:data:`LEARNER`), ``"external"``
    (:data:`EXTERNAL`), a built-in policy's name (``POLICIES``), or a code itself.

    Raises:
        ConfigError: a name that is none of these, or a code out of range.
    """
    if isinstance(player, str):
        if player == "learner":
            return LEARNER
        if player == "external":
            return EXTERNAL
        return cpp_backend.policy_code(player)
    code = int(player)
    if code not in (LEARNER, EXTERNAL) and not 0 <= code < cpp_backend.require().NUM_POLICIES:
        raise ConfigError(f"seat code {player!r} is not LEARNER, EXTERNAL or a policy code")
    return code


class SelfPlayBatch:
    """B self-play games of one :class:`~fort_env.core.FortGame` (module docstring).

    Args:
        num_envs: B >= 1.
        num_players, setup, cards: the game (``FortGame``'s).
        first_player: the seat starting every game (``None``: drawn by the deal).
        reward: the final reward mode (``win_loss``, ``rank`` or ``score_margin``).
        shaping: the weight of the score-margin shaping (0: none); finite, with
            ``|shaping| <= MAX_SHAPING`` (1000, ``fort_env.envs.aec``).
        threads: threads stepping the games in C++ (1: the caller's only), 1-256.
        buffers: arrays to write into instead of fresh ones (a dict with every name of the
            module's table, each C-contiguous, writeable, of its dtype and shape: e.g. numpy
            views of pinned torch tensors; with ``features``, the feature buffers too). The
            batch is their only writer: ``step`` clears an ``obs`` row only where the last
            observation written there was non-zero.
        features: also write each observation's active features (the module's second table).

    Raises:
        ConfigError: a bad game, first player, reward mode or shaping weight (non-finite,
            or over ``MAX_SHAPING``), or no compiled core.
        ValueError: ``num_envs < 1``, ``threads`` outside ``[1, 256]``, a wrong buffer.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        num_players: int = 2,
        setup: str = "basic",
        cards: str | Path | None = None,
        first_player: int | None = None,
        reward: str = "win_loss",
        shaping: float = 0.0,
        threads: int = 1,
        buffers: Mapping[str, np.ndarray] | None = None,
        features: bool = False,
    ) -> None:
        if not isinstance(features, bool):
            raise ConfigError(f"features must be True or False, got {features!r}")
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        shaping = check_shaping(shaping)  # |shaping| <= MAX_SHAPING: rewards stay finite
        self.game = FortGame(
            num_players, setup, None if cards is None else str(cards), backend="cpp"
        )
        self._core: _core.SelfPlay = cpp_backend.require().SelfPlay(
            cpp_backend.core_game(self.game),
            num_envs,
            first_player=first_player,
            reward=reward,
            shaping=shaping,
            threads=threads,
        )
        self.num_envs = self._core.num_envs
        self.num_players = self._core.num_players
        self.observation_size = self._core.observation_size
        self.num_actions = self._core.num_actions
        self.feature_width: int = self._core.feature_width
        """W of the feature buffers (``max_active_features``)."""
        fresh = self._core.buffers(features=features)
        if buffers is not None:
            names = BUFFERS + FEATURE_BUFFERS if features else BUFFERS
            missing = [k for k in names if k not in buffers]
            if missing:
                raise ValueError(f"buffers lacks {', '.join(missing)} (needs {', '.join(names)})")
            fresh = {k: buffers[k] for k in names}
        self.buffers: dict[str, np.ndarray] = fresh
        self._ids = np.arange(self.num_envs, dtype=np.int64)
        self._all_obs = np.zeros(
            (self.num_envs, self.num_players, self.observation_size), dtype=np.float32
        )
        self._started = False

    # ------------------------------------------------------------------ the arrays
    @property
    def obs(self) -> np.ndarray:
        """float32 ``(B, D)``: the observation of each env's seat to act (the batch's own
        buffer: read or copy it, never write into it; ``step`` clears each row only where the
        observation it wrote last was non-zero)."""
        return self.buffers["obs"]

    @property
    def mask(self) -> np.ndarray:
        """bool ``(B, N)``: the legal actions of each env's seat to act."""
        return self.buffers["mask"]

    @property
    def actor(self) -> np.ndarray:
        """int8 ``(B,)``: each env's seat to act."""
        return self.buffers["actor"]

    @property
    def codes(self) -> np.ndarray:
        """int8 ``(B, n)``: each env's current game's seat codes."""
        return self.buffers["codes"]

    @property
    def rewards(self) -> np.ndarray:
        """float32 ``(B, n)``: each seat's reward over the last step's transition."""
        return self.buffers["rewards"]

    @property
    def done(self) -> np.ndarray:
        """bool ``(B,)``: a game ended in the last step."""
        return self.buffers["done"]

    @property
    def end_info(self) -> np.ndarray:
        """int64 ``(B, 2)``: when ``done``, the ended game's seed and winner bits."""
        return self.buffers["end_info"]

    @property
    def end_scores(self) -> np.ndarray:
        """int32 ``(B, MAX_PLAYERS, 6)``: when ``done``, the ended game's score breakdown, row p
        seat p's (``fort_env.views.scoring.SCORE_COLUMNS``; rows past ``n`` are zeros)."""
        return self.buffers["end_scores"]

    @property
    def features(self) -> np.ndarray:
        """int32 ``(B, W)``: the indices of each ``obs`` row's active entries, increasing, then
        0s (``features=True`` only; ``KeyError`` otherwise)."""
        return self.buffers["features"]

    @property
    def feature_values(self) -> np.ndarray:
        """float32 ``(B, W)``: their values, then 0s (``features=True`` only)."""
        return self.buffers["feature_values"]

    @property
    def feature_counts(self) -> np.ndarray:
        """int32 ``(B,)``: how many entries of each ``obs`` row are active (``features=True``
        only)."""
        return self.buffers["feature_counts"]

    # ------------------------------------------------------------------ calls
    def set_seats(self, env_ids: Any, codes: Any) -> None:
        """Who plays each seat of the listed envs' games, from each env's next deal on.

        Args:
            env_ids: int ``(K,)`` env indices.
            codes: int ``(K, n)``: :data:`LEARNER`, :data:`EXTERNAL` or a built-in policy
                code (:func:`seat_code`) per seat; each row needs a ``LEARNER`` or
                ``EXTERNAL`` seat.

        Raises:
            ValueError: a bad env id, code or shape (nothing changed).
        """
        self._core.set_seats(np.asarray(env_ids, dtype=np.int64), np.asarray(codes, dtype=np.int64))

    def reset(self, seed: int | None = None) -> None:
        """Deal every env a new game (env i seeded with ``seed + i``; ``None``: fresh
        entropy) and play it to its first ``LEARNER`` or ``EXTERNAL`` decision.

        Raises:
            ConfigError: ``seed`` is not a seed, or ``seed + num_envs > 2**62``.
        """
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        first = check_seed(seed)
        if not is_seed(first + self.num_envs - 1):
            raise ConfigError(
                f"seed + num_envs must be at most 2**62 (env i uses seed + i, {SEED_RANGE}), "
                f"got seed {first} and num_envs {self.num_envs}"
            )
        self._core.reset(self._ids, self._ids + first, self.buffers)
        self._started = True

    def step(self, actions: Any) -> None:
        """Apply ``actions`` (int ``(B,)``, each legal for its env's seat to act) and play on;
        the arrays then describe the next stop of every env.

        Raises:
            ValueError: an illegal action or a wrong shape (nothing changed); RuntimeError:
                not reset yet, or an env that failed inside (names it).
        """
        if not self._started:
            raise RuntimeError("reset() the SelfPlayBatch before step()")
        # obs_kept: the rows hold what the last reset/step wrote (the batch is their only writer)
        self._core.step(self._ids, np.asarray(actions), self.buffers, obs_kept=True)

    def observe_all(self) -> np.ndarray:
        """Every seat's observation of every env's position: float32 ``(B, n, D)`` (for a
        value bootstrap; the array is reused by the next call)."""
        self._core.observe(self._ids, self._all_obs)
        return self._all_obs

    def state(self, i: int) -> FortState:
        """A copy of env ``i``'s current game (a :class:`~fort_env.core.FortState`)."""
        return cpp_backend.wrap_core_state(self.game, self._core.state(i))


def self_play_decisions_per_second(
    num_envs: int = 64, seconds: float = 2.0, seed: int = 0, num_players: int = 2, threads: int = 1
) -> float:
    """Decisions per second of a :class:`SelfPlayBatch` whose every seat is a ``LEARNER``,
    driven with uniformly random legal actions chosen over the whole ``(B, N)`` mask in a few
    numpy calls (``fort-env bench``: the lean PPO's env side without its network; every step
    writes B observations and masks)."""
    import time

    sp = SelfPlayBatch(num_envs, num_players=num_players, threads=threads)
    sp.reset(seed)
    rng = np.random.default_rng(seed)
    n = sp.mask.shape[1]
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        flat = np.flatnonzero(sp.mask)
        counts = np.bincount(flat // n, minlength=num_envs)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        picks = starts + (rng.random(num_envs) * counts).astype(np.int64)
        sp.step(flat[picks] % n)
        steps += num_envs
    return steps / (time.perf_counter() - start)
