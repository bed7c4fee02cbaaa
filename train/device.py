"""Where training runs: the one resolution of a device name and of thread counts.

:func:`resolve_device` is the only place a device name (``auto``, ``cpu``, ``cuda``,
``cuda:K``) becomes a torch device; :func:`learner_device` says where a run's learner runs
(``train.runner.run`` resolves it once, hands it to the learner and records it in the summary).
"""

from __future__ import annotations

import torch

from fort_env.game.errors import ConfigError
from fort_env.tools.cpu import usable_cores
from train.config import Config, device_name_ok

__all__ = ["MAX_AUTO_ENV_THREADS", "learner_device", "resolve_device", "resolve_threads"]

MAX_AUTO_ENV_THREADS = 16
"""``env_threads=0`` uses every core up to this many (the batch stops scaling near it)."""


def resolve_device(name: str) -> str:
    """The torch device ``name`` means: ``auto`` is ``cuda`` when torch sees a GPU, else
    ``cpu``.

    Raises:
        ConfigError: not ``auto``, ``cpu``, ``cuda`` or ``cuda:K``; or CUDA asked for where
            torch sees no GPU (or not that many).
    """
    if not device_name_ok(name):
        raise ConfigError(f"device must be auto, cpu, cuda or cuda:K, got {name!r}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(
                f"device {name!r}: torch sees no CUDA GPU here (torch {torch.__version__}); "
                "use --device cpu or auto"
            )
        index = int(name.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise ConfigError(
                f"device {name!r}: torch sees {torch.cuda.device_count()} CUDA GPU(s)"
            )
    return name


def learner_device(config: Config) -> str:
    """The device the learner of ``config`` runs on, resolved once (:func:`resolve_device`):
    the lean PPO's ``device``; MaskablePPO always the CPU (its small MLP gains nothing from a GPU
    and SB3 would copy every rollout to it), whatever ``device`` says, so the summary records
    where training really ran (issue 39: it said ``cuda`` for a CPU learner)."""
    return resolve_device(config.device) if config.algo == "ppo" else "cpu"


def resolve_threads(config: Config) -> tuple[int, int]:
    """``(env_threads, torch_threads)`` with ``0`` resolved from the cores this process may use
    (``fort_env.tools.cpu.usable_cores``: the affinity mask capped by the cgroup quota): each
    gets every usable core (the env at most :data:`MAX_AUTO_ENV_THREADS`). The two take turns
    (a rollout step, then the network; the update alone), so they do not compete with each
    other. With ``torch_threads=0`` the lean PPO also re-chooses torch's count while it trains
    (``train.threads.ThreadTuner``: one thread or every core, whichever its iterations measure
    faster), and OpenMP waits passively (``fort_env.tools.cpu``), so other processes on the
    machine do not make it spin: docs/performance.md, "Threads on a busy machine"."""
    cores = usable_cores()
    env = config.env_threads or min(cores, MAX_AUTO_ENV_THREADS)
    torch_threads = config.torch_threads or cores
    return env, torch_threads
