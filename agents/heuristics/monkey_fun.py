"""A greedy one-ply heuristic for Monkey Fun, vectorised over the batch.

The agent reads only ``(obs, mask)`` -- observations by name through
``game.obs_layout.unflatten`` -- so it plays from any seat of any batch, inside the SB3 VecEnv,
the gymnasium envs or the evaluator, and never sees hidden cards.

Strategy (normal and quick game)
--------------------------------
Every subset action ``a`` places one monkey on the field ``f_a`` it targets (the
``action_field`` piece). For each distinct legal target field the agent builds the board
*after* that placement (including securing: +2 over everyone takes the field and boxes the
others' monkeys) and scores it with the weights of :class:`GreedyWeights`, most important first:

1. **Win now** (``win``) -- the placement completes a line of 4 (or a 2x2 square in the quick
   game, from ``data.LINE_WINDOWS`` / ``data.SQUARE_WINDOWS`` and ``game.variant``) on which
   we hold the majority everywhere.
2. **Block** (``block``) -- for every opponent, the *immediate-win fields*: the missing field of
   a window where that opponent already holds 3 majorities and one more monkey would give the
   4th. Their danger is the chance that a random 4-card hand hits one of those field numbers
   (:func:`hit_probability`, exact over the deck); the placement that leaves the least danger
   wins. Raising our count on the missing field, breaking a tied majority, or securing all block.
3. **Threaten** (``threat``) -- our own immediate-win fields after the move, scored the same way:
   two separate threats (a fork) are worth more than one.
4. **Shape** (``line_weights``, ``opp_shape``) -- over every window still alive for a seat (no
   field secured by someone else), a weight for the number of majorities in it; ours minus
   the best opponent's.
5. **Secure** (``secure``) -- per field we own (owned fields can never be lost or blocked).
6. **End scoring** (``material``) -- the numbers of the fields where we hold the majority minus
   the best opponent's, weighted by how far the game has progressed (our supply used up).
7. **Keep a flexible hand** (``flex``, ``cards``) -- tie-breaks: prefer actions whose remaining
   cards reach more distinct field numbers, then playing fewer cards; remaining ties go to the
   lowest action index. The agent is deterministic and decides each row from that row alone, so
   a row's move never depends on the batch or on a seed (batch-invariant games in every face).

Strategy (solo variant)
-----------------------
The mask already forces a free inner field when one is reachable. Among free fields the agent
takes hard-to-hit numbers first (``solo_hard``, with a slight preference for low numbers so high
ones are left for the completing placement, ``solo_number``) and plays more cards
(``solo_cards``: cycling the deck keeps the hand fresh -- measured, it more than doubles the win
rate). When only minus towers are possible it extends an existing tower (no new minus points)
before opening a new one on the lowest number (``solo_new_tower``).

Implementation (cost per row)
-----------------------------
The reference is numpy over the whole batch, with no loop over rows (:meth:`GreedyMonkeyFun.scores_numpy`,
described here); the agent scores the normal and quick games with integer line weights by compiled
row loops that return the same scores bit for bit (:mod:`agents.heuristics.monkey_fun_kernels`:
about 3.5 us a row against the numpy code's ~10 us and ~1 ms a call). Per row the agent builds
the 12-bit code of every window for every seat once (4 fields x the (majority, dead, one-more)
bits of :func:`field_facts`) and reads its shape value, "hot" flag, missing slot and "complete"
flag from one precomputed 4096-entry table. Per distinct (row, target field) it only rewrites the
target field's 3 bits in the codes of the (at most ``K``) windows through that field and reads
the table again. The immediate-win fields of every seat are kept as a 36-bit mask per
(placement, seat): the row's hot fields, minus those whose every hot window passes through the
target field, plus the hot fields of the rewritten windows. The chance of a set of hot fields is
summed exactly as a dense masked float32 sum over the 36 fields would be: directly for up to two
fields (the result of a sum with at most two non-zero terms does not depend on the order) and by
that very dense sum for the rare larger sets, so every score -- and every decision -- is
bit-identical to the straightforward dense evaluation. Shape values are summed as integers when
the line weights are integers (the default), otherwise as float64 in window order.

Measured (``play_games``, 600 seat-balanced games each): 2 players 99.8% wins vs random,
4 players 99.7% vs three random players; solo 67.5% completed squares (random play: 29.5%).
"""

from __future__ import annotations

import dataclasses
import itertools
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from agents.base import argmax_legal
from agents.heuristics import monkey_fun_kernels as KM
from agents.registry import register_agent, register_features
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.rules import NUM_SUBSETS, SUBSET_BITS


# ---------------------------------------------------------------- weights (documented above)
@dataclasses.dataclass(frozen=True)
class GreedyWeights:
    """Weights of the greedy evaluation (defaults tuned against random and against variants).

    Attributes:
        win: completing a winning line or square now.
        block: per unit of the chance that some opponent wins with their next placement.
        threat: per unit of our own chance to win with the next placement.
        line_weights: shape value of an alive window holding k = 0, 1, 2, 3 of our majorities.
        opp_shape: weight of the best opponent's shape (subtracted).
        secure: per field we own.
        material: per end-scoring point (our kept fields minus the best opponent's), times the
            share of our monkeys already placed.
        flex: per distinct field number the kept cards can still reach (tie-break).
        cards: per card played (negative: prefer fewer cards; tie-break).
        solo_hard: solo: per unit of "hard to hit" (1 - hit probability) of a free field.
        solo_number: solo: per field number of a free field (negative: keep high numbers for
            the completing placement).
        solo_cards: solo: per card played (cycling the deck keeps the hand fresh).
        solo_new_tower: solo: per field number of a new minus tower (negative).
    """

    win: float = 1e6
    block: float = 2000.0
    threat: float = 150.0
    line_weights: tuple[float, float, float, float] = (0.0, 1.0, 4.0, 12.0)
    opp_shape: float = 1.0
    secure: float = 6.0
    material: float = 1.0
    flex: float = 0.02
    cards: float = -0.005
    solo_hard: float = 2.0
    solo_number: float = -0.02
    solo_cards: float = 0.1
    solo_new_tower: float = -0.02


_MAX_SUM = D.HAND_SIZE * D.MAX_CARD


@lru_cache(maxsize=1)
def hit_probability() -> np.ndarray:
    """Chance that a random 4-card hand from the full deck can play to each sum.

    Exact, by enumerating every multiset of 4 card values weighted by how many ways the deck
    deals it.

    Returns:
        ``(77,) float64``: entry ``n`` is P(some non-empty subset of the hand sums to ``n``).
    """
    values = sorted(D.CARD_COUNTS)
    total = comb(D.NUM_CARDS, D.HAND_SIZE)
    prob = np.zeros(_MAX_SUM + 1)
    for hand in itertools.combinations_with_replacement(values, D.HAND_SIZE):
        weight = 1
        for v in set(hand):
            weight *= comb(D.CARD_COUNTS[v], hand.count(v))
        if weight == 0:
            continue
        sums = {sum(s) for k in range(1, D.HAND_SIZE + 1) for s in itertools.combinations(hand, k)}
        prob[list(sums)] += weight / total
    return prob


def _windows_of_fields(windows: np.ndarray) -> np.ndarray:
    """``(36, K) int64``: the windows containing each field, padded with -1."""
    lists = [np.flatnonzero((windows == f).any(1)) for f in range(D.NUM_FIELDS)]
    out = np.full((D.NUM_FIELDS, max(len(x) for x in lists)), -1, dtype=np.int64)
    for f, x in enumerate(lists):
        out[f, : len(x)] = x
    return out


def _facts(counts: np.ndarray, owner: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`field_facts` with the seats on ``axis`` (no sort: only the top count matters)."""
    top = counts.max(axis, keepdims=True)
    is_top = counts == top
    any_owner = owner.any(axis, keepdims=True)
    dead = any_owner & ~owner
    if counts.shape[axis] == 1:  # alone: the majority is any monkey, one more is enough from 0
        maj = owner | (top > 0)
        return maj, dead, ~dead & ~maj & (counts >= 0)
    unique = is_top.sum(axis, keepdims=True) == 1
    maj = owner | (is_top & unique & (top > 0))
    # a seat below the top can never win the field with one monkey; a tied top seat always can
    one_more = ~any_owner & is_top & (~unique | (top <= 0))
    return maj, dead, one_more


def field_facts(counts: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per field and seat: majority, dead, and "one more monkey takes the majority".

    Args:
        counts: ``(..., P) int`` monkeys per seat on a field.
        owner: ``(..., P) bool`` the seat secured the field.

    Returns:
        ``maj``: the seat owns the field or has strictly more monkeys than every other seat;
        ``dead``: another seat secured it (the seat can never take it);
        ``one_more``: not ``maj``, not ``dead``, and one more monkey would give the majority.
        All ``(..., P) bool``.
    """
    return _facts(counts, owner, -1)


def _fact_bits(maj: np.ndarray, dead: np.ndarray, one_more: np.ndarray) -> np.ndarray:
    """``int16`` per field and seat: ``maj | dead << 1 | one_more << 2`` (one slot of a window code)."""
    return (maj.view(np.uint8) | (dead.view(np.uint8) << 1) | (one_more.view(np.uint8) << 2)).astype(np.int16)


def window_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables over a window's code for one seat.

    A code packs, for each of the window's 4 fields (slot ``j`` at bits ``3 j``), the bits
    majority (1), dead (2) and one-more (4) of :func:`field_facts`.

    Returns:
        ``(4096,)`` arrays: ``k`` majorities in the window; ``alive`` no field dead;
        ``hot`` alive with 3 majorities and one more monkey on the 4th field wins it;
        ``slot`` the first slot without the majority (the missing field when ``hot``).
    """
    code = np.arange(4096)
    bits = (code[:, None] >> (3 * np.arange(4))[None, :]) & 7  # (4096, 4)
    maj, dead, one = bits & 1, (bits >> 1) & 1, (bits >> 2) & 1
    k = maj.sum(1)
    alive = dead.sum(1) == 0
    slot = np.argmin(maj, axis=1)
    hot = alive & (k == 3) & (one[np.arange(4096), slot] == 1)
    return k, alive, hot.astype(np.float64), slot


_WINDOW_K, _WINDOW_ALIVE, _WINDOW_HOT, _WINDOW_SLOT = window_tables()

#: the code of the padding window: slot 0 dead, so never alive, hot or complete
_PAD_CODE = 2
#: bit offsets in the combined code table (:meth:`GreedyMonkeyFun._build_tables`)
_COMPLETE_BIT = 6
_SHAPE_BIT = 10

#: ``_BIT_INDEX[(1 << f) % 37] == f`` for f < 36 (2 is a primitive root modulo 37); ``[0] == 36``
_BIT_INDEX = np.zeros(37, dtype=np.int64)
_BIT_INDEX[[pow(2, f, 37) for f in range(D.NUM_FIELDS)]] = np.arange(D.NUM_FIELDS)
_BIT_INDEX[0] = D.NUM_FIELDS

#: the 16 subsets of the 4 hand slots: ``_SLOT_SETS[i, m]`` slot ``i`` is in subset ``m``
_SLOT_SETS = ((np.arange(16)[None, :] >> np.arange(4)[:, None]) & 1).astype(np.int64)  # (4, 16)
#: per subset action, the slot subset it keeps in the hand
_KEPT = 15 ^ (SUBSET_BITS.astype(np.int64) @ (1 << np.arange(4)))  # (15,)
#: terms of :meth:`GreedyMonkeyFun._scores` reported by :meth:`GreedyMonkeyFun.action_features`
_TERMS = ("win", "danger", "threat", "shape", "opp_shape", "secured", "material")
#: columns of :meth:`GreedyMonkeyFun.action_features`
NUM_ACTION_FEATURES = 12
_POP16 = ((np.arange(1 << 16)[:, None] >> np.arange(16)) & 1).sum(1).astype(np.int64)


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of non-negative ``int64`` values below ``2**48``."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x)
    return _POP16[x & 0xFFFF] + _POP16[(x >> 16) & 0xFFFF] + _POP16[x >> 32]


def _sequential_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """Sum over ``axis`` strictly in index order (the float rounding of a plain sum over a
    non-contiguous axis), whatever the memory layout."""
    x = np.moveaxis(x, axis, 0)
    acc = x[0].copy()
    for j in range(1, x.shape[0]):
        acc += x[j]
    return acc


def _log_miss_sum(hot: np.ndarray, log_miss: np.ndarray, row: np.ndarray) -> np.ndarray:
    """``float32``: per 36-bit mask of hot fields, the sum of their ``log_miss``.

    Bit-identical to the dense ``np.where(bits, log_miss[row], 0.0).sum(-1)`` over 36 fields:
    with at most two set bits the float32 sum has at most two non-zero terms, so its value does
    not depend on numpy's summation order and is computed directly; larger sets (rare) use that
    dense sum itself.

    Args:
        hot: ``int64`` masks (bit ``f`` = field ``f``), any shape.
        log_miss: ``(B, 37) float32`` per row and field, column 36 zero.
        row: the row of each mask (broadcast against ``hot``).

    Returns:
        the sums, shaped like ``hot``.
    """
    row = np.broadcast_to(row, hot.shape)
    low = hot & -hot
    rest = hot ^ low
    low2 = rest & -rest
    base = row * (D.NUM_FIELDS + 1)
    flat = log_miss.ravel()
    out = flat.take(base + _BIT_INDEX[low % 37]) + flat.take(base + _BIT_INDEX[low2 % 37])
    many = np.nonzero(rest ^ low2)  # three or more hot fields
    if many[0].size:
        bits = ((hot[many][:, None] >> np.arange(D.NUM_FIELDS)) & 1).astype(bool)
        out[many] = np.where(bits, log_miss[row[many], : D.NUM_FIELDS], 0.0).sum(-1)
    return out


class GreedyMonkeyFun:
    """Greedy one-ply Monkey Fun player (see the module docstring for the strategy).

    Args:
        game: a :class:`~monkey_envs.monkey_fun.MonkeyFun` (any player count and variant).
        seed: accepted for the common agent-factory signature; the greedy agent is deterministic.
        weights: evaluation weights (default :class:`GreedyWeights`).

    Raises:
        ValueError: ``game`` is not a Monkey Fun game.
    """

    name = "greedy"

    def __init__(self, game: Any, seed: int = 0, weights: GreedyWeights | None = None) -> None:
        if getattr(getattr(game, "spec", None), "name", None) != "monkey_fun":
            raise ValueError(f"GreedyMonkeyFun plays monkey_fun, got {game!r}")
        self.game = game
        self.layout = game.obs_layout
        self.num_players = int(game.num_players)
        self.variant = game.variant
        self.solo = game.variant == "solo"
        windows = D.LINE_WINDOWS
        if game.variant == "quick":
            windows = np.concatenate([D.LINE_WINDOWS, D.SQUARE_WINDOWS])
        self.windows = windows
        self._field_windows = _windows_of_fields(windows)
        hit = hit_probability()
        self._hit = hit
        self._log_miss = np.log(np.clip(1.0 - hit, 1e-6, 1.0)).astype(np.float32)
        self._ncards = SUBSET_BITS.sum(1).astype(np.float32)  # (15,)
        self.weights = weights or GreedyWeights()
        line_weights = np.array([*self.weights.line_weights, 0.0])
        #: shape value of a window code for one seat (0 when dead)
        self._shape_table = np.where(_WINDOW_ALIVE, line_weights[_WINDOW_K], 0.0)
        self._build_tables()

    def _build_tables(self) -> None:
        """Precompute the window-code table and the per-field tables of :meth:`_scores`."""
        windows = self.windows
        W = windows.shape[0]
        fw = self._field_windows  # (36, K), -1 = padding
        pad = fw < 0
        fw_c = np.maximum(fw, 0)
        # integer shape values sum exactly in any order; others need the window order (float path)
        self._int_shape = bool(all(float(x).is_integer() and abs(x) <= 2**20 for x in self.weights.line_weights))
        # per code: bits 0-2 "hot" as missing slot + 1 (0 = not hot), bit 6 complete, bits 10+ shape;
        # the gaps let a sum over the (at most 15) windows through a field keep the three apart
        hot_slot = np.where(_WINDOW_HOT > 0.5, _WINDOW_SLOT + 1, 0)
        tab = hot_slot | ((_WINDOW_K == 4) << _COMPLETE_BIT)
        if self._int_shape:
            tab = tab | (self._shape_table.astype(np.int64) << _SHAPE_BIT)
        self._code_table = tab.astype(np.int32)
        #: windows through each field, ``(K, 36)``; the padding points at an extra window ``W``
        #: whose code is ``_PAD_CODE``
        self._through = np.where(pad, W, fw).T.copy()
        slot = np.argmax(windows[fw_c] == np.arange(D.NUM_FIELDS)[:, None, None], axis=-1)
        #: ``8 ** slot`` of the field in each window code (0 for the padding: its code never changes)
        self._through_unit = np.where(pad, 0, 8**slot).T.astype(np.int16)
        #: 36-bit mask of the missing field, per (field, k, missing slot + 1); 0 when not hot
        miss = np.zeros((*fw.shape, 5), dtype=np.int64)
        miss[..., 1:] = np.where(pad[..., None], 0, np.int64(1) << windows[fw_c])
        self._miss_bits = miss.ravel()
        self._window_mask = (np.int64(1) << windows).sum(1)  # (W,) 36-bit field masks
        self._kernel = self._kernel_tables(slot)

    def _kernel_tables(self, slot: np.ndarray) -> dict[str, Any] | None:
        """The compiled scores' tables (``None`` where they do not apply: solo, one seat, or line
        weights that are not integers, which the numpy code sums as floats in window order)."""
        if self.solo or self.num_players < 2 or not self._int_shape or D.NUM_FIELDS != 36:
            return None
        sl = self.layout.slices
        ti = np.zeros(KM.NUM_TI, dtype=np.int64)
        for i, piece in (
            (KM.I_HAND, "hand"),
            (KM.I_ACTION_FIELD, "action_field"),
            (KM.I_COUNTS, "counts"),
            (KM.I_OWNER, "owner"),
            (KM.I_FIELD_VALUE, "field_value"),
            (KM.I_SUPPLY, "supply"),
        ):
            ti[i] = sl[piece].start
        for i, value in (
            (KM.I_P, self.num_players),
            (KM.I_NF, D.NUM_FIELDS),
            (KM.I_W, self.windows.shape[0]),
            (KM.I_K, self._through.shape[0]),
            (KM.I_NUM_SUBSETS, NUM_SUBSETS),
            (KM.I_SECURE_MARGIN, D.SECURE_MARGIN),
            (KM.I_COMPLETE_BIT, _COMPLETE_BIT),
            (KM.I_SHAPE_BIT, _SHAPE_BIT),
            (KM.I_PAD_CODE, _PAD_CODE),
            (KM.I_MAX_CARD, D.MAX_CARD),
        ):
            ti[i] = int(value)
        w = self.weights
        return {
            "ti": ti,
            "windows": np.ascontiguousarray(self.windows, dtype=np.int64),
            "through": np.ascontiguousarray(self._through, dtype=np.int64),
            "slot": np.ascontiguousarray(slot.T, dtype=np.int64),
            "code_table": np.ascontiguousarray(self._code_table),
            "log_miss": np.ascontiguousarray(self._log_miss),
            "kept": np.ascontiguousarray(_KEPT, dtype=np.int64),
            "ncards": np.ascontiguousarray(self._ncards),
            "weights": np.array(
                [w.win, w.block, w.threat, w.opp_shape, w.secure, w.material, w.flex, w.cards, 0.0, 0.0]
            ),
        }

    def _compiled_scores(self, obs: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``(B, 16) float64`` :meth:`scores_numpy` from the compiled loops (``exp`` in numpy between them)."""
        k = self._kernel
        lms, ints, flex, pid, progress = KM.placement_terms(
            np.ascontiguousarray(obs),
            np.ascontiguousarray(m),
            k["ti"],
            k["windows"],
            k["through"],
            k["slot"],
            k["code_table"],
            k["log_miss"],
            k["kept"],
        )
        miss = np.exp(lms)  # numpy's float32 exp, as the reference's (see the kernels' docstring)
        return KM.action_scores(miss, ints, flex, pid, progress, m, k["ncards"], k["weights"])

    # ------------------------------------------------------------------ entry point
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Choose one action per row.

        Args:
            obs: ``(B, obs_dim) float32`` observations from the acting seat's view.
            mask: ``(B, 16)`` bool/int8 legal actions.

        Returns:
            ``(B,) int64`` legal actions (0 for rows without a legal action).
        """
        full, m, _ = self._evaluate(obs, mask, parts=False)
        return argmax_legal(full, m)

    def action_features(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The terms of the greedy evaluation of every action, as features for a learned policy.

        Normal and quick game only (the solo strategy has other terms). Columns, per action
        ``a < 15`` that places on a field (legal or not: only ``mask``'s legal placements are
        evaluated, the others get zeros and ``legal = 0``); the discard action 15 gets zeros but
        its ``legal`` and ``choice`` columns:

        ====  ==============================================================================
        0     ``legal``: 1 if the action is legal
        1     ``choice``: 1 for the action this greedy agent would take
        2     ``win``: the placement completes a winning window
        3     ``danger``: chance that some opponent wins with their next placement afterwards
        4     ``threat``: our own chance to win with our next placement afterwards
        5     ``shape``: our shape value after the move / 50
        6     ``opp_shape``: the best opponent's shape value after the move / 50
        7     ``secured``: fields we own after the move / 8
        8     ``material``: our kept field numbers minus the best opponent's, after the move / 100
        9     ``flex``: distinct field numbers the kept cards reach / 10
        10    ``cards``: cards played / 4
        11    ``gap``: ``log1p`` of how far the greedy score falls short of the best legal one, / 10
        ====  ==============================================================================

        Args:
            obs: ``(B, obs_dim) float32`` observations from the acting seat's view.
            mask: ``(B, 16)`` legal actions.

        Returns:
            ``(B, 16, 12) float32``.

        Raises:
            ValueError: wrong shapes, or the solo variant.
        """
        if self.solo:
            raise ValueError("greedy action features are defined for the normal and quick games, not solo")
        full, m, parts = self._evaluate(obs, mask, parts=True)
        B = full.shape[0]
        out = np.zeros((B, self.game.num_actions, NUM_ACTION_FEATURES), dtype=np.float32)
        out[:, :, 0] = m
        choice = argmax_legal(full, m)
        out[np.arange(B), choice, 1] = m.any(1)
        feats = out[:, :NUM_SUBSETS]
        for k, name in enumerate(("win", "danger", "threat", "shape", "opp_shape", "secured", "material"), start=2):
            feats[:, :, k] = parts[name]
        feats[:, :, 9] = parts["flex"] / 10.0
        feats[:, :, 10] = self._ncards[None, :] / 4.0
        best = np.where(m, full, -np.inf).max(1, keepdims=True)
        gap = np.where(m, np.log1p(np.maximum(best - full, 0.0)) / 10.0, 0.0)
        out[:, :, 11] = np.where(np.isfinite(gap), gap, 0.0)
        out[:, :NUM_SUBSETS, 2:11] *= m[:, :NUM_SUBSETS, None]
        return out

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, 16) float64`` the agent's value of every action (it plays the best legal one; ties: the
        lower index); illegal actions' entries are meaningless.

        The normal and quick games with integer line weights (the defaults) are scored by the
        compiled loops of :mod:`agents.heuristics.monkey_fun_kernels`, which return exactly
        :meth:`scores_numpy` (the reference) at a fraction of its cost.

        Args:
            obs: ``(B, obs_dim) float32`` observations from the acting seat's view.
            mask: ``(B, 16)`` legal actions.
        """
        return self._evaluate(obs, mask, parts=False)[0]

    def scores_numpy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`scores` in numpy over the whole batch (the reference of the compiled scores)."""
        return self._evaluate(obs, mask, parts=False, compiled=False)[0]

    #: Score with the compiled loops where they apply (see :meth:`scores`); ``False``: numpy only.
    compiled = True

    def _evaluate(
        self, obs: np.ndarray, mask: np.ndarray, parts: bool, compiled: bool = True
    ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray] | None]:
        """``(scores (B, 16) float64, legal mask (B, 16) bool, terms or None)`` of every action."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.layout.size:
            raise ValueError(f"obs must have shape (B, {self.layout.size}), got {obs.shape}")
        m = np.asarray(mask).astype(bool)
        if m.shape != (obs.shape[0], self.game.num_actions):
            raise ValueError(f"mask must have shape ({obs.shape[0]}, {self.game.num_actions}), got {m.shape}")
        if compiled and self.compiled and not parts and self._kernel is not None:
            return self._compiled_scores(obs, m), m, None
        v = self.layout.unflatten(obs)
        af = v["action_field"] > 0.5  # (B, 15, 36)
        has = af.any(2)
        field = af.argmax(2)  # (B, 15); meaningless where ~has (masked out anyway)
        numbers = np.rint(v["field_value"] * 36).astype(np.int64)  # (B, 36)
        w = self.weights
        terms: dict[str, np.ndarray] | None = None
        if self.solo:
            score = self._solo_scores(v, field, numbers)
        else:
            # evaluate each distinct (row, target field) among the legal placements once
            legal = m[:, :NUM_SUBSETS] & has
            rows, acts = np.nonzero(legal)
            key = rows * D.NUM_FIELDS + field[rows, acts]
            seen = np.zeros(obs.shape[0] * D.NUM_FIELDS, dtype=bool)
            seen[key] = True
            keys = np.flatnonzero(seen)  # sorted distinct (row, field) keys
            position = np.zeros(seen.size, dtype=np.int64)
            position[keys] = np.arange(keys.size)
            score = np.zeros(field.shape, dtype=np.float64)
            if parts:
                terms = {k: np.zeros(field.shape, dtype=np.float32) for k in _TERMS}
            if keys.size:
                s, t = self._scores(v, keys // D.NUM_FIELDS, keys % D.NUM_FIELDS, numbers, parts=parts)
                score[rows, acts] = s[position[key]]
                if terms is not None:
                    for k, arr in t.items():
                        terms[k][rows, acts] = arr[position[key]]
            flex = self._flexibility(v["hand"])
            score += w.flex * flex + w.cards * self._ncards[None, :]
            if terms is not None:
                terms["flex"] = flex.astype(np.float32)
        full = np.zeros(m.shape, dtype=np.float64)
        full[:, :NUM_SUBSETS] = score
        return full, m, terms

    # ------------------------------------------------------------------ normal / quick game
    def _scores(
        self, v: dict[str, np.ndarray], row: np.ndarray, field: np.ndarray, numbers: np.ndarray, parts: bool = False
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Value of the board after placing one of our monkeys, for ``N`` (row, field) pairs.

        Only the target field changes, so the board facts are computed once per row and each
        placement rewrites just the target field's slot in the codes of the windows through it
        (at most ``K``, padded with an inert window). A window's facts for a seat come from one
        lookup table over its 12-bit code (:func:`window_tables`); the immediate-win fields are
        36-bit masks (see the module docstring).

        Args:
            v: the unflattened observations (``B`` rows).
            row: ``(N,) int64`` row of each placement (any order, repeats allowed).
            field: ``(N,) int64`` target field index of each placement.
            numbers: ``(B, 36) int64`` field numbers.

        Returns:
            ``(N,) float64`` scores, and with ``parts`` their scaled terms (``(N,)`` arrays named
            as in :meth:`action_features`; an empty dict otherwise).
        """
        w = self.weights
        P = self.num_players
        B = numbers.shape[0]
        N = row.shape[0]
        NF = D.NUM_FIELDS
        windows = self.windows
        W = windows.shape[0]
        W1 = W + 1  # with the padding window
        K = self._through.shape[0]
        table = self._code_table
        # seats first everywhere: reductions over seats and windows run over long inner loops
        counts = np.ascontiguousarray(np.rint(v["counts"] * 4).astype(np.int16).transpose(2, 0, 1))  # (P, B, 36)
        owner = np.ascontiguousarray((v["owner"] > 0.5).transpose(2, 0, 1))  # (P, B, 36), observer first

        # ---- the position before the move ------------------------------------------------
        maj0, dead0, one0 = _facts(counts, owner, axis=0)
        bits0 = _fact_bits(maj0, dead0, one0)  # (P, B, 36)
        code0 = np.empty((P, B, W1), dtype=np.int16)  # window codes, padding window last
        c = bits0.take(windows[:, 0], axis=2)
        for j in range(1, 4):
            c |= bits0.take(windows[:, j], axis=2) << (3 * j)
        code0[..., :W] = c
        code0[..., W] = _PAD_CODE
        tab0 = table.take(code0)  # (P, B, W + 1)
        material0 = (maj0 * numbers).sum(-1)  # (P, B) int
        secured0 = owner[0].sum(-1)  # (B,)

        # hot windows (sparse): the missing fields per (seat, row), and per (seat, row, field f)
        # the hot fields g every one of whose hot windows passes through f
        flat = np.flatnonzero(tab0 & 7)
        seat_row, hot_w = flat // W1, flat % W1
        miss = windows[hot_w, (tab0.ravel()[flat] & 7) - 1]
        miss_bit = np.int64(1) << miss
        hot0 = np.zeros(P * B, dtype=np.int64)
        np.bitwise_or.at(hot0, seat_row, miss_bit)
        group = seat_row * NF + miss
        common = np.full(P * B * NF, -1, dtype=np.int64)  # fields shared by the group's hot windows
        np.bitwise_and.at(common, group, self._window_mask[hot_w])
        wf = windows[hot_w]  # (E, 4)
        in_all = (common[group][:, None] >> wf) & 1
        cleared = np.zeros(P * B * NF, dtype=np.int64)
        np.bitwise_or.at(cleared, (seat_row * NF)[:, None] + wf, miss_bit[:, None] * in_all)

        # ---- the target field after the placement: (P, N) -------------------------------
        c_f = counts[:, row, field]
        o_f = owner[:, row, field]
        c_f[0] += 1
        if P > 1:
            secures = ~o_f.any(0) & (c_f[0] >= c_f[1:].max(0) + D.SECURE_MARGIN)
            o_f[0] |= secures
            c_f[1:] *= ~secures
        maj_f, dead_f, one_f = _facts(c_f, o_f, axis=0)
        bits_f = _fact_bits(maj_f, dead_f, one_f)

        # ---- windows through the target field, before and after: (P, K, N) ---------------
        widx = row * W1 + self._through[:, field]  # (K, N)
        code_old = code0.reshape(P, B * W1).take(widx, axis=1)
        # rewrite the target field's slot: add (new bits - old bits) * 8 ** slot
        change = bits_f - bits0[:, row, field]  # (P, N)
        code1 = code_old + change[:, None, :] * self._through_unit[:, field]
        tab1 = table.take(code1)
        sum1 = tab1.sum(1)  # (P, N): hot slots, complete windows and shape, kept apart by the bit gaps
        win_now = (sum1[0] >> _COMPLETE_BIT) & 15 > 0  # (N,)
        if self._int_shape:
            old = tab0.reshape(P, B * W1).take(widx, axis=1).sum(1) >> _SHAPE_BIT
            shape = ((tab0 >> _SHAPE_BIT).sum(-1)[:, row] + (sum1 >> _SHAPE_BIT) - old).T.astype(np.float64)  # (N, P)
        else:
            st = self._shape_table
            shape0 = _sequential_sum(st.take(code0[..., :W]), axis=-1)  # (P, B)
            shape = (shape0[:, row] + _sequential_sum(st.take(code1) - st.take(code_old), axis=1)).T
        # immediate-win fields after the move, as 36-bit masks per (seat, placement)
        q, n = np.nonzero(sum1 & 63)  # (seat, placement) with hot windows after the move (sparse)
        hs = tab1[q, :, n] & 7  # (C, K)
        i, k = np.nonzero(hs)
        new_hot = np.zeros(P * N, dtype=np.int64)
        np.bitwise_or.at(new_hot, q[i] * N + n[i], self._miss_bits[(field[n[i]] * K + k) * 5 + hs[i, k]])
        seat_row_n = np.arange(P)[:, None] * B + row  # (P, N)
        hot = (hot0[seat_row_n] & ~cleared[seat_row_n * NF + field]) | new_hot.reshape(P, N)
        log_miss = np.zeros((B, NF + 1), dtype=np.float32)  # column 36: no field, 0
        log_miss[:, :NF] = self._log_miss[numbers]
        chance = np.ascontiguousarray((1.0 - np.exp(_log_miss_sum(hot, log_miss, row))).T)  # (N, P)

        num_f = numbers[row, field]  # (N,)
        material = (material0[:, row] + (maj_f.astype(np.int64) - maj0[:, row, field]) * num_f).T.astype(np.float64)
        secured = secured0[row] + (o_f[0] & ~owner[0, row, field])
        progress = 1.0 - v["supply"][row, 0]  # (N,) share of our monkeys already used

        opp = slice(1, P)
        danger = 1.0 - np.prod(1.0 - chance[:, opp], axis=-1) if P > 1 else np.zeros(N)
        opp_shape = shape[:, opp].max(-1) if P > 1 else np.zeros(N)
        opp_material = material[:, opp].max(-1) if P > 1 else np.zeros(N)
        score = (
            w.win * win_now
            - w.block * danger
            + w.threat * chance[:, 0]
            + shape[:, 0]
            - w.opp_shape * opp_shape
            + w.secure * secured
            + w.material * progress * (material[:, 0] - opp_material)
        )
        if not parts:  # act() needs only the score
            return np.asarray(score, dtype=np.float64), {}
        terms = {
            "win": win_now,
            "danger": danger,
            "threat": chance[:, 0],
            "shape": shape[:, 0] / 50.0,
            "opp_shape": opp_shape / 50.0,
            "secured": secured / 8.0,
            "material": (material[:, 0] - opp_material) / 100.0,
        }
        return np.asarray(score, dtype=np.float64), terms

    # ------------------------------------------------------------------ solo variant
    def _solo_scores(self, v: dict[str, np.ndarray], field: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """``(B, 15) float``: hard numbers first, cycle cards, cheap towers.

        The mask already separates the cases: it offers free inner fields when any is
        reachable, otherwise only tower placements.
        """
        w = self.weights
        counts = np.rint(v["counts"][..., 0] * 4).astype(np.int16)  # (B, 36)
        bi = np.arange(field.shape[0])[:, None]
        n = numbers[bi, field]  # (B, 15) number of the target field
        c = counts[bi, field]
        free = w.solo_hard * (1.0 - self._hit[n]) + w.solo_number * n
        extend = np.full(n.shape, 5.0)  # a field that already is a tower costs no more points
        new_tower = w.solo_new_tower * n
        score = np.where(c == 0, free, np.where(c >= 2, extend, new_tower))
        return score + w.solo_cards * self._ncards[None, :]

    # ------------------------------------------------------------------ hand flexibility
    def _flexibility(self, hand_piece: np.ndarray) -> np.ndarray:
        """``(B, 15) float``: distinct field numbers the cards kept after each action can reach.

        The reachable sums of every subset of the 4 hand slots are 37-bit masks (bit ``n``: some
        non-empty sub-subset of its cards sums to ``n``), built by OR-ing over subsets; an
        action's value is the number of set bits 1..36 of the subset of slots it keeps.
        """
        hand = _hand_values(hand_piece).astype(np.int64)  # (B, 4) values, 0 = empty slot
        sums = hand @ _SLOT_SETS  # (B, 16) card sum of every slot subset
        full = (hand != 0).astype(np.int64) @ (1 << np.arange(4))  # (B,) slots holding a card
        ok = (np.arange(16)[None, :] & ~full[:, None]) == 0  # the subset holds only cards
        pos = np.where(ok & (sums <= D.NUM_FIELDS), sums, 0)
        pos = np.where(pos < 0, pos + D.NUM_FIELDS + 1, pos)  # negative sums index from the end
        reach = np.where(pos > 0, np.int64(1) << pos, 0)  # (B, 16)
        for i in range(4):  # OR over sub-subsets: add each subset's reach to its supersets
            with_i = np.flatnonzero(np.arange(16) >> i & 1)
            reach[:, with_i] |= reach[:, with_i ^ (1 << i)]
        return _popcount(reach[:, _KEPT]).astype(np.float64)


def _hand_values(piece: np.ndarray) -> np.ndarray:
    """``(B, 4) int16`` card values from the ``hand`` piece (values / 19, or one-hot per slot)."""
    if piece.ndim == 3:  # (B, 4, 20) one-hot per slot
        return piece.argmax(-1).astype(np.int16)
    return np.rint(piece * D.MAX_CARD).astype(np.int16)


def make_greedy(game: Any, seed: int = 0) -> GreedyMonkeyFun:
    """Registry factory for ``make_agent("greedy", game, seed)``."""
    return GreedyMonkeyFun(game, seed)


register_agent("greedy", make_greedy, game="monkey_fun")
register_features(
    "board", "agents.heuristics.monkey_fun_features:BoardActionExtractor", game="monkey_fun", default=True
)
register_features("greedy", "agents.heuristics.monkey_fun_features:GreedyActionExtractor", game="monkey_fun")


# ====================================================================== the search agent
def _register_search() -> None:
    """``mcts`` with this game's default budget (:mod:`agents.search`; sized for a 2,000-game arena in 30 min).

    A flat search of ``greedy``'s two best moves: 128 ``greedy`` play-outs each, both from the same
    64 re-deals. It beat ``greedy`` 0.554 [0.533, 0.576] in 2,000 games; at 64 simulations the same
    search tied it, 0.496 (docs/agents.md, "The search agent").
    """
    from agents.search import register_search_agent

    register_search_agent(
        "monkey_fun",
        simulations=256,
        determinizations=64,
        rollout="greedy",
        prior="greedy",
        root="halving",
        candidates=2,
        max_tree_depth=1,
    )


_register_search()
