"""A fuzz target for ``fort-env serve``'s JSON API (issue 42: "the fuzz targets (views, card
sets, requests) run in CI"): random bodies, JSON values, content types and paths, drawn by
Hypothesis, against creating a game and acting in one. Every answer is a 2xx or a 4xx with a
JSON ``{"error": ...}`` and no traceback: never a 500 (the test client raises the app's
exceptions), and a game a bad request touched is left as it was."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
hypothesis = pytest.importorskip("hypothesis")
httpx = pytest.importorskip("httpx")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

from agents.arena.serve import GameStore, create_app  # noqa: E402

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=4),
    max_leaves=12,
)  # fmt: skip
FIELDS = st.sampled_from(["num_players", "bots", "seed", "setup", "action", "seat", "x"])
BODIES = st.one_of(
    st.binary(max_size=300),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(FIELDS, JSON_VALUES, max_size=4).map(lambda d: json.dumps(d).encode()),
)
TYPES = st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"])

_CLIENT: dict[str, Any] = {}


def client() -> tuple[TestClient, str]:
    """One app and one live 2-player game for every example (a fresh app each is slow)."""
    if not _CLIENT:
        c = TestClient(create_app(GameStore(), allowed_hosts=("testserver",)))
        r = c.post("/api/games", json={"num_players": 2, "bots": ["random"], "seed": 5})
        assert r.status_code == 201, r.text
        _CLIENT["c"], _CLIENT["id"] = c, r.json()["id"]
    return _CLIENT["c"], _CLIENT["id"]


def check(r: Any) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:300])
    assert "Traceback" not in r.text
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/json")
        assert isinstance(r.json()["error"], str)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=BODIES, kind=TYPES)
def test_random_bodies_never_break_the_api(body: bytes, kind: str) -> None:
    c, gid = client()
    before = c.get(f"/api/games/{gid}").json()
    check(c.post("/api/games", content=body, headers={"content-type": kind}))
    r = c.post(f"/api/games/{gid}/actions", content=body, headers={"content-type": kind})
    check(r)
    if r.status_code >= 400:  # refused: the game is as it was
        assert c.get(f"/api/games/{gid}").json() == before


@settings(max_examples=80, deadline=None)
@given(path=st.text(max_size=40), query=st.text(max_size=20))
def test_random_paths_never_break_the_api(path: str, query: str) -> None:
    c, _ = client()
    for url in (f"/api/games/{path}", f"/api/bots?num_players={query}", f"/games/{path}/replay"):
        try:
            r = c.get(url)
        except (ValueError, httpx.InvalidURL):  # httpx refuses a URL it cannot form: not sent
            continue
        check(r)
