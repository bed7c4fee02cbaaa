"""docs/integrations.md's code blocks run as written: every Python block is either run here or
by the test file of its route (named in ``RUN_ELSEWHERE``), and a block added under a new
heading fails :func:`test_every_python_block_has_a_runner` until it gets one. Routes whose
library is not installed skip, saying which."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from fort_env.native import backend

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
HEADING = re.compile(r"^(#{2,3}) (.+)$")
FENCE = re.compile(r"^```(\w*)$")

# heading -> the test that execs that section's first Python block, read from this page
RUN_ELSEWHERE = {
    "The parallel view": "tests/test_parallel_env.py",
    "Stable-Baselines3": "tests/test_wrappers.py",
}
# blocks after "A reward of your own stays on" (tests/test_reward_hooks.py)
REWARD_HOOK = "A reward of your own stays on"


def python_blocks() -> list[tuple[str, int, str]]:
    """(heading, index within the heading's section, code) of every ```python block."""
    blocks: list[tuple[str, int, str]] = []
    heading, count, fence = "", 0, None
    code: list[str] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        opens = FENCE.match(line)
        if fence is not None:  # inside a block: only its closing fence ends it
            if line == "```":
                if fence == "python":
                    blocks.append((heading, count, "\n".join(code) + "\n"))
                    count += 1
                fence = None
            else:
                code.append(line)
        elif opens:
            fence, code = opens.group(1), []
        elif match := HEADING.match(line):
            heading, count = match.group(2).strip(), 0
    return blocks


def block(heading: str, index: int = 0) -> str:
    for found, i, code in python_blocks():
        if found == heading and i == index:
            return code
    raise AssertionError(f"docs/integrations.md has no python block {index} under {heading!r}")


def run(code: str, scope: dict[str, Any] | None = None) -> dict[str, Any]:
    scope = {} if scope is None else scope
    exec(compile(code, str(DOC), "exec"), scope)
    return scope


def test_every_python_block_has_a_runner() -> None:
    text = DOC.read_text(encoding="utf-8")
    hook = text.split(REWARD_HOOK, 1)
    assert len(hook) == 2, f"no {REWARD_HOOK!r} on the page (tests/test_reward_hooks.py)"
    hook_code = re.search(r"```python\n(.*?)```", hook[1], re.S)
    assert hook_code
    found = [(h, i) for h, i, code in python_blocks() if code != hook_code.group(1)]
    run_here = {
        ("Gymnasium", 0),
        ("Gymnasium", 1),
        ("Many games at once, in C++", 0),
        ("OpenSpiel", 0),
        ("TorchRL", 0),
        ("Tianshou and SuperSuit", 0),
    }
    elsewhere = {(h, 0) for h in RUN_ELSEWHERE}
    assert sorted(found) == sorted(run_here | elsewhere)


def test_gymnasium_registry_block() -> None:
    scope = run(block("Gymnasium", 0))
    obs, info = scope["obs"], scope["info"]
    assert scope["env"].observation_space.contains(obs)
    assert info["action_mask"].any()


@pytest.mark.skipif(not backend.available(), reason="needs the compiled core")
def test_gymnasium_vector_block() -> None:
    pytest.importorskip("torch")  # the vector entry point is part of the train extra
    scope = run(block("Gymnasium", 1))
    assert scope["obs"].shape[0] == 16 and scope["rewards"].shape == (16,)
    assert scope["infos"]["action_mask"].shape[0] == 16
    scope["envs"].close()


@pytest.mark.skipif(not backend.available(), reason="needs the compiled core")
def test_batched_sb3_block_learns_a_little() -> None:
    pytest.importorskip("sb3_contrib")
    import torch

    code = block("Many games at once, in C++", 0)
    fewer = "n_steps=8, batch_size=64, n_epochs=1, verbose=0"
    for old, new in [("model.learn(20_000)", "model.learn(256)"), ("n_steps=64, verbose=1", fewer)]:
        assert old in code, old
        code = code.replace(old, new)
    threads = torch.get_num_threads()
    try:
        scope = run(code)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert scope["model"].num_timesteps >= 256
    scope["venv"].close()


def test_openspiel_block() -> None:
    pytest.importorskip("pyspiel")
    scope = run(block("OpenSpiel", 0))
    assert scope["game"].num_players() == 3


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")
def test_torchrl_block() -> None:
    pytest.importorskip("torchrl")
    import torch

    scope = run(block("TorchRL", 0))
    mask = scope["rollout"]["player_0", "action_mask"]
    actions = scope["fort_env"].env(num_players=2).action_space("player_0").n
    assert mask.dtype == torch.bool and tuple(mask.shape) == (100, 1, actions)


@pytest.mark.slow  # ~25 s on 2 busy cores; tests/test_tianshou.py runs the same calls by default
def test_tianshou_block(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tianshou")
    run(block("Tianshou and SuperSuit", 0))
    assert capsys.readouterr().out.strip(), "the block prints the episodes' returns"
