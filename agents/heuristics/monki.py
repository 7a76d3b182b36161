"""Monki heuristics, vectorised over the batch: ``cautious``, ``greedy`` and ``lookahead``.

All read only ``(obs, mask)`` through ``game.obs_layout.unflatten`` (plus the game's static
board tables), so they play from any seat and never see a face-down fruit. What they count:
the face-down tokens of each kind = the 40 tokens minus those on the player boards, on the
statues and lying face up (all public).

* **cautious** -- at the start of a turn skips when at most one ruby is left; otherwise moves to
  the cell with the best statue take for a ruby (worth it when the take is >= ``ruby_min``
  tokens) or, failing that, the most stacks in line of sight. While flipping it stops (passes)
  as soon as the chance that the next flip shows a fruit already face up -- over the face-down
  tokens of the colour of the best stack it could flip -- is above ``threshold``.
* **greedy** -- one-ply expected gain: each flip is worth ``P(no double) * (kept + P(new
  fruit fills a space)) - P(double) * kept``, a pass is worth the face-up fruits that fill
  spaces (``kept``), a ruby the tokens it takes (golden ones ``golden_weight``); it picks the
  best. Moves: like cautious, scoring each cell by the best of those values reachable from it.
* **lookahead** -- a search agent: expectimax over the flips of the whole turn (each flip's
  fruit drawn from the face-down tokens of the top's colour, every later flip-or-pass also by
  expectation), and moves to the cell whose best turn -- temple or ruby -- is worth most
  (:class:`LookaheadMonki`; a compiled kernel, :func:`_flip_kernel`).

Deterministic (ties: lowest action), batch-invariant. Measured (``python -m agents.arena --game
monki --agents random cautious greedy --games 2004 --seed 0``): cautious finishes ahead of random
in 0.799 of their games, greedy in 0.789; cautious ahead of greedy in 0.506. With lookahead
(``--agents random cautious greedy lookahead --games 12000 --seed 0``, 2,000 games a pair):
lookahead ahead of random in 0.968, of cautious in 0.814, of greedy in 0.825
(``docs/evidence/monki_ceiling/arena/``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.base import argmax_legal
from agents.registry import register_agent, register_features
from monkey_envs.monki import data as D
from monkey_envs.monki.rules import Monki
from monkey_envs.monki.state import PHASE_START


class _MonkiView:
    """What both heuristics read from a batch of observations."""

    def __init__(self, game: Monki, obs: np.ndarray) -> None:
        o = game.obs_layout.unflatten(np.asarray(obs, np.float32))
        B = obs.shape[0]
        self.B = B
        self.boards = np.rint(o["boards"]).astype(np.int64)  # (B, 2, 16)
        self.rubies = o["rubies"] > 0.5  # (B, 2, 4)
        mk = o["monki"]  # (B, 2, N)
        self.pos = np.where(mk.any(2), mk.argmax(2), -1)
        stk = o["stacks"]  # (B, 12, 8)
        self.height = np.rint(stk[:, :, 0] * D.STACK_DEPTH).astype(np.int64)
        self.top_colour = np.where(stk[:, :, 2] > 0.5, 1, 0)
        self.face_up = stk[:, :, 3] > 0.5
        up_kind = np.zeros((B, D.NUM_KINDS), np.int64)
        fr = stk[:, :, 4:].argmax(2)
        kinds = self.top_colour * 8 + fr
        np.add.at(up_kind, (np.arange(B)[:, None], np.where(self.face_up, kinds, 0)), self.face_up.astype(np.int64))
        self.statues = np.rint(o["statues"] * 4).astype(np.int64)  # (B, 4, 16)
        self.flipped = o["flipped"] > 0.5  # (B, 4)
        visible = self.boards.sum(1) + self.statues.sum(1) + up_kind
        self.down = np.maximum(D.KIND_TOTAL[None] - visible, 0)  # (B, 16) face-down per kind
        # own empty spaces: (B, 12) slots
        # kind k = colour * 8 + fruit (regular) or colour * 8 + 4 + fruit (golden): its board space
        kind_slot = np.where(
            np.arange(16) % 8 >= 4, 8 + np.arange(16) % 4, (np.arange(16) // 8) * 4 + np.arange(16) % 4
        )
        own_slots = np.zeros((B, D.NUM_SLOTS), np.int64)
        np.add.at(own_slots, (np.arange(B)[:, None], kind_slot[None].repeat(B, 0)), self.boards[:, 0])
        self.empty = own_slots == 0
        self.kind_slot = kind_slot

    def p_double(self, colour: np.ndarray) -> np.ndarray:
        """``(B, S)``: chance that a face-down token of ``colour (B, S)`` shows a fruit already face up."""
        B = self.B
        down = self.down.reshape(B, 2, 8)[np.arange(B)[:, None], colour]  # (B, S, 8)
        total = down.sum(2)
        dup = (down[:, :, :4] * self.flipped[:, None, :]).sum(2)
        return np.where(total > 0, dup / np.maximum(total, 1), 0.0)

    def p_useful(self, colour: np.ndarray) -> np.ndarray:
        """``(B, S)``: chance that a face-down token of ``colour`` is a regular fruit filling an empty space."""
        B = self.B
        down = self.down.reshape(B, 2, 8)[np.arange(B)[:, None], colour]
        total = down.sum(2)
        slots = colour[:, :, None] * 4 + np.arange(4)[None, None]
        fill = self.empty[np.arange(B)[:, None, None], slots] & ~self.flipped[:, None, :]
        return np.where(total > 0, (down[:, :, :4] * fill).sum(2) / np.maximum(total, 1), 0.0)

    def kept_now(self, game: Monki, obs: np.ndarray) -> np.ndarray:
        """``(B,)`` face-up fruits that a pass would keep."""
        o = game.obs_layout.unflatten(np.asarray(obs, np.float32))["stacks"]
        slots = self.top_colour * 4 + o[:, :, 4:].argmax(2)
        return (self.face_up & self.empty[np.arange(self.B)[:, None], slots]).sum(1)

    def ruby_value(self, board: np.ndarray, golden_weight: float) -> np.ndarray:
        """``(B, 4)`` value of each own usable ruby on the statue of ``board (B,)`` (-1: no board)."""
        B = self.B
        st = self.statues[np.arange(B), np.maximum(board, 0)]  # (B, 16)
        take = (st > 0) & self.empty[:, self.kind_slot]  # (B, 16)
        # two golden kinds share one slot: count the golden slot once
        val = np.zeros((B, 4))
        for f in range(4):
            reg = take[:, f].astype(float) + take[:, 8 + f]
            gold = (take[:, 4 + f] | take[:, 12 + f]) * golden_weight
            val[:, f] = reg + gold
        return np.where(self.rubies[:, 0] & (board >= 0)[:, None], val, 0.0)


class _MonkiAgent:
    name = "monki"

    def __init__(self, game: Monki, seed: int = 0, threshold: float = 0.25, golden_weight: float = 1.5) -> None:
        self.game = game
        self.threshold = threshold
        self.golden_weight = golden_weight
        self.ruby_min = 1.0

    def _flip_values(self, v: _MonkiView, obs: np.ndarray) -> np.ndarray:
        col = v.top_colour
        pd = v.p_double(col)
        pu = v.p_useful(col)
        kept = v.kept_now(self.game, obs)[:, None]
        return (1 - pd) * (kept + pu) - pd * kept

    def _move_scores(self, v: _MonkiView, mask: np.ndarray) -> np.ndarray:
        """``(B, N)`` score of moving to each cell: best ruby take there or the stacks in line."""
        g = self.game
        B, N = v.B, g.num_cells
        board = g.layout.cell_board  # (N,)
        ruby = np.zeros((B, N))
        for b in range(D.NUM_BOARDS):
            ruby[:, board == b] = v.ruby_value(np.full(B, b), self.golden_weight).max(1)[:, None]
        # stacks in line of sight from each cell, with the other Monki where it is
        cells = np.tile(np.arange(N), B)
        pos = np.stack([cells, np.repeat(v.pos[:, 1], N)], 1)
        pos[pos[:, 0] == pos[:, 1], 0] = -1
        h = np.repeat(v.height, N, axis=0)
        free = g.free_cells(h, np.stack([np.full(B * N, -1), pos[:, 1]], 1))
        seen = g.line_stacks(pos[:, 0], free, h).reshape(B, N, D.NUM_STACKS)
        return np.where(ruby >= self.ruby_min, 10 + ruby, seen.sum(2))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        g = self.game
        m = np.asarray(mask).astype(bool)
        N = g.num_cells
        v = _MonkiView(g, obs)
        scores = np.zeros(m.shape)
        # start: skip when at most one ruby is left and a ruby could help, else move
        scores[:, g.A_MOVE : g.A_SKIP] = self._move_scores(v, m)
        scores[:, g.A_SKIP] = np.where(v.rubies[:, 0].sum(1) <= 1, 100.0, -1.0)
        # placement: the most stacks in line
        scores[:, :N] = scores[:, g.A_MOVE : g.A_SKIP]
        board = np.where(v.pos[:, 0] >= 0, g.layout.cell_board[np.maximum(v.pos[:, 0], 0)], -1)
        ruby = v.ruby_value(board, self.golden_weight)
        flips = self._flip_values(v, obs)
        kept = v.kept_now(g, obs).astype(float)
        self._decide(v, scores, flips, kept, ruby)
        return argmax_legal(scores, m)

    def _decide(self, v: _MonkiView, scores: np.ndarray, flips: np.ndarray, kept: np.ndarray, ruby: np.ndarray) -> None:
        raise NotImplementedError


class CautiousMonki(_MonkiAgent):
    """Stops when the chance of a double on the next flip is above ``threshold``."""

    name = "cautious"

    def _decide(self, v: _MonkiView, scores: np.ndarray, flips: np.ndarray, kept: np.ndarray, ruby: np.ndarray) -> None:
        g = self.game
        pd = v.p_double(v.top_colour)  # (B, 12)
        safe = 1 - pd + v.p_useful(v.top_colour) * 0.01
        scores[:, g.A_FLIP : g.A_PASS] = np.where(pd > self.threshold, -1.0, 1.0 + safe)
        scores[:, g.A_PASS] = 0.5
        scores[:, g.A_RUBY :] = np.where(ruby >= self.ruby_min, 5.0 + ruby, 0.1)


class GreedyMonki(_MonkiAgent):
    """One-ply expected gain of each flip vs pass vs ruby."""

    name = "greedy"

    def _decide(self, v: _MonkiView, scores: np.ndarray, flips: np.ndarray, kept: np.ndarray, ruby: np.ndarray) -> None:
        g = self.game
        scores[:, g.A_FLIP : g.A_PASS] = flips
        scores[:, g.A_PASS] = kept
        scores[:, g.A_RUBY :] = ruby


# ---------------------------------------------------------------------------- lookahead
#: The lookahead's value of winning the game with a collection (on top of the tokens it takes).
WIN_VALUE = 100.0

# The lookahead kernels are cached on disk (``cache=True``): they compile in nothing but this
# file's own constants, and numba keys its cache on this file, so no stale cache can survive an
# edit (no ``drop_stale_cache`` needed). The search is an explicit stack, not recursion: numba's
# cache of a recursive function crashed (segfault) when a later process loaded it back.

# Fields of one frame of :func:`_best_turn`'s stack (a frame = one call of the recursive search):
# int64 ``iw[t]``: the stacks still flippable (bitmask), the face-up fruits (bitmask), the fruit
# kept so far, the stack being flipped, the outcome of that flip under way (0 golden, 1-4 the
# fruits, 5 all done), that stack's top colour and its colour's face-down total;
_AV, _FM, _K, _I, _ST, _C, _TOT = 0, 1, 2, 3, 4, 5, 6
# float64 ``fw[t]``: golden value sent to statues so far, best value, the expected value of the
# stack under way, the chance of the outcome being searched.
_GS, _BEST, _EV, _P = 0, 1, 2, 3


@njit(cache=True)
def _enter(iw, fw, t, avail, fm, k, gsum, need, can_pass):  # pragma: no cover - compiled
    """Start frame ``t`` of :func:`_best_turn`'s stack: a turn with these stacks, fruit and golden value."""
    iw[t, _AV] = avail
    iw[t, _FM] = fm
    iw[t, _K] = k
    iw[t, _I] = -1
    iw[t, _ST] = 5
    fw[t, _GS] = gsum
    best = -1e18
    if can_pass:
        best = k + gsum + (WIN_VALUE if k >= need else 0.0)
    fw[t, _BEST] = best


@njit(cache=True)
def _best_turn(avail, cols, ns, d, gold, useful, fm, k, gsum, need, gb, can_pass, iw, fw):  # pragma: no cover
    """Expectimax value of the rest of a temple turn (one row; see :func:`_flip_kernel`).

    The value is the best of a pass (when ``can_pass``) and, for each stack ``i < ns`` in
    ``avail``, the expected value of flipping it: over its fruit drawn from the face-down tokens
    of its colour ``cols[i]`` (``d (2, 4)``, ``gold (2,)``, restored on return), a golden one
    (``gsum + gb``, play on), a double (``gsum``: the fruit is lost) or a new fruit (play on with
    it face up, ``k + useful``). Every later choice is made the same way. ``iw (ns + 1, 7) int64``
    and ``fw (ns + 1, 4) float64`` are the workspace: one frame per flip of the turn, each doing
    what one call of a recursive search would, in the same order, so the result is the same
    float64 number.
    """
    # (np.int64 / np.bool_: one compiled signature of each kernel, not one per literal argument)
    t = np.int64(0)
    _enter(iw, fw, t, avail, fm, k, gsum, need, np.bool_(can_pass))
    ret = 0.0
    returning = False
    while True:
        c = iw[t, _C]
        tot = iw[t, _TOT]
        st = iw[t, _ST]
        if returning:  # the outcome ``st`` of frame t's flip came back with value ``ret``
            fw[t, _EV] += fw[t, _P] * ret
            if st == 0:
                gold[c] += 1
            else:
                d[c, st - 1] += 1
            st += 1
            returning = False
        # the next outcome of the flip under way that needs a search
        child = False
        while st <= 4:
            if st == 0:
                if gold[c] > 0:
                    fw[t, _P] = gold[c] / tot
                    gold[c] -= 1
                    child = True
                    break
            else:
                f = st - 1
                n = d[c, f]
                if n > 0:
                    p = n / tot
                    if (iw[t, _FM] >> f) & 1:
                        fw[t, _EV] += p * fw[t, _GS]  # a double: the turn's fruit is lost, the golden ones stay
                    else:
                        fw[t, _P] = p
                        d[c, f] -= 1
                        child = True
                        break
            st += 1
        iw[t, _ST] = st
        if child:
            na = iw[t, _AV] & ~(1 << iw[t, _I])
            if st == 0:
                _enter(iw, fw, t + 1, na, iw[t, _FM], iw[t, _K], fw[t, _GS] + gb, need, np.bool_(True))
            else:
                f = st - 1
                _enter(
                    iw, fw, t + 1, na, iw[t, _FM] | (1 << f), iw[t, _K] + useful[c, f], fw[t, _GS], need, np.bool_(True)
                )
            t += 1
            continue
        if iw[t, _I] >= 0 and fw[t, _EV] > fw[t, _BEST]:  # the flip under way is done
            fw[t, _BEST] = fw[t, _EV]
        # the next stack that can be flipped
        av = iw[t, _AV]
        i = iw[t, _I] + 1
        while i < ns:
            if (av >> i) & 1:
                c = cols[i]
                tot = d[c, 0] + d[c, 1] + d[c, 2] + d[c, 3] + gold[c]
                if tot > 0:
                    break
            i += 1
        if i < ns:
            iw[t, _I] = i
            iw[t, _C] = c
            iw[t, _TOT] = tot
            iw[t, _ST] = 0
            fw[t, _EV] = 0.0
            continue
        if t == 0:
            return fw[0, _BEST]
        ret = fw[t, _BEST]
        t -= 1
        returning = True


@njit(cache=True)
def _flip_kernel(avail, cols, d, gold, useful, fm, k, need, gb, can_pass, per_stack):  # pragma: no cover - compiled
    """Expectimax over the flips of one temple turn, row by row.

    Args:
        avail: ``(R, 12) bool`` stacks that may be flipped (in line of sight, not yet face up).
        cols: ``(R, 12) int64`` colour of each stack's top (0 green, 1 blue).
        d: ``(R, 2, 4) int64`` face-down regular tokens per colour and fruit; ``gold``: ``(R, 2)``
            face-down golden tokens per colour.
        useful: ``(R, 2, 4) int64`` 1 where that regular fruit fills an empty space.
        fm: ``(R,) int64`` bitmask of the fruits lying face up; ``k``: ``(R,)`` face-up fruits a
            pass would keep; ``need``: ``(R,)`` empty spaces of row 1 (a pass keeping that many wins).
        gb: value of a golden token sent to a statue; ``can_pass``: ``(R,) bool`` a pass is legal.
        per_stack: return the value of flipping each stack (``(R, 13)``, column 12 = pass) instead
            of the best value (column 0).

    Returns:
        ``(R, 13) float64``; ``-1e18`` where the action is not available. The face-down tokens are
        drawn without replacement from the colour's pool; a golden flip's stack counts as used
        (the token it uncovers is not looked at).
    """
    R = avail.shape[0]
    out = np.full((R, 13), -1e18)
    cl = np.zeros(12, np.int64)
    idx = np.zeros(12, np.int64)
    iw = np.zeros((13, 7), np.int64)  # _best_turn's stack: one frame per flip of a turn, plus the root
    fw = np.zeros((13, 4))
    yes = np.bool_(True)  # (typed bool, not a literal: one compiled signature of _best_turn)
    for r in range(R):
        ns = np.int64(0)
        for s in range(12):
            if avail[r, s]:
                cl[ns] = cols[r, s]
                idx[ns] = s
                ns += 1
        dd = d[r].copy()
        gg = gold[r].copy()
        if not per_stack:
            out[r, 0] = _best_turn(
                (1 << ns) - 1, cl, ns, dd, gg, useful[r], fm[r], k[r], 0.0, need[r], gb, can_pass[r], iw, fw
            )
            continue
        if can_pass[r]:
            out[r, 12] = k[r] + (WIN_VALUE if k[r] >= need[r] else 0.0)
        for i in range(ns):
            # value of flipping stack i first, then playing on over all stacks but i
            c = cl[i]
            tot = dd[c, 0] + dd[c, 1] + dd[c, 2] + dd[c, 3] + gg[c]
            if tot <= 0:
                continue
            na = ((1 << ns) - 1) & ~(1 << i)
            ev = 0.0
            if gg[c] > 0:
                p = gg[c] / tot
                gg[c] -= 1
                ev += p * _best_turn(na, cl, ns, dd, gg, useful[r], fm[r], k[r], gb, need[r], gb, yes, iw, fw)
                gg[c] += 1
            for f in range(4):
                n = dd[c, f]
                if n <= 0:
                    continue
                p = n / tot
                if (fm[r] >> f) & 1:
                    ev += 0.0
                else:
                    dd[c, f] -= 1
                    ev += p * _best_turn(
                        na,
                        cl,
                        ns,
                        dd,
                        gg,
                        useful[r],
                        fm[r] | (1 << f),
                        k[r] + useful[r, c, f],
                        0.0,
                        need[r],
                        gb,
                        yes,
                        iw,
                        fw,
                    )
                    dd[c, f] += 1
            out[r, idx[i]] = ev
    return out


class LookaheadMonki(_MonkiAgent):
    """Expectimax over the flips of a whole turn, from what the seat sees; moves by that value.

    Reads only ``(obs, mask)``. The face-down tokens of a colour are the 20 of that colour minus
    the ones in sight (player boards, statues, face-up tops), so the fruit under a top of that
    colour is a draw from them. Each flip's value is the expected fruit kept at the end of the
    turn when every later choice (flip which stack, or pass) is also made by expectation, over
    the stacks in line of sight (a double loses the turn's fruit; a golden flip puts the token on
    a statue, worth ``golden_bonus``; keeping the last empty spaces of row 1 wins,
    :data:`WIN_VALUE`). A ruby is worth the tokens it takes (golden ones ``golden_weight``, plus
    :data:`WIN_VALUE` if it completes a row). A move goes to the cell whose best turn (temple or
    ruby) is worth most; it skips (recharges) when no cell is worth ``skip_below`` and a ruby
    is spent. Deterministic (ties: lowest action), batch-invariant.
    """

    name = "lookahead"

    def __init__(
        self,
        game: Monki,
        seed: int = 0,
        golden_weight: float = 0.7,
        golden_bonus: float = 0.3,
        skip_below: float = 0.5,
    ) -> None:
        super().__init__(game, seed, golden_weight=golden_weight)
        self.golden_bonus = golden_bonus
        self.skip_below = skip_below

    def _pools(self, v: _MonkiView) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        down = v.down.reshape(v.B, 2, 8)
        d = np.ascontiguousarray(down[:, :, :4], dtype=np.int64)
        gold = np.ascontiguousarray(down[:, :, 4:].sum(2), dtype=np.int64)
        useful = np.ascontiguousarray(v.empty[:, :8].reshape(v.B, 2, 4), dtype=np.int64)
        need = v.empty[:, : D.ROW1_SLOTS].sum(1).astype(np.int64)
        return d, gold, useful, need

    def _ruby_best(self, v: _MonkiView, board: np.ndarray) -> np.ndarray:
        """``(B, 4)`` each usable ruby's value on the statue of ``board (B,)``, a completed row included."""
        B = v.B
        st = v.statues[np.arange(B), np.maximum(board, 0)]
        take = (st > 0) & v.empty[:, v.kind_slot]
        reg = take[:, :4].astype(np.int64) + take[:, 8:12]
        gold = (take[:, 4:8] | take[:, 12:16]).astype(np.int64)
        row1 = (~v.empty[:, : D.ROW1_SLOTS]).sum(1)[:, None]
        row2 = (~v.empty[:, D.ROW1_SLOTS :]).sum(1)[:, None]
        win = (row1 + reg >= D.ROW1_SLOTS) | (row2 + gold >= D.NUM_FRUITS)
        val = reg + self.golden_weight * gold + WIN_VALUE * win
        return np.where(v.rubies[:, 0] & (board >= 0)[:, None] & ((reg + gold) > 0), val, -np.inf)

    def _cell_values(self, v: _MonkiView, legal: np.ndarray) -> np.ndarray:
        """``(B, N)`` value of the best turn after moving to (or placing on) each ``legal (B, N)`` cell."""
        g = self.game
        B, N = v.B, g.num_cells
        rows, cells = np.nonzero(legal)
        out = np.full((B, N), -np.inf)
        if rows.size == 0:
            return out
        other = v.pos[rows, 1]
        h = v.height[rows]
        free = g.free_cells(h, np.stack([np.full(rows.size, -1), other], 1))
        seen = g.line_stacks(cells, free, h)  # (R, 12)
        # cells of one row that see the same stacks have the same temple value: compute it once
        key = rows * 4096 + (seen.astype(np.int64) << np.arange(D.NUM_STACKS)).sum(1)
        _, first, back = np.unique(key, return_index=True, return_inverse=True)
        r1 = rows[first]
        d, gold, useful, need = self._pools(v)
        temple = _flip_kernel(
            np.ascontiguousarray(seen[first]),
            np.ascontiguousarray(v.top_colour[r1].astype(np.int64)),
            np.ascontiguousarray(d[r1]),
            np.ascontiguousarray(gold[r1]),
            np.ascontiguousarray(useful[r1]),
            np.zeros(r1.size, np.int64),
            np.zeros(r1.size, np.int64),
            np.ascontiguousarray(need[r1]),
            self.golden_bonus,
            np.zeros(r1.size, bool),
            False,
        )[:, 0][back.ravel()]
        ruby = np.full((B, D.NUM_BOARDS), -np.inf)
        for b in range(D.NUM_BOARDS):
            ruby[:, b] = self._ruby_best(v, np.full(B, b)).max(1)
        board = g.layout.cell_board[cells]
        out[rows, cells] = np.maximum(temple, np.where(board >= 0, ruby[rows, np.maximum(board, 0)], -np.inf))
        return out

    def legal_from_obs(self, obs: np.ndarray) -> np.ndarray:
        """``(B, A) bool`` the legal actions, rebuilt from observations ``(B, D)`` alone.

        The rules' mask is a function of what the seat sees: the phase, both Monkis, the stack
        heights and face-up tops, the rubies and the statues (``tests/test_monki_lookahead.py``
        checks it against the game's mask). Rows of finished games come out as their phase says.
        """
        g = self.game
        o = g.obs_layout.unflatten(np.asarray(obs, np.float32))
        v = _MonkiView(g, obs)
        B, N = v.B, g.num_cells
        phase = o["phase"].argmax(1)
        live = o["phase"].max(1) > 0.5
        m = np.zeros((B, g.num_actions), bool)
        pos = v.pos.astype(np.int64)
        free = g.free_cells(v.height, pos)
        own = np.maximum(pos[:, 0], 0)
        place = live & (phase == 0)
        taken = np.zeros((B, N), bool)
        taken[np.arange(B), np.maximum(pos[:, 1], 0)] = pos[:, 1] >= 0
        m[:, :N] = place[:, None] & g._place_ok[None] & ~taken
        start = live & (phase == 1)
        m[:, g.A_MOVE : g.A_SKIP] = start[:, None] & g.move_targets(np.where(start, pos[:, 0], -1), free)
        m[:, g.A_SKIP] = start
        temple = live & ((phase == 2) | (phase == 3))
        sight = g.line_stacks(np.where(temple, pos[:, 0], -1), free, v.height)
        m[:, g.A_FLIP : g.A_PASS] = temple[:, None] & sight & ~v.face_up
        m[:, g.A_PASS] = live & (phase == 3)
        board = np.where(pos[:, 0] >= 0, g.layout.cell_board[own], -1)
        ruby = np.isfinite(self._ruby_best(v, board))
        m[:, g.A_RUBY :] = (live & (phase == 2))[:, None] & ruby
        return m

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask).astype(bool))

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, A) float64`` the agent's value of each action (``-1e18``: not considered); it plays the
        best legal one. Skip: ``1e9`` when it recharges, ``-1e17`` when not."""
        g = self.game
        m = np.asarray(mask).astype(bool)
        N = g.num_cells
        v = _MonkiView(g, obs)
        scores = np.full(m.shape, -1e18)
        moving = m[:, g.A_MOVE : g.A_SKIP].any(1) | m[:, :N].any(1)
        if moving.any():
            idx = np.flatnonzero(moving)
            cv = self._cell_values(_MonkiView(g, np.asarray(obs)[idx]), m[idx, g.A_MOVE : g.A_SKIP] | m[idx, :N])
            scores[idx, g.A_MOVE : g.A_SKIP] = cv
            scores[idx, :N] = cv
            spent = ~v.rubies[idx, 0].all(1)
            scores[idx, g.A_SKIP] = np.where(spent & (cv.max(1) < self.skip_below), 1e9, -1e17)
        collecting = m[:, g.A_FLIP : g.A_PASS].any(1) | m[:, g.A_RUBY :].any(1)
        if collecting.any():
            idx = np.flatnonzero(collecting)
            d, gold, useful, need = self._pools(v)
            fm = (v.flipped[idx].astype(np.int64) << np.arange(4)).sum(1)
            kept = v.kept_now(g, obs)[idx].astype(np.int64)
            fv = _flip_kernel(
                np.ascontiguousarray(m[idx, g.A_FLIP : g.A_PASS]),
                np.ascontiguousarray(v.top_colour[idx].astype(np.int64)),
                np.ascontiguousarray(d[idx]),
                np.ascontiguousarray(gold[idx]),
                np.ascontiguousarray(useful[idx]),
                fm,
                kept,
                np.ascontiguousarray(need[idx]),
                self.golden_bonus,
                np.ascontiguousarray(m[idx, g.A_PASS]),
                True,
            )
            scores[idx, g.A_FLIP : g.A_PASS + 1] = fv
            board = np.where(v.pos[:, 0] >= 0, g.layout.cell_board[np.maximum(v.pos[:, 0], 0)], -1)
            scores[idx, g.A_RUBY :] = self._ruby_best(v, board)[idx]
        return scores


def make_lookahead(game: Any, seed: int = 0) -> LookaheadMonki:
    """Registry factory for ``make_agent("lookahead", game, seed)``."""
    return LookaheadMonki(game, seed)


def make_cautious(game: Any, seed: int = 0) -> CautiousMonki:
    """Registry factory for ``make_agent("cautious", game, seed)``."""
    return CautiousMonki(game, seed)


def make_greedy(game: Any, seed: int = 0) -> GreedyMonki:
    """Registry factory for ``make_agent("greedy", game, seed)``."""
    return GreedyMonki(game, seed)


register_agent("cautious", make_cautious, game="monki")
register_agent("greedy", make_greedy, game="monki")
register_agent("lookahead", make_lookahead, game="monki")
register_features("lookahead", "agents.heuristics.monki_features:LookaheadFeatures", game="monki")

__all__ = ["CautiousMonki", "GreedyMonki", "LookaheadMonki"]


# ====================================================================== the search agent
#: Weights of :func:`search_evaluation`'s logit (seat 0's view; the row-1 fruits, their squares, the
#: golden fruits, their squares, and +1 / -1 for seat 0 / seat 1 to move). Fitted by logistic
#: regression on 35,124 positions of 1,500 ``lookahead`` self-play games (every second decision;
#: docs/agents.md#the-search-agent-mcts), rounded.
EVAL_WEIGHTS = (0.18, 0.056, -0.28, 0.12, 0.38)


def search_evaluation(game: Monki, state: Any) -> np.ndarray:
    """The search's value of running positions (``mcts`` with ``evaluation=game``).

    A logistic model of the chance to win from the fruits on the two player boards (row 1 and the
    golden row 2) and the seat to move: ``sigmoid(w . (x_0 - x_1))`` for seat 0, the rest for
    seat 1. It reads only the player boards and the seat to move, which both seats see.

    Args:
        game: the Monki game.
        state: ``k`` running rows.

    Returns:
        ``(k, 2) float64`` each seat's value in ``[0, 1]`` (the two sum to 1).
    """
    owner = np.asarray(state.owner)
    row1 = D.TOKEN_SLOT < D.ROW1_SLOTS
    r1 = np.stack([((owner == p) & row1).sum(1) for p in (0, 1)], 1).astype(np.float64)  # (k, 2)
    r2 = np.stack([((owner == p) & ~row1).sum(1) for p in (0, 1)], 1).astype(np.float64)
    w = EVAL_WEIGHTS
    to_move = np.where(np.asarray(state.current_player) == 0, 1.0, -1.0)
    feats = (r1, r1**2, r2, r2**2)  # each (k, 2): its seat-0-minus-seat-1 difference enters the logit
    logit = w[4] * to_move
    for weight, x in zip(w[:4], feats, strict=True):
        logit = logit + weight * (x[:, 0] - x[:, 1])
    p0 = 1.0 / (1.0 + np.exp(-logit))
    return np.stack([p0, 1.0 - p0], 1)


#: The phases whose decisions the search agent searches (``focus=game``): the start of a turn
#: (skip, or where to move). The flips of a turn are left to ``lookahead``, whose expectimax over
#: the turn's flips is exact (sampled play-outs only add noise there: docs/agents.md).
SEARCH_PHASES = (PHASE_START,)


def search_focus(game: Monki, state: Any) -> np.ndarray:
    """``(n,) bool``: the rows whose decision the search agent searches (``focus=game``), by phase."""
    return np.isin(np.asarray(state.phase), SEARCH_PHASES)


def _register_search() -> None:
    """``mcts`` with this game's default budget (:mod:`agents.search`; sized for a 2,000-game arena in 30 min).

    The start of a turn is searched (sequential halving, ``lookahead``'s move first, play-outs of 20
    decisions valued by :func:`search_evaluation`); ``lookahead`` plays the flips. It beat
    ``lookahead`` 0.538 [0.517, 0.560] in 2,000 games; at 128 simulations 0.521 [0.500, 0.543]
    (docs/agents.md, "The search agent").
    """
    from agents.search import register_search_agent, register_search_evaluation, register_search_focus

    register_search_evaluation("monki", search_evaluation)
    register_search_focus("monki", search_focus)
    register_search_agent(
        "monki",
        simulations=256,
        determinizations=8,
        rollout="random",
        prior="lookahead",
        focus="game",
        root="halving",
        max_rollout_depth=20,
        evaluation="game",
    )


_register_search()
