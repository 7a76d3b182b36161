"""Monkey Fun state arrays (``B`` envs, ``P`` seats, 36 fields indexed ``row * 6 + col``)."""

from __future__ import annotations

import numpy as np

from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.state import BatchState
from monkey_envs.monkey_fun import data as D

#: ``end_reason`` codes.
END_NONE = 0
END_LINE = 1  # a player completed a line (or a 2x2 square in the quick game)
END_SUPPLIES = 2  # every supply empty: majorities scored
END_SOLO_COMPLETE = 3  # solo: all 16 inner fields occupied (win)
END_SOLO_STUCK = 4  # solo: no placement possible, not even a minus tower (loss)
END_SOLO_ROUNDS = 5  # solo: 20 rounds played without completing the square (loss)
END_REASONS = ("running", "line", "supplies_empty", "solo_complete", "solo_stuck", "solo_rounds")


_M = D.MONKEYS_PER_PLAYER


@state_schema
class MonkeyFunState(BatchState):
    """Monkey Fun game arrays (plus the shared fields of :class:`BatchState`)."""

    counts: np.ndarray = field(
        "int8", (D.NUM_FIELDS, "num_players"), "monkeys of each seat on each field.", low=0, high=_M
    )
    owner: np.ndarray = field(
        "int8", (D.NUM_FIELDS,), "seat that secured the field, -1 if none.", low=-1, high="num_players-1"
    )
    supply: np.ndarray = field("int8", ("num_players",), "monkeys still in front of each seat.", low=0, high=_M)
    box: np.ndarray = field(
        "int8", ("num_players",), "monkeys of each seat's colour returned to the box.", low=0, high=_M
    )
    hands: np.ndarray = field(
        "int8",
        ("num_players", D.HAND_SIZE),
        "each seat's hand, sorted ascending; 0 = empty slot.",
        low=0,
        high=D.MAX_CARD,
    )
    draw_pile: np.ndarray = field(
        "int8",
        (D.NUM_CARDS,),
        "draw pile bottom -> top; entries at index >= ``draw_size`` are 0.",
        low=0,
        high=D.MAX_CARD,
    )
    draw_size: np.ndarray = field(
        "int8", (), "cards in the draw pile (the top card is ``draw_pile[draw_size-1]``).", low=0, high=D.NUM_CARDS
    )
    discard: np.ndarray = field(
        "int8",
        (D.MAX_CARD + 1,),
        "face-up discard pile as counts per card value (index 0 unused).",
        low=0,
        high=np.bincount(np.array(D.DECK), minlength=D.MAX_CARD + 1),
    )
    scores: np.ndarray = field(
        "int16", ("num_players",), "end-of-game points (normal game) or the solo score; 0 while running."
    )
    last_field: np.ndarray = field(
        "int8", (), "field of the last placement, -1 if none.", low=-1, high=D.NUM_FIELDS - 1
    )
