"""4 Monkeys state arrays (``B`` envs, ``P`` seats, ``NT`` combo tiles, ``S`` stacks, 10 card kinds)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.state import BatchState
from monkey_envs.four_monkeys import data as D

#: ``end_reason`` codes.
END_NONE = 0
END_ROUNDS = 1  # every round played and scored
END_REASONS = ("running", "rounds_played")

#: Tile locations (``tile_state``).
TILE_STACK = 0  # in a stack (the top one is available, the others are hidden)
TILE_LOOSE = 1  # put next to the stacks by a reveal: available
TILE_GREEN = 2  # owned, green side up
TILE_ORANGE = 3  # owned, burned (orange side up)

#: Columns of ``stats`` (per seat, whole game): what ``episode_stats`` reports.
STAT_NAMES = (
    "grabs",  # successful grabs
    "bluffs",  # successful grabs whose cards were not a correct combo
    "failed_grabs",  # grabs of a tile taken earlier in the same tick
    "burns",  # combo tiles burned
    "replenishes",  # Hand replenish used
    "reveals",  # tiles revealed
    "set_asides",  # tiles set aside at scoring (repeated or found incorrect)
    "smartest",  # rounds ended as (one of) the Smartest Monkey(s)
    "checked_wrong",  # own combos found incorrect in Step 3
    "stops",  # valid Stops called
    "invalid_stops",  # invalid Stops called (-10 each)
    "skins_given",  # Banana skins handed over
)
NUM_STATS = len(STAT_NAMES)


def _cards_in_play(game: Any) -> int:
    """Most cards one count can hold: every seat's deck."""
    return D.DECK_SIZE * game.num_players


def _last_area(game: Any) -> int:
    return len(game.area_sizes) - 1


P = "num_players"
NT = "num_tiles"
K = D.NUM_KINDS


@state_schema
class FourMonkeysState(BatchState):
    """4 Monkeys game arrays (plus the shared fields of :class:`BatchState`).

    ``current_player`` is the seat that commits next in the current tick (seats commit in order
    0..P-1; the tick resolves after the last one). ``NT`` is the game's ``num_tiles``, ``S`` its
    ``num_stacks``, ``depth`` its ``stack_depth``, ``R`` its ``rounds``.
    """

    #: ``under_count`` is ``under`` summed (not written to state files, recomputed on load).
    DERIVED_FIELDS: ClassVar[tuple[str, ...]] = ("under_count",)

    @classmethod
    def _derive(cls, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``under_count``: the cards under each tile, from ``under``."""
        return {"under_count": arrays["under"].sum(axis=2, dtype=np.int16)}

    commits: np.ndarray = field(
        "int16",
        (P,),
        "this tick's committed actions, -1 = not yet (hidden until resolved).",
        low=-1,
        high="num_actions-1",
        start=-1,
    )
    tick: np.ndarray = field("int16", (), "ticks resolved in this round.", low=0, high="ticks")
    round: np.ndarray = field("int8", (), "rounds scored so far.", low=0, high="rounds")
    replays: np.ndarray = field(
        "int8", (), "replays of the current round after invalid Stops.", low=0, high="max_replays"
    )
    decks: np.ndarray = field(
        "int8",
        (P, D.DECK_SIZE),
        "each seat's deck, card kinds bottom -> top (entries past ``deck_size`` are -1).",
        low=-1,
        high=K - 1,
        start=-1,
    )
    deck_size: np.ndarray = field("int8", (P,), "cards left in each deck.", low=0, high=D.DECK_SIZE)
    hands: np.ndarray = field("int8", (P, K), "cards of each kind in each hand.", low=0, high=_cards_in_play)
    pending: np.ndarray = field(
        "int8", (P, K), "cards of each kind in each seat's pending set.", low=0, high=_cards_in_play
    )
    discard: np.ndarray = field(
        "int8", (P, K), "cards of each kind each seat discarded this round.", low=0, high=_cards_in_play
    )
    under: np.ndarray = field(
        "int8", (NT, K), "cards of each kind face down under each tile.", low=0, high=_cards_in_play
    )
    tile_state: np.ndarray = field(
        "int8", (NT,), "``TILE_STACK`` / ``TILE_LOOSE`` / ``TILE_GREEN`` / ``TILE_ORANGE``.", low=0, high=TILE_ORANGE
    )
    tile_owner: np.ndarray = field(
        "int8", (NT,), "owning seat, -1 on the table.", low=-1, high="num_players-1", start=-1
    )
    tile_stack: np.ndarray = field(
        "int8", (NT,), "stack holding the tile, -1 if none.", low=-1, high="num_stacks-1", start=-1
    )
    stacks: np.ndarray = field(
        "int8",
        ("num_stacks", "stack_depth"),
        "tile ids bottom -> top (-1 past ``stack_size``).",
        low=-1,
        high="num_tiles-1",
        start=-1,
    )
    stack_size: np.ndarray = field("int8", ("num_stacks",), "tiles in each stack.", low=0, high="stack_depth")
    replenish_used: np.ndarray = field("bool", (P,), "Hand replenish turned to -1 this round.")
    skin_given: np.ndarray = field("bool", (P,), "the seat handed over its Banana skin this round.")
    skins: np.ndarray = field("int8", (P,), "Banana skins the seat received this round.", low=0, high=_cards_in_play)
    totals: np.ndarray = field("int16", (P,), "game totals (round scores and invalid-Stop penalties).")
    round_scores: np.ndarray = field("int16", ("rounds", P), "each scored round's points (no penalties).")
    stats: np.ndarray = field("int32", (P, NUM_STATS), "counters of :data:`STAT_NAMES`.", counter=True)
    tile_ok: np.ndarray = field(
        "bool", (NT,), "the cards under the tile are a correct combo (set at the grab; seen only by the tile's owner)."
    )
    area: np.ndarray = field(
        "int8",
        (P,),
        "each seat's playing area (0, or 1 with 7-8 players; regrouped by totals after each round).",
        low=0,
        high=_last_area,
    )
    under_count: np.ndarray = field(
        "int16",
        (NT,),
        "cards under each tile (``under`` summed over the kinds; public, kept with ``under`` so that "
        "the observation reads one count per tile). A derived field: state files leave it out and loading recomputes it.",
    )
