"""Self-play training of a Fort agent: the public names of ``train/``, one import away.

Run it as ``fort-env train --preset quick --out runs/quick`` (or ``python -m train --preset
quick``). What it does, top to bottom:

1. **Config** (``train.config``): :class:`Config`, a typed dataclass with one docstring per
   field; :data:`PRESETS` holds ``quick`` (minutes on a 2-core CPU, beats ``random``), ``full``
   (hours, aims at ``heuristic``) and ``tiny`` (seconds; the smoke test). Any field can be
   overridden.
2. **Seeding** (``train.runner.run``): one block seeds Python, NumPy, torch, the model and
   the environments; the learner's device is resolved once there (``train.device``).
3. **Environments** (``train.envs``): ``n_envs`` games of
   :class:`fort_env.envs.single_agent.SingleAgentEnv`'s rules in one SB3 vector env: by default
   :class:`fort_env.envs.vector.FortBatchVecEnv` (every game stepped in C++, the league's
   ``random`` played there too, the other opponents grouped and called from this process), or,
   without the compiled core, ``SubprocVecEnv`` (one process per env). The learner's seat
   rotates over episodes; opponents are drawn from the league for each game.
4. **League** (``train.league.League``): a weighted mix of the zoo's bots (``random``, the
   heuristics) and frozen snapshots of the learner (``ppo:PATH``), added whenever an evaluation
   shows the learner has improved (at most ``max_snapshots``, the newest kept).
5. **Learning**: the lean PPO (``train.ppo``, the presets' learner: every seat of the C++
   self-play batch a sample), or ``sb3_contrib.MaskablePPO`` with an MLP policy
   (``train.maskable_ppo``; the mask is the wrapper's ``action_masks()``).
6. **Callbacks** (``train.maskable_ppo.SelfPlayCallback``): namespaced TensorBoard metrics
   (``league/...``, ``eval/...``, ``charts/...``; SB3 adds ``rollout/``, ``train/``,
   ``time/``), periodic checkpoints (``train.checkpoints``) and evaluations through the
   tournament runner (``train.evaluation``, ``agents.arena.tournament``), league updates, a
   wall-time budget; with ``train.progress.ProgressCallback`` in SB3's ``CallbackList``. (SB3's
   ``CheckpointCallback`` and ``EvalCallback`` do not save the league and the resumable
   counters with the model, nor evaluate by tournament, so they are not used.)
7. **Outputs** in ``out``: ``model.safetensors`` + ``model.json`` (the policy's tensors and
   its JSON description, ``agents.learned.policy_file``; loads as
   ``agents.make("ppo:OUT/model.safetensors")``, nothing unpickled), ``config.json``,
   ``eval.json`` (final tournaments, history), ``learning_curve.png`` (``train.plots``),
   ``tb/`` (TensorBoard), ``checkpoints/`` (for ``resume``), ``league/`` (snapshots, in the
   same format).

Resume an interrupted run with ``resume=True`` (``--resume``): the learner is rebuilt from
``config.json`` and the checkpoint's tensors are loaded into it (policy weights, Adam's
moments, the step count; ``checkpoints/latest.*``), and the league, the history and the
counters come back from ``checkpoints/state.json``. Nothing is unpickled: a ``.zip`` in
``checkpoints/`` or ``league/`` is never loaded. Both files are checked before anything is
built (``train.config.config_from_dict``, ``train.checkpoints.load_state``: types, ranges, the
network's limits), and an agent spec in them that asks for ``trusted=1`` is refused
(``train.run_files.RunFolderError``): trust to unpickle comes only from the caller, never from
a run folder. Not restored: the random generators' states (a resumed run is not
bit-identical to an uninterrupted one).

This module only gathers the names users import (``from train.selfplay import run,
make_config``); each lives in the module of its job, listed above, and those modules never
import this one.

Sources of the habits: CleanRL ``ppo.py`` (one file, dataclass config, seeding block,
``charts/SPS``); sb3-contrib's ``MaskablePPO`` docs (``action_masks()``); PettingZoo's SB3
tutorial for the single-agent wrapper, with the seat pairing fixed
(``fort_env/envs/single_agent.py``).
"""

from __future__ import annotations

from train.checkpoints import EVAL_META_KEYS, load_state, save_checkpoint, save_state
from train.config import (
    ALGOS,
    CRITICS,
    MAX_BATCH_ENVS,
    PRESETS,
    VEC_ENVS,
    Config,
    config_from_dict,
    make_config,
)
from train.device import MAX_AUTO_ENV_THREADS, learner_device, resolve_device, resolve_threads
from train.envs import make_env, make_vec_env, vec_env_kind
from train.evaluation import (
    EVAL_SEED_OFFSET,
    EVALS_PER_BUDGET,
    FINAL_EVAL_SEED_OFFSET,
    evaluate,
    evaluation_due,
    model_win_rate,
    periodic_evaluation,
)
from train.league import League, opponent_kind
from train.maskable_ppo import SelfPlayCallback, lr_schedule, make_model
from train.plots import plot_learning_curve
from train.run_files import MAX_LEAGUE_ENTRIES, MAX_RUN_JSON_BYTES, RunFolderError, read_run_json
from train.runner import clean_output, format_summary, run

__all__ = [
    "ALGOS",
    "CRITICS",
    "EVALS_PER_BUDGET",
    "EVAL_META_KEYS",
    "EVAL_SEED_OFFSET",
    "FINAL_EVAL_SEED_OFFSET",
    "MAX_AUTO_ENV_THREADS",
    "MAX_BATCH_ENVS",
    "MAX_LEAGUE_ENTRIES",
    "MAX_RUN_JSON_BYTES",
    "PRESETS",
    "VEC_ENVS",
    "Config",
    "League",
    "RunFolderError",
    "SelfPlayCallback",
    "clean_output",
    "config_from_dict",
    "evaluate",
    "evaluation_due",
    "format_summary",
    "learner_device",
    "load_state",
    "lr_schedule",
    "make_config",
    "make_env",
    "make_model",
    "make_vec_env",
    "model_win_rate",
    "opponent_kind",
    "periodic_evaluation",
    "plot_learning_curve",
    "read_run_json",
    "resolve_device",
    "resolve_threads",
    "run",
    "save_checkpoint",
    "save_state",
    "vec_env_kind",
]
