"""``rllib:PATH``: a policy trained on Ray RLlib (``fort-env train --backend rllib``), as an agent.

``agents.make("rllib:runs/rllib-quick/checkpoint")`` loads the shared self-play policy (the
RLModule :data:`fort_env.envs.rllib.POLICY_ID`) from the algorithm checkpoint the run wrote, or
from the RLModule's own directory, and plays it at any seat: it feeds the seat's
``observation["observation"]`` and ``action_mask`` to the masked module and never takes a
masked action. ``rllib:PATH:deterministic=0`` samples from the masked policy with the agent's
own seeded generator instead of taking the most probable action. The path may not contain
``:``. Modules are cached per process by (path, modification time). Needs Ray (the ``rllib``
extra).

An RLlib checkpoint is pickled (``class_and_ctor_args.pkl``, ``module_state.pkl``): loading one
runs any code its author put in it. So, as an SB3 ``.zip`` (``agents.learned.ppo``), it loads
only with the explicit opt-in ``rllib:PATH:trusted=1`` (``trusted=True``; ``fort-env
tournament --trust-pickle``); without it the agent raises ``ModelFileError`` and reads nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import act_on_probabilities, masked_softmax
from fort_env.game.errors import ModelFileError

__all__ = ["PICKLE_RISK", "RLlibAgent", "load_module", "make_rllib_agent"]

PICKLE_RISK = (
    "an RLlib checkpoint stores its module with pickle (class_and_ctor_args.pkl, "
    "module_state.pkl): loading it runs any code its author put there"
)

_MODULES: dict[tuple[str, float], Any] = {}


def module_dir(path: str | Path) -> Path:
    """The RLModule directory inside an algorithm checkpoint ``path`` (or ``path`` itself if
    it is one).

    Raises:
        FileNotFoundError: ``path`` is neither (the message names it).
    """
    from fort_env.envs.rllib import POLICY_ID

    p = Path(path)
    inner = p / "learner_group" / "learner" / "rl_module" / POLICY_ID
    for candidate in (inner, p):
        if (candidate / "class_and_ctor_args.pkl").is_file() and (
            candidate / "module_state.pkl"
        ).exists():
            return candidate
    raise FileNotFoundError(
        f"no RLlib checkpoint at {str(p)!r} (the checkpoint/ of a fort-env train --backend "
        "rllib run, or an RLModule directory)"
    )


def load_module(path: str | Path, trusted: bool = False) -> Any:
    """The torch RLModule of a checkpoint (cached; eval mode), if ``trusted``.

    Args:
        path: an algorithm checkpoint or RLModule directory.
        trusted: allow unpickling it (it can run any code: trust its origin).

    Raises:
        ModelFileError: ``trusted`` is false (nothing is read; the message says how to opt in).
        FileNotFoundError: as :func:`module_dir`.
    """
    if not trusted:
        raise ModelFileError(
            path,
            f"{PICKLE_RISK}. Load only checkpoints you trust: trusted=True "
            "(rllib:PATH:trusted=1, fort-env tournament --trust-pickle)",
        )
    d = module_dir(path)
    key = (str(d.resolve()), d.stat().st_mtime)
    if key not in _MODULES:
        from ray.rllib.core.rl_module.rl_module import RLModule

        # an absolute path: Ray reads a relative one as a URI ("URI has empty scheme")
        module = RLModule.from_checkpoint(d.resolve())
        module.eval()
        _MODULES[key] = module
    return _MODULES[key]


class RLlibAgent:
    """An agent playing an RLlib action-masking module (module docstring).

    Args:
        path: an algorithm checkpoint or RLModule directory (or ``None`` with ``module``).
        deterministic: take the most probable legal action (else sample).
        module: an in-memory RLModule to play instead.
        seed: the initial seed of the sampling generator.
        trusted: allow unpickling the checkpoint at ``path`` (:func:`load_module`).

    Raises:
        ModelFileError: ``path`` without ``trusted``.
        FileNotFoundError: no checkpoint at ``path``.
        ValueError: neither or both of ``path`` and ``module``.
    """

    name = "rllib"

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        module: Any = None,
        seed: int | None = None,
        trusted: bool = False,
    ) -> None:
        if (path is None) == (module is None):
            raise ValueError("give exactly one of path and module")
        self.path = None if path is None else str(path)
        self.module = load_module(path, trusted=trusted) if path is not None else module
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def action_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities: float64 ``(N,)``, zero on illegal actions."""
        import torch

        legal = np.asarray(mask, dtype=bool)
        obs = {
            "observations": torch.as_tensor(np.asarray(observation, dtype=np.float32)[None]),
            "action_mask": torch.as_tensor(legal.astype(np.float32)[None]),
        }
        with torch.no_grad():
            out = self.module.forward_inference({"obs": obs})
        z = out["action_dist_inputs"][0].numpy().astype(np.float64)
        return masked_softmax(z, legal, self.path)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        mask = info.get("action_mask")
        if mask is None:
            mask = observation["action_mask"]
        probs = self.action_probabilities(observation["observation"], mask)
        return act_on_probabilities(probs, self.deterministic, self.rng)

    def __repr__(self) -> str:
        return f"RLlibAgent(name={self.name!r}, path={self.path!r})"


def make_rllib_agent(args: str | None) -> RLlibAgent:
    """The registry factory: ``args`` is ``PATH[:deterministic=0|1][:trusted=0|1]`` (a path
    holding ``:`` is quoted), read by ``agents.spec``.

    Raises:
        ValueError: no path given, or a bad ``key=value`` argument (``agents.spec.SpecError``).
        ModelFileError: no ``trusted=1`` (:func:`load_module`).
    """
    from agents.spec import Param, convert, parse

    spec = parse(f"rllib:{args}" if args else "rllib")
    if spec.path is None:
        raise ValueError(
            "rllib needs a checkpoint path: rllib:PATH (e.g. rllib:runs/rllib-quick/checkpoint)"
        )
    params = {"deterministic": Param("deterministic", bool, True),
              "trusted": Param("trusted", bool, False)}  # fmt: skip
    return RLlibAgent(spec.path, **convert("rllib", spec.args, params))
