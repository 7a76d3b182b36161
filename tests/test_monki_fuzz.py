"""Monki random play with invariants after every step, plus a plain-Python reference for the masks.

The reference (:func:`reference_moves`, :func:`reference_flips`) walks the grid cell by cell from
the rulebook and shares no code with ``rules.py``'s ray tables.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.registry import make_agent
from monkey_envs.core.testing import random_legal_actions
from monkey_envs.monki import Monki
from monkey_envs.monki import data as D

DIRS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]


def _occupied(g: Monki, s, row: int) -> set[int]:
    h = (s.stacks[row] >= 0).sum(1)
    return {int(g.layout.stack_cell[k]) for k in range(12) if h[k]} | {int(p) for p in s.pos[row] if p >= 0}


def _walk(g: Monki, start: int, dr: int, dc: int):
    L = g.layout
    r, c = divmod(start, L.cols)
    r, c = r + dr, c + dc
    while 0 <= r < L.rows and 0 <= c < L.cols and L.cell_board[r * L.cols + c] >= 0:
        yield r * L.cols + c
        r, c = r + dr, c + dc


def reference_moves(g: Monki, s, row: int, seat: int) -> set[int]:
    occ = _occupied(g, s, row)
    out = set()
    for dr, dc in DIRS:
        for cell in _walk(g, int(s.pos[row, seat]), dr, dc):
            if cell in occ:
                break
            out.add(cell)
    return out


def reference_flips(g: Monki, s, row: int, seat: int) -> set[int]:
    occ = _occupied(g, s, row)
    out = set()
    for dr, dc in [(-1, 0), (0, 1), (1, 0), (0, -1)]:
        for cell in _walk(g, int(s.pos[row, seat]), dr, dc):
            if cell in occ:
                k = int(g.layout.cell_stack[cell])  # a stack, or a Monki (maybe on an emptied pot)
                if k >= 0 and (s.stacks[row, k] >= 0).any() and not s.face_up[row, k]:
                    out.add(k)
                break
    return out


def _check_against_reference(g: Monki, s) -> None:
    for r in np.flatnonzero(~s.terminated).tolist():
        cp = int(s.current_player[r])
        m = s.legal_action_mask[r]
        if s.phase[r] == 1:
            assert set(np.flatnonzero(m[g.A_MOVE : g.A_SKIP]).tolist()) == reference_moves(g, s, r, cp)
            assert m[g.A_SKIP]
        if s.phase[r] in (2, 3):
            assert set(np.flatnonzero(m[g.A_FLIP : g.A_PASS]).tolist()) == reference_flips(g, s, r, cp)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), layout=st.sampled_from(["square", "stairs"]))
def test_random_play_invariants_and_reference_masks(seed: int, layout: str) -> None:
    g = Monki(layout=layout)
    s = g.init(seed + np.arange(8))
    rng = np.random.default_rng(seed)
    for _ in range(600):
        if s.terminated.all():
            break
        m = s.legal_action_mask
        s = g.step(s, random_legal_actions(m, rng))
        assert not g.state_violations(s), g.state_violations(s)[:3]
        _check_against_reference(g, s)
        tokens = (s.stacks >= 0).sum((1, 2)) + (s.statue >= 0).sum(1) + (s.owner >= 0).sum(1)
        assert (tokens == D.NUM_TOKENS).all()
    assert s.terminated.all()


def test_heuristics_play_legal_games() -> None:
    g = Monki()
    agents = [make_agent("cautious", g, 0), make_agent("greedy", g, 1)]
    s = g.init(np.arange(16))
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        acts = np.zeros(16, np.int64)
        for p in range(2):
            a = agents[p].act(g.observe(s, np.full(16, p)), s.legal_action_mask)
            acts[cp == p] = a[cp == p]
        s = g.step(s, acts)
    assert not g.state_violations(s)
    summary = g.stats_summary({k: int(v.sum()) for k, v in g.episode_stats(s).items()}, 32)
    assert summary["flips_per_visit"] >= 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_state_violations_never_raise_on_garbage(seed: int) -> None:
    g = Monki()
    s = g.init(np.arange(3))
    rng = np.random.default_rng(seed)
    for arr in s.arrays().values():
        if arr.dtype == bool:
            arr[:] = rng.random(arr.shape) < 0.5
        elif arr.dtype.kind in "iu":
            info = np.iinfo(arr.dtype)
            arr[:] = rng.integers(max(info.min, -1000), min(info.max, 1000), arr.shape, endpoint=True).astype(arr.dtype)
        else:
            arr[:] = rng.normal(size=arr.shape) * 10
    out = g.state_violations(s)
    assert isinstance(out, list) and out


def test_corruptions_are_named() -> None:
    g = Monki()
    s = g.init(np.arange(2))
    bad = s.clone()
    bad.statue[0, int(bad.stacks[0, 0, 2])] = 1  # a token both on a stack and on a statue
    assert ("stacks+statue+owner", 0, "every token must lie in exactly one place (40 in all)") in g.state_violations(
        bad
    )
    bad = s.clone()
    bad.stacks[1, 3, 1] = -1  # a gap in a stack (and a lost token)
    fields = {f for f, r, _ in g.state_violations(bad) if r == 1}
    assert {"stacks", "stacks+statue+owner"} <= fields
    bad = s.clone()
    bad.pos[0] = [int(g.layout.stack_cell[0]), -1]  # on a full pot, while placing
    assert any(f == "pos" for f, _, _ in g.state_violations(bad))
