"""Playouts: from any state, play to the end of the game with a built-in policy; the returns.

For search bots (IS-MCTS's simulations) and analysis (win rates from a position). On a state of
the C++ backend the playouts run inside the compiled core (``fort_env.native._core``, with the GIL
released, batched and optionally threaded); on a Python state this module plays them with the
Python engine. Both follow the specification below draw for draw, so they give the same returns
and decision counts (``tests/differential/test_playout.py``).

Specification
-------------

* **Policies** are named by :data:`POLICIES`; a policy's code is its index there (the C++
  ``fort::Policy`` enum is generated from this tuple by ``scripts/gen_constants.py``).
  ``"random"``: uniform over the exact legal actions (``FortState.legal_actions()``).
* **Draws.** Decision ``k`` of a playout (``k = 0, 1, ...``, counted from the given state,
  whoever acts) draws from its own stream ``EventRng(seed, k)`` (``fort_env.game.rng``). The game's
  own random events (reshuffles of a discard pile) keep drawing from the state's ``ctx`` seed,
  as in any game, so a playout is a function of the state, the policy and ``seed`` alone.
  (The policy's streams and the game's are keyed alike: pass a playout seed other than the
  game's own.)
* **"random"** draws by rejection over the locally legal actions: let ``raw`` be
  ``FortState.local_legal_actions()`` (``rules.legality.raw_legal``: the actions the local
  rules of the pending decision allow, in the engine's order, no repeats); repeat
  ``j = rng.below(len(raw))`` until ``raw[j]`` is legal; play ``raw[j]``. Every legal action is
  in ``raw``, so this is exactly uniform over the legal actions, and the C++ core need only
  search the drawn action's equivalence class, not all of them (docs/cpp.md "Playouts").
* **The end.** A playout stops when the game is over. Its returns are ``FortState.returns()``:
  float64, shape ``(num_players,)``, +1.0 for every winner (most points, then the highest Fort
  Level, else shared, rulebook p.11), -1.0 for every other seat. A state already over gives its
  returns after 0 decisions. A playout past :data:`MAX_PLAYOUT_DECISIONS` decisions raises
  ``RuntimeError`` (a guard: a random game takes a few hundred).
* **Batches.** Playout ``i`` of a batch of ``n`` with seed ``s`` is the single playout with
  seed ``s + i`` (so ``s + n <= 2**62``). The results do not depend on ``threads``.

The state passed in is never changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.constants import SEED_LIMIT
from fort_env.game.errors import ConfigError, StateError
from fort_env.game.inputs import SEED_RANGE, check_seed
from fort_env.game.rng import EventRng
from fort_env.native import backend as cpp_backend
from fort_env.native.backend import CppFortState, policy_code
from fort_env.native.policies import POLICIES
from fort_env.views.hidden import NO_LEGAL_ACTION

__all__ = [
    "MAX_PLAYOUT_DECISIONS",
    "MAX_PLAYOUT_THREADS",
    "POLICIES",
    "Playout",
    "PlayoutBatch",
    "playout",
    "playout_batch",
    "playout_decisions_per_second",
    "playouts",
    "policy_action",
    "policy_code",
]

MAX_PLAYOUT_DECISIONS = 100_000  # a guard, not a rule (module docstring); shared with C++
MAX_PLAYOUT_THREADS = 256  # threads of one batched call; shared with C++
BENCH_BATCH = 8  # playouts per deal in playout_decisions_per_second
BENCH_SEED_OFFSET = 2**40  # its playout seeds, away from the deals' seeds


class Playout(NamedTuple):
    """One playout's outcome: ``returns`` float64 ``(num_players,)``, ``decisions`` taken."""

    returns: np.ndarray
    decisions: int


class PlayoutBatch(NamedTuple):
    """A batch's outcomes: ``returns`` float64 ``(n, num_players)``, ``decisions`` int64
    ``(n,)``; row ``i`` is the playout with seed ``seed + i``."""

    returns: np.ndarray
    decisions: np.ndarray


def random_action(state: FortState, rng: EventRng) -> int:
    """The ``"random"`` policy's action (module docstring): rejection over the locally legal
    actions until a legal one is drawn.

    Raises:
        StateError: the running state has no legal action (a state the rules cannot reach;
            every policy, in both engines, says so in the same words).
    """
    legal = frozenset(state.legal_actions())
    if not legal:
        raise StateError("ctx.decision", NO_LEGAL_ACTION)
    raw = state.local_legal_actions()
    while True:
        a = raw[rng.below(len(raw))]
        if a in legal:
            return int(a)


# The Python twins of the policies (a policy without one plays on C++ states only).
PYTHON_POLICIES: dict[str, Callable[[FortState, EventRng], int]] = {"random": random_action}


def policy_action(state: FortState, policy: str, rng: EventRng) -> int:
    """The built-in ``policy``'s action for the acting seat of a running ``state``, drawn
    with ``rng`` (the Python twin of C++ ``fort::policy_action``).

    Raises:
        ConfigError: an unknown policy (:func:`policy_code`; a ``ValueError``).
        ValueError: a policy with no Python twin.
        StateError: the state has no legal action.
    """
    policy_code(policy, POLICIES)
    if policy not in PYTHON_POLICIES:
        raise ValueError(f"policy {policy!r} has no Python twin: play it on a C++ state")
    return PYTHON_POLICIES[policy](state, rng)


def _check_state(state: Any) -> FortState:
    if not isinstance(state, FortState):
        raise TypeError(f"state must be a FortState, got {type(state).__name__}")
    return state


def _check_int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        top = "" if hi is None else f", {hi}"
        raise ValueError(f"{name} must be an int in [{lo}{top}], got {v}")
    return v


def _core_playouts(state: FortState) -> CppFortState | None:
    """``state`` if it is a C++ state and the compiled core binds the playouts (then
    ``cpp_backend._C`` is that core, typed by its stub ``_core.pyi``), else ``None``."""
    if not isinstance(state, CppFortState):
        return None
    core = cpp_backend.require()
    if not hasattr(core, "playouts"):
        return None
    if len(POLICIES) != core.NUM_POLICIES:
        raise ConfigError(
            f"the compiled core knows {core.NUM_POLICIES} policies, this source "
            f"{len(POLICIES)} ({', '.join(POLICIES)}): rebuild it (pip install -e .)"
        )
    return state


def _python_playout(state: FortState, policy: str, seed: int) -> Playout:
    """The reference: the specification played with the Python engine's API on a clone."""
    s = state.clone()
    k = 0
    while not s.is_terminal():
        if k >= MAX_PLAYOUT_DECISIONS:
            raise RuntimeError(
                f"playout: the game did not end within {MAX_PLAYOUT_DECISIONS} decisions"
            )
        s.apply_action(policy_action(s, policy, EventRng(seed, k)))
        k += 1
    return Playout(s.returns(), k)


def playout(state: FortState, policy: str = "random", seed: int = 0) -> Playout:
    """Play a copy of ``state`` to the end with the built-in ``policy`` (module docstring).

    Args:
        state: any :class:`FortState` (not changed); a C++ state plays inside the core.
        policy: a name in :data:`POLICIES`.
        seed: the playout's seed, an int in ``[0, 2**62)``.

    Returns:
        ``Playout(returns, decisions)``: float64 ``(num_players,)`` +1 winners, -1 the others
        (zeros never: the playout ends the game); ``decisions`` an int.

    Raises:
        TypeError: ``state`` is not a FortState.
        ValueError: a policy without a Python twin, on a Python state; a C++ state with a
            field out of range (written from Python), naming it.
        ConfigError: an unknown policy (:func:`policy_code`); a bad seed; a compiled core
            older than :data:`POLICIES`.
        StateError: a position with no legal action (a state the rules cannot reach).
        RuntimeError: more than :data:`MAX_PLAYOUT_DECISIONS` decisions.
    """
    _check_state(state)
    code = policy_code(policy, POLICIES)
    seed = check_seed(seed)
    cpp = _core_playouts(state)
    if cpp is None:
        return _python_playout(state, policy, seed)
    returns, decisions = cpp_backend._C.playout(cpp.core_state, code, seed)
    return Playout(returns, int(decisions))


def playout_batch(
    state: FortState, n: int, policy: str = "random", seed: int = 0, threads: int = 1
) -> PlayoutBatch:
    """``n`` playouts from ``state``, playout ``i`` with seed ``seed + i``.

    On a C++ state they run inside the core with the GIL released, on ``threads`` threads
    (the results do not depend on it); on a Python state one after the other.

    Returns:
        ``PlayoutBatch(returns, decisions)``: float64 ``(n, num_players)``, int64 ``(n,)``.

    Raises:
        TypeError: ``state`` is not a FortState; ``n`` or ``threads`` not an int.
        ValueError: ``n < 0``; ``threads`` outside ``[1, MAX_PLAYOUT_THREADS]``.
        ConfigError: an unknown policy; a bad seed, or ``seed + n > 2**62``.
        StateError, RuntimeError: as :func:`playout`.
    """
    _check_state(state)
    n = _check_int(n, "n", 0)
    code = policy_code(policy, POLICIES)
    seed = check_seed(seed)
    threads = _check_int(threads, "threads", 1, MAX_PLAYOUT_THREADS)
    if seed + n > SEED_LIMIT:
        raise ConfigError(
            f"seed + n must be at most 2**62 (playout i uses seed + i, {SEED_RANGE}), "
            f"got seed {seed} and n {n}"
        )
    cpp = _core_playouts(state)
    if cpp is not None:
        returns, decisions = cpp_backend._C.playouts(cpp.core_state, n, code, seed, threads)
        return PlayoutBatch(returns, decisions)
    returns = np.zeros((n, state.game.num_players))
    decisions = np.zeros(n, dtype=np.int64)
    for i in range(n):
        returns[i], decisions[i] = _python_playout(state, policy, seed + i)
    return PlayoutBatch(returns, decisions)


def playouts(
    state: FortState, n: int, policy: str = "random", seed: int = 0, threads: int = 1
) -> np.ndarray:
    """The returns of :func:`playout_batch`: float64 ``(n, num_players)``; row ``i`` is the
    playout with seed ``seed + i``. Raises as :func:`playout_batch`."""
    return playout_batch(state, n, policy, seed, threads).returns


def playout_decisions_per_second(
    seconds: float, num_players: int = 4, seed: int = 0, policy: str = "random"
) -> float | None:
    """Decisions per second of playouts inside the C++ core (``fort-env bench``): batches of
    random playouts from fresh deals on one thread, for about ``seconds``; ``None`` without a
    compiled core that binds them."""
    if not cpp_backend.available() or not hasattr(cpp_backend.require(), "playouts"):
        return None
    game = FortGame(num_players, backend="cpp")
    decisions, deal = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed + deal)
        first = BENCH_SEED_OFFSET + seed + BENCH_BATCH * deal
        batch = playout_batch(state, BENCH_BATCH, policy, first)
        decisions += int(batch.decisions.sum())
        deal += 1
    return decisions / (time.perf_counter() - start)
