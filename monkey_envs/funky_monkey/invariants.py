"""Funky Monkey consistency laws (:func:`state_violations`) and hidden-information resampling (:func:`redeal_hidden`, behind the kit's ``Game.resample_hidden``).

The kit reads this module through :attr:`FunkyMonkey.laws <monkey_envs.core.game.Game.laws>`: its ``state_violations`` and
``redeal_hidden`` are the game's hooks. The laws (each reported as ``(field, row, why)``; ``row == -1``
when a whole array is wrong; a law over several fields names them joined by ``+``):

* **layout**: every field is a numpy array of this game's dtype and per-row shape, all with the
  same batch size (a broken layout is reported alone: no law is read from such arrays);
* **ranges**: declared with each field in :class:`~monkey_envs.funky_monkey.state.FunkyMonkeyState`
  (the kit checks them first). The laws below are read only in rows whose values are in range,
  so garbage never indexes out of bounds;
* **coconuts**: well + every seat's (eliminated seats keep theirs) + bowls == 40 normal ones;
  the golden coconut in at most one place (a seat or a bowl; else the well); every monkey in
  the game holds a coconut;
* **movement cards**: hands + draw pile + discard + out of play + the card in flight (played,
  not yet revealed) == the cards in play, per kind; draw-pile entries below ``draw_size`` are
  kinds and -1 above; a hand holds at most 5 cards; eliminated seats hold none;
* **treasure cards**: held + treasure pile + used == the 12 cards, per type; pile entries below
  ``treasure_size`` are types and -1 above;
* **tiles**: per back, the tiles on its slots plus its removed tile are that back's stack;
* **monkeys**: a running game has at least two monkeys, all in front of the tiger; the seat to
  decide is in the game;
* **turn order**: the round's chips are a prefix of distinct seats (then -1), ``chip_next`` at
  most their number, and the chip turned last is the active player's;
* **the turn**: with no card played yet (``offer_card == -1``) nothing of a turn is set
  (announcement, holder, passes, seen, Crown play, accepter, revealed card); once a card is
  played its player has seen it, a face-down play has an announcement and a Crown play none
  (accepted by the active player at once); a revealed card is the played card and has an
  accepter; a holder only while the card is in flight;
* **the pending decision** (running games): ``active`` -- the active player decides, in the
  game, holding a card, no card played yet; ``respond`` / ``respond_seen`` -- the holder
  (another seat, in the game) decides about a card in flight played face down
  (``respond_seen``: the holder has seen it); ``pay`` -- the mover owes 1-2 coconuts, holds the
  golden and a normal one and more than the debt; ``bowl`` -- the mover stands on a face-up
  nearest-bowl tile of the middle row; ``pyramid`` -- the mover stands on a face-up pyramid tile,
  a number card 1-4 awaits a direction that may go backward; ``bonus`` -- the active player
  told the truth (or played a Crown with ``crown_bonus``), is in the game and the card is
  revealed; ``scales`` -- the active player or the accepter, holding a treasure card, after the
  reveal; a debt is owed only in ``pay``, a pyramid card waits only in ``pyramid``; the legal
  mask is the rules' mask of the pending decision (recomputed by the rules);
* **endings**: ``phase`` is -1 exactly once the game is terminated, and ``end_reason`` is 0
  exactly while it is not; a tiger win has one winner, on the tiger's space; a last-monkey
  win has exactly one monkey left, the winner; a no-winner ending no monkey left and no winner;
  quitting time: no monkey in the game holds a card, and the winners are the monkeys nearest
  the tiger (then the golden coconut, then most coconuts); rewards are 0 in running games and,
  in a finished game, either 0 (steps after the end) or its +1 / -1 / 0-for-all end rewards.

Hidden from a seat: the other hands, the card in flight unless that seat has seen it, the cards
out of play, face-down and removed tiles, the other seats' treasure types, the order of the
draw pile and of the treasure pile, and the RNG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.invariants import Report, Violation, shuffle_among, tally
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_GOLDEN,
    END_LAST_MONKEY,
    END_NO_WINNER,
    END_QUITTING_TIME,
    END_TIGER,
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_OVER,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
    TREASURE_COUNTS,
    FunkyMonkeyState,
)

if TYPE_CHECKING:
    from monkey_envs.funky_monkey.rules import FunkyMonkey

__all__ = ["redeal_hidden", "state_violations"]


_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_T = len(D.TREASURE_NAMES)
_BACK_SLOTS = [np.array(D.TILE_SLOTS_RECONSTRUCTED[b], dtype=np.intp) for b in D.TILE_BACKS]
_CARDS_FIELD = "hands+draw_pile+discard+out_of_play+offer_card"
_COCONUT_FIELD = "supply+coconuts+bowls"
_TREASURE_FIELD = "treasures+treasure_pile+treasure_used"
_TILE_FIELD = "tiles+removed_tiles"


def state_violations(game: FunkyMonkey, state: FunkyMonkeyState) -> list[Violation]:
    """The Funky Monkey laws (module docstring) broken by ``state``: ``(field, row, why)`` triples.

    Vectorised over the batch; ``state`` has the game's layout (the kit's
    :meth:`~monkey_envs.core.game.Game.state_violations` checks it first and adds the shared
    fields' laws).
    """
    B, P = state.batch_size, game.num_players
    if B == 0:
        return []
    rep = Report()
    # every integer field as int64 (no overflow in the sums below); the float rewards stay apart
    s = {k: v.astype(np.int64) for k, v in state.arrays().items() if v.dtype.kind in "biu"}
    cp, er, phase = s["current_player"], s["end_reason"], s["phase"]
    term = state.terminated.astype(bool)
    running = ~(term | state.truncated.astype(bool))
    alive = state.alive.astype(bool)
    counts = game.card_counts.astype(np.int64)  # (5,) cards of each kind in play
    tc = D.TOTAL_COCONUTS

    ar = np.arange(B)
    seats = np.arange(P)

    def at(field: str, seat: np.ndarray) -> np.ndarray:
        """``s[field][b, seat[b]]`` with ``seat`` clipped to a seat (rows where it is -1 read seat 0)."""
        return s[field][ar, np.clip(seat, 0, P - 1)]

    # ---- coconuts
    coco = s["coconuts"]
    bowls = s["bowls"]
    total = s["supply"] + coco.sum(1) + (bowls == BOWL_COCONUT).sum(1)
    rep.add(_COCONUT_FIELD, (total != tc), f"well + seats + bowls is not {tc} normal coconuts")
    golden = s["golden"]
    rep.add("golden+bowls", ((golden >= 0) + (bowls == BOWL_GOLDEN).sum(1) > 1), "two golden coconuts")
    own = coco + (golden[:, None] == seats[None, :])
    rep.add("coconuts", (alive & (own == 0)).any(1), "a monkey in the game holds no coconut")

    # ---- movement cards
    hands = s["hands"]  # (B, P, 5)
    size = s["draw_size"]
    pile = s["draw_pile"]
    below = np.arange(pile.shape[1])[None, :] < size[:, None]
    rep.add("draw_pile", (below & (pile < 0)).any(1), "no card below draw_size")
    rep.add("draw_pile", (~below & (pile != -1)).any(1), "a card above draw_size (slots past the top are -1)")
    kinds = np.arange(_K)
    in_pile = tally(pile, below, _K)
    offer, revealed = s["offer_card"], s["revealed"]
    flight = (offer >= 0) & (revealed < 0)
    cards = hands.sum(1) + in_pile + s["discard"] + s["out_of_play"] + (flight[:, None] & (offer[:, None] == kinds))
    rep.add(_CARDS_FIELD, (cards != counts[None, :]).any(1), "the movement cards of a kind are not all there")
    hand_size = hands.sum(2)  # (B, P)
    rep.add("hands", (hand_size > D.HAND_SIZE).any(1), f"a hand holds more than {D.HAND_SIZE} cards")
    rep.add("hands", (~alive & (hand_size > 0)).any(1), "an eliminated seat holds cards")

    # ---- treasure cards
    tsize = s["treasure_size"]
    tpile = s["treasure_pile"]
    tbelow = np.arange(tpile.shape[1])[None, :] < tsize[:, None]
    rep.add("treasure_pile", (tbelow & (tpile < 0)).any(1), "no card below treasure_size")
    rep.add("treasure_pile", (~tbelow & (tpile != -1)).any(1), "a card above treasure_size")
    tin = tally(tpile, tbelow, _T)
    tall = s["treasures"].sum(1) + tin + s["treasure_used"]
    rep.add(_TREASURE_FIELD, (tall != TREASURE_COUNTS[None, :]).any(1), "the treasure cards are not all there")

    # ---- tiles
    tiles = s["tiles"]
    for i, slots in enumerate(_BACK_SLOTS):  # loop over the three backs, not rows
        faces = np.concatenate([tiles[:, slots], s["removed_tiles"][:, i : i + 1]], axis=1)
        have = tally(faces - 1, np.ones(faces.shape, bool), D.NUM_TILE_KINDS)
        wrong = (have != D.BACK_COMPOSITION[i][None, :]).any(1)
        rep.add(_TILE_FIELD, wrong, f"the {D.TILE_BACKS[i]} tiles and its removed tile are not its stack")

    # ---- monkeys
    live = running
    pos, tiger = s["pos"], s["tiger"]
    rep.add("alive", live & (alive.sum(1) < 2), "a running game has fewer than two monkeys")
    rep.add("pos", live & (alive & (pos >= tiger[:, None])).any(1), "a monkey in the game is not in front of the tiger")
    rep.add("alive", live & (cp >= 0) & ~at("alive", cp), "the seat to decide is out of the game")

    # ---- turn order
    chips = s["chip_order"]
    n_chips = (chips >= 0).sum(1)
    rep.add("chip_order", ((chips[:, :-1] < 0) & (chips[:, 1:] >= 0)).any(1), "a chip after the -1 padding")
    dup = (chips[:, :, None] == chips[:, None, :]) & (chips[:, :, None] >= 0) & ~np.eye(P, dtype=bool)[None]
    rep.add("chip_order", dup.any((1, 2)), "a seat has two chips this round")
    nxt = s["chip_next"]
    rep.add("chip_next", (nxt > n_chips), "past the round's chips")
    last_chip = chips[ar, np.clip(nxt - 1, 0, P - 1)]
    rep.add("active", (nxt <= n_chips) & (last_chip != s["active"]), "not the seat of the chip turned last")

    # ---- the turn
    active = s["active"]
    holder, accepter, mover = s["holder"], s["accepter"], s["mover"]
    seen = state.seen.astype(bool)
    crown = state.crown_play.astype(bool)
    ann = s["announce"]

    def at_seen(seat: np.ndarray) -> np.ndarray:
        return seen[ar, np.clip(seat, 0, P - 1)]

    none = offer < 0
    rep.add("announce", none & (ann >= 0), "an announcement before a card is played")
    rep.add("holder", none & (holder >= 0), "a holder before a card is played")
    rep.add("passes", none & (s["passes"] != 0), "passes before a card is played")
    rep.add("seen", none & seen.any(1), "a seat has seen a card before one is played")
    rep.add("crown_play", none & crown, "a Crown play before a card is played")
    rep.add("accepter", none & (accepter >= 0), "an accepter before a card is played")
    rep.add("revealed", none & (revealed >= 0), "a revealed card before one is played")
    played = offer >= 0
    rep.add("seen", played & ~at_seen(active), "the active player has not seen the card it played")
    rep.add("announce", played & ~crown & (ann < 0), "a face-down play without an announcement")
    rep.add("announce", played & crown & (ann >= 0), "a Crown play with an announcement")
    rep.add("accepter", played & crown & (accepter != active), "a Crown play is taken by the active player")
    rep.add("revealed", (revealed >= 0) & (revealed != offer), "the revealed card is not the card played")
    rep.add("accepter", (revealed >= 0) & (accepter < 0), "a revealed card without an accepter")
    rep.add("accepter", (revealed < 0) & (accepter >= 0), "an accepter of a card not revealed")
    rep.add("holder", (holder >= 0) & ~flight, "a holder of a card not in flight")

    # ---- the pending decision (running games)
    ph = np.where(live, phase, -2)
    rep.add("phase", live & (phase < 0), "a running game has no pending decision")
    rep.add("phase", term & (phase != PH_OVER), "a finished game has a pending decision")
    x = pos[ar, np.clip(mover, 0, P - 1)]
    xs = np.clip(x, 0, _L - 1)
    on_slot = D.IS_SLOT[xs] & (x < _L)
    tile_here = np.where(on_slot, tiles[ar, xs], 0)
    face_here = state.face_up[ar, xs] & on_slot
    a_ = ph == PH_ACTIVE
    rep.add("current_player", a_ & (cp != active), "active phase: the active player decides")
    rep.add("hands", a_ & (at("hands", cp).sum(1) == 0) & (cp >= 0), "active phase: the active player has no card")
    rep.add("offer_card", a_ & (offer >= 0), "active phase: a card is already played")
    resp = (ph == PH_RESPOND) | (ph == PH_RESPOND_SEEN)
    rep.add(
        "holder",
        resp & ((holder != cp) | (holder == active)),
        "respond phase: the holder (not the active player) decides",
    )
    rep.add("offer_card", resp & (~flight | crown), "respond phase: no face-down card in flight")
    rep.add(
        "seen",
        (ph == PH_RESPOND_SEEN) & ~at_seen(cp),
        "respond_seen: the holder has not seen the card",
    )
    rep.add("holder", live & (phase >= 0) & ~resp & (holder >= 0), "a holder outside the respond phases")
    pay = ph == PH_PAY
    debt = s["debt"]
    n_here = at("coconuts", mover)
    rep.add("mover", pay & (cp != mover), "pay phase: the mover decides")
    rep.add("debt", pay & ((debt < 1) | (n_here + 1 <= debt)), "pay phase: a debt of 1-2 below the payer's coconuts")
    rep.add(
        "golden", pay & ((golden != mover) | (n_here < 1)), "pay phase: the payer holds the golden and a normal coconut"
    )
    rep.add("debt", live & (phase >= 0) & ~pay & (debt != 0), "a debt outside the pay phase")
    bowl = ph == PH_BOWL
    rep.add("mover", bowl & (cp != mover), "bowl phase: the mover decides")
    ok_bowl = face_here & (tile_here == D.E_NEAREST_BOWL) & (D.SLOT_ROW[xs] == 2)
    rep.add("tiles", bowl & ~ok_bowl, "bowl phase: the mover is not on a face-up nearest-bowl tile of the middle row")
    pyr = ph == PH_PYRAMID
    pc = s["pyramid_card"]
    rep.add("mover", pyr & (cp != mover), "pyramid phase: the mover decides")
    rep.add(
        "tiles", pyr & ~(face_here & (tile_here == D.E_PYRAMID)), "pyramid phase: the mover is not on a face-up pyramid"
    )
    rep.add("pyramid_card", pyr & ((pc < 0) | (x - (pc + 1) < 0)), "pyramid phase: no number that may go backward")
    rep.add("pyramid_card", live & (phase >= 0) & ~pyr & (pc >= 0), "a pyramid card outside the pyramid phase")
    bon = ph == PH_BONUS
    truthful = (revealed == ann) | (crown & game.crown_bonus)
    rep.add("current_player", bon & (cp != active), "bonus phase: the active player decides")
    rep.add("revealed", bon & ((revealed < 0) | ~truthful), "bonus phase: no truthful revealed card")
    sc = ph == PH_SCALES
    rep.add(
        "current_player", sc & (cp != active) & (cp != accepter), "scales phase: the active player or accepter decides"
    )
    rep.add("treasures", sc & (at("treasures", cp).sum(1) == 0), "scales phase: the decider holds no treasure card")
    rep.add("revealed", sc & (revealed < 0), "scales phase before the card is revealed")
    rows = np.flatnonzero(live & (phase >= 0) & (cp >= 0))
    if rows.size:
        sub = state.take(rows)
        game._refresh(sub, np.arange(rows.size))
        wrong = np.zeros(B, bool)
        wrong[rows] = (sub.legal_action_mask != state.legal_action_mask[rows]).any(1)
        rep.add("legal_action_mask", wrong, "differs from the rules' mask of the pending decision")

    # ---- endings
    rep.add("end_reason", term & (er == 0), "a terminated game has no end reason")
    rep.add("end_reason", ~term & (er != 0), "a game that is not terminated has an end reason")
    win = state.winners_mask.astype(bool)
    n_win = win.sum(1)
    fin = term
    tw = fin & (er == END_TIGER)
    on_tiger = (pos == tiger[:, None]) & win
    rep.add("winners_mask", tw & ((n_win != 1) | ~on_tiger.any(1)), "a tiger win has one winner, on the tiger")
    lm = fin & (er == END_LAST_MONKEY)
    rep.add("alive", lm & (alive.sum(1) != 1), "last_monkey ending with other than one monkey left")
    rep.add("winners_mask", lm & (win != alive).any(1), "the last monkey is the winner")
    nw = fin & (er == END_NO_WINNER)
    rep.add("alive", nw & alive.any(1), "no_winner ending with a monkey left")
    rep.add("winners_mask", nw & win.any(1), "no_winner ending with a winner")
    qt = fin & (er == END_QUITTING_TIME)
    rep.add("hands", qt & (alive & (hand_size > 0)).any(1), "quitting time while a monkey in the game holds a card")
    key = np.where(alive, pos * 1000 + (golden[:, None] == seats[None, :]) * 500 + coco, -1)
    best = alive & (key == key.max(1, keepdims=True))
    rep.add(
        "winners_mask", qt & (best != win).any(1), "not the quitting-time winners (nearest the tiger, golden, coconuts)"
    )
    return rep.out


def redeal_hidden(game: FunkyMonkey, new: FunkyMonkeyState, seat: int, gen: np.random.Generator) -> None:
    """Re-deal in place what ``seat`` cannot see (the kit's
    :meth:`~monkey_envs.core.game.Game.resample_hidden` clones the state and redraws its RNG first).

    Per row, with ``gen``: the movement cards ``seat`` has not seen (the other hands, the draw
    pile, the cards out of play and the card in flight unless ``seat`` saw it) are pooled,
    shuffled and dealt back in the same numbers (each other hand its size, the pile its size in
    a new order, out of play its number, the card in flight); per tile back, its face-down tiles
    and its removed tile are shuffled among those places; the other seats' treasure cards and the
    treasure pile are pooled and dealt back in the same numbers; the legal mask of running rows
    is recomputed for their decider (unchanged where that is ``seat``). Everything public and
    ``seat``'s own cards are kept.

    Args:
        game: the game ``new`` belongs to.
        new: a valid state (``state_violations`` empty), batch ``B``; modified in place.
        seat: the seat whose view is kept, in ``[0, P)``.
        gen: the resampling's generator.
    """
    o = seat
    B, P = new.batch_size, game.num_players
    others = [p for p in range(P) if p != o]
    n_o = len(others)

    # ---- movement cards: one pool of slots per row (-1 = empty), cards move among the filled ones
    H, N = D.HAND_SIZE, D.MAX_CARDS
    flight = (new.offer_card >= 0) & (new.revealed < 0) & ~new.seen[:, o]
    pool = np.concatenate(
        [
            _slots(new.hands[:, others].reshape(B * n_o, _K), H).reshape(B, n_o * H),
            new.draw_pile,
            _slots(new.out_of_play, N),
            np.where(flight, new.offer_card, -1)[:, None],
        ],
        axis=1,
    )
    pool = shuffle_among(pool, pool >= 0, gen)
    new.hands[:, others] = _counts(pool[:, : n_o * H].reshape(B * n_o, H), _K).reshape(B, n_o, _K)
    new.draw_pile[:] = pool[:, n_o * H : n_o * H + N]
    new.out_of_play[:] = _counts(pool[:, n_o * H + N : n_o * H + 2 * N], _K)
    new.offer_card[:] = np.where(flight, pool[:, -1], new.offer_card)

    # ---- tiles: per back, its face-down tiles and its removed tile
    for i, slots in enumerate(_BACK_SLOTS):  # loop over the three backs, not rows
        faces = np.concatenate([new.tiles[:, slots], new.removed_tiles[:, i : i + 1]], axis=1)
        down = np.concatenate([~new.face_up[:, slots], np.ones((B, 1), bool)], axis=1)
        faces = shuffle_among(faces, down, gen)
        new.tiles[:, slots] = faces[:, :-1]
        new.removed_tiles[:, i] = faces[:, -1]

    # ---- treasure cards of the other seats and the treasure pile
    M = D.NUM_TREASURES
    tpool = np.concatenate(
        [_slots(new.treasures[:, others].reshape(B * n_o, _T), M).reshape(B, n_o * M), new.treasure_pile], axis=1
    )
    tpool = shuffle_among(tpool, tpool >= 0, gen)
    new.treasures[:, others] = _counts(tpool[:, : n_o * M].reshape(B * n_o, M), _T).reshape(B, n_o, _T)
    new.treasure_pile[:] = tpool[:, n_o * M :]

    rows = np.flatnonzero(~(new.terminated | new.truncated) & (new.phase >= 0))
    game._refresh(new, rows)


def _slots(counts: np.ndarray, width: int) -> np.ndarray:
    """Counts per kind ``(n, k)`` as ``(n, width) int8`` slots: the kinds in ascending order, then -1."""
    c = counts.astype(np.int64)
    ends = np.cumsum(c, axis=1)  # (n, k)
    j = np.arange(width)
    kind = (j[None, :, None] >= ends[:, None, :]).sum(2)  # kind of slot j (k once past the last card)
    return np.where(j[None, :] < ends[:, -1:], kind, -1).astype(np.int8)


def _counts(slots: np.ndarray, k: int) -> np.ndarray:
    """Slots ``(n, w)`` (kinds, -1 empty) as ``(n, k) int8`` counts per kind."""
    return (slots[:, :, None] == np.arange(k)).sum(1).astype(np.int8)
