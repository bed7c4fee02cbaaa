"""Types of the compiled core ``fort_env.native._core`` (built from ``cpp/bindings/*.cc``).

Use it through :mod:`fort_env.native.backend`. Every name the module exports is here, and only
those: ``tests/test_core_stub.py`` checks this stub against the built module (``stubtest`` and
a comparison of the public names). Where a binding takes ``py::object``/``py::handle`` and
checks the value itself, the type here is what it accepts without raising: an int is a Python
``int`` or a numpy integer (never a ``bool``, which every binding refuses), a float any real
number. Arrays are ``NDArray`` of the dtype the binding documents and checks.
"""

from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal, Never, SupportsIndex, TypeAlias, TypedDict

import numpy as np
from numpy.typing import NDArray

# An int argument the bindings check themselves (fort_bind::int_value): an int or numpy
# integer, not a bool.
_Int: TypeAlias = int | np.integer[Any]
# A finite real argument (batch_bind.cc / search_bind.cc float_arg).
_Float: TypeAlias = float | np.integer[Any] | np.floating[Any]
# A 1-d (or for Batch.set_opponents' codes, 2-d) numpy integer array, any integer dtype.
_IntArray: TypeAlias = NDArray[np.integer[Any]]

class _SearchResult(TypedDict):
    """What ``ismcts_search`` returns (``fort::SearchResult``)."""

    action: int
    iterations: int
    seconds: float
    actions: list[int]
    visits: list[int]
    values: list[float]
    nodes: int

class _PuctResult(TypedDict, total=False):
    """What ``puct_search`` returns (``fort::PuctResult``)."""

    action: int
    simulations: int
    seconds: float
    actions: list[int]
    visits: list[int]
    values: list[float]
    priors: list[float]
    root_value: float
    nodes: int
    evaluations: int
    improved_policy: list[float]  # only with gumbel

# ------------------------------------------------------------------- core_module.cc
LAYOUT: Final[dict[str, int]]
"""The sizes the module was built with (NUM_CTX, NUM_PLAYER_FIELDS, MAX_STEPS, NUM_ZONES,
NUM_DECISION_KINDS, NUM_STAGES, NUM_MADE_UP_RULES, NUM_PERKS): ``backend`` compares them with
the Python source's."""

def mix(z: int) -> int:
    """The SplitMix64 finaliser of z mod 2**64 (fort_env.game.rng.mix)."""

class EventRng:
    """fort_env.game.rng.EventRng in C++: the draws of one random event."""

    def __init__(self, seed: int, event: int) -> None: ...
    def next_u64(self) -> int:
        """The next raw draw, an int in [0, 2**64)."""
    def below(self, n: int) -> int:
        """A uniform int in [0, n). Raises ValueError if n < 1 (or n > 2**64)."""
    def permutation(self, n: int) -> list[int]:
        """A uniform permutation of range(n) (Fisher-Yates), as a list of ints."""

def noop() -> None:
    """Does nothing: measures the cost of one call (docs/cpp.md)."""

# ------------------------------------------------------------------- state_bind.cc (D)
class Game:
    """The game's facts as flat tables (fort_env.native.backend.game_tables), checked; shared
    read-only by every State of the game."""

    def __init__(self, **kwargs: int | bool | NDArray[Any]) -> None:
        """Game(**tables): the tables as fort_env.native.backend.game_tables(game) returns them.

        Raises TypeError for a missing or unknown table, ValueError for a table of another
        dtype/ndim or out of range (the message names the table)."""
    @property
    def num_players(self) -> int: ...
    @property
    def num_cards(self) -> int: ...
    @property
    def advanced(self) -> bool: ...

class State:
    """A game state in C++ (fort::State): the arrays of state_arrays.ARRAYS and ctx. array()
    and ctx_view() are zero-copy numpy views (writable; each keeps the state alive).

    Not constructible from Python: ``deal``, ``State.from_arrays``, ``clone``,
    ``resample_hidden`` and ``Batch.state`` make them."""

    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """Raises TypeError: no constructor is bound (pybind11's "No constructor defined!")."""
    @property
    def game(self) -> Game: ...
    @property
    def num_cards(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    def clone(self) -> State:
        """An independent copy (the Game shared)."""
    def array(self, name: str) -> NDArray[Any]:
        """A zero-copy numpy view of the array `name` (state_arrays.ARRAYS: its dtype and
        shape). Raises KeyError for another name."""
    def ctx_view(self) -> NDArray[np.int64]:
        """A zero-copy int64 numpy view of ctx, shape (NUM_CTX,)."""
    def to_arrays(self) -> dict[str, NDArray[Any]]:
        """Copies of every array (state_arrays.ARRAYS names) and "ctx", as a dict."""
    @staticmethod
    def from_arrays(game: Game, arrays: dict[str, NDArray[Any]]) -> State:
        """A State of `game` holding copies of `arrays` (as to_arrays gives them). Raises
        ValueError naming a missing, unknown or ill-typed/shaped array."""

def is_terminal(state: State) -> bool:
    """FortState.is_terminal: whether the game is over (p.10)."""

def current_player(state: State) -> int:
    """FortState.current_player: the seat to act, or TERMINAL_PLAYER (-4) once the game is
    over."""

def deal(game: Game, seed: _Int, first_player: _Int | None = None) -> State:
    """The initial state of a game (fort_env.game.rules.deal.new_state) as a State.

    Raises ConfigError for a bad seed or first_player (the Python engine's messages)."""

# ------------------------------------------------------------------- rules_bind.cc (A)
def apply_unchecked(state: State, action: SupportsIndex) -> None:
    """Apply a locally legal action (fort_env.game.rules.handlers.apply), in place.

    IndexError for an action outside [0, num_actions) or a game that is over, ValueError for
    an action of a range the pending decision does not offer or a state with a field out of
    range; TypeError for a non-int (a bool included)."""

def apply_action(state: State, action: int) -> Literal[0, 1, 2]:
    """FortState.apply_action on the C++ state: 0 when `action` (an int, not a numpy
    integer) was legal and is applied (then check_end), 1 when it is not legal now (or the
    game is over), 2 when it is outside [0, num_actions); the state changes only on 0.
    TypeError for a non-int, ValueError for a state with a field out of range."""

def check_end(state: State) -> None:
    """The end triggers (fort_env.game.rules.flow.check_end): sets ctx end_triggered at 25+
    points, a Fort at Level 5 or an empty Park deck (p.10)."""

# ------------------------------------------------------------------- mask_bind.cc (B)
def legal_actions(state: State) -> NDArray[np.int32]:
    """search.legal_actions: the legal actions, int32 array ascending (empty when terminal).
    Cached per position in the state (search.h cached_legal_actions)."""

def legal_list(state: State) -> list[int]:
    """FortState.legal_actions: the legal actions as a list of ints, ascending (empty when
    terminal); the cached list of legal_actions."""

def legal_mask(state: State, out: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
    """FortState.legal_actions_mask: bool, shape (num_distinct_actions,), into `out` if given
    (1-d, C-contiguous, writeable, checked: ValueError), else into a new array; returns the
    array written."""

def is_legal(state: State, action: SupportsIndex) -> bool:
    """Whether `action` (an int, not a bool: TypeError) is legal now (out of range: False)."""

def raw_legal(state: State) -> list[int]:
    """legality.raw_legal: the locally legal actions, in the Python engine's order."""

def search_memo_size() -> int:
    """Entries in the calling thread's search memo."""

def clear_search_memo() -> None:
    """Empty the calling thread's search memo."""

def search_nodes_peak(reset: bool = False) -> int:
    """The most positions one legality search of the calling thread expanded (since the last
    reset), against constants.SEARCH_NODE_BUDGET; reset=True starts again."""

# ------------------------------------------------------------------- views_bind.cc (C)
def observation_size(game: Game) -> int:
    """observation_layout(game).size: the length of an observation of this game."""

def table_observation_size(game: Game) -> int:
    """observation.table_observation_size(n, game): the length of a table observation."""

def table_observation(state: State, seat: _Int) -> NDArray[np.float32]:
    """Seat's table observation (FortState.table_observation_tensor): its observation, then
    each other seat's private slices, in a new float32 array of table_observation_size(game).
    Raises ValueError for a seat outside [0, num_players), IndexError for a state whose codes fall
    outside their slices."""

def observation(
    state: State, seat: _Int, out: NDArray[np.float32] | None = None
) -> NDArray[np.float32]:
    """Seat's observation (fort_env.views.observation.observation_tensor), written into `out`
    (a writeable C-contiguous float32 array of shape (observation_size(game),)) if given, else
    into a new array; returns the array written. ValueError for a seat outside
    [0, num_players) or another buffer, IndexError for a state whose codes fall outside
    their slices."""

def score_breakdown(state: State) -> list[dict[str, int]]:
    """scoring.score_breakdown: per seat a dict of ints track, fort_level, made_up_rule,
    macaroni, total, level (its keys, in its order; FortState.score_breakdown's type)."""

def winners(state: State) -> list[int]:
    """scoring.winners: the seats with the most points (ties: highest Fort Level),
    ascending."""

def resample_hidden(state: State, observer: _Int, seed: _Int) -> State:
    """hidden.resample_hidden_seeded(state, observer, seed) as a new State.

    ValueError for an observer outside [0, num_players) or a state with a field out of range,
    ConfigError for a seed outside [0, 2**62), StateError when the hidden cards cannot be
    re-dealt or the running state cannot go on (hidden.MAX_REDEALS tries)."""

MAX_REDEALS: Final[int]
"""hidden.MAX_REDEALS: tries of the re-deal before the state is kept as it is."""

# ------------------------------------------------------------------- batch_bind.cc
NUM_POLICIES: Final[int]
"""The built-in policies the core knows (fort::Policy codes 0 .. NUM_POLICIES - 1, named by
fort_env.native.policies.POLICIES)."""
EXTERNAL: Final = -1
"""A seat code of Batch: Python acts for the seat."""
LEARNER: Final = -2
"""A seat code of Batch: the learner's seat (Batch.seat_codes only)."""
POLICY_STREAM: Final = 8101813454558029171
"""The key of a Batch's opponents' draws: EventRng(game_seed ^ POLICY_STREAM, j)."""
END_INFO: Final[dict[str, int]]
"""The columns of the ``end_info`` buffer: seat, game_seed, winners (a bit per seat)."""

class Batch:
    """B single-agent games of one Game stepped in one call (cpp/include/fort/envs/batch.h is
    the spec: seats, seeds, rewards, buffers, threads).

    Raises ValueError for num_envs < 1, threads outside [1, 256], a non-finite shaping or
    illegal_reward; ConfigError for a bad seat, first_player or reward mode (SingleAgentEnv's
    messages)."""

    def __init__(
        self,
        game: Game,
        num_envs: _Int,
        seat: _Int | None = None,
        first_player: _Int | None = None,
        reward: str = "win_loss",
        shaping: _Float = 0.0,
        illegal_reward: _Float = -1.0,
        threads: _Int = 1,
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def feature_width(self) -> int: ...
    def buffers(self, features: bool = False) -> dict[str, NDArray[Any]]:
        """A dict of new zeroed buffers for reset/step: obs float32 (B, D), mask bool (B, N),
        actor int8 (B,), seat int8 (B,), game_seed int64 (B,), reward float32 (B,), done bool
        (B,), illegal bool (B,), terminal_obs float32 (B, D), end_info int64 (B, 3), end_scores
        int32 (B, 4, 6)."""
    def set_opponents(self, env_ids: _IntArray, codes: _IntArray) -> None:
        """The rivals of each listed env's games from its next deal: codes int (K, n - 1), a
        built-in policy code or EXTERNAL (-1) per rival seat in seat order. Raises ValueError
        (nothing changed) for a bad env id or code."""
    def reset(self, env_ids: _IntArray, seeds: _IntArray, out: dict[str, NDArray[Any]]) -> None:
        """Deal each listed env a new game (seeds[k] >= 0: re-seed env_ids[k]; -1: its next
        game), play it up to the learner or an external seat, write the envs' rows of `out`
        (as buffers() makes them). The GIL is released meanwhile."""
    def step(
        self,
        env_ids: _IntArray,
        actions: _IntArray,
        out: dict[str, NDArray[Any]],
        *,
        obs_kept: bool = False,
    ) -> None:
        """Apply actions[k] for the seat to act in env env_ids[k], play on to the learner or an
        external seat (auto-reset at the end of a game), write the envs' rows of `out`. The
        GIL is released meanwhile. obs_kept=True promises that out['obs'] is the last call's
        buffer, unwritten since: each row is then cleared only where it was non-zero."""
    def state(self, env: _Int) -> State:
        """A copy of env i's current state. Raises ValueError for a bad env or one not
        reset."""
    def seat_codes(self, env: _Int) -> list[int]:
        """Env i's current game's seats: LEARNER (-2), EXTERNAL (-1) or a policy code."""

SELF_PLAY_END_INFO: dict[str, int]

class SelfPlay:
    """B games of one Game stepped in one call, every LEARNER seat a sample
    (cpp/include/fort/envs/self_play.h is the spec: seat codes, per-seat rewards, seeds,
    buffers, threads).

    Raises ValueError for num_envs < 1, threads outside [1, 256], a non-finite shaping;
    ConfigError for a bad first_player or reward mode."""

    def __init__(
        self,
        game: Game,
        num_envs: _Int,
        first_player: _Int | None = None,
        reward: str = "win_loss",
        shaping: _Float = 0.0,
        threads: _Int = 1,
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def feature_width(self) -> int: ...
    def buffers(self, features: bool = False) -> dict[str, NDArray[Any]]:
        """A dict of new zeroed buffers for reset/step: obs float32 (B, D), mask bool (B, N),
        actor int8 (B,), codes int8 (B, n), game_seed int64 (B,), rewards float32 (B, n), done
        bool (B,), end_info int64 (B, 2), end_scores int32 (B, 4, 6)."""
    def set_seats(self, env_ids: _IntArray, codes: _IntArray) -> None:
        """The seats of each listed env's games from its next deal: codes int (K, n), LEARNER
        (-2), EXTERNAL (-1) or a built-in policy code per seat, at least one LEARNER or
        EXTERNAL. Raises ValueError (nothing changed) for a bad env id or code."""
    def reset(self, env_ids: _IntArray, seeds: _IntArray, out: dict[str, NDArray[Any]]) -> None:
        """Deal each listed env a new game (seeds[k] >= 0: re-seed; -1: its next game), play
        it to its first LEARNER or EXTERNAL decision, write the envs' rows of `out`."""
    def step(
        self,
        env_ids: _IntArray,
        actions: _IntArray,
        out: dict[str, NDArray[Any]],
        *,
        obs_kept: bool = False,
    ) -> None:
        """Apply actions[k] (legal) for the seat to act in env env_ids[k], play the built-in
        seats on to the next LEARNER or EXTERNAL decision, write the envs' rows of `out`
        (obs_kept: as Batch.step's)."""
    def observe(self, env_ids: _IntArray, obs: NDArray[np.float32]) -> None:
        """Write every seat's observation of each listed env's position into obs, float32
        (K, n, D)."""
    def state(self, env: _Int) -> State:
        """A copy of env i's current state."""
    def seat_codes(self, env: _Int) -> list[int]:
        """Env i's current game's seats: LEARNER (-2), EXTERNAL (-1) or a policy code."""

# ------------------------------------------------------------------- playout_bind.cc
def policy_action(state: State, policy: _Int, seed: _Int, event: _Int) -> int:
    """The built-in policy's (a code in [0, NUM_POLICIES)) action at a running state, drawn
    from EventRng(seed, event). The state is not changed. ValueError for an unknown policy
    code, a negative event, a finished game or a state with a field out of range;
    ConfigError for a bad seed; StateError for a running state with no legal action (every
    policy alike)."""

def playout(state: State, policy: _Int, seed: _Int) -> tuple[NDArray[np.float64], int]:
    """fort_env.native.playout.playout on a C++ state: (returns float64 (num_players,),
    decisions). The state is not changed. StateError if a position with no legal action is
    met (every policy alike)."""

def playouts(
    state: State, n: _Int, policy: _Int, seed: _Int, threads: _Int = 1
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """fort_env.native.playout.playouts on a C++ state: (returns float64 (n, num_players),
    decisions int64 (n,)), playout i with seed + i, on `threads` threads with the GIL
    released (the results do not depend on it)."""

# ------------------------------------------------------------------- search_bind.cc
def ismcts_search(
    state: State,
    seat: _Int,
    *,
    seed: _Int,
    iterations: _Int,
    seconds: _Float,
    c: _Float,
    rollout: Literal["builder", "random"],
    extra_turns: _Int,
    tree_kinds: Iterable[_Int] | None,
    rivals_in_tree: bool,
    widen_c: _Float,
    widen_alpha: _Float,
    bias: _Float,
    margin: _Float,
    weights: Sequence[_Float],
) -> _SearchResult:
    """IS-MCTS for `seat`'s pending decision (cpp/include/fort/bots/ismcts.h); weights: the
    15 numbers of agents.bots.evaluation.Weights. ValueError or TypeError naming a bad
    argument, ValueError for a state that is over or whose acting seat is not `seat`."""

class PolicyValueNet:
    """A policy-value network on the core (cpp/include/fort/bots/network.h): dense layers as
    torch's nn.Linear holds them; agents/learned/core_network.py builds one from a policy
    file. TypeError or ValueError naming a bad argument, a layer that does not read its
    predecessor's width, or a value that is not finite."""

    def __init__(
        self,
        observation_size: _Int,
        num_actions: _Int,
        activation: Literal["ReLU", "Tanh"],
        trunk: list[tuple[NDArray[np.float32], NDArray[np.float32]]],
        policy_tower: list[tuple[NDArray[np.float32], NDArray[np.float32]]],
        value_tower: list[tuple[NDArray[np.float32], NDArray[np.float32]]],
        policy_head: tuple[NDArray[np.float32], NDArray[np.float32]],
        value_head: tuple[NDArray[np.float32], NDArray[np.float32]],
    ) -> None: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    def forward(self, obs: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """(logits float32 (K, num_actions), values float32 (K,)) for observations float32
        (K, observation_size)."""

def puct_search(
    state: State,
    seat: _Int,
    net: PolicyValueNet,
    *,
    seed: _Int,
    simulations: _Int,
    seconds: _Float,
    c: _Float,
    batch: _Int,
    threads: _Int,
    noise_alpha: _Float,
    noise_fraction: _Float,
    critic: PolicyValueNet | None = None,
    gumbel: bool = False,
    gumbel_actions: _Int = 16,
) -> _PuctResult:
    """PUCT for `seat`'s pending decision guided by `net` (cpp/include/fort/bots/puct.h);
    `critic` (a net over the table observation) values the leaves when given; `gumbel`:
    Gumbel root selection with Sequential Halving over `gumbel_actions` root actions (the
    result then has `improved_policy`).
    ValueError or TypeError naming a bad argument; ValueError for a state that is over, a seat
    that is not acting, or a network of another observation size or action count."""

def builder_scores(state: State, legal: Iterable[_Int]) -> list[float]:
    """The builder heuristic's score of each action of `legal` for the acting seat (-1e9 for
    an action it does not score)."""

def heuristic_scores(state: State, legal: Iterable[_Int], policy: _Int) -> list[float]:
    """The heuristic bot `policy` (a code of POLICIES: builder, scorer or opportunist)'s score
    of each action of `legal` for the acting seat (-1e9 for an action it does not score);
    ValueError for another policy code."""

def builder_action(state: State, seed: _Int) -> int:
    """The builder heuristic's action for the acting seat (ties drawn from
    EventRng(seed, 0))."""

def evaluate_all(state: State, weights: Sequence[_Float]) -> list[float]:
    """agents.bots.evaluation.evaluate_all: every seat's value in [0, 1]."""

def default_tree_kinds() -> list[int]:
    """The decision kinds that branch the C++ search's tree by default, ascending."""
