"""Coverage-guided fuzzing of the inputs fort_env reads from others: card data and saved states
(issue 26; docs/reliability.md). Pure Python: no special build.

    python scripts/fuzz_inputs.py [--runs N | --seconds S] [--seed 1] [--corpus DIR]
    python scripts/fuzz_inputs.py --replay FILE [FILE ...]

Each input is one of:

- **card data**: one of the four files of the shipped card set (``cards.toml``, ``fort.toml``,
  ``rules.toml``, ``perks.toml``) replaced by the input's bytes or spliced with them, written
  into a temporary card directory, loaded with ``fort_env.game.cards.load_card_set`` and, if
  it loads, ``FortGame(2, cards=dir)`` dealt and played a few decisions on both backends (the
  C++ one when the compiled core is usable), which must agree;
- **a saved state**: a real mid-game ``FortState.to_dict()`` as JSON, spliced with the input's
  bytes (text mutation) or with one value replaced by a value the input describes (a huge or
  negative int, a bool, a float, a string, a nested list or dict: structural mutation), loaded
  with ``FortState.from_dict`` on both backends and, if it loads, played a few decisions.

A **finding** is an exception other than the documented ones (``CardDataError`` from the
loader, ``StateError`` from ``from_dict`` or from a legality search past its budget,
``IllegalActionError`` from an action chosen by the input), or the two backends disagreeing;
``one_input`` raises :class:`Finding` and atheris stops and saves the input (``crash-*`` in
the working directory). Exit status 1 on a finding, 2 without atheris (``pip install -c
constraints.txt "atheris>=2.3"``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CARD_FILES = ("cards.toml", "fort.toml", "rules.toml", "perks.toml")
MAX_LEN = 4096  # bytes of an input
PLAY_STEPS = 12  # decisions played on a loaded card set or state


# What the inputs did: "cards refused", "cards played", "state refused", "state played",
# "state not JSON" (read by tests/test_fuzz_inputs.py).
STATS: Counter[str] = Counter()


class Finding(Exception):
    """A contract breach: an undocumented exception or a divergence between the backends."""


def _imports() -> Any:
    import fort_env  # noqa: F401 - registers the C++ state class
    from fort_env.core import FortGame, FortState
    from fort_env.game import cards
    from fort_env.game.errors import CardDataError, IllegalActionError, StateError
    from fort_env.native import backend

    return FortGame, FortState, cards, CardDataError, IllegalActionError, StateError, backend


@lru_cache(maxsize=1)
def _env() -> dict[str, Any]:
    FortGame, FortState, cards, CardDataError, IllegalActionError, StateError, backend = _imports()
    backends = ["python", *(["cpp"] if backend.available() else [])]
    games = {b: FortGame(2, backend=b) for b in backends}
    bases = []
    for seed, steps in ((3, 30), (5, 80), (8, 4)):
        state = games["python"].new_initial_state(seed)
        for i in range(steps):
            legal = state.legal_actions()
            state.apply_action(int(legal[(seed * 7 + i) % len(legal)]))
        bases.append(json.dumps(state.to_dict()))
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-inputs-"))
    return {
        "FortGame": FortGame,
        "FortState": FortState,
        "cards": cards,
        "CardDataError": CardDataError,
        "IllegalActionError": IllegalActionError,
        "StateError": StateError,
        "CppFortState": backend.CppFortState,
        "backends": backends,
        "games": games,
        "bases": bases,
        "shipped": {name: (cards.DATA_DIR / name).read_bytes() for name in CARD_FILES},
        "tmp": tmp,
    }


def _play(states: dict[str, Any], choices: bytes, env: dict[str, Any]) -> None:
    """Play up to PLAY_STEPS decisions chosen by ``choices`` on every backend's state alike."""
    illegal = env["IllegalActionError"]
    for i in range(PLAY_STEPS):
        try:
            views = {
                b: (s.is_terminal(), [int(a) for a in s.legal_actions()]) for b, s in states.items()
            }
        except env["StateError"] as exc:  # a card set whose actions branch past the budget
            if "legality search" not in str(exc):  # (search.SEARCH_NODE_BUDGET, issue 42)
                raise
            STATS["search budget"] += 1
            return
        if len(set(map(repr, views.values()))) > 1:
            raise Finding(f"backends disagree on the legal actions at step {i}: {views}")
        over, legal = next(iter(views.values()))
        if over or not legal:
            return
        c = choices[i] if i < len(choices) else i
        action = legal[c % len(legal)] if c % 8 else c * 31  # now and then an illegal one
        outcomes = {}
        for b, s in states.items():
            try:
                s.apply_action(action)
                outcomes[b] = "ok"
            except illegal:
                outcomes[b] = "illegal"
        if len(set(outcomes.values())) > 1:
            raise Finding(f"backends disagree on action {action}: {outcomes}")
    dicts = {b: s.to_dict() for b, s in states.items()}
    if len({json.dumps(d, sort_keys=True) for d in dicts.values()}) > 1:
        raise Finding("backends reached different states")


def _card_input(data: bytes, env: dict[str, Any]) -> None:
    name = CARD_FILES[data[1] % 4] if len(data) > 1 else CARD_FILES[0]
    shipped: bytes = env["shipped"][name]
    payload = data[6:]
    if len(data) > 2 and data[2] % 4 == 0:
        text = payload  # the whole file
    else:
        at = int.from_bytes(data[3:5] or b"\0", "little") % (len(shipped) + 1)
        cut = data[5] if len(data) > 5 else 0
        text = shipped[:at] + payload + shipped[at + cut :]
    root: Path = env["tmp"] / "cards"
    root.mkdir(exist_ok=True)
    for other in CARD_FILES:
        (root / other).write_bytes(text if other == name else env["shipped"][other])
    cards = env["cards"]
    cards.load_card_set.cache_clear()  # one directory, new contents each time
    try:
        cards.load_card_set(str(root))
    except env["CardDataError"] as exc:
        if len(str(exc)) > 20_000:
            raise Finding(f"a CardDataError of {len(str(exc))} characters") from exc
        STATS["cards refused"] += 1
        return
    STATS["cards played"] += 1
    games = {b: env["FortGame"](2, cards=str(root), backend=b) for b in env["backends"]}
    seed = (data[0] >> 1) if data else 0
    states = {b: g.new_initial_state(seed) for b, g in games.items()}
    _play(states, payload[-PLAY_STEPS:], env)
    for b, s in states.items():
        if s.is_terminal():
            rows = s.score_breakdown()
            if max(r["total"] for r in rows) > 32767:
                raise Finding(f"{b}: a total past int16: {rows}")
    results = {b: (s.score_breakdown(), s.winners()) for b, s in states.items() if s.is_terminal()}
    if len({repr(r) for r in results.values()}) > 1:
        raise Finding(f"backends disagree on the result: {results}")


def _value(data: bytes) -> Any:
    """A JSON-like value described by ``data`` (the first byte picks the kind)."""
    kind = data[0] % 12 if data else 0
    rest = data[1:]
    n = int.from_bytes(rest[:8] or b"\0", "little", signed=True)
    if kind == 0:
        return n
    if kind == 1:
        return 10 ** (4000 + (rest[0] if rest else 0) * 8) * (-1 if n < 0 else 1)
    if kind == 2:
        return bool(n & 1)
    if kind == 3:
        return n / 7.0
    if kind == 4:
        return rest.decode("utf-8", "replace")
    if kind == 5:
        return None
    if kind == 6:
        nested: Any = []
        for _ in range(abs(n) % 5000):
            nested = [nested]
        return nested
    if kind == 7:
        nested = {}
        for _ in range(abs(n) % 5000):
            nested = {"x": nested}
        return nested
    if kind == 8:
        return [n] * (abs(n) % 200)
    if kind == 9:
        return {"zone": rest.decode("utf-8", "replace")}
    if kind == 10:
        return float("nan") if n & 1 else float("inf")
    return n % 200 - 100  # a small int, often near a range's edge


def _set_somewhere(d: Any, data: bytes, value: Any) -> None:
    """Replace one value of ``d`` chosen by ``data`` with ``value``."""
    node = d
    for i, b in enumerate(data):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = keys[b % len(keys)]
        child = node[key]
        if not isinstance(child, (dict, list)) or not child or (i + 1 < len(data) and b & 0x80):
            node[key] = value
            return
        node = child
    if isinstance(node, dict) and node:
        node[next(iter(node))] = value


def _state_input(data: bytes, env: dict[str, Any]) -> None:
    bases: list[str] = env["bases"]
    base = bases[data[1] % len(bases)] if len(data) > 1 else bases[0]
    if len(data) > 2 and data[2] & 1:  # text splice
        at = int.from_bytes(data[3:5] or b"\0", "little") % (len(base) + 1)
        cut = data[5] if len(data) > 5 else 0
        text = base[:at] + data[6:].decode("utf-8", "replace") + base[at + cut :]
        try:
            d = json.loads(text)
        except (ValueError, RecursionError):  # not JSON (json's errors, not fort_env's)
            STATS["state not JSON"] += 1
            return
    else:  # structural: a path of 6 bytes, then the value
        d = json.loads(base)
        _set_somewhere(d, data[3:9], _value(data[9:]))
    states = {}
    for b in env["backends"]:
        cls = env["CppFortState"] if b == "cpp" else env["FortState"]
        try:
            states[b] = cls.from_dict(env["games"][b], d)
        except env["StateError"] as exc:
            if len(str(exc)) > 20_000:
                raise Finding(f"a StateError of {len(str(exc))} characters") from exc
            states[b] = None
    if len({s is None for s in states.values()}) > 1:
        raise Finding(f"one backend loads the state, the other refuses it: {states}")
    if all(s is not None for s in states.values()):
        STATS["state played"] += 1
        _play(states, data[-PLAY_STEPS:], env)
    else:
        STATS["state refused"] += 1


def one_input(data: bytes) -> None:
    """The fuzz target: one input, card data or a saved state (the first byte's low bit).

    Raises:
        Finding: an exception other than the documented ones, or the backends disagreeing.
    """
    env = _env()
    try:
        if not data or data[0] & 1 == 0:
            _card_input(data, env)
        else:
            _state_input(data, env)
    except Finding:
        raise
    except Exception as exc:
        raise Finding(f"undocumented {type(exc).__name__}: {str(exc)[:500]}") from exc


def seed_corpus() -> list[bytes]:
    """Inputs that reach each part of the target: every shipped card file whole and spliced,
    each base state spliced and with a value replaced by each kind."""
    env = _env()
    out = []
    for i, name in enumerate(CARD_FILES):
        out.append(bytes([0, i, 0, 0, 0, 0]) + env["shipped"][name][: MAX_LEN - 6])
        out.append(bytes([2, i, 1, 40, 0, 3]) + b"99999")
        out.append(bytes([4, i, 2, 7, 0, 0]) + b"((((")
    for i in range(len(env["bases"])):
        out.append(bytes([1, i, 1, 0, 0, 0]))  # the base state itself: it loads and plays
        out.append(bytes([1, i, 1, 9, 0, 1]) + b"7")
        for kind in range(12):
            out.append(bytes([3, i, 0, 1, 2, 3, 0x80, 5, 6, kind, 40, 0, 0, 0]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="executions (default: 100000)")
    parser.add_argument("--seconds", type=int, default=None, help="time limit instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", type=Path, default=ROOT / "build" / "fuzz-inputs-corpus")
    parser.add_argument("--replay", type=Path, nargs="+", help="run saved inputs once")
    args = parser.parse_args(argv)
    if args.replay:
        for path in args.replay:
            one_input(path.read_bytes())
            print(f"{path}: no finding")
        return 0
    try:
        import atheris
    except ImportError:
        print('atheris is missing: pip install -c constraints.txt "atheris>=2.3"', file=sys.stderr)
        return 2
    _imports()
    # the venv's editable install loads fort_env through a custom loader, which
    # instrument_imports does not instrument reliably: instrument the loaded functions instead
    atheris.instrument_all()
    args.corpus.mkdir(parents=True, exist_ok=True)
    if not any(args.corpus.iterdir()):
        for i, item in enumerate(seed_corpus()):
            (args.corpus / f"seed-{i:03d}").write_bytes(item)
    limits = [f"-runs={args.runs}"] if args.seconds is None else []
    if args.seconds is not None:
        limits.append(f"-max_total_time={args.seconds}")
    elif args.runs is None:
        limits = ["-runs=100000"]
    fuzz_args = [sys.argv[0], *limits, f"-seed={args.seed}", f"-max_len={MAX_LEN}", "-timeout=60"]
    fuzz_args += ["-print_final_stats=1", str(args.corpus)]
    start = time.monotonic()

    def target(data: bytes) -> None:
        one_input(data)

    atheris.Setup(fuzz_args, target)
    try:
        atheris.Fuzz()
    finally:
        print(f"fuzz_inputs: {time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
