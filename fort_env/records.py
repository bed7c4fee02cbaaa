"""Game records: a game saved as its configuration, seed and actions, and replayed exactly.

A record is a JSON object:

```
{
  "format": "fort-env-record",
  "version": 1,
  "config": {"num_players": 4, "setup": "basic", "cards": null},
  "seed": 7,
  "actions": [12, 147, 219, ...],
  "result": {"scores": [31, 24, 27, 19], "winners": [0]}
}
```

- ``config``: the :class:`~fort_env.core.FortGame` arguments; ``cards`` is ``null`` for the
  shipped card set, else the card data directory as it was given (a record of a custom card
  set replays only where that directory is).
- ``seed``: the game's seed (``FortGame.new_initial_state(seed)``, ``env.reset(seed=seed)``).
- ``first_player`` (optional): the seat that started, when it was fixed rather than drawn from
  the seed (``FortGame.new_initial_state(seed, first_player=k)``, as the tournament runner
  rotates it); absent, the first player is drawn from the seed as in any dealt game.
- ``actions``: every decision's action, in order, whoever took it.
- ``result`` (finished games only): each seat's total score and the winning seats, checked on
  replay so that a record made with other rules fails loudly instead of replaying another game.
- ``agents`` (optional): who sat at each seat, as ``fort-env play`` (``"you"``) and ``fort-env
  tournament`` (the agents' names) write it; shown by ``fort-env replay``, not needed to replay.
  A name holds no control character (``fort_env.game.inputs.CONTROL_CHARACTERS``: ESC, BEL,
  NUL, newlines...): a record that has one is refused (``RecordError`` naming ``agents[k]``).
- ``seed_chosen_by_client`` (optional, a bool): ``fort-env serve`` writes it; true when the
  person's client chose the seed (and so could know every hidden card from the start), false
  when the server drew it from the operating system's entropy. Absent in other records (and in
  records made before it existed): nothing is said about who chose the seed.

Since randomness lives in the state and is seeded, the seed and the actions determine the game.
Records come from ``env.unwrapped.to_record()`` (or :func:`make_record`), and from
``fort-env play --save GAME.json`` and ``fort-env tournament --save DIR``; ``fort-env replay
FILE`` prints one turn by turn.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fort_env.core import FortGame, FortState
from fort_env.game.errors import FortError, IllegalActionError, InputFileError, describe
from fort_env.game.files import write_text
from fort_env.game.inputs import SEED_RANGE, control_characters, is_seed, read_text_file

RECORD_FORMAT = "fort-env-record"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 16 * 2**20  # the size limit of a record file (read_text_file)


class RecordError(FortError, ValueError):
    """A record is malformed or does not replay (names the field or the action)."""


def make_record(
    config: dict[str, Any],
    seed: int,
    actions: Sequence[int],
    state: FortState | None = None,
    first_player: int | None = None,
) -> dict[str, Any]:
    """A record of the game dealt from ``seed`` with ``config`` and played with ``actions``.

    Args:
        config: ``{"num_players", "setup", "cards"}`` as given to ``FortGame``.
        seed: the game's seed.
        actions: the actions taken, in order.
        state: the position after ``actions``; when it is terminal its result is recorded.
        first_player: the starting seat given to ``new_initial_state``, if one was (``None``:
            drawn from the seed, and the record has no ``first_player``).
    """
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "config": {
            "num_players": int(config["num_players"]),
            "setup": str(config["setup"]),
            "cards": None if config.get("cards") is None else str(config["cards"]),
        },
        "seed": int(seed),
    }
    if first_player is not None:
        record["first_player"] = int(first_player)
    record["actions"] = [int(a) for a in actions]
    if state is not None and state.is_terminal():
        record["result"] = _result(state)
    return record


def _result(state: FortState) -> dict[str, list[int]]:
    return {
        "scores": [row["total"] for row in state.score_breakdown()],
        "winners": [int(p) for p in state.winners()],
    }


def validate_record(record: Any) -> dict[str, Any]:
    """Check the shape of a record (not that it replays) and return it.

    Raises:
        RecordError: a missing or malformed field, named.
    """
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if record.get("format") != RECORD_FORMAT:
        raise _bad("format", repr(RECORD_FORMAT), record.get("format"))
    if record.get("version") != RECORD_VERSION:
        raise _bad("version", str(RECORD_VERSION), record.get("version"))
    config = record.get("config")
    if not isinstance(config, dict):
        raise _bad("config", "an object", config)
    if not _is_int(config.get("num_players")):
        raise _bad("config.num_players", "an int", config.get("num_players"))
    if not isinstance(config.get("setup"), str):
        raise _bad("config.setup", "a string", config.get("setup"))
    if config.get("cards") is not None and not isinstance(config["cards"], str):
        raise _bad("config.cards", "null or a path", config["cards"])
    seed = record.get("seed")
    if not isinstance(seed, int) or not is_seed(seed):  # JSON: a Python int
        raise _bad("seed", SEED_RANGE, seed)
    first = record.get("first_player")
    if first is not None and not (_is_int(first) and 0 <= first < config["num_players"]):
        raise _bad("first_player", f"null or a seat in [0, {config['num_players']})", first)
    actions = record.get("actions")
    if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
        raise _bad("actions", "a list of ints", actions)
    agents = record.get("agents")
    if agents is not None and not (
        isinstance(agents, list)
        and len(agents) == config["num_players"]
        and all(isinstance(a, str) for a in agents)
    ):
        raise _bad("agents", "null or one name (a string) per seat", agents)
    for seat, name in enumerate(agents or ()):
        found = control_characters(name)
        if found:  # fort-env replay prints the names: a terminal would act on these
            raise RecordError(
                f"field 'agents[{seat}]': a name without control characters, got "
                f"{describe(name)} (it holds {found})"
            )
    chosen = record.get("seed_chosen_by_client")
    if chosen is not None and not isinstance(chosen, bool):
        raise _bad("seed_chosen_by_client", "null or a bool", chosen)
    result = record.get("result")
    if result is not None and (
        not isinstance(result, dict)
        or not isinstance(result.get("scores"), list)
        or not isinstance(result.get("winners"), list)
    ):
        raise _bad("result", "{'scores': [...], 'winners': [...]}", result)
    return record


def _bad(field: str, expected: str, got: Any) -> RecordError:
    return RecordError(f"field {field!r}: expected {expected}, got {describe(got)}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def replay(
    record: dict[str, Any] | str | os.PathLike[str],
    on_decision: Callable[[FortState, int], None] | None = None,
) -> FortState:
    """Replay a record and return the position after its last action.

    Args:
        record: a record (see the module docstring), e.g. from :func:`load_record`, or the
            path of a record file (``str`` or ``os.PathLike``), read with :func:`load_record`.
        on_decision: called as ``on_decision(state, action)`` before each action is applied
            (``state`` is the live position: read it, do not change it).

    Raises:
        RecordError: the record (or its file: :func:`load_record`) is malformed, an action is
            illegal where it is taken, or the final scores or winners differ from the record's
            ``result``.
        ConfigError: the configuration is not a valid game.
    """
    if isinstance(record, (str, os.PathLike)):
        record = load_record(record)
    validate_record(record)
    cfg = record["config"]
    game = FortGame(cfg["num_players"], cfg["setup"], cfg["cards"])
    state = game.new_initial_state(seed=record["seed"], first_player=record.get("first_player"))
    for i, action in enumerate(record["actions"]):
        if on_decision is not None:
            on_decision(state, action)
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise RecordError(f"actions[{i}] = {describe(action)} does not replay: {e}") from e
    result = record.get("result")
    if result is not None:
        if not state.is_terminal():
            raise RecordError("the record has a result but its actions do not finish the game")
        replayed = _result(state)
        if replayed != {"scores": result["scores"], "winners": result["winners"]}:
            raise RecordError(
                f"replayed result {replayed} differs from the record's {describe(result)}"
            )
    return state


def dumps_record(record: dict[str, Any]) -> str:
    """JSON text of a record, one top-level field a line (valid JSON, diff-friendly)."""
    fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in record.items()]
    return "{\n" + ",\n".join(fields) + "\n}\n"


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a record as JSON (:func:`dumps_record`) to ``path``."""
    write_text(path, dumps_record(validate_record(record)))


def load_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a record saved by :func:`save_record`.

    Raises:
        RecordError: the file is missing, not a regular file (a directory, a FIFO: never read,
            so never blocks), unreadable, over ``MAX_RECORD_BYTES`` (16 MiB), not UTF-8, not
            JSON or not a record.
    """
    try:
        text = read_text_file(path, "record", MAX_RECORD_BYTES)
    except InputFileError as e:
        raise RecordError(str(e)) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not JSON: {e}") from e
    except ValueError as e:  # an integer past Python's 4,300-digit limit
        raise RecordError(f"{path}: not a record: {e}") from e
    except RecursionError as e:  # json's decoder recurses once per nesting level
        raise RecordError(f"{path}: JSON nested too deeply to be a record") from e
    return validate_record(record)
