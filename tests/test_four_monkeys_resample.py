"""4 Monkeys' ``resample_hidden`` is one compiled pass over the rows: it re-deals exactly what the
plain-Python, row-by-row version did (kept here as the reference), draw for draw from the same
seeded generator, in every player count and rule variant, from every seat, in early, middle and
late positions (finished rows and ticks half committed included), for several batch sizes and
seeds. The no-peeking guarantees themselves (the seat's view, the laws, determinism) are the
kit's ``no_peeking`` conformance check and ``tests/test_search_agent.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from monkey_envs.core.testing import assert_states_equal, play_random
from monkey_envs.four_monkeys import FourMonkeys
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.state import FourMonkeysState


def reference_resample_hidden(game: FourMonkeys, state: FourMonkeysState, seat: int, seed: int) -> FourMonkeysState:
    """The row-by-row Python re-deal the kernel replaced (verbatim but for names)."""
    new = state.clone()
    gen = np.random.default_rng(seed)
    new.rng[:] = gen.integers(0, 2**63, size=new.rng.shape, dtype=np.int64).astype(np.uint64)
    P, NT = game.num_players, game.num_tiles
    others = [q for q in range(P) if q != seat]
    for b in range(new.batch_size):
        if new.terminated[b] or new.truncated[b]:
            continue
        pool: list[int] = []
        places: list[tuple[str, tuple[int, ...], int]] = []
        for q in range(P):
            n = int(new.deck_size[b, q])
            pool.extend(int(k) for k in new.decks[b, q, :n])
            places.append(("decks", (q,), n))
        for q in others:
            for name in ("hands", "pending", "discard"):
                arr = getattr(new, name)[b, q]
                pool.extend(k for k in range(D.NUM_KINDS) for _ in range(int(arr[k])))
                places.append((name, (q,), int(arr.sum())))
        for t in range(NT):
            w = int(new.tile_owner[b, t])
            if w >= 0 and w != seat:
                arr = new.under[b, t]
                pool.extend(k for k in range(D.NUM_KINDS) for _ in range(int(arr[k])))
                places.append(("under", (t,), int(arr.sum())))
        cards = np.sort(np.array(pool, dtype=np.int64))
        gen.shuffle(cards)
        i = 0
        for name, index, n in places:
            take = cards[i : i + n]
            i += n
            if name == "decks":
                new.decks[b, index[0], :n] = take
            else:
                getattr(new, name)[b][index] = np.bincount(take, minlength=D.NUM_KINDS)
                if name == "under":
                    t = index[0]
                    new.tile_ok[b, t] = K.correct(t % D.NUM_COMBOS, new.under[b, t])
        s0 = game.num_stacks_area0
        for ks in (range(s0), range(s0, game.num_stacks)):
            slots = [(k, d) for k in ks for d in range(int(new.stack_size[b, k]) - 1)]
            tiles = np.sort(np.array([int(new.stacks[b, k, d]) for k, d in slots], dtype=np.int64))
            gen.shuffle(tiles)
            for (k, d), t in zip(slots, tiles.tolist(), strict=True):
                new.stacks[b, k, d] = t
                new.tile_stack[b, t] = k
        for q in others:
            if new.commits[b, q] >= 0:
                new.commits[b, q] = game.a_wait
    K.refresh(tuple(getattr(new, f) for f in K.STATE_FIELDS), game.cfg)
    return new


CONFIGS: list[dict[str, Any]] = [
    *FourMonkeys.test_configs,
    {"num_players": 5, "family": True},
    {"num_players": 7},
]


def positions(game: FourMonkeys, batch: int, seed: int) -> FourMonkeysState:
    """Early, middle and late positions of ``batch`` games each (some finished, some mid-tick)."""
    P = game.num_players
    parts = [play_random(game, np.arange(batch) + seed, steps, seed) for steps in (3, 40 * P + 1, 400 * P + 2)]
    return FourMonkeysState.concat(parts)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_the_compiled_redeal_equals_the_row_by_row_one(config):
    game = FourMonkeys(**config)
    for batch, seed in ((1, 3), (7, 11), (24, 5)):
        s = positions(game, batch, seed)
        assert (s.commits >= 0).any(), "no position in the middle of a tick"
        for seat in range(game.num_players):
            for k in (0, 987654321 + seat):
                got = game.resample_hidden(s, seat, k)
                want = reference_resample_hidden(game, s, seat, k)
                assert_states_equal(got, want, f"{config} batch {batch} seed {seed} seat {seat} draw seed {k}")
                assert not got.equals(s)
