"""A bot that fails loses its table, never the ladder (``agents/arena/bot_guard.py``,
``agents/arena/ladder.py`` "Failures"): a bot that raises, calls ``sys.exit()``, chooses an
illegal action or hangs forfeits the table with its error recorded and named, and the other
tables are played and rated; plugin bots get a per-decision time limit
(``--decision-timeout``)."""

from __future__ import annotations

import pickle
import sys
import time
from typing import Any

import pytest
from typer.testing import CliRunner

import agents
from agents.arena.bot_guard import (
    ALARM_REPEAT_S,
    BotFailure,
    DecisionTimeout,
    GuardedAgent,
    call_with_timeout,
)
from agents.arena.ladder import Bot, format_ladder, ladder_markdown, run_ladder


class Raiser(agents.RandomAgent):
    """Plays randomly, then raises at its third decision of a game."""

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.calls = 0

    def act(self, observation: Any, info: Any) -> int:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("my network is broken")
        return super().act(observation, info)


class Illegal(agents.RandomAgent):
    def act(self, observation: Any, info: Any) -> int:
        legal = set(int(a) for a in info["legal_actions"])
        return next(a for a in range(10_000) if a not in legal)


class Hanger(agents.RandomAgent):
    def act(self, observation: Any, info: Any) -> int:
        time.sleep(3600)
        return 0


class Exiter(agents.RandomAgent):
    def act(self, observation: Any, info: Any) -> int:
        sys.exit(2)


PLUGINS = {"plugin_raiser": Raiser, "plugin_illegal": Illegal, "plugin_hanger": Hanger,
           "plugin_exiter": Exiter}  # fmt: skip


@pytest.fixture
def plugin_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, cls in PLUGINS.items():
        monkeypatch.setitem(agents._REGISTRY, name, lambda args, cls=cls: cls())


def test_failing_bots_forfeit_their_tables_and_the_rest_is_played(plugin_bots: None) -> None:
    """Before: the raiser's traceback ended the run (every table played so far lost), the
    illegal bot gave "action N is not legal" without its name, the hanger never returned."""
    bots = [Bot(s, s) for s in ("random", "builder", *PLUGINS)]
    start = time.perf_counter()
    result = run_ladder(bots, 2, 2, seed=3, progress=False, decision_timeout=0.3)
    assert time.perf_counter() - start < 60
    forfeits = {tuple(f["table"]): f for f in result["forfeits"]}
    played = [("random", "builder")]
    # every table with a failing bot is forfeited (the first to fail loses it); only
    # random v builder is rated
    assert len(forfeits) == result["tables"] - len(played) == 14
    by_bot: dict[str, list[str]] = {}
    for f in result["forfeits"]:
        assert f["bot"] in f["table"] and f["bot"] in PLUGINS
        by_bot.setdefault(f["bot"], []).append(f["error"])
    for table, f in forfeits.items():  # against a bot that plays, the failing one loses
        others = [b for b in table if b != f["bot"]]
        if others[0] in ("random", "builder"):
            assert f["bot"] in PLUGINS
    errors = {bot: errs[0] for bot, errs in by_bot.items()}
    assert "raised RuntimeError: my network is broken" in errors["plugin_raiser"]
    assert "test_ladder_failures.py" in errors["plugin_raiser"]  # where, in the bot's code
    assert "at its decision 3 of the game" in errors["plugin_raiser"]
    assert "which is not legal at its decision 1" in errors["plugin_illegal"]
    assert "took more than 0.3 s at its decision 1" in errors["plugin_hanger"]
    assert "called sys.exit(2)" in errors["plugin_exiter"]
    rows = {row["name"]: row for row in result["bots"]}
    assert rows["random"]["games"] == rows["builder"]["games"] == 2
    assert all(rows[name]["games"] == 0 for name in PLUGINS)
    assert sum(row["forfeits"] for row in result["bots"]) == 14
    assert rows["random"]["forfeits"] == rows["builder"]["forfeits"] == 0
    assert result["games"] == 2 and result["decision_timeout"] == 0.3
    # forfeits are rated as losses: no failing bot sits above a bot that played (with no
    # rated games it would sit at the prior, above random)
    assert max(rows[name]["ordinal"] for name in PLUGINS) < min(
        rows["random"]["ordinal"], rows["builder"]["ordinal"]
    )
    assert [row["name"] for row in result["bots"]][:2] == ["builder", "random"]
    text = format_ladder(result)
    assert "forfeit: plugin_raiser lost the table random v plugin_raiser" in text
    assert "forfeit: plugin_hanger" in ladder_markdown(result)


def test_every_table_forfeited_is_one_error(plugin_bots: None) -> None:
    with pytest.raises(ValueError, match="every table was forfeited: plugin_raiser raised"):
        run_ladder([Bot("plugin_raiser", "plugin_raiser"), Bot("random", "random")], 2, 2,
                   progress=False)  # fmt: skip


def test_the_ladder_command_names_the_failing_bot(plugin_bots: None) -> None:
    from fort_env.tools.cli import app

    args = ["ladder", "--bots", "random,builder,plugin_illegal,plugin_hanger", "--games", "2",
            "--seed", "1", "--decision-timeout", "0.2"]  # fmt: skip
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output
    assert "forfeit: plugin_illegal lost the table random v plugin_illegal" in done.stdout
    assert "forfeit: plugin_hanger lost the table random v plugin_hanger" in done.stdout
    assert "took more than 0.2 s" in done.stdout
    bad = CliRunner().invoke(app, ["ladder", "--decision-timeout", "-1"])
    assert bad.exit_code == 2


def test_a_plugin_factory_that_fails_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from fort_env.tools.cli import app

    def broken(args: str | None) -> agents.Agent:
        raise RuntimeError("no weights")

    monkeypatch.setitem(agents._REGISTRY, "plugin_broken", broken)
    monkeypatch.setitem(agents._REGISTRY, "plugin_exits", lambda args: sys.exit(5))
    for name, words in (("plugin_broken", "raised RuntimeError: no weights"),
                        ("plugin_exits", "called sys.exit(5)")):  # fmt: skip
        done = CliRunner().invoke(app, ["ladder", "--bots", f"random,{name}", "--games", "1"])
        assert done.exit_code == 1, done.output
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: --bots {name}: "), done.stderr
        assert f"the agent could not be built: it {words}" in lines[0]


def test_built_in_bots_have_no_time_limit_plugins_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is for plugin bots: a built-in slower than it plays on (``builder`` takes far
    more than 1 us a decision)."""
    result = run_ladder([Bot("builder", "builder"), Bot("random", "random")], 2, 2, seed=1,
                        progress=False, decision_timeout=1e-6)  # fmt: skip
    assert result["forfeits"] == [] and result["games"] == 2


def test_guarded_agent_and_failure_cross_processes() -> None:
    """What a worker process receives and sends back: the wrapper pickles to its spec and
    limit only; the failure keeps its bot and problem."""
    guarded = GuardedAgent("r", "random", 2.0)
    guarded.seed(1)
    clone = pickle.loads(pickle.dumps(guarded))
    assert (clone.name, clone.spec, clone.decision_timeout) == ("r", "random", 2.0)
    assert clone._agent is None and clone.failure is None
    failure = pickle.loads(pickle.dumps(BotFailure("r", "raised X")))
    assert (failure.bot, failure.problem, str(failure)) == ("r", "raised X", "bot 'r' raised X")
    with pytest.raises(ValueError, match=">= 0"):
        GuardedAgent("r", "random", -1)


def test_call_with_timeout_in_a_thread_and_restores_an_earlier_timer() -> None:
    import signal
    import threading

    assert call_with_timeout(lambda x: x + 1, 0.5, 1) == 2
    with pytest.raises(DecisionTimeout):
        call_with_timeout(time.sleep, 0.05, 5)
    box: dict[str, Any] = {}

    def in_thread() -> None:  # no SIGALRM off the main thread: a watched daemon thread
        try:
            call_with_timeout(time.sleep, 0.05, 2)
        except DecisionTimeout:
            box["timed_out"] = True

    worker = threading.Thread(target=in_thread)
    worker.start()
    worker.join(5)
    assert box == {"timed_out": True}
    swallowed: list[float] = []

    def stubborn() -> None:  # catches the timeout: interrupted again until it gives up
        start = time.perf_counter()
        while True:
            try:
                time.sleep(3600)
            except DecisionTimeout:
                swallowed.append(time.perf_counter() - start)
                if len(swallowed) == 2:
                    raise

    with pytest.raises(DecisionTimeout):
        call_with_timeout(stubborn, 0.05)
    assert swallowed[1] - swallowed[0] == pytest.approx(ALARM_REPEAT_S, abs=0.2)
    fired: list[int] = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.4)
        call_with_timeout(time.sleep, 1.0, 0.01)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left < 0.4  # the earlier timer goes on
        time.sleep(0.6)
        assert fired == [1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
