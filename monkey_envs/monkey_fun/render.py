"""Text picture of a Monkey Fun position (the ``ansi`` / ``human`` render modes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.state import END_REASONS

if TYPE_CHECKING:
    from monkey_envs.monkey_fun.rules import MonkeyFun
    from monkey_envs.monkey_fun.state import MonkeyFunState

SEAT_MARKS = "ABCD"


def render_text(game: MonkeyFun, s: MonkeyFunState, row: int = 0, viewer: int | None = None) -> str:
    """Board with field numbers, monkeys per seat, owners (``*``), supplies and a hand.

    Each field prints as ``NN:counts`` where counts lists seats A, B, ... (``*X`` marks a field
    secured by seat X). ``viewer`` (a seat) adds that seat's hand; ``None`` shows no hand.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat (no negative indices).
    """
    row, viewer = game.check_render_args(s, row, viewer)
    P = game.num_players
    lines = [f"Monkey Fun ({game.variant}, side {game.board_side}, {P} player{'s' if P > 1 else ''})"]
    width = 4 + 2 * P + 2
    for r in range(D.BOARD_ROWS):
        cells = []
        for c in range(D.BOARD_COLS):
            f = r * D.BOARD_COLS + c
            cnt = "".join(str(int(x)) if x < 10 else "+" for x in s.counts[row, f])
            own = int(s.owner[row, f])
            mark = f"*{SEAT_MARKS[own]}" if own >= 0 else "  "
            last = "<" if int(s.last_field[row]) == f else " "
            cells.append(f"{int(game.field_number[f]):2d}:{cnt}{mark}{last}".ljust(width))
        lines.append(" ".join(cells))
    for p in range(P):
        lines.append(
            f"  {SEAT_MARKS[p]} (player_{p}): supply {int(s.supply[row, p]):2d}  box {int(s.box[row, p]):2d}"
            + (f"  score {int(s.scores[row, p])}" if s.terminated[row] else "")
        )
    disc = ",".join(f"{v}x{int(n)}" for v, n in enumerate(s.discard[row]) if n)
    lines.append(f"  draw pile: {int(s.draw_size[row])} cards   discard: {disc or '-'}")
    if viewer is not None:
        hand = [int(x) for x in s.hands[row, viewer] if x]
        lines.append(f"  hand of {SEAT_MARKS[viewer]}: {hand}")
    if s.terminated[row]:
        winners = [SEAT_MARKS[p] for p in np.flatnonzero(s.winners_mask[row])]
        lines.append(f"  game over ({END_REASONS[int(s.end_reason[row])]}): winner(s) {winners or 'none'}")
    else:
        lines.append(f"  to move: {SEAT_MARKS[int(s.current_player[row])]}")
    return "\n".join(lines) + "\n"
