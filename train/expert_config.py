"""Expert iteration's settings (``fort-env expert``; written to ``expert.json``): one
dataclass whose defaults the command's options read (``train/cli.py``), kept apart from
``train/expert.py`` so the command line loads without torch."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["EXPERT_DEFAULTS", "MIN_SIMS", "ExpertConfig"]

MIN_SIMS = 2  # a search's first simulation expands the root; the visits need one more


@dataclass
class ExpertConfig:
    """Expert iteration's settings (``fort-env expert``; written to ``expert.json``)."""

    model: str
    """The network to start from (``NAME.safetensors``)."""
    rounds: int = 10
    """Rounds of self-play, fit and gate."""
    minutes: float = 0.0
    """Start no new round after this many minutes of wall time (0: no limit)."""
    games: int = 200
    """Self-play games a round."""
    sims: int = 100
    """Simulations per searched decision in self-play (at least 2: the first expands the
    root, so the root's visits sum to ``sims - 1``)."""
    c: float = 1.5
    """The PUCT exploration constant."""
    batch: int = 1
    """Leaves per forward pass in the searches (virtual loss; 8 nearly doubles the rate)."""
    noise: float = 0.25
    """Weight of the Dirichlet noise on the root's priors in self-play."""
    alpha: float = 0.3
    """That noise's concentration."""
    explore: int = 10
    """Searched decisions per game whose move is drawn in proportion to the visits."""
    full_share: float = 1.0
    """Playout-cap randomisation (KataGo, Wu 2019): the share of decisions searched with
    ``sims`` simulations and kept as samples; the others are searched with ``fast_sims`` and
    only played, so a round plays more games for the same time (1: every decision full)."""
    fast_sims: int = 16
    """Simulations of the cheap searches (``full_share < 1``), at least 2."""
    gumbel: bool = False
    """Gumbel root selection with Sequential Halving (``puct:gumbel=1``, Danihelka et al.
    2022) in self-play and the gate: the policy target is the search's improved policy
    (softmax of logits + sigma(completed q)) instead of the visit counts, every searched move
    is the search's own (its Gumbel draws explore: ``explore`` and ``noise`` are not used)."""
    gumbel_actions: int = 16
    """With ``gumbel``: the root actions each search considers, in [1, 256]."""
    q_mix: float = 0.0
    """The value target: ``(1 - q_mix) * outcome + q_mix * search value``, the search value the
    root's visit-weighted mean value for the acting seat mapped to -1..1 (Leela Chess Zero's
    ``q_ratio``; KataGo mixes the search's value the same way)."""
    window: int = 3
    """Rounds whose samples the fit reads (the newest)."""
    epochs: int = 2
    """Passes over the samples per round."""
    learning_rate: float = 1e-4
    """Adam step size."""
    batch_size: int = 512
    """Minibatch size."""
    gate_games: int = 60
    """Games of the candidate against the best a round (a multiple of the player count)."""
    gate_sims: int = 64
    """Simulations per decision in the gate's games."""
    threshold: float = 0.55
    """The gate in a 2-player game; ``threshold * 2 / n`` among ``n`` players."""
    workers: int = 2
    """Processes playing self-play and gate games."""
    device: str = "auto"
    """The fit's torch device (``auto``, ``cpu``, ``cuda``, ``cuda:K``)."""
    seed: int = 0
    """Seeds the deals, the searches, the minibatches and the gate's deals."""

    def check(self) -> None:
        """Raises ValueError naming the first setting out of range."""
        positive = ("rounds", "games", "window", "epochs", "batch_size", "gate_sims", "batch")
        for name in positive:
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.sims < MIN_SIMS:  # the first simulation only expands the root: no visit
            raise ValueError(f"sims must be at least {MIN_SIMS}, got {self.sims}")
        if self.fast_sims < MIN_SIMS:
            raise ValueError(f"fast_sims must be at least {MIN_SIMS}, got {self.fast_sims}")
        if not 0.0 < self.full_share <= 1.0:
            raise ValueError(f"full_share must be in (0, 1], got {self.full_share}")
        if not 1 <= self.gumbel_actions <= 256:
            raise ValueError(f"gumbel_actions must be in [1, 256], got {self.gumbel_actions}")
        if not 0.0 <= self.q_mix <= 1.0:
            raise ValueError(f"q_mix must be in [0, 1], got {self.q_mix}")
        if self.gate_games < 0 or self.explore < 0 or self.workers < 1:
            raise ValueError("gate_games and explore must be at least 0, workers at least 1")
        if not 0.0 <= self.noise < 1.0:
            raise ValueError(f"noise must be in [0, 1), got {self.noise}")
        if not (self.alpha > 0 and math.isfinite(self.alpha)):
            raise ValueError(f"alpha must be finite and above 0, got {self.alpha}")
        if not 0.0 < self.threshold < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold}")
        if not (self.minutes >= 0 and math.isfinite(self.minutes)):
            raise ValueError(f"minutes must be finite and at least 0, got {self.minutes}")
        if not (self.learning_rate > 0 and self.c >= 0):
            raise ValueError("learning_rate must be above 0 and c at least 0")


EXPERT_DEFAULTS = ExpertConfig(model="")
"""The defaults, for the command's options (``fort-env expert --help``)."""
