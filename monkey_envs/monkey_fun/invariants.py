"""Monkey Fun consistency laws (:func:`state_violations`) and hidden-information resampling (:func:`redeal_hidden`, behind the kit's ``Game.resample_hidden``).

The kit reads this module through :attr:`MonkeyFun.laws <monkey_envs.core.game.Game.laws>`: its ``state_violations`` and
``redeal_hidden`` are the game's hooks. The laws (each reported as ``(field, row, why)``; ``row == -1``
when a whole array is wrong):

* **layout**: every field is a numpy array of this game's dtype and per-row shape, all with the
  same batch size (a broken layout is reported alone: no law is read from such arrays);
* **ranges**: declared with each field in :class:`~monkey_envs.monkey_fun.state.MonkeyFunState`
  (the kit checks them first). The laws below are read only in rows whose values are in range,
  so garbage never indexes out of bounds;
* **monkeys**: per seat, supply + board + box == 20;
* **cards**: hands + draw pile (below ``draw_size``) + discard == the 55-card deck as a multiset;
  draw-pile slots below ``draw_size`` hold a card, the slots above are 0; hand slots are sorted
  ascending (empty slots, 0, first);
* **securing**: a secured field holds at least 2 of its owner's monkeys and none of anyone
  else's; the solo game secures nothing; solo: monkeys only on the inner 4x4 square, at most 5
  per field, at most 4 minus towers (fields with 2+);
* **turn**: the seat to move has monkeys in its supply; the legal mask is the rules' mask of the
  seat to move (recomputed by the rules' own kernel; a solo player with no placement has lost);
  no running game contains a line (or quick-game square) some seat holds;
* **endings**: ``end_reason`` is 0 exactly while the game is not terminated and a code of this
  variant once it is; a line win has one winner, who holds a line; a supplies-empty ending has
  every supply empty and the rules' final scores and winners; a completed solo square has a
  monkey on every inner field, a win and the score ``last field - minus towers``; a solo loss
  by rounds has the supply empty and an inner field empty; a solo loss has no winner; scores
  are 0 except after those two scored endings; rewards are 0 in running games and, in a
  finished game, either 0 (steps after the end) or its +1 / -1 / 0-for-all end rewards.

Hand sizes below 4 are allowed (scenario positions built with ``MonkeyFun.position`` may hold
short hands, and the rules play them consistently).

Hidden from a seat: the other seats' hands, the order of the draw pile and the RNG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.invariants import Report, Violation, shuffle_among, tally
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import (
    END_LINE,
    END_SOLO_COMPLETE,
    END_SOLO_ROUNDS,
    END_SOLO_STUCK,
    END_SUPPLIES,
    MonkeyFunState,
)

if TYPE_CHECKING:
    from monkey_envs.monkey_fun.rules import MonkeyFun

__all__ = ["redeal_hidden", "state_violations"]


_DECK_COUNTS = np.bincount(np.array(D.DECK), minlength=D.MAX_CARD + 1).astype(np.int64)  # (20,)
_INNER = np.zeros(D.NUM_FIELDS, dtype=bool)
_INNER[list(D.INNER_FIELDS)] = True
_NORMAL_ENDS = (END_LINE, END_SUPPLIES)
_SOLO_ENDS = (END_SOLO_COMPLETE, END_SOLO_STUCK, END_SOLO_ROUNDS)
_CARDS_FIELD = "hands+draw_pile+discard"
_MONKEYS_FIELD = "counts+supply+box"


def _line_holders(game: MonkeyFun, counts: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """``(n, P) bool``: seats holding the majority (or the securing) on every field of some winning window."""
    n, _, P = counts.shape
    out = np.zeros((n, P), dtype=bool)
    for p in range(P):  # loop over seats, not rows
        others = np.delete(counts, p, axis=2).max(axis=2) if P > 1 else np.zeros(counts.shape[:2], counts.dtype)
        maj = (counts[:, :, p] > others) | (owner == p)  # (n, 36)
        out[:, p] = maj[:, game.windows].all(axis=2).any(axis=1)
    return out


def state_violations(game: MonkeyFun, state: MonkeyFunState) -> list[Violation]:
    """The Monkey Fun laws (module docstring) broken by ``state``: ``(field, row, why)`` triples.

    Vectorised over the batch; ``state`` has the game's layout (the kit's
    :meth:`~monkey_envs.core.game.Game.state_violations` checks it first and adds the shared
    fields' laws).
    """
    rep = Report()
    B, P = state.batch_size, game.num_players
    if B == 0:
        return []
    i64 = np.int64
    counts = state.counts.astype(i64)  # (B, 36, P)
    owner = state.owner.astype(i64)  # (B, 36)
    supply = state.supply.astype(i64)  # (B, P)
    box = state.box.astype(i64)  # (B, P)
    hands = state.hands.astype(i64)  # (B, P, 4)
    pile = state.draw_pile.astype(i64)  # (B, 55)
    size = state.draw_size.astype(i64)  # (B,)
    discard = state.discard.astype(i64)  # (B, 20)
    scores = state.scores.astype(i64)  # (B, P)
    last = state.last_field.astype(i64)  # (B,)
    cp = state.current_player.astype(i64)
    er = state.end_reason.astype(i64)
    term = state.terminated.astype(bool)
    running = ~(term | state.truncated.astype(bool))
    M = D.MONKEYS_PER_PLAYER

    cps = np.clip(cp, 0, P - 1)
    ar = np.arange(B)

    # ---- monkeys
    total = supply + counts.sum(1) + box  # (B, P)
    rep.add(_MONKEYS_FIELD, (total != M).any(1), f"a seat's supply + board + box is not {M}")

    # ---- cards
    in_pile = np.arange(D.NUM_CARDS)[None, :] < size[:, None]  # (B, 55)
    rep.add("draw_pile", (in_pile & (pile == 0)).any(1), "an empty slot below draw_size")
    rep.add("draw_pile", (~in_pile & (pile != 0)).any(1), "a card above draw_size (slots past the top must be 0)")
    hv = hands.reshape(B, -1)
    cards = tally(hv, hv > 0, D.MAX_CARD + 1) + tally(pile, in_pile, D.MAX_CARD + 1)
    cards += discard
    cards[:, 0] = 0  # empty hand slots
    rep.add(_CARDS_FIELD, (cards != _DECK_COUNTS[None, :]).any(1), "hands + draw pile + discard is not the deck")
    rep.add("hands", (np.diff(hands, axis=2) < 0).any((1, 2)), "a hand is not sorted ascending (empty slots first)")

    # ---- securing
    owned = owner >= 0
    oc = np.clip(owner, 0, P - 1)
    own_count = np.take_along_axis(counts, oc[:, :, None], axis=2)[:, :, 0]  # (B, 36)
    foreign = counts.sum(2) - own_count
    rep.add("owner", (owned & (foreign > 0)).any(1), "a secured field holds another seat's monkeys")
    rep.add("owner", (owned & (own_count < D.SECURE_MARGIN)).any(1), "a secured field holds < 2 of its owner's")
    if game.solo:
        rep.add("owner", owned.any(1), "the solo game secures no field")
        c0 = counts[:, :, 0]
        rep.add("counts", (c0[:, ~_INNER] > 0).any(1), "solo: a monkey outside the inner 4x4 square")
        rep.add("counts", (c0 > D.SOLO_MAX_PER_FIELD).any(1), f"solo: > {D.SOLO_MAX_PER_FIELD} on a field")
        towers = (c0[:, _INNER] >= 2).sum(1)
        rep.add("counts", (towers > D.SOLO_MAX_TOWERS), f"solo: more than {D.SOLO_MAX_TOWERS} minus towers")

    # ---- turn
    live = running & (cp >= 0)
    rep.add("supply", live & (supply[ar, cps] <= 0), "the seat to move has no monkey in its supply")
    holders = _line_holders(game, counts, owner) if not game.solo else np.zeros((B, P), bool)
    if not game.solo:
        rep.add("counts+owner", live & holders.any(1), "a running game contains a line held by one seat")
    rows = np.flatnonzero(live)
    if rows.size:
        sub = state.take(rows)
        sub.legal_action_mask[:] = False
        game._refresh(sub)
        ended = sub.terminated & ~state.terminated[rows]
        rep.add("legal_action_mask", np.isin(ar, rows[ended]), "solo: no placement is possible, the game is lost")
        wrong = ~ended & (sub.legal_action_mask != state.legal_action_mask[rows]).any(1)
        rep.add("legal_action_mask", np.isin(ar, rows[wrong]), "differs from the rules' mask of the seat to move")

    # ---- endings
    rep.add("end_reason", term & (er == 0), "a terminated game has no end reason")
    rep.add("end_reason", ~term & (er != 0), "a game that is not terminated has an end reason")
    codes = _SOLO_ENDS if game.solo else _NORMAL_ENDS
    rep.add("end_reason", term & (er != 0) & ~np.isin(er, codes), f"not an ending of the {game.variant} game")
    win = state.winners_mask.astype(bool)
    n_win = win.sum(1)
    fin = term
    line = fin & (er == END_LINE)
    rep.add("winners_mask", line & (n_win != 1), "a line win has exactly one winner")
    rep.add("winners_mask", line & (n_win == 1) & ~(holders & win).any(1), "the line winner holds no line")
    sup_end = fin & (er == END_SUPPLIES)
    rep.add("supply", sup_end & (supply != 0).any(1), "supplies_empty ending with a supply left")
    rows = np.flatnonzero(sup_end)
    if rows.size:
        fs, fw = game.final_scores(counts[rows])
        bad_s = np.zeros(B, bool)
        bad_w = np.zeros(B, bool)
        bad_s[rows] = (fs.astype(i64) != scores[rows]).any(1)
        bad_w[rows] = (fw != win[rows]).any(1)
        rep.add("scores", bad_s, "not the final scores of the board")
        rep.add("winners_mask", bad_w, "not the winners of the board's final scores")
    inner_min = counts[:, _INNER, 0].min(1)
    done = fin & (er == END_SOLO_COMPLETE)
    rep.add("counts", done & (inner_min < 1), "solo_complete with an empty inner field")
    rep.add("winners_mask", done & ~win[:, 0], "solo_complete is a win")
    lf = np.clip(last, 0, D.NUM_FIELDS - 1)
    minus = np.where(counts[:, :, 0] >= 2, game.field_number[None, :], 0)[:, _INNER].sum(1)
    want = game.field_number[lf] - minus
    rep.add("last_field", done & ((last < 0) | ~_INNER[lf]), "solo_complete: the last placement is no inner field")
    rep.add("scores", done & (last >= 0) & (scores[:, 0] != want), "solo score is not last field - minus towers")
    rounds = fin & (er == END_SOLO_ROUNDS)
    rep.add("supply", rounds & (supply[:, 0] != 0), "solo_rounds with monkeys left")
    rep.add("counts", rounds & (inner_min != 0), "solo_rounds with every inner field occupied")
    rep.add(
        "winners_mask", fin & np.isin(er, (END_SOLO_ROUNDS, END_SOLO_STUCK)) & win.any(1), "a solo loss has a winner"
    )
    scored = fin & np.isin(er, (END_SUPPLIES, END_SOLO_COMPLETE))
    rep.add("scores", ~scored & (scores != 0).any(1), "scores before (or without) a scored ending")
    return rep.out


def redeal_hidden(game: MonkeyFun, new: MonkeyFunState, seat: int, gen: np.random.Generator) -> None:
    """Re-deal in place what ``seat`` cannot see: the other hands and the draw pile (the kit's
    :meth:`~monkey_envs.core.game.Game.resample_hidden` clones the state and redraws its RNG first).

    Per row, the cards of every other seat's hand and of the draw pile are pooled, shuffled with
    ``gen`` and dealt back: each other seat the same number of cards (sorted, empty slots first),
    the draw pile the same size in the new order. ``seat``'s hand, the board, supplies, box and the
    discard pile are kept; the legal mask of running rows is recomputed for their seat to move
    (unchanged where that is ``seat``).

    Args:
        game: the game ``new`` belongs to.
        new: a valid state (``state_violations`` empty), batch ``B``; modified in place.
        seat: the seat whose view is kept, in ``[0, P)``.
        gen: the resampling's generator.
    """
    B, P = new.batch_size, game.num_players
    others = [p for p in range(P) if p != seat]
    H = D.HAND_SIZE
    # one pool per row: the other seats' hand slots, then the draw pile; cards move among the filled slots
    pool = np.concatenate([new.hands[:, others].reshape(B, -1), new.draw_pile], axis=1)  # (B, 4 (P-1) + 55)
    pool = shuffle_among(pool, pool > 0, gen)
    hands = pool[:, : H * len(others)].reshape(B, len(others), H)
    hands.sort(axis=2)
    new.hands[:, others] = hands
    new.draw_pile[:] = pool[:, H * len(others) :]
    rows = np.flatnonzero(~(new.terminated | new.truncated))
    if rows.size:
        sub = new.take(rows)
        game._refresh(sub)
        new.legal_action_mask[rows] = sub.legal_action_mask
