"""Random-play fuzzing of Monkey Fun with invariants checked after every step.

Batches of random games over every variant, player count and board side. After each step:

* monkeys: every seat's supply + board + box == 20, nothing negative;
* cards: hands + draw pile + discard == the 55-card deck (as a multiset); hands sorted and full
  while running; draw-pile slots above ``draw_size`` empty;
* securing: a secured field holds only its owner's monkeys (at least 2); solo never secures;
* the legal mask equals :func:`reference_legal_mask`, a slow per-row reimplementation written
  from the rulebook with ``itertools`` (it shares no code with ``rules.py``);
* no running game contains a line with the majority (the game ends at once); a line win's
  winner holds one; end-of-game scores match :func:`reference_final_scores`;
* rewards only on the finishing transition (+1 winners, -1 others, 0 each when all share);
* every game ends within ``20 * P`` steps (solo: 20).

Plus hypothesis properties: serialization round-trips and clone/take/concat commute with
``step``; securing happens exactly when the placer leads everybody by 2 and boxes the rest.
"""

from __future__ import annotations

import io
import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monkey_envs.monkey_fun import MonkeyFun, MonkeyFunState
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import END_LINE, END_SOLO_COMPLETE, END_SOLO_ROUNDS, END_SOLO_STUCK, END_SUPPLIES

# The deck from the rulebook (four each of 1..12, one each of 13..19), written out independently.
DECK_COUNTS = np.array([0] + [4] * 12 + [1] * 7)
ROWS = COLS = 6
INNER = {r * COLS + c for r in range(1, 5) for c in range(1, 5)}


def _windows(quick: bool) -> list[tuple[int, ...]]:
    """Straight lines of 4 (rows, columns, both diagonals), plus 2x2 squares in the quick game."""
    out = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= y < ROWS and 0 <= x < COLS for y, x in cells):
                    out.append(tuple(y * COLS + x for y, x in cells))
            if quick and r + 1 < ROWS and c + 1 < COLS:
                out.append((r * COLS + c, r * COLS + c + 1, (r + 1) * COLS + c, (r + 1) * COLS + c + 1))
    return out


# ---------------------------------------------------------------------------- reference rules
def reference_legal_mask(
    layout: list[int], hand: list[int], owner: list[int], counts: list[list[int]], seat: int, solo: bool, own_ok: bool
) -> list[bool]:
    """Legal actions of ``seat`` straight from the rulebook (one env, plain Python).

    Args:
        layout: 36 field numbers, index = row * 6 + col.
        hand: the 4 sorted hand slots (0 = empty).
        owner: 36 owner seats (-1 = not secured).
        counts: 36 lists of monkeys per seat.
        seat: the player to move.
        solo: solo variant rules.
        own_ok: the ``place_on_own_secured`` flag.

    Returns:
        16 booleans: action ``a < 15`` plays slots of bitmask ``a + 1``; 15 = forced discard.
        In solo, all False means the player is stuck (the game is lost).
    """
    field_at = {n: i for i, n in enumerate(layout)}
    plays = []  # (action, field)
    for k in range(1, 5):
        for slots in itertools.combinations(range(4), k):
            cards = [hand[j] for j in slots]
            if 0 in cards:
                continue
            total = sum(cards)
            if total in field_at:
                plays.append((sum(1 << j for j in slots) - 1, field_at[total]))
    mask = [False] * 16
    if not solo:
        for a, f in plays:
            if owner[f] == -1 or (owner[f] == seat and own_ok):
                mask[a] = True
        if not any(mask):
            mask[15] = True
        return mask
    towers = sum(1 for f in INNER if counts[f][0] >= 2)
    free = [a for a, f in plays if f in INNER and counts[f][0] == 0]
    if free:
        chosen = free
    else:
        chosen = [
            a
            for a, f in plays
            if f in INNER and 1 <= counts[f][0] < 5 and (counts[f][0] >= 2 or towers < 4)  # extend or new tower
        ]
    for a in chosen:
        mask[a] = True
    return mask


def reference_final_scores(layout: list[int], counts: list[list[int]]) -> tuple[list[int], list[bool]]:
    """End-of-game scores and winners: the unique most monkeys keep a field; ties broken by the
    highest kept field, then the next highest, ...; still tied -> shared."""
    P = len(counts[0])
    kept: list[list[int]] = [[] for _ in range(P)]
    for f, cnt in enumerate(counts):
        top = max(cnt)
        if top > 0 and cnt.count(top) == 1:
            kept[cnt.index(top)].append(layout[f])
    scores = [sum(k) for k in kept]
    keys = [(sum(k), sorted(k, reverse=True)) for k in kept]
    best = max(keys)
    return scores, [k == best for k in keys]


def line_holders(counts: np.ndarray, owner: np.ndarray, windows: list[tuple[int, ...]]) -> np.ndarray:
    """``(B, P) bool``: seats holding the majority on every field of some window."""
    B, _, P = counts.shape
    out = np.zeros((B, P), dtype=bool)
    idx = np.array(windows)
    for p in range(P):
        others = np.delete(counts, p, axis=2).max(axis=2) if P > 1 else np.zeros(counts.shape[:2], counts.dtype)
        maj = (counts[:, :, p] > others) | (owner == p)
        out[:, p] = maj[:, idx].all(axis=2).any(axis=1)
    return out


# ---------------------------------------------------------------------------- invariants
def check_invariants(game: MonkeyFun, prev: MonkeyFunState, s: MonkeyFunState, windows) -> None:
    P = game.num_players
    B = s.batch_size
    layout = game.field_number.tolist()
    running = ~s.terminated
    just_ended = s.terminated & ~prev.terminated

    # -- monkeys
    assert (s.counts >= 0).all() and (s.supply >= 0).all() and (s.box >= 0).all()
    total = s.supply.astype(int) + s.counts.astype(int).sum(axis=1) + s.box.astype(int)
    assert (total == 20).all(), f"monkeys per seat: {total[(total != 20).any(1)][:3]}"

    # -- cards
    ranks = np.arange(D.NUM_CARDS)[None, :]
    in_pile = ranks < s.draw_size[:, None]
    assert (s.draw_pile[~in_pile] == 0).all(), "cards above the draw-pile top"
    assert (s.draw_pile[in_pile] > 0).all()
    cards = np.zeros((B, 20), dtype=int)
    for v in range(1, 20):
        cards[:, v] = (s.hands == v).sum(axis=(1, 2)) + ((s.draw_pile == v) & in_pile).sum(axis=1)
    cards += s.discard.astype(int)
    assert (s.discard[:, 0] == 0).all()
    assert (cards == DECK_COUNTS[None, :]).all(), "hand + draw + discard is not the deck"
    assert (np.diff(s.hands, axis=2) >= 0).all(), "hands must stay sorted"
    assert (s.hands[running] > 0).all(), "every hand holds 4 cards while the game runs"

    # -- securing
    owned = s.owner >= 0
    if game.solo:
        assert not owned.any()
    for p in range(P):
        mine = s.owner == p
        others = np.delete(s.counts, p, axis=2).sum(axis=2) if P > 1 else np.zeros_like(s.owner)
        assert (others[mine] == 0).all(), "foreign monkeys on a secured field"
        assert (s.counts[:, :, p][mine] >= 2).all()

    # -- flags, mask
    assert (s.current_player[s.terminated] == -1).all()
    assert ((s.current_player[running] >= 0) & (s.current_player[running] < P)).all()
    assert not s.legal_action_mask[s.terminated].any()
    assert (s.end_reason[running] == 0).all() and (s.end_reason[s.terminated] > 0).all()
    for b in np.flatnonzero(running):
        cp = int(s.current_player[b])
        assert s.supply[b, cp] > 0, "a player with an empty supply must be skipped"
        ref = reference_legal_mask(
            layout,
            s.hands[b, cp].tolist(),
            s.owner[b].tolist(),
            s.counts[b].tolist(),
            cp,
            game.solo,
            game.place_on_own_secured,
        )
        assert s.legal_action_mask[b].tolist() == ref, (
            f"row {b}: mask {np.flatnonzero(s.legal_action_mask[b])} != reference {np.flatnonzero(ref)}"
        )
        assert any(ref)

    # -- lines, end reasons, rewards
    if not game.solo:
        holders = line_holders(s.counts, s.owner, windows)
        assert not holders[running].any(), "a running game contains a winning line"
    quiet = ~just_ended
    assert (s.rewards[quiet] == 0).all(), "rewards before the end"
    for b in np.flatnonzero(just_ended):
        reason = int(s.end_reason[b])
        win = s.winners_mask[b]
        if P > 1 and win.all():
            assert (s.rewards[b] == 0).all()
        else:
            assert s.rewards[b].tolist() == [1.0 if w else -1.0 for w in win]
        if reason == END_LINE:
            mover = int(prev.current_player[b])
            assert win.tolist() == [p == mover for p in range(P)]
            assert holders[b, mover]
        elif reason == END_SUPPLIES:
            assert (s.supply[b] == 0).all()
            scores, winners = reference_final_scores(layout, s.counts[b].tolist())
            assert s.scores[b].tolist() == scores and win.tolist() == winners
        elif reason == END_SOLO_COMPLETE:
            inner_counts = [int(s.counts[b, f, 0]) for f in INNER]
            assert min(inner_counts) >= 1 and win.tolist() == [True]
            towers = sum(layout[f] for f in INNER if s.counts[b, f, 0] >= 2)
            assert int(s.scores[b, 0]) == layout[int(s.last_field[b])] - towers
            assert 16 <= 20 - int(s.supply[b, 0]) <= 20
        elif reason == END_SOLO_ROUNDS:
            assert int(s.supply[b, 0]) == 0 and not win.any()
            assert min(int(s.counts[b, f, 0]) for f in INNER) == 0
        elif reason == END_SOLO_STUCK:
            assert not win.any()
            ref = reference_legal_mask(layout, s.hands[b, 0].tolist(), [-1] * 36, s.counts[b].tolist(), 0, True, True)
            assert not any(ref), "solo game declared stuck with a legal placement"
        else:
            raise AssertionError(f"unexpected end reason {reason}")


CONFIGS = [
    *[(p, "normal", side, True) for p in (2, 3, 4) for side in (1, 2)],
    *[(p, "quick", side, True) for p in (2, 3, 4) for side in (1, 2)],
    (2, "normal", 1, False),
    (3, "quick", 2, False),
    (1, "solo", 1, True),
    (1, "solo", 2, True),
]


@pytest.mark.parametrize(("num_players", "variant", "side", "own_ok"), CONFIGS)
def test_random_play_keeps_every_invariant_and_every_game_ends(num_players, variant, side, own_ok):
    game = MonkeyFun(num_players, variant=variant, board_side=side, place_on_own_secured=own_ok)
    windows = _windows(variant == "quick")
    B = 256
    seed0 = 1000 * num_players + 100 * side + (10 if variant == "quick" else 0)
    rng = np.random.default_rng(seed0)
    s = game.init(np.arange(seed0, seed0 + B))
    init_prev = s.clone()
    init_prev.terminated[:] = False
    check_invariants(game, init_prev, s, windows)  # rows may start lost (solo) -- reward then
    limit = 20 * num_players
    steps = 0
    ended_at = np.where(s.terminated, 0, -1)
    while not s.terminated.all():
        assert steps < limit, f"games still running after {limit} steps"
        keys = rng.random((B, 16))
        keys[~s.legal_action_mask] = -1.0
        actions = keys.argmax(axis=1)
        actions[s.terminated] = rng.integers(0, 16, size=int(s.terminated.sum()))  # ignored
        before = s.clone()
        new = game.step(s, actions)
        assert s.equals(before), "step modified its input state"
        steps += 1
        check_invariants(game, s, new, windows)
        done = s.terminated
        assert (new.step_count[done] == s.step_count[done]).all(), "finished rows must not change"
        assert (new.step_count[~done] == s.step_count[~done] + 1).all()
        ended_at[new.terminated & ~s.terminated] = steps
        s = new
    assert (ended_at >= 0).all() and ended_at.max() <= limit
    assert (s.step_count <= limit).all()
    reasons = Counter(s.end_reason.tolist())
    # random play reaches every way a game can end (so each end check above really ran)
    if variant == "solo":
        assert set(reasons) == {END_SOLO_ROUNDS, END_SOLO_STUCK, END_SOLO_COMPLETE}
    else:
        assert set(reasons) == {END_LINE, END_SUPPLIES}


# ---------------------------------------------------------------------------- hypothesis properties
def _play(game: MonkeyFun, s: MonkeyFunState, choice: int) -> np.ndarray:
    """Pick the ``choice``-th legal action (mod the number legal) in every row; 0 in finished rows."""
    out = np.zeros(s.batch_size, dtype=np.int64)
    for b in range(s.batch_size):
        legal = np.flatnonzero(s.legal_action_mask[b])
        if legal.size:
            out[b] = legal[(choice + 7 * b) % legal.size]
    return out


GAMES = {
    cfg: MonkeyFun(cfg[0], variant=cfg[1], board_side=cfg[2])
    for cfg in [(2, "normal", 1), (3, "quick", 2), (4, "normal", 2), (1, "solo", 1)]
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cfg=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**40),
    choices=st.lists(st.integers(0, 1000), min_size=1, max_size=40),
)
def test_serialization_round_trips_and_clone_take_concat_commute_with_step(cfg, seed, choices):
    game = GAMES[cfg]
    s = game.init([seed, seed + 1, seed + 2])
    for choice in choices:
        acts = _play(game, s, choice)
        nxt = game.step(s, acts)
        # clone / take / concat commute with step
        assert game.step(s.clone(), acts).equals(nxt)
        parts = [game.step(s.take([i]), acts[i : i + 1]) for i in range(3)]
        assert MonkeyFunState.concat(parts).equals(nxt)
        assert game.step(MonkeyFunState.concat([s.take([0, 1]), s.take([2])]), acts).equals(nxt)
        # serialization round-trips, and the restored state steps identically
        assert MonkeyFunState.from_json(s.to_json()).equals(s)
        restored = MonkeyFunState.set_state(s.get_state())
        assert game.step(restored, acts).equals(nxt)
        s = nxt
        if s.terminated.all():
            break
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert MonkeyFunState.load(buf).equals(s)


@settings(max_examples=60, deadline=None)
@given(
    num_players=st.integers(2, 4),
    before=st.lists(st.integers(0, 5), min_size=4, max_size=4),
    number=st.integers(1, 19),
    placer=st.integers(0, 3),
)
def test_securing_happens_exactly_at_a_two_monkey_lead_and_leaves_no_foreign_monkeys(
    num_players, before, number, placer
):
    """Any counts on a field, any placer: after placing, the field is secured iff the placer leads
    every other seat by 2; then all other monkeys there are in the box and none is left."""
    game = MonkeyFun(num_players)
    placer %= num_players
    before = before[:num_players]
    hands = [[2, 3, 4, 5] for _ in range(num_players)]
    hands[placer] = [number]
    if number in (2, 3, 4, 5):
        hands = [[6, 7, 8, 9] if p != placer else [number] for p in range(num_players)]
    s = game.position(hands=hands, board={number: before}, current_player=placer)
    f = int(np.flatnonzero(game.field_number == number)[0])
    # the single card sits in slot 3 of the sorted hand [0, 0, 0, number]: bitmask 8 -> action 7
    assert np.flatnonzero(s.legal_action_mask[0]).tolist() == [7]
    new = game.step(s, np.array([7]))
    after = list(before)
    after[placer] += 1
    lead = all(after[placer] >= after[q] + 2 for q in range(num_players) if q != placer)
    if lead:
        assert int(new.owner[0, f]) == placer
        assert new.counts[0, f].tolist() == [after[placer] if q == placer else 0 for q in range(num_players)]
        assert new.box[0].tolist() == [0 if q == placer else before[q] for q in range(num_players)]
    else:
        assert int(new.owner[0, f]) == -1
        assert new.counts[0, f].tolist() == after
        assert (new.box[0] == 0).all()
    assert (new.supply[0] + new.counts[0].sum(0) + new.box[0] == 20).all()
