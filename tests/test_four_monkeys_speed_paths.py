"""4 Monkeys kernels: the fast paths equal their definitions.

Rules checked: ``kernels.correct`` (figures counted once, each card's share taken off) is the
rulebook's definition written with ``kernels.covers`` -- the set covers the combo and no card
is superfluous -- on every multiset of up to 7 cards; the observation's lookup tables hold the
features' own expressions (counts / divisor, clipped to [-1, 1]); the observation's tile block
(cleared, then only its non-zero features stored) is each tile's row of ``tile_codes`` with the
cards under it / 10, and ``under_count`` is the number of cards under each tile; the masks
written for a block of rows (``kernels.mask_rows``) and stepped in blocks of ``MASK_BLOCK`` rows
equal the masks of the same games stepped one row at a time, for batch sizes that do not divide
into blocks; observing a game compiles the observation of its own player count only (issue 23).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monkey_envs.core.testing import play_random, random_legal_actions
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.rules import FourMonkeys
from monkey_envs.four_monkeys.state import TILE_GREEN, TILE_LOOSE, TILE_ORANGE, TILE_STACK


def test_correct_is_covers_without_a_superfluous_card() -> None:
    for size in range(8):
        for cards in itertools.combinations_with_replacement(range(D.NUM_KINDS), size):
            cnt = np.bincount(np.array(cards, dtype=np.int64), minlength=D.NUM_KINDS).astype(np.int8)
            for c in range(D.NUM_COMBOS):
                want = K.covers(c, cnt, -1) and not any(cnt[k] > 0 and K.covers(c, cnt, k) for k in range(D.NUM_KINDS))
                assert K.correct(c, cnt) == want, (c, cards)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_observation_tables_hold_the_feature_expressions(players: int) -> None:
    g = FourMonkeys(num_players=players)
    luts, codes = K.obs_tables(g.cfg)

    def clip(x: float) -> np.float32:
        return np.float32(min(1.0, max(-1.0, x)))

    v = np.arange(-128, 128)
    assert np.array_equal(luts[K.LUT_HAND], [clip(x / 8.0) for x in v])
    assert np.array_equal(luts[K.LUT_DISCARD], [clip(x / 16.0) for x in v])
    assert np.array_equal(luts[K.LUT_UNDER], [clip(x / 10.0) for x in v])
    assert np.array_equal(luts[K.LUT_SEAT_CARDS], [clip(x / 20.0) for x in v])
    assert np.array_equal(luts[K.LUT_TOTAL], [clip(x / 50.0) for x in v])
    assert np.array_equal(luts[K.LUT_LAST], [clip(x / 20.0) for x in v])
    assert np.array_equal(luts[K.LUT_DECK], (v.astype(np.int8) / np.float32(D.DECK_SIZE)).astype(np.float32))
    assert np.array_equal(luts[K.LUT_STACK], (v.astype(np.int8) / np.float32(g.stack_depth)).astype(np.float32))
    assert np.array_equal(luts[K.LUT_COMBOS], (v / np.float32(D.NUM_COMBOS)).astype(np.float32))
    # tile codes: hidden, available, then owned (burned, owner observer-first, own correct combo)
    assert codes.shape == (2 + 4 * players, K.TILE_FEATURES + players)
    assert codes[0].tolist() == [0, 1, *([0] * (codes.shape[1] - 2))]
    assert codes[1].tolist() == [1, *([0] * (codes.shape[1] - 1))]
    for burned, r, ok in itertools.product(range(2), range(players), range(2)):
        row = codes[2 + (burned * players + r) * 2 + ok]
        onehot = [0.0] * players
        onehot[r] = 1.0
        assert row.tolist() == [0.0, 0.0, float(burned), 0.0, float(r == 0 and ok), *onehot]


@pytest.mark.parametrize(("players", "batch"), [(4, K.MASK_BLOCK * 2 + 5), (3, K.MASK_BLOCK - 1), (8, 1)])
def test_blocked_step_equals_row_by_row(players: int, batch: int) -> None:
    g = FourMonkeys(num_players=players, banana_skins=True, ticks=6)
    whole = g.init(np.arange(batch))
    rows = [g.init(np.array([i])) for i in range(batch)]
    rng = np.random.default_rng(players)
    for _ in range(120):
        a = random_legal_actions(whole.legal_action_mask, rng)
        g.step_inplace(whole, a)
        for i, s in enumerate(rows):
            g.step_inplace(s, a[i : i + 1])
    for i, s in enumerate(rows):
        for name, arr in s.arrays().items():
            assert np.array_equal(getattr(whole, name)[i : i + 1], arr), (i, name)
    mask = whole.legal_action_mask.copy()
    g.refresh(whole)
    assert np.array_equal(whole.legal_action_mask, mask)


@pytest.mark.parametrize(("players", "skins"), [(4, False), (2, False), (5, True), (8, True)])
def test_tile_block_is_the_tile_codes_table_and_under_count_counts(players: int, skins: bool) -> None:
    g = FourMonkeys(num_players=players, banana_skins=skins)
    luts, codes = K.obs_tables(g.cfg)
    s = g.init(np.arange(16))
    rng = np.random.default_rng(players)
    P, NT, W = players, g.num_tiles, K.TILE_FEATURES + players
    start = 3 * D.NUM_KINDS + P * K.SEAT_FEATURES
    owned_seen = 0
    for step in range(400):
        assert np.array_equal(s.under_count, s.under.astype(np.int64).sum(2)), step
        if step % 25 == 0:
            for seat in range(P):
                tiles = g.observe(s, seat)[:, start : start + NT * W].reshape(-1, NT, W)
                for b in range(s.batch_size):
                    for t in range(NT):
                        ts, w = int(s.tile_state[b, t]), int(s.tile_owner[b, t])
                        if ts in (TILE_GREEN, TILE_ORANGE):
                            r = (w - seat) % P
                            ok = int(r == 0 and s.tile_ok[b, t])
                            want = codes[2 + ((ts == TILE_ORANGE) * P + r) * 2 + ok].copy()
                            want[3] = luts[K.LUT_UNDER, min(int(s.under[b, t].sum()), 127) + 128]
                            owned_seen += 1
                        else:
                            top = (
                                ts == TILE_STACK
                                and s.stacks[b, s.tile_stack[b, t], s.stack_size[b, s.tile_stack[b, t]] - 1] == t
                            )
                            want = codes[1 if ts == TILE_LOOSE or top else 0]
                        assert np.array_equal(tiles[b, t].view(np.uint32), want.view(np.uint32)), (step, seat, b, t)
        g.step_inplace(s, random_legal_actions(s.legal_action_mask, rng))
        done = np.flatnonzero(s.terminated)
        if done.size:
            g.reset_rows(s, done, 1000 + step + np.arange(done.size))
    assert owned_seen > 0


def test_under_count_is_derived_not_stored_and_recomputed_on_load() -> None:
    """``under_count`` is a derived field (``DERIVED_FIELDS``): state files leave it out, so files
    written before it existed load, and a file cannot smuggle in a count that disagrees with
    ``under`` -- every loader recomputes it."""
    import io
    import json

    g = FourMonkeys(num_players=4)
    s = play_random(g, np.arange(6), 300, 7, inplace=True)
    assert s.under_count.sum() > 0  # cards lie under tiles, so the count matters
    data = s.get_state()
    assert "under_count" not in data["fields"] and "under" in data["fields"]
    assert g.set_state(json.loads(json.dumps(data))).equals(s)
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert "under_count.npy" not in np.load(buf).files
    buf.seek(0)
    assert g.load_state(buf).equals(s)
    # a file that does carry a wrong count (written by hand) loads with the count of its cards
    forged = {k: v for k, v in s.arrays().items()}
    forged["under_count"] = np.zeros_like(s.under_count)
    meta = {"__state_class__": np.array(type(s).__name__), "__format__": np.array(type(s).FORMAT)}
    buf = io.BytesIO()
    np.savez_compressed(buf, **meta, **forged)
    buf.seek(0)
    loaded = g.load_state(buf)
    assert np.array_equal(loaded.under_count, s.under_count) and loaded.equals(s)


_OBSERVE_COMPILES = """
import numpy as np
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.rules import FourMonkeys
K.init = lambda seeds, st, cfg: None  # zero arrays of the state's layout, without compiling init
g = FourMonkeys(num_players=3)
g.observe(g.init(np.arange(2)), 0)
print([str(sig[-1]) for sig in K.observe_players.signatures])
"""


def test_observing_a_game_compiles_the_observation_of_its_player_count_only(tmp_path: Path) -> None:
    """Issue 23 item 2 (cold start): a process that observes 3-player games compiles
    ``observe_players`` for 3 players, not for each of the seven player counts (measured in a fresh
    process with an empty numba cache, where nothing can be loaded instead of compiled)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MONKEY_ENVS_QUIET_COMPILE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(K.__file__).parents[2]), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "-c", _OBSERVE_COMPILES], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[-2] == "['Literal[int](3)']", run.stdout
