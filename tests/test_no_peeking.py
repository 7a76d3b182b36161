"""No peeking: a player's observation shows only what that seat may know.

Hidden: the other players' hands, the order of the draw pile, the RNG (future shuffles).
Public or own: the board, supplies, box, the face-up discard pile, the draw pile's size, one's
own hand. Each test changes one hidden or known thing while keeping the 55-card multiset, and
checks the observation stays the same or changes accordingly.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.monkey_fun import MonkeyFun, MonkeyFunState


def _random_play(game: MonkeyFun, seeds, steps: int, seed: int = 0) -> MonkeyFunState:
    rng = np.random.default_rng(seed)
    s = game.init(seeds)
    for _ in range(steps):
        keys = rng.random(s.legal_action_mask.shape)
        keys[~s.legal_action_mask] = -1.0
        s = game.step(s, keys.argmax(axis=1))
    return s


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
    states = [_random_play(game, np.arange(16) + 100 * k, k * 3 * num_players, seed=k) for k in range(4)]
    s = MonkeyFunState.concat(states)
    s = s.take(np.flatnonzero(~s.terminated))
    assert s.batch_size >= 16
    return game, s


def _observations(game: MonkeyFun, s: MonkeyFunState) -> list[np.ndarray]:
    return [game.observe(s, p) for p in range(game.num_players)]


def test_another_players_hand_is_not_observed(setup):
    game, s = setup
    P = game.num_players
    if P == 1:
        pytest.skip("solo has no other player")
    rng = np.random.default_rng(1)
    base = _observations(game, s)
    for q in range(P):
        t = s.clone()
        changed = [b for b in range(t.batch_size) if _swap_hand_with_pile(t, b, q, rng)]
        assert len(changed) >= t.batch_size // 2
        assert not np.array_equal(t.hands[:, q], s.hands[:, q])
        obs = _observations(game, t)
        for p in range(P):
            if p != q:
                assert np.array_equal(obs[p], base[p]), f"seat {p} sees seat {q}'s hand"
        assert not np.array_equal(obs[q][changed], base[q][changed]), "a seat must see its own hand"


def test_the_draw_pile_order_is_not_observed(setup):
    game, s = setup
    rng = np.random.default_rng(2)
    t = s.clone()
    for b in range(t.batch_size):
        n = int(t.draw_size[b])
        t.draw_pile[b, :n] = rng.permutation(t.draw_pile[b, :n])
    assert not np.array_equal(t.draw_pile, s.draw_pile)
    for p, (o, base) in enumerate(zip(_observations(game, t), _observations(game, s), strict=True)):
        assert np.array_equal(o, base), f"seat {p} sees the draw-pile order"


def test_the_rng_state_is_not_observed(setup):
    game, s = setup
    t = s.clone()
    t.rng[:, 0] ^= np.uint64(0xDEADBEEF)
    t.rng[:, 1] += np.uint64(17)
    for o, base in zip(_observations(game, t), _observations(game, s), strict=True):
        assert np.array_equal(o, base)


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


def test_observation_does_not_depend_on_other_rows_of_the_batch(setup):
    game, s = setup
    for p in range(game.num_players):
        whole = game.observe(s, p)
        for b in (0, s.batch_size - 1):
            assert np.array_equal(game.observe(s.take(b), p)[0], whole[b])
