"""Monkey Fun's compiled row kernels: what the kit's generic checks do not cover.

The kit's ``in_place``, ``strided_state`` and ``batch_invariance`` checks guard reset_rows, the
in-place forms and init for every game. These tests guard what is Monkey Fun's own: the row
kernels' scratch arrays are kept by the game object, and the kernels compile the kit's shuffle
once (cold start, issue 23 item 2).
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
