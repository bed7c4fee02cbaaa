"""fort_env: the card game Fort as a rules engine and a PettingZoo environment.

Engine (no PettingZoo, Gymnasium or torch): :class:`FortGame`, :class:`FortState`.
"""

from .cards import Card, CardSet, load_card_set
from .constants import TERMINAL_PLAYER
from .decisions import Decision, DecisionKind
from .engine import FortGame, FortState
from .errors import CardDataError, ConfigError, FortError, IllegalActionError, StateError
from .observation import ObservationLayout, observation_layout

__all__ = [
    "TERMINAL_PLAYER", "Card", "CardDataError", "CardSet", "ConfigError", "Decision",
    "DecisionKind", "FortError", "FortGame", "FortState", "IllegalActionError",
    "ObservationLayout", "StateError", "load_card_set", "observation_layout",
]  # fmt: skip
