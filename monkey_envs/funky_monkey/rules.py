"""Funky Monkey rules over a batch of games (no Python loop over the batch axis).

One flat discrete action space (``A = 42 + P``, table in :mod:`~monkey_envs.funky_monkey.actions`)
serves every decision the rulebook gives a player; ``state.phase`` says which decision is pending
and the mask admits only its actions.

This module holds :class:`FunkyMonkey` and its stage machine; the action table, names, filters and
mask table are in ``actions.py``, the observation layout and kernel in ``observation.py``, the
seeded setup and the :meth:`FunkyMonkey.position` builder in ``position.py``.

Card kinds are ``0..4`` = "1", "2", "3", "4", MiNuss. Chain reactions, pass-arounds and the turn
end (bonus, Scales, next monkey chip, new round, quitting time) resolve inside :meth:`step` in a
bounded loop over the rows still resolving; the state between steps always waits for a decision.

The game runs compiled: ``init``, ``step`` (validation and the whole resolution, then the legal
mask) and ``observe`` are numba kernels (:mod:`~monkey_envs.funky_monkey.kernels`, one compiled
loop over the rows each, as Monkey Fun's), and the AEC face steps the state in place
(``fused_step``). The numpy rules below (:meth:`FunkyMonkey._step` and its stages,
``Observer.observe``, ``Setup.deal``, ``MaskTable.refresh``) are kept as the reference the kernels
reproduce bit for bit (``FunkyMonkey._step_reference``; ``tests/test_funky_monkey_compiled.py``)
and still serve ``position()`` and the invariants' masks.
"""

from __future__ import annotations

import dataclasses
import operator
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game, end_games
from monkey_envs.core.game import batch_arange as batch_arange
from monkey_envs.core.rng import draw_uint64, shuffle_prefix
from monkey_envs.core.rng import seed_rng as seed_rng
from monkey_envs.core.spec import GameSpec
from monkey_envs.core.spec import ObsLayout as ObsLayout
from monkey_envs.core.spec import ObsPiece as ObsPiece
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey import kernels as K
from monkey_envs.funky_monkey.actions import (
    A_ACCEPT,
    A_BONUS_DECLINE,
    A_BONUS_MONKEY,
    A_BONUS_TIGER,
    A_BOWL_1,
    A_BOWL_2,
    A_CROWN,
    A_PASS,
    A_PAY_GOLDEN,
    A_PAY_NORMAL,
    A_PYRAMID_BACKWARD,
    A_PYRAMID_FORWARD,
    A_SCALES_SKIP,
    A_SCALES_TARGET,
    A_TELESCOPE,
    NUM_PLAY_ACTIONS,
    MaskTable,
    _phase_actions,
    action_filters,
    action_name,
    num_actions_for,
)
from monkey_envs.funky_monkey.observation import Observer
from monkey_envs.funky_monkey.position import Setup
from monkey_envs.funky_monkey.position import _as_card as _as_card
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_EMPTY,
    BOWL_GOLDEN,
    END_LAST_MONKEY,
    END_NO_WINNER,
    END_QUITTING_TIME,
    END_REASONS,
    END_TIGER,
    FIELD_REPLACEMENTS,
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
from monkey_envs.funky_monkey.state import END_NONE as END_NONE
from monkey_envs.funky_monkey.state import PHASE_NAMES as PHASE_NAMES

if TYPE_CHECKING:
    from monkey_envs.core.pictures import Picture

# The rules' public names. The action table lives in actions.py, the observation in observation.py
# and the starting positions in position.py; every name this module held before that split is still
# importable from here (the ``X as X`` imports above and the names below), since agents and tests do.
__all__ = [
    "A_ACCEPT",
    "A_BONUS_DECLINE",
    "A_BONUS_MONKEY",
    "A_BONUS_TIGER",
    "A_BOWL_1",
    "A_BOWL_2",
    "A_CROWN",
    "A_PASS",
    "A_PAY_GOLDEN",
    "A_PAY_NORMAL",
    "A_PYRAMID_BACKWARD",
    "A_PYRAMID_FORWARD",
    "A_SCALES_SKIP",
    "A_SCALES_TARGET",
    "A_TELESCOPE",
    "NUM_PLAY_ACTIONS",
    "SPEC",
    "FunkyMonkey",
    "FunkyMonkeyState",
    "num_actions_for",
]

# stat column indices
_S = {name: i for i, name in enumerate(STAT_NAMES)}
_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_SLOTS = np.flatnonzero(D.IS_SLOT)
_STEPS = D.CARD_STEPS.astype(np.int64)
_MAX_LOOP = 64  # chain reactions are short; this only guards against a rules bug

#: A state's arrays as the tuple the compiled kernels take (order of ``kernels.STATE_FIELDS``); one
#: C-level call builds it.
_state_arrays = operator.attrgetter(*K.STATE_FIELDS)
if tuple(FunkyMonkeyState.field_names()) != K.STATE_FIELDS:  # pragma: no cover - a kernels/state mismatch
    raise ImportError("kernels.STATE_FIELDS must list FunkyMonkeyState's fields in order")

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


@dataclasses.dataclass(slots=True)
class _StepWork:
    """The work one :meth:`FunkyMonkey._step` queues to run in one batched call each (fewer, larger calls).

    ``_step`` creates it and passes it to every decision handler and stage that may queue into it;
    code that runs outside a step gets ``work=None`` and acts at once. Rows are rows of the step's state.

    Attributes:
        alive0: ``(B, P) bool`` copy of ``s.alive`` at the start of the step; the seats eliminated
            in the step (``alive0 > s.alive``) put their hand cards out of play once at its end.
        reveals: ``(n,) int`` rows whose accepter reveals the turn's card once every decision is
            applied; ``None`` once they have run (a reveal asked for later runs at once).
        moves: ``(rows (n,) int, dest (n,) int64)`` moves of the mover's monkey, run once after the
            reveals; ``None`` once they have run.
        ending: ``(rows (n,) int, winners (n, P) bool, reason)`` of every game ended in the step,
            booked by one ``end_games`` call at its end (each row ends once).
    """

    alive0: np.ndarray
    reveals: list[np.ndarray] | None
    moves: list[tuple[np.ndarray, np.ndarray]] | None
    ending: list[tuple[np.ndarray, np.ndarray, int]]


#: What :class:`_Addressed` keeps: the state (weakly), the replacement count, its arrays, ``(ptrs, dims)``.
_Kept = tuple["weakref.ref[FunkyMonkeyState]", int, tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray]]


def _through_copies(s: FunkyMonkeyState) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]:
    """``((ptrs, dims), copies)``: C-contiguous copies of ``s``'s arrays in the state's dtypes and their addresses.

    For a state whose arrays the kernels cannot take by address (a field replaced by a
    non-contiguous array, or by one of another dtype): the kernel works on the copies, then
    :func:`_write_back` puts what changed into ``s``'s own arrays. Rare, so not made fast.

    Raises:
        ValueError: an array with another number of dimensions than the state's, more than
            ``MAX_PLAYERS`` seats or a draw pile other than ``MAX_CARDS`` wide (the kernels' scratch).
    """
    copies = tuple(
        np.array(a, dtype=dt, order="C") for a, (dt, _) in zip(_state_arrays(s), K.FIELD_LAYOUT, strict=True)
    )
    ptrs, dims = _Addressed.fresh()
    if not K.address(copies, ptrs, dims):
        raise ValueError(
            "the state's arrays do not have the dimensions of a FunkyMonkeyState (kernels.FIELD_LAYOUT; at most "
            "MAX_PLAYERS seats, a draw pile of MAX_CARDS)"
        )
    return (ptrs, dims), copies


def _write_back(s: FunkyMonkeyState, copies: tuple[np.ndarray, ...]) -> None:
    """Copy each array of ``copies`` (of :func:`_through_copies`) that a kernel changed into ``s``'s own."""
    for a, c in zip(_state_arrays(s), copies, strict=True):
        if not np.array_equal(a, c):
            a[...] = c


class _Addressed:
    """The data addresses of the arrays of the state the game last addressed (``kernels.address``).

    The compiled kernels' ``*_at`` forms take these two small arrays instead of the 48 state
    arrays, which numba would unbox one by one on every call (about 10 us a call: most of a batch of
    one's step). They are valid while that very state object lives, holds the same arrays
    (:data:`~monkey_envs.funky_monkey.state.FIELD_REPLACEMENTS` unchanged) and those arrays keep
    their memory: the record holds them, so that none is freed or resized meanwhile. The state
    itself is held weakly and carries nothing extra. A copied or pickled game starts empty.

    Attributes:
        kept: ``(weakref to the state, FIELD_REPLACEMENTS then, its arrays, (ptrs, dims))`` or
            ``None``; one tuple, replaced whole, so that a reader sees one consistent record.
    """

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: _Kept | None = None

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (_Addressed, ())

    def of(self, s: FunkyMonkeyState) -> tuple[np.ndarray, np.ndarray] | None:
        """``(ptrs (48,) uint64, dims (48, 3) int64)`` of ``s``'s arrays if they are the kept ones, else ``None``."""
        kept = self.kept
        if kept is not None and kept[0]() is s and kept[1] == FIELD_REPLACEMENTS[0]:
            return kept[3]
        return None

    def keep(self, s: FunkyMonkeyState, arrays: tuple[np.ndarray, ...], ptrs: np.ndarray, dims: np.ndarray) -> None:
        """Remember ``ptrs`` / ``dims``, just written by ``kernels.address`` from ``arrays`` (``s``'s)."""
        self.kept = (weakref.ref(s), FIELD_REPLACEMENTS[0], arrays, (ptrs, dims))

    @staticmethod
    def fresh() -> tuple[np.ndarray, np.ndarray]:
        """Two new arrays for ``kernels.address`` to fill (the kept ones stay valid until :meth:`keep`)."""
        n = len(K.STATE_FIELDS)
        return np.empty(n, np.uint64), np.zeros((n, K.MAX_DIMS), np.int64)


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
    #: ``stats`` only counts up: a loaded state must leave it room to play (``Game.validate_state``).
    counter_fields: ClassVar[tuple[str, ...]] = (*Game.counter_fields, "stats")
    #: The endings' ``(win, loss, draw)`` rewards: the shared laws check finished games' rewards with them.
    end_rewards: ClassVar[tuple[float, float, float] | None] = (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW)
    #: The Funky Monkey laws and the re-deal of what a seat cannot see.
    laws: ClassVar[str] = "monkey_envs.funky_monkey.invariants"

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
        self._setup = Setup(P, vis)  # new games and given positions
        self.card_counts = self._setup.card_counts  # (5,) cards of each kind in play
        self.deck = self._setup.deck  # (N,) int8 kinds
        self.num_cards = self._setup.num_cards
        self.tiger_start = self._setup.tiger_start
        self.phase_actions = _phase_actions(P)
        self._masks = MaskTable(P, self.phase_actions)  # legal-action masks
        self._rel = np.arange(P)
        # phase -> handler group (both respond phases in one call)
        self._handler_phase = np.array([PH_RESPOND if p == PH_RESPOND_SEEN else p for p in range(NUM_PHASES)], np.intp)
        self._left = np.arange(1, P + 1)  # offsets of the seats to the left, the seat itself last
        self._left_of = (self._rel[:, None] + self._left[None, :]) % P  # [seat] -> seats to its left

        self._observer = Observer(P)
        self.obs_layout = self._observer.layout

        # The compiled kernels' tables (kernels.py): the same masks, scales and setup as above.
        self._mask_table = self._masks.table
        self._mask_key0 = self._masks.key0.astype(np.int64)
        sl = self.obs_layout.slices
        self._obs_offsets = np.array([sl[name].start for name in K.OBS_OFFSET_PIECES], np.int64)
        assert self._observer._dense_scale.size == K.NUM_DENSE
        self._seat_scale = self._observer._seat_scale
        self._dense_scale = self._observer._dense_scale
        self._card_counts64 = self.card_counts.astype(np.int64)
        self._addressed = _Addressed()  # the addresses of the last stepped state's arrays

    # ================================================================== helpers
    def action_filters(self) -> dict[str, np.ndarray]:
        """``{"honest": (A,) bool}``: every action except face-down plays whose announcement
        differs from the card (plays ``5 * card + announce`` with ``card != announce``).

        The honest-only ablation trains a learner restricted to it (``learner_actions="honest"``);
        every active turn keeps a legal action (each card in hand can be announced truthfully).
        """
        return action_filters(self.num_actions)

    def action_name(self, state: FunkyMonkeyState, row: int, action: int) -> str:
        """Readable meaning of ``action`` (independent of the row's phase)."""
        return action_name(self.num_players, state, row, action)

    def action_seen(self, state: FunkyMonkeyState, row: int, action: int, viewer: int | None) -> str:
        """What ``viewer`` learns of a move: a face-down card shows only its announcement to the
        other seats; every other move is public (:meth:`action_name`)."""
        a = int(action)
        mover = int(state.current_player[row])
        if a < A_CROWN and (viewer is None or int(viewer) != mover):
            return f"play a card face down, announce {D.CARD_NAMES[a % 5]}"
        return self.action_name(state, row, a)

    def action_outcome(
        self, before: FunkyMonkeyState, after: FunkyMonkeyState, row: int, action: int, viewer: int | None
    ) -> str:
        """What a move did, as ``viewer`` may know it: an accepted face-down card turned up (what
        was announced, what it really was, what it does), then the public changes -- moves, tiles
        turned up, coconuts, the golden coconut, bowls, the tiger, eliminations
        (:func:`monkey_envs.funky_monkey.render.outcome_text`)."""
        from monkey_envs.funky_monkey.render import outcome_text

        return outcome_text(self, before, after, row, action, viewer)

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

    def _next_alive_left(self, s: FunkyMonkeyState, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``(n,)`` first surviving seat to the left of ``seat`` (``seat`` itself if alone)."""
        P = self.num_players
        cand = np.take(self._left_of, seat, axis=0)  # (n, P) seats to the left, by table
        ok = np.take(s.alive, (rows * P)[:, None] + cand)
        return cand[np.arange(rows.size), ok.argmax(1)]

    def _finish(
        self, s: FunkyMonkeyState, rows: np.ndarray, winners: np.ndarray, reason: int, work: _StepWork | None
    ) -> None:
        """End games ``rows`` with ``winners (n, P) bool``: rewards, flags, empty mask.

        Inside :meth:`_step` (``work`` given) only the phase and stage are written at once (all the
        rules read); the bookkeeping of every game ended in the step is written by one call at its end.
        """
        s.phase[rows] = PH_OVER
        s.stage[rows] = ST_DECIDE
        if work is None:
            end_games(s, rows, winners, reason, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))
        else:
            work.ending.append((rows, winners, reason))

    def _finish_pending(self, s: FunkyMonkeyState, work: _StepWork) -> None:
        """Write the bookkeeping of the games :meth:`_finish` ended during the step (each row ends once)."""
        pending = work.ending
        if not pending:
            return
        if len(pending) == 1:
            rows, winners, reason = pending[0]
        else:
            rows = np.concatenate([p[0] for p in pending])
            winners = np.concatenate([p[1] for p in pending])
            reason = np.repeat(np.array([p[2] for p in pending], np.int8), [p[0].size for p in pending])
        end_games(s, rows, winners, reason, (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW))

    def _eliminate(self, s: FunkyMonkeyState, rows: np.ndarray, out: np.ndarray, work: _StepWork | None) -> None:
        """Eliminate seats ``out (n, P) bool`` of rows ``rows`` (live games) and end the games
        that are left with at most one monkey."""
        if rows.size == 0:
            return
        alive = s.alive[rows]
        out = out & alive
        alive &= ~out
        s.alive[rows] = alive
        if work is None:  # outside _step; inside, _step moves the hands of the step's eliminated seats once
            self._hands_out_of_play(s, rows, out)
        left = alive.sum(1)
        one = left == 1
        if np.count_nonzero(one):
            self._finish(s, rows[one], s.alive[rows[one]].copy(), END_LAST_MONKEY, work)
        none = left == 0
        if np.count_nonzero(none):
            self._finish(s, rows[none], np.zeros((int(none.sum()), self.num_players), bool), END_NO_WINNER, work)

    def _hands_out_of_play(self, s: FunkyMonkeyState, rows: np.ndarray, out: np.ndarray) -> None:
        """The hand cards of eliminated seats ``out (n, P) bool`` of rows ``rows`` leave play unseen."""
        hands = s.hands[rows]
        gone = np.where(out[:, :, None], hands, 0)
        s.out_of_play[rows] += gone.sum(1).astype(np.int8)
        s.hands[rows] = hands - gone

    def _eliminate_seat(self, s: FunkyMonkeyState, rows: np.ndarray, seat: np.ndarray, work: _StepWork | None) -> None:
        """:meth:`_eliminate` one seat ``seat (n,)`` per row of ``rows``."""
        self._eliminate(s, rows, seat[:, None] == self._rel[None, :], work)

    # ================================================================== init
    def _init(self, seeds: np.ndarray) -> FunkyMonkeyState:
        """New games: the compiled deal (``kernels.reset_rows_at`` of every row, the draws of ``Setup.deal``) and their masks."""
        s = self._setup.empty(seeds.shape[0])
        self._reset_rows(s, np.arange(seeds.shape[0]), seeds)  # every row dealt (and its mask)
        return s

    def _reset_rows(self, s: FunkyMonkeyState, rows: np.ndarray, seeds: np.ndarray) -> None:
        """New games dealt straight into ``rows`` (``kernels.reset_rows_at``: the deal of :meth:`_init` too)."""
        fu, deck, tiger, table, key0 = (
            self._setup._face_up0,
            self.deck,
            self.tiger_start,
            self._mask_table,
            self._mask_key0,
        )
        at = self._arrays_at(s)
        if at is not None:
            K.reset_rows_at(rows, seeds, at[0], at[1], fu, deck, tiger, table, key0)
            return
        at, copies = _through_copies(s)
        K.reset_rows_at(rows, seeds, at[0], at[1], fu, deck, tiger, table, key0)
        _write_back(s, copies)

    def _arrays_at(self, s: FunkyMonkeyState) -> tuple[np.ndarray, np.ndarray] | None:
        """``(ptrs, dims)`` of ``s``'s arrays for the kernels' ``*_at`` forms (kept for the next call), or
        ``None`` when they are not C-contiguous writeable arrays of the state's layout (``kernels.address``)."""
        at = self._addressed
        kept = at.of(s)
        if kept is None:
            st = _state_arrays(s)
            ptrs, dims = at.fresh()
            if not K.address(st, ptrs, dims):
                return None
            at.keep(s, st, ptrs, dims)
            kept = ptrs, dims
        return kept

    # ================================================================== step: compiled
    #: Validation and the step of every running row are one compiled call (``kernels.step_at``).
    fused_step: ClassVar[bool] = True

    def _step_fused(self, s: FunkyMonkeyState, actions: np.ndarray) -> bool:
        at = self._arrays_at(s)  # kept from the last call on ``s`` (in place: the AEC face, a batch loop)
        if at is not None:
            return K.step_at(
                actions, at[0], at[1], self._mask_table, self._mask_key0, self.crown_bonus, self.num_actions
            )
        at, copies = _through_copies(s)
        ok = K.step_at(actions, at[0], at[1], self._mask_table, self._mask_key0, self.crown_bonus, self.num_actions)
        _write_back(s, copies)
        return ok

    def _step_reference(self, s: FunkyMonkeyState, actions: np.ndarray) -> bool:
        """:meth:`_step_fused` by the numpy rules below (:meth:`_step`): the reference the kernels reproduce.

        Validates like the kernel (False, nothing changed, on an out-of-range or illegal action of
        a running row), then zeroes the rewards and steps the running rows in place.
        """
        done = s.terminated | s.truncated
        a = actions.astype(np.int64)
        live = ~done
        if ((a < 0) | (a >= self.num_actions))[live].any():
            return False
        if not s.legal_action_mask[np.flatnonzero(live), a[live]].all():
            return False
        s.rewards.fill(0.0)
        idx = np.flatnonzero(live)
        if idx.size == done.size:
            s.step_count += 1
            self._step(s, a, live)
        elif idx.size:
            sub = s.take(idx)
            sub.step_count += 1
            self._step(sub, a[idx], np.ones(idx.size, dtype=bool))
            s.put(idx, sub)
        return True

    # ================================================================== step: numpy reference
    # The numpy rules below are the reference the compiled step (kernels.step_at) reproduces; the game
    # steps with the kernel (fused_step), the equivalence tests step with both.
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
        # to its rows, so they are queued and run once for all rows (fewer, larger calls). The queues
        # travel in ``work``, passed to every handler and stage that may add to them.
        work = _StepWork(s.alive.copy(), [], [], [])  # (no default_factory: it costs a microsecond a step)
        for code, idx in _groups(np.take(self._handler_phase, ph), NUM_PHASES):
            handlers[code](s, rows[idx], act[idx], work)
        reveals, work.reveals = work.reveals, None  # reveals queued from now on run at once
        if reveals:
            self._reveal(s, reveals[0] if len(reveals) == 1 else np.concatenate(reveals), work)
        moves, work.moves = work.moves, None  # so do moves
        if moves:
            if len(moves) == 1:
                self._move(s, *moves[0], work)
            else:
                self._move(s, np.concatenate([m[0] for m in moves]), np.concatenate([m[1] for m in moves]), work)
        self._advance(s, rows, work)
        self._finish_pending(s, work)
        gone = work.alive0 > s.alive  # seats eliminated in this step
        if np.count_nonzero(gone):
            out_rows = np.flatnonzero(gone.any(1))
            self._hands_out_of_play(s, out_rows, gone[out_rows])
        self._refresh(s, rows[~s.terminated[rows]])

    def _do_play(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
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
            self._queue_reveal(s, rc, work)
        face_down = ~crown
        if np.count_nonzero(face_down):
            rf = r[face_down]
            h = self._next_alive_left(s, rf, act[face_down])
            s.holder[rf] = h
            s.passes[rf] = 0
            s.phase[rf] = PH_RESPOND
            s.current_player[rf] = h

    def _do_respond(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
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
            self._queue_reveal(s, ra, work)
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
                self._queue_reveal(s, rb, work)
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

    def _queue_reveal(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
        """:meth:`_reveal` rows ``r`` (inside :meth:`_step`: once, after every decision is applied)."""
        if work is None or work.reveals is None:
            self._reveal(s, r, work)
        else:
            work.reveals.append(r)

    def _queue_move(self, s: FunkyMonkeyState, r: np.ndarray, dest: np.ndarray, work: _StepWork | None) -> None:
        """:meth:`_move` rows ``r`` (inside :meth:`_step`: once, after the decisions and reveals)."""
        if work is None or work.moves is None:
            self._move(s, r, dest, work)
        elif r.size:
            work.moves.append((r, np.asarray(dest, dtype=np.int64)))

    def _reveal(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
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
            self._queue_move(s, rn, s.pos[rn, m[num]].astype(np.int64) + _STEPS[card[num]], work)

    def _do_pay(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
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

    def _do_bowl(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
        """Middle-row nearest-bowl tile: jump to the chosen bowl (a normal landing)."""
        self._queue_move(s, r, np.where(a == A_BOWL_2, D.BOWL_SPACES[1], D.BOWL_SPACES[0]), work)

    def _do_pyramid(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
        """Monkey pyramid: move the revealed number forward or backward."""
        m = s.mover[r].astype(np.int64)
        n = _STEPS[s.pyramid_card[r].astype(np.int64)]
        x = s.pos[r, m].astype(np.int64)
        s.pyramid_card[r] = -1
        self._queue_move(s, r, np.where(a == A_PYRAMID_BACKWARD, x - n, x + n), work)

    def _do_bonus(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
        """Bonus move after a truthful announcement: own monkey, tiger, or decline."""
        act = s.active[r].astype(np.int64)
        mk = a == A_BONUS_MONKEY
        if np.count_nonzero(mk):
            rm, am = r[mk], act[mk]
            s.stats[rm, am, _S["bonus_monkey"]] += 1
            s.in_bonus[rm] = True
            s.mover[rm] = am
            self._queue_move(s, rm, s.pos[rm, am].astype(np.int64) + 1, work)
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
            self._eliminate(s, rt, caught, work)

    def _do_scales(self, s: FunkyMonkeyState, r: np.ndarray, a: np.ndarray, work: _StepWork | None) -> None:
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
    def _advance(self, s: FunkyMonkeyState, rows: np.ndarray, work: _StepWork | None) -> None:
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
            self._land(s, sub, work)
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
                fn(s, sub, work)  # every stage takes the step's work (some need not)
        left = todo[stage[todo] != ST_DECIDE]
        if left.size:  # pragma: no cover - a stage handed a row back: a rules bug, never a user error
            raise RuntimeError(f"Funky Monkey chain reaction did not settle in rows {left[:10].tolist()}")

    def _decide(self, s: FunkyMonkeyState, r: np.ndarray, phase: int, seat: np.ndarray) -> None:
        s.phase[r] = phase
        s.current_player[r] = seat
        s.stage[r] = ST_DECIDE

    def _move(self, s: FunkyMonkeyState, r: np.ndarray, dest: np.ndarray, work: _StepWork | None) -> None:
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
            self._eliminate_seat(s, rb, m[beyond], work)
        if np.count_nonzero(win):
            rw = r[win]
            w = np.zeros((rw.size, self.num_players), bool)
            w[np.arange(rw.size), m[win]] = True
            self._finish(s, rw, w, END_TIGER, work)

    def _land(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
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
                self._take_golden(s, rg, mg, work)
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
                self._move(s, rg[side], np.where(row[side] == 1, D.BOWL_SPACES[0], D.BOWL_SPACES[1]), work)
            elif e == D.E_PYRAMID:
                self._pyramid(s, rg, mg, xg, work)

    def _take_golden(self, s: FunkyMonkeyState, r: np.ndarray, m: np.ndarray, work: _StepWork | None) -> None:
        """The mover takes the golden coconut from wherever it is; a robbed player left with none is out."""
        g = s.golden[r].astype(np.int64)
        from_player = (g >= 0) & (g != m)
        s.bowls[r] = np.where(s.bowls[r] == BOWL_GOLDEN, BOWL_EMPTY, s.bowls[r])
        s.golden[r] = m
        if np.count_nonzero(from_player):
            rp, gp = r[from_player], g[from_player]
            broke = s.alive[rp, gp] & (s.coconuts[rp, gp] == 0)
            if np.count_nonzero(broke):
                self._eliminate_seat(s, rp[broke], gp[broke], work)

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

    def _pyramid(
        self, s: FunkyMonkeyState, r: np.ndarray, m: np.ndarray, x: np.ndarray, work: _StepWork | None
    ) -> None:
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
        self._move(s, r[fwd], x[fwd] + n[fwd], work)

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

    def _pay(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
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
            self._eliminate_seat(s, r[broke], m[broke], work)

    def _after(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
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
    def _scales_active(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
        a = s.active[r].astype(np.int64)
        t = s.treasures[r, a]  # counts >= 0: any card <=> the OR of the three is non-zero
        ok = s.alive[r, a] & ((t[:, 0] | t[:, 1] | t[:, 2]) != 0)
        s.stage[r] = ST_SCALES_ACCEPTER
        if np.count_nonzero(ok):
            self._decide(s, r[ok], PH_SCALES, a[ok])

    def _scales_accepter(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
        c = s.accepter[r].astype(np.int64)
        cc = np.maximum(c, 0)
        t = s.treasures[r, cc]
        ok = (c >= 0) & (c != s.active[r]) & s.alive[r, cc] & ((t[:, 0] | t[:, 1] | t[:, 2]) != 0)
        s.stage[r] = ST_END_TURN
        if np.count_nonzero(ok):
            self._decide(s, r[ok], PH_SCALES, c[ok])

    def _end_turn(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
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
            self._quitting_time(s, ro[~more], work)
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

    def _quitting_time(self, s: FunkyMonkeyState, r: np.ndarray, work: _StepWork | None) -> None:
        """All cards played: nearest to the tiger; tie -> golden coconut; -> most coconuts; -> shared."""
        g = s.golden[r].astype(np.int64)[:, None] == self._rel[None, :]
        key = s.pos[r].astype(np.int64) * 1000 + g * 500 + s.coconuts[r].astype(np.int64)
        key = np.where(s.alive[r], key, -1)
        winners = s.alive[r] & (key == key.max(1, keepdims=True))
        self._finish(s, r, winners, END_QUITTING_TIME, work)

    # ================================================================== mask
    def _refresh(self, s: FunkyMonkeyState, r: np.ndarray) -> None:
        """Legal-action mask of the pending decision for rows ``r`` (running games).

        The mask is a row of a :class:`~monkey_envs.funky_monkey.actions.MaskTable` picked by a key:
        the phase plus the facts that phase's actions depend on (cards in hand and Crown; Telescope;
        Scales targets in the game).
        """
        self._masks.refresh(s, r)

    # ================================================================== observation
    def _observe(self, s: FunkyMonkeyState, player: np.ndarray) -> np.ndarray:
        """The compiled observation (``kernels.observe_at``; ``Observer.observe`` is its numpy reference)."""
        obs = np.empty((s.batch_size, self.obs_layout.size), dtype=np.float32)
        self._observe_into(s, player, obs)
        return obs

    def _observe_into(self, s: FunkyMonkeyState, player: np.ndarray, out: np.ndarray) -> None:
        at = self._arrays_at(s)
        if at is not None:
            K.observe_at(
                player,
                out,
                at[0],
                at[1],
                self._obs_offsets,
                self._seat_scale,
                self._dense_scale,
                self._card_counts64,
            )
            return
        at, _ = _through_copies(s)
        K.observe_at(
            player,
            out,
            at[0],
            at[1],
            self._obs_offsets,
            self._seat_scale,
            self._dense_scale,
            self._card_counts64,
        )

    def _winners(self, s: FunkyMonkeyState) -> np.ndarray:
        return s.winners_mask.copy()

    def episode_info(self, s: FunkyMonkeyState, row: int) -> dict[str, Any]:
        """The shared end facts, ``round``, final track/coconut facts and the bluff analytics of ``row``.

        ``positions`` / ``coconuts (P,) int64``, ``alive (P,) bool``, ``round`` / ``golden`` /
        ``tiger`` ints, ``bluff_stats``: ``name -> (P,) int64`` per seat.
        """
        # total_coconuts of the row alone (no copy of the whole state)
        tot = s.coconuts[row].astype(np.int64) + (np.int64(s.golden[row]) == self._rel)
        return {
            **super().episode_info(s, row),
            "round": int(s.round[row]),
            "positions": s.pos[row].astype(np.int64),
            "alive": s.alive[row].astype(bool),
            "coconuts": tot,
            "golden": int(s.golden[row]),
            "tiger": int(s.tiger[row]),
            # one (12, P) int64 array, one row per statistic (a new array per call)
            "bluff_stats": dict(zip(STAT_NAMES, s.stats[row].T.astype(np.int64, order="C"), strict=True)),
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
            positions: per seat, its monkey's track space: 0..17 in front of the tiger for a monkey still in the game;
                an eliminated seat keeps any space 0..38 (see ``FunkyMonkeyState.pos``). Ints only.
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
        s = self._setup.position(
            positions=positions,
            coconuts=coconuts,
            golden=golden,
            bowls=bowls,
            tiger=tiger,
            tiles=tiles,
            face_up=face_up,
            hands=hands,
            treasures=treasures,
            treasure_pile=treasure_pile,
            draw_pile=draw_pile,
            discard=discard,
            alive=alive,
            active=active,
            turn_order=turn_order,
            round=round,
            seed=seed,
        )
        self._refresh(s, np.array([0]))
        s.mark_game(self)  # saved and reloaded, the state names this configuration
        return s

    # ================================================================== render
    def render(self, state: FunkyMonkeyState, row: int = 0, viewer: int | None = None) -> str:
        from monkey_envs.funky_monkey.render import render_text

        return render_text(self, state, row, viewer)

    def render_legend(self) -> str:
        """How to read :meth:`render`: the track, tile faces, bowls, the tiger, players, the well,
        the offer and hands (:func:`monkey_envs.funky_monkey.render.legend_text`)."""
        from monkey_envs.funky_monkey.render import legend_text

        return legend_text(self)

    def picture(self, state: FunkyMonkeyState, row: int = 0, viewer: int | None = None) -> Picture:
        """The track, tiger, tiles, coconuts, pieces, players, offer and ``viewer``'s hand as a
        :class:`~monkey_envs.core.pictures.Picture` (:mod:`monkey_envs.funky_monkey.picture`)."""
        from monkey_envs.funky_monkey.picture import draw

        return draw(self, state, row, viewer)
