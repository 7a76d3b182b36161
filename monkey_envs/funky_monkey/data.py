"""Funky Monkey rulebook numbers and DECISIONS.md choices, as named data.

Items marked ``RECONSTRUCTED`` are our best reconstruction of pictures the translated rulebook
lost (``shared/rules/DECISIONS.md``, Funky Monkey section): the track, the jungle-tile faces and
the treasure-card split. They can be corrected here without touching rules code; the rules read
everything through the tables at the bottom of this file. Everything else is confirmed by the
rulebook or fixed by a DECISIONS.md entry.

Encodings used everywhere (state, actions, observations):

* **movement cards** are *kinds* ``0..4`` = the cards "1", "2", "3", "4" and MiNuss;
  a number card of kind ``k`` moves ``k + 1`` spaces.
* **jungle tiles / space effects** are codes ``0..8`` (:data:`EFFECT_NAMES`); codes 1..7 are the
  tile faces, 8 is an offering bowl (a fixed space, never a tile).
* **treasure cards** are ``0`` Scales, ``1`` Telescope, ``2`` Crown.
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------- players, hands, rounds
MIN_PLAYERS = 2
MAX_PLAYERS = 7
HAND_SIZE = 5  # cards dealt to each player; also the number of rounds
NUM_ROUNDS = HAND_SIZE
START_COCONUTS = 3  # each player's coconuts at setup
TOTAL_COCONUTS = 40  # normal coconuts in the game (the golden one comes on top)

# ---------------------------------------------------------------- movement cards (confirmed)
CARD_ONE, CARD_TWO, CARD_THREE, CARD_FOUR, CARD_MINUSS = range(5)
NUM_CARD_KINDS = 5
CARD_NAMES = ("1", "2", "3", "4", "MiNuss")
#: spaces moved by a card kind (0 for MiNuss, which costs a coconut instead)
CARD_STEPS = np.array([1, 2, 3, 4, 0], dtype=np.int8)
#: MiNuss cards in play by player count (confirmed; the table's tail in the rulebook)
MINUSS_COUNT = {2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4}


def card_counts(num_players: int) -> np.ndarray:
    """``(5,) int64`` movement cards of each kind in play: N+2 of each number, MiNuss per table."""
    n = num_players + 2
    return np.array([n, n, n, n, MINUSS_COUNT[num_players]], dtype=np.int64)


#: the most movement cards ever in play (7 players: 4 x 9 + 4 = 40)
MAX_CARDS = int(card_counts(MAX_PLAYERS).sum())

# ---------------------------------------------------------------- track (RECONSTRUCTED)
#: RECONSTRUCTED -- 19 spaces; index 0 is farthest from the tiger. Spaces 6 and 12 are the
#: offering bowls (corners of the three rows), 9 the treasure chest (never a tile), 16..18
#: the tiger spaces marked "2+3", "4+5", "6+7".
TRACK_LENGTH = 19
REAR_START = 0
FRONT_START = 1
BOWL_SPACES = (6, 12)
CHEST_SPACE = 9
TIGER_SPACES = (16, 17, 18)
#: tiger start space by player count
TIGER_START = {2: 16, 3: 16, 4: 17, 5: 17, 6: 18, 7: 18}
#: RECONSTRUCTED -- tile slots per back (granite, pebbles, mosaic)
TILE_BACKS = ("granite", "pebbles", "mosaic")
TILE_SLOTS_RECONSTRUCTED: dict[str, tuple[int, ...]] = {
    "granite": (2, 3, 4, 5),
    "pebbles": (7, 8, 10, 11),
    "mosaic": (13, 14, 15),
}
#: RECONSTRUCTED -- rows of the board: row 1 = spaces 0..6, row 2 = 6..12, row 3 = 12..18
#: (the bowls are the corners). Only tile slots need a row (for the nearest-bowl tile).
ROW_OF_SLOT = {s: (1 if s < 6 else 2 if s < 12 else 3) for b in TILE_BACKS for s in TILE_SLOTS_RECONSTRUCTED[b]}

# ---------------------------------------------------------------- tiles / effects
E_NONE = 0
E_COCONUT = 1  # take 1 coconut from the well
E_GOLDEN = 2  # take the golden coconut from wherever it is
E_CHEST = 3  # draw the top treasure card
E_PYRAMID = 4  # reveal the top movement card of the draw pile
E_NEAREST_BOWL = 5  # jump to the nearest offering bowl (row 2: your choice)
E_MINUS1 = 6  # put 1 own coconut in the well
E_MINUS2 = 7  # put 2 own coconuts in the well
E_BOWL = 8  # offering bowl: take its coconut, or sacrifice one onto it
EFFECT_NAMES = ("none", "coconut", "golden", "chest", "pyramid", "nearest_bowl", "minus1", "minus2", "bowl")
#: tile faces (the first 8 effect codes; "none" is never a tile)
NUM_TILE_KINDS = 7
TILE_NAMES = EFFECT_NAMES[1:8]

#: RECONSTRUCTED -- the 14 jungle tiles by back; one of each back is removed unseen at setup.
TILE_STACKS_RECONSTRUCTED: dict[str, tuple[int, ...]] = {
    "granite": (E_COCONUT, E_COCONUT, E_CHEST, E_PYRAMID, E_NEAREST_BOWL),
    "pebbles": (E_COCONUT, E_GOLDEN, E_MINUS1, E_CHEST, E_NEAREST_BOWL),
    "mosaic": (E_MINUS1, E_MINUS2, E_PYRAMID, E_NEAREST_BOWL),
}
TILES_REMOVED_PER_BACK = 1

#: Effect of the fixed (non-tile) spaces. The start spaces act only when landed on during play
#: (rear start: lose 1 coconut; front start: take the golden coconut). An empty tiger space in
#: front of the tiger costs 1 coconut (same as a MiNuss-1 tile).
FIXED_EFFECT = np.zeros(TRACK_LENGTH, dtype=np.int8)
FIXED_EFFECT[REAR_START] = E_MINUS1
FIXED_EFFECT[FRONT_START] = E_GOLDEN
FIXED_EFFECT[list(BOWL_SPACES)] = E_BOWL
FIXED_EFFECT[CHEST_SPACE] = E_CHEST
FIXED_EFFECT[list(TIGER_SPACES)] = E_MINUS1

#: Offering bowls at setup: bowl 1 holds a coconut, bowl 2 is empty.
BOWL_START = (1, 0)

# ---------------------------------------------------------------- tile visibility (flag)
#: DECISIONS: basic = the first two tile slots face up; "every_second" and "all" are variants.
VISIBILITY = ("basic", "every_second", "all")
FACE_UP_AT_START: dict[str, tuple[int, ...]] = {
    "basic": (2, 3),
    "every_second": (2, 4, 7, 10, 13, 15),
    "all": tuple(s for b in TILE_BACKS for s in TILE_SLOTS_RECONSTRUCTED[b]),
}

# ---------------------------------------------------------------- treasure cards (RECONSTRUCTED)
T_SCALES, T_TELESCOPE, T_CROWN = range(3)
TREASURE_NAMES = ("scales", "telescope", "crown")
#: RECONSTRUCTED -- 12 treasure cards: 4 Scales, 4 Telescope, 4 Crown.
TREASURE_DECK_RECONSTRUCTED: tuple[int, ...] = (T_SCALES,) * 4 + (T_TELESCOPE,) * 4 + (T_CROWN,) * 4
NUM_TREASURES = len(TREASURE_DECK_RECONSTRUCTED)

# ---------------------------------------------------------------- rewards (a project decision)
#: Terminal reward of a winner and of a non-winner. A shared win rewards every sharer as a
#: winner; if every player shares, all get DRAW. When nobody wins (the tiger catches every
#: remaining monkey) everyone gets LOSS.
REWARD_WIN = 1.0
REWARD_LOSS = -1.0
REWARD_DRAW = 0.0

# ---------------------------------------------------------------- derived index tables
#: ``(19,) bool`` the space holds a jungle tile
IS_SLOT = np.zeros(TRACK_LENGTH, dtype=bool)
#: ``(19,) int8`` row (1..3) of a tile slot, 0 elsewhere
SLOT_ROW = np.zeros(TRACK_LENGTH, dtype=np.int8)
for _s, _r in ROW_OF_SLOT.items():
    IS_SLOT[_s] = True
    SLOT_ROW[_s] = _r
#: ``(3, 7)`` tile kinds per back (counts), index = kind - 1
BACK_COMPOSITION = np.zeros((len(TILE_BACKS), NUM_TILE_KINDS), dtype=np.int64)
for _i, _b in enumerate(TILE_BACKS):
    for _k in TILE_STACKS_RECONSTRUCTED[_b]:
        BACK_COMPOSITION[_i, _k - 1] += 1
#: ``(7,)`` tiles of each kind in the box (placed + removed)
TILE_COMPOSITION = BACK_COMPOSITION.sum(0)
#: ``(19,) int8`` back index of each tile slot, -1 elsewhere
SLOT_BACK = np.full(TRACK_LENGTH, -1, dtype=np.int8)
for _i, _b in enumerate(TILE_BACKS):
    SLOT_BACK[list(TILE_SLOTS_RECONSTRUCTED[_b])] = _i

SPACE_NAMES = tuple(
    "rear start"
    if s == REAR_START
    else "front start"
    if s == FRONT_START
    else f"bowl {BOWL_SPACES.index(s) + 1}"
    if s in BOWL_SPACES
    else "chest"
    if s == CHEST_SPACE
    else f"tiger space {('2+3', '4+5', '6+7')[TIGER_SPACES.index(s)]}"
    if s in TIGER_SPACES
    else f"tile ({TILE_BACKS[SLOT_BACK[s]]})"
    for s in range(TRACK_LENGTH)
)
