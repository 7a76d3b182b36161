"""Monki rules as numba-compiled kernels over a batch of games.

Each batch kernel takes the state's numpy arrays as one tuple ``st`` (leading batch axis ``B``,
dtypes as in :class:`~monkey_envs.monki.state.MonkiState`, order of :data:`STATE_FIELDS`) and the
layout's tables as one tuple ``rules`` (order of :data:`RULES_FIELDS`), and runs one compiled loop
over the rows: no Python code runs per row. Kernels compile on first use and are cached on disk
(``cache=True``, in ``__pycache__``); numba keys that cache on this file only, while the kernels
also compile in constants of ``data.py`` / ``state.py`` and functions of
:mod:`monkey_envs.core.rng`, so at import a cache built from other versions of those files is
dropped (:func:`monkey_envs.core.kernel_cache.drop_stale_cache`).

Notation: ``b`` a row, ``cp`` the seat to move, ``c`` a grid cell, ``s`` a stack (0..11), ``t`` a
token id (0..39), ``a`` an action (see :mod:`monkey_envs.monki.rules` for the action space).

Hot loops call no helper that takes arrays: every array handed to a function, even one inlined by
numba, costs a reference-count increment and decrement per call, and at ``B = 4096`` that made the
mask 2-4x slower. So the mask (:func:`mask_rows`) and the observation are written out in one loop
each; the per-row helpers (``*_row``, :func:`token_bits`) serve the rarer paths (a pass, a bust, a
ruby, an ending) and the geometry functions the heuristics call. The kernels are written to stay
inside their arrays for any state whose values are in the ranges the laws check first
(:mod:`monkey_envs.monki.invariants`: ``pos`` in ``[-1, N)``, ``stacks`` in ``[-1, 40)``, ...), so
the laws may ask for the rules' mask of a state that breaks the other laws.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from monkey_envs.core.kernel_cache import drop_stale_cache
from monkey_envs.core.rng import next_uniform, seed_row, shuffle_order
from monkey_envs.core.schema import field_index, field_names
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

drop_stale_cache(__file__)

STACKS = D.NUM_STACKS
DEPTH = D.STACK_DEPTH
assert DEPTH == 3, "mask_rows tests the 3 slots of a stack written out"
TOKENS = D.NUM_TOKENS
FRUITS = D.NUM_FRUITS
KINDS = D.NUM_KINDS
SLOTS = D.NUM_SLOTS
ROW1 = D.ROW1_SLOTS
BOARDS = D.NUM_BOARDS
NUM_PHASES = len(PHASES)
REWARD_WIN = np.float32(D.REWARD_WIN)
REWARD_LOSS = np.float32(D.REWARD_LOSS)
REWARD_DRAW = np.float32(D.REWARD_DRAW)
#: Columns of ``stats``.
(ST_VISITS, ST_FLIPS, ST_GOLDEN, ST_BUSTS, ST_PASSES, ST_RUBY, ST_SKIPS, ST_KEPT) = (
    STAT_NAMES.index(n)
    for n in ("temple_visits", "flips", "golden_flips", "busts", "passes", "ruby_uses", "skips", "kept")
)
#: Per token: fruit, player-board slot, kind, colour, golden (``data.TOKEN_*`` as compiled constants).
TOKEN_FRUIT = D.TOKEN_FRUIT.astype(np.int64)
TOKEN_SLOT = D.TOKEN_SLOT.astype(np.int64)
TOKEN_KIND = D.TOKEN_KIND.astype(np.int64)
TOKEN_COLOUR = D.TOKEN_COLOUR.astype(np.int64)
TOKEN_GOLDEN = D.TOKEN_GOLDEN.astype(np.bool_)
# observe counts the kinds in this id order: per colour (20 ids) 4 regular tokens of each fruit, then
# the 4 golden ones (kind colour * 8 + fruit, then colour * 8 + 4 + fruit)
_IDS = np.arange(TOKENS)
assert (D.TOKEN_KIND == (_IDS // 20) * 8 + np.where(_IDS % 20 < 16, (_IDS % 20) // 4, 4 + _IDS % 20 - 16)).all()
#: ``(4, 3) int64`` the player-board slots of each fruit: green regular, blue regular, golden.
FRUIT_SLOTS = np.array([[f, 4 + f, ROW1 + f] for f in range(FRUITS)], dtype=np.int64)
#: ``(12, 4) int64`` token ids of each slot, ascending, padded with -1 (4 regular tokens, 2 golden).
SLOT_TOKENS = np.full((SLOTS, 4), -1, dtype=np.int64)
for _k in range(SLOTS):
    _ids = np.flatnonzero(D.TOKEN_SLOT == _k)
    SLOT_TOKENS[_k, : _ids.size] = _ids
#: ``(12,) int64`` bit ``t`` set for each token ``t`` of the slot.
SLOT_BITS = np.array([sum(1 << int(t) for t in np.flatnonzero(D.TOKEN_SLOT == k)) for k in range(SLOTS)], np.int64)
#: Orthogonal ray directions (N, E, S, W) among the 8 of ``Layout.rays``.
ORTHO = np.array(D.Layout.ORTHO, dtype=np.int64)
_F_QUARTER = np.float32(0.25)
_ONE_F = np.float32(1.0)
_ZERO_F = np.float32(0.0)

#: ``(1 + 3 * 40 * 2, 8) float32`` the ``stacks`` piece of one stack: row 0 an empty stack, row
#: ``1 + ((height - 1) * 40 + top token) * 2 + face up`` the others (height / 3, the top's colour
#: one-hot, face up, its fruit one-hot when face up).
STACK_OBS = np.zeros((1 + DEPTH * TOKENS * 2, 8), np.float32)
for _n in range(1, DEPTH + 1):
    for _t in range(TOKENS):
        for _up in range(2):
            _r = STACK_OBS[1 + ((_n - 1) * TOKENS + _t) * 2 + _up]
            _r[0] = np.float32(_n / DEPTH)  # divided in float64, then rounded (as numpy does)
            _r[1 + TOKEN_COLOUR[_t]] = 1.0
            if _up:
                _r[3] = 1.0
                _r[4 + TOKEN_FRUIT[_t]] = 1.0

#: Observation pieces in layout order (:func:`observe` writes them back to back, every cell).
OBS_PIECES = ("boards", "rubies", "monki", "stacks", "statues", "flipped", "phase", "to_move", "turn", "cells")

#: Order of the state arrays in the tuple ``st`` the batch kernels take (the fields of
#: :class:`~monkey_envs.monki.state.MonkiState`), and their indices: ``st[F.pos]``.
STATE_FIELDS = field_names(MonkiState)
F = field_index(MonkiState)
#: The state arrays :func:`observe` reads, in the order of its tuple ``seen``.
OBSERVED_FIELDS = ("current_player", "stacks", "face_up", "statue", "owner", "rubies", "pos", "phase", "turns")
#: Names of the layout tables in the tuple ``rules`` (built once per configuration by
#: :class:`~monkey_envs.monki.rules.Monki`): ``is_board (N,) bool`` board cell (not a hole),
#: ``place_ok (N,) bool`` board cell without a pot, ``cell_board (N,) int64`` board of each cell (-1
#: hole), ``cell_stack (N,) int64`` pot of each cell (-1 none), ``stack_cell (12,) int64``,
#: ``stack_board (12,) int64``, ``rays (N, 8, L) int64`` cells along each queen direction (-1
#: padded), ``cells_obs (2N,) float32`` the static ``cells`` observation piece, and ``turn_cap``.
RULES_FIELDS = (
    "is_board",
    "place_ok",
    "cell_board",
    "cell_stack",
    "stack_cell",
    "stack_board",
    "rays",
    "cells_obs",
    "turn_cap",
)
IS_BOARD, PLACE_OK, CELL_BOARD, CELL_STACK, STACK_CELL, STACK_BOARD, RAYS, CELLS_OBS, TURN_CAP = range(
    len(RULES_FIELDS)
)
#: Type of ``st`` (the arrays of :data:`STATE_FIELDS`) and of ``rules`` (:data:`RULES_FIELDS`).
StateArrays = tuple[np.ndarray, ...]
RulesTables = tuple[np.ndarray | int, ...]


# ====================================================================== per-row helpers
@njit(cache=True, inline="always")
def free_row(h: np.ndarray, p0: int, p1: int, is_board: np.ndarray, stack_cell: np.ndarray, free: np.ndarray) -> None:
    """Board cells with no token and no Monki into ``free (N,) bool`` (Monkis at ``p0``, ``p1``; -1 unplaced)."""
    for c in range(free.size):
        free[c] = is_board[c]
    for s in range(STACKS):
        if h[s] > 0:
            free[stack_cell[s]] = False
    if p0 >= 0:
        free[p0] = False
    if p1 >= 0:
        free[p1] = False


@njit(cache=True, inline="always")
def move_row(origin: int, free: np.ndarray, rays: np.ndarray, out: np.ndarray, b: int, offset: int) -> None:
    """Set ``out[b, offset + c]`` for every cell ``c`` a queen move from ``origin`` reaches over free cells."""
    if origin < 0:
        return
    L = rays.shape[2]
    for k in range(8):
        for j in range(L):
            c = rays[origin, k, j]
            if c < 0 or not free[c]:
                break
            out[b, offset + c] = True


@njit(cache=True, inline="always")
def sight_row(origin: int, free: np.ndarray, h: np.ndarray, rays: np.ndarray, cell_stack: np.ndarray, k: int) -> int:
    """The non-empty stack first met from ``origin`` along orthogonal direction ``k``, or -1.

    The ray runs over free cells; the first cell that is not free ends it: a pot holding tokens
    is seen, anything else (a Monki, the grid's edge, a hole) hides what lies behind.
    """
    if origin < 0:
        return -1
    L = rays.shape[2]
    for j in range(L):
        c = rays[origin, k, j]
        if c < 0:
            return -1
        if not free[c]:
            s = cell_stack[c]
            if s >= 0 and h[s] > 0:
                return s
            return -1
    return -1


@njit(cache=True, inline="always")
def token_bits(b: int, arr: np.ndarray, value: int) -> int:
    """Bit ``t`` set for each token ``t`` with ``arr[b, t] == value`` (``arr (B, 40)``: ``owner`` or ``statue``).

    Branch-free (owners and statues vary from row to row); the player-board space of ``seat`` is
    filled when ``token_bits(b, owner, seat) & SLOT_BITS[k]`` is not 0.
    """
    bits = np.int64(0)
    for t in range(TOKENS):
        bits |= np.int64(arr[b, t] == value) << t
    return bits


@njit(cache=True, inline="always")
def ruby_token(owned: int, on: int, k: int) -> int:
    """The token a ruby takes for slot ``k``: the lowest id of that slot on the statue, or -1.

    ``owned``: :func:`token_bits` of the seat's player board (nothing when the slot is filled);
    ``on``: of the statue of the Monki's board.
    """
    if owned & SLOT_BITS[k]:
        return -1
    cand = on & SLOT_BITS[k]
    if cand == 0:
        return -1
    for i in range(4):
        t = SLOT_TOKENS[k, i]
        if (cand >> t) & 1:
            return t
    return -1


@njit(cache=True, inline="always")
def seat_board(b: int, pos: np.ndarray, seat: int, cell_board: np.ndarray) -> int:
    """Board under ``seat``'s Monki in row ``b`` of ``pos (B, 2)`` (-1 unplaced)."""
    c = np.int64(pos[b, seat])
    return cell_board[c] if c >= 0 else -1


@njit(cache=True)
def mask_rows(
    rows: np.ndarray,
    mask: np.ndarray,
    current_player: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    phase: np.ndarray,
    pos: np.ndarray,
    stacks: np.ndarray,
    face_up: np.ndarray,
    statue: np.ndarray,
    owner: np.ndarray,
    rubies: np.ndarray,
    is_board: np.ndarray,
    place_ok: np.ndarray,
    cell_board: np.ndarray,
    cell_stack: np.ndarray,
    stack_cell: np.ndarray,
    rays: np.ndarray,
) -> None:
    """Write the legal mask of the seat to move in every row ``b`` of ``rows (n,) intp`` (a finished row: none).

    ``place``: a board cell without a pot, not the other Monki's; ``start``: a queen move over
    free cells, or skip; ``collect`` / ``flipping``: flip a face-down stack in line of sight
    (row or column: the first cell that is not free ends the ray, and is seen when it is a pot
    holding tokens); ``flipping``: pass; ``collect``: a usable ruby that takes at least one token.

    The walks of :func:`free_row`, :func:`move_row`, :func:`sight_row` and :func:`token_bits` are
    written out here instead of called: each array handed to a helper costs a reference-count
    increment and decrement per call, which made this loop 2-4x slower. The rays test each cell
    they reach (a hole, a Monki, a pot holding tokens: not free) instead of building the row's
    free cells and stack heights first: a ray meets a few cells, the grid has ``N``.
    """
    N = is_board.size
    A = mask.shape[1]
    L = rays.shape[2]
    a_flip = 2 * N + 1
    a_ruby = a_flip + STACKS + 1
    for r in range(rows.size):
        b = rows[r]
        for i in range(A):
            mask[b, i] = False
        if terminated[b] or truncated[b]:
            continue
        cp = max(np.int64(current_player[b]), 0)
        ph = phase[b]
        me = np.int64(pos[b, cp])
        if ph == PHASE_PLACE:
            other = np.int64(pos[b, 1 - cp])
            for c in range(N):
                mask[b, c] = place_ok[c] & (c != other)
            continue
        if ph != PHASE_START and ph != PHASE_COLLECT and ph != PHASE_FLIPPING:
            continue
        p0 = np.int64(pos[b, 0])
        p1 = np.int64(pos[b, 1])
        if ph == PHASE_START:
            mask[b, 2 * N] = True
            if me >= 0:
                for k in range(8):
                    for j in range(L):
                        c = rays[me, k, j]
                        if c < 0 or not is_board[c] or c == p0 or c == p1:
                            break
                        s = cell_stack[c]
                        if s >= 0 and ((stacks[b, s, 0] >= 0) | (stacks[b, s, 1] >= 0) | (stacks[b, s, 2] >= 0)):
                            break  # a pot holding tokens
                        mask[b, N + c] = True
            continue
        if me >= 0:
            for i in range(4):
                k = ORTHO[i]
                for j in range(L):
                    c = rays[me, k, j]
                    if c < 0:
                        break
                    s = cell_stack[c]
                    full = s >= 0 and ((stacks[b, s, 0] >= 0) | (stacks[b, s, 1] >= 0) | (stacks[b, s, 2] >= 0))
                    if full or not is_board[c] or c == p0 or c == p1:  # the first cell that is not free
                        if full and not face_up[b, s]:
                            mask[b, a_flip + s] = True
                        break
        if ph == PHASE_FLIPPING:
            mask[b, a_flip + STACKS] = True
            continue
        board = cell_board[me] if me >= 0 else -1
        if board < 0:
            continue
        owned = np.int64(0)
        on = np.int64(0)
        for t in range(TOKENS):  # branch-free: owners and statues vary from row to row
            owned |= np.int64(owner[b, t] == cp) << t
            on |= np.int64(statue[b, t] == board) << t
        for f in range(FRUITS):
            if rubies[b, cp, f]:
                ok = False
                for i in range(3):
                    k = FRUIT_SLOTS[f, i]
                    ok |= ((owned & SLOT_BITS[k]) == 0) & ((on & SLOT_BITS[k]) != 0)
                mask[b, a_ruby + f] = ok


@njit(cache=True, inline="always")
def clear_face_up_row(
    b: int,
    seat: int,
    keep: bool,
    stacks: np.ndarray,
    face_up: np.ndarray,
    statue: np.ndarray,
    owner: np.ndarray,
    stats: np.ndarray,
    stack_board: np.ndarray,
) -> None:
    """Take every face-up top of row ``b`` off its stack, in stack order: to ``seat``'s board when
    ``keep`` and its space was empty before (the spaces are read once, first), else to the statue
    of the board where it lay."""
    owned = token_bits(b, owner, seat) if keep else np.int64(0)
    for s in range(STACKS):
        if not face_up[b, s]:
            continue
        n = 0
        for j in range(DEPTH):
            n += stacks[b, s, j] >= 0
        j = max(n - 1, 0)
        t = max(np.int64(stacks[b, s, j]), 0)
        stacks[b, s, j] = -1
        if keep and (owned & SLOT_BITS[TOKEN_SLOT[t]]) == 0:
            owner[b, t] = seat
            stats[b, seat, ST_KEPT] += 1
        else:
            statue[b, t] = stack_board[s]
        face_up[b, s] = False


@njit(cache=True, inline="always")
def end_row(
    b: int,
    winner: int,
    reason: int,
    rewards: np.ndarray,
    winners_mask: np.ndarray,
    terminated: np.ndarray,
    end_reason: np.ndarray,
    mask: np.ndarray,
    current_player: np.ndarray,
) -> None:
    """End game ``b``: seat ``winner`` gets +1 and the other -1, or ``winner = -1``: a draw, 0 each."""
    for p in range(2):
        if winner < 0:
            rewards[b, p] = REWARD_DRAW
        elif p == winner:
            rewards[b, p] = REWARD_WIN
        else:
            rewards[b, p] = REWARD_LOSS
        winners_mask[b, p] = p == winner
    terminated[b] = True
    end_reason[b] = reason
    for i in range(mask.shape[1]):
        mask[b, i] = False
    current_player[b] = -1


# ====================================================================== batch kernels
@njit(cache=True)
def refresh_rows(rows: np.ndarray, st: StateArrays, rules: RulesTables) -> None:
    """Recompute the legal mask (:func:`mask_rows`) of rows ``rows (n,) intp`` into ``st[F.legal_action_mask]``."""
    mask_rows(
        rows, st[F.legal_action_mask], st[F.current_player], st[F.terminated], st[F.truncated], st[F.phase], st[F.pos], st[F.stacks],
        st[F.face_up], st[F.statue], st[F.owner], st[F.rubies], rules[IS_BOARD], rules[PLACE_OK], rules[CELL_BOARD],
        rules[CELL_STACK], rules[STACK_CELL], rules[RAYS],
    )  # fmt: skip


@njit(cache=True)
def refresh(st: StateArrays, rules: RulesTables) -> None:
    """Recompute every row's legal mask (:func:`mask_rows`) into ``st[F.legal_action_mask]``."""
    refresh_rows(np.arange(st[F.legal_action_mask].shape[0]), st, rules)


@njit(cache=True)
def deal(rows: np.ndarray, seeds: np.ndarray, st: StateArrays, rules: RulesTables) -> None:
    """Deal a new game into row ``rows[i]`` from ``seeds[i]`` (``rows (n,) intp`` distinct, ``seeds (n,) int64`` >= 0).

    :meth:`Monki.init <monkey_envs.monki.rules.Monki.init>` is this kernel over every row of a new
    state, and :meth:`~monkey_envs.core.game.Game.reset_rows` over the rows it restarts, so both
    deal the same game from a seed. Per row: every array goes back to its start value (no reward,
    running, step 0, no winner, no token face up, on a statue or on a player board, every ruby
    usable, no Monki placed, phase ``place``, turn 0, counters 0); then the row's RNG is seeded, the
    40 token ids are shuffled (the kit's ``shuffle_prefix`` of the whole row), the 12 stacks are
    filled from the front of the shuffled deck (3 each, bottom first), the next 4 tokens go one on
    each statue in board order, the start player is drawn (the kit's ``draw_below(2)``) and the
    legal mask is computed. The other rows are not touched.
    """
    rewards, terminated, truncated, step_count = st[F.rewards], st[F.terminated], st[F.truncated], st[F.step_count]
    rng, winners_mask, end_reason, stacks, face_up = (
        st[F.rng],
        st[F.winners_mask],
        st[F.end_reason],
        st[F.stacks],
        st[F.face_up],
    )
    statue, owner, rubies, pos, phase = st[F.statue], st[F.owner], st[F.rubies], st[F.pos], st[F.phase]
    current_player, start_player, turns, stats = st[F.current_player], st[F.start_player], st[F.turns], st[F.stats]
    keys = np.empty(TOKENS, np.float64)
    order = np.empty(2 * TOKENS + 1, np.intp)
    for i in range(rows.size):
        b = rows[i]
        # the start values (every stack slot is dealt below)
        terminated[b] = False
        truncated[b] = False
        step_count[b] = 0
        end_reason[b] = 0
        phase[b] = PHASE_PLACE
        turns[b] = 0
        for p in range(2):
            rewards[b, p] = 0.0
            winners_mask[b, p] = False
            pos[b, p] = -1
            for f in range(FRUITS):
                rubies[b, p, f] = True
            for k in range(stats.shape[2]):
                stats[b, p, k] = 0
        for s in range(STACKS):
            face_up[b, s] = False
        for t in range(TOKENS):
            statue[b, t] = -1
            owner[b, t] = -1
        # the deal
        seed_row(rng, b, seeds[i])
        shuffle_order(rng, b, TOKENS, TOKENS, keys, order)
        for s in range(STACKS):
            for j in range(DEPTH):
                stacks[b, s, j] = order[s * DEPTH + j]
        for k in range(BOARDS):
            statue[b, order[STACKS * DEPTH + k]] = k
        u = next_uniform(rng, b)
        sp = min(np.int64(u * 2), 1)
        start_player[b] = sp
        current_player[b] = sp
    refresh_rows(rows, st, rules)


@njit(cache=True)
def step(actions: np.ndarray, st: StateArrays, rules: RulesTables) -> bool:
    """Validate ``actions (B,) int64`` and apply them to the running rows; False if one is invalid.

    First every running row's action is checked (in ``[0, A)`` and legal); if one is not, nothing
    is changed and False is returned. Otherwise every row's rewards are zeroed and each running
    row advances its ``step_count`` and the game: place (the other seat places next, the start
    player starts once both stand), move (then collect), skip (recharge the rubies; the turn
    ends), flip (a golden token goes to its board's statue; a second face-up fruit of one kind
    busts: every face-up top goes to the statue of its board and the turn ends), pass (keep the
    face-up tops whose space is empty, the rest to the statues; the turn ends) or use a ruby (the
    lowest id token of each empty space of that fruit on the statue of the Monki's board; the
    turn ends). A move after which neither a flip nor a ruby is possible ends the turn by itself.
    After a pass or a ruby a full row 1 (8 fruits) or row 2 (4 golden) wins; a turn ending at the
    turn cap without a win draws. Finished rows ignore their action and stay as they are.

    The new mask is computed afresh (:func:`mask_rows`) in every row but those of a flip that
    leaves the line of sight as it was: there the mask the flip was legal in is updated in place,
    so the step relies on the stored mask being the rules' mask, as in every state the game makes
    (a law of :mod:`monkey_envs.monki.invariants`).
    """
    current_player, rewards, mask = st[F.current_player], st[F.rewards], st[F.legal_action_mask]
    terminated, truncated, step_count = st[F.terminated], st[F.truncated], st[F.step_count]
    winners_mask, end_reason = st[F.winners_mask], st[F.end_reason]
    stacks, face_up, statue, owner, rubies = st[F.stacks], st[F.face_up], st[F.statue], st[F.owner], st[F.rubies]
    pos, phase, turns, stats = st[F.pos], st[F.phase], st[F.turns], st[F.stats]
    is_board, place_ok, cell_board, cell_stack = rules[IS_BOARD], rules[PLACE_OK], rules[CELL_BOARD], rules[CELL_STACK]
    stack_cell, stack_board, rays, turn_cap = rules[STACK_CELL], rules[STACK_BOARD], rules[RAYS], rules[TURN_CAP]
    B, A = mask.shape
    for b in range(B):
        if not (terminated[b] or truncated[b]):
            a = actions[b]
            if a < 0 or a >= A or not mask[b, a]:
                return False
    rewards[:] = 0.0
    N = is_board.size
    a_skip = 2 * N
    a_flip = a_skip + 1
    a_pass = a_flip + STACKS
    a_ruby = a_pass + 1
    live = np.empty(B, np.bool_)
    todo = np.empty(B, np.intp)  # rows whose mask is (re)computed next: todo[:n_todo]
    n_todo = 0
    ended_rows = np.zeros(B, np.bool_)  # the turn ends
    collected_rows = np.zeros(B, np.bool_)  # a pass or a ruby: check for a win
    mover = np.empty(B, np.int64)  # the seat that acted
    for b in range(B):
        live[b] = not (terminated[b] or truncated[b])
        if not live[b]:
            continue
        step_count[b] += 1
        a = actions[b]
        cp = np.int64(current_player[b])
        ended = False
        collected = False
        updated = False  # the mask is already updated in place
        if a < N:  # place; the other seat places next, or (both placed) the start player starts
            pos[b, cp] = a
            if pos[b, 0] >= 0 and pos[b, 1] >= 0:
                phase[b] = PHASE_START
            current_player[b] = 1 - cp
        elif a < a_skip:  # move
            pos[b, cp] = a - N
            phase[b] = PHASE_COLLECT
        elif a == a_skip:  # skip: recharge
            for f in range(FRUITS):
                rubies[b, cp, f] = True
            stats[b, cp, ST_SKIPS] += 1
            ended = True
        elif a < a_pass:  # flip the top of stack s
            s = a - a_flip
            n = 0
            for d in range(DEPTH):
                n += stacks[b, s, d] >= 0
            j = max(n - 1, 0)
            t = max(np.int64(stacks[b, s, j]), 0)
            if phase[b] == PHASE_COLLECT:
                stats[b, cp, ST_VISITS] += 1
            stats[b, cp, ST_FLIPS] += 1
            phase[b] = PHASE_FLIPPING
            # The mask of phase flipping differs from the mask the flip was legal in (collect or
            # flipping) only where the flip changed something: no ruby, pass legal, and stack s
            # no longer flippable once face up. The line of sight changes only when the stack
            # empties: then the mask is computed afresh.
            if TOKEN_GOLDEN[t]:
                stacks[b, s, j] = -1
                statue[b, t] = stack_board[s]
                stats[b, cp, ST_GOLDEN] += 1
                updated = j > 0  # tokens left: the pot still blocks the rays, its new top is face down
            else:
                bust = False
                fruit = TOKEN_FRUIT[t]
                for k in range(STACKS):  # a fruit already face up (this turn) busts
                    if face_up[b, k]:
                        nk = 0
                        for d in range(DEPTH):
                            nk += stacks[b, k, d] >= 0
                        if nk > 0:
                            bust |= TOKEN_FRUIT[max(np.int64(stacks[b, k, nk - 1]), 0)] == fruit
                face_up[b, s] = True
                if bust:
                    clear_face_up_row(b, cp, False, stacks, face_up, statue, owner, stats, stack_board)
                    stats[b, cp, ST_BUSTS] += 1
                    ended = True
                else:
                    mask[b, a_flip + s] = False
                    updated = True
            if updated:
                mask[b, a_pass] = True
                for f in range(FRUITS):
                    mask[b, a_ruby + f] = False
        elif a == a_pass:  # pass: collect the flips
            clear_face_up_row(b, cp, True, stacks, face_up, statue, owner, stats, stack_board)
            stats[b, cp, ST_PASSES] += 1
            ended = True
            collected = True
        else:  # use the ruby of fruit f
            f = a - a_ruby
            board = seat_board(b, pos, cp, cell_board)
            owned = token_bits(b, owner, cp)
            on = token_bits(b, statue, board) if board >= 0 else np.int64(0)
            kept = 0
            for i in range(3):
                t = ruby_token(owned, on, FRUIT_SLOTS[f, i])
                if t >= 0:
                    owner[b, t] = cp
                    statue[b, t] = -1
                    kept += 1
            rubies[b, cp, f] = False
            stats[b, cp, ST_RUBY] += 1
            stats[b, cp, ST_KEPT] += kept
            ended = True
            collected = True

        ended_rows[b] = ended
        collected_rows[b] = collected
        mover[b] = cp
        if not ended and not updated:
            todo[n_todo] = b
            n_todo += 1

    # the mask after the action; a move after which nothing can be collected ends the turn by itself
    mask_rows(
        todo[:n_todo], mask, current_player, terminated, truncated, phase, pos, stacks, face_up, statue, owner,
        rubies, is_board, place_ok, cell_board, cell_stack, stack_cell, rays,
    )  # fmt: skip
    # a stuck move ends the turn
    for r in range(n_todo):
        b = todo[r]
        if phase[b] == PHASE_COLLECT:
            can = False
            for i in range(a_flip, A):  # only flips and rubies can be legal in this phase (no early exit: cheaper)
                can |= mask[b, i]
            ended_rows[b] = not can
    # then per row: wins (checked after every collection); the turn ends
    n_todo = 0
    for b in range(B):
        if live[b] and ended_rows[b]:
            cp = mover[b]
            won = False
            reason = 0
            if collected_rows[b]:
                owned = np.int64(0)
                for t in range(TOKENS):
                    owned |= np.int64(owner[b, t] == cp) << t
                row1 = True
                for k in range(ROW1):
                    row1 &= (owned & SLOT_BITS[k]) != 0
                row2 = True
                for k in range(ROW1, SLOTS):
                    row2 &= (owned & SLOT_BITS[k]) != 0
                won = row1 or row2
                reason = END_FRUITS if row1 else END_GOLDEN
            turns[b] += 1
            for k in range(STACKS):
                face_up[b, k] = False
            phase[b] = PHASE_START
            current_player[b] = 1 - cp
            if won:
                end_row(b, cp, reason, rewards, winners_mask, terminated, end_reason, mask, current_player)
            elif turns[b] >= turn_cap:
                end_row(b, -1, END_TURN_CAP, rewards, winners_mask, terminated, end_reason, mask, current_player)
            else:
                todo[n_todo] = b
                n_todo += 1
    # the other seat's mask at the start of its turn
    mask_rows(
        todo[:n_todo], mask, current_player, terminated, truncated, phase, pos, stacks, face_up, statue, owner,
        rubies, is_board, place_ok, cell_board, cell_stack, stack_cell, rays,
    )  # fmt: skip
    return True


# SWAR ("SIMD within a register") helpers of observe: a 64-bit word holds 8 tokens' bytes of
# ``owner`` / ``statue`` (a uint64 view of the row, little-endian: token 8w + i in byte i of word w)
_LO7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HI1 = np.uint64(0x8080808080808080)
#: ``v * _BYTES`` repeats byte value ``v`` in all 8 bytes.
_BYTES = np.uint64(0x0101010101010101)
_BYTE0 = np.uint64(0xFF)
_BYTE1 = np.uint64(0xFF00)
_BYTE2 = np.uint64(0xFF0000)
_BYTE3 = np.uint64(0xFF000000)
_U7, _U8, _U16, _U24, _U32 = (np.uint64(k) for k in (7, 8, 16, 24, 32))
if sys.byteorder != "little":  # numba runs on little-endian machines only; the byte order is relied on
    raise ImportError("monkey_envs.monki.kernels needs a little-endian machine")


@njit(cache=True, inline="always")
def eq_bytes(w: np.uint64, v: np.uint64) -> np.uint64:
    """Byte ``i`` of the result is 1 where byte ``i`` of ``w`` equals that of ``v``, else 0 (exact, any bytes)."""
    x = w ^ v
    nonzero = ((x & _LO7) + _LO7) | x  # high bit of a byte set iff the byte is not 0 (no carry across bytes)
    return (~nonzero & _HI1) >> _U7


@njit(cache=True, inline="always")
def sum4_bytes(e: np.uint64) -> np.uint64:
    """Byte 0 of the result: the sum of bytes 0-3 of ``e``; byte 4: of bytes 4-7 (each sum < 256)."""
    h = e + (e >> _U16)
    return h + (h >> _U8)


@njit(cache=True, inline="always")
def kind_counts(
    w0: np.uint64, w1: np.uint64, w2: np.uint64, w3: np.uint64, w4: np.uint64, v: np.uint64
) -> tuple[np.uint64, np.uint64]:
    """Tokens of each kind whose byte (in the 5 words of a row) is ``v``'s: two words of 8 count bytes.

    Byte ``k`` of the first word counts kind ``k`` (green: 4 regular fruits, then 4 golden), of
    the second kind ``8 + k`` (blue). Token ids by word: ``w0`` green banana, fig (4 each), ``w1``
    green pineapple, grapes, ``w2`` the 4 green golden then blue banana, ``w3`` blue fig,
    pineapple, ``w4`` blue grapes then the 4 blue golden (the id order of ``data.py``).
    """
    e2 = eq_bytes(w2, v)
    e4 = eq_bytes(w4, v)
    h0 = sum4_bytes(eq_bytes(w0, v))
    h1 = sum4_bytes(eq_bytes(w1, v))
    h2 = sum4_bytes(e2)
    h3 = sum4_bytes(eq_bytes(w3, v))
    h4 = sum4_bytes(e4)
    green = (h0 & _BYTE0) | ((h0 >> _U24) & _BYTE1) | ((h1 & _BYTE0) << _U16) | ((h1 >> _U8) & _BYTE3) | (e2 << _U32)
    blue = (
        ((h2 >> _U32) & _BYTE0)
        | ((h3 & _BYTE0) << _U8)
        | ((h3 >> _U16) & _BYTE2)
        | ((h4 & _BYTE0) << _U24)
        | ((e4 >> _U32) << _U32)
    )
    return green, blue


@njit(cache=True)
def observe(player: np.ndarray, obs: np.ndarray, seen: StateArrays, rules: RulesTables) -> None:
    """Write every row's observation for seat ``player[b]`` into ``obs (B, D) float32`` (all of it).

    ``seen`` holds the state arrays it reads (order of :data:`OBSERVED_FIELDS`; ``owner`` and
    ``statue`` with their last axis contiguous); the pieces are those of :data:`OBS_PIECES` back
    to back (the layout of :class:`~monkey_envs.monki.rules.Monki`), seats observer-first;
    ``player (B,) int64`` in ``{0, 1}``.

    The token counts per kind (``boards``, ``statues``) are counted 8 tokens at a time in 64-bit
    words (:func:`kind_counts`) into count bytes laid out as the two pieces are, then converted
    in two loops that LLVM vectorises; so is the copy of the static ``cells`` piece (loops with
    a trip count known only at run time, indexed by unsigned ints: no unrolling, no
    negative-index wraparound in the way).
    """
    current_player, stacks, face_up, statue, owner, rubies, pos, phase, turns = seen
    cells_obs, turn_cap = rules[CELLS_OBS], rules[TURN_CAP]
    N = cells_obs.size // 2
    o_rubies = 2 * KINDS
    o_monki = o_rubies + 2 * FRUITS
    o_stacks = o_monki + 2 * N
    o_statues = o_stacks + STACKS * 8
    o_flipped = o_statues + BOARDS * KINDS
    o_phase = o_flipped + FRUITS
    o_move = o_phase + NUM_PHASES
    o_turn = o_move + 2
    o_cells = o_turn + 1
    owner_w = owner.view(np.uint64)  # (B, 5)
    statue_w = statue.view(np.uint64)
    # count words: observer's board, other board (2 each: green, blue kinds), then the 4 statues
    counts_w = np.empty(2 * (2 + BOARDS), np.uint64)
    counts = counts_w.view(np.uint8)  # kind counts in the order of the boards and statues pieces
    n_boards = counts.size // 3  # 2 * KINDS, at run time (see above)
    n_statues = counts.size - n_boards
    n_cells = cells_obs.size
    at_statues = np.uintp(o_statues)
    at_cells = np.uintp(o_cells)
    stacks_f = stacks.reshape(-1)  # read flat with unsigned indices: cheaper than (b, s, j)
    face_up_f = face_up.reshape(-1)
    for b in range(obs.shape[0]):
        p = player[b]
        w0, w1, w2, w3, w4 = owner_w[b, 0], owner_w[b, 1], owner_w[b, 2], owner_w[b, 3], owner_w[b, 4]
        counts_w[0], counts_w[1] = kind_counts(w0, w1, w2, w3, w4, np.uint64(p) * _BYTES)
        counts_w[2], counts_w[3] = kind_counts(w0, w1, w2, w3, w4, np.uint64(1 - p) * _BYTES)
        w0, w1, w2, w3, w4 = statue_w[b, 0], statue_w[b, 1], statue_w[b, 2], statue_w[b, 3], statue_w[b, 4]
        for k in range(BOARDS):
            counts_w[4 + 2 * k], counts_w[5 + 2 * k] = kind_counts(w0, w1, w2, w3, w4, np.uint64(k) * _BYTES)
        for i in range(n_boards):
            obs[b, np.uintp(i)] = np.float32(counts[i])
        for i in range(n_statues):
            obs[b, at_statues + np.uintp(i)] = np.float32(counts[n_boards + i]) * _F_QUARTER
        for i in range(o_rubies, o_stacks):
            obs[b, i] = _ZERO_F
        for i in range(o_phase, o_cells):
            obs[b, i] = _ZERO_F
        for r in range(2):
            seat = p if r == 0 else 1 - p
            for f in range(FRUITS):
                if rubies[b, seat, f]:
                    obs[b, o_rubies + r * FRUITS + f] = _ONE_F
            c = pos[b, seat]
            if c >= 0:
                obs[b, o_monki + r * N + c] = _ONE_F
        flipped = 0  # bit f: a fruit f lies face up
        sb = np.uintp(b) * np.uintp(STACKS * DEPTH)
        fb = np.uintp(b) * np.uintp(STACKS)
        for s in range(STACKS):
            q = sb + np.uintp(DEPTH * s)
            n = np.int64(stacks_f[q] >= 0) + np.int64(stacks_f[q + np.uintp(1)] >= 0)
            n += np.int64(stacks_f[q + np.uintp(2)] >= 0)
            t = max(np.int64(stacks_f[q + np.uintp(max(n - 1, 0))]), 0)
            up = (n > 0) & face_up_f[fb + np.uintp(s)]
            flipped |= np.int64(up) << TOKEN_FRUIT[t]
            piece = (n > 0) * (1 + ((n - 1) * TOKENS + t) * 2 + up)
            at = np.uintp(o_stacks + s * 8)
            for k in range(8):
                obs[b, at + np.uintp(k)] = STACK_OBS[piece, k]
        for f in range(FRUITS):
            obs[b, o_flipped + f] = np.float32((flipped >> f) & 1)
        ph = min(max(np.int64(phase[b]), 0), NUM_PHASES - 1)
        obs[b, o_phase + ph] = _ONE_F
        cp = current_player[b]
        if cp >= 0:  # -1: the game is over, nobody is to move
            obs[b, o_move + (0 if cp == p else 1)] = _ONE_F
        obs[b, o_turn] = np.float32(min(turns[b] / turn_cap, 1.0))
        for i in range(n_cells):
            obs[b, at_cells + np.uintp(i)] = cells_obs[i]


@njit(cache=True)
def free_cells(heights: np.ndarray, pos: np.ndarray, is_board: np.ndarray, stack_cell: np.ndarray) -> np.ndarray:
    """``(B, N) bool`` board cells with no token and no Monki (``heights (B, 12) int64``, ``pos (B, 2) int64``)."""
    B = heights.shape[0]
    out = np.empty((B, is_board.size), np.bool_)
    h = np.empty(STACKS, np.int64)
    free = np.empty(is_board.size, np.bool_)
    for b in range(B):
        h[:] = heights[b]
        free_row(h, pos[b, 0], pos[b, 1], is_board, stack_cell, free)
        out[b] = free
    return out


@njit(cache=True)
def move_targets(origin: np.ndarray, free: np.ndarray, rays: np.ndarray) -> np.ndarray:
    """``(B, N) bool`` cells a queen move from ``origin (B,) int64`` reaches over ``free (B, N) bool``."""
    B, N = free.shape
    out = np.zeros((B, N), np.bool_)
    row = np.empty(N, np.bool_)
    for b in range(B):
        row[:] = free[b]
        move_row(origin[b], row, rays, out, b, 0)
    return out


@njit(cache=True)
def line_stacks(
    origin: np.ndarray, free: np.ndarray, heights: np.ndarray, rays: np.ndarray, cell_stack: np.ndarray
) -> np.ndarray:
    """``(B, 12) bool`` non-empty stacks first met along a row or column from ``origin (B,) int64``."""
    B = origin.size
    out = np.zeros((B, STACKS), np.bool_)
    for b in range(B):
        for i in range(4):
            s = sight_row(origin[b], free[b], heights[b], rays, cell_stack, ORTHO[i])
            if s >= 0:
                out[b, s] = True
    return out


@njit(cache=True)
def ruby_takes(
    seat: np.ndarray, pos: np.ndarray, statue: np.ndarray, owner: np.ndarray, cell_board: np.ndarray
) -> np.ndarray:
    """``(B, 4, 40) bool`` tokens each ruby of ``seat (B,) int64`` would take now (statue of its board)."""
    B = seat.size
    out = np.zeros((B, FRUITS, TOKENS), np.bool_)
    for b in range(B):
        cp = seat[b]
        board = seat_board(b, pos, cp, cell_board)
        owned = token_bits(b, owner, cp)
        on = token_bits(b, statue, board) if board >= 0 else np.int64(0)
        for f in range(FRUITS):
            for i in range(3):
                t = ruby_token(owned, on, FRUIT_SLOTS[f, i])
                if t >= 0:
                    out[b, f, t] = True
    return out
