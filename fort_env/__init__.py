"""fort_env: the card game Fort as a rules engine and a PettingZoo environment.

Engine (no PettingZoo, Gymnasium or torch): :class:`FortGame`, :class:`FortState`.
Environment (``env.py``): :func:`env`, :class:`raw_env`, :mod:`fort_v0`. Records: :func:`replay`.
"""

from . import fort_v0
from .cards import Card, CardSet, load_card_set
from .constants import TERMINAL_PLAYER
from .decisions import Decision, DecisionKind
from .engine import FortGame, FortState
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
    "env",
    "fort_v0",
    "load_card_set",
    "observation_layout",
    "raw_env",
    "replay",
]
