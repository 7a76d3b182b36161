"""4 Monkeys state arrays (``B`` envs, ``P`` seats, ``NT`` combo tiles, ``S`` stacks, 10 card kinds)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from monkey_envs.core.state import BatchState

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


@dataclasses.dataclass
class FourMonkeysState(BatchState):
    """4 Monkeys game arrays (plus the shared fields of :class:`BatchState`).

    ``current_player`` is the seat that commits next in the current tick (seats commit in order
    0..P-1; the tick resolves after the last one).

    Attributes:
        commits: ``(B, P) int16`` this tick's committed actions, -1 = not yet (hidden until resolved).
        tick: ``(B,) int16`` ticks resolved in this round.
        round: ``(B,) int8`` rounds scored so far.
        replays: ``(B,) int8`` replays of the current round after invalid Stops.
        decks: ``(B, P, 40) int8`` each seat's deck, card kinds bottom -> top (entries past
            ``deck_size`` are -1).
        deck_size: ``(B, P) int8`` cards left in each deck.
        hands: ``(B, P, 10) int8`` cards of each kind in each hand.
        pending: ``(B, P, 10) int8`` cards of each kind in each seat's pending set.
        discard: ``(B, P, 10) int8`` cards of each kind each seat discarded this round.
        under: ``(B, NT, 10) int8`` cards of each kind face down under each tile.
        tile_state: ``(B, NT) int8`` ``TILE_STACK`` / ``TILE_LOOSE`` / ``TILE_GREEN`` / ``TILE_ORANGE``.
        tile_owner: ``(B, NT) int8`` owning seat, -1 on the table.
        tile_stack: ``(B, NT) int8`` stack holding the tile, -1 if none.
        stacks: ``(B, S, depth) int8`` tile ids bottom -> top (-1 past ``stack_size``).
        stack_size: ``(B, S) int8`` tiles in each stack.
        replenish_used: ``(B, P) bool`` Hand replenish turned to -1 this round.
        skin_given: ``(B, P) bool`` the seat handed over its Banana skin this round.
        skins: ``(B, P) int8`` Banana skins the seat received this round.
        totals: ``(B, P) int16`` game totals (round scores and invalid-Stop penalties).
        round_scores: ``(B, R, P) int16`` each scored round's points (no penalties).
        stats: ``(B, P, len(STAT_NAMES)) int32`` counters of :data:`STAT_NAMES`.
        tile_ok: ``(B, NT) bool`` the cards under the tile are a correct combo (set at the grab;
            seen only by the tile's owner).
        area: ``(B, P) int8`` each seat's playing area (0, or 1 with 7-8 players; regrouped by
            totals after each round).
        under_count: ``(B, NT) int16`` cards under each tile (``under`` summed over the kinds;
            public, kept with ``under`` so that the observation reads one count per tile). A
            derived field: state files leave it out and loading recomputes it.
    """

    #: ``under_count`` is ``under`` summed (not written to state files, recomputed on load).
    DERIVED_FIELDS: ClassVar[tuple[str, ...]] = ("under_count",)

    @classmethod
    def _derive(cls, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``under_count``: the cards under each tile, from ``under``."""
        return {"under_count": arrays["under"].sum(axis=2, dtype=np.int16)}

    commits: np.ndarray
    tick: np.ndarray
    round: np.ndarray
    replays: np.ndarray
    decks: np.ndarray
    deck_size: np.ndarray
    hands: np.ndarray
    pending: np.ndarray
    discard: np.ndarray
    under: np.ndarray
    tile_state: np.ndarray
    tile_owner: np.ndarray
    tile_stack: np.ndarray
    stacks: np.ndarray
    stack_size: np.ndarray
    replenish_used: np.ndarray
    skin_given: np.ndarray
    skins: np.ndarray
    totals: np.ndarray
    round_scores: np.ndarray
    stats: np.ndarray
    tile_ok: np.ndarray
    area: np.ndarray
    under_count: np.ndarray
