"""Monki's fast paths against the forms they replace, bit for bit.

Rules checked: ``reset_rows`` (the compiled deal straight into the rows) leaves a played batch
equal to ``put(rows, init(seeds))`` -- mid-game rows, finished rows, rows holding values no game
reaches -- and touches no other row; ``init`` is the same deal over every row; the in-place step
and ``observe(out=)`` equal the copying forms over long random play with resets, in every test
configuration (observations compared as raw float32 bits).
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.testing import assert_states_equal
from monkey_envs.monki import Monki


def _played(g: Monki, batch: int, steps: int, seed: int):
    """A batch after ``steps`` of random play (finished rows stay finished)."""
    rng = np.random.default_rng(seed)
    s = g.init(np.arange(batch) + 100 * seed)
    for _ in range(steps):
        m = s.legal_action_mask
        s = g.step(s, (rng.random(m.shape) * m).argmax(1))
    return s


@pytest.mark.parametrize("cfg", Monki.test_configs, ids=lambda c: str(c) if c else "default")
def test_reset_rows_equals_put_of_init_on_played_rows(cfg):
    g = Monki(**cfg)
    s = type(g.init(0)).concat([_played(g, 48, 120, seed=3), _played(g, 48, 9, seed=4)])
    assert s.terminated.any() and (~s.terminated).any(), "the batch should mix finished and running rows"
    rng = np.random.default_rng(1)
    for n in (1, 7, 48, 96):
        rows = rng.choice(96, n, replace=False)
        seeds = rng.integers(0, 2**40, n)
        want = s.clone()
        want.put(rows, g.init(seeds))
        got = s.clone()
        g.reset_rows(got, rows, seeds)
        assert_states_equal(got, want, f"reset_rows of {n} rows")


def test_reset_rows_overwrites_every_field_of_the_row():
    """Rows holding arbitrary bytes come out as a fresh deal: the deal resets every array of the row."""
    g = Monki()
    s = _played(g, 32, 40, seed=4)
    rng = np.random.default_rng(2)
    for a in s.arrays().values():
        a.view(np.uint8)[...] = rng.integers(0, 256, a.view(np.uint8).shape, dtype=np.uint8)
    rows = np.array([3, 0, 31, 17])
    seeds = np.array([5, 6, 7, 2**33])
    want = s.clone()
    want.put(rows, g.init(seeds))
    g.reset_rows(s, rows, seeds)
    assert_states_equal(s, want, "reset_rows over garbage rows")
    fresh = g.init(seeds)
    for name, arr in s.arrays().items():
        assert np.array_equal(arr[rows], fresh.arrays()[name]), name


@pytest.mark.parametrize("cfg", Monki.test_configs, ids=lambda c: str(c) if c else "default")
def test_in_place_loop_equals_copying_loop(cfg):
    """``step_inplace`` + ``reset_rows`` + ``observe(out=)`` equal ``step`` + ``put(init)`` + ``observe``."""
    g = Monki(**cfg)
    B = 200
    rng = np.random.default_rng(7)
    a = g.init(np.arange(B))
    b = a.clone()
    buf = np.full((B, g.obs_dim), np.nan, np.float32)
    nxt = B
    resets = 0
    for i in range(400):
        m = a.legal_action_mask
        acts = (rng.random(m.shape) * m).argmax(1)
        a = g.step(a, acts)
        g.step_inplace(b, acts)
        done = np.flatnonzero(a.terminated | a.truncated)
        if done.size:
            seeds = nxt + np.arange(done.size)
            a.put(done, g.init(seeds))
            g.reset_rows(b, done, seeds)
            nxt += done.size
            resets += done.size
        assert_states_equal(b, a, f"step {i}")
        for seat in (0, 1, a.current_player.astype(np.int64)):
            got = g.observe(b, seat, out=buf)
            assert np.array_equal(got.view(np.uint32), g.observe(a, seat).view(np.uint32)), f"step {i} seat {seat}"
    assert resets > B // 2, "the loop should restart many games"


def test_observe_of_strided_state_arrays_equals_contiguous():
    """The observation kernel reads C-contiguous arrays; a state holding strided views is copied first, same bits."""
    g = Monki()
    s = _played(g, 64, 30, seed=5)
    views = type(s)(**{k: v[::2] for k, v in s.arrays().items()})
    dense = type(s)(**{k: np.ascontiguousarray(v[::2]) for k, v in s.arrays().items()})
    assert not views.stacks.flags.c_contiguous
    for seat in (0, 1):
        a, b = g.observe(views, seat), g.observe(dense, seat)
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
