"""Fuzz saved-policy loading: mutated model descriptions and safetensors files (issue 26).

Each input mutates a valid saved policy (``NAME.json`` + ``NAME.safetensors``, a small network)
one way, chosen by its first bytes: a value of the description replaced (a field, the network's
``net_arch``: huge, deep, zero, negative, strings, NaN...), the safetensors header edited (a
tensor's shape, dtype or offsets; one added or dropped), tensor values overwritten (3e38, inf,
NaN, 1e6...), or raw bytes flipped, cut or appended in either file. The description's SHA-256 is
then made to match the tensor file (most inputs), so the checks past the hash are reached. The
target loads it (``agents.learned.policy_file.load_policy_file``) and, if it loads, plays one
decision with it (``PPOAgent.act``, which must return a legal action). ``ModelFileError`` is
the documented outcome of a bad file; anything else (another exception, an illegal action) is a
finding.

    python scripts/fuzz_models.py -runs=100000 [CORPUS_DIR]       # atheris (libFuzzer flags)
    python scripts/fuzz_models.py --seeded 2000 [--seed 0]         # no atheris: seeded bytes

atheris (``pip install -c constraints.txt "atheris>=2.3"``) guides the mutations by coverage of
the Python code (``agents.learned``, ``fort_env.game.inputs``); ``--seeded`` draws random inputs
from a seeded generator instead (``tests/test_fuzz_models.py`` runs it on a small corpus).
Pure Python: no compiled code is instrumented. Exit status 1 on a finding.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import random
import struct
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ALLOWED = ("ModelFileError",)  # the documented error of a bad model file


class Bytes:
    """Draws from the fuzzer's input (as atheris's FuzzedDataProvider, in pure Python, so that
    ``--seeded`` runs the same mutations without atheris)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.i = data, 0

    def byte(self) -> int:
        if self.i >= len(self.data):
            return 0
        self.i += 1
        return self.data[self.i - 1]

    def int(self, n: int) -> int:
        """An int in ``[0, n)``."""
        v = 0
        for _ in range(4):
            v = (v << 8) | self.byte()
        return v % n if n > 0 else 0

    def pick(self, items: list[Any]) -> Any:
        """One of ``items`` (a copy: a list picked twice must not end up inside itself)."""
        return copy.deepcopy(items[self.int(len(items))])

    def rest(self, limit: int = 64) -> bytes:
        out = self.data[self.i : self.i + limit]
        self.i += len(out)
        return out


# values a description field may be replaced with
VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2, 3, 5, 16, 675, 676, 677, 1481, 1482, 1483, 4096, 4097,
    65536, 2**31, 2**63, 2**64 + 1, 10**400, 0.5, 3e38, -3e38, 1e308, math.inf, -math.inf,
    math.nan, "", "x", "basic", "advanced", "Tanh", "ReLU", "system", "../../etc/passwd",
    "/dev/zero", "\u0000", "\udc80", [], [16], [0], [-1], [65536], [16] * 20_000, [4096] * 3,
    ["16"], [1.5], [True], {}, {"pi": [16]}, {"pi": [], "vf": []}, {"pi": [4096, 4096], "vf": [1]},
    [[[[[]]]]],
]  # fmt: skip
SPECIALS = [3e38, -3e38, math.inf, -math.inf, math.nan, 1e6, -1e6, 1e30, 1e-45, 0.0]


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list) and len(node) < 50:
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return root


def _header(weights: bytes) -> tuple[dict[str, Any], bytes]:
    (n,) = struct.unpack("<Q", weights[:8])
    return json.loads(weights[8 : 8 + n]), weights[8 + n :]


def _with_header(header: dict[str, Any], body: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + body


def mutate(data: bytes, description: dict[str, Any], weights: bytes) -> tuple[bytes, bytes]:
    """The mutated ``(NAME.json bytes, NAME.safetensors bytes)`` that ``data`` picks."""
    d = Bytes(data)
    kind = d.int(7)
    info = json.loads(json.dumps(description))
    fix_hash = d.int(8) != 0
    raw_json: bytes | None = None
    if kind == 0:  # a field of the description
        info = _set(info, d.pick(_paths(info)), d.pick(VALUES))
    elif kind == 1:  # the network
        info["network"]["net_arch"] = {
            "pi": d.pick([[], [4], [16] * d.int(40), [d.int(70000)], [4096] * d.int(6), [-4]]),
            "vf": d.pick([[], [4], [8, 8], [d.int(5000)], [1] * d.int(30)]),
        }
        info["network"]["activation_fn"] = d.pick(["Tanh", "ReLU", "ELU", "Sigmoid", "GELU"])
    elif kind == 2:  # the safetensors header
        header, body = _header(weights)
        names = sorted(k for k in header if k != "__metadata__")
        name = d.pick(names)
        what = d.int(6)
        if what == 0:
            header[name]["shape"] = d.pick([[], [0], [1], [65536, 65536], [-1, 4], ["4"], [2**40]])
        elif what == 1:
            header[name]["dtype"] = d.pick(["F16", "F64", "I64", "BOOL", "X", 3])
        elif what == 2:
            header[name]["data_offsets"] = [d.int(1 << 20), d.int(1 << 20)]
        elif what == 3:
            del header[name]
        elif what == 4:
            header["extra"] = {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}
        else:
            header[name] = d.pick(VALUES)
        weights = _with_header(header, body)
    elif kind == 3:  # tensor values
        header, body = _header(weights)
        buf = bytearray(body)
        for _ in range(1 + d.int(8)):
            at = d.int(max(1, len(buf) // 4)) * 4
            buf[at : at + 4] = struct.pack("<f", d.pick(SPECIALS))
        weights = weights[: len(weights) - len(body)] + bytes(buf)
    elif kind == 4:  # raw bytes of the description
        text = bytearray(json.dumps(info).encode())
        for _ in range(1 + d.int(4)):
            if text:
                text[d.int(len(text))] = d.byte()
        raw_json = bytes(text[: len(text) - d.int(3) * d.int(len(text) + 1) // 2]) + d.rest(16)
    elif kind == 5:  # raw bytes of the tensor file
        buf = bytearray(weights)
        for _ in range(1 + d.int(4)):
            buf[d.int(min(len(buf), 4096))] = d.byte()
        cut = d.pick([0, 0, 1, 100, len(buf) // 2])
        weights = bytes(buf[: len(buf) - cut]) + d.rest(32)
    else:  # the optimizer-free description's other fields, several at once
        for _ in range(1 + d.int(4)):
            info = _set(info, d.pick(_paths(info)), d.pick(VALUES))
    if fix_hash and isinstance(info, dict):
        info["sha256"] = hashlib.sha256(weights).hexdigest()
    if raw_json is None:
        try:
            raw_json = json.dumps(info).encode("utf-8", "surrogatepass")
        except (ValueError, RecursionError):
            raw_json = b"{"
    return raw_json, weights


class Target:
    """Writes a mutated policy into a scratch folder and loads it (module docstring)."""

    def __init__(self, folder: Path, kind: str = "sb3") -> None:
        import numpy as np
        import torch

        from agents.learned.policy_file import save_policy
        from fort_env import FortGame
        from fort_env.envs.single_agent import SingleAgentEnv

        torch.set_num_threads(1)
        from sb3_contrib import MaskablePPO

        if kind == "sb3":  # sb3-contrib's two towers
            model: object = MaskablePPO(
                "MlpPolicy", SingleAgentEnv(num_players=2), n_steps=64, batch_size=32, seed=0,
                device="cpu", policy_kwargs={"net_arch": {"pi": [4], "vf": [4]}},
            )  # fmt: skip
        elif kind == "actor_critic":  # the lean PPO's shared trunk
            from agents.learned.network import ActorCritic

            game = FortGame(2)
            torch.manual_seed(0)
            model = ActorCritic(game.observation_size, game.num_distinct_actions, (4, 3))
        else:
            raise ValueError(f"kind must be sb3 or actor_critic, got {kind!r}")
        self.folder = folder
        seed = save_policy(model, folder / "seed", num_players=2)
        self.weights = seed.read_bytes()
        self.description = json.loads(seed.with_suffix(".json").read_text())
        state = FortGame(2).new_initial_state(seed=1)
        self.observation = {
            "observation": state.observation_tensor(state.current_player()),
            "action_mask": state.legal_actions_mask(),
        }
        self.legal = set(np.flatnonzero(self.observation["action_mask"]).tolist())
        self.loaded = self.refused = 0

    def __call__(self, data: bytes) -> None:
        """Raises anything but ``ModelFileError`` (a finding), or ``AssertionError`` for an
        illegal action."""
        from agents.learned.policy_file import load_policy_file
        from agents.learned.ppo import PPOAgent
        from fort_env.game.errors import ModelFileError

        description, weights = mutate(data, self.description, self.weights)
        (self.folder / "p.json").write_bytes(description)
        (self.folder / "p.safetensors").write_bytes(weights)
        try:
            policy, _ = load_policy_file(self.folder / "p.safetensors")
            self.loaded += 1
            agent = PPOAgent(policy=policy)
            for deterministic in (True, False):
                agent.deterministic = deterministic
                action = agent.act(self.observation, {})
                assert action in self.legal, f"illegal action {action}"
        except ModelFileError:
            self.refused += 1


def run_seeded(count: int, seed: int = 0, show: int = 5, kind: str = "sb3") -> list[str]:
    """``count`` random inputs from ``random.Random(seed)`` mutating a saved policy of
    ``kind`` (``sb3`` or ``actor_critic``); returns the findings."""
    findings: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        target = Target(Path(tmp), kind)
        rng = random.Random(seed)
        for i in range(count):
            data = rng.randbytes(rng.randint(0, 96))
            try:
                target(data)
            except Exception as exc:
                findings.append(f"input {i} {data.hex()}: {type(exc).__name__}: {exc}"[:2000])
                if len(findings) <= show:
                    traceback.print_exc()
    return findings


def _instrument(atheris: Any) -> None:
    """Coverage for the loading code: its modules' functions and methods, instrumented in
    place (``instrument_imports`` skips modules that an editable install's custom loader
    imports, which these are in a development checkout). A function imported by another of
    these modules (the policy file's parts call each other's) is replaced there too."""
    import importlib
    import inspect

    names = ("agents.base", "agents.learned.policy_format", "agents.learned.tensor_file",
             "agents.learned.policy_description", "agents.learned.policy_io",
             "agents.learned.sb3_zip", "agents.learned.policy_file", "agents.learned.forward",
             "agents.learned.ppo_agent", "agents.learned.ppo",
             "fort_env.game.inputs")  # fmt: skip
    modules = [importlib.import_module(name) for name in names]
    instrumented: dict[int, Any] = {}
    for name, module in zip(names, modules, strict=True):
        for value in list(vars(module).values()):
            if inspect.isfunction(value) and value.__module__ == name:
                instrumented[id(value)] = atheris.instrument_func(value)
            elif inspect.isclass(value) and value.__module__ == name:
                for meth, fn in list(vars(value).items()):
                    if inspect.isfunction(fn):
                        setattr(value, meth, atheris.instrument_func(fn))
    for module in modules:  # where each function is defined and wherever it was imported
        for attr, value in list(vars(module).items()):
            if inspect.isfunction(value) and id(value) in instrumented:
                setattr(module, attr, instrumented[id(value)])


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeded", type=int, help="run N seeded random inputs (no atheris)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=("sb3", "actor_critic"), default="sb3",
                        help="the saved network the inputs mutate")  # fmt: skip
    known, rest = parser.parse_known_args(argv[1:])
    if known.seeded is not None:
        findings = run_seeded(known.seeded, known.seed, kind=known.kind)
        print(f"{known.seeded} inputs, {len(findings)} findings")
        for f in findings[:20]:
            print(f)
        return 1 if findings else 0
    import atheris

    _instrument(atheris)
    folder = Path(tempfile.mkdtemp(prefix="fuzz_models_"))
    target = Target(folder, known.kind)
    atheris.Setup([argv[0], *rest], target)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
