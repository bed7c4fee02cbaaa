"""fort_env: the card game Fort as a rules engine and a PettingZoo environment."""

from .cards import Card, CardSet, load_card_set
from .errors import CardDataError, ConfigError, FortError, IllegalActionError, StateError

__all__ = [
    "Card", "CardDataError", "CardSet", "ConfigError", "FortError", "IllegalActionError",
    "StateError", "load_card_set",
]  # fmt: skip
