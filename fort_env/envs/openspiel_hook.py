"""``import fort_env`` registers Fort with OpenSpiel as ``"python_fort"`` when pyspiel is used.

OpenSpiel finds a Python game only once the module defining it has called
``pyspiel.register_game``: ``fort_env.envs.openspiel`` does it as it is imported. Importing that
module from ``import fort_env`` would import pyspiel (about 0.1 s, and OpenSpiel's whole C++
library) in every program, and fail where the ``openspiel`` extra is not installed. So
:func:`install`, called by ``import fort_env``, registers the game at the moment it can be
used, and costs nothing otherwise:

- pyspiel already imported: the game is registered now;
- pyspiel imported later (``import pyspiel``, or through ``open_spiel.python``): a finder on
  ``sys.meta_path`` wraps pyspiel's loader and registers the game right after pyspiel
  itself has loaded, before the import returns, so the first ``pyspiel.load_game("python_fort")``
  finds it; the finder then leaves ``sys.meta_path`` (a ``find_spec`` alone, such as
  ``importlib.util.find_spec("pyspiel")`` checking that OpenSpiel is installed, loads nothing
  and leaves it in place);
- pyspiel not installed: nothing is imported, nothing is registered.

A registration that fails (an ``open_spiel`` this module does not support) warns with a
``RuntimeWarning`` naming the reason; ``import pyspiel`` itself still succeeds.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec

__all__ = ["PYSPIEL", "install", "register"]

PYSPIEL = "pyspiel"
"""The module whose import triggers the registration (OpenSpiel's compiled core)."""


def register() -> None:
    """Register ``"python_fort"`` with pyspiel (import ``fort_env.envs.openspiel``); a
    failure is a ``RuntimeWarning``, not an exception (it must not break ``import pyspiel``)."""
    try:
        from fort_env.envs import openspiel  # noqa: F401  (registers the game)
    except Exception as exc:
        warnings.warn(
            f"fort_env could not register 'python_fort' with OpenSpiel ({type(exc).__name__}: "
            f"{exc}); import fort_env.envs.openspiel to see the whole error",
            RuntimeWarning,
            stacklevel=2,
        )


# The import protocol's duck types, not importlib.abc's classes: importing importlib.abc
# (and the importlib.resources it pulls in) cost 3-17 ms of every `import fort_env` here.
class _RegisterAfterLoad:
    """pyspiel's own loader, then :func:`register` once the module is loaded."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self.loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        # the module is pyspiel's loader's, as without this hook
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _PyspielFinder)]
        register()


class _PyspielFinder:
    """Finds pyspiel with the other finders and wraps its loader."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname != PYSPIEL:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, _PyspielFinder):
                continue
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = None if find is None else find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = cast("Loader", _RegisterAfterLoad(spec.loader))
                return spec
        return None


def install() -> None:
    """Register the game now if pyspiel is imported, else when it is (module docstring).
    Idempotent: a second call adds no second finder."""
    if PYSPIEL in sys.modules:
        register()
    elif not any(isinstance(f, _PyspielFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _PyspielFinder())
