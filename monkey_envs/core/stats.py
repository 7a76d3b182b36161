"""Small statistics shared by every layer (the arena, evaluation, the games' analytics hooks)."""

from __future__ import annotations

import math

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion.

    Args:
        successes: number of successes (draws may be counted as half successes).
        n: number of trials.
        z: normal quantile (default: 95% two-sided).

    Returns:
        ``(low, high)`` in ``[0, 1]``; ``(0.0, 1.0)`` when ``n == 0``.

    Raises:
        ValueError: ``n < 0`` or ``successes`` outside ``[0, n]``.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # clamp rounding noise: the interval always contains p (exactly 0 at 0 and 1 at n successes)
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)
