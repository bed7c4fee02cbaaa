"""Regenerate the golden playthroughs in ``tests/golden/`` (OpenSpiel's playthrough files).

Each file follows one seeded game of one configuration through the PettingZoo environment,
decision by decision: the acting agent and decision kind, the whole table as text
(``state_to_string``, every hand shown), a digest of the acting agent's observation, its legal
actions by name, and the action a seeded random player chose. ``tests/test_golden.py`` replays
every configuration and diffs the text line by line, so any change of the rules, the
observation or the action names shows up there; when the change is intended, run
``python scripts/regenerate_golden.py`` from the repository root and commit the new files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

import fort_env
from fort_env.views.text import state_to_string

CONFIGS: tuple[tuple[int, str], ...] = ((2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced"))
SEED = 0  # the game's seed and the seed of the random player's choices
MAX_DECISIONS = 150  # keeps each file short enough to read a diff of
GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"


def golden_path(num_players: int, setup: str) -> Path:
    """``tests/golden/fort_{num_players}p_{setup}.txt``."""
    return GOLDEN_DIR / f"fort_{num_players}p_{setup}.txt"


def observation_digest(obs: np.ndarray) -> str:
    """First 12 hex digits of the sha256 of the observation's float32 bytes."""
    return hashlib.sha256(np.asarray(obs, dtype=np.float32).tobytes()).hexdigest()[:12]


def playthrough(num_players: int, setup: str, seed: int = SEED, limit: int = MAX_DECISIONS) -> str:
    """The golden text of one configuration: at most ``limit`` decisions of a seeded game."""
    env = fort_env.raw_env(num_players=num_players, setup=setup)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [
        f"# fort_v0 playthrough: num_players={num_players} setup={setup} seed={seed}",
        f"# observation size {env.game.observation_size}, actions {env.game.num_distinct_actions}",
        f"# regenerate: python scripts/regenerate_golden.py (first {limit} decisions)",
    ]
    for i in range(limit):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        state = env.fort_state()
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        lines.append("")
        lines.append(f"## decision {i}: {agent} chooses {state.decision.kind.name}")
        lines += state_to_string(state).splitlines()
        lines.append(f"observation sha256 {observation_digest(obs['observation'])}")
        lines.append(f"legal actions ({len(legal)}):")
        lines += [f"  {a}: {state.action_to_string(int(a))}" for a in legal]
        lines.append(f"chosen: {action}: {state.action_to_string(action)}")
        env.step(action)
    lines.append("")
    if any(env.terminations.values()):
        rewards = ", ".join(f"{a} {env.rewards[a]:+g}" for a in env.agents)
        lines.append(f"## game over: rewards {rewards}")
    else:
        lines.append(f"## stopped after {limit} decisions")
    return "\n".join(lines) + "\n"


def main() -> None:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for num_players, setup in CONFIGS:
        path = golden_path(num_players, setup)
        path.write_text(playthrough(num_players, setup), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
