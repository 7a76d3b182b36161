"""The native vector env's ``autoreset_mode`` option and gymnasium's vector wrappers on it.

Rules checked: ``autoreset_mode=NEXT_STEP`` declares itself in ``metadata["autoreset_mode"]``,
and gymnasium's stateful vector wrappers (``NormalizeObservation``, ``RecordEpisodeStatistics``),
which refuse or misread same-step envs, compute on it exactly what the env returned; the default
stays ``SAME_STEP``; an unknown or unsupported mode is a ``ValueError`` naming the option. (The
step-for-step equality with the single env is the conformance check ``vector_next_step``.)
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

import monkey_envs  # noqa: F401  (registers the ids)
from monkey_envs.core.testing import random_legal_actions

ID = "monkey_envs/MonkeyFun-v0"


def _vec(**kw):
    return gym.make_vec(ID, num_envs=4, vectorization_mode="vector_entry_point", **kw)


def _legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random legal action per env (action 0 where the mask is empty: a terminal step's row)."""
    return random_legal_actions(mask, rng)


def test_default_is_same_step_and_next_step_is_declared():
    assert _vec().metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert _vec(autoreset_mode=AutoresetMode.NEXT_STEP).metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert _vec(autoreset_mode="NextStep").metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("bad", ["next", AutoresetMode.DISABLED, 3, None])
def test_unknown_or_unsupported_modes_are_refused(bad):
    with pytest.raises(ValueError, match="autoreset_mode"):
        _vec(autoreset_mode=bad)


def test_normalize_observation_refuses_same_step_and_runs_on_next_step():
    """gymnasium's ``NormalizeObservation`` needs NEXT_STEP; on it, its running mean and variance
    are those of exactly the observations the env returned."""
    with pytest.raises((AssertionError, ValueError)):  # gymnasium 1.2: a bare assert; 1.4: names NEXT_STEP
        NormalizeObservation(_vec())
    env = NormalizeObservation(_vec(autoreset_mode=AutoresetMode.NEXT_STEP))
    twin = _vec(autoreset_mode=AutoresetMode.NEXT_STEP)  # the same games, unwrapped
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=7)
    raw, _ = twin.reset(seed=7)
    seen = [raw]
    ended = 0
    for _ in range(120):
        acts = _legal(info["action_mask"], rng)
        normed, _, term, trunc, info = env.step(acts)
        raw, _, term_t, _, _ = twin.step(acts)
        np.testing.assert_array_equal(term, term_t)
        seen.append(raw)
        ended += int((term | trunc).sum())
    assert ended > 0  # the statistics ran across autoresets
    allobs = np.concatenate(seen).astype(np.float64)
    np.testing.assert_allclose(env.obs_rms.mean, allobs.mean(0), atol=1e-6)
    np.testing.assert_allclose(env.obs_rms.var, allobs.var(0), rtol=1e-4, atol=1e-6)
    assert np.isfinite(normed).all()


def test_record_episode_statistics_counts_each_episode_once():
    """``RecordEpisodeStatistics`` on NEXT_STEP reports each finished episode's return and length
    (the reward sum and the learner's decisions), and the reset step starts a new count."""
    env = RecordEpisodeStatistics(_vec(autoreset_mode=AutoresetMode.NEXT_STEP))
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=3)
    ret, length, reported = np.zeros(4), np.zeros(4, dtype=np.int64), 0
    restart = np.zeros(4, dtype=bool)
    for _ in range(200):
        _, rew, term, trunc, info = env.step(_legal(info["action_mask"], rng))
        ret[restart], length[restart] = 0.0, 0  # the step after an end is the reset
        ret += rew
        length += ~restart
        done = term | trunc
        if done.any():
            ep = info["episode"]
            np.testing.assert_array_equal(info["_episode"], done)
            np.testing.assert_allclose(ep["r"][done], ret[done])
            np.testing.assert_array_equal(ep["l"][done], length[done])
            assert set(np.unique(ep["r"][done])) <= {-1.0, 1.0, 0.0}
            reported += int(done.sum())
        restart = done
    assert reported >= 4
