"""The OpenSpiel bridge at research scale (``fort_env/envs/openspiel.py``): the compact
information state (``info_state="compact"``: the observation and the last ``history_window``
decisions as the player saw them) and IS-MCTS reproducible from its seeds."""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install -e '.[openspiel]')"
)
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402

import fort_env.envs.openspiel as og  # noqa: E402  (registers "python_fort")
from fort_env import FortGame  # noqa: E402
from tests.test_openspiel import payment_orders  # noqa: E402


def _game(**params: Any) -> Any:
    return pyspiel.load_game("python_fort", {"info_state": "compact", **params})


def _random_state(game: Any, deal: int, steps: int) -> og.OpenSpielState:
    state = game.new_initial_state()
    state.apply_action(deal)
    rng = np.random.default_rng(deal)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _dealt(state: og.OpenSpielState) -> Any:
    """The engine's state under ``state`` (after the deal)."""
    assert state.fort is not None
    return state.fort


def _tensor(state: og.OpenSpielState, player: int) -> np.ndarray:
    return np.asarray(state.information_state_tensor(player), np.float32)


def _rows(game: Any, state: og.OpenSpielState, player: int) -> np.ndarray:
    codec = game.compact
    return _tensor(state, player)[codec.observation_size :].reshape(codec.window, codec.width)


def _field(codec: og.CompactCodec, row: np.ndarray, name: str) -> int:
    offset, size = codec.fields[name]
    return sum(int(row[offset + b]) << b for b in range(size))


# ---------------------------------------------------------------------- shape and layout
@pytest.mark.parametrize(("players", "window"), [(2, None), (3, 40), (4, 1)])
def test_the_compact_tensor_shape_is_fixed_by_the_parameters(
    players: int, window: int | None
) -> None:
    params = {"players": players, "deals": 16}
    if window is not None:
        params["history_window"] = window
    game = _game(**params)
    k = og.DEFAULT_HISTORY_WINDOW if window is None else window
    d, w = FortGame(players).observation_size, players + 19
    codec = game.compact
    assert codec.fields == {
        "actor": (0, players), "kind": (players, 5), "range": (players + 5, 5),
        "index": (players + 10, 7), "form": (players + 17, 2),
    }  # fmt: skip
    assert (codec.window, codec.width, codec.size) == (k, w, d + k * w)
    assert game.information_state_tensor_shape() == [d + k * w]
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert isinstance(observer, og.FortCompactInfoStateObserver)
    assert {name: v.shape for name, v in observer.dict.items()} == {
        "observation": (d,), "history": (k, w),
    }  # fmt: skip
    # the same length at the root, after the deal, mid-game and at the end
    root = game.new_initial_state()
    assert len(root.information_state_tensor(0)) == d + k * w and not any(
        root.information_state_tensor(0)
    )
    for steps in (0, 30, 10_000):
        state = _random_state(game, 1, steps)
        for p in range(players):
            assert _tensor(state, p).shape == (d + k * w,)
    assert f"history_window={k},info_state=compact" in str(game)


def test_the_default_sizes() -> None:
    """The figures the module docstring gives: 13,578 / 14,154 / 14,730 floats."""
    sizes = [_game(players=n).information_state_tensor_size() for n in (2, 3, 4)]
    assert sizes == [13_578, 14_154, 14_730]
    assert pyspiel.load_game("python_fort").information_state_tensor_size() == 215_498


@pytest.mark.parametrize(("players", "setup", "window"), [(2, "advanced", 50), (4, "basic", 600)])
def test_compact_rows_are_the_last_decisions_as_the_player_saw_them(
    players: int, setup: str, window: int
) -> None:
    """Row ``k`` decodes to the ``k``-th most recent decision as the player saw it (the same
    ``Entry.forms`` as the full state's rows); rows past the first decision are zeros; the
    tensor starts with the observation; the observer writes what the state gives."""
    game = _game(players=players, setup=setup, history_window=window)
    codec = game.compact
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    hidden = 0
    for steps in (3, 120):
        state = _random_state(game, 2, steps)
        entries = state.seen_history.entries
        decisions = len(entries) - 1  # the deal is not a decision
        for p in range(players):
            tensor = _tensor(state, p)
            np.testing.assert_array_equal(
                tensor[: codec.observation_size], state.observation_tensor(p)
            )
            observer.set_from(state, p)
            np.testing.assert_array_equal(observer.tensor, tensor)
            rows = observer.dict["history"]
            used = min(window, decisions)
            assert not rows[used:].any()
            assert set(np.unique(rows)) <= {0.0, 1.0}
            for k in range(used):
                e, row = entries[-1 - k], rows[k]
                r, i, form = e.forms[p]
                assert _field(codec, row, "actor") == 1 << ((e.actor - p) % players)
                assert _field(codec, row, "kind") == e.kind
                assert _field(codec, row, "range") == r
                assert _field(codec, row, "index") == (0 if form == og.HIDDEN else i)
                assert _field(codec, row, "form") == (0 if form == og.FULL else 1 << (form - 1))
                hidden += form != og.FULL
    assert hidden > 0  # some rows show a rival's action hidden or by its suits


# ---------------------------------------------------------------------- perfect recall within K
def test_the_order_of_payments_splits_the_compact_state() -> None:
    """Paying toys then pizza or pizza then toys ends in the same observation for every seat,
    but not in the same compact information state, even with a window of one decision."""
    for window in (1, og.DEFAULT_HISTORY_WINDOW):
        ends = payment_orders(_game(players=2, deals=4, history_window=window))
        for p in range(2):
            np.testing.assert_array_equal(
                ends[0].observation_tensor(p), ends[1].observation_tensor(p)
            )
            assert not np.array_equal(_tensor(ends[0], p), _tensor(ends[1], p))


def test_the_players_own_past_actions_within_the_window_split_the_compact_state() -> None:
    """Two positions that differ in one of the player's own actions ``j`` decisions ago
    (then the same actions since) give it different tensors for every ``j`` below the
    window, the difference at row ``j``: the row of that decision."""
    window = 12
    game = _game(players=3, deals=64, history_window=window)
    checked = 0
    for deal in range(8):
        state = _random_state(game, deal, 25 + deal)
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        player = state.current_player()
        a, b = state.legal_actions()[:2]
        ends = [state.child(a), state.child(b)]
        for j in range(window):
            rows = [_rows(game, end, player) for end in ends]
            assert not np.array_equal(_tensor(ends[0], player), _tensor(ends[1], player))
            assert not np.array_equal(rows[0][j], rows[1][j])
            checked += 1
            common = [x for x in ends[0].legal_actions() if x in set(ends[1].legal_actions())]
            if ends[0].is_terminal() or ends[1].is_terminal() or not common:
                break
            for end in ends:
                end.apply_action(common[0])
    assert checked >= 20


# ---------------------------------------------------------------------- no leak
@pytest.mark.parametrize(("players", "setup"), [(2, "advanced"), (3, "basic"), (4, "advanced")])
def test_redealing_what_the_player_cannot_see_leaves_the_compact_state(
    players: int, setup: str
) -> None:
    """Two states that differ only in what seat ``p`` cannot see (``resample_from_infostate``,
    the engine's ``resample_hidden`` from ``p``'s view) give ``p`` the same compact tensor, at
    positions of random games, for every seat; the re-deal really changed something, and the
    compact state goes on alike in both after a common action."""
    game = _game(players=players, setup=setup)
    changed = 0
    for deal, steps in ((1, 20), (2, 90), (3, 200), (4, 10_000)):
        state = _random_state(game, deal, steps)
        for p in range(players):
            other = state.resample_from_infostate(p, np.random.default_rng(deal * 10 + p))
            np.testing.assert_array_equal(_tensor(other, p), _tensor(state, p))
            changed += _dealt(other).to_dict() != _dealt(state).to_dict()
            if not other.is_terminal() and other.legal_actions()[0] in state.legal_actions():
                action = other.legal_actions()[0]
                a, b = state.child(action), other.child(action)
                np.testing.assert_array_equal(
                    _rows(game, a, p), _rows(game, b, p)
                )  # the new decision's row is the same; the observations may part
    assert changed >= players * 3


def test_a_rivals_hidden_pick_does_not_split_the_compact_state() -> None:
    """Two made-up rules picked from the same stack, or two cards kept in the draft: different
    compact states for the picker, the same for every other seat."""
    found = set()
    for setup, kind in (("basic", "PICK_RULE"), ("advanced", "DRAFT")):
        game = _game(players=3, setup=setup)
        for deal in range(20):
            state = game.new_initial_state()
            state.apply_action(deal)
            rng = np.random.default_rng(deal)
            while not state.is_terminal() and state.fort.decision.kind.name != kind:
                state.apply_action(int(rng.choice(state.legal_actions())))
            if not state.is_terminal() and len(state.legal_actions()) > 1:
                break
        picker = state.current_player()
        a, b = state.legal_actions()[:2]
        ends = [state.child(a), state.child(b)]
        assert not np.array_equal(_tensor(ends[0], picker), _tensor(ends[1], picker))
        for p in range(3):
            if p != picker:
                np.testing.assert_array_equal(_tensor(ends[0], p), _tensor(ends[1], p))
                row = _rows(game, ends[0], p)[0]
                assert _field(game.compact, row, "form") == 1  # hidden
                assert _field(game.compact, row, "index") == 0
        found.add(kind)
    assert found == {"PICK_RULE", "DRAFT"}


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"info_state": "partial"}, "info_state"),
        ({"info_state": ""}, "info_state"),
        ({"history_window": 0}, "history_window"),
        ({"history_window": -5}, "history_window"),
        ({"info_state": "compact", "history_window": 0}, "history_window"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(
    params: dict[str, Any], name: str
) -> None:
    with pytest.raises(ValueError, match=name):
        pyspiel.load_game("python_fort", params)
    with pytest.raises(ValueError, match=name):
        og.OpenSpielFortGame(params)


def test_the_compact_game_passes_openspiel_random_simulation() -> None:
    game = _game(players=2, deals=64)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_the_information_string_is_the_full_one() -> None:
    """The compact game keeps the full, unbounded string (methods keyed on it keep perfect
    recall)."""
    full = pyspiel.load_game("python_fort", {"players": 2, "deals": 8})
    compact = _game(players=2, deals=8, history_window=4)
    states = [_random_state(g, 3, 60) for g in (full, compact)]
    assert states[0].information_state_string(1) == states[1].information_state_string(1)
    history = states[1].information_state_string(1).split("\nhistory: ")[1]
    assert history.count("; ") == 60  # the deal and 60 decisions, not 4


# ---------------------------------------------------------------------- reproducible IS-MCTS
class _WorldValue(mcts.Evaluator):  # type: ignore[misc]
    """A leaf value that depends on the sampled world (every seat's observation, the hidden
    hands included), so an IS-MCTS bot's choices depend on the worlds it re-deals."""

    def evaluate(self, state: og.OpenSpielState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns())
        seats = range(state.num_players())
        world = b"".join(_dealt(state).observation_tensor(q).tobytes() for q in seats)
        value = int.from_bytes(blake2b(world, digest_size=8).digest(), "little") / 2**63 - 1
        return np.array([value, -value])

    def prior(self, state: og.OpenSpielState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _play(seeds: tuple[int, int]) -> tuple[list[int], list[float]]:
    """Two IS-MCTS bots seeded ``seeds`` play a 2-player game through ``evaluate_bots`` from
    its 250th decision (the end of a game is as good a test as its whole, and cheaper): the
    bots' actions in order, and the returns."""
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 1024})
    actions: list[int] = []

    class Logged(og.RestartableBot):
        def step(self, state: Any) -> int:
            action = super().step(state)
            actions.append(action)
            return action

    bots = [
        Logged(
            ismcts.ISMCTSBot(game, _WorldValue(), 2.0, 4, random_state=np.random.RandomState(seed))
        )
        for seed in seeds
    ]
    start = _random_state(game, 3, 250)
    returns = evaluate_bots.evaluate_bots(start, bots, np.random.RandomState(0))
    return actions, list(returns)


def test_ismcts_through_evaluate_bots_is_reproducible_from_its_seeds() -> None:
    """Two runs with the same seeds play the same game, action for action (the re-deals come
    from the bots' generators); other bot seeds play another game."""
    first, again, other = _play((0, 1)), _play((0, 1)), _play((2, 3))
    assert len(first[0]) > 30
    assert first == again
    assert other[0] != first[0]


def test_seed_resampler_draws_the_re_deals_from_the_bots_generator() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "deals": 16})
    state = _random_state(game, 5, 40)
    player = state.current_player()
    bot = ismcts.ISMCTSBot(game, _WorldValue(), 2.0, 4, random_state=np.random.RandomState(7))
    assert og.seed_resampler(bot) is bot
    world = bot.resample_from_infostate(state)  # the bot's own sampling call
    expected = state.resample_from_infostate(player, np.random.RandomState(7))
    assert _dealt(world).to_dict() == _dealt(expected).to_dict() != _dealt(state).to_dict()
    assert world.information_state_string(player) == state.information_state_string(player)
    # a Generator or a RandomState seeds the re-deal: the same seed, the same world
    for make in (np.random.default_rng, np.random.RandomState):
        worlds = [_dealt(state.resample_from_infostate(player, make(3))).to_dict() for _ in "ab"]
        assert worlds[0] == worlds[1]
    # an explicit generator instead of the bot's
    og.seed_resampler(bot, np.random.default_rng(11))
    expected = state.resample_from_infostate(player, np.random.default_rng(11))
    assert _dealt(bot.resample_from_infostate(state)).to_dict() == _dealt(expected).to_dict()
    with pytest.raises(TypeError, match="set_resampler"):
        og.seed_resampler(object())


def test_restartable_bot_seeds_only_an_unseeded_ismcts_bot() -> None:
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 16})

    def make() -> Any:
        return ismcts.ISMCTSBot(game, _WorldValue(), 2.0, 4, random_state=np.random.RandomState(0))

    assert make()._resampler_cb is None
    assert og.RestartableBot(make()).bot._resampler_cb is not None
    assert og.RestartableBot(make(), seeded=False).bot._resampler_cb is None
    own = make()

    def mine(state: og.OpenSpielState, player: int) -> og.OpenSpielState:
        return state.resample_from_infostate(player, np.random.default_rng(0))

    own.set_resampler(mine)
    assert og.RestartableBot(own).bot._resampler_cb is mine
    # a bot without resampling (MCTS) is wrapped as before
    search = mcts.MCTSBot(game, 2.0, 4, mcts.RandomRolloutEvaluator(1))
    assert og.RestartableBot(search).bot is search
