"""The C++ backend plays exactly as the Python engine (docs/cpp.md): random games in lockstep
(fort_env/testing/differential.py), and the Python side of the backend switch
(``FortGame(..., backend="cpp")``, ``CppFortState``). Skipped when the extension is not built.

Every rule and view of ``CppFortState`` is the C++ one (only ``never_strands`` runs the Python
engine, on a Python twin of the position), so these tests prove the ported rules and the
plumbing (views, copies, pickling, the switch).
"""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import fort_env
from fort_env import FortGame, FortState
from fort_env.game.errors import ConfigError, IllegalActionError, StateError
from fort_env.game.state_arrays import ARRAYS, CTX_FIELDS, StateArrays
from fort_env.native import backend as cpp_backend
from fort_env.native.backend import CppFortState
from fort_env.testing.differential import (
    CONFIGS,
    Checks,
    Divergence,
    game,
    lockstep,
    replay,
    schedule,
)

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)


# --------------------------------------------------------------------------- lockstep games
@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_one_full_game_per_configuration_matches(n: int, setup: str) -> None:
    res = lockstep(n, setup, seed=1000 + n)
    assert res.terminal and res.decisions > 50


@pytest.mark.slow
def test_sixty_games_match() -> None:
    """Ten seeds per configuration, the schedule scripts/differential.py runs."""
    for n, setup, seed in schedule(60):
        assert lockstep(n, setup, seed, checks=Checks(clone_every=25)).terminal


def test_harness_reports_a_wrong_legal_list(monkeypatch: pytest.MonkeyPatch) -> None:
    real = CppFortState.legal_actions
    monkeypatch.setattr(CppFortState, "legal_actions", lambda self: real(self)[:-1])
    with pytest.raises(Divergence, match=r"legal_actions differs: 2 players, 'basic', seed 3"):
        lockstep(2, "basic", 3, max_decisions=5)


def test_harness_reports_a_wrong_array_with_the_actions_to_replay_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = CppFortState.apply_action
    calls = []

    def corrupting(self: CppFortState, action: int) -> None:
        real(self, action)
        calls.append(action)
        if len(calls) == 7:
            self.core_state.array("pos")[0] += 1  # a bug in C++ that only the arrays show

    monkeypatch.setattr(CppFortState, "apply_action", corrupting)
    with pytest.raises(Divergence, match="array pos differs") as err:
        lockstep(3, "advanced", 8, max_decisions=20, checks=Checks(to_dict=False))
    assert "decision 7" in str(err.value)
    monkeypatch.setattr(CppFortState, "apply_action", real)
    actions = json.loads(str(err.value).split("actions so far: ")[1])
    py, cpp = replay(3, "advanced", 8, actions)
    assert py.to_dict() == cpp.to_dict()  # replayed without the bug: equal


def test_harness_reports_a_wrong_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    real = CppFortState.observation_tensor

    def off(self: CppFortState, player: int) -> np.ndarray:
        out = real(self, player)
        out[-1] += 1.0
        return out

    monkeypatch.setattr(CppFortState, "observation_tensor", off)
    with pytest.raises(Divergence, match=r"observation_tensor\(0\) differs"):
        lockstep(4, "basic", 2, max_decisions=2)


def test_harness_reports_a_wrong_resample_and_raw_list(monkeypatch: pytest.MonkeyPatch) -> None:
    real = CppFortState.resample_hidden

    def shifted(self: CppFortState, observer: int, rng: np.random.Generator) -> FortState:
        out = real(self, observer, rng)
        out.ctx[CTX_FIELDS.index("seed")] += 1  # another future: a wrong re-deal
        return out

    monkeypatch.setattr(CppFortState, "resample_hidden", shifted)
    with pytest.raises(Divergence, match=r"resample_hidden\(0\) differs"):
        lockstep(2, "advanced", 5, max_decisions=3)
    monkeypatch.setattr(CppFortState, "resample_hidden", real)
    monkeypatch.setattr(CppFortState, "local_legal_actions", lambda self: [])
    with pytest.raises(Divergence, match="local_legal_actions differs"):
        lockstep(2, "advanced", 5, max_decisions=3)


# --------------------------------------------------------------------------- the switch
def test_backend_switch() -> None:
    py, cpp = FortGame(2), FortGame(2, backend="cpp")
    assert (py.backend, cpp.backend) == ("python", "cpp")
    assert type(py.new_initial_state(5)) is FortState
    s = cpp.new_initial_state(5)
    assert type(s) is CppFortState and isinstance(s, FortState)
    assert s.to_dict() == py.new_initial_state(5).to_dict()
    with pytest.raises(ConfigError, match="backend must be one of"):
        FortGame(2, backend="rust")
    with pytest.raises(ConfigError, match="seed must be an int"):
        cpp.new_initial_state(-1)


def test_backend_from_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORT_ENV_BACKEND", "cpp")
    assert FortGame(3).backend == "cpp"
    assert FortGame(3, backend="python").backend == "python"  # an explicit choice wins
    monkeypatch.setenv("FORT_ENV_BACKEND", "fortran")
    with pytest.raises(ConfigError, match=r"got 'fortran' \(from \$FORT_ENV_BACKEND\)"):
        FortGame(3)


def test_env_runs_on_the_cpp_backend_without_knowing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import fort_env

    monkeypatch.setenv("FORT_ENV_BACKEND", "cpp")
    env = fort_env.env(num_players=2)
    env.reset(seed=4)
    assert type(env.unwrapped._state) is CppFortState
    steps = 0
    for _agent in env.agent_iter(max_iter=60):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0])
        env.step(action)
        steps += 1
    assert steps == 60


# --------------------------------------------------------------------------- the state
def _played(n: int = 3, setup: str = "advanced", seed: int = 6, k: int = 40) -> CppFortState:
    s = game(n, setup, "cpp").new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(k):
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert isinstance(s, CppFortState)
    return s


def test_arrays_and_ctx_are_views_of_the_cpp_state() -> None:
    s = _played()
    for name in ARRAYS:
        view = getattr(s, name)
        assert view.base is s.core_state, name
    assert not s.prog.flags.writeable  # as the Python engine's shared programs
    ctx = s.core_state.ctx_view()
    assert len(s.ctx) == len(CTX_FIELDS) and list(s.ctx) == ctx.tolist()
    assert all(type(v) is int for v in s.ctx)  # Python ints, as array("q") gives
    i = CTX_FIELDS.index("plays")
    s.ctx[i] = 7  # the Python engine's way of writing a field reaches C++
    assert ctx[i] == 7 and s.to_dict()["ctx"]["plays"] == 7
    s.zone[0] = s.zone[0]  # writable views
    with pytest.raises(AttributeError, match=r"write into it \(state.zone\[...\] = ...\)"):
        s.zone = s.zone.copy()  # a new object would be invisible to C++: refused
    with pytest.raises(AttributeError, match="ctx of a CppFortState is a view"):
        s.ctx = s.ctx[:]
    s.ctx[i] = np.int64(3)  # numpy ints too
    assert s.ctx[i] == 3


def test_clone_copy_deepcopy_are_independent() -> None:
    s = _played()
    lazy = s.clone()
    with pytest.raises(AttributeError):
        StateArrays.__dict__["zone"].__get__(lazy)  # its slot: no view made until used
    assert lazy.zone.base is lazy.core_state and not lazy.prog.flags.writeable
    assert np.array_equal(lazy.zone, s.zone) and lazy.ctx == s.ctx
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        lazy.bogus  # noqa: B018
    for c in (s.clone(), copy.copy(s), copy.deepcopy(s)):
        assert type(c) is CppFortState and c.to_dict() == s.to_dict()
        assert c.core_state is not s.core_state
        c.apply_action(c.legal_actions()[0])
        assert c.to_dict() != s.to_dict()


def test_pickle_round_trip_keeps_the_backend() -> None:
    s = _played()
    t = pickle.loads(pickle.dumps(s))
    assert type(t) is CppFortState and t.game.backend == "cpp"
    assert t.to_dict() == s.to_dict()
    assert t.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("default", ["python", "cpp"])
def test_pickles_restore_on_the_backend_they_were_made_on(
    default: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python-engine state, and an env on either backend, come back on the same backend
    whatever ``$FORT_ENV_BACKEND`` says in the process that loads them."""
    py_state = game(2, "basic", "python").new_initial_state(3)
    envs = {}
    for backend in ("python", "cpp"):
        monkeypatch.setenv("FORT_ENV_BACKEND", backend)
        e = fort_env.env()
        e.reset(seed=3)
        envs[backend] = pickle.dumps(e)
    blob = pickle.dumps(py_state)
    monkeypatch.setenv("FORT_ENV_BACKEND", default)
    t = pickle.loads(blob)
    assert type(t) is FortState and t.game.backend == "python"
    assert t.to_dict() == py_state.to_dict()
    for backend, pickled in envs.items():
        restored = pickle.loads(pickled)
        assert restored.game.backend == backend
        assert restored.unwrapped.fort_state().game.backend == backend


def test_from_dict_is_checked_by_python_then_copied_into_cpp() -> None:
    s = _played()
    d = s.to_dict()
    for loaded in (FortState.from_dict(s.game, d), CppFortState.from_dict(s.game, d)):
        assert type(loaded) is CppFortState and loaded.to_dict() == d
    bad = copy.deepcopy(d)
    bad["cards"][0]["zone"] = "nowhere"
    with pytest.raises(StateError, match=r"cards\[0\]"):
        FortState.from_dict(s.game, bad)
    py_game = game(3, "advanced", "python")
    assert type(FortState.from_dict(py_game, d)) is FortState


def test_illegal_action_raises_the_python_error_and_changes_nothing() -> None:
    s = _played()
    before = s.to_dict()
    illegal = next(a for a in range(s.game.num_distinct_actions) if a not in s.legal_actions())
    with pytest.raises(IllegalActionError):
        s.apply_action(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply_action(s.game.num_distinct_actions)
    with pytest.raises(TypeError):
        s.apply_action("3")  # type: ignore[arg-type]
    assert s.to_dict() == before


def test_direct_writes_to_the_views_reach_the_rules() -> None:
    """A position built by writing arrays (as tests do) is what the rules then see: the
    Python twin used by fallbacks is rebuilt when the arrays change."""
    s = _played(2, "basic", 3, 10)
    py = FortState.from_dict(game(2, "basic", "python"), s.to_dict())
    assert s.legal_actions() == py.legal_actions()
    seat = s.current_player()
    for st in (s, py):
        st.players[seat, 0] += 5  # more pizza stuff: possibly other legal actions
        st.legal_cache = None
    assert s.legal_actions() == py.legal_actions()
    assert json.dumps(s.to_dict()) == json.dumps(py.to_dict())


def test_resample_hidden_gives_a_cpp_state() -> None:
    s = _played()
    py = FortState.from_dict(game(3, "advanced", "python"), s.to_dict())
    a = s.resample_hidden(1, np.random.default_rng(5))
    b = py.resample_hidden(1, np.random.default_rng(5))
    assert type(a) is CppFortState and a.to_dict() == b.to_dict()


# --------------------------------------------------------------------------- the script
def _script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "differential.py"
    spec = importlib.util.spec_from_file_location("differential_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_counts_games_and_fails_on_a_divergence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    assert script.main(["--games", "2", "--fast", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 2 and out["divergences"] == 0 and out["decisions"] > 100
    assert set(out["per_config"]) == {"2p basic", "2p advanced"}
    real = CppFortState.legal_actions
    monkeypatch.setattr(CppFortState, "legal_actions", lambda self: real(self)[1:])
    assert script.main(["--games", "1", "--fast"]) == 1
    text = capsys.readouterr().out
    assert "1 divergences" in text and "legal_actions differs" in text


def test_script_records_chunks_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out: each finished chunk is recorded; the same command again plays nothing more and
    reports the recorded counts; a longer run plays only the new chunk."""
    script = _script()
    args = ["--games", "2", "--every", "7", "--chunk", "1", "--out", str(tmp_path), "--json"]
    assert script.main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["games"] == 2 and first["games_played_now"] == 2 and first["every"] == 7
    assert len((tmp_path / "chunks.jsonl").read_text().splitlines()) == 2
    assert script.main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["games_played_now"] == 0
    assert again["decisions"] == first["decisions"] and again["per_config"] == first["per_config"]
    assert script.main([*args[:1], "3", *args[2:]]) == 0
    more = json.loads(capsys.readouterr().out)
    assert more["games"] == 3 and more["games_played_now"] == 1


def test_sparse_views_still_catch_a_wrong_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the costly views every k decisions, a wrong observation is still caught (at the
    next decision that is a multiple of k, or at the end)."""
    real = CppFortState.observation_tensor

    def wrong(self: CppFortState, player: int) -> np.ndarray:
        out = real(self, player)
        out[0] += 1.0
        return out

    monkeypatch.setattr(CppFortState, "observation_tensor", wrong)
    with pytest.raises(Divergence, match="observation_tensor"):
        lockstep(2, "basic", 1, checks=Checks(full_every=20))


def test_bench_runs_on_the_cpp_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from fort_env.tools.bench import format_bench, run_bench

    monkeypatch.delenv("FORT_ENV_BACKEND", raising=False)
    result = run_bench(seconds=0.05, rounds=1, num_players=2, backend="cpp")
    assert result["config"]["backend"] == "cpp"
    assert result["engine_decisions_per_s"] > 0 and result["aec_decisions_per_s"] > 0
    assert result["clone_us"] > 0 and result["mask_us"] > 0
    assert result["playout_decisions_per_s"] > 0
    assert "cpp backend" in format_bench(result) and "playouts inside C++" in format_bench(result)
    import os

    assert "FORT_ENV_BACKEND" not in os.environ  # the env's default was restored


def test_bound_functions_are_what_the_module_offers() -> None:
    core = cpp_backend.require()
    bound = cpp_backend.bound_functions()
    assert bound == [name for name in cpp_backend._OP_NAMES if hasattr(core, name)]
