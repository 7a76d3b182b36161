"""4 Monkeys rules as numba-compiled kernels over a batch of games.

Each batch kernel takes the state's arrays as one tuple ``st`` (order of :data:`STATE_FIELDS`,
leading batch axis ``B``, dtypes of :class:`~monkey_envs.four_monkeys.state.FourMonkeysState`) and
the configuration as ``cfg (len(CFG_FIELDS),) int64``, and runs one compiled loop over the rows.
Kernels are compiled on first use and cached on disk (``cache=True``); at import a cache built
from other versions of the files they compile in is dropped (:func:`monkey_envs.core.kernel_cache.drop_stale_cache`).

Compiling them from an empty cache is most of a cold start (the first ``step`` of a game), so:
every kernel and helper only borrows the state's arrays and is compiled without reference counting
(:func:`~monkey_envs.core.kernel_cache.njit_borrowed`); their scratch lives in their stack frames,
sized for :data:`MAX_SEATS` seats and :data:`MAX_TILES` tiles
(:func:`~monkey_envs.core.kernel_cache.stack_array`), so nothing allocates and no ``np.zeros``
implementation compiles; helpers that only kernels call get no Python wrapper and no IR rewrites
(:data:`_inner`); integer division and remainder use numba's ``numpy`` error model (no division by
zero check: every divisor is a configuration constant >= 1). The batch kernels keep the rewrites:
without them each ``st[F.name]`` of the state tuple compiles a ``getitem`` of its own.

Action layout (``G = 1 + (P - 1)`` with Banana skins, else 1)::

    [0, 10)                 put one hand card of kind k into the pending set
    [10, 10 + NT*G)         grab tile t with the pending set: 10 + t*G + j; j = 0 keeps the
                            Banana skin, j >= 1 hands it to seat (me + j) % P
    then NT                 burn own green tile t (draw 3)
    then 2                  Hand replenish: swap (discard hand, draw 5), draw 3
    then NT                 reveal tile t (the top of a stack of >= 2 tiles)
    then 1                  call Stop
    then 1                  wait

Notation: ``b`` a row, ``q`` a seat, ``t`` a tile id (``combo = t % 10``), ``k`` a card kind.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import literally, njit

from monkey_envs.core.kernel_cache import drop_stale_cache, njit_borrowed, stack_array
from monkey_envs.core.rng import next_uniform, seed_row
from monkey_envs.core.schema import field_index, field_names
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys.state import (
    END_ROUNDS,
    NUM_STATS,
    TILE_GREEN,
    TILE_LOOSE,
    TILE_ORANGE,
    TILE_STACK,
    FourMonkeysState,
)

drop_stale_cache(__file__)

#: The most seats and tiles of a game: the sizes of the kernels' scratch arrays
#: (:func:`~monkey_envs.core.kernel_cache.stack_array`, in their stack frames).
MAX_SEATS = D.MAX_PLAYERS
MAX_TILES = D.num_sets(D.MAX_PLAYERS) * D.NUM_COMBOS
MAX_SEAT_COMBOS = MAX_SEATS * D.NUM_COMBOS
MAX_OWNERS = MAX_SEATS + 1
MAX_SEAT_TILES = MAX_SEATS * MAX_TILES

#: The decorator of the helpers that only kernels call and that allocate nothing: compiled without
#: a Python wrapper (unboxing each argument: for a helper taking many arrays, tenths of a second of
#: a cold start that nothing uses; called from Python, such a helper would crash the interpreter),
#: without reference counting (:func:`~monkey_envs.core.kernel_cache.njit_borrowed`) and without
#: numba's IR rewrites (passes these kernels do not need, each re-analysing the whole function).
_inner = njit_borrowed(cache=True, no_cpython_wrapper=True, no_rewrites=True, error_model="numpy")

NK = D.NUM_KINDS
NC = D.NUM_COMBOS
DECK = D.DECK_SIZE
HAND = D.HAND_SIZE
BURN_DRAW = D.BURN_DRAW
KIND_FIGURES = D.KIND_FIGURES.copy()
KIND_GOLDEN = D.KIND_GOLDEN.copy()
NEED_FIG = D.COMBO_NEED_FIGURES.copy()
NEED_GOLD = D.COMBO_NEED_GOLDEN.copy()
NEED_GOLD_DISTINCT = D.COMBO_NEED_GOLDEN_DISTINCT.copy()
GREEN = D.COMBO_GREEN.copy()
ORANGE = D.COMBO_ORANGE.copy()
#: ``(40,) int8`` a sorted deck (4 copies of each kind).
SORTED_DECK = np.repeat(np.arange(NK), D.COPIES).astype(np.int8)
REWARD_WIN = np.float32(D.REWARD_WIN)
REWARD_LOSS = np.float32(D.REWARD_LOSS)
REWARD_DRAW = np.float32(D.REWARD_DRAW)
ST_GRABS, ST_BLUFFS, ST_FAILED, ST_BURNS, ST_REPLENISH, ST_REVEALS = 0, 1, 2, 3, 4, 5
ST_ASIDE, ST_SMARTEST, ST_WRONG, ST_STOPS, ST_INVALID, ST_SKINS = 6, 7, 8, 9, 10, 11
assert NUM_STATS == 12

#: Order of the state arrays in the tuple ``st`` the batch kernels take (the fields of
#: :class:`~monkey_envs.four_monkeys.state.FourMonkeysState`), and their indices: ``st[F.hands]``.
STATE_FIELDS = field_names(FourMonkeysState)
F = field_index(FourMonkeysState)
#: The configuration vector ``cfg``: players, tiles, stacks, stack depth, grab variants per tile,
#: ticks per round, rounds, replay cap, Banana skins (0/1), family scoring (0/1), then the action
#: offsets and the observation offsets.
CFG_FIELDS = (
    "P",
    "NT",
    "S",
    "DEPTH",
    "G",
    "TICKS",
    "ROUNDS",
    "MAX_REPLAYS",
    "SKINS",
    "FAMILY",
    "A_GRAB",
    "A_BURN",
    "A_SWAP",
    "A_DRAW3",
    "A_REVEAL",
    "A_STOP",
    "A_WAIT",
    "NUM_ACTIONS",
    "AREA0",
    "SETS0",
    "S0",
)
(
    C_P,
    C_NT,
    C_S,
    C_DEPTH,
    C_G,
    C_TICKS,
    C_ROUNDS,
    C_MAX_REPLAYS,
    C_SKINS,
    C_FAMILY,
    C_A_GRAB,
    C_A_BURN,
    C_A_SWAP,
    C_A_DRAW3,
    C_A_REVEAL,
    C_A_STOP,
    C_A_WAIT,
    C_NUM_ACTIONS,
    C_AREA0,
    C_SETS0,
    C_S0,
) = range(len(CFG_FIELDS))

#: Per-seat observation features (observer first), per-tile features before the owner one-hot.
SEAT_FEATURES = 10
TILE_FEATURES = 5
CLOCK_FEATURES = 3


def make_cfg(num_players: int, ticks: int, rounds: int, max_replays: int, skins: bool, family: bool) -> np.ndarray:
    """The ``cfg`` vector of one configuration (see :data:`CFG_FIELDS`)."""
    P = num_players
    NT = D.num_sets(P) * NC
    S = D.num_stacks(P)
    area0 = D.area_players(P)[0]
    sets0 = D.num_sets(area0)
    s0 = D.num_stacks(area0)
    depth = max(-(-sets0 * NC // s0), -(-(NT - sets0 * NC) // max(1, S - s0)))
    G = 1 + (P - 1) if skins else 1
    a_grab = NK
    a_burn = a_grab + NT * G
    a_swap = a_burn + NT
    a_draw3 = a_swap + 1
    a_reveal = a_draw3 + 1
    a_stop = a_reveal + NT
    a_wait = a_stop + 1
    vals = (P, NT, S, depth, G, ticks, rounds, max_replays, int(skins), int(family))
    vals += (a_grab, a_burn, a_swap, a_draw3, a_reveal, a_stop, a_wait, a_wait + 1, area0, sets0, s0)
    return np.array(vals, dtype=np.int64)


def obs_size(num_players: int) -> int:
    """Length of one observation for ``num_players`` seats."""
    P = num_players
    NT = D.num_sets(P) * NC
    return 3 * NK + P * SEAT_FEATURES + NT * (TILE_FEATURES + P) + D.num_stacks(P) + CLOCK_FEATURES


# ====================================================================== combos
@njit(cache=True, inline="always")
def _tally(cnt: np.ndarray, skip: int) -> tuple[int, int, int, int, int, int]:
    """``(f0, f1, f2, f3, gold, gbits)`` of the cards ``cnt (10,)`` (one card of kind ``skip`` left
    out): the count of each figure, of golden buttons, and the bits of the figures that show one."""
    f0 = 0
    f1 = 0
    f2 = 0
    f3 = 0
    gold = 0
    gbits = 0
    for k in range(NK):
        n = np.int64(cnt[k]) - (1 if k == skip else 0)
        if n > 0:
            f0 += n * KIND_FIGURES[k, 0]
            f1 += n * KIND_FIGURES[k, 1]
            f2 += n * KIND_FIGURES[k, 2]
            f3 += n * KIND_FIGURES[k, 3]
            g = KIND_GOLDEN[k]
            if g >= 0:
                gold += n
                gbits |= 1 << g
    return f0, f1, f2, f3, gold, gbits


@njit(cache=True)
def covers(c: int, cnt: np.ndarray, skip: int = -1) -> bool:
    """Do the cards ``cnt (10,)`` (count per kind; one card of kind ``skip`` left out) show everything combo ``c`` needs?"""
    f0, f1, f2, f3, gold, gbits = _tally(cnt, skip)
    return _meets(c, f0, f1, f2, f3, gold, gbits)


@njit(cache=True, inline="always")
def _meets(c: int, f0: int, f1: int, f2: int, f3: int, gold: int, gbits: int) -> bool:
    """Do figure counts ``f0..f3``, ``gold`` golden buttons of the figures in ``gbits`` meet combo ``c``?"""
    if f0 < NEED_FIG[c, 0] or f1 < NEED_FIG[c, 1] or f2 < NEED_FIG[c, 2] or f3 < NEED_FIG[c, 3]:
        return False
    if gold < NEED_GOLD[c]:
        return False
    distinct = (gbits & 1) + ((gbits >> 1) & 1) + ((gbits >> 2) & 1) + ((gbits >> 3) & 1)
    return distinct >= NEED_GOLD_DISTINCT[c]


@_inner
def _correct(c: int, cnt: np.ndarray) -> bool:
    """Is ``cnt (10,)`` a correct submission for combo ``c``: it covers it and no card is superfluous?

    :func:`covers` of the whole set, then of the set less one card of each kind held: the
    figures and golden buttons are counted once and each card's share taken off (each golden
    figure is on one kind only, so leaving out the last card of a double loses its figure).
    """
    f0, f1, f2, f3, gold, gbits = _tally(cnt, -1)
    if not _meets(c, f0, f1, f2, f3, gold, gbits):
        return False
    for k in range(NK):
        n = np.int64(cnt[k])
        if n > 0:
            g = KIND_GOLDEN[k]
            gd = gold
            gb = gbits
            if g >= 0:
                gd -= 1
                if n == 1:
                    gb &= ~(1 << g)
            if _meets(c, f0 - KIND_FIGURES[k, 0], f1 - KIND_FIGURES[k, 1], f2 - KIND_FIGURES[k, 2],
                      f3 - KIND_FIGURES[k, 3], gd, gb):  # fmt: skip
                return False
    return True


@njit(cache=True)
def correct(c: int, cnt: np.ndarray) -> bool:
    """:func:`_correct`, callable from Python (the kernels call :func:`_correct`, which has no Python wrapper)."""
    return _correct(c, cnt)


# ====================================================================== per-row helpers
@_inner
def draw_cards(b: int, p: int, n: int, decks: np.ndarray, deck_size: np.ndarray, hands: np.ndarray, area) -> None:
    """Seat ``p`` draws ``n`` cards: from its own deck, else the largest other deck of its area (ties: lowest seat).

    Callers pass ``n`` as ``np.int64``: each literal count (``HAND``, ``BURN_DRAW``) would be a
    specialisation of its own to compile.
    """
    P = deck_size.shape[1]
    for _ in range(n):
        d = p
        if deck_size[b, p] == 0:
            d = -1
            best = 0
            for q in range(P):
                if q != p and area[b, q] == area[b, p] and deck_size[b, q] > best:
                    best = deck_size[b, q]
                    d = q
            if d < 0:
                return
        sz = deck_size[b, d] - 1
        k = decks[b, d, sz]
        decks[b, d, sz] = -1
        deck_size[b, d] = sz
        hands[b, p, k] += 1


@njit(cache=True, inline="always")
def is_available(b: int, t: int, tile_state: np.ndarray, tile_stack: np.ndarray, stacks, stack_size) -> bool:
    """Is tile ``t`` on the table and visible (the top of a stack, or revealed next to them)?"""
    ts = tile_state[b, t]
    if ts == TILE_LOOSE:
        return True
    if ts == TILE_STACK:
        s = tile_stack[b, t]
        return stacks[b, s, stack_size[b, s] - 1] == t
    return False


@njit(cache=True, inline="always")
def tile_area(t: int, cfg) -> int:
    """Playing area of tile ``t`` (sets below ``SETS0`` lie in area 0)."""
    return 0 if t < cfg[C_SETS0] * NC else 1


@_inner
def owned_bits(b: int, q: int, tile_owner: np.ndarray) -> int:
    """Bitmask of the combos seat ``q`` owns (green or burned)."""
    bits = 0
    for t in range(tile_owner.shape[1]):
        if tile_owner[b, t] == q:
            bits |= 1 << (t % NC)
    return bits


@njit(cache=True, inline="always")
def popcount10(bits: int) -> int:
    n = 0
    for c in range(NC):
        n += (bits >> c) & 1
    return n


@_inner
def owns_all_available(b: int, q: int, tile_state, tile_owner, tile_stack, stacks, stack_size, area, cfg) -> bool:
    """Does seat ``q`` already own a tile of every combo available in its area (the condition of a reveal)?"""
    bits = owned_bits(b, q, tile_owner)
    for t in range(tile_state.shape[1]):
        if tile_area(t, cfg) != area[b, q]:
            continue
        if (bits >> (t % NC)) & 1 == 0 and is_available(b, t, tile_state, tile_stack, stacks, stack_size):
            return False
    return True


#: ``(NT,) int64`` the bit of each tile's combo (``1 << (t % 10)``) for every tile id up to 8 players.
COMBO_BIT = np.array([1 << (t % NC) for t in range(MAX_TILES)], dtype=np.int64)


@_inner
def mask_rows(b0: int, b1: int, running_only: bool, current_player, terminated, truncated, mask, cfg, hands, pending,
              tile_state, tile_owner, stacks, stack_size, replenish_used, skin_given, replays, area) -> None:  # fmt: skip
    """Write the legal actions of each row ``b0 <= b < b1`` for its ``current_player`` into ``mask[b]``.

    From the state at the start of the tick: put a card kind held; grab an available tile of the
    seat's area (the top of a stack, or revealed) with a non-empty pending set (with Banana skins
    also handing the skin to a seat of the same area, while the seat still has it); burn an own
    green tile; Hand replenish while unused; reveal a stack top (of a stack of >= 2 tiles) once
    the seat owns every available combo of its area; Stop while replays are left or with 10
    combos; wait. A row without a mover (``current_player < 0``) gets an empty mask; with
    ``running_only``, finished rows (``terminated | truncated``) are skipped instead.

    One loop over the rows (no call per row: each call would pay a reference count per array).
    """
    P, NT, S, G = cfg[C_P], cfg[C_NT], cfg[C_S], cfg[C_G]
    a_grab, a_burn, a_reveal = cfg[C_A_GRAB], cfg[C_A_BURN], cfg[C_A_REVEAL]
    a_swap, a_draw3, a_stop, a_wait = cfg[C_A_SWAP], cfg[C_A_DRAW3], cfg[C_A_STOP], cfg[C_A_WAIT]
    A = mask.shape[1]
    n0 = cfg[C_SETS0] * NC
    skins_on = cfg[C_SKINS] != 0
    max_replays = cfg[C_MAX_REPLAYS]
    for b in range(b0, b1):
        if running_only and (terminated[b] or truncated[b]):
            continue
        q = np.int64(current_player[b])
        for a in range(A):
            mask[b, a] = False
        if q < 0:
            continue
        npend = 0
        for k in range(NK):
            mask[b, k] = hands[b, q, k] > 0
            npend += pending[b, q, k]
        grab = npend > 0
        my_area = area[b, q]
        lo, hi = (0, n0) if my_area == 0 else (n0, NT)
        s_lo, s_hi = (0, cfg[C_S0]) if my_area == 0 else (cfg[C_S0], S)
        owned = 0  # combos owned (a seat owns tiles of its own area only)
        avail = 0  # combos available in the area
        for i in range(hi - lo):  # unsigned indices: no negative-index wraparound to compute
            t = np.uint64(lo + i)
            ts = tile_state[b, t]
            own = tile_owner[b, t] == q
            loose = ts == TILE_LOOSE
            owned |= COMBO_BIT[t] & -np.int64(own)
            avail |= COMBO_BIT[t] & -np.int64(loose)
            mask[b, np.uint64(a_burn + lo + i)] = own & (ts == TILE_GREEN)
            mask[b, np.uint64(a_grab + (lo + i) * G)] = loose & grab
        for k in range(s_lo, s_hi):  # the stack tops are available too
            n = stack_size[b, k]
            if n > 0:
                t = stacks[b, k, n - 1]
                avail |= COMBO_BIT[t]
                mask[b, a_grab + t * G] = grab
        if avail & ~owned == 0:  # owns every available combo: may reveal
            for k in range(s_lo, s_hi):
                n = stack_size[b, k]
                if n >= 2:
                    mask[b, a_reveal + stacks[b, k, n - 1]] = True
        if G > 1 and grab and skins_on and not skin_given[b, q]:
            for t in range(lo, hi):
                if mask[b, a_grab + t * G]:
                    for j in range(1, P):
                        if area[b, (q + j) % P] == my_area:
                            mask[b, a_grab + t * G + j] = True
        if not replenish_used[b, q]:
            mask[b, a_swap] = True
            mask[b, a_draw3] = True
        if replays[b] < max_replays or popcount10(owned) >= D.STOP_COMBOS:
            mask[b, a_stop] = True
        mask[b, a_wait] = True


#: Rows stepped before their masks are written (:func:`step`): a block stays in the caches.
MASK_BLOCK = 64


@njit(cache=True, inline="always")
def fill_masks(b0: int, b1: int, running_only: bool, st, cfg) -> None:
    """:func:`mask_rows` on the state tuple ``st``.

    The bounds and the flag are cast to plain ``int64`` / ``bool``: a literal argument (``0``,
    ``False``) would compile a second :func:`mask_rows` besides the one :func:`step` calls.
    """
    mask_rows(np.int64(b0), np.int64(b1), np.bool_(running_only), st[F.current_player], st[F.terminated], st[F.truncated], st[F.legal_action_mask], cfg, st[F.hands], st[F.pending],
              st[F.tile_state], st[F.tile_owner], st[F.stacks], st[F.stack_size], st[F.replenish_used], st[F.skin_given], st[F.replays], st[F.area])  # fmt: skip


@_inner
def setup_round(b: int, cfg, rng, commits, tick, decks, deck_size, hands, pending, discard, under, tile_state,
                tile_owner, tile_stack, stacks, stack_size, replenish_used, skin_given, skins, tile_ok, area,
                under_count, order) -> None:  # fmt: skip
    """Set up (or replay) a round: fresh shuffled decks, shuffled tiles in levelled stacks, 5 cards each.

    Each shuffle is a Fisher-Yates pass on row ``b``'s stream (``n - 1`` draws for ``n``
    entries): each deck from the sorted deck, then each area's tile ids in order ``order``
    (``(NT,) int8`` scratch), dealt round-robin onto the area's stacks. Every array is written
    by index (no view or temporary array per row).
    """
    P, NT, S = cfg[C_P], cfg[C_NT], cfg[C_S]
    for p in range(P):
        for i in range(DECK):
            decks[b, p, i] = SORTED_DECK[i]
        for i in range(DECK - 1, 0, -1):
            j = min(int(next_uniform(rng, b) * (i + 1)), i)
            v = decks[b, p, i]
            decks[b, p, i] = decks[b, p, j]
            decks[b, p, j] = v
        deck_size[b, p] = DECK
    for p in range(P):
        for k in range(NK):
            hands[b, p, k] = 0
            pending[b, p, k] = 0
            discard[b, p, k] = 0
        replenish_used[b, p] = False
        skin_given[b, p] = False
        skins[b, p] = 0
        commits[b, p] = -1
    for t in range(NT):
        for k in range(NK):
            under[b, t, k] = 0
        under_count[b, t] = 0
        tile_ok[b, t] = False
    for k in range(S):
        for d in range(stacks.shape[2]):
            stacks[b, k, d] = -1
        stack_size[b, k] = 0
    n0 = cfg[C_SETS0] * NC
    for a in range(2):
        lo, hi = (0, n0) if a == 0 else (n0, NT)
        s_lo, s_hi = (0, cfg[C_S0]) if a == 0 else (cfg[C_S0], S)
        if hi <= lo:
            continue
        n = hi - lo
        for i in range(n):
            order[i] = lo + i
        for i in range(n - 1, 0, -1):
            j = min(int(next_uniform(rng, b) * (i + 1)), i)
            v = order[i]
            order[i] = order[j]
            order[j] = v
        ns = s_hi - s_lo
        for i in range(n):
            t = order[i]
            k = s_lo + i % ns
            stacks[b, k, i // ns] = t
            stack_size[b, k] += 1
            tile_stack[b, t] = k
            tile_state[b, t] = TILE_STACK
            tile_owner[b, t] = -1
    tick[b] = 0
    for p in range(P):
        draw_cards(b, p, np.int64(HAND), decks, deck_size, hands, area)


@njit(cache=True, inline="always")
def _max_of(x: np.ndarray, n: int) -> int:
    """The largest of ``x[0], ..., x[n - 1]`` (``n >= 1``), by a loop (``ndarray.max`` compiles seconds)."""
    best = x[0]
    for i in range(1, n):
        if x[i] > best:
            best = x[i]
    return best


@_inner
def score_tiles(P: int, tile_owner, tile_state, under, replenish_used, skins, totals, family: bool,
                points, aside, checked, smartest) -> None:  # fmt: skip
    """Score one round (the rulebook's Steps 1-4) from one row's arrays.

    Args:
        P: players. ``tile_owner (NT,)``, ``tile_state (NT,)``, ``under (NT, 10)``,
            ``replenish_used (P,)``, ``skins (P,)`` received Banana skins, ``totals (P,)`` game
            totals before this round (family tie-break), ``family``: family scoring.
        points: ``(P,) int64`` out: the round's points.
        aside: ``(NT,) bool`` out: tiles set aside (repeated, or found incorrect).
        checked: ``(NT,) int8`` out: 0 not verified, 1 verified correct, 2 verified incorrect.
        smartest: ``(P,) bool`` out: the Smartest Monkey(s) at the beginning of Step 4.
    """
    NT = min(tile_owner.shape[0], MAX_TILES)  # (the scratch's size bounds every write to it)
    P = min(P, MAX_SEATS)
    owned = stack_array(MAX_TILES, np.bool_)
    for t in range(NT):
        aside[t] = False
        checked[t] = 0
        owned[t] = tile_owner[t] >= 0
    # Step 1: repeated combos are set aside (family scoring too: it changes only Steps 2 and 4)
    cnt = stack_array(MAX_SEAT_COMBOS, np.int64)  # (P, 10) flat: tiles owned per seat and combo
    for i in range(P * NC):
        cnt[i] = 0
    for t in range(NT):
        if owned[t]:
            cnt[tile_owner[t] * NC + t % NC] += 1
    for t in range(NT):
        if owned[t] and cnt[tile_owner[t] * NC + t % NC] >= 2:
            aside[t] = True
    value = stack_array(MAX_TILES, np.int64)
    for t in range(NT):
        value[t] = ORANGE[t % NC] if tile_state[t] == TILE_ORANGE else GREEN[t % NC]
    visible = stack_array(MAX_SEATS, np.int64)
    burned = stack_array(MAX_SEATS, np.int64)
    ntiles = stack_array(MAX_SEATS, np.int64)
    vals = stack_array(MAX_SEAT_TILES, np.int64)  # (P, NT) flat, row stride MAX_TILES
    turn = 0
    while True:
        # Step 2: who is the Smartest Monkey
        for p in range(P):
            visible[p] = 0
            burned[p] = 0
            ntiles[p] = 0
            if replenish_used[p] and not family:
                visible[p] += D.REPLENISH_USED_POINTS
        for t in range(NT):
            if owned[t] and not aside[t]:
                p = tile_owner[t]
                visible[p] += value[t]
                ntiles[p] += 1
                if tile_state[t] == TILE_ORANGE:
                    burned[p] += 1
        for p in range(P):
            smartest[p] = True
        if not family:
            best = _max_of(visible, P)
            for p in range(P):
                smartest[p] = visible[p] == best
            bb = -1
            for p in range(P):
                if smartest[p] and burned[p] > bb:
                    bb = burned[p]
            for p in range(P):
                smartest[p] = smartest[p] and burned[p] == bb
        else:
            best = _max_of(ntiles, P)
            for p in range(P):
                smartest[p] = ntiles[p] == best
            lb = NT + 1
            for p in range(P):
                if smartest[p] and burned[p] < lb:
                    lb = burned[p]
            for p in range(P):
                smartest[p] = smartest[p] and burned[p] == lb
            # highest tile value, then the next highest, ...: each seat's values in decreasing
            # order (an insertion as they are collected), then -100
            for p in range(P):
                n = 0
                for t in range(NT):
                    if owned[t] and not aside[t] and tile_owner[t] == p:
                        v = value[t]
                        j = n
                        while j > 0 and vals[p * MAX_TILES + j - 1] < v:
                            vals[p * MAX_TILES + j] = vals[p * MAX_TILES + j - 1]
                            j -= 1
                        vals[p * MAX_TILES + j] = v
                        n += 1
                for i in range(n, NT):
                    vals[p * MAX_TILES + i] = -100
            for i in range(NT):
                top = -1000
                for p in range(P):
                    if smartest[p] and vals[p * MAX_TILES + i] > top:
                        top = vals[p * MAX_TILES + i]
                for p in range(P):
                    smartest[p] = smartest[p] and vals[p * MAX_TILES + i] == top
            bt = -(1 << 30)
            for p in range(P):
                if smartest[p] and totals[p] > bt:
                    bt = totals[p]
            for p in range(P):
                smartest[p] = smartest[p] and totals[p] == bt
        # Step 3: verify one combo of a Smartest Monkey (in turn from the lowest seat)
        pick = -1
        for i in range(P):
            q = (turn + i) % P
            if not smartest[q]:
                continue
            for t in range(NT):
                if owned[t] and not aside[t] and tile_owner[t] == q and checked[t] == 0:
                    if pick < 0 or value[t] < value[pick]:
                        pick = t
            if pick >= 0:
                turn = q + 1
                break
        if pick < 0:
            break
        if _correct(pick % NC, under[pick]):
            checked[pick] = 1
        else:
            checked[pick] = 2
            aside[pick] = True
    # Step 4: the points
    for p in range(P):
        points[p] = 0
    if not family:
        for p in range(P):
            points[p] = visible[p] - D.BANANA_PENALTY * skins[p]
        for t in range(NT):
            if aside[t]:
                points[tile_owner[t]] -= D.SET_ASIDE_PENALTY
    else:
        # a repeated combo (set aside in Step 1, never checked) scores 0 and costs 0
        orange = stack_array(MAX_SEATS, np.int64)
        for p in range(P):
            orange[p] = 0
        for t in range(NT):
            if owned[t]:
                p = tile_owner[t]
                if checked[t] == 2:
                    points[p] -= 1
                elif aside[t]:
                    continue
                elif tile_state[t] == TILE_ORANGE:
                    orange[p] += 1
                else:
                    points[p] += 1
        for p in range(P):
            points[p] += orange[p] // 2 - D.BANANA_PENALTY * skins[p]
            if smartest[p]:
                points[p] += 1


@njit(cache=True, inline="always")
def start_round(b: int, st, cfg, order) -> None:
    """:func:`setup_round` of row ``b`` on the state tuple ``st`` (``order``: its scratch)."""
    setup_round(b, cfg, st[F.rng], st[F.commits], st[F.tick], st[F.decks], st[F.deck_size], st[F.hands], st[F.pending], st[F.discard], st[F.under], st[F.tile_state], st[F.tile_owner], st[F.tile_stack],
                st[F.stacks], st[F.stack_size], st[F.replenish_used], st[F.skin_given], st[F.skins], st[F.tile_ok], st[F.area], st[F.under_count], order)  # fmt: skip


# ====================================================================== batch kernels
@njit_borrowed(cache=True, error_model="numpy")
def init(seeds: np.ndarray, st, cfg) -> None:
    """Seed every row's RNG, set up round 1 and compute seat 0's mask."""
    rng = st[F.rng]
    order = stack_array(MAX_TILES, np.int8)
    for b in range(seeds.size):
        seed_row(rng, b, seeds[b])
        start_round(b, st, cfg, order)
        st[F.current_player][b] = 0
    fill_masks(0, seeds.size, False, st, cfg)


@njit_borrowed(cache=True, error_model="numpy")
def refresh(st, cfg) -> None:
    """Recompute the mask of every row for its current player (empty where there is none)."""
    fill_masks(0, st[F.current_player].size, False, st, cfg)


@njit_borrowed(cache=True, error_model="numpy")
def step(actions: np.ndarray, st, cfg) -> bool:
    """Validate ``actions (B,) int64`` and apply them to the running rows; False (nothing changed) if one is invalid.

    A commit of a seat that is not the last of the tick is stored (hidden) and the next seat is
    asked. The last commit resolves the tick: every seat's action in a random priority order,
    each re-checked (a grab of a tile taken earlier fails and keeps the pending set; after a Stop
    the rest of the tick does nothing); then the round ends on a Stop or after the last tick.
    """
    current_player = st[F.current_player]
    rewards = st[F.rewards]
    terminated = st[F.terminated]
    truncated = st[F.truncated]
    mask = st[F.legal_action_mask]
    step_count = st[F.step_count]
    rng = st[F.rng]
    winners_mask = st[F.winners_mask]
    end_reason = st[F.end_reason]
    commits = st[F.commits]
    tick = st[F.tick]
    rnd = st[F.round]
    replays = st[F.replays]
    decks = st[F.decks]
    deck_size = st[F.deck_size]
    hands = st[F.hands]
    pending = st[F.pending]
    discard = st[F.discard]
    under = st[F.under]
    tile_state = st[F.tile_state]
    tile_owner = st[F.tile_owner]
    tile_stack = st[F.tile_stack]
    stacks = st[F.stacks]
    stack_size = st[F.stack_size]
    replenish_used = st[F.replenish_used]
    skin_given = st[F.skin_given]
    skins = st[F.skins]
    totals = st[F.totals]
    round_scores = st[F.round_scores]
    stats = st[F.stats]
    area = st[F.area]
    tile_ok = st[F.tile_ok]
    under_count = st[F.under_count]
    B = actions.size
    A = cfg[C_NUM_ACTIONS]
    for b in range(B):
        if not (terminated[b] or truncated[b]):
            a = actions[b]
            if a < 0 or a >= A or not mask[b, a]:
                return False
    rewards[:] = 0.0
    P, NT, G = cfg[C_P], cfg[C_NT], cfg[C_G]
    a_grab, a_burn, a_swap, a_draw3 = cfg[C_A_GRAB], cfg[C_A_BURN], cfg[C_A_SWAP], cfg[C_A_DRAW3]
    a_reveal, a_stop = cfg[C_A_REVEAL], cfg[C_A_STOP]
    keys = stack_array(MAX_SEATS, np.float64)
    order = stack_array(MAX_SEATS, np.int64)
    points = stack_array(MAX_SEATS, np.int64)
    aside = stack_array(MAX_TILES, np.bool_)
    checked = stack_array(MAX_TILES, np.int8)
    smartest = stack_array(MAX_SEATS, np.bool_)
    winners = stack_array(MAX_SEATS, np.bool_)
    tile_order = stack_array(MAX_TILES, np.int8)
    for b0 in range(0, B, MASK_BLOCK):  # a block of rows stepped, then their masks in one call
        b1 = min(B, b0 + MASK_BLOCK)
        for b in range(b0, b1):
            if terminated[b] or truncated[b]:
                continue
            step_count[b] += 1
            cp = np.int64(current_player[b])
            commits[b, cp] = actions[b]
            nxt = cp + 1  # the next seat commits; after the last one the tick resolves
            if nxt == P:
                nxt = 0
                # ---- resolve the tick in a random priority order ------------------------------
                # the order of a stable sort of P uniform keys (rng.shuffle_order's permutation and
                # draws), by insertion as the keys are drawn
                for i in range(P):
                    kv = next_uniform(rng, b)
                    j = i - 1
                    while j >= 0 and keys[j] > kv:
                        keys[j + 1] = keys[j]
                        order[j + 1] = order[j]
                        j -= 1
                    keys[j + 1] = kv
                    order[j + 1] = i
                caller = -1
                for i in range(P):
                    q = order[i]
                    a = np.int64(commits[b, q])
                    if a < NK:  # put a card into the pending set
                        if hands[b, q, a] > 0:
                            hands[b, q, a] -= 1
                            pending[b, q, a] += 1
                    elif a < a_burn:  # grab
                        t = (a - a_grab) // G
                        j = (a - a_grab) % G
                        npend = 0
                        for k in range(NK):
                            npend += pending[b, q, k]
                        if npend > 0 and is_available(b, t, tile_state, tile_stack, stacks, stack_size):
                            if tile_state[b, t] == TILE_STACK:
                                s = tile_stack[b, t]
                                stack_size[b, s] -= 1
                                stacks[b, s, stack_size[b, s]] = -1
                            tile_stack[b, t] = -1
                            tile_state[b, t] = TILE_GREEN
                            tile_owner[b, t] = q
                            for k in range(NK):
                                under[b, t, k] = pending[b, q, k]
                                pending[b, q, k] = 0
                            under_count[b, t] = npend
                            stats[b, q, ST_GRABS] += 1
                            ok = _correct(t % NC, under[b, t])
                            tile_ok[b, t] = ok
                            if not ok:
                                stats[b, q, ST_BLUFFS] += 1
                            nh = 0
                            for k in range(NK):
                                nh += hands[b, q, k]
                            if nh < HAND:
                                draw_cards(b, q, HAND - nh, decks, deck_size, hands, area)
                            if j > 0 and not skin_given[b, q] and area[b, (q + j) % P] == area[b, q]:
                                skin_given[b, q] = True
                                skins[b, (q + j) % P] += 1
                                stats[b, q, ST_SKINS] += 1
                        else:
                            stats[b, q, ST_FAILED] += 1
                    elif a < a_swap:  # burn
                        t = a - a_burn
                        if tile_owner[b, t] == q and tile_state[b, t] == TILE_GREEN:
                            tile_state[b, t] = TILE_ORANGE
                            stats[b, q, ST_BURNS] += 1
                            draw_cards(b, q, np.int64(BURN_DRAW), decks, deck_size, hands, area)
                    elif a == a_swap or a == a_draw3:  # Hand replenish
                        if not replenish_used[b, q]:
                            replenish_used[b, q] = True
                            stats[b, q, ST_REPLENISH] += 1
                            if a == a_swap:
                                for k in range(NK):
                                    discard[b, q, k] += hands[b, q, k]
                                    hands[b, q, k] = 0
                                draw_cards(b, q, np.int64(HAND), decks, deck_size, hands, area)
                            else:
                                draw_cards(b, q, np.int64(BURN_DRAW), decks, deck_size, hands, area)
                    elif a < a_stop:  # reveal
                        t = a - a_reveal
                        if tile_state[b, t] == TILE_STACK:
                            s = tile_stack[b, t]
                            if (
                                stack_size[b, s] >= 2
                                and stacks[b, s, stack_size[b, s] - 1] == t
                                and owns_all_available(
                                    b, q, tile_state, tile_owner, tile_stack, stacks, stack_size, area, cfg
                                )
                            ):
                                stack_size[b, s] -= 1
                                stacks[b, s, stack_size[b, s]] = -1
                                tile_stack[b, t] = -1
                                tile_state[b, t] = TILE_LOOSE
                                stats[b, q, ST_REVEALS] += 1
                    elif a == a_stop:
                        caller = q
                        break
                    # else: wait
                commits[b, :] = -1
                tick[b] += 1
                over = False
                if caller >= 0 or tick[b] >= cfg[C_TICKS]:
                    valid = True
                    if caller >= 0:
                        valid = popcount10(owned_bits(b, caller, tile_owner)) >= D.STOP_COMBOS
                    if not valid:
                        totals[b, caller] -= D.INVALID_STOP_PENALTY
                        stats[b, caller, ST_INVALID] += 1
                        replays[b] += 1
                    else:
                        if caller >= 0:
                            stats[b, caller, ST_STOPS] += 1
                        score_tiles(P, tile_owner[b], tile_state[b], under[b], replenish_used[b], skins[b], totals[b],
                                    cfg[C_FAMILY] != 0, points, aside, checked, smartest)  # fmt: skip
                        for p in range(P):
                            totals[b, p] += points[p]
                            round_scores[b, rnd[b], p] = points[p]
                            if smartest[p]:
                                stats[b, p, ST_SMARTEST] += 1
                        for t in range(NT):
                            if aside[t]:
                                stats[b, tile_owner[b, t], ST_ASIDE] += 1
                            if checked[t] == 2:
                                stats[b, tile_owner[b, t], ST_WRONG] += 1
                        rnd[b] += 1
                        replays[b] = 0
                        if cfg[C_AREA0] < P:  # two areas: the best totals play in area 0 (ties: lower seat)
                            for p in range(P):
                                better = 0
                                for q2 in range(P):
                                    if totals[b, q2] > totals[b, p] or (totals[b, q2] == totals[b, p] and q2 < p):
                                        better += 1
                                area[b, p] = 0 if better < cfg[C_AREA0] else 1
                        if rnd[b] >= cfg[C_ROUNDS]:
                            over = True
                    if over:
                        last = rnd[b] - 1
                        best = _max_of(totals[b], P)
                        bl = -(1 << 30)
                        for p in range(P):
                            if totals[b, p] == best and round_scores[b, last, p] > bl:
                                bl = round_scores[b, last, p]
                        everyone = P > 1
                        for p in range(P):
                            winners[p] = totals[b, p] == best and round_scores[b, last, p] == bl
                            everyone &= winners[p]
                        for p in range(P):
                            rewards[b, p] = REWARD_DRAW if everyone else (REWARD_WIN if winners[p] else REWARD_LOSS)
                            winners_mask[b, p] = winners[p]
                        terminated[b] = True
                        end_reason[b] = END_ROUNDS
                        mask[b, :] = False
                        current_player[b] = -1
                        continue
                    start_round(b, st, cfg, tile_order)
            current_player[b] = nxt
        mask_rows(b0, b1, np.bool_(True), current_player, terminated, truncated, mask, cfg, hands, pending, tile_state,
                  tile_owner, stacks, stack_size, replenish_used, skin_given, replays, area)  # fmt: skip
    return True


#: ``(2,) float32`` 0 and 1 (a 0/1 feature stored by a load, without a branch).
ZERO_ONE = np.array([0.0, 1.0], np.float32)


@njit(cache=True, inline="always")
def _clip(x: float) -> np.float32:
    return np.float32(min(1.0, max(-1.0, x)))


#: The tiles and stacks of each player count (index = players), for the specialised observation.
TILES_BY_PLAYERS = tuple(D.num_sets(p) * NC if p >= D.MIN_PLAYERS else 0 for p in range(D.MAX_PLAYERS + 1))
STACKS_BY_PLAYERS = tuple(D.num_stacks(p) if p >= D.MIN_PLAYERS else 0 for p in range(D.MAX_PLAYERS + 1))


#: Rows of the observation's lookup tables (:func:`obs_tables`): each maps a count ``v`` (at
#: index ``v + 128``, counts clamped to [-128, 127], beyond which every feature saturates) to the
#: feature the observation stores, computed by the same expression as the feature's definition.
LUT_HAND, LUT_DISCARD, LUT_UNDER, LUT_SEAT_CARDS, LUT_DECK, LUT_TOTAL, LUT_LAST, LUT_STACK, LUT_COMBOS = range(9)


def obs_tables(cfg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lookup tables of :func:`observe_kernel` for configuration ``cfg``: ``(luts, tile_codes)``.

    ``luts (9, 256) float32``: rows ``LUT_*`` (hand and pending / 8, discards / 16, cards under
    a tile / 10, hand and pending sizes / 20, deck size / 40, game total / 50, last round's
    points / 20, stack size / depth, combos / 10), each clipped to [-1, 1] as the feature is.
    ``tile_codes (2 + 4P, 5 + P) float32``: a tile's features but the cards under it, by code:
    0 hidden in a stack, 1 available (revealed), ``2 + (burned * P + owner) * 2 + correct`` an
    owned tile (``owner`` observer first, ``correct``: the observer's own tile with a correct combo).
    Computed once per game by numpy (a compiled kernel cost a compile at the first ``make_game``).
    """
    P = int(cfg[C_P])
    depth = int(cfg[C_DEPTH])
    v = np.arange(-128, 128, dtype=np.int64)

    def clip(x: np.ndarray) -> np.ndarray:
        return np.minimum(1.0, np.maximum(-1.0, x)).astype(np.float32)

    luts = np.zeros((9, 256), np.float32)
    luts[LUT_HAND] = clip(v / 8.0)
    luts[LUT_DISCARD] = clip(v / 16.0)
    luts[LUT_UNDER] = clip(v / 10.0)
    luts[LUT_SEAT_CARDS] = clip(v / 20.0)
    luts[LUT_DECK] = v / np.float64(DECK)
    luts[LUT_TOTAL] = clip(v / 50.0)
    luts[LUT_LAST] = clip(v / 20.0)
    luts[LUT_STACK] = v / np.float64(depth)
    luts[LUT_COMBOS] = v / np.float64(NC)
    codes = np.zeros((2 + 4 * P, TILE_FEATURES + P), np.float32)
    codes[0, 1] = 1.0
    codes[1, 0] = 1.0
    for burned in range(2):
        for r in range(P):
            for ok in range(2):
                c = 2 + (burned * P + r) * 2 + ok
                codes[c, 2] = np.float32(burned)
                codes[c, 4] = np.float32(r == 0 and ok == 1)
                codes[c, TILE_FEATURES + r] = 1.0
    return luts, codes


@njit(cache=True, inline="always")
def _lut(luts, row: int, v) -> np.float32:
    """``luts[row]`` at count ``v`` (clamped to the table)."""
    return luts[row, np.uint64(min(max(np.int64(v), -128), 127) + 128)]  # (unsigned: no wraparound)


#: Player count -> its compiled observation (:func:`observe_kernel`), made on first request.
_OBSERVE_KERNELS: dict[int, Callable[..., None]] = {}


def observe_kernel(num_players: int) -> Callable[..., None]:
    """The compiled observation of ``num_players`` seats: ``observe(player, obs, st, cfg, luts, tile_codes)``.

    ``observe`` writes each row's observation for seat ``player[b]`` (``(B,) int64``) into
    ``obs (B, D) float32`` (values in [-1, 1]) for a ``cfg`` of ``num_players`` seats. Pieces in
    order: own hand, own pending set, own discards (10 kinds each); per seat (observer first)
    :data:`SEAT_FEATURES`; per tile :data:`TILE_FEATURES` then the owner one-hot (observer
    first); stack sizes; the clock (tick, round, replays). ``luts`` and ``tile_codes`` are
    :func:`obs_tables` of ``cfg``. The work is done by :func:`observe_players` with the player
    count a compile-time constant (every offset constant); each count is its own small kernel,
    so a process compiles (or loads from numba's cache) only the counts it plays, not all seven.

    Raises:
        ValueError: ``num_players`` outside the game's range.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an int, got {num_players!r:.60}")
    P = int(num_players)
    if not D.MIN_PLAYERS <= P <= D.MAX_PLAYERS:
        raise ValueError(f"num_players must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {P}")
    kernel = _OBSERVE_KERNELS.get(P)
    if kernel is None:
        # P, a closure constant, is a literal in here (numba caches per value)
        @njit_borrowed(cache=True, error_model="numpy")
        def observe(player: np.ndarray, obs: np.ndarray, st, cfg, luts: np.ndarray, tile_codes: np.ndarray) -> None:
            observe_players(player, obs, st, cfg, luts, tile_codes, P)

        kernel = _OBSERVE_KERNELS[P] = observe
    return kernel


@njit_borrowed(cache=True, error_model="numpy", no_cpython_wrapper=True)
def observe_players(player: np.ndarray, obs: np.ndarray, st, cfg, luts, tile_codes, num_players: int) -> None:
    """The observation (:func:`observe_kernel`) of ``num_players == cfg[C_P]`` seats, a literal.

    Every count goes through a lookup table; a row's tile block is cleared and then only its
    non-zero features are stored, each at an index computed without a branch on the tile's state
    (the features of ``tile_codes``, which this kernel does not read); the cards under a tile are
    its ``under_count``; the rows are indexed directly (no view per row: each would pay a
    reference count).
    """
    P = literally(num_players)
    tick = st[F.tick]
    rnd = st[F.round]
    replays = st[F.replays]
    deck_size = st[F.deck_size]
    hands = st[F.hands]
    pending = st[F.pending]
    discard = st[F.discard]
    tile_state = st[F.tile_state]
    tile_owner = st[F.tile_owner]
    tile_stack = st[F.tile_stack]
    stacks = st[F.stacks]
    stack_size = st[F.stack_size]
    replenish_used = st[F.replenish_used]
    skin_given = st[F.skin_given]
    skins = st[F.skins]
    totals = st[F.totals]
    round_scores = st[F.round_scores]
    area = st[F.area]
    tile_ok = st[F.tile_ok]
    under_count = st[F.under_count]
    NT = TILES_BY_PLAYERS[P]
    S = STACKS_BY_PLAYERS[P]
    R = cfg[C_ROUNDS]
    W = TILE_FEATURES + P
    I_SEAT = 3 * NK
    I_TILE = I_SEAT + P * SEAT_FEATURES
    I_STACK = I_TILE + NT * W
    bits = stack_array(MAX_OWNERS, np.int64)  # combos owned per seat (observer first; slot P: nobody)
    rel = stack_array(MAX_OWNERS, np.int64)  # owner seat w -> (w - o) % P, at w + 1
    for b in range(player.size):
        o = np.int64(player[b])
        for k in range(NK):
            obs[b, k] = _lut(luts, LUT_HAND, hands[b, o, k])
            obs[b, k + NK] = _lut(luts, LUT_HAND, pending[b, o, k])
            obs[b, k + 2 * NK] = _lut(luts, LUT_DISCARD, discard[b, o, k])
        for r in range(P + 1):
            bits[r] = 0
        for w in range(-1, P):  # owner seat w (-1 too) -> its index observer first
            rel[w + 1] = (w - o) % P
        for i in range(I_TILE, I_STACK):  # the tile block is mostly zeros: cleared, then its ones set
            obs[b, i] = 0.0
        for t in range(NT):  # (unsigned indices: no negative-index wraparound to compute)
            ts = tile_state[b, np.uint64(t)]
            j = I_TILE + t * W
            own = np.int64(ts != TILE_STACK and ts != TILE_LOOSE)
            w = np.int64(tile_owner[b, np.uint64(t)])
            if w >= -1 and w < P:
                r = rel[np.uint64(w + 1)]
            else:  # (an owner out of range: a broken state)
                r = (w - o) % P
            r = r * own + P * (1 - own)  # the owner observer first; P: nobody
            bits[np.uint64(r)] |= COMBO_BIT[np.uint64(t)]
            # the one 1 among hidden / available and the owner one-hot, then burned, cards, correct
            obs[b, np.uint64(j + (TILE_FEATURES + r) * own + np.int64(ts == TILE_STACK) * (1 - own))] = 1.0
            obs[b, np.uint64(j + 2)] = ZERO_ONE[np.uint64(own & np.int64(ts == TILE_ORANGE))]
            obs[b, np.uint64(j + 3)] = _lut(luts, LUT_UNDER, np.int64(under_count[b, np.uint64(t)]) * own)
            obs[b, np.uint64(j + 4)] = ZERO_ONE[np.uint64(own & np.int64(r == 0) & np.int64(tile_ok[b, np.uint64(t)]))]
        # a tile in a stack is available when it is the top of its stack (tile_stack says which)
        for s in range(S):
            t = stacks[b, s, stack_size[b, s] - 1]
            if t >= 0 and t < NT and tile_state[b, t] == TILE_STACK and tile_stack[b, t] == s:
                obs[b, I_TILE + t * W] = 1.0
                obs[b, I_TILE + t * W + 1] = 0.0
        last = rnd[b] - 1
        my_area = area[b, o]
        for r in range(P):
            q = o + r
            if q >= P:
                q -= P
            i = I_SEAT + r * SEAT_FEATURES
            nh = 0
            npd = 0
            for k in range(NK):
                nh += hands[b, q, k]
                npd += pending[b, q, k]
            obs[b, i] = _lut(luts, LUT_SEAT_CARDS, nh)
            obs[b, i + 1] = _lut(luts, LUT_SEAT_CARDS, npd)
            obs[b, i + 2] = _lut(luts, LUT_DECK, deck_size[b, q])
            obs[b, i + 3] = np.float32(replenish_used[b, q])
            obs[b, i + 4] = np.float32(skin_given[b, q])
            obs[b, i + 5] = _lut(luts, LUT_HAND, skins[b, q])
            obs[b, i + 6] = _lut(luts, LUT_COMBOS, popcount10(bits[r]))
            obs[b, i + 7] = _lut(luts, LUT_TOTAL, totals[b, q])
            obs[b, i + 8] = _lut(luts, LUT_LAST, round_scores[b, last, q]) if last >= 0 else np.float32(0.0)
            obs[b, i + 9] = np.float32(area[b, q] == my_area)
        for s in range(S):
            obs[b, I_STACK + s] = _lut(luts, LUT_STACK, stack_size[b, s])
        i = I_STACK + S
        obs[b, i] = _clip(tick[b] / cfg[C_TICKS])
        obs[b, i + 1] = _clip(rnd[b] / R)
        obs[b, i + 2] = _clip(replays[b] / max(1, cfg[C_MAX_REPLAYS]))


@njit(cache=True)
def score_batch(P: int, tile_owner, tile_state, under, replenish_used, skins, totals, family: bool,
                points, aside, checked, smartest) -> None:  # fmt: skip
    """:func:`score_tiles` for every row of ``(n, ...)`` arrays (tests and analysis)."""
    for b in range(tile_owner.shape[0]):
        score_tiles(P, tile_owner[b], tile_state[b], under[b], replenish_used[b], skins[b], totals[b], family,
                    points[b], aside[b], checked[b], smartest[b])  # fmt: skip
