"""Funky Monkey state arrays (``B`` envs, ``P`` seats, ``L = 19`` track spaces).

Encodings: movement-card *kinds* ``0..4`` = "1", "2", "3", "4", MiNuss; tile / effect codes and
treasure codes as in :mod:`monkey_envs.funky_monkey.data`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from monkey_envs.core.state import BatchState

# ---------------------------------------------------------------- decision phases
PH_ACTIVE = 0  # the active player plays a hand card face down + announcement (or face up with a Crown)
PH_RESPOND = 1  # the holder of the face-down card accepts, passes it on, or uses a Telescope
PH_RESPOND_SEEN = 2  # the holder has looked through a Telescope: accept or pass
PH_PAY = 3  # the payer holds the golden and a normal coconut: which one to give up
PH_BOWL = 4  # nearest-bowl tile in the middle row: bowl 1 (back) or bowl 2 (forward)
PH_PYRAMID = 5  # monkey pyramid revealed a number: forward or backward
PH_BONUS = 6  # truthful announcement: move own monkey, move the tiger, or decline
PH_SCALES = 7  # end of turn, holds a treasure card: keep, or (with Scales) pick another surviving player
NUM_PHASES = 8
PH_OVER = -1  # the game has ended
PHASE_NAMES = ("active", "respond", "respond_seen", "pay", "bowl", "pyramid", "bonus", "scales")

# ---------------------------------------------------------------- internal continuation stages
ST_DECIDE = 0  # waiting for the decision of ``current_player`` in ``phase`` (or the game is over)
ST_LAND = 1  # the mover's monkey has just ended a move: apply the space's effect
ST_DEBT = 2  # the mover still owes ``debt`` coconuts to ``debt_to``
ST_AFTER = 3  # the chain reaction is over: truth check / bonus move
ST_SCALES_ACTIVE = 4  # offer Scales to the active player
ST_SCALES_ACCEPTER = 5  # offer Scales to the accepter
ST_END_TURN = 6  # turn over: next monkey chip (new round, quitting time)

# ---------------------------------------------------------------- end reasons
END_NONE = 0
END_TIGER = 1  # a monkey landed exactly on the tiger (courage test passed)
END_LAST_MONKEY = 2  # only one monkey is left
END_QUITTING_TIME = 3  # every card played: nearest to the tiger wins (tie-break)
END_NO_WINNER = 4  # the tiger caught every remaining monkey at once
END_REASONS = ("running", "tiger", "last_monkey", "quitting_time", "no_winner")

# ---------------------------------------------------------------- bluff analytics
STAT_NAMES = (
    "turns_active",  # turns as the active player (Crown turns included)
    "truthful",  # face-down plays whose card matched the announcement (counted at the reveal)
    "bluffs",  # face-down plays whose card did not match the announcement (counted at the reveal)
    "bluffs_accepted",  # own bluffs accepted by another player
    "bonus_monkey",  # bonus moves taken with the own monkey
    "bonus_tiger",  # bonus moves taken with the tiger
    "bonus_declined",  # bonus moves declined
    "cards_passed",  # offered cards passed on unseen (or after a Telescope look)
    "telescopes_used",
    "crown_plays",
    "scales_used",
    "accepted",  # offered cards accepted voluntarily (forced acceptance not counted)
)
NUM_STATS = len(STAT_NAMES)

#: ``bowls`` contents
BOWL_EMPTY, BOWL_COCONUT, BOWL_GOLDEN = 0, 1, 2

#: ``[n]``: how many times a field of any :class:`FunkyMonkeyState` was replaced or deleted. The
#: game keeps the data addresses of the arrays of the state it last stepped for its compiled
#: kernels (``rules._Addressed``) only while this count is unchanged.
FIELD_REPLACEMENTS = [0]


@dataclasses.dataclass
class FunkyMonkeyState(BatchState):
    """Funky Monkey game arrays (plus the shared fields of :class:`BatchState`).

    Attributes:
        pos: ``(B, P) int8`` space of each seat's monkey. While the game runs, a monkey in the
            game is in front of the tiger: ``0 <= pos < tiger`` (so 0..17 of the 19-space track);
            a courage-test winner ends on the tiger's space. An eliminated monkey keeps its last
            space: the tiger's when caught by it, one in front of the tiger (out of coconuts) or
            one beyond it, possibly past the track's end (space 18): up to 21 in play (a 4 played
            from space 17 with the tiger on 18). ``FunkyMonkey.position`` may put an eliminated
            monkey on any space 0..38 (``2 * L``), the range the invariants accept.
        alive: ``(B, P) bool`` the monkey is still in the game.
        coconuts: ``(B, P) int8`` normal coconuts on each seat's monkey card.
        golden: ``(B,) int8`` seat holding the golden coconut; -1 when no player holds it (then it
            is in the well, or on a bowl where ``bowls == 2``).
        bowls: ``(B, 2) int8`` offering bowls 1 and 2: 0 empty, 1 a coconut, 2 the golden coconut.
        supply: ``(B,) int8`` normal coconuts in the well.
        tiger: ``(B,) int8`` the tiger's space.
        tiles: ``(B, 19) int8`` tile face (effect code 1..7) on each tile slot, 0 elsewhere.
        face_up: ``(B, 19) bool`` tile slot turned face up (meaningless on non-slots).
        removed_tiles: ``(B, 3) int8`` the tile removed unseen from each back (hidden from all).
        hands: ``(B, P, 5) int8`` movement cards of each kind in each hand.
        draw_pile: ``(B, 40) int8`` undealt movement cards, bottom -> top; -1 past ``draw_size``.
        draw_size: ``(B,) int8`` cards in the draw pile (used only by the monkey pyramid).
        discard: ``(B, 5) int8`` revealed movement cards of each kind (face up, public).
        out_of_play: ``(B, 5) int8`` hand cards of eliminated players (left play unseen).
        treasure_pile: ``(B, 12) int8`` treasure cards bottom -> top; -1 past ``treasure_size``.
        treasure_size: ``(B,) int8`` treasure cards left (never reshuffled).
        treasures: ``(B, P, 3) int8`` treasure cards held (Scales, Telescope, Crown).
        treasure_used: ``(B, 3) int8`` treasure cards played so far, by type (public).
        chip_order: ``(B, P) int8`` this round's monkey chips in turn order; -1 padding.
        chip_next: ``(B,) int8`` index in ``chip_order`` of the next chip to turn over.
        round: ``(B,) int8`` round number, 1..5.
        active: ``(B,) int8`` the active player of the current turn.
        phase: ``(B,) int8`` pending decision ``PH_*`` (``PH_OVER`` = -1 once the game ended).
        stage: ``(B,) int8`` internal continuation ``ST_*`` (``ST_DECIDE`` between steps).
        offer_card: ``(B,) int8`` kind of this turn's played card, -1 before the play.
        announce: ``(B,) int8`` announced kind (-1 for a Crown play or before the play).
        holder: ``(B,) int8`` seat holding the face-down card (respond phases), else -1.
        passes: ``(B,) int8`` times this turn's card was passed on.
        seen: ``(B, P) bool`` seats that know this turn's card (its player, Telescope users).
        crown_play: ``(B,) bool`` this turn's card was played face up with a Crown.
        accepter: ``(B,) int8`` seat that accepted (revealed) this turn's card, -1 before.
        revealed: ``(B,) int8`` this turn's card once revealed (public), else -1.
        mover: ``(B,) int8`` seat whose monkey the chain reaction acts on, -1 outside chains.
        in_bonus: ``(B,) bool`` the chain in progress is the bonus move.
        debt: ``(B,) int8`` coconuts the mover still has to give up.
        debt_to: ``(B,) int8`` where they go: -1 the well, 0/1 offering bowl 1/2.
        pyramid_card: ``(B,) int8`` kind revealed by the monkey pyramid awaiting a direction, else -1.
        stats: ``(B, P, 12) int16`` bluff analytics, columns :data:`STAT_NAMES`.

    Replacing a field (``state.pos = new_array``) is counted (:data:`FIELD_REPLACEMENTS`), so the
    game stops using the addresses it kept of the old array; writes into the arrays are not.
    """

    pos: np.ndarray
    alive: np.ndarray
    coconuts: np.ndarray
    golden: np.ndarray
    bowls: np.ndarray
    supply: np.ndarray
    tiger: np.ndarray
    tiles: np.ndarray
    face_up: np.ndarray
    removed_tiles: np.ndarray
    hands: np.ndarray
    draw_pile: np.ndarray
    draw_size: np.ndarray
    discard: np.ndarray
    out_of_play: np.ndarray
    treasure_pile: np.ndarray
    treasure_size: np.ndarray
    treasures: np.ndarray
    treasure_used: np.ndarray
    chip_order: np.ndarray
    chip_next: np.ndarray
    round: np.ndarray
    active: np.ndarray
    phase: np.ndarray
    stage: np.ndarray
    offer_card: np.ndarray
    announce: np.ndarray
    holder: np.ndarray
    passes: np.ndarray
    seen: np.ndarray
    crown_play: np.ndarray
    accepter: np.ndarray
    revealed: np.ndarray
    mover: np.ndarray
    in_bonus: np.ndarray
    debt: np.ndarray
    debt_to: np.ndarray
    pyramid_card: np.ndarray
    stats: np.ndarray

    def __setattr__(self, name: str, value: object) -> None:
        # a replacement by another object; not the constructor's first assignments, nor the same
        # array assigned back (``state.step_count += 1`` adds in place, then assigns the array)
        if self.__dict__.get(name, value) is not value:
            FIELD_REPLACEMENTS[0] += 1
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        FIELD_REPLACEMENTS[0] += 1
        object.__delattr__(self, name)
