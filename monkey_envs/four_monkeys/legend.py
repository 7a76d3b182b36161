"""How to read the 4 Monkeys text render (:meth:`FourMonkeys.render_legend
<monkey_envs.four_monkeys.rules.FourMonkeys.render_legend>`): every mark the render uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from monkey_envs.core.game import seat_legend
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys.state import END_REASONS

if TYPE_CHECKING:
    from monkey_envs.four_monkeys.rules import FourMonkeys


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
