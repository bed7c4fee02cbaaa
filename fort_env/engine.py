"""Compatibility name: the engine's classes now live in ``fort_env.core`` (rules in
``fort_env.rules``). Import ``FortGame``/``FortState`` from ``fort_env`` instead."""

from __future__ import annotations

from .core import SETUPS, FortGame, FortState

__all__ = ["SETUPS", "FortGame", "FortState"]
