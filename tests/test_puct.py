"""The policy-guided search ``puct`` (agents/learned/puct.py): it plays legal moves reproducibly,
its values outweigh a wrong prior, its prior decides when values do not, and bad settings fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents.arena.tournament import run_tournament
from agents.base import MissingInfoError
from agents.learned.puct import PUCTAgent
from fort_env import FortGame
from fort_env.game.errors import ModelFileError


@pytest.fixture
def model(untrained_policy_file: Path) -> Path:
    """An untrained 2-player policy file (the search's mechanics do not need a good one)."""
    return untrained_policy_file


def _spec(model: Path, **settings: Any) -> str:
    return ":".join([f"puct:model={model}", *(f"{k}={v}" for k, v in settings.items())])


def test_plays_legal_moves_and_is_reproducible(model: Path) -> None:
    for spec in (_spec(model, sims=12), _spec(model, sims=12, engine="python")):
        _same_games_twice(spec)


def _same_games_twice(spec: str) -> None:
    runs = [
        run_tournament([spec, "random"], 2, 2, seed=11, progress=False, return_records=True)
        for _ in range(2)
    ]
    games = [[(g.totals, g.decisions, g.winners) for g in r["records"]] for r in runs]
    assert games[0] == games[1]  # the tournament checks every action's legality itself
    assert runs[0]["agents"][spec]["games"] == 2


class Traced:
    """A determinised state that remembers the actions applied to it (for the fake network)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.trace: list[int] = []

    def apply_action(self, action: int) -> None:
        self.trace.append(action)
        self.state.apply_action(action)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


def _search(
    model: Path, prior_on: int, good: int | None, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, list[int]]:
    """Search the first decision of a game with a fake network: 95% of the prior on
    ``prior_on``; the root seat's value 1 after root action ``good`` and 0 after any other
    (``None``: every value 0.5)."""
    state = FortGame(2).new_initial_state(4)
    legal = state.legal_actions()
    seat = state.current_player()
    agent = PUCTAgent(model, sims=300, seed=0, engine="python")

    def fake_evaluate(s: Traced) -> tuple[np.ndarray, np.ndarray]:
        prior = np.zeros(s.game.num_distinct_actions)
        here = s.legal_actions()
        prior[here] = 0.05 / len(here)
        if prior_on in here:
            prior[prior_on] += 0.95
        values = np.full(2, 0.5)
        if good is not None:
            values[seat] = 1.0 if s.trace and s.trace[0] == good else 0.0
        return prior / prior.sum(), values

    monkeypatch.setattr(agent, "evaluate", fake_evaluate)
    return agent.search(lambda rng: Traced(state.clone()), legal), legal


def test_values_outweigh_a_wrong_prior(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legal = FortGame(2).new_initial_state(4).legal_actions()
    assert len(legal) >= 3
    chosen, _ = _search(model, prior_on=legal[0], good=legal[-1], monkeypatch=monkeypatch)
    assert chosen == legal[-1]


def test_the_prior_decides_when_values_do_not(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legal = FortGame(2).new_initial_state(4).legal_actions()
    chosen, _ = _search(model, prior_on=legal[1], good=None, monkeypatch=monkeypatch)
    assert chosen == legal[1]


def test_the_network_sees_every_seat(model: Path) -> None:
    state = FortGame(2).new_initial_state(9)
    prior, values = PUCTAgent(model, sims=1).evaluate(state)
    mask = state.legal_actions_mask().astype(bool)
    assert prior.shape == mask.shape and np.isclose(prior.sum(), 1) and not prior[~mask].any()
    assert values.shape == (2,) and ((values >= 0) & (values <= 1)).all()


def test_bad_settings_and_inputs(
    model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for bad in (
        "ms=-1",
        "ms=0",
        "ms=inf",
        "sims=0",
        "c=-0.5",
        "engine=gpu",
        "batch=0",
        "batch=257",
        "threads=0",
        "noise=1",
        "alpha=0",
    ):
        with pytest.raises(ValueError, match=bad.split("=")[0]):
            agents.make(f"puct:model={model}:{bad}")
    with pytest.raises(ModelFileError, match="no trained model there"):  # not a regular file
        agents.make(f"puct:model={tmp_path}")
    monkeypatch.chdir(tmp_path)  # none of the default model paths exists here
    import agents.learned.zoo as zoo

    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "empty-zoo")  # as if nothing shipped
    with pytest.raises(ModelFileError, match="no shipped model for 2 players"):
        agents.make("puct:players=2")
    assert agents.make("puct").model is None  # bare: the shipped model, at its first decision
    # the quick start's model named before it is trained: one line saying how to get it
    with pytest.raises(ModelFileError, match=r"train one with `fort-env train --preset quick`$"):
        agents.make("ppo:runs/quick/latest/model.safetensors")
    with pytest.raises(ModelFileError, match=r"NAME\.json\)$"):  # not a preset's path: no hint
        agents.make("ppo:elsewhere/model.safetensors")
    agent = PUCTAgent(model, sims=2)
    state = FortGame(2).new_initial_state(1)
    obs = {"observation": state.observation_tensor(0), "action_mask": state.legal_actions_mask()}
    with pytest.raises(MissingInfoError, match="determinize"):
        agent.act(obs, {"legal_actions": state.legal_actions(), "seat": 0})
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.evaluate(FortGame(3).new_initial_state(1))
    three = FortGame(3).new_initial_state(1)
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.search_core(lambda r: three.clone(), three.current_player(), three.legal_actions())


def test_games_run_torch_on_one_thread(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tournaments evaluate on one torch thread and give the caller its count back
    (with another process busy on the cores, two threads made iterations ~4x slower)."""
    import torch

    seen: list[int] = []
    evaluate = PUCTAgent.evaluate

    def spy(self: PUCTAgent, state: Any) -> Any:
        seen.append(torch.get_num_threads())
        return evaluate(self, state)

    monkeypatch.setattr(PUCTAgent, "evaluate", spy)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        spec = _spec(model, sims=3, engine="python")
        run_tournament([spec, "random"], 2, 1, seed=1, progress=False)
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
