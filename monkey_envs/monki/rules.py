"""Monki rules over a batch of games.

The rules themselves are numba-compiled kernels (:mod:`monkey_envs.monki.kernels`): the state
stays numpy arrays with a leading batch axis, and each kernel is one compiled loop over the rows
(no Python loop over the batch axis). This class validates options and inputs, builds the
layout's tables once per configuration and hands the state's arrays to the kernels.

Action space (one flat ``Discrete(A)``, ``N = rows * cols`` grid cells; default layout
``N = 36``, ``A = 90``), with a mask per phase:

=================  ==========================  ==========================================
actions            meaning                     legal when (phase)
=================  ==========================  ==========================================
``c`` in [0, N)    place own Monki on cell c   ``place``: a board cell, no pot, not taken
``N + c``          move Monki to cell c        ``start``: a queen move over free cells
``2N``             skip (recharge rubies)      ``start``: always
``2N+1+s``         flip the top of stack s     ``collect`` / ``flipping``: in line of sight
``2N+13``          pass (collect the flips)    ``flipping``
``2N+14+f``        use the ruby of fruit f     ``collect``: usable and takes >= 1 token
=================  ==========================  ==========================================

Stacks ``s`` are numbered board-major (board ``s // 3``, pot ``s % 3`` of ``data.POT_LOCAL``);
fruits ``f``: 0 banana, 1 fig, 2 pineapple, 3 grapes.

Decided here (beyond DECISIONS.md; constants in :mod:`monkey_envs.monki.data`): the start
player is drawn from the env's RNG; the winner gets +1, the loser -1, a turn-cap draw 0; the
first placement belongs to the start player, the second to the other seat, then the start player
takes the first turn; a ruby takes at most one token per player-board space (with two tokens
of the same kind on the statue, the lower token id is taken); a pass and a bust resolve the
flipped stacks in stack order; only the top token of each stack is visible (its colour, and its
fruit when face up).
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game, as_seeds
from monkey_envs.core.plugins import Analytics, View
from monkey_envs.core.rng import shuffle_prefix
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.monki import data as D
from monkey_envs.monki import kernels as K
from monkey_envs.monki.state import (
    END_REASONS,
    PHASES,
    MonkiState,
)

__all__ = ["SPEC", "Monki"]

SPEC = GameSpec(
    name="monki",
    gym_name="Monki",
    version=0,
    min_players=2,
    max_players=2,
    variants=(),
    chance=True,
    information="imperfect",
    reward_range=(D.REWARD_LOSS, D.REWARD_WIN),
    description="Push your luck in the temple: flip pots for fruit, a double busts; 8 fruits or 4 golden win.",
    title="Monki",
    end_reasons=END_REASONS,
    default_players=(2,),
)

#: ``(40, 12)`` one-hot slot of each token.
_SLOT_1H = np.eye(D.NUM_SLOTS, dtype=np.int64)[D.TOKEN_SLOT]
#: A state's arrays as the tuple the batch kernels take (order of ``kernels.STATE_FIELDS``).
_state_arrays = operator.attrgetter(*K.STATE_FIELDS)
#: The arrays the observe kernel reads (order of ``kernels.OBSERVED_FIELDS``).
_observed_arrays = operator.attrgetter(*K.OBSERVED_FIELDS)


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r:.60} ({type(value).__name__})")
    return int(value)


def parse_token(spec: Any) -> int:
    """Token id from an int id or a name like ``"green banana"`` / ``"blue golden fig"``.

    A name picks the lowest id of that kind; :meth:`Monki.position` picks distinct copies.
    """
    ids = token_candidates(spec)
    return int(ids[0])


def token_candidates(spec: Any) -> np.ndarray:
    """All token ids matching ``spec`` (an id or a ``"<colour> [golden] <fruit>"`` name)."""
    if isinstance(spec, str):
        words = spec.lower().split()
        golden = "golden" in words
        words = [w for w in words if w != "golden"]
        if len(words) != 2 or words[0] not in D.COLOURS or words[1] not in D.FRUITS:
            raise ValueError(f"token name must be '<green|blue> [golden] <fruit>', got {spec!r}")
        col, fr = D.COLOURS.index(words[0]), D.FRUITS.index(words[1])
        return np.flatnonzero((D.TOKEN_COLOUR == col) & (D.TOKEN_FRUIT == fr) & (D.TOKEN_GOLDEN == golden))
    t = _as_int(spec, "token")
    if not 0 <= t < D.NUM_TOKENS:
        raise ValueError(f"token id must be in [0, {D.NUM_TOKENS}), got {t}")
    return np.array([t])


def token_name(t: int) -> str:
    """``"green banana"`` / ``"blue golden fig"`` of token id ``t``."""
    g = " golden" if D.TOKEN_GOLDEN[t] else ""
    return f"{D.COLOURS[D.TOKEN_COLOUR[t]]}{g} {D.FRUITS[D.TOKEN_FRUIT[t]]}"


class Monki(Game[MonkiState]):
    """Monki (The Flying Games 2021), 2 players.

    Args:
        layout: a name from :data:`monkey_envs.monki.data.LAYOUTS` (``"square"``, ``"stairs"``)
            or a dict ``{"rows", "cols", "boards": [[top, left, rotation]] * 4}``.
        turn_cap: turns of both players together (placements excluded) after which the game is
            a draw (a win on the last turn stands); >= 1.
        num_players: must be 2.

    Raises:
        ValueError: a bad option (an illegal layout names the board and rule it breaks).
    """

    spec = SPEC
    #: Text, pictures and legend; moves, flips and ruby uses happen in the open (every seat sees every move).
    view = View(
        render="monkey_envs.monki.render:render_text",
        picture="monkey_envs.monki.picture:draw",
        legend="monkey_envs.monki.render:legend_text",
        action_name="monkey_envs.monki.render:action_text",
        public_actions=True,
    )
    #: Scores, push-your-luck statistics and decision report, info facts (:mod:`monkey_envs.monki.analytics`).
    analytics = Analytics(
        scores="monkey_envs.monki.analytics:scores",
        episode_stats="monkey_envs.monki.analytics:episode_stats",
        stats_title="Monki push-your-luck statistics",
        stats_summary="monkey_envs.monki.analytics:stats_summary",
        report_decisions="monkey_envs.monki.analytics:report_decisions",
        decision_report="monkey_envs.monki.analytics:decision_report",
        episode_info="monkey_envs.monki.analytics:episode_info",
    )
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"layout": "stairs"},
        {"turn_cap": 12},
    )
    obs_low = 0.0
    obs_high = 1.0
    #: The endings' ``(win, loss, draw)`` rewards: the shared laws check finished games' rewards with them.
    end_rewards: ClassVar[tuple[float, float, float] | None] = (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW)
    #: The Monki laws and the re-deal of what a seat cannot see.
    laws: ClassVar[str] = "monkey_envs.monki.invariants"

    def __init__(self, layout: Any = D.DEFAULT_LAYOUT, turn_cap: int = D.DEFAULT_TURN_CAP, num_players: int = 2):
        if isinstance(num_players, (bool, np.bool_)) or num_players != 2:
            raise ValueError(f"Monki is a 2-player game, got num_players={num_players!r}")
        turn_cap = _as_int(turn_cap, "turn_cap")
        if not 1 <= turn_cap <= 10_000:
            raise ValueError(f"turn_cap must be in 1..10000, got {turn_cap}")
        self.layout = D.Layout(layout)
        self.turn_cap = turn_cap
        self._config = {"layout": self.layout.config, "turn_cap": turn_cap, "num_players": 2}
        self.num_players = 2
        N = self.num_cells = self.layout.num_cells
        self.A_PLACE, self.A_MOVE, self.A_SKIP = 0, N, 2 * N
        self.A_FLIP, self.A_PASS, self.A_RUBY = 2 * N + 1, 2 * N + 1 + D.NUM_STACKS, 2 * N + 2 + D.NUM_STACKS
        self.num_actions = self.A_RUBY + D.NUM_FRUITS
        L = self.layout
        self.is_board = L.cell_board >= 0
        self.is_pot = L.cell_stack >= 0
        self._place_ok = self.is_board & ~self.is_pot
        self.obs_layout = ObsLayout(
            [
                ObsPiece("boards", (2, D.NUM_KINDS), "tokens of each kind on each player board (observer first)"),
                ObsPiece("rubies", (2, D.RUBIES), "1 = ruby of that fruit usable (observer first)"),
                ObsPiece("monki", (2, N), "one-hot cell of each Monki (observer first; all 0 = not placed)"),
                ObsPiece(
                    "stacks",
                    (D.NUM_STACKS, 8),
                    "per stack: height/3, top green, top blue, top face up, top fruit one-hot (face up only)",
                ),
                ObsPiece("statues", (D.NUM_BOARDS, D.NUM_KINDS), "tokens of each kind on each board's statue / 4"),
                ObsPiece("flipped", (D.NUM_FRUITS,), "fruits lying face up (flipped this turn)"),
                ObsPiece("phase", (len(PHASES),), "one-hot phase: place, start, collect, flipping"),
                ObsPiece("to_move", (2,), "one-hot seat to move (observer first)"),
                ObsPiece("turn", (1,), "turns played / turn_cap"),
                ObsPiece("cells", (N, 2), "static: board cell (0 = hole), pot cell"),
            ]
        )
        self._cells_obs = np.stack([self.is_board, self.is_pot], 1).astype(np.float32).ravel()
        # the observe kernel writes the pieces back to back in this order
        assert tuple(p.name for p in self.obs_layout.pieces) == K.OBS_PIECES
        tables = {
            "is_board": np.ascontiguousarray(self.is_board),
            "place_ok": np.ascontiguousarray(self._place_ok),
            "cell_board": L.cell_board,
            "cell_stack": L.cell_stack,
            "stack_cell": L.stack_cell,
            "stack_board": np.ascontiguousarray(L.stack_board, dtype=np.int64),
            "rays": L.rays,
            "cells_obs": self._cells_obs,
            "turn_cap": turn_cap,
        }
        #: The layout's tables as the one tuple the kernels take (order of ``kernels.RULES_FIELDS``).
        self._rules = tuple(tables[k] for k in K.RULES_FIELDS)

    # ================================================================== geometry
    def heights(self, stacks: np.ndarray) -> np.ndarray:
        """``(B, 12) int64`` tokens in each stack."""
        return (stacks >= 0).sum(-1)

    def free_cells(self, heights: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """``(B, N) bool`` board cells with no token and no Monki (``heights (B, 12)``, ``pos (B, 2)`` ints, -1 unplaced)."""
        h = np.ascontiguousarray(heights, dtype=np.int64)
        return K.free_cells(h, np.ascontiguousarray(pos, dtype=np.int64), self.is_board, self.layout.stack_cell)

    def move_targets(self, origin: np.ndarray, free: np.ndarray) -> np.ndarray:
        """``(B, N) bool`` cells a queen move from ``origin (B,)`` reaches over ``free (B, N)`` cells (none from -1)."""
        o = np.ascontiguousarray(origin, dtype=np.int64)
        return K.move_targets(o, np.ascontiguousarray(free, dtype=bool), self.layout.rays)

    def line_stacks(self, origin: np.ndarray, free: np.ndarray, heights: np.ndarray) -> np.ndarray:
        """``(B, 12) bool`` non-empty stacks first met along a row or column from ``origin (B,)`` (none from -1)."""
        return K.line_stacks(
            np.ascontiguousarray(origin, dtype=np.int64),
            np.ascontiguousarray(free, dtype=bool),
            np.ascontiguousarray(heights, dtype=np.int64),
            self.layout.rays,
            self.layout.cell_stack,
        )

    def filled_slots(self, owner: np.ndarray) -> np.ndarray:
        """``(B, 2, 12) int64`` tokens on each player-board space (0 or 1 in a valid state)."""
        return (owner[:, None, :] == np.arange(2)[None, :, None]).astype(np.int64) @ _SLOT_1H

    def ruby_takes(self, s: MonkiState, seat: np.ndarray) -> np.ndarray:
        """``(B, 4, 40) bool``: tokens each ruby of ``seat (B,)`` would take now (statue of its board)."""
        seat = np.ascontiguousarray(seat, dtype=np.int64)
        return K.ruby_takes(seat, s.pos, s.statue, s.owner, self.layout.cell_board)

    # ================================================================== mask
    def rules_mask(self, s: MonkiState) -> np.ndarray:
        """``(B, A) bool`` legal actions of the seat to move by the rules (finished rows: none); ``s`` is not changed."""
        arrays = list(_state_arrays(s))
        arrays[K.F.legal_action_mask] = mask = np.empty((s.batch_size, self.num_actions), bool)
        K.refresh(tuple(arrays), self._rules)
        return mask

    # ================================================================== init
    def _init(self, s: MonkiState, seeds: np.ndarray) -> None:
        K.deal(np.arange(seeds.shape[0]), seeds, _state_arrays(s), self._rules)

    def _reset_rows(self, s: MonkiState, rows: np.ndarray, seeds: np.ndarray) -> None:
        # the deal of init, straight into the rows
        K.deal(rows, seeds, _state_arrays(s), self._rules)

    # ================================================================== step
    #: Validation and the step of every running row are one compiled call (:func:`kernels.step`).
    fused_step: ClassVar[bool] = True

    def _step_fused(self, s: MonkiState, actions: np.ndarray) -> bool:
        return K.step(actions, _state_arrays(s), self._rules)

    # ================================================================== observe
    def _observe(self, s: MonkiState, player: np.ndarray) -> np.ndarray:
        obs = np.empty((s.batch_size, self.obs_layout.size), np.float32)
        self._observe_into(s, player, obs)
        return obs

    def _observe_into(self, s: MonkiState, player: np.ndarray, out: np.ndarray) -> None:
        seen = _observed_arrays(s)
        if not all(a.flags.c_contiguous for a in seen):  # owner, statue: 8 bytes at a time; stacks, face_up: flat
            seen = tuple(np.ascontiguousarray(a) for a in seen)
        K.observe(player, out, seen, self._rules)

    # ================================================================== names, render
    # ================================================================== positions
    def position(
        self,
        *,
        stacks: dict[int, list[Any]] | None = None,
        statues: dict[int, list[Any]] | None = None,
        boards: list[list[Any]] | None = None,
        rubies: list[list[bool]] | None = None,
        monkis: list[Any] | None = None,
        phase: str = "start",
        face_up: list[int] | None = None,
        current_player: int = 0,
        turns: int = 0,
        seed: int = 0,
        overflow_statue: int | None = None,
    ) -> MonkiState:
        """Build one position (batch size 1) for a scenario test.

        Args:
            stacks: stack index -> tokens bottom first (ids or names like ``"green banana"``,
                ``"blue golden fig"``); the stacks not named are filled (3 each, in stack order)
                with the tokens named nowhere, shuffled with ``seed``; ``[]`` keeps a stack empty.
            statues: board -> tokens on its statue.
            boards: per seat, tokens on its player board.
            rubies: per seat, 4 bools (usable); default all usable.
            monkis: per seat, a cell index, a ``(row, col)`` pair or ``None`` (not placed).
            phase: ``"place"``, ``"start"``, ``"collect"`` or ``"flipping"``.
            face_up: stacks whose top token was flipped this turn (phase ``"flipping"``).
            current_player: seat to move.
            turns: turns already played.
            seed: seeds the RNG and the filling order.
            overflow_statue: board whose statue takes the unnamed tokens that no stack can hold
                (default ``None``: one per statue in board order, round and round, as the deal).

        Raises:
            ValueError: a token used twice or too many, tokens left over, a bad cell or phase, a
                player board with two tokens on one space, or a position that breaks the laws.
        """
        s = self.new_state(as_seeds(_as_int(seed, "seed")))
        used = np.zeros(D.NUM_TOKENS, bool)

        def take(spec: Any) -> int:
            for t in token_candidates(spec):
                if not used[t]:
                    used[t] = True
                    return int(t)
            raise ValueError(f"token {spec!r}: every copy is already placed")

        stacks = dict(stacks or {})
        for k, toks in stacks.items():
            k = _as_int(k, "stack index")
            if not 0 <= k < D.NUM_STACKS or not isinstance(toks, (list, tuple)) or len(toks) > D.STACK_DEPTH:
                raise ValueError(f"stack {k}: needs an index in 0..11 and at most 3 tokens, got {toks!r:.60}")
            for j, t in enumerate(toks):
                s.stacks[0, k, j] = take(t)
        for b, toks in (statues or {}).items():
            b = _as_int(b, "statue board")
            if not 0 <= b < D.NUM_BOARDS:
                raise ValueError(f"statue board must be 0..3, got {b}")
            for t in toks:
                s.statue[0, take(t)] = b
        if boards is not None:
            if len(boards) != 2:
                raise ValueError("boards must list the tokens of 2 seats")
            for p, toks in enumerate(boards):
                for t in toks:
                    s.owner[0, take(t)] = p
        rest = np.flatnonzero(~used)
        rest = shuffle_prefix(s.rng, np.array([0]), rest[None].astype(np.int64), np.array([rest.size]))[0]
        i = 0
        for k in range(D.NUM_STACKS):
            if k in stacks:
                continue
            n = min(D.STACK_DEPTH, rest.size - i)
            s.stacks[0, k, :n] = rest[i : i + n]
            i += n
        if i < rest.size and overflow_statue is not None:
            b = _as_int(overflow_statue, "overflow_statue")
            if not 0 <= b < D.NUM_BOARDS:
                raise ValueError(f"overflow_statue must be a board 0..3, got {b}")
            s.statue[0, rest[i:]] = b
        elif i < rest.size:
            s.statue[0, rest[i:]] = np.arange(rest.size - i) % D.NUM_BOARDS
        if rubies is not None:
            s.rubies[0] = np.asarray(rubies, bool).reshape(2, D.RUBIES)
        for p, m in enumerate(monkis or [None, None]):
            if m is None:
                continue
            c = m[0] * self.layout.cols + m[1] if isinstance(m, (list, tuple)) else _as_int(m, "Monki cell")
            if not 0 <= c < self.num_cells or not self.is_board[c]:
                raise ValueError(f"Monki of seat {p}: cell {m!r} is not a board cell")
            s.pos[0, p] = c
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
        s.phase[0] = PHASES.index(phase)
        for k in face_up or []:
            s.face_up[0, _as_int(k, "face_up stack")] = True
        cp = _as_int(current_player, "current_player")
        if cp not in (0, 1):
            raise ValueError(f"current_player must be 0 or 1, got {cp}")
        s.current_player[0] = cp
        s.start_player[0] = cp
        s.turns[0] = _as_int(turns, "turns")
        s.legal_action_mask[:] = self.rules_mask(s)
        s.mark_game(self)
        bad = self.state_violations(s)
        if bad:
            raise ValueError(f"not a legal Monki position: {bad[:5]}")
        return s
