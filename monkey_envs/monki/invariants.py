"""Monki consistency laws (:func:`state_violations`) and hidden-information resampling (:func:`redeal_hidden`, behind the kit's ``Game.resample_hidden``).

Laws, each reported as ``(field, row, why)`` (``row == -1``: a whole array is wrong):

* **layout**: dtypes and per-row shapes of the state schema (reported alone);
* **ranges**: declared with each field in :class:`~monkey_envs.monki.state.MonkiState` (the
  kit checks them first); the laws below are read only in rows whose values are in range;
* **tokens**: each of the 40 tokens lies in exactly one place: a stack slot, a statue or a player
  board (40 over stacks + statues + boards); stacks are filled bottom first; a player board holds
  at most one token per space;
* **Monkis**: a placed Monki stands on a board cell (no hole) without tokens, the two on different
  cells; outside the placement phase both are placed; in the placement phase the seat to move has
  not placed yet;
* **turn**: face-up tops only while flipping, on non-empty stacks, non-golden, with distinct
  fruits; the stored mask equals the rules' mask; no running game holds a full row;
* **endings**: a win has one winner, whose row 1 (``fruits``) or row 2 (``golden``) is full; a
  turn-cap draw has ``turns >= turn_cap`` and no winner; a running game has ``turns < turn_cap``
  (the turn that reaches the cap ends the game), and ``turns == 0`` in the placement phase.
  Rewards (0 in a running game, the end rewards once it ended) are the shared laws of
  ``Game.state_violations``.

Hidden from every seat: the fruit (and golden or not) under each face-down token, and the RNG.
The colour of a stack's top is visible; :func:`redeal_hidden` keeps every face-down token's
colour where it lies and re-deals the face-down tokens of each colour among the face-down
positions of that colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.invariants import Report, Violation
from monkey_envs.monki import data as D
from monkey_envs.monki.state import (
    END_FRUITS,
    END_GOLDEN,
    END_TURN_CAP,
    PHASE_FLIPPING,
    PHASE_PLACE,
    MonkiState,
)

if TYPE_CHECKING:
    from monkey_envs.monki.rules import Monki


def state_violations(game: Monki, s: MonkiState) -> list[Violation]:
    """The Monki laws broken by ``s`` (layout assumed checked); see the module docs."""
    rep = Report()
    n = s.batch_size
    add = rep.add
    # tokens: each exactly once
    cnt = np.zeros((n, D.NUM_TOKENS + 1), np.int64)
    st = s.stacks.reshape(n, -1).astype(np.int64)
    np.add.at(cnt, (np.arange(n)[:, None], np.where(st >= 0, st, D.NUM_TOKENS)), 1)
    cnt = cnt[:, : D.NUM_TOKENS] + (s.statue >= 0) + (s.owner >= 0)
    add("stacks+statue+owner", (cnt != 1).any(1), "every token must lie in exactly one place (40 in all)")
    gap = ((s.stacks[:, :, 1:] >= 0) & (s.stacks[:, :, :-1] < 0)).any((1, 2))
    add("stacks", gap, "a stack has a gap (filled slots must be a prefix)")
    filled = game.filled_slots(s.owner)
    add("owner", (filled > 1).any((1, 2)), "a player board holds two tokens on one space")
    # Monkis
    pos = s.pos.astype(np.int64)
    h = game.heights(s.stacks)
    onpot = np.zeros(n, bool)
    for p in range(2):
        c = pos[:, p]
        placed = c >= 0
        cc = np.maximum(c, 0)
        add("pos", placed & ~game.is_board[cc], f"seat {p}'s Monki stands on a hole")
        stk = game.layout.cell_stack[cc]
        onpot |= placed & (stk >= 0) & (h[np.arange(n), np.maximum(stk, 0)] > 0)
    add("pos", onpot, "a Monki stands on a pot that still holds tokens")
    add("pos", (pos[:, 0] >= 0) & (pos[:, 0] == pos[:, 1]), "both Monkis on one cell")
    live = ~(s.terminated | s.truncated)
    ph = s.phase
    add("pos", live & (ph != PHASE_PLACE) & (pos < 0).any(1), "a Monki is not placed after the placement phase")
    cps = np.maximum(s.current_player.astype(np.int64), 0)
    add("pos", live & (ph == PHASE_PLACE) & (pos[np.arange(n), cps] >= 0), "the seat to place has placed already")
    # face-up tops
    top = np.take_along_axis(s.stacks, np.maximum(h - 1, 0)[:, :, None], 2)[:, :, 0].astype(np.int64)
    up = s.face_up
    add("face_up", (up & (h == 0)).any(1), "an empty stack is face up")
    add("face_up", up.any(1) & ((ph != PHASE_FLIPPING) | ~live), "face-up tokens outside the flipping phase")
    t0 = np.maximum(top, 0)
    add("face_up", (up & D.TOKEN_GOLDEN[t0]).any(1), "a golden token lies face up on a stack")
    fr = np.zeros((n, D.NUM_FRUITS + 1), np.int64)
    np.add.at(fr, (np.arange(n)[:, None], np.where(up & (h > 0), D.TOKEN_FRUIT[t0], D.NUM_FRUITS)), 1)
    add("face_up", (fr[:, : D.NUM_FRUITS] > 1).any(1), "two face-up tokens show the same fruit (a bust)")
    # rows and endings
    row1 = (filled[:, :, : D.ROW1_SLOTS] > 0).all(2)
    row2 = (filled[:, :, D.ROW1_SLOTS :] > 0).all(2)
    full = row1 | row2
    add("owner", live & full.any(1), "a running game holds a full player-board row")
    w = s.winners_mask
    ended = s.terminated
    code = s.end_reason.astype(np.int64)
    win = ended & ((code == END_FRUITS) | (code == END_GOLDEN))
    add("winners_mask", win & (w.sum(1) != 1), "a won game needs exactly one winner")
    wrow = np.where(code == END_FRUITS, row1[np.arange(n), w.argmax(1)], row2[np.arange(n), w.argmax(1)])
    add("winners_mask", win & ~wrow, "the winner's row is not full")
    add("end_reason", ended & (code == 0), "a finished game has no end reason")
    capd = ended & (code == END_TURN_CAP)
    add("end_reason", capd & ((s.turns < game.turn_cap) | w.any(1)), "a turn-cap draw before the cap or with a winner")
    add("end_reason", live & (code != 0), "a running game has an end reason")
    turns = s.turns.astype(np.int64)
    add("turns", live & (turns >= game.turn_cap), f"a running game has played the turn cap ({game.turn_cap} turns)")
    add("turns", live & (ph == PHASE_PLACE) & (turns != 0), "turns counted in the placement phase")
    # mask
    want = game.rules_mask(s)
    add("legal_action_mask", (want != s.legal_action_mask).any(1), "differs from the rules' mask")
    return rep.out


def redeal_hidden(game: Monki, new: MonkiState, seat: int, gen: np.random.Generator) -> None:
    """Re-deal in place what ``seat`` cannot see: face-down tokens within their colour (the kit's
    :meth:`~monkey_envs.core.game.Game.resample_hidden` clones the state and redraws its RNG first).

    Per row and colour, the token ids lying face down (every stack slot except face-up tops) are
    permuted among the face-down slots holding that colour; face-up tops, statues, player boards,
    Monkis, rubies and the rest are kept. The mask does not depend on which fruit lies face down,
    so it is unchanged. The tokens are dealt from their sorted multiset, so the result depends only
    on what ``seat`` sees and ``gen`` (both seats see the same, so ``seat`` is not read).

    Args:
        game: the game ``new`` belongs to.
        new: a valid state, batch ``B``; modified in place.
        seat: the seat whose view is kept (0 or 1).
        gen: the resampling's generator.
    """
    B = new.batch_size
    h = game.heights(new.stacks)
    slot = np.arange(D.STACK_DEPTH)[None, None, :]
    down = (new.stacks >= 0) & ~(new.face_up[:, :, None] & (slot == h[:, :, None] - 1))
    flat = new.stacks.reshape(B, -1)
    dflat = down.reshape(B, -1)
    for b in range(B):  # resampling is a test tool, not a hot path
        for col in range(D.NUM_COLOURS):
            idx = np.flatnonzero(dflat[b] & (D.TOKEN_COLOUR[np.maximum(flat[b], 0)] == col))
            flat[b, idx] = np.sort(flat[b, idx])[gen.permutation(idx.size)]  # from the sorted multiset
    new.stacks[:] = flat.reshape(new.stacks.shape)
