"""Text picture of a Funky Monkey position (the ``ansi`` / ``human`` render modes) and the names of its actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.game import seat_legend
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.actions import A_ACCEPT, A_CROWN, A_PASS, A_SCALES_TARGET, FIXED_NAMES
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_GOLDEN,
    END_REASONS,
    PH_ACTIVE,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PHASE_NAMES,
)

if TYPE_CHECKING:
    from monkey_envs.funky_monkey.rules import FunkyMonkey
    from monkey_envs.funky_monkey.state import FunkyMonkeyState

SEAT_MARKS = "ABCDEFG"


def _space_label(s: FunkyMonkeyState, row: int, x: int) -> str:
    if D.IS_SLOT[x]:
        face = D.EFFECT_NAMES[int(s.tiles[row, x])] if s.face_up[row, x] else "?"
        return f"tile {face}"
    if x in D.BOWL_SPACES:
        b = int(s.bowls[row, D.BOWL_SPACES.index(x)])
        return f"bowl {D.BOWL_SPACES.index(x) + 1} " + (
            "[o]" if b == BOWL_COCONUT else "[G]" if b == BOWL_GOLDEN else "[ ]"
        )
    return D.SPACE_NAMES[x]


def render_text(game: FunkyMonkey, s: FunkyMonkeyState, row: int = 0, viewer: int | None = None) -> str:
    """The track (one line per space: tile faces, bowls, monkeys, tiger), the players and the offer.

    Face-down tiles show ``?``; ``viewer`` (a seat) adds that seat's hand, treasure cards and the
    card in flight if that seat knows it. ``None`` shows no hidden information.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat (no negative indices).
    """
    row, viewer = game.check_render_args(s, row, viewer)
    P = game.num_players
    lines = [
        f"Funky Monkey ({P} players, {game.tile_visibility} tiles) -- round {int(s.round[row])}, "
        f"active {SEAT_MARKS[int(s.active[row])]}"
    ]
    tiger = int(s.tiger[row])
    for x in range(D.TRACK_LENGTH - 1, -1, -1):
        monkeys = " ".join(SEAT_MARKS[p] for p in range(P) if s.alive[row, p] and int(s.pos[row, p]) == x)
        tig = "TIGER " if x == tiger else ""
        lines.append(f"  {x:2d} {_space_label(s, row, x):<20s} {tig}{monkeys}")
    g = int(s.golden[row])
    for p in range(P):
        status = "" if s.alive[row, p] else "  (out)"
        gold = " +golden" if g == p else ""
        lines.append(
            f"  {SEAT_MARKS[p]} (player_{p}): space {int(s.pos[row, p]):2d}  coconuts {int(s.coconuts[row, p])}{gold}"
            f"  cards {int(s.hands[row, p].sum())}  treasures {int(s.treasures[row, p].sum())}{status}"
        )
    where = "well" if g < 0 and not (s.bowls[row] == BOWL_GOLDEN).any() else "bowl" if g < 0 else SEAT_MARKS[g]
    disc = " ".join(f"{D.CARD_NAMES[k]}x{int(n)}" for k, n in enumerate(s.discard[row]) if n)
    lines.append(
        f"  well {int(s.supply[row])} coconuts, golden coconut: {where}; draw pile {int(s.draw_size[row])}; "
        f"revealed: {disc or '-'}"
    )
    if int(s.offer_card[row]) >= 0:
        a = SEAT_MARKS[int(s.active[row])]
        if s.crown_play[row]:
            lines.append(f"  offer: {a} played {D.CARD_NAMES[int(s.offer_card[row])]} face up with a Crown")
        else:
            ann = D.CARD_NAMES[int(s.announce[row])]
            text = f"  offer: {a} announced {ann}"
            if int(s.revealed[row]) >= 0:
                acc = SEAT_MARKS[int(s.accepter[row])]
                truth = "truth" if s.revealed[row] == s.announce[row] else "bluff"
                text += f"; {acc} revealed {D.CARD_NAMES[int(s.revealed[row])]} ({truth})"
            else:
                text += f"; held by {SEAT_MARKS[int(s.holder[row])]} after {int(s.passes[row])} pass(es)"
                if viewer is not None and s.seen[row, viewer]:
                    text += f" [card: {D.CARD_NAMES[int(s.offer_card[row])]}]"
            lines.append(text)
    if viewer is not None:
        hand = [D.CARD_NAMES[k] for k in range(D.NUM_CARD_KINDS) for _ in range(int(s.hands[row, viewer, k]))]
        tre = [D.TREASURE_NAMES[t] for t in range(3) for _ in range(int(s.treasures[row, viewer, t]))]
        lines.append(f"  hand of {SEAT_MARKS[viewer]}: {hand}  treasures: {tre}")
    if s.terminated[row]:
        winners = [SEAT_MARKS[p] for p in np.flatnonzero(s.winners_mask[row])]
        lines.append(f"  game over ({END_REASONS[int(s.end_reason[row])]}): winner(s) {winners or 'none'}")
    else:
        cp = int(s.current_player[row])
        lines.append(f"  to decide: {SEAT_MARKS[cp]} ({PHASE_NAMES[int(s.phase[row])]})")
    return "\n".join(lines) + "\n"


#: What each jungle-tile face does to the monkey that ends its move on it (the rulebook's "Jungle Tiles").
TILE_EFFECTS = {
    "coconut": "take 1 coconut from the well",
    "golden": "take the golden coconut, from wherever it is",
    "chest": "draw the top treasure card",
    "pyramid": "monkey pyramid: reveal the top movement card and move by it, forward or backward",
    "nearest_bowl": "jump to the nearest offering bowl (middle row: your choice), then the bowl acts",
    "minus1": "put 1 own coconut into the well",
    "minus2": "put 2 own coconuts into the well",
}


def legend_text(game: FunkyMonkey) -> str:
    """How to read :func:`render_text` (the ``legend`` hook of the game's ``View``)."""
    faces = "; ".join(f"{name} = {TILE_EFFECTS[name]}" for name in D.TILE_NAMES)
    return "\n".join(
        [
            seat_legend(game.num_players),
            f"first line: players, which tiles started face up ({', '.join(D.VISIBILITY)}), the round "
            f"(1..{D.NUM_ROUNDS}) and the active seat (who plays a card this turn)",
            "track: one line per space, the tiger end on top: its number (0 = rear start ... "
            f"{D.TRACK_LENGTH - 1}), what lies there, TIGER if the tiger stands there, the letters of the "
            "monkeys on it",
            "  'tile ?' = a jungle tile face down; 'tile <face>' = face up: " + faces,
            "  'bowl N [o]' = offering bowl N holding a coconut (land there: take it), '[G]' holding the "
            "golden coconut, '[ ]' empty (land there: put one of yours in)",
            "  chest = the treasure chest (draw a treasure card); rear start (landed on in play: lose 1 "
            "coconut); front start (landed on in play: take the golden coconut); 'tiger space 2+3' "
            "etc. = where the tiger starts for that many players (empty, in front of the tiger: lose 1 coconut)",
            "X (player_N) lines: space = where the monkey stands; coconuts = its normal coconuts, "
            "'+golden' = it holds the golden coconut; cards = movement cards in hand; treasures = "
            "treasure cards held; '(out)' = eliminated",
            "well N coconuts = the supply; golden coconut: where it is (well, a bowl or a seat); draw pile = "
            "movement cards left; revealed: KxN = N revealed movement cards of kind K (1, 2, 3, 4, MiNuss)",
            "offer: the card in play -- 'A announced 3' (face down, maybe a bluff); 'held by C after 1 "
            "pass(es)' = C decides on it now; '[card: 1]' = the real card, shown only to a seat that has "
            "seen it (its player, a Telescope); 'C revealed 2 (truth|bluff)' = accepted and turned up; "
            "'played 2 face up with a Crown' = a Crown play onto the own monkey",
            "hand of X: its movement cards and treasure cards (" + ", ".join(D.TREASURE_NAMES) + "; shown to X only)",
            "to decide: the seat asked now and the decision (phase: active = play a card, respond / "
            "respond_seen = accept or pass, pay, bowl, pyramid, bonus, scales); game over (reason): "
            f"winner(s) [...]: why the game ended ({', '.join(END_REASONS[1:])}) and who won",
        ]
    )


def _golden_place(s: FunkyMonkeyState, row: int) -> str:
    g = int(s.golden[row])
    if g >= 0:
        return SEAT_MARKS[g]
    held = np.flatnonzero(s.bowls[row] == BOWL_GOLDEN)
    return f"bowl {int(held[0]) + 1}" if held.size else "well"


def _next_alive_left(s: FunkyMonkeyState, row: int, seat: int, num_players: int) -> int:
    for k in range(1, num_players + 1):
        p = (seat + k) % num_players
        if s.alive[row, p]:
            return p
    return seat


def outcome_text(
    game: FunkyMonkey,
    before: FunkyMonkeyState,
    after: FunkyMonkeyState,
    row: int,
    action: int,
    viewer: int | None,
) -> str:
    """What ``viewer`` learns of what ``action`` did (the
    ``action_outcome`` hook of the game's ``View``); ``""`` when nothing public changed.

    A face-down card that is accepted (or comes back to its player, who must take it) is turned
    up for everybody: the text says who took it, what was announced, what it really was (the
    truth or a bluff) and what it does (moves ``n`` spaces, or MiNuss: costs a coconut). Then,
    for every decision, the public changes it brought about: monkeys moved (their spaces), tiles
    turned up, coconuts won and lost, the golden coconut's new place, bowls, the tiger, seats
    eliminated, treasure cards drawn (the kind named to its holder only). A pass that does not
    come back, and the face-down play itself, change nothing public: ``""``.
    """

    P = game.num_players
    a = int(action)
    b, r = before, row
    head = ""
    phase = int(b.phase[r])
    if phase in (PH_RESPOND, PH_RESPOND_SEEN) and int(b.offer_card[r]) >= 0:
        card, ann = int(b.offer_card[r]), int(b.announce[r])
        active, holder = int(b.active[r]), int(b.holder[r])
        taker = -1
        if a == A_ACCEPT:
            taker = holder
            verb = f"{SEAT_MARKS[taker]} accepted the card"
        elif a == A_PASS and _next_alive_left(b, r, holder, P) == active:
            taker = active
            verb = f"the card came back to {SEAT_MARKS[taker]}, who must take it"
        if taker >= 0:
            truth = "the truth" if card == ann else "a bluff"
            steps = int(D.CARD_STEPS[card])
            does = f"moves {SEAT_MARKS[taker]} {steps} space{'s' if steps != 1 else ''}" if steps else "costs a coconut"
            head = f"{verb}: announced {D.CARD_NAMES[ann]}, it was {D.CARD_NAMES[card]} ({truth}) -- {does}"
    elif phase == PH_ACTIVE and A_CROWN <= a < A_ACCEPT:
        card = a - A_CROWN
        steps = int(D.CARD_STEPS[card])
        mover = SEAT_MARKS[int(b.active[r])]
        does = f"moves {mover} {steps} space{'s' if steps != 1 else ''}" if steps else "costs a coconut"
        head = f"{mover} played {D.CARD_NAMES[card]} face up with a Crown -- {does}"
    changes = _public_changes(before, after, row, viewer, P)
    if head:
        return head + (": " + "; ".join(changes) if changes else "")
    return "; ".join(changes)


def _public_changes(b: FunkyMonkeyState, a: FunkyMonkeyState, r: int, viewer: int | None, P: int) -> list[str]:
    """The public differences of row ``r`` between ``b`` and ``a`` (a drawn treasure named to its holder only)."""
    out = []
    flipped = [x for x in range(D.TRACK_LENGTH) if D.IS_SLOT[x] and a.face_up[r, x] and not b.face_up[r, x]]
    out += [f"tile at space {x} turned up: {D.EFFECT_NAMES[int(a.tiles[r, x])]}" for x in flipped]
    for p in range(P):
        seat = []
        if int(a.pos[r, p]) != int(b.pos[r, p]):
            seat.append(f"space {int(b.pos[r, p])} -> {int(a.pos[r, p])}")
        if int(a.coconuts[r, p]) != int(b.coconuts[r, p]):
            seat.append(f"coconuts {int(b.coconuts[r, p])} -> {int(a.coconuts[r, p])}")
        drawn = a.treasures[r, p].astype(int) - b.treasures[r, p].astype(int)
        for t in np.flatnonzero(drawn > 0):
            what = D.TREASURE_NAMES[t] if viewer is not None and int(viewer) == p else "treasure card"
            seat += [f"drew a {what}"] * int(drawn[t])
        if b.alive[r, p] and not a.alive[r, p]:
            seat.append("is out")
        if seat:
            out.append(f"{SEAT_MARKS[p]}: {', '.join(seat)}")
    if _golden_place(a, r) != _golden_place(b, r):
        out.append(f"golden coconut: {_golden_place(b, r)} -> {_golden_place(a, r)}")
    marks = {BOWL_COCONUT: "[o]", BOWL_GOLDEN: "[G]"}
    for i in range(len(D.BOWL_SPACES)):
        if int(a.bowls[r, i]) != int(b.bowls[r, i]):
            out.append(
                f"bowl {i + 1}: {marks.get(int(b.bowls[r, i]), '[ ]')} -> {marks.get(int(a.bowls[r, i]), '[ ]')}"
            )
    if int(a.tiger[r]) != int(b.tiger[r]):
        out.append(f"tiger: space {int(b.tiger[r])} -> {int(a.tiger[r])}")
    return out


def seen_text(game: FunkyMonkey, state: FunkyMonkeyState, row: int, action: int, viewer: int | None) -> str:
    """What ``viewer`` learns of a move: a face-down card shows only its announcement to the
    other seats; every other move is public (``action_name``)."""
    a = int(action)
    mover = int(state.current_player[row])
    if a < A_CROWN and (viewer is None or int(viewer) != mover):
        return f"play a card face down, announce {D.CARD_NAMES[a % 5]}"
    return game.action_name(state, row, a)


def action_text(game: FunkyMonkey, state: FunkyMonkeyState, row: int, action: int) -> str:
    """Readable meaning of ``action`` (``view.action_name``; independent of the row's phase).

    Only a Scales target reads the row: its seat is counted from ``state.current_player[row]``.
    """
    a = int(action)
    if a < A_CROWN:
        return f"play {D.CARD_NAMES[a // 5]} face down, announce {D.CARD_NAMES[a % 5]}"
    if a < A_ACCEPT:
        return f"Crown: play {D.CARD_NAMES[a - A_CROWN]} face up on own monkey"
    if a in FIXED_NAMES:
        return FIXED_NAMES[a]
    cp = max(int(state.current_player[row]), 0)
    return f"Scales with player_{(cp + a - A_SCALES_TARGET + 1) % game.num_players}"
