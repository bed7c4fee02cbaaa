"""The differential tests compare the compiled core with the Python reference engine: games
made without a backend are the reference (``backend="python"``) here, whatever the default of
the session (the C++ side is always asked for by name)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _python_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORT_ENV_BACKEND", "python")
