"""Funky Monkey rules as numba-compiled kernels over a batch of games (the model: Monkey Fun's kernels).

Three kernels (:func:`reset_rows_at`, :func:`step_at`, :func:`observe_at`) take the state by its
arrays' data addresses and shapes (:func:`address`; leading batch axis ``B``, dtypes as in
:class:`~monkey_envs.funky_monkey.state.FunkyMonkeyState`, order of :data:`STATE_FIELDS`) and
the game's lookup tables as plain arguments, and each runs one compiled loop over the rows: no
Python code runs per row. Kernels are compiled on first use and cached on disk (``cache=True``,
in ``__pycache__``); as numba keys that cache on this file only while the kernels compile in
constants of ``data.py`` / ``state.py`` and functions of :mod:`monkey_envs.core.rng`, a cache
built from other versions of those files is dropped at import
(:func:`monkey_envs.core.kernel_cache.drop_stale_cache`).

Compiling them from an empty cache is most of a cold start, so each rule body is compiled once,
in the one kernel that runs it (no second copy for a tuple of arrays, no body linked into a
wrapper and optimised again), helpers that only kernels call get no Python wrapper
(:data:`_inner`), and no call passes a literal (numba would compile the callee once more for it).
Every kernel and helper is compiled without reference counting
(:func:`~monkey_envs.core.kernel_cache.njit_borrowed`: they only borrow the state's arrays; about
a quarter of the LLVM code was reference counts) and without numba's IR rewrites
(``no_rewrites``: passes these kernels do not need, each re-analysing the whole
function); their scratch lives in their stack frames
(:func:`~monkey_envs.core.kernel_cache.stack_array`), so nothing allocates and no ``np.empty``
implementation compiles.

These kernels are the game's one rules implementation. They were compiled from numpy rules that
are kept, frozen, as the test oracle (``tests/funky_monkey_numpy_reference.py``: the ``_step``
stage machine, the deal and the observation; the masks by ``MaskTable.refresh``), and reproduce
them exactly: the same decisions, chance events (each row's counter-based stream of
:mod:`monkey_envs.core.rng`, drawn in the same amounts in the same order), rewards and float32
observations; ``tests/test_funky_monkey_compiled.py`` compares them over random batches.

One row's step (:func:`step_at`) is one pass of straight code: the decision, the reveal it may
trigger, then a loop over the continuation stages (``ST_*``) in which a pending move (``dest``) or
elimination (``elim``, a bitmask of seats) is applied first. The numpy rules queue reveals and
moves to run once for all rows; each is row-local and the last thing its decision does, so
running them at once per row gives the same result. Games ended in the step are booked at once
(nothing later in the row's step reads the booked fields) and the hand cards of seats eliminated
in the step leave play at its end, as in the numpy rules.

Notation: ``b`` a row, ``P`` seats, ``m`` the mover, ``x`` a track space, ``a`` an action.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from monkey_envs.core.kernel_cache import drop_stale_cache, njit_borrowed, stack_array
from monkey_envs.core.rng import next_uint64, seed_row, sort_order
from monkey_envs.core.schema import field_index, field_names, schema
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey import state as S

drop_stale_cache(__file__)

#: The decorator of the helpers that only kernels call (underscored): numba compiles no Python
#: wrapper for them (for a jitted function it does, unboxing each argument: for a helper taking
#: many arrays, tenths of a second of a cold start that nothing uses). Called from Python, such a
#: helper would crash the interpreter. Borrowed and without rewrites, as the kernels (module
#: docstring).
_inner = njit_borrowed(cache=True, no_cpython_wrapper=True, no_rewrites=True)

#: Order of the state arrays in the tuple ``st`` the batch kernels take (the fields of
#: :class:`~monkey_envs.funky_monkey.state.FunkyMonkeyState`), and their indices: ``st[F.pos]``.
STATE_FIELDS = field_names(S.FunkyMonkeyState)
F = field_index(S.FunkyMonkeyState)
#: Type of ``st`` (the arrays of :data:`STATE_FIELDS`).
StateArrays = tuple[np.ndarray, ...]

#: Observation pieces whose first column :func:`observe_at` takes in ``offsets`` (in this order); the
#: per-seat counts (``hand_sizes`` .. ``bluffs_shown``) and the dense counts (``passes`` ..
#: ``turn_flags``) are each one block starting at their first piece.
OBS_OFFSET_PIECES = (
    "phase",
    "to_move",
    "active",
    "holder",
    "accepter",
    "announcement",
    "known_card",
    "revealed",
    "pyramid_card",
    "golden",
    "tiger",
    "position",
    "tiles",
    "chips_left",
    "hand_sizes",
    "passes",
)
(
    O_PHASE,
    O_TO_MOVE,
    O_ACTIVE,
    O_HOLDER,
    O_ACCEPTER,
    O_ANNOUNCE,
    O_KNOWN,
    O_REVEALED,
    O_PYRAMID,
    O_GOLDEN,
    O_TIGER,
    O_POSITION,
    O_TILES,
    O_CHIPS,
    O_SEAT,
    O_DENSE,
) = range(len(OBS_OFFSET_PIECES))
#: Columns of the dense block (``passes`` .. ``turn_flags``).
NUM_DENSE = 2 + D.NUM_CARD_KINDS + 3 + 3 + 1 + 2 + 1 + D.NUM_TILE_KINDS + 2 * D.NUM_CARD_KINDS + 1 + 1 + 2

# ---------------------------------------------------------------- rules constants (compiled in)
K = D.NUM_CARD_KINDS
L = D.TRACK_LENGTH
MAX_CARDS = D.MAX_CARDS
MAX_PLAYERS = D.MAX_PLAYERS
MINUSS = D.CARD_MINUSS
T_SCALES, T_TELESCOPE, T_CROWN = D.T_SCALES, D.T_TELESCOPE, D.T_CROWN
BOWL1_SPACE, BOWL2_SPACE = D.BOWL_SPACES
REAR_START, FRONT_START = D.REAR_START, D.FRONT_START
HAND_SIZE = D.HAND_SIZE
IS_SLOT = D.IS_SLOT.copy()
SLOT_ROW = D.SLOT_ROW.astype(np.int64)
FIXED_EFFECT = D.FIXED_EFFECT.astype(np.int64)
STEPS = D.CARD_STEPS.astype(np.int64)
SLOTS = np.flatnonzero(D.IS_SLOT).astype(np.int64)
NUM_SLOTS = SLOTS.size
TILE_COMPOSITION = D.TILE_COMPOSITION.astype(np.int64)
NUM_TILE_KINDS = D.NUM_TILE_KINDS
#: The three tile backs: ``(14,) int8`` stacks back to back, each back's first index in it and its slots.
TILE_STACKS = np.concatenate([np.array(D.TILE_STACKS_RECONSTRUCTED[bk], np.int8) for bk in D.TILE_BACKS])
STACK_START = np.cumsum([0] + [len(D.TILE_STACKS_RECONSTRUCTED[bk]) for bk in D.TILE_BACKS]).astype(np.int64)
BACK_SLOTS = np.full((len(D.TILE_BACKS), 4), -1, np.int64)
for _i, _bk in enumerate(D.TILE_BACKS):
    BACK_SLOTS[_i, : len(D.TILE_SLOTS_RECONSTRUCTED[_bk])] = D.TILE_SLOTS_RECONSTRUCTED[_bk]
NUM_SLOTS_OF_BACK = np.array([len(D.TILE_SLOTS_RECONSTRUCTED[bk]) for bk in D.TILE_BACKS], np.int64)
NUM_BACKS = len(D.TILE_BACKS)
TREASURE_DECK = np.array(D.TREASURE_DECK_RECONSTRUCTED, np.int8)
NUM_TREASURES = TREASURE_DECK.size
#: Setup's draws of one row at most (:func:`reset_rows_at`: tiles, cards, treasures, placing order,
#: start bits, chips, for ``MAX_PLAYERS``)
MAX_SETUP_DRAWS = TILE_STACKS.size + MAX_CARDS + NUM_TREASURES + MAX_PLAYERS + (MAX_PLAYERS + 1) // 2 + MAX_PLAYERS

E_NONE, E_COCONUT, E_GOLDEN, E_CHEST = D.E_NONE, D.E_COCONUT, D.E_GOLDEN, D.E_CHEST
E_PYRAMID, E_NEAREST_BOWL, E_MINUS1, E_MINUS2, E_BOWL = (
    D.E_PYRAMID,
    D.E_NEAREST_BOWL,
    D.E_MINUS1,
    D.E_MINUS2,
    D.E_BOWL,
)
BOWL_EMPTY, BOWL_COCONUT, BOWL_GOLDEN = S.BOWL_EMPTY, S.BOWL_COCONUT, S.BOWL_GOLDEN
PH_ACTIVE, PH_RESPOND, PH_RESPOND_SEEN, PH_PAY = S.PH_ACTIVE, S.PH_RESPOND, S.PH_RESPOND_SEEN, S.PH_PAY
PH_BOWL, PH_PYRAMID, PH_BONUS, PH_SCALES, PH_OVER = S.PH_BOWL, S.PH_PYRAMID, S.PH_BONUS, S.PH_SCALES, S.PH_OVER
ST_DECIDE, ST_LAND, ST_DEBT, ST_AFTER = S.ST_DECIDE, S.ST_LAND, S.ST_DEBT, S.ST_AFTER
ST_SCALES_ACTIVE, ST_SCALES_ACCEPTER, ST_END_TURN = S.ST_SCALES_ACTIVE, S.ST_SCALES_ACCEPTER, S.ST_END_TURN
END_TIGER, END_LAST_MONKEY, END_QUITTING_TIME, END_NO_WINNER = (
    S.END_TIGER,
    S.END_LAST_MONKEY,
    S.END_QUITTING_TIME,
    S.END_NO_WINNER,
)
_ST = {name: i for i, name in enumerate(S.STAT_NAMES)}
SC_TURNS, SC_TRUTHFUL, SC_BLUFFS, SC_BLUFFS_ACCEPTED = (
    _ST["turns_active"],
    _ST["truthful"],
    _ST["bluffs"],
    _ST["bluffs_accepted"],
)
SC_BONUS_MONKEY, SC_BONUS_TIGER, SC_BONUS_DECLINED = _ST["bonus_monkey"], _ST["bonus_tiger"], _ST["bonus_declined"]
SC_PASSED, SC_TELESCOPES, SC_CROWNS, SC_SCALES, SC_ACCEPTED = (
    _ST["cards_passed"],
    _ST["telescopes_used"],
    _ST["crown_plays"],
    _ST["scales_used"],
    _ST["accepted"],
)
# actions (the table of actions.py)
A_CROWN, A_ACCEPT, A_PASS, A_TELESCOPE = 25, 30, 31, 32
A_BONUS_MONKEY, A_BONUS_TIGER, A_BONUS_DECLINE = 33, 34, 35
A_PYRAMID_BACKWARD, A_BOWL_2, A_PAY_GOLDEN, A_SCALES_SKIP, A_SCALES_TARGET = 37, 39, 41, 42, 43
D_TOTAL_COCONUTS, D_START_COCONUTS = D.TOTAL_COCONUTS, D.START_COCONUTS
BOWL_START_0, BOWL_START_1 = D.BOWL_START
BOWL_START_SUM = sum(D.BOWL_START)
S_END_NONE = S.END_NONE
REWARD_WIN = np.float32(D.REWARD_WIN)
REWARD_LOSS = np.float32(D.REWARD_LOSS)
REWARD_DRAW = np.float32(D.REWARD_DRAW)
#: "no move pending" (a move's destination is a track space, at most 2 * L)
NO_MOVE = -(1 << 20)
#: chain reactions are short; this only guards against a rules bug (as ``rules._MAX_LOOP``)
MAX_LOOP = 256
_ONE = np.float32(1.0)


# ====================================================================== per-row helpers
@_inner
def _finish_row(ptrs: np.ndarray, dims: np.ndarray, b: int, winners: int, reason: int) -> None:
    """End game ``b`` with the seats of bitmask ``winners`` winning (``end_games`` of the numpy rules).

    Each winner gets ``REWARD_WIN``, every other seat ``REWARD_LOSS``; when all of several seats
    share the win, everyone gets ``REWARD_DRAW``. Callers pass ``winners`` and ``reason`` as
    ``np.int64`` so one compiled version serves every call (a literal ``0`` would compile another).
    """
    rewards = _field(ptrs, dims, "rewards")
    winners_mask = _field(ptrs, dims, "winners_mask")
    terminated = _field(ptrs, dims, "terminated")
    end_reason = _field(ptrs, dims, "end_reason")
    mask = _field(ptrs, dims, "legal_action_mask")
    current_player = _field(ptrs, dims, "current_player")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    _, P = rewards.shape  # unpacked: an indexed shape is one more helper to compile without rewrites
    everyone = P > 1 and winners == (1 << P) - 1
    for p in range(P):
        w = ((winners >> p) & 1) == 1
        if everyone:
            rewards[b, p] = REWARD_DRAW
        elif w:
            rewards[b, p] = REWARD_WIN
        else:
            rewards[b, p] = REWARD_LOSS
        winners_mask[b, p] = w
    terminated[b] = True
    end_reason[b] = reason
    mask[b, :] = False
    current_player[b] = -1
    phase[b] = PH_OVER
    stage[b] = ST_DECIDE


@_inner
def _reshuffle_row(rng: np.ndarray, b: int, discard: np.ndarray, draw_pile: np.ndarray, draw_size: np.ndarray) -> None:
    """Shuffle the revealed movement cards of row ``b`` into a new draw pile (the old one is empty).

    The pile is the discard's cards sorted by kind, shuffled with the row's stream over the full
    pile width (the counter advances by ``MAX_CARDS``), as ``FunkyMonkey._reshuffle``
    (:func:`~monkey_envs.core.rng.shuffle_prefix`). That shuffle's permutation is the stable
    argsort of its keys, the row's next draws ``>> 11`` (as floats in ``[0, 1)``: exact, so in the
    same order), which is unique: so it is computed here by :func:`_stable_order` on those draws
    (sparing a cold start the compile of ``core.rng.shuffle_order``).
    """
    nd = np.int64(0)  # not the literal 0: _stable_order compiles once, for int64
    for k in range(K):
        for _ in range(discard[b, k]):
            draw_pile[b, nd] = k
            nd += 1
    for i in range(nd, MAX_CARDS):
        draw_pile[b, i] = -1
    _, width = draw_pile.shape  # MAX_CARDS (address() takes no state with another width)
    keys = stack_array(MAX_CARDS, np.uint64)
    for j in range(nd):
        keys[j] = next_uint64(rng, b) >> np.uint64(11)
    rng[b, 1] += np.uint64(width - nd)  # the counter advances by the pile's width, as shuffle_order's
    order = stack_array(MAX_CARDS, np.int64)
    _stable_order(keys, np.int64(0), nd, order)
    pile = draw_pile[b]
    head = stack_array(MAX_CARDS, np.int8)
    for i in range(nd):
        head[i] = pile[i]
    for i in range(nd):
        pile[i] = head[order[i]]
    draw_size[b] = nd
    for k in range(K):
        discard[b, k] = 0


@_inner
def _new_round_row(rng: np.ndarray, b: int, can: int, P: int, chip_order: np.ndarray, keys: np.ndarray) -> int:
    """Shuffle the chips of the seats of bitmask ``can`` into row ``b``'s ``chip_order``; return the first.

    The draws and order of ``FunkyMonkey._end_turn``: ``P`` numbers (``>> 11`` as keys) for the
    seats that can play in seat order, a stable sort of the keys; ``-1`` past them.
    """
    n = 0
    firsts = stack_array(MAX_PLAYERS, np.int64)
    for p in range(P):
        if (can >> p) & 1:
            firsts[n] = p
            n += 1
    for j in range(P):
        keys[j] = next_uint64(rng, b) >> np.uint64(11)
    idx = stack_array(MAX_PLAYERS, np.int64)
    _stable_order(keys, np.int64(0), n, idx)  # the prefix's seats by their keys
    for j in range(P):
        chip_order[b, j] = firsts[idx[j]] if j < n else -1
    return firsts[idx[0]]


@njit_borrowed(cache=True, no_cpython_wrapper=True)
def _chain_did_not_settle() -> None:
    """Raise the error of a chain reaction that did not settle (a rules bug; :func:`step_at`).

    Compiled with numba's rewrites, which make this a raise of a constant exception: the kernels,
    compiled without them (``no_rewrites``), would raise it as a dynamic one, which needs the
    reference-counting runtime they are compiled without.
    """
    raise RuntimeError("Funky Monkey chain reaction did not settle")


@njit(cache=True, inline="always")
def refresh_row(
    b: int,
    P: int,
    phase: np.ndarray,
    current_player: np.ndarray,
    hands: np.ndarray,
    treasures: np.ndarray,
    alive: np.ndarray,
    mask: np.ndarray,
    table: np.ndarray,
    key0: np.ndarray,
) -> None:
    """Write row ``b``'s legal mask for its pending decision (a row of the ``MaskTable``)."""
    cp = np.int64(current_player[b])
    ph = np.int64(phase[b])
    var = 0
    if ph == PH_ACTIVE:
        for k in range(K):
            if hands[b, cp, k] > 0:
                var |= 1 << k
        if treasures[b, cp, T_CROWN] > 0:
            var += 32
    elif ph == PH_RESPOND:
        var = 1 if treasures[b, cp, T_TELESCOPE] > 0 else 0
    elif ph == PH_SCALES:
        if treasures[b, cp, T_SCALES] > 0:
            for j in range(P - 1):
                if alive[b, _abs(j + 1, cp, P)]:
                    var |= 1 << j
    key = key0[ph] + var
    _, A = mask.shape
    for i in range(A):  # element by element: a slice copy checks the arrays for overlap first
        mask[b, i] = table[key, i]


@_inner
def _next_alive_left(alive: int, seat: int, P: int) -> int:
    """First surviving seat to the left of ``seat`` (``seat`` itself last; with none, the next seat), of
    the seats of bitmask ``alive``. A call of scalars: inlined at both of :func:`step_at`'s sites it
    cost about half a second of a cold start."""
    for k in range(1, P + 1):
        c = _abs(k, seat, P)
        if (alive >> c) & 1:
            return c
    return _abs(1, seat, P)


@njit(cache=True, inline="always")
def _rel(seat: int, observer: int, P: int) -> int:
    """``(seat - observer) % P`` for seats in ``[0, P)`` (no division)."""
    d = np.int64(seat) - observer
    return d + P if d < 0 else d


@njit(cache=True, inline="always")
def _abs(offset: int, seat: int, P: int) -> int:
    """``(seat + offset) % P`` for ``seat`` in ``[0, P)`` and ``offset`` in ``[0, P]`` (no division)."""
    s = np.int64(seat) + offset
    return s - P if s >= P else s


# ====================================================================== the kernels
# The game calls three kernels, all on the state by its arrays' addresses (:func:`address`, and
# the section below): numba unboxes every array argument on every call (a few tenths of a
# microsecond each), so a call handing it the 48 state arrays spent about 10 us before the first
# rule ran, most of a batch of one's step (the AEC face). Each kernel is one compiled function
# over the rows; it rebuilds the state arrays it uses inside (:func:`_field`: views of the same memory).
@njit_borrowed(cache=True, no_rewrites=True)
def reset_rows_at(
    rows: np.ndarray,
    seeds: np.ndarray,
    ptrs: np.ndarray,
    dims: np.ndarray,
    face_up0: np.ndarray,
    deck: np.ndarray,
    tiger_start: int,
    table: np.ndarray,
    key0: np.ndarray,
) -> None:
    """New games into rows ``rows (n,) int64`` (``seeds (n,) int64``, >= 0) of the state at ``ptrs`` /
    ``dims`` (:func:`address`), as the oracle's numpy deal, and their legal masks: those rows end as the rows of
    ``init`` of ``seeds``, bit for bit; no other row changes.

    Writes every field of those rows (they may be uninitialised, ``Setup.empty``) and no other
    row: the seeded ones -- RNG rows, jungle tiles (and the removed ones), hands, draw and
    treasure piles, start spaces, the round's monkey chips -- and the values every new game holds
    (``Setup.blank``), then the legal mask (a row of the ``MaskTable``). All of setup's chance is one
    draw of the row's stream, split into stable sorts of its keys in the order tiles (per back),
    movement cards, treasure cards, placing order, start bits, chips.
    """
    rng = _field(ptrs, dims, "rng")
    pos, tiles, removed, hands, draw_pile = (
        _field(ptrs, dims, "pos"),
        _field(ptrs, dims, "tiles"),
        _field(ptrs, dims, "removed_tiles"),
        _field(ptrs, dims, "hands"),
        _field(ptrs, dims, "draw_pile"),
    )
    treasure_pile, chip_order, current_player, active = (
        _field(ptrs, dims, "treasure_pile"),
        _field(ptrs, dims, "chip_order"),
        _field(ptrs, dims, "current_player"),
        _field(ptrs, dims, "active"),
    )
    face_up, draw_size, tiger = (
        _field(ptrs, dims, "face_up"),
        _field(ptrs, dims, "draw_size"),
        _field(ptrs, dims, "tiger"),
    )
    _, P = pos.shape
    N = deck.size
    nd = N - P * HAND_SIZE
    nbits = (P + 1) // 2
    total = TILE_STACKS.size + N + NUM_TREASURES + P + nbits + P
    keys = stack_array(MAX_SETUP_DRAWS, np.uint64)
    bits = stack_array(MAX_SETUP_DRAWS, np.int64)
    order = stack_array(MAX_CARDS, np.int64)
    for i in range(rows.size):
        b = rows[i]
        _blank_row(ptrs, dims, b, face_up0, tiger_start, N)
        seed_row(rng, b, seeds[i])
        for j in range(total):
            u = next_uint64(rng, b)
            bits[j] = np.int64(u & np.uint64(1))
            keys[j] = u >> np.uint64(11)
        at = np.int64(0)  # not a literal 0: _stable_order compiles once, for int64
        # ---- jungle tiles: each back's stack shuffled, its last tile removed unseen
        for i in range(NUM_BACKS):
            s0 = STACK_START[i]
            n = STACK_START[i + 1] - s0
            _stable_order(keys, at, n, order)
            at += n
            for j in range(NUM_SLOTS_OF_BACK[i]):
                tiles[b, BACK_SLOTS[i, j]] = TILE_STACKS[s0 + order[j]]
            removed[b, i] = TILE_STACKS[s0 + order[n - 1]]
        for x in range(L):
            if not IS_SLOT[x]:
                tiles[b, x] = 0
            face_up[b, x] = face_up0[x]
        # ---- movement cards: deal 5 each from the top, the rest is the draw pile
        _stable_order(keys, at, N, order)
        at += N
        for p in range(P):
            for k in range(K):
                hands[b, p, k] = 0
        for j in range(nd, N):
            p = (j - nd) // HAND_SIZE
            hands[b, p, deck[order[j]]] += 1
        for j in range(MAX_CARDS):
            draw_pile[b, j] = deck[order[j]] if j < nd else -1
        draw_size[b] = nd
        # ---- treasure cards
        _stable_order(keys, at, np.int64(NUM_TREASURES), order)
        at += NUM_TREASURES
        for j in range(NUM_TREASURES):
            treasure_pile[b, j] = TREASURE_DECK[order[j]]
        # ---- start spaces: random placing order; odd placers choose at random, even ones balance
        _stable_order(keys, at, P, order)
        at += P
        for j in range(P):
            bit = bits[at + j // 2]
            space = bit if j % 2 == 0 else 1 - bit
            pos[b, order[j]] = FRONT_START if space == 1 else REAR_START
        at += nbits
        # ---- monkey chips of round 1
        _stable_order(keys, at, P, order)
        for j in range(P):
            chip_order[b, j] = order[j]
        current_player[b] = order[0]
        active[b] = order[0]
        tiger[b] = tiger_start
    phase, hands, treasures, alive, mask = (
        _field(ptrs, dims, "phase"),
        _field(ptrs, dims, "hands"),
        _field(ptrs, dims, "treasures"),
        _field(ptrs, dims, "alive"),
        _field(ptrs, dims, "legal_action_mask"),
    )
    for i in range(rows.size):
        refresh_row(rows[i], P, phase, current_player, hands, treasures, alive, mask, table, key0)


@_inner
def _blank_row(
    ptrs: np.ndarray, dims: np.ndarray, b: int, face_up0: np.ndarray, tiger_start: int, num_cards: int
) -> None:
    """The values every new game holds, into row ``b`` (``Setup.blank`` and ``position._turn_start``)."""
    _, P = _field(ptrs, dims, "pos").shape
    _field(ptrs, dims, "rewards")[b, :] = 0
    _field(ptrs, dims, "terminated")[b] = False
    _field(ptrs, dims, "truncated")[b] = False
    _field(ptrs, dims, "legal_action_mask")[b, :] = False
    _field(ptrs, dims, "step_count")[b] = 0
    _field(ptrs, dims, "winners_mask")[b, :] = False
    _field(ptrs, dims, "end_reason")[b] = S_END_NONE
    _field(ptrs, dims, "alive")[b, :] = True
    _field(ptrs, dims, "coconuts")[b, :] = D_START_COCONUTS
    _field(ptrs, dims, "golden")[b] = -1
    _field(ptrs, dims, "bowls")[b, 0] = BOWL_START_0
    _field(ptrs, dims, "bowls")[b, 1] = BOWL_START_1
    _field(ptrs, dims, "supply")[b] = D_TOTAL_COCONUTS - P * D_START_COCONUTS - BOWL_START_SUM
    _field(ptrs, dims, "tiger")[b] = tiger_start
    face_up = _field(ptrs, dims, "face_up")
    _, nx = face_up.shape
    for x in range(nx):  # a loop: an array assignment compiles its shape-mismatch error message
        face_up[b, x] = face_up0[x]
    _field(ptrs, dims, "draw_size")[b] = num_cards - P * HAND_SIZE
    _field(ptrs, dims, "discard")[b, :] = 0
    _field(ptrs, dims, "out_of_play")[b, :] = 0
    _field(ptrs, dims, "treasure_size")[b] = NUM_TREASURES
    _field(ptrs, dims, "treasures")[b] = 0
    _field(ptrs, dims, "treasure_used")[b, :] = 0
    _field(ptrs, dims, "chip_next")[b] = 1
    _field(ptrs, dims, "round")[b] = 1
    _field(ptrs, dims, "phase")[b] = PH_ACTIVE
    _field(ptrs, dims, "stage")[b] = ST_DECIDE
    _field(ptrs, dims, "offer_card")[b] = -1
    _field(ptrs, dims, "announce")[b] = -1
    _field(ptrs, dims, "holder")[b] = -1
    _field(ptrs, dims, "passes")[b] = 0
    _field(ptrs, dims, "seen")[b, :] = False
    _field(ptrs, dims, "crown_play")[b] = False
    _field(ptrs, dims, "accepter")[b] = -1
    _field(ptrs, dims, "revealed")[b] = -1
    _field(ptrs, dims, "mover")[b] = -1
    _field(ptrs, dims, "in_bonus")[b] = False
    _field(ptrs, dims, "debt")[b] = 0
    _field(ptrs, dims, "debt_to")[b] = -1
    _field(ptrs, dims, "pyramid_card")[b] = -1
    _field(ptrs, dims, "stats")[b] = 0


@_inner
def _stable_order(keys: np.ndarray, at: int, n: int, order: np.ndarray) -> None:
    """``order[:n]``: the stable argsort of ``keys[at : at + n]`` (the kit's insertion sort; ``n <= 40``)."""
    for i in range(n):
        order[i] = i
    sort_order(keys, at, order, n)


@_inner
def _play_card(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int, alive0: int, P: int) -> bool:
    """``PH_ACTIVE``: the active player plays card and announcement ``a`` face down (or face up with a Crown); True: reveal it now."""
    current_player = _field(ptrs, dims, "current_player")
    hands = _field(ptrs, dims, "hands")
    treasures = _field(ptrs, dims, "treasures")
    treasure_used = _field(ptrs, dims, "treasure_used")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    offer_card = _field(ptrs, dims, "offer_card")
    announce = _field(ptrs, dims, "announce")
    holder = _field(ptrs, dims, "holder")
    passes = _field(ptrs, dims, "passes")
    seen = _field(ptrs, dims, "seen")
    crown_play = _field(ptrs, dims, "crown_play")
    accepter = _field(ptrs, dims, "accepter")
    stats = _field(ptrs, dims, "stats")
    reveal = False
    act = np.int64(active[b])
    crown = a >= A_CROWN
    k = a - A_CROWN if crown else a // 5
    hands[b, act, k] -= 1
    offer_card[b] = k
    announce[b] = -1 if crown else a % 5
    seen[b, act] = True
    crown_play[b] = crown
    stats[b, act, SC_TURNS] += 1
    if crown:
        stats[b, act, SC_CROWNS] += 1
        treasures[b, act, T_CROWN] -= 1
        treasure_used[b, T_CROWN] += 1
        accepter[b] = act
        reveal = True
    else:
        h = _next_alive_left(alive0, act, P)  # nobody is out yet in this step
        holder[b] = h
        passes[b] = 0
        phase[b] = PH_RESPOND
        current_player[b] = h
    return reveal


@_inner
def _respond(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int, alive0: int, P: int) -> bool:
    """``PH_RESPOND`` / ``PH_RESPOND_SEEN``: the holder accepts, passes the card on, or looks through a Telescope; True: reveal it now."""
    current_player = _field(ptrs, dims, "current_player")
    treasures = _field(ptrs, dims, "treasures")
    treasure_used = _field(ptrs, dims, "treasure_used")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    offer_card = _field(ptrs, dims, "offer_card")
    announce = _field(ptrs, dims, "announce")
    holder = _field(ptrs, dims, "holder")
    passes = _field(ptrs, dims, "passes")
    seen = _field(ptrs, dims, "seen")
    accepter = _field(ptrs, dims, "accepter")
    stats = _field(ptrs, dims, "stats")
    reveal = False
    h = np.int64(holder[b])
    if a == A_ACCEPT:
        act = np.int64(active[b])
        stats[b, h, SC_ACCEPTED] += 1
        if offer_card[b] != announce[b]:
            stats[b, act, SC_BLUFFS_ACCEPTED] += 1
        accepter[b] = h
        reveal = True
    elif a == A_PASS:
        stats[b, h, SC_PASSED] += 1
        passes[b] += 1
        nxt = _next_alive_left(alive0, h, P)
        if nxt == active[b]:  # it went all the way round: the active player must accept it
            accepter[b] = active[b]
            reveal = True
        else:
            holder[b] = nxt
            current_player[b] = nxt
            phase[b] = PH_RESPOND
    else:  # A_TELESCOPE
        treasures[b, h, T_TELESCOPE] -= 1
        treasure_used[b, T_TELESCOPE] += 1
        stats[b, h, SC_TELESCOPES] += 1
        seen[b, h] = True
        phase[b] = PH_RESPOND_SEEN
    return reveal


@_inner
def _pay(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int) -> None:
    """``PH_PAY``: the mover gives up the golden coconut or a normal one towards its debt."""
    coconuts = _field(ptrs, dims, "coconuts")
    golden = _field(ptrs, dims, "golden")
    bowls = _field(ptrs, dims, "bowls")
    supply = _field(ptrs, dims, "supply")
    stage = _field(ptrs, dims, "stage")
    mover = _field(ptrs, dims, "mover")
    debt = _field(ptrs, dims, "debt")
    debt_to = _field(ptrs, dims, "debt_to")
    m = np.int64(mover[b])
    gold = a == A_PAY_GOLDEN
    dt = np.int64(debt_to[b])
    if gold:
        golden[b] = -1
    else:
        coconuts[b, m] -= 1
        if dt < 0:
            supply[b] += 1
    if dt >= 0:
        bowls[b, dt] = BOWL_GOLDEN if gold else BOWL_COCONUT
    debt[b] -= 1
    stage[b] = ST_DEBT if debt[b] > 0 else ST_AFTER


@_inner
def _pyramid_direction(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int) -> int:
    """``PH_PYRAMID``: the mover goes backward or forward by the revealed card; the destination."""
    pos = _field(ptrs, dims, "pos")
    mover = _field(ptrs, dims, "mover")
    pyramid_card = _field(ptrs, dims, "pyramid_card")
    m = np.int64(mover[b])
    n = STEPS[pyramid_card[b]]
    x = np.int64(pos[b, m])
    pyramid_card[b] = -1
    dest = x - n if a == A_PYRAMID_BACKWARD else x + n
    return dest


@_inner
def _bonus(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int, P: int) -> tuple[int, int]:
    """``PH_BONUS``: the truthful player moves its monkey, moves the tiger or declines; ``(destination, seats to eliminate)``."""
    pos = _field(ptrs, dims, "pos")
    alive = _field(ptrs, dims, "alive")
    tiger = _field(ptrs, dims, "tiger")
    active = _field(ptrs, dims, "active")
    stage = _field(ptrs, dims, "stage")
    mover = _field(ptrs, dims, "mover")
    in_bonus = _field(ptrs, dims, "in_bonus")
    stats = _field(ptrs, dims, "stats")
    dest = NO_MOVE
    elim = np.int64(0)
    act = np.int64(active[b])
    if a == A_BONUS_MONKEY:
        stats[b, act, SC_BONUS_MONKEY] += 1
        in_bonus[b] = True
        mover[b] = act
        dest = np.int64(pos[b, act]) + 1
    elif a == A_BONUS_DECLINE:
        stats[b, act, SC_BONUS_DECLINED] += 1
        stage[b] = ST_SCALES_ACTIVE
    else:  # A_BONUS_TIGER
        stats[b, act, SC_BONUS_TIGER] += 1
        tiger[b] -= 1
        stage[b] = ST_SCALES_ACTIVE
        for p in range(P):
            if alive[b, p] and pos[b, p] == tiger[b]:
                elim |= 1 << p
        elim |= 1 << 30  # run the elimination (and its end-of-game check) even if nobody is caught
    return dest, elim


@_inner
def _scales(ptrs: np.ndarray, dims: np.ndarray, b: int, a: int, P: int) -> None:
    """``PH_SCALES``: the holder of Scales shares coconuts with another surviving player, or keeps them."""
    current_player = _field(ptrs, dims, "current_player")
    coconuts = _field(ptrs, dims, "coconuts")
    golden = _field(ptrs, dims, "golden")
    treasures = _field(ptrs, dims, "treasures")
    treasure_used = _field(ptrs, dims, "treasure_used")
    active = _field(ptrs, dims, "active")
    stage = _field(ptrs, dims, "stage")
    stats = _field(ptrs, dims, "stats")
    u = np.int64(current_player[b])
    if a != A_SCALES_SKIP:
        t = (u + a - A_SCALES_TARGET + 1) % P
        g = np.int64(golden[b])
        gin = 1 if (g == u or g == t) else 0
        total = np.int64(coconuts[b, u]) + np.int64(coconuts[b, t]) + gin
        coconuts[b, u] = (total + 1) // 2 - gin
        coconuts[b, t] = total // 2
        if gin:
            golden[b] = u
        treasures[b, u, T_SCALES] -= 1
        treasure_used[b, T_SCALES] += 1
        stats[b, u, SC_SCALES] += 1
    stage[b] = ST_SCALES_ACCEPTER if u == active[b] else ST_END_TURN


@_inner
def _reveal(ptrs: np.ndarray, dims: np.ndarray, b: int) -> int:
    """The accepted card turns up: discard, truth statistics, the accepter becomes the mover; its destination (or a MiNuss debt)."""
    pos = _field(ptrs, dims, "pos")
    discard = _field(ptrs, dims, "discard")
    active = _field(ptrs, dims, "active")
    stage = _field(ptrs, dims, "stage")
    offer_card = _field(ptrs, dims, "offer_card")
    announce = _field(ptrs, dims, "announce")
    holder = _field(ptrs, dims, "holder")
    crown_play = _field(ptrs, dims, "crown_play")
    accepter = _field(ptrs, dims, "accepter")
    revealed = _field(ptrs, dims, "revealed")
    mover = _field(ptrs, dims, "mover")
    in_bonus = _field(ptrs, dims, "in_bonus")
    debt = _field(ptrs, dims, "debt")
    debt_to = _field(ptrs, dims, "debt_to")
    stats = _field(ptrs, dims, "stats")
    dest = NO_MOVE
    card = np.int64(offer_card[b])
    m = np.int64(accepter[b])
    act = np.int64(active[b])
    discard[b, card] += 1
    revealed[b] = card
    if not crown_play[b]:
        stats[b, act, SC_TRUTHFUL if card == announce[b] else SC_BLUFFS] += 1
    holder[b] = -1
    mover[b] = m
    in_bonus[b] = False
    if card == MINUSS:
        debt[b] = 1
        debt_to[b] = -1
        stage[b] = ST_DEBT
    else:
        dest = np.int64(pos[b, m]) + STEPS[card]
    return dest


@_inner
def _move_ends(ptrs: np.ndarray, dims: np.ndarray, b: int, dest: int) -> int:
    """The mover's monkey ends a move on ``dest``: a win on the tiger, out beyond it, else it lands; the seats to eliminate."""
    pos = _field(ptrs, dims, "pos")
    tiger = _field(ptrs, dims, "tiger")
    face_up = _field(ptrs, dims, "face_up")
    stage = _field(ptrs, dims, "stage")
    mover = _field(ptrs, dims, "mover")
    elim = np.int64(0)
    m = np.int64(mover[b])
    pos[b, m] = dest
    tg = np.int64(tiger[b])
    if dest < tg:
        if IS_SLOT[dest]:
            face_up[b, dest] = True
        stage[b] = ST_LAND
    elif dest > tg:
        stage[b] = ST_AFTER
        elim |= 1 << m
    else:
        _finish_row(ptrs, dims, b, 1 << m, np.int64(END_TIGER))
    return elim


@_inner
def _eliminate(ptrs: np.ndarray, dims: np.ndarray, b: int, elim: int, P: int) -> None:
    """Eliminate the seats of ``elim`` (bit 30: check only); the game ends with at most one monkey left."""
    alive = _field(ptrs, dims, "alive")
    left = np.int64(0)
    for p in range(P):
        if (elim >> p) & 1:
            alive[b, p] = False
        if alive[b, p]:
            left |= 1 << p
    if left != 0 and (left & (left - 1)) == 0:
        _finish_row(ptrs, dims, b, left, np.int64(END_LAST_MONKEY))
    elif left == 0:
        _finish_row(ptrs, dims, b, np.int64(0), np.int64(END_NO_WINNER))


@_inner
def _land(ptrs: np.ndarray, dims: np.ndarray, b: int) -> tuple[int, int]:
    """``ST_LAND``: the effect of the space the mover landed on; ``(a further destination, seats to eliminate)``."""
    current_player = _field(ptrs, dims, "current_player")
    rng = _field(ptrs, dims, "rng")
    pos = _field(ptrs, dims, "pos")
    alive = _field(ptrs, dims, "alive")
    coconuts = _field(ptrs, dims, "coconuts")
    golden = _field(ptrs, dims, "golden")
    bowls = _field(ptrs, dims, "bowls")
    supply = _field(ptrs, dims, "supply")
    tiles = _field(ptrs, dims, "tiles")
    draw_pile = _field(ptrs, dims, "draw_pile")
    draw_size = _field(ptrs, dims, "draw_size")
    discard = _field(ptrs, dims, "discard")
    treasure_pile = _field(ptrs, dims, "treasure_pile")
    treasure_size = _field(ptrs, dims, "treasure_size")
    treasures = _field(ptrs, dims, "treasures")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    mover = _field(ptrs, dims, "mover")
    debt = _field(ptrs, dims, "debt")
    debt_to = _field(ptrs, dims, "debt_to")
    pyramid_card = _field(ptrs, dims, "pyramid_card")
    dest = NO_MOVE
    elim = np.int64(0)
    m = np.int64(mover[b])
    x = np.int64(pos[b, m])
    eff = np.int64(tiles[b, x]) if IS_SLOT[x] else FIXED_EFFECT[x]
    stage[b] = ST_AFTER
    if eff == E_COCONUT:
        if supply[b] > 0:
            coconuts[b, m] += 1
            supply[b] -= 1
    elif eff == E_GOLDEN:  # take the golden coconut; a robbed player left with none is out
        g = np.int64(golden[b])
        for i in range(2):
            if bowls[b, i] == BOWL_GOLDEN:
                bowls[b, i] = BOWL_EMPTY
        golden[b] = m
        if g >= 0 and g != m and alive[b, g] and coconuts[b, g] == 0:
            elim |= (1 << g) | (1 << 30)
    elif eff == E_CHEST:
        if treasure_size[b] > 0:
            top = np.int64(treasure_size[b]) - 1
            treasures[b, m, treasure_pile[b, top]] += 1
            treasure_pile[b, top] = -1
            treasure_size[b] -= 1
    elif eff == E_MINUS1 or eff == E_MINUS2:
        debt[b] = 2 if eff == E_MINUS2 else 1
        debt_to[b] = -1
        stage[b] = ST_DEBT
    elif eff == E_BOWL:  # take what lies there, or sacrifice a coconut onto it
        bi = 1 if x == BOWL2_SPACE else 0
        c = bowls[b, bi]
        if c == BOWL_COCONUT:
            coconuts[b, m] += 1
        elif c == BOWL_GOLDEN:
            golden[b] = m
        bowls[b, bi] = BOWL_EMPTY
        if c == BOWL_EMPTY:
            debt[b] = 1
            debt_to[b] = bi
            stage[b] = ST_DEBT
    elif eff == E_NEAREST_BOWL:
        row = SLOT_ROW[x]
        if row == 2:
            phase[b] = PH_BOWL
            current_player[b] = m
            stage[b] = ST_DECIDE
        else:
            dest = BOWL1_SPACE if row == 1 else BOWL2_SPACE
    elif eff == E_PYRAMID:  # reveal the top movement card of the draw pile and act on it
        if draw_size[b] == 0:
            _reshuffle_row(rng, b, discard, draw_pile, draw_size)
        size = np.int64(draw_size[b])
        if size > 0:
            card = np.int64(draw_pile[b, size - 1])
            draw_pile[b, size - 1] = -1
            draw_size[b] -= 1
            discard[b, card] += 1
            if card == MINUSS:
                debt[b] = 1
                debt_to[b] = -1
                stage[b] = ST_DEBT
            else:
                n = STEPS[card]
                if x - n >= 0:  # backward must not pass the rear start
                    pyramid_card[b] = card
                    phase[b] = PH_PYRAMID
                    current_player[b] = m
                    stage[b] = ST_DECIDE
                else:
                    dest = x + n
    return dest, elim


@_inner
def _settle_debt(ptrs: np.ndarray, dims: np.ndarray, b: int) -> int:
    """``ST_DEBT``: the mover pays its debt (or is asked which coconut, when that matters); the seats to eliminate."""
    current_player = _field(ptrs, dims, "current_player")
    coconuts = _field(ptrs, dims, "coconuts")
    golden = _field(ptrs, dims, "golden")
    bowls = _field(ptrs, dims, "bowls")
    supply = _field(ptrs, dims, "supply")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    mover = _field(ptrs, dims, "mover")
    debt = _field(ptrs, dims, "debt")
    debt_to = _field(ptrs, dims, "debt_to")
    elim = np.int64(0)
    m = np.int64(mover[b])
    d = np.int64(debt[b])
    g = golden[b] == m
    n = np.int64(coconuts[b, m])
    tot = n + (1 if g else 0)
    if g and n > 0 and tot > d:
        phase[b] = PH_PAY
        current_player[b] = m
        stage[b] = ST_DECIDE
    else:
        dt = np.int64(debt_to[b])
        broke = tot <= d  # pays everything: normal ones and the golden one
        paid = n if broke else d
        coconuts[b, m] -= paid
        if dt < 0:
            supply[b] += paid
        gold_out = broke and g
        if gold_out:
            golden[b] = -1
        if dt >= 0:  # a bowl debt is 1 coconut: the normal one if any was paid, else the golden one
            bowls[b, dt] = BOWL_COCONUT if paid > 0 else (BOWL_GOLDEN if gold_out else BOWL_EMPTY)
        debt[b] = 0
        stage[b] = ST_AFTER
        if broke:
            elim |= (1 << m) | (1 << 30)
    return elim


@_inner
def _truth_check(ptrs: np.ndarray, dims: np.ndarray, b: int, crown_bonus: bool) -> None:
    """``ST_AFTER``: a truthful announcement (or a Crown play with the bonus option) earns the bonus move, unless this was it."""
    current_player = _field(ptrs, dims, "current_player")
    alive = _field(ptrs, dims, "alive")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    announce = _field(ptrs, dims, "announce")
    crown_play = _field(ptrs, dims, "crown_play")
    revealed = _field(ptrs, dims, "revealed")
    in_bonus = _field(ptrs, dims, "in_bonus")
    act = np.int64(active[b])
    truthful = revealed[b] == announce[b] or (crown_play[b] and crown_bonus)
    stage[b] = ST_SCALES_ACTIVE
    if truthful and not in_bonus[b] and alive[b, act]:
        phase[b] = PH_BONUS
        current_player[b] = act
        stage[b] = ST_DECIDE


@_inner
def _offer_scales_active(ptrs: np.ndarray, dims: np.ndarray, b: int) -> None:
    """``ST_SCALES_ACTIVE``: offer Scales to the active player."""
    current_player = _field(ptrs, dims, "current_player")
    alive = _field(ptrs, dims, "alive")
    treasures = _field(ptrs, dims, "treasures")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    act = np.int64(active[b])
    stage[b] = ST_SCALES_ACCEPTER
    if alive[b, act] and (treasures[b, act, 0] | treasures[b, act, 1] | treasures[b, act, 2]) != 0:
        phase[b] = PH_SCALES
        current_player[b] = act
        stage[b] = ST_DECIDE


@_inner
def _offer_scales_accepter(ptrs: np.ndarray, dims: np.ndarray, b: int) -> None:
    """``ST_SCALES_ACCEPTER``: offer Scales to the accepter."""
    current_player = _field(ptrs, dims, "current_player")
    alive = _field(ptrs, dims, "alive")
    treasures = _field(ptrs, dims, "treasures")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    accepter = _field(ptrs, dims, "accepter")
    c = np.int64(accepter[b])
    cc = c if c > 0 else 0  # (no builtin max: one helper less to compile)
    stage[b] = ST_END_TURN
    if (
        c >= 0
        and c != active[b]
        and alive[b, cc]
        and (treasures[b, cc, 0] | treasures[b, cc, 1] | treasures[b, cc, 2]) != 0
    ):
        phase[b] = PH_SCALES
        current_player[b] = c
        stage[b] = ST_DECIDE


@_inner
def _end_turn(ptrs: np.ndarray, dims: np.ndarray, b: int, P: int, keys: np.ndarray) -> None:
    """``ST_END_TURN``: clear the turn, turn over the next monkey chip; a new round, or quitting time."""
    current_player = _field(ptrs, dims, "current_player")
    rng = _field(ptrs, dims, "rng")
    pos = _field(ptrs, dims, "pos")
    alive = _field(ptrs, dims, "alive")
    coconuts = _field(ptrs, dims, "coconuts")
    golden = _field(ptrs, dims, "golden")
    hands = _field(ptrs, dims, "hands")
    chip_order = _field(ptrs, dims, "chip_order")
    chip_next = _field(ptrs, dims, "chip_next")
    round_ = _field(ptrs, dims, "round")
    active = _field(ptrs, dims, "active")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    offer_card = _field(ptrs, dims, "offer_card")
    announce = _field(ptrs, dims, "announce")
    holder = _field(ptrs, dims, "holder")
    passes = _field(ptrs, dims, "passes")
    seen = _field(ptrs, dims, "seen")
    crown_play = _field(ptrs, dims, "crown_play")
    accepter = _field(ptrs, dims, "accepter")
    revealed = _field(ptrs, dims, "revealed")
    mover = _field(ptrs, dims, "mover")
    in_bonus = _field(ptrs, dims, "in_bonus")
    debt = _field(ptrs, dims, "debt")
    debt_to = _field(ptrs, dims, "debt_to")
    pyramid_card = _field(ptrs, dims, "pyramid_card")
    offer_card[b] = -1
    announce[b] = -1
    holder[b] = -1
    passes[b] = 0
    for p in range(P):
        seen[b, p] = False
    crown_play[b] = False
    accepter[b] = -1
    revealed[b] = -1
    mover[b] = -1
    in_bonus[b] = False
    debt[b] = 0
    debt_to[b] = -1
    pyramid_card[b] = -1
    can = np.int64(0)  # int64 from the start: a literal 0 compiles _new_round_row twice
    for p in range(P):
        held = hands[b, p, 0] + hands[b, p, 1] + hands[b, p, 2] + hands[b, p, 3] + hands[b, p, 4]
        if alive[b, p] and held > 0:
            can |= 1 << p
    seat = -1
    for j in range(np.int64(chip_next[b]), P):
        o = np.int64(chip_order[b, j])
        if o >= 0 and (can >> o) & 1:
            chip_next[b] = j + 1
            seat = o
            break
    if seat < 0 and can != 0:  # new round: the chips of the monkeys still in play, shuffled
        seat = _new_round_row(rng, b, can, P, chip_order, keys)
        chip_next[b] = 1
        round_[b] += 1
    if seat >= 0:
        active[b] = seat
        phase[b] = PH_ACTIVE
        current_player[b] = seat
        stage[b] = ST_DECIDE
    else:  # quitting time: nearest the tiger; tie -> golden coconut; -> most coconuts; -> shared
        best = np.int64(-1)
        for p in range(P):
            if alive[b, p]:
                kv = np.int64(pos[b, p]) * 1000 + (500 if golden[b] == p else 0) + coconuts[b, p]
                if kv > best:
                    best = kv
        win = np.int64(0)
        for p in range(P):
            if alive[b, p]:
                kv = np.int64(pos[b, p]) * 1000 + (500 if golden[b] == p else 0) + coconuts[b, p]
                if kv == best:
                    win |= 1 << p
        _finish_row(ptrs, dims, b, win, np.int64(END_QUITTING_TIME))


@_inner
def _leave_play(ptrs: np.ndarray, dims: np.ndarray, b: int, alive0: int, all_seats: int, P: int) -> None:
    """The hand cards of the seats eliminated in this step leave play unseen."""
    alive = _field(ptrs, dims, "alive")
    hands = _field(ptrs, dims, "hands")
    out_of_play = _field(ptrs, dims, "out_of_play")
    gone = alive0 & all_seats
    for p in range(P):
        if alive[b, p]:
            gone &= ~(1 << p)
    if gone:  # the hand cards of seats eliminated in this step leave play unseen
        for p in range(P):
            if (gone >> p) & 1:
                for k in range(K):
                    out_of_play[b, k] += hands[b, p, k]
                    hands[b, p, k] = 0


@njit_borrowed(cache=True, no_rewrites=True)
def step_at(
    actions: np.ndarray,
    ptrs: np.ndarray,
    dims: np.ndarray,
    table: np.ndarray,
    key0: np.ndarray,
    crown_bonus: bool,
    num_actions: int,
) -> bool:
    """Validate ``actions (B,) int64`` and apply them to the running rows of the state at ``ptrs`` /
    ``dims`` (:func:`address`); False if one is invalid.

    First every running row's action is checked (in ``[0, A)`` and legal in the row's mask); if
    one is not, nothing is changed and False is returned. Otherwise every row's rewards are zeroed
    and each running row advances its ``step_count`` and the game until it waits for the next
    decision or ends (the numpy ``FunkyMonkey._step``), then gets its new legal mask.
    """
    current_player, rewards, terminated, truncated, mask = (
        _field(ptrs, dims, "current_player"),
        _field(ptrs, dims, "rewards"),
        _field(ptrs, dims, "terminated"),
        _field(ptrs, dims, "truncated"),
        _field(ptrs, dims, "legal_action_mask"),
    )
    B, P = rewards.shape
    for b in range(B):
        if terminated[b] or truncated[b]:
            continue
        a = actions[b]
        if a < 0 or a >= num_actions or not mask[b, a]:
            return False
    rewards[:] = 0
    step_count = _field(ptrs, dims, "step_count")
    alive = _field(ptrs, dims, "alive")
    hands = _field(ptrs, dims, "hands")
    treasures = _field(ptrs, dims, "treasures")
    phase = _field(ptrs, dims, "phase")
    stage = _field(ptrs, dims, "stage")
    keys = stack_array(MAX_PLAYERS, np.uint64)
    all_seats = (1 << P) - 1
    for b in range(B):
        if terminated[b] or truncated[b]:
            continue
        step_count[b] += 1
        a = actions[b]
        alive0 = np.int64(0)  # not a literal 0: _next_alive_left compiles once, for int64
        for p in range(P):
            if alive[b, p]:
                alive0 |= 1 << p
        dest = NO_MOVE  # a pending move of the mover's monkey
        elim = 0  # seats to eliminate now (bitmask)
        reveal = False
        ph = phase[b]
        # ------------------------------------------------------------ the decision
        if ph == PH_ACTIVE:
            reveal = _play_card(ptrs, dims, b, a, alive0, P)
        elif ph == PH_RESPOND or ph == PH_RESPOND_SEEN:
            reveal = _respond(ptrs, dims, b, a, alive0, P)
        elif ph == PH_PAY:
            _pay(ptrs, dims, b, a)
        elif ph == PH_BOWL:
            dest = BOWL2_SPACE if a == A_BOWL_2 else BOWL1_SPACE
        elif ph == PH_PYRAMID:
            dest = _pyramid_direction(ptrs, dims, b, a)
        elif ph == PH_BONUS:
            dest, elim = _bonus(ptrs, dims, b, a, P)
        else:  # PH_SCALES
            _scales(ptrs, dims, b, a, P)
        if reveal:
            dest = _reveal(ptrs, dims, b)
        # ------------------------------------------------------------ the chain until the next decision
        loops = 0
        while True:
            loops += 1
            if loops > MAX_LOOP:
                _chain_did_not_settle()
            if dest != NO_MOVE:
                elim |= _move_ends(ptrs, dims, b, dest)
                dest = NO_MOVE
            if elim:
                _eliminate(ptrs, dims, b, elim, P)
                elim = 0
            sg = stage[b]
            if sg == ST_DECIDE:
                break
            if sg == ST_LAND:
                dest, more = _land(ptrs, dims, b)
                elim |= more
            elif sg == ST_DEBT:
                elim |= _settle_debt(ptrs, dims, b)
            elif sg == ST_AFTER:
                _truth_check(ptrs, dims, b, crown_bonus)
            elif sg == ST_SCALES_ACTIVE:
                _offer_scales_active(ptrs, dims, b)
            elif sg == ST_SCALES_ACCEPTER:
                _offer_scales_accepter(ptrs, dims, b)
            else:  # ST_END_TURN
                _end_turn(ptrs, dims, b, P, keys)
        # ------------------------------------------------------------ the step's end
        _leave_play(ptrs, dims, b, alive0, all_seats, P)
        if not terminated[b]:
            refresh_row(b, P, phase, current_player, hands, treasures, alive, mask, table, key0)
    return True


@njit_borrowed(cache=True, no_rewrites=True)
def observe_at(
    player: np.ndarray,
    obs: np.ndarray,
    ptrs: np.ndarray,
    dims: np.ndarray,
    offsets: np.ndarray,
    seat_scale: np.ndarray,
    dense_scale: np.ndarray,
    card_counts: np.ndarray,
) -> None:
    """Observation of seat ``player[b]`` in every row ``b`` of the state at ``ptrs`` / ``dims``
    (:func:`address`) into ``obs (B, D) float32`` (the oracle's numpy observation).

    Writes every cell of each row: zeros, the one-hot pieces, the per-seat counts (observer-first,
    times ``seat_scale (7 * P,) float32``, one scale per count repeated over the seats, as
    ``Observer``'s table) and the dense counts (times ``dense_scale float32``); ``card_counts (5,)
    int64`` are the movement cards of each kind in play.
    """
    current_player = _field(ptrs, dims, "current_player")
    phase = _field(ptrs, dims, "phase")
    active = _field(ptrs, dims, "active")
    holder = _field(ptrs, dims, "holder")
    accepter = _field(ptrs, dims, "accepter")
    announce = _field(ptrs, dims, "announce")
    offer_card = _field(ptrs, dims, "offer_card")
    revealed = _field(ptrs, dims, "revealed")
    seen = _field(ptrs, dims, "seen")
    pyramid_card = _field(ptrs, dims, "pyramid_card")
    golden = _field(ptrs, dims, "golden")
    bowls = _field(ptrs, dims, "bowls")
    tiger = _field(ptrs, dims, "tiger")
    pos = _field(ptrs, dims, "pos")
    alive = _field(ptrs, dims, "alive")
    tiles = _field(ptrs, dims, "tiles")
    face_up = _field(ptrs, dims, "face_up")
    chip_order = _field(ptrs, dims, "chip_order")
    chip_next = _field(ptrs, dims, "chip_next")
    hands = _field(ptrs, dims, "hands")
    treasures = _field(ptrs, dims, "treasures")
    coconuts = _field(ptrs, dims, "coconuts")
    stats = _field(ptrs, dims, "stats")
    passes = _field(ptrs, dims, "passes")
    debt = _field(ptrs, dims, "debt")
    treasure_used = _field(ptrs, dims, "treasure_used")
    treasure_size = _field(ptrs, dims, "treasure_size")
    supply = _field(ptrs, dims, "supply")
    discard = _field(ptrs, dims, "discard")
    draw_size = _field(ptrs, dims, "draw_size")
    round_ = _field(ptrs, dims, "round")
    crown_play = _field(ptrs, dims, "crown_play")
    in_bonus = _field(ptrs, dims, "in_bonus")
    B, _ = obs.shape
    _, P = pos.shape
    # the tables in locals: the compiler cannot tell the observation's stores from their loads
    c_phase = offsets[O_PHASE]
    c_to_move = offsets[O_TO_MOVE]
    c_active = offsets[O_ACTIVE]
    c_holder = offsets[O_HOLDER]
    c_accepter = offsets[O_ACCEPTER]
    c_announce = offsets[O_ANNOUNCE]
    c_known = offsets[O_KNOWN]
    c_revealed = offsets[O_REVEALED]
    c_pyramid = offsets[O_PYRAMID]
    c_golden = offsets[O_GOLDEN]
    c_tiger = offsets[O_TIGER]
    c_position = offsets[O_POSITION]
    c_tiles = offsets[O_TILES]
    c_chips = offsets[O_CHIPS]
    s0 = offsets[O_SEAT]
    d0 = offsets[O_DENSE]
    dump = d0 + NUM_DENSE - 1
    sc_hand, sc_treasure, sc_alive, sc_coconut, sc_tiger, sc_truth, sc_bluff = (
        seat_scale[0 * P],
        seat_scale[1 * P],
        seat_scale[2 * P],
        seat_scale[3 * P],
        seat_scale[4 * P],
        seat_scale[5 * P],
        seat_scale[6 * P],
    )
    for b in range(B):
        o = np.int64(player[b])
        row = obs[b]
        row[:] = 0
        ph = np.int64(phase[b])
        live = ph >= 0
        # ---- one-hot pieces: an absent value writes its 1 to the dump column (the last dense
        # column, written after them), so that no write depends on a branch
        cp = np.int64(current_player[b])
        row[c_phase + ph if live else dump] = _ONE
        row[c_to_move + _rel(cp, o, P) if live and cp >= 0 else dump] = _ONE
        row[c_active + (np.int64(active[b]) - o) % P] = _ONE  # as numpy's table, even for -1
        h = np.int64(holder[b])
        row[c_holder + _rel(h, o, P) if h >= 0 else dump] = _ONE
        c = np.int64(accepter[b])
        row[c_accepter + _rel(c, o, P) if c >= 0 else dump] = _ONE
        k = np.int64(announce[b])
        row[c_announce + k if k >= 0 else dump] = _ONE
        known = offer_card[b] >= 0 and revealed[b] < 0 and seen[b, o]
        row[c_known + offer_card[b] if known else dump] = _ONE
        k = np.int64(revealed[b])
        row[c_revealed + k if k >= 0 else dump] = _ONE
        k = np.int64(pyramid_card[b])
        row[c_pyramid + k if k >= 0 else dump] = _ONE
        g = np.int64(golden[b])
        gcode = P + 1 if bowls[b, 0] == BOWL_GOLDEN else (P + 2 if bowls[b, 1] == BOWL_GOLDEN else P)
        row[c_golden + (_rel(g, o, P) if g >= 0 else gcode)] = _ONE
        row[c_tiger + tiger[b] if tiger[b] >= 0 else dump] = _ONE
        for j in range(P):
            seat = _abs(j, o, P)
            row[c_position + j * L + pos[b, seat] if alive[b, seat] else dump] = _ONE
        face_counts = 0  # face-up tiles of kind k in bits 4k..4k+3 (a count <= 3)
        for i in range(NUM_SLOTS):
            x = SLOTS[i]
            f = np.int64(tiles[b, x]) if face_up[b, x] else 0
            face_counts += (1 << (4 * f)) if f > 0 else 0
            row[c_tiles + i * (NUM_TILE_KINDS + 1) + f] = _ONE
        if live:
            for j in range(np.int64(chip_next[b]), P):
                c = np.int64(chip_order[b, j])
                row[c_chips + _rel(c, o, P) if c >= 0 and alive[b, c] else dump] = _ONE
        # ---- per-seat counts, observer-first
        for j in range(P):
            seat = _abs(j, o, P)
            hs = hands[b, seat, 0] + hands[b, seat, 1] + hands[b, seat, 2] + hands[b, seat, 3] + hands[b, seat, 4]
            ts = treasures[b, seat, 0] + treasures[b, seat, 1] + treasures[b, seat, 2]
            al = 1 if alive[b, seat] else 0
            row[s0 + j] = np.float32(hs) * sc_hand
            row[s0 + P + j] = np.float32(ts) * sc_treasure
            row[s0 + 2 * P + j] = np.float32(al) * sc_alive
            row[s0 + 3 * P + j] = np.float32(coconuts[b, seat]) * sc_coconut
            row[s0 + 4 * P + j] = np.float32((np.int64(tiger[b]) - pos[b, seat]) * al) * sc_tiger
            row[s0 + 5 * P + j] = np.float32(stats[b, seat, SC_TRUTHFUL]) * sc_truth
            row[s0 + 6 * P + j] = np.float32(stats[b, seat, SC_BLUFFS]) * sc_bluff
        # ---- the dense counts, each written at once (scalars, not a scratch array the compiler
        # would have to assume aliases the state)
        row[d0] = np.float32(passes[b]) * dense_scale[0]
        row[d0 + 1] = np.float32(debt[b]) * dense_scale[1]
        for k in range(K):
            row[d0 + 2 + k] = np.float32(hands[b, o, k]) * dense_scale[2 + k]
        for t in range(3):
            row[d0 + 7 + t] = np.float32(treasures[b, o, t]) * dense_scale[7 + t]
            row[d0 + 10 + t] = np.float32(treasure_used[b, t]) * dense_scale[10 + t]
        row[d0 + 13] = np.float32(treasure_size[b]) * dense_scale[13]
        row[d0 + 14] = np.float32(1 if bowls[b, 0] > 0 else 0) * dense_scale[14]
        row[d0 + 15] = np.float32(1 if bowls[b, 1] > 0 else 0) * dense_scale[15]
        row[d0 + 16] = np.float32(supply[b]) * dense_scale[16]
        for k in range(NUM_TILE_KINDS):  # tiles of kind k + 1 not face up: one 4-bit count per kind
            unseen_tiles = TILE_COMPOSITION[k] - ((face_counts >> (4 * (k + 1))) & 15)
            row[d0 + 17 + k] = np.float32(unseen_tiles) * dense_scale[17 + k]
        kc = np.int64(offer_card[b]) if known else -1
        for k in range(K):
            row[d0 + 24 + k] = np.float32(discard[b, k]) * dense_scale[24 + k]
            unseen = np.int64(card_counts[k]) - discard[b, k] - hands[b, o, k] - (1 if k == kc else 0)
            row[d0 + 29 + k] = np.float32(unseen) * dense_scale[29 + k]
        row[d0 + 34] = np.float32(draw_size[b]) * dense_scale[34]
        row[d0 + 35] = np.float32(round_[b]) * dense_scale[35]
        row[d0 + 36] = np.float32(1 if crown_play[b] else 0) * dense_scale[36]
        row[d0 + 37] = np.float32(1 if in_bonus[b] else 0) * dense_scale[37]


# ====================================================================== the state by its addresses
# :func:`address` writes the data address and shape of each state array into two small arrays;
# the kernels rebuild the arrays from them (:func:`_field`): views of the same memory, so they
# read and write the state itself. The caller keeps the addresses only while the state holds
# those very arrays (``rules._Addressed``); arrays the addresses cannot describe (not
# C-contiguous, another dtype) are stepped through C-contiguous copies (``rules._through_copies``).

#: dtype and number of dimensions of each array of :data:`STATE_FIELDS` (the state's layout; the
#: addresses are taken only of a tuple of C-contiguous writeable arrays of exactly these).
FIELD_LAYOUT = tuple((f.dtype.type, 1 + len(f.shape)) for f in schema(S.FunkyMonkeyState))
#: Most dimensions of a state array (the columns of the ``dims`` table).
MAX_DIMS = 3


#: numba types of the arrays of :data:`FIELD_LAYOUT` (C-contiguous, writeable, aligned).
_FIELD_TYPES = tuple(types.Array(numba.from_dtype(np.dtype(dt)), nd, "C") for dt, nd in FIELD_LAYOUT)


def _is_state_type(st: types.Type) -> bool:
    """Is ``st`` the numba type of a tuple of C-contiguous, aligned, writeable arrays of :data:`FIELD_LAYOUT`?"""
    return (
        isinstance(st, types.BaseTuple)
        and len(st) == len(FIELD_LAYOUT)
        and all(
            isinstance(t, types.Array)
            and t.layout == "C"
            and t.mutable
            and t.aligned
            and t.ndim == nd
            and t.dtype == numba.from_dtype(np.dtype(dt))
            for t, (dt, nd) in zip(st.types, FIELD_LAYOUT, strict=True)
        )
    )


# The two intrinsics below read and build the 48 array structs directly (what ``a.ctypes.data`` /
# ``a.shape`` and :func:`numba.carray` do per array): one piece of code each, typed and lowered at
# once, where 48 calls of an inlined helper cost numba seconds to type and compile.
def _struct(context: Any, builder: Any, aryty: types.Array, value: Any = None) -> Any:
    """numba's struct of an array value of type ``aryty`` (a new, empty one without ``value``)."""
    return context.make_array(aryty)(context, builder, value=value)


def _item(context: Any, builder: Any, aryty: types.Array, ary: Any, *index: int) -> Any:
    """Pointer to the element at the constant ``index`` of the array struct ``ary``."""
    at = [context.get_constant(types.intp, i) for i in index]
    return cgutils.get_item_pointer(context, builder, aryty, ary, at)


@intrinsic
def _address_into(typingctx: object, st: types.Type, ptrs: types.Type, dims: types.Type) -> tuple | None:
    """Write each array's data address into ``ptrs[i]`` and its shape into ``dims[i, :ndim]``; True.

    False, writing nothing, unless ``st`` is a tuple of arrays of :data:`FIELD_LAYOUT` (C-contiguous,
    aligned, writeable): decided from the tuple's type when the caller compiles, no work at run time.
    """
    if not (isinstance(st, types.BaseTuple) and isinstance(ptrs, types.Array) and isinstance(dims, types.Array)):
        return None
    good = _is_state_type(st)

    def codegen(context: Any, builder: Any, sig: Any, args: list) -> Any:
        if not good:
            return context.get_constant(types.boolean, False)
        stty, pty, dty = sig.args
        p, d = _struct(context, builder, pty, args[1]), _struct(context, builder, dty, args[2])
        for i, aty in enumerate(stty.types):
            a = _struct(context, builder, aty, builder.extract_value(args[0], i))
            addr = builder.ptrtoint(a.data, context.get_value_type(pty.dtype))
            builder.store(addr, _item(context, builder, pty, p, i))
            for j, n in enumerate(cgutils.unpack_tuple(builder, a.shape, aty.ndim)):
                builder.store(n, _item(context, builder, dty, d, i, j))
        return context.get_constant(types.boolean, True)

    return types.boolean(st, ptrs, dims), codegen


@intrinsic
def _field(typingctx: object, ptrs: types.Type, dims: types.Type, name: types.Type) -> tuple | None:
    """State array ``name`` (a string constant, e.g. ``"pos"``): a view of the array at address
    ``ptrs[F.<name>]`` with shape ``dims[F.<name>]`` (C order, not owned).

    One array per call: a kernel takes the arrays it uses one by one, never as one tuple of all 48
    (an aggregate that numba keeps in memory and LLVM's SROA pass then splits, superlinearly).
    """
    if not (isinstance(ptrs, types.Array) and isinstance(dims, types.Array) and isinstance(name, types.StringLiteral)):
        return None
    field = getattr(F, name.literal_value)
    aty = _FIELD_TYPES[field]

    def codegen(context: Any, builder: Any, sig: Any, args: list) -> Any:
        pty, dty, _ = sig.args
        p, d = _struct(context, builder, pty, args[0]), _struct(context, builder, dty, args[1])
        item = context.get_data_type(aty.dtype)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
        shape = [builder.load(_item(context, builder, dty, d, field, j)) for j in range(aty.ndim)]
        strides, off = [], itemsize  # C order, as numba.carray
        for n in reversed(shape):
            strides.append(off)
            off = builder.mul(off, n)
        strides.reverse()
        data = builder.inttoptr(builder.load(_item(context, builder, pty, p, field)), item.as_pointer())
        out = _struct(context, builder, aty)
        populate_array(out, data=data, shape=shape, strides=strides, itemsize=itemsize, meminfo=None)
        return out._getvalue()

    return aty(ptrs, dims, name), codegen


@njit_borrowed(cache=True, no_rewrites=True)
def address(st: StateArrays, ptrs: np.ndarray, dims: np.ndarray) -> bool:
    """The data address and shape of each array of ``st`` into ``ptrs (48,) uint64`` and ``dims (48, 3) int64``.

    False (``ptrs`` / ``dims`` are then not to be used) unless ``st`` is a tuple of C-contiguous,
    aligned, writeable arrays of the dtypes and dimensions of :data:`FIELD_LAYOUT` (the state's)
    with at most ``MAX_PLAYERS`` seats and a draw pile of ``MAX_CARDS`` (the kernels' scratch,
    :func:`~monkey_envs.core.kernel_cache.stack_array`, is sized for those); the addresses are
    valid only while those arrays live and keep their memory.
    """
    if not _address_into(st, ptrs, dims):
        return False
    return dims[F.rewards, 1] <= MAX_PLAYERS and dims[F.pos, 1] <= MAX_PLAYERS and dims[F.draw_pile, 1] == MAX_CARDS
