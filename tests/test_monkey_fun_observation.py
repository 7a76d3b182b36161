"""Monkey Fun's observation shows what a seat may know: its own hand and the face-up discard pile.

That it shows nothing a seat may not know (other hands, the draw order, the RNG) and does not
depend on the other rows of the batch is the kit's to guard, for every game and test
configuration: ``no_peeking`` (the seat's observation is unchanged after ``resample_hidden``,
which redraws the other hands and the draw pile -- ``tests/test_game_hooks.py`` checks it redraws
each in most rows -- and after scrambling the RNG) and ``batch_invariance``. Here the other
direction, in the game's terms: each test changes one known thing while keeping the 55-card
multiset, and the seats that know it must see the change.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.testing import play_random
from monkey_envs.monkey_fun import MonkeyFun, MonkeyFunState


def _swap_hand_with_pile(s: MonkeyFunState, row: int, seat: int, rng: np.random.Generator) -> bool:
    """Swap one card of ``seat``'s hand with a different-valued draw-pile card; keep hands sorted."""
    n = int(s.draw_size[row])
    hand = s.hands[row, seat]
    for j in rng.permutation(4):
        if hand[j] == 0:
            continue
        others = np.flatnonzero(s.draw_pile[row, :n] != hand[j])
        if others.size:
            k = int(rng.choice(others))
            hand[j], s.draw_pile[row, k] = s.draw_pile[row, k], hand[j]
            hand.sort()
            return True
    return False


@pytest.fixture(
    scope="module",
    params=[(2, "normal", 1), (3, "quick", 2), (4, "normal", 2), (1, "solo", 1)],
    ids=lambda c: f"{c[0]}p-{c[1]}-side{c[2]}",
)
def setup(request):
    num_players, variant, side = request.param
    game = MonkeyFun(num_players, variant=variant, board_side=side)
    # a mix of early and later positions, all still running
    states = [play_random(game, np.arange(16) + 100 * k, k * 3 * num_players, k) for k in range(4)]
    s = MonkeyFunState.concat(states)
    s = s.take(np.flatnonzero(~s.terminated))
    assert s.batch_size >= 16
    return game, s


def _observations(game: MonkeyFun, s: MonkeyFunState) -> list[np.ndarray]:
    return [game.observe(s, p) for p in range(game.num_players)]


def test_the_own_hand_is_observed(setup):
    game, s = setup
    rng = np.random.default_rng(3)
    for p in range(game.num_players):
        t = s.clone()
        changed = [b for b in range(t.batch_size) if _swap_hand_with_pile(t, b, p, rng)]
        o, base = game.observe(t, p), game.observe(s, p)
        for b in changed:
            assert not np.array_equal(o[b], base[b]), f"row {b}: seat {p} does not see its own new card"


def test_the_discard_pile_is_observed_by_everybody(setup):
    """Swap a discard card for a draw-pile card of another value: every seat sees the difference."""
    game, s = setup
    t = s.clone()
    changed = []
    for b in range(t.batch_size):
        n = int(t.draw_size[b])
        vals = np.flatnonzero(t.discard[b])
        if vals.size == 0 or n == 0:
            continue
        v = int(vals[0])
        k = np.flatnonzero(t.draw_pile[b, :n] != v)
        if k.size == 0:
            continue
        w = int(t.draw_pile[b, k[0]])
        t.draw_pile[b, k[0]] = v
        t.discard[b, v] -= 1
        t.discard[b, w] += 1
        changed.append(b)
    assert len(changed) >= 4
    for p, (o, base) in enumerate(zip(_observations(game, t), _observations(game, s), strict=True)):
        for b in changed:
            assert not np.array_equal(o[b], base[b]), f"row {b}: seat {p} does not see the discard pile"
