"""Funky Monkey state arrays (``B`` envs, ``P`` seats, ``L = 19`` track spaces).

Encodings: movement-card *kinds* ``0..4`` = "1", "2", "3", "4", MiNuss; tile / effect codes and
treasure codes as in :mod:`monkey_envs.funky_monkey.data`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.state import BatchState
from monkey_envs.funky_monkey import data as D

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


_L = D.TRACK_LENGTH
_K = D.NUM_CARD_KINDS
_T = len(D.TREASURE_NAMES)
#: ``(3,) int64`` treasure cards of each type in the game.
TREASURE_COUNTS = np.bincount(np.array(D.TREASURE_DECK_RECONSTRUCTED), minlength=_T).astype(np.int64)
P = "num_players"


def _card_counts(game: Any) -> np.ndarray:
    """``(5,)`` cards of each kind in the game's deck."""
    return game.card_counts


@state_schema
class FunkyMonkeyState(BatchState):
    """Funky Monkey game arrays (plus the shared fields of :class:`BatchState`).

    ``pos`` in detail: while the game runs, a monkey in the game is in front of the tiger
    (``0 <= pos < tiger``, so 0..17 of the 19-space track); a courage-test winner ends on the
    tiger's space. An eliminated monkey keeps its last space: the tiger's when caught by it, one
    in front of the tiger (out of coconuts) or one beyond it, possibly past the track's end (space
    18): up to 21 in play (a 4 played from space 17 with the tiger on 18). ``FunkyMonkey.position``
    may put an eliminated monkey on any space 0..38 (``2 * L``), the range the laws accept.

    Replacing a field (``state.pos = new_array``) is counted (:data:`FIELD_REPLACEMENTS`), so the
    game stops using the addresses it kept of the old array; writes into the arrays are not.
    """

    pos: np.ndarray = field("int8", (P,), "space of each seat's monkey (see above).", low=0, high=2 * _L)
    alive: np.ndarray = field("bool", (P,), "the monkey is still in the game.")
    coconuts: np.ndarray = field(
        "int8", (P,), "normal coconuts on each seat's monkey card.", low=0, high=D.TOTAL_COCONUTS
    )
    golden: np.ndarray = field(
        "int8",
        (),
        "seat holding the golden coconut; -1 when no player holds it (then it is in the well, or on a "
        "bowl where ``bowls == 2``).",
        low=-1,
        high="num_players-1",
    )
    bowls: np.ndarray = field(
        "int8", (2,), "offering bowls 1 and 2: 0 empty, 1 a coconut, 2 the golden coconut.", low=0, high=BOWL_GOLDEN
    )
    supply: np.ndarray = field("int8", (), "normal coconuts in the well.", low=0, high=D.TOTAL_COCONUTS)
    tiger: np.ndarray = field("int8", (), "the tiger's space.", low=0, high=_L - 1)
    tiles: np.ndarray = field(
        "int8",
        (_L,),
        "tile face (effect code 1..7) on each tile slot, 0 elsewhere.",
        low=np.where(D.IS_SLOT, 1, 0),
        high=np.where(D.IS_SLOT, D.NUM_TILE_KINDS, 0),
    )
    face_up: np.ndarray = field("bool", (_L,), "tile slot turned face up (meaningless on non-slots).")
    removed_tiles: np.ndarray = field(
        "int8",
        (len(D.TILE_BACKS),),
        "the tile removed unseen from each back (hidden from all).",
        low=1,
        high=D.NUM_TILE_KINDS,
    )
    hands: np.ndarray = field("int8", (P, _K), "movement cards of each kind in each hand.", low=0, high=_card_counts)
    draw_pile: np.ndarray = field(
        "int8", (D.MAX_CARDS,), "undealt movement cards, bottom -> top; -1 past ``draw_size``.", low=-1, high=_K - 1
    )
    draw_size: np.ndarray = field(
        "int8", (), "cards in the draw pile (used only by the monkey pyramid).", low=0, high="num_cards"
    )
    discard: np.ndarray = field(
        "int8", (_K,), "revealed movement cards of each kind (face up, public).", low=0, high=_card_counts
    )
    out_of_play: np.ndarray = field(
        "int8", (_K,), "hand cards of eliminated players (left play unseen).", low=0, high=_card_counts
    )
    treasure_pile: np.ndarray = field(
        "int8", (D.NUM_TREASURES,), "treasure cards bottom -> top; -1 past ``treasure_size``.", low=-1, high=_T - 1
    )
    treasure_size: np.ndarray = field(
        "int8", (), "treasure cards left (never reshuffled).", low=0, high=D.NUM_TREASURES
    )
    treasures: np.ndarray = field(
        "int8", (P, _T), "treasure cards held (Scales, Telescope, Crown).", low=0, high=TREASURE_COUNTS
    )
    treasure_used: np.ndarray = field(
        "int8", (_T,), "treasure cards played so far, by type (public).", low=0, high=TREASURE_COUNTS
    )
    chip_order: np.ndarray = field(
        "int8", (P,), "this round's monkey chips in turn order; -1 padding.", low=-1, high="num_players-1"
    )
    chip_next: np.ndarray = field(
        "int8", (), "index in ``chip_order`` of the next chip to turn over.", low=1, high="num_players"
    )
    round: np.ndarray = field("int8", (), "round number, 1..5.", low=1, high=D.NUM_ROUNDS)
    active: np.ndarray = field("int8", (), "the active player of the current turn.", low=0, high="num_players-1")
    phase: np.ndarray = field(
        "int8",
        (),
        "pending decision ``PH_*`` (``PH_OVER`` = -1 once the game ended).",
        low=PH_OVER,
        high=NUM_PHASES - 1,
    )
    stage: np.ndarray = field(
        "int8", (), "internal continuation ``ST_*`` (``ST_DECIDE`` between steps).", low=ST_DECIDE, high=ST_DECIDE
    )
    offer_card: np.ndarray = field(
        "int8", (), "kind of this turn's played card, -1 before the play.", low=-1, high=_K - 1
    )
    announce: np.ndarray = field(
        "int8", (), "announced kind (-1 for a Crown play or before the play).", low=-1, high=_K - 1
    )
    holder: np.ndarray = field(
        "int8", (), "seat holding the face-down card (respond phases), else -1.", low=-1, high="num_players-1"
    )
    passes: np.ndarray = field("int8", (), "times this turn's card was passed on.", low=0, high="num_players-1")
    seen: np.ndarray = field("bool", (P,), "seats that know this turn's card (its player, Telescope users).")
    crown_play: np.ndarray = field("bool", (), "this turn's card was played face up with a Crown.")
    accepter: np.ndarray = field(
        "int8", (), "seat that accepted (revealed) this turn's card, -1 before.", low=-1, high="num_players-1"
    )
    revealed: np.ndarray = field("int8", (), "this turn's card once revealed (public), else -1.", low=-1, high=_K - 1)
    mover: np.ndarray = field(
        "int8", (), "seat whose monkey the chain reaction acts on, -1 outside chains.", low=-1, high="num_players-1"
    )
    in_bonus: np.ndarray = field("bool", (), "the chain in progress is the bonus move.")
    debt: np.ndarray = field("int8", (), "coconuts the mover still has to give up.", low=0, high=2)
    debt_to: np.ndarray = field("int8", (), "where they go: -1 the well, 0/1 offering bowl 1/2.", low=-1, high=1)
    pyramid_card: np.ndarray = field(
        "int8", (), "kind revealed by the monkey pyramid awaiting a direction, else -1.", low=-1, high=D.CARD_FOUR
    )
    stats: np.ndarray = field("int16", (P, NUM_STATS), "bluff analytics, columns :data:`STAT_NAMES`.", counter=True)

    def __setattr__(self, name: str, value: object) -> None:
        # a replacement by another object; not the constructor's first assignments, nor the same
        # array assigned back (``state.step_count += 1`` adds in place, then assigns the array)
        if self.__dict__.get(name, value) is not value:
            FIELD_REPLACEMENTS[0] += 1
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        FIELD_REPLACEMENTS[0] += 1
        object.__delattr__(self, name)
