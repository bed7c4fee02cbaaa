"""Fuzz ``FortState.from_dict``: N mutated mid-game dicts, each refused or played out soundly.

    python scripts/fuzz_states.py [--mutations 10000] [--bases 200] [--seed 0] [--show 10]

Prints the counts of ``accepted`` (loaded, then played to the end by random legal actions
with every invariant held), ``rejected`` (``StateError`` naming a field) and ``failures``
(anything else), the most frequent rejected fields, and the first failures with the mutation
that caused them (``fort_env/testing/state_fuzz.py`` has the details). Exits with status 1 if any
mutation failed. ``docs/reliability.md`` gives the last counts.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fort_env.testing.state_fuzz import make_bases, try_mutation  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=10_000)
    parser.add_argument("--bases", type=int, default=200, help="valid mid-game dicts mutated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=10, help="failures printed in full")
    args = parser.parse_args(argv)
    if args.mutations < 1 or args.bases < 1:
        parser.error("--mutations and --bases must be at least 1")
    start = time.perf_counter()
    bases = make_bases(args.bases, seed=args.seed)
    counts: collections.Counter[str] = collections.Counter()
    fields: collections.Counter[str] = collections.Counter()
    failures = []
    decisions = 0
    for i in range(args.mutations):
        config, base = bases[i % len(bases)]
        outcome, changes = try_mutation(config, base, seed=args.seed * 1_000_003 + i)
        counts[outcome.kind] += 1
        decisions += outcome.decisions
        if outcome.kind == "rejected":
            fields[outcome.detail.split("'")[1] if "'" in outcome.detail else "?"] += 1
        elif outcome.kind == "failure":
            failures.append((i, config, changes, outcome.detail))
    seconds = time.perf_counter() - start
    print(
        f"{args.mutations} mutations of {args.bases} mid-game states in {seconds:.0f} s: "
        f"accepted {counts['accepted']} (played out: {decisions} decisions), "
        f"rejected {counts['rejected']}, failures {counts['failure']}"
    )
    print("most rejected fields:", ", ".join(f"{f} {c}" for f, c in fields.most_common(12)))
    for i, config, changes, detail in failures[: args.show]:
        print(f"FAILURE #{i} {config}: {'; '.join(changes)} -> {detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
