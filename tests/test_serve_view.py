"""What ``fort-env serve`` sends a seat names no card the rules hide from it
(``agents/arena/serve_view.py``, ``fort_env/tools/board.py``): over random games, every card
named in the view's JSON (a ``card_label``, ``"Chef [book]#4"``) is one the seat's observation
shows (its own hand, deck, discard, Yard, Lookout and draft cards; the Park, the cards in play
and followed, the trash, the rivals' Yards and discard piles), never a rival's hand, Lookout or
draft pack; a rival's hand and Lookout are there as their sizes only. The moves of the log
(``human.public_text``) name only cards the seat sees before or after the move."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import numpy as np
import pytest

from agents.arena.human import public_text
from agents.arena.serve_view import seat_view
from fort_env import FortGame, FortState, observation_layout
from fort_env.game.constants import HAND, LOOKOUT
from fort_env.tools.board import board_frame

# the observation's slices that hold card identities (fort_env.envs.aec's docstring)
CARD_SLICES = (
    "played_card", "my_hand", "my_deck", "my_discard", "my_yard", "my_lookout", "my_draft_pack",
    "my_draft_kept", "in_play", "followed", "park", "trash", "rival_yard", "rival_discard",
)  # fmt: skip
LABEL_ID = re.compile(r"\]#(\d+)")  # the card id at the end of a card_label
# the card set's texts (every card's, every rule's) are the game's data, not the position's; the
# log is checked move by move (test_the_log_names_only_cards_the_seat_sees)
NOT_THE_POSITION = ("card_text", "rule_text", "log")


def visible(state: FortState, seat: int) -> set[int]:
    """The cards ``seat``'s observation shows, by id."""
    game = state.game
    layout = observation_layout(game.num_players, game)
    obs = state.observation_tensor(seat)
    out: set[int] = set()
    for name in CARD_SLICES:
        v = layout.view(obs, name).reshape(-1, game.num_cards)
        out |= {int(c) for c in np.nonzero(v > 0.5)[1]}
    return out


def named(data: Any) -> set[int]:
    """Every card id named in ``data``'s JSON."""
    return {int(m) for m in LABEL_ID.findall(json.dumps(data))}


def check_view(view: dict[str, Any], state: FortState, seat: int) -> int:
    """Assert the view hides what the rules hide from ``seat``; returns how many cards of
    rivals' hands and Lookouts it hid."""
    shown = named({k: v for k, v in view.items() if k not in NOT_THE_POSITION})
    sees = visible(state, seat)
    assert shown <= sees, f"seat {seat} is shown cards it may not see: {sorted(shown - sees)}"
    hidden = 0
    for s in view["board"]["seats"]:
        p = s["seat"]
        if p == seat:
            assert "hand_count" not in s and "lookout_count" not in s
            continue
        hand, lookout = state.cards_in(HAND, p), state.cards_in(LOOKOUT, p)
        assert s["hand"] == [] and s["lookout"] == []
        assert (s["hand_count"], s["lookout_count"]) == (len(hand), len(lookout))
        assert not shown & {int(c) for c in (*hand, *lookout)}
        hidden += len(hand) + len(lookout)
    return hidden


def random_positions(num_players: int, setup: str, seed: int, every: int) -> list[FortState]:
    """Every ``every``-th position of a game of random moves, and its end."""
    rng = np.random.default_rng(seed)
    state = FortGame(num_players, setup).new_initial_state(seed=seed)
    out = []
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            out.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
        k += 1
    return [*out, state]


@pytest.mark.parametrize(
    ("num_players", "setup", "seed"), [(2, "basic", 1), (3, "advanced", 2), (4, "basic", 3)]
)
def test_a_seats_view_names_only_cards_its_observation_shows(
    num_players: int, setup: str, seed: int
) -> None:
    hidden = checked = 0
    for state in random_positions(num_players, setup, seed, every=7):
        for seat in range(num_players):
            hidden += check_view(seat_view(state, seat), state, seat)
            checked += 1
    assert checked > 50 and hidden > 2 * checked  # rivals held cards: the check was not empty


def test_the_whole_table_is_the_replays_and_a_seats_board_a_part_of_it() -> None:
    """The replay's frame shows every hand; a seat's frame is the same table with the rivals'
    hands and Lookouts as their sizes (and made-up rules added)."""
    for state in random_positions(3, "basic", 4, every=25):
        whole = board_frame(state)
        for seat in range(3):
            mine = board_frame(state, viewer=seat)
            for full, part in zip(whole["seats"], mine["seats"], strict=True):
                same = {k: v for k, v in part.items() if not k.startswith("made_up_rule")}
                if full["seat"] != seat:
                    assert same.pop("hand_count") == len(full["hand"])
                    assert same.pop("lookout_count") == len(full["lookout"])
                    same["hand"], same["lookout"] = full["hand"], full["lookout"]
                assert same == full
            rest = {k: v for k, v in mine.items() if k != "seats"}
            assert rest == {k: v for k, v in whole.items() if k != "seats"}
    with pytest.raises(ValueError, match="viewer"):
        board_frame(state, viewer=3)


def test_the_log_names_only_cards_the_seat_sees() -> None:
    moves = 0
    for num_players, setup, seed in [(2, "advanced", 5), (4, "basic", 6)]:
        rng = np.random.default_rng(seed)
        state = FortGame(num_players, setup).new_initial_state(seed=seed)
        while not state.is_terminal():
            actor = state.current_player()
            action = int(rng.choice(state.legal_actions()))
            text = public_text(state, action)
            before = {p: visible(state, p) for p in range(num_players) if p != actor}
            state.apply_action(action)
            for p, seen in before.items():
                ok = seen | visible(state, p)
                assert named(text) <= ok, (text, p)
            moves += 1
    assert moves > 200


def test_the_json_serve_sends_hides_the_rivals_cards() -> None:
    """The same check on what the server sends, through its API, at each of the person's
    decisions and at the end."""
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx`")
        from starlette.testclient import TestClient

    from agents.arena.serve import GameStore, create_app

    store = GameStore()
    client = TestClient(create_app(store, allowed_hosts=["testserver"]))
    views = 0
    for body in ({"num_players": 3, "seat": 2, "setup": "advanced", "seed": 7},
                 {"num_players": 4, "seat": 0, "setup": "basic", "seed": 8}):  # fmt: skip
        r = client.post("/api/games", json={**body, "bots": ["heuristic"]})
        assert r.status_code == 201, r.text
        view = r.json()
        game = store.games[view["id"]]
        while True:
            check_view(view, game.state, body["seat"])
            views += 1
            if view["terminal"]:
                break
            r = client.post(f"/api/games/{view['id']}/actions",
                            json={"action": view["legal"][-1]["id"]})  # fmt: skip
            assert r.status_code == 200, r.text
            view = r.json()
    assert views > 40
