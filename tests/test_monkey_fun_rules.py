"""Monkey Fun rules fidelity: one scenario per rule of ``shared/rules/monkey_fun.txt`` and DECISIONS.md.

Every test builds a position with :meth:`MonkeyFun.position`, applies actions and checks the
exact outcome. Positions on the board are given by *geometry* (row, column as seen from seat 0)
and translated to field numbers with ``game.field_number``, so the tests check the rules, not
the reconstructed layout (DECISIONS.md: "Tests should check the rules, not the particular
placeholder numbers"). The pictures show board side 1 for orientation::

         c0 c1 c2 c3 c4 c5
    r0   23  1 34 29  9 15
    r1   25 31 13  4 18 20
    r2   14 21  2 28 36 10
    r3    6 16 32  7 17 33
    r4   35 12  3 24 26 11
    r5    8 30 27 19  5 22

Action encoding: the current player's hand is sorted; action ``a < 15`` plays the slots of
bitmask ``a + 1``; action 15 is the forced "no playable cards" discard.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from monkey_envs.monkey_fun import DISCARD_ACTION, MonkeyFun
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import (
    END_LINE,
    END_NONE,
    END_SOLO_COMPLETE,
    END_SOLO_ROUNDS,
    END_SOLO_STUCK,
    END_SUPPLIES,
)

DECK = Counter(D.DECK)


# ---------------------------------------------------------------------------- helpers
def num(game: MonkeyFun, r: int, c: int) -> int:
    """Number printed on the field at row ``r``, column ``c``."""
    return int(game.field_number[r * D.BOARD_COLS + c])


def cards_for(n: int) -> list[int]:
    """A few cards summing to field number ``n`` (1..36)."""
    if n <= 19:
        return [n]
    if n <= 24:
        return [12, n - 12]
    return [12, 12, n - 24]


def padded(cards: list[int], filler: int = 1) -> list[int]:
    """``cards`` padded to a full hand of 4 with ``filler``."""
    return list(cards) + [filler] * (D.HAND_SIZE - len(cards))


def action_of(state, cards: list[int], row: int = 0) -> int:
    """Action index that plays exactly ``cards`` from the current player's sorted hand."""
    cp = int(state.current_player[row])
    hand = state.hands[row, cp].tolist()
    bits = 0
    for c in cards:
        j = next(j for j in range(D.HAND_SIZE) if hand[j] == c and not (bits >> j) & 1)
        bits |= 1 << j
    assert bits, "no cards"
    return bits - 1


def play(game: MonkeyFun, state, cards: list[int]):
    """Step a B=1 state playing ``cards`` (asserting the move is legal)."""
    a = action_of(state, cards)
    assert state.legal_action_mask[0, a], f"{cards} should be legal with hand {state.hands[0].tolist()}"
    return game.step(state, np.array([a]))


def legal_sets(state) -> set[tuple[int, ...]]:
    """Card multisets (sorted tuples) of the legal subset actions of row 0."""
    cp = int(state.current_player[0])
    hand = state.hands[0, cp]
    out = set()
    for a in np.flatnonzero(state.legal_action_mask[0, :15]):
        out.add(tuple(sorted(int(hand[j]) for j in range(4) if ((a + 1) >> j) & 1)))
    return out


def hand_multiset(state, seat: int) -> Counter:
    return Counter(int(x) for x in state.hands[0, seat] if x)


def draw_pile_top_first(state) -> list[int]:
    n = int(state.draw_size[0])
    return [int(x) for x in state.draw_pile[0, :n][::-1]]


def discard_multiset(state) -> Counter:
    return Counter({v: int(n) for v, n in enumerate(state.discard[0]) if n})


# ============================================================================ turn basics
def test_playing_cards_places_one_monkey_on_the_field_of_their_sum_and_refills_the_hand():
    """Blue plays 2 cards showing 11 together, places one monkey on 11, draws 2 (the rulebook's example turn)."""
    game = MonkeyFun(2)
    s = game.position(hands=[[2, 3, 5, 9], [1, 4, 6, 8]], draw_pile=[7, 8, 1], current_player=0)
    f11 = int(np.flatnonzero(game.field_number == 11)[0])
    new = play(game, s, [2, 9])
    assert new.counts[0, f11].tolist() == [1, 0]
    assert int(new.counts[0].sum()) == 1  # exactly one monkey placed
    assert new.supply[0].tolist() == [19, 20]
    assert new.hands[0, 0].tolist() == [3, 5, 7, 8]  # kept 3, 5 and drew the top two (7, 8)
    assert draw_pile_top_first(new) == [1]
    assert discard_multiset(new) - discard_multiset(s) == Counter({2: 1, 9: 1})
    assert int(new.current_player[0]) == 1
    assert int(new.last_field[0]) == f11
    assert new.rewards[0].tolist() == [0.0, 0.0] and not new.terminated[0]
    # the input state is untouched
    assert s.counts[0].sum() == 0 and s.hands[0, 0].tolist() == [2, 3, 5, 9]


def test_draw_pile_is_given_top_first_and_drawn_from_the_top():
    game = MonkeyFun(2)
    s = game.position(hands=[[2, 3, 5, 9], [1, 4, 6, 8]], draw_pile=[12, 1, 6], current_player=0)
    s = play(game, s, [2])
    assert s.hands[0, 0].tolist() == [3, 5, 9, 12]  # 12 was on top
    assert draw_pile_top_first(s) == [1, 6]
    s = play(game, s, [8])
    assert s.hands[0, 1].tolist() == [1, 1, 4, 6]  # then 1
    assert draw_pile_top_first(s) == [6]


def test_play_passes_clockwise_to_the_next_seat():
    game = MonkeyFun(3)
    s = game.position(hands=[[1, 2, 3, 4], [1, 2, 3, 4], [5, 6, 7, 8]], current_player=0)
    seen = []
    for cards in ([2], [3], [5], [4]):
        s = play(game, s, cards)
        seen.append(int(s.current_player[0]))
    assert seen == [1, 2, 0, 1]


def test_the_start_player_is_random_and_each_seat_is_dealt_four_cards():
    game = MonkeyFun(3)
    s = game.init(np.arange(90))
    assert set(s.current_player.tolist()) == {0, 1, 2}
    assert (s.hands > 0).all()
    assert (np.diff(s.hands, axis=2) >= 0).all()  # hands sorted
    assert (s.draw_size == D.NUM_CARDS - 3 * D.HAND_SIZE).all()
    assert (s.discard == 0).all() and (s.supply == 20).all() and (s.counts == 0).all()


# ============================================================================ legal plays
def test_any_subset_of_one_to_four_cards_summing_to_a_field_is_legal_and_sums_over_36_are_not():
    """Hand 10 11 12 13: every single, pair and triple sums to 10..36; all four (46) is no field."""
    game = MonkeyFun(2)
    s = game.position(hands=[[10, 11, 12, 13], [1, 2, 3, 4]])
    expected = np.ones(16, dtype=bool)
    expected[14] = False  # all four cards: 46 > 36
    expected[DISCARD_ACTION] = False  # something is playable
    assert s.legal_action_mask[0].tolist() == expected.tolist()


def test_different_subsets_with_the_same_sum_are_different_legal_actions():
    """11+12 and 10+13 both make 23 but leave different hands."""
    game = MonkeyFun(2)
    s = game.position(hands=[[10, 11, 12, 13], [1, 2, 3, 4]], draw_pile=[1, 2, 3])
    a = action_of(s, [11, 12])
    b = action_of(s, [10, 13])
    assert a != b and s.legal_action_mask[0, a] and s.legal_action_mask[0, b]
    f23 = int(np.flatnonzero(game.field_number == 23)[0])
    sa = game.step(s, np.array([a]))
    sb = game.step(s, np.array([b]))
    assert sa.counts[0, f23, 0] == 1 and sb.counts[0, f23, 0] == 1
    assert sa.hands[0, 0].tolist() == [1, 2, 10, 13]
    assert sb.hands[0, 0].tolist() == [1, 2, 11, 12]


def test_a_field_secured_by_another_player_cannot_be_played_on():
    """Field 11 belongs to seat 1: 2+9 and 11 (both sum 11) are illegal for seat 0, 2 and 9 stay legal."""
    game = MonkeyFun(2)
    s = game.position(hands=[[2, 9, 11], [1, 3, 4, 5]], board={11: [0, 2]}, owners={11: 1})
    assert legal_sets(s) == {(2,), (9,), (2, 11), (9, 11), (2, 9, 11)}
    assert not s.legal_action_mask[0, DISCARD_ACTION]


def test_placing_on_a_field_you_secured_yourself_is_allowed_by_default():
    game = MonkeyFun(2)
    s = game.position(hands=[[11, 1, 1, 1], [1, 3, 4, 5]], board={11: [2, 0]}, owners={11: 0})
    assert (11,) in legal_sets(s)
    f11 = int(np.flatnonzero(game.field_number == 11)[0])
    new = play(game, s, [11])
    assert new.counts[0, f11].tolist() == [3, 0]
    assert int(new.owner[0, f11]) == 0


def test_placing_on_a_field_you_secured_yourself_is_forbidden_when_the_flag_is_off():
    game = MonkeyFun(2, place_on_own_secured=False)
    s = game.position(hands=[[11, 1, 1, 1], [1, 3, 4, 5]], board={11: [2, 0]}, owners={11: 0})
    assert (11,) not in legal_sets(s)
    # 1, 2, 3 and 12, 13, 14 stay legal: only the sum 11 (seat 0's own secured field) is lost
    assert legal_sets(s) == {(1,), (1, 1), (1, 1, 1), (1, 11), (1, 1, 11), (1, 1, 1, 11)}
    # ... and when only the own secured field is reachable, the player has no playable cards
    s2 = game.position(hands=[[11], [1, 3, 4, 5]], board={11: [2, 0]}, owners={11: 0})
    assert np.flatnonzero(s2.legal_action_mask[0]).tolist() == [DISCARD_ACTION]


# ============================================================================ securing
@pytest.mark.parametrize(
    ("before", "secured"),
    [
        ([1, 0, 0], True),  # 2 vs 0
        ([0, 0, 0], False),  # 1 vs 0
        ([2, 1, 0], True),  # 3 vs 1
        ([2, 2, 0], False),  # 3 vs 2
        ([1, 1, 1], False),  # 2 vs 1
        ([2, 1, 1], True),  # 3 vs 1 and 1
        ([3, 0, 2], True),  # 4 vs 2
        ([3, 2, 2], True),  # 4 vs 2 and 2
        ([3, 3, 1], False),  # 4 vs 3
    ],
)
def test_securing_needs_two_more_than_every_other_player(before, secured):
    """Seat 0 places on field 11; it secures the field iff its count >= every other count + 2."""
    game = MonkeyFun(3)
    s = game.position(hands=[[11, 1, 1, 1], [2, 3, 4, 5], [2, 3, 4, 5]], board={11: before})
    f = int(np.flatnonzero(game.field_number == 11)[0])
    new = play(game, s, [11])
    after = [before[0] + 1, *before[1:]]
    if secured:
        assert int(new.owner[0, f]) == 0
        assert new.counts[0, f].tolist() == [after[0], 0, 0]
        assert new.box[0].tolist() == [0, before[1], before[2]]  # others' monkeys go to the box ...
        assert new.supply[0, 1:].tolist() == s.supply[0, 1:].tolist()  # ... not back to their supply
    else:
        assert int(new.owner[0, f]) == -1
        assert new.counts[0, f].tolist() == after
        assert new.box[0].tolist() == [0, 0, 0]


def test_securing_sends_every_other_players_monkeys_on_the_field_to_the_box_in_a_four_player_game():
    game = MonkeyFun(4)
    hands = [[11, 1, 1, 1], [2, 3, 4, 5], [2, 3, 4, 5], [6, 7, 8, 9]]
    s = game.position(hands=hands, board={11: [3, 1, 0, 1], 5: [0, 1, 1, 0]})
    f11 = int(np.flatnonzero(game.field_number == 11)[0])
    f5 = int(np.flatnonzero(game.field_number == 5)[0])
    new = play(game, s, [11])
    assert int(new.owner[0, f11]) == 0
    assert new.counts[0, f11].tolist() == [4, 0, 0, 0]
    assert new.box[0].tolist() == [0, 1, 0, 1]
    assert new.counts[0, f5].tolist() == [0, 1, 1, 0]  # other fields untouched
    assert (new.supply[0] + new.counts[0].sum(0) + new.box[0] == 20).all()


def test_nobody_else_may_place_on_a_field_after_it_was_secured():
    """Seat 0 secures 11 (2 vs 0); seat 1 then holds 11 and 5+6 and may play neither."""
    game = MonkeyFun(2)
    s = game.position(hands=[[11, 1, 1, 1], [5, 6, 11 - 9, 9]], board={11: [1, 0]}, current_player=0)
    before = legal_sets(game.position(hands=[[1, 1, 1, 3], [2, 5, 6, 9]], board={11: [1, 0]}, current_player=1))
    assert (5, 6) in before and (2, 9) in before  # 11 is free before securing
    new = play(game, s, [11])
    f11 = int(np.flatnonzero(game.field_number == 11)[0])
    assert int(new.owner[0, f11]) == 0
    assert int(new.current_player[0]) == 1
    after = legal_sets(new)
    assert (5, 6) not in after and (2, 9) not in after
    assert (5,) in after and (2, 5) in after  # other fields stay playable


def test_a_secured_field_counts_as_majority_for_its_owner_whatever_happens_elsewhere():
    """Seat 0 owns one field of a line with 2 monkeys: that field counts for the line."""
    game = MonkeyFun(2)
    cells = [(2, 1), (2, 2), (2, 3), (2, 4)]
    n = [num(game, r, c) for r, c in cells]
    board = {n[0]: [2, 0], n[1]: [1, 0], n[2]: [1, 0]}
    s = game.position(hands=[padded(cards_for(n[3])), [2, 3, 4, 5]], board=board, owners={n[0]: 0})
    new = play(game, s, cards_for(n[3]))
    assert new.terminated[0] and int(new.end_reason[0]) == END_LINE


# ============================================================================ no playable cards
def test_no_playable_cards_discards_the_hand_boxes_one_monkey_draws_four_and_ends_the_turn():
    """Hand 12 12 12 12 reaches 12, 24, 36 (all owned by seat 1) and 48: only the discard is legal."""
    game = MonkeyFun(2)
    board = {12: [0, 2], 24: [0, 2], 36: [0, 3]}
    owners = {12: 1, 24: 1, 36: 1}
    s = game.position(
        hands=[[12, 12, 12, 12], [1, 2, 3, 4]], board=board, owners=owners, draw_pile=[9, 5, 7, 1, 3], current_player=0
    )
    assert np.flatnonzero(s.legal_action_mask[0]).tolist() == [DISCARD_ACTION]
    new = game.step(s, np.array([DISCARD_ACTION]))
    assert new.hands[0, 0].tolist() == [1, 5, 7, 9]  # 4 new cards from the top
    assert draw_pile_top_first(new) == [3]
    assert discard_multiset(new) - discard_multiset(s) == Counter({12: 4})
    assert new.box[0].tolist() == [1, 0]
    assert new.supply[0].tolist() == [19, s.supply[0, 1]]
    assert np.array_equal(new.counts, s.counts)  # no monkey placed
    assert int(new.current_player[0]) == 1
    assert not new.terminated[0] and new.rewards[0].tolist() == [0.0, 0.0]


def test_the_discard_action_is_illegal_when_some_subset_is_playable():
    game = MonkeyFun(2)
    s = game.position(hands=[[12, 12, 12, 1], [1, 2, 3, 4]], board={12: [0, 2], 24: [0, 2]}, owners={12: 1, 24: 1})
    # 1, 13 = 1+12, 25 = 1+12+12 and 36 = 12+12+12 are free; 12 and 24 belong to seat 1; 37 is no field
    assert legal_sets(s) == {(1,), (1, 12), (1, 12, 12), (12, 12, 12)}
    assert not s.legal_action_mask[0, DISCARD_ACTION]
    with pytest.raises(ValueError):
        game.step(s, np.array([DISCARD_ACTION]))


# ============================================================================ line wins
LINES = {
    "row": [(2, 1), (2, 2), (2, 3), (2, 4)],
    "row_at_the_edge": [(0, 2), (0, 3), (0, 4), (0, 5)],
    "column": [(1, 3), (2, 3), (3, 3), (4, 3)],
    "column_at_the_edge": [(2, 0), (3, 0), (4, 0), (5, 0)],
    "diagonal": [(1, 1), (2, 2), (3, 3), (4, 4)],
    "diagonal_at_the_corner": [(2, 2), (3, 3), (4, 4), (5, 5)],
    "anti_diagonal": [(0, 4), (1, 3), (2, 2), (3, 1)],
    "anti_diagonal_at_the_corner": [(2, 3), (3, 2), (4, 1), (5, 0)],
}


def _line_position(game: MonkeyFun, cells, last: int, majorities: list[list[int]]):
    """Seat 0 to move holding the cards for ``cells[last]``; the other 3 cells get ``majorities``."""
    nums = [num(game, r, c) for r, c in cells]
    board = {}
    others = [i for i in range(4) if i != last]
    for i, cnt in zip(others, majorities, strict=True):
        board[nums[i]] = cnt
    board[nums[last]] = [1, 1] + [0] * (game.num_players - 2)  # placing makes it 2 vs 1
    filler_hands = [[2, 3, 4, 5], [6, 7, 8, 9], [2, 3, 4, 5]][: game.num_players - 1]
    s = game.position(hands=[padded(cards_for(nums[last])), *filler_hands], board=board)
    return s, cards_for(nums[last])


@pytest.mark.parametrize("direction", sorted(LINES))
@pytest.mark.parametrize("last", [0, 1, 3])
def test_four_connected_fields_with_the_majority_win_immediately_in_every_direction(direction, last):
    """
    Row example (seat 0 = A, seat 1 = B); A places the fourth monkey on the ``last`` field::

        . A1 A2B1 A1 A1B1<- .      (A holds the majority on all four -> A wins)
    """
    game = MonkeyFun(2)
    s, cards = _line_position(game, LINES[direction], last, [[1, 0], [2, 1], [3, 2]])
    new = play(game, s, cards)
    assert new.terminated[0]
    assert int(new.end_reason[0]) == END_LINE
    assert new.winners_mask[0].tolist() == [True, False]
    assert game.winners(new)[0].tolist() == [True, False]
    assert new.rewards[0].tolist() == [1.0, -1.0]
    assert int(new.current_player[0]) == -1
    assert not new.legal_action_mask[0].any()
    # nobody draws after a line win
    assert int(new.draw_size[0]) == int(s.draw_size[0])
    assert int((new.hands[0, 0] > 0).sum()) == 4 - len(cards)


@pytest.mark.parametrize("direction", ["row", "column", "diagonal", "anti_diagonal"])
@pytest.mark.parametrize("weak", [0, 1, 2])
@pytest.mark.parametrize("weak_counts", [[1, 1], [1, 2], [0, 1], [0, 0]])
def test_a_line_needs_the_majority_on_every_one_of_its_four_fields(direction, weak, weak_counts):
    """One of the other three fields is tied, lost or empty: placing the fourth monkey does not win."""
    game = MonkeyFun(2)
    maj = [[1, 0], [2, 1], [3, 0]]
    maj[weak] = weak_counts
    s, cards = _line_position(game, LINES[direction], 3, maj)
    new = play(game, s, cards)
    assert not new.terminated[0]
    assert int(new.end_reason[0]) == END_NONE
    assert new.rewards[0].tolist() == [0.0, 0.0]
    assert int(new.current_player[0]) == 1


def test_the_majority_means_strictly_more_than_every_other_player_in_a_three_player_game():
    """A 2, B 1, C 2 on one field of the row: A has no majority there, so no win."""
    game = MonkeyFun(3)
    s, cards = _line_position(game, LINES["row"], 3, [[1, 0, 0], [2, 1, 2], [1, 0, 0]])
    assert not play(game, s, cards).terminated[0]
    s, cards = _line_position(game, LINES["row"], 3, [[1, 0, 0], [3, 1, 2], [1, 0, 0]])
    new = play(game, s, cards)
    assert new.terminated[0] and new.rewards[0].tolist() == [1.0, -1.0, -1.0]


def test_four_fields_in_a_row_must_be_connected():
    """A gap in the row (c0 c1 _ c3 c4) is no line of four."""
    game = MonkeyFun(2)
    cells = [(2, 0), (2, 1), (2, 3), (2, 4)]
    s, cards = _line_position(game, cells, 3, [[1, 0], [1, 0], [1, 0]])
    new = play(game, s, cards)
    assert not new.terminated[0]


def test_three_in_a_row_do_not_win():
    game = MonkeyFun(2)
    cells = [(2, 1), (2, 2), (2, 3), (2, 4)]
    nums = [num(game, r, c) for r, c in cells]
    s = game.position(hands=[padded(cards_for(nums[2])), [2, 3, 4, 5]], board={nums[0]: [1, 0], nums[1]: [1, 0]})
    assert not play(game, s, cards_for(nums[2])).terminated[0]


def _all_windows(square: bool) -> list[list[tuple[int, int]]]:
    """Every straight line of 4 connected fields (or every 2x2 block), as (row, col) cells."""
    out = []
    for r in range(6):
        for c in range(6):
            if square:
                cells = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
                if r + 1 < 6 and c + 1 < 6:
                    out.append(cells)
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= y < 6 and 0 <= x < 6 for y, x in cells):
                    out.append(cells)
    return out


@pytest.mark.parametrize("board_side", [1, 2])
def test_every_one_of_the_54_straight_lines_wins_and_no_2x2_block_does(board_side):
    game = MonkeyFun(2, board_side=board_side)
    lines = _all_windows(square=False)
    assert len(lines) == 54
    for cells in lines:
        s, cards = _line_position(game, cells, 2, [[1, 0], [2, 1], [1, 0]])
        assert play(game, s, cards).terminated[0], f"line {cells} should win"
    for cells in _all_windows(square=True):
        s, cards = _line_position(game, cells, 2, [[1, 0], [2, 1], [1, 0]])
        assert not play(game, s, cards).terminated[0], f"2x2 block {cells} must not win the normal game"


@pytest.mark.parametrize("board_side", [1, 2])
def test_quick_game_every_one_of_the_25_two_by_two_blocks_wins(board_side):
    game = MonkeyFun(2, variant="quick", board_side=board_side)
    squares = _all_windows(square=True)
    assert len(squares) == 25
    for cells in squares:
        s, cards = _line_position(game, cells, 0, [[1, 0], [2, 1], [1, 0]])
        assert play(game, s, cards).terminated[0], f"2x2 block {cells} should win the quick game"


SQUARE = [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_quick_game_a_two_by_two_square_with_the_majority_wins():
    """
    Quick game: A holds the majority on a 2x2 block::

        A1   A2B1
        A1   A1B1<-
    """
    game = MonkeyFun(2, variant="quick")
    s, cards = _line_position(game, SQUARE, 3, [[1, 0], [2, 1], [1, 0]])
    new = play(game, s, cards)
    assert new.terminated[0] and int(new.end_reason[0]) == END_LINE
    assert new.rewards[0].tolist() == [1.0, -1.0]


def test_quick_game_square_needs_the_majority_on_all_four_fields():
    game = MonkeyFun(2, variant="quick")
    s, cards = _line_position(game, SQUARE, 3, [[1, 0], [1, 1], [1, 0]])
    assert not play(game, s, cards).terminated[0]


def test_quick_game_still_wins_with_a_straight_line():
    game = MonkeyFun(3, variant="quick")
    s, cards = _line_position(game, LINES["diagonal"], 2, [[1, 0, 0], [1, 0, 0], [1, 0, 0]])
    new = play(game, s, cards)
    assert new.terminated[0] and new.rewards[0].tolist() == [1.0, -1.0, -1.0]


@pytest.mark.parametrize("num_players", [2, 4])
def test_normal_game_a_two_by_two_square_does_not_win(num_players):
    game = MonkeyFun(num_players)
    zeros = [0] * (num_players - 1)
    s, cards = _line_position(game, SQUARE, 3, [[1, *zeros], [2, 1, *zeros[1:]], [1, *zeros]])
    new = play(game, s, cards)
    assert not new.terminated[0]
    assert int(new.current_player[0]) == 1


# ============================================================================ draw pile
def test_reshuffle_in_the_middle_of_a_draw_draws_the_remaining_cards_first_then_the_shuffled_discard():
    """Pile [7], seat 0 plays 2+9: draws 7 first, then the discard (with 2 and 9) becomes the new pile."""
    game = MonkeyFun(2)
    s = game.position(hands=[[2, 3, 5, 9], [1, 4, 6, 8]], draw_pile=[7], current_player=0, seed=3)
    old_discard = discard_multiset(s)
    assert sum(old_discard.values()) == 55 - 8 - 1
    new = play(game, s, [2, 9])
    hand = hand_multiset(new, 0)
    assert hand[3] >= 1 and hand[5] >= 1 and hand[7] >= 1  # kept 3, 5 and drew the remaining 7 first
    x = hand - Counter({3: 1, 5: 1, 7: 1})
    assert sum(x.values()) == 1
    assert sum(discard_multiset(new).values()) == 0  # the discard became the draw pile
    pile = Counter(draw_pile_top_first(new))
    assert pile + x == old_discard + Counter({2: 1, 9: 1})  # just-played cards were shuffled in
    assert int(new.draw_size[0]) == 1 + (55 - 8 - 1) + 2 - 2  # old pile + discard + played - drawn
    top_first = draw_pile_top_first(new)
    assert top_first != sorted(top_first) and top_first != sorted(top_first, reverse=True)  # really shuffled


def test_reshuffle_order_comes_from_the_state_rng():
    game = MonkeyFun(2)
    piles = []
    for seed in (3, 3, 4):
        s = game.position(hands=[[2, 3, 5, 9], [1, 4, 6, 8]], draw_pile=[7], current_player=0, seed=seed)
        piles.append(draw_pile_top_first(play(game, s, [2, 9])))
    assert piles[0] == piles[1]
    assert piles[0] != piles[2]


def test_no_reshuffle_while_the_pile_holds_enough_cards_then_reshuffle_on_the_next_draw():
    game = MonkeyFun(2)
    s = game.position(hands=[[2, 3, 5, 9], [1, 4, 6, 8]], draw_pile=[7, 8], current_player=0)
    disc = discard_multiset(s)
    s1 = play(game, s, [2, 9])
    assert s1.hands[0, 0].tolist() == [3, 5, 7, 8]
    assert int(s1.draw_size[0]) == 0
    assert discard_multiset(s1) == disc + Counter({2: 1, 9: 1})  # not reshuffled yet
    s2 = play(game, s1, [6])  # seat 1 must draw one card from an empty pile
    assert sum(discard_multiset(s2).values()) == 0
    assert int(s2.draw_size[0]) == sum(disc.values()) + 2 + 1 - 1
    drawn = hand_multiset(s2, 1) - Counter({1: 1, 4: 1, 8: 1})
    assert Counter(draw_pile_top_first(s2)) + drawn == disc + Counter({2: 1, 9: 1, 6: 1})


def test_the_discard_pile_is_public_and_the_forced_discard_also_reshuffles_with_the_discarded_hand():
    """Forced discard with 2 cards left: the 2 are drawn first, then the discard incl. the 4 just discarded."""
    game = MonkeyFun(2)
    board = {12: [0, 2], 24: [0, 2], 36: [0, 3]}
    owners = {12: 1, 24: 1, 36: 1}
    s = game.position(
        hands=[[12, 12, 12, 12], [1, 2, 3, 4]], board=board, owners=owners, draw_pile=[9, 5], current_player=0
    )
    disc = discard_multiset(s)
    new = game.step(s, np.array([DISCARD_ACTION]))
    hand = hand_multiset(new, 0)
    drawn = hand - Counter({9: 1, 5: 1})
    assert sum(drawn.values()) == 2 and hand[9] >= 1 and hand[5] >= 1
    assert Counter(draw_pile_top_first(new)) + drawn == disc + Counter({12: 4})


# ============================================================================ empty supplies
def test_a_player_whose_supply_is_empty_is_skipped():
    """Seat 1 has placed all 20 monkeys (here: 4 on the board, 16 in the box): turns go 0 -> 2 -> 0."""
    game = MonkeyFun(3)
    s = game.position(
        hands=[[1, 2, 3, 4], [1, 2, 3, 4], [5, 6, 7, 8]], board={20: [0, 4, 0]}, box=[0, 16, 0], current_player=0
    )
    assert s.supply[0].tolist() == [20, 0, 20]
    s = play(game, s, [2])
    assert int(s.current_player[0]) == 2
    s = play(game, s, [5])
    assert int(s.current_player[0]) == 0


def test_the_only_player_with_monkeys_left_keeps_playing():
    game = MonkeyFun(2)
    s = game.position(hands=[[1, 2, 3, 4], [5, 6, 7, 8]], board={20: [0, 4]}, box=[18, 16], supply=[2, 0])
    s = play(game, s, [2])
    assert int(s.current_player[0]) == 0 and not s.terminated[0]
    s = play(game, s, [3])
    assert s.terminated[0] and int(s.end_reason[0]) == END_SUPPLIES


def test_the_game_does_not_end_while_some_supply_is_left():
    game = MonkeyFun(2)
    s = game.position(hands=[[1, 2, 3, 4], [5, 6, 7, 8]], box=[19, 19], supply=[1, 1])
    s = play(game, s, [2])
    assert not s.terminated[0] and int(s.current_player[0]) == 1
    s = play(game, s, [5])
    assert s.terminated[0] and int(s.end_reason[0]) == END_SUPPLIES


def test_the_game_ends_when_the_last_monkey_goes_to_the_box_through_a_forced_discard():
    game = MonkeyFun(2)
    board = {12: [0, 2], 24: [0, 2], 36: [0, 3], 5: [1, 0]}
    owners = {12: 1, 24: 1, 36: 1}
    s = game.position(hands=[[12, 12, 12, 12], [1, 2, 3, 4]], board=board, owners=owners, box=[18, 13], supply=[1, 0])
    new = game.step(s, np.array([DISCARD_ACTION]))
    assert new.terminated[0] and int(new.end_reason[0]) == END_SUPPLIES
    assert new.supply[0].tolist() == [0, 0]
    assert new.scores[0].tolist() == [5, 12 + 24 + 36]
    assert new.rewards[0].tolist() == [-1.0, 1.0]


# ============================================================================ end-of-game scoring
def _last_monkey_position(game: MonkeyFun, board: dict[int, list[int]], last_field: int, owners=None):
    """Seat 0 holds its last monkey and the cards for ``last_field``; every other supply is empty."""
    P = game.num_players
    on_board = np.zeros(P, dtype=int)
    for cnt in board.values():
        on_board += np.asarray(cnt)
    supply = [1] + [0] * (P - 1)
    box = (20 - on_board - np.asarray(supply)).tolist()
    hands = [padded(cards_for(last_field), 1)] + [[2, 3, 4, 5]] * (P - 1)
    return game.position(hands=hands, board=board, owners=owners, box=box, supply=supply), cards_for(last_field)


def test_rulebook_end_example_1_only_the_majority_scores_field_23():
    """Field 23: Yellow 3, Red 2, Grey 2 -> Red and Grey are in the minority; Yellow scores 23.

    Seat 0 = Yellow, 1 = Red, 2 = Grey. Yellow's last monkey goes on field 10 next to Red's
    single monkey (a tie that voids field 10), so field 23 is the only one scored.
    """
    game = MonkeyFun(3)
    s, cards = _last_monkey_position(game, {23: [3, 2, 2], 10: [0, 1, 0]}, 10)
    new = play(game, s, cards)
    assert new.terminated[0] and int(new.end_reason[0]) == END_SUPPLIES
    assert new.scores[0].tolist() == [23, 0, 0]
    assert new.winners_mask[0].tolist() == [True, False, False]
    assert new.rewards[0].tolist() == [1.0, -1.0, -1.0]
    assert game.episode_info(new, 0)["scores"].tolist() == [23, 0, 0]


def test_rulebook_end_example_2_a_tie_for_the_most_monkeys_voids_field_7():
    """Field 7: Red 2, Grey 2, Yellow 1 -> Yellow removed as minority, Red and Grey cancel: nobody scores."""
    game = MonkeyFun(3)
    s, cards = _last_monkey_position(game, {7: [1, 2, 2], 23: [3, 2, 2]}, 10)
    new = play(game, s, cards)
    assert new.scores[0].tolist() == [23 + 10, 0, 0]  # field 7 counts for nobody
    s, cards = _last_monkey_position(game, {7: [1, 2, 2], 10: [0, 0, 1]}, 10)
    new = play(game, s, cards)
    assert new.scores[0].tolist() == [0, 0, 0]


def test_end_scoring_sums_every_kept_field_whether_connected_or_not():
    game = MonkeyFun(2)
    s, cards = _last_monkey_position(game, {1: [2, 1], 36: [1, 0], 20: [0, 3], 19: [1, 1]}, 15)
    new = play(game, s, cards)
    assert new.scores[0].tolist() == [1 + 36 + 15, 20]
    assert new.rewards[0].tolist() == [1.0, -1.0]


@pytest.mark.parametrize(
    ("board", "last", "scores", "winners"),
    [
        # seat 0: 13 + 17 = 30 (highest 17); seat 1: 30 (highest 30) -> seat 1 wins the tie-break
        ({13: [1, 0], 30: [0, 1]}, 17, [30, 30], [False, True]),
        # seat 0: 30; seat 1: 13 + 17 = 30 -> seat 0 wins the tie-break
        ({17: [0, 1], 13: [0, 1]}, 30, [30, 30], [True, False]),
    ],
)
def test_equal_totals_are_decided_by_the_highest_kept_field(board, last, scores, winners):
    game = MonkeyFun(2)
    s, cards = _last_monkey_position(game, board, last)
    new = play(game, s, cards)
    assert new.scores[0].tolist() == scores
    assert new.winners_mask[0].tolist() == winners
    assert new.rewards[0].tolist() == [1.0 if w else -1.0 for w in winners]


def test_tie_break_in_a_four_player_game():
    """Seats 1 and 3 both total 36 (36 vs 20+16); seat 1 holds the highest field."""
    game = MonkeyFun(4)
    s, cards = _last_monkey_position(game, {36: [0, 1, 0, 0], 20: [0, 0, 0, 2], 16: [0, 0, 0, 1], 3: [0, 0, 1, 0]}, 2)
    new = play(game, s, cards)
    assert new.scores[0].tolist() == [2, 36, 3, 36]
    assert new.winners_mask[0].tolist() == [False, True, False, False]
    assert new.rewards[0].tolist() == [-1.0, 1.0, -1.0, -1.0]


def test_a_fully_shared_win_gives_every_player_a_zero_reward():
    """Every field is tied: all totals are 0, everybody shares the win, rewards are 0 each."""
    game = MonkeyFun(3)
    s, cards = _last_monkey_position(game, {7: [1, 2, 2], 10: [0, 1, 0], 30: [2, 2, 2]}, 10)
    new = play(game, s, cards)
    assert new.terminated[0] and int(new.end_reason[0]) == END_SUPPLIES
    assert new.scores[0].tolist() == [0, 0, 0]
    assert new.winners_mask[0].tolist() == [True, True, True]
    assert new.rewards[0].tolist() == [0.0, 0.0, 0.0]


def test_a_secured_field_is_kept_by_its_owner_at_the_end():
    game = MonkeyFun(2)
    s, cards = _last_monkey_position(game, {33: [0, 2], 10: [0, 1]}, 10, owners={33: 1})
    new = play(game, s, cards)
    assert new.scores[0].tolist() == [0, 33]
    assert new.rewards[0].tolist() == [-1.0, 1.0]


# ============================================================================ solo variant
def _inner_numbers(game: MonkeyFun) -> list[int]:
    return [int(game.field_number[f]) for f in D.INNER_FIELDS]


def _stuck_hand(game: MonkeyFun) -> list[int]:
    """A deck-valid 4-card hand none of whose subsets sums to an inner field."""
    inner = set(_inner_numbers(game))
    for h in itertools.combinations_with_replacement(range(1, D.MAX_CARD + 1), 4):
        if any(h.count(v) > DECK[v] for v in h):
            continue
        if not any(sum(c) in inner for k in range(1, 5) for c in itertools.combinations(h, k)):
            return list(h)
    raise AssertionError("no stuck hand on this board side")


def _solo_board(counts: dict[int, int]) -> dict[int, list[int]]:
    return {n: [c] for n, c in counts.items()}


def test_solo_rulebook_example_complete_on_31_with_towers_on_17_and_3_scores_11():
    """Square complete with the last monkey on 31; minus towers on 17 and 3: 31 - 17 - 3 = 11."""
    game = MonkeyFun(1)
    inner = _inner_numbers(game)
    assert {31, 17, 3} <= set(inner)
    counts = {n: 1 for n in inner if n != 31}
    counts[17] = 2
    counts[3] = 2
    s = game.position(hands=[[7, 12, 12, 1]], board=_solo_board(counts))
    assert int(s.supply[0, 0]) == 3
    new = play(game, s, [7, 12, 12])
    assert new.terminated[0] and int(new.end_reason[0]) == END_SOLO_COMPLETE
    assert new.scores[0].tolist() == [11]
    assert new.winners_mask[0].tolist() == [True]
    assert new.rewards[0].tolist() == [1.0]


def test_solo_only_the_inner_four_by_four_fields_are_legal():
    game = MonkeyFun(1)
    inner = set(_inner_numbers(game))
    hand = [1, 2, 3, 4]
    s = game.position(hands=[hand])
    expected = {tuple(sorted(c)) for k in range(1, 5) for c in itertools.combinations(hand, k) if sum(c) in inner}
    edge = {tuple(sorted(c)) for k in range(1, 5) for c in itertools.combinations(hand, k) if sum(c) not in inner}
    assert expected and edge  # the hand reaches both kinds of field
    assert legal_sets(s) == expected
    assert not s.legal_action_mask[0, DISCARD_ACTION]


def test_solo_must_place_on_a_free_inner_field_when_any_subset_reaches_one():
    """Hand 1 2 3 4 reaches several inner fields; all but one are occupied: only that one is legal."""
    game = MonkeyFun(1)
    inner = set(_inner_numbers(game))
    hand = [1, 2, 3, 4]
    reach = sorted({sum(c) for k in range(1, 5) for c in itertools.combinations(hand, k)} & inner)
    assert len(reach) >= 2
    free = reach[0]
    s = game.position(hands=[hand], board=_solo_board({n: 1 for n in reach[1:]}))
    assert {sum(c) for c in legal_sets(s)} == {free}
    new = play(game, s, next(iter(legal_sets(s))))
    f = int(np.flatnonzero(game.field_number == free)[0])
    assert new.counts[0, f, 0] == 1 and not new.terminated[0]


def test_solo_builds_a_minus_tower_when_no_free_inner_field_is_reachable():
    game = MonkeyFun(1)
    inner = set(_inner_numbers(game))
    hand = [1, 2, 3, 4]
    reach = sorted({sum(c) for k in range(1, 5) for c in itertools.combinations(hand, k)} & inner)
    s = game.position(hands=[hand], board=_solo_board({n: 1 for n in reach}))
    assert {sum(c) for c in legal_sets(s)} == set(reach)  # every occupied reachable field may get a tower
    cards = min(legal_sets(s))
    new = play(game, s, list(cards))
    f = int(np.flatnonzero(game.field_number == sum(cards))[0])
    assert new.counts[0, f, 0] == 2  # the new monkey stands on the old one
    assert int(new.owner[0, f]) == -1  # solo has no securing
    assert not new.terminated[0]


def test_solo_at_most_four_minus_tower_fields():
    """Four towers stand elsewhere: a fifth tower field is illegal, extending an existing tower is fine."""
    game = MonkeyFun(1)
    inner = _inner_numbers(game)
    hand = [1, 2, 3, 4]
    reach = sorted({sum(c) for k in range(1, 5) for c in itertools.combinations(hand, k)} & set(inner))
    tower_here = reach[-1]
    elsewhere = [n for n in inner if n not in reach][:3]
    counts = {n: 1 for n in reach}
    counts[tower_here] = 2
    counts.update({n: 2 for n in elsewhere})
    s = game.position(hands=[hand], board=_solo_board(counts))
    assert {sum(c) for c in legal_sets(s)} == {tower_here}
    # with only three towers in total, a new tower is allowed again
    counts[elsewhere[0]] = 1
    s = game.position(hands=[hand], board=_solo_board(counts))
    assert {sum(c) for c in legal_sets(s)} == set(reach)


def test_solo_at_most_five_monkeys_on_one_field():
    game = MonkeyFun(1)
    inner = set(_inner_numbers(game))
    hand = [1, 2, 3, 4]
    reach = sorted({sum(c) for k in range(1, 5) for c in itertools.combinations(hand, k)} & inner)
    counts = {n: 1 for n in reach}
    counts[reach[0]] = 5
    s = game.position(hands=[hand], board=_solo_board(counts))
    assert {sum(c) for c in legal_sets(s)} == set(reach[1:])
    counts[reach[0]] = 4
    s = game.position(hands=[hand], board=_solo_board(counts))
    assert {sum(c) for c in legal_sets(s)} == set(reach)


def test_solo_a_position_with_no_possible_placement_is_lost_at_once():
    game = MonkeyFun(1)
    s = game.position(hands=[_stuck_hand(game)])
    assert s.terminated[0] and int(s.end_reason[0]) == END_SOLO_STUCK
    assert s.rewards[0].tolist() == [-1.0]
    assert not s.legal_action_mask[0].any()
    assert int(s.current_player[0]) == -1


def test_solo_drawing_into_a_hand_that_cannot_place_anything_loses_immediately():
    game = MonkeyFun(1)
    inner = set(_inner_numbers(game))
    stuck = _stuck_hand(game)
    keep, top = stuck[:3], stuck[3]
    c = next(
        v
        for v in range(1, D.MAX_CARD + 1)
        if v in inner and Counter([*keep, v, top])[v] <= DECK[v] and Counter([*keep, v, top])[top] <= DECK[top]
    )
    s = game.position(hands=[[*keep, c]], draw_pile=[top, 1, 1])
    assert not s.terminated[0]
    new = play(game, s, [c])
    assert new.hands[0, 0].tolist() == sorted(stuck)
    assert new.terminated[0] and int(new.end_reason[0]) == END_SOLO_STUCK
    assert new.winners_mask[0].tolist() == [False]
    assert new.rewards[0].tolist() == [-1.0]


def test_solo_twenty_rounds_without_completing_the_square_lose():
    """Last monkey (round 20) placed with two inner fields still free -> lost."""
    game = MonkeyFun(1)
    inner = _inner_numbers(game)
    free = [n for n in inner if n <= 19][:2]
    counts = {n: 1 for n in inner if n not in free}  # 14 monkeys
    towers = [n for n in counts][:2]
    counts[towers[0]] = 2
    counts[towers[1]] = 5  # 14 + 1 + 4 = 19 on the board, 1 in the supply
    s = game.position(hands=[padded([free[0]], 1)], board=_solo_board(counts))
    assert int(s.supply[0, 0]) == 1
    new = play(game, s, [free[0]])
    assert new.terminated[0] and int(new.end_reason[0]) == END_SOLO_ROUNDS
    assert new.rewards[0].tolist() == [-1.0]
    assert new.winners_mask[0].tolist() == [False]


def test_solo_never_offers_the_discard_action_and_has_no_line_win():
    """Four inner fields in a row occupied does not end the solo game."""
    game = MonkeyFun(1)
    cells = [(1, 1), (1, 2), (1, 3)]
    last = num(game, 1, 4)
    s = game.position(hands=[padded(cards_for(last), 1)], board=_solo_board({num(game, r, c): 1 for r, c in cells}))
    assert not s.legal_action_mask[0, DISCARD_ACTION]
    new = play(game, s, cards_for(last))
    assert not new.terminated[0]
    assert not new.legal_action_mask[0, DISCARD_ACTION]


# ============================================================================ position() validation
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"hands": [[1, 2, 3, 4]]}, "hands"),  # 1 hand for 2 seats
        ({"hands": [[1, 2, 3, 4, 5], [1, 2, 3, 4]]}, "hands"),  # 5 cards
        ({"hands": [[0, 2, 3, 4], [1, 2, 3, 4]]}, "card"),
        ({"hands": [[20, 2, 3, 4], [1, 2, 3, 4]]}, "card"),
        ({"hands": [[1, 1, 1, 1], [1, 2, 3, 4]]}, "copies"),  # five 1s
        ({"hands": [[19, 2, 3, 4], [19, 2, 3, 4]]}, "copies"),  # two 19s
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "board": {0: [1, 0]}}, "board"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "board": {37: [1, 0]}}, "board"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "board": {5: [1]}}, "board"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "board": {5: [-1, 0]}}, "board"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "board": {5: [21, 0]}}, "20"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "supply": [20, 19]}, "20"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "box": [1, 0], "supply": [20, 20]}, "20"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "box": [0]}, "box"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "owners": {5: 2}}, "owners"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "owners": {40: 0}}, "owners"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "current_player": 2}, "current_player"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "current_player": -1}, "current_player"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "draw_pile": [1, 2], "discard": [3]}, "55"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "draw_pile": [19, 19]}, "copies"),
        ({"hands": [[1, 2, 3, 4], [5, 6, 7, 8]], "discard": [1, 1, 1, 1]}, "copies"),
    ],
)
def test_position_rejects_impossible_positions_with_a_value_error(kwargs, fragment):
    game = MonkeyFun(2)
    with pytest.raises(ValueError, match=fragment):
        game.position(**kwargs)


def test_position_rejects_other_players_monkeys_on_a_secured_field():
    """Securing sends every other monkey to the box, so a secured field never holds foreign monkeys."""
    game = MonkeyFun(2)
    with pytest.raises(ValueError):
        game.position(hands=[[1, 2, 3, 4], [5, 6, 7, 8]], board={5: [2, 1]}, owners={5: 0})


def test_position_rejects_an_empty_supply_for_the_player_to_move():
    """A player with an empty supply is skipped, so they can never be the one to move."""
    game = MonkeyFun(2)
    with pytest.raises(ValueError):
        game.position(hands=[[1, 2, 3, 4], [5, 6, 7, 8]], box=[20, 0], current_player=0)


def test_position_counts_draw_pile_and_discard_so_all_55_cards_are_in_play():
    game = MonkeyFun(2)
    s = game.position(hands=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=[9, 9])
    total = Counter(draw_pile_top_first(s)) + discard_multiset(s) + hand_multiset(s, 0) + hand_multiset(s, 1)
    assert total == DECK
    assert discard_multiset(s) == Counter({9: 2})
