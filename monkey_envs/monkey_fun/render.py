"""Text picture of a Monkey Fun position (the ``ansi`` / ``human`` render modes) and the names of its actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.game import seat_legend
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


def legend_text(game: MonkeyFun) -> str:
    """How to read :func:`render_text`, for this configuration's seats (the
    ``legend`` hook of the game's ``View``)."""
    P = game.num_players
    seats = SEAT_MARKS[:P]
    counts = "".join(str(d) for d in (2, 3, 1, 0)[:P])
    lines = [
        seat_legend(P),
        "first line: the variant (normal, quick or solo), the board side (1 or 2) and the number of players",
        f"board: 6 x 6 fields, each printed as NN:counts at its place on the board, e.g. '23:{counts}'",
        "  NN: the field's number (the number the played cards must add up to)",
        f"  counts: one digit per seat in seat order ({', '.join(seats)}): that seat's monkeys on the field "
        f"('{counts}': {', '.join(f'{s} {d}' for s, d in zip(seats, counts, strict=True))}); '+' = 10 or more",
    ]
    if P >= 2:
        owned = "".join("2" if p == 1 else "0" for p in range(P))
        lines.append(
            f"  *X after the counts: seat X secured the field for good, e.g. '31:{owned}*B' (2 monkeys more "
            "than every other seat: the others' monkeys went to the box and nobody may place there any more)"
        )
    lines += [
        "  < after a field: the field of the last move (where the last monkey was placed)",
        "X (player_N) lines: supply = monkeys the seat has still to place; box = its monkeys sent to the "
        "box (out of the game); score = its points, shown at the end (the numbers of the fields it holds)",
        "draw pile: cards left to draw; discard: VxN = N cards of value V on the discard pile",
        "hand of X: the card values in X's hand (shown to X only); to move: whose turn it is",
        f"game over (reason): winner(s) [...]: why the game ended ({', '.join(END_REASONS[1:])}) and who won",
    ]
    return "\n".join(lines)


def action_text(game: MonkeyFun, state: MonkeyFunState, row: int, action: int) -> str:
    """The cards ``action`` plays from the hand of the seat to move in row ``row`` and their sum
    (``view.action_name``): action ``a < 15`` plays the hand slots of the bits of ``a + 1``."""
    if action == game.num_actions - 1:
        return "discard hand (no playable cards)"
    hand = state.hands[row, max(int(state.current_player[row]), 0)]
    cards = [int(hand[j]) for j in range(D.HAND_SIZE) if (action + 1) >> j & 1]
    return f"play {'+'.join(map(str, cards))} = {sum(cards)}"
