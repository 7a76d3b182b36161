"""Monki state arrays (``B`` envs, 2 seats, ``N`` grid cells, 12 pot stacks, 40 tokens)."""

from __future__ import annotations

import numpy as np

from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.state import BatchState
from monkey_envs.monki import data as D

#: ``end_reason`` codes.
END_NONE = 0
END_FRUITS = 1  # a player filled row 1 (8 fruits)
END_GOLDEN = 2  # a player filled row 2 (4 golden fruits)
END_TURN_CAP = 3  # the turn cap was reached: a draw
END_REASONS = ("running", "fruits", "golden", "turn_cap")

#: ``phase`` codes.
PHASE_PLACE = 0  # the seat to move places its Monki (start of the game)
PHASE_START = 1  # start of a turn: skip (recharge rubies) or move
PHASE_COLLECT = 2  # after the move: make the first flip or use a ruby
PHASE_FLIPPING = 3  # at least one flip made: flip again or pass
PHASES = ("place", "start", "collect", "flipping")

#: Columns of ``stats`` (per seat counters of the episode).
STAT_NAMES = ("temple_visits", "flips", "golden_flips", "busts", "passes", "ruby_uses", "skips", "kept")


@state_schema
class MonkiState(BatchState):
    """Monki game arrays (plus the shared fields of :class:`BatchState`)."""

    stacks: np.ndarray = field(
        "int8",
        (D.NUM_STACKS, D.STACK_DEPTH),
        "token id in each stack slot, bottom first; -1 = empty (the filled slots are a prefix).",
        low=-1,
        high=D.NUM_TOKENS - 1,
        start=-1,
    )
    face_up: np.ndarray = field(
        "bool", (D.NUM_STACKS,), "the top token of the stack was flipped this turn (non-golden)."
    )
    statue: np.ndarray = field(
        "int8",
        (D.NUM_TOKENS,),
        "board whose statue holds the token, -1 if on no statue.",
        low=-1,
        high=D.NUM_BOARDS - 1,
        start=-1,
    )
    owner: np.ndarray = field(
        "int8", (D.NUM_TOKENS,), "seat whose player board holds the token, -1 if none.", low=-1, high=1, start=-1
    )
    rubies: np.ndarray = field("bool", (2, 4), "per seat and fruit: the ruby is red side up (usable).", start=True)
    pos: np.ndarray = field(
        "int8", (2,), "cell of each seat's Monki, -1 before it is placed.", low=-1, high="num_cells-1", start=-1
    )
    phase: np.ndarray = field("int8", (), "one of the ``PHASE_*`` codes.", low=0, high=len(PHASES) - 1)
    start_player: np.ndarray = field("int8", (), "seat that placed first and took the first turn.", low=0, high=1)
    turns: np.ndarray = field(
        "int16", (), "turns played by both seats together (placements excluded).", low=0, high="turn_cap"
    )
    stats: np.ndarray = field(
        "int32", (2, len(STAT_NAMES)), "per-seat counters, columns :data:`STAT_NAMES`.", counter=True
    )
