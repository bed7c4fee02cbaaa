"""The coverage-guided fuzz target of the C++ core: ``from_dict`` + ``apply_action`` on both
backends, and the raw ``_core`` entry points on unchecked arrays.

One input (bytes) is a saved state and what to do with it (:func:`encode` / :func:`decode`)::

    [config] [flags] [p1] [p2]  state bytes (every array of ``ARRAYS``, then ctx)  actions...

``config`` picks one of :data:`fort_env.testing.differential.CONFIGS` (with the shipped card
set); the state bytes are the arrays' raw bytes (``ARRAYS`` order, native byte order, then the
int64 ``ctx``), so a byte-level mutation of the fuzzer is a mutation of one field of a saved
state; ``flags`` and ``p1``/``p2`` ask for a structural corruption of the dict
(:func:`_corrupt`: a key removed, a value of another type, a wrong version...), and each pair
of action bytes is one action: a legal one (by index), a raw int (possibly illegal or out of
range) or a value of another type.

:func:`one_input` then checks, raising :class:`Finding` on any breach:

1. **Load.** ``FortState.from_dict`` on a ``"python"`` and on a ``"cpp"`` game: the same outcome
   (both raise ``StateError`` with the same message, or both load with byte-identical arrays).
   Any other exception is a finding (the documented error is ``StateError``).
2. **Play.** For each action: ``apply_action`` on both; the same outcome (no error, or the same
   exception type and message: ``IllegalActionError`` or ``TypeError``, nothing else), the
   state unchanged after an error, and after each step the same arrays, ``legal_actions``,
   ``current_player`` and ``returns`` (and every fourth step the mask and the actor's
   observation; at the end ``score_breakdown`` and ``winners``).
3. **Deal.** (``flags & 16``) ``new_initial_state`` with an odd seed or first player: the
   same state, or the same exception type and message, on both backends.
4. **Raw core.** (``flags & 8``) The same arrays, unchecked, go straight into
   ``_core.State.from_arrays`` and every ``_core`` entry point (``legal_actions``,
   ``raw_legal``, ``legal_mask``, ``is_legal``, ``observation``, ``score_breakdown``,
   ``winners``, ``resample_hidden``, ``apply_unchecked``, ``check_end``): each may refuse the
   state with ``ValueError``, ``IndexError``, ``RuntimeError`` or a ``fort_env`` error, but
   must never crash (the fuzz build has ASan and UBSan; a crash there kills the process,
   which the driver reports). The raw state also goes to every built-in policy
   (``_core.policy_action``) and to a playout (or a batch on two threads) with one of them,
   as does its re-deal (a position with no legal action is where a policy once read out of
   bounds).
5. **Re-deal and playouts.** (``flags & 32``) The loaded state (after its actions) re-dealt
   for seat ``p1 % n`` with seed ``p2``: the same state from ``hidden.resample_hidden_seeded``
   and ``_core.resample_hidden``, or the same error (``StateError``); a running re-deal has a
   legal action; the Python and C++ ``"random"`` policies choose the same action there and
   every built-in policy a legal one; and the re-deal (the loaded state when it is refused)
   plays out with one policy (``p2``), ending the game or raising a documented error
   (``StateError``, never for a re-deal, or ``RuntimeError`` past the guard).

``scripts/fuzz_core.py`` runs it under atheris (coverage of the C++ core and of the Python
validation); ``tests/differential/test_fuzz_target.py`` runs it on the seed corpus and on
seeded random mutations of it without atheris, so the plain and sanitizer test runs cover it.

Without atheris, on a core of your own build::

    import random
    from fort_env.testing import core_fuzz

    rng = random.Random(0)
    corpus = [data for _, data in core_fuzz.seed_corpus(4, seed=0)]
    for i in range(1000):
        core_fuzz.one_input(core_fuzz.mutate(corpus[i % len(corpus)], rng))  # Finding: a breach
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import traceback
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.constants import MADE_UP_RULES, NUM_SUITS, PERKS, ZONES
from fort_env.game.errors import ConfigError, FortError, IllegalActionError, StateError
from fort_env.game.facts import config_card_set
from fort_env.game.fields import C_PROGRAM_LENGTH
from fort_env.game.rng import EventRng
from fort_env.game.state_arrays import ARRAYS, CTX_FIELDS, MAX_STEPS, PLAYER_FIELDS, STATE_VERSION
from fort_env.native import backend as cb
from fort_env.native import playout as P
from fort_env.native.policies import POLICIES
from fort_env.testing.differential import CONFIGS, game
from fort_env.views.hidden import resample_hidden_seeded

HEADER = 4  # config, flags, p1, p2
CARD_ARRAYS = ("zone", "owner", "pos", "mark", "coin_as")  # a card entry's fields, in order
MAX_ACTIONS = 48  # action pairs read per input: keeps one execution to milliseconds
PLAYOUTS = 2  # playouts of a batch per policy (threads=2) in the raw and re-deal checks
# What a playout or a policy may raise at a state the rules cannot continue (never a crash).
PLAYOUT_ERRORS = (StateError, RuntimeError)
MASK_EVERY = 4  # the mask and the actor's observation are compared every so many steps
RAW_ACTIONS = 8  # apply_unchecked calls on the raw state per input
# What the raw _core entry points may raise for a state they refuse (never a crash).
RAW_ERRORS = (ValueError, IndexError, TypeError, RuntimeError, KeyError, OverflowError, FortError)
# Values of the wrong type (or range) for an action: each must give the Python engine's error.
ODD_ACTIONS: tuple[Any, ...] = (
    1.0, True, False, "3", None, b"\x01", [3], 2**70, -(2**70), -1,
    np.int64(2**40), np.uint8(3), np.int8(-3), np.float32(2), np.array(3), np.array([3]),
    np.array(2.0), np.bool_(True),
)  # fmt: skip
# Seeds and first players for the deal: each must give the Python engine's error, or its deal.
ODD_SEEDS: tuple[Any, ...] = (
    0, 1, -1, 2**62 - 1, 2**62, 2**63, -(2**63), 2**70, 1.0, True, "1", None, np.int64(7),
    np.uint64(2**63), np.int8(-1), np.float64(3), np.array(5), [1],
)  # fmt: skip
ODD_FIRST: tuple[Any, ...] = (None, 0, 1, 3, 4, -1, 1.0, True, "0", np.int64(1), 2**70)
# Replacement values of the wrong type for a structural corruption of the dict.
ODD_VALUES: tuple[Any, ...] = (
    None, "x", 1.5, True, [], {}, [1], {"a": 1}, 2**70, -(2**70), -1, float("nan"), b"\x00",
)  # fmt: skip


class Finding(AssertionError):
    """A breach of the contract: a divergence, an undocumented exception, a changed state."""


# --------------------------------------------------------------------------- encoding
def _sizes(g: FortGame) -> list[tuple[str, Any, tuple[int, ...]]]:
    return [
        (name, np.dtype(dtype), shape(g.num_cards, g.num_players))
        for name, (dtype, shape) in ARRAYS.items()
    ]


def state_size(config: int) -> int:
    """Bytes of a state of configuration ``config`` (index into ``CONFIGS``), ctx included."""
    g = game(*CONFIGS[config], "python")
    arrays = sum(int(dt.itemsize) * int(np.prod(shape)) for _, dt, shape in _sizes(g))
    return arrays + 8 * len(CTX_FIELDS)


def encode(config: int, state: FortState, actions: bytes = b"", flags: int = 0) -> bytes:
    """An input of the target: ``state`` (of configuration ``config``) and ``actions``."""
    body = b"".join(np.ascontiguousarray(getattr(state, n)).tobytes() for n in ARRAYS)
    ctx = np.asarray([int(x) for x in state.ctx], dtype=np.int64).tobytes()
    return bytes([config, flags & 0xFF, 0, 0]) + body + ctx + actions


def decode(data: bytes) -> tuple[int, int, int, int, dict[str, np.ndarray], bytes] | None:
    """``(config, flags, p1, p2, arrays (ctx included), action bytes)``, or ``None`` when the
    input is too short to hold a state."""
    if len(data) < HEADER:
        return None
    config = data[0] % len(CONFIGS)
    size = state_size(config)
    if len(data) < HEADER + size:
        return None
    g = game(*CONFIGS[config], "python")
    arrays: dict[str, np.ndarray] = {}
    at = HEADER
    for name, dt, shape in _sizes(g):
        n = dt.itemsize * int(np.prod(shape))
        arrays[name] = np.frombuffer(data[at : at + n], dtype=dt).reshape(shape).copy()
        at += n
    arrays["ctx"] = np.frombuffer(data[at : at + 8 * len(CTX_FIELDS)], dtype=np.int64).copy()
    at += 8 * len(CTX_FIELDS)
    return config, data[1], data[2], data[3], arrays, data[at:]


def to_dict(g: FortGame, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The saved-state dict of raw arrays, as ``StateArrays.to_dict`` writes it, but total: a
    zone code outside ``ZONES`` is written as its int, a program length out of range gives the
    rows that exist (``from_dict`` must refuse both)."""
    ctx = [int(x) for x in arrays["ctx"]]
    n = ctx[C_PROGRAM_LENGTH]
    rows = max(0, min(n, MAX_STEPS))
    return {
        "version": STATE_VERSION,
        "num_players": g.num_players,
        "setup": g.setup,
        "card_set": config_card_set(g),
        "cards": [
            {
                "zone": ZONES[z] if 0 <= z < len(ZONES) else int(z),
                "owner": int(o),
                "pos": int(p),
                "mark": int(m),
                "coin_as": int(c),
            }
            for z, o, p, m, c in zip(*(arrays[k] for k in CARD_ARRAYS), strict=True)
        ],
        "players": [
            dict(zip(PLAYER_FIELDS, map(int, row), strict=True)) for row in arrays["players"]
        ],
        "made_up_rules": {MADE_UP_RULES[i]: int(v) for i, v in enumerate(arrays["rule_loc"])},
        "perks": {PERKS[i]: int(v) for i, v in enumerate(arrays["perk_loc"])},
        "play_suits": [int(x) for x in arrays["play_suits"]],
        "program": [
            [int(x) for x in row] + [int(d)]
            for row, d in zip(arrays["prog"][:rows], arrays["done"][:rows], strict=True)
        ],
        "ctx": {k: v for k, v in zip(CTX_FIELDS, ctx, strict=True)},
    }


def _corrupt(d: dict[str, Any], flags: int, p1: int, p2: int) -> None:
    """A structural corruption of the dict chosen by ``flags`` (low 3 bits; 0: none)."""
    kind = flags & 7
    if kind == 0:
        return
    odd = ODD_VALUES[p2 % len(ODD_VALUES)]
    keys = sorted(d)
    key = keys[p1 % len(keys)]
    if kind == 1:  # a top-level key missing
        del d[key]
    elif kind == 2:  # a top-level value of another type
        d[key] = odd
    elif kind == 3:  # a card entry: a field missing, of another type, or not a dict
        entry = d["cards"][p1 % len(d["cards"])]
        field = sorted(entry)[p2 % len(entry)]
        if p2 & 8:
            del entry[field]
        elif p2 & 16:
            d["cards"][p1 % len(d["cards"])] = odd
        else:
            entry[field] = odd
    elif kind == 4:  # a ctx field missing or of another type
        field = CTX_FIELDS[p1 % len(CTX_FIELDS)]
        if p2 & 128:
            del d["ctx"][field]
        else:
            d["ctx"][field] = odd
    elif kind == 5:  # a player's counter, a rule's or perk's location of another type
        where = ("players", "made_up_rules", "perks")[p1 % 3]
        if where == "players":
            row = d["players"][p2 % len(d["players"])]
            row[PLAYER_FIELDS[p1 % len(PLAYER_FIELDS)]] = odd
        else:
            table = d[where]
            table[sorted(table)[p2 % len(table)]] = odd
    elif kind == 6:  # a program row or the suits of another shape or type
        if d["program"] and p2 & 1:
            d["program"][p1 % len(d["program"])] = [odd] * (p2 % 7)
        else:
            d["play_suits"] = [odd] * (p1 % (NUM_SUITS + 2))
    else:  # an extra key, or an unknown card set / version / setup
        d[("extra", "version", "card_set", "setup", "num_players")[p1 % 5]] = odd


# --------------------------------------------------------------------------- the checks
def _outcome(f: Any, *args: Any) -> tuple[str, str] | None:
    """``None`` if ``f(*args)`` returned, else ``(exception type, message)``."""
    try:
        f(*args)
    except Exception as exc:  # compared between the backends, then judged
        return type(exc).__name__, str(exc)
    return None


def _raw(s: FortState) -> bytes:
    return b"".join([*(getattr(s, n).tobytes() for n in ARRAYS), bytes(s.ctx)])


def _same(what: str, py: Any, cpp: Any) -> None:
    if isinstance(py, np.ndarray):
        ok = isinstance(cpp, np.ndarray) and py.dtype == cpp.dtype and np.array_equal(py, cpp)
    else:
        ok = type(py) is type(cpp) and py == cpp
    if not ok:
        raise Finding(f"{what} differs\n  python: {py!r}\n  cpp:    {cpp!r}")


def _load(d: dict[str, Any], n: int, setup: str) -> tuple[FortState, cb.CppFortState] | None:
    """Both backends' ``from_dict`` of ``d``: the same outcome, ``StateError`` only."""
    results: list[Any] = []
    for backend in ("python", "cpp"):
        try:
            results.append(FortState.from_dict(game(n, setup, backend), d))
        except StateError as exc:
            results.append(("StateError", str(exc)))
        except Exception as exc:
            raise Finding(
                f"from_dict on the {backend} backend raised {type(exc).__name__} (only "
                f"StateError is documented): {exc}\n{traceback.format_exc(limit=6)}"
            ) from exc
    py, cpp = results
    if isinstance(py, tuple) or isinstance(cpp, tuple):
        _same("from_dict outcome", py if isinstance(py, tuple) else "loaded",
              cpp if isinstance(cpp, tuple) else "loaded")  # fmt: skip
        return None
    if type(cpp) is not cb.CppFortState:
        raise Finding(f"from_dict on a cpp game gave a {type(cpp).__name__}")
    _same("arrays after from_dict", _raw(py), _raw(cpp))
    return py, cpp


def _actions(data: bytes, num_actions: int) -> Iterator[tuple[int, int]]:
    for i in range(0, min(len(data) // 2, MAX_ACTIONS) * 2, 2):
        yield data[i], data[i + 1]


def _play(py: FortState, cpp: cb.CppFortState, actions: bytes) -> int:
    """Apply the input's actions to both states, comparing; returns the steps taken."""
    num = py.game.num_distinct_actions
    steps = 0
    for op, arg in _actions(actions, num):
        legal = py.legal_actions()
        _same("legal_actions", legal, cpp.legal_actions())
        if py.is_terminal():
            _same("score_breakdown", py.score_breakdown(), cpp.score_breakdown())
            _same("winners", py.winners(), cpp.winners())
            break
        if not legal:
            raise Finding(f"no legal action at {py.decision} after {steps} steps, not over")
        kind = op % 8
        if kind < 6:
            action: Any = legal[arg % len(legal)]
        elif kind == 6:
            action = (op << 8 | arg) % (num + 8) - 4  # illegal ones too, and out of range
        else:
            action = ODD_ACTIONS[arg % len(ODD_ACTIONS)]
        before_py, before_cpp = _raw(py), _raw(cpp)
        out_py, out_cpp = _outcome(py.apply_action, action), _outcome(cpp.apply_action, action)
        _same(f"apply_action({action!r}) outcome", out_py, out_cpp)
        if out_py is not None:
            if out_py[0] not in (IllegalActionError.__name__, TypeError.__name__):
                raise Finding(f"apply_action({action!r}) raised {out_py} (undocumented)")
            if _raw(py) != before_py or _raw(cpp) != before_cpp:
                raise Finding(f"apply_action({action!r}) raised {out_py} but changed the state")
            continue
        steps += 1
        _same(f"arrays after apply_action({action!r})", _raw(py), _raw(cpp))
        _same("current_player", py.current_player(), cpp.current_player())
        _same("returns", py.returns(), cpp.returns())
        if steps % MASK_EVERY == 0:
            _same("legal_actions_mask", py.legal_actions_mask(), cpp.legal_actions_mask())
            if not py.is_terminal():
                seat = py.current_player()
                _same(f"observation_tensor({seat})", py.observation_tensor(seat),
                      cpp.observation_tensor(seat))  # fmt: skip
    return steps


def _raw_core(g: FortGame, arrays: dict[str, np.ndarray], actions: bytes, p1: int) -> None:
    """Every ``_core`` entry point on the unchecked arrays: refuse or answer, never crash."""
    core = cb.require()
    try:
        state = core.State.from_arrays(cb.core_game(g), arrays)
    except RAW_ERRORS:
        return
    calls: list[tuple[Any, tuple[Any, ...]]] = [
        (core.legal_actions, (state,)),
        (core.raw_legal, (state,)),
        (core.legal_mask, (state, np.zeros(g.num_distinct_actions, dtype=bool))),
        (core.is_legal, (state, (p1 * 7) % (g.num_distinct_actions + 2) - 1)),
        (core.score_breakdown, (state,)),
        (core.winners, (state,)),
        (core.resample_hidden, (state, p1 % g.num_players, p1)),
    ]
    for seat in range(g.num_players):
        out = np.zeros(g.observation_size, dtype=np.float32)
        calls.append((core.observation, (state, seat, out)))
    for f, args in calls:
        with contextlib.suppress(*RAW_ERRORS):
            f(*args)
    _raw_policies(core, state, p1)
    with contextlib.suppress(*RAW_ERRORS):
        _raw_policies(core, core.resample_hidden(state, p1 % g.num_players, p1), p1)
    num = g.num_distinct_actions
    for op, arg in list(_actions(actions, num))[:RAW_ACTIONS]:
        try:
            legal = core.legal_actions(state)
            a = int(legal[arg % len(legal)]) if op & 1 and len(legal) else (op << 8 | arg) % num
            core.apply_unchecked(state, a)
            core.check_end(state)
        except RAW_ERRORS:
            break


def _raw_policies(core: Any, state: Any, p1: int) -> None:
    """Every built-in policy's action on an unchecked state, and a playout with one of them
    (``p1``; a batch on two threads when ``p1 & 2``): each may refuse (``RAW_ERRORS``), never
    crash. One playout per input keeps an execution short (a playout is a whole game)."""
    for code in range(len(POLICIES)):
        with contextlib.suppress(*RAW_ERRORS):
            core.policy_action(state, code, p1, 0)
    code = p1 % len(POLICIES)
    with contextlib.suppress(*RAW_ERRORS):
        if p1 & 2:
            core.playouts(state, PLAYOUTS, code, p1, 2)
        else:
            core.playout(state, code, p1)


def _redeal_and_play(py: FortState, cpp: cb.CppFortState, p1: int, p2: int) -> None:
    """Check 5: the loaded state re-dealt alike by both engines, and played out."""
    observer, seed = p1 % py.game.num_players, p2
    core = cb.require()
    outcome: list[Any] = []
    for f in (
        lambda: resample_hidden_seeded(py, observer, seed),
        lambda: cb.wrap_core_state(cpp.game, core.resample_hidden(cpp.core_state, observer, seed)),
    ):
        try:
            outcome.append(f())
        except StateError as exc:
            outcome.append(("StateError", str(exc)))
        except Exception as exc:
            raise Finding(f"resample_hidden raised {type(exc).__name__}: {exc}") from exc
    rpy, rcpp = outcome
    if isinstance(rpy, tuple) or isinstance(rcpp, tuple):
        _same("resample_hidden outcome", rpy if isinstance(rpy, tuple) else "re-dealt",
              rcpp if isinstance(rcpp, tuple) else "re-dealt")  # fmt: skip
        start, redealt = cpp, False
    else:
        STATS["redeals"] += 1
        _same("arrays after resample_hidden", _raw(rpy), _raw(rcpp))
        if not rpy.is_terminal():
            legal = rpy.legal_actions()
            if not legal:
                raise Finding(f"a re-deal at {rpy.decision} has no legal action")
            _same("legal_actions after resample_hidden", legal, rcpp.legal_actions())
            _same("the random policy's action after resample_hidden",
                  P.policy_action(rpy, "random", EventRng(seed, 0)),
                  core.policy_action(rcpp.core_state, 0, seed, 0))  # fmt: skip
            for code in range(len(POLICIES)):
                if core.policy_action(rcpp.core_state, code, seed, 1) not in legal:
                    raise Finding(f"policy {POLICIES[code]} chose an illegal action")
        start, redealt = rcpp, True
    policy = POLICIES[p2 % len(POLICIES)]
    try:
        if p2 & 2:
            P.playouts(start, PLAYOUTS, policy, seed, threads=2)
            STATS["playouts"] += PLAYOUTS
        else:
            P.playout(start, policy, seed)
            STATS["playouts"] += 1
    except PLAYOUT_ERRORS as exc:
        if redealt and isinstance(exc, StateError):
            raise Finding(f"a playout ({policy}) of a re-deal raised {exc}") from exc


def _deal(n: int, setup: str, p1: int, p2: int, raw_seed: int) -> None:
    """The deal with an odd seed and first player: the same state or the same error."""
    seed = ODD_SEEDS[p1 % len(ODD_SEEDS)] if p2 & 1 else raw_seed
    first = ODD_FIRST[p2 % len(ODD_FIRST)]
    results: list[Any] = []
    for backend in ("python", "cpp"):
        try:
            results.append(_raw(game(n, setup, backend).new_initial_state(seed, first)))
        except (ConfigError, TypeError, ValueError) as exc:
            results.append((type(exc).__name__, str(exc)))
    _same(f"new_initial_state({seed!r}, {first!r})", *results)


# What the inputs did, summed over the process (scripts/fuzz_core.py reports them): inputs,
# too short for a state, refused by from_dict (StateError), loaded, actions applied on both,
# raw-core runs, deals compared, re-deals compared, playouts played.
STATS: Counter[str] = Counter()


def one_input(data: bytes) -> int:
    """Run one input; returns the actions applied. Raises :class:`Finding` on a breach."""
    STATS["inputs"] += 1
    decoded = decode(data)
    if decoded is None:
        STATS["too_short"] += 1
        return 0
    config, flags, p1, p2, arrays, actions = decoded
    n, setup = CONFIGS[config]
    g = game(n, setup, "cpp")
    if flags & 8:
        STATS["raw_core"] += 1
        _raw_core(g, arrays, actions, p1)
    if flags & 16:
        STATS["deals"] += 1
        _deal(n, setup, p1, p2, int(arrays["ctx"][0]))
    d = to_dict(g, arrays)
    _corrupt(d, flags, p1, p2)
    loaded = _load(d, n, setup)
    if loaded is None:
        STATS["refused"] += 1
        return 0
    STATS["loaded"] += 1
    steps = _play(*loaded, actions)
    STATS["actions_applied"] += steps
    if flags & 32:
        _redeal_and_play(*loaded, p1, p2)
    return steps


def signature(exc: BaseException) -> str:
    """A short key that groups findings of one cause (type, first line of the message, the
    innermost frame in fort_env or tests)."""
    frames = [
        f"{fr.filename.rsplit('/', 1)[-1]}:{fr.lineno}"
        for fr in traceback.extract_tb(exc.__traceback__)
        if "fort_env" in fr.filename or "differential" in fr.filename
    ]
    head = str(exc).splitlines()[0] if str(exc) else ""
    # numbers vary between inputs of one cause: keep the words
    words = " ".join(w for w in head.split() if not any(ch.isdigit() for ch in w))[:120]
    return f"{type(exc).__name__}: {words} @ {frames[-1] if frames else '?'}"


# --------------------------------------------------------------------------- seed corpus
def seed_corpus(per_config: int, seed: int = 0) -> Iterator[tuple[str, bytes]]:
    """``per_config`` inputs per configuration from real games: a random game on the C++
    backend stopped at a random decision (the draft, mid-action, the end), its state, and the
    action bytes of how the game went on (legal picks, with a raw or odd action now and then).
    Yields ``(name, input)``; the same ``seed`` gives the same inputs."""
    rng = random.Random(seed)
    for config, (n, setup) in enumerate(CONFIGS):
        g = game(n, setup, "cpp")
        for k in range(per_config):
            s = g.new_initial_state(rng.randrange(2**31))
            stop = rng.choice((0, rng.randrange(40), rng.randrange(400), 10_000))
            for _ in range(stop):
                if s.is_terminal():
                    break
                s.apply_action(rng.choice(s.legal_actions()))
            acts = bytearray()
            for _ in range(MAX_ACTIONS):
                r = rng.random()
                op = rng.randrange(6) if r < 0.9 else (6 if r < 0.96 else 7)
                acts += bytes([op + 8 * rng.randrange(32), rng.randrange(256)])
            # raw core, deal, re-deal and playouts
            flags = (8 if k % 2 else 0) | (16 if k % 3 == 0 else 0) | (32 if k % 4 < 2 else 0)
            yield f"{n}p-{setup}-{k:03d}", encode(config, s, bytes(acts), flags)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few byte-level changes (the fuzzer's kind, without its coverage): a byte set, a bit
    flipped, an int16 nudged, the header's flags and parameters redrawn. For the plain tests."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.15:
            b[1], b[2], b[3] = rng.randrange(256), rng.randrange(256), rng.randrange(256)
        elif r < 0.5:
            i = rng.randrange(HEADER, len(b))
            b[i] = rng.choice((0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0xFE, rng.randrange(256)))
        elif r < 0.8:
            i = rng.randrange(HEADER, len(b))
            b[i] ^= 1 << rng.randrange(8)
        else:
            i = rng.randrange(HEADER, len(b) - 1)
            v = int.from_bytes(b[i : i + 2], "little", signed=True) + rng.choice((-2, -1, 1, 2))
            b[i : i + 2] = (v & 0xFFFF).to_bytes(2, "little")
    return bytes(b)


def describe(data: bytes) -> str:
    """A readable summary of an input (configuration, header, the dict as JSON)."""
    decoded = decode(data)
    if decoded is None:
        return f"{len(data)} bytes: too short for a state"
    config, flags, p1, p2, arrays, actions = decoded
    n, setup = CONFIGS[config]
    d = to_dict(game(n, setup, "python"), arrays)
    _corrupt(d, flags, p1, p2)
    digest = hashlib.sha1(data).hexdigest()[:12]
    return (
        f"input {digest}: {n}p {setup}, flags {flags:#04x}, p1 {p1}, p2 {p2}, "
        f"{len(actions) // 2} action pairs {list(actions[:32])}...\n"
        f"{json.dumps(d, default=repr)[:4000]}"
    )
