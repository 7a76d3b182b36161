"""Text picture of a Funky Monkey position (the ``ansi`` / ``human`` render modes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.game import seat_legend
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import BOWL_COCONUT, BOWL_GOLDEN, END_REASONS, PHASE_NAMES

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
    """How to read :func:`render_text` (the :meth:`~monkey_envs.core.game.Game.render_legend` hook)."""
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
