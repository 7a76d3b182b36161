"""The Monkey Fun greedy heuristic's scores as numba-compiled loops over a batch of observations.

:func:`placement_terms` and :func:`action_scores` compute, row by row, exactly what the numpy code
of :class:`~agents.heuristics.monkey_fun.GreedyMonkeyFun` computes for the whole batch (kept
there as the reference, ``GreedyMonkeyFun.scores_numpy``), for the normal and quick games with
integer line weights (the defaults): the field facts, the window codes before and after each
placement, the immediate-win fields, shape, material and securing, the hand's flexibility, and
the same float32 / float64 operations in the same order (numpy's dense float32 sum over the 36
fields is reproduced in its pairwise order), so the scores are equal bit for bit;
``tests/test_monkey_fun_agents.py`` compares them on positions from many games.

One step stays in numpy: ``exp`` of the float32 log-miss sums between the two kernels (numpy's
vectorised float32 ``exp`` and the C library's, which numba calls, differ in the last bit of about
a third of their results, and a decision may hang on that bit).

Every table and weight comes in as an argument, so the on-disk numba cache (``cache=True``)
depends on this file alone. Compiling both from an empty cache takes about 6-9 s, once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from monkey_envs.core.kernel_cache import drop_stale_cache

drop_stale_cache(__file__, deps=())  # compiles in nothing but this file (and says when it compiles)

#: Positions in the int64 table ``ti`` (built by ``agents.heuristics.monkey_fun``).
(
    I_HAND,  # obs column of each piece
    I_ACTION_FIELD,
    I_COUNTS,
    I_OWNER,
    I_FIELD_VALUE,
    I_SUPPLY,
    I_P,  # players
    I_NF,  # fields
    I_W,  # windows
    I_K,  # windows through a field (with padding)
    I_NUM_SUBSETS,
    I_SECURE_MARGIN,
    I_COMPLETE_BIT,
    I_SHAPE_BIT,
    I_PAD_CODE,
    I_MAX_CARD,
    NUM_TI,
) = range(17)


@njit(cache=True, inline="always")
def _field_bits(c, o, P, out):
    """``out[p]`` = the fact bits (majority 1, dead 2, one more 4) of one field for every seat."""
    top = c[0]
    any_owner = o[0]
    for p in range(1, P):
        top = max(top, c[p])
        any_owner = any_owner or o[p]
    n_top = 0
    for p in range(P):
        if c[p] == top:
            n_top += 1
    for p in range(P):
        dead = any_owner and not o[p]
        if P == 1:
            maj = o[p] or top > 0
            one = (not dead) and (not maj) and c[p] >= 0
        else:
            is_top = c[p] == top
            unique = n_top == 1
            maj = o[p] or (is_top and unique and top > 0)
            one = (not any_owner) and is_top and ((not unique) or top <= 0)
        out[p] = (1 if maj else 0) | ((1 if dead else 0) << 1) | ((1 if one else 0) << 2)


@njit(cache=True, inline="always")
def _low_field(x, none):
    """The lowest set bit's index of ``x`` (``none`` when ``x`` is 0)."""
    if x == 0:
        return none
    g = 0
    while not (x >> g) & 1:
        g += 1
    return g


@njit(cache=True, inline="always")
def _dense_sum36(v):
    """numpy's float32 ``sum`` of 36 values (contiguous): 8 pairwise lanes over the first 32, then the rest."""
    r0, r1, r2, r3, r4, r5, r6, r7 = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
    for i in range(8, 32, 8):
        r0 += v[i]
        r1 += v[i + 1]
        r2 += v[i + 2]
        r3 += v[i + 3]
        r4 += v[i + 4]
        r5 += v[i + 5]
        r6 += v[i + 6]
        r7 += v[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(32, 36):
        res += v[i]
    return res


@njit(cache=True)
def placement_terms(obs, mask, ti, windows, through, slot_of, code_table, log_miss_of, kept):
    """The terms of every legal placement of every row, before ``exp``.

    Args:
        obs: ``(B, D) float32`` observations; mask: ``(B, A) bool`` legal actions.
        ti: ``(NUM_TI,) int64`` layout columns and constants (the ``I_*`` positions).
        windows: ``(W, 4) int64`` the fields of each window; through: ``(K, 36) int64`` the windows
            through each field (``W``: padding); slot_of: ``(K, 36) int64`` the field's slot in them.
        code_table: ``(4096,) int32`` per window code: hot slot + 1 (bits 0-2), complete
            (``COMPLETE_BIT``), shape value (from ``SHAPE_BIT``).
        log_miss_of: ``(77,) float32`` log of the chance that a hand misses each number.
        kept: ``(15,) int64`` the slot subset each subset action keeps in the hand.

    Returns:
        ``(lms (N, P) float32, ints (N, 3 + 2 P) int64, flex (B, 15) float64, pid (B, 15) int64,
        progress (B,) float32)``: per distinct placement (a row and a target field that a legal
        action places on; ``N`` of them), the log-miss sum of every seat's immediate-win fields
        after it and ``ints``: [field, win now, secured, shape per seat, material per seat]; the
        flexibility of the kept cards per action; each legal placing action's placement (-1: none);
        the share of the acting seat's monkeys already placed.
    """
    B = obs.shape[0]
    P = ti[I_P]
    NF = ti[I_NF]
    W = ti[I_W]
    K = ti[I_K]
    NS = ti[I_NUM_SUBSETS]
    margin = ti[I_SECURE_MARGIN]
    CB = ti[I_COMPLETE_BIT]
    SB = ti[I_SHAPE_BIT]
    pad = ti[I_PAD_CODE]
    lms = np.zeros((B * NS, P), dtype=np.float32)
    ints = np.zeros((B * NS, 3 + 2 * P), dtype=np.int64)
    flex = np.zeros((B, NS), dtype=np.float64)
    pid = np.full((B, NS), -1, dtype=np.int64)
    progress = np.zeros(B, dtype=np.float32)
    has = np.zeros(NS, dtype=np.bool_)
    field = np.zeros(NS, dtype=np.int64)
    of_field = np.full(NF, -1, dtype=np.int64)
    hot_w = np.zeros((P, W), dtype=np.int64)  # the hot windows before the move, per seat
    n_hot_w = np.zeros(P, dtype=np.int64)
    n_place = 0
    counts = np.zeros((P, NF), dtype=np.int64)
    owner = np.zeros((P, NF), dtype=np.bool_)
    numbers = np.zeros(NF, dtype=np.int64)
    bits0 = np.zeros((P, NF), dtype=np.int64)
    code0 = np.zeros((P, W), dtype=np.int64)
    tab0 = np.zeros((P, W), dtype=np.int64)
    shape0 = np.zeros(P, dtype=np.int64)
    material0 = np.zeros(P, dtype=np.int64)
    cf = np.zeros(P, dtype=np.int64)
    of = np.zeros(P, dtype=np.bool_)
    bits = np.zeros(P, dtype=np.int64)
    bits_f = np.zeros(P, dtype=np.int64)
    through_f = np.zeros(W + 1, dtype=np.bool_)
    lm = np.zeros(NF + 1, dtype=np.float32)
    dense = np.zeros(NF, dtype=np.float32)
    hand = np.zeros(4, dtype=np.int64)
    reach = np.zeros(16, dtype=np.int64)
    c_col, o_col, fv_col, af_col = ti[I_COUNTS], ti[I_OWNER], ti[I_FIELD_VALUE], ti[I_ACTION_FIELD]
    for b in range(B):
        ob = obs[b]
        # ---- the observation -------------------------------------------------------------
        for f in range(NF):
            for p in range(P):
                counts[p, f] = np.int64(np.rint(ob[c_col + f * P + p] * np.float32(4.0)))
                owner[p, f] = ob[o_col + f * P + p] > 0.5
            numbers[f] = np.int64(np.rint(ob[fv_col + f] * np.float32(36.0)))
            lm[f] = log_miss_of[numbers[f]]
        lm[NF] = 0.0
        progress[b] = np.float32(1.0) - ob[ti[I_SUPPLY]]
        any_target = False
        for a in range(NS):
            best = 0
            found = False
            for f in range(NF):
                if ob[af_col + a * NF + f] > 0.5:
                    if not found:
                        best = f
                    found = True
            has[a] = found
            field[a] = best
            if found and mask[b, a]:
                any_target = True
        # ---- the hand's flexibility (every row, as the numpy code) -------------------------
        for i in range(4):
            hand[i] = np.int64(np.rint(ob[ti[I_HAND] + i] * np.float32(ti[I_MAX_CARD])))
        full_slots = 0
        for i in range(4):
            if hand[i] != 0:
                full_slots |= 1 << i
        for m in range(16):
            s = 0
            for i in range(4):
                if (m >> i) & 1:
                    s += hand[i]
            pos = s if ((m & ~full_slots) == 0 and s <= NF) else 0
            if pos < 0:
                pos += NF + 1
            reach[m] = (np.int64(1) << pos) if pos > 0 else 0
        for i in range(4):
            for m in range(16):
                if (m >> i) & 1:
                    reach[m] |= reach[m ^ (1 << i)]
        for a in range(NS):
            x = reach[kept[a]]
            n = 0
            while x:
                x &= x - 1
                n += 1
            flex[b, a] = np.float64(n)
        if not any_target:
            continue
        # ---- the position before the move -------------------------------------------------
        for f in range(NF):
            _field_bits(counts[:, f], owner[:, f], P, bits)
            for p in range(P):
                bits0[p, f] = bits[p]
        sec0 = 0
        for f in range(NF):
            if owner[0, f]:
                sec0 += 1
        for p in range(P):
            shape0[p] = 0
            material0[p] = 0
            for f in range(NF):
                if bits0[p, f] & 1:
                    material0[p] += numbers[f]
            n_hot_w[p] = 0
            for w in range(W):
                c = 0
                for j in range(4):
                    c |= bits0[p, windows[w, j]] << (3 * j)
                code0[p, w] = c
                tab0[p, w] = code_table[c]
                shape0[p] += tab0[p, w] >> SB
                if tab0[p, w] & 7:
                    hot_w[p, n_hot_w[p]] = w
                    n_hot_w[p] += 1
        for f in range(NF):
            of_field[f] = -1
        # ---- each target field --------------------------------------------------------------
        for a in range(NS):
            if not (has[a] and mask[b, a]):
                continue
            f = field[a]
            if of_field[f] >= 0:  # this field's placement is scored already
                pid[b, a] = of_field[f]
                continue
            n = n_place
            n_place += 1
            of_field[f] = n
            pid[b, a] = n
            row = ints[n]
            row[0] = f
            for p in range(P):
                cf[p] = counts[p, f]
                of[p] = owner[p, f]
            cf[0] += 1
            if P > 1:
                any_o = False
                top_other = cf[1]
                for p in range(P):
                    any_o = any_o or of[p]
                for p in range(2, P):
                    top_other = max(top_other, cf[p])
                if (not any_o) and cf[0] >= top_other + margin:
                    of[0] = True
                    for p in range(1, P):
                        cf[p] = 0
            _field_bits(cf, of, P, bits_f)
            for k in range(K):
                through_f[through[k, f]] = True
            win_now = False
            for p in range(P):
                sum1 = 0
                old = 0
                hot = np.int64(0)
                for k in range(K):
                    w = through[k, f]
                    if w == W:  # the padding window: its code never changes
                        t1 = np.int64(code_table[pad])
                        t0 = t1
                    else:
                        c1 = code0[p, w] + ((bits_f[p] - bits0[p, f]) << (3 * slot_of[k, f]))
                        t1 = np.int64(code_table[c1])
                        t0 = tab0[p, w]
                        hs = t1 & 7
                        if hs:
                            hot |= np.int64(1) << windows[w, hs - 1]
                    sum1 += t1
                    old += t0
                for i in range(n_hot_w[p]):
                    w = hot_w[p, i]
                    if not through_f[w]:
                        hot |= np.int64(1) << windows[w, (tab0[p, w] & 7) - 1]
                if p == 0:
                    win_now = ((sum1 >> CB) & 15) > 0
                row[3 + p] = shape0[p] + (sum1 >> SB) - (old >> SB)
                maj_f = bits_f[p] & 1
                row[3 + P + p] = material0[p] + (maj_f - (bits0[p, f] & 1)) * numbers[f]
                # the log-miss sum of the hot fields, as the numpy code sums it
                rest = hot & (hot - 1)  # without the lowest hot field
                if (rest & (rest - 1)) == 0:  # at most two hot fields: one float32 sum of two terms
                    g1 = _low_field(hot, NF)
                    g2 = _low_field(rest, NF)
                    lms[n, p] = lm[g1] + lm[g2]
                else:
                    for g in range(NF):
                        dense[g] = lm[g] if (hot >> g) & 1 else np.float32(0.0)
                    lms[n, p] = _dense_sum36(dense)
            for k in range(K):
                through_f[through[k, f]] = False
            row[1] = 1 if win_now else 0
            row[2] = sec0 + (1 if (of[0] and not owner[0, f]) else 0)
    return lms[:n_place], ints[:n_place], flex, pid, progress


@njit(cache=True)
def action_scores(miss, ints, flex, pid, progress, mask, ncards, w):
    """``(B, A) float64`` the greedy scores (numpy's ``_evaluate``'s ``full``) from :func:`placement_terms`.

    ``miss (N, P) float32`` is ``exp`` of its log-miss sums (in numpy), ``w (10,) float64`` the
    weights ``win, block, threat, opp_shape, secure, material, flex, cards`` (and two unused),
    ``ncards (15,) float32`` the cards each subset action plays.
    """
    P = miss.shape[1]
    B, NS = pid.shape
    A = mask.shape[1]
    out = np.zeros((B, A), dtype=np.float64)
    block32 = np.float32(w[1])
    threat32 = np.float32(w[2])
    material32 = np.float32(w[5])
    cards32 = np.float32(w[7])
    chance = np.zeros(P, dtype=np.float32)
    for b in range(B):
        for a in range(NS):
            s = 0.0
            n = pid[b, a]
            if n >= 0:
                row = ints[n]
                for p in range(P):
                    chance[p] = np.float32(1.0) - miss[n, p]
                if P > 1:
                    prod = np.float32(1.0) - chance[1]
                    opp_shape = np.float64(row[3 + 1])
                    opp_material = np.float64(row[3 + P + 1])
                    for p in range(2, P):
                        prod = prod * (np.float32(1.0) - chance[p])
                        opp_shape = max(opp_shape, np.float64(row[3 + p]))
                        opp_material = max(opp_material, np.float64(row[3 + P + p]))
                    danger = np.float32(1.0) - prod
                else:
                    danger = np.float32(0.0)
                    opp_shape = 0.0
                    opp_material = 0.0
                s = (
                    w[0] * (1.0 if row[1] else 0.0)
                    - np.float64(block32 * danger)
                    + np.float64(threat32 * chance[0])
                    + np.float64(row[3])
                    - w[3] * opp_shape
                    + w[4] * np.float64(row[2])
                    + np.float64(material32 * progress[b]) * (np.float64(row[3 + P]) - opp_material)
                )
            out[b, a] = s + (w[6] * flex[b, a] + np.float64(cards32 * ncards[a]))
    return out
