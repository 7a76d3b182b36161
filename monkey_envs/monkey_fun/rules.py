"""Monkey Fun rules over a batch of games.

Action encoding (``A = 16``): the current player's hand is kept sorted ascending in slots
0..3. Action ``a`` in 0..14 plays the non-empty subset of slots whose bitmask is ``a + 1``
(bit ``j`` = slot ``j``), placing a monkey on the field numbered with the cards' sum.
Action 15 is the forced "no playable cards" discard (legal only when no subset is).
Different subsets with the same sum are different actions (they leave different hands);
subsets of equal cards in different slots are both legal and have the same effect.

The rules themselves are numba-compiled kernels (:mod:`monkey_envs.monkey_fun.kernels`): the
state stays numpy arrays with a leading batch axis, and each kernel is one compiled loop over
the rows -- no Python loop over the batch axis, so the cost of a step grows with ``B`` only
through that compiled work. This class validates options and inputs, builds the lookup tables
once per configuration and hands the state's arrays to the kernels.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game, as_seeds
from monkey_envs.core.plugins import Analytics, View
from monkey_envs.core.rng import seed_rng, shuffle_prefix
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun import kernels as K
from monkey_envs.monkey_fun.kernels import DISCARD_ACTION, NUM_ACTIONS, NUM_SUBSETS
from monkey_envs.monkey_fun.state import END_NONE, END_REASONS, MonkeyFunState

__all__ = ["DISCARD_ACTION", "NUM_ACTIONS", "NUM_SUBSETS", "SPEC", "SUBSET_BITS", "MonkeyFun"]

#: ``(15, 4) bool``: slots played by action ``a`` (bitmask ``a + 1``).
SUBSET_BITS = np.array([[(s >> j) & 1 for j in range(D.HAND_SIZE)] for s in range(1, 16)], dtype=bool)
_MAX_SUM = D.HAND_SIZE * D.MAX_CARD
_DECK_COUNTS = np.bincount(np.array(D.DECK), minlength=D.MAX_CARD + 1)


def _as_int(value: Any, what: str) -> int:
    """``value`` (an int or numpy integer) as an int; ``ValueError`` naming ``what`` for anything else (bool, float, str)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r:.60} ({type(value).__name__})")
    return int(value)


def _as_ints(values: Any, what: str, low: int | None = None, high: int | None = None) -> list[int]:
    """``values`` (a list, tuple or 1-D array of ints) as ints, each in ``[low, high]`` when given."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        raise ValueError(f"{what} must be a list of ints, got {values!r:.60} ({type(values).__name__})")
    out = [_as_int(v, f"{what} entry") for v in values]
    if any((low is not None and v < low) or (high is not None and v > high) for v in out):
        raise ValueError(f"{what} entries must be in [{low}, {high}], got {out}")
    return out


#: A state's arrays as the tuple the batch kernels take (order of ``kernels.STATE_FIELDS``); one
#: C-level call builds it.
_state_arrays = operator.attrgetter(*K.STATE_FIELDS)
#: The arrays the observe kernel reads besides ``counts`` (order of ``kernels.OBSERVED_FIELDS``).
_observed_arrays = operator.attrgetter(*K.OBSERVED_FIELDS)


SPEC = GameSpec(
    name="monkey_fun",
    gym_name="MonkeyFun",
    version=0,
    min_players=1,
    max_players=4,
    variants=D.VARIANTS,
    chance=True,
    information="imperfect",
    reward_range=(D.REWARD_LOSS, D.REWARD_WIN),
    description="Play 1-4 cards, place a monkey on the field of their sum; 4 in a row wins.",
    title="Monkey Fun",
    end_reasons=END_REASONS,
    default_players=(2,),
)


def _scores(game: MonkeyFun, state: MonkeyFunState) -> np.ndarray:
    """``(B, P) float64`` end-of-game points (normal game) or the solo score; 0 while running."""
    return state.scores.astype(np.float64)


def _episode_info(game: MonkeyFun, s: MonkeyFunState, row: int) -> dict[str, Any]:
    """``scores (P,) int64``: final points (the solo score), beside the shared end facts."""
    return {"scores": s.scores[row].astype(np.int64)}


class MonkeyFun(Game[MonkeyFunState]):
    """Monkey Fun (KOSMOS 2024): normal, quick and solo variants.

    Args:
        num_players: 1 (solo) to 4.
        variant: ``"normal"``, ``"quick"`` (a 2x2 square also wins) or ``"solo"``; ``None``
            picks ``"solo"`` for one player and ``"normal"`` otherwise.
        board_side: 1 or 2 (see :data:`~monkey_envs.monkey_fun.data.BOARD_LAYOUTS_RECONSTRUCTED`).
        place_on_own_secured: DECISIONS.md flag: may a player keep placing on a field they
            secured (default True).

    Raises:
        ValueError: an unsupported player count, variant or board side.
    """

    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {"num_players": 2},
        {"num_players": 4, "variant": "quick", "board_side": 2},
        {"num_players": 1},
    )
    spec = SPEC
    #: Text, pictures and legend; cards are played face up (every seat sees every move).
    view = View(
        render="monkey_envs.monkey_fun.render:render_text",
        picture="monkey_envs.monkey_fun.picture:draw",
        legend="monkey_envs.monkey_fun.render:legend_text",
        action_name="monkey_envs.monkey_fun.render:action_text",
        public_actions=True,
    )
    #: End-of-game points as scores and in ``info``.
    analytics = Analytics(scores=_scores, episode_info=_episode_info)
    #: Observation bounds (every piece is in [0, 1] except ``counts`` = monkeys / 4 <= 20 / 4).
    obs_low = 0.0
    obs_high = D.MONKEYS_PER_PLAYER / 4
    #: The endings' ``(win, loss, draw)`` rewards: the shared laws check finished games' rewards with them.
    end_rewards: ClassVar[tuple[float, float, float] | None] = (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW)
    #: The Monkey Fun laws and the re-deal of what a seat cannot see.
    laws: ClassVar[str] = "monkey_envs.monkey_fun.invariants"

    def __init__(
        self,
        num_players: int = 2,
        variant: str | None = None,
        board_side: int = 1,
        place_on_own_secured: bool = True,
    ) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int in 1..4, got {num_players!r}")
        num_players = int(num_players)
        if not 1 <= num_players <= 4:
            raise ValueError(f"num_players must be in 1..4 for Monkey Fun, got {num_players}")
        if variant is None:
            variant = "solo" if num_players == 1 else "normal"
        if variant not in D.VARIANTS:
            raise ValueError(f"unknown Monkey Fun variant {variant!r}; choose one of {D.VARIANTS}")
        if (variant == "solo") != (num_players == 1):
            raise ValueError(
                f"variant {variant!r} needs {'1 player' if variant == 'solo' else '2-4 players'}, "
                f"got num_players={num_players}"
            )
        if (
            isinstance(board_side, bool)
            or not isinstance(board_side, (int, np.integer))
            or board_side not in D.BOARD_SIDES
        ):
            raise ValueError(f"board_side must be one of {D.BOARD_SIDES}, got {board_side!r}")
        if not isinstance(place_on_own_secured, (bool, np.bool_)):
            raise ValueError(f"place_on_own_secured must be a bool, got {place_on_own_secured!r}")
        self._config = {
            "num_players": num_players,
            "variant": variant,
            "board_side": int(board_side),
            "place_on_own_secured": bool(place_on_own_secured),
        }
        self.num_players = num_players
        self.num_actions = NUM_ACTIONS
        self.variant = variant
        self.solo = variant == "solo"
        self.board_side = int(board_side)
        self.place_on_own_secured = bool(place_on_own_secured)

        # Lookup tables built once; the kernels read them.
        layout = np.array(D.BOARD_LAYOUTS_RECONSTRUCTED[self.board_side], dtype=np.int64).ravel()
        #: ``(36,)`` number printed on each field.
        self.field_number = layout
        #: ``(77,)`` field index of each card sum, -1 where no field has that number.
        self.field_of_number = np.full(_MAX_SUM + 1, -1, dtype=np.int64)
        self.field_of_number[layout] = np.arange(D.NUM_FIELDS)
        self.windows = D.LINE_WINDOWS if variant != "quick" else np.concatenate([D.LINE_WINDOWS, D.SQUARE_WINDOWS])
        #: ``(W,) uint64`` bitmask (bit = field index) of each winning window.
        self.window_bits = (np.uint64(1) << self.windows.astype(np.uint64)).sum(1, dtype=np.uint64)
        self._field_value = (layout / 36).astype(np.float32)
        #: ``(4 * 77 + 1,)`` field of each subset sum (-1: no field; sums using an empty slot are > 76).
        self._field_of_sum = np.full(D.HAND_SIZE * K.EMPTY_SLOT_VALUE + 1, -1, dtype=np.intp)
        self._field_of_sum[: _MAX_SUM + 1] = self.field_of_number
        P = num_players
        #: ``(P, 2**P) int8``: seat to move after seat ``cp`` given the bitmask of seats whose
        #: supply is not empty (the next such seat clockwise, ``cp`` itself last; with none
        #: left the next seat, as the game ends anyway).
        self._next_seat = np.zeros((P, 2**P), dtype=np.int8)
        for cp in range(P):
            for key in range(2**P):
                order = [(cp + k) % P for k in range(1, P + 1)]
                has = [o for o in order if key >> o & 1]
                self._next_seat[cp, key] = has[0] if has else order[0]

        self.obs_layout = ObsLayout(
            [
                ObsPiece("hand", (D.HAND_SIZE,), "own hand: sorted slot values / 19 (0 = empty slot)"),
                ObsPiece(
                    "action_field",
                    (NUM_SUBSETS, D.NUM_FIELDS),
                    "field each subset action a<15 would place on (one-hot; all 0 if its sum is no field)",
                ),
                ObsPiece("counts", (D.NUM_FIELDS, P), "monkeys per field per seat / 4 (seats observer-first)"),
                ObsPiece("owner", (D.NUM_FIELDS, P), "1 where that seat secured the field (observer-first)"),
                ObsPiece("field_value", (D.NUM_FIELDS,), "number printed on the field / 36"),
                ObsPiece("supply", (P,), "monkeys left in each seat's supply / 20 (observer-first)"),
                ObsPiece("box", (P,), "each seat's monkeys returned to the box / 20 (observer-first)"),
                ObsPiece("discard", (D.MAX_CARD,), "face-up discard pile: count of each value 1..19 / 4"),
                ObsPiece("draw_size", (1,), "cards in the draw pile / 55"),
                ObsPiece("to_move", (P,), "one-hot seat to move (observer-first; index 0 = observer)"),
                ObsPiece("solo", (2,), "solo only: minus-tower fields / 4, rounds played / 20"),
            ]
        )
        # the observe kernel writes every cell of a row, piece by piece in this order
        assert tuple(p.name for p in self.obs_layout.pieces) == K.OBS_PIECES
        #: ``(11,) int64`` start of each observation piece (order of ``kernels.OBS_PIECES``).
        self._obs_offsets = np.array([self.obs_layout.slices[k].start for k in K.OBS_PIECES], dtype=np.int64)
        tables = {
            "field_of_sum": self._field_of_sum,
            "field_number": self.field_number,
            "window_bits": self.window_bits,
            "next_seat": self._next_seat,
            "field_value": self._field_value,
            "obs_offsets": self._obs_offsets,
            "solo": self.solo,
            "own_ok": self.place_on_own_secured,
        }
        #: The tables and flags above as the one tuple the kernels take (order of ``kernels.RULES_FIELDS``).
        self._rules = tuple(tables[k] for k in K.RULES_FIELDS)
        # The row kernels' scratch arrays, made once here: Python calls the (reference-count free)
        # row kernels directly, so no compiled wrapper allocates them (a wrapper would compile
        # its row loop a second time, linked into its own module).
        self._deal_work = K.deal_work(P)
        self._step_work = K.step_work(P)
        self._obs_scratch, self._obs_rot = K.observe_work(P)

    # ================================================================== helpers
    def _refresh(self, s: MonkeyFunState) -> None:
        """Recompute the mask of every row for its current player (a stuck solo player loses)."""
        K.refresh(_state_arrays(s), self._rules)

    def final_scores(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """End-of-game scoring of boards ``counts (n, 36, P)``.

        Per field the unique highest count keeps it (a tie voids it); a seat scores the
        numbers of its kept fields. Returns ``scores (n, P) int16`` and ``winners (n, P) bool``
        after the tie-break (highest kept field; all-zero ties stay shared).
        """
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        n, P = counts.shape[0], counts.shape[2]
        scores = np.zeros((n, P), np.int16)
        winners = np.zeros((n, P), bool)
        K.final_scores(counts, self.field_number, scores, winners)
        return scores, winners

    # ================================================================== init
    def _init(self, s: MonkeyFunState, seeds: np.ndarray) -> None:
        # every array is set row by row by the deal kernel (the start values, then the deal)
        K.deal_rows(np.arange(seeds.shape[0], dtype=np.intp), seeds, _state_arrays(s), self._rules, self._deal_work)

    def _reset_rows(self, s: MonkeyFunState, rows: np.ndarray, seeds: np.ndarray) -> None:
        """New games dealt straight into ``rows`` (the kernel :func:`~monkey_envs.monkey_fun.kernels.deal_rows` of ``init``)."""
        K.deal_rows(rows, seeds, _state_arrays(s), self._rules, self._deal_work)

    # ================================================================== step
    #: Validation and the step of every running row are one compiled call.
    fused_step: ClassVar[bool] = True

    def _step_fused(self, s: MonkeyFunState, actions: np.ndarray) -> bool:
        return K.step_rows(actions, _state_arrays(s), self._rules, self._step_work)

    # ================================================================== observation
    def _observe(self, s: MonkeyFunState, player: np.ndarray) -> np.ndarray:
        obs = np.empty((s.batch_size, self.obs_layout.size), dtype=np.float32)
        self._observe_into(s, player, obs)
        return obs

    def _observe_into(self, s: MonkeyFunState, player: np.ndarray, out: np.ndarray) -> None:
        # the row loop reads the arrays flat: a strided state's arrays are copied (C ones are kept)
        seen = _observed_arrays(s)
        if not all(a.flags.c_contiguous for a in seen):
            seen = tuple(np.ascontiguousarray(a) for a in seen)
        counts = np.ascontiguousarray(s.counts)
        K.observe_rows(player, out, counts, seen, self._rules, self._obs_scratch, self._obs_rot)

    # ================================================================== positions
    def position(
        self,
        *,
        hands: list[list[int]],
        board: dict[int, list[int]] | None = None,
        owners: dict[int, int] | None = None,
        box: list[int] | None = None,
        supply: list[int] | None = None,
        draw_pile: list[int] | None = None,
        discard: list[int] | None = None,
        current_player: int = 0,
        seed: int = 0,
    ) -> MonkeyFunState:
        """Build one specific position (batch size 1), e.g. for a scenario test.

        Args:
            hands: per seat, its hand card values (at most 4 each).
            board: field *number* (1..36, as printed) -> monkeys per seat, e.g. ``{23: [3, 2]}``.
            owners: field number -> seat that secured it.
            box: per seat, monkeys already returned to the box (default 0).
            supply: per seat, monkeys in front of the player (default 20 - board - box).
            draw_pile: card values, **top card first**; default: the rest of the deck (after
                hands and ``discard``) in an order shuffled with ``seed``.
            discard: card values in the discard pile; default: the rest of the deck when
                ``draw_pile`` is given, else empty.
            current_player: seat to move.
            seed: seeds the state's RNG (later reshuffles) and the default draw-pile order.

        Returns:
            A :class:`MonkeyFunState` with ``B = 1``, mask computed (a solo position with no
            possible placement is already lost, as the rules say).

        Raises:
            ValueError: wrong lengths, card counts exceeding the deck, monkeys not adding up to 20,
                or an argument of the wrong type (a float, bool or str where an int belongs).
        """
        P = self.num_players
        M = D.MONKEYS_PER_PLAYER
        if not isinstance(hands, (list, tuple)):
            raise ValueError(f"hands must be a list of {P} hands, got {hands!r:.60}")
        hands = [_as_ints(h, f"hands[{p}]") for p, h in enumerate(hands)]
        if len(hands) != P or any(len(h) > D.HAND_SIZE for h in hands):
            raise ValueError(f"hands must list {P} hands of at most {D.HAND_SIZE} cards, got {hands}")
        current_player = _as_int(current_player, "current_player")
        if not 0 <= current_player < P:
            raise ValueError(f"current_player must be in [0, {P}), got {current_player}")
        for name, mapping in (("board", board), ("owners", owners)):
            if mapping is not None and not isinstance(mapping, dict):
                raise ValueError(f"{name} must be a dict field number -> ..., got {mapping!r:.60}")
        counts = np.zeros((D.NUM_FIELDS, P), dtype=np.int64)
        for num, c in (board or {}).items():
            num = _as_int(num, "board field number")
            c = _as_ints(c, f"board[{num}]")
            if not 1 <= num <= 36 or len(c) != P or min(c) < 0 or max(c) > M:
                raise ValueError(f"board entry {num}: {c} needs a field number 1..36 and {P} counts in 0..{M}")
            counts[self.field_of_number[num]] = c
        own = np.full(D.NUM_FIELDS, -1, dtype=np.int64)
        for num, seat in (owners or {}).items():
            num, seat = _as_int(num, "owners field number"), _as_int(seat, "owners seat")
            if not 1 <= num <= 36 or not 0 <= seat < P:
                raise ValueError(f"owners entry {num}: {seat} needs a field number 1..36 and a seat")
            own[self.field_of_number[num]] = seat
        boxv = np.asarray(_as_ints(box, "box", 0, M) if box is not None else [0] * P, dtype=np.int64)
        on_board = counts.sum(0)
        sup = (
            np.asarray(_as_ints(supply, "supply", 0, M), dtype=np.int64) if supply is not None else M - on_board - boxv
        )
        if boxv.shape != (P,) or sup.shape != (P,):
            raise ValueError(f"box and supply need {P} entries")
        if ((sup < 0) | (boxv < 0)).any() or (sup + on_board + boxv != D.MONKEYS_PER_PLAYER).any():
            raise ValueError(
                f"monkeys must add up to {D.MONKEYS_PER_PLAYER} per seat: supply {sup.tolist()} + "
                f"board {on_board.tolist()} + box {boxv.tolist()}"
            )
        if not self.solo and sup[current_player] == 0:
            raise ValueError(f"seat {current_player} has an empty supply and would be skipped; it cannot be to move")
        for f in np.flatnonzero(own >= 0):
            o = own[f]
            if np.delete(counts[f], o).any() or counts[f, o] < D.SECURE_MARGIN:
                raise ValueError(
                    f"field {self.field_number[f]} is secured by seat {o}: it needs >= {D.SECURE_MARGIN} of that "
                    f"seat's monkeys and none of the others', got {counts[f].tolist()}"
                )
        hand_cards = [c for h in hands for c in h]
        draw_pile = None if draw_pile is None else _as_ints(draw_pile, "draw_pile")
        discard = None if discard is None else _as_ints(discard, "discard")
        rng = seed_rng(as_seeds(_as_int(seed, "seed")))
        rest = _DECK_COUNTS.copy()
        for c in hand_cards + list(discard or []) + list(draw_pile or []):
            if not 1 <= c <= D.MAX_CARD:
                raise ValueError(f"card value {c} is not in 1..{D.MAX_CARD}")
            rest[c] -= 1
        if (rest < 0).any():
            raise ValueError(f"more copies than the deck holds of values {np.flatnonzero(rest < 0).tolist()}")
        rest_cards = [v for v in range(1, D.MAX_CARD + 1) for _ in range(rest[v])]
        if draw_pile is None:
            disc = list(discard or [])
            arr = np.zeros((1, D.NUM_CARDS), dtype=np.int8)
            arr[0, : len(rest_cards)] = rest_cards
            pile = shuffle_prefix(rng, np.array([0]), arr, np.array([len(rest_cards)]))[0, : len(rest_cards)]
        else:
            disc = list(discard) if discard is not None else rest_cards
            if discard is not None and rest.sum() != 0:
                raise ValueError(
                    f"hands, draw_pile and discard must hold all {D.NUM_CARDS} cards; {rest.sum()} missing"
                )
            pile = np.array(draw_pile[::-1], dtype=np.int8)  # stored bottom -> top
        pile_arr = np.zeros((1, D.NUM_CARDS), dtype=np.int8)
        pile_arr[0, : pile.size] = pile
        hands_arr = np.zeros((1, P, D.HAND_SIZE), dtype=np.int8)
        for p, h in enumerate(hands):
            hands_arr[0, p, : len(h)] = h
        hands_arr.sort(axis=2)
        s = MonkeyFunState(
            current_player=np.array([current_player], np.int8),
            rewards=np.zeros((1, P), np.float32),
            terminated=np.zeros(1, bool),
            truncated=np.zeros(1, bool),
            legal_action_mask=np.zeros((1, NUM_ACTIONS), bool),
            step_count=np.zeros(1, np.int32),
            rng=rng,
            counts=counts[None].astype(np.int8),
            owner=own[None].astype(np.int8),
            supply=sup[None].astype(np.int8),
            box=boxv[None].astype(np.int8),
            hands=hands_arr,
            draw_pile=pile_arr,
            draw_size=np.array([pile.size], np.int8),
            discard=np.bincount(np.array(disc, dtype=np.int64), minlength=D.MAX_CARD + 1)[None].astype(np.int8),
            scores=np.zeros((1, P), np.int16),
            winners_mask=np.zeros((1, P), bool),
            end_reason=np.array([END_NONE], np.int8),
            last_field=np.array([-1], np.int8),
        )
        self._refresh(s)
        s.mark_game(self)
        return s
