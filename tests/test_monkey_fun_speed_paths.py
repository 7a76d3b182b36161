"""Monkey Fun's fast paths equal the plain forms they replace.

Kit rule (``Game.reset_rows``): restarting rows in place leaves them equal to ``init(seeds)``
bit for bit and the other rows untouched. Monkey Fun deals straight into the rows with the
kernel ``init`` also uses, which must first set every array of the row back to its start value;
so these tests restart rows deep into random play, where every array has moved away from it
(secured fields, boxed monkeys, reshuffled piles, scores and finished games).
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.testing import RowRandomPolicy, assert_states_equal
from monkey_envs.monkey_fun import MonkeyFun

CONFIGS = MonkeyFun.test_configs


def _played(game: MonkeyFun, rows: int, steps: int, seed: int):
    """``rows`` games after ``steps`` steps of random play (finished rows stay finished)."""
    state = game.init(seed * 10_000 + np.arange(rows))
    policy = RowRandomPolicy(seed * 10_000 + np.arange(rows))
    for _ in range(steps):
        game.step_inplace(state, policy(state.legal_action_mask))
    return state


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_reset_rows_deep_in_play_equals_put_of_init(config) -> None:
    """Kit rule: reset_rows(s, rows, seeds) == s.put(rows, init(seeds)), rows in any order."""
    game = MonkeyFun(**config)
    rng = np.random.default_rng(11)
    for steps in (3, 25, 200):
        state = _played(game, 96, steps, seed=steps)
        if steps == 200:  # the case this test is for: rows far from a new game's values
            assert state.terminated.any(), "precondition: some games finished"
            assert (state.discard > 0).any(), "precondition: cards on the discard pile"
            if not game.solo:  # solo games box no monkeys and secure no fields
                assert (state.box > 0).any(), "precondition: monkeys were boxed"
                assert (state.owner >= 0).any(), "precondition: some field was secured"
        for n in (1, 17, 96):
            rows = rng.permutation(96)[:n]  # unsorted, running and finished rows mixed
            seeds = rng.integers(0, 2**40, n)
            want = state.clone()
            want.put(rows, game.init(seeds))
            got = state.clone()
            game.reset_rows(got, rows, seeds)
            assert_states_equal(got, want, f"{config}: reset_rows of {n} rows after {steps} steps")


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_init_is_batch_invariant(config) -> None:
    """Determinism: a game dealt inside a batch equals the same seed dealt alone."""
    game = MonkeyFun(**config)
    seeds = np.array([5, 2**33, 0, 77, 123456789])
    batch = game.init(seeds)
    for i, s in enumerate(seeds):
        assert_states_equal(batch.take([i]), game.init([s]), f"{config}: row {i} of init vs init alone")
