"""Monki as data: temple boards, pots, statues, layouts, tokens and every decided constant.

Rules: ``shared/rules/monki.txt``; gaps fixed by the Monki section of ``shared/rules/DECISIONS.md``.
Entries marked *decided here* go beyond DECISIONS.md.

Board geometry
--------------
A layout places 4 temple boards (3x3 each) on a grid of ``rows x cols`` cells, indexed
``cell = row * cols + col``. Each board is ``(top, left, rotation)``: ``rotation`` (0..3) is the
corner where its statue board sits -- 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left --
and is the local (0, 0) of the board; boards are rotated, never mirrored. Local pots are at
``POT_LOCAL`` = (0, 1), (1, 2), (2, 0). Cells of the grid outside every board are holes.

Tokens
------
40 token ids ``0..39``: ``colour = id // 20`` (0 green, 1 blue); ``j = id % 20``; ``j < 16`` is a
regular token of fruit ``j // 4``, ``j >= 16`` the golden token of fruit ``j - 16``. Fruits:
0 banana, 1 fig, 2 pineapple, 3 grapes. A token's *kind* (16 kinds) is ``colour * 8 + fruit``
(regular) or ``colour * 8 + 4 + fruit`` (golden). A token's *slot* on a player board (12 slots) is
``colour * 4 + fruit`` for a regular token (row 1, 8 spaces) and ``8 + fruit`` for a golden one
(row 2, 4 spaces, either colour).
"""

from __future__ import annotations

from typing import Any

import numpy as np

FRUITS = ("banana", "fig", "pineapple", "grapes")
COLOURS = ("green", "blue")
NUM_FRUITS = 4
NUM_COLOURS = 2
NUM_BOARDS = 4
BOARD_SIDE = 3
POTS_PER_BOARD = 3
NUM_STACKS = NUM_BOARDS * POTS_PER_BOARD  # 12
STACK_DEPTH = 3
NUM_TOKENS = 40
REGULAR_PER_FRUIT = 4  # per colour
NUM_KINDS = 16
NUM_SLOTS = 12  # 8 regular (row 1) + 4 golden (row 2)
ROW1_SLOTS = 8
RUBIES = 4  # per player, one per fruit

#: Reconstructed (DECISIONS): local pot cells with (0, 0) at the statue corner, in pot order.
POT_LOCAL = ((0, 1), (1, 2), (2, 0))

#: Rewards (decided here): the winner +1, the loser -1; a turn-cap draw 0 for both.
REWARD_WIN, REWARD_LOSS, REWARD_DRAW = 1.0, -1.0, 0.0
#: DECISIONS: the default turn cap (both players' turns together, placements excluded).
DEFAULT_TURN_CAP = 200

TOKEN_COLOUR = np.arange(NUM_TOKENS) // 20
_J = np.arange(NUM_TOKENS) % 20
TOKEN_GOLDEN = _J >= 16
TOKEN_FRUIT = np.where(TOKEN_GOLDEN, _J - 16, _J // 4)
TOKEN_KIND = TOKEN_COLOUR * 8 + np.where(TOKEN_GOLDEN, 4 + TOKEN_FRUIT, TOKEN_FRUIT)
TOKEN_SLOT = np.where(TOKEN_GOLDEN, 8 + TOKEN_FRUIT, TOKEN_COLOUR * 4 + TOKEN_FRUIT)
#: ``(16,)`` how many tokens of each kind exist (4 regular, 1 golden).
KIND_TOTAL = np.bincount(TOKEN_KIND, minlength=NUM_KINDS)
for _a in (TOKEN_COLOUR, TOKEN_GOLDEN, TOKEN_FRUIT, TOKEN_KIND, TOKEN_SLOT, KIND_TOTAL):
    _a.flags.writeable = False

#: Named layouts: ``rows, cols, boards [(top, left, rotation)] * 4``.
LAYOUTS: dict[str, dict[str, Any]] = {
    # DECISIONS: the four boards form a 6x6 square, each statue at an outer corner.
    "square": {"rows": 6, "cols": 6, "boards": [[0, 0, 0], [0, 3, 1], [3, 3, 2], [3, 0, 3]]},
    # decided here: a staircase of two offset pairs (holes at the other two 3x3 corners of a 6x9 grid).
    "stairs": {"rows": 6, "cols": 9, "boards": [[0, 0, 0], [0, 3, 1], [3, 3, 3], [3, 6, 2]]},
}
DEFAULT_LAYOUT = "square"


def local_to_grid(top: int, left: int, rotation: int, r: int, c: int) -> tuple[int, int]:
    """Grid ``(row, col)`` of local board cell ``(r, c)`` (local (0, 0) = the statue corner)."""
    s = BOARD_SIDE - 1
    rr, cc = ((r, c), (c, s - r), (s - r, s - c), (s - c, r))[rotation]
    return top + rr, left + cc


class Layout:
    """A validated layout and its tables.

    Attributes:
        rows, cols: grid size; ``num_cells = rows * cols``.
        boards: ``((top, left, rotation),) * 4``.
        cell_board: ``(N,) int64`` board of each cell, -1 for a hole.
        stack_cell: ``(12,) int64`` cell of each pot (board-major, pots in ``POT_LOCAL`` order).
        stack_board: ``(12,) int64`` board of each pot.
        cell_stack: ``(N,) int64`` pot index of each cell, -1 elsewhere.
        rays: ``(N, 8, L) int64`` cells along each queen direction (N, NE, E, SE, S, SW, W, NW)
            until the grid edge or a hole, padded with -1 (``L = max(rows, cols) - 1``).
        statue_corner: ``(4,) int64`` grid cell at each board's statue corner.
    """

    DIRS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
    ORTHO = (0, 2, 4, 6)

    def __init__(self, spec: Any) -> None:
        name, d = _layout_dict(spec)
        self.name = name
        self.rows, self.cols = d["rows"], d["cols"]
        self.boards = tuple(tuple(b) for b in d["boards"])
        self.config: str | dict[str, Any] = (
            name if name else {"rows": self.rows, "cols": self.cols, "boards": [list(b) for b in self.boards]}
        )
        n = self.num_cells = self.rows * self.cols
        self.cell_board = np.full(n, -1, np.int64)
        self.stack_cell = np.zeros(NUM_STACKS, np.int64)
        self.stack_board = np.repeat(np.arange(NUM_BOARDS), POTS_PER_BOARD)
        self.statue_corner = np.zeros(NUM_BOARDS, np.int64)
        for i, (top, left, rot) in enumerate(self.boards):
            for r in range(BOARD_SIDE):
                for c in range(BOARD_SIDE):
                    gr, gc = local_to_grid(top, left, rot, r, c)
                    self.cell_board[gr * self.cols + gc] = i
            for k, (r, c) in enumerate(POT_LOCAL):
                gr, gc = local_to_grid(top, left, rot, r, c)
                self.stack_cell[i * POTS_PER_BOARD + k] = gr * self.cols + gc
            gr, gc = local_to_grid(top, left, rot, 0, 0)
            self.statue_corner[i] = gr * self.cols + gc
        self.cell_stack = np.full(n, -1, np.int64)
        self.cell_stack[self.stack_cell] = np.arange(NUM_STACKS)
        L = max(self.rows, self.cols) - 1
        self.rays = np.full((n, 8, max(L, 1)), -1, np.int64)
        for cell in range(n):
            r0, c0 = divmod(cell, self.cols)
            for k, (dr, dc) in enumerate(self.DIRS):
                r, c, j = r0 + dr, c0 + dc, 0
                while 0 <= r < self.rows and 0 <= c < self.cols and self.cell_board[r * self.cols + c] >= 0:
                    self.rays[cell, k, j] = r * self.cols + c
                    r, c, j = r + dr, c + dc, j + 1
        for a in (self.cell_board, self.stack_cell, self.stack_board, self.cell_stack, self.rays):
            a.flags.writeable = False


def _layout_dict(spec: Any) -> tuple[str, dict[str, Any]]:
    """``(name or "", checked layout dict)``; ``ValueError`` naming what is wrong."""
    name = ""
    if isinstance(spec, str):
        if spec not in LAYOUTS:
            raise ValueError(f"unknown Monki layout {spec!r}; named layouts: {sorted(LAYOUTS)} (or give a dict)")
        name, spec = spec, LAYOUTS[spec]
    if not isinstance(spec, dict) or set(spec) != {"rows", "cols", "boards"}:
        raise ValueError(f"a Monki layout is a name or a dict with keys rows, cols, boards; got {spec!r:.120}")
    rows, cols = spec["rows"], spec["cols"]
    for k, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 3 <= v <= 24:
            raise ValueError(f"layout {k} must be an int in 3..24, got {v!r:.40}")
    boards = spec["boards"]
    if not isinstance(boards, (list, tuple)) or len(boards) != NUM_BOARDS:
        raise ValueError(f"layout boards must list {NUM_BOARDS} [top, left, rotation] triples, got {boards!r:.120}")
    out = []
    for i, b in enumerate(boards):
        if (
            not isinstance(b, (list, tuple))
            or len(b) != 3
            or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) for x in b)
        ):
            raise ValueError(f"layout board {i} must be [top, left, rotation] ints, got {b!r:.60}")
        top, left, rot = (int(x) for x in b)
        if not 0 <= rot <= 3:
            raise ValueError(f"layout board {i}: rotation must be 0..3 (statue corner TL, TR, BR, BL), got {rot}")
        if top < 0 or left < 0 or top + BOARD_SIDE > rows or left + BOARD_SIDE > cols:
            raise ValueError(f"layout board {i} at ({top}, {left}) does not fit in the {rows}x{cols} grid")
        out.append([top, left, rot])
    d = {"rows": int(rows), "cols": int(cols), "boards": out}
    validate_layout(d)
    return name, d


def validate_layout(d: dict[str, Any]) -> None:
    """Check the rulebook's setup rules for a layout dict (boards already in the grid).

    * boards do not overlap;
    * every board borders another board along at least 2 spaces (edge-adjacent cell pairs);
    * the four boards form one game board: connected through shared edges (DECISIONS; two
      separate pairs, or pairs touching only at a corner, are refused);
    * every board's statue corner is free: the two cells just outside that corner (along both
      edges) and the diagonal one are holes or off the grid.

    Raises:
        ValueError: naming the board and the rule it breaks.
    """
    rows, cols = d["rows"], d["cols"]
    owner = -np.ones((rows, cols), np.int64)
    for i, (top, left, _) in enumerate(d["boards"]):
        block = owner[top : top + 3, left : left + 3]
        if (block >= 0).any():
            raise ValueError(f"layout board {i} overlaps board {int(block[block >= 0][0])}")
        block[:] = i
    shared = np.zeros((NUM_BOARDS, NUM_BOARDS), np.int64)  # edge-adjacent cell pairs of two boards
    for i in range(NUM_BOARDS):
        for j in range(NUM_BOARDS):
            if j != i:
                shared[i, j] = int(
                    ((owner[:-1] == i) & (owner[1:] == j)).sum()
                    + ((owner[:-1] == j) & (owner[1:] == i)).sum()
                    + ((owner[:, :-1] == i) & (owner[:, 1:] == j)).sum()
                    + ((owner[:, :-1] == j) & (owner[:, 1:] == i)).sum()
                )
    for i in range(NUM_BOARDS):
        best = int(shared[i].max())
        if best < 2:
            raise ValueError(f"layout board {i} borders no other board along at least 2 spaces (best: {best})")
    reached = {0}  # DECISIONS: the four boards form one game board, connected through shared edges
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(shared[i] > 0).tolist():
            if j not in reached:
                reached.add(j)
                frontier.append(j)
    if len(reached) < NUM_BOARDS:
        cut = sorted(set(range(NUM_BOARDS)) - reached)
        raise ValueError(
            f"layout boards {cut} are cut off from boards {sorted(reached)}: the four temple boards must form "
            "one game board, connected through shared edges (boards touching only at a corner are not connected)"
        )
    for i, (top, left, rot) in enumerate(d["boards"]):
        r, c = local_to_grid(top, left, rot, 0, 0)
        dr = -1 if r == top else 1
        dc = -1 if c == left else 1
        for rr, cc in ((r + dr, c), (r, c + dc), (r + dr, c + dc)):
            if 0 <= rr < rows and 0 <= cc < cols and owner[rr, cc] >= 0:
                raise ValueError(
                    f"layout board {i}: its statue corner ({r}, {c}) (rotation {rot}) is not free: "
                    f"cell ({rr}, {cc}) belongs to board {int(owner[rr, cc])}"
                )
