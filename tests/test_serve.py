"""``fort-env serve`` (``agents/arena/serve.py``): the JSON API through Starlette's test client
(whole games, every kind of bad input, the record, the limits), what the person's view may
show (nothing of the rivals' hidden cards: re-dealt with ``resample_hidden``, the view is the
same bytes), and the page in a real headless Chromium, played to the end by clicks."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for it; httpx works the same
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient
from typer.testing import CliRunner

import fort_env
from agents.arena import serve
from agents.arena.serve import GameStore, create_app, seat_view
from fort_env.records import replay
from fort_env.tools.cli import app as cli_app
from fort_env.views.words import is_internal

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def store() -> GameStore:
    return GameStore()


JSON = {"content-type": "application/json"}  # raw bodies: the API takes JSON only (415)


@pytest.fixture
def client(store: GameStore) -> TestClient:
    # the test client's Host is "testserver": allowed here (only loopback names by default)
    return TestClient(create_app(store, allowed_hosts=["testserver"]),
                      raise_server_exceptions=False)  # fmt: skip


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {"num_players": 2, "seat": 0, "bots": ["random"], "seed": 5} | body
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    view: dict[str, Any] = r.json()
    return view


def play_out(client: TestClient, view: dict[str, Any], pick: int = 0) -> dict[str, Any]:
    """Play the person's first (or ``pick``-th, wrapped) legal action until the end."""
    for _ in range(2000):
        if view["terminal"]:
            return view
        legal = view["legal"]
        assert legal and view["to_move"] == view["seat"]
        r = client.post(f"/api/games/{view['id']}/actions",
                        json={"action": legal[pick % len(legal)]["id"]})  # fmt: skip
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the game did not end")


def assert_error(r: Any, status: int, *words: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    message = r.json()["error"]
    for word in words:
        assert word in message, message
    assert "Traceback" not in r.text


@pytest.mark.parametrize(("num_players", "seat"), [(2, 0), (3, 2), (4, 1)])
def test_a_whole_game_against_random(client: TestClient, num_players: int, seat: int) -> None:
    view = new_game(client, num_players=num_players, seat=seat,
                    bots=["random"] * (num_players - 1), seed=7)  # fmt: skip
    assert set(view) >= {"id", "terminal", "to_move", "legal", "scores", "board", "log"}
    assert view["players"][seat] == "you" and len(view["players"]) == num_players
    assert all(set(a) == {"id", "text"} for a in view["legal"])
    assert client.get(f"/api/games/{view['id']}").json() == view
    end = play_out(client, view, pick=1)
    assert end["terminal"] and end["to_move"] is None and end["legal"] == []
    assert len(end["scores"]) == num_players
    assert end["final"]["winners"] and set(end["final"]["winners"]) <= set(range(num_players))
    assert [row["total"] for row in end["final"]["scores"]] == end["scores"]
    # the record replays to the same result, and the replay page shows it
    record = client.get(end["record_url"]).json()
    assert record["format"] == "fort-env-record" and record["seed"] == 7
    assert record["agents"][seat] == "you"
    assert record["result"] == {"scores": end["scores"], "winners": end["final"]["winners"]}
    assert [row["total"] for row in replay(record).score_breakdown()] == end["scores"]
    page = client.get(end["replay_url"])
    assert page.status_code == 200 and "Final scores" in page.text
    # the moves: the person's own and the rivals', in order, without the internal steps
    # (going on with an action used partially), which are no one's move
    final = replay(record)
    moves = [a for a in record["actions"] if not is_internal(final, a)]
    assert len(end["log"]) == len(moves)
    assert not any("next step" in m["text"] for m in end["log"])
    assert {m["player"] for m in end["log"]} == set(range(num_players))


def test_the_game_is_the_same_for_the_same_seed(client: TestClient) -> None:
    a, b = new_game(client, seat=1, seed=99), new_game(client, seat=1, seed=99)
    assert a["id"] != b["id"]
    assert {k: v for k, v in a.items() if k != "id"} == {k: v for k, v in b.items() if k != "id"}


def test_illegal_and_malformed_actions_leave_the_game_unchanged(client: TestClient) -> None:
    view = new_game(client, seed=3)
    url = f"/api/games/{view['id']}"
    before = client.get(url).text
    legal = {a["id"] for a in view["legal"]}
    illegal = next(a for a in range(10_000) if a not in legal)
    cases: list[tuple[Any, int, tuple[str, ...]]] = [
        ({"action": illegal}, 422, (str(illegal), "not legal")),
        ({"action": -1}, 400, ("'action'",)),
        ({"action": 2**40}, 400, ("'action'",)),
        ({"action": "3"}, 400, ("'action'", "integer")),
        ({"action": 1.5}, 400, ("'action'", "integer")),
        ({"action": True}, 400, ("'action'", "integer")),
        ({"action": None}, 400, ("'action'",)),
        ({}, 400, ("'action'", "missing")),
        ({"action": min(legal), "extra": 1}, 400, ("unknown field", "extra")),
        ([min(legal)], 400, ("JSON object",)),
    ]
    for body, status, words in cases:
        assert_error(client.post(f"{url}/actions", json=body), status, *words)
        assert client.get(url).text == before, body
    for raw in (b"", b"{", b"action=3", b"\xff\xfe"):
        assert_error(client.post(f"{url}/actions", content=raw, headers=JSON), 400, "JSON")
        assert client.get(url).text == before, raw
    huge = json.dumps({"action": min(legal), "pad": "x" * 10_000})
    assert_error(client.post(f"{url}/actions", content=huge, headers=JSON), 413, "bytes")
    assert client.get(url).text == before
    # after the end, no action is taken
    end = play_out(client, view)
    assert_error(client.post(f"{url}/actions", json={"action": 0}), 409, "over")
    assert client.get(url).json() == end


def test_unknown_ids_are_404(client: TestClient) -> None:
    for method, path, body in [
        ("GET", "/api/games/nope", None),
        ("POST", "/api/games/nope/actions", {"action": 0}),
        ("GET", "/api/games/nope/record", None),
        ("GET", "/games/nope/replay", None),
    ]:
        assert_error(client.request(method, path, json=body), 404, "'nope'")
    assert_error(client.get("/api/nothing"), 404)
    assert_error(client.delete("/api/games"), 405)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"num_players": 5, "bots": ["random"]}, ("'num_players'", "[2, 4]")),
        ({"num_players": "2", "bots": ["random"]}, ("'num_players'", "integer")),
        ({"bots": ["random"]}, ("'num_players'", "missing")),
        ({"num_players": 2, "seat": 2, "bots": ["random"]}, ("'seat'", "[0, 1]")),
        ({"num_players": 2, "bots": ["nobody"]}, ("unknown bot", "nobody")),
        ({"num_players": 2, "bots": ["rllib"]}, ("unknown bot", "rllib")),
        ({"num_players": 2, "bots": ["ppo:/etc/passwd"]}, ("unknown bot",)),
        ({"num_players": 3, "bots": ["random"] * 3}, ("3 players need 1 or 2 bots",)),
        ({"num_players": 2, "bots": "random"}, ("'bots'",)),
        ({"num_players": 2, "bots": [1]}, ("'bots'",)),
        ({"num_players": 2, "bots": ["random"], "setup": "x"}, ("'setup'",)),
        ({"num_players": 2, "bots": ["random"], "seed": -1}, ("'seed'",)),
        ({"num_players": 2, "bots": ["random"], "colour": "red"}, ("unknown field", "colour")),
        ([2], ("JSON object",)),
    ],
)
def test_bad_new_game_bodies_are_400(
    client: TestClient, store: GameStore, body: Any, words: tuple[str, ...]
) -> None:
    assert_error(client.post("/api/games", json=body), 400, *words)
    assert store.games == {}


def test_oversized_and_non_json_bodies(client: TestClient, store: GameStore) -> None:
    big = b"{" + b" " * 5000 + b"}"
    assert_error(client.post("/api/games", content=big, headers=JSON), 413, "bytes")
    assert_error(client.post("/api/games", content=b"not json", headers=JSON), 400, "JSON")
    assert store.games == {}


def test_the_record_waits_for_the_end(client: TestClient) -> None:
    view = new_game(client, seed=8)
    gid = view["id"]
    for path in (f"/api/games/{gid}/record", f"/games/{gid}/replay"):
        assert_error(client.get(path), 409, "over")
    assert "seed" not in view and "record_url" not in view
    end = play_out(client, view)
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["actions"] and record["result"]["scores"] == end["scores"]
    assert end["seed"] == 8


def test_games_are_bounded_and_expire() -> None:
    """At the cap the longest idle game makes room (nobody gets 429); idle games expire."""
    now = [0.0]
    small = GameStore(max_games=2, clock=lambda: now[0])
    client = TestClient(create_app(small, allowed_hosts=["testserver"]),
                        raise_server_exceptions=False)  # fmt: skip
    first = new_game(client)
    now[0] += 1
    second = new_game(client)
    now[0] += 1
    third = new_game(client)
    assert set(small.games) == {second["id"], third["id"]}
    assert_error(client.get(f"/api/games/{first['id']}"), 404, "idle")
    assert client.get(f"/api/games/{second['id']}").status_code == 200
    short = GameStore(idle_s=0.05)
    client = TestClient(create_app(short, allowed_hosts=["testserver"]),
                        raise_server_exceptions=False)  # fmt: skip
    view = new_game(client)
    time.sleep(0.1)
    assert_error(client.get(f"/api/games/{view['id']}"), 404, "idle")
    assert short.games == {}


def test_a_failing_bot_gives_a_500_without_a_trace(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = new_game(client, seed=4)
    url = f"/api/games/{view['id']}"

    def broken(self: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(serve.Game, "advance", broken)
    r = client.post(f"{url}/actions", json={"action": view["legal"][0]["id"]})
    assert r.status_code == 500
    assert r.json() == {"error": "internal error (see the server's log)"}
    assert "secret" not in r.text and "Traceback" not in r.text


def test_the_bot_list_and_the_page(client: TestClient) -> None:
    bots = client.get("/api/bots?num_players=3").json()["bots"]
    assert "random" in bots and "heuristic" in bots and "rllib" not in bots
    assert_error(client.get("/api/bots?num_players=7"), 400, "'num_players'")
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    # the board's styles and script (fort_env.tools.board), put in where the page marks them
    assert "__BOARD_" not in page.text and "#seats {" in page.text
    assert "const FortBoard" in page.text
    assert 'id="new-game"' in page.text


def test_the_serve_command_is_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, list[str]]] = []
    monkeypatch.setattr(serve, "serve", lambda host, port, allowed_hosts: calls.append(
        (host, port, allowed_hosts)))  # fmt: skip
    result = CliRunner().invoke(cli_app, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert calls == [("127.0.0.1", 8123, [])]


def test_binding_beyond_loopback_warns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.arena import serve_protocol

    class NoServer:
        def run(self, sockets: object = None) -> None:
            pass

    # no uvicorn server is built: its Config configures logging with handlers on the streams
    # capsys captures, which pytest closes after the test (every later test then errors)
    monkeypatch.setattr(serve_protocol, "make_server", lambda app, sockets: NoServer())
    serve.serve("127.0.0.1", 0)  # a free port: serve binds it before anything is printed
    assert "warning" not in capsys.readouterr().out
    serve.serve("0.0.0.0", 0)
    assert "warning: serving on 0.0.0.0" in capsys.readouterr().out


# -- issue 42: the action range, seeds that reveal nothing -------------------------------------


def test_an_out_of_range_action_names_the_real_bound(client: TestClient) -> None:
    """The message said "[0, 2147483648]", one past the bound it checked."""
    view = new_game(client, seed=3)
    url = f"/api/games/{view['id']}"
    before = client.get(url).text
    top = fort_env.FortGame(2).num_distinct_actions - 1
    for action in (top + 1, 2**31, 2**31 - 1, 2**40, -1):
        r = client.post(f"{url}/actions", json={"action": action})
        assert_error(r, 400, "'action'", f"must be in [0, {top}]", f"got {action}")
        assert "2147483648]" not in r.text
        assert client.get(url).text == before


def test_a_seed_not_given_is_drawn_from_the_os_entropy(
    store: GameStore, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random
    import secrets

    from fort_env.game.constants import SEED_LIMIT

    def guessable(*args: Any) -> int:
        raise AssertionError("a seed drawn from random (31 bits, Mersenne Twister)")

    monkeypatch.setattr(random, "randrange", guessable)
    drawn: list[int] = []
    real = secrets.randbelow

    def randbelow(limit: int) -> int:
        drawn.append(limit)
        return real(limit)

    monkeypatch.setattr(secrets, "randbelow", randbelow)
    seeds = []
    for _ in range(6):
        r = client.post("/api/games", json={"num_players": 2, "bots": ["random"]})
        assert r.status_code == 201, r.text
        seeds.append(store.games[r.json()["id"]].seed)
    assert drawn == [SEED_LIMIT] * 6
    assert all(0 <= s < SEED_LIMIT for s in seeds) and len(set(seeds)) == 6
    assert max(seeds) >= 2**31  # 62 bits, not 31 (fails with probability 2**-186)


def test_the_record_says_whether_the_client_chose_the_seed(client: TestClient) -> None:
    from fort_env.records import RecordError, validate_record

    for body, chosen in (({"seed": 8}, True), ({"seed": None}, False), ({}, False)):
        view = new_game(client, **body) if body.get("seed") else None
        if view is None:
            r = client.post("/api/games", json={"num_players": 2, "bots": ["random"], **body})
            assert r.status_code == 201, r.text
            view = r.json()
        assert "seed_chosen_by_client" not in view  # nothing about the seed before the end
        end = play_out(client, view)
        assert end["seed_chosen_by_client"] is chosen
        record = client.get(end["record_url"]).json()
        assert record["seed_chosen_by_client"] is chosen
        assert validate_record(record) is record
        assert replay(record).is_terminal()  # the field does not change the replay
        page = client.get(end["replay_url"])
        assert page.status_code == 200
    # a record that says something else than a bool there is refused; one without it loads
    with pytest.raises(RecordError, match="seed_chosen_by_client"):
        validate_record({**record, "seed_chosen_by_client": "yes"})
    old = {k: v for k, v in record.items() if k != "seed_chosen_by_client"}
    assert replay(old).is_terminal()


# -- what the person may see ------------------------------------------------------------------


def redealt(state: fort_env.FortState, seat: int, rng: np.random.Generator) -> Any:
    for _ in range(50):
        try:
            return state.resample_hidden(seat, rng)
        except fort_env.StateError:
            continue
    raise AssertionError("50 re-deals in a row were positions the engine cannot continue")


@pytest.mark.parametrize(("num_players", "setup"), [(2, "basic"), (3, "advanced"), (4, "basic")])
def test_the_view_is_unchanged_when_the_rivals_cards_are_redealt(
    store: GameStore, client: TestClient, num_players: int, setup: str
) -> None:
    rng = np.random.default_rng(31)
    checked = changed = 0
    for seed, seat in [(1, 0), (2, num_players - 1)]:
        view = new_game(client, num_players=num_players, seat=seat, setup=setup, seed=seed,
                        bots=["heuristic"])  # fmt: skip
        game = store.games[view["id"]]
        while not view["terminal"]:
            state = game.state
            mine = json.dumps(seat_view(state, seat), sort_keys=True)
            assert json.dumps({k: v for k, v in view.items() if k not in ("id", "players", "log")},
                              sort_keys=True) == mine  # fmt: skip
            other = redealt(state, seat, rng)
            changed += other.to_dict() != state.to_dict()
            checked += 1
            assert json.dumps(seat_view(other, seat), sort_keys=True) == mine
            # no rival's hand card is named anywhere in what the person gets
            for p, s in enumerate(view["board"]["seats"]):
                if p != seat:
                    assert s["hand"] == [] and s["lookout"] == []
            view = client.post(f"/api/games/{view['id']}/actions",
                               json={"action": view["legal"][-1]["id"]}).json()  # fmt: skip
    assert checked > 20
    assert changed >= 0.8 * checked, "resample_hidden barely changed anything: the test is empty"


# -- the page in a real browser ---------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[str]:
    from agents.arena.serve_protocol import bind_sockets, make_server

    sockets = bind_sockets("127.0.0.1", 0)  # as fort-env serve runs it (its limits included)
    port = sockets[0].getsockname()[1]
    srv = make_server(create_app(), sockets)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium)")
def test_chromium_plays_a_game_to_the_end_by_clicks(server: str, tmp_path: Path) -> None:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        pytest.skip("no chromedriver on PATH (apt-get install -y chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    wait = WebDriverWait(driver, 30)
    body = driver.find_element

    def state() -> str:
        return str(body(By.TAG_NAME, "body").get_attribute("data-state") or "")

    try:
        driver.get(server + "/")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rivals select")) == 1)
        Select(body(By.ID, "num-players")).select_by_visible_text("3")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rivals select")) == 2)
        Select(body(By.ID, "seat")).select_by_visible_text("1")
        for sel in driver.find_elements(By.CSS_SELECTOR, "#rivals select"):
            Select(sel).select_by_visible_text("random")
        body(By.ID, "seed").send_keys("12")
        body(By.ID, "start").click()
        wait.until(lambda d: state() in ("your-turn", "over"))
        shot_taken = False
        clicks = 0
        while state() != "over":
            buttons = driver.find_elements(By.CSS_SELECTOR, "#actions button.action")
            assert buttons, "no action buttons at the person's turn"
            if clicks == 6 and not shot_taken:
                driver.save_screenshot(str(tmp_path / "serve.png"))
                shot_taken = True
            if clicks % 2:  # the keyboard: the first button has the focus; Enter takes it
                assert driver.switch_to.active_element == buttons[0]
                buttons[0].send_keys(Keys.ENTER)
            else:
                buttons[-1].click()
            clicks += 1
            wait.until(lambda d: state() in ("your-turn", "over"))
            assert clicks < 1000
        assert not body(By.ID, "final").get_attribute("hidden")
        rows = driver.find_elements(By.CSS_SELECTOR, "#scores tr[data-seat]")
        assert len(rows) == 3
        assert "you (player_1)" in rows[1].text
        assert body(By.ID, "winners").text.startswith("Winners: ")
        assert body(By.ID, "error").text == ""
        moves = driver.find_elements(By.CSS_SELECTOR, "#log li")
        assert len(moves) > clicks
        link = body(By.ID, "replay-link").get_attribute("href")
        assert link and "/games/" in link and link.endswith("/replay")
        driver.get(link)  # the replay page, at its first decision; End goes to the end
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-step"))
        body(By.TAG_NAME, "body").send_keys(Keys.END)
        wait.until(lambda d: d.find_element(By.ID, "final").is_displayed())
        assert "player_1" in body(By.ID, "scores").text
        assert shot_taken
        target = os.environ.get("FORT_SERVE_SCREENSHOT")  # e.g. docs/serve.png, the README's
        if target:
            shutil.copy(tmp_path / "serve.png", target)
    finally:
        driver.quit()
