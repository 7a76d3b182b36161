"""Picture of a 4 Monkeys position (``render_mode="rgb_array"``, PNG / SVG export; the game's ``View.picture`` hook).

What the table looks like: at the top the round / tick clock (a timer disc that empties as the
round's ticks run out) and the game totals; then, per playing area (two with 7-8 players), the
combo stacks in the middle -- each stack as its top tile, green side up, showing the combo's
figures (circle, triangle, square, pentagon; the golden-button combos as golden buttons on a
gold-rimmed tile) with its green value, the tiles beneath as a pile of edges and its depth
``xN`` -- and the revealed tiles next to them; below them every player's area: monkey head in
the seat's colour, game total and round scores, deck, hand and pending sizes, the Hand replenish
tile (``0`` ready, ``-1`` used), Banana skins (when the flag is on), whether the seat has
committed this tick, and the player's combo tiles on their green or orange side with their
value and the number of face-down cards under each. At the bottom the viewer's own hand and
pending set face up: figure cards with two figures each, a double's second figure on a golden
button.

Hidden information follows the text picture: other seats' hands, pending sets, discards, cards
under their tiles and commits appear only as counts or a "committed" mark; the tiles below a
stack's top only as the stack's depth. The viewer sees its own cards, the cards under its own
tiles (a tick or a cross: a correct combo or a bluff) and its own commit. When the game is
over, the tiles the last scoring verified (recomputed from the final position, which keeps
them) show their cards face up with the verdict, as they were shown at the table.
``viewer=None`` shows no hand at all.

The canvas depends only on the player count: every owned-tile or card row shrinks its pieces to
fit a fixed box, so one configuration gives one image size.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.pictures import INK, MUTED, PAPER, SEAT_COLOURS, SIZE_STEP, Picture, tint
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys.state import END_REASONS, TILE_LOOSE, TILE_ORANGE

if TYPE_CHECKING:
    from monkey_envs.four_monkeys.rules import FourMonkeys
    from monkey_envs.four_monkeys.state import FourMonkeysState

#: Seat colours (= deck colours) for up to 8 seats: the kit's seven and a brown.
COLOURS: tuple[str, ...] = (*SEAT_COLOURS, "#8c564b")[: D.MAX_PLAYERS]
LETTERS = D.SEAT_LETTERS
#: Figure fills: circle, triangle, square, pentagon.
FIGURE_COLOURS = ("#e04b3a", "#2f7ed8", "#f2c12e", "#8e44ad")
GOLD, GOLD_DARK = "#e8b923", "#a67c00"
GREEN, GREEN_DARK = "#6cbf6a", "#2e7d32"
ORANGE, ORANGE_DARK = "#f39c4a", "#b35309"
FACE = "#fffdf5"

WIDTH = 1280
MARGIN = 16
HEADER_H = 64
STACK_TILE = 62
STACK_CELL = 92
STACKS_H = 148
PANEL_W = (WIDTH - 3 * MARGIN) // 2
PANEL_H = 196
PANEL_GAP = 10
HAND_H = 178
CARD_W, CARD_H = 40, 58


def size(game: FourMonkeys) -> tuple[int, int]:
    """``(width, height)`` of the canvas for ``game``, padded as :class:`Picture` pads (the player count sets it)."""
    h = HEADER_H
    for n in game.area_sizes:
        h += STACKS_H + math.ceil(n / 2) * (PANEL_H + PANEL_GAP)
    h += HAND_H + MARGIN
    return WIDTH, math.ceil(h / SIZE_STEP) * SIZE_STEP


def draw(game: FourMonkeys, s: FourMonkeysState, row: int = 0, viewer: int | None = None) -> Picture:
    """The picture of env ``row`` as seat ``viewer`` sees it (``None``: public). One size per player count.

    Raises:
        ValueError: ``row`` outside ``[0, B)`` or ``viewer`` neither ``None`` nor a seat.
    """
    row, viewer = game.check_render_args(s, row, viewer)
    P = game.num_players
    w, h = size(game)
    flags = [f"{P} players"]
    if game.banana_skins:
        flags.append("Banana skins")
    if game.family:
        flags.append("family scoring")
    pic = Picture(w, h, PAPER, f"4 Monkeys ({', '.join(flags)})")
    verdict = _final_verdict(game, s, row)
    _header(pic, game, s, row, flags)
    y = HEADER_H
    two = len(game.area_sizes) > 1
    for a in range(len(game.area_sizes)):
        _stacks(pic, game, s, row, a, y, two)
        y += STACKS_H
        seats = [p for p in range(P) if int(s.area[row, p]) == a] if two else list(range(P))
        for i, p in enumerate(seats):
            px = MARGIN + (i % 2) * (PANEL_W + MARGIN)
            py = y + (i // 2) * (PANEL_H + PANEL_GAP)
            _panel(pic, game, s, row, p, viewer, px, py, verdict)
        y += math.ceil(game.area_sizes[a] / 2) * (PANEL_H + PANEL_GAP)
    _own_cards(pic, game, s, row, viewer, y)
    return pic


# ----------------------------------------------------------------------------- glyphs
def figure(pic: Picture, f: int, cx: float, cy: float, r: float, golden: bool = False) -> None:
    """Figure ``f`` (0 circle, 1 triangle, 2 square, 3 pentagon) of radius ``r``; ``golden``: on a golden button."""
    lw = max(0.8, r / 7)
    if golden:
        pic.circle(cx, cy, r * 1.45, GOLD, GOLD_DARK, max(1.0, r / 5))
    col = FIGURE_COLOURS[f]
    if f == 0:
        pic.circle(cx, cy, r * 0.9, col, INK, lw)
    elif f == 1:
        pic.regular_polygon(cx, cy + r * 0.15, r * 1.05, 3, col, INK, lw, -math.pi / 2)
    elif f == 2:
        pic.rect(cx - r * 0.8, cy - r * 0.8, r * 1.6, r * 1.6, col, INK, lw)
    else:
        pic.regular_polygon(cx, cy + r * 0.05, r * 0.98, 5, col, INK, lw, -math.pi / 2)


def golden_button(pic: Picture, cx: float, cy: float, r: float, mark: str = "") -> None:
    """An empty golden button (a combo asking for golden buttons of any figure), ``mark`` on it."""
    pic.circle(cx, cy, r, GOLD, GOLD_DARK, max(1.0, r / 5))
    pic.circle(cx, cy, r * 0.55, tint(GOLD, 0.45), None)
    if mark:
        pic.text(cx, cy, mark, r * 1.1, GOLD_DARK, "m", bold=True)


def _combo_figures(c: int) -> list[int]:
    return [f for f in range(D.NUM_FIGURES) for _ in range(int(D.COMBO_NEED_FIGURES[c, f]))]


def combo_tile(
    pic: Picture, x: float, y: float, side: float, combo: int, orange: bool = False, label: str = ""
) -> None:
    """Combo tile ``combo`` (0..9) with top left ``(x, y)``, ``side`` pixels square, green or orange side up.

    The tile shows the combo's figures (golden-button combos: golden buttons, the tile rimmed in
    gold), its value on that side in the corner badge and ``label`` (e.g. the tile id) on top.
    """
    fill, dark = (ORANGE, ORANGE_DARK) if orange else (GREEN, GREEN_DARK)
    golden = D.COMBO_NEED_GOLDEN[combo] > 0 or D.COMBO_NEED_GOLDEN_DISTINCT[combo] > 0
    pic.rect(x, y, side, side, fill, GOLD_DARK if golden else dark, max(1.0, side / 22), side * 0.14)
    inset = side * 0.09
    pic.rect(x + inset, y + inset, side - 2 * inset, side - 2 * inset, FACE, None, 0, side * 0.08)
    figs = _combo_figures(combo)
    cx, cy = x + side / 2, y + side * 0.47
    if golden:
        n = int(D.COMBO_NEED_GOLDEN[combo] + D.COMBO_NEED_GOLDEN_DISTINCT[combo])
        r = side * (0.15 if n == 2 else 0.12)
        gap = side * (0.34 if n == 2 else 0.27)
        for i in range(n):
            golden_button(pic, cx + (i - (n - 1) / 2) * gap, cy, r)
        if D.COMBO_NEED_GOLDEN_DISTINCT[combo]:  # "of different figures"
            pic.text(cx, y + side * 0.76, "≠", side * 0.2, GOLD_DARK, "m", bold=True)
    else:
        n = len(figs)
        cols = n if n <= 3 else (2 if n == 4 else 3)
        rows_ = math.ceil(n / cols)
        r = side * (0.14 if n <= 2 else 0.11 if n <= 4 else 0.09)
        gx, gy = side * (0.3 if n <= 2 else 0.25), side * 0.28
        for i, f in enumerate(figs):
            rr, cc = divmod(i, cols)
            in_row = min(cols, n - rr * cols)
            figure(pic, f, cx + (cc - (in_row - 1) / 2) * gx, cy + (rr - (rows_ - 1) / 2) * gy, r)
    value = int(D.COMBO_ORANGE[combo] if orange else D.COMBO_GREEN[combo])
    br = side * 0.15
    pic.circle(x + side - br * 0.9, y + side - br * 0.9, br, dark, "#ffffff", max(1.0, side / 40))
    pic.text(x + side - br * 0.9, y + side - br * 0.9, value, br * 1.35, "#ffffff", "m", bold=True)
    if label:
        pic.text(x + side * 0.14, y + side * 0.16, label, max(6.0, side * 0.15), MUTED, "l")


def figure_card(pic: Picture, x: float, y: float, w: float, h: float, kind: int) -> None:
    """Figure card of ``kind`` (0..9, :data:`~monkey_envs.four_monkeys.data.KINDS`) face up: two figures, one above
    the other; a double's second figure sits on a golden button."""
    a, b = D.KINDS[kind]
    pic.rect(x, y, w, h, "#ffffff", INK, max(0.8, w / 30), min(w, h) * 0.12)
    r = min(w * 0.26, h * 0.15)
    figure(pic, a, x + w / 2, y + h * 0.29, r)
    figure(pic, b, x + w / 2, y + h * 0.71, r * (0.82 if a == b else 1.0), golden=a == b)


def card_back(pic: Picture, x: float, y: float, w: float, h: float, colour: str) -> None:
    """A face-down figure card of the deck in ``colour``."""
    r = min(w, h) * 0.12
    pic.rect(x, y, w, h, colour, INK, max(0.8, w / 30), r)
    pic.rect(x + w * 0.18, y + h * 0.14, w * 0.64, h * 0.72, None, "#ffffff", max(0.8, w / 25), r * 0.6)


def _kinds(counts: np.ndarray) -> list[int]:
    return [k for k in range(D.NUM_KINDS) for _ in range(int(counts[k]))]


def _card_row(pic: Picture, x: float, y: float, width: float, kinds: list[int], w: float, h: float) -> None:
    """Face-up cards left to right from ``(x, y)`` within ``width`` (overlapping when they do not fit)."""
    n = len(kinds)
    if n == 0:
        return
    step = w + 4 if n == 1 else min(w + 4, (width - w) / (n - 1))
    for i, k in enumerate(kinds):
        figure_card(pic, x + i * step, y, w, h, k)


def _mark(pic: Picture, cx: float, cy: float, r: float, ok: bool) -> None:
    """A tick (correct combo) or a cross (not a correct combo) in a white disc."""
    pic.circle(cx, cy, r, "#ffffff", GREEN_DARK if ok else "#b3261e", max(1.0, r / 5))
    if ok:
        pic.line([(cx - r * 0.5, cy), (cx - r * 0.1, cy + r * 0.45), (cx + r * 0.55, cy - r * 0.45)], GREEN_DARK, r / 3)
    else:
        pic.line([(cx - r * 0.45, cy - r * 0.45), (cx + r * 0.45, cy + r * 0.45)], "#b3261e", r / 3)
        pic.line([(cx - r * 0.45, cy + r * 0.45), (cx + r * 0.45, cy - r * 0.45)], "#b3261e", r / 3)


def banana(pic: Picture, cx: float, cy: float, r: float) -> None:
    """A Banana skin."""
    pts = [(cx + r * math.cos(t), cy + r * 0.9 * math.sin(t)) for t in np.linspace(0.2, math.pi - 0.2, 8)]
    inner = [
        (cx + r * 0.65 * math.cos(t), cy - r * 0.15 + r * 0.55 * math.sin(t))
        for t in np.linspace(math.pi - 0.3, 0.3, 8)
    ]
    pic.polygon(pts + inner, "#f7d038", INK, max(0.8, r / 8))
    pic.circle(cx + r * 0.95, cy + r * 0.15, r * 0.12, "#5a3d1e", None)


# ----------------------------------------------------------------------------- header and stacks
def _header(pic: Picture, game: FourMonkeys, s: FourMonkeysState, row: int, flags: list[str]) -> None:
    pic.text(MARGIN, 24, "4 Monkeys", 22, INK, "l", bold=True)
    pic.text(MARGIN + 146, 25, " · ".join(flags), 14, MUTED)
    over = bool(s.terminated[row])
    rnd = int(s.round[row])
    tick = int(s.tick[row])
    # the timer: a disc whose coloured part is the time left in the round
    cx, cy, r = WIDTH - MARGIN - 26, 32, 24
    left = 0.0 if over else max(0.0, 1.0 - tick / game.ticks)
    pic.circle(cx, cy, r, "#e9e4d6", INK, 1.5)
    if left >= 1.0:
        pic.circle(cx, cy, r - 2, "#4fa3d9", None)
    elif left > 0:
        n = max(3, int(48 * left))
        arc = [
            (cx + (r - 2) * math.sin(2 * math.pi * left * i / n), cy - (r - 2) * math.cos(2 * math.pi * left * i / n))
            for i in range(n + 1)
        ]
        pic.polygon([(cx, cy), *arc], "#4fa3d9", None)
    pic.circle(cx, cy, 3, INK, None)
    if over:
        clock = f"game over after {rnd} rounds ({END_REASONS[int(s.end_reason[row])].replace('_', ' ')})"
    else:
        clock = f"round {rnd + 1}/{game.rounds} · tick {tick}/{game.ticks} · replays {int(s.replays[row])}/{game.max_replays}"
    pic.text(cx - r - 12, 24, clock, 14, INK, "r", bold=True)
    totals = "  ".join(f"{LETTERS[p]} {int(s.totals[row, p])}" for p in range(game.num_players))
    pic.text(cx - r - 12, 46, f"totals: {totals}", 13, INK, "r")
    if over:
        win = [LETTERS[p] for p in np.flatnonzero(s.winners_mask[row])]
        pic.text(MARGIN, 50, f"winner{'s' if len(win) > 1 else ''}: {' '.join(win)}", 14, GREEN_DARK, "l", bold=True)
    else:
        cp = int(s.current_player[row])
        pic.text(MARGIN, 50, f"to commit: {LETTERS[cp]} player_{cp} (the tick resolves after the last seat)", 13, MUTED)


def _tile_grid(w: float, h: float, n: int, cell_w: float, cell_h: float) -> tuple[float, int]:
    """The largest scale <= 1 at which ``n`` cells of ``cell_w x cell_h`` fit in a ``w x h`` box, and the columns."""
    scale = 1.0
    while scale > 0.2:
        cols = max(1, int(w // (cell_w * scale)))
        rows = max(1, int(h // (cell_h * scale)))
        if cols * rows >= n:
            return scale, cols
        scale *= 0.92
    return scale, max(1, int(w // (cell_w * scale)))


def _stacks(pic: Picture, game: FourMonkeys, s: FourMonkeysState, row: int, area: int, y: float, two: bool) -> None:
    s0 = game.num_stacks_area0
    ks = range(s0) if area == 0 else range(s0, game.num_stacks)
    title = f"Combo stacks · area {area}" if two else "Combo stacks"
    pic.rect(MARGIN, y + 4, WIDTH - 2 * MARGIN, STACKS_H - 10, "#efe8d6", "#d8ccb0", 1, 10)
    pic.text(MARGIN + 10, y + 18, title, 13, INK, "l", bold=True)
    top_y = y + 40
    for i, k in enumerate(ks):
        x = MARGIN + 14 + i * STACK_CELL
        n = int(s.stack_size[row, k])
        if n == 0:
            pic.rect(x, top_y, STACK_TILE, STACK_TILE, None, "#b9ad90", 1.5, 9)
            pic.text(x + STACK_TILE / 2, top_y + STACK_TILE / 2, "empty", 11, MUTED, "m")
        else:
            depth = min(n - 1, 6)
            for d in range(depth, 0, -1):  # the edges of the tiles beneath
                off = 3 * d
                pic.rect(x + off, top_y + off, STACK_TILE, STACK_TILE, GREEN, GREEN_DARK, 1, 9)
            t = int(s.stacks[row, k, n - 1])
            combo_tile(pic, x, top_y, STACK_TILE, t % D.NUM_COMBOS)
            pic.text(x + STACK_TILE / 2, top_y + STACK_TILE + 30, f"t{t} · ×{n}", 11.5, INK, "m")
    # revealed tiles (next to the stacks, available)
    lx = MARGIN + 14 + len(ks) * STACK_CELL + 10
    loose = [
        t
        for t in np.flatnonzero(s.tile_state[row] == TILE_LOOSE).tolist()
        if (t < game.num_sets_area0 * D.NUM_COMBOS) == (area == 0)
    ]
    pic.text(lx, y + 18, f"Revealed ({len(loose)})", 13, INK, "l", bold=True)
    bw, bh = WIDTH - MARGIN - 10 - lx, STACKS_H - 40
    if loose:
        scale, cols = _tile_grid(bw, bh, len(loose), 58, 64)
        side = 50 * scale
        for i, t in enumerate(loose):
            r, c = divmod(i, cols)
            tx, ty = lx + c * 58 * scale, y + 32 + r * 64 * scale
            combo_tile(pic, tx, ty, side, t % D.NUM_COMBOS, label=f"t{t}" if side >= 36 else "")
    else:
        pic.text(lx, y + 44, "none", 11, MUTED)


# ----------------------------------------------------------------------------- players
def _final_verdict(game: FourMonkeys, s: FourMonkeysState, row: int) -> tuple[np.ndarray, np.ndarray] | None:
    """At game over: ``(checked (NT,) int8, smartest (P,) bool)`` of the last scoring, from the final position."""
    if not s.terminated[row] or int(s.round[row]) == 0:
        return None
    last = int(s.round[row]) - 1
    before = s.totals[row].astype(np.int64) - s.round_scores[row, last].astype(np.int64)
    out = game.score_round(
        s.tile_owner[row], s.tile_state[row], s.under[row], s.replenish_used[row], s.skins[row], before
    )
    return out["checked"], out["smartest"]


def _panel(
    pic: Picture,
    game: FourMonkeys,
    s: FourMonkeysState,
    row: int,
    p: int,
    viewer: int | None,
    x: float,
    y: float,
    verdict: tuple[np.ndarray, np.ndarray] | None,
) -> None:
    over = bool(s.terminated[row])
    col = COLOURS[p]
    mover = not over and int(s.current_player[row]) == p
    pic.rect(x, y, PANEL_W, PANEL_H, tint(col, 0.9), tint(col, 0.3), 2.5 if mover else 1.2, 10)
    pic.monkey_head(x + 22, y + 22, 13, col)
    name = f"{LETTERS[p]} player_{p}" + (" (you)" if p == viewer else "")
    pic.text(x + 42, y + 20, name, 14, INK, "l", bold=True)
    if over and s.winners_mask[row, p]:
        pic.text(x + 200, y + 20, "winner", 13, GREEN_DARK, "l", bold=True)
    if verdict is not None and verdict[1][p]:
        pic.text(x + 260, y + 20, "Smartest Monkey", 12, "#6b4f9e", "l", bold=True)
    done = [int(v) for v in s.round_scores[row, : int(s.round[row]), p]]
    pic.text(x + PANEL_W - 12, y + 14, f"total {int(s.totals[row, p])}", 14, INK, "r", bold=True)
    pic.text(x + PANEL_W - 12, y + 31, "rounds " + (" ".join(str(v) for v in done) if done else "–"), 11, MUTED, "r")
    # the row of counts
    iy = y + 50
    cx = x + 12
    for label, n in (
        ("deck", int(s.deck_size[row, p])),
        ("hand", int(s.hands[row, p].sum())),
        ("pending", int(s.pending[row, p].sum())),
    ):
        card_back(pic, cx, iy - 11, 16, 22, col)
        pic.text(cx + 21, iy, f"{label} {n}", 12, INK)
        cx += 90 if label != "pending" else 98
    used = bool(s.replenish_used[row, p])
    pic.rect(cx, iy - 11, 22, 22, ORANGE if used else GREEN, ORANGE_DARK if used else GREEN_DARK, 1.2, 4)
    pic.text(cx + 11, iy, "−1" if used else "0", 10, "#ffffff", "m", bold=True)
    pic.text(cx + 27, iy, "replenish " + ("used" if used else "ready"), 12, INK)
    cx += 126
    if game.banana_skins:
        banana(pic, cx + 9, iy - 2, 10)
        given = "given" if s.skin_given[row, p] else "kept"
        pic.text(cx + 24, iy, f"got ×{int(s.skins[row, p])} · own: {given}", 12, INK)
    c = int(s.commits[row, p])
    if not over:
        if c >= 0 and p == viewer:
            commit = f"committed: {game._commit_name(s, row, p, c)}"
        else:
            commit = "committed" if c >= 0 else ("choosing…" if mover else "not yet committed")
        pic.text(x + 12, y + 74, commit, 11.5, INK if c >= 0 else MUTED, "l", bold=c >= 0)
    # the player's combo tiles
    tiles = np.flatnonzero(s.tile_owner[row] == p).tolist()
    bx, by, bw, bh = x + 10, y + 86, PANEL_W - 20, PANEL_H - 92
    pic.text(x + PANEL_W - 12, y + 74, f"{len(tiles)} combo tiles", 11.5, MUTED, "r")
    if not tiles:
        return
    cell_w, cell_h = 60.0, 90.0
    scale, cols = _tile_grid(bw, bh, len(tiles), cell_w, cell_h)
    side = 52 * scale
    for i, t in enumerate(tiles):
        r_, c_ = divmod(i, cols)
        tx, ty = bx + c_ * cell_w * scale, by + r_ * cell_h * scale
        orange = int(s.tile_state[row, t]) == TILE_ORANGE
        combo_tile(pic, tx, ty, side, t % D.NUM_COMBOS, orange, f"t{t}" if side >= 40 else "")
        under = s.under[row, t]
        n = int(under.sum())
        checked = 0 if verdict is None else int(verdict[0][t])
        uy = ty + side + 3 * scale
        ch = 30 * scale
        if p == viewer or checked:
            kinds = _kinds(under)
            cw = ch * 0.68
            _card_row(pic, tx, uy, side, kinds, cw, ch)
            ok = bool(s.tile_ok[row, t]) if not checked else checked == 1
            _mark(pic, tx + side - 2 * scale, ty + 6 * scale, 7 * scale, ok)
        else:
            card_back(pic, tx, uy, ch * 0.68, ch, col)
            pic.text(tx + ch * 0.68 + 4 * scale, uy + ch / 2, f"×{n}", max(7.0, 12 * scale), INK)


# ----------------------------------------------------------------------------- the viewer's cards
def _own_cards(pic: Picture, game: FourMonkeys, s: FourMonkeysState, row: int, viewer: int | None, y: float) -> None:
    pic.rect(MARGIN, y + 4, WIDTH - 2 * MARGIN, HAND_H - 8, "#ffffff", "#d8ccb0", 1, 10)
    if viewer is None:
        pic.text(
            MARGIN + 12, y + 24, "Hands, pending sets and the cards under tiles are hidden (public view)", 13, MUTED
        )
        _legend(pic, y + 146)
        return
    col = COLOURS[viewer]
    hand, pend = _kinds(s.hands[row, viewer]), _kinds(s.pending[row, viewer])
    pic.text(MARGIN + 12, y + 20, f"Hand of {LETTERS[viewer]} ({len(hand)})", 13, INK, "l", bold=True)
    split = WIDTH * 0.62
    pic.text(split + 12, y + 20, f"Pending set ({len(pend)})", 13, INK, "l", bold=True)
    pic.line([(split, y + 12), (split, y + 104)], tint(col, 0.5), 1.5)
    if hand:
        _card_row(pic, MARGIN + 12, y + 36, split - MARGIN - 24, hand, CARD_W, CARD_H)
    else:
        pic.text(MARGIN + 12, y + 60, "(no cards)", 12, MUTED)
    if pend:
        _card_row(pic, split + 12, y + 36, WIDTH - MARGIN - split - 24, pend, CARD_W, CARD_H)
    else:
        pic.text(split + 12, y + 60, "(empty)", 12, MUTED)
    disc = s.discard[row, viewer]
    text = " ".join(f"{D.KIND_NAMES[k]}×{int(disc[k])}" for k in range(D.NUM_KINDS) if disc[k])
    pic.text(MARGIN + 12, y + 116, f"discarded this round: {text or '–'}", 12, MUTED)
    _legend(pic, y + 146)


def _legend(pic: Picture, y: float) -> None:
    legend_x = MARGIN + 12
    for f, name in enumerate(D.FIGURE_NAMES):
        figure(pic, f, legend_x + 8, y, 7)
        pic.text(legend_x + 20, y, f"{D.FIGURES[f]} {name}", 11.5, INK)
        legend_x += 108
    golden_button(pic, legend_x + 8, y, 8)
    pic.text(legend_x + 22, y, "golden button (on doubles)", 11.5, INK)
    legend_x += 210
    combo_tile(pic, legend_x, y - 11, 22, 0)
    combo_tile(pic, legend_x + 26, y - 11, 22, 0, orange=True)
    pic.text(legend_x + 54, y, "combo tile green / orange (burned) side, value in the corner", 11.5, INK)
