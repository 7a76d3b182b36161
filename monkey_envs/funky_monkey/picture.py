"""Picture of a Funky Monkey position (``render_mode="rgb_array"``, PNG / SVG export; the game's ``View.picture`` hook).

The track as the board lays it out -- three rows whose corners are the offering bowls (row 1:
spaces 0..6 left to right, row 2: 6..12 back across, row 3: 12..18; a snake), the tiger on
its space, jungle tiles face up (their effect) or face down (their back: granite, pebbles,
mosaic), coconuts in the bowls, every surviving monkey in its seat's colour; below it the players
(space, coconuts, golden coconut, cards and treasure cards in hand), the well, the piles, this
turn's offer and the viewer's hand.

Hidden information follows the text picture: face-down tiles show only their back, removed tiles
and the draw order never appear, other hands only as counts, and the card in flight only to a
viewer who has seen it (its player, a Telescope user); ``viewer=None`` shows no hand at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.pictures import INK, MUTED, PAPER, SEAT_COLOURS, SEAT_LETTERS, Picture, tint
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import BOWL_COCONUT, BOWL_GOLDEN, END_REASONS, PHASE_NAMES

if TYPE_CHECKING:
    from monkey_envs.funky_monkey.rules import FunkyMonkey
    from monkey_envs.funky_monkey.state import FunkyMonkeyState

STEP, SIDE = 96, 80  # distance between neighbouring spaces along a row, size of a space
LEFT_X = 28 + SIDE / 2  # centre of the leftmost column
TOP_Y, MID_Y, BOTTOM_Y = 112, 212, 312  # centres of rows 3, 2 and 1
WIDTH = 2 * 28 + 6 * STEP + SIDE
PANEL_Y = BOTTOM_Y + SIDE / 2 + 22
ROW_H = 34
COCONUT, GOLD = "#7b4a21", "#e8b923"
BACKS = {"granite": "#9ba3ab", "pebbles": "#cdb78e", "mosaic": "#78afc0"}
TILE_LABELS = {
    "coconut": "+1 coconut",
    "golden": "golden",
    "chest": "chest",
    "pyramid": "pyramid",
    "nearest_bowl": "to bowl",
    "minus1": "−1",
    "minus2": "−2",
}
TREASURE_LABELS = ("Scales", "Telescope", "Crown")


def space_centre(x: int) -> tuple[float, float]:
    """Centre of track space ``x`` (0..18) on the canvas: a snake of three rows whose turns are the bowls.

    Row 1 (bottom): spaces 0..5 left to right, bowl 1 (space 6) at the right turn; row 2: spaces
    7..11 right to left, bowl 2 (space 12) at the left turn; row 3 (top): spaces 13..18 left to right.
    """
    if x < 6:
        return LEFT_X + x * STEP, BOTTOM_Y
    if x == 6:
        return LEFT_X + 6 * STEP, (BOTTOM_Y + MID_Y) / 2
    if x < 12:
        return LEFT_X + (12 - x) * STEP, MID_Y
    if x == 12:
        return LEFT_X, (MID_Y + TOP_Y) / 2
    return LEFT_X + (x - 12) * STEP, TOP_Y


def height(num_players: int) -> int:
    """Canvas height for ``num_players`` seats (one row per seat in the players' panel)."""
    return int(PANEL_Y + max(num_players * ROW_H + 30, 250) + 16)


def draw(game: FunkyMonkey, s: FunkyMonkeyState, row: int = 0, viewer: int | None = None) -> Picture:
    """The picture of env ``row`` as seat ``viewer`` sees it (``None``: public). One size per player count.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat.
    """
    row, viewer = game.check_render_args(s, row, viewer)
    P = game.num_players
    pic = Picture(WIDTH, height(P), PAPER, f"Funky Monkey ({P} players, {game.tile_visibility} tiles)")
    pic.text(28, 26, "Funky Monkey", 22, INK, "l", bold=True)
    pic.text(
        226, 27, f"{P} players · {game.tile_visibility} tiles · round {int(s.round[row])}/{D.NUM_ROUNDS}", 14, MUTED
    )
    _track(pic, game, s, row)
    _players(pic, game, s, row)
    _table(pic, game, s, row, viewer)
    return pic


# ----------------------------------------------------------------------------- the track
def _track(pic: Picture, game: FunkyMonkey, s: FunkyMonkeyState, row: int) -> None:
    pic.line([space_centre(x) for x in range(D.TRACK_LENGTH)], "#6b8f3a", 14)
    tiger = int(s.tiger[row])
    for x in range(D.TRACK_LENGTH):
        cx, cy = space_centre(x)
        _space(pic, s, row, x, cx, cy)
    cx, cy = space_centre(tiger)
    _tiger(pic, cx, cy)
    here: dict[int, list[int]] = {}
    for p in range(game.num_players):
        if s.alive[row, p]:
            here.setdefault(int(s.pos[row, p]), []).append(p)
    for x, seats in here.items():
        cx, cy = space_centre(min(x, D.TRACK_LENGTH - 1))
        n = len(seats)
        for j, p in enumerate(seats):
            col, rw = j % 3, j // 3
            per_row = min(n - 3 * rw, 3)
            mx = cx + (col - (per_row - 1) / 2) * 24
            pic.monkey_head(mx, cy + 16 - 22 * rw + (0 if n <= 3 else 6), 10, SEAT_COLOURS[p])


def _space(pic: Picture, s: FunkyMonkeyState, row: int, x: int, cx: float, cy: float) -> None:
    x0, y0 = cx - SIDE / 2, cy - SIDE / 2
    label, sub = f"{x}", ""
    if D.IS_SLOT[x]:
        back = D.TILE_BACKS[int(D.SLOT_BACK[x])]
        if s.face_up[row, x]:
            name = D.EFFECT_NAMES[int(s.tiles[row, x])]
            pic.rect(x0, y0, SIDE, SIDE, "#fffdf5", tint(BACKS[back], 0.2, INK), 3, 9)
            _tile_icon(pic, name, cx, cy - 14)
            sub = TILE_LABELS.get(name, name)
        else:
            pic.rect(x0, y0, SIDE, SIDE, BACKS[back], tint(BACKS[back], 0.35, INK), 3, 9)
            pic.text(cx, cy - 12, "?", 22, "#ffffff", "m", bold=True)
            sub = back
    elif x in D.BOWL_SPACES:
        b = int(s.bowls[row, D.BOWL_SPACES.index(x)])
        pic.rect(x0, y0, SIDE, SIDE, "#efe3c4", "#8c6d3f", 2, 9)
        pic.polygon([(cx - 22, cy - 18), (cx + 22, cy - 18), (cx + 14, cy - 4), (cx - 14, cy - 4)], "#a0522d", INK, 1.5)
        if b == BOWL_COCONUT:
            pic.circle(cx, cy - 22, 8, COCONUT, INK)
        elif b == BOWL_GOLDEN:
            pic.circle(cx, cy - 22, 8, GOLD, INK)
        sub = f"bowl {D.BOWL_SPACES.index(x) + 1}"
    elif x == D.CHEST_SPACE:
        pic.rect(x0, y0, SIDE, SIDE, "#efe3c4", "#8c6d3f", 2, 9)
        _tile_icon(pic, "chest", cx, cy - 14)
        sub = "chest"
    elif x in D.TIGER_SPACES:
        pic.rect(x0, y0, SIDE, SIDE, "#fbd9a8", "#c46a1b", 2, 9)
        sub = ("2+3", "4+5", "6+7")[D.TIGER_SPACES.index(x)]
    else:  # the start spaces
        pic.rect(x0, y0, SIDE, SIDE, "#dcebc4", "#6b8f3a", 2, 9)
        sub = "rear start" if x == D.REAR_START else "front start"
    pic.text(x0 + 6, y0 + 9, label, 10, MUTED)
    pic.text(cx, y0 + SIDE - 10, sub, 10.5, INK, "m")


def _tile_icon(pic: Picture, name: str, cx: float, cy: float) -> None:
    if name == "coconut":
        pic.circle(cx, cy, 10, COCONUT, INK)
    elif name == "golden":
        pic.circle(cx, cy, 10, GOLD, INK)
    elif name == "chest":
        pic.rect(cx - 14, cy - 9, 28, 19, "#9c6b30", INK, 1.5, 3)
        pic.rect(cx - 3, cy - 3, 6, 6, GOLD, INK, 1)
    elif name == "pyramid":
        for k, w in enumerate((30, 20, 10)):
            pic.rect(cx - w / 2, cy + 6 - 7 * k, w, 7, "#c9a46a", INK, 1)
    elif name == "nearest_bowl":
        pic.polygon([(cx - 14, cy - 6), (cx + 14, cy - 6), (cx + 9, cy + 5), (cx - 9, cy + 5)], "#a0522d", INK, 1.5)
        pic.line([(cx - 16, cy - 13), (cx + 12, cy - 13)], INK, 2)
        pic.polygon([(cx + 12, cy - 17), (cx + 18, cy - 13), (cx + 12, cy - 9)], INK, None)
    elif name in ("minus1", "minus2"):
        pic.text(cx, cy, "−1" if name == "minus1" else "−2", 20, "#a0322a", "m", bold=True)
        pic.circle(cx + 19, cy - 1, 6, COCONUT, INK)


def _tiger(pic: Picture, cx: float, cy: float) -> None:
    """The tiger: an orange head with black stripes, over the top of its space."""
    y = cy - 14
    pic.circle(cx - 15, y - 13, 6, "#f08a24", INK, 1.5)
    pic.circle(cx + 15, y - 13, 6, "#f08a24", INK, 1.5)
    pic.circle(cx, y, 19, "#f08a24", INK, 2)
    for dx in (-9, 0, 9):
        pic.line([(cx + dx, y - 19), (cx + dx * 0.8, y - 11)], INK, 2)
    pic.ellipse(cx, y + 8, 9, 6, "#fff4e0", None)
    pic.circle(cx - 7, y - 3, 2.5, INK, None)
    pic.circle(cx + 7, y - 3, 2.5, INK, None)
    pic.text(cx, y + 28, "TIGER", 9, "#8a3c00", "m", bold=True)


# ----------------------------------------------------------------------------- players and table
def _players(pic: Picture, game: FunkyMonkey, s: FunkyMonkeyState, row: int) -> None:
    x0, y = 28, PANEL_Y
    pic.text(x0, y, "Players", 15, INK, "l", bold=True)
    over = bool(s.terminated[row])
    cp = -1 if over else int(s.current_player[row])
    active, golden = int(s.active[row]), int(s.golden[row])
    for p in range(game.num_players):
        top = y + 14 + ROW_H * p
        alive = bool(s.alive[row, p])
        if p == cp:
            pic.rect(x0 - 6, top, 396, ROW_H - 2, "#fff1bf", None, 0, 7)
        if p == active and not over:
            pic.polygon([(x0 - 18, top + 8), (x0 - 8, top + 16), (x0 - 18, top + 24)], INK, None)
        pic.monkey_head(x0 + 12, top + 16, 11, SEAT_COLOURS[p] if alive else "#b8b8b8")
        name = f"{SEAT_LETTERS[p]} player_{p}" + ("" if alive else " (out)")
        if over and s.winners_mask[row, p]:
            name += " — winner"
        pic.text(x0 + 30, top + 16, name, 13, INK if alive else MUTED, "l", bold=True)
        pic.text(x0 + 176, top + 16, f"space {int(s.pos[row, p])}", 12, INK)
        pic.circle(x0 + 250, top + 16, 7, COCONUT, INK)
        pic.text(x0 + 261, top + 16, int(s.coconuts[row, p]), 12, INK, "l", bold=True)
        if golden == p:
            pic.circle(x0 + 286, top + 16, 7, GOLD, INK)
        pic.card(x0 + 302, top + 5, 16, 22, face_down=True, back="#3b6fb0")
        pic.text(x0 + 322, top + 16, int(s.hands[row, p].sum()), 12, INK, "l", bold=True)
        pic.card(x0 + 344, top + 5, 16, 22, face_down=True, back="#b08a2e")
        pic.text(x0 + 364, top + 16, int(s.treasures[row, p].sum()), 12, INK, "l", bold=True)


def _table(pic: Picture, game: FunkyMonkey, s: FunkyMonkeyState, row: int, viewer: int | None) -> None:
    x0, y = 452, PANEL_Y
    g = int(s.golden[row])
    where = "well" if g < 0 and not (s.bowls[row] == BOWL_GOLDEN).any() else "a bowl" if g < 0 else SEAT_LETTERS[g]
    pic.text(x0, y, "Table", 15, INK, "l", bold=True)
    pic.circle(x0 + 8, y + 24, 7, COCONUT, INK)
    pic.text(x0 + 20, y + 24, f"well {int(s.supply[row])}", 12, INK)
    pic.circle(x0 + 92, y + 24, 7, GOLD, INK)
    pic.text(x0 + 104, y + 24, f"golden: {where}", 12, INK)
    pic.text(x0, y + 44, f"draw pile {int(s.draw_size[row])} · treasures left {int(s.treasure_size[row])}", 12, INK)
    disc = " ".join(f"{D.CARD_NAMES[k]}×{int(n)}" for k, n in enumerate(s.discard[row]) if n)
    pic.text(x0, y + 62, f"revealed: {disc or '–'}", 12, INK)
    y += 86
    if int(s.offer_card[row]) >= 0:
        a = SEAT_LETTERS[int(s.active[row])]
        if s.crown_play[row]:
            text, shown, face = f"{a} plays with a Crown", D.CARD_NAMES[int(s.offer_card[row])], True
        else:
            text = f"{a} announced {D.CARD_NAMES[int(s.announce[row])]}"
            if int(s.revealed[row]) >= 0:
                acc = SEAT_LETTERS[int(s.accepter[row])]
                truth = "truth" if s.revealed[row] == s.announce[row] else "bluff"
                text += f"; {acc} revealed it ({truth})"
                shown, face = D.CARD_NAMES[int(s.revealed[row])], True
            else:
                text += f"; held by {SEAT_LETTERS[int(s.holder[row])]}, {int(s.passes[row])} pass(es)"
                face = viewer is not None and bool(s.seen[row, viewer])
                shown = D.CARD_NAMES[int(s.offer_card[row])] if face else ""
        pic.text(x0, y, "Offer", 13, INK, "l", bold=True)
        pic.card(x0, y + 12, 30, 42, _card_label(shown), "#ffffff", INK, 15, face_down=not face, back="#3b6fb0")
        pic.text(x0 + 40, y + 33, text, 11.5, INK)
    else:
        pic.text(x0, y, "Offer: none yet this turn", 13, MUTED)
    y += 66
    if viewer is None:
        pic.text(x0, y, "Hands are hidden (public view)", 13, MUTED)
    else:
        pic.text(x0, y, f"Hand of {SEAT_LETTERS[viewer]}", 13, INK, "l", bold=True)
        j = 0
        for k in range(D.NUM_CARD_KINDS):
            for _ in range(int(s.hands[row, viewer, k])):
                pic.card(
                    x0 + 34 * j, y + 12, 30, 42, _card_label(D.CARD_NAMES[k]), tint(SEAT_COLOURS[viewer], 0.8), INK, 15
                )
                j += 1
        for t in range(3):
            for _ in range(int(s.treasures[row, viewer, t])):
                pic.card(x0 + 34 * j, y + 12, 30, 42, TREASURE_LABELS[t][0], "#fff4d0", "#8a6410", 15)
                j += 1
        if j == 0:
            pic.text(x0, y + 33, "(no cards)", 12, MUTED)
    y += 70
    if s.terminated[row]:
        winners = [SEAT_LETTERS[p] for p in np.flatnonzero(s.winners_mask[row])]
        status = f"game over ({END_REASONS[int(s.end_reason[row])]}): winner {' '.join(winners) or 'none'}"
    else:
        cp = int(s.current_player[row])
        status = f"to decide: {SEAT_LETTERS[cp]} ({PHASE_NAMES[int(s.phase[row])].replace('_', ' ')})"
    pic.text(x0, y, status, 14, INK, "l", bold=True)


def _card_label(name: str) -> str:
    return "M" if name == "MiNuss" else name
