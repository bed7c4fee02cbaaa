"""The logistic fit behind ``agents.bots.evaluation.FITTED``
(``agents/analysis/fit_evaluation.py``)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")

from agents.analysis.fit_evaluation import fit


def test_fit_recovers_known_weights() -> None:
    rng = np.random.default_rng(0)
    w_true = np.array([1.5, -0.7, 0.0, 0.3])
    x = rng.normal(size=(20_000, 4))
    y = (rng.random(20_000) < 1.0 / (1.0 + np.exp(-x @ w_true))).astype(float)
    w = fit(x, y)
    assert w.shape == (4,)
    np.testing.assert_allclose(w, w_true, atol=0.06)


def test_fit_is_the_penalised_maximum_likelihood() -> None:
    """At the optimum the penalised gradient vanishes (the first-order condition)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 3))
    y = (rng.random(500) < 0.5).astype(float)
    w = fit(x, y, l2=1.0)
    grad = x.T @ (1.0 / (1.0 + np.exp(-x @ w)) - y) + 1.0 * w
    assert np.abs(grad).max() < 1e-3


def test_fit_refuses_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match=r"x must be \(n, k\)"):
        fit(np.zeros((5, 2)), np.zeros(4))


def test_command_line_is_typer() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agents.analysis.fit_evaluation", "--help"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "--games" in done.stdout and "--workers" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "agents.analysis.fit_evaluation", "--games", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "--games" in bad.stderr
