"""Picture of a Monkey Fun position (``render_mode="rgb_array"``, PNG / SVG export; the game's ``View.picture`` hook).

The 6x6 board with its printed numbers, each seat's monkeys per field in the seat's colour with
their count, secured fields tinted and framed in their owner's colour, the last placement marked;
beside it the players (supply, box, score, who moves), the viewer's hand, the draw pile and the
face-up discard pile (every value 1..19 with how many are there). Only the viewer's hand is
private: ``viewer=None`` shows no hand, and no other seat's cards or the draw order are ever drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.pictures import INK, MUTED, PAPER, SEAT_COLOURS, SEAT_LETTERS, Picture, tint
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import END_REASONS

if TYPE_CHECKING:
    from monkey_envs.monkey_fun.rules import MonkeyFun
    from monkey_envs.monkey_fun.state import MonkeyFunState

CELL = 72
BOARD_X, BOARD_Y = 20, 56
PANEL_X = BOARD_X + 6 * CELL + 28
WIDTH, HEIGHT = PANEL_X + 300, BOARD_Y + 6 * CELL + 24
WOOD, FIELD, INNER = "#b07d48", "#f6ebcd", "#e3f0cf"
CARD_BACK = "#3b6fb0"
#: Offsets of the four seats' monkey slots inside a field (2 x 2, below the number).
_SLOTS = ((8, 38), (38, 38), (8, 58), (38, 58))


def draw(game: MonkeyFun, s: MonkeyFunState, row: int = 0, viewer: int | None = None) -> Picture:
    """The picture of env ``row`` as seat ``viewer`` sees it (``None``: public). One size per game.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat.
    """
    row, viewer = game.check_render_args(s, row, viewer)
    P = game.num_players
    over = bool(s.terminated[row])
    players = f"{P} player{'s' if P > 1 else ''}"
    pic = Picture(WIDTH, HEIGHT, PAPER, f"Monkey Fun ({game.variant}, side {game.board_side}, {players})")
    pic.text(BOARD_X, 24, "Monkey Fun", 22, INK, "l", bold=True)
    pic.text(BOARD_X + 164, 25, f"{game.variant} game · board side {game.board_side} · {players}", 14, MUTED)
    _board(pic, game, s, row)
    _players(pic, game, s, row, over)
    _cards(pic, s, row, viewer)
    if over:
        winners = [SEAT_LETTERS[p] for p in np.flatnonzero(s.winners_mask[row])]
        status = f"game over ({END_REASONS[int(s.end_reason[row])]}): winner {' '.join(winners) or 'none'}"
    else:
        status = f"to move: {SEAT_LETTERS[int(s.current_player[row])]}"
    pic.text(PANEL_X, HEIGHT - 26, status, 15, INK, "l", bold=True)
    return pic


def _board(pic: Picture, game: MonkeyFun, s: MonkeyFunState, row: int) -> None:
    pic.rect(BOARD_X - 8, BOARD_Y - 8, 6 * CELL + 16, 6 * CELL + 16, WOOD, INK, 2, 10)
    inner = set(D.INNER_FIELDS) if game.solo else set()
    last = int(s.last_field[row])
    for f in range(D.NUM_FIELDS):
        r, c = divmod(f, D.BOARD_COLS)
        x, y = BOARD_X + c * CELL, BOARD_Y + r * CELL
        own = int(s.owner[row, f])
        fill = tint(SEAT_COLOURS[own], 0.72) if own >= 0 else INNER if f in inner else FIELD
        pic.rect(
            x + 2,
            y + 2,
            CELL - 4,
            CELL - 4,
            fill,
            SEAT_COLOURS[own] if own >= 0 else "#7a5a35",
            4 if own >= 0 else 1,
            6,
        )
        pic.text(x + CELL / 2, y + 17, int(game.field_number[f]), 17, INK, "m", bold=True)
        if f == last:  # the last placement: a dot in the top right corner
            pic.circle(x + CELL - 11, y + 11, 4.5, INK, None)
        for p in range(game.num_players):
            n = int(s.counts[row, f, p])
            if n:
                dx, dy = _SLOTS[p]
                pic.monkey_head(x + dx + 9, y + dy, 8.5, SEAT_COLOURS[p])
                pic.text(x + dx + 21, y + dy + 1, n, 12, INK, "l", bold=True)


def _players(pic: Picture, game: MonkeyFun, s: MonkeyFunState, row: int, over: bool) -> None:
    x0, y = PANEL_X, BOARD_Y + 4
    pic.text(x0, y, "Players", 15, INK, "l", bold=True)
    cp = int(s.current_player[row])
    for p in range(game.num_players):
        top = y + 14 + 46 * p
        if p == cp:
            pic.rect(x0 - 6, top, 290, 42, "#fff1bf", None, 0, 8)
            pic.polygon([(x0 - 16, top + 13), (x0 - 6, top + 21), (x0 - 16, top + 29)], INK, None)
        won = over and bool(s.winners_mask[row, p])
        pic.monkey_head(x0 + 16, top + 21, 14, SEAT_COLOURS[p])
        pic.text(
            x0 + 40, top + 12, f"{SEAT_LETTERS[p]}  player_{p}" + ("  — winner" if won else ""), 14, INK, "l", bold=True
        )
        line = f"supply {int(s.supply[row, p])}   box {int(s.box[row, p])}"
        if over:
            line += f"   score {int(s.scores[row, p])}"
        pic.text(x0 + 40, top + 30, line, 13, INK)


def _cards(pic: Picture, s: MonkeyFunState, row: int, viewer: int | None) -> None:
    x0, y = PANEL_X, BOARD_Y + 14 + 46 * 4 + 14
    if viewer is None:
        pic.text(x0, y, "Hands are hidden (public view)", 14, MUTED)
    else:
        pic.text(x0, y, f"Hand of {SEAT_LETTERS[viewer]}", 14, INK, "l", bold=True)
        for j in range(D.HAND_SIZE):
            v = int(s.hands[row, viewer, j])
            cx = x0 + j * 48
            if v:
                pic.card(cx, y + 12, 40, 54, v, tint(SEAT_COLOURS[viewer], 0.8), INK, 22)
            else:
                pic.rect(cx, y + 12, 40, 54, None, MUTED, 1, 5)
    dx = x0 + 206
    pic.card(dx, y + 12, 40, 54, face_down=True, back=CARD_BACK)
    pic.text(dx + 48, y + 30, "draw", 12, MUTED)
    pic.text(dx + 48, y + 48, int(s.draw_size[row]), 16, INK, "l", bold=True)
    y += 84
    pic.text(x0, y, "Discard pile", 14, INK, "l", bold=True)
    for v in range(1, D.MAX_CARD + 1):
        n = int(s.discard[row, v])
        cx, cy = x0 + ((v - 1) % 10) * 28, y + 12 + ((v - 1) // 10) * 36
        pic.rect(cx, cy, 24, 32, "#ffffff" if n else "#efefef", INK if n else "#c8c8c8", 1, 4)
        pic.text(cx + 12, cy + 11, v, 11, INK if n else "#b0b0b0", "m", bold=bool(n))
        if n:
            pic.text(cx + 12, cy + 24, f"×{n}", 10, "#a0322a", "m")
