"""Monki's compiled core (``monkey_envs/monki/kernels.py``) against the numpy rules it replaced.

:class:`monki_numpy_reference.NumpyMonki` is a frozen copy of the numpy rules from before the
kernels. Rule checked: the compiled init, fused step, mask and observation are bit-identical to it
-- every state array, every legal mask, both seats' observations -- over random batches that
mix running rows, finished rows and rows reset in place, in every test configuration; and so
are the geometry helpers the heuristic agents call (free cells, queen moves, line of sight,
ruby takes).
"""

from __future__ import annotations

import numpy as np
import pytest
from monki_numpy_reference import NumpyMonki

from monkey_envs.core.testing import random_legal_actions
from monkey_envs.monki import Monki


def _assert_same(a, b, where: str) -> None:
    for name, arr in a.arrays().items():
        ref = b.arrays()[name]
        assert arr.dtype == ref.dtype and arr.shape == ref.shape, f"{where}: {name} dtype/shape"
        if not np.array_equal(arr, ref):
            rows = np.flatnonzero((arr != ref).reshape(arr.shape[0], -1).any(1))
            raise AssertionError(f"{where}: field {name} differs in rows {rows[:10].tolist()}")


def _play_both(cfg: dict, batch: int, steps: int, seed: int):
    """Yield ``(step, compiled game, reference game, compiled state, reference state)`` along one random batch game."""
    g, ref = Monki(**cfg), NumpyMonki(**cfg)
    rng = np.random.default_rng(seed)
    seeds = np.arange(batch) + 1000 * seed
    s, r = g.init(seeds), ref.init(seeds)
    next_seed = int(seeds[-1]) + 1
    for i in range(steps):
        yield i, g, ref, s, r
        a = random_legal_actions(s.legal_action_mask, rng)
        a[s.terminated] = rng.integers(0, g.num_actions, int(s.terminated.sum()))  # ignored in finished rows
        s, r = g.step(s, a), ref.step(r, a)
        done = np.flatnonzero(s.terminated)
        reset = done[rng.random(done.size) < 0.5]  # the others stay finished (and must stay as they are)
        if reset.size:
            new = np.arange(next_seed, next_seed + reset.size)
            next_seed += reset.size
            s.put(reset, g.init(new))
            r.put(reset, ref.init(new))


@pytest.mark.parametrize("cfg", Monki.test_configs, ids=lambda c: str(c) if c else "default")
def test_compiled_step_mask_and_observation_match_the_numpy_rules(cfg):
    finished_seen = 0
    for i, g, ref, s, r in _play_both(cfg, batch=48, steps=160, seed=len(str(cfg))):
        _assert_same(s, r, f"{cfg} step {i}")
        for seat in (0, 1):
            obs, want = g.observe(s, seat), ref.observe(r, seat)
            assert obs.dtype == want.dtype == np.float32
            assert obs.tobytes() == want.tobytes(), f"{cfg} step {i} seat {seat}: observation differs"
        cp = np.maximum(s.current_player, 0)
        assert g.observe(s, cp).tobytes() == ref.observe(r, cp).tobytes()
        assert np.array_equal(g.rules_mask(s), ref.rules_mask(r))
        finished_seen += int(s.terminated.sum())
    assert finished_seen > 0  # finished rows were stepped over (they ignore their action)


def test_compiled_init_matches_the_numpy_deal_for_many_seeds():
    g, ref = Monki(), NumpyMonki()
    seeds = np.concatenate([np.arange(300), [2**62, 2**63 - 1, 123456789]])
    _assert_same(g.init(seeds), ref.init(seeds), "init")


def test_geometry_helpers_match_the_numpy_rules():
    """The queen moves, line of sight and ruby takes the heuristics call, from every cell."""
    for i, g, ref, s, r in _play_both({"layout": "stairs"}, batch=24, steps=60, seed=7):
        if i % 10:
            continue
        B, N = s.batch_size, g.num_cells
        h = g.heights(s.stacks)
        for seat in (0, 1):
            pos = s.pos.astype(np.int64)
            free = g.free_cells(h, pos)
            assert np.array_equal(free, ref.free_cells(h, pos))
            origin = np.tile(np.arange(-1, N), B)  # every cell (and -1: no Monki) in every row
            f = np.repeat(free, N + 1, axis=0)
            hh = np.repeat(h, N + 1, axis=0)
            assert np.array_equal(g.move_targets(origin, f), ref.move_targets(origin, f))
            assert np.array_equal(g.line_stacks(origin, f, hh), ref.line_stacks(origin, f, hh))
            seats = np.full(B, seat)
            assert np.array_equal(g.ruby_takes(s, seats), ref.ruby_takes(r, seats))


def test_an_illegal_action_raises_and_changes_nothing():
    g = Monki()
    s = g.init(np.arange(8))
    before = s.clone()
    a = random_legal_actions(s.legal_action_mask, np.random.default_rng(0))
    a[5] = int(np.flatnonzero(~s.legal_action_mask[5])[0])
    with pytest.raises(ValueError, match=r"illegal actions in rows \[5\]"):
        g.step(s, a)
    a[5] = g.num_actions
    with pytest.raises(ValueError, match="out of range"):
        g.step(s, a)
    _assert_same(s, before, "after the refused steps")
