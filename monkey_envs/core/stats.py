"""Small statistics shared by every layer (the arena, evaluation, the games' analytics hooks)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

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


def rate_rows(
    labels: Sequence[str],
    groups: np.ndarray,
    hits: np.ndarray,
    *,
    count_key: str = "decisions",
    hit_key: str = "yes",
    rate_key: str = "rate",
    means: dict[str, np.ndarray] | None = None,
) -> list[dict[str, Any]]:
    """One row per label of a rate table: how often ``hits`` is True among the entries of each group.

    Args:
        labels: the groups' names; entry ``j`` belongs to group ``groups[j]`` (an index into
            ``labels``; other values belong to no row).
        groups: ``(n,) int`` group index per entry; hits: ``(n,) bool``.
        count_key, hit_key, rate_key: the row keys of the group's size, its hits and their share.
        means: extra ``(n,)`` columns whose mean over the group each row gets under its name.

    Returns:
        Rows ``{"context": label, count_key: n, hit_key: k, rate_key: k / n or None, "ci": [lo, hi]
        (95% Wilson, None when the group is empty), **means}``.
    """
    rows = []
    for i, label in enumerate(labels):
        sel = groups == i
        n = int(sel.sum())
        k = int(hits[sel].sum())
        lo, hi = wilson_interval(k, n) if n else (None, None)
        row: dict[str, Any] = {
            "context": label,
            count_key: n,
            hit_key: k,
            rate_key: k / n if n else None,
            "ci": [lo, hi],
        }
        for name, values in (means or {}).items():
            row[name] = float(values[sel].mean()) if n else None
        rows.append(row)
    return rows


def percent(x: float | None) -> str:
    """``0.1234`` as ``"12.3%"``, ``None`` as ``"-"`` (the games' Markdown tables)."""
    return "-" if x is None else f"{100 * x:.1f}%"
