"""Determinism: the greedy heuristic decides each row from that row alone, so games with a greedy
opponent replay identically at batch size 1 and inside a batch (the driver's batch invariance)."""

from __future__ import annotations

import numpy as np

from agents import make_agent
from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.monkey_fun import MonkeyFun


def _trajectory(driver: SingleAgentDriver, learner, seeds: np.ndarray, steps: int) -> list[np.ndarray]:
    obs, mask = driver.reset(seeds)
    out = [obs.copy()]
    for _ in range(steps):
        res = driver.step(learner.act(obs, mask))
        obs, mask = res.obs, res.mask
        out.append(np.concatenate([obs, res.reward[:, None], res.terminated[:, None]], axis=1))
    return out


def test_rows_with_a_greedy_opponent_replay_like_single_envs():
    game = MonkeyFun(num_players=3)
    seeds = np.arange(100, 108)
    learner = make_agent("greedy", game, seed=3)
    batched = _trajectory(SingleAgentDriver(game, 8, opponent="greedy"), learner, seeds, 60)
    for i in (0, 3, 7):
        single = _trajectory(SingleAgentDriver(game, 1, opponent="greedy"), learner, seeds[i : i + 1], 60)
        for t, (b, s) in enumerate(zip(batched, single, strict=True)):
            np.testing.assert_array_equal(b[i], s[0], err_msg=f"row {i} differs at step {t}")


def test_greedy_decides_each_row_alone():
    game = MonkeyFun(num_players=2)
    state = game.init(np.arange(64))
    obs = game.observe(state, state.current_player)
    a = make_agent("greedy", game, seed=5)
    whole = a.act(obs, state.legal_action_mask)
    parts = np.concatenate([a.act(obs[k : k + 1], state.legal_action_mask[k : k + 1]) for k in range(64)])
    np.testing.assert_array_equal(whole, parts)
