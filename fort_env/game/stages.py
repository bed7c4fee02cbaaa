"""Stages of a turn: where the engine's driver resumes after a decision (docs/state.md, ``stage``).

Each pending decision hangs off one stage; ``ST_PROBE``/``ST_PROBE_DONE`` exist only inside the
legality search's witness runs (engine ``_runs_straight_through``), never in a real game.
"""

from __future__ import annotations

(ST_DRAFT, ST_PLAY, ST_DECLARE, ST_MODE, ST_ANY_SUIT, ST_ADD, ST_ADD_COIN, ST_ACTION,
 ST_FOLLOW, ST_FOLLOW_SECOND, ST_FOLLOW_RUN, ST_DO_OVER, ST_RECRUIT, ST_BIRTHDAY, ST_OVER,
 ST_PROBE, ST_PROBE_DONE, ST_ROUGH_HOUSING) = range(18)  # fmt: skip
NUM_STAGES = ST_ROUGH_HOUSING + 1  # stage codes are 0..NUM_STAGES-1
