"""4 Monkeys as data: the figure-card deck, the combo catalogue and every decided constant.

Rules: ``shared/rules/four_monkeys.txt``; gaps fixed by the 4 Monkeys section of
``shared/rules/DECISIONS.md``. Entries marked *reconstructed* come from DECISIONS.md (the
rulebook's pictures were lost) and live only here, so they can be corrected without touching the
rules code; entries marked *decided here* go beyond DECISIONS.md (docs/four_monkeys.md lists them).

Figures and cards
-----------------
Four figures: 0 circle ``C``, 1 triangle ``T``, 2 square ``S``, 3 pentagon ``P``. A figure card
shows two figures; cards are tracked by *kind* (the unordered pair), 10 kinds in the order of
:data:`KINDS`. A double (``CC``, ``TT``, ``SS``, ``PP``) shows one of its figures on a golden
button. A deck holds :data:`COPIES` copies of each kind (40 cards).

Combo tiles
-----------
Tile id = ``set * 10 + combo`` (DECISIONS), ``combo`` in the order of :data:`COMBOS`. Each set
also has one Hand-replenish tile per player (not a tile id: a per-seat flag, 0 points green side,
-1 once used).
"""

from __future__ import annotations

import numpy as np

FIGURES = ("C", "T", "S", "P")
FIGURE_NAMES = ("circle", "triangle", "square", "pentagon")
NUM_FIGURES = 4

#: Reconstructed (DECISIONS): the 10 unordered figure pairs, as figure-index pairs.
KINDS = ((0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3))
NUM_KINDS = len(KINDS)
KIND_NAMES = tuple(FIGURES[a] + FIGURES[b] for a, b in KINDS)
#: Copies of each kind in one deck (reconstructed: 10 kinds x 4 = 40 cards, confirmed size).
COPIES = 4
DECK_SIZE = NUM_KINDS * COPIES  # 40

#: ``(10, 4) int64``: how many of each figure a card of each kind shows.
KIND_FIGURES = np.zeros((NUM_KINDS, NUM_FIGURES), dtype=np.int64)
for _k, (_a, _b) in enumerate(KINDS):
    KIND_FIGURES[_k, _a] += 1
    KIND_FIGURES[_k, _b] += 1
#: ``(10,) int64``: the figure on the golden button of each kind (-1: not a double, no button).
KIND_GOLDEN = np.array([a if a == b else -1 for a, b in KINDS], dtype=np.int64)

#: Reconstructed (DECISIONS): the combo catalogue in tile-id order: (name, requirement, green points).
#: Requirement kinds (compiled in ``kernels.covers``): figure counts, "golden" (any n golden
#: buttons) and "golden_distinct" (n golden buttons of n different figures).
COMBOS = (
    ("C+T", {"C": 1, "T": 1}, 1),
    ("S+P", {"S": 1, "P": 1}, 1),
    ("CCC", {"C": 3}, 2),
    ("PPP", {"P": 3}, 2),
    ("C+T+S+P", {"C": 1, "T": 1, "S": 1, "P": 1}, 3),
    ("TTSS", {"T": 2, "S": 2}, 3),
    ("2 golden", {"golden": 2}, 3),
    ("PPPP", {"P": 4}, 4),
    ("CCTTSS", {"C": 2, "T": 2, "S": 2}, 4),
    ("3 golden different", {"golden_distinct": 3}, 5),
)
NUM_COMBOS = len(COMBOS)  # 10 different combos per set
COMBO_NAMES = tuple(c[0] for c in COMBOS)
#: ``(10,) int64`` green-side points; the orange (burned) side is worth one less (confirmed).
COMBO_GREEN = np.array([c[2] for c in COMBOS], dtype=np.int64)
COMBO_ORANGE = COMBO_GREEN - 1
#: ``(10, 4) int64`` figures each combo needs (0 for the golden-button combos).
COMBO_NEED_FIGURES = np.array([[c[1].get(f, 0) for f in FIGURES] for c in COMBOS], dtype=np.int64)
#: ``(10,) int64`` golden buttons needed (any figures), 0 if none.
COMBO_NEED_GOLDEN = np.array([c[1].get("golden", 0) for c in COMBOS], dtype=np.int64)
#: ``(10,) int64`` golden buttons of different figures needed, 0 if none.
COMBO_NEED_GOLDEN_DISTINCT = np.array([c[1].get("golden_distinct", 0) for c in COMBOS], dtype=np.int64)

#: Cards in a full hand: dealt at the start of a round, refilled after a grab (confirmed).
HAND_SIZE = 5
#: Cards drawn when burning a combo tile or using Hand replenish's "draw 3" side (confirmed).
BURN_DRAW = 3
#: Different combos a valid Stop needs (confirmed: all 10).
STOP_COMBOS = 10
#: Points an invalid Stop costs the caller's game total (confirmed).
INVALID_STOP_PENALTY = 10
#: Points a set-aside tile costs at scoring (confirmed).
SET_ASIDE_PENALTY = 2
#: Points a received Banana skin costs at scoring (confirmed).
BANANA_PENALTY = 3
#: Hand replenish points: 0 unused, -1 used (confirmed).
REPLENISH_USED_POINTS = -1

#: Reconstructed (DECISIONS): default ticks per round (the 4-minute timer) and in family scoring
#: (the 5-minute timer).
DEFAULT_TICKS = 48
DEFAULT_TICKS_FAMILY = 60
#: DECISIONS option: replays of one round after invalid Stops (then Stop needs 10 combos).
DEFAULT_MAX_REPLAYS = 2
#: Rounds per game (confirmed): 3, and 4 with 7-8 players (two areas).
ROUNDS = 3
ROUNDS_TWO_AREAS = 4
#: Player counts: 2-4, 5-6 in one area (two game sets combined), 7-8 in two areas (confirmed).
MIN_PLAYERS, MAX_PLAYERS = 2, 8
#: The letters seats are named by wherever a person reads (text render, action names, pictures),
#: seat 0 first, as the other games and ``play`` / ``replay`` name them.
SEAT_LETTERS = "ABCDEFGH"[:MAX_PLAYERS]
#: Players in the first area with 7-8 players (confirmed: one area of 4, the other of 3 or 4).
AREA_SIZE = 4

#: Rewards (decided here, as the other games): each winner +1, the others -1; 0 each when all share.
REWARD_WIN, REWARD_LOSS, REWARD_DRAW = 1.0, -1.0, 0.0


def area_players(num_players: int) -> tuple[int, ...]:
    """Players per playing area: one area up to 6 players, else 4 and the rest (confirmed)."""
    return (num_players,) if num_players <= 6 else (AREA_SIZE, num_players - AREA_SIZE)


def _area_sets(n: int) -> int:
    return 3 if n == 2 else n


def num_sets(num_players: int) -> int:
    """Combo-tile sets in play: one per player, three with two players (confirmed); summed over the areas."""
    return sum(_area_sets(n) for n in area_players(num_players))


def num_stacks(num_players: int) -> int:
    """Levelled stacks at setup: players + 2 in each area (confirmed)."""
    return sum(n + 2 for n in area_players(num_players))
