"""The Funky Monkey heuristics' action scores as one numba-compiled loop over a batch of observations.

:func:`heuristic_scores` computes, row by row, exactly what the numpy code of
:mod:`agents.heuristics.funky_monkey` computes for the whole batch (kept there as the reference,
``FunkyHeuristic.scores_numpy``): the facts of :class:`~monkey_envs.funky_monkey.reading.Reading`,
:func:`~agents.heuristics.funky_monkey.space_values`,
:func:`~agents.heuristics.funky_monkey.card_outcomes`, the active play and the response of the
chosen heuristic and the shared small decisions -- the same float64 operations in the same order
(numpy's sums over 5 or 7 values run left to right, as these loops do), so the scores are equal
bit for bit; ``tests/test_funky_monkey_agents.py`` compares them on positions from many games.
The tie-breaking noise and the believer's random plays stay in numpy (the agent's generator,
drawn in the same amounts in the same order).

Every game constant (observation layout, action and phase codes, track tables) and every weight
of the heuristics comes in as an argument. :func:`playout` (the search agent's play-outs with a
heuristic, in one compiled loop) calls the game's own ``step_at`` and ``observe_at``, so the on-disk
numba cache (``cache=True``) is dropped when the game's kernels change (``drop_stale_cache``). Per-row work is a few hundred flops; one call costs microseconds instead of the
numpy code's ~40 small array operations (~1 ms per call at any batch size).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from monkey_envs.core.kernel_cache import drop_stale_cache
from monkey_envs.funky_monkey import kernels as GK

# :func:`playout` compiles in the game's kernels (and what they compile in): numba keys this file's
# cache on this file alone, so a change to those drops it.
_GAME_DIR = Path(GK.__file__).resolve().parent
drop_stale_cache(__file__, deps=tuple(str(_GAME_DIR / f) for f in ("kernels.py", "data.py", "state.py")))

#: Heuristic codes of :func:`heuristic_scores` (``kind``).
HONEST, BELIEVER, SKEPTIC, TRACK = 0, 1, 2, 3

# Positions in the int64 table ``ti`` (built by agents.heuristics.funky_monkey._kernel_tables).
(
    I_PHASE,  # obs column of each piece
    I_ACTIVE,
    I_ANNOUNCE,
    I_KNOWN,
    I_PYRAMID,
    I_GOLDEN,
    I_TIGER,
    I_POSITION,
    I_TILES,
    I_ALIVE,
    I_COCONUTS,
    I_TRUTHS,
    I_BLUFFS,
    I_BOWLS,
    I_UNSEEN,
    I_NUM_PHASES,  # sizes
    I_TILE_COLS,
    I_PH_ACTIVE,  # phase codes
    I_PH_RESPOND,
    I_PH_RESPOND_SEEN,
    I_PH_PAY,
    I_PH_BOWL,
    I_PH_PYRAMID,
    I_PH_BONUS,
    I_PH_SCALES,
    I_A_CROWN,  # action codes
    I_A_ACCEPT,
    I_A_PASS,
    I_A_TELESCOPE,
    I_A_BONUS_MONKEY,
    I_A_BONUS_TIGER,
    I_A_BONUS_DECLINE,
    I_A_PYRAMID_FORWARD,
    I_A_PYRAMID_BACKWARD,
    I_A_BOWL_1,
    I_A_BOWL_2,
    I_A_PAY_NORMAL,
    I_A_SCALES_SKIP,
    I_A_SCALES_TARGET,
    I_NUM_PLAY,
    I_CARD_MINUSS,
    I_E_NONE,  # effect codes
    I_E_COCONUT,
    I_E_GOLDEN,
    I_E_CHEST,
    I_E_PYRAMID,
    I_E_NEAREST_BOWL,
    I_E_MINUS1,
    I_E_MINUS2,
    I_E_BOWL,
    I_CROWN_BONUS,  # the game
    NUM_TI,
) = range(52)

# Positions in the float64 table ``tf``.
(
    F_WIN,
    F_DEATH,
    F_PROGRESS,
    F_DANGER,
    F_CHEST,
    F_PYRAMID,
    F_GOLDEN_EXTRA,
    F_P_TRUTH,
    F_PRIOR_WEIGHT,
    F_BONUS,
    F_P_BELIEVER,
    F_TELESCOPE,
    NUM_TF,
) = range(13)


@njit(cache=True)
def _onehot(row, start, width):
    """Index of the first maximum of ``row[start:start + width]``, -1 when all are 0 (Reading's onehot)."""
    best = 0
    anyv = False
    for i in range(width):
        v = row[start + i]
        if v != 0:
            anyv = True
        if v > row[start + best]:
            best = i
    return best if anyv else -1


@njit(cache=True)
def _argmax(row, start, width):
    """Index of the first maximum of ``row[start:start + width]`` (numpy's argmax)."""
    best = 0
    for i in range(1, width):
        if row[start + i] > row[start + best]:
            best = i
    return best


@njit(cache=True)
def _count(x, scale):
    """``rint(x * scale)`` in float32, as Reading decodes counts (``x * scale`` is within 1e-5 of an integer)."""
    return np.int64(np.floor(x * np.float32(scale) + np.float32(0.5)))


@njit(cache=True)
def _loss(tc, d, death):
    """Value of giving up ``d`` coconuts when holding ``tc`` (heuristics' ``_loss``)."""
    if tc <= d:
        return -death
    return -float(d) * (1.0 + 1.0 / max(tc, 1))


@njit(cache=True)
def heuristic_scores(
    obs,
    grp,
    kinds,
    tfs,
    P,
    ti,
    rand,
    slots,
    slot_row,
    slot_back,
    back_comp,
    fixed,
    fixed_effect,
    bowl_of,
    bowl_spaces,
    num_actions,
):
    """``(n, A) float64`` action scores of the heuristics ``kinds[grp]`` for observations ``obs (n, D) float32``.

    Args:
        obs: observer-first Funky Monkey observations.
        grp: ``(n,) int64`` the agent scoring each row (an index into ``kinds`` / ``tfs``).
        kinds: ``(G,) int64`` each agent's heuristic: :data:`HONEST`, :data:`BELIEVER`,
            :data:`SKEPTIC` or :data:`TRACK`.
        tfs: ``(G, NUM_TF) float64`` each agent's weights (``F_*`` positions; ``F_TELESCOPE``
            1.0 for an agent that looks through a Telescope).
        P: seats. ti: the int64 table (``I_*`` positions).
        rand: ``(m, NUM_PLAY) float64`` the believers' random play scores, one row per row of
            ``obs`` that a believer scores in the active phase, in order.
        slots: ``(S,) int64`` tile-slot spaces; slot_row / slot_back: ``(S,) int64`` their
            track row and tile back; back_comp: ``(backs, 7) int64`` tiles of each kind per back;
            fixed: ``(F,) int64`` the other spaces; fixed_effect: ``(19,) int64`` effect of each
            space (fixed ones); bowl_of: ``(19,) int64`` bowl index of a space (-1 if none);
            bowl_spaces: ``(2,) int64``.
        num_actions: ``A``.
    """
    n = obs.shape[0]
    L = fixed_effect.shape[0]
    S = slots.shape[0]
    NT = back_comp.shape[1]
    K = 5
    out = np.zeros((n, num_actions))
    alive = np.zeros(P, dtype=np.bool_)
    pos = np.zeros(P, dtype=np.int64)
    total = np.zeros(P, dtype=np.int64)
    cw = np.zeros(P)
    face = np.zeros(S, dtype=np.int64)
    unseen = np.zeros(K, dtype=np.int64)
    kv = np.zeros((ti[I_E_BOWL] + 1, P))  # value of each space-independent effect, per seat
    bowl_val = np.zeros((2, P))
    seen = np.zeros((back_comp.shape[0], NT), dtype=np.int64)
    left = np.zeros((back_comp.shape[0], NT))
    wt = np.zeros((back_comp.shape[0], NT))  # weight of each tile kind face down, per back
    sv = np.zeros((P, L))
    co = np.zeros((P, K))
    lure = np.zeros(K)
    ra = 0
    for b in range(n):
        row = obs[b]
        s = out[b]
        kind = kinds[grp[b]]
        tf = tfs[grp[b]]
        win, death, progress, danger = tf[F_WIN], tf[F_DEATH], tf[F_PROGRESS], tf[F_DANGER]
        golden_extra = tf[F_GOLDEN_EXTRA]
        # ---------------------------------------------------------- Reading
        phase = _onehot(row, ti[I_PHASE], ti[I_NUM_PHASES])
        for p in range(P):
            alive[p] = row[ti[I_ALIVE] + p] > 0.5
            pos[p] = _argmax(row, ti[I_POSITION] + p * L, L) if alive[p] else -1
        tiger = _argmax(row, ti[I_TIGER], L)
        g = _argmax(row, ti[I_GOLDEN], P + 3)
        golden = g if g < P else -1
        for p in range(P):
            total[p] = _count(row[ti[I_COCONUTS] + p], 10.0) + (1 if golden == p else 0)
        for k in range(K):
            unseen[k] = _count(row[ti[I_UNSEEN] + k], float(P + 2))
        announce = _onehot(row, ti[I_ANNOUNCE], K)
        known = _onehot(row, ti[I_KNOWN], K)
        pyramid = _onehot(row, ti[I_PYRAMID], K)
        for j in range(S):
            face[j] = _argmax(row, ti[I_TILES] + j * ti[I_TILE_COLS], ti[I_TILE_COLS])
        active = _onehot(row, ti[I_ACTIVE], P)
        receiver = 1
        for p in range(P - 1, 0, -1):
            if alive[p]:
                receiver = p
        # ---------------------------------------------------------- space_values
        for p in range(P):
            tc = total[p]
            cw[p] = 1.0 + 1.0 / max(tc, 1)
            for j in range(2):
                bowl_val[j, p] = cw[p] if row[ti[I_BOWLS] + j] > 0.5 else _loss(tc, 1, death)
            kv[ti[I_E_NONE], p] = 0.0
            kv[ti[I_E_COCONUT], p] = cw[p]
            kv[ti[I_E_GOLDEN], p] = 0.0 if golden == p else cw[p] + golden_extra
            kv[ti[I_E_CHEST], p] = tf[F_CHEST]
            kv[ti[I_E_PYRAMID], p] = tf[F_PYRAMID]
            kv[ti[I_E_MINUS1], p] = _loss(tc, 1, death)
            kv[ti[I_E_MINUS2], p] = _loss(tc, 2, death)
        seen[:] = 0  # face-up tiles of each kind, per back
        for j in range(S):
            if face[j] > 0:
                seen[slot_back[j], face[j] - 1] += 1
        for i in range(back_comp.shape[0]):  # the tile kinds still possible face down, per back
            lsum = 0.0
            for t in range(NT):
                left[i, t] = float(max(back_comp[i, t] - seen[i, t], 0))
                lsum = left[i, t] if t == 0 else lsum + left[i, t]
            denom = max(lsum, 1.0)
            for t in range(NT):
                wt[i, t] = left[i, t] / denom
        for p in range(P):
            for j in range(S):
                x = slots[j]
                j0 = bowl_val[0, p] + progress * float(bowl_spaces[0] - x)
                j1 = bowl_val[1, p] + progress * float(bowl_spaces[1] - x)
                if slot_row[j] == 1:
                    nearest = j0
                elif slot_row[j] == 3:
                    nearest = j1
                else:
                    nearest = max(j0, j1)
                acc = 0.0
                i = slot_back[j]
                for t in range(NT):
                    e = t + 1
                    eff = nearest if e == ti[I_E_NEAREST_BOWL] else kv[e, p]
                    acc = acc + wt[i, t] * eff
                if face[j] > 0:
                    acc = nearest if face[j] == ti[I_E_NEAREST_BOWL] else kv[face[j], p]
                sv[p, x] = acc
            for x in fixed:
                e = fixed_effect[x]
                sv[p, x] = bowl_val[bowl_of[x], p] if e == ti[I_E_BOWL] else kv[e, p]
            for x in range(L):
                v = sv[p, x] + progress * float(x) - (danger if tiger == x + 1 else 0.0)
                if tiger == x:
                    v = win
                elif tiger < x:
                    v = -death
                sv[p, x] = v
            # ------------------------------------------------------ card_outcomes
            pp = max(pos[p], 0)
            for k in range(4):
                dest = pp + k + 1
                val = -death if dest >= L else sv[p, min(dest, L - 1)]
                co[p, k] = val - progress * float(pp)
            co[p, ti[I_CARD_MINUSS]] = _loss(total[p], 1, death)
        # ---------------------------------------------------------- the decision
        if phase == ti[I_PH_ACTIVE]:
            if kind == BELIEVER:
                for a in range(ti[I_NUM_PLAY]):
                    s[a] = rand[ra, a]
                ra += 1
                for a in range(ti[I_A_CROWN], ti[I_A_ACCEPT]):
                    s[a] = -1e9
            else:
                for a in range(num_actions):
                    s[a] = -1e9
                if kind == HONEST:
                    for k in range(K):
                        s[k * 5 + k] = -max(co[receiver, k], 0.0) + 0.5 * co[0, k]
                elif kind == SKEPTIC:
                    for k in range(K):
                        for q in range(K):
                            lure[q] = co[receiver, q]
                        lure[k] = -np.inf
                        best = 0
                        for q in range(1, K):
                            if lure[q] > lure[best]:
                                best = q
                        s[k * 5 + best] = -co[receiver, k]
                else:  # TRACK
                    n_alive = 0
                    for p in range(P):
                        if alive[p]:
                            n_alive += 1
                    back = 1.0 if n_alive == 2 else 0.5
                    harm = 1.0 if n_alive == 2 else 0.6
                    num = 0.0
                    den = 0.0
                    for k in range(K):
                        if k == 0:
                            num = float(unseen[k]) * co[receiver, k]
                            den = float(unseen[k])
                        else:
                            num = num + float(unseen[k]) * co[receiver, k]
                            den = den + float(unseen[k])
                    blind = 1.0 if num / max(den, 1.0) > 0 else 0.0
                    pb = tf[F_P_BELIEVER]
                    for a in range(K):
                        p_acc = pb * (1.0 if co[receiver, a] > 0 else 0.0) + (1.0 - pb) * blind
                        for k in range(K):
                            val = p_acc * harm * -co[receiver, k] + (1.0 - p_acc) * back * co[0, k]
                            s[k * 5 + a] = val + (tf[F_BONUS] if a == k else 0.0)
                    for k in range(K):
                        s[ti[I_A_CROWN] + k] = co[0, k] + (tf[F_BONUS] if ti[I_CROWN_BONUS] else 0.0)
        elif phase == ti[I_PH_RESPOND] or phase == ti[I_PH_RESPOND_SEEN]:
            ann = max(announce, 0)
            if kind == HONEST or kind == BELIEVER:
                ev = co[0, ann]
                margin = 0.0
            else:
                if kind == SKEPTIC:
                    p_truth = 0.0
                    margin = 0.25
                else:
                    act = max(active, 0)
                    t = _count(row[ti[I_TRUTHS] + act], 5.0)
                    bl = _count(row[ti[I_BLUFFS] + act], 5.0)
                    pw = tf[F_PRIOR_WEIGHT]
                    p_truth = (t + pw * tf[F_P_TRUTH]) / (t + bl + pw)
                    margin = 0.0
                tot = 0.0
                for k in range(K):
                    u = 0.0 if (kind == SKEPTIC and k == ann) else float(unseen[k])
                    tot = u if k == 0 else tot + u
                rest = 0.0
                for k in range(K):
                    u = 0.0 if (kind == SKEPTIC and k == ann) else float(unseen[k])
                    qk = u / max(tot, 1.0) if tot > 0 else 1.0 / K
                    rest = qk * co[0, k] if k == 0 else rest + qk * co[0, k]
                ev = p_truth * co[0, ann] + (1.0 - p_truth) * rest
            post_ev = ev
            if known >= 0:
                ev = co[0, known]
                margin = 0.0
            s[ti[I_A_ACCEPT]] = ev - margin
            s[ti[I_A_PASS]] = 0.0
            s[ti[I_A_TELESCOPE]] = 1e6 if tf[F_TELESCOPE] > 0 else -1e9
            if kind == TRACK:
                lo = co[0, 0]
                hi = co[0, 0]
                for k in range(1, K):
                    lo = min(lo, co[0, k])
                    hi = max(hi, co[0, k])
                close = abs(post_ev) < 0.5 * (hi - lo) and known < 0
                s[ti[I_A_TELESCOPE]] = abs(post_ev) + 1.0 if close else -1e9
        # ---------------------------------------------------------- small decisions
        me = max(pos[0], 0)
        if phase == ti[I_PH_PAY]:
            s[ti[I_A_PAY_NORMAL]] = 1.0
        elif phase == ti[I_PH_BOWL]:
            s[ti[I_A_BOWL_1]] = sv[0, bowl_spaces[0]]
            s[ti[I_A_BOWL_2]] = sv[0, bowl_spaces[1]]
        elif phase == ti[I_PH_PYRAMID]:
            m = max(pyramid, 0) + 1
            fwd = me + m
            s[ti[I_A_PYRAMID_FORWARD]] = -death if fwd >= L else sv[0, min(fwd, L - 1)]
            s[ti[I_A_PYRAMID_BACKWARD]] = sv[0, max(me - m, 0)]
        elif phase == ti[I_PH_BONUS]:
            step = me + 1
            s[ti[I_A_BONUS_MONKEY]] = (-death if step >= L else sv[0, min(step, L - 1)]) - progress * float(me)
            front = tiger - 1
            rivals = 0
            n_caught = 0
            for p in range(1, P):
                if alive[p]:
                    rivals += 1
                    if pos[p] == front:
                        n_caught += 1
            if alive[0] and pos[0] == front:
                tiger_val = -death
            elif n_caught == rivals and rivals > 0:
                tiger_val = win
            else:
                tiger_val = 3.0 * n_caught - 0.1
            s[ti[I_A_BONUS_TIGER]] = tiger_val
            s[ti[I_A_BONUS_DECLINE]] = 0.0
        elif phase == ti[I_PH_SCALES]:
            mine = total[0]
            for j in range(1, P):
                gain = (mine + total[j] + 1) // 2 - mine
                s[ti[I_A_SCALES_TARGET] + j - 1] = float(gain) + golden_extra * (1.0 if golden == j else 0.0)
            s[ti[I_A_SCALES_SKIP]] = 0.0
    return out


@njit(cache=True)
def choose(scores, mask, noise):
    """``(n,) int64`` the highest ``scores (n, A) float64`` among the legal actions ``mask (n, A) bool``,
    ties broken by ``noise (n, A)`` uniform draws: :func:`agents.base.argmax_legal` (0 in a row with
    no legal action)."""
    n, A = scores.shape
    out = np.zeros(n, dtype=np.int64)
    for b in range(n):
        best = 0
        best_v = -np.inf
        legal = False
        for a in range(A):
            v = scores[b, a] if mask[b, a] else -np.inf
            v = v + noise[b, a] * 1e-6
            if a == 0 or v > best_v:
                best = a
                best_v = v
            legal = legal or mask[b, a]
        out[b] = best if legal else 0
    return out


@njit(cache=True)
def playout(
    left,
    gen,
    terminated,
    truncated,
    current_player,
    mask,
    ptrs,
    dims,
    step_args,
    observe_args,
    obs_dim,
    kinds,
    tfs,
    P,
    ti,
    slots,
    slot_row,
    slot_back,
    back_comp,
    fixed,
    fixed_effect,
    bowl_of,
    bowl_spaces,
):
    """Play every running row of a state out with one heuristic, in place; the row-steps taken.

    The compiled form of the search agent's step-by-step play-out (``agents.search``) with a
    heuristic of ``kinds`` (one code; not the believer, whose random plays this loop does not draw)
    as the play-out policy: pass after pass, every running row with play-out decisions left
    (``left (B,) int64``, decremented) is observed from its current player, scored by
    :func:`heuristic_scores` and moves by :func:`choose` with tie-breaking noise drawn from ``gen``
    (the agent's generator) as one ``(n, A)`` block for the ``n`` rows of the pass in row order --
    the amounts and order of the agent's own ``act`` on those rows -- then the rows are stepped by
    the game's ``step_at``. A row stops when its game ends or its ``left`` reaches 0 (it is marked
    ``truncated`` for the rest of the loop and unmarked at the end). ``terminated``,
    ``truncated``, ``current_player`` and ``mask`` are the state's own arrays, ``ptrs``, ``dims``,
    ``step_args`` and ``observe_args`` what ``FunkyMonkey.compiled_access`` gives for it.
    Returns -1, having changed nothing more, if the game refuses a move (it cannot: the moves are
    legal by construction).
    """
    table, key0, crown_bonus, num_actions = step_args
    offsets, seat_scale, dense_scale, card_counts = observe_args
    B = left.shape[0]
    A = num_actions
    obs = np.zeros((B, obs_dim), dtype=np.float32)
    player = np.zeros(B, dtype=np.int64)
    acts = np.zeros(B, dtype=np.int64)
    cut = np.zeros(B, dtype=np.bool_)
    rows = np.zeros(B, dtype=np.int64)
    grp = np.zeros(B, dtype=np.int64)
    rand = np.zeros((0, ti[I_NUM_PLAY]))
    steps = 0
    while True:
        n = 0
        for b in range(B):
            if not (terminated[b] or truncated[b]):
                rows[n] = b
                n += 1
                player[b] = current_player[b]
            else:
                player[b] = 0
        if n == 0:
            break
        GK.observe_at(player, obs, ptrs, dims, offsets, seat_scale, dense_scale, card_counts)
        r = rows[:n]
        sub_obs = obs[r]
        sub_mask = mask[r]
        scores = heuristic_scores(
            sub_obs,
            grp[:n],
            kinds,
            tfs,
            P,
            ti,
            rand,
            slots,
            slot_row,
            slot_back,
            back_comp,
            fixed,
            fixed_effect,
            bowl_of,
            bowl_spaces,
            num_actions,
        )
        noise = gen.random((n, A))
        a = choose(scores, sub_mask, noise)
        acts[:] = 0
        for k in range(n):
            acts[r[k]] = a[k]
        steps += n
        if not GK.step_at(acts, ptrs, dims, table, key0, crown_bonus, num_actions):
            steps = -1
            break
        for k in range(n):
            b = r[k]
            left[b] -= 1
            if left[b] <= 0 and not (terminated[b] or truncated[b]):
                truncated[b] = True
                cut[b] = True
    for b in range(B):
        if cut[b]:
            truncated[b] = False
    return steps
