"""The run folder's resumable state: ``checkpoints/`` (the learner and ``state.json``).

:func:`save_checkpoint` writes the learner's tensors and its optimizer
(``checkpoints/latest.*``, ``agents.learned.policy_file``: nothing pickled) and
:func:`save_state` the league, the history and the counters (``checkpoints/state.json``);
:func:`load_state` reads them back, every field checked, and refuses an agent spec in them that
asks for ``trusted=1`` (trust never comes from a file).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import agents
from agents.learned.policy_file import save_checkpoint_files
from fort_env.game.errors import ConfigError, describe
from fort_env.game.files import make_folders, write_text
from train.config import Config
from train.league import League
from train.run_files import MAX_LEAGUE_ENTRIES, RunFolderError, is_int, is_number, read_run_json

__all__ = ["EVAL_META_KEYS", "load_state", "save_checkpoint", "save_state"]

EVAL_META_KEYS = (
    "timesteps",
    "wall_seconds",
    "games",
    "ci95",
    "luck_corrected",
    "luck_corrected_ci95",
)
"""Keys of an entry of ``eval.json``'s ``evals`` that are not an opponent's win rate
(``luck_corrected``: opponent -> rate, ``luck_corrected_ci95``: opponent -> [lo, hi], present
where a table critic ships, ``train.evaluation``)."""


def save_state(out: Path, league: League, state: Mapping[str, Any]) -> None:
    """Write ``checkpoints/state.json``: the league, the history, the counters."""
    d = dict(state)
    d["league"] = {
        "bots": league.bots,
        "snapshots": [s.replace(str(out), "{out}", 1) for s in league.snapshots],
        "snapshot_weight": league.snapshot_weight,
    }
    path = make_folders(out, out / "checkpoints") / "state.json"
    write_text(path, json.dumps(d, indent=1))


def save_checkpoint(
    model: Any, out: Path, league: League, state: dict[str, Any], config: Config
) -> Path:
    """Save the learner to ``checkpoints/latest.safetensors`` (+ ``latest.json``, the
    optimizer's ``latest.optimizer.safetensors``) and the run state beside it; returns the
    ``.safetensors`` path."""
    path = save_checkpoint_files(
        model,
        make_folders(out, out / "checkpoints") / "latest",
        num_players=config.num_players,
        setup=config.setup,
        training=dataclasses.asdict(config),
    )
    state["timesteps"] = int(model.num_timesteps)
    save_state(out, league, state)
    return path


def load_state(out: Path) -> tuple[dict[str, Any], League]:
    """The run state and league written by :func:`save_state`, checked.

    The agent specs it names (the league's bots and snapshots) are refused if they ask for
    ``trusted=1`` (``agents.check_file_spec``: trust never comes from a file).

    Raises:
        FileNotFoundError: the directory has no checkpoint.
        RunFolderError: ``checkpoints/state.json`` is not JSON, a field is missing or of the
            wrong type, or a spec asks for trust (names the file and the field).
    """
    path = out / "checkpoints" / "state.json"
    if not path.is_file() or not (out / "checkpoints" / "latest.safetensors").is_file():
        raise FileNotFoundError(
            f"nothing to resume in {out}: no checkpoints/state.json and latest.safetensors "
            "there (a run saved before the safetensors format cannot be resumed)"
        )
    d = read_run_json(path)
    try:
        lg = _check_state(d)
        bots = lg["bots"].items()
        league = League(
            {agents.check_file_spec(k, "field 'league.bots'"): float(v) for k, v in bots},
            [
                agents.check_file_spec(s, "field 'league.snapshots'").replace("{out}", str(out), 1)
                for s in lg["snapshots"]
            ],
            float(lg["snapshot_weight"]),
        )
    except ConfigError as exc:
        raise RunFolderError(path, str(exc)) from None
    return d, league


def _check_state(d: Any) -> dict[str, Any]:
    """Pop and return ``d["league"]`` after checking every field of a state.json object
    (what :class:`train.maskable_ppo.SelfPlayCallback`, :func:`train.runner.run` and
    :func:`train.plots.plot_learning_curve` read); raises ``ConfigError`` naming the field."""

    def bad(field: str, problem: str) -> ConfigError:
        return ConfigError(f"field {field!r}: {problem}")

    if not isinstance(d, dict):
        raise ConfigError(f"must be a JSON object, got {describe(d)}")
    for key in ("league", "history", "evals", "best", "last_eval", "elapsed_before"):
        if key not in d:
            raise bad(key, "missing")
    for key in ("best", "elapsed_before"):
        if not is_number(d[key]) or d[key] < 0:
            raise bad(key, f"must be a number >= 0, got {describe(d[key])}")
    for key in ("last_eval", "timesteps"):
        if key in d and not (is_int(d[key]) and d[key] >= 0):
            raise bad(key, f"must be an int >= 0, got {describe(d[key])}")
    for key in ("eval_seed", "final_eval_seed"):  # absent in runs saved before them
        if key in d and not (is_int(d[key]) and 0 <= d[key] < 2**32):
            raise bad(key, f"must be an int in [0, 2**32), got {describe(d[key])}")
    if "stopped_by_budget" in d and not isinstance(d["stopped_by_budget"], bool):
        shown = describe(d["stopped_by_budget"])
        raise bad("stopped_by_budget", f"must be true or false, got {shown}")
    history, evals = d["history"], d["evals"]
    if not isinstance(history, list) or not all(
        isinstance(p, dict)
        and is_int(p.get("timesteps"))
        and isinstance(p.get("train_win_rate"), dict)
        and all(isinstance(k, str) and is_number(v) for k, v in p["train_win_rate"].items())
        for p in history
    ):
        raise bad("history", "must be a list of {timesteps: int, train_win_rate: {str: number}}")
    for i, e in enumerate(evals if isinstance(evals, list) else [None]):
        ok = isinstance(e, dict) and is_int(e.get("timesteps"))
        if ok:
            rates = {k: v for k, v in e.items() if k not in EVAL_META_KEYS}
            luck = e.get("luck_corrected", {})
            cis = [e.get("ci95", {}), e.get("luck_corrected_ci95", {})]
            ok = (
                all(is_number(v) for v in rates.values())
                and isinstance(luck, dict)
                and all(is_number(v) for v in luck.values())
                and all(isinstance(ci, dict) for ci in cis)
                and all(
                    isinstance(v, list) and len(v) == 2 and all(is_number(x) for x in v)
                    for ci in cis
                    for v in ci.values()
                )
                and all(is_number(e[k]) for k in ("games", "wall_seconds") if k in e)
            )
        if not ok:
            raise bad(
                f"evals[{i}]" if isinstance(evals, list) else "evals",
                "must be a list of {timesteps: int, OPPONENT: win rate, "
                "ci95: {OPPONENT: [lo, hi]}}",
            )
    lg = d.pop("league")
    if not isinstance(lg, dict):
        raise bad("league", f"must be an object, got {describe(lg)}")
    bots, snapshots = lg.get("bots"), lg.get("snapshots")
    weight: Any = lg.get("snapshot_weight")
    if (
        not isinstance(bots, dict)
        or len(bots) > MAX_LEAGUE_ENTRIES
        or not all(is_number(v) and v >= 0 for v in bots.values())
    ):
        raise bad("league.bots", "must be an object of agent spec -> weight >= 0")
    if (
        not isinstance(snapshots, list)
        or len(snapshots) > MAX_LEAGUE_ENTRIES
        or not all(isinstance(s, str) and s.startswith("ppo:") for s in snapshots)
    ):
        raise bad("league.snapshots", "must be a list of ppo:PATH specs")
    if not is_number(weight) or weight < 0:
        raise bad("league.snapshot_weight", f"must be a number >= 0, got {describe(weight)}")
    if not bots and not (snapshots and weight > 0):
        raise bad("league", "no opponent with a weight > 0")
    if sum(bots.values()) + (weight if snapshots else 0) <= 0:
        raise bad("league", "the weights sum to 0")
    return lg
