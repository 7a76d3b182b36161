"""Monkey Fun state arrays (``B`` envs, ``P`` seats, 36 fields indexed ``row * 6 + col``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from monkey_envs.core.state import BatchState

#: ``end_reason`` codes.
END_NONE = 0
END_LINE = 1  # a player completed a line (or a 2x2 square in the quick game)
END_SUPPLIES = 2  # every supply empty: majorities scored
END_SOLO_COMPLETE = 3  # solo: all 16 inner fields occupied (win)
END_SOLO_STUCK = 4  # solo: no placement possible, not even a minus tower (loss)
END_SOLO_ROUNDS = 5  # solo: 20 rounds played without completing the square (loss)
END_REASONS = ("running", "line", "supplies_empty", "solo_complete", "solo_stuck", "solo_rounds")


@dataclasses.dataclass
class MonkeyFunState(BatchState):
    """Monkey Fun game arrays (plus the shared fields of :class:`BatchState`).

    Attributes:
        counts: ``(B, 36, P) int8`` monkeys of each seat on each field.
        owner: ``(B, 36) int8`` seat that secured the field, -1 if none.
        supply: ``(B, P) int8`` monkeys still in front of each seat.
        box: ``(B, P) int8`` monkeys of each seat's colour returned to the box.
        hands: ``(B, P, 4) int8`` each seat's hand, sorted ascending; 0 = empty slot.
        draw_pile: ``(B, 55) int8`` draw pile bottom -> top; entries at index >= ``draw_size`` are 0.
        draw_size: ``(B,) int8`` cards in the draw pile (the top card is ``draw_pile[draw_size-1]``).
        discard: ``(B, 20) int8`` face-up discard pile as counts per card value (index 0 unused).
        scores: ``(B, P) int16`` end-of-game points (normal game) or the solo score; 0 while running.
        last_field: ``(B,) int8`` field of the last placement, -1 if none.
    """

    counts: np.ndarray
    owner: np.ndarray
    supply: np.ndarray
    box: np.ndarray
    hands: np.ndarray
    draw_pile: np.ndarray
    draw_size: np.ndarray
    discard: np.ndarray
    scores: np.ndarray
    last_field: np.ndarray
