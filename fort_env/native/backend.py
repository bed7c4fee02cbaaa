"""The compiled core (``fort_env.native._core``, built from ``cpp/``) behind FortState's API.

:class:`CppFortState` is a :class:`~fort_env.core.FortState` whose arrays are zero-copy views of
a C++ state and whose rules, masks and views run in C++; it registers itself as the ``"cpp"``
backend of :class:`~fort_env.core.FortGame`, the default whenever the extension is built and up
to date (``fort_env.core.default_backend``). :func:`game_tables` hands the C++ core the game's
facts and compiled card programs as flat arrays (C++ parses no text). ``tests/differential``
proves the two engines equal, decision by decision.

The extension is optional: ``fort_env`` imports and works without it, and asking for the
``"cpp"`` backend then raises :class:`~fort_env.game.errors.ConfigError` saying why. The
environment variable ``FORT_ENV_CORE`` names a ``_core`` shared library to load instead of
the installed one (``scripts/sanitize.sh`` runs the differential tests on a sanitized build).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import weakref
from array import array
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from fort_env.core import BACKENDS, STATE_CLASSES, FortGame, FortState
from fort_env.game.cards import ADVANCE, ATOM, REPEAT, THEN, Effect, count_verb
from fort_env.game.constants import MADE_UP_RULES, PERKS, SEED_LIMIT, ZONES
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import ConfigError, IllegalActionError, StateError
from fort_env.game.facts import GameFacts
from fort_env.game.fields import C_DECISION
from fort_env.game.inputs import as_action
from fort_env.game.stages import NUM_STAGES
from fort_env.game.state_arrays import ARRAYS, CTX_FIELDS, MAX_STEPS, PLAYER_FIELDS, StateArrays
from fort_env.native.policies import POLICIES
from fort_env.views.hidden import suit_class

if TYPE_CHECKING:
    # The stub _core.pyi (tests/test_core_stub.py checks it against the built module). A plain
    # `import ... as`: the import contracts read a from-import of the extension, which is no
    # Python file, as an import of the whole fort_env package.
    import fort_env.native._core as _C

# What the compiled module must agree on with this Python source (its generated constants.h).
_EXPECTED_LAYOUT = {
    "NUM_CTX": len(CTX_FIELDS),
    "NUM_PLAYER_FIELDS": len(PLAYER_FIELDS),
    "MAX_STEPS": MAX_STEPS,
    "NUM_ZONES": len(ZONES),
    "NUM_DECISION_KINDS": len(DecisionKind),
    "NUM_STAGES": NUM_STAGES,
    "NUM_MADE_UP_RULES": len(MADE_UP_RULES),
    "NUM_PERKS": len(PERKS),
}

_core: ModuleType | None = None
_why_missing: str | None = None
_loaded = False
if not TYPE_CHECKING:
    # The loaded module as CppFortState's methods call it (set with _core; a CppFortState
    # exists only once the module is loaded, so its methods read this global without a check).
    # For mypy it is the stub's module (the import above), so every call through it is typed.
    _C = None


def _load() -> ModuleType | None:
    global _core, _C, _why_missing, _loaded
    if _loaded:
        return _core
    _loaded = True
    path = os.environ.get("FORT_ENV_CORE")
    try:
        if path:
            spec = importlib.util.spec_from_file_location("fort_env.native._core", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"FORT_ENV_CORE={path!r} is not a loadable extension")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            # by name, not `from . import _core`: the import contracts would read that as an
            # import of the whole fort_env package (env included) from this layer
            module = importlib.import_module(f"{__package__}._core")
    except ImportError as exc:
        _why_missing = f"{type(exc).__name__}: {exc}"
        return None
    layout = dict(getattr(module, "LAYOUT", {}))
    missing = [name for name in _OP_NAMES if not hasattr(module, name)]
    policies = getattr(module, "NUM_POLICIES", None)
    if layout != _EXPECTED_LAYOUT or missing or policies != len(POLICIES):
        if layout != _EXPECTED_LAYOUT:
            why = f"its layout {layout} differs from the Python source's {_EXPECTED_LAYOUT}"
        elif missing:
            why = f"it lacks {', '.join(missing)}"
        else:  # policy codes are indices into POLICIES (policy_code): the same list both sides
            why = f"it knows {policies} built-in policies, the Python source {list(POLICIES)}"
        _why_missing = f"the built extension {module.__file__} is stale ({why}); rebuild it"
        return None
    _core = _C = module
    return _core


def available() -> bool:
    """Whether the compiled core is built, importable and up to date with the Python source."""
    return _load() is not None


def why_unavailable() -> str | None:
    """Why the compiled core cannot be used (``None`` if it can)."""
    _load()
    return _why_missing


def require() -> ModuleType:
    """The compiled module ``fort_env.native._core``.

    Raises:
        ConfigError: it is not built, cannot be imported, or is stale; the message says why
            and how to build it.
    """
    core = _load()
    if core is None:
        raise ConfigError(
            'backend "cpp" needs the compiled extension fort_env.native._core, which is not '
            f"usable: {_why_missing}. Build it by reinstalling the package "
            '(pip install -c constraints.txt -e ".[dev]"; docs/cpp.md), or use backend="python"'
        )
    return core


_TABLES: weakref.WeakKeyDictionary[FortGame, dict[str, Any]] = weakref.WeakKeyDictionary()
_GAMES: weakref.WeakKeyDictionary[FortGame, _C.Game] = weakref.WeakKeyDictionary()


def game_tables(game: FortGame) -> dict[str, Any]:
    """The flat tables of ``game`` that ``_core.Game(**tables)`` reads (cached per game).

    Each part of the C++ core adds the entries it needs in its own marked block; every value
    is an int, a bool or a numpy array of the exact dtype ``_core.Game`` checks (it raises
    ``ValueError`` naming a table of another dtype or ndim, ``TypeError`` for a missing or
    unknown one).

    The deal: ``num_players`` (int), ``advanced`` (bool), ``is_best_friend``
    (uint8, shape ``(num_cards,)``), ``card_board`` (int32 ``(num_cards,)``: index of the
    card's board in ``game.card_set.boards``, -1 for none) and ``seat_board`` (int32
    ``(num_players,)``: the board index each seat plays).

    The rules: the card programs and the facts the apply path reads, described by
    :func:`_apply_path_tables`. The views: :func:`_views_tables`.
    """
    tables = _TABLES.get(game)
    if tables is None:
        boards = list(game.card_set.boards)
        tables = {}
        # the deal
        tables["num_players"] = game.num_players
        tables["advanced"] = game.setup == "advanced"
        tables["is_best_friend"] = np.asarray(game.is_best_friend, dtype=np.uint8)
        tables["card_board"] = np.array(
            [-1 if c.board is None else boards.index(c.board) for c in game.cards],
            dtype=np.int32,
        )
        tables["seat_board"] = np.array([boards.index(b) for b in game.board_of_seat], np.int32)
        tables.update(_apply_path_tables(game))  # the rules
        tables.update(_views_tables(game))  # the views
        _TABLES[game] = tables
    return tables


# --- the rules: the card programs and the facts the rules read --------------------------
def _apply_path_tables(game: FortGame) -> dict[str, Any]:
    """The tables the C++ rules read to apply actions (``fort::Game``, apply path block).

    Returns ``effect_nodes`` (int32 ``(num_nodes, 4)``: every effect tree of the card set,
    flattened children first, one row per node: ``(ATOM, verb, arg, 0)``,
    ``(THEN, left, right, 0)`` or ``(REPEAT, body, mult, mult_arg)`` with children named by
    row), ``card_effects`` (int32 ``(num_cards, 2)``: the root row of each card's public and
    private action, -1 for a blank one), ``suit_lists`` (int8 ``(num_cards, 2)``: the card's
    suits, -1 padded), ``suit_counts`` (int16 ``(num_cards, NUM_SUITS)``), ``kind`` (int32
    ``(num_cards,)``), ``fort_steps`` (int32 ``(MAX_FORT_LEVEL, 3)``: toys, pizza, either of
    each step), ``level_points`` (int32 ``(MAX_FORT_LEVEL + 1,)``), ``action_starts`` (int32
    ``(len(actions.RANGES),)``) and ``num_actions`` (int).
    """
    nodes: list[tuple[int, int, int, int]] = []
    rows: dict[Effect, int] = {}

    def flat(node: Effect | None) -> int:
        if node is None:
            return -1
        row = rows.get(node)
        if row is None:
            if node[0] == ATOM:
                entry = (ATOM, node[1], node[2], 0)
            elif node[0] == THEN:
                entry = (THEN, flat(node[1]), flat(node[2]), 0)
            else:
                entry = (REPEAT, flat(node[1]), node[2], node[3])
            row = rows[node] = len(nodes)
            nodes.append(entry)
        return row

    card_effects = np.array([[flat(e) for e in pair] for pair in game.effects], np.int32)
    suit_lists = np.full((game.num_cards, 2), -1, dtype=np.int8)
    for cid, suits in enumerate(game.suit_lists):
        suit_lists[cid, : len(suits)] = suits
    layout = game.layout
    return {
        "effect_nodes": np.array(nodes, dtype=np.int32).reshape(-1, 4),
        "card_effects": card_effects.reshape(game.num_cards, 2),
        "suit_lists": suit_lists,
        "suit_counts": np.asarray(game.suit_counts, dtype=np.int16),
        "kind": np.array(game.kind, dtype=np.int32),
        "fort_steps": np.array(
            [(st.toys, st.pizza, st.either) for st in game.fort_steps], dtype=np.int32
        ).reshape(-1, 3),
        "level_points": np.array(game.level_points, dtype=np.int32),
        "action_starts": np.array([start for _, start, _ in layout.ranges()], dtype=np.int32),
        "num_actions": layout.num_actions,
    }


def core_game(game: FortGame) -> _C.Game:
    """The ``_core.Game`` of ``game``: built once from :func:`game_tables`, then cached (weakly
    keyed by the ``FortGame``).

    Raises:
        ConfigError: the compiled core is not usable (see :func:`require`).
        ValueError, TypeError: a table ``_core.Game`` rejects (a bug in :func:`game_tables`).
    """
    cg = _GAMES.get(game)
    if cg is None:
        require()  # ConfigError without a usable core; _C is that core once it returns
        cg = _C.Game(**game_tables(game))
        _GAMES[game] = cg
    return cg


# --- the views: the tables the C++ observation, scoring and re-deal read (fort::Game,
# views block; read by load_game_views in cpp/bindings/views_bind.cc).
def _views_tables(game: FortGame) -> dict[str, Any]:
    """The tables of the C++ views (``fort::Game``, views block).

    Returns ``suit_class`` (int32 ``(num_cards,)``: ``hidden.suit_class``, the smallest card
    id with the same suits) and ``printed_advances`` (int32 ``(num_cards,)``: Advance Fort
    steps printed on the card's two actions, ``cards.count_verb``, for Big Plans).
    """
    return {
        "suit_class": np.array(suit_class(game), dtype=np.int32),
        "printed_advances": np.array(
            [sum(count_verb(e, ADVANCE) for e in pair) for pair in game.effects], np.int32
        ),
    }


def state_from_arrays(game: FortGame, arrays: dict[str, np.ndarray]) -> FortState:
    """A :class:`FortState` of ``game`` holding copies of the arrays the C++ core returned.

    Raises:
        ConfigError: an array is missing or has another dtype or shape than
            ``state_arrays.ARRAYS`` says (a stale build).
    """
    s: FortState = FortState.empty(game)
    for name in ARRAYS:
        src = arrays.get(name)
        dst = getattr(s, name)
        if src is None or src.dtype != dst.dtype or src.shape != dst.shape:
            raise ConfigError(f"the C++ core returned a bad {name!r} array: {src!r}")
        setattr(s, name, src.copy())
    s.prog.flags.writeable = False  # shared by clones, as every program the engine loads
    ctx = arrays.get("ctx")
    if ctx is None or ctx.dtype != np.int64 or ctx.shape != (len(CTX_FIELDS),):
        raise ConfigError(f"the C++ core returned a bad ctx: {ctx!r}")
    s.ctx = array("q", ctx.tobytes())
    return s


def new_initial_state(
    game: FortGame, seed: int = 0, first_player: int | None = None, backend: str = "cpp"
) -> FortState:
    """Deal a new game with the chosen backend; the same state either way.

    Args:
        game: the game's facts (``FortGame``); its card set is handed to C++ as flat tables.
        seed: an int in ``[0, 2**62)``, as ``FortGame.new_initial_state``.
        first_player: the starting seat, or ``None`` to draw it.
        backend: ``"cpp"`` (the compiled deal) or ``"python"`` (``game.new_initial_state``).

    Raises:
        ConfigError: a bad backend name; ``"cpp"`` without a usable compiled core; a bad
            seed or ``first_player`` (the same messages on both backends).
    """
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "python":
        return game.new_initial_state(seed, first_player)
    cg = core_game(game)  # first: it loads the core (ConfigError without one) that _C names
    return state_from_arrays(game, _C.deal(cg, seed, first_player).to_arrays())


# --------------------------------------------------------------------------- the cpp state
# What CppFortState calls in the compiled module; a build without one of them is stale.
_OP_NAMES = (
    "legal_actions", "legal_list", "legal_mask", "is_legal", "raw_legal",  # the mask path
    "apply_action", "apply_unchecked", "check_end",  # the apply path
    "is_terminal", "current_player",  # the state
    "observation", "score_breakdown", "winners", "resample_hidden",  # the views
)  # fmt: skip

# _core.apply_action's results other than 0 (applied), as cpp/bindings/rules_bind.cc names them
_NOT_LEGAL, _OUT_OF_RANGE = 1, 2


def bound_functions() -> list[str]:
    """The functions of the compiled core that ``CppFortState`` calls (a build without one of
    them is reported stale by :func:`why_unavailable`). Raises ``ConfigError`` without a
    usable core."""
    core = require()
    return [name for name in _OP_NAMES if hasattr(core, name)]


def _key(s: FortState) -> bytes:
    """Every byte of a state's arrays and ctx: tells whether a Python twin is still equal."""
    return b"".join([*(getattr(s, name).tobytes() for name in ARRAYS), s.ctx.tobytes()])


# The core's refusal of a state field it will not index (check_indices: std::invalid_argument,
# a ValueError here), e.g. "state: ctx.played_card out of range"; the wordier ones name the
# array (cpp/src/rules/handlers.cc, search.cc).
_CORE_RANGE = re.compile(r"state: (.+) out of range\Z")
_CORE_FIELDS = {
    "a card's zone": "zone", "a card's owner": "owner", "a card's coin_as": "coin_as",
    "a Fort Level": "players", "a ctx counter": "ctx", "a ctx payment counter": "ctx",
    "a program row": "prog",
}  # fmt: skip


def _raise_state_error(err: ValueError) -> NoReturn:
    """Raise the core's refusal of a field out of range as the ``StateError`` naming the field
    (what the Python engine's checks of a state raise); any other error as it is."""
    found = _CORE_RANGE.match(str(err))
    if found is None or isinstance(err, StateError):
        raise err
    what = found.group(1)
    raise StateError(
        _CORE_FIELDS.get(what, what),
        f"{what} out of range: the engine never leaves it there (was the state written "
        "through its views?)",
    ) from err


def _refusing_states(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` with the core's refusals of a field out of range raised as ``StateError``."""

    @functools.wraps(method)
    def checked(self: CppFortState, *args: Any) -> Any:
        try:
            return method(self, *args)
        except ValueError as err:
            _raise_state_error(err)

    return checked


_new = object.__new__
_VIEW_NAMES = (*ARRAYS, "ctx")  # the attributes of a CppFortState that are views (properties)


def _view_property(name: str) -> property:
    """The attribute ``name`` (an array of ``state_arrays.ARRAYS`` or ``ctx``) of a
    ``CppFortState``: its zero-copy view of the C++ state, made on first use and kept in the
    ``StateArrays`` slot of that name; assigning a new object is refused (C++ would not see
    it). A property rather than ``__getattr__``: a class with ``__getattr__`` pays ~0.15 us
    on every attribute lookup, methods included."""
    slot = StateArrays.__dict__[name]  # the member descriptor of StateArrays' slot
    get, put = slot.__get__, slot.__set__

    def view(self: CppFortState) -> Any:
        try:
            return get(self)
        except AttributeError:  # not used yet
            pass
        cs = self._cs
        made: memoryview | np.ndarray
        if name == "ctx":
            made = cs.ctx_view().data.cast("B").cast("q")  # .data: the array's memoryview
        else:
            made = cs.array(name)
            if name == "prog":
                made.flags.writeable = False  # as the Python engine's; C++ still writes it
        put(self, made)
        return made

    def refuse(self: CppFortState, value: Any) -> None:
        raise AttributeError(
            f"{name} of a CppFortState is a view of the C++ state: write into it "
            f"(state.{name}[...] = ...) rather than replacing it"
        )

    return property(view, refuse, doc=f"Zero-copy view of the C++ state's {name}.")


class CppFortState(FortState):
    """A :class:`FortState` whose arrays live in a C++ ``fort::State`` (``game.backend ==
    "cpp"``): ``zone``, ``owner``, ... are zero-copy numpy views of the C++ vectors (same
    dtypes and shapes; ``prog`` read-only, as the Python engine's) and ``ctx`` a zero-copy
    ``memoryview`` of its int64 context (items read as Python ints, written as ints), so every
    Python view (text, ``to_dict``, validation, observation, scoring) reads it unchanged. The
    views are made on first use (a clone that is only played on never makes one).

    Each rule and view calls its C++ twin (``_core.legal_list``, ``_core.apply_action``,
    ``_core.observation``... see docs/cpp.md) directly; only :meth:`never_strands` runs the
    Python engine, on a Python twin of the position (a :class:`FortState` copy, kept while the
    arrays are unchanged). The results equal the Python backend's (``tests/differential``).

    The legal actions are cached by the C++ state (``search.h`` ``cached_legal_actions``):
    computed once per position and reused while every byte of the arrays and ``ctx`` is
    unchanged, which the C++ side checks on each use, so writes into the views are seen.
    ``legal_cache`` (the Python engine's cache) is therefore always ``None`` here.
    """

    __slots__ = ("_cs", "_twin", "_twin_key")
    _cs: _C.State
    _twin: FortState
    _twin_key: bytes

    # ------------------------------------------------------------------ construction
    @classmethod
    def usable(cls) -> bool:
        """Whether this backend can run here (the compiled core is built and up to date)."""
        return available()

    @classmethod
    def require_backend(cls) -> None:
        """Raise :class:`ConfigError` if the compiled core is not usable (``FortGame`` calls
        this for ``backend="cpp"``)."""
        require()

    @classmethod
    def _wrap(cls, game: FortGame, cs: _C.State) -> CppFortState:
        s: CppFortState = _new(cls)
        s.game = game
        s._cs = cs
        return s  # the views are made on first use: a clone only played on never makes one

    @property
    def legal_cache(self) -> None:
        """Always ``None``: the C++ state caches the legal actions (class docstring)."""
        return None

    @legal_cache.setter
    def legal_cache(self, value: list[int] | None) -> None:
        """Ignored (the Python rules that fill it run on a Python twin, never on this state)."""

    @classmethod
    def deal(cls, game: FortGame, seed: int = 0, first_player: int | None = None) -> CppFortState:
        """The initial state (``FortGame.new_initial_state``), dealt by the C++ core.

        Raises:
            ConfigError: a bad seed or ``first_player`` (the Python engine's messages), or no
                usable compiled core.
        """
        cg = core_game(game)  # first: it loads the core (ConfigError without one) that _C names
        return cls._wrap(game, _C.deal(cg, seed, first_player))

    @classmethod
    def from_state(cls, state: FortState) -> CppFortState:
        """A C++ copy of any state (its arrays copied into a new ``_core.State``)."""
        arrays = {name: getattr(state, name) for name in ARRAYS}
        arrays["ctx"] = np.frombuffer(state.ctx, dtype=np.int64)
        cg = core_game(state.game)  # first: it loads the core that _C names
        return cls._wrap(state.game, _C.State.from_arrays(cg, arrays))

    @classmethod
    def from_dict(cls, game: GameFacts, d: dict[str, Any]) -> CppFortState:
        """``FortState.from_dict``: checked by the Python engine, then copied into C++.

        Raises:
            StateError: as ``FortState.from_dict``; nothing is built.
        """
        py = FortState.checked_from_dict(game, d)
        return cls.from_state(py)

    def clone(self) -> CppFortState:
        """An independent copy (the C++ state copied, its legal-action cache not; the game
        shared)."""
        s: CppFortState = _new(type(self))
        s.game = self.game
        s._cs = self._cs.clone()
        return s

    __copy__ = clone

    @property
    def core_state(self) -> _C.State:
        """The ``_core.State`` holding this position (its arrays are this object's views)."""
        return self._cs

    # ------------------------------------------------------------------ the Python twin
    def _py(self) -> FortState:
        """A Python :class:`FortState` equal to this position (cached while it stays equal:
        its legal-action cache then carries over)."""
        key = _key(self)
        twin: FortState | None = getattr(self, "_twin", None)
        if twin is None or key != self._twin_key:
            twin = state_from_arrays(self.game, self._cs.to_arrays())
            self._twin = twin
            self._twin_key = key
        return twin

    # ------------------------------------------------------------------ the rules
    def current_player(self) -> int:
        return _C.current_player(self._cs)

    def is_terminal(self) -> bool:
        return _C.is_terminal(self._cs)

    # The core checks the state's fields before it indexes with them; a field out of range (a
    # state written through its views) is the StateError naming it. A finished game offers no
    # action whatever its decision fields say, as in the Python engine (the core checked them
    # first). The try blocks cost nothing on the hot paths when nothing is raised.
    def legal_actions(self) -> list[int]:
        try:
            return _C.legal_list(self._cs)
        except ValueError as err:
            if _C.is_terminal(self._cs):
                return []
            _raise_state_error(err)

    def legal_actions_mask(self) -> np.ndarray:
        try:
            return _C.legal_mask(self._cs)
        except ValueError as err:
            if _C.is_terminal(self._cs):
                return np.zeros(self.game.num_distinct_actions, dtype=bool)
            _raise_state_error(err)

    def apply_action(self, action: int) -> None:
        if type(action) is not int:  # the common case needs no conversion
            action = as_action(action)  # TypeError for anything but an integer
        try:
            refused = _C.apply_action(self._cs, action)  # legal: applied, then check_end
        except ValueError as err:
            _raise_state_error(err)
        if refused:
            why = "out of range" if refused == _OUT_OF_RANGE else "not legal"
            raise IllegalActionError(action, DecisionKind(int(self.ctx[C_DECISION])).name, why)

    @_refusing_states
    def apply_unchecked(self, action: int) -> None:
        _C.apply_unchecked(self._cs, action)

    @_refusing_states
    def local_legal_actions(self) -> list[int]:
        if _C.is_terminal(self._cs):  # no pending decision (the Python engine's answer)
            return []
        return list(_C.raw_legal(self._cs))

    def never_strands(self, action: int) -> bool:
        return self._py().never_strands(action)

    # ------------------------------------------------------------------ the views
    def observation_tensor(self, player: int) -> np.ndarray:
        if not 0 <= player < self.game.num_players:  # errors: as Python's
            return super().observation_tensor(player)
        try:  # inline, not the decorator: a hot path (its frame cost ~0.6 us a call)
            return _C.observation(self._cs, player)
        except ValueError as err:
            _raise_state_error(err)

    def table_observation_tensor(self, player: int) -> np.ndarray:
        if not 0 <= player < self.game.num_players:  # errors: as Python's
            return super().table_observation_tensor(player)
        try:  # inline, not the decorator: a hot path (its frame cost ~0.6 us a call)
            return _C.table_observation(self._cs, player)
        except ValueError as err:
            _raise_state_error(err)

    @_refusing_states
    def score_breakdown(self) -> list[dict[str, int]]:
        return list(_C.score_breakdown(self._cs))

    @_refusing_states
    def winners(self) -> list[int]:
        return list(_C.winners(self._cs))

    @_refusing_states
    def resample_hidden(self, observer: int, rng: np.random.Generator) -> FortState:
        if 0 <= observer < self.game.num_players:
            # hidden.resample_hidden: one seed drawn from rng, then the specified draws
            seed = int(rng.integers(SEED_LIMIT))
            return self._wrap(self.game, _C.resample_hidden(self._cs, observer, seed))
        return self.from_state(self._py().resample_hidden(observer, rng))

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        return {"config": self._config(), "state": self.to_dict(), "backend": "cpp"}

    def __setstate__(self, data: dict[str, Any]) -> None:
        cfg = data["config"]
        game = FortGame(cfg["num_players"], cfg["setup"], cfg["card_set"], backend="cpp")
        other = type(self).from_dict(game, data["state"])
        self.game = game
        self._cs = other._cs
        for name in _VIEW_NAMES:  # views of a former C++ state (a __setstate__ in place)
            slot = StateArrays.__dict__[name]
            with contextlib.suppress(AttributeError):
                slot.__delete__(self)


for _name in _VIEW_NAMES:
    setattr(CppFortState, _name, _view_property(_name))

STATE_CLASSES["cpp"] = CppFortState


# --------------------------------------------------------------------------- built-in policies
# Played inside C++ by the playouts (fort_env.native.playout) and by the batched vector env's
# opponents (fort_env.envs.vector.FortBatchVecEnv: a name of native.policies.POLICIES, or an object
# whose ``cpp_policy`` attribute names one).


def policy_code(name: str, policies: Sequence[str] = POLICIES) -> int:
    """The integer code of the built-in policy ``name`` as the compiled core takes it
    (``_core.playout``, ``_core.Batch.set_opponents``): its index in ``policies``.

    The one map from policy names to codes (:mod:`fort_env.native.playout` re-exports it).
    ``policies`` is :data:`fort_env.native.policies.POLICIES`, the list the C++
    ``fort::Policy`` enum is generated from (:func:`available` refuses a core that knows
    another number of policies); the playouts pass their module's ``POLICIES``, the same
    tuple. Needs no compiled core: a Python playout names its policy by the same code.

    Raises:
        ConfigError: ``name`` is not a string of ``policies`` (``ConfigError`` is a
            ``ValueError``); the message reads ``no built-in policy 'x': policy must be one of
            ('random', 'builder')``.
    """
    if isinstance(name, str) and name in policies:
        return policies.index(name)
    raise ConfigError(f"no built-in policy {name!r}: policy must be one of {tuple(policies)}")


def wrap_core_state(game: FortGame, core_state: _C.State) -> CppFortState:
    """A :class:`CppFortState` of ``game`` over ``core_state`` (a ``_core.State`` of that game,
    e.g. ``_core.Batch.state(i)``'s copy), not copied again."""
    return CppFortState._wrap(game, core_state)
