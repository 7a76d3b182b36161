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

from monkey_envs.core.game import Game
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
#: ``(16, 15) bool``: for each pattern of empty slots (bit j = slot j empty), subsets using one.
_USES_EMPTY = (np.arange(16)[:, None] & np.arange(1, 16)[None, :]) > 0
_SLOT_WEIGHTS = np.array([1, 2, 4, 8], dtype=np.intp)
_DECK = np.array(D.DECK, dtype=np.int8)


_CARD_VALUES = np.arange(D.MAX_CARD + 1)
_FIELDS = np.arange(D.NUM_FIELDS)
_SEATS = np.arange(4)
#: seat offsets 1..P (the next seats clockwise, the mover itself last)
_OFFSETS = {p: np.arange(1, p + 1) for p in range(1, 5)}


def _slot_pattern(hand: np.ndarray) -> np.ndarray:
    """``(n,)`` bitmask of the empty (0) slots of hands ``(n, 4)``."""
    return (hand == 0) @ _SLOT_WEIGHTS


_DECK_COUNTS = np.bincount(_DECK, minlength=D.MAX_CARD + 1)

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

        P = num_players
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

    def _legal(
        self, hand: np.ndarray, owner: np.ndarray, counts: np.ndarray, cp: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Legal mask ``(n, 16)`` for hands ``(n, 4)``; also ``(n,)`` 'solo stuck' flags."""
        n = hand.shape[0]
        ar = np.arange(n)[:, None]
        sums = hand.astype(np.intp) @ _SUBSET_BITS_I.T  # (n, 15)
        field = self.field_of_number[np.where(_USES_EMPTY[_slot_pattern(hand)], 0, sums)]  # sum 0 -> no field
        valid = field >= 0
        fclip = np.maximum(field, 0)
        mask = np.empty((n, NUM_ACTIONS), dtype=bool)
        if not self.solo:
            fo = owner[ar, fclip]
            if self.place_on_own_secured:
                ok = valid & ((fo == -1) | (fo == cp[:, None]))
            else:
                ok = valid & (fo == -1)
            mask[:, :NUM_SUBSETS] = ok
            mask[:, DISCARD_ACTION] = ~ok.any(1)
            return mask, np.zeros(n, dtype=bool)
        c0 = counts[:, :, 0]
        fcount = c0[ar, fclip]
        inner = valid & _INNER_MASK[fclip]
        free = inner & (fcount == 0)
        towers = ((c0 >= 2) & _INNER_MASK).sum(1)
        tower = (
            inner
            & (fcount >= 1)
            & (fcount < D.SOLO_MAX_PER_FIELD)
            & ((fcount >= 2) | (towers[:, None] < D.SOLO_MAX_TOWERS))
        )
        ok = np.where(free.any(1)[:, None], free, tower)
        mask[:, :NUM_SUBSETS] = ok
        mask[:, DISCARD_ACTION] = False
        return mask, ~ok.any(1)

    def _refresh(self, s: MonkeyFunState, rows: np.ndarray | None = None) -> None:
        """Recompute mask (and solo 'stuck' losses) for running rows ``rows`` (None = all rows)."""
        if rows is None:
            cp = s.current_player.astype(np.intp)
            hand = s.hands[np.arange(s.batch_size), cp]
            mask, stuck = self._legal(hand, s.owner, s.counts, cp)
            s.legal_action_mask[:] = mask
            rows = np.arange(s.batch_size)
        else:
            if rows.size == 0:
                return
            cp = s.current_player[rows].astype(np.intp)
            mask, stuck = self._legal(
                s.hands[rows, cp], s.owner[rows], s.counts[rows] if self.solo else s.counts[:0], cp
            )
            s.legal_action_mask[rows] = mask
        if stuck.any():
            lost = rows[stuck]
            self._finish(s, lost, np.zeros((lost.size, self.num_players), dtype=bool), END_SOLO_STUCK)

    def _finish(self, s: MonkeyFunState, rows: np.ndarray, winners: np.ndarray, reason: int) -> None:
        """End games ``rows`` with ``winners (n, P) bool``: rewards, flags, empty mask."""
        if rows.size == 0:
            return
        everyone = winners.all(1, keepdims=True) & (self.num_players > 1)  # a shared win by all = draw
        rew = np.where(winners, D.REWARD_WIN, D.REWARD_LOSS)
        rew = np.where(everyone, D.REWARD_DRAW, rew).astype(np.float32)
        s.rewards[rows] = rew
        s.winners_mask[rows] = winners
        s.terminated[rows] = True
        s.end_reason[rows] = reason
        s.legal_action_mask[rows] = False
        s.current_player[rows] = -1

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
        ar = np.arange(n)
        cp = s.current_player.astype(np.intp)
        hand = s.hands[ar, cp]  # (n, 4)

        # ---- 1. play cards (or discard the whole hand) --------------------------------
        # action 15 (discard) maps to subset index 14 = bitmask 15 = all four slots
        bits = SUBSET_BITS[np.minimum(actions, NUM_SUBSETS - 1)]  # (n, 4)
        played = np.where(bits, hand, 0).astype(np.int8)
        s.discard += self._value_counts(played)
        s.hands[ar, cp] = hand - played
        s.supply[ar, cp] -= 1  # a monkey leaves the supply: onto the board or into the box

        # ---- 2. place one monkey ------------------------------------------------------
        place = actions != DISCARD_ACTION
        field = np.where(place, self.field_of_number[played.sum(1, dtype=np.intp)], -1)
        s.last_field[:] = field
        all_place = bool(place.all())
        if not all_place:
            s.box[ar[~place], cp[~place]] += 1
        pr = ar if all_place else ar[place]
        pc, pf = cp[pr], field[pr]
        s.counts[pr, pf, pc] += 1

        won = np.zeros(n, dtype=bool)
        if not self.solo:
            # ---- securing: count >= every other count + 2 ------------------------------
            m = pr.size
            mr = np.arange(m)
            fc = s.counts[pr, pf]  # (m, P)
            others = fc.copy()
            others[mr, pc] = -1
            sec = (s.owner[pr, pf] == -1) & (fc[mr, pc] >= others.max(1) + D.SECURE_MARGIN)
            if sec.any():
                sr, sf, sc = pr[sec], pf[sec], pc[sec]
                back = fc[sec]
                back[np.arange(sr.size), sc] = 0
                s.box[sr] += back
                s.counts[sr, sf] -= back
                s.owner[sr, sf] = sc
            # ---- a line of 4 (or a 2x2 square in the quick game) with the majority --------
            won[pr] = self._has_line(s.counts if all_place else s.counts[pr], s.owner if all_place else s.owner[pr], pc)
        else:
            done = (s.counts[pr][:, _INNER_MASK, 0] >= 1).all(1)
            won[pr] = done
            if done.any():
                wr = pr[done]
                towers = ((s.counts[wr, :, 0] >= 2) & _INNER_MASK) * self.field_number
                s.scores[wr, 0] = self.field_number[pf[done]] - towers.sum(1)

        # ---- 3. draw back up to 4 (nobody draws after a win) -----------------------------
        any_won = bool(won.any())
        self._draw(s, cp, bits & ~won[:, None] if any_won else bits)

        # ---- end of game / next player ------------------------------------------------
        # The mask is computed for every row first; rows that end below overwrite it (and
        # everything else _finish sets), so no row subset has to be cut out on the hot path.
        if self.solo:
            self._refresh(s)
            out = ~won & (s.supply[:, 0] == 0)
            if out.any():
                self._finish(s, ar[out], np.zeros((int(out.sum()), 1), dtype=bool), END_SOLO_ROUNDS)
        else:
            cand = (cp[:, None] + _OFFSETS[P][None, :]) % P  # seats after cp, cp itself last
            has = s.supply[ar[:, None], cand] > 0
            s.current_player[:] = cand[ar, has.argmax(1)]
            self._refresh(s)
            ended = ~won & ~has.any(1)
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

        Majorities are packed into a 36-bit board per row and tested against the window
        bitmasks, so the check is a handful of array operations whatever the batch size.
        """
        m = counts.shape[0]
        mine = counts[np.arange(m), :, seat]  # (m, 36)
        omax = np.full(mine.shape, -1, dtype=np.int8)
        for k in range(self.num_players):  # loop over seats, not envs
            np.maximum(omax, np.where((seat != k)[:, None], counts[:, :, k], -1), out=omax)
        majority = (mine > omax) | (owner == seat[:, None])
        buf = np.zeros((m, 8), dtype=np.uint8)
        buf[:, :5] = np.packbits(majority, axis=1, bitorder="little")
        board = buf.view(np.uint64)[:, 0]
        return ((board[:, None] & self.window_bits[None, :]) == self.window_bits[None, :]).any(1)

    @staticmethod
    def _value_counts(cards: np.ndarray) -> np.ndarray:
        """``(n, 20) int8`` counts of card values in ``cards (n, k)`` (0 = no card, not counted)."""
        n = cards.shape[0]
        idx = (np.arange(n)[:, None] * (D.MAX_CARD + 1) + cards).ravel()
        cnt = np.bincount(idx, minlength=n * (D.MAX_CARD + 1)).reshape(n, D.MAX_CARD + 1)
        cnt[:, 0] = 0
        return cnt.astype(np.int8)

    def _draw(self, s: MonkeyFunState, cp: np.ndarray, empty: np.ndarray) -> None:
        """Fill the ``empty (B, 4)`` slots of seat ``cp``'s hand from the top of the draw pile.

        When the pile runs out the discard pile (including the cards just played) is shuffled
        into a new pile under the cards left in the old one, which are drawn first.
        """
        n = s.batch_size
        ar = np.arange(n)
        need = empty.sum(1, dtype=np.intp)
        short = s.draw_size < need
        if short.any():
            self._reshuffle(s, ar[short])
        size = s.draw_size.astype(np.intp)
        rank = np.cumsum(empty, axis=1) - 1  # k-th empty slot takes the k-th card from the top
        pos = np.where(empty, size[:, None] - 1 - rank, 0)
        cards = s.draw_pile[ar[:, None], pos]
        hand = np.where(empty, cards, s.hands[ar, cp])
        hand.sort(axis=1)
        s.hands[ar, cp] = hand
        r, j = np.nonzero(empty)
        s.draw_pile[r, pos[r, j]] = 0
        s.draw_size -= need.astype(np.int8)

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
        ar = np.arange(B)
        sl = self.obs_layout.slices
        dim = self.obs_layout.size
        obs = np.zeros((B, dim), dtype=np.float32)
        hand = s.hands[ar, player]  # (B, 4)
        obs[:, sl["hand"]] = hand * np.float32(1 / D.MAX_CARD)
        rot = (player[:, None] + _SEATS[None, :P]) % P  # (B, P): absolute seat of each observer-first slot
        counts = obs[:, sl["counts"]].reshape(B, D.NUM_FIELDS, P)
        for r in range(P):  # rows observed by seat r see the seat axis rolled by r (a loop over seats)
            sel = player == r
            counts[sel] = np.roll(s.counts[sel], -r, axis=2) * np.float32(0.25)
        obs[:, sl["field_value"]] = self._field_value
        obs[:, sl["supply"]] = s.supply[ar[:, None], rot] * np.float32(1 / D.MONKEYS_PER_PLAYER)
        obs[:, sl["box"]] = s.box[ar[:, None], rot] * np.float32(1 / D.MONKEYS_PER_PLAYER)
        obs[:, sl["discard"]] = s.discard[:, 1:] * np.float32(0.25)
        obs[:, sl["draw_size"]] = s.draw_size[:, None] * np.float32(1 / D.NUM_CARDS)
        # one-hot pieces: one scatter of flat indices into the zeroed buffer
        flat = obs.reshape(-1)
        base = ar * dim
        sums = hand.astype(np.intp) @ _SUBSET_BITS_I.T
        field = self.field_of_number[np.where(_USES_EMPTY[_slot_pattern(hand)], 0, sums)]  # (B, 15)
        fr, fa = np.nonzero(field >= 0)
        hot = [base[fr] + (sl["action_field"].start + fa * D.NUM_FIELDS + field[fr, fa])]
        orow, ofield = np.nonzero(s.owner >= 0)
        rel = (s.owner[orow, ofield] - player[orow]) % P
        hot.append(base[orow] + (sl["owner"].start + ofield * P + rel))
        live = np.flatnonzero(s.current_player >= 0)
        hot.append(base[live] + (sl["to_move"].start + (s.current_player[live] - player[live]) % P))
        flat[np.concatenate(hot)] = 1.0
        if self.solo:
            c0 = s.counts[:, :, 0]
            obs[:, sl["solo"].start] = ((c0 >= 2) & _INNER_MASK).sum(1) * np.float32(1 / D.SOLO_MAX_TOWERS)
            obs[:, sl["solo"].start + 1] = (D.MONKEYS_PER_PLAYER - s.supply[:, 0]) * np.float32(1 / D.SOLO_ROUNDS)
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
