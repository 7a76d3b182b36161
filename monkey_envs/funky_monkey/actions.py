"""Funky Monkey's flat action space: the action table, the actions of each phase, names, filters, legal masks.

One flat discrete action space (``A = 42 + P``) serves every decision the rulebook gives a
player; ``state.phase`` says which decision is pending and the mask admits only its actions:

========  =========================================  =====================================
action    meaning                                    legal in phase
========  =========================================  =====================================
0..24     play card kind ``a // 5`` face down,       ``active`` (card in hand)
          announcing kind ``a % 5``
25..29    Crown: play card kind ``a - 25`` face up   ``active`` (holds a Crown, card in hand)
          onto the own monkey
30        accept the offered card (reveal it)        ``respond``, ``respond_seen``
31        pass it on unseen to the left              ``respond``, ``respond_seen``
32        use a Telescope to look at it              ``respond`` (holds a Telescope)
33 / 34   bonus move: own monkey 1 forward / tiger   ``bonus``
          1 toward the start
35        decline the bonus move                     ``bonus``
36 / 37   monkey pyramid: forward / backward         ``pyramid``
38 / 39   nearest bowl from the middle row: bowl 1   ``bowl``
          (back) / bowl 2 (forward)
40 / 41   give up a normal / the golden coconut      ``pay``
42        keep the Scales (skip)                     ``scales`` (asked of a player holding any
                                                     treasure card, so that being asked reveals
                                                     nothing hidden)
43 + j   Scales with the seat ``j + 1`` places to   ``scales`` (holds a Scales card; that seat
          the left (``j = 0 .. P - 2``)              still in the game)
========  =========================================  =====================================

Card kinds are ``0..4`` = "1", "2", "3", "4", MiNuss.
"""

from __future__ import annotations

import numpy as np

from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import (
    NUM_PHASES,
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
    FunkyMonkeyState,
)

# ---------------------------------------------------------------- action table
NUM_PLAY_ACTIONS = 25
A_CROWN = 25
A_ACCEPT = 30
A_PASS = 31
A_TELESCOPE = 32
A_BONUS_MONKEY = 33
A_BONUS_TIGER = 34
A_BONUS_DECLINE = 35
A_PYRAMID_FORWARD = 36
A_PYRAMID_BACKWARD = 37
A_BOWL_1 = 38
A_BOWL_2 = 39
A_PAY_NORMAL = 40
A_PAY_GOLDEN = 41
A_SCALES_SKIP = 42
A_SCALES_TARGET = 43

_K = D.NUM_CARD_KINDS

#: Names of the actions whose meaning names neither a card nor a seat (the render names the others).
FIXED_NAMES = {
    A_ACCEPT: "accept the card",
    A_PASS: "pass the card on",
    A_TELESCOPE: "use a Telescope",
    A_BONUS_MONKEY: "bonus: move own monkey 1 forward",
    A_BONUS_TIGER: "bonus: move the tiger 1 back",
    A_BONUS_DECLINE: "bonus: decline",
    A_PYRAMID_FORWARD: "pyramid: forward",
    A_PYRAMID_BACKWARD: "pyramid: backward",
    A_BOWL_1: "nearest bowl: bowl 1 (back)",
    A_BOWL_2: "nearest bowl: bowl 2 (forward)",
    A_PAY_NORMAL: "give up a normal coconut",
    A_PAY_GOLDEN: "give up the golden coconut",
    A_SCALES_SKIP: "keep the Scales",
}


def num_actions_for(num_players: int) -> int:
    """Size of the flat action space for ``num_players`` seats (``42 + P``)."""
    return A_SCALES_TARGET + num_players - 1


def _phase_actions(num_players: int) -> np.ndarray:
    """``(NUM_PHASES, A) bool``: actions that belong to each phase (before per-row conditions)."""
    a = num_actions_for(num_players)
    t = np.zeros((NUM_PHASES, a), dtype=bool)
    t[PH_ACTIVE, :A_ACCEPT] = True
    t[PH_RESPOND, [A_ACCEPT, A_PASS, A_TELESCOPE]] = True
    t[PH_RESPOND_SEEN, [A_ACCEPT, A_PASS]] = True
    t[PH_BONUS, [A_BONUS_MONKEY, A_BONUS_TIGER, A_BONUS_DECLINE]] = True
    t[PH_PYRAMID, [A_PYRAMID_FORWARD, A_PYRAMID_BACKWARD]] = True
    t[PH_BOWL, [A_BOWL_1, A_BOWL_2]] = True
    t[PH_PAY, [A_PAY_NORMAL, A_PAY_GOLDEN]] = True
    t[PH_SCALES, A_SCALES_SKIP:] = True
    return t


def action_filters(num_actions: int) -> dict[str, np.ndarray]:
    """``{"honest": (A,) bool}``: every action except face-down plays whose announcement
    differs from the card (plays ``5 * card + announce`` with ``card != announce``).

    The honest-only ablation trains a learner restricted to it (``learner_actions="honest"``);
    every active turn keeps a legal action (each card in hand can be announced truthfully).
    """
    allowed = np.ones(num_actions, dtype=bool)
    plays = np.arange(NUM_PLAY_ACTIONS)
    allowed[plays] = plays // _K == plays % _K
    return {"honest": allowed}


class MaskTable:
    """Every legal-action mask of a ``P``-seat game, keyed by the phase and the facts its actions depend on.

    The facts: the kinds in the decider's hand and a Crown (``active``), a Telescope
    (``respond``), the Scales targets still in the game (``scales``). :meth:`refresh` writes a
    row of :attr:`table` per game, picked by one key.

    Attributes:
        key0: ``(NUM_PHASES,) intp`` first table row of each phase.
        table: ``(rows, A) bool`` the masks (64 for ``active``, 2 for ``respond``, ``2 ** (P - 1)``
            for ``scales``, 1 for every other phase).
        bit_weights: ``(8,) uint8`` ``1 << i``: bool columns -> one byte of bits.
        targets_of: ``(P, P - 1) int64`` ``[seat] ->`` its Scales targets (the seats to its left).
    """

    def __init__(self, num_players: int, phase_actions: np.ndarray) -> None:
        """Build the table of a ``num_players``-seat game from its ``(NUM_PHASES, A) bool`` ``phase_actions``."""
        P, A = num_players, num_actions_for(num_players)
        self.num_players = P
        rel = np.arange(P)
        self.targets_of = (rel[:, None] + np.arange(1, P)[None, :]) % P
        key0 = np.zeros(NUM_PHASES, np.intp)
        rows = []
        for ph in range(NUM_PHASES):
            key0[ph] = len(rows)
            variants = {PH_ACTIVE: 64, PH_RESPOND: 2, PH_SCALES: 2 ** (P - 1)}.get(ph, 1)
            for var in range(variants):
                cond = np.ones(A, dtype=bool)
                if ph == PH_ACTIVE:
                    hand_ok = (var >> np.arange(_K)) & 1 > 0
                    cond[:NUM_PLAY_ACTIONS] = np.repeat(hand_ok, _K)
                    cond[A_CROWN:A_ACCEPT] = hand_ok & (var >= 32)
                elif ph == PH_RESPOND:
                    cond[A_TELESCOPE] = var > 0
                elif ph == PH_SCALES:
                    cond[A_SCALES_TARGET:] = (var >> np.arange(P - 1)) & 1 > 0
                rows.append(phase_actions[ph] & cond)
        self.key0 = key0
        self.bit_weights = (1 << np.arange(8)).astype(np.uint8)
        self.table = np.array(rows, dtype=bool)

    def refresh(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Write ``s.legal_action_mask`` of rows ``r (n,) int`` (running games) for their pending decision."""
        if r.size == 0:
            return
        P = self.num_players
        cp = s.current_player[r].astype(np.intp)
        seat = r * P + cp
        ph = s.phase[r]
        hand_bits = (np.take(s.hands.reshape(-1, _K), seat, axis=0) > 0).view(np.uint8) @ self.bit_weights[:_K]
        tr = np.take(s.treasures.reshape(-1, 3), seat, axis=0) > 0  # (n, 3)
        var = np.where(
            ph == PH_ACTIVE, hand_bits + 32 * tr[:, D.T_CROWN], np.where(ph == PH_RESPOND, tr[:, D.T_TELESCOPE], 0)
        )
        sc = np.flatnonzero(ph == PH_SCALES)  # Scales targets only where Scales is asked (a few rows)
        if sc.size:
            targets = np.take(s.alive, (r[sc] * P)[:, None] + np.take(self.targets_of, cp[sc], axis=0))
            targets &= tr[sc, D.T_SCALES, None]
            var[sc] = targets.view(np.uint8) @ self.bit_weights[: P - 1]  # P - 1 <= 6 bits: one byte
        s.legal_action_mask[r] = np.take(self.table, self.key0[ph] + var, axis=0)
