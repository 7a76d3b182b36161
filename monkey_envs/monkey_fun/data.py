"""Monkey Fun rulebook numbers and DECISIONS.md choices, as named data.

Items marked ``RECONSTRUCTED`` are our best reconstruction of pictures the translated
rulebook lost (``shared/rules/DECISIONS.md``); they can be corrected here without touching
rules code. Everything else is confirmed by the rulebook or fixed by a DECISIONS.md entry.
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------- board (6x6, numbers 1..36)
BOARD_ROWS = 6
BOARD_COLS = 6
NUM_FIELDS = BOARD_ROWS * BOARD_COLS

#: RECONSTRUCTED -- the two board sides. Row 0 is the top row as seen from seat 0; every row
#: and column sums to 111; side 1's inner 4x4 holds 3, 17, 31 and 36 (the solo example).
BOARD_LAYOUTS_RECONSTRUCTED: dict[int, tuple[tuple[int, ...], ...]] = {
    1: (
        (23, 1, 34, 29, 9, 15),
        (25, 31, 13, 4, 18, 20),
        (14, 21, 2, 28, 36, 10),
        (6, 16, 32, 7, 17, 33),
        (35, 12, 3, 24, 26, 11),
        (8, 30, 27, 19, 5, 22),
    ),
    2: (
        (22, 14, 28, 2, 33, 12),
        (34, 20, 7, 15, 27, 8),
        (1, 36, 10, 30, 21, 13),
        (32, 6, 26, 19, 3, 25),
        (17, 11, 9, 16, 23, 35),
        (5, 24, 31, 29, 4, 18),
    ),
}
BOARD_SIDES = tuple(BOARD_LAYOUTS_RECONSTRUCTED)

# ---------------------------------------------------------------- cards (confirmed)
#: 55 cards: four each of 1..12 and one each of 13..19.
CARD_COUNTS: dict[int, int] = {**{v: 4 for v in range(1, 13)}, **{v: 1 for v in range(13, 20)}}
NUM_CARDS = sum(CARD_COUNTS.values())
MAX_CARD = max(CARD_COUNTS)
#: The full deck as a sorted tuple of card values.
DECK: tuple[int, ...] = tuple(v for v, n in sorted(CARD_COUNTS.items()) for _ in range(n))
HAND_SIZE = 4
MONKEYS_PER_PLAYER = 20

# ---------------------------------------------------------------- rules constants
#: Securing: the placer secures a field when their count >= every other count + this margin.
SECURE_MARGIN = 2
#: Number of connected fields that win.
LINE_LENGTH = 4

# Solo variant ("monkeys in a square")
SOLO_ROUNDS = 20
SOLO_MAX_TOWERS = 4
SOLO_MAX_PER_FIELD = 5
#: Inner 4x4 square of the board (rows 1..4, cols 1..4), as field indices row * 6 + col.
INNER_FIELDS: tuple[int, ...] = tuple(r * BOARD_COLS + c for r in range(1, 5) for c in range(1, 5))

# ---------------------------------------------------------------- rewards (a project decision)
#: Terminal reward of a winner and of a non-winner. A shared win (several players tied after
#: the tie-break) rewards every sharer as a winner; if *every* player shares, all get DRAW.
REWARD_WIN = 1.0
REWARD_LOSS = -1.0
REWARD_DRAW = 0.0

VARIANTS = ("normal", "quick", "solo")


def _windows(length: int) -> np.ndarray:
    """All straight windows of ``length`` connected fields: rows, columns, both diagonals."""
    out = []
    for r in range(BOARD_ROWS):
        for c in range(BOARD_COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(length)]
                if all(0 <= rr < BOARD_ROWS and 0 <= cc < BOARD_COLS for rr, cc in cells):
                    out.append([rr * BOARD_COLS + cc for rr, cc in cells])
    return np.asarray(out, dtype=np.int64)


def _squares() -> np.ndarray:
    """All 2x2 blocks (quick-game variant)."""
    out = []
    for r in range(BOARD_ROWS - 1):
        for c in range(BOARD_COLS - 1):
            f = r * BOARD_COLS + c
            out.append([f, f + 1, f + BOARD_COLS, f + BOARD_COLS + 1])
    return np.asarray(out, dtype=np.int64)


#: ``(54, 4)`` field indices of every straight line of four.
LINE_WINDOWS = _windows(LINE_LENGTH)
#: ``(25, 4)`` field indices of every 2x2 square.
SQUARE_WINDOWS = _squares()
