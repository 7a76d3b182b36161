"""Monkey Fun's fast paths equal the plain forms they replace.

Kit rule (``Game.reset_rows``): restarting rows in place leaves them equal to ``init(seeds)``
bit for bit and the other rows untouched. Monkey Fun deals straight into the rows with the
kernel ``init`` also uses, which must first set every array of the row back to its start value;
so these tests restart rows deep into random play, where every array has moved away from it
(secured fields, boxed monkeys, reshuffled piles, scores and finished games).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_one_game_object_steps_many_states_as_separate_objects_do(config) -> None:
    """The row kernels' scratch arrays belong to the game object (made once, issue 23 item 2):
    states of other batch sizes stepped, observed and restarted in turn through one object end
    up equal to the same states played by objects of their own."""
    shared = MonkeyFun(**config)
    alone = {B: MonkeyFun(**config) for B in (1, 5, 64)}
    mine = {B: shared.init(np.arange(B) + 7 * B) for B in alone}
    theirs = {B: alone[B].init(np.arange(B) + 7 * B) for B in alone}
    policies = {B: (RowRandomPolicy(np.arange(B)), RowRandomPolicy(np.arange(B))) for B in alone}
    for t in range(120):
        for B, game in alone.items():
            s, o = mine[B], theirs[B]
            shared.step_inplace(s, policies[B][0](s.legal_action_mask))
            game.step_inplace(o, policies[B][1](o.legal_action_mask))
            seat = np.maximum(s.current_player, 0)
            np.testing.assert_array_equal(shared.observe(s, seat), game.observe(o, seat))
            done = np.flatnonzero(s.terminated)
            if done.size:
                shared.reset_rows(s, done, done + 1000 * t)
                game.reset_rows(o, done, done + 1000 * t)
            assert_states_equal(s, o, f"{config}: B={B} after {t + 1} steps")


def test_the_kernels_compile_the_kits_shuffle_once_for_int64_sizes(tmp_path: Path) -> None:
    """Issue 23 item 2 (cold start): numba types a bare int constant as a literal and compiles a
    callee once per literal value, so ``shuffle_order(rng, b, nd, CARDS, ...)`` with ``nd = 0``
    compiled :func:`~monkey_envs.core.rng.shuffle_order` twice in ``reshuffle_row`` (a third time
    for ``deal_rows``' ``(CARDS, CARDS)``); the kernels pass ``int64`` sizes. A fresh process with
    an empty numba cache records what compiling ``reshuffle_row`` compiles."""
    code = """
import json, numpy as np
from numba.core import event
from monkey_envs.core import rng as R
from monkey_envs.monkey_fun import kernels as K
seen = []
class Compiles(event.Listener):
    def on_start(self, ev):
        if ev.data["dispatcher"] is R.shuffle_order:
            seen.append(str(ev.data["args"]))
    def on_end(self, ev):
        pass
event.register("numba:compile", Compiles())
pile = np.zeros((1, K.CARDS), np.int8)
discard = np.zeros((1, K.MAX_CARD + 1), np.int8)
discard[0, 1:] = 2
K.reshuffle_row(0, np.array([[12345, 0]], np.uint64), pile, np.array([4], np.int8), discard,
                np.empty(K.CARDS), np.empty(2 * K.CARDS + 1, np.intp), np.empty(K.CARDS, np.int8))
print(json.dumps(seen))
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), MONKEY_ENVS_QUIET_COMPILE="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(seen) == 1 and "Literal" not in seen[0], seen
