"""A frozen copy of Monki's numpy rules from before the compiled core: the test oracle.

:class:`NumpyMonki` is :class:`~monkey_envs.monki.Monki` with the numpy geometry, mask, init, step
and observation that ``monkey_envs/monki/rules.py`` had before its rules moved into numba kernels
(``monkey_envs/monki/kernels.py``). ``tests/test_monki_compiled.py`` plays both over random batches
and asserts the states, masks and observations are bit-identical. Not imported by the package.

The kernels and the recorded playthroughs are the truth about the rules; this oracle is a second,
independently written account that catches a kernel edit changing play by accident. After a
deliberate rules change: change the kernels, re-record the playthroughs that change and make the
same change here, in the same commit, naming the rule (the equivalence test then passes again). A
change that only this file needs is a bug in this file.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from monkey_envs.core.game import end_games
from monkey_envs.core.rng import draw_below, shuffle_prefix
from monkey_envs.monki import Monki
from monkey_envs.monki import data as D
from monkey_envs.monki.state import (
    END_FRUITS,
    END_GOLDEN,
    END_TURN_CAP,
    PHASE_COLLECT,
    PHASE_FLIPPING,
    PHASE_PLACE,
    PHASE_START,
    PHASES,
    STAT_NAMES,
    MonkiState,
)

_ST = {n: i for i, n in enumerate(STAT_NAMES)}
_SLOT_1H = np.eye(D.NUM_SLOTS, dtype=np.int64)[D.TOKEN_SLOT]
_KIND_1H = np.eye(D.NUM_KINDS, dtype=np.int64)[D.TOKEN_KIND]
_SLOT_TOKENS = [np.flatnonzero(D.TOKEN_SLOT == k) for k in range(D.NUM_SLOTS)]


class NumpyMonki(Monki):
    """Monki stepped by the old numpy rules (the non-fused ``Game.step`` path)."""

    fused_step: ClassVar[bool] = False

    def heights(self, stacks: np.ndarray) -> np.ndarray:
        """``(B, 12) int64`` tokens in each stack."""
        return (stacks >= 0).sum(-1)

    def free_cells(self, heights: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """``(B, N) bool`` board cells with no token and no Monki (``heights (B, 12)``, ``pos (B, 2)``)."""
        B = heights.shape[0]
        occ = np.zeros((B, self.num_cells), bool)
        occ[:, self.layout.stack_cell] = heights > 0
        for p in range(2):
            placed = np.flatnonzero(pos[:, p] >= 0)
            occ[placed, pos[placed, p]] = True
        return self.is_board[None] & ~occ

    def _rays(self, origin: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ray cells ``(B, 8, L)`` from ``origin (B,)`` and whether each is reached over free cells."""
        B = origin.shape[0]
        cells = self.layout.rays[np.maximum(origin, 0)]  # (B, 8, L)
        valid = cells >= 0
        f = valid & free[np.arange(B)[:, None, None], np.maximum(cells, 0)]
        reach = np.cumprod(f, axis=2).astype(bool) & (origin >= 0)[:, None, None]
        return cells, reach

    def move_targets(self, origin: np.ndarray, free: np.ndarray) -> np.ndarray:
        """``(B, N) bool`` cells a queen move from ``origin (B,)`` reaches over ``free (B, N)`` cells."""
        B = origin.shape[0]
        cells, reach = self._rays(origin, free)
        out = np.zeros((B, self.num_cells + 1), bool)
        idx = np.where(reach, cells, self.num_cells)
        out[np.arange(B)[:, None, None], idx] = True
        return out[:, : self.num_cells]

    def line_stacks(self, origin: np.ndarray, free: np.ndarray, heights: np.ndarray) -> np.ndarray:
        """``(B, 12) bool`` non-empty stacks first met along a row or column from ``origin (B,)``."""
        B = origin.shape[0]
        cells, reach = self._rays(origin, free)
        out = np.zeros((B, D.NUM_STACKS + 1), bool)
        L = cells.shape[2]
        for k in D.Layout.ORTHO:
            j = reach[:, k].sum(1)  # index of the first cell not reached
            inside = j < L
            cell = np.where(inside, cells[np.arange(B), k, np.minimum(j, L - 1)], -1)
            st = np.where(cell >= 0, self.layout.cell_stack[np.maximum(cell, 0)], -1)
            ok = (origin >= 0) & (st >= 0)
            ok &= heights[np.arange(B), np.maximum(st, 0)] > 0
            out[np.arange(B), np.where(ok, st, D.NUM_STACKS)] = True
        return out[:, : D.NUM_STACKS]

    def filled_slots(self, owner: np.ndarray) -> np.ndarray:
        """``(B, 2, 12) int64`` tokens on each player-board space (0 or 1 in a valid state)."""
        return (owner[:, None, :] == np.arange(2)[None, :, None]).astype(np.int64) @ _SLOT_1H

    def ruby_takes(self, s: MonkiState, seat: np.ndarray) -> np.ndarray:
        """``(B, 4, 40) bool``: tokens each ruby of ``seat (B,)`` would take now (statue of its board)."""
        B = s.batch_size
        cell = s.pos[np.arange(B), seat]
        board = np.where(cell >= 0, self.layout.cell_board[np.maximum(cell, 0)], -1)
        on = (s.statue == board[:, None]) & (board >= 0)[:, None]  # (B, 40)
        filled = self.filled_slots(s.owner)[np.arange(B), seat]  # (B, 12)
        out = np.zeros((B, D.NUM_FRUITS, D.NUM_TOKENS), bool)
        for k, ids in enumerate(_SLOT_TOKENS):
            c = on[:, ids] & (filled[:, k] == 0)[:, None]
            first = c.argmax(1)
            has = c.any(1)
            rows = np.flatnonzero(has)
            tok = ids[first[rows]]
            out[rows, D.TOKEN_FRUIT[tok], tok] = True
        return out

    # ================================================================== mask
    def rules_mask(self, s: MonkiState) -> np.ndarray:
        """``(B, A) bool`` legal actions of the seat to move by the rules (finished rows: none)."""
        B = s.batch_size
        N = self.num_cells
        mask = np.zeros((B, self.num_actions), bool)
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        live = ~(s.terminated | s.truncated)
        ph = s.phase
        h = self.heights(s.stacks)
        pos = s.pos.astype(np.int64)
        free = self.free_cells(h, pos)
        me = pos[np.arange(B), cp]
        other = pos[np.arange(B), 1 - cp]
        place = self._place_ok[None] & (np.arange(N)[None] != other[:, None])
        mask[:, :N] = place & (live & (ph == PHASE_PLACE))[:, None]
        start = live & (ph == PHASE_START)
        mask[:, N : 2 * N] = self.move_targets(np.where(start, me, -1), free)
        mask[:, self.A_SKIP] = start
        flipping = live & ((ph == PHASE_COLLECT) | (ph == PHASE_FLIPPING))
        fl = self.line_stacks(np.where(flipping, me, -1), free, h) & ~s.face_up
        mask[:, self.A_FLIP : self.A_FLIP + D.NUM_STACKS] = fl
        mask[:, self.A_PASS] = live & (ph == PHASE_FLIPPING)
        collect = live & (ph == PHASE_COLLECT)
        if collect.any():
            takes = self.ruby_takes(s, cp).any(2) & s.rubies[np.arange(B), cp]
            mask[:, self.A_RUBY :] = takes & collect[:, None]
        return mask

    def _init(self, s: MonkiState, seeds: np.ndarray) -> None:
        B = seeds.shape[0]
        rows = np.arange(B)
        deck = shuffle_prefix(
            s.rng, rows, np.tile(np.arange(D.NUM_TOKENS, dtype=np.int8), (B, 1)), np.full(B, D.NUM_TOKENS)
        )
        s.stacks[:] = deck[:, :36].reshape(B, D.NUM_STACKS, D.STACK_DEPTH)
        for b in range(D.NUM_BOARDS):  # DECISIONS deal order: pots first, then one per statue
            s.statue[rows, deck[:, 36 + b]] = b
        sp = draw_below(s.rng, rows, 2).astype(np.int8)
        s.start_player[:] = sp
        s.current_player[:] = sp
        s.legal_action_mask[:] = self.rules_mask(s)

    def _step(self, s: MonkiState, actions: np.ndarray, live: np.ndarray) -> None:
        B = s.batch_size
        N = self.num_cells
        cp = s.current_player.astype(np.int64)
        a = actions
        L = self.layout
        ended_turn = np.zeros(B, bool)
        collected = np.zeros(B, bool)

        # placement: the other seat places next, or (both placed) the start player starts
        r = np.flatnonzero(a < N)
        if r.size:
            s.pos[r, cp[r]] = a[r]
            both = (s.pos[r] >= 0).all(1)
            s.phase[r[both]] = PHASE_START
            s.current_player[r] = 1 - cp[r]
        # move
        r = np.flatnonzero((a >= N) & (a < 2 * N))
        if r.size:
            s.pos[r, cp[r]] = a[r] - N
            s.phase[r] = PHASE_COLLECT
        # skip
        r = np.flatnonzero(a == self.A_SKIP)
        if r.size:
            s.rubies[r, cp[r]] = True
            s.stats[r, cp[r], _ST["skips"]] += 1
            ended_turn[r] = True
        # flip
        r = np.flatnonzero((a >= self.A_FLIP) & (a < self.A_PASS))
        if r.size:
            st = a[r] - self.A_FLIP
            h = self.heights(s.stacks[r])[np.arange(r.size), st]
            tok = s.stacks[r, st, h - 1].astype(np.int64)
            first = s.phase[r] == PHASE_COLLECT
            s.stats[r[first], cp[r[first]], _ST["temple_visits"]] += 1
            s.stats[r, cp[r], _ST["flips"]] += 1
            s.phase[r] = PHASE_FLIPPING
            gold = D.TOKEN_GOLDEN[tok]
            g = r[gold]
            if g.size:
                s.stacks[g, st[gold], h[gold] - 1] = -1
                s.statue[g, tok[gold]] = L.stack_board[st[gold]]
                s.stats[g, cp[g], _ST["golden_flips"]] += 1
            n = ~gold
            rn, stn, tn = r[n], st[n], tok[n]
            if rn.size:
                up_fruits = self._face_up_fruits(s, rn)  # (n, 4)
                bust = up_fruits[np.arange(rn.size), D.TOKEN_FRUIT[tn]]
                s.face_up[rn, stn] = True
                rb = rn[bust]
                if rb.size:
                    self._clear_face_up(s, rb, cp[rb], keep=False)
                    s.stats[rb, cp[rb], _ST["busts"]] += 1
                    ended_turn[rb] = True
        # pass
        r = np.flatnonzero(a == self.A_PASS)
        if r.size:
            self._clear_face_up(s, r, cp[r], keep=True)
            s.stats[r, cp[r], _ST["passes"]] += 1
            ended_turn[r] = True
            collected[r] = True
        # ruby
        r = np.flatnonzero(a >= self.A_RUBY)
        if r.size:
            f = a[r] - self.A_RUBY
            sub = s.take(r)
            take = self.ruby_takes(sub, cp[r])[np.arange(r.size), f]  # (n, 40)
            rr, tt = np.nonzero(take)
            s.owner[r[rr], tt] = cp[r[rr]]
            s.statue[r[rr], tt] = -1
            s.rubies[r, cp[r], f] = False
            s.stats[r, cp[r], _ST["ruby_uses"]] += 1
            s.stats[r, cp[r], _ST["kept"]] += take.sum(1).astype(np.int32)
            ended_turn[r] = True
            collected[r] = True

        # a move after which nothing can be collected ends the turn by itself
        s.legal_action_mask[:] = self.rules_mask(s)
        stuck = (s.phase == PHASE_COLLECT) & ~s.legal_action_mask.any(1) & ~ended_turn
        ended_turn |= stuck

        # wins (checked after every collection), then the turn ends
        won = np.zeros(B, bool)
        reason = np.zeros(B, np.int64)
        rc = np.flatnonzero(collected)
        if rc.size:
            filled = self.filled_slots(s.owner[rc])[np.arange(rc.size), cp[rc]]  # (n, 12)
            row1 = (filled[:, : D.ROW1_SLOTS] > 0).all(1)
            row2 = (filled[:, D.ROW1_SLOTS :] > 0).all(1)
            won[rc] = row1 | row2
            reason[rc] = np.where(row1, END_FRUITS, END_GOLDEN)
        re = np.flatnonzero(ended_turn)
        if re.size:
            s.turns[re] += 1
            s.face_up[re] = False
            s.phase[re] = PHASE_START
            s.current_player[re] = 1 - cp[re]
            s.legal_action_mask[re] = self.rules_mask(s.take(re))
        for code in (END_FRUITS, END_GOLDEN):
            w = np.flatnonzero(won & (reason == code))
            if w.size:
                winners = np.zeros((w.size, 2), bool)
                winners[np.arange(w.size), cp[w]] = True
                end_games(s, w, winners, code, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))
        cap = np.flatnonzero(ended_turn & ~won & (s.turns >= self.turn_cap))
        if cap.size:
            end_games(s, cap, np.zeros((cap.size, 2), bool), END_TURN_CAP, (D.REWARD_DRAW,) * 3)

    def _face_up_fruits(self, s: MonkiState, r: np.ndarray) -> np.ndarray:
        """``(n, 4) bool`` fruits lying face up in rows ``r``."""
        h = self.heights(s.stacks[r])
        top = np.take_along_axis(s.stacks[r], np.maximum(h - 1, 0)[:, :, None], 2)[:, :, 0].astype(np.int64)
        up = s.face_up[r] & (h > 0)
        out = np.zeros((r.size, D.NUM_FRUITS + 1), bool)
        out[np.arange(r.size)[:, None], np.where(up, D.TOKEN_FRUIT[np.maximum(top, 0)], D.NUM_FRUITS)] = True
        return out[:, : D.NUM_FRUITS]

    def _clear_face_up(self, s: MonkiState, r: np.ndarray, seat: np.ndarray, keep: bool) -> None:
        """Take every face-up top of rows ``r`` off its stack: to ``seat``'s board when ``keep`` and its
        space is empty, else to the statue of the board where it lay."""
        filled = self.filled_slots(s.owner[r])[np.arange(r.size), seat] > 0  # (n, 12)
        for st in range(D.NUM_STACKS):
            m = s.face_up[r, st]
            if not m.any():
                continue
            rr = r[m]
            h = self.heights(s.stacks[rr, st][:, None, :])[:, 0]
            tok = s.stacks[rr, st, h - 1].astype(np.int64)
            s.stacks[rr, st, h - 1] = -1
            to_me = filled[m, D.TOKEN_SLOT[tok]] == 0 if keep else np.zeros(rr.size, bool)
            s.owner[rr[to_me], tok[to_me]] = seat[m][to_me]
            s.stats[rr[to_me], seat[m][to_me], _ST["kept"]] += 1
            s.statue[rr[~to_me], tok[~to_me]] = self.layout.stack_board[st]
            s.face_up[rr, st] = False

    def _observe(self, s: MonkiState, player: np.ndarray) -> np.ndarray:
        B = s.batch_size
        rows = np.arange(B)
        N = self.num_cells
        seats = np.stack([player, 1 - player], 1)  # (B, 2) observer first
        parts = []
        own = (s.owner[:, None, :] == seats[:, :, None]).astype(np.int64) @ _KIND_1H  # (B, 2, 16)
        parts.append(own.reshape(B, -1))
        parts.append(s.rubies[rows[:, None], seats].reshape(B, -1))
        monki = np.zeros((B, 2, N + 1), np.float32)
        p = s.pos[rows[:, None], seats].astype(np.int64)
        monki[rows[:, None], np.arange(2)[None], np.where(p >= 0, p, N)] = 1
        parts.append(monki[:, :, :N].reshape(B, -1))
        h = self.heights(s.stacks)
        top = np.take_along_axis(s.stacks, np.maximum(h - 1, 0)[:, :, None], 2)[:, :, 0].astype(np.int64)
        has = h > 0
        t0 = np.maximum(top, 0)
        st = np.zeros((B, D.NUM_STACKS, 8), np.float32)
        st[:, :, 0] = h / D.STACK_DEPTH
        st[:, :, 1] = has & (D.TOKEN_COLOUR[t0] == 0)
        st[:, :, 2] = has & (D.TOKEN_COLOUR[t0] == 1)
        up = has & s.face_up
        st[:, :, 3] = up
        fr = np.eye(D.NUM_FRUITS, dtype=np.float32)[D.TOKEN_FRUIT[t0]] * up[:, :, None]
        st[:, :, 4:] = fr
        parts.append(st.reshape(B, -1))
        on = (s.statue[:, None, :] == np.arange(D.NUM_BOARDS)[None, :, None]).astype(np.int64) @ _KIND_1H
        parts.append(on.reshape(B, -1) / 4)
        parts.append(fr.max(1))
        parts.append(np.eye(len(PHASES), dtype=np.float32)[np.clip(s.phase, 0, len(PHASES) - 1)])
        cp = s.current_player.astype(np.int64)
        parts.append(np.stack([(cp == player) & (cp >= 0), (cp == 1 - player) & (cp >= 0)], 1))
        parts.append(np.minimum(s.turns / self.turn_cap, 1.0)[:, None])
        parts.append(np.broadcast_to(self._cells_obs, (B, self._cells_obs.size)))
        return np.concatenate([np.asarray(x, np.float32) for x in parts], 1)
