"""Counter-based random numbers kept inside the game state.

Every env of a batch owns one RNG row ``rng (B, 2) uint64 = [key, counter]``. A draw of
``n`` numbers for row ``b`` returns ``splitmix64(key_b + (counter_b + j) * GAMMA)`` for
``j < n`` and advances ``counter_b`` by ``n`` -- only for the rows that ask. So a row's
stream never depends on the other rows of the batch, and env ``i`` of a batch seeded with
``s`` replays exactly like a single env seeded with ``s``, at any batch size and after
partial resets (the SplitMix64 generator of Steele, Lea & Flood, 2014).

The generator is written once, as numba-compiled scalar functions (:func:`mix64`,
:func:`seed_row`, :func:`next_uint64`, :func:`next_uniform`, :func:`shuffle_order`, :func:`shuffle_prefix_row`)
that compiled game kernels call per row; the array functions below (:func:`seed_rng`, :func:`draw_uint64`, ...)
are compiled loops over the selected rows built from them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SEED_SALT = np.uint64(0x632BE59BD9B4E019)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_ONE = np.uint64(1)
_TWO53 = float(2**53)


# ====================================================================== compiled scalars
@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser of one ``uint64`` (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def seed_row(rng: np.ndarray, row: int, seed: int) -> None:
    """Seed row ``row`` of ``rng (B, 2) uint64`` from a non-negative integer ``seed`` (counter 0)."""
    rng[row, 0] = mix64(np.uint64(seed) * _GAMMA + _SEED_SALT)
    rng[row, 1] = 0


@njit(cache=True, inline="always")
def next_uint64(rng: np.ndarray, row: int) -> np.uint64:
    """Draw one ``uint64`` for row ``row`` of ``rng (B, 2) uint64`` and advance its counter."""
    ctr = rng[row, 1]
    rng[row, 1] = ctr + _ONE
    return mix64(rng[row, 0] + (ctr + _ONE) * _GAMMA)


@njit(cache=True, inline="always")
def next_uniform(rng: np.ndarray, row: int) -> float:
    """Draw one ``float64`` in ``[0, 1)`` (53 random bits) for row ``row``, advancing its counter."""
    return float(next_uint64(rng, row) >> _S11) / _TWO53


@njit(cache=True)
def shuffle_order(rng: np.ndarray, row: int, length: int, width: int, keys: np.ndarray, order: np.ndarray) -> int:
    """The permutation that shuffles a prefix of ``length`` of ``width`` entries with row ``row``'s stream.

    Draws ``width`` uniform keys (the row's counter advances by ``width``, whatever ``length``
    is; the keys past the prefix are not needed, so they are skipped) and writes into
    ``order[:n]`` (``n = clip(length, 0, width)``) the indices of the prefix in the order of a
    stable sort of its keys: entry ``i`` of the shuffled prefix is entry ``order[i]`` of the
    original. The sort is a bucket pass (keys are uniform in ``[0, 1)``, so bucket
    ``floor(key * n)`` orders them) and an insertion sort of the nearly sorted result: the
    order of a stable argsort, in expected linear time.

    Args:
        keys: ``float64`` scratch of at least ``n`` entries.
        order: ``intp`` output and scratch of at least ``2 * n + 1`` entries.

    Returns:
        ``n``.
    """
    n = min(max(length, 0), width)
    key, ctr = rng[row, 0], rng[row, 1]
    for j in range(n):
        keys[j] = float(mix64(key + (ctr + np.uint64(j + 1)) * _GAMMA) >> _S11) / _TWO53
    rng[row, 1] = ctr + np.uint64(width)
    start = order[n : 2 * n + 1]  # bucket starts
    start[:] = 0
    for i in range(n):
        start[min(int(keys[i] * n), n - 1) + 1] += 1  # min: key * n may round up to n
    for k in range(n):
        start[k + 1] += start[k]
    for i in range(n):  # index order within a bucket: stable
        k = min(int(keys[i] * n), n - 1)
        order[start[k]] = i
        start[k] += 1
    sort_order(keys, 0, order, n)  # buckets are ordered, so this only sorts within each bucket
    return n


@njit(cache=True, inline="always")
def sort_order(keys: np.ndarray, at: int, order: np.ndarray, n: int) -> None:
    """Stable insertion sort of the indices ``order[:n]`` by ``keys[at + order[i]]``, in place.

    Linear on nearly sorted input (:func:`shuffle_order`'s buckets); games use it for short
    arrays (a stable argsort with no allocation: start from ``order[i] = i``).
    """
    for i in range(1, n):
        o = order[i]
        ko = keys[at + o]
        j = i - 1
        while j >= 0 and keys[at + order[j]] > ko:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = o


@njit(cache=True)
def shuffle_prefix_row(rng: np.ndarray, row: int, values: np.ndarray, length: int) -> None:
    """Shuffle ``values[:length]`` (1-D) in place with row ``row``'s stream (see :func:`shuffle_order`).

    The row's counter advances by ``values.size``; entries past the prefix stay put.
    """
    width = values.size
    order = np.empty(2 * width + 1, np.intp)
    n = shuffle_order(rng, row, length, width, np.empty(width, np.float64), order)
    head = values[:n].copy()
    for i in range(n):
        values[i] = head[order[i]]


# ====================================================================== compiled row loops
@njit(cache=True)
def _seed_rows(seeds: np.ndarray, out: np.ndarray) -> None:
    for b in range(seeds.size):
        seed_row(out, b, seeds[b])


@njit(cache=True)
def _draw_rows(rng: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    for i in range(rows.size):
        for j in range(out.shape[1]):
            out[i, j] = next_uint64(rng, rows[i])


@njit(cache=True)
def _shuffle_rows(rng: np.ndarray, rows: np.ndarray, values: np.ndarray, lengths: np.ndarray) -> None:
    for i in range(rows.size):
        shuffle_prefix_row(rng, rows[i], values[i], lengths[i])


# ====================================================================== array API
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
    rng = np.empty((seeds.shape[0], 2), dtype=np.uint64)
    _seed_rows(seeds.astype(np.uint64), rng)
    return rng


def _row_index(rows: np.ndarray) -> np.ndarray:
    return np.asarray(rows).astype(np.intp, copy=False).reshape(-1)


def draw_uint64(rng: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Draw ``n`` uint64 numbers for each selected row, advancing only those rows.

    Args:
        rng: ``(B, 2) uint64`` RNG rows; modified in place for ``rows``.
        rows: ``(R,)`` int indices of the rows that draw (distinct).
        n: how many numbers each of those rows draws.

    Returns:
        ``(R, n) uint64``.
    """
    rows = _row_index(rows)
    out = np.empty((rows.size, n), dtype=np.uint64)
    _draw_rows(rng, rows, out)
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
    out = np.array(values, copy=True, order="C")
    _shuffle_rows(rng, _row_index(rows), out, np.asarray(lengths).astype(np.int64).reshape(-1))
    return out
