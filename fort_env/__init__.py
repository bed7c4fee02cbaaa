"""fort_env: the card game Fort as a rules engine and a PettingZoo environment.

Engine (no PettingZoo, Gymnasium or torch): :class:`FortGame`, :class:`FortState`.
Environment (``env.py``): :func:`env`, :class:`raw_env`, :mod:`fort_v0`. Records: :func:`replay`.
Importing the package registers ``fort_v0`` with PettingZoo and the single-agent view
``"fort_env/Fort-v0"`` with Gymnasium (:mod:`fort_env.registration`).
"""

from . import box_env, cpp_backend, fort_v0, registration  # cpp_backend: FortGame(backend="cpp")
from .cards import Card, CardSet, load_card_set
from .constants import TERMINAL_PLAYER
from .core import FortGame, FortState
from .decisions import Decision, DecisionKind
from .env import env, raw_env
from .errors import (
    CardDataError,
    ConfigError,
    FortError,
    IllegalActionError,
    ModelFileError,
    StateError,
)
from .observation import ObservationLayout, observation_layout
from .records import replay

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
    "StateError",
    "box_env",
    "cpp_backend",
    "env",
    "fort_v0",
    "load_card_set",
    "observation_layout",
    "raw_env",
    "registration",
    "replay",
]
