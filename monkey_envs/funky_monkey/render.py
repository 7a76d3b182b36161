"""Text picture of a Funky Monkey position (the ``ansi`` / ``human`` render modes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

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
