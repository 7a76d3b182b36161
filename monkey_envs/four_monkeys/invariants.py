"""4 Monkeys consistency laws (:func:`state_violations`) and hidden-information resampling (:func:`redeal_hidden`, behind the kit's ``Game.resample_hidden``).

Laws, each reported as ``(field, row, why)``:

* **ranges**: declared with each field in :class:`~monkey_envs.four_monkeys.state.FourMonkeysState`
  (the kit checks them first); the laws below are read only in rows whose values are in range;
* **decks**: deck entries are card kinds below ``deck_size`` and -1 above;
* **cards**: every card of every deck is in exactly one place -- for each kind, decks + hands +
  pending sets + discards + cards under tiles = 4 per deck in play (cards are tracked by kind);
  a seat's hand holds at most all cards;
* **tiles**: every tile is in exactly one place: in a stack (``tile_stack`` names it and the stack
  lists it exactly once, below its size), next to the stacks (loose) or owned (green / orange);
  owner -1 exactly for tiles on the table; cards lie only under owned tiles, at least one each,
  and ``under_count`` counts them;
  stacks list -1 past their size;
* **areas** (7-8 players): area 0 seats 4 players; a seat owns only tiles of its area, and a
  stack holds only tiles of its area;
* **tick**: the commits are exactly those of the seats before ``current_player``, each legal for
  that seat's mask at the start of the tick; the stored mask is the rules' mask;
* **points**: ``totals`` = the scored rounds' points - 10 per invalid Stop; rounds not yet scored
  hold 0; Banana skins received = skins given (none without the flag); bluffs <= grabs;
* **endings**: a finished game has played every round; rewards follow ``winners_mask``.

Hidden from a seat: the kinds of the other seats' hands, pending sets and discards, of the cards
under other seats' tiles, every deck's order, which tile lies where below a stack's top, and the
other seats' commits of the current tick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from monkey_envs.core.invariants import Report, Violation
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.state import (
    END_ROUNDS,
    TILE_LOOSE,
    TILE_STACK,
    FourMonkeysState,
)

if TYPE_CHECKING:
    from monkey_envs.four_monkeys.rules import FourMonkeys

_INVALID = 10  # stats column of invalid Stops (state.STAT_NAMES)
_GRABS, _BLUFFS, _SKINS = 0, 1, 11
_NUM_COMBOS = D.NUM_COMBOS  # a combo tile's combo is its id modulo this


def _card_totals(s: FourMonkeysState) -> np.ndarray:
    """``(B, 10) int64`` cards of each kind over decks, hands, pending sets, discards and tiles."""
    B = s.batch_size
    in_deck = np.arange(D.DECK_SIZE)[None, None, :] < s.deck_size[:, :, None]
    flat = np.where(in_deck, s.decks.astype(np.int64), -1).reshape(B, -1)
    deck_counts = np.zeros((B, D.NUM_KINDS), np.int64)
    for k in range(D.NUM_KINDS):
        deck_counts[:, k] = (flat == k).sum(1)
    other = (
        s.hands.astype(np.int64).sum(1)
        + s.pending.astype(np.int64).sum(1)
        + s.discard.astype(np.int64).sum(1)
        + s.under.astype(np.int64).sum(1)
    )
    return deck_counts + other


def state_violations(game: FourMonkeys, s: FourMonkeysState) -> list[Violation]:
    """The 4 Monkeys laws broken by ``s`` (layout assumed checked); see the module docs."""
    rep = Report()
    B, P, NT, S = s.batch_size, game.num_players, game.num_tiles, game.num_stacks
    done = s.terminated | s.truncated
    live = ~done

    # ---- cards: conservation by kind; deck prefixes
    idx = np.arange(D.DECK_SIZE)[None, None, :]
    in_deck = idx < s.deck_size[:, :, None]
    rep.add("decks", ((in_deck & (s.decks < 0)) | (~in_deck & (s.decks != -1))).reshape(B, -1).any(1),
            "deck entries must be card kinds below deck_size and -1 above")  # fmt: skip
    totals = _card_totals(s)
    rep.add("hands", (totals != D.COPIES * P).any(1),
            f"cards of some kind over decks, hands, pending, discards and tiles != {D.COPIES} per deck")  # fmt: skip

    # ---- tiles: one place each
    ts, owner, tstack = s.tile_state, s.tile_owner, s.tile_stack
    on_table = ts <= TILE_LOOSE
    rep.add("tile_owner", ((owner >= 0) == on_table).any(1), "owner must be -1 exactly for tiles on the table")
    rep.add("tile_stack", ((tstack >= 0) != (ts == TILE_STACK)).any(1),
            "tile_stack must name a stack exactly for tiles in a stack")  # fmt: skip
    depth = np.arange(game.stack_depth)[None, None, :]
    filled = depth < s.stack_size[:, :, None]
    rep.add("stacks", ((filled & (s.stacks < 0)) | (~filled & (s.stacks != -1))).reshape(B, -1).any(1),
            "stacks must list tiles below their size and -1 above")  # fmt: skip
    listed = np.zeros((B, NT), np.int64)
    at = np.full((B, NT), -1, np.int64)
    for b in range(B):
        for k in range(S):
            for d in range(int(s.stack_size[b, k])):
                t = int(s.stacks[b, k, d])
                if t >= 0:
                    listed[b, t] += 1
                    at[b, t] = k
    rep.add("stacks", ((listed != (ts == TILE_STACK)) | ((ts == TILE_STACK) & (at != tstack))).any(1),
            "a tile in a stack must be listed exactly once, in the stack tile_stack names")  # fmt: skip
    ncards = s.under.astype(np.int64).sum(2)
    rep.add("under", ((on_table & (ncards > 0)) | (~on_table & (ncards < 1))).any(1),
            "cards lie only under owned tiles, at least one under each")  # fmt: skip
    rep.add("under_count", (s.under_count != ncards).any(1),
            "under_count must be the number of cards under each tile")  # fmt: skip
    correct = np.zeros((B, NT), bool)
    for b, t in zip(*np.nonzero(~on_table), strict=True):
        correct[b, t] = K.correct(int(t) % D.NUM_COMBOS, s.under[b, t])
    rep.add(
        "tile_ok",
        (s.tile_ok != correct).any(1),
        "tile_ok must say whether the cards under an owned tile are correct",
    )

    # ---- areas (7-8 players): sizes; tiles and stacks of an area
    in0 = (s.area == 0).sum(1)
    rep.add("area", (in0 != game.area_sizes[0]), f"area 0 must seat {game.area_sizes[0]} players")
    tile_area = (np.arange(NT) >= game.cfg[-2] * D.NUM_COMBOS).astype(np.int64)
    stack_area = (np.arange(S) >= game.cfg[-1]).astype(np.int64)
    owner_area = np.take_along_axis(
        np.clip(s.area, 0, 1).astype(np.int64), np.clip(owner, 0, P - 1).astype(np.int64), 1
    )
    rep.add("tile_owner", live & ((owner >= 0) & (owner_area != tile_area[None, :])).any(1),
            "a seat owns a tile of another playing area")  # fmt: skip
    in_stack_area = stack_area[np.clip(tstack, 0, S - 1).astype(np.int64)]
    rep.add("tile_stack", ((tstack >= 0) & (in_stack_area != tile_area[None, :])).any(1),
            "a tile lies in a stack of another playing area")  # fmt: skip

    # ---- tick: commits of the seats before current_player, the mask is the rules' mask
    seats = np.arange(P)[None, :]
    cp = s.current_player.astype(np.int64)
    rep.add("commits", live & ((s.commits >= 0) != (seats < cp[:, None])).any(1),
            "committed seats must be exactly those before current_player")  # fmt: skip
    rep.add("commits", done & (s.commits >= 0).any(1), "a finished game has commits")
    rep.add("tick", live & ((s.tick >= game.ticks) | (s.round >= game.rounds)), "a running game past its clock")
    if B:
        ref = s.clone()
        starts = ref.clone()
        K.refresh(_arrays(ref), game.cfg)
        rep.add("legal_action_mask", live & (ref.legal_action_mask != s.legal_action_mask).any(1),
                "the stored mask is not the rules' mask")  # fmt: skip
        # each commit must have been legal for its seat (the tick-start state is the current one)
        for q in range(P):
            rows = np.flatnonzero(live & (s.commits[:, q] >= 0))
            if rows.size == 0:
                continue
            sub = starts.take(rows)
            sub.current_player[:] = q
            K.refresh(_arrays(sub), game.cfg)
            c = s.commits[rows, q].astype(np.int64)
            illegal = ~sub.legal_action_mask[np.arange(rows.size), c]
            flag = np.zeros(B, bool)
            flag[rows[illegal]] = True
            rep.add("commits", flag, f"seat {q}'s commit is not legal for it")

    # ---- points
    rs = s.round_scores.astype(np.int64)
    played = np.arange(game.rounds)[None, :] < s.round[:, None].astype(np.int64)
    rep.add("round_scores", ((~played[:, :, None]) & (rs != 0)).any((1, 2)), "an unplayed round has points")
    expect = rs.sum(1) - D.INVALID_STOP_PENALTY * s.stats[:, :, _INVALID].astype(np.int64)
    rep.add("totals", (expect != s.totals).any(1), "totals != round points - 10 per invalid Stop")
    rep.add("skins", (s.skins.astype(np.int64).sum(1) != s.skin_given.sum(1)),
            "Banana skins received != skins given")  # fmt: skip
    if not game.banana_skins:
        rep.add("skin_given", (s.skin_given.any(1) | (s.stats[:, :, _SKINS] > 0).any(1)),
                "a Banana skin without the Banana-skins rule")  # fmt: skip
    rep.add("stats", (s.stats[:, :, _BLUFFS] > s.stats[:, :, _GRABS]).any(1), "more bluffs than grabs")
    rep.add("round", done & (s.round != game.rounds), "a finished game has not played every round")
    rep.add("end_reason", done & (s.end_reason != END_ROUNDS), "a finished game needs the rounds_played reason")
    # winners: highest total, then best last round
    for b in np.flatnonzero(done).tolist():
        tot = s.totals[b].astype(np.int64)
        last = s.round_scores[b, game.rounds - 1].astype(np.int64)
        top = tot == tot.max()
        win = top & (last == last[top].max())
        if not np.array_equal(win, s.winners_mask[b]):
            rep.out.append(("winners_mask", b, "not the highest total (tie: best last round)"))
    return rep.out


def _arrays(s: FourMonkeysState) -> tuple[np.ndarray, ...]:
    return tuple(getattr(s, f) for f in K.STATE_FIELDS)


def redeal_hidden(game: FourMonkeys, new: FourMonkeysState, seat: int, gen: np.random.Generator) -> None:
    """Re-deal in place what ``seat`` cannot see: hidden cards re-dealt, hidden tiles reshuffled (the
    kit's :meth:`~monkey_envs.core.game.Game.resample_hidden` clones the state and redraws its RNG first).

    The cards ``seat`` cannot see -- every deck, the other seats' hands, pending sets and
    discards, and the cards under the other seats' tiles -- are pooled per row and dealt back
    at random into the same places with the same sizes (card kinds move, counts per place stay);
    the tiles below each stack's top are permuted among those positions of the same area; the other seats'
    commits of this tick become "wait". The mask is recomputed. The hidden
    cards and tiles are dealt from their sorted multiset, so the result depends only on what
    ``seat`` sees and ``gen`` (two states ``seat`` cannot tell apart give the same state).

    One compiled pass over the rows (:func:`_redeal_rows`) draws from ``gen``: the row's cards,
    then its area-0 and area-1 tiles, row after row.

    Args:
        game: the game ``new`` belongs to.
        new: a valid state, batch ``B``; modified in place.
        seat: the seat whose view is kept, in ``[0, P)``.
        gen: the resampling's generator.
    """
    done = np.asarray(new.terminated | new.truncated, dtype=np.bool_)
    _redeal_rows(
        gen,
        int(seat),
        int(game.a_wait),
        int(game.num_stacks_area0),
        done,
        new.decks,
        new.deck_size,
        new.hands,
        new.pending,
        new.discard,
        new.under,
        new.tile_owner,
        new.tile_ok,
        new.stacks,
        new.stack_size,
        new.tile_stack,
        new.commits,
    )
    K.refresh(_arrays(new), game.cfg)


@njit(cache=True)
def _deal_counts(cards: np.ndarray, i: int, place: np.ndarray) -> int:
    """Overwrite ``place (10,)`` with the kinds of its ``place.sum()`` cards ``cards[i:]``; the next ``i``."""
    n = 0
    for k in range(place.shape[0]):
        n += place[k]
        place[k] = 0
    for j in range(i, i + n):
        place[cards[j]] += 1
    return i + n


@njit(cache=True)
def _redeal_rows(
    gen: np.random.Generator,
    seat: int,
    a_wait: int,
    s0: int,
    done: np.ndarray,
    decks: np.ndarray,
    deck_size: np.ndarray,
    hands: np.ndarray,
    pending: np.ndarray,
    discard: np.ndarray,
    under: np.ndarray,
    tile_owner: np.ndarray,
    tile_ok: np.ndarray,
    stacks: np.ndarray,
    stack_size: np.ndarray,
    tile_stack: np.ndarray,
    commits: np.ndarray,
) -> None:
    """Re-deal, in place, what ``seat`` cannot see in every running row (for :func:`redeal_hidden`).

    Args:
        gen: the generator every draw comes from, row after row (advanced in place).
        seat: the seat whose view is kept.
        a_wait: the "wait" action (the other seats' commits become it).
        s0: stacks of playing area 0 (the rest are area 1's).
        done: ``(B,) bool`` finished rows (left alone).
        decks .. commits: the state's arrays (shapes and dtypes of :class:`FourMonkeysState`).

    Per row: the hidden cards are pooled as a sorted multiset (kinds counted, then written out in
    kind order), shuffled with ``gen.shuffle`` and dealt back place by place -- each deck's first
    ``deck_size`` entries (seats in order), then the hand, pending set and discard of each other
    seat, then the cards under each tile another seat owns (tiles in order; ``tile_ok`` follows);
    then, per playing area, the tiles below the stack tops, sorted, shuffled and put back in
    stack-then-depth order (``tile_stack`` follows); the other seats' commits become ``a_wait``.
    """
    B, P, depth = decks.shape
    NT, NK = under.shape[1], under.shape[2]
    S, SD = stacks.shape[1], stacks.shape[2]
    cnt = np.zeros(NK, np.int64)
    cards = np.empty(P * depth, np.int64)  # every card of a row (grown for a row that holds more)
    tiles = np.empty(S * SD, np.int64)
    for b in range(B):
        if done[b]:
            continue
        # ---- the hidden cards as a sorted multiset
        cnt[:] = 0
        for q in range(P):
            for j in range(min(deck_size[b, q], depth)):
                cnt[decks[b, q, j]] += 1
        for q in range(P):
            if q != seat:
                for k in range(NK):
                    cnt[k] += hands[b, q, k] + pending[b, q, k] + discard[b, q, k]
        for t in range(NT):
            w = tile_owner[b, t]
            if w >= 0 and w != seat:
                for k in range(NK):
                    cnt[k] += under[b, t, k]
        if cnt.sum() > cards.shape[0]:
            cards = np.empty(cnt.sum(), np.int64)
        n = 0
        for k in range(NK):
            for _ in range(cnt[k]):
                cards[n] = k
                n += 1
        gen.shuffle(cards[:n])
        # ---- dealt back into the same places, the same sizes
        i = 0
        for q in range(P):
            for j in range(min(deck_size[b, q], depth)):
                decks[b, q, j] = cards[i]
                i += 1
        for q in range(P):
            if q != seat:
                i = _deal_counts(cards, i, hands[b, q])
                i = _deal_counts(cards, i, pending[b, q])
                i = _deal_counts(cards, i, discard[b, q])
        for t in range(NT):
            w = tile_owner[b, t]
            if w >= 0 and w != seat:
                i = _deal_counts(cards, i, under[b, t])
                tile_ok[b, t] = K.correct(t % _NUM_COMBOS, under[b, t])
        # ---- the tiles below the stack tops, within each playing area
        for lo, hi in ((0, s0), (s0, S)):
            m = 0
            for k in range(lo, hi):
                for d in range(stack_size[b, k] - 1):
                    tiles[m] = stacks[b, k, d]
                    m += 1
            tiles[:m].sort()
            gen.shuffle(tiles[:m])
            m = 0
            for k in range(lo, hi):
                for d in range(stack_size[b, k] - 1):
                    t = tiles[m]
                    stacks[b, k, d] = t
                    tile_stack[b, t] = k
                    m += 1
        for q in range(P):
            if q != seat and commits[b, q] >= 0:
                commits[b, q] = a_wait


__all__ = ["redeal_hidden", "state_violations"]
