"""A torch thread count chosen by measurement while training, and re-checked.

The cores and OpenMP's waiting are ``fort_env.tools.cpu``'s (why: its docstring). Even with
passive waiting, whether one torch thread or every core trains faster depends on what else the
machine runs, which changes during a run: :class:`ThreadTuner` times the training loop's own
iterations with each candidate count, keeps the faster, and tries the others again every
``recheck`` iterations, logging each choice with the rates that made it.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ThreadTuner"]


class ThreadTuner:
    """Chooses torch's intra-op thread count for a loop of similar iterations by timing them.

    Each candidate count is tried for one iteration at the start (after the caller's warm-up);
    then the faster is kept, and every ``recheck`` iterations the other is tried once more.
    A rate is samples per second of a whole iteration (what the loop is for); the kept count's
    rate is the median of its last three iterations, so one slow iteration does not flip it.

    Args:
        candidates: the thread counts to choose from (e.g. ``(1, usable_cores())``); one
            candidate means a fixed count (no trials).
        set_threads: applies a count (``torch.set_num_threads``).
        recheck: iterations between two trials of the other counts.
        warmup: iterations run first with the last candidate and not counted (the first
            iterations pay for allocation and caches).
        log: called with one line per decision (``None``: silent).
    """

    def __init__(
        self,
        candidates: tuple[int, ...],
        set_threads: Callable[[int], None],
        recheck: int = 20,
        warmup: int = 1,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.candidates = tuple(sorted(set(int(c) for c in candidates if int(c) >= 1))) or (1,)
        self.set_threads = set_threads
        self.recheck = max(2, int(recheck))
        self.log = log
        self.rates: dict[int, list[float]] = {c: [] for c in self.candidates}
        self.pending = list(self.candidates)  # counts still to try in this round of trials
        self.best = self.candidates[-1]
        self.warmup = max(0, int(warmup)) if len(self.candidates) > 1 else 0
        self.current = self.best if self.warmup else self.pending[0]
        self.since_trial = 0
        self.choices: list[dict[str, object]] = []
        set_threads(self.current)

    def _rate(self, count: int) -> float:
        recent = sorted(self.rates[count][-3:])
        return recent[len(recent) // 2] if recent else 0.0

    def record(self, samples: int, seconds: float) -> int:
        """Record the iteration just run (with :attr:`current` threads) and set the count for
        the next one; returns it."""
        if self.warmup:
            self.warmup -= 1
            self.current = self.best if self.warmup else self.pending[0]
            self.set_threads(self.current)
            return self.current
        if seconds > 0:
            self.rates[self.current].append(samples / seconds)
        if len(self.candidates) == 1:
            return self.current
        if self.pending and self.pending[0] == self.current:
            self.pending.pop(0)
            if not self.pending:  # a round of trials ended: keep the fastest
                before = self.best
                self.best = max(self.candidates, key=self._rate)
                rates = ", ".join(f"{c}: {self._rate(c):,.0f}" for c in self.candidates)
                self.choices.append(
                    {
                        "threads": self.best,
                        "rates": {c: round(self._rate(c), 1) for c in self.candidates},
                    }
                )
                if self.log and (before != self.best or len(self.choices) == 1):
                    self.log(f"torch threads: {self.best} (samples/s by threads: {rates})")
                self.since_trial = 0
        else:
            self.since_trial += 1
            if self.since_trial >= self.recheck:
                self.pending = [c for c in self.candidates if c != self.best] + [self.best]
        self.current = self.pending[0] if self.pending else self.best
        self.set_threads(self.current)
        return self.current
