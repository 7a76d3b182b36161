"""Monkey Fun rules as numba-compiled kernels over a batch of games.

Each batch kernel takes the state's numpy arrays as one tuple ``st`` (leading batch axis ``B``,
dtypes as in :class:`~monkey_envs.monkey_fun.state.MonkeyFunState`, order of :data:`STATE_FIELDS`)
and the game's lookup tables as one tuple ``rules`` (order of :data:`RULES_FIELDS`), and runs a
compiled loop over the rows: no Python code runs per row, so a step's cost grows with ``B``
only through that loop's work. Kernels are compiled on first use and cached on disk
(``cache=True``, in ``__pycache__``), so later processes load the machine code (about a second)
instead of compiling again (once per checkout and change; see "Compile time" below).
numba keys that cache on this file only, while the kernels also compile in constants of
``data.py`` / ``state.py`` and functions of :mod:`monkey_envs.core.rng`; so at import a cache built
from other versions of those files is dropped (:func:`monkey_envs.core.kernel_cache.drop_stale_cache`).

Notation: ``b`` a row, ``cp`` the seat to move, ``f`` a field index (``row * 6 + col``), ``a``
an action (``a < 15`` plays the hand slots of bitmask ``a + 1``; 15 discards the hand).

Where the time went, found with ``perf`` (software clock samples of the benchmark loop, JIT
addresses matched to the kernels; ``benchmarks/throughput.py --profile`` gives the per-call
split): about a sixth of the loop was glibc ``memset``, called for the 2,160 zero bytes of the
action-field piece of every row (``af[:] = 0.0``; above 2,048 bytes glibc takes ``rep stosb``, slow
on these AMD cores), and about a tenth was numba's atomic reference counts (``lock inc`` / ``lock
dec``): one pair for every per-row view and for every array handed to an inlined helper
(:func:`legal_row`, :func:`has_line`, :func:`draw_row`), which numba's pruning pass cannot remove.
So the row loops (:func:`step_rows`, :func:`deal_rows`, :func:`observe_rows`) are compiled without
reference counting (:func:`~monkey_envs.core.kernel_cache.njit_borrowed`), their scratch arrays
made in Python once per game configuration (:func:`step_work`, :func:`deal_work`,
:func:`observe_work`), and zeros are stored by vector loops that LLVM cannot turn into ``memset`` (a zero read at run time;
the pile clear in :func:`draw_row` is a select). Together: the benchmark loop at ``B = 4096`` in
0.78-0.89x of its time before, bit for bit the same states and observations.
Then :func:`legal_row` (a quarter of ``step``: calling it twice per row added 0.22 ms a call)
reads the owners once into a 36-bit mask of the fields the seat may place on (a vectorized loop)
instead of gathering one owner per subset: ``step`` 0.92x.

Grouping: a kernel takes its arrays out of ``st`` and ``rules`` once, before its loop over the rows
(``st[F.counts]``: numba resolves a constant index into a tuple when it compiles). A per-row helper
that runs in that loop gets its arrays from tuples built there too (``board``, ``legal``, ``ends``);
it never indexes ``st`` itself. (With reference counting, each array taken out of a tuple was an
increment and a decrement, which inside the row loop cost ``step`` up to 65% at ``B = 4096``.)
The draw helpers (:func:`draw_row`, :func:`reshuffle_row`) keep their arrays one by one.

Tried before that and measured slower or no faster (2 players, ``B = 4096``, old and new kernels
timed in one process; with reference counting and ``memset``): indexing ``obs``/``counts``/``owner``/``hands`` directly instead of the per-row views
(``observe`` +15-20%, ``step`` +15%),
more views in ``step`` (+5%), ``observe`` compiled per player count with constant offsets (same),
``action_field`` by a compare per cell (+100%), counts and owners as pairs of float bits in
``uint64`` stores (+10%), one fill of the whole row and owners written sparsely (+5-25%), rows built
in an L1 scratch row and copied out (+15-30%; with streaming non-temporal stores, +45% to +200% in
the benchmark loop), software prefetch of the rows ahead (``step`` +2%, ``observe`` +10%), branch-free
card play and draw (same), unsigned subset sums (same), ``step`` compiled per player count (same).
Now most of :func:`observe_rows`' time in the benchmark loop is the stores themselves: 3,008 bytes a
row, 12.3 MB a call at ``B = 4096``, more than the L2 holds.

Unsigned indices (``arr[np.uint64(i)]``: numba then emits no negative-index wraparound) pay only
in :func:`observe_rows`' 3-4 player loops, whose cells sit at ``offset + f * P + r`` (about 0.85x of
the signed loop at 4 players, ``B = 4096``). Elsewhere they changed nothing: ``step``'s machine
code came out identical (LLVM had already proved those loop counters non-negative), and the
2-player ``observe`` and ``deal`` timed the same. Indices taken from state values (a seat, a
card, a field that may be -1) stay signed.

Compile time (issue 23 item 2: a fresh process with an empty numba cache, to the first AEC step).
numba compiles each kernel into its own LLVM module and links every callee's module into its
caller's, where LLVM optimises and generates machine code for all of it again; an inlined helper
(``inline="always"``) is re-typed and re-optimised at every call site; and a callee called with a
bare int constant is compiled once per literal value. So: Python calls the row loops directly (a
compiled wrapper allocating their scratch compiled the whole row loop a second time),
:func:`step_rows` has one :func:`legal_row` site for the solo and the normal game (it had two),
:func:`~monkey_envs.core.rng.shuffle_order` gets ``int64`` sizes (it was compiled three times, for
the literals 0 and 55), and ``_u`` is ``np.uint64`` itself (it was an inlined helper at 43 sites).
Measured in one run on a loaded 2-core machine (CPU s, old / new, ``benchmarks/cold_start.py``'s
cells): see docs/monkey_fun.md. Tried and not kept: :func:`legal_row` as a called (not inlined)
kernel compiled about 1 CPU-s less, but LLVM keeps the call and ``step`` ran about 15% slower.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from monkey_envs.core.kernel_cache import drop_stale_cache, njit_borrowed
from monkey_envs.core.rng import next_uniform, seed_row, shuffle_order
from monkey_envs.core.schema import field_index, field_names
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import (
    END_LINE,
    END_NONE,
    END_SOLO_COMPLETE,
    END_SOLO_ROUNDS,
    END_SOLO_STUCK,
    END_SUPPLIES,
    MonkeyFunState,
)

drop_stale_cache(__file__)

NUM_SUBSETS = 15
DISCARD_ACTION = 15
NUM_ACTIONS = 16
HAND = D.HAND_SIZE
FIELDS = D.NUM_FIELDS
CARDS = D.NUM_CARDS
MAX_CARD = D.MAX_CARD
MONKEYS = D.MONKEYS_PER_PLAYER
MARGIN = D.SECURE_MARGIN
SOLO_MAX_TOWERS = D.SOLO_MAX_TOWERS
SOLO_MAX_PER_FIELD = D.SOLO_MAX_PER_FIELD
REWARD_WIN = np.float32(D.REWARD_WIN)
REWARD_LOSS = np.float32(D.REWARD_LOSS)
REWARD_DRAW = np.float32(D.REWARD_DRAW)
#: A value no card has: a subset using an empty slot sums to more than any field number.
EMPTY_SLOT_VALUE = HAND * MAX_CARD + 1
#: ``(36,) bool`` inner 4x4 square (solo).
INNER_MASK = np.zeros(FIELDS, dtype=np.bool_)
INNER_MASK[list(D.INNER_FIELDS)] = True
INNER_IDX = np.array(D.INNER_FIELDS, dtype=np.intp)
#: ``(55,) int8`` the deck, sorted.
DECK = np.array(D.DECK, dtype=np.int8)
#: Observation pieces in layout order (:func:`observe_rows` writes them back to back, every cell).
OBS_PIECES = (
    "hand",
    "action_field",
    "counts",
    "owner",
    "field_value",
    "supply",
    "box",
    "discard",
    "draw_size",
    "to_move",
    "solo",
)
#: Order of the state arrays in the tuple ``st`` the batch kernels take (the fields of
#: :class:`~monkey_envs.monkey_fun.state.MonkeyFunState`), and their indices: ``st[F.pos]``.
STATE_FIELDS = field_names(MonkeyFunState)
F = field_index(MonkeyFunState)
#: The state arrays :func:`observe_rows` reads besides ``counts``, in the order of its tuple ``seen``
#: (only these: each array in a tuple is unboxed on every call, about 0.15 us at ``B = 1``).
OBSERVED_FIELDS = ("current_player", "owner", "supply", "box", "hands", "draw_size", "discard")
#: Names of the lookup tables in the tuple ``rules`` the batch kernels take, in order (built once
#: per game configuration by :class:`~monkey_envs.monkey_fun.rules.MonkeyFun`): ``field_of_sum
#: (309,) intp`` field of each subset sum (-1: none), ``field_number (36,) int64`` number printed
#: on each field, ``window_bits (W,) uint64`` field bitmask of each winning window, ``next_seat
#: (P, 2**P) int8`` seat to move after ``cp`` given the bitmask of seats with monkeys left,
#: ``field_value (36,) float32`` field number / 36, ``obs_offsets (11,) int64`` start of each
#: piece of :data:`OBS_PIECES`, and the flags ``solo`` (the solo game) and ``own_ok`` (may a seat
#: place on a field it secured).
RULES_FIELDS = (
    "field_of_sum",
    "field_number",
    "window_bits",
    "next_seat",
    "field_value",
    "obs_offsets",
    "solo",
    "own_ok",
)
FIELD_OF_SUM, FIELD_NUMBER, WINDOW_BITS, NEXT_SEAT, FIELD_VALUE, OBS_OFFSETS, SOLO, OWN_OK = range(len(RULES_FIELDS))
#: Type of ``st`` (the arrays of :data:`STATE_FIELDS`).
StateArrays = tuple[np.ndarray, ...]
#: Type of ``rules`` (the tables and flags of :data:`RULES_FIELDS`).
RulesTables = tuple[np.ndarray | bool, ...]
#: ``(hands, owner, counts, mask)``: the arrays :func:`legal_row` reads and writes.
Board = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: ``(field_of_sum, solo, own_ok)``: the rules :func:`legal_row` applies.
LegalRules = tuple[np.ndarray, bool, bool]
#: ``(rewards, winners_mask, terminated, end_reason, mask, current_player)``: what :func:`finish_row` writes.
EndArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: The deck size as an ``int64`` value for :func:`~monkey_envs.core.rng.shuffle_order`: numba types a
#: bare int constant as a literal and compiles a callee once per literal value it is passed.
_CARDS = np.int64(CARDS)
_F025 = np.float32(0.25)
_F_CARD = np.float32(1 / MAX_CARD)
_F_MONKEY = np.float32(1 / MONKEYS)
_F_PILE = np.float32(1 / CARDS)
_F_ROUNDS = np.float32(1 / D.SOLO_ROUNDS)
_ONE_F = np.float32(1.0)


# ====================================================================== per-row helpers
@njit(cache=True, inline="always")
def sort4(hand: np.ndarray) -> None:
    """Sort a hand ``(4,)`` ascending in place (a 5-comparator sorting network, no branches)."""
    h0, h1, h2, h3 = hand[0], hand[1], hand[2], hand[3]
    h0, h1 = min(h0, h1), max(h0, h1)
    h2, h3 = min(h2, h3), max(h2, h3)
    h0, h2 = min(h0, h2), max(h0, h2)
    h1, h3 = min(h1, h3), max(h1, h3)
    h1, h2 = min(h1, h2), max(h1, h2)
    hand[0], hand[1], hand[2], hand[3] = h0, h1, h2, h3


#: ``_u(i)``: ``i`` as an unsigned index (numba then emits no negative-index wraparound for it).
#: The numpy type itself, not an inlined helper: numba would copy a helper's IR into every call site.
_u = np.uint64


@njit(cache=True, inline="always")
def subset_fields(h0: int, h1: int, h2: int, h3: int, field_of_sum: np.ndarray, out: np.ndarray) -> None:
    """Field each subset action of one sorted hand ``h0 <= h1 <= h2 <= h3`` places on, into ``out (15,) intp``.

    The hand's four slots are passed as values (``int8``, 0 for an empty slot), not as a view of
    the hands array (see :func:`observe_rows` on views). -1 when the subset's sum is no field number
    or the subset uses an empty slot (its sum then exceeds 76: ``field_of_sum`` is -1 there).
    """
    v0 = h0 if h0 != 0 else EMPTY_SLOT_VALUE
    v1 = h1 if h1 != 0 else EMPTY_SLOT_VALUE
    v2 = h2 if h2 != 0 else EMPTY_SLOT_VALUE
    v3 = h3 if h3 != 0 else EMPTY_SLOT_VALUE
    s01 = v0 + v1
    s23 = v2 + v3
    # action a plays the slots of bitmask a + 1
    out[0] = field_of_sum[v0]
    out[1] = field_of_sum[v1]
    out[2] = field_of_sum[s01]
    out[3] = field_of_sum[v2]
    out[4] = field_of_sum[v0 + v2]
    out[5] = field_of_sum[v1 + v2]
    out[6] = field_of_sum[s01 + v2]
    out[7] = field_of_sum[v3]
    out[8] = field_of_sum[v0 + v3]
    out[9] = field_of_sum[v1 + v3]
    out[10] = field_of_sum[s01 + v3]
    out[11] = field_of_sum[s23]
    out[12] = field_of_sum[v0 + s23]
    out[13] = field_of_sum[v1 + s23]
    out[14] = field_of_sum[s01 + s23]


@njit(cache=True, inline="always")
def legal_row(b: int, cp: int, board: Board, legal: LegalRules, scratch: np.ndarray) -> bool:
    """Write row ``b``'s legal mask for seat ``cp``; return True when a solo player is stuck.

    Normal game: a subset is legal when its sum is a field that nobody secured (or that ``cp``
    secured, with ``own_ok``); action 15 is legal only when no subset is. Solo: free inner
    fields first; only with none, a minus tower on an occupied inner field (at most 5 monkeys,
    at most 4 towers). Outside solo nobody is stuck (action 15 discards). ``scratch (15,) intp``.
    """
    hands, owner, counts, mask = board
    field_of_sum, solo, own_ok = legal
    subset_fields(hands[b, cp, 0], hands[b, cp, 1], hands[b, cp, 2], hands[b, cp, 3], field_of_sum, scratch)
    any_ok = False
    if not solo:
        ob = owner[b]
        free = np.uint64(0)  # bit f: cp may place on field f (nobody secured it, or cp did with own_ok)
        for f in range(FIELDS):
            o = ob[f]
            free |= np.uint64((o == -1) | (own_ok & (o == cp))) << np.uint64(f)
        for a in range(NUM_SUBSETS):
            # no field (-1) reads bit 63, which no field sets
            ok = ((free >> (np.uint64(scratch[a]) & np.uint64(63))) & np.uint64(1)) != 0
            mask[b, a] = ok
            any_ok |= ok
        mask[b, DISCARD_ACTION] = not any_ok
        return False
    towers = 0
    for f in range(FIELDS):
        if INNER_MASK[f] and counts[b, f, 0] >= 2:
            towers += 1
    any_free = False
    for a in range(NUM_SUBSETS):
        f = scratch[a]
        if f >= 0 and INNER_MASK[f] and counts[b, f, 0] == 0:
            any_free = True
    for a in range(NUM_SUBSETS):
        f = scratch[a]
        ok = False
        if f >= 0 and INNER_MASK[f]:
            c = counts[b, f, 0]
            if any_free:
                ok = c == 0
            else:
                ok = c >= 1 and c < SOLO_MAX_PER_FIELD and (c >= 2 or towers < SOLO_MAX_TOWERS)
        mask[b, a] = ok
        any_ok |= ok
    mask[b, DISCARD_ACTION] = False
    return not any_ok


@njit_borrowed(cache=True)
def finish_row(b: int, winners: np.ndarray, reason: int, ends: EndArrays) -> None:
    """End game ``b`` with ``winners (P,) bool``: +1 each winner, -1 the others, 0 each if all share.

    Callers pass ``reason`` (an ``END_*`` code) as ``np.int64``, not as the bare constant (which
    numba types as a literal), so one compiled version serves every code.
    """
    rewards, winners_mask, terminated, end_reason, mask, current_player = ends
    P = winners.size
    everyone = P > 1
    for p in range(P):
        everyone &= winners[p]
    for p in range(P):
        if everyone:
            rewards[b, p] = REWARD_DRAW
        elif winners[p]:
            rewards[b, p] = REWARD_WIN
        else:
            rewards[b, p] = REWARD_LOSS
        winners_mask[b, p] = winners[p]
    terminated[b] = True
    end_reason[b] = reason
    mask[b, :] = False
    current_player[b] = -1


@njit_borrowed(cache=True)
def final_scores_row(
    counts: np.ndarray,
    field_number: np.ndarray,
    scores: np.ndarray,
    winners: np.ndarray,
    best: np.ndarray,
    total: np.ndarray,
) -> None:
    """Score one board ``counts (36, P)`` into ``scores (P,)`` and ``winners (P,) bool``.

    Per field the unique highest count keeps it (a tie voids it); a seat scores the numbers of
    its kept fields. Winners: the highest score, ties broken by the highest kept field (a seat
    keeping nothing has 0); all-zero ties stay shared. ``best`` and ``total`` ``(P,) int64`` are
    scratch (cleared here).
    """
    P = counts.shape[1]
    for p in range(P):
        best[p] = 0
        total[p] = 0
    for f in range(FIELDS):
        top = 0
        n_top = 0
        seat = -1
        for p in range(P):
            c = counts[f, p]
            if c > top:
                top = c
                n_top = 1
                seat = p
            elif c == top and c > 0:
                n_top += 1
        if top > 0 and n_top == 1:
            num = field_number[f]
            total[seat] += num
            best[seat] = max(best[seat], num)
    top_key = np.int64(-1)
    for p in range(P):
        top_key = max(top_key, total[p] * 64 + best[p])
    for p in range(P):
        scores[p] = total[p]
        winners[p] = total[p] * 64 + best[p] == top_key


@njit(cache=True, inline="always")
def has_line(b: int, cp: int, counts: np.ndarray, owner: np.ndarray, window_bits: np.ndarray) -> bool:
    """Does seat ``cp`` hold the majority on every field of some window of row ``b``?

    A majority field is one where the seat's count beats every other seat's, or one it secured.
    """
    P = counts.shape[2]
    c = counts[b]
    o = owner[b]
    maj = np.uint64(0)
    if P == 2:  # the common case: one loop per seat, so both counts are read at fixed offsets
        if cp == 0:
            for f in range(FIELDS):
                hit = (c[f, 0] > c[f, 1]) | (o[f] == 0)
                maj |= np.uint64(hit) << np.uint64(f)
        else:
            for f in range(FIELDS):
                hit = (c[f, 1] > c[f, 0]) | (o[f] == 1)
                maj |= np.uint64(hit) << np.uint64(f)
    else:
        for f in range(FIELDS):
            best = 0
            for k in range(P):
                best = max(best, c[f, k] if k != cp else 0)
            hit = (c[f, cp] > best) | (o[f] == cp)
            maj |= np.uint64(hit) << np.uint64(f)
    found = False  # no early exit: the compiler vectorizes this reduction
    for w in range(window_bits.size):
        found |= (maj & window_bits[w]) == window_bits[w]
    return found


@njit_borrowed(cache=True)
def reshuffle_row(
    b: int,
    rng: np.ndarray,
    draw_pile: np.ndarray,
    draw_size: np.ndarray,
    discard: np.ndarray,
    keys: np.ndarray,
    order: np.ndarray,
    cards: np.ndarray,
) -> None:
    """Shuffle row ``b``'s discard pile under the cards left in its draw pile (drawn first).

    The discard counts are laid out in ascending value order and shuffled with the row's stream
    (:func:`~monkey_envs.core.rng.shuffle_order` over all 55 slots); the old pile's cards
    keep their order on top. ``keys (55,) float64``, ``order (111,) intp`` and
    ``cards (55,) int8`` are scratch.
    """
    nd = np.int64(0)  # not a bare 0: numba would also compile shuffle_order for a literal 0
    for v in range(MAX_CARD + 1):
        for _ in range(discard[b, v]):
            if nd < CARDS:
                cards[nd] = v
            nd += 1
    shuffle_order(rng, b, nd, _CARDS, keys, order)
    left = np.int64(draw_size[b])
    pile = draw_pile[b]
    for k in range(CARDS - 1, -1, -1):  # top down: the old cards move up by nd, in place
        if k >= nd + left:
            pile[k] = 0
        elif k >= nd:
            pile[k] = pile[min(k - nd, CARDS - 1)]
        else:
            pile[k] = cards[order[k]]
    draw_size[b] = nd + left
    discard[b, :] = 0


@njit(cache=True, inline="always")
def draw_row(
    b: int,
    cp: int,
    rest: np.ndarray,
    pattern: int,
    rng: np.ndarray,
    hands: np.ndarray,
    draw_pile: np.ndarray,
    draw_size: np.ndarray,
    discard: np.ndarray,
    keys: np.ndarray,
    order: np.ndarray,
    cards: np.ndarray,
) -> None:
    """Refill seat ``cp``'s hand ``rest (4,)`` in the slots of bitmask ``pattern`` from row ``b``'s pile.

    The k-th slot to fill takes the k-th card from the top; the hand is stored sorted. When the
    pile runs short, the discard pile (with the cards just played) is shuffled in under it first.
    The pile is cleared above its new top. ``keys``, ``order`` and ``cards`` are the
    reshuffle's scratch (see :func:`reshuffle_row`).
    """
    need = 0
    for j in range(HAND):
        need += (pattern >> j) & 1
    if draw_size[b] < need:
        reshuffle_row(b, rng, draw_pile, draw_size, discard, keys, order, cards)
    size = np.int64(draw_size[b])
    depth = 0
    for j in range(HAND):
        if (pattern >> j) & 1:
            depth += 1
            pos = size - depth
            if pos < 0:
                pos += CARDS
            rest[j] = draw_pile[b, pos]
    sort4(rest)
    for j in range(HAND):
        hands[b, cp, j] = rest[j]
    new_size = size - need
    draw_size[b] = new_size
    for k in range(CARDS):  # clear the pile from the new top (a select: no memset call, no view)
        card = draw_pile[b, k]
        draw_pile[b, k] = card if k < new_size else 0


@njit(cache=True, inline="always")
def row_tuples(st: StateArrays, rules: RulesTables) -> tuple[Board, LegalRules, EndArrays]:
    """The tuples the per-row helpers take, ``(board, legal, ends)`` (see :data:`Board` etc.).

    Built once per kernel call, before the loop over the rows.
    """
    board = (st[F.hands], st[F.owner], st[F.counts], st[F.legal_action_mask])
    legal = (rules[FIELD_OF_SUM], rules[SOLO], rules[OWN_OK])
    ends = (
        st[F.rewards],
        st[F.winners_mask],
        st[F.terminated],
        st[F.end_reason],
        st[F.legal_action_mask],
        st[F.current_player],
    )
    return board, legal, ends


# ====================================================================== batch kernels
@njit(cache=True)
def refresh(st: StateArrays, rules: RulesTables) -> None:
    """Recompute every row's legal mask for its current player; a stuck solo player loses."""
    current_player, mask = st[F.current_player], st[F.legal_action_mask]
    board, legal, ends = row_tuples(st, rules)
    P = st[F.rewards].shape[1]
    scratch = np.empty(NUM_SUBSETS, np.intp)
    nobody = np.zeros(P, np.bool_)
    for b in range(mask.shape[0]):
        cp = np.int64(current_player[b])
        if legal_row(b, cp, board, legal, scratch):
            finish_row(b, nobody, np.int64(END_SOLO_STUCK), ends)


def deal_work(num_players: int) -> tuple[np.ndarray, ...]:
    """The scratch arrays :func:`deal_rows` takes (``work``), for ``num_players`` seats.

    ``(pile (55,) int8, keys (55,) float64, order (111,) intp, scratch (15,) intp, nobody (P,) bool)``:
    the shuffled deck, the shuffle's keys and order, the field of each subset, and an all-False
    winners row (a stuck solo game), which no kernel writes. Built once per game configuration and
    reused by every call (the kernels hold the GIL: no two calls run at once).
    """
    return (
        np.empty(CARDS, np.int8),
        np.empty(CARDS, np.float64),
        np.empty(2 * CARDS + 1, np.intp),
        np.empty(NUM_SUBSETS, np.intp),
        np.zeros(num_players, np.bool_),
    )


@njit_borrowed(cache=True)
def deal_rows(
    rows: np.ndarray, seeds: np.ndarray, st: StateArrays, rules: RulesTables, work: tuple[np.ndarray, ...]
) -> None:
    """Start a new game in each row ``rows[i]`` from ``seeds[i]`` (``rows (n,) intp``, ``seeds (n,) int64`` >= 0).

    :meth:`~monkey_envs.monkey_fun.rules.MonkeyFun.init` is this kernel over ``rows = arange(B)``
    and the in-place autoreset (``reset_rows``) over the finished rows, so a restarted row equals
    a new game bit for bit. Per row: every array is set to its start value (no rewards, not
    finished, step 0, an empty board with full supplies, empty boxes and discard pile, no
    scores, no last field), the row's RNG is seeded, the 55-card deck shuffled, 4 cards dealt to
    each seat from the top (stored sorted), the rest left as the draw pile, the starting seat
    drawn and its legal mask computed (a solo game that cannot place at all is lost at once).
    Compiled without reference counting; ``work`` is :func:`deal_work`'s scratch.
    """
    rng, current_player, hands = st[F.rng], st[F.current_player], st[F.hands]
    draw_pile, draw_size = st[F.draw_pile], st[F.draw_size]
    rewards, terminated, truncated, step_count = st[F.rewards], st[F.terminated], st[F.truncated], st[F.step_count]
    counts, owner, supply, box, discard = st[F.counts], st[F.owner], st[F.supply], st[F.box], st[F.discard]
    scores, winners_mask, end_reason, last_field = st[F.scores], st[F.winners_mask], st[F.end_reason], st[F.last_field]
    board, legal, ends = row_tuples(st, rules)
    P = hands.shape[1]
    pile, keys, order, scratch, nobody = work
    for i in range(rows.size):
        b = rows[i]
        # ---- the start values of every array the deal below does not write
        terminated[b] = False
        truncated[b] = False
        step_count[b] = 0
        end_reason[b] = END_NONE
        last_field[b] = -1
        for p in range(P):
            rewards[b, p] = 0.0
            supply[b, p] = MONKEYS
            box[b, p] = 0
            scores[b, p] = 0
            winners_mask[b, p] = False
        counts[b] = 0
        owner[b] = -1
        discard[b] = 0
        # ---- the deal
        seed_row(rng, b, seeds[i])
        shuffle_order(rng, b, _CARDS, _CARDS, keys, order)
        for k in range(CARDS):
            pile[k] = DECK[order[k]]
        top = CARDS
        for p in range(P):
            hand = hands[b, p]
            for j in range(HAND):
                hand[j] = pile[top - HAND + j]
            sort4(hand)
            top -= HAND
        for k in range(CARDS):
            draw_pile[b, k] = pile[k] if k < top else 0
        draw_size[b] = top
        u = next_uniform(rng, b)
        cp = min(np.int64(u * P), P - 1)
        current_player[b] = cp
        if legal_row(b, cp, board, legal, scratch):
            finish_row(b, nobody, np.int64(END_SOLO_STUCK), ends)


def step_work(num_players: int) -> tuple[np.ndarray, ...]:
    """The scratch arrays :func:`step_rows` takes (``work``), for ``num_players`` seats.

    ``(scratch (15,) intp, hand (4,) int8, winners (P,) bool, final scores (P,) int64, reshuffle keys
    (55,) float64, order (111,) intp and cards (55,) int8, final scoring's best kept field and total
    (P,) int64)``; every one is written before it is read. Built once per game configuration
    and reused by every call (the kernels hold the GIL: no two calls run at once).
    """
    P = num_players
    return (
        np.empty(NUM_SUBSETS, np.intp),
        np.empty(HAND, np.int8),
        np.zeros(P, np.bool_),
        np.zeros(P, np.int64),
        np.empty(CARDS, np.float64),
        np.empty(2 * CARDS + 1, np.intp),
        np.empty(CARDS, np.int8),
        np.empty(P, np.int64),
        np.empty(P, np.int64),
    )


@njit_borrowed(cache=True)
def step_rows(actions: np.ndarray, st: StateArrays, rules: RulesTables, work: tuple[np.ndarray, ...]) -> bool:
    """Validate ``actions (B,) int64`` and apply them to the running rows; False if one is invalid.

    First every running row's action is checked (in ``[0, 16)`` and legal); if one is not,
    nothing is changed and False is returned. Otherwise every row's rewards are zeroed and each
    running row (not terminated nor truncated) advances its ``step_count`` and the game:
    play the subset's cards (or discard the hand) onto the discard pile, place one
    monkey on the field of their sum (a discard boxes it), secure the field (count >= every
    other + 2: the others' monkeys there go to the box), check a line (normal/quick) or the full
    inner square (solo), draw back up to 4 (not after a win), pass to the next seat with monkeys
    left and compute its mask, and end the game when it is over. Finished rows ignore their
    action and stay as they are. Compiled without reference counting; ``work`` is
    :func:`step_work`'s scratch.
    """
    current_player, rewards, mask = st[F.current_player], st[F.rewards], st[F.legal_action_mask]
    terminated, truncated, step_count = st[F.terminated], st[F.truncated], st[F.step_count]
    rng, counts, owner, supply, box = st[F.rng], st[F.counts], st[F.owner], st[F.supply], st[F.box]
    hands, draw_pile, draw_size, discard = st[F.hands], st[F.draw_pile], st[F.draw_size], st[F.discard]
    scores, last_field = st[F.scores], st[F.last_field]
    field_of_sum, field_number, window_bits = rules[FIELD_OF_SUM], rules[FIELD_NUMBER], rules[WINDOW_BITS]
    next_seat, solo = rules[NEXT_SEAT], rules[SOLO]
    board, legal, ends = row_tuples(st, rules)
    B, P = rewards.shape
    for b in range(B):
        if not (terminated[b] or truncated[b]):
            a = actions[b]
            if a < 0 or a >= NUM_ACTIONS or not mask[b, a]:
                return False
    rewards[:] = 0.0
    scratch, hand, winners, fscores, keys, order, cards, fs_best, fs_total = work
    for b in range(B):
        if terminated[b] or truncated[b]:
            continue
        step_count[b] += 1
        a = actions[b]
        cp = np.int64(current_player[b])

        # ---- 1. play cards (or discard the whole hand: action 15 plays all four slots) -------
        bits = a + 1 if a < NUM_SUBSETS else 15
        total = 0
        for j in range(HAND):
            v = hands[b, cp, j]
            if (bits >> j) & 1:
                hand[j] = 0
                total += v
                if v != 0:
                    discard[b, v] += 1
            else:
                hand[j] = v
        supply[b, cp] -= 1

        # ---- 2. place one monkey ------------------------------------------------------------
        place = a != DISCARD_ACTION
        field = field_of_sum[total] if place else -1
        last_field[b] = field
        if not place:
            box[b, cp] += 1
        won = False
        if place:
            counts[b, field, cp] += 1
            if not solo:
                # securing: count >= every other count + 2 (the others' monkeys go to the box)
                mine = counts[b, field, cp]
                sec = owner[b, field] == -1
                for k in range(P):
                    if k != cp and counts[b, field, k] + MARGIN > mine:
                        sec = False
                if sec:
                    for k in range(P):
                        if k != cp:
                            box[b, k] += counts[b, field, k]
                            counts[b, field, k] = 0
                    owner[b, field] = cp
                won = has_line(b, cp, counts, owner, window_bits)
            else:
                won = True
                for i in range(INNER_IDX.size):
                    if counts[b, INNER_IDX[i], 0] < 1:
                        won = False
                if won:
                    minus = 0
                    for i in range(INNER_IDX.size):
                        f = INNER_IDX[i]
                        if counts[b, f, 0] >= 2:
                            minus += field_number[f]
                    scores[b, 0] = field_number[field] - minus

        # ---- 3. draw back up to 4 (nobody draws after a win) ----------------------------------
        draw_row(b, cp, hand, 0 if won else bits, rng, hands, draw_pile, draw_size, discard, keys, order, cards)

        # ---- end of game / next player ----------------------------------------------------------
        # one legal_row call site for both games (an inlined helper is compiled once per site):
        # solo keeps its seat, the normal game passes to the next seat with monkeys left
        key = 0
        if solo:
            nxt = cp
        else:
            for k in range(P):
                if supply[b, k] > 0:
                    key |= 1 << k
            nxt = np.int64(next_seat[cp, key])
            current_player[b] = nxt
        stuck = legal_row(b, nxt, board, legal, scratch)  # always False outside solo
        if solo:
            if stuck:
                winners[0] = False
                finish_row(b, winners, np.int64(END_SOLO_STUCK), ends)
            if not won and supply[b, 0] == 0:
                winners[0] = False
                finish_row(b, winners, np.int64(END_SOLO_ROUNDS), ends)
            if won:
                winners[0] = True
                finish_row(b, winners, np.int64(END_SOLO_COMPLETE), ends)
        else:
            if key == 0 and not won:
                final_scores_row(counts[b], field_number, fscores, winners, fs_best, fs_total)
                for k in range(P):
                    scores[b, k] = fscores[k]
                finish_row(b, winners, np.int64(END_SUPPLIES), ends)
            if won:
                for k in range(P):
                    winners[k] = k == cp
                finish_row(b, winners, np.int64(END_LINE), ends)
    return True


@njit(cache=True)
def final_scores(counts: np.ndarray, field_number: np.ndarray, scores: np.ndarray, winners: np.ndarray) -> None:
    """:func:`final_scores_row` of every board of ``counts (n, 36, P)`` into ``scores (n, P)``, ``winners (n, P)``."""
    P = counts.shape[2]
    best = np.empty(P, np.int64)
    total = np.empty(P, np.int64)
    for i in range(counts.shape[0]):
        final_scores_row(counts[i], field_number, scores[i], winners[i], best, total)


def observe_work(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """The scratch arrays :func:`observe_rows` takes: ``scratch (15,) intp`` and ``rot (P,) intp``.

    Built once per game configuration and reused by every call (the kernels hold the GIL).
    """
    return np.empty(NUM_SUBSETS, np.intp), np.empty(num_players, np.intp)


@njit_borrowed(cache=True)
def observe_rows(
    player: np.ndarray,
    obs: np.ndarray,
    counts: np.ndarray,
    seen: tuple[np.ndarray, ...],
    rules: RulesTables,
    scratch: np.ndarray,
    rot: np.ndarray,
) -> None:
    """Write every row's observation for seat ``player[b]`` into ``obs (B, D) float32`` (all of it).

    ``seen`` holds the other state arrays it reads (order of :data:`OBSERVED_FIELDS`);
    ``rules[OBS_OFFSETS] (11,) int64`` the start of each piece of :data:`OBS_PIECES` (the layout
    of :class:`~monkey_envs.monkey_fun.rules.MonkeyFun`, pieces back to back). Seats are listed
    observer-first (slot ``r`` is seat ``(player + r) % P``); ``player (B,) int64`` in ``[0, P)``.
    ``obs``, ``counts`` and the arrays of ``seen`` must be C-contiguous (the loop reads them flat;
    the caller copies a strided state's arrays first). ``scratch (15,) intp`` and ``rot (P,) intp``
    are scratch (:func:`observe_work`). Compiled without reference counting.

    Every array is indexed flat, at ``row * width + offset`` in unsigned arithmetic: no per-row
    view is made (a view that crosses the row's inner loops costs an atomic reference-count
    increment and decrement, which numba's pruning cannot remove) and no wraparound is computed.
    The zero cells are stored by vector loops of a zero read at run time (``zero``), because LLVM
    turns a loop storing the constant 0 into a ``memset`` call, and glibc's ``memset`` takes
    ``rep stosb`` for the 2,160 bytes of the action-field piece, which on these AMD cores cost more
    than all the rest of the row (see the module docstring).
    """
    current_player, owner, supply, box, hands, draw_size, discard = seen
    field_of_sum, field_value, offsets, solo = rules[FIELD_OF_SUM], rules[FIELD_VALUE], rules[OBS_OFFSETS], rules[SOLO]
    B, dim = obs.shape
    P = supply.shape[1]
    n_disc = discard.shape[1]
    of = obs.reshape(obs.size)
    cf = counts.reshape(counts.size)
    hf = hands.reshape(hands.size)
    owf = owner.reshape(owner.size)
    sf = supply.reshape(supply.size)
    bf = box.reshape(box.size)
    df = discard.reshape(discard.size)
    o_hand, o_af, o_counts, o_owner, o_fv = (
        _u(offsets[0]),
        _u(offsets[1]),
        _u(offsets[2]),
        _u(offsets[3]),
        _u(offsets[4]),
    )
    o_supply, o_box, o_disc, o_draw, o_move = (
        _u(offsets[5]),
        _u(offsets[6]),
        _u(offsets[7]),
        _u(offsets[8]),
        _u(offsets[9]),
    )
    o_solo = _u(offsets[10])
    # 0.0 read at run time (field values are positive and finite): see the docstring
    zero = field_value[0] * np.float32(0.0)
    uP = _u(P)  # rot[r]: the absolute seat of observer-first slot r
    for b in range(B):
        ub = _u(b)
        base = ub * _u(dim)
        p = np.int64(player[b])
        for r in range(P):
            seat = p + r
            if seat >= P:
                seat -= P
            rot[r] = seat
        # ---- hand, and the field each subset action would place on
        hb = (ub * uP + _u(p)) * _u(HAND)
        h0, h1, h2, h3 = hf[hb], hf[hb + _u(1)], hf[hb + _u(2)], hf[hb + _u(3)]
        of[base + o_hand] = np.float32(h0) * _F_CARD
        of[base + o_hand + _u(1)] = np.float32(h1) * _F_CARD
        of[base + o_hand + _u(2)] = np.float32(h2) * _F_CARD
        of[base + o_hand + _u(3)] = np.float32(h3) * _F_CARD
        af = base + o_af
        for i in range(NUM_SUBSETS * FIELDS):
            of[af + _u(i)] = zero
        subset_fields(h0, h1, h2, h3, field_of_sum, scratch)
        for a in range(NUM_SUBSETS):
            f = scratch[a]
            # no branch: a subset on no field (-1) writes 0 over its own first cell, which holds 0
            of[af + _u(a * FIELDS + max(f, 0))] = np.float32(f >= 0)
        # ---- monkeys per field and seat, and the owners, seats observer-first
        cb = ub * _u(FIELDS * P)
        oc = base + o_counts
        ow = base + o_owner
        obr = ub * _u(FIELDS)
        if P == 2:
            if rot[0] == 0:  # observer seat 0: the seats' order as stored
                for i in range(2 * FIELDS):
                    of[oc + _u(i)] = np.float32(cf[cb + _u(i)]) * _F025
            else:
                for i in range(FIELDS):
                    of[oc + _u(2 * i)] = np.float32(cf[cb + _u(2 * i + 1)]) * _F025
                    of[oc + _u(2 * i + 1)] = np.float32(cf[cb + _u(2 * i)]) * _F025
            s0 = rot[0]
            s1 = rot[1]
            for f in range(FIELDS):  # every cell written (no branch on the owner): 1 where slot r owns f
                o = owf[obr + _u(f)]
                of[ow + _u(2 * f)] = np.float32(o == s0)
                of[ow + _u(2 * f + 1)] = np.float32(o == s1)
        else:
            for r in range(P):
                seat = _u(rot[_u(r)])
                for f in range(FIELDS):
                    of[oc + _u(f * P + r)] = np.float32(cf[cb + _u(f * P) + seat]) * _F025
            for f in range(FIELDS):
                o = owf[obr + _u(f)]
                for r in range(P):
                    of[ow + _u(f * P + r)] = np.float32(o == rot[_u(r)])
        fv = base + o_fv
        for f in range(FIELDS):
            of[fv + _u(f)] = field_value[f]
        # ---- supplies, boxes, seat to move (observer-first), discard pile, draw pile, solo
        cp = current_player[b]
        sb = ub * uP
        for r in range(P):
            seat = rot[r]
            of[base + o_supply + _u(r)] = np.float32(sf[sb + _u(seat)]) * _F_MONKEY
            of[base + o_box + _u(r)] = np.float32(bf[sb + _u(seat)]) * _F_MONKEY
            of[base + o_move + _u(r)] = _ONE_F if cp == seat else zero
        db = ub * _u(n_disc) + _u(1)  # values 1..19
        for v in range(MAX_CARD):
            of[base + o_disc + _u(v)] = np.float32(df[db + _u(v)]) * _F025
        of[base + o_draw] = np.float32(draw_size[b]) * _F_PILE
        for i in range(offsets[10], dim):
            of[base + _u(i)] = zero
        if solo:
            towers = 0
            for f in range(FIELDS):
                if INNER_MASK[f] and cf[cb + _u(f * P)] >= 2:
                    towers += 1
            of[base + o_solo] = np.float32(towers * 0.25)
            of[base + o_solo + _u(1)] = np.float32(MONKEYS - sf[sb]) * _F_ROUNDS
