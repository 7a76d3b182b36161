"""Funky Monkey rules over a batch of games (no Python loop over the batch axis).

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

Card kinds are ``0..4`` = "1", "2", "3", "4", MiNuss. Chain reactions, pass-arounds and the turn
end (bonus, Scales, next monkey chip, new round, quitting time) resolve inside :meth:`step` in a
bounded loop over the rows still resolving; the state between steps always waits for a decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.game import Game, batch_arange, end_games
from monkey_envs.core.rng import draw_uint64, seed_rng, shuffle_prefix
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_EMPTY,
    BOWL_GOLDEN,
    END_LAST_MONKEY,
    END_NO_WINNER,
    END_NONE,
    END_QUITTING_TIME,
    END_REASONS,
    END_TIGER,
    NUM_PHASES,
    NUM_STATS,
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_OVER,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
    PHASE_NAMES,
    ST_AFTER,
    ST_DEBT,
    ST_DECIDE,
    ST_END_TURN,
    ST_LAND,
    ST_SCALES_ACCEPTER,
    ST_SCALES_ACTIVE,
    STAT_NAMES,
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


def num_actions_for(num_players: int) -> int:
    """Size of the flat action space for ``num_players`` seats (``42 + P``)."""
    return A_SCALES_TARGET + num_players - 1


# stat column indices
_S = {name: i for i, name in enumerate(STAT_NAMES)}
_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_SLOTS = np.flatnonzero(D.IS_SLOT)
_STEPS = D.CARD_STEPS.astype(np.int64)
_MAX_LOOP = 64  # chain reactions are short; this only guards against a rules bug

SPEC = GameSpec(
    name="funky_monkey",
    gym_name="FunkyMonkey",
    version=0,
    min_players=D.MIN_PLAYERS,
    max_players=D.MAX_PLAYERS,
    variants=D.VISIBILITY,
    chance=True,
    information="imperfect",
    reward_range=(D.REWARD_LOSS, D.REWARD_WIN),
    description="Pass a face-down movement card with an announcement (bluff allowed); first onto the tiger wins.",
    title="Funky Monkey",
    end_reasons=END_REASONS,
    default_players=(2, 4, 7),
)


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


def _groups(codes: np.ndarray, num_codes: int) -> list[tuple[int, np.ndarray]]:
    """``(code, positions)`` for every code present in ``codes`` (non-negative ints < ``num_codes``).

    One bincount and one stable sort instead of a comparison per code (the step's hot path).
    """
    counts = np.bincount(codes, minlength=num_codes)
    present = np.flatnonzero(counts)
    if present.size == 1:
        return [(int(present[0]), np.arange(codes.size))]
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(counts)
    return [(int(c), order[ends[c] - counts[c] : ends[c]]) for c in present]


def _flat(a: np.ndarray) -> np.ndarray:
    """1-D view of a C-contiguous array, so that writes through it land in ``a``."""
    if not a.flags.c_contiguous:  # pragma: no cover - step works on its own contiguous clone
        raise ValueError("Funky Monkey rules expect C-contiguous state arrays")
    return a.reshape(-1)


def _as_card(c: Any) -> int:
    """Card value as written by a user (1..4, ``"M"``/``"MiNuss"``/-1) -> kind 0..4."""
    if isinstance(c, str):
        if c.lower() in ("m", "minuss", "minus"):
            return D.CARD_MINUSS
        if c in ("1", "2", "3", "4"):
            return int(c) - 1
    elif isinstance(c, (int, np.integer)) and not isinstance(c, bool):
        if 1 <= int(c) <= 4:
            return int(c) - 1
        if int(c) == -1:
            return D.CARD_MINUSS
    raise ValueError(f"card {c!r} is not a movement card (1, 2, 3, 4 or 'M' for MiNuss)")


class FunkyMonkey(Game[FunkyMonkeyState]):
    """Funky Monkey (HUCH! 2020) for 2..7 players.

    Args:
        num_players: 2..7.
        tile_visibility: ``"basic"`` (the first two tiles face up), ``"every_second"`` or ``"all"``
            (DECISIONS.md flag; the rulebook recommends ``"all"`` for experts and two players).
        crown_bonus: DECISIONS.md flag: does a Crown play (face up, own monkey) earn the bonus
            move? Default False.
        variant: alias of ``tile_visibility`` (the generic faces pass ``variant``); give one of them.

    Raises:
        ValueError: an unsupported player count, visibility or flag value.
    """

    test_configs = (
        {"num_players": 4},
        {"num_players": 2},
        {"num_players": 7, "tile_visibility": "all", "crown_bonus": True},
    )
    spec = SPEC
    state_class = FunkyMonkeyState
    #: bounds of every observation entry (counts are scaled; 40 coconuts / 10 is the largest)
    obs_low = 0.0
    obs_high = 4.0

    def __init__(
        self,
        num_players: int = 4,
        tile_visibility: str | None = None,
        crown_bonus: bool = False,
        variant: str | None = None,
    ) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int in 2..7, got {num_players!r}")
        num_players = int(num_players)
        if not D.MIN_PLAYERS <= num_players <= D.MAX_PLAYERS:
            raise ValueError(f"num_players must be in 2..7 for Funky Monkey, got {num_players}")
        if tile_visibility is not None and variant is not None and tile_visibility != variant:
            raise ValueError(f"tile_visibility={tile_visibility!r} and variant={variant!r} disagree; give one")
        vis = tile_visibility if tile_visibility is not None else variant if variant is not None else "basic"
        if vis not in D.VISIBILITY:
            raise ValueError(f"unknown Funky Monkey tile_visibility {vis!r}; choose one of {D.VISIBILITY}")
        if not isinstance(crown_bonus, (bool, np.bool_)):
            raise ValueError(f"crown_bonus must be a bool, got {crown_bonus!r}")
        self._config = {"num_players": num_players, "tile_visibility": vis, "crown_bonus": bool(crown_bonus)}
        self.num_players = num_players
        self.num_actions = num_actions_for(num_players)
        self.tile_visibility = vis
        self.variant = vis
        self.crown_bonus = bool(crown_bonus)

        P = num_players
        # Index tables built once: rules are lookups and wheres.
        self.card_counts = D.card_counts(P)  # (5,) cards of each kind in play
        self.deck = np.repeat(np.arange(_K, dtype=np.int8), self.card_counts)  # (N,) kinds
        self.num_cards = int(self.deck.size)
        self.tiger_start = D.TIGER_START[P]
        self.phase_actions = _phase_actions(P)
        self._build_mask_table()
        self._tile_stacks = [np.array(D.TILE_STACKS_RECONSTRUCTED[b], dtype=np.int8) for b in D.TILE_BACKS]
        self._treasure_deck = np.array(D.TREASURE_DECK_RECONSTRUCTED, dtype=np.int8)
        # setup's random numbers per env: the shuffled stacks, decks, placing order, start bits, chips
        self._setup_draws = sum(t.size for t in self._tile_stacks) + self.num_cards + self._treasure_deck.size
        self._setup_draws += P + (P + 1) // 2 + P
        self._face_up0 = np.zeros(_L, dtype=bool)
        self._face_up0[list(D.FACE_UP_AT_START[vis])] = True
        self._rel = np.arange(P)
        self._targets = np.arange(1, P)  # Scales target offsets (left neighbours)
        # phase -> handler group (both respond phases in one call)
        self._handler_phase = np.array([PH_RESPOND if p == PH_RESPOND_SEEN else p for p in range(NUM_PHASES)], np.intp)
        self._left = np.arange(1, P + 1)  # offsets of the seats to the left, the seat itself last
        self._left_of = (self._rel[:, None] + self._left[None, :]) % P  # [seat] -> seats to its left
        self._targets_of = (self._rel[:, None] + self._targets[None, :]) % P  # [seat] -> Scales targets

        # Layout: one-hot pieces first (scattered in one go), then the per-seat counts, then the
        # other counts (each block written in one go) -- see _observe.
        pieces_onehot = [
            ObsPiece("phase", (NUM_PHASES,), "one-hot pending decision: " + ", ".join(PHASE_NAMES) + " (0 when over)"),
            ObsPiece("to_move", (P,), "one-hot seat to decide (observer-first; index 0 = observer)"),
            ObsPiece("active", (P,), "one-hot active player of this turn (observer-first)"),
            ObsPiece("holder", (P,), "one-hot seat holding the face-down card (respond phases; observer-first)"),
            ObsPiece("accepter", (P,), "one-hot seat that revealed this turn's card (observer-first)"),
            ObsPiece("announcement", (_K,), "one-hot announced kind 1, 2, 3, 4, MiNuss (0 for a Crown play)"),
            ObsPiece("known_card", (_K,), "one-hot card in flight if the observer knows it (played it / Telescope)"),
            ObsPiece("revealed", (_K,), "one-hot this turn's card once revealed (public)"),
            ObsPiece("pyramid_card", (_K,), "one-hot card the monkey pyramid revealed, awaiting a direction"),
            ObsPiece("golden", (P + 3,), "one-hot golden coconut: held by seat (observer-first), well, bowl 1, bowl 2"),
            ObsPiece("tiger", (_L,), "one-hot tiger space"),
            ObsPiece("position", (P, _L), "one-hot track space of each monkey (all 0 once out; observer-first)"),
            ObsPiece(
                "tiles",
                (_SLOTS.size, D.NUM_TILE_KINDS + 1),
                "per tile slot (spaces 2,3,4,5,7,8,10,11,13,14,15): one-hot face down (col 0) or face-up kind "
                "1..7 (coconut, golden, chest, pyramid, nearest_bowl, minus1, minus2)",
            ),
            ObsPiece("chips_left", (P,), "1 for seats still to be active this round after this turn (observer-first)"),
        ]
        pieces_seat = [
            ObsPiece("hand_sizes", (P,), "cards in each hand / 5 (observer-first)"),
            ObsPiece("treasure_counts", (P,), "treasure cards each seat holds, any type / 4 (observer-first)"),
            ObsPiece("alive", (P,), "1 while the seat's monkey is in the game (observer-first)"),
            ObsPiece("coconuts", (P,), "normal coconuts of each seat / 10 (observer-first)"),
            ObsPiece("tiger_distance", (P,), "(tiger - position) / 19 for monkeys in the game (observer-first)"),
            ObsPiece("truths_shown", (P,), "each seat's announcements revealed true so far / 5 (observer-first)"),
            ObsPiece("bluffs_shown", (P,), "each seat's announcements revealed as bluffs so far / 5 (observer-first)"),
        ]
        pieces_dense = [
            ObsPiece("passes", (1,), "times this turn's card was passed on / P"),
            ObsPiece("debt", (1,), "coconuts the mover still has to give up / 2"),
            ObsPiece("hand", (_K,), "own hand: cards of each kind / 5"),
            ObsPiece("treasures", (3,), "own treasure cards: Scales, Telescope, Crown (counts)"),
            ObsPiece("treasure_used", (3,), "treasure cards played so far: Scales, Telescope, Crown / 4"),
            ObsPiece("treasure_pile", (1,), "treasure cards left in the stack / 12"),
            ObsPiece("bowls", (2,), "1 where the offering bowl holds a coconut (normal or golden)"),
            ObsPiece("supply", (1,), "normal coconuts in the well / 40"),
            ObsPiece("unseen_tiles", (D.NUM_TILE_KINDS,), "tiles of each kind not face up (face down or removed) / 2"),
            ObsPiece("discard", (_K,), "revealed movement cards of each kind / (P + 2)"),
            ObsPiece(
                "unseen_cards",
                (_K,),
                "movement cards of each kind the observer has not seen (in play - discard - own hand - known card)"
                " / (P + 2)",
            ),
            ObsPiece("draw_size", (1,), "movement cards in the draw pile / 40"),
            ObsPiece("round", (1,), "round number / 5"),
            ObsPiece("turn_flags", (2,), "this turn is a Crown play; the chain in progress is the bonus move"),
        ]
        self.obs_layout = ObsLayout(pieces_onehot + pieces_seat + pieces_dense)
        sl = self.obs_layout.slices
        # Column tables of the one-hot pieces (see _observe): a local value ``v`` of a piece maps to
        # its column ``col[v + 1]``; an absent value (``v = -1``) maps to the dump column, the last
        # dense column, which _observe writes after the scatter (so the stray 1 is overwritten).
        dump = sl["turn_flags"].stop - 1
        self._dump_col = dump

        def col_table(start: int, width: int) -> np.ndarray:
            return np.concatenate([[dump], start + np.arange(width)]).astype(np.intp)

        # to_move, active, holder, accepter: seat (-1 = none) and observer -> column (observer-first seat)
        seat_p1 = np.arange(-1, P)[:, None]  # seat + 1 indexes the rows
        rel_seat = (seat_p1 - self._rel[None, :]) % P  # (P + 1, P)
        rel_col = []
        for name in ("to_move", "active", "holder", "accepter"):
            c = sl[name].start + rel_seat
            if name != "active":  # active is always a seat: (active - observer) % P as written
                c = np.where(seat_p1 >= 0, c, dump)
            rel_col.append(c)
        self._rel_col = np.stack(rel_col).astype(np.intp).ravel()  # [(piece * (P + 1) + seat + 1) * P + observer]
        self._rel_piece = (np.arange(4) * (P + 1) + 1) * P  # piece offsets into _rel_col (seat + 1 folded in)
        # announcement, known_card, revealed, pyramid_card: kind -1..4 -> column
        kind_pieces = ("announcement", "known_card", "revealed", "pyramid_card")
        self._kind_col = np.concatenate([col_table(sl[n].start, _K) for n in kind_pieces])
        self._kind_off = np.arange(4) * (_K + 1) + 1
        # golden code (seat 0..P-1, P well, P+1 bowl 1, P+2 bowl 2) and observer -> column
        gcode = np.arange(P + 3)[:, None]
        self._gold_col = (
            (sl["golden"].start + np.where(gcode < P, (gcode - self._rel[None, :]) % P, gcode)).astype(np.intp).ravel()
        )  # [gcode * P + observer]
        self._phase_col = col_table(sl["phase"].start, NUM_PHASES)
        self._tiger_col = col_table(sl["tiger"].start, _L)
        self._pos_col0 = (sl["position"].start + np.arange(P) * _L).astype(np.intp)  # + position of that seat
        self._tile_col0 = (sl["tiles"].start + np.arange(_SLOTS.size) * (D.NUM_TILE_KINDS + 1)).astype(np.intp)
        self._chip_col0 = sl["chips_left"].start
        chip_seat = np.arange(-1, P)[:, None]  # chips_left: [(seat + 1) * P + observer] -> column
        self._chip_col = np.where(chip_seat >= 0, self._chip_col0 + (chip_seat - self._rel[None, :]) % P, dump)
        self._chip_col = self._chip_col.astype(np.intp).ravel()
        self._tile_nibble = np.array([0] + [1 << (4 * k) for k in range(1, 8)], np.int64)  # face-up kind -> bits
        self._tile_comp_packed = int((D.TILE_COMPOSITION.astype(np.int64) << (4 * np.arange(1, 8))).sum())
        self._tile_shift = 4 * np.arange(1, 8, dtype=np.int64)
        self._card_counts8 = self.card_counts.astype(np.int8)
        self._num_onehot = 11 + P + _SLOTS.size + P  # scattered ones per row
        self._seat_scale = np.repeat(np.array([0.2, 0.25, 1.0, 0.1, 1.0 / _L, 0.2, 0.2], np.float32), P)
        self._seat_block = slice(sl["hand_sizes"].start, sl["bluffs_shown"].stop)
        self._dense_block = slice(sl["passes"].start, sl["turn_flags"].stop)
        cs = 1.0 / (P + 2)
        self._dense_scale = np.array(
            [1.0 / P, 0.5] + [0.2] * _K + [1.0] * 3 + [0.25] * 3 + [1.0 / D.NUM_TREASURES] + [1.0] * 2
            + [1.0 / D.TOTAL_COCONUTS] + [0.5] * D.NUM_TILE_KINDS + [cs] * _K + [cs] * _K
            + [1.0 / D.MAX_CARDS, 1.0 / D.NUM_ROUNDS, 1.0, 1.0],
            dtype=np.float32,
        )  # fmt: skip
        assert self._dense_scale.size == self._dense_block.stop - self._dense_block.start
        # column-major helpers of _observe
        self._rel_t = self._rel[:, None]
        self._rel_piece_t = self._rel_piece[:, None]
        self._kind_off_t = self._kind_off[:, None]
        self._pos_col0_t = self._pos_col0[:, None]
        self._tile_col0_t = self._tile_col0[:, None]
        self._rot_t = (self._rel[:, None] + self._rel[None, :]) % P  # [j, o]: the seat j places left of o

    # ================================================================== helpers
    def action_filters(self) -> dict[str, np.ndarray]:
        """``{"honest": (A,) bool}``: every action except face-down plays whose announcement
        differs from the card (plays ``5 * card + announce`` with ``card != announce``).

        The honest-only ablation trains a learner restricted to it (``learner_actions="honest"``);
        every active turn keeps a legal action (each card in hand can be announced truthfully).
        """
        allowed = np.ones(self.num_actions, dtype=bool)
        plays = np.arange(NUM_PLAY_ACTIONS)
        allowed[plays] = plays // _K == plays % _K
        return {"honest": allowed}

    def action_name(self, state: FunkyMonkeyState, row: int, action: int) -> str:
        """Readable meaning of ``action`` (independent of the row's phase)."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} out of range [0, {self.num_actions})")
        if a < A_CROWN:
            return f"play {D.CARD_NAMES[a // 5]} face down, announce {D.CARD_NAMES[a % 5]}"
        if a < A_ACCEPT:
            return f"Crown: play {D.CARD_NAMES[a - A_CROWN]} face up on own monkey"
        names = {
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
        if a in names:
            return names[a]
        cp = max(int(state.current_player[row]), 0)
        return f"Scales with player_{(cp + a - A_SCALES_TARGET + 1) % self.num_players}"

    def bluff_stats(self, state: FunkyMonkeyState) -> dict[str, np.ndarray]:
        """Bluff analytics of every env: ``name -> (B, P) int16`` (columns of ``state.stats``)."""
        return {name: state.stats[:, :, i].copy() for i, name in enumerate(STAT_NAMES)}

    # ------------------------------------------------------------------ analytics hooks
    stats_title = "Bluff analytics"

    def episode_stats(self, state: FunkyMonkeyState) -> dict[str, np.ndarray]:
        """The game-kit hook: the bluff statistics (:meth:`bluff_stats`)."""
        return self.bluff_stats(state)

    def stats_summary(self, totals: dict[str, int], seats: int) -> dict[str, Any] | None:
        """Bluff analytics of one agent (:func:`monkey_envs.funky_monkey.analytics.bluff_summary`)."""
        from monkey_envs.funky_monkey.analytics import bluff_summary

        return bluff_summary(totals, seats)

    def report_decisions(self, actions: np.ndarray) -> np.ndarray:
        """The face-down plays (``actions < NUM_PLAY_ACTIONS``): what the bluff-context report reads."""
        return np.asarray(actions) < NUM_PLAY_ACTIONS

    def decision_report(
        self, obs: np.ndarray, actions: np.ndarray, about: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any], str]:
        """The bluff rate by context of the recorded face-down plays (:mod:`monkey_envs.funky_monkey.analytics`)."""
        from monkey_envs.funky_monkey.analytics import bluff_context, context_markdown

        ctx = {**(about or {}), **bluff_context(self, obs, actions)}
        return "When does the agent bluff?", ctx, context_markdown(ctx)

    def total_coconuts(self, state: FunkyMonkeyState) -> np.ndarray:
        """``(B, P) int64`` coconuts of each seat, the golden one included."""
        g = state.golden.astype(np.int64)[:, None] == self._rel[None, :]
        return state.coconuts.astype(np.int64) + g

    def state_violations(self, state: FunkyMonkeyState) -> list[tuple[str, int, str]]:
        """The shared laws and the Funky Monkey laws (:mod:`~monkey_envs.funky_monkey.invariants`) broken by ``state``."""
        from monkey_envs.funky_monkey import invariants

        bad_layout = invariants.layout_violations(self, state)
        if bad_layout:  # no law can be read from arrays of the wrong type or shape
            return bad_layout
        return [*super().state_violations(state), *invariants.state_violations(self, state)]

    def resample_hidden(self, state: FunkyMonkeyState, seat: int, seed: int) -> FunkyMonkeyState | None:
        """Everything ``seat`` cannot see re-dealt (:func:`~monkey_envs.funky_monkey.invariants.resample_hidden`)."""
        from monkey_envs.funky_monkey import invariants

        return invariants.resample_hidden(self, state, seat, seed)

    def _next_alive_left(self, s: FunkyMonkeyState, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``(n,)`` first surviving seat to the left of ``seat`` (``seat`` itself if alone)."""
        P = self.num_players
        cand = np.take(self._left_of, seat, axis=0)  # (n, P) seats to the left, by table
        ok = np.take(s.alive, (rows * P)[:, None] + cand)
        return cand[np.arange(rows.size), ok.argmax(1)]

    def _finish(self, s: FunkyMonkeyState, rows: np.ndarray, winners: np.ndarray, reason: Any) -> None:
        """End games ``rows`` with ``winners (n, P) bool``: rewards, flags, empty mask.

        Inside :meth:`_step` only the phase and stage are written at once (all the rules read);
        the bookkeeping of every game ended in the step is written by one call at its end.
        """
        s.phase[rows] = PH_OVER
        s.stage[rows] = ST_DECIDE
        pending = s.__dict__.get("_ending")
        if pending is None:
            end_games(s, rows, winners, reason, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))
        else:
            pending.append((rows, winners, reason))

    def _finish_pending(self, s: FunkyMonkeyState) -> None:
        """Write the bookkeeping of the games :meth:`_finish` ended during the step (each row ends once)."""
        pending = s.__dict__.pop("_ending")
        if not pending:
            return
        if len(pending) == 1:
            rows, winners, reason = pending[0]
        else:
            rows = np.concatenate([p[0] for p in pending])
            winners = np.concatenate([p[1] for p in pending])
            reason = np.repeat(np.array([p[2] for p in pending], np.int8), [p[0].size for p in pending])
        end_games(s, rows, winners, reason, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))

    def _eliminate(self, s: FunkyMonkeyState, rows: np.ndarray, out: np.ndarray) -> None:
        """Eliminate seats ``out (n, P) bool`` of rows ``rows`` (live games) and end the games
        that are left with at most one monkey."""
        if rows.size == 0:
            return
        alive = s.alive[rows]
        out = out & alive
        alive &= ~out
        s.alive[rows] = alive
        if "_alive0" not in s.__dict__:  # outside _step; inside, _hands_out_of_play moves them once
            self._hands_out_of_play(s, rows, out)
        left = alive.sum(1)
        one = left == 1
        if np.count_nonzero(one):
            self._finish(s, rows[one], s.alive[rows[one]].copy(), END_LAST_MONKEY)
        none = left == 0
        if np.count_nonzero(none):
            self._finish(s, rows[none], np.zeros((int(none.sum()), self.num_players), bool), END_NO_WINNER)

    def _hands_out_of_play(self, s: FunkyMonkeyState, rows: np.ndarray, out: np.ndarray) -> None:
        """The hand cards of eliminated seats ``out (n, P) bool`` of rows ``rows`` leave play unseen."""
        hands = s.hands[rows]
        gone = np.where(out[:, :, None], hands, 0)
        s.out_of_play[rows] += gone.sum(1).astype(np.int8)
        s.hands[rows] = hands - gone

    def _eliminate_seat(self, s: FunkyMonkeyState, rows: np.ndarray, seat: np.ndarray) -> None:
        self._eliminate(s, rows, seat[:, None] == self._rel[None, :])

    # ================================================================== init
    def _init(self, seeds: np.ndarray) -> FunkyMonkeyState:
        B, P = seeds.shape[0], self.num_players
        rng = seed_rng(seeds)
        rows = np.arange(B)

        # All of setup's chance in one draw. The RNG is counter-based (each number depends only on
        # the row's key and counter), so splitting this draw into the shuffles below gives exactly
        # the numbers that one shuffle_prefix call per stack (and one bits draw) would have drawn.
        # Full-length prefixes: each shuffle is a stable argsort of its uniform keys.
        draws = draw_uint64(rng, rows, self._setup_draws)
        keys = (draws >> np.uint64(11)).astype(np.float64) / float(2**53)
        at = 0

        def shuffled(values: np.ndarray) -> np.ndarray:
            nonlocal at
            n = values.size
            order = np.argsort(keys[:, at : at + n], axis=1, kind="stable")
            at += n
            return values[order]

        # ---- jungle tiles: shuffle each back's stack, one tile removed unseen ---------------
        tiles = np.zeros((B, _L), np.int8)
        removed = np.zeros((B, len(D.TILE_BACKS)), np.int8)
        for i, back in enumerate(D.TILE_BACKS):  # loop over the three backs, not envs
            stack = self._tile_stacks[i]
            sh = shuffled(stack)
            slots = list(D.TILE_SLOTS_RECONSTRUCTED[back])
            tiles[:, slots] = sh[:, : len(slots)]
            removed[:, i] = sh[:, stack.size - 1]

        # ---- movement cards: shuffle, deal 5 each from the top, the rest is the draw pile ---
        N = self.num_cards
        deck = shuffled(self.deck)
        dealt = deck[:, N - P * D.HAND_SIZE :].reshape(B, P, D.HAND_SIZE)
        hands = (dealt[..., None] == np.arange(_K, dtype=np.int8)).sum(2).astype(np.int8)
        pile = np.full((B, D.MAX_CARDS), -1, np.int8)
        nd = N - P * D.HAND_SIZE
        pile[:, :nd] = deck[:, :nd]

        # ---- treasure cards ------------------------------------------------------------------
        tdeck = self._treasure_deck
        tpile = shuffled(tdeck)

        # ---- start spaces: random placing order; odd placers choose at random, even balance --
        order = shuffled(self._rel)
        bits = (draws[:, at : at + (P + 1) // 2] & np.uint64(1)).astype(np.int8)  # (B, ceil(P/2))
        at += (P + 1) // 2
        j = np.arange(P)
        space = np.where(j % 2 == 0, bits[:, j // 2], 1 - bits[:, j // 2])  # placer j's start space
        pos = np.zeros((B, P), np.int8)
        pos[rows[:, None], order] = np.where(space == 1, D.FRONT_START, D.REAR_START)

        # ---- monkey chips for round 1 ------------------------------------------------------------
        chips = shuffled(self._rel.astype(np.int8))
        assert at == self._setup_draws

        supply = D.TOTAL_COCONUTS - P * D.START_COCONUTS - sum(D.BOWL_START)
        s = FunkyMonkeyState(
            current_player=chips[:, 0].astype(np.int8),
            rewards=np.zeros((B, P), np.float32),
            terminated=np.zeros(B, bool),
            truncated=np.zeros(B, bool),
            legal_action_mask=np.zeros((B, self.num_actions), bool),
            step_count=np.zeros(B, np.int32),
            rng=rng,
            pos=pos,
            alive=np.ones((B, P), bool),
            coconuts=np.full((B, P), D.START_COCONUTS, np.int8),
            golden=np.full(B, -1, np.int8),
            bowls=np.broadcast_to(np.array(D.BOWL_START, np.int8), (B, 2)).copy(),
            supply=np.full(B, supply, np.int8),
            tiger=np.full(B, self.tiger_start, np.int8),
            tiles=tiles,
            face_up=np.broadcast_to(self._face_up0, (B, _L)).copy(),
            removed_tiles=removed,
            hands=hands,
            draw_pile=pile,
            draw_size=np.full(B, nd, np.int8),
            discard=np.zeros((B, _K), np.int8),
            out_of_play=np.zeros((B, _K), np.int8),
            treasure_pile=tpile,
            treasure_size=np.full(B, tdeck.size, np.int8),
            treasures=np.zeros((B, P, 3), np.int8),
            treasure_used=np.zeros((B, 3), np.int8),
            chip_order=chips.astype(np.int8),
            chip_next=np.ones(B, np.int8),
            round=np.ones(B, np.int8),
            active=chips[:, 0].astype(np.int8),
            phase=np.full(B, PH_ACTIVE, np.int8),
            stage=np.full(B, ST_DECIDE, np.int8),
            offer_card=np.full(B, -1, np.int8),
            announce=np.full(B, -1, np.int8),
            holder=np.full(B, -1, np.int8),
            passes=np.zeros(B, np.int8),
            seen=np.zeros((B, P), bool),
            crown_play=np.zeros(B, bool),
            accepter=np.full(B, -1, np.int8),
            revealed=np.full(B, -1, np.int8),
            mover=np.full(B, -1, np.int8),
            in_bonus=np.zeros(B, bool),
            debt=np.zeros(B, np.int8),
            debt_to=np.full(B, -1, np.int8),
            pyramid_card=np.full(B, -1, np.int8),
            stats=np.zeros((B, P, NUM_STATS), np.int16),
            winners_mask=np.zeros((B, P), bool),
            end_reason=np.zeros(B, np.int8),
        )
        self._refresh(s, rows)
        return s

    # ================================================================== step: decisions
    def _step(self, s: FunkyMonkeyState, actions: np.ndarray, live: np.ndarray) -> None:
        rows = np.flatnonzero(live)
        ph = s.phase[rows]
        act = actions[rows]
        handlers = {
            PH_ACTIVE: self._do_play,
            PH_RESPOND: self._do_respond,
            PH_PAY: self._do_pay,
            PH_BOWL: self._do_bowl,
            PH_PYRAMID: self._do_pyramid,
            PH_BONUS: self._do_bonus,
            PH_SCALES: self._do_scales,
        }
        # Games ended and seats eliminated during the step are booked once at its end: nothing in
        # the step reads the rewards / flags of an ended game or the hand of an eliminated seat
        # (hands change only in the play that opens a turn, before any elimination in that row).
        # The decisions' reveals and moves are row-local and each is the last thing a handler does
        # to its rows, so they are queued and run once for all rows (fewer, larger calls).
        d = s.__dict__
        d["_ending"] = []
        alive0 = d["_alive0"] = s.alive.copy()
        reveals = d["_reveals"] = []
        moves = d["_moves"] = []
        try:
            for code, idx in _groups(np.take(self._handler_phase, ph), NUM_PHASES):
                handlers[code](s, rows[idx], act[idx])
            del d["_reveals"]
            if reveals:
                self._reveal(s, reveals[0] if len(reveals) == 1 else np.concatenate(reveals))
            del d["_moves"]
            if moves:
                if len(moves) == 1:
                    self._move(s, *moves[0])
                else:
                    self._move(s, np.concatenate([m[0] for m in moves]), np.concatenate([m[1] for m in moves]))
            self._advance(s, rows)
        finally:
            d.pop("_reveals", None)
            d.pop("_moves", None)
            del d["_alive0"]
            self._finish_pending(s)
        gone = alive0 > s.alive  # seats eliminated in this step
        if np.count_nonzero(gone):
            out_rows = np.flatnonzero(gone.any(1))
            self._hands_out_of_play(s, out_rows, gone[out_rows])
        self._refresh(s, rows[~s.terminated[rows]])

    def _do_play(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Active player: a card face down with an announcement, or face up with a Crown."""
        crown = a >= A_CROWN
        k = np.where(crown, a - A_CROWN, a // 5)
        ann = np.where(crown, -1, a % 5)
        act = s.active[r].astype(np.int64)
        seat = r * self.num_players + act  # flat (B * P) seat: one index instead of two per write
        _flat(s.hands)[seat * _K + k] -= 1
        s.offer_card[r] = k
        s.announce[r] = ann
        _flat(s.seen)[seat] = True
        s.crown_play[r] = crown
        st = s.stats
        _flat(st)[seat * NUM_STATS + _S["turns_active"]] += 1
        if np.count_nonzero(crown):
            rc, ac = r[crown], act[crown]
            st[rc, ac, _S["crown_plays"]] += 1
            s.treasures[rc, ac, D.T_CROWN] -= 1
            s.treasure_used[rc, D.T_CROWN] += 1
            s.accepter[rc] = ac
            self._queue_reveal(s, rc)
        face_down = ~crown
        if np.count_nonzero(face_down):
            rf = r[face_down]
            h = self._next_alive_left(s, rf, act[face_down])
            s.holder[rf] = h
            s.passes[rf] = 0
            s.phase[rf] = PH_RESPOND
            s.current_player[rf] = h

    def _do_respond(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Holder of the face-down card: accept, pass on, or look through a Telescope."""
        h = s.holder[r].astype(np.int64)
        acc = a == A_ACCEPT
        if np.count_nonzero(acc):
            ra, ha = r[acc], h[acc]
            act = s.active[ra].astype(np.int64)
            st = _flat(s.stats)
            base = ra * (self.num_players * NUM_STATS)
            st[base + ha * NUM_STATS + _S["accepted"]] += 1
            bluff = s.offer_card[ra] != s.announce[ra]
            st[base + act * NUM_STATS + _S["bluffs_accepted"]] += bluff.astype(np.int16)
            s.accepter[ra] = ha
            self._queue_reveal(s, ra)
        ps = a == A_PASS
        if np.count_nonzero(ps):
            rp, hp = r[ps], h[ps]
            _flat(s.stats)[(rp * self.num_players + hp) * NUM_STATS + _S["cards_passed"]] += 1
            s.passes[rp] += 1
            nxt = self._next_alive_left(s, rp, hp)
            back = nxt == s.active[rp]
            if np.count_nonzero(back):  # it went all the way round: the active player must accept it
                rb = rp[back]
                s.accepter[rb] = s.active[rb]
                self._queue_reveal(s, rb)
            on = ~back
            if np.count_nonzero(on):
                ro = rp[on]
                s.holder[ro] = nxt[on]
                s.current_player[ro] = nxt[on]
                s.phase[ro] = PH_RESPOND
        tel = a == A_TELESCOPE
        if np.count_nonzero(tel):
            rt, ht = r[tel], h[tel]
            s.treasures[rt, ht, D.T_TELESCOPE] -= 1
            s.treasure_used[rt, D.T_TELESCOPE] += 1
            s.stats[rt, ht, _S["telescopes_used"]] += 1
            s.seen[rt, ht] = True
            s.phase[rt] = PH_RESPOND_SEEN

    def _queue_reveal(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """:meth:`_reveal` rows ``r`` (inside :meth:`_step`: once, after every decision is applied)."""
        pending = s.__dict__.get("_reveals")
        if pending is None:
            self._reveal(s, r)
        else:
            pending.append(r)

    def _queue_move(self, s: FunkyMonkeyState, r: np.ndarray, dest: np.ndarray) -> None:
        """:meth:`_move` rows ``r`` (inside :meth:`_step`: once, after the decisions and reveals)."""
        pending = s.__dict__.get("_moves")
        if pending is None:
            self._move(s, r, dest)
        elif r.size:
            pending.append((r, np.asarray(dest, dtype=np.int64)))

    def _reveal(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """The accepter reveals this turn's card (it goes to the discard at once) and applies it."""
        card = s.offer_card[r].astype(np.int64)
        m = s.accepter[r].astype(np.int64)
        s.discard[r, card] += 1
        s.revealed[r] = card
        # truthful or bluffed: counted when revealed (public from then on)
        fd = ~s.crown_play[r]
        act = s.active[r].astype(np.int64)
        truth = card == s.announce[r]
        # a face-down play counts once: as truthful or as a bluff (one write for both columns)
        col = np.where(truth, _S["truthful"], _S["bluffs"])
        col += (r * self.num_players + act) * NUM_STATS
        _flat(s.stats)[col] += fd.astype(np.int16)
        s.holder[r] = -1
        s.mover[r] = m
        s.in_bonus[r] = False
        minus = card == D.CARD_MINUSS
        if np.count_nonzero(minus):
            rm = r[minus]
            s.debt[rm] = 1
            s.debt_to[rm] = -1
            s.stage[rm] = ST_DEBT
        num = ~minus
        if np.count_nonzero(num):
            rn = r[num]
            self._queue_move(s, rn, s.pos[rn, m[num]].astype(np.int64) + _STEPS[card[num]])

    def _do_pay(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Give up one coconut of the chosen kind (the payer holds both kinds)."""
        m = s.mover[r].astype(np.int64)
        gold = a == A_PAY_GOLDEN
        dest = s.debt_to[r].astype(np.int64)
        to_well = dest < 0
        s.coconuts[r[~gold], m[~gold]] -= 1
        s.golden[r[gold]] = -1
        s.supply[r[to_well & ~gold]] += 1
        tb = ~to_well
        s.bowls[r[tb], dest[tb]] = np.where(gold[tb], BOWL_GOLDEN, BOWL_COCONUT)
        s.debt[r] -= 1
        s.stage[r] = np.where(s.debt[r] > 0, ST_DEBT, ST_AFTER)

    def _do_bowl(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Middle-row nearest-bowl tile: jump to the chosen bowl (a normal landing)."""
        self._queue_move(s, r, np.where(a == A_BOWL_2, D.BOWL_SPACES[1], D.BOWL_SPACES[0]))

    def _do_pyramid(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Monkey pyramid: move the revealed number forward or backward."""
        m = s.mover[r].astype(np.int64)
        n = _STEPS[s.pyramid_card[r].astype(np.int64)]
        x = s.pos[r, m].astype(np.int64)
        s.pyramid_card[r] = -1
        self._queue_move(s, r, np.where(a == A_PYRAMID_BACKWARD, x - n, x + n))

    def _do_bonus(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Bonus move after a truthful announcement: own monkey, tiger, or decline."""
        act = s.active[r].astype(np.int64)
        mk = a == A_BONUS_MONKEY
        if np.count_nonzero(mk):
            rm, am = r[mk], act[mk]
            s.stats[rm, am, _S["bonus_monkey"]] += 1
            s.in_bonus[rm] = True
            s.mover[rm] = am
            self._queue_move(s, rm, s.pos[rm, am].astype(np.int64) + 1)
        dc = a == A_BONUS_DECLINE
        if np.count_nonzero(dc):
            s.stats[r[dc], act[dc], _S["bonus_declined"]] += 1
            s.stage[r[dc]] = ST_SCALES_ACTIVE
        tg = a == A_BONUS_TIGER
        if np.count_nonzero(tg):
            rt = r[tg]
            s.stats[rt, act[tg], _S["bonus_tiger"]] += 1
            s.tiger[rt] -= 1
            s.stage[rt] = ST_SCALES_ACTIVE
            caught = s.alive[rt] & (s.pos[rt] == s.tiger[rt][:, None])
            self._eliminate(s, rt, caught)

    def _do_scales(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray) -> None:
        """Scales: pool coconuts with another survivor; the user takes the larger half (and the golden one)."""
        u = s.current_player[r].astype(np.int64)
        use = a != A_SCALES_SKIP
        if np.count_nonzero(use):
            ru, uu = r[use], u[use]
            t = (uu + a[use] - A_SCALES_TARGET + 1) % self.num_players
            g = s.golden[ru].astype(np.int64)
            gin = (g == uu) | (g == t)
            total = s.coconuts[ru, uu].astype(np.int64) + s.coconuts[ru, t] + gin
            s.coconuts[ru, uu] = (total + 1) // 2 - gin
            s.coconuts[ru, t] = total // 2
            s.golden[ru] = np.where(gin, uu, g)
            s.treasures[ru, uu, D.T_SCALES] -= 1
            s.treasure_used[ru, D.T_SCALES] += 1
            s.stats[ru, uu, _S["scales_used"]] += 1
        s.stage[r] = np.where(u == s.active[r], ST_SCALES_ACCEPTER, ST_END_TURN)

    # ================================================================== resolution machine
    def _advance(self, s: FunkyMonkeyState, rows: np.ndarray) -> None:
        """Run every row of ``rows`` until it waits for a decision or its game ends.

        The stages only ever hand a row on to a later stage (landing, debts, truth check, Scales,
        turn end), except that a forced move (pyramid, bowl jump) lands it again. So the landings
        run until no row lands any more and then each later stage runs once, on every row that
        reached it: rows are independent (each has its own RNG stream), so every row goes through
        the same stages in the same order as in one pass per landing, with far fewer calls.
        """
        stage = s.stage
        todo = rows[stage[rows] != ST_DECIDE]
        if not todo.size:
            return
        sub = todo[stage[todo] == ST_LAND]
        loops = 0
        while sub.size:
            self._land(s, sub)
            sub = sub[stage[sub] == ST_LAND]  # only a landing lands a row again
            loops += 1
            if loops > _MAX_LOOP:  # pragma: no cover - a rules bug, never a user error
                raise RuntimeError(f"Funky Monkey chain reaction did not settle in rows {sub[:10].tolist()}")
        for code, fn in (
            (ST_DEBT, self._pay),
            (ST_AFTER, self._after),
            (ST_SCALES_ACTIVE, self._scales_active),
            (ST_SCALES_ACCEPTER, self._scales_accepter),
            (ST_END_TURN, self._end_turn),
        ):
            sub = todo[stage[todo] == code]
            if sub.size:
                fn(s, sub)
        left = todo[stage[todo] != ST_DECIDE]
        if left.size:  # pragma: no cover - a stage handed a row back: a rules bug, never a user error
            raise RuntimeError(f"Funky Monkey chain reaction did not settle in rows {left[:10].tolist()}")

    def _decide(self, s: FunkyMonkeyState, r: np.ndarray, phase: int, seat: np.ndarray) -> None:
        s.phase[r] = phase
        s.current_player[r] = seat
        s.stage[r] = ST_DECIDE

    def _move(self, s: FunkyMonkeyState, r: np.ndarray, dest: np.ndarray) -> None:
        """The mover's monkey ends a move on ``dest``: win on the tiger, out beyond it, else land."""
        if r.size == 0:
            return
        m = s.mover[r].astype(np.int64)
        dest = np.asarray(dest, dtype=np.int64)
        s.pos[r, m] = dest
        tg = s.tiger[r]
        reach = dest >= tg
        if not np.count_nonzero(reach):  # the usual case: nobody reaches the tiger
            s.face_up[r, dest] |= D.IS_SLOT[dest]
            s.stage[r] = ST_LAND
            return
        win = dest == tg
        beyond = dest > tg
        ok = ~reach
        ro, do = r[ok], dest[ok]
        s.face_up[ro, do] |= D.IS_SLOT[do]
        s.stage[ro] = ST_LAND
        if np.count_nonzero(beyond):
            rb = r[beyond]
            s.stage[rb] = ST_AFTER
            self._eliminate_seat(s, rb, m[beyond])
        if np.count_nonzero(win):
            rw = r[win]
            w = np.zeros((rw.size, self.num_players), bool)
            w[np.arange(rw.size), m[win]] = True
            self._finish(s, rw, w, END_TIGER)

    def _land(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Apply the effect of the space the mover landed on."""
        m = s.mover[r].astype(np.int64)
        x = s.pos[r, m].astype(np.int64)
        eff = np.where(D.IS_SLOT[x], s.tiles[r, x], D.FIXED_EFFECT[x])
        s.stage[r] = ST_AFTER
        for e, idx in _groups(eff, len(D.EFFECT_NAMES)):
            rg, mg, xg = r[idx], m[idx], x[idx]
            if e == D.E_COCONUT:
                give = s.supply[rg] > 0
                s.coconuts[rg[give], mg[give]] += 1
                s.supply[rg[give]] -= 1
            elif e == D.E_GOLDEN:
                self._take_golden(s, rg, mg)
            elif e == D.E_CHEST:
                has = s.treasure_size[rg] > 0
                rc, mc = rg[has], mg[has]
                top = s.treasure_size[rc].astype(np.int64) - 1
                card = s.treasure_pile[rc, top].astype(np.int64)
                s.treasures[rc, mc, card] += 1
                s.treasure_pile[rc, top] = -1
                s.treasure_size[rc] -= 1
            elif e in (D.E_MINUS1, D.E_MINUS2):
                s.debt[rg] = 2 if e == D.E_MINUS2 else 1
                s.debt_to[rg] = -1
                s.stage[rg] = ST_DEBT
            elif e == D.E_BOWL:
                self._bowl(s, rg, mg, xg)
            elif e == D.E_NEAREST_BOWL:
                row = D.SLOT_ROW[xg]
                mid = row == 2
                self._decide(s, rg[mid], PH_BOWL, mg[mid])
                side = ~mid
                self._move(s, rg[side], np.where(row[side] == 1, D.BOWL_SPACES[0], D.BOWL_SPACES[1]))
            elif e == D.E_PYRAMID:
                self._pyramid(s, rg, mg, xg)

    def _take_golden(self, s: FunkyMonkeyState, r: np.ndarray, m: np.ndarray) -> None:
        """The mover takes the golden coconut from wherever it is; a robbed player left with none is out."""
        g = s.golden[r].astype(np.int64)
        from_player = (g >= 0) & (g != m)
        s.bowls[r] = np.where(s.bowls[r] == BOWL_GOLDEN, BOWL_EMPTY, s.bowls[r])
        s.golden[r] = m
        if np.count_nonzero(from_player):
            rp, gp = r[from_player], g[from_player]
            broke = s.alive[rp, gp] & (s.coconuts[rp, gp] == 0)
            if np.count_nonzero(broke):
                self._eliminate_seat(s, rp[broke], gp[broke])

    def _bowl(self, s: FunkyMonkeyState, r: np.ndarray, m: np.ndarray, x: np.ndarray) -> None:
        """Offering bowl: take what lies there, or sacrifice a coconut onto it."""
        b = (x == D.BOWL_SPACES[1]).astype(np.int64)
        c = s.bowls[r, b]
        n = c == BOWL_COCONUT
        s.coconuts[r[n], m[n]] += 1
        gd = c == BOWL_GOLDEN
        s.golden[r[gd]] = m[gd]
        s.bowls[r, b] = BOWL_EMPTY
        e = c == BOWL_EMPTY
        if np.count_nonzero(e):
            re = r[e]
            s.debt[re] = 1
            s.debt_to[re] = b[e]
            s.stage[re] = ST_DEBT

    def _pyramid(self, s: FunkyMonkeyState, r: np.ndarray, m: np.ndarray, x: np.ndarray) -> None:
        """Monkey pyramid: reveal the top movement card of the draw pile and act on it."""
        empty = s.draw_size[r] == 0
        if np.count_nonzero(empty):
            self._reshuffle(s, r[empty])
        size = s.draw_size[r].astype(np.int64)
        has = size > 0
        r, m, x, size = r[has], m[has], x[has], size[has]
        if r.size == 0:
            return
        card = s.draw_pile[r, size - 1].astype(np.int64)
        s.draw_pile[r, size - 1] = -1
        s.draw_size[r] -= 1
        s.discard[r, card] += 1
        minus = card == D.CARD_MINUSS
        s.debt[r[minus]] = 1
        s.debt_to[r[minus]] = -1
        s.stage[r[minus]] = ST_DEBT
        num = ~minus
        n = _STEPS[card]
        ask = num & (x - n >= 0)  # backward must not pass the rear start
        s.pyramid_card[r[ask]] = card[ask]
        self._decide(s, r[ask], PH_PYRAMID, m[ask])
        fwd = num & ~ask
        self._move(s, r[fwd], x[fwd] + n[fwd])

    def _reshuffle(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Shuffle the revealed movement cards into a new draw pile (the old one is empty)."""
        disc = s.discard[r].astype(np.int64)
        nd = disc.sum(1)
        cum = np.cumsum(disc, axis=1)
        k = np.arange(D.MAX_CARDS)
        values = (k[None, :, None] >= cum[:, None, :]).sum(2)
        values = np.where(k[None, :] < nd[:, None], values, -1).astype(np.int8)
        s.draw_pile[r] = shuffle_prefix(s.rng, r, values, nd)
        s.draw_size[r] = nd.astype(np.int8)
        s.discard[r] = 0

    def _pay(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Settle the mover's debt: ask which coconut when it matters, else pay at once."""
        m = s.mover[r].astype(np.int64)
        d = s.debt[r].astype(np.int64)
        g = s.golden[r] == m
        n = s.coconuts[r, m].astype(np.int64)
        tot = n + g
        ask = g & (n > 0) & (tot > d)
        if np.count_nonzero(ask):
            self._decide(s, r[ask], PH_PAY, m[ask])
        auto = ~ask
        r, m, d, g, n, tot = r[auto], m[auto], d[auto], g[auto], n[auto], tot[auto]
        if r.size == 0:
            return
        dest = s.debt_to[r].astype(np.int64)
        well = dest < 0
        broke = tot <= d  # pays everything: normal ones and the golden one
        paid_n = np.where(broke, n, d)
        s.coconuts[r, m] -= paid_n.astype(np.int8)
        s.supply[r[well]] += paid_n[well].astype(np.int8)
        gold_out = broke & g
        s.golden[r[gold_out]] = -1
        tb = ~well
        # a bowl debt is 1 coconut: the normal one if any was paid, else the golden one
        bowl_val = np.where(paid_n[tb] > 0, BOWL_COCONUT, np.where(gold_out[tb], BOWL_GOLDEN, BOWL_EMPTY))
        s.bowls[r[tb], dest[tb]] = bowl_val
        s.debt[r] = 0
        s.stage[r] = ST_AFTER
        if np.count_nonzero(broke):
            self._eliminate_seat(s, r[broke], m[broke])

    def _after(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Chain over: the truth check (bonus move) unless this was the bonus move itself."""
        act = s.active[r].astype(np.int64)
        truthful = (s.revealed[r] == s.announce[r]) | (s.crown_play[r] & self.crown_bonus)
        elig = truthful & ~s.in_bonus[r] & s.alive[r, act]
        s.stage[r] = ST_SCALES_ACTIVE
        if np.count_nonzero(elig):
            self._decide(s, r[elig], PH_BONUS, act[elig])

    # Scales is offered to a player holding *any* treasure card (only "keep" is legal without a
    # Scales card): who is asked is public, and the number of treasure cards is public too, so
    # being asked reveals nothing about the types of treasure cards a player holds.
    def _scales_active(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        a = s.active[r].astype(np.int64)
        t = s.treasures[r, a]  # counts >= 0: any card <=> the OR of the three is non-zero
        ok = s.alive[r, a] & ((t[:, 0] | t[:, 1] | t[:, 2]) != 0)
        s.stage[r] = ST_SCALES_ACCEPTER
        if np.count_nonzero(ok):
            self._decide(s, r[ok], PH_SCALES, a[ok])

    def _scales_accepter(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        c = s.accepter[r].astype(np.int64)
        cc = np.maximum(c, 0)
        t = s.treasures[r, cc]
        ok = (c >= 0) & (c != s.active[r]) & s.alive[r, cc] & ((t[:, 0] | t[:, 1] | t[:, 2]) != 0)
        s.stage[r] = ST_END_TURN
        if np.count_nonzero(ok):
            self._decide(s, r[ok], PH_SCALES, c[ok])

    def _end_turn(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Clear the turn, turn over the next monkey chip; new round or quitting time."""
        s.offer_card[r] = -1
        s.announce[r] = -1
        s.holder[r] = -1
        s.passes[r] = 0
        s.seen[r] = False
        s.crown_play[r] = False
        s.accepter[r] = -1
        s.revealed[r] = -1
        s.mover[r] = -1
        s.in_bonus[r] = False
        s.debt[r] = 0
        s.debt_to[r] = -1
        s.pyramid_card[r] = -1
        n = r.size
        ar = np.arange(n)
        h = s.hands[r]
        can = s.alive[r] & (h[:, :, 0] + h[:, :, 1] + h[:, :, 2] + h[:, :, 3] + h[:, :, 4] > 0)  # (n, P) can play
        order = s.chip_order[r].astype(np.int64)
        valid = (self._rel[None, :] >= s.chip_next[r][:, None]) & (order >= 0) & can[ar[:, None], np.maximum(order, 0)]
        has = valid.any(1)
        if np.count_nonzero(has):
            rh = r[has]
            nxt = valid[has].argmax(1)
            seat = order[has][np.arange(rh.size), nxt]
            s.chip_next[rh] = nxt + 1
            s.active[rh] = seat
            self._decide(s, rh, PH_ACTIVE, seat)
        over = ~has
        if not np.count_nonzero(over):
            return
        ro, co = r[over], can[over]
        more = co.any(1)
        if np.count_nonzero(more) < more.size:
            self._quitting_time(s, ro[~more])
        rn, cn = ro[more], co[more]
        if rn.size:
            # new round: the chips of the monkeys still in play, shuffled
            firsts = np.argsort(~cn, axis=1, kind="stable")
            # shuffle_prefix(s.rng, rn, firsts, count) with the same draws, in fewer calls: its keys
            # (draw >> 11) / 2**53 order exactly like the integers draw >> 11, and the entries past
            # the prefix (sorted after it, in place) become -1 anyway
            prefix = self._rel[None, :] < cn.sum(1)[:, None]
            keys = draw_uint64(s.rng, rn, self.num_players) >> np.uint64(11)
            keys[~prefix] = np.uint64(1 << 53)
            chips = np.take_along_axis(firsts, np.argsort(keys, axis=1, kind="stable"), axis=1)
            chips = np.where(prefix, chips, -1)
            s.chip_order[rn] = chips
            s.chip_next[rn] = 1
            s.round[rn] += 1
            s.active[rn] = chips[:, 0]
            self._decide(s, rn, PH_ACTIVE, chips[:, 0])

    def _quitting_time(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """All cards played: nearest to the tiger; tie -> golden coconut; -> most coconuts; -> shared."""
        g = s.golden[r].astype(np.int64)[:, None] == self._rel[None, :]
        key = s.pos[r].astype(np.int64) * 1000 + g * 500 + s.coconuts[r].astype(np.int64)
        key = np.where(s.alive[r], key, -1)
        winners = s.alive[r] & (key == key.max(1, keepdims=True))
        self._finish(s, r, winners, END_QUITTING_TIME)

    # ================================================================== mask
    def _refresh(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Legal-action mask of the pending decision for rows ``r`` (running games).

        The mask is a row of :attr:`_mask_table` picked by a key: the phase plus the facts that
        phase's actions depend on (cards in hand and Crown; Telescope; Scales targets in the game).
        """
        if r.size == 0:
            return
        P = self.num_players
        cp = s.current_player[r].astype(np.intp)
        seat = r * P + cp
        ph = s.phase[r]
        hand_bits = (np.take(s.hands.reshape(-1, _K), seat, axis=0) > 0).view(np.uint8) @ self._bit_weights[:_K]
        tr = np.take(s.treasures.reshape(-1, 3), seat, axis=0) > 0  # (n, 3)
        var = np.where(
            ph == PH_ACTIVE, hand_bits + 32 * tr[:, D.T_CROWN], np.where(ph == PH_RESPOND, tr[:, D.T_TELESCOPE], 0)
        )
        sc = np.flatnonzero(ph == PH_SCALES)  # Scales targets only where Scales is asked (a few rows)
        if sc.size:
            targets = np.take(s.alive, (r[sc] * P)[:, None] + np.take(self._targets_of, cp[sc], axis=0))
            targets &= tr[sc, D.T_SCALES, None]
            var[sc] = targets.view(np.uint8) @ self._bit_weights[: P - 1]  # P - 1 <= 6 bits: one byte
        s.legal_action_mask[r] = np.take(self._mask_table, self._mask_key0[ph] + var, axis=0)

    def _build_mask_table(self) -> None:
        """Every legal-action mask :meth:`_refresh` can produce, keyed by phase and the relevant facts."""
        P, A = self.num_players, self.num_actions
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
                rows.append(self.phase_actions[ph] & cond)
        self._mask_key0 = key0
        self._bit_weights = (1 << np.arange(8)).astype(np.uint8)  # bool columns -> one byte of bits
        self._mask_table = np.array(rows, dtype=bool)

    # ================================================================== observation
    def _observe(self, s: FunkyMonkeyState, player: np.ndarray) -> np.ndarray:
        # Built column-major -- (pieces, B) index and value arrays -- so that every numpy call runs
        # long inner loops over the batch instead of short ones over a few columns per row.
        B, P = s.batch_size, self.num_players
        W = self.obs_layout.size
        ar = batch_arange(B)
        o = player
        obs = np.zeros((B, W), dtype=np.float32)
        dump = self._dump_col
        arp = ar * P
        oi = arp + o  # flat (B * P) index of the observer's seat
        frot = np.take(self._rot_t, o, axis=1)  # (P, B) absolute seat of each observer-relative slot ...
        frot += arp  # ... as a flat (B * P) index
        live = s.phase >= 0
        known = (s.offer_card >= 0) & (s.revealed < 0) & np.take(s.seen, oi)
        nt = _SLOTS.size

        # ---- every one-hot piece as a column index (absent -> the dump column), scattered in one go ----
        col = np.empty((self._num_onehot, B), np.intp)
        col[0] = np.take(self._phase_col, s.phase + 1)  # phase is -1 (absent) exactly when over
        seats = np.empty((4, B), np.intp)
        seats[0] = np.where(live, s.current_player, -1)
        seats[1] = s.active
        seats[2] = s.holder
        seats[3] = s.accepter
        seats *= P
        seats += self._rel_piece_t
        seats += o
        col[1:5] = np.take(self._rel_col, seats)
        kinds = np.empty((4, B), np.intp)
        kinds[0] = s.announce
        kinds[1] = np.where(known, s.offer_card, -1)
        kinds[2] = s.revealed
        kinds[3] = s.pyramid_card
        kinds += self._kind_off_t
        col[5:9] = np.take(self._kind_col, kinds)
        bowl_gold = s.bowls == BOWL_GOLDEN  # (B, 2)
        gcode = np.where(s.golden >= 0, s.golden, np.where(bowl_gold[:, 0], P + 1, np.where(bowl_gold[:, 1], P + 2, P)))
        col[9] = np.take(self._gold_col, gcode.astype(np.intp) * P + o)
        col[10] = np.take(self._tiger_col, s.tiger + 1)
        pos_r = np.take(s.pos, frot)  # (P, B)
        col[11 : 11 + P] = np.where(np.take(s.alive, frot), self._pos_col0_t + pos_r, dump)
        face = (s.tiles * s.face_up).T[_SLOTS]  # (11, B) face-up kind, 0 face down
        col[11 + P : 11 + P + nt] = self._tile_col0_t + face
        order = s.chip_order.T.astype(np.intp)  # (P, B)
        later = (self._rel_t >= s.chip_next) & (order >= 0) & live
        later &= np.take(s.alive, arp + np.maximum(order, 0))
        chip = order * P  # (seat + 1) * P + observer indexes _chip_col; 0 (no chip) is the dump column
        chip += o + P
        chip *= later
        col[11 + P + nt :] = np.take(self._chip_col, chip)
        col += ar * W
        obs.reshape(-1)[col.ravel()] = 1.0

        # ---- per-seat counts: (7, B * P) by absolute seat, gathered observer-first as (7, P, B) -----------
        h, tr = s.hands, s.treasures  # explicit sums: numpy reduces short last axes slowly
        seat = np.empty((7, B, P), np.int16)  # int16 * float32 scale: the same float32 values
        seat[0] = h[:, :, 0] + h[:, :, 1] + h[:, :, 2] + h[:, :, 3] + h[:, :, 4]
        seat[1] = tr[:, :, 0] + tr[:, :, 1] + tr[:, :, 2]
        seat[2] = s.alive
        seat[3] = s.coconuts
        seat[4] = (s.tiger[:, None] - s.pos) * s.alive
        seat[5] = s.stats[:, :, _S["truthful"]]  # counted at the reveal: public
        seat[6] = s.stats[:, :, _S["bluffs"]]
        rot = np.take(seat.reshape(7, B * P), frot, axis=1).reshape(7 * P, B)  # [count * P + rel seat, row]
        np.multiply(rot, self._seat_scale[:, None], out=obs[:, self._seat_block].T)

        # ---- everything else, one block (also overwrites the dump column) ------------------------------
        hand = np.take(s.hands.reshape(B * P, _K), oi, axis=0)  # (B, 5)
        # tiles of each kind not face up: one 4-bit count per kind, summed over the slots (counts <= 3)
        unseen_tiles = self._tile_comp_packed - np.take(self._tile_nibble, face).sum(0)
        unseen_tiles = (unseen_tiles[:, None] >> self._tile_shift) & 15  # (B, 7)
        unseen = self._card_counts8 - s.discard - hand
        kn = np.flatnonzero(known)
        unseen[kn, s.offer_card[kn]] -= 1
        dense = np.concatenate(
            [
                s.passes[:, None],
                s.debt[:, None],
                hand,
                np.take(s.treasures.reshape(B * P, 3), oi, axis=0),
                s.treasure_used,
                s.treasure_size[:, None],
                s.bowls > 0,
                s.supply[:, None],
                unseen_tiles,
                s.discard,
                unseen,
                s.draw_size[:, None],
                s.round[:, None],
                s.crown_play[:, None],
                s.in_bonus[:, None],
            ],
            axis=1,
            dtype=np.int8,  # every count fits; int8 * float32 scale gives the same float32 values
        )
        np.multiply(dense, self._dense_scale, out=obs[:, self._dense_block])
        return obs

    def _winners(self, s: FunkyMonkeyState) -> np.ndarray:
        return s.winners_mask.copy()

    def episode_info(self, s: FunkyMonkeyState, row: int) -> dict[str, Any]:
        """End reason, winners, round, final track/coconut facts and the bluff analytics of ``row``."""
        tot = self.total_coconuts(s.take(row))[0]
        return {
            "end_reason": END_REASONS[int(s.end_reason[row])],
            "winners": np.flatnonzero(s.winners_mask[row]).tolist(),
            "round": int(s.round[row]),
            "positions": s.pos[row].astype(int).tolist(),
            "alive": s.alive[row].tolist(),
            "coconuts": tot.astype(int).tolist(),
            "golden": int(s.golden[row]),
            "tiger": int(s.tiger[row]),
            "bluff_stats": {name: s.stats[row, :, i].astype(int).tolist() for i, name in enumerate(STAT_NAMES)},
        }

    # ================================================================== positions
    def position(
        self,
        *,
        positions: list[int],
        coconuts: list[int] | None = None,
        golden: int | str = "well",
        bowls: tuple[int, int] = D.BOWL_START,
        tiger: int | None = None,
        tiles: dict[int, str] | None = None,
        face_up: str | list[int] | None = None,
        hands: list[list[Any]] | None = None,
        treasures: list[list[str]] | None = None,
        treasure_pile: list[str] | None = None,
        draw_pile: list[Any] | None = None,
        discard: list[Any] | None = None,
        alive: list[bool] | None = None,
        active: int = 0,
        turn_order: list[int] | None = None,
        round: int = 1,
        seed: int = 0,
    ) -> FunkyMonkeyState:
        """Build one specific position (batch size 1) at the start of ``active``'s turn.

        Args:
            positions: per seat, its monkey's track space 0..18 (kept for eliminated seats).
            coconuts: per seat, normal coconuts (default 3 each; eliminated seats may hold 0).
            golden: seat holding the golden coconut, ``"well"``, ``"bowl1"`` or ``"bowl2"``.
            bowls: normal coconuts (0/1) on bowls 1 and 2 (a bowl holding the golden one must be 0).
            tiger: the tiger's space (default: the space for this player count).
            tiles: tile slot -> tile name (``data.TILE_NAMES``); unnamed slots take the rest of
                their back's stack in an order shuffled with ``seed``, the leftover tile of each
                back is the removed one. A back may not hold more tiles of a kind than its stack.
            face_up: ``"basic"``, ``"every_second"``, ``"all"`` or a list of face-up slots
                (default: this game's ``tile_visibility``).
            hands: per seat, card values (1..4, ``"M"`` for MiNuss); default: 5 random cards
                each (seeded) for seats in the game.
            treasures: per seat, treasure names held (``"scales"``, ``"telescope"``, ``"crown"``).
            treasure_pile: treasure names, **top first**; default: the rest of the 12, shuffled.
                When given, treasure cards neither held nor in the pile count as already played.
            draw_pile: movement cards, **top first**; default: the rest of the cards in play
                (after hands and ``discard``) shuffled with ``seed``. When given, cards in play
                not in a hand, the pile or the discard count as out of play.
            discard: revealed movement cards (default none).
            alive: per seat, still in the game (default all).
            active: the seat whose turn starts now.
            turn_order: seats still to be active this round after ``active``, in order (default
                none: a new round starts after this turn).
            round: the round number 1..5.
            seed: seeds the state's RNG and the default orders above.

        Returns:
            A :class:`FunkyMonkeyState` with ``B = 1`` waiting for ``active`` to play.

        Raises:
            ValueError: wrong lengths, out-of-range spaces, more cards / tiles / treasures /
                coconuts than the game holds, an eliminated or card-less active player.
        """
        P = self.num_players
        rng = seed_rng(np.array([seed]))
        gen = np.random.default_rng([seed, 0x46554E4B])  # default orders (not game chance)
        if len(positions) != P:
            raise ValueError(f"positions must list {P} spaces, got {positions}")
        tg = self.tiger_start if tiger is None else int(tiger)
        if not 1 <= tg < _L:
            raise ValueError(f"tiger must be a space 1..{_L - 1}, got {tiger}")
        alive_a = np.ones(P, bool) if alive is None else np.asarray(alive, dtype=bool)
        if alive_a.shape != (P,) or alive_a.sum() < 2:
            raise ValueError(f"alive must list {P} flags with at least 2 monkeys in the game, got {alive}")
        pos = np.asarray(positions, dtype=np.int64)
        if (pos < 0).any() or (pos > 2 * _L).any() or (pos[alive_a] >= tg).any():
            raise ValueError(
                f"positions of monkeys in the game must be spaces in front of the tiger ({tg}), got {positions}"
            )
        coc = np.full(P, D.START_COCONUTS, np.int64) if coconuts is None else np.asarray(coconuts, np.int64)
        if coc.shape != (P,) or (coc < 0).any():
            raise ValueError(f"coconuts must list {P} counts >= 0, got {coconuts}")
        bw = np.asarray(bowls, dtype=np.int64)
        if bw.shape != (2,) or ((bw != 0) & (bw != 1)).any():
            raise ValueError(f"bowls must be two 0/1 counts, got {bowls}")
        bowl_arr = bw.astype(np.int8)
        if isinstance(golden, str):
            if golden not in ("well", "bowl1", "bowl2"):
                raise ValueError(f"golden must be a seat, 'well', 'bowl1' or 'bowl2', got {golden!r}")
            gseat = -1
            if golden != "well":
                b = int(golden[-1]) - 1
                if bowl_arr[b]:
                    raise ValueError(f"bowl {b + 1} cannot hold a coconut and the golden one")
                bowl_arr[b] = BOWL_GOLDEN
        else:
            gseat = int(golden)
            if not 0 <= gseat < P:
                raise ValueError(f"golden seat must be in [0, {P}), got {golden}")
        total = coc + (np.arange(P) == gseat)
        if (total[alive_a] == 0).any():
            raise ValueError(f"a monkey in the game needs at least one coconut: {total.tolist()}")
        supply = D.TOTAL_COCONUTS - int(coc.sum()) - int(bw.sum())
        if supply < 0:
            raise ValueError(f"more than {D.TOTAL_COCONUTS} normal coconuts placed")
        if not 0 <= active < P or not alive_a[active]:
            raise ValueError(f"active must be a seat still in the game, got {active}")

        # ---- tiles ---------------------------------------------------------------------------
        tile_arr = np.zeros(_L, np.int8)
        removed = np.zeros(len(D.TILE_BACKS), np.int8)
        given = dict(tiles or {})
        for slot, name in given.items():
            if not (0 <= slot < _L and D.IS_SLOT[slot]):
                raise ValueError(f"space {slot} is not a tile slot (slots: {_SLOTS.tolist()})")
            if name not in D.TILE_NAMES:
                raise ValueError(f"unknown tile {name!r}; choose from {D.TILE_NAMES}")
        for i, back in enumerate(D.TILE_BACKS):
            left = list(D.TILE_STACKS_RECONSTRUCTED[back])
            slots = D.TILE_SLOTS_RECONSTRUCTED[back]
            for slot in slots:
                if slot in given:
                    k = D.TILE_NAMES.index(given[slot]) + 1
                    if k not in left:
                        raise ValueError(f"the {back} stack has no more {given[slot]!r} tiles for slot {slot}")
                    left.remove(k)
                    tile_arr[slot] = k
            gen.shuffle(left)
            for slot in slots:
                if slot not in given:
                    tile_arr[slot] = left.pop()
            removed[i] = left.pop()
        if face_up is None:
            face_up = self.tile_visibility
        fu = np.zeros(_L, bool)
        if isinstance(face_up, str):
            if face_up not in D.FACE_UP_AT_START:
                raise ValueError(f"face_up must be one of {D.VISIBILITY} or a list of slots, got {face_up!r}")
            fu[list(D.FACE_UP_AT_START[face_up])] = True
        else:
            for slot in face_up:
                if not (0 <= slot < _L and D.IS_SLOT[slot]):
                    raise ValueError(f"face_up: space {slot} is not a tile slot")
                fu[slot] = True

        # ---- movement cards --------------------------------------------------------------------
        rest = self.card_counts.copy()
        hands_arr = np.zeros((P, _K), np.int64)
        if hands is None:
            pool = np.repeat(np.arange(_K), rest)
            gen.shuffle(pool)
            for p in range(P):
                if alive_a[p]:
                    for c in pool[: D.HAND_SIZE]:
                        hands_arr[p, c] += 1
                    pool = pool[D.HAND_SIZE :]
        else:
            if len(hands) != P:
                raise ValueError(f"hands must list {P} hands, got {len(hands)}")
            for p, h in enumerate(hands):
                if len(h) > D.HAND_SIZE:
                    raise ValueError(f"hand of seat {p} holds more than {D.HAND_SIZE} cards: {h}")
                if h and not alive_a[p]:
                    raise ValueError(f"seat {p} is out of the game and holds no cards")
                for c in h:
                    hands_arr[p, _as_card(c)] += 1
        if hands_arr[active].sum() == 0:
            raise ValueError(f"the active seat {active} has no card to play")
        rest -= hands_arr.sum(0)
        disc = np.zeros(_K, np.int64)
        for c in discard or []:
            disc[_as_card(c)] += 1
        rest -= disc
        out = np.zeros(_K, np.int64)
        if draw_pile is None:
            pile = np.repeat(np.arange(_K), np.maximum(rest, 0))
            gen.shuffle(pile)
        else:
            pile = np.array([_as_card(c) for c in draw_pile][::-1], dtype=np.int64)  # bottom -> top
            rest = rest - np.bincount(pile, minlength=_K)
            out = rest.copy()
        if (rest < 0).any():
            raise ValueError(
                f"more movement cards than in play ({self.card_counts.tolist()} of 1,2,3,4,M) in hands, "
                "draw_pile and discard"
            )
        pile_arr = np.full((1, D.MAX_CARDS), -1, np.int8)
        pile_arr[0, : pile.size] = pile

        # ---- treasure cards ------------------------------------------------------------------
        tr = np.zeros((P, 3), np.int64)
        tleft = np.bincount(np.array(D.TREASURE_DECK_RECONSTRUCTED), minlength=3)
        if treasures is not None:
            if len(treasures) != P:
                raise ValueError(f"treasures must list {P} entries, got {len(treasures)}")
            for p, names in enumerate(treasures):
                for t in names:
                    if t not in D.TREASURE_NAMES:
                        raise ValueError(f"unknown treasure card {t!r}; choose from {D.TREASURE_NAMES}")
                    tr[p, D.TREASURE_NAMES.index(t)] += 1
        tleft = tleft - tr.sum(0)
        if treasure_pile is None:
            tp = np.repeat(np.arange(3), np.maximum(tleft, 0))
            gen.shuffle(tp)
        else:
            for t in treasure_pile:
                if t not in D.TREASURE_NAMES:
                    raise ValueError(f"unknown treasure card {t!r}; choose from {D.TREASURE_NAMES}")
            tp = np.array([D.TREASURE_NAMES.index(t) for t in treasure_pile][::-1], dtype=np.int64)
            tleft = tleft - np.bincount(tp, minlength=3)
        if (tleft < 0).any():
            raise ValueError("more treasure cards than the 12 in the game")
        tp_arr = np.full((1, D.NUM_TREASURES), -1, np.int8)
        tp_arr[0, : tp.size] = tp
        used = tleft if treasure_pile is not None else np.zeros(3, np.int64)

        # ---- turn order ------------------------------------------------------------------------
        later = list(turn_order or [])
        if any(not 0 <= t < P or not alive_a[t] or t == active for t in later) or len(set(later)) != len(later):
            raise ValueError(f"turn_order must list distinct other seats still in the game, got {turn_order}")
        if not 1 <= round <= D.NUM_ROUNDS:
            raise ValueError(f"round must be in 1..{D.NUM_ROUNDS}, got {round}")
        chips = np.full((1, P), -1, np.int8)
        chips[0, : 1 + len(later)] = [active, *later]

        s = FunkyMonkeyState(
            current_player=np.array([active], np.int8),
            rewards=np.zeros((1, P), np.float32),
            terminated=np.zeros(1, bool),
            truncated=np.zeros(1, bool),
            legal_action_mask=np.zeros((1, self.num_actions), bool),
            step_count=np.zeros(1, np.int32),
            rng=rng,
            pos=pos[None].astype(np.int8),
            alive=alive_a[None].copy(),
            coconuts=coc[None].astype(np.int8),
            golden=np.array([gseat], np.int8),
            bowls=bowl_arr[None],
            supply=np.array([supply], np.int8),
            tiger=np.array([tg], np.int8),
            tiles=tile_arr[None],
            face_up=fu[None],
            removed_tiles=removed[None],
            hands=hands_arr[None].astype(np.int8),
            draw_pile=pile_arr,
            draw_size=np.array([pile.size], np.int8),
            discard=disc[None].astype(np.int8),
            out_of_play=out[None].astype(np.int8),
            treasure_pile=tp_arr,
            treasure_size=np.array([tp.size], np.int8),
            treasures=tr[None].astype(np.int8),
            treasure_used=used[None].astype(np.int8),
            chip_order=chips,
            chip_next=np.ones(1, np.int8),
            round=np.array([round], np.int8),
            active=np.array([active], np.int8),
            phase=np.array([PH_ACTIVE], np.int8),
            stage=np.array([ST_DECIDE], np.int8),
            offer_card=np.full(1, -1, np.int8),
            announce=np.full(1, -1, np.int8),
            holder=np.full(1, -1, np.int8),
            passes=np.zeros(1, np.int8),
            seen=np.zeros((1, P), bool),
            crown_play=np.zeros(1, bool),
            accepter=np.full(1, -1, np.int8),
            revealed=np.full(1, -1, np.int8),
            mover=np.full(1, -1, np.int8),
            in_bonus=np.zeros(1, bool),
            debt=np.zeros(1, np.int8),
            debt_to=np.full(1, -1, np.int8),
            pyramid_card=np.full(1, -1, np.int8),
            stats=np.zeros((1, P, NUM_STATS), np.int16),
            winners_mask=np.zeros((1, P), bool),
            end_reason=np.array([END_NONE], np.int8),
        )
        self._refresh(s, np.array([0]))
        return s

    # ================================================================== render
    def render(self, state: FunkyMonkeyState, row: int = 0, viewer: int | None = None) -> str:
        from monkey_envs.funky_monkey.render import render_text

        return render_text(self, state, row, viewer)
