"""fort_env: the card game Fort as a rules engine and a PettingZoo environment.

Engine (no PettingZoo, Gymnasium or torch): :class:`FortGame`, :class:`FortState`.
Environment (``env.py``): :func:`env`, :class:`raw_env`, :mod:`fort_v0`. Records: :func:`replay`.
Importing the package registers ``fort_v0`` with PettingZoo and the single-agent view
``"fort_env/Fort-v0"`` with Gymnasium (:mod:`fort_env.envs.registration`), and Fort with
OpenSpiel as ``"python_fort"`` once pyspiel is imported, before or after ``fort_env``
(:mod:`fort_env.envs.openspiel_hook`: pyspiel itself is never imported for it).
"""

from fort_env import fort_v0  # cpp_backend: FortGame(backend="cpp")
from fort_env.core import FortGame, FortState
from fort_env.envs import box as box_env
from fort_env.envs import openspiel_hook, registration
from fort_env.envs.aec import env, raw_env
from fort_env.envs.parallel import parallel_env
from fort_env.game.cards import Card, CardSet, load_card_set
from fort_env.game.constants import TERMINAL_PLAYER
from fort_env.game.decisions import Decision, DecisionKind
from fort_env.game.errors import (
    CardDataError,
    ConfigError,
    FortError,
    IllegalActionError,
    ModelFileError,
    OutputFileError,
    StateError,
)
from fort_env.native import backend as cpp_backend
from fort_env.records import replay
from fort_env.views.observation import ObservationLayout, observation_layout

__all__ = [
    "TERMINAL_PLAYER",
    "Card",
    "CardDataError",
    "CardSet",
    "ConfigError",
    "Decision",
    "DecisionKind",
    "FortError",
    "FortGame",
    "FortState",
    "IllegalActionError",
    "ModelFileError",
    "ObservationLayout",
    "OutputFileError",
    "StateError",
    "box_env",
    "cpp_backend",
    "env",
    "fort_v0",
    "load_card_set",
    "observation_layout",
    "parallel_env",
    "raw_env",
    "registration",
    "replay",
]

openspiel_hook.install()  # "python_fort" for pyspiel, whenever it is imported
