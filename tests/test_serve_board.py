"""The browser board of ``fort-env serve`` (issue 40): the hand's cards with their texts, the
seat's own made-up rule, the Victory Track named as such, the seats named on the replay page of
a served game, and rivals of the server's own (``fort-env serve --rival SPEC``).

What the page renders is checked twice: the view's JSON (Starlette's test client), and the page's
own script run in Node.js against a stand-in DOM (``tests/js_page.py``) with that JSON as the
server's answers; the Chromium test in ``tests/test_serve.py`` plays the real page where
Chromium is installed."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from typer.testing import CliRunner

import agents
from agents.arena import serve
from agents.arena.serve import GameStore, bot_choices, check_rivals, create_app, rule_texts
from agents.base import BaseAgent
from fort_env import FortGame
from fort_env.game.constants import MADE_UP_RULES
from fort_env.tools.cli import app as cli_app
from fort_env.tools.replay_html import build_frames
from fort_env.views.words import card_words
from tests.js_page import NODE, find, page_script, run_page, text_of

needs_node = pytest.mark.skipif(NODE is None, reason="no Node.js (node) on PATH")


def client_for(rivals: dict[str, tuple[int, ...]] | None = None) -> TestClient:
    return TestClient(create_app(GameStore(), allowed_hosts=["testserver"], rivals=rivals),
                      raise_server_exceptions=False)  # fmt: skip


@pytest.fixture
def client() -> TestClient:
    return client_for()


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {"num_players": 2, "seat": 0, "bots": ["random"], "seed": 5} | body
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    view: dict[str, Any] = r.json()
    return view


def views_of_a_game(client: TestClient, **body: Any) -> Iterator[dict[str, Any]]:
    """Every view of a game in which the person takes the first legal action, the last one
    the end."""
    view = new_game(client, **body)
    yield view
    while not view["terminal"]:
        r = client.post(f"/api/games/{view['id']}/actions",
                        json={"action": view["legal"][0]["id"]})  # fmt: skip
        assert r.status_code == 200, r.text
        view = r.json()
        yield view


def seat_of(view: dict[str, Any], seat: int) -> dict[str, Any]:
    s: dict[str, Any] = view["board"]["seats"][seat]
    return s


# -- the view's JSON ---------------------------------------------------------------------------


def test_the_hand_comes_with_each_cards_text(client: TestClient) -> None:
    game = FortGame(3)
    cards = {f"{c.name} [{'/'.join(c.suit_names)}]#{i}": c for i, c in enumerate(game.cards)}
    seen = 0
    for view in views_of_a_game(client, num_players=3, seat=1, bots=["heuristic"], seed=21):
        hand = seat_of(view, 1)["hand"]
        assert [c["card"] for c in view["hand_cards"]] == hand  # the board's order
        for c in view["hand_cards"]:
            card = cards[c["card"]]  # its two actions in words, never the card language
            assert (c["public"], c["private"]) == card_words(card)
            assert "(" not in c["public"] + c["private"] and "_" not in c["public"] + c["private"]
        seen += len(hand)
    assert seen > 50


def test_the_seats_own_made_up_rule_is_on_the_board_the_rivals_only_as_a_count(
    client: TestClient,
) -> None:
    texts = rule_texts(FortGame(2).card_set.source)
    assert sorted(texts) == sorted(MADE_UP_RULES) and all(texts.values())
    mine_seen = rivals_seen = 0
    last: dict[str, Any] = {}
    for view in views_of_a_game(client, num_players=3, seat=0, bots=["heuristic"], seed=4):
        assert view["rule_text"] == texts  # the rulebook's glossary, the same for everyone
        me = seat_of(view, 0)
        assert isinstance(me["made_up_rules"], list) and "made_up_rule_count" not in me
        assert set(me["made_up_rules"]) <= set(MADE_UP_RULES)
        mine_seen += bool(me["made_up_rules"])
        if not view["terminal"]:
            for p in (1, 2):
                rival = seat_of(view, p)
                assert "made_up_rules" not in rival  # which rule a rival holds is hidden
                assert rival["made_up_rule_count"] in (0, 1, 2)
                rivals_seen += rival["made_up_rule_count"] > 0
        for a in view["legal"]:
            if a["text"].startswith("take the made-up rule "):
                assert a["detail"] == texts[a["text"].removeprefix("take the made-up rule ")]
            else:
                assert "detail" not in a
        last = view
    assert mine_seen and rivals_seen
    # at the end every seat's rules are named (the final table scores them)
    assert all("made_up_rules" in s for s in last["board"]["seats"])
    rows = last["final"]["scores"]
    assert any(row["made_up_rule"] for row in rows)


def test_the_board_scores_are_the_victory_track_the_final_ones_totals(client: TestClient) -> None:
    views = list(views_of_a_game(client, seed=6))
    middle, end = views[len(views) // 2], views[-1]
    assert middle["scores"] == [s["score"] for s in middle["board"]["seats"]]
    assert end["final"]["labels"]["total"] == "total"
    assert end["scores"] == [row["total"] for row in end["final"]["scores"]]
    assert [s["score"] for s in end["board"]["seats"]] == [
        row["track"] for row in end["final"]["scores"]
    ]  # the board's number is the Victory Track; the total adds the end-of-game scoring


def test_the_record_and_replay_page_of_a_served_game_name_the_seats(client: TestClient) -> None:
    end = list(views_of_a_game(client, num_players=3, seat=1, bots=["builder", "random"],
                               seed=9))[-1]  # fmt: skip
    record = client.get(end["record_url"]).json()
    assert record["agents"] == ["builder", "you", "random"] == end["players"]
    assert build_frames(record)["meta"]["players"] == ["builder", "you", "random"]
    page = client.get(end["replay_url"]).text
    assert '"players":["builder","you","random"]' in page
    assert "seatName(" in page and "Victory Track" in page


# -- the page's script, run on that JSON -------------------------------------------------------


PAGE_SETUP = """
for (const [id, tag] of [["num-players", "select"], ["seat", "select"], ["setup", "select"],
                         ["seed", "input"], ["new-game", "form"], ["rivals", "div"]]) {
  const e = document.createElement(tag); e.setAttribute("id", id); document.body.appendChild(e);
}
document.getElementById("num-players").value = "NUM";
document.getElementById("setup").value = "basic";
"""


def render_play_page(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """The play page's DOM after it starts a game whose first view is ``view``."""
    n = len(view["players"])
    responses = {
        f"GET /api/bots?num_players={n}": {"status": 200, "body": client.get(
            f"/api/bots?num_players={n}").json()},
        "POST /api/games": {"status": 201, "body": view},
    }  # fmt: skip
    return run_page(page_script(client.get("/").text), PAGE_SETUP.replace("NUM", str(n)),
                    'await fire("new-game", "submit");', responses)  # fmt: skip


@needs_node
def test_the_page_shows_the_hand_cards_text_the_rules_and_the_victory_track(
    client: TestClient,
) -> None:
    views = list(views_of_a_game(client, num_players=3, seat=0, bots=["heuristic"], seed=4))
    view = next(v for v in views if not v["terminal"] and seat_of(v, 0)["made_up_rules"]
                and seat_of(v, 1)["made_up_rule_count"] and v["hand_cards"])  # fmt: skip
    dom = render_play_page(client, view)
    seats = {int(s["attrs"]["data-seat"]): s for s in find(dom, "div", cls="seat")}
    assert sorted(seats) == [0, 1, 2]
    mine = seats[0]
    # each hand card shows its two actions on the card itself, not only as a hover title
    (hand,) = find(mine, "ul", cls="hand")
    chips = find(hand, "li")
    assert [c["attrs"]["data-card"] for c in chips] == [c["card"] for c in view["hand_cards"]]
    for chip, card in zip(chips, view["hand_cards"], strict=True):
        (acts,) = find(chip, "span", cls="acts")
        assert acts["text"] == f"public: {card['public']} | private: {card['private']}"
    # the seat's own made-up rule, by name and text; a rival's only as "has one"
    (rule,) = seat_of(view, 0)["made_up_rules"]
    (rules,) = find(mine, "div", cls="rules")
    assert f"Made-up rule: {rule}" in text_of(rules)
    (rule_text,) = find(rules, "span", cls="rule-text")
    assert rule_text["text"] == f"{rule}: {view['rule_text'][rule]}"
    (rival_rules,) = find(seats[1], "div", cls="rules")
    assert text_of(rival_rules) == "Made-up rule: has one (face down)"
    # the number on the board is the Victory Track, named so
    for p, box in seats.items():
        (score,) = find(box, "span", cls="score")
        assert score["text"] == f"Victory Track {seat_of(view, p)['score']}"
    assert "score " not in " ".join(text_of(s) for s in find(dom, "span", cls="score"))


@needs_node
def test_the_page_shows_a_made_up_rules_text_on_its_button(client: TestClient) -> None:
    view = next(v for v in views_of_a_game(client, num_players=3, seat=0, bots=["heuristic"],
                                           seed=4)
                if any("detail" in a for a in v["legal"]))  # fmt: skip
    dom = render_play_page(client, view)
    buttons = find(dom, "button", cls="action")
    assert len(buttons) == len(view["legal"])
    for button, action in zip(buttons, view["legal"], strict=True):
        assert button["text"] == action["text"]
        details = find(button, "span", cls="detail")
        assert [d["text"] for d in details] == ([action["detail"]] if "detail" in action else [])


@needs_node
def test_the_final_table_says_total_and_names_you(client: TestClient) -> None:
    end = list(views_of_a_game(client, seat=1, bots=["builder"], seed=6))[-1]
    dom = render_play_page(client, end)
    heads = {h["attrs"]["data-key"]: h["text"] for h in find(dom, "th") if "data-key" in h["attrs"]}
    assert heads["total"] == "total" and heads["track"] == "Victory Track"
    rows = find(dom, "tr", data_seat="1")
    assert rows and text_of(rows[0]).startswith("you (player_1)")


@needs_node
def test_the_replay_page_names_the_seats(client: TestClient) -> None:
    end = list(views_of_a_game(client, num_players=3, seat=1, bots=["builder", "random"],
                               seed=9))[-1]  # fmt: skip
    html = client.get(end["replay_url"]).text
    frames = html.split('<script type="application/json" id="frames">', 1)[1].split("</script>")[0]
    setup = ("const f = document.createElement('script'); f.setAttribute('id', 'frames');"
             f"f.textContent = {json.dumps(frames)}; document.body.appendChild(f);"
             "location.hash = '#step=999999';")  # the last frame: the final table  # fmt: skip
    dom = run_page(page_script(html), setup)
    heads = [text_of(h).removesuffix(" (leader)") for h in find(dom, "h3")]
    assert heads == ["player_0 (builder)", "player_1 (you)", "player_2 (random)"]
    names = [text_of(td) for td in find(dom, "td") if not td["attrs"].get("class")]
    assert names == ["player_0 (builder)", "player_1 (you)", "player_2 (random)"]
    (winners,) = find(dom, id="winners")
    assert text_of(winners).startswith("Winners: player_") and "(" in text_of(winners)
    assert all(text_of(s).startswith("Victory Track ") for s in find(dom, "span", cls="score"))


# -- the server's own rivals: fort-env serve --rival SPEC -------------------------------------


class TwoPlayersOnly(BaseAgent):
    """A rival that plays only 2-player games (as a model trained for one table might)."""

    name = "two-only"

    def act(self, observation: Any, info: Any) -> int:
        if info["game"].num_players != 2:
            raise ValueError("trained for 2 players")
        return int(info["legal_actions"][0])


@pytest.fixture
def two_only() -> Iterator[str]:
    # the bare name joins the zoo's list once registered; the spec with an argument is the
    # server's own rival only
    agents.register("two-only-test", lambda args: TwoPlayersOnly(), overwrite=True)
    try:
        yield "two-only-test:v=1"
    finally:
        agents._REGISTRY.pop("two-only-test", None)


def test_rivals_are_offered_where_they_play_and_games_take_them(two_only: str) -> None:
    rivals = check_rivals([two_only, "ppo:players=3"])
    assert rivals[two_only] == (2,)
    assert 3 in rivals["ppo:players=3"]
    client = client_for(rivals)
    two = client.get("/api/bots?num_players=2").json()["bots"]
    three = client.get("/api/bots?num_players=3").json()["bots"]
    assert two[: len(bot_choices(2))] == bot_choices(2)  # the zoo first, then the server's own
    assert two_only in two and "ppo:players=3" in two
    assert two_only not in three and "ppo:players=3" in three
    view = new_game(client, bots=[two_only], seed=2)
    assert view["players"] == ["you", two_only]
    end = list(views_of_a_game(client, bots=[two_only], seed=2))[-1]
    assert client.get(end["record_url"]).json()["agents"] == ["you", two_only]
    r = client.post("/api/games", json={"num_players": 3, "bots": [two_only]})
    assert r.status_code == 400 and "unknown bot" in r.json()["error"]
    # a server without them refuses them, as any spec not on its list
    r = client_for().post("/api/games", json={"num_players": 2, "bots": [two_only]})
    assert r.status_code == 400 and "unknown bot" in r.json()["error"]


def test_serve_rival_option(monkeypatch: pytest.MonkeyPatch, two_only: str) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(serve, "serve", lambda host, port, allowed_hosts, rivals=None: calls.append(
        {"host": host, "port": port, "rivals": rivals}))  # fmt: skip
    runner = CliRunner()
    result = runner.invoke(cli_app, ["serve", "--rival", two_only, "--rival", "ppo:players=3"])
    assert result.exit_code == 0, result.output
    assert calls[-1]["rivals"][two_only] == (2,) and "ppo:players=3" in calls[-1]["rivals"]
    # a bad spec: one error line naming the option and the spec, exit 1, no server
    calls.clear()
    for spec, words in (("nobody", "unknown agent"), ("ppo:/no/such/model.safetensors", "no")):
        bad = runner.invoke(cli_app, ["serve", "--rival", spec])
        assert bad.exit_code == 1, bad.output
        lines = bad.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: --rival {spec}: "), lines
        assert words in lines[0].lower() and "Traceback" not in bad.output
    assert calls == []
    help_text = runner.invoke(cli_app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    assert "--rival" in help_text
