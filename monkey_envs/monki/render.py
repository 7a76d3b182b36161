"""Text picture of a Monki position (the ``ansi`` / ``human`` render modes) and the names of its actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.game import seat_legend
from monkey_envs.monki import data as D
from monkey_envs.monki.state import END_REASONS, PHASES

if TYPE_CHECKING:
    from monkey_envs.monki.rules import Monki
    from monkey_envs.monki.state import MonkiState

_FRUIT_CH = "BFPG"  # banana, fig, pineapple, grapes
_COL_CH = "gb"  # green, blue


def token_code(t: int, face_up: bool = True) -> str:
    """Two letters: colour (``g``/``b``) and fruit (``BFPG``; lower case = golden); ``g?`` face down."""
    c = _COL_CH[int(D.TOKEN_COLOUR[t])]
    if not face_up:
        return c + "?"
    f = _FRUIT_CH[int(D.TOKEN_FRUIT[t])]
    return c + (f.lower() if D.TOKEN_GOLDEN[t] else f)


def render_text(game: Monki, s: MonkiState, row: int = 0, viewer: int | None = None) -> str:
    """Grid (``##`` hole, ``..`` free cell, ``A``/``B`` Monkis, ``g?3`` a stack: top colour, height;
    face-up tops show their fruit), statues, player boards and rubies. Nothing is hidden from one
    seat only, so ``viewer`` changes nothing.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or a bad ``viewer``.
    """
    row, viewer = game.check_render_args(s, row, viewer)
    L = game.layout
    lines = [
        f"Monki (layout {L.name or 'custom'}, turn {int(s.turns[row])}/{game.turn_cap}, "
        f"phase {PHASES[int(s.phase[row])] if 0 <= s.phase[row] < 4 else '?'})"
    ]
    h = game.heights(s.stacks[row : row + 1])[0]
    for r in range(L.rows):
        cells = []
        for c in range(L.cols):
            cell = r * L.cols + c
            txt = " ## " if L.cell_board[cell] < 0 else " .. "
            st = L.cell_stack[cell]
            if st >= 0 and h[st] > 0:
                t = int(s.stacks[row, st, h[st] - 1])
                txt = f"{token_code(t, bool(s.face_up[row, st]))}{h[st]} "
            for p in range(2):
                if s.pos[row, p] == cell:
                    txt = f"  {'AB'[p]} "
            cells.append(txt)
        lines.append("".join(cells))
    for b in range(D.NUM_BOARDS):
        toks = [token_code(t) for t in np.flatnonzero(s.statue[row] == b)]
        lines.append(f"  statue {b}: {' '.join(toks) or '-'}")
    for p in range(2):
        toks = [token_code(t) for t in np.flatnonzero(s.owner[row] == p)]
        rub = "".join(_FRUIT_CH[f] if s.rubies[row, p, f] else "-" for f in range(D.RUBIES))
        lines.append(f"  {'AB'[p]} (player_{p}): rubies {rub}  board {' '.join(toks) or '-'}")
    if s.terminated[row]:
        winners = ["AB"[p] for p in np.flatnonzero(s.winners_mask[row])]
        lines.append(f"  game over ({END_REASONS[int(s.end_reason[row])]}): winner(s) {winners or 'none'}")
    else:
        lines.append(f"  to move: {'AB'[int(s.current_player[row])]}")
    return "\n".join(lines) + "\n"


def legend_text(game: Monki) -> str:
    """How to read :func:`render_text` (the ``legend`` hook of the game's ``View``)."""
    fruits = ", ".join(f"{ch} {name}" for ch, name in zip(_FRUIT_CH, D.FRUITS, strict=True))
    colours = ", ".join(f"{ch} {name}" for ch, name in zip(_COL_CH, D.COLOURS, strict=True))
    return "\n".join(
        [
            seat_legend(game.num_players),
            f"first line: the layout ({', '.join(D.LAYOUTS)} or custom), the turn and its cap, the phase "
            f"({', '.join(PHASES)})",
            "grid (row by row, (row,col) in the move names): ' ## ' a hole (no temple board there), "
            "' .. ' a free space, '  A ' / '  B ' that seat's Monki",
            "  a pot (a stack of fruit tokens): its top token's colour, its fruit, the height -- e.g. 'b?3' = "
            "3 tokens, the top one blue and face down ('?'); 'bF3' = the top one turned up this turn: a fig",
            f"  colours: {colours}; fruits: {fruits}; lower case = a golden fruit (e.g. 'gb' a golden banana "
            "from a green pot)",
            "a token elsewhere is two letters, colour then fruit: 'gB' = a banana from a green pot, 'gb' = a "
            "golden banana",
            "statue N: the tokens on the statue board next to temple board N (sacrificed fruits, golden "
            "fruits; collected with a ruby), '-' = none",
            f"X (player_N) lines: rubies = one letter per ruby ({''.join(_FRUIT_CH)}): the letter = ready to "
            "use, '-' = used (skip a turn to recharge); board = the fruit tokens collected on that seat's "
            "player board",
            f"to move: whose turn it is; game over (reason): winner(s) [...]: why the game ended "
            f"({', '.join(END_REASONS[1:])}) and who won",
        ]
    )


def action_text(game: Monki, state: MonkiState, row: int, action: int) -> str:
    """What ``action`` does (``view.action_name``; the same in every row and phase)."""
    N = game.num_cells
    cols = game.layout.cols

    def cell(c: int) -> str:
        return f"({c // cols},{c % cols})"

    if action < N:
        return f"place Monki on {cell(action)}"
    if action < 2 * N:
        return f"move to {cell(action - N)}"
    if action == game.A_SKIP:
        return "skip (recharge rubies)"
    if action < game.A_PASS:
        st = action - game.A_FLIP
        return f"flip stack {st} at {cell(int(game.layout.stack_cell[st]))}"
    if action == game.A_PASS:
        return "pass (collect the flipped fruit)"
    return f"use the {D.FRUITS[action - game.A_RUBY]} ruby"
