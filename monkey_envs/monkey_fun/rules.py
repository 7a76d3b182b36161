"""Monkey Fun rules over a batch of games (no Python loop over the batch axis).

Action encoding (``A = 16``): the current player's hand is kept sorted ascending in slots
0..3. Action ``a`` in 0..14 plays the non-empty subset of slots whose bitmask is ``a + 1``
(bit ``j`` = slot ``j``), placing a monkey on the field numbered with the cards' sum.
Action 15 is the forced "no playable cards" discard (legal only when no subset is).
Different subsets with the same sum are different actions (they leave different hands);
subsets of equal cards in different slots are both legal and have the same effect.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.game import Game, batch_arange, end_games
from monkey_envs.core.rng import draw_below, seed_rng, shuffle_prefix
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import (
    END_LINE,
    END_NONE,
    END_REASONS,
    END_SOLO_COMPLETE,
    END_SOLO_ROUNDS,
    END_SOLO_STUCK,
    END_SUPPLIES,
    MonkeyFunState,
)

NUM_SUBSETS = 15
DISCARD_ACTION = 15
NUM_ACTIONS = 16
#: ``(15, 4) bool``: slots played by action ``a`` (bitmask ``a + 1``).
SUBSET_BITS = np.array([[(s >> j) & 1 for j in range(D.HAND_SIZE)] for s in range(1, 16)], dtype=bool)
_SUBSET_BITS_I = SUBSET_BITS.astype(np.intp)
_MAX_SUM = D.HAND_SIZE * D.MAX_CARD
_INNER_MASK = np.zeros(D.NUM_FIELDS, dtype=bool)
_INNER_MASK[list(D.INNER_FIELDS)] = True
#: ``(37,)`` the inner mask plus a False last entry, so field -1 ("no field") reads as outer.
_INNER_EXT = np.append(_INNER_MASK, False)
_INNER_IDX = np.array(D.INNER_FIELDS, dtype=np.intp)
_DECK = np.array(D.DECK, dtype=np.int8)
_DECK_COUNTS = np.bincount(_DECK, minlength=D.MAX_CARD + 1)

# Lookup tables of the hot path (rules become a few gathers per step, whatever the batch size).
#: A value no card has: a subset using an empty slot (0) sums to more than any field number.
_EMPTY_SLOT_VALUE = _MAX_SUM + 1
#: ``(20,)`` value a card counts for in subset sums (an empty slot counts ``_EMPTY_SLOT_VALUE``).
_SUM_VALUE = np.arange(D.MAX_CARD + 1, dtype=np.intp)
_SUM_VALUE[0] = _EMPTY_SLOT_VALUE
#: ``(4, 15)`` slot-by-subset incidence (subset sums are one matrix product).
_SUBSET_BITS_T = np.ascontiguousarray(_SUBSET_BITS_I.T)
#: ``(16, 4) bool``: slots played by each action (the discard action 15 plays all four).
_PLAY_BITS = np.vstack([SUBSET_BITS, np.ones((1, D.HAND_SIZE), dtype=bool)])
#: ``(16,)`` bitmask of the slots each action empties (bit j = slot j).
_PLAY_PATTERN = np.minimum(np.arange(NUM_ACTIONS), NUM_SUBSETS - 1) + 1
#: ``(16, 4) bool``: slots set in each 4-bit pattern.
_PATTERN_SLOTS = ((np.arange(16)[:, None] >> np.arange(D.HAND_SIZE)[None, :]) & 1).astype(bool)
#: ``(16,) int8``: how many slots each pattern sets (cards to draw).
_PATTERN_NEED = _PATTERN_SLOTS.sum(1).astype(np.int8)
#: ``(16, 4)``: 1 + rank of each set slot among the set slots (the k-th empty slot takes the
#: k-th card from the top); 1 for unset slots (they read the top card, which is not used).
_PATTERN_DEPTH = np.where(_PATTERN_SLOTS, np.cumsum(_PATTERN_SLOTS, axis=1), 1).astype(np.intp)
_PILE_POS = np.arange(D.NUM_CARDS)
_FIELD_IDX = np.arange(D.NUM_FIELDS)
_SUBSET_IDX = np.arange(NUM_SUBSETS)
#: Batches up to this size take the observation path with the fewest numpy calls.
_SMALL_BATCH = 16
#: per player count: ``(P, P) bool`` one-hot seats.
_SEAT_ONEHOT = {p: np.eye(p, dtype=bool) for p in range(1, 5)}


SPEC = GameSpec(
    name="monkey_fun",
    gym_name="MonkeyFun",
    version=0,
    min_players=1,
    max_players=4,
    variants=D.VARIANTS,
    chance=True,
    information="imperfect",
    reward_range=(D.REWARD_LOSS, D.REWARD_WIN),
    description="Play 1-4 cards, place a monkey on the field of their sum; 4 in a row wins.",
)


class MonkeyFun(Game[MonkeyFunState]):
    """Monkey Fun (KOSMOS 2024): normal, quick and solo variants.

    Args:
        num_players: 1 (solo) to 4.
        variant: ``"normal"``, ``"quick"`` (a 2x2 square also wins) or ``"solo"``; ``None``
            picks ``"solo"`` for one player and ``"normal"`` otherwise.
        board_side: 1 or 2 (see :data:`~monkey_envs.monkey_fun.data.BOARD_LAYOUTS_RECONSTRUCTED`).
        place_on_own_secured: DECISIONS.md flag: may a player keep placing on a field they
            secured (default True).

    Raises:
        ValueError: an unsupported player count, variant or board side.
    """

    spec = SPEC
    state_class = MonkeyFunState
    #: Observation bounds (every piece is in [0, 1] except ``counts`` = monkeys / 4 <= 20 / 4).
    obs_low = 0.0
    obs_high = D.MONKEYS_PER_PLAYER / 4

    def __init__(
        self,
        num_players: int = 2,
        variant: str | None = None,
        board_side: int = 1,
        place_on_own_secured: bool = True,
    ) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int in 1..4, got {num_players!r}")
        num_players = int(num_players)
        if not 1 <= num_players <= 4:
            raise ValueError(f"num_players must be in 1..4 for Monkey Fun, got {num_players}")
        if variant is None:
            variant = "solo" if num_players == 1 else "normal"
        if variant not in D.VARIANTS:
            raise ValueError(f"unknown Monkey Fun variant {variant!r}; choose one of {D.VARIANTS}")
        if (variant == "solo") != (num_players == 1):
            raise ValueError(
                f"variant {variant!r} needs {'1 player' if variant == 'solo' else '2-4 players'}, "
                f"got num_players={num_players}"
            )
        if (
            isinstance(board_side, bool)
            or not isinstance(board_side, (int, np.integer))
            or board_side not in D.BOARD_SIDES
        ):
            raise ValueError(f"board_side must be one of {D.BOARD_SIDES}, got {board_side!r}")
        if not isinstance(place_on_own_secured, (bool, np.bool_)):
            raise ValueError(f"place_on_own_secured must be a bool, got {place_on_own_secured!r}")
        self._config = {
            "num_players": num_players,
            "variant": variant,
            "board_side": int(board_side),
            "place_on_own_secured": bool(place_on_own_secured),
        }
        self.num_players = num_players
        self.num_actions = NUM_ACTIONS
        self.variant = variant
        self.solo = variant == "solo"
        self.board_side = int(board_side)
        self.place_on_own_secured = bool(place_on_own_secured)

        # Index tables built once (Pgx-style): rules are lookups and wheres.
        layout = np.array(D.BOARD_LAYOUTS_RECONSTRUCTED[self.board_side], dtype=np.int64).ravel()
        #: ``(36,)`` number printed on each field.
        self.field_number = layout
        #: ``(77,)`` field index of each card sum, -1 where no field has that number.
        self.field_of_number = np.full(_MAX_SUM + 1, -1, dtype=np.int64)
        self.field_of_number[layout] = np.arange(D.NUM_FIELDS)
        self.windows = D.LINE_WINDOWS if variant != "quick" else np.concatenate([D.LINE_WINDOWS, D.SQUARE_WINDOWS])
        #: ``(W,) uint64`` bitmask (bit = field index) of each winning window.
        self.window_bits = (np.uint64(1) << self.windows.astype(np.uint64)).sum(1, dtype=np.uint64)
        self._field_value = (layout / 36).astype(np.float32)
        #: ``(4 * 77 + 1,)`` field of each subset sum (-1: no field; sums using an empty slot are > 76).
        self._field_of_sum = np.full(D.HAND_SIZE * _EMPTY_SLOT_VALUE + 1, -1, dtype=np.intp)
        self._field_of_sum[: _MAX_SUM + 1] = self.field_of_number
        #: ``(16, 77)`` field each action places on given the played cards' sum (-1 for the discard).
        self._place_field = np.tile(self.field_of_number, (NUM_ACTIONS, 1))
        self._place_field[DISCARD_ACTION] = -1
        P = num_players
        #: ``(P, 2**P) int8``: seat to move after seat ``cp`` given the bitmask of seats whose
        #: supply is not empty (the next such seat clockwise, ``cp`` itself last; with none
        #: left the next seat, as the game ends anyway).
        self._next_seat = np.zeros((P, 2**P), dtype=np.int8)
        for cp in range(P):
            for key in range(2**P):
                order = [(cp + k) % P for k in range(1, P + 1)]
                has = [o for o in order if key >> o & 1]
                self._next_seat[cp, key] = has[0] if has else order[0]
        self._seat_weights = (1 << np.arange(P)).astype(np.intp)
        #: ``(15, 309)``: flat observation cell of the one-hot "action_field" entry of subset ``a``
        #: with card sum ``s`` (the first "solo" cell, rewritten afterwards, when ``s`` is no field).
        self._af_cell = np.full((NUM_SUBSETS, self._field_of_sum.size), -1, dtype=np.intp)  # set below
        #: ``(P, P)``: absolute seat of each observer-first slot, per observer seat.
        self._rot = (np.arange(P)[:, None] + np.arange(P)[None, :]) % P
        #: ``(P, P) int8``: 0 on the diagonal, 1 elsewhere (keeps the other seats' counts).
        self._not_seat = (~np.eye(P, dtype=bool)).astype(np.int8)
        #: ``(P, P) int8``: +2 (the securing margin) on every other seat's count.
        self._margin = np.where(np.eye(P, dtype=bool), 0, D.SECURE_MARGIN).astype(np.int8)

        self.obs_layout = ObsLayout(
            [
                ObsPiece("hand", (D.HAND_SIZE,), "own hand: sorted slot values / 19 (0 = empty slot)"),
                ObsPiece(
                    "action_field",
                    (NUM_SUBSETS, D.NUM_FIELDS),
                    "field each subset action a<15 would place on (one-hot; all 0 if its sum is no field)",
                ),
                ObsPiece("counts", (D.NUM_FIELDS, P), "monkeys per field per seat / 4 (seats observer-first)"),
                ObsPiece("owner", (D.NUM_FIELDS, P), "1 where that seat secured the field (observer-first)"),
                ObsPiece("field_value", (D.NUM_FIELDS,), "number printed on the field / 36"),
                ObsPiece("supply", (P,), "monkeys left in each seat's supply / 20 (observer-first)"),
                ObsPiece("box", (P,), "each seat's monkeys returned to the box / 20 (observer-first)"),
                ObsPiece("discard", (D.MAX_CARD,), "face-up discard pile: count of each value 1..19 / 4"),
                ObsPiece("draw_size", (1,), "cards in the draw pile / 55"),
                ObsPiece("to_move", (P,), "one-hot seat to move (observer-first; index 0 = observer)"),
                ObsPiece("solo", (2,), "solo only: minus-tower fields / 4, rounds played / 20"),
            ]
        )
        af_start = self.obs_layout.slices["action_field"].start
        fos = self._field_of_sum
        self._af_cell[:] = np.where(
            fos[None, :] >= 0,
            af_start + np.arange(NUM_SUBSETS)[:, None] * D.NUM_FIELDS + fos[None, :],
            self.obs_layout.slices["solo"].start,
        )

    # ================================================================== helpers
    def action_name(self, state: MonkeyFunState, row: int, action: int) -> str:
        if action == DISCARD_ACTION:
            return "discard hand (no playable cards)"
        if not 0 <= action < NUM_SUBSETS:
            raise ValueError(f"action {action} out of range [0, {NUM_ACTIONS})")
        cp = int(state.current_player[row])
        hand = state.hands[row, max(cp, 0)]
        cards = [int(v) for v, b in zip(hand, SUBSET_BITS[action], strict=True) if b]
        return f"play {'+'.join(map(str, cards))} = {sum(cards)}"

    def _subset_fields(self, hand: np.ndarray) -> np.ndarray:
        """``(n, 15) intp`` field each subset action of hands ``(n, 4)`` places on; -1 if none.

        -1 when the subset's sum is no field number or the subset uses an empty slot.
        """
        return self._field_of_sum[_SUM_VALUE[hand] @ _SUBSET_BITS_T]

    def _legal_into(
        self, mask: np.ndarray, hand: np.ndarray, owner: np.ndarray, counts: np.ndarray, cp: np.ndarray
    ) -> np.ndarray | None:
        """Write the legal mask of hands ``(n, 4)`` into ``mask (n, 16)``; return the solo 'stuck' flags.

        Returns ``None`` outside the solo game (nobody gets stuck there: action 15 discards).
        """
        n = hand.shape[0]
        rows = batch_arange(n)[:, None]
        field = self._subset_fields(hand)  # (n, 15), -1 = no field
        ok = mask[:, :NUM_SUBSETS]
        if not self.solo:
            fo = owner[rows, field]  # field -1 reads field 35; cleared by `field >= 0` below
            np.equal(fo, -1, out=ok)
            if self.place_on_own_secured:
                ok |= fo == cp[:, None]
            ok &= field >= 0
            np.logical_not(ok.any(1), out=mask[:, DISCARD_ACTION])
            return None
        c0 = counts[:, :, 0]
        fcount = c0[rows, field]
        inner = _INNER_EXT[field]  # False for field -1
        free = inner & (fcount == 0)
        towers = ((c0 >= 2) & _INNER_MASK).sum(1)
        tower = (
            inner
            & (fcount >= 1)
            & (fcount < D.SOLO_MAX_PER_FIELD)
            & ((fcount >= 2) | (towers[:, None] < D.SOLO_MAX_TOWERS))
        )
        ok[:] = np.where(free.any(1)[:, None], free, tower)
        mask[:, DISCARD_ACTION] = False
        return ~ok.any(1)

    def _refresh(self, s: MonkeyFunState) -> None:
        """Recompute the mask (and the solo 'stuck' losses) of every row for its current player."""
        cp = s.current_player.astype(np.intp)
        hand = s.hands[batch_arange(s.batch_size), cp]
        stuck = self._legal_into(s.legal_action_mask, hand, s.owner, s.counts, cp)
        if stuck is not None and stuck.any():
            lost = np.flatnonzero(stuck)
            self._finish(s, lost, np.zeros((lost.size, self.num_players), dtype=bool), END_SOLO_STUCK)

    def _finish(self, s: MonkeyFunState, rows: np.ndarray, winners: np.ndarray, reason: int) -> None:
        """End games ``rows`` with ``winners (n, P) bool``: rewards, flags, empty mask."""
        end_games(s, rows, winners, reason, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))

    def final_scores(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """End-of-game scoring of boards ``counts (n, 36, P)``.

        Per field the unique highest count keeps it (a tie voids it); a seat scores the
        numbers of its kept fields. Returns ``scores (n, P) int16`` and ``winners (n, P) bool``
        after the tie-break (highest kept field; all-zero ties stay shared).
        """
        top = counts.max(2, keepdims=True)
        is_top = (counts == top) & (top > 0)
        kept = is_top & (is_top.sum(2, keepdims=True) == 1)  # (n, 36, P)
        nums = self.field_number[None, :, None]
        scores = (kept * nums).sum(1)
        best = (kept * nums).max(1)  # highest kept field per seat (unique across seats)
        key = scores * 64 + best
        winners = key == key.max(1, keepdims=True)
        return scores.astype(np.int16), winners

    # ================================================================== init
    def _init(self, seeds: np.ndarray) -> MonkeyFunState:
        B, P = seeds.shape[0], self.num_players
        rng = seed_rng(seeds)
        rows = np.arange(B)
        pile = shuffle_prefix(rng, rows, np.broadcast_to(_DECK, (B, D.NUM_CARDS)).copy(), np.full(B, D.NUM_CARDS))
        hands = np.zeros((B, P, D.HAND_SIZE), dtype=np.int8)
        top = D.NUM_CARDS
        for p in range(P):  # deal 4 each from the top (loop over seats, not envs)
            hands[:, p] = pile[:, top - D.HAND_SIZE : top]
            top -= D.HAND_SIZE
        pile[:, top:] = 0
        hands.sort(axis=2)
        start = draw_below(rng, rows, P).astype(np.int8)
        s = MonkeyFunState(
            current_player=start,
            rewards=np.zeros((B, P), np.float32),
            terminated=np.zeros(B, bool),
            truncated=np.zeros(B, bool),
            legal_action_mask=np.zeros((B, NUM_ACTIONS), bool),
            step_count=np.zeros(B, np.int32),
            rng=rng,
            counts=np.zeros((B, D.NUM_FIELDS, P), np.int8),
            owner=np.full((B, D.NUM_FIELDS), -1, np.int8),
            supply=np.full((B, P), D.MONKEYS_PER_PLAYER, np.int8),
            box=np.zeros((B, P), np.int8),
            hands=hands,
            draw_pile=pile,
            draw_size=np.full(B, top, np.int8),
            discard=np.zeros((B, D.MAX_CARD + 1), np.int8),
            scores=np.zeros((B, P), np.int16),
            winners_mask=np.zeros((B, P), bool),
            end_reason=np.zeros(B, np.int8),
            last_field=np.full(B, -1, np.int8),
        )
        self._refresh(s)
        return s

    # ================================================================== step
    def _step(self, s: MonkeyFunState, actions: np.ndarray, live: np.ndarray) -> None:
        P = self.num_players
        n = s.batch_size
        ar = batch_arange(n)
        cp = s.current_player.astype(np.intp)
        hand = s.hands[ar, cp]  # (n, 4)

        # ---- 1. play cards (or discard the whole hand: action 15 plays all four slots) ----
        played = hand * _PLAY_BITS[actions]  # (n, 4) int8, 0 in slots kept
        rest = hand - played  # the hand is written back once, after drawing
        s.discard += self._value_counts(played)
        s.supply[ar, cp] -= 1  # a monkey leaves the supply: onto the board or into the box

        # ---- 2. place one monkey ------------------------------------------------------
        place = actions != DISCARD_ACTION
        field = self._place_field[actions, played.sum(1, dtype=np.intp)]  # -1 for a discard
        s.last_field[:] = field
        s.box[ar, cp] += ~place
        s.counts[ar, field, cp] += place  # a discard (field -1) adds 0

        if not self.solo:
            # ---- securing: count >= every other count + 2 ------------------------------
            fc = s.counts[ar, field]  # (n, P)
            mine = fc[ar, cp]
            sec = (s.owner[ar, field] == -1) & ((fc + self._margin[cp]).max(1) <= mine) & place
            if sec.any():
                sr, sf, sc = ar[sec], field[sec], cp[sec]
                back = fc[sec]
                back[np.arange(sr.size), sc] = 0
                s.box[sr] += back
                s.counts[sr, sf] -= back
                s.owner[sr, sf] = sc
            # ---- a line of 4 (or a 2x2 square in the quick game) with the majority --------
            won = self._has_line(s.counts, s.owner, cp) & place
        else:
            won = (s.counts[:, _INNER_IDX, 0] >= 1).all(1) & place
            if won.any():
                wr = ar[won]
                towers = ((s.counts[wr, :, 0] >= 2) & _INNER_MASK) * self.field_number
                s.scores[wr, 0] = self.field_number[field[won]] - towers.sum(1)

        # ---- 3. draw back up to 4 (nobody draws after a win) -----------------------------
        any_won = bool(won.any())
        pattern = _PLAY_PATTERN[actions]  # slots to refill
        if any_won:
            pattern[won] = 0
        self._draw(s, ar, cp, rest, pattern)

        # ---- end of game / next player ------------------------------------------------
        # The mask is computed for every row first; rows that end below overwrite it (and
        # everything else _finish sets), so no row subset has to be cut out on the hot path.
        if self.solo:
            self._refresh(s)
            out = ~won & (s.supply[:, 0] == 0)
            if out.any():
                self._finish(s, ar[out], np.zeros((int(out.sum()), 1), dtype=bool), END_SOLO_ROUNDS)
        else:
            key = (s.supply > 0) @ self._seat_weights  # bitmask of the seats with monkeys left
            s.current_player[:] = self._next_seat[cp, key]
            self._refresh(s)
            ended = key == 0
            if any_won:
                ended &= ~won
            if ended.any():
                er = ar[ended]
                scores, winners = self.final_scores(s.counts[er])
                s.scores[er] = scores
                self._finish(s, er, winners, END_SUPPLIES)
        if any_won:
            wr = ar[won]
            w = np.zeros((wr.size, P), dtype=bool)
            w[np.arange(wr.size), cp[won]] = True
            self._finish(s, wr, w, END_SOLO_COMPLETE if self.solo else END_LINE)

    def _has_line(self, counts: np.ndarray, owner: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``(m,) bool``: does ``seat`` hold the majority on every field of some window?

        Majority fields are a count above every other seat's, or a field the seat secured; the
        windows are one gather of that ``(m, 36)`` board.
        """
        m = counts.shape[0]
        mine = counts[batch_arange(m), :, seat]  # (m, 36)
        # the others' counts with the seat's own zeroed (counts are >= 0, so the max over the
        # others is unchanged); maxima over slices, as numpy reduces a short last axis slowly
        keep = self._not_seat[seat]  # (m, P) 0 for the seat itself
        best = counts[:, :, 0] * keep[:, 0:1]
        for k in range(1, self.num_players):  # a loop over seats, not envs
            best = np.maximum(best, counts[:, :, k] * keep[:, k : k + 1])
        majority = mine > best
        majority |= owner == seat[:, None]
        return majority[:, self.windows].all(2).any(1)

    @staticmethod
    def _value_counts(cards: np.ndarray) -> np.ndarray:
        """``(n, 20) int8`` counts of card values in ``cards (n, k)`` (0 = no card, not counted)."""
        n = cards.shape[0]
        idx = (batch_arange(n)[:, None] * (D.MAX_CARD + 1) + cards).ravel()
        cnt = np.bincount(idx, minlength=n * (D.MAX_CARD + 1)).reshape(n, D.MAX_CARD + 1)
        cnt[:, 0] = 0
        return cnt.astype(np.int8)

    def _draw(self, s: MonkeyFunState, ar: np.ndarray, cp: np.ndarray, rest: np.ndarray, pattern: np.ndarray) -> None:
        """Refill seat ``cp``'s hand ``rest (n, 4)`` in the slots of ``pattern (n,)`` from the draw pile.

        The k-th slot to fill takes the k-th card from the top; the hand is stored sorted. When
        the pile runs short the discard pile (including the cards just played) is shuffled into
        a new pile under the cards left in the old one, which are drawn first.
        """
        need = _PATTERN_NEED[pattern]  # (n,) int8
        short = s.draw_size < need
        if short.any():
            self._reshuffle(s, np.flatnonzero(short))
        pos = s.draw_size[:, None] - _PATTERN_DEPTH[pattern]  # (n, 4); -1 only for unused slots
        hand = np.where(_PATTERN_SLOTS[pattern], s.draw_pile[ar[:, None], pos], rest)
        hand.sort(axis=1)
        s.hands[ar, cp] = hand
        s.draw_size -= need
        s.draw_pile *= _PILE_POS < s.draw_size[:, None]  # clear the drawn cards (all above the new top)

    @staticmethod
    def _reshuffle(s: MonkeyFunState, rows: np.ndarray) -> None:
        """Shuffle the discard pile of ``rows`` under the cards left in their draw pile."""
        disc = s.discard[rows].astype(np.intp)  # (r, 20)
        nd = disc.sum(1)
        cum = np.cumsum(disc, axis=1)
        k = np.arange(D.NUM_CARDS)
        values = (k[None, :, None] >= cum[:, None, :]).sum(2)  # value at sorted position k
        values = np.where(k[None, :] < nd[:, None], values, 0).astype(np.int8)
        shuffled = shuffle_prefix(s.rng, rows, values, nd)
        left = s.draw_size[rows].astype(np.intp)
        old = s.draw_pile[rows]
        src = np.clip(k[None, :] - nd[:, None], 0, D.NUM_CARDS - 1)
        pile = np.where(k[None, :] < nd[:, None], shuffled, np.take_along_axis(old, src, axis=1))
        pile = np.where(k[None, :] < (nd + left)[:, None], pile, 0)
        s.draw_pile[rows] = pile
        s.draw_size[rows] = (nd + left).astype(np.int8)
        s.discard[rows] = 0

    # ================================================================== observation
    def _observe(self, s: MonkeyFunState, player: np.ndarray) -> np.ndarray:
        B, P = s.batch_size, self.num_players
        ar = batch_arange(B)
        sl = self.obs_layout.slices
        dim = self.obs_layout.size
        obs = np.zeros((B, dim), dtype=np.float32)
        hand = s.hands[ar, player]  # (B, 4)
        np.multiply(hand, np.float32(1 / D.MAX_CARD), out=obs[:, sl["hand"]])
        rot = self._rot[player]  # (B, P): absolute seat of each observer-first slot
        counts = obs[:, sl["counts"]].reshape(B, D.NUM_FIELDS, P)
        owner = obs[:, sl["owner"]].reshape(B, D.NUM_FIELDS, P)
        sums = _SUM_VALUE[hand] @ _SUBSET_BITS_T  # (B, 15) subset sums (> 76 if using an empty slot)
        # Two ways to the same numbers: few numpy calls for small batches (per-call overhead
        # dominates), few passes over memory for large ones (per-element cost dominates).
        if B <= _SMALL_BATCH:
            af = obs[:, sl["action_field"]].reshape(B, NUM_SUBSETS, D.NUM_FIELDS)
            np.equal(self._field_of_sum[sums][:, :, None], _FIELD_IDX, out=af)
            gathered = s.counts[ar[:, None, None], _FIELD_IDX[None, :, None], rot[:, None, :]]
            np.multiply(gathered, np.float32(0.25), out=counts)
            np.equal(s.owner[:, :, None], rot[:, None, :], out=owner)
        else:
            # one-hot action fields: one scatter of flat cells (a subset with no field hits
            # the first solo cell, rewritten below)
            cells = self._af_cell[_SUBSET_IDX, sums]
            cells += (ar * dim)[:, None]
            obs.reshape(-1)[cells] = 1.0
            for r in range(P):  # rows observed by seat r see the seat axis rolled by r (a loop over seats)
                sel = player == r
                counts[sel] = np.roll(s.counts[sel], -r, axis=2) * np.float32(0.25)
            orow, ofield = np.nonzero(s.owner >= 0)
            rel = (s.owner[orow, ofield] - player[orow]) % P
            owner[orow, ofield, rel] = 1.0
        obs[:, sl["field_value"]] = self._field_value
        np.multiply(s.supply[ar[:, None], rot], np.float32(1 / D.MONKEYS_PER_PLAYER), out=obs[:, sl["supply"]])
        np.multiply(s.box[ar[:, None], rot], np.float32(1 / D.MONKEYS_PER_PLAYER), out=obs[:, sl["box"]])
        np.multiply(s.discard[:, 1:], np.float32(0.25), out=obs[:, sl["discard"]])
        np.multiply(s.draw_size[:, None], np.float32(1 / D.NUM_CARDS), out=obs[:, sl["draw_size"]])
        np.equal(s.current_player[:, None], rot, out=obs[:, sl["to_move"]])  # -1 (over) matches no seat
        if self.solo:
            c0 = s.counts[:, :, 0]
            obs[:, sl["solo"].start] = ((c0 >= 2) & _INNER_MASK).sum(1) * np.float32(1 / D.SOLO_MAX_TOWERS)
            obs[:, sl["solo"].start + 1] = (D.MONKEYS_PER_PLAYER - s.supply[:, 0]) * np.float32(1 / D.SOLO_ROUNDS)
        else:
            obs[:, sl["solo"].start] = 0.0
        return obs

    def _winners(self, s: MonkeyFunState) -> np.ndarray:
        return s.winners_mask.copy()

    def episode_info(self, s: MonkeyFunState, row: int) -> dict[str, Any]:
        return {
            "end_reason": END_REASONS[int(s.end_reason[row])],
            "scores": s.scores[row].astype(int).tolist(),
            "winners": np.flatnonzero(s.winners_mask[row]).tolist(),
        }

    # ================================================================== positions
    def position(
        self,
        *,
        hands: list[list[int]],
        board: dict[int, list[int]] | None = None,
        owners: dict[int, int] | None = None,
        box: list[int] | None = None,
        supply: list[int] | None = None,
        draw_pile: list[int] | None = None,
        discard: list[int] | None = None,
        current_player: int = 0,
        seed: int = 0,
    ) -> MonkeyFunState:
        """Build one specific position (batch size 1), e.g. for a scenario test.

        Args:
            hands: per seat, its hand card values (at most 4 each).
            board: field *number* (1..36, as printed) -> monkeys per seat, e.g. ``{23: [3, 2]}``.
            owners: field number -> seat that secured it.
            box: per seat, monkeys already returned to the box (default 0).
            supply: per seat, monkeys in front of the player (default 20 - board - box).
            draw_pile: card values, **top card first**; default: the rest of the deck (after
                hands and ``discard``) in an order shuffled with ``seed``.
            discard: card values in the discard pile; default: the rest of the deck when
                ``draw_pile`` is given, else empty.
            current_player: seat to move.
            seed: seeds the state's RNG (later reshuffles) and the default draw-pile order.

        Returns:
            A :class:`MonkeyFunState` with ``B = 1``, mask computed (a solo position with no
            possible placement is already lost, as the rules say).

        Raises:
            ValueError: wrong lengths, card counts exceeding the deck, monkeys not adding up to 20.
        """
        P = self.num_players
        if len(hands) != P or any(len(h) > D.HAND_SIZE for h in hands):
            raise ValueError(f"hands must list {P} hands of at most {D.HAND_SIZE} cards, got {hands}")
        if not 0 <= current_player < P:
            raise ValueError(f"current_player must be in [0, {P}), got {current_player}")
        counts = np.zeros((D.NUM_FIELDS, P), dtype=np.int64)
        for num, c in (board or {}).items():
            if not 1 <= num <= 36 or len(c) != P or min(c) < 0:
                raise ValueError(f"board entry {num}: {c} needs a field number 1..36 and {P} counts >= 0")
            counts[self.field_of_number[num]] = c
        own = np.full(D.NUM_FIELDS, -1, dtype=np.int64)
        for num, seat in (owners or {}).items():
            if not 1 <= num <= 36 or not 0 <= seat < P:
                raise ValueError(f"owners entry {num}: {seat} needs a field number 1..36 and a seat")
            own[self.field_of_number[num]] = seat
        boxv = np.asarray(box if box is not None else [0] * P, dtype=np.int64)
        on_board = counts.sum(0)
        sup = np.asarray(supply, dtype=np.int64) if supply is not None else D.MONKEYS_PER_PLAYER - on_board - boxv
        if boxv.shape != (P,) or sup.shape != (P,):
            raise ValueError(f"box and supply need {P} entries")
        if ((sup < 0) | (boxv < 0)).any() or (sup + on_board + boxv != D.MONKEYS_PER_PLAYER).any():
            raise ValueError(
                f"monkeys must add up to {D.MONKEYS_PER_PLAYER} per seat: supply {sup.tolist()} + "
                f"board {on_board.tolist()} + box {boxv.tolist()}"
            )
        if not self.solo and sup[current_player] == 0:
            raise ValueError(f"seat {current_player} has an empty supply and would be skipped; it cannot be to move")
        for f in np.flatnonzero(own >= 0):
            o = own[f]
            if np.delete(counts[f], o).any() or counts[f, o] < D.SECURE_MARGIN:
                raise ValueError(
                    f"field {self.field_number[f]} is secured by seat {o}: it needs >= {D.SECURE_MARGIN} of that "
                    f"seat's monkeys and none of the others', got {counts[f].tolist()}"
                )
        hand_cards = [c for h in hands for c in h]
        rest = _DECK_COUNTS.copy()
        for c in hand_cards + list(discard or []) + list(draw_pile or []):
            if not 1 <= c <= D.MAX_CARD:
                raise ValueError(f"card value {c} is not in 1..{D.MAX_CARD}")
            rest[c] -= 1
        if (rest < 0).any():
            raise ValueError(f"more copies than the deck holds of values {np.flatnonzero(rest < 0).tolist()}")
        rest_cards = [v for v in range(1, D.MAX_CARD + 1) for _ in range(rest[v])]
        rng = seed_rng(np.array([seed]))
        if draw_pile is None:
            disc = list(discard or [])
            arr = np.zeros((1, D.NUM_CARDS), dtype=np.int8)
            arr[0, : len(rest_cards)] = rest_cards
            pile = shuffle_prefix(rng, np.array([0]), arr, np.array([len(rest_cards)]))[0, : len(rest_cards)]
        else:
            disc = list(discard) if discard is not None else rest_cards
            if discard is not None and rest.sum() != 0:
                raise ValueError(
                    f"hands, draw_pile and discard must hold all {D.NUM_CARDS} cards; {rest.sum()} missing"
                )
            pile = np.array(draw_pile[::-1], dtype=np.int8)  # stored bottom -> top
        pile_arr = np.zeros((1, D.NUM_CARDS), dtype=np.int8)
        pile_arr[0, : pile.size] = pile
        hands_arr = np.zeros((1, P, D.HAND_SIZE), dtype=np.int8)
        for p, h in enumerate(hands):
            hands_arr[0, p, : len(h)] = h
        hands_arr.sort(axis=2)
        s = MonkeyFunState(
            current_player=np.array([current_player], np.int8),
            rewards=np.zeros((1, P), np.float32),
            terminated=np.zeros(1, bool),
            truncated=np.zeros(1, bool),
            legal_action_mask=np.zeros((1, NUM_ACTIONS), bool),
            step_count=np.zeros(1, np.int32),
            rng=rng,
            counts=counts[None].astype(np.int8),
            owner=own[None].astype(np.int8),
            supply=sup[None].astype(np.int8),
            box=boxv[None].astype(np.int8),
            hands=hands_arr,
            draw_pile=pile_arr,
            draw_size=np.array([pile.size], np.int8),
            discard=self._value_counts(np.array([disc], dtype=np.int64).reshape(1, -1)),
            scores=np.zeros((1, P), np.int16),
            winners_mask=np.zeros((1, P), bool),
            end_reason=np.array([END_NONE], np.int8),
            last_field=np.array([-1], np.int8),
        )
        self._refresh(s)
        return s

    # ================================================================== render
    def render(self, state: MonkeyFunState, row: int = 0, viewer: int | None = None) -> str:
        from monkey_envs.monkey_fun.render import render_text

        return render_text(self, state, row, viewer)
