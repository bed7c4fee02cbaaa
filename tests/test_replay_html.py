"""The replay page (``fort_env/tools/replay_html.py``, ``fort-env replay GAME --html OUT``), checked
in the frames, in the file, and rendered by a real headless Chromium."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import fort_env
from fort_env.records import make_record, save_record
from fort_env.tools.cli import app
from fort_env.tools.replay_html import build_frames, render_html, script_json
from fort_env.views.words import action_words, decision_name, effect_words
from tests import js_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium)"
)


def random_record(num_players: int, seed: int) -> tuple[dict[str, Any], list[Any]]:
    """A masked random game; also the engine states before each action and at the end."""
    game = fort_env.FortGame(num_players)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions, states = [], []
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        states.append((state.clone(), action))
        actions.append(action)
        state.apply_action(action)
    states.append((state, None))
    config = {"num_players": num_players, "setup": "basic", "cards": None}
    return make_record(config, seed, actions, state), states


@pytest.fixture(scope="module")
def game() -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
    record, states = random_record(3, seed=11)
    return record, states, build_frames(record)


def test_frames_follow_the_game(game: tuple[dict[str, Any], list[Any], dict[str, Any]]) -> None:
    record, states, data = game
    frames = data["frames"]
    assert len(frames) == len(record["actions"]) + 1
    meta = {k: v for k, v in data["meta"].items() if k not in ("card_text", "score_labels")}
    assert meta == {
        "num_players": 3, "setup": "basic", "seed": 11,
        "decisions": len(record["actions"]), "finished": True,
    }  # fmt: skip
    card = fort_env.FortGame(3).cards[3]
    label = f"{card.name} [{'/'.join(card.suit_names)}]#3"
    assert data["meta"]["card_text"][label] == (
        f"public: {effect_words(card.public_effect)} | private: {effect_words(card.private_effect)}"
    )
    assert data["meta"]["score_labels"]["fort_level"] == "Fort Level points"
    assert json.loads(json.dumps(data)) == data  # JSON-able as it is
    for i in (0, 1, len(frames) // 2, len(frames) - 2):
        state, action = states[i]
        frame = frames[i]
        assert frame["index"] == i
        assert frame["decision"]["kind"] == state.decision.kind.name
        assert frame["decision"]["text"] == decision_name(state.decision.kind)
        assert frame["decision"]["player"] == state.current_player()
        assert frame["action"] == {"id": action, "text": action_words(state, action, "their")}
        for p, seat in enumerate(frame["seats"]):
            row = state.to_dict()["players"][p]
            assert seat["fort_level"] == row["fort_level"]
            assert seat["stuff"] == [row["stuff_pizza"], row["stuff_toys"]]
            assert seat["pack"] == [row["pack_pizza"], row["pack_toys"]]
            assert len(seat["hand"]) == sum(
                1 for c in state.to_dict()["cards"] if c["zone"] == "hand" and c["owner"] == p
            )
        assert len(frame["park"]) == sum(1 for c in state.to_dict()["cards"] if c["zone"] == "park")
        assert frame["final"] is None
    end, _ = states[-1]
    last = frames[-1]
    assert last["decision"] is None and last["action"] is None
    assert last["final"] == {"scores": end.score_breakdown(), "winners": end.winners()}
    turns = [f["turn"] for f in frames]
    assert turns == sorted(turns) and turns[-1] > 5  # turns count up as leaders change
    assert any(f["in_play"] for f in frames)  # played cards are shown with their actions
    shown = next(f["in_play"][0] for f in frames if f["in_play"])
    assert set(shown) == {"card", "owner", "zone", "public", "private"}


def test_raw_frames_keep_the_code_form(
    game: tuple[dict[str, Any], list[Any], dict[str, Any]],
) -> None:
    """``--raw``: the card language, the action names and the decision kinds, as written."""
    record, states, words_data = game
    data = build_frames(record, raw=True)
    card = fort_env.FortGame(3).cards[3]
    label = f"{card.name} [{'/'.join(card.suit_names)}]#3"
    assert data["meta"]["card_text"][label] == f"public: {card.public} | private: {card.private}"
    assert data["meta"]["card_text"][label] != words_data["meta"]["card_text"][label]
    for i in (0, len(states) // 2):
        state, action = states[i]
        frame = data["frames"][i]
        assert frame["action"]["text"] == state.action_to_string(action)
        assert frame["decision"]["text"] == state.decision.kind.name
    shown = next(f["in_play"][0] for f in data["frames"] if f["in_play"])
    cards = {c.name: c for c in fort_env.FortGame(3).cards}
    played = cards[shown["card"].split(" [")[0]]
    assert (shown["public"], shown["private"]) == (played.public or "-", played.private or "-")


def test_page_is_self_contained_and_escapes_its_data() -> None:
    data = {"meta": {"seed": 0}, "frames": [{"park": ["</script><script>alert(1)</script>"]}]}
    page = render_html(data, title="<b>x</b>")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "</script><script>alert" not in page  # the data cannot close its element
    payload = re.search(r'id="frames">(.*?)</script>', page, re.S)
    assert payload and json.loads(payload.group(1)) == data


def test_cli_writes_one_page(tmp_path: Path, game: Any) -> None:
    record, _, data = game
    path, out = tmp_path / "game.json", tmp_path / "game.html"
    save_record(record, path)
    result = CliRunner().invoke(app, ["replay", str(path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{len(data['frames'])} frames" in result.output
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page)  # nothing to fetch
    payload = re.search(r'id="frames">(.*?)</script>', page, re.S)
    assert payload and json.loads(payload.group(1)) == data


def test_cli_html_refuses_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 1
    assert not (tmp_path / "x.html").exists()


# ---------------------------------------------------------------------- in a real browser
def dump_dom(page: Path, step: int) -> str:
    """The DOM after the page's script ran, as headless Chromium serialises it."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--virtual-time-budget=3000", "--dump-dom", f"{page.as_uri()}#step={step}",
        ],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


def text_of(dom: str, element_id: str) -> str:
    m = re.search(rf'id="{element_id}"[^>]*>(.*?)</', dom, re.S)
    assert m, f"no #{element_id} in the rendered page"
    return html.unescape(m.group(1)).strip()


def find(pattern: str, text: str) -> str:
    m = re.search(pattern, text, re.S)
    assert m, f"{pattern!r} not in the rendered page"
    return m.group(1)


def items(ul_body: str) -> list[str]:
    return [html.unescape(x) for x in re.findall(r"<li(?: title=\"[^\"]*\")?>(.*?)</li>", ul_body)]


def seats_of(dom: str) -> dict[int, dict[str, Any]]:
    out = {}
    board = dom.split('<section id="seats">', 1)[1].split("</section>", 1)[0]
    seat = r'<div class="seat( acting)?" data-seat="(\d)">(.*?)(?=<div class="seat|$)'
    for m in re.finditer(seat, board, re.S):
        body = m.group(3)
        out[int(m.group(2))] = {
            "acting": bool(m.group(1)),
            "fort_level": int(find(r"Fort Level (\d+)", body)),
            "stuff": html.unescape(find(r'class="stuff">(.*?)<', body)),
            "yard": items(find(r'<ul class="cards yard">(.*?)</ul>', body)),
        }
    return out


@needs_chromium
def test_chromium_renders_the_board_at_several_decisions(tmp_path: Path, game: Any) -> None:
    _, _, data = game
    frames = data["frames"]
    page = tmp_path / "replay.html"
    page.write_text(render_html(data), encoding="utf-8")
    last = len(frames) - 1
    middle = next(i for i in range(last // 2, last) if frames[i]["in_play"])
    for step in (0, 12, middle, last):
        dom = dump_dom(page, step)
        frame = frames[step]
        assert text_of(dom, "step-label") == f"decision {step} / {last}"
        seats = seats_of(dom)
        assert sorted(seats) == [0, 1, 2]
        for p, seat in enumerate(frame["seats"]):
            assert seats[p]["fort_level"] == seat["fort_level"]
            assert seats[p]["stuff"] == f"Stuff {seat['stuff'][0]} pizza {seat['stuff'][1]} toys"
            assert seats[p]["yard"] == seat["yard"]
        hand = re.search(r'<ul class="cards hand">(.*?)</ul>', dom, re.S)  # player_0's
        chips = re.findall(r'<li title="([^"]*)">(.*?)</li>', hand.group(1) if hand else "")
        assert [(html.unescape(a), html.unescape(b)) for a, b in chips] == [
            (data["meta"]["card_text"][c], c) for c in frame["seats"][0]["hand"]
        ]  # each chip's text on hover
        park = re.search(r'<ul id="park" class="cards">(.*?)</ul>', dom, re.S)
        assert park and items(park.group(1)) == frame["park"]
        if step < last:
            who = frame["decision"]["player"]
            assert text_of(dom, "decision") == f"player_{who} decides: {frame['decision']['text']}"
            assert text_of(dom, "action") == f"chooses: {frame['action']['text']}"
            assert [p for p, s in seats.items() if s["acting"]] == [who]
            assert '<section id="final" hidden' in dom
        else:
            assert text_of(dom, "decision") == "Game over"
            assert '<section id="final">' in dom
            totals = [int(t) for t in re.findall(r'<td class="total">(\d+)</td>', dom)]
            heads = dict(re.findall(r'<th data-key="(\w+)">(.*?)</th>', dom))
            assert heads["fort_level"] == "Fort Level points" and heads["level"] == "Fort Level"
            assert heads["track"] == "Victory Track"
            assert totals == [row["total"] for row in frame["final"]["scores"]]
            winners = ", ".join(f"player_{p}" for p in frame["final"]["winners"])
            assert text_of(dom, "winners") == f"Winners: {winners}"
        if step == middle:
            in_play = re.search(r'<ul id="in-play" class="cards">(.*?)</ul>', dom, re.S)
            assert in_play and frame["in_play"][0]["public"] in html.unescape(in_play.group(1))


@needs_chromium
def test_keys_and_buttons_step_through_the_game(tmp_path: Path, game: Any) -> None:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        pytest.skip("no chromedriver on PATH (apt-get install -y chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _, _, data = game
    last = len(data["frames"]) - 1
    page = tmp_path / "replay.html"
    page.write_text(render_html(data), encoding="utf-8")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(f"{page.as_uri()}#step=5")
        body = driver.find_element(By.TAG_NAME, "body")

        def step() -> int:
            return int(body.get_attribute("data-step"))

        assert step() == 5
        body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        assert step() == 7
        assert driver.find_element(By.ID, "step-label").text == f"decision 7 / {last}"
        assert driver.current_url.endswith("#step=7")  # the fragment follows navigation
        body.send_keys(Keys.ARROW_LEFT)
        assert step() == 6
        driver.find_element(By.ID, "next").click()
        assert step() == 7
        driver.find_element(By.ID, "prev").click()
        assert step() == 6
        body.send_keys(Keys.END)
        assert step() == last
        assert driver.find_element(By.ID, "final").is_displayed()
        driver.find_element(By.ID, "next").click()  # no step past the end
        assert step() == last
        driver.find_element(By.ID, "first").click()
        assert step() == 0
        assert not driver.find_element(By.ID, "final").is_displayed()
    finally:
        driver.quit()


# ---------------------------------------------------------------------- hostile card names
HOSTILE_NAMES = [
    "<!--",
    "</script>",
    "<script>alert(1)</script>",
    "]]>",
    "<!-- </script> <script>",
    "a\"b'c\\d",
    "Läden \u2028 \u2029 ✓ \U0001d509",
    "&amp; &lt; __DATA__",
]


def embedded_data(page: str) -> Any:
    """The text of the page's data element, parsed as JSON (what the page's script does)."""
    payload = re.search(r'<script type="application/json" id="frames">(.*?)</script>', page, re.S)
    assert payload, "the data element is missing or cut short"
    return json.loads(payload.group(1))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_card_names_round_trip_through_the_page(name: str) -> None:
    data = {"meta": {"seed": 0}, "frames": [{"park": [name, "x"], "seats": [{"yard": [name]}]}]}
    page = render_html(data, title=name)
    assert embedded_data(page) == data  # "<\\!--" (the old escape) is not JSON: this failed
    text = page.split('id="frames">', 1)[1].split("</script>", 1)[0]
    assert not re.search(r"[<>&\u2028\u2029]", text)  # nothing the HTML parser could act on
    assert page.count("</script>") == page.count("<script")  # no element closed early


@needs_chromium
def test_chromium_shows_hostile_card_names(tmp_path: Path, game: Any) -> None:
    import copy

    _, _, data = game
    data = copy.deepcopy(data)
    names = HOSTILE_NAMES[:6]
    data["frames"][0]["park"] = names
    page = tmp_path / "replay.html"
    page.write_text(render_html(data), encoding="utf-8")
    dom = dump_dom(page, 0)
    assert text_of(dom, "step-label") == f"decision 0 / {len(data['frames']) - 1}"  # not blank
    park = re.search(r'<ul id="park" class="cards">(.*?)</ul>', dom, re.S)
    assert park and items(park.group(1)) == names


@pytest.mark.skipif(js_page.NODE is None, reason="Node.js is not installed")
def test_the_page_shows_the_decision_the_move_and_the_cards_in_words(
    game: tuple[dict[str, Any], list[Any], dict[str, Any]],
) -> None:
    """The page's own script (in Node, ``tests/js_page.py``) writes the frame's words: who
    decides what, the move chosen, the actions of the cards in play."""
    _, _, data = game
    step = next(i for i, f in enumerate(data["frames"]) if f["in_play"] and f["decision"])
    frame = data["frames"][step]
    before = (
        f'document.getElementById("frames").textContent = {json.dumps(script_json(data))};'
        f'location.hash = "#step={step}";'
    )
    dom = js_page.run_page(js_page.page_script(render_html(data)), before=before)
    (decision,) = js_page.find(dom, id="decision")
    who = frame["decision"]["player"]
    assert js_page.text_of(decision) == f"player_{who} decides: {frame['decision']['text']}"
    assert "_" not in frame["decision"]["text"]
    (action,) = js_page.find(dom, id="action")
    assert js_page.text_of(action) == f"chooses: {frame['action']['text']}"
    (in_play,) = js_page.find(dom, id="in-play")  # the stand-in makes it a div
    shown = js_page.text_of(in_play)
    assert frame["in_play"][0]["public"] in shown and "->" not in shown and " x " not in shown
