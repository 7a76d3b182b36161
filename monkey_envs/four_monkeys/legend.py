"""The 4 Monkeys text render (its ``View.render``), how to read it (``View.legend``: every mark the render uses) and the names of its actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from monkey_envs.core.game import seat_legend
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys.state import END_REASONS, TILE_LOOSE, TILE_ORANGE

if TYPE_CHECKING:
    from monkey_envs.four_monkeys.rules import FourMonkeys
    from monkey_envs.four_monkeys.state import FourMonkeysState


def legend_text(game: FourMonkeys) -> str:
    """The legend of ``game``'s render, its options' lines (areas, Banana skins) included."""
    figures = ", ".join(f"{ch} {name}" for ch, name in zip(D.FIGURES, D.FIGURE_NAMES, strict=True))
    combos = ", ".join(f"{name} ({int(pts)})" for name, pts in zip(D.COMBO_NAMES, D.COMBO_GREEN, strict=True))
    areas = len(game.area_sizes) > 1
    seat_fields = [
        *(["area = the playing area the seat plays in this round"] if areas else []),
        "total = its game points so far",
        "deck = cards left in its deck",
        f"hand = its hand (the seat itself: the cards; the others: 'N cards', a count only; a full hand is {D.HAND_SIZE})",
        "pending = the cards it has put ready for its next grab (the seat: the cards; the others: a count)",
        "replenish ready / used = its Hand replenish tile",
        *(
            ["skins N = Banana skins it received this round (-3 points each), '(given)' = it handed its own over"]
            if game.banana_skins
            else []
        ),
        "commit = its action for this tick (put, grab, burn, replenish: swap hand / draw 3, reveal, stop, "
        "wait -- the names of the moves): '-' = not yet; the seat itself sees the action, the others only "
        "'committed'",
    ]
    return "\n".join(
        [
            seat_legend(game.num_players),
            f"first line: the round (of {game.rounds}), the tick (the timer: a round lasts {game.ticks} ticks), "
            "'replays' = how often this round was played again after an invalid Stop",
            "one line per seat, its letter first: " + "; ".join(seat_fields),
            f"cards are named by their two figures: {figures}; e.g. 'CT' = a circle and a triangle; a double "
            "('CC', 'TT', 'SS', 'PP') shows one figure on a golden button",
            "  tiles: the combo tiles the seat grabbed, e.g. 't20 C+T [orange] (SS)' = tile 20 (set 2, combo "
            "C+T), [green] = full points, [orange] = burned (1 point less), then the cards under it "
            "face down (the seat: the cards; the others: '(N cards)', a count only); '-' = none",
            f"combos (green points): {combos}",
            "stacks: each combo stack's top tile and '(xN)' its number of tiles ('empty (x0)' = used up)",
            "revealed: tiles turned up next to the stacks (a reveal: grabbable like the stack tops); '-' = none",
            "rounds: the points of each finished round, one number per seat in seat order, rounds separated by '|'",
            f"game over (reason): winner(s) [...]: why the game ended ({', '.join(END_REASONS[1:])}) and "
            "who won (seat letters)",
        ]
    )


def _cards(counts: np.ndarray) -> str:
    out = [D.KIND_NAMES[k] for k in range(D.NUM_KINDS) for _ in range(int(counts[k]))]
    return " ".join(out) if out else "-"


def render_text(game: FourMonkeys, state: FourMonkeysState, row: int = 0, viewer: int | None = None) -> str:
    """The text picture of row ``row``: clock, every seat (``viewer``'s own cards and commit shown), stacks, rounds."""
    row, viewer = game.check_render_args(state, row, viewer)
    s, b, P = state, row, game.num_players
    head = (
        f"4 Monkeys: round {min(int(s.round[b]) + 1, game.rounds)}/{game.rounds}, "
        f"tick {int(s.tick[b])}/{game.ticks}, replays {int(s.replays[b])}"
    )
    lines = [head]
    for p in range(P):
        hand, pend = s.hands[b, p], s.pending[b, p]
        if p == viewer:
            h, pe = _cards(hand), _cards(pend)
        else:
            h, pe = f"{int(hand.sum())} cards", f"{int(pend.sum())} cards"
        c = int(s.commits[b, p])
        commit = "-" if c < 0 else (game._commit_name(s, b, p, c) if p == viewer else "committed")
        tiles = []
        for t in np.flatnonzero(s.tile_owner[b] == p).tolist():
            side = "orange" if s.tile_state[b, t] == TILE_ORANGE else "green"
            under = _cards(s.under[b, t]) if p == viewer else f"{int(s.under[b, t].sum())} cards"
            tiles.append(f"{game.tile_name(t)} [{side}] ({under})")
        lines.append(
            f"{D.SEAT_LETTERS[p]} (player_{p}): {f'area {int(s.area[b, p])}, ' if len(game.area_sizes) > 1 else ''}"
            f"total {int(s.totals[b, p])}, deck {int(s.deck_size[b, p])}, hand {h}, pending {pe}, "
            f"replenish {'used' if s.replenish_used[b, p] else 'ready'}"
            + (f", skins {int(s.skins[b, p])}{' (given)' if s.skin_given[b, p] else ''}" if game.banana_skins else "")
            + f", commit {commit}"
        )
        lines.append("  tiles: " + ("; ".join(tiles) if tiles else "-"))
    stacks = []
    for k in range(game.num_stacks):
        n = int(s.stack_size[b, k])
        top = game.tile_name(int(s.stacks[b, k, n - 1])) if n else "empty"
        stacks.append(f"{top} (x{n})")
    lines.append("stacks: " + "; ".join(stacks))
    loose = [game.tile_name(t) for t in np.flatnonzero(s.tile_state[b] == TILE_LOOSE).tolist()]
    lines.append("revealed: " + (", ".join(loose) if loose else "-"))
    if int(s.round[b]) > 0:
        done = s.round_scores[b, : int(s.round[b])]
        lines.append("rounds: " + " | ".join(" ".join(str(int(v)) for v in r) for r in done))
    if s.terminated[b]:
        winners = [D.SEAT_LETTERS[p] for p in np.flatnonzero(s.winners_mask[b])]
        lines.append(f"game over ({END_REASONS[int(s.end_reason[b])]}): winner(s) {winners or 'none'}")
    return "\n".join(lines)


def action_text(game: FourMonkeys, state: FourMonkeysState, row: int, action: int) -> str:
    """What ``action`` does for the seat to move in row ``row`` (``view.action_name``)."""
    if action < D.NUM_KINDS:
        return f"put {D.KIND_NAMES[action]}"
    if action < game.a_burn:
        t, j = divmod(action - game.a_grab, game.grab_variants)
        cp = max(int(state.current_player[row]), 0)
        skin = f" + Banana skin to {D.SEAT_LETTERS[(cp + j) % game.num_players]}" if j else ""
        return f"grab {game.tile_name(t)}{skin}"
    if action < game.a_swap:
        return f"burn {game.tile_name(action - game.a_burn)}"
    if action == game.a_swap:
        return "replenish: swap hand"
    if action == game.a_draw3:
        return "replenish: draw 3"
    if action < game.a_stop:
        return f"reveal {game.tile_name(action - game.a_reveal)}"
    return "stop" if action == game.a_stop else "wait"
