"""The configuration of a training run: :class:`Config`, the presets, and ``config.json`` checked.

:class:`Config` is a typed dataclass with one docstring per field (``config.json`` in the run's
folder); :data:`PRESETS` holds ``quick`` (minutes on a 2-core CPU), ``full`` (hours) and
``tiny`` (seconds; the smoke test); :func:`make_config` applies overrides to one.
:func:`config_from_dict` reads a saved ``config.json`` back, every field checked (types, ranges,
the network's limits), and refuses an agent spec in it that asks for ``trusted=1``
(:class:`train.run_files.RunFolderError`: trust to unpickle comes only from the caller).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agents
from fort_env.core import SETUPS
from fort_env.game.constants import MAX_PLAYERS, MIN_PLAYERS, SEED_LIMIT
from fort_env.game.errors import ConfigError, describe
from fort_env.game.inputs import MAX_SEED
from train.run_files import MAX_LEAGUE_ENTRIES, RunFolderError, is_int, is_number

__all__ = [
    "ALGOS",
    "CRITICS",
    "MAX_BATCH_ENVS",
    "PRESETS",
    "VEC_ENVS",
    "Config",
    "config_from_dict",
    "device_name_ok",
    "fold_seed",
    "make_config",
]


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
    """Seeds Python, NumPy, torch, the model, the environments and the evaluations: an int in
    ``[0, 2**62)`` (``fort_env.game.inputs.MAX_SEED``). The seeds derived from it are folded
    into their consumers' ranges (:func:`fold_seed`)."""
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
    """torch threads of the learner's process (``0``: every core,
    :func:`train.device.resolve_threads`; env workers always use 1)."""
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
    init_from: str | None = None
    """Lean PPO: a policy file (``NAME.safetensors``) whose weights start the network
    (fine-tuning, e.g. a zoo model), loaded with every check of
    ``agents.learned.policy_file.load_policy_file``; its table, ``net_arch`` and ``critic``
    must be this run's (``train.checkpoints.load_initial_weights``). ``None``: fresh weights.
    A resumed run starts from its checkpoint instead."""
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
    only (``train.ppo_ops.legal_actions``); ``None``: on a CPU, off on a GPU."""


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


VEC_ENVS = ("auto", "batch", "subproc", "dummy")
ALGOS = ("maskable_ppo", "ppo")
"""The learners ``Config.algo`` may name."""
CRITICS = ("obs", "table")
"""What the lean PPO's critic may read (``Config.critic``)."""
MAX_BATCH_ENVS = 4096
"""The most games ``n_envs`` may name for the lean PPO (one C++ batch; 256 for MaskablePPO)."""


NUMPY_SEED_LIMIT = 2**32
"""numpy's legacy global generator (``np.random.seed``, which Stable-Baselines3 and RLlib
seed too) takes seeds below ``2**32``."""


def fold_seed(value: int, limit: int = SEED_LIMIT, count: int = 1) -> int:
    """``value`` folded so that ``count`` consecutive seeds from it are below ``limit``:
    ``value % (limit - count + 1)``, an int in ``[0, limit - count]``.

    A run's seeds derive from ``Config.seed`` (``seed + 1000 * k`` for a batch of ``count``
    games seeded ``s, s + 1, ...``; numpy's 32-bit legacy seed): a seed near ``MAX_SEED``
    would push them past what the engine (``[0, 2**62)``) or numpy (``[0, 2**32)``) takes.
    Every value already in range is returned as it is, so runs of small seeds deal the same
    games as before the fold.

    Raises:
        ValueError: ``value`` negative, or ``count`` not in ``[1, limit]``.
    """
    if value < 0:
        raise ValueError(f"a seed must not be negative, got {value}")
    if not 1 <= count <= limit:
        raise ValueError(f"count must be in [1, {limit}], got {count}")
    return value % (limit - count + 1)


def device_name_ok(name: str) -> bool:
    """Whether ``name`` is a device ``Config.device`` may name: ``auto``, ``cpu``, ``cuda``
    or ``cuda:K`` (``train.device.resolve_device`` then checks that it exists)."""
    if name in ("auto", "cpu", "cuda"):
        return True
    head, _, index = name.partition(":")
    return head == "cuda" and index.isdigit() and len(index) <= 3


def _check_field(name: str, value: Any, default: Any) -> Any:
    """``value`` of :class:`Config` field ``name`` (of the type of its ``default``), as the
    config holds it (lists back to tuples); raises ``ValueError`` naming the problem."""
    if name in ("net_arch", "critic_arch", "eval_opponents", "final_eval_opponents"):
        kind = int if name in ("net_arch", "critic_arch") else str
        ok = isinstance(value, list) and all(
            (is_int(x) if kind is int else isinstance(x, str)) for x in value
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
            or not all(isinstance(k, str) and is_number(w) and w >= 0 for k, w in value.items())
        ):
            raise ValueError(
                f"must be an object of agent spec -> weight >= 0, got {describe(value)}"
            )
        return dict(value)
    if name in ("sparse_input", "legal_logits"):
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"must be null, true or false, got {describe(value)}")
        return value
    if name == "init_from":
        if value is not None and not (isinstance(value, str) and 0 < len(value) <= 4096):
            raise ValueError(f"must be null or a path, got {describe(value)}")
        return value
    if name == "time_budget_minutes":
        if value is not None and not (is_number(value) and value > 0):
            raise ValueError(f"must be null or a number > 0, got {describe(value)}")
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = is_int(value) and 0 <= value <= 10**15
    elif isinstance(default, float):
        ok = is_number(value) and value >= 0
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
        "device": device_name_ok(config.device),
        "league_share": 0.0 <= config.league_share <= 1.0,
        "critic": config.critic in CRITICS,
        "seed": 0 <= config.seed <= MAX_SEED,
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
