"""Self-play training of a Fort agent with MaskablePPO, in one readable script.

Run it as ``fort-env train --preset quick --out runs/quick`` (or ``python -m train.selfplay
--preset quick``). What it does, top to bottom:

1. **Config**: :class:`Config`, a typed dataclass with one docstring per field; :data:`PRESETS`
   holds ``quick`` (minutes on a 2-core CPU, beats ``random``), ``full`` (hours, aims at
   ``heuristic``) and ``tiny`` (seconds; the smoke test). Any field can be overridden.
2. **Seeding**: one block seeds Python, NumPy, torch, the model and the environments.
3. **Environments**: ``n_envs`` games of :class:`fort_env.envs.single_agent.SingleAgentEnv`'s
   rules in one SB3 vector env: by default :class:`fort_env.envs.vector.FortBatchVecEnv` (every
   game stepped in C++, the league's ``random`` played there too, the other opponents grouped
   and called from this process), or, without the compiled core, ``SubprocVecEnv`` (one
   process per env). The learner's seat rotates over episodes; opponents are drawn from the
   league for each game.
4. **League** (:class:`League`): a weighted mix of the zoo's bots (``random``, the heuristics)
   and frozen snapshots of the learner (``ppo:PATH``), added whenever an evaluation shows the
   learner has improved (at most ``max_snapshots``, the newest kept).
5. **Learning**: ``sb3_contrib.MaskablePPO`` with an MLP policy; the mask is the wrapper's
   ``action_masks()``.
6. **Callbacks** (:class:`SelfPlayCallback`): namespaced TensorBoard metrics (``league/...``,
   ``eval/...``, ``charts/...``; SB3 adds ``rollout/``, ``train/``, ``time/``), periodic
   checkpoints and evaluations through the tournament runner (``agents.arena.tournament``), league
   updates, a wall-time budget; with ``train.progress.ProgressCallback`` in SB3's
   ``CallbackList``. (SB3's ``CheckpointCallback`` and ``EvalCallback`` do not save the league
   and the resumable counters with the model, nor evaluate by tournament, so they are not used.)
7. **Outputs** in ``out``: ``model.safetensors`` + ``model.json`` (the policy's tensors and
   its JSON description, ``agents.learned.policy_file``; loads as
   ``agents.make("ppo:OUT/model.safetensors")``, nothing unpickled), ``config.json``,
   ``eval.json`` (final tournaments, history), ``learning_curve.png``, ``tb/`` (TensorBoard),
   ``checkpoints/`` (for ``resume``), ``league/`` (snapshots, in the same format).

Resume an interrupted run with ``resume=True`` (``--resume``): the learner is rebuilt from
``config.json`` and the checkpoint's tensors are loaded into it (policy weights, Adam's
moments, the step count; ``checkpoints/latest.*``), and the league, the history and the
counters come back from ``checkpoints/state.json``. Nothing is unpickled: a ``.zip`` in
``checkpoints/`` or ``league/`` is never loaded. Both files are checked before anything is built
(:func:`config_from_dict`, :func:`load_state`: types, ranges, the network's limits), and an agent
spec in them that asks for ``trusted=1`` is refused (:class:`RunFolderError`): trust to
unpickle comes only from the caller, never from a run folder. Not restored: the random generators'
states (a resumed run is not bit-identical to an uninterrupted one).

Sources of the habits: CleanRL ``ppo.py`` (one file, dataclass config, seeding block,
``charts/SPS``); sb3-contrib's ``MaskablePPO`` docs (``action_masks()``); PettingZoo's SB3
tutorial for the single-agent wrapper, with the seat pairing fixed
(``fort_env/envs/single_agent.py``).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import random
import shutil
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

import agents
from agents.arena.games import decision_info
from agents.arena.tournament import format_table, run_tournament
from agents.learned.policy_file import load_into_model, save_checkpoint_files, save_policy
from fort_env.core import SETUPS, default_backend
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.envs.vector import FortBatchVecEnv
from fort_env.game.constants import MAX_PLAYERS, MIN_PLAYERS
from fort_env.game.errors import ConfigError, describe
from fort_env.game.files import write_bytes, write_text
from fort_env.game.inputs import read_text_file
from fort_env.tools.cpu import usable_cores
from train.progress import ProgressCallback

__all__ = [
    "PRESETS",
    "Config",
    "League",
    "RunFolderError",
    "SelfPlayCallback",
    "evaluate",
    "lr_schedule",
    "make_config",
    "make_env",
    "make_model",
    "make_vec_env",
    "plot_learning_curve",
    "run",
    "vec_env_kind",
]


# --------------------------------------------------------------------------- configuration
@dataclass
class Config:
    """Everything a training run depends on; ``config.json`` in the output directory."""

    preset: str = "quick"
    """The preset this configuration started from (``quick``, ``full`` or ``tiny``)."""
    num_players: int = 2
    """Players at the table: the learner and ``num_players - 1`` opponents."""
    setup: str = "basic"
    """Game setup: ``basic`` (dealt kid cards) or ``advanced`` (drafted)."""
    seed: int = 0
    """Seeds Python, NumPy, torch, the model, the environments and the evaluations."""
    total_timesteps: int = 400_000
    """Learner decisions to train for (one timestep = one decision of the learner's seat)."""
    time_budget_minutes: float | None = None
    """Stop training (and go on to the final evaluation) after this many minutes of wall time."""
    n_envs: int = 4
    """Environments stepped together: games of the batched C++ env (``vec_env="batch"``: 32
    measured fastest for the quick preset on 2 cores, docs/performance.md), or one process
    each (``"subproc"``; 4 on 2 cores measured faster than 2, 6 or 8)."""
    vec_env: str = "auto"
    """``batch`` (``fort_env.envs.vector.FortBatchVecEnv``: every game in C++, in this process),
    ``subproc`` (SubprocVecEnv of ``SingleAgentEnv``, one process per env), ``dummy``
    (DummyVecEnv, all in this process), or ``auto``: ``batch`` when the compiled core is
    usable, else ``subproc`` (``dummy`` for more than two envs per core)."""
    env_threads: int = 1
    """Threads of the batched C++ env stepping its games (``0``: every core, up to 16)."""
    torch_threads: int = 1
    """torch threads of the learner's process (``0``: every core, :func:`resolve_threads`;
    env workers always use 1)."""
    algo: str = "maskable_ppo"
    """The learner: ``maskable_ppo`` (sb3-contrib's MaskablePPO on the single-agent batched
    env, the learner's seat against the league) or ``ppo`` (``train.ppo``: the lean PPO on the
    self-play batch, every seat a sample, every tensor on ``device``)."""
    device: str = "auto"
    """Where the lean PPO's tensors live: ``cpu``, ``cuda`` (``cuda:K``), or ``auto`` (CUDA
    when torch sees a GPU). MaskablePPO always runs on the CPU."""
    league_share: float = 0.5
    """Lean PPO: the chance that each seat but one (drawn) of a new game is played by a league
    opponent rather than the learner (0: pure self-play)."""
    # PPO
    n_steps: int = 512
    """Steps per environment per rollout (the rollout has ``n_steps * n_envs`` samples)."""
    batch_size: int = 256
    """Minibatch size of the PPO updates."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size (linearly annealed to ``lr_final_fraction`` of it)."""
    lr_final_fraction: float = 0.3
    """The learning rate at the end of training, as a fraction of ``learning_rate``."""
    gamma: float = 0.995
    """Discount factor (a 2-player game gives the learner ~60-160 decisions)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clipping parameter."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    net_arch: tuple[int, ...] = (256, 256)
    """Hidden layers of the policy and of the value network (separate networks)."""
    critic: str = "obs"
    """Lean PPO: what the value estimates of GAE read. ``obs``: the value head on the seat's
    observation (the shared trunk). ``table``: a whole-table critic on every seat's
    observation (``agents.learned.network.ActorCritic``'s critic: perfect-training,
    imperfect-execution); the policy still reads only its observation, and the value head is
    trained beside it on the same returns."""
    critic_arch: tuple[int, ...] = (256, 256)
    """Hidden layers of the whole-table critic (``critic="table"``)."""
    # rewards
    reward: str = "win_loss"
    """Final reward mode of ``fort_env.envs.aec`` (``win_loss``, ``rank`` or ``score_margin``)."""
    shaping: float = 0.5
    """Weight of the dense score-margin shaping (``fort_env.envs.single_agent``; 0 turns it off)."""
    # league
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    """The league's bots: agent spec (``agents.make``) -> sampling weight."""
    snapshot_weight: float = 0.0
    """Total sampling weight shared by the learner's frozen snapshots (0: no self-play)."""
    max_snapshots: int = 5
    """Snapshots kept in the league (the newest)."""
    snapshot_deterministic: bool = False
    """Snapshots play their most probable action (else they sample, for variety)."""
    # evaluation and checkpoints
    eval_freq: int = 100_000
    """Evaluate (and checkpoint, and maybe add a snapshot) every this many timesteps."""
    eval_games: int = 20
    """Games per opponent at each periodic evaluation."""
    eval_opponents: tuple[str, ...] = ("random",)
    """Opponents of the periodic evaluations (the first one decides snapshots)."""
    final_eval_games: int = 100
    """Games per opponent in the final evaluation (``eval.json``)."""
    final_eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """Opponents of the final evaluation."""
    eval_workers: int = 2
    """Processes playing the evaluations' tournaments (periodic and final; training waits)."""
    deterministic_eval: bool = True
    """The trained agent plays its most probable action in evaluations (``ppo:PATH``)."""
    log_window: int = 200
    """Episodes in the rolling training win rates (``league/win_rate_vs_*``)."""
    sparse_input: bool | None = None
    """``algo="ppo"``: the update reads each observation's active features (a sparse first
    layer, ``agents.learned.network.sparse_linear``; the same results within float rounding);
    ``None``: on a CPU, off on a GPU, where it measured slower (docs/performance.md)."""
    legal_logits: bool | None = None
    """``algo="ppo"``: the update's log-softmax and entropy over each sample's legal actions
    only (``train.ppo.legal_actions``); ``None``: on a CPU, off on a GPU."""


PRESETS: dict[str, Config] = {
    # ~10 minutes on a 2-core CPU (9 of training), aiming at >= 70% of 2-player games against
    # `heuristic`. The lean PPO (train/ppo.py): 64 games in C++, every seat a sample, half the
    # other seats given to the league (builder mostly, a little random, snapshots of itself);
    # 2.3-2.5M samples in 9 minutes where MaskablePPO managed ~500k (docs/agents.md, "The
    # lean PPO"). `--algo maskable_ppo` trains round two's learner instead.
    "quick": Config(
        preset="quick",
        algo="ppo",
        device="auto",
        env_threads=0,
        torch_threads=0,
        total_timesteps=10_000_000,
        time_budget_minutes=9.0,
        n_envs=64,
        n_steps=64,
        batch_size=1024,
        n_epochs=3,
        opponents={"random": 0.1, "builder": 0.6},
        snapshot_weight=0.3,
        league_share=0.5,
        max_snapshots=3,
        eval_freq=250_000,
        # 200 games (about 10 s against the heuristic on one core): a 95% interval of
        # about +-7 points, where 20 games gave +-21 (docs/agents.md, "Training: what limits it")
        eval_games=200,
        eval_opponents=("heuristic",),
        final_eval_games=200,
    ),
    # An hour or more: the quick preset's recipe with a bigger network and longer rollouts
    # (the zoo's models are trained with it: scripts/train_zoo.py).
    "full": Config(
        preset="full",
        algo="ppo",
        device="auto",
        env_threads=0,
        torch_threads=0,
        total_timesteps=100_000_000,
        time_budget_minutes=None,
        n_envs=64,
        n_steps=128,
        batch_size=2048,
        n_epochs=3,
        learning_rate=2.5e-4,
        net_arch=(512, 256),
        opponents={"random": 0.1, "builder": 0.6},
        snapshot_weight=0.3,
        league_share=0.5,
        max_snapshots=8,
        eval_freq=1_000_000,
        eval_games=200,  # 40 games gave +-15 points: too few to see a trend
        eval_opponents=("heuristic",),
        final_eval_games=200,
    ),
    # Seconds: the smoke test (tests/test_train.py).
    "tiny": Config(
        preset="tiny",
        total_timesteps=512,
        n_envs=2,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        net_arch=(32,),
        opponents={"random": 0.5, "builder": 0.5},
        snapshot_weight=0.5,
        eval_freq=256,
        eval_games=2,
        final_eval_games=2,
        eval_workers=1,
    ),
}


def make_config(preset: str = "quick", **overrides: Any) -> Config:
    """The named preset with ``overrides`` applied (``None`` values are ignored).

    Raises:
        ValueError: an unknown preset or field, a player count outside 2-4 or an unknown setup.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    fields = {f.name for f in dataclasses.fields(Config)}
    unknown = set(overrides) - fields
    if unknown:
        raise ValueError(f"unknown config fields: {', '.join(sorted(unknown))}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    config = dataclasses.replace(PRESETS[preset], **changes)
    if config.num_players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ValueError(
            f"num_players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {config.num_players!r}"
        )
    if config.setup not in SETUPS:
        raise ValueError(f"setup must be one of {', '.join(SETUPS)}, got {config.setup!r}")
    return config


class RunFolderError(ConfigError):
    """A run folder's file (``config.json``, ``checkpoints/state.json``) cannot be resumed
    from: unreadable, not JSON, or a field of the wrong type or out of range. Names the file
    and the field; ``fort-env train --resume`` prints it as one line."""

    def __init__(self, path: object, problem: str) -> None:
        self.path, self.problem = path, problem
        self._init_args = (path, problem)
        super().__init__(f"{path}: {problem}")


# The largest run-folder JSON read back (bytes): state.json holds one history point per
# rollout (~200 bytes; the full preset writes ~5,000) and every evaluation.
MAX_RUN_JSON_BYTES = 64 * 2**20
# The league a run folder may name: more bots or snapshots than any preset uses by far.
MAX_LEAGUE_ENTRIES = 256


def read_run_json(path: Path) -> Any:
    """The JSON value of a run folder's file (a regular file, at most
    :data:`MAX_RUN_JSON_BYTES`, strict UTF-8).

    Raises:
        RunFolderError: the file cannot be read or is not JSON.
    """
    try:
        text = read_text_file(path, "run file", max_bytes=MAX_RUN_JSON_BYTES)
    except ConfigError:
        raise
    except ValueError as exc:  # InputFileError: missing, not a regular file, too big, not UTF-8
        raise RunFolderError(path, getattr(exc, "problem", str(exc))) from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RunFolderError(path, f"not JSON: {' '.join(str(exc).split())[:300]}") from None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (_is_int(v) or isinstance(v, float)) and math.isfinite(v) and abs(v) < 1e300


def _check_field(name: str, value: Any, default: Any) -> Any:
    """``value`` of :class:`Config` field ``name`` (of the type of its ``default``), as the
    config holds it (lists back to tuples); raises ``ValueError`` naming the problem."""
    if name in ("net_arch", "critic_arch", "eval_opponents", "final_eval_opponents"):
        kind = int if name in ("net_arch", "critic_arch") else str
        ok = isinstance(value, list) and all(
            (_is_int(x) if kind is int else isinstance(x, str)) for x in value
        )
        empty = not value and name != "final_eval_opponents"  # the others need one
        if not ok or empty or len(value) > MAX_LEAGUE_ENTRIES:
            raise ValueError(
                f"must be a non-empty list of {'ints' if kind is int else 'strings'}, "
                f"got {describe(value)}"
            )
        return tuple(value)
    if name == "opponents":
        if (
            not isinstance(value, dict)
            or not 0 < len(value) <= MAX_LEAGUE_ENTRIES
            or not all(isinstance(k, str) and _is_number(w) and w >= 0 for k, w in value.items())
        ):
            raise ValueError(
                f"must be an object of agent spec -> weight >= 0, got {describe(value)}"
            )
        return dict(value)
    if name in ("sparse_input", "legal_logits"):
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"must be null, true or false, got {describe(value)}")
        return value
    if name == "time_budget_minutes":
        if value is not None and not (_is_number(value) and value > 0):
            raise ValueError(f"must be null or a number > 0, got {describe(value)}")
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = _is_int(value) and 0 <= value <= 10**15
    elif isinstance(default, float):
        ok = _is_number(value) and value >= 0
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str) and len(value) <= 256
    if not ok:
        raise ValueError(f"must be {type(default).__name__}, got {describe(value)}")
    return value


def config_from_dict(d: Mapping[str, Any], source: str | Path | None = None) -> Config:
    """A :class:`Config` from ``config.json`` (lists back to tuples), every field checked.

    Args:
        d: the JSON object.
        source: the file it was read from; its agent specs (``opponents``,
            ``eval_opponents``, ``final_eval_opponents``) are then refused if they ask for
            ``trusted=1`` (``agents.check_file_spec``: trust never comes from a file).

    Raises:
        RunFolderError: not an object, an unknown field, a field of the wrong type or out of
            range (``num_players``, ``setup``, ``vec_env``, ``n_envs``, ``net_arch``), or a
            spec asking for trust (names ``source`` and the field).
    """
    from agents.learned.policy_file import check_net_arch

    where = source if source is not None else "config"
    if not isinstance(d, Mapping):
        raise RunFolderError(where, f"must be a JSON object, got {describe(d)}")
    defaults = Config()
    fields = {f.name for f in dataclasses.fields(Config)}
    values: dict[str, Any] = {}
    for name, value in d.items():
        if name not in fields:
            raise RunFolderError(where, f"unknown field {describe(name)}")
        try:
            values[name] = _check_field(name, value, getattr(defaults, name))
        except ValueError as exc:
            raise RunFolderError(where, f"field {name!r}: {exc}") from None
    config = Config(**values)
    checks = {
        "num_players": MIN_PLAYERS <= config.num_players <= MAX_PLAYERS,
        "setup": config.setup in SETUPS,
        "vec_env": config.vec_env in VEC_ENVS,
        # the lean PPO's games live in one C++ batch; MaskablePPO's are processes or Python envs
        "n_envs": 1 <= config.n_envs <= (MAX_BATCH_ENVS if config.algo == "ppo" else 256),
        "n_steps": 1 <= config.n_steps <= 10**6,
        "batch_size": 1 <= config.batch_size <= 10**7,
        "env_threads": 0 <= config.env_threads <= 256,
        "torch_threads": 0 <= config.torch_threads <= 256,
        "eval_workers": 1 <= config.eval_workers <= 256,
        "max_snapshots": 1 <= config.max_snapshots <= MAX_LEAGUE_ENTRIES,
        "eval_freq": config.eval_freq >= 1,
        "algo": config.algo in ALGOS,
        "device": _device_name_ok(config.device),
        "league_share": 0.0 <= config.league_share <= 1.0,
        "critic": config.critic in CRITICS,
    }
    for name, ok in checks.items():
        if not ok:
            raise RunFolderError(
                where, f"field {name!r}: {describe(getattr(config, name))} is out of range"
            )
    try:
        check_net_arch(list(config.net_arch), what="net_arch")
        check_net_arch(list(config.critic_arch), what="critic_arch")
    except ValueError as exc:
        raise RunFolderError(where, f"field {str(exc).split(' ')[0]!r}: {exc}") from None
    if source is not None:
        for name in ("opponents", "eval_opponents", "final_eval_opponents"):
            for spec in getattr(config, name):
                try:
                    agents.check_file_spec(spec, f"field {name!r}")
                except ConfigError as exc:
                    raise RunFolderError(source, str(exc)) from None
    return config


# --------------------------------------------------------------------------- league
class League:
    """The opponents of training: bots and frozen snapshots, each with a sampling weight.

    Called as ``league(rng, num_rivals)`` by :class:`~fort_env.envs.single_agent.SingleAgentEnv` at
    each reset, it draws one opponent per rival seat. Agents are built with ``agents.make`` on first
    use and cached in the process (the cache is not pickled: each env worker builds its own,
    and ``agents.learned.ppo`` caches loaded snapshots by file).

    Args:
        bots: agent spec -> weight.
        snapshots: ``ppo:PATH`` specs of frozen learners, newest last.
        snapshot_weight: total weight shared equally by the snapshots.
    """

    def __init__(
        self,
        bots: Mapping[str, float],
        snapshots: Sequence[str] = (),
        snapshot_weight: float = 0.0,
    ) -> None:
        self.bots = dict(bots)
        self.snapshots = list(snapshots)
        self.snapshot_weight = float(snapshot_weight)
        self._cache: dict[str, Any] = {}

    def weights(self) -> dict[str, float]:
        """Spec -> normalised sampling probability."""
        w = dict(self.bots)
        if self.snapshots and self.snapshot_weight > 0:
            for s in self.snapshots:
                w[s] = w.get(s, 0.0) + self.snapshot_weight / len(self.snapshots)
        total = sum(w.values())
        return {k: v / total for k, v in w.items() if v > 0}

    def agent(self, spec: str) -> Any:
        """The (cached) agent built from ``spec``."""
        if spec not in self._cache:
            self._cache[spec] = agents.make(spec)
        return self._cache[spec]

    def __call__(self, rng: np.random.Generator, num_rivals: int) -> list[Any]:
        w = self.weights()
        specs = list(w)
        picks = rng.choice(len(specs), size=num_rivals, p=np.array([w[s] for s in specs]))
        return [self.agent(specs[i]) for i in picks]

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_cache"] = {}
        return d


def opponent_kind(name: str) -> str:
    """A short label for metrics: ``snapshot`` for frozen learners, else the bot's spec."""
    return "snapshot" if name.startswith("ppo:") else name


# --------------------------------------------------------------------------- environments
def make_env(config: Config, league: League, rank: int) -> gymnasium.Env:
    """Build environment ``rank``: a :class:`SingleAgentEnv` drawing opponents from ``league``,
    in a ``Monitor`` (episode returns for SB3's ``rollout/`` metrics). Call it in the worker
    process: it limits torch to one thread there."""
    torch.set_num_threads(1)
    env = SingleAgentEnv(
        num_players=config.num_players,
        setup=config.setup,
        opponent_sampler=league,
        reward=config.reward,
        shaping=config.shaping,
        opponent_info=decision_info,
    )
    return Monitor(env)


def _env_factory(config: Config, league: League, rank: int) -> Callable[[], gymnasium.Env]:
    def thunk() -> gymnasium.Env:
        return make_env(config, league, rank)

    return thunk


VEC_ENVS = ("auto", "batch", "subproc", "dummy")
ALGOS = ("maskable_ppo", "ppo")
"""The learners ``Config.algo`` may name."""
CRITICS = ("obs", "table")
"""What the lean PPO's critic may read (``Config.critic``)."""
MAX_BATCH_ENVS = 4096
"""The most games ``n_envs`` may name for the lean PPO (one C++ batch; 256 for MaskablePPO)."""
MAX_AUTO_ENV_THREADS = 16
"""``env_threads=0`` uses every core up to this many (the batch stops scaling near it)."""


def _device_name_ok(name: str) -> bool:
    if name in ("auto", "cpu", "cuda"):
        return True
    head, _, index = name.partition(":")
    return head == "cuda" and index.isdigit() and len(index) <= 3


def resolve_device(name: str) -> str:
    """The torch device ``name`` means: ``auto`` is ``cuda`` when torch sees a GPU, else
    ``cpu``.

    Raises:
        ConfigError: not ``auto``, ``cpu``, ``cuda`` or ``cuda:K``; or CUDA asked for where
            torch sees no GPU (or not that many).
    """
    if not _device_name_ok(name):
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


EVALS_PER_BUDGET = 4
"""With a time budget, a periodic evaluation also falls due every ``1 / EVALS_PER_BUDGET`` of
it, so a run on a slow machine, which reaches fewer than ``eval_freq`` steps, still draws a
learning curve."""


def evaluation_due(
    config: Config, state: Mapping[str, Any], timesteps: int, elapsed: float
) -> bool:
    """Whether a periodic evaluation is due: ``eval_freq`` steps since the last one, or, with
    a time budget, :data:`EVALS_PER_BUDGET` of it in seconds since then (``state``'s
    ``last_eval`` and ``last_eval_seconds``)."""
    if timesteps - int(state["last_eval"]) >= config.eval_freq:
        return True
    if config.time_budget_minutes is None:
        return False
    every = 60.0 * config.time_budget_minutes / EVALS_PER_BUDGET
    return elapsed - float(state.get("last_eval_seconds", 0.0)) >= every


EVAL_SEED_OFFSET = 7
"""Periodic evaluations play the deals of seed ``config.seed + EVAL_SEED_OFFSET`` (every time)."""
FINAL_EVAL_SEED_OFFSET = 100_000
"""The final evaluation's deals: seed ``config.seed + FINAL_EVAL_SEED_OFFSET`` (others than
the periodic ones')."""
EVAL_META_KEYS = ("timesteps", "wall_seconds", "games", "ci95")
"""Keys of an entry of ``eval.json``'s ``evals`` that are not an opponent's win rate."""


def vec_env_kind(config: Config) -> str:
    """The vector env ``config.vec_env`` resolves to: ``auto`` is ``batch`` when the compiled
    core is usable (``fort_env.core.default_backend() == "cpp"``), else ``subproc``.

    Raises:
        ValueError: an unknown ``vec_env``.
    """
    if config.vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {VEC_ENVS}, got {config.vec_env!r}")
    if config.vec_env == "auto":
        if default_backend() == "cpp":
            return "batch"
        # one process per env pays off up to a couple per core; more would only cost memory
        return "subproc" if config.n_envs <= 2 * (os.cpu_count() or 1) else "dummy"
    return config.vec_env


def make_vec_env(config: Config, league: League) -> VecEnv:
    """The ``n_envs`` training environments in the vector env that :func:`vec_env_kind` names:
    ``FortBatchVecEnv`` (``"batch"``: the games in C++, opponents drawn from ``league``, in
    SB3's ``VecMonitor`` for the episode returns), or :func:`make_env`'s ``SingleAgentEnv`` in
    ``SubprocVecEnv`` (``"subproc"`` with more than one env) or ``DummyVecEnv`` (in this
    process). Not seeded: call ``seed()`` on it."""
    kind = vec_env_kind(config)
    if kind == "batch":
        venv = FortBatchVecEnv(
            config.n_envs,
            num_players=config.num_players,
            setup=config.setup,
            opponent_sampler=league,
            reward=config.reward,
            shaping=config.shaping,
            opponent_info=decision_info,
            threads=resolve_threads(config)[0],
        )
        return VecMonitor(venv)
    fns = [_env_factory(config, league, i) for i in range(config.n_envs)]
    if kind == "subproc" and config.n_envs > 1:
        return SubprocVecEnv(fns, start_method="forkserver")
    return DummyVecEnv(fns)


def lr_schedule(config: Config) -> Callable[[float], float]:
    """The learning rate as SB3 asks for it (of the remaining progress, 1 -> 0): linear from
    ``learning_rate`` down to ``lr_final_fraction`` of it (SB3's ``LinearSchedule``)."""
    lr = config.learning_rate
    return LinearSchedule(lr, lr * config.lr_final_fraction, end_fraction=1.0)


def make_model(config: Config, vec_env: VecEnv, tensorboard_log: str | None = None) -> MaskablePPO:
    """A new ``MaskablePPO`` learner on ``vec_env`` with the configuration's MLP policy and
    hyperparameters (CPU; ``fort_env.tools.bench`` builds the quick preset's learner with it)."""
    return MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=lr_schedule(config),
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(config.net_arch), "vf": list(config.net_arch)}},
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=learner_device(config),
        verbose=0,
    )


# --------------------------------------------------------------------------- evaluation
def evaluate(
    model_path: str | Path,
    opponents: Sequence[str],
    games: int,
    config: Config,
    workers: int = 1,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """Tournaments of the saved model against each opponent (``agents.arena.tournament``).

    Returns ``{opponent: run_tournament result}`` (``num_players`` seats: the model and
    ``num_players - 1`` copies of the opponent, seats rotating).
    """
    spec = f"ppo:{model_path}" + ("" if config.deterministic_eval else ":deterministic=0")
    out = {}
    for i, opponent in enumerate(opponents):
        specs = [spec] + [opponent] * (config.num_players - 1)
        result = run_tournament(
            specs,
            config.num_players,
            games,
            seed=seed + i,
            workers=workers,
            setup=config.setup,
            progress=False,
        )
        out[opponent] = result
    return out


def model_win_rate(result: Mapping[str, Any]) -> tuple[float, list[float]]:
    """The model's (first seat spec's) win rate and its 95% interval in a tournament result."""
    first = next(iter(result["agents"].values()))
    return float(first["win_rate"]), list(first["win_rate_ci95"])


def periodic_evaluation(
    config: Config,
    out: Path,
    league: League,
    state: dict[str, Any],
    timesteps: int,
    elapsed: float,
    checkpoint: Path,
    add_snapshot: Callable[[], Any],
    log: Callable[[str, float], Any],
    verbose: int = 1,
) -> dict[str, float]:
    """One periodic evaluation of the checkpoint against ``config.eval_opponents`` (both
    trainers): records it in ``state["evals"]`` and through ``log`` (``eval/...`` metrics),
    calls ``add_snapshot`` when the first opponent's rate is the best so far (with
    ``snapshot_weight > 0``), saves the run state. Returns opponent -> win rate."""
    # The same seed at every evaluation: each one replays the same deals (paired
    # evaluations), so successive rates differ by the learner, not by the deals.
    results = evaluate(
        checkpoint,
        config.eval_opponents,
        config.eval_games,
        config,
        workers=config.eval_workers,
        seed=state.get("eval_seed", config.seed + EVAL_SEED_OFFSET),
    )
    rates, intervals = {}, {}
    for opponent, result in results.items():
        rate, ci = model_win_rate(result)
        rates[opponent], intervals[opponent] = rate, ci
        log(f"eval/win_rate_vs_{opponent}", rate)
        log(f"eval/win_rate_vs_{opponent}_ci95_low", ci[0])
        log(f"eval/win_rate_vs_{opponent}_ci95_high", ci[1])
    state["evals"].append(
        {
            "timesteps": timesteps,
            "wall_seconds": round(elapsed, 1),
            **rates,
            "games": config.eval_games,
            "ci95": intervals,
        }
    )
    key = rates[config.eval_opponents[0]]
    if config.snapshot_weight > 0 and key >= state["best"]:
        state["best"] = key
        add_snapshot()
    save_state(out, league, state)
    if verbose:
        shown = ", ".join(
            f"{k} {v:.2f} [{intervals[k][0]:.2f}, {intervals[k][1]:.2f}]" for k, v in rates.items()
        )
        print(
            f"[{timesteps} steps, {elapsed:.0f} s] eval win rate "
            f"({config.eval_games} games each, Wilson 95% interval): {shown}"
        )
    return rates


# --------------------------------------------------------------------------- callback
class SelfPlayCallback(BaseCallback):
    """Logs league win rates and ``charts/SPS``, evaluates and checkpoints every ``eval_freq``
    timesteps, adds snapshots to the league when the learner improves, and stops training
    when the time budget is spent.

    Args:
        config: the run's configuration.
        out: the output directory.
        league: the league the environments draw from (updated in the workers through
            ``env_method("set_opponent_sampler", league)``).
        state: the resumable run state (``history``, ``evals``, ``best``, ``last_eval``,
            ``elapsed_before``); updated in place.
        start_time: ``time.perf_counter()`` when this session started.
        verbose: 1 prints each evaluation.
    """

    def __init__(
        self,
        config: Config,
        out: Path,
        league: League,
        state: dict[str, Any],
        start_time: float,
        verbose: int = 1,
    ) -> None:
        super().__init__(verbose)
        self.config = config
        self.out = out
        self.league = league
        self.state = state
        self.start_time = start_time
        self.results: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=config.log_window))
        self.last_time = time.perf_counter()
        self.last_steps = 0

    def _on_training_start(self) -> None:
        self.last_steps = self.num_timesteps
        self.last_time = time.perf_counter()

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "won" in info:
                for name in info["opponents"]:
                    self.results[opponent_kind(name)].append(float(info["won"]))
                self.results["all"].append(float(info["won"]))
        if evaluation_due(self.config, self.state, self.num_timesteps, self.elapsed()):
            self.periodic()
        budget = self.config.time_budget_minutes
        if budget is not None and self.elapsed() > budget * 60:
            if self.verbose:
                print(f"time budget of {budget} minutes reached at {self.num_timesteps} steps")
            self.state["stopped_by_budget"] = True
            return False
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        sps = (self.num_timesteps - self.last_steps) / max(now - self.last_time, 1e-9)
        self.last_time, self.last_steps = now, self.num_timesteps
        self.logger.record("charts/SPS", sps)
        self.logger.record("league/size", len(self.league.weights()))
        self.logger.record("league/snapshots", len(self.league.snapshots))
        point: dict[str, Any] = {
            "timesteps": self.num_timesteps,
            "wall_seconds": round(self.elapsed(), 1),
            "train_win_rate": {},
        }
        for kind, results in self.results.items():
            if results:
                rate = float(np.mean(results))
                self.logger.record(f"league/win_rate_vs_{kind}", rate)
                point["train_win_rate"][kind] = rate
        self.state["history"].append(point)

    def elapsed(self) -> float:
        """Training wall time so far, over every session of a resumed run (seconds)."""
        return self.state["elapsed_before"] + time.perf_counter() - self.start_time

    def periodic(self) -> None:
        """Checkpoint, evaluate against ``eval_opponents``, maybe add a snapshot."""
        self.state["last_eval"] = self.num_timesteps
        self.state["last_eval_seconds"] = self.elapsed()
        ckpt = save_checkpoint(self.model, self.out, self.league, self.state, self.config)
        periodic_evaluation(
            self.config,
            self.out,
            self.league,
            self.state,
            self.num_timesteps,
            self.elapsed(),
            ckpt,
            self.add_snapshot,
            self.logger.record,
            self.verbose,
        )

    def add_snapshot(self) -> None:
        """Freeze the learner into ``league/`` and send the grown league to the workers."""
        league_dir = self.out / "league"
        league_dir.mkdir(parents=True, exist_ok=True)
        path = save_policy(
            self.model,
            league_dir / f"snapshot_{self.num_timesteps}",
            num_players=self.config.num_players,
            setup=self.config.setup,
            training=dataclasses.asdict(self.config),
        )
        suffix = "" if self.config.snapshot_deterministic else ":deterministic=0"
        self.league.snapshots.append(f"ppo:{path}{suffix}")
        del self.league.snapshots[: -self.config.max_snapshots]
        env = self.training_env
        assert isinstance(env, VecEnv)
        env.env_method("set_opponent_sampler", self.league)


# --------------------------------------------------------------------------- checkpoints
def save_state(out: Path, league: League, state: Mapping[str, Any]) -> None:
    """Write ``checkpoints/state.json``: the league, the history, the counters."""
    d = dict(state)
    d["league"] = {
        "bots": league.bots,
        "snapshots": [s.replace(str(out), "{out}", 1) for s in league.snapshots],
        "snapshot_weight": league.snapshot_weight,
    }
    path = out / "checkpoints" / "state.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(d, indent=1))


def save_checkpoint(
    model: Any, out: Path, league: League, state: dict[str, Any], config: Config
) -> Path:
    """Save the learner to ``checkpoints/latest.safetensors`` (+ ``latest.json``, the
    optimizer's ``latest.optimizer.safetensors``) and the run state beside it; returns the
    ``.safetensors`` path."""
    path = save_checkpoint_files(
        model,
        out / "checkpoints" / "latest",
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
    (what :class:`SelfPlayCallback`, :func:`run` and :func:`plot_learning_curve` read);
    raises ``ConfigError`` naming the field."""

    def bad(field: str, problem: str) -> ConfigError:
        return ConfigError(f"field {field!r}: {problem}")

    if not isinstance(d, dict):
        raise ConfigError(f"must be a JSON object, got {describe(d)}")
    for key in ("league", "history", "evals", "best", "last_eval", "elapsed_before"):
        if key not in d:
            raise bad(key, "missing")
    for key in ("best", "elapsed_before"):
        if not _is_number(d[key]) or d[key] < 0:
            raise bad(key, f"must be a number >= 0, got {describe(d[key])}")
    for key in ("last_eval", "timesteps"):
        if key in d and not (_is_int(d[key]) and d[key] >= 0):
            raise bad(key, f"must be an int >= 0, got {describe(d[key])}")
    for key in ("eval_seed", "final_eval_seed"):  # absent in runs saved before them
        if key in d and not (_is_int(d[key]) and 0 <= d[key] < 2**32):
            raise bad(key, f"must be an int in [0, 2**32), got {describe(d[key])}")
    if "stopped_by_budget" in d and not isinstance(d["stopped_by_budget"], bool):
        shown = describe(d["stopped_by_budget"])
        raise bad("stopped_by_budget", f"must be true or false, got {shown}")
    history, evals = d["history"], d["evals"]
    if not isinstance(history, list) or not all(
        isinstance(p, dict)
        and _is_int(p.get("timesteps"))
        and isinstance(p.get("train_win_rate"), dict)
        and all(isinstance(k, str) and _is_number(v) for k, v in p["train_win_rate"].items())
        for p in history
    ):
        raise bad("history", "must be a list of {timesteps: int, train_win_rate: {str: number}}")
    for i, e in enumerate(evals if isinstance(evals, list) else [None]):
        ok = isinstance(e, dict) and _is_int(e.get("timesteps"))
        if ok:
            rates = {k: v for k, v in e.items() if k not in EVAL_META_KEYS}
            ci = e.get("ci95", {})
            ok = (
                all(_is_number(v) for v in rates.values())
                and isinstance(ci, dict)
                and all(
                    isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v)
                    for v in ci.values()
                )
                and all(_is_number(e[k]) for k in ("games", "wall_seconds") if k in e)
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
        or not all(_is_number(v) and v >= 0 for v in bots.values())
    ):
        raise bad("league.bots", "must be an object of agent spec -> weight >= 0")
    if (
        not isinstance(snapshots, list)
        or len(snapshots) > MAX_LEAGUE_ENTRIES
        or not all(isinstance(s, str) and s.startswith("ppo:") for s in snapshots)
    ):
        raise bad("league.snapshots", "must be a list of ppo:PATH specs")
    if not _is_number(weight) or weight < 0:
        raise bad("league.snapshot_weight", f"must be a number >= 0, got {describe(weight)}")
    if not bots and not (snapshots and weight > 0):
        raise bad("league", "no opponent with a weight > 0")
    if sum(bots.values()) + (weight if snapshots else 0) <= 0:
        raise bad("league", "the weights sum to 0")
    return lg


# --------------------------------------------------------------------------- plots
def plot_learning_curve(eval_json: Mapping[str, Any], path: Path) -> None:
    """Training win rates (rolling, per opponent kind) and the evaluations' win rates (with
    their Wilson 95% intervals) against learner timesteps (samples), saved as a PNG."""
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    history = eval_json["history"]
    evals = eval_json["evals"]
    fig = Figure(figsize=(11, 4))
    ax1, ax2 = fig.subplots(1, 2)
    kinds = sorted({k for p in history for k in p["train_win_rate"]})
    for kind in kinds:
        xs = [p["timesteps"] for p in history if kind in p["train_win_rate"]]
        ys = [p["train_win_rate"][kind] for p in history if kind in p["train_win_rate"]]
        ax1.plot(xs, ys, label=kind, linewidth=2 if kind == "all" else 1)
    ax1.set(
        title="training win rate (rolling)",
        xlabel="learner timesteps",
        ylabel="win rate",
        ylim=(0, 1.02),
    )
    ax1.grid(alpha=0.3)
    if kinds:
        ax1.legend(fontsize=8, loc="best")
    opponents = sorted({k for e in evals for k in e if k not in EVAL_META_KEYS})
    for opponent in opponents:
        pts = [e for e in evals if opponent in e]
        xs = [e["timesteps"] for e in pts]
        ys = [e[opponent] for e in pts]
        # Wilson 95% intervals where the run recorded them (older runs did not)
        cis = [e.get("ci95", {}).get(opponent, (y, y)) for e, y in zip(pts, ys, strict=True)]
        yerr = [
            [y - lo for y, (lo, _) in zip(ys, cis, strict=True)],
            [hi - y for y, (_, hi) in zip(ys, cis, strict=True)],
        ]
        games = {e.get("games") for e in pts} - {None}
        label = f"vs {opponent}" + (f" ({max(games)} games each)" if games else "")
        ax2.errorbar(xs, ys, yerr=yerr, marker="o", capsize=3, label=label)
    for opponent, final in eval_json.get("final", {}).items():
        ax2.errorbar(
            [eval_json["timesteps"]],
            [final["win_rate"]],
            yerr=[
                [final["win_rate"] - final["win_rate_ci95"][0]],
                [final["win_rate_ci95"][1] - final["win_rate"]],
            ],
            fmt="s",
            capsize=4,
            label=f"final vs {opponent} ({final['games']} games)",
        )
    ax2.set(
        title="evaluation win rate (tournaments)",
        xlabel="learner timesteps (samples)",
        ylim=(0, 1.02),
    )
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="best")
    from matplotlib.ticker import FuncFormatter

    for ax in (ax1, ax2):  # 100k, not 100000: long tick labels ran into each other
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}k"))
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    write_bytes(path, buffer.getvalue())


# --------------------------------------------------------------------------- main
def run(
    config: Config,
    out: str | Path,
    resume: bool = False,
    verbose: int = 1,
    progress_bar: bool = True,
) -> dict[str, Any]:
    """Train with ``config``, write the outputs into ``out`` (module docstring) and return
    the content of ``eval.json``.

    Args:
        config: the run's configuration (written to ``out/config.json``).
        out: the output directory.
        resume: continue the run checkpointed in ``out`` (model, league, history, step
            count); pass its saved configuration (``config_from_dict`` of ``config.json``),
            with a larger ``total_timesteps`` or ``time_budget_minutes`` to train on.
        verbose: 1 prints each periodic evaluation.
        progress_bar: show progress (``train.progress.ProgressCallback``: a bar over the
            run's budget on a terminal, a log line every 15 s elsewhere).

    Raises:
        FileNotFoundError: ``resume`` without a checkpoint in ``out``.
        FileExistsError: ``out`` already holds a model and ``resume`` is false.
        RunFolderError: ``resume`` and a corrupt ``checkpoints/state.json`` (:func:`load_state`).
    """
    out = Path(out).resolve()
    if not resume and (out / "checkpoints").exists():
        raise FileExistsError(
            f"{out} already holds a run: continue it with --resume, replace it with "
            "--overwrite, or pick another --out"
        )
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    # -- seeding: every random source derives from config.seed
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    _, torch_threads = resolve_threads(config)
    torch.set_num_threads(torch_threads)

    if resume:  # (``train.cli.train`` passes the saved config.json with its overrides)
        state, league = load_state(out)
    else:
        league = League(config.opponents, (), config.snapshot_weight)
        state = {"history": [], "evals": [], "best": 0.0, "last_eval": 0, "elapsed_before": 0.0}
    # The evaluations' deals: drawn fresh for each run (a figure then says how this recipe
    # does, not how it does on one set of deals), kept for the whole run (periodic
    # evaluations are paired) and recorded in state.json and eval.json.
    for key in ("eval_seed", "final_eval_seed"):
        if key not in state:
            state[key] = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    write_text(out / "config.json", json.dumps(dataclasses.asdict(config), indent=1))

    if config.algo == "ppo":  # the lean PPO (train/ppo.py), every seat a sample
        from train.ppo import learn

        network, timesteps, elapsed = learn(
            config,
            out,
            league,
            state,
            start,
            resume=resume,
            verbose=verbose,
            progress_bar=progress_bar,
        )
        state["elapsed_before"] = elapsed
        policy: Any = network
    else:
        model, timesteps = _learn_sb3(
            config, out, league, state, start, resume, verbose, progress_bar
        )
        policy = model
    train_seconds = time.perf_counter() - start

    model_path = save_policy(
        policy,
        out / "model",
        num_players=config.num_players,
        setup=config.setup,
        training=dataclasses.asdict(config),
        timesteps=timesteps,
    )
    t0 = time.perf_counter()
    final = evaluate(
        model_path,
        config.final_eval_opponents,
        config.final_eval_games,
        config,
        workers=config.eval_workers,
        seed=state["final_eval_seed"],
    )
    eval_seconds = time.perf_counter() - t0
    summary = {
        "model": str(model_path),
        "preset": config.preset,
        "timesteps": int(timesteps),
        "algo": config.algo,
        "device": learner_device(config),
        "eval_seeds": {"periodic": state["eval_seed"], "final": state["final_eval_seed"]},
        "train_wall_seconds": round(train_seconds, 1),
        "eval_wall_seconds": round(eval_seconds, 1),
        "total_wall_seconds": round(time.perf_counter() - start, 1),
        "stopped_by_time_budget": bool(state.get("stopped_by_budget", False)),
        "final": {},
        "tournaments": {},
        "evals": state["evals"],
        "history": state["history"],
        "league": league.weights(),
    }
    for opponent, result in final.items():
        first = next(iter(result["agents"].values()))
        summary["final"][opponent] = {
            k: first[k] for k in ("games", "wins", "win_rate", "win_rate_ci95", "mean_score")
        }
        summary["tournaments"][opponent] = result
    write_text(out / "eval.json", json.dumps(summary, indent=1))
    plot_learning_curve(summary, out / "learning_curve.png")
    return summary


def _learn_sb3(
    config: Config,
    out: Path,
    league: League,
    state: dict[str, Any],
    start: float,
    resume: bool,
    verbose: int,
    progress_bar: bool,
) -> tuple[MaskablePPO, int]:
    """Train with sb3-contrib's MaskablePPO (``algo="maskable_ppo"``); returns the model and
    its timesteps. The checkpoint is saved whatever happens."""
    vec_env = make_vec_env(config, league)
    vec_env.seed(config.seed + 1000 * len(state["evals"]))

    model = make_model(config, vec_env, tensorboard_log=str(out / "tb"))
    if resume:  # the checkpoint's tensors into the learner built from config.json
        load_into_model(model, out / "checkpoints" / "latest.safetensors")
    callback = SelfPlayCallback(config, out, league, state, start, verbose=verbose)
    callbacks: list[BaseCallback] = [callback]
    if progress_bar:  # a bar over the real budget (steps or time), log lines if not a tty
        budget = config.time_budget_minutes
        seconds = None if budget is None else budget * 60
        callbacks.append(ProgressCallback(config.total_timesteps, seconds, callback.elapsed))
    remaining = config.total_timesteps - model.num_timesteps
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=CallbackList(callbacks),
                tb_log_name="selfplay",
                reset_num_timesteps=not resume,
            )
    finally:
        state["elapsed_before"] = callback.elapsed()
        save_checkpoint(model, out, league, state, config)
        vec_env.close()
    return model, int(model.num_timesteps)


def format_summary(summary: Mapping[str, Any]) -> str:
    """The evaluation tables of a finished run, as text (``fort-env train`` prints it)."""
    lines = [
        f"model: {summary['model']}",
        f"trained {summary['timesteps']} timesteps in {summary['train_wall_seconds']:.0f} s; "
        f"evaluation {summary['eval_wall_seconds']:.0f} s; "
        f"total {summary['total_wall_seconds']:.0f} s",
    ]
    for opponent, result in summary["tournaments"].items():
        lines.append(f"\nvs {opponent}:")
        lines.append(format_table(result))
    return "\n".join(lines)


def clean_output(out: str | Path) -> None:
    """Remove a previous run's outputs from ``out`` (used by ``--overwrite``)."""
    out = Path(out)
    for name in ("checkpoints", "league", "tb"):
        shutil.rmtree(out / name, ignore_errors=True)
    for name in (
        "model.safetensors",
        "model.json",
        "model.zip",  # written before the safetensors format
        "config.json",
        "eval.json",
        "learning_curve.png",
    ):
        (out / name).unlink(missing_ok=True)
