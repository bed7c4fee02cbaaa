"""The OpenSpiel bridge (``fort_env/envs/openspiel.py``): ``pyspiel.load_game("python_fort")``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install -e '.[openspiel]')"
)
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import fort_env.envs.openspiel as og  # noqa: E402  (registers "python_fort")
from fort_env import ConfigError, FortGame  # noqa: E402
from fort_env.game.actions import RANGES  # noqa: E402
from fort_env.views.observation import observation_layout  # noqa: E402


def test_load_game_with_parameters() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "setup": "advanced"})
    fort = FortGame(3, "advanced")
    assert game.num_players() == 3
    assert game.num_distinct_actions() == fort.num_distinct_actions
    assert game.observation_tensor_shape() == [fort.observation_size]
    width = game.codec.width
    assert game.information_state_tensor_shape() == [
        fort.observation_size + og.DEFAULT_MAX_HISTORY * width
    ]
    assert game.max_chance_outcomes() == og.DEFAULT_DEALS
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (
        str(pyspiel.load_game("python_fort"))
        == "python_fort(deals=65536,history_window=576,info_state=full,max_history=1024,"
        "players=2,setup=basic)"
    )


def test_root_is_the_deal_and_then_the_engine_decides() -> None:
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 8})
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, 1 / 8) for k in range(8)]
    state.apply_action(5)
    engine = FortGame(2).new_initial_state(seed=5)
    assert state.current_player() == engine.current_player()
    assert state.legal_actions() == engine.legal_actions()
    for p in range(2):
        np.testing.assert_array_equal(state.observation_tensor(p), engine.observation_tensor(p))
        info = np.asarray(state.information_state_tensor(p), np.float32)
        np.testing.assert_array_equal(info[: len(obs := engine.observation_tensor(p))], obs)
    assert state.observation_string(0) != state.observation_string(1)  # own hands differ
    assert "history" not in state.observation_string(0)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises((ConfigError, RuntimeError), match="num_players must be 2, 3 or 4"):
        pyspiel.load_game("python_fort", {"players": 5})
    with pytest.raises((ConfigError, RuntimeError), match="deals must be a positive int"):
        pyspiel.load_game("python_fort", {"deals": 0})
    with pytest.raises((ConfigError, RuntimeError), match="max_history must be a positive int"):
        pyspiel.load_game("python_fort", {"max_history": 0})


@pytest.mark.parametrize(("players", "setup"), [(2, "basic"), (3, "advanced")])
def test_openspiel_random_simulation(players: int, setup: str) -> None:
    """OpenSpiel's own consistency checks over a whole random game (clone, tensors, strings,
    returns, legal actions at every node)."""
    game = pyspiel.load_game("python_fort", {"players": players, "setup": setup, "deals": 64})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_resample_from_infostate_keeps_the_information_state() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "deals": 4})
    state = game.new_initial_state()
    state.apply_action(1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    other = state.resample_from_infostate(player, np.random.default_rng(1).random)
    assert other.information_state_string(player) == state.information_state_string(player)
    assert other.legal_actions() == state.legal_actions()
    np.testing.assert_array_equal(
        other.information_state_tensor(player), state.information_state_tensor(player)
    )
    rival = (player + 1) % 3
    assert other.fort.to_dict() != state.fort.to_dict()  # hidden cards were re-dealt
    assert other.information_state_string(rival) != state.information_state_string(rival)


class _ScoreMargin(mcts.Evaluator):  # type: ignore[misc]
    """A cheap leaf value for the search: each seat's points against the table mean."""

    def evaluate(self, state: og.OpenSpielState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns())
        totals = np.array([row["total"] for row in state.fort.score_breakdown()], dtype=float)
        return np.tanh((totals - totals.mean()) / 10.0)

    def prior(self, state: og.OpenSpielState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def test_ismcts_bot_plays_full_games() -> None:
    """OpenSpiel's IS-MCTS (resampling through ``resample_from_infostate``) plays seat 0 of
    whole games against uniform random play; every action it picks is legal."""
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 1024})
    bot = ismcts.ISMCTSBot(
        game, _ScoreMargin(), uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(0)
    )
    rng = np.random.default_rng(0)
    for deal in (3, 7):
        state = game.new_initial_state()
        state.apply_action(deal)
        bot_moves = 0
        while not state.is_terminal():
            if state.current_player() == 0:
                action = int(bot.step(state))
                bot_moves += 1
            else:
                action = int(rng.choice(state.legal_actions()))
            assert action in state.legal_actions()
            state.apply_action(action)
        assert bot_moves > 20
        assert sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])


def test_evaluate_bots_runs_ismcts_through_restartable_bot() -> None:
    """``evaluate_bots`` calls ``restart_at``, which OpenSpiel's Python IS-MCTS lacks; wrapped in
    ``RestartableBot`` two IS-MCTS bots play a whole game through it."""
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 1024})
    bots = [
        ismcts.ISMCTSBot(
            game,
            _ScoreMargin(),
            uct_c=2.0,
            max_simulations=2,
            random_state=np.random.RandomState(i),
        )
        for i in range(2)
    ]
    with pytest.raises(pyspiel.SpielError, match="RestartAt"):
        evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), [og.RestartableBot(b) for b in bots], np.random.RandomState(0)
    )
    assert sorted(returns) in ([-1.0, 1.0], [1.0, 1.0])


# ---------------------------------------------------------------------- information state
def _random_state(game: Any, deal: int, steps: int) -> og.OpenSpielState:
    state = game.new_initial_state()
    state.apply_action(deal)
    rng = np.random.default_rng(deal)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _history_rows(game: Any, state: og.OpenSpielState, player: int) -> np.ndarray:
    codec = game.codec
    block = np.asarray(state.information_state_tensor(player))[codec.observation_size :]
    return block.reshape(codec.max_history, codec.width)


def test_observation_slices_read_for_cards_are_every_card_slice() -> None:
    """A seat *sees* a card when a slice of its observation shows it one by one: every slice of
    the layout shaped ``(..., num_cards)`` is read (``played_card`` repeats one of them)."""
    fort = FortGame(4)
    per_card = {s.name for s in observation_layout(4, fort).slices if s.shape[-1] == fort.num_cards}
    assert per_card == {*og.CARD_SLICES, "played_card"}


def test_information_state_tensor_layout() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "deals": 16, "max_history": 600})
    codec = game.codec
    d, w = FortGame(3).observation_size, codec.width
    assert codec.fields == {
        "actor": (0, 5), "kind": (5, 26), "range": (31, 29), "index": (60, 68),
        "form": (128, 2), "revealed_cards": (130, 68), "revealed_rules": (198, 11),
    }  # fmt: skip
    assert w == 209 and codec.size == d + 600 * w
    assert game.information_state_tensor_shape() == [d + 600 * w]
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert {k: v.shape for k, v in observer.dict.items()} == {
        "observation": (d,), "history": (600, w),
    }  # fmt: skip
    root = game.new_initial_state()
    assert not any(root.information_state_tensor(0))
    state = _random_state(game, 3, 150)
    for p in range(3):
        tensor = np.asarray(state.information_state_tensor(p), np.float32)
        assert tensor.shape == (codec.size,)
        np.testing.assert_array_equal(tensor[:d], state.observation_tensor(p))
        observer.set_from(state, p)
        np.testing.assert_array_equal(observer.tensor, tensor)
        rows = observer.dict["history"]
        used = len(state.history())  # the deal and every decision: one entry each
        assert (rows[:used, :5].sum(axis=1) == 1).all()  # one actor per entry
        assert not rows[used:].any()
        assert rows[0, 4] == 1  # the deal: the chance slot, hidden, what p was dealt
        assert rows[0, 128] == 1 and rows[0, 130:198].sum() > 0
        # the player's own entries are relative seat 0 and never hidden
        own = np.flatnonzero(rows[:used, 0])
        assert own.size and not rows[own, 128:130].any()


def test_deal_reveals_what_the_seat_is_dealt() -> None:
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 8})
    state = game.new_initial_state()
    state.apply_action(5)
    engine = FortGame(2).new_initial_state(seed=5)
    layout = observation_layout(2, FortGame(2))
    for p in range(2):
        obs = engine.observation_tensor(p)
        dealt = set()
        for name in ("my_hand", "my_deck", "park"):
            dealt |= set(np.flatnonzero(layout.view(obs, name)).tolist())
        row = _history_rows(game, state, p)[0]
        assert set(np.flatnonzero(row[130:198]).tolist()) == dealt
    text = state.information_state_string(0)
    assert text.startswith(state.observation_string(0) + "\nhistory: deal +c")


def test_the_visibility_table_on_random_games() -> None:
    """How every seat other than the actor saw each action of random games: in full, except
    a made-up rule picked and a card kept in the draft (hidden), and a card tucked into a
    Lookout from the hand or added from a Lookout (its suits only); the actor sees its own
    actions in full."""
    seen: dict[str, set[int]] = {}
    for players, setup in ((2, "advanced"), (3, "basic"), (4, "basic")):
        game = pyspiel.load_game("python_fort", {"players": players, "setup": setup})
        for deal in range(2):
            state = _random_state(game, deal, 10_000)
            for e in state.seen_history.entries[1:]:
                assert e.forms[e.actor][2] == og.FULL
                for q in range(players):
                    if q != e.actor:
                        seen.setdefault(RANGES[e.forms[q][0]][0], set()).add(e.forms[q][2])
    hidden = {name for name, forms in seen.items() if og.HIDDEN in forms}
    suits = {name for name, forms in seen.items() if og.SUITS in forms}
    assert hidden == {"PICK_RULE", "DRAFT_CARD"}
    assert suits == {"LOOKOUT_CARD", "ADD_CARD"}
    assert seen["DRAFT_CARD"] == seen["PICK_RULE"] == {og.HIDDEN}
    assert seen["LOOKOUT_CARD"] == seen["ADD_CARD"] == {og.FULL, og.SUITS}


def test_a_card_taken_unseen_from_the_park_deck_shows_its_suits() -> None:
    """Bribe's tuck of the Park deck's top card (R17): its suits to the rivals, the card to
    its taker (as a card revealed to it)."""
    fort = FortGame(3)
    codec = og.HistoryCodec(fort, 8)
    action = fort.layout.LOOKOUT_PARK_DECK
    top = 40
    before = og.Seen(np.zeros((3, fort.num_cards), bool), np.zeros((3, 11), bool))
    cards = np.zeros((3, fort.num_cards), bool)
    cards[1, top] = True
    entry = codec.action_entry(1, 9, action, top, before, og.Seen(cards, before.rules.copy()))
    assert entry.forms[1] == (RANGES.index(("LOOKOUT_PARK_DECK", "1")), 0, og.FULL)
    assert entry.forms[0][1:] == entry.forms[2][1:] == (int(codec.tuck_class[top]), og.SUITS)
    assert entry.reveals == ((), (top,), ())
    assert codec.token(entry, 0) == f"p1 LOOKOUT LOOKOUT_PARK_DECK ~{codec.tuck_class[top]}"


def test_history_rows_carry_nothing_the_seat_does_not_observe() -> None:
    """Leak-free entry by entry: for every pair of legal actions of the actor, another seat's
    history row is the same exactly when its observation after them is the same, where the row
    does not show the action in full (two public actions may look alike); and two actions
    that give the same row never give that seat different observations (so the history merges
    nothing the seat can tell apart). Checked at draft, Lookout, add and made-up-rule
    decisions (where actions are hidden) and a sample of the others."""
    checked = 0
    for players, setup in ((2, "advanced"), (3, "basic"), (4, "advanced")):
        game = pyspiel.load_game("python_fort", {"players": players, "setup": setup})
        codec = game.codec
        for deal in range(3):
            state = game.new_initial_state()
            state.apply_action(deal)
            rng = np.random.default_rng(deal)
            while not state.is_terminal():
                legal = state.legal_actions()
                kind = state.fort.decision.kind.name
                hidden_here = kind in ("DRAFT", "LOOKOUT", "ADD", "PICK_RULE")
                if len(legal) > 1 and (hidden_here or rng.random() < 0.05):
                    checked += 1
                    after = []
                    for a in legal:
                        child = state.clone()
                        child.apply_action(a)
                        after.append((child.seen_history.entries[-1], child))
                    for p in range(players):
                        if p == state.current_player():
                            continue
                        views = [
                            (codec.row(e, p).tobytes(), e.forms[p][2],
                             child.fort.observation_tensor(p).tobytes())
                            for e, child in after
                        ]  # fmt: skip
                        for row_a, form_a, obs_a in views:
                            for row_b, _, obs_b in views:
                                if row_a == row_b:
                                    assert obs_a == obs_b, kind
                                elif form_a != og.FULL:
                                    assert obs_a != obs_b, kind
                state.apply_action(int(rng.choice(legal)))
    assert checked > 300


@pytest.mark.parametrize(("players", "setup"), [(2, "advanced"), (3, "basic"), (4, "basic")])
def test_resampling_keeps_the_information_state(players: int, setup: str) -> None:
    """Leak-free for the whole state: re-dealing what seat ``p`` cannot see leaves ``p``'s
    information-state tensor and string unchanged, at positions of random games, for every
    seat (not only the one to act), and the re-deal really changed something."""
    game = pyspiel.load_game("python_fort", {"players": players, "setup": setup})
    changed = 0
    for deal, steps in ((1, 20), (2, 90), (3, 200)):
        state = _random_state(game, deal, steps)
        for p in range(players):
            other = state.resample_from_infostate(p, np.random.default_rng(deal + p).random)
            np.testing.assert_array_equal(
                other.information_state_tensor(p), state.information_state_tensor(p)
            )
            assert other.information_state_string(p) == state.information_state_string(p)
            changed += other.fort.to_dict() != state.fort.to_dict()
            # the re-dealt state goes on, and its history grows in both views alike
            if not other.is_terminal():
                action = other.legal_actions()[0]
                other.apply_action(action)
                assert len(other.seen_history) == len(state.seen_history) + 1
    assert changed >= players * 2


def test_a_resampled_state_invents_no_private_past_for_other_seats() -> None:
    """In a state re-dealt for seat ``p``, every other seat's history shows each entry as an
    outsider saw it (its own hidden picks included), with the publicly revealed cards."""
    game = pyspiel.load_game("python_fort", {"players": 3, "setup": "advanced"})
    state = _random_state(game, 4, 120)
    other = state.resample_from_infostate(0, np.random.default_rng(0).random)
    for e, k in zip(state.seen_history.entries, other.seen_history.entries, strict=True):
        assert k.forms[0] == e.forms[0] and k.reveals[0] == e.reveals[0]
        for q in (1, 2):
            assert k.forms[q] == e.outsider and k.reveals[q] == e.public
            assert k.rule_reveals[q] == ()
    drafts = [e for e in other.seen_history.entries if e.actor == 1 and e.kind == 0]
    assert drafts and all(e.forms[1][2] == og.HIDDEN for e in drafts)


def payment_orders(game: Any) -> list[Any]:
    """Two positions of one random game of ``game`` (2 players) that differ only in the order
    of a payment: a toy then a pizza, and a pizza then a toy (tests/test_openspiel_compact.py
    uses them too)."""
    state = game.new_initial_state()
    state.apply_action(0)
    rng = np.random.default_rng(0)
    toys, pizza = game.fort.layout.PAY, game.fort.layout.PAY + 2  # from Stuff
    while True:
        assert not state.is_terminal(), "no payment of a toy and a pizza in this game"
        legal = state.legal_actions()
        if toys in legal and pizza in legal:
            a, b = state.child(toys), state.child(pizza)
            if pizza in a.legal_actions() and toys in b.legal_actions():
                return [a.child(pizza), b.child(toys)]
        state.apply_action(int(rng.choice(legal)))


def test_perfect_recall_the_order_of_payments() -> None:
    """Paying toys then pizza or pizza then toys ends in the same observation for every seat,
    but not in the same information state: the history tells them apart."""
    ends = payment_orders(pyspiel.load_game("python_fort", {"players": 2, "deals": 4}))
    for p in range(2):
        np.testing.assert_array_equal(ends[0].observation_tensor(p), ends[1].observation_tensor(p))
        assert ends[0].observation_string(p) == ends[1].observation_string(p)
        assert ends[0].information_state_tensor(p) != ends[1].information_state_tensor(p)
        assert ends[0].information_state_string(p) != ends[1].information_state_string(p)


def test_a_hidden_pick_splits_only_the_pickers_information_state() -> None:
    """Two made-up rules picked from the same stack: different information states for the
    picker, the same for the other seats (they see only that a rule was picked)."""
    game = pyspiel.load_game("python_fort", {"players": 3})
    for deal in range(20):
        state = game.new_initial_state()
        state.apply_action(deal)
        rng = np.random.default_rng(deal)
        while not state.is_terminal() and state.fort.decision.kind.name != "PICK_RULE":
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            break
    picker = state.current_player()
    a, b = state.legal_actions()[:2]
    ends = [state.child(a), state.child(b)]
    assert ends[0].information_state_tensor(picker) != ends[1].information_state_tensor(picker)
    for p in range(3):
        if p != picker:
            assert ends[0].information_state_tensor(p) == ends[1].information_state_tensor(p)
            assert ends[0].information_state_string(p) == ends[1].information_state_string(p)
            last = ends[0].information_state_string(p).split("; ")[-1]
            assert last.startswith(f"p{picker} PICK_RULE PICK_RULE ?")


def test_a_history_longer_than_max_history_has_no_tensor() -> None:
    game = pyspiel.load_game("python_fort", {"deals": 4, "max_history": 3})
    state = _random_state(game, 1, 2)  # the deal and two decisions: three entries
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="more than max_history=3"):
        state.information_state_tensor(0)
    history = state.information_state_string(0).split("\nhistory: ")[1]
    assert history.count("; ") == 3  # four entries: the string has no bound
