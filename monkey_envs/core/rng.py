"""Counter-based random numbers kept inside the game state.

Every env of a batch owns one RNG row ``rng (B, 2) uint64 = [key, counter]``. A draw of
``n`` numbers for row ``b`` returns ``splitmix64(key_b + (counter_b + j) * GAMMA)`` for
``j < n`` and advances ``counter_b`` by ``n`` -- only for the rows that ask. So a row's
stream never depends on the other rows of the batch, and env ``i`` of a batch seeded with
``s`` replays exactly like a single env seeded with ``s``, at any batch size and after
partial resets (the SplitMix64 generator of Steele, Lea & Flood, 2014).
"""

from __future__ import annotations

import numpy as np

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO53 = float(2**53)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def seed_rng(seeds: np.ndarray) -> np.ndarray:
    """Make RNG rows from seeds.

    Args:
        seeds: ``(B,)`` non-negative integers (any integer dtype).

    Returns:
        ``(B, 2) uint64`` rows ``[key, 0]`` with ``key`` a mixed function of the seed.
    """
    seeds = np.asarray(seeds)
    if seeds.ndim != 1:
        raise ValueError(f"seeds must be a 1-D array of shape (B,), got shape {seeds.shape}")
    if not np.issubdtype(seeds.dtype, np.integer):
        raise ValueError(f"seeds must be integers, got dtype {seeds.dtype}")
    if seeds.size and (seeds < 0).any():
        raise ValueError(f"seeds must be non-negative, got {seeds[seeds < 0][:5].tolist()}")
    rng = np.zeros((seeds.shape[0], 2), dtype=np.uint64)
    with np.errstate(over="ignore"):
        rng[:, 0] = _mix(seeds.astype(np.uint64) * _GAMMA + np.uint64(0x632BE59BD9B4E019))
    return rng


def draw_uint64(rng: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Draw ``n`` uint64 numbers for each selected row, advancing only those rows.

    Args:
        rng: ``(B, 2) uint64`` RNG rows; modified in place for ``rows``.
        rows: ``(R,)`` int indices of the rows that draw (distinct).
        n: how many numbers each of those rows draws.

    Returns:
        ``(R, n) uint64``.
    """
    key = rng[rows, 0][:, None]
    ctr = rng[rows, 1][:, None] + np.arange(n, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):
        out = _mix(key + (ctr + np.uint64(1)) * _GAMMA)
        rng[rows, 1] += np.uint64(n)
    return out


def draw_uniform(rng: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """``(R, n) float64`` uniform numbers in ``[0, 1)`` for the selected rows."""
    return (draw_uint64(rng, rows, n) >> _S11).astype(np.float64) / _TWO53


def draw_below(rng: np.ndarray, rows: np.ndarray, bound: np.ndarray | int) -> np.ndarray:
    """One integer in ``[0, bound)`` per selected row (``bound`` scalar or ``(R,)``), int64."""
    u = draw_uniform(rng, rows, 1)[:, 0]
    return np.minimum((u * np.asarray(bound)).astype(np.int64), np.asarray(bound) - 1)


def shuffle_prefix(rng: np.ndarray, rows: np.ndarray, values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Shuffle the first ``lengths[r]`` entries of each row of ``values`` uniformly.

    Args:
        rng: ``(B, 2) uint64`` RNG rows; the selected rows advance by ``values.shape[1]``.
        rows: ``(R,)`` row indices into ``rng``.
        values: ``(R, L)`` array to shuffle row-wise (entries past the prefix stay put).
        lengths: ``(R,)`` prefix length per row.

    Returns:
        ``(R, L)`` array of the same dtype.
    """
    width = values.shape[1]
    keys = draw_uniform(rng, rows, width)
    keys[np.arange(width)[None, :] >= lengths[:, None]] = 2.0  # tail keeps its order
    keys += np.arange(width)[None, :] * 1e-12 * (keys > 1.0)
    order = np.argsort(keys, axis=1, kind="stable")
    return np.take_along_axis(values, order, axis=1)
