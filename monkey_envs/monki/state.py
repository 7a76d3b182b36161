"""Monki state arrays (``B`` envs, 2 seats, ``N`` grid cells, 12 pot stacks, 40 tokens)."""

from __future__ import annotations

import dataclasses

import numpy as np

from monkey_envs.core.state import BatchState

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


@dataclasses.dataclass
class MonkiState(BatchState):
    """Monki game arrays (plus the shared fields of :class:`BatchState`).

    Attributes:
        stacks: ``(B, 12, 3) int8`` token id in each stack slot, bottom first; -1 = empty (the
            filled slots are a prefix).
        face_up: ``(B, 12) bool`` the top token of the stack was flipped this turn (non-golden).
        statue: ``(B, 40) int8`` board whose statue holds the token, -1 if on no statue.
        owner: ``(B, 40) int8`` seat whose player board holds the token, -1 if none.
        rubies: ``(B, 2, 4) bool`` per seat and fruit: the ruby is red side up (usable).
        pos: ``(B, 2) int8`` cell of each seat's Monki, -1 before it is placed.
        phase: ``(B,) int8`` one of the ``PHASE_*`` codes.
        start_player: ``(B,) int8`` seat that placed first and took the first turn.
        turns: ``(B,) int16`` turns played by both seats together (placements excluded).
        stats: ``(B, 2, 8) int32`` per-seat counters, columns :data:`STAT_NAMES`.
    """

    stacks: np.ndarray
    face_up: np.ndarray
    statue: np.ndarray
    owner: np.ndarray
    rubies: np.ndarray
    pos: np.ndarray
    phase: np.ndarray
    start_player: np.ndarray
    turns: np.ndarray
    stats: np.ndarray
