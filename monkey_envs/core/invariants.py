"""Helpers the games' ``state_violations`` / ``resample_hidden`` hooks share (vectorised over the batch).

* :class:`Report` collects ``(field, row, why)`` triples; a law is one ``(B,) bool`` of offending rows.
* :func:`tally` counts values per row with one ``bincount``.
* :func:`reward_laws` checks the rewards against ``winners_mask`` (0 until the end, then the end rewards).
* :func:`shuffle_among` permutes the hidden entries of each row among their positions (no-peeking resampling).

The layout (class, dtypes, per-row shapes) is checked by :meth:`Game.layout_violations
<monkey_envs.core.game.Game.layout_violations>` before any of these run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: One broken law: ``(field, row, why)``; row ``-1`` is the whole array.
Violation = tuple[str, int, str]


class Report:
    """Collects ``(field, row, why)`` triples; a law is one vectorised ``(B,) bool`` of offending rows."""

    def __init__(self) -> None:
        self.out: list[Violation] = []

    def add(self, field: str, bad: np.ndarray, why: str) -> None:
        """Report every row where ``bad (B,) bool`` is True (the loop runs over offending rows only)."""
        for r in np.flatnonzero(bad).tolist():
            self.out.append((field, r, why))

    def rng(self, field: str, values: np.ndarray, low: Any, high: Any) -> np.ndarray:
        """Report rows of ``values (B, ...)`` with an entry outside ``[low, high]`` (bounds broadcast
        against ``values``); return the ``(B,) bool`` offending rows."""
        v = np.asarray(values)
        out_of = (v < low) | (v > high)
        if v.dtype.kind == "f":
            out_of |= ~np.isfinite(v)  # NaN compares False with every bound
        bad = out_of.reshape(v.shape[0], -1).any(1) if v.size else np.zeros(v.shape[0], dtype=bool)
        scalar = np.ndim(low) == 0 and np.ndim(high) == 0
        where = f"[{low}, {high}]" if scalar else "its range"
        for r in np.flatnonzero(bad).tolist():
            self.out.append((field, r, f"value {v[r][out_of[r]][0].item()} outside {where}"))
        return bad


def tally(values: np.ndarray, keep: np.ndarray, k: int) -> np.ndarray:
    """``(B, k) int64``: per row, how many entries of ``values (B, n)`` at ``keep (B, n) bool`` equal each of ``0..k-1``.

    Entries outside ``[0, k)`` are not counted (one ``bincount`` instead of a ``(B, n, k)`` comparison).
    """
    B = values.shape[0]
    keep = keep & (values >= 0) & (values < k)
    flat = (np.arange(B)[:, None] * k + values)[keep]
    return np.bincount(flat, minlength=B * k).reshape(B, k)


def reward_laws(
    rep: Report,
    rewards: np.ndarray,
    ok: np.ndarray,
    term: np.ndarray,
    win: np.ndarray,
    end_rewards: tuple[float, float, float] | None,
) -> None:
    """Rewards ``(B, P)``: finite; 0 in running games; in finished ones 0 or the end rewards of ``win``.

    The base :meth:`Game.state_violations <monkey_envs.core.game.Game.state_violations>` applies
    these laws to every game (with its :attr:`~monkey_envs.core.game.Game.end_rewards`).

    Args:
        rep: where to report.
        rewards: the state's ``(B, P)`` rewards.
        ok: ``(B,) bool`` rows whose other laws can be read (sane ranges).
        term: ``(B,) bool`` finished rows.
        win: ``(B, P) bool`` winners.
        end_rewards: ``(win, loss, draw)`` as in :func:`~monkey_envs.core.game.end_games`;
            ``None``: a game whose end rewards are not declared (finished rows are not checked).
    """
    rew = rewards.astype(np.float64)
    P = win.shape[1]
    rep.add("rewards", ~np.isfinite(rew).all(1), "a reward is not finite")
    zero = (rew == 0).all(1)
    rep.add("rewards", ok & ~term & ~zero, "a reward before the end of the game")
    if end_rewards is None:
        return
    w, loss, draw = end_rewards
    everyone = win.all(1, keepdims=True) & (P > 1)
    end = np.where(everyone, draw, np.where(win, w, loss))
    rep.add("rewards", ok & term & ~zero & (rew != end).any(1), "not the end rewards of the winners")


def shuffle_among(values: np.ndarray, movable: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Per row, permute the entries of ``values (B, n)`` at ``movable (B, n) bool`` among those positions.

    The other entries keep their place. The result depends on the movable entries only as a
    multiset: they are sorted before the random permutation, so two rows holding the same values
    in another order at the same movable positions come out alike for the same ``gen`` state (a
    re-deal reads only what the dealt-to seat can know). Returns a new array of the same dtype.
    """
    B, n = values.shape
    m = movable.sum(1, keepdims=True)  # movable entries per row
    by_value = np.lexsort((values, ~movable), axis=-1)  # the movable entries sorted, then the fixed ones
    keys = gen.random(values.shape)
    keys[np.arange(n)[None, :] >= m] = 2.0  # the fixed tail keeps its order (stable)
    src = np.take_along_axis(by_value, np.argsort(keys, axis=1, kind="stable"), axis=1)
    dst = np.argsort(~movable, axis=1, kind="stable")  # movable positions in order, then the fixed ones
    out = values.copy()
    moved = np.arange(n)[None, :] < m
    rows = np.broadcast_to(np.arange(B)[:, None], (B, n))
    out[rows[moved], dst[moved]] = np.take_along_axis(values, src, axis=1)[moved]
    return out
