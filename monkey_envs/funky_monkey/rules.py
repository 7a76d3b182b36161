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
(``fused_step``). The kernels are the game's one rules implementation; the numpy rules they were
compiled from are the test oracle, ``tests/funky_monkey_numpy_reference.py``, which
``tests/test_funky_monkey_compiled.py`` steps beside them. ``MaskTable.refresh`` (the legal masks
in numpy) stays here: it serves ``position()`` and the laws' checks.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game
from monkey_envs.core.game import batch_arange as batch_arange
from monkey_envs.core.plugins import Analytics, View
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
    num_actions_for,
)
from monkey_envs.funky_monkey.observation import Observer
from monkey_envs.funky_monkey.position import Setup
from monkey_envs.funky_monkey.position import _as_card as _as_card
from monkey_envs.funky_monkey.state import END_NONE as END_NONE
from monkey_envs.funky_monkey.state import (
    END_REASONS,
    FIELD_REPLACEMENTS,
    NUM_PHASES,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    STAT_NAMES,
    FunkyMonkeyState,
)
from monkey_envs.funky_monkey.state import PHASE_NAMES as PHASE_NAMES

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
    #: Text, pictures and legend; a face-down card shows the others only its announcement, and an
    #: accepted one what it really was (:mod:`monkey_envs.funky_monkey.render`).
    view = View(
        render="monkey_envs.funky_monkey.render:render_text",
        picture="monkey_envs.funky_monkey.picture:draw",
        legend="monkey_envs.funky_monkey.render:legend_text",
        action_seen="monkey_envs.funky_monkey.render:seen_text",
        action_outcome="monkey_envs.funky_monkey.render:outcome_text",
        action_name="monkey_envs.funky_monkey.render:action_text",
    )
    #: Bluff statistics and the bluff-context report, info facts, the honest-only action filter
    #: (:mod:`monkey_envs.funky_monkey.analytics`).
    analytics = Analytics(
        episode_stats="monkey_envs.funky_monkey.analytics:episode_stats",
        stats_title="Bluff analytics",
        stats_summary="monkey_envs.funky_monkey.analytics:stats_summary",
        report_decisions="monkey_envs.funky_monkey.analytics:report_decisions",
        decision_report="monkey_envs.funky_monkey.analytics:decision_report",
        episode_info="monkey_envs.funky_monkey.analytics:episode_info",
        action_filters="monkey_envs.funky_monkey.analytics:honest_filter",
    )
    #: bounds of every observation entry (counts are scaled; 40 coconuts / 10 is the largest)
    obs_low = 0.0
    obs_high = 4.0
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
    def bluff_stats(self, state: FunkyMonkeyState) -> dict[str, np.ndarray]:
        """Bluff analytics of every env: ``name -> (B, P) int16`` (columns of ``state.stats``)."""
        return {name: state.stats[:, :, i].copy() for i, name in enumerate(STAT_NAMES)}

    def total_coconuts(self, state: FunkyMonkeyState) -> np.ndarray:
        """``(B, P) int64`` coconuts of each seat, the golden one included."""
        g = state.golden.astype(np.int64)[:, None] == self._rel[None, :]
        return state.coconuts.astype(np.int64) + g

    # ================================================================== init
    def _init(self, s: FunkyMonkeyState, seeds: np.ndarray) -> None:
        """New games: the compiled deal (``kernels.reset_rows_at`` of every row, the seeded setup's draws) and their masks."""
        self._reset_rows(s, np.arange(seeds.shape[0]), seeds)  # every row dealt (and its mask)

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

    def compiled_access(self, s: FunkyMonkeyState) -> tuple[np.ndarray, np.ndarray, tuple, tuple] | None:
        """What compiled code outside the rules needs to step and observe ``s`` in place.

        For numba code that plays many moves without coming back to Python (e.g. a heuristic's
        play-out kernel for the search agent, ``agents/heuristics/funky_monkey_kernels.py``):
        ``kernels.step_at(actions, ptrs, dims, *step_args)`` is this game's :meth:`step_inplace`
        of ``s`` (``actions (B,) int64``; returns False and changes nothing for an illegal one)
        and ``kernels.observe_at(player, out, ptrs, dims, *observe_args)`` its :meth:`observe`
        into ``out (B, obs_dim) float32`` (``player (B,) int64``, a seat in every row).

        Returns:
            ``(ptrs (48,) uint64, dims (48, 3) int64, step_args, observe_args)``, valid while ``s``
            holds the same arrays, or ``None`` when ``s``'s arrays cannot be addressed (not
            C-contiguous and writeable): step it through :meth:`step_inplace` then.
        """
        at = self._arrays_at(s)
        if at is None:
            return None
        step_args = (self._mask_table, self._mask_key0, bool(self.crown_bonus), int(self.num_actions))
        observe_args = (self._obs_offsets, self._seat_scale, self._dense_scale, self._card_counts64)
        return at[0], at[1], step_args, observe_args

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
        """The compiled observation (``kernels.observe_at``; the test oracle holds its numpy reference)."""
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
