"""The game's random numbers, specified so that any implementation draws the same ones.

A game holds two integers of randomness: its ``seed`` and ``shuffles``, the number of random
events so far (``ctx["seed"]``, ``ctx["shuffles"]``; docs/state.md). Each random event (the
deal, a reshuffle of a discard pile) opens one :class:`EventRng` keyed by ``(seed, event)``
and takes its draws from it, so a state's randomness is cloned and saved with two ints.

The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), written out here, with all arithmetic modulo 2**64:

* ``mix(z)``: ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
  z ^= z >> 31`` (the SplitMix64 finaliser).
* the stream of event ``e`` of seed ``s`` starts at ``x = mix(s ^ mix(e + GAMMA))``;
  each draw is ``x += GAMMA; return mix(x)`` with ``GAMMA = 0x9E3779B97F4A7C15``.
* ``below(n)`` (a uniform int in ``[0, n)``, ``n >= 1``): draw ``r``; accept if
  ``r < 2**64 - (2**64 % n)``, else draw again; return ``r % n`` (rejection: no modulo bias).
* ``permutation(n)``: ``a = [0, 1, ..., n-1]``; for ``i`` from ``n - 1`` down to ``1``:
  ``j = below(i + 1)``, swap ``a[i]`` and ``a[j]`` (Fisher-Yates, Durstenfeld's form).

Test vectors (``tests/test_rng.py`` checks them; a second implementation must reproduce them):

* ``mix(GAMMA)`` is ``0xE220A8397B1DCDAF`` and ``mix(2 * GAMMA)`` is ``0x6E789E6AA1B965F4``:
  the first two outputs of plain SplitMix64 from state 0, as published.
* ``EventRng(0, 0)``: first draws ``0x568A9B0B1A2C05EC``, ``0x44E5B8B147EF718B``,
  ``0x458563AB55521133``.
* ``EventRng(42, 7).permutation(10)`` is ``[7, 3, 5, 8, 1, 9, 6, 2, 0, 4]``.
* ``EventRng(2**62 - 1, 3).below(5)`` drawn three times is ``[0, 2, 0]``.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # the golden-ratio increment of SplitMix64
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def mix(z: int) -> int:
    """The SplitMix64 finaliser: a bijection of 64-bit ints. ``z`` in ``[0, 2**64)``."""
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


class EventRng:
    """The draws of one random event of one game (see the module docstring for the spec).

    Args:
        seed: the game's seed, an int in ``[0, 2**62)``.
        event: the event's number, ``ctx["shuffles"]`` when it happens, ``>= 0``.
    """

    __slots__ = ("_x",)

    def __init__(self, seed: int, event: int) -> None:
        self._x = mix((seed ^ mix((event + GAMMA) & MASK64)) & MASK64)

    def next_u64(self) -> int:
        """The next raw 64-bit draw, an int in ``[0, 2**64)``."""
        self._x = (self._x + GAMMA) & MASK64
        return mix(self._x)

    def below(self, n: int) -> int:
        """A uniform int in ``[0, n)``. Raises ``ValueError`` if ``n < 1``."""
        if n < 1:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            r = self.next_u64()
            if r < limit:
                return r % n

    def permutation(self, n: int) -> list[int]:
        """A uniform permutation of ``range(n)`` (Fisher-Yates), as a list of ints."""
        a = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return a
