"""Picture of a Monki position (``render_mode="rgb_array"``, PNG / SVG export; the game's ``View.picture`` hook).

The grid of the layout with its four 3x3 temple boards (holes left blank), each pot stack as its
top token -- face down it shows only its pot colour (green or blue), flipped this turn its fruit --
with the stack's height in pips, the round statue boards at their corners with the tokens on them,
both Monkis; beside it the two player boards (row 1: the 8 fruits by pot colour, row 2: the 4
golden fruits) and each player's 4 rubies (red: usable, grey: used until the next skip).

Nothing in Monki is hidden from one seat only, so ``viewer`` changes nothing (as in the text
picture); the fruit under a face-down token and the order within a stack are never drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.pictures import INK, MUTED, PAPER, SEAT_COLOURS, SEAT_LETTERS, Picture, tint
from monkey_envs.monki import data as D
from monkey_envs.monki.state import END_REASONS, PHASES

if TYPE_CHECKING:
    from monkey_envs.monki.rules import Monki
    from monkey_envs.monki.state import MonkiState

CELL = 60
MARGIN = 60  # room around the grid for the statue boards
GRID_X, GRID_Y = 20 + MARGIN, 48 + MARGIN
PANEL_W = 330
POT_COLOURS = ("#3f9142", "#2f6db5")  # green, blue
FRUIT_COLOURS = ("#f4d03f", "#8e44ad", "#e67e22", "#c0392b")  # banana, fig, pineapple, grapes
FRUIT_LETTERS = "BFPG"
GOLD = "#e8b923"
BOARD_FILLS = ("#eadfc4", "#dde8c9", "#d6e2ea", "#eddad2")
STATUE_R = 34
#: Outward direction of each statue corner (rotation 0 top left .. 3 bottom left).
_CORNER_DIR = ((-1, -1), (1, -1), (1, 1), (-1, 1))


def size(game: Monki) -> tuple[int, int]:
    """``(width, height)`` of the canvas for ``game``'s layout (one size for all its positions)."""
    L = game.layout
    w = GRID_X + L.cols * CELL + MARGIN + 12 + PANEL_W
    h = max(GRID_Y + L.rows * CELL + MARGIN, 48 + 2 * 170 + 40) + 16
    return w, h


def draw(game: Monki, s: MonkiState, row: int = 0, viewer: int | None = None) -> Picture:
    """The picture of env ``row`` (every seat sees the same; ``viewer`` is checked, then unused).

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat.
    """
    row, viewer = game.check_render_args(s, row, viewer)
    L = game.layout
    w, h = size(game)
    pic = Picture(w, h, PAPER, f"Monki (layout {L.name or 'custom'})")
    phase = int(s.phase[row])
    pic.text(20, 24, "Monki", 22, INK, "l", bold=True)
    pic.text(
        104,
        25,
        f"layout {L.name or 'custom'} · turn {int(s.turns[row])}/{game.turn_cap} · {PHASES[phase] if 0 <= phase < 4 else '?'}",
        14,
        MUTED,
    )
    _grid(pic, game, s, row)
    _statues(pic, game, s, row)
    _monkis(pic, game, s, row)
    _player_boards(pic, game, s, row, GRID_X + L.cols * CELL + MARGIN + 12)
    return pic


def token(pic: Picture, cx: float, cy: float, r: float, t: int, face_up: bool = True) -> None:
    """Token ``t`` (an id 0..39): face down its pot colour; face up its fruit (golden: on gold) ringed in its pot colour."""
    pot = POT_COLOURS[int(D.TOKEN_COLOUR[t])]
    if not face_up:
        pic.circle(cx, cy, r, pot, INK, 1.2)
        pic.circle(cx, cy, r * 0.55, tint(pot, 0.35), None)
        return
    fruit = int(D.TOKEN_FRUIT[t])
    golden = bool(D.TOKEN_GOLDEN[t])
    pic.circle(cx, cy, r, pot, INK, 1.2)
    pic.circle(cx, cy, r * 0.72, GOLD if golden else FRUIT_COLOURS[fruit], None)
    letter_colour = tint(FRUIT_COLOURS[fruit], 0.45, INK) if golden else INK
    pic.text(cx, cy, FRUIT_LETTERS[fruit], r * 0.95, letter_colour, "m", bold=True)


def _cell_xy(L: D.Layout, cell: int) -> tuple[float, float]:
    r, c = divmod(int(cell), L.cols)
    return GRID_X + c * CELL, GRID_Y + r * CELL


def _grid(pic: Picture, game: Monki, s: MonkiState, row: int) -> None:
    L = game.layout
    heights = game.heights(s.stacks[row : row + 1])[0]
    for top, left, _rot in L.boards:  # each temple board under its cells
        pic.rect(GRID_X + left * CELL - 3, GRID_Y + top * CELL - 3, 3 * CELL + 6, 3 * CELL + 6, "#8c7a5b", INK, 1.5, 8)
    for cell in range(L.num_cells):
        b = int(L.cell_board[cell])
        if b < 0:
            continue
        x, y = _cell_xy(L, cell)
        pic.rect(x + 2, y + 2, CELL - 4, CELL - 4, BOARD_FILLS[b], "#a08f6c", 1, 5)
        st = int(L.cell_stack[cell])
        if st < 0:
            continue
        cx, cy = x + CELL / 2, y + CELL / 2 - 4
        n = int(heights[st])
        if n == 0:
            pic.circle(cx, cy, 19, None, "#a08f6c", 1.5)
        else:
            token(pic, cx, cy, 19, int(s.stacks[row, st, n - 1]), bool(s.face_up[row, st]))
        for k in range(D.STACK_DEPTH):  # pips: the stack's height
            pic.circle(cx - 10 + 10 * k, y + CELL - 9, 3.2, INK if k < n else None, INK if k < n else "#b7a98a", 1)


def _statues(pic: Picture, game: Monki, s: MonkiState, row: int) -> None:
    L = game.layout
    for b in range(D.NUM_BOARDS):
        rot = L.boards[b][2]
        x, y = _cell_xy(L, int(L.statue_corner[b]))
        dx, dy = _CORNER_DIR[rot]
        vx, vy = x + (CELL if dx > 0 else 0), y + (CELL if dy > 0 else 0)  # the board's outer corner
        cx, cy = vx + dx * STATUE_R * 0.72, vy + dy * STATUE_R * 0.72
        pic.circle(cx, cy, STATUE_R, "#d8d2c4", INK, 1.5)
        pic.circle(cx, cy, STATUE_R - 5, None, "#a39a86", 1)
        toks = np.flatnonzero(s.statue[row] == b).tolist()
        shown = toks if len(toks) <= 9 else toks[:8]
        rows = (len(shown) + 2) // 3
        for j, t in enumerate(shown):
            r_, c_ = divmod(j, 3)
            per = min(len(shown) - 3 * r_, 3)
            token(pic, cx + (c_ - (per - 1) / 2) * 19, cy + (r_ - (rows - 1) / 2) * 19, 9, t)
        if len(toks) > 9:
            pic.text(cx + 19, cy + 19, f"+{len(toks) - 8}", 11, INK, "m", bold=True)
        if not toks:
            pic.text(cx, cy, "statue", 9, MUTED, "m")


def _monkis(pic: Picture, game: Monki, s: MonkiState, row: int) -> None:
    for p in range(2):
        cell = int(s.pos[row, p])
        if cell >= 0:
            x, y = _cell_xy(game.layout, cell)
            pic.monkey_head(x + CELL / 2, y + CELL / 2, 17, SEAT_COLOURS[p])
            pic.text(x + CELL / 2, y + CELL / 2 + 8, SEAT_LETTERS[p], 10, INK, "m", bold=True)


def _player_boards(pic: Picture, game: Monki, s: MonkiState, row: int, x0: float) -> None:
    over = bool(s.terminated[row])
    cp = -1 if over else int(s.current_player[row])
    slots = np.full((2, D.NUM_SLOTS), -1)
    for t in np.flatnonzero(s.owner[row] >= 0).tolist():
        slots[int(s.owner[row, t]), int(D.TOKEN_SLOT[t])] = t
    for p in range(2):
        top = 56 + 170 * p
        if p == cp:
            pic.rect(x0 - 8, top - 6, PANEL_W - 6, 160, "#fff1bf", None, 0, 8)
        pic.monkey_head(x0 + 14, top + 14, 13, SEAT_COLOURS[p])
        title = f"{SEAT_LETTERS[p]}  player_{p}"
        if over and s.winners_mask[row, p]:
            title += "  — winner"
        if int(s.pos[row, p]) < 0:
            title += "  (not placed)"
        pic.text(x0 + 36, top + 14, title, 14, INK, "l", bold=True)
        y1, y2 = top + 50, top + 92
        for j in range(D.ROW1_SLOTS):  # row 1: green banana..grapes, then blue
            cx = x0 + 17 + 36 * j
            colour, fruit = divmod(j, 4)
            _slot(pic, cx, y1, POT_COLOURS[colour], fruit, slots[p, j])
        for f in range(D.NUM_FRUITS):  # row 2: the golden fruits
            _slot(pic, x0 + 17 + 36 * f, y2, GOLD, f, slots[p, D.ROW1_SLOTS + f])
        pic.text(x0 + 160, y2, "rubies", 11, MUTED, "l")
        for f in range(D.RUBIES):
            cx = x0 + 212 + 26 * f
            live = bool(s.rubies[row, p, f])
            pic.regular_polygon(cx, y2, 11, 6, "#c8102e" if live else "#c9c9c9", INK, 1.2, np.pi / 6)
            pic.text(cx, y2, FRUIT_LETTERS[f], 9, "#ffffff" if live else MUTED, "m", bold=True)
        n_fruit = int((slots[p, : D.ROW1_SLOTS] >= 0).sum())
        n_gold = int((slots[p, D.ROW1_SLOTS :] >= 0).sum())
        pic.text(x0, top + 128, f"fruits {n_fruit}/{D.ROW1_SLOTS}   golden {n_gold}/{D.NUM_FRUITS}", 12, INK)
    y = 56 + 2 * 170 + 4
    if over:
        winners = [SEAT_LETTERS[p] for p in np.flatnonzero(s.winners_mask[row])]
        status = f"game over ({END_REASONS[int(s.end_reason[row])]}): winner {' '.join(winners) or 'none'}"
    else:
        phase = int(s.phase[row])
        status = f"to move: {SEAT_LETTERS[cp]} ({PHASES[phase] if 0 <= phase < 4 else '?'})"
    pic.text(x0, y, status, 14, INK, "l", bold=True)


def _slot(pic: Picture, cx: float, cy: float, frame: str, fruit: int, t: int) -> None:
    pic.rect(cx - 16, cy - 16, 32, 32, "#ffffff", frame, 2.5, 6)
    if t >= 0:
        token(pic, cx, cy, 12, int(t))
    else:
        pic.text(cx, cy, FRUIT_LETTERS[fruit], 13, tint(FRUIT_COLOURS[fruit], 0.45), "m", bold=True)
