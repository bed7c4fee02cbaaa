"""What a training run shows while it runs, and where it writes (``fort-env train``).

- :class:`ProgressCallback`: an SB3 callback. Its bar's total is the run's *real* budget: a run
  stops at ``total_timesteps`` or at its time budget, whichever comes first, so the bar shows
  the larger of the two fractions spent (a ``quick`` run ends at 100% when its 9 minutes are
  up, not at "51%" of 500k steps). When the output is not a terminal (a log file, CI, a pipe),
  where a bar would print nothing useful, it writes one plain line every ``interval`` seconds
  (15 by default) instead.
- :func:`new_run_dir` / :func:`mark_latest` / :func:`latest_run_dir`: the default output
  folder, a fresh ``runs/PRESET/YYYYmmdd-HHMMSS`` per run (so repeating a command never
  collides with an earlier run); the link ``runs/PRESET/latest`` to the newest finished one
  (``ppo:runs/quick/latest/model.safetensors``); the newest one of a preset for ``--resume``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

from fort_env.game.errors import OutputFileError

__all__ = [
    "LATEST",
    "ProgressCallback",
    "check_latest",
    "latest_run_dir",
    "mark_latest",
    "new_run_dir",
]

_SCALE = 1000  # the bar counts per-mille of the budget


class ProgressCallback(BaseCallback):
    """A progress bar on a terminal, a log line every ``interval`` seconds elsewhere.

    Args:
        total_timesteps: the run's step budget (``model.num_timesteps`` counts towards it, so a
            resumed run starts part way).
        budget_seconds: the run's wall-time budget, or ``None`` for steps only.
        elapsed: seconds of training so far (over every session of a resumed run).
        interval: seconds between log lines when the output is not a terminal.
        stream: where to write (default ``sys.stdout``).
        bar: force the bar on (``True``) or off (``False``); default: on iff ``stream`` is a
            terminal. Without the bar, log lines are written instead.

    Raises:
        ValueError: a non-positive step budget, time budget or interval.
    """

    def __init__(
        self,
        total_timesteps: int,
        budget_seconds: float | None,
        elapsed: Callable[[], float],
        interval: float = 15.0,
        stream: IO[str] | None = None,
        bar: bool | None = None,
    ) -> None:
        super().__init__(verbose=0)
        if total_timesteps <= 0:
            raise ValueError(f"total_timesteps must be positive, got {total_timesteps}")
        if budget_seconds is not None and budget_seconds <= 0:
            raise ValueError(f"budget_seconds must be positive or None, got {budget_seconds}")
        if interval <= 0:
            raise ValueError(f"interval must be positive, got {interval}")
        self.total_timesteps = int(total_timesteps)
        self.budget_seconds = budget_seconds
        self.elapsed = elapsed
        self.interval = float(interval)
        self.stream: IO[str] = stream if stream is not None else sys.stdout
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.use_bar = bool(isatty()) if bar is None else bar
        self.pbar: Any = None
        self.last_line = 0.0
        self.lines = 0  # log lines written (the tests read it)
        self._steps0 = 0
        self._t0 = 0.0

    def fraction(self) -> float:
        """The share of the budget spent: max(steps / step budget, time / time budget), <= 1."""
        frac = self.num_timesteps / self.total_timesteps
        if self.budget_seconds is not None:
            frac = max(frac, self.elapsed() / self.budget_seconds)
        return min(frac, 1.0)

    def status(self) -> str:
        """``"steps 12,288/500,000, 1.0/9.0 min, 204 steps/s"`` (the time part only with a
        time budget)."""
        parts = [f"steps {self.num_timesteps:,}/{self.total_timesteps:,}"]
        spent = self.elapsed()
        if self.budget_seconds is not None:
            parts.append(f"{spent / 60:.1f}/{self.budget_seconds / 60:.1f} min")
        else:
            parts.append(f"{spent / 60:.1f} min")
        wall = time.perf_counter() - self._t0
        if wall > 0:
            parts.append(f"{(self.num_timesteps - self._steps0) / wall:.0f} steps/s")
        return ", ".join(parts)

    def _on_training_start(self) -> None:
        self._steps0 = self.num_timesteps
        self._t0 = self.last_line = time.perf_counter()
        if self.use_bar:
            self.pbar = tqdm(
                total=_SCALE,
                desc="training (share of budget)",
                file=self.stream,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix}",
                dynamic_ncols=True,
            )
        else:
            budget = f"{self.total_timesteps:,} steps"
            if self.budget_seconds is not None:
                budget += f" or {self.budget_seconds / 60:g} min, whichever comes first"
            self._write(f"training: budget {budget}; a progress line every {self.interval:g} s")

    def _on_step(self) -> bool:
        now = time.perf_counter()
        if self.pbar is not None:
            if now - self.last_line >= 0.5:  # a few refreshes a second at most
                self.last_line = now
                self.pbar.n = round(self.fraction() * _SCALE)
                self.pbar.set_postfix_str(self.status(), refresh=True)
        elif now - self.last_line >= self.interval:
            self.last_line = now
            self._write(f"training: {self.fraction():4.0%} of budget, {self.status()}")
        return True

    def _on_training_end(self) -> None:
        if self.pbar is not None:
            self.pbar.n = round(self.fraction() * _SCALE)
            self.pbar.set_postfix_str(self.status(), refresh=True)
            self.pbar.close()
            self.pbar = None
        self._write(f"training done: {self.fraction():.0%} of budget, {self.status()}")

    def _write(self, line: str) -> None:
        print(line, file=self.stream, flush=True)
        self.lines += 1


LATEST = "latest"
"""The name of the link to a preset's newest finished run: ``runs/PRESET/latest``."""


def new_run_dir(preset: str, root: str | Path = "runs", now: datetime | None = None) -> Path:
    """A fresh ``root/PRESET/YYYYmmdd-HHMMSS`` (``-2``, ``-3``... if it exists); not created."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = Path(root) / preset / stamp
    path, k = base, 1
    while path.exists():
        k += 1
        path = base.with_name(f"{base.name}-{k}")
    return path


def check_latest(run_dir: str | Path) -> Path:
    """``run_dir``'s sibling ``latest`` may be pointed at it by :func:`mark_latest`: it is
    missing or a symlink (replaced). Anything else there (a folder, a file, a FIFO) is not
    fort-env's link and is never replaced. Returns the link's path.

    Raises:
        OutputFileError: ``latest`` is not a symlink (names it).
    """
    link = Path(run_dir).parent / LATEST
    if os.path.lexists(link) and not link.is_symlink():
        raise OutputFileError(
            link,
            "is not a symlink: fort-env points 'latest' at the newest run only where it is "
            "its own link or missing, and never replaces anything else (move it away)",
        )
    return link


def mark_latest(run_dir: str | Path) -> Path:
    """Point ``run_dir``'s sibling link ``latest`` at it (a relative symlink, replaced
    atomically), so that ``runs/PRESET/latest/model.safetensors`` names the newest finished
    run's model. Returns the link.

    Raises:
        OutputFileError: ``latest`` is there and not a symlink (:func:`check_latest`).
    """
    run_dir = Path(run_dir)
    link = check_latest(run_dir)
    tmp = run_dir.parent / f".{LATEST}.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(run_dir.name, tmp)
    os.replace(tmp, link)
    return link


def latest_run_dir(preset: str, root: str | Path = "runs") -> Path:
    """The newest run of a preset holding a checkpoint: ``root/PRESET/*``, or the older
    layouts ``root/PRESET-*`` and ``root/PRESET``.

    Raises:
        FileNotFoundError: no such run.
    """
    root = Path(root)
    runs = [
        p for p in root.glob(f"{preset}/*") if p.name != LATEST and (p / "checkpoints").is_dir()
    ]
    runs += [p for p in root.glob(f"{preset}-*") if (p / "checkpoints").is_dir()]
    if (root / preset / "checkpoints").is_dir():
        runs.append(root / preset)
    if not runs:
        raise FileNotFoundError(
            f"no {preset!r} run with a checkpoint in {root}/ to resume: pass --out RUN_DIR"
        )
    return max(runs, key=lambda p: (p / "checkpoints").stat().st_mtime)
