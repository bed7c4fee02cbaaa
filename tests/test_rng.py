"""The specified generator (fort_env/game/rng.py): published SplitMix64 outputs, the project's test
vectors, and the uniformity of its bounded draw and shuffle."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from fort_env.game.rng import GAMMA, MASK64, EventRng, mix


def test_mix_matches_published_splitmix64():
    # SplitMix64 from state 0 (the reference C code by Vigna): e220a8397b1dcdaf, 6e789e6aa1b965f4
    assert mix(GAMMA) == 0xE220A8397B1DCDAF
    assert mix((2 * GAMMA) & MASK64) == 0x6E789E6AA1B965F4


def test_vectors_of_the_spec():
    r = EventRng(0, 0)
    assert [r.next_u64() for _ in range(3)] == [
        0x568A9B0B1A2C05EC,
        0x44E5B8B147EF718B,
        0x458563AB55521133,
    ]
    assert EventRng(42, 7).permutation(10) == [7, 3, 5, 8, 1, 9, 6, 2, 0, 4]
    r = EventRng(2**62 - 1, 3)
    assert [r.below(5) for _ in range(3)] == [0, 2, 0]


def test_events_and_seeds_give_different_streams():
    firsts = {EventRng(s, e).next_u64() for s in range(20) for e in range(20)}
    assert len(firsts) == 400


def test_below_rejects_empty_range():
    with pytest.raises(ValueError, match="n >= 1"):
        EventRng(0, 0).below(0)


def test_permutation_is_uniform_over_small_n():
    # 4! = 24 orders, 24,000 shuffles: each order ~1000 times; a chi-square bound far in the tail
    counts = Counter(tuple(EventRng(7, e).permutation(4)) for e in range(24_000))
    assert set(counts) == set(itertools.permutations(range(4)))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 60  # 23 degrees of freedom: p < 1e-4 beyond ~55


def test_below_is_uniform():
    r = EventRng(3, 1)
    counts = Counter(r.below(3) for _ in range(30_000))
    assert all(abs(counts[k] - 10_000) < 400 for k in range(3))
