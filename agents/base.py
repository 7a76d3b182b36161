"""The agent protocol: every agent acts on a batch.

An agent maps a batch of observations and legal-action masks to one action per env::

    actions = agent.act(obs, mask)   # obs (B, obs_dim) float32, mask (B, A) bool/int8 -> (B,) int64

Rows whose mask is all zero (finished games) get action 0; callers ignore them. Agents are
built for one game configuration (``make_agent(name, game, seed)``) so heuristics can read
observations by name through ``game.obs_layout.unflatten``. Agents that use randomness own
a seeded ``numpy.random.Generator``; the same seed gives the same actions.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(obs, mask) -> actions`` over a batch."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Choose actions.

        Args:
            obs: ``(B, obs_dim) float32`` observations, each from the acting seat's view.
            mask: ``(B, A)`` bool or int8 legal-action mask.

        Returns:
            ``(B,) int64`` actions, legal wherever the row's mask has a legal action.
        """
        ...


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random legal action per row (0 for rows with no legal action), ``(B,) int64``."""
    m = np.asarray(mask).astype(bool)
    u = rng.random(m.shape)
    u[~m] = -1.0
    return u.argmax(1).astype(np.int64)


def argmax_legal(scores: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Highest-scoring legal action per row; ties broken at random if ``rng`` is given, ``(B,) int64``."""
    m = np.asarray(mask).astype(bool)
    s = np.where(m, scores.astype(np.float64), -np.inf)
    if rng is not None:
        s = s + rng.random(s.shape) * 1e-6
    out = s.argmax(1)
    out[~m.any(1)] = 0
    return out.astype(np.int64)


class RandomAgent:
    """Uniformly random legal moves (any game)."""

    name = "random"

    def __init__(self, game: object | None = None, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return random_legal(mask, self.rng)
