"""Funky Monkey observations: the layout (:class:`~monkey_envs.core.spec.ObsLayout`) and the batched kernel.

An observation is one flat ``float32`` vector per game, seats observer-first (index 0 = the
observer). The layout puts the one-hot pieces first (scattered in one go), then the per-seat
counts, then the other counts (each block written in one go); :class:`Observer` builds the
column tables once per player count; ``kernels.observe_at`` writes the observation from them (the
numpy observation they were first written for is the test oracle's, ``tests/funky_monkey_numpy_reference.py``).
"""

from __future__ import annotations

import numpy as np

from monkey_envs.core.spec import ObsLayout, ObsPiece
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import NUM_PHASES, PHASE_NAMES, STAT_NAMES

_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_SLOTS = np.flatnonzero(D.IS_SLOT)
_TRUTHFUL = STAT_NAMES.index("truthful")
_BLUFFS = STAT_NAMES.index("bluffs")


class Observer:
    """The observation layout of a ``P``-seat game and the tables and kernel that write it.

    Attributes:
        num_players: ``P``.
        layout: the pieces, their shapes, slices and descriptions (``layout.size`` values per row).
    """

    def __init__(self, num_players: int) -> None:
        """Build the layout and the column tables of a ``num_players``-seat game."""
        P = num_players
        self.num_players = P
        self._rel = np.arange(P)
        # Layout: one-hot pieces first (scattered in one go), then the per-seat counts, then the
        # other counts (each block written in one go) -- see observe.
        pieces_onehot = [
            ObsPiece("phase", (NUM_PHASES,), "one-hot pending decision: " + ", ".join(PHASE_NAMES) + " (0 when over)"),
            ObsPiece("to_move", (P,), "one-hot seat to decide (observer-first; index 0 = observer)"),
            ObsPiece("active", (P,), "one-hot active player of this turn (observer-first)"),
            ObsPiece("holder", (P,), "one-hot seat holding the face-down card (respond phases; observer-first)"),
            ObsPiece("accepter", (P,), "one-hot seat that revealed this turn's card (observer-first)"),
            ObsPiece("announcement", (_K,), "one-hot announced kind 1, 2, 3, 4, MiNuss (0 for a Crown play)"),
            ObsPiece("known_card", (_K,), "one-hot card in flight if the observer knows it (played it / Telescope)"),
            ObsPiece("revealed", (_K,), "one-hot this turn's card once revealed (public)"),
            ObsPiece("pyramid_card", (_K,), "one-hot card the monkey pyramid revealed, awaiting a direction"),
            ObsPiece("golden", (P + 3,), "one-hot golden coconut: held by seat (observer-first), well, bowl 1, bowl 2"),
            ObsPiece("tiger", (_L,), "one-hot tiger space"),
            ObsPiece("position", (P, _L), "one-hot track space of each monkey (all 0 once out; observer-first)"),
            ObsPiece(
                "tiles",
                (_SLOTS.size, D.NUM_TILE_KINDS + 1),
                "per tile slot (spaces 2,3,4,5,7,8,10,11,13,14,15): one-hot face down (col 0) or face-up kind "
                "1..7 (coconut, golden, chest, pyramid, nearest_bowl, minus1, minus2)",
            ),
            ObsPiece("chips_left", (P,), "1 for seats still to be active this round after this turn (observer-first)"),
        ]
        pieces_seat = [
            ObsPiece("hand_sizes", (P,), "cards in each hand / 5 (observer-first)"),
            ObsPiece("treasure_counts", (P,), "treasure cards each seat holds, any type / 4 (observer-first)"),
            ObsPiece("alive", (P,), "1 while the seat's monkey is in the game (observer-first)"),
            ObsPiece("coconuts", (P,), "normal coconuts of each seat / 10 (observer-first)"),
            ObsPiece("tiger_distance", (P,), "(tiger - position) / 19 for monkeys in the game (observer-first)"),
            ObsPiece("truths_shown", (P,), "each seat's announcements revealed true so far / 5 (observer-first)"),
            ObsPiece("bluffs_shown", (P,), "each seat's announcements revealed as bluffs so far / 5 (observer-first)"),
        ]
        pieces_dense = [
            ObsPiece("passes", (1,), "times this turn's card was passed on / P"),
            ObsPiece("debt", (1,), "coconuts the mover still has to give up / 2"),
            ObsPiece("hand", (_K,), "own hand: cards of each kind / 5"),
            ObsPiece("treasures", (3,), "own treasure cards: Scales, Telescope, Crown (counts)"),
            ObsPiece("treasure_used", (3,), "treasure cards played so far: Scales, Telescope, Crown / 4"),
            ObsPiece("treasure_pile", (1,), "treasure cards left in the stack / 12"),
            ObsPiece("bowls", (2,), "1 where the offering bowl holds a coconut (normal or golden)"),
            ObsPiece("supply", (1,), "normal coconuts in the well / 40"),
            ObsPiece("unseen_tiles", (D.NUM_TILE_KINDS,), "tiles of each kind not face up (face down or removed) / 2"),
            ObsPiece("discard", (_K,), "revealed movement cards of each kind / (P + 2)"),
            ObsPiece(
                "unseen_cards",
                (_K,),
                "movement cards of each kind the observer has not seen (in play - discard - own hand - known card)"
                " / (P + 2)",
            ),
            ObsPiece("draw_size", (1,), "movement cards in the draw pile / 40"),
            ObsPiece("round", (1,), "round number / 5"),
            ObsPiece("turn_flags", (2,), "this turn is a Crown play; the chain in progress is the bonus move"),
        ]
        self.layout = ObsLayout(pieces_onehot + pieces_seat + pieces_dense)
        sl = self.layout.slices
        # Column tables of the one-hot pieces (see observe): a local value ``v`` of a piece maps to
        # its column ``col[v + 1]``; an absent value (``v = -1``) maps to the dump column, the last
        # dense column, which observe writes after the scatter (so the stray 1 is overwritten).
        dump = sl["turn_flags"].stop - 1
        self._dump_col = dump

        def col_table(start: int, width: int) -> np.ndarray:
            return np.concatenate([[dump], start + np.arange(width)]).astype(np.intp)

        # to_move, active, holder, accepter: seat (-1 = none) and observer -> column (observer-first seat)
        seat_p1 = np.arange(-1, P)[:, None]  # seat + 1 indexes the rows
        rel_seat = (seat_p1 - self._rel[None, :]) % P  # (P + 1, P)
        rel_col = []
        for name in ("to_move", "active", "holder", "accepter"):
            c = sl[name].start + rel_seat
            if name != "active":  # active is always a seat: (active - observer) % P as written
                c = np.where(seat_p1 >= 0, c, dump)
            rel_col.append(c)
        self._rel_col = np.stack(rel_col).astype(np.intp).ravel()  # [(piece * (P + 1) + seat + 1) * P + observer]
        self._rel_piece = (np.arange(4) * (P + 1) + 1) * P  # piece offsets into _rel_col (seat + 1 folded in)
        # announcement, known_card, revealed, pyramid_card: kind -1..4 -> column
        kind_pieces = ("announcement", "known_card", "revealed", "pyramid_card")
        self._kind_col = np.concatenate([col_table(sl[n].start, _K) for n in kind_pieces])
        self._kind_off = np.arange(4) * (_K + 1) + 1
        # golden code (seat 0..P-1, P well, P+1 bowl 1, P+2 bowl 2) and observer -> column
        gcode = np.arange(P + 3)[:, None]
        self._gold_col = (
            (sl["golden"].start + np.where(gcode < P, (gcode - self._rel[None, :]) % P, gcode)).astype(np.intp).ravel()
        )  # [gcode * P + observer]
        self._phase_col = col_table(sl["phase"].start, NUM_PHASES)
        self._tiger_col = col_table(sl["tiger"].start, _L)
        self._pos_col0 = (sl["position"].start + np.arange(P) * _L).astype(np.intp)  # + position of that seat
        self._tile_col0 = (sl["tiles"].start + np.arange(_SLOTS.size) * (D.NUM_TILE_KINDS + 1)).astype(np.intp)
        self._chip_col0 = sl["chips_left"].start
        chip_seat = np.arange(-1, P)[:, None]  # chips_left: [(seat + 1) * P + observer] -> column
        self._chip_col = np.where(chip_seat >= 0, self._chip_col0 + (chip_seat - self._rel[None, :]) % P, dump)
        self._chip_col = self._chip_col.astype(np.intp).ravel()
        self._tile_nibble = np.array([0] + [1 << (4 * k) for k in range(1, 8)], np.int64)  # face-up kind -> bits
        self._tile_comp_packed = int((D.TILE_COMPOSITION.astype(np.int64) << (4 * np.arange(1, 8))).sum())
        self._tile_shift = 4 * np.arange(1, 8, dtype=np.int64)
        self._card_counts8 = D.card_counts(P).astype(np.int8)
        self._num_onehot = 11 + P + _SLOTS.size + P  # scattered ones per row
        self._seat_scale = np.repeat(np.array([0.2, 0.25, 1.0, 0.1, 1.0 / _L, 0.2, 0.2], np.float32), P)
        self._seat_block = slice(sl["hand_sizes"].start, sl["bluffs_shown"].stop)
        self._dense_block = slice(sl["passes"].start, sl["turn_flags"].stop)
        cs = 1.0 / (P + 2)
        self._dense_scale = np.array(
            [1.0 / P, 0.5] + [0.2] * _K + [1.0] * 3 + [0.25] * 3 + [1.0 / D.NUM_TREASURES] + [1.0] * 2
            + [1.0 / D.TOTAL_COCONUTS] + [0.5] * D.NUM_TILE_KINDS + [cs] * _K + [cs] * _K
            + [1.0 / D.MAX_CARDS, 1.0 / D.NUM_ROUNDS, 1.0, 1.0],
            dtype=np.float32,
        )  # fmt: skip
        assert self._dense_scale.size == self._dense_block.stop - self._dense_block.start
        # column-major helpers of observe
        self._rel_t = self._rel[:, None]
        self._rel_piece_t = self._rel_piece[:, None]
        self._kind_off_t = self._kind_off[:, None]
        self._pos_col0_t = self._pos_col0[:, None]
        self._tile_col0_t = self._tile_col0[:, None]
        self._rot_t = (self._rel[:, None] + self._rel[None, :]) % P  # [j, o]: the seat j places left of o
