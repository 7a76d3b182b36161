"""4 Monkeys rules over a batch of games (the kit's :class:`~monkey_envs.core.game.Game`).

The real-time game is played in ticks (DECISIONS.md): a round is ``ticks`` ticks; in each tick
every seat commits one atomic action without seeing the others' choices of that tick. The core
keeps one mover per row: seats commit one after another (``current_player`` 0..P-1), every
commit hidden from every observation and mask until the tick resolves after the last one, in a
random priority order. The action layout is in :mod:`monkey_envs.four_monkeys.kernels`; the
rules themselves are numba kernels there. This class validates options and inputs, builds the
configuration vector and hands the state's arrays to the kernels.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game
from monkey_envs.core.plugins import Analytics, View
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.state import (
    END_REASONS,
    TILE_GREEN,
    TILE_LOOSE,
    TILE_ORANGE,
    TILE_STACK,
    FourMonkeysState,
)

__all__ = ["SPEC", "FourMonkeys"]

_state_arrays = operator.attrgetter(*K.STATE_FIELDS)

SPEC = GameSpec(
    name="four_monkeys",
    gym_name="FourMonkeys",
    version=1,
    min_players=D.MIN_PLAYERS,
    max_players=D.MAX_PLAYERS,
    variants=(),  # no named variants: Banana skins and family scoring are options
    chance=True,
    information="imperfect",
    reward_range=(D.REWARD_LOSS, D.REWARD_WIN),
    description="Real-time combos in ticks: grab combo tiles with hidden cards, bluff, Stop; the Smartest Monkey is checked.",
    title="4 Monkeys",
    dynamics="simultaneous",
    end_reasons=END_REASONS,
    default_players=(4,),
)


def _int_option(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r:.60}")
    return int(value)


def _bool_option(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r:.60}")
    return bool(value)


class FourMonkeys(Game[FourMonkeysState]):
    """4 Monkeys (HomoLudicus 2010) in ticks, 2-8 players.

    Args:
        num_players: 2-8 (5-6 combine two game sets in one area; 7-8 play in two areas of 4 and
            3-4 players with one timer and one scoring, regrouped by totals after each round).
        ticks: ticks per round (the timer); ``None``: 48, or 60 with family scoring.
        rounds: rounds per game; ``None``: 3, or 4 with 7-8 players (the rulebook).
        banana_skins: the optional Banana-skins rule (flag, default off).
        family: family scoring (flag, default off).
        max_replays: replays of a round after invalid Stops; after that a Stop needs 10 combos.

    Raises:
        ValueError: an option of the wrong type or out of range (naming it).
    """

    spec = SPEC
    #: Text (:mod:`monkey_envs.four_monkeys.legend`), pictures and legend; commits stay hidden
    #: until the tick resolves.
    view = View(
        render="monkey_envs.four_monkeys.legend:render_text",
        picture="monkey_envs.four_monkeys.picture:draw",
        legend="monkey_envs.four_monkeys.legend:legend_text",
        action_name="monkey_envs.four_monkeys.legend:action_text",
    )
    #: Scores, statistics, the bluff-by-standing report, info facts, the no-Stop action filter
    #: (:mod:`monkey_envs.four_monkeys.analytics`).
    analytics = Analytics(
        scores="monkey_envs.four_monkeys.analytics:scores",
        episode_stats="monkey_envs.four_monkeys.analytics:episode_stats",
        stats_title="4 Monkeys statistics",
        stats_summary="monkey_envs.four_monkeys.analytics:stats_summary",
        report_decisions="monkey_envs.four_monkeys.analytics:report_decisions",
        decision_report="monkey_envs.four_monkeys.analytics:decision_report",
        episode_info="monkey_envs.four_monkeys.analytics:episode_info",
        action_filters="monkey_envs.four_monkeys.analytics:no_stop_filter",
    )
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {"num_players": 4},
        {"num_players": 2},
        {"num_players": 3, "banana_skins": True, "family": True, "ticks": 30},
        {"num_players": 6, "banana_skins": True, "ticks": 24},
        {"num_players": 8, "banana_skins": True, "ticks": 12},
    )
    obs_low = -1.0
    obs_high = 1.0
    #: The endings' ``(win, loss, draw)`` rewards: the shared laws check finished games' rewards with them.
    end_rewards: ClassVar[tuple[float, float, float] | None] = (D.REWARD_WIN, D.REWARD_LOSS, D.REWARD_DRAW)
    #: The 4 Monkeys laws and the re-deal of what a seat cannot see.
    laws: ClassVar[str] = "monkey_envs.four_monkeys.invariants"

    def __init__(
        self,
        num_players: int = 4,
        ticks: int | None = None,
        rounds: int | None = None,
        banana_skins: bool = False,
        family: bool = False,
        max_replays: int = D.DEFAULT_MAX_REPLAYS,
    ) -> None:
        P = _int_option("num_players", num_players, D.MIN_PLAYERS, D.MAX_PLAYERS)
        family = _bool_option("family", family)
        banana_skins = _bool_option("banana_skins", banana_skins)
        if ticks is None:
            ticks = D.DEFAULT_TICKS_FAMILY if family else D.DEFAULT_TICKS
        ticks = _int_option("ticks", ticks, 1, 1000)
        if rounds is None:
            rounds = D.ROUNDS if P <= 6 else D.ROUNDS_TWO_AREAS
        rounds = _int_option("rounds", rounds, 1, 10)
        max_replays = _int_option("max_replays", max_replays, 0, 10)
        self._config = {
            "num_players": P,
            "ticks": ticks,
            "rounds": rounds,
            "banana_skins": banana_skins,
            "family": family,
            "max_replays": max_replays,
        }
        self.num_players = P
        self.ticks, self.rounds, self.max_replays = ticks, rounds, max_replays
        self.banana_skins, self.family = banana_skins, family
        self.num_sets = D.num_sets(P)
        #: Players per playing area (two areas with 7-8 players).
        self.area_sizes = D.area_players(P)
        #: Tile sets and stacks of area 0 (all of them with one area); area 1 has the rest.
        self.num_sets_area0 = D.num_sets(self.area_sizes[0])
        self.num_stacks_area0 = D.num_stacks(self.area_sizes[0])
        self.num_tiles = self.num_sets * D.NUM_COMBOS
        self.num_stacks = D.num_stacks(P)
        #: ``(len(kernels.CFG_FIELDS),) int64`` what the kernels read of this configuration.
        self.cfg = K.make_cfg(P, ticks, rounds, max_replays, banana_skins, family)
        cfg = dict(zip(K.CFG_FIELDS, self.cfg.tolist(), strict=True))
        self.stack_depth = cfg["DEPTH"]
        self.grab_variants = cfg["G"]
        self.a_grab, self.a_burn, self.a_swap = cfg["A_GRAB"], cfg["A_BURN"], cfg["A_SWAP"]
        self.a_draw3, self.a_reveal = cfg["A_DRAW3"], cfg["A_REVEAL"]
        self.a_stop, self.a_wait = cfg["A_STOP"], cfg["A_WAIT"]
        self.num_actions = cfg["NUM_ACTIONS"]
        #: The observation's lookup tables (:func:`~monkey_envs.four_monkeys.kernels.obs_tables`).
        self._obs_luts, self._obs_tile_codes = K.obs_tables(self.cfg)
        #: The compiled observation of this player count (:func:`~monkey_envs.four_monkeys.kernels.observe_kernel`).
        self._observe_kernel = K.observe_kernel(P)
        NT = self.num_tiles
        self.obs_layout = ObsLayout(
            [
                ObsPiece("hand", (D.NUM_KINDS,), "own hand: cards of each kind / 8 (kinds CC, CT, ..., PP)"),
                ObsPiece("pending", (D.NUM_KINDS,), "own pending set: cards of each kind / 8"),
                ObsPiece("discard", (D.NUM_KINDS,), "own discards this round: cards of each kind / 16"),
                ObsPiece(
                    "seats",
                    (P, K.SEAT_FEATURES),
                    "per seat (observer first): hand size / 20, pending size / 20, deck size / 40, "
                    "Hand replenish used, Banana skin given, skins received / 8, different combos / 10, "
                    "game total / 50, last round's points / 20 (clipped to [-1, 1]), same playing area",
                ),
                ObsPiece(
                    "tiles",
                    (NT, K.TILE_FEATURES + P),
                    "per tile id (set * 10 + combo): available, hidden in a stack, burned, cards under / 10, "
                    "own tile whose cards are a correct combo, owner one-hot (observer first)",
                ),
                ObsPiece("stacks", (self.num_stacks,), "tiles in each stack / stack depth"),
                ObsPiece("clock", (K.CLOCK_FEATURES,), "ticks played / ticks, rounds scored / rounds, replays / cap"),
            ]
        )
        assert self.obs_layout.size == K.obs_size(P)

    # ================================================================== protocol
    def _init(self, s: FourMonkeysState, seeds: np.ndarray) -> None:
        s.area[:] = np.arange(self.num_players) >= self.area_sizes[0]  # the seats of the second area
        K.init(seeds, _state_arrays(s), self.cfg)

    #: Validation and the step of every running row are one compiled call.
    fused_step: ClassVar[bool] = True

    def _step_fused(self, s: FourMonkeysState, actions: np.ndarray) -> bool:
        return K.step(actions, _state_arrays(s), self.cfg)

    def _observe(self, s: FourMonkeysState, player: np.ndarray) -> np.ndarray:
        obs = np.empty((s.batch_size, self.obs_layout.size), dtype=np.float32)
        self._observe_into(s, player, obs)
        return obs

    def _observe_into(self, s: FourMonkeysState, player: np.ndarray, out: np.ndarray) -> None:
        self._observe_kernel(player, out, _state_arrays(s), self.cfg, self._obs_luts, self._obs_tile_codes)

    def refresh(self, s: FourMonkeysState) -> None:
        """Recompute ``legal_action_mask`` of every row for its current player (after editing a state)."""
        K.refresh(_state_arrays(s), self.cfg)

    # ================================================================== positions (scenario tests)
    def parse_cards(self, text: str) -> np.ndarray:
        """``"CC CT PP"`` -> ``(10,) int8`` count per kind (``"-"`` or ``""``: none)."""
        if not isinstance(text, str):
            raise ValueError(f"cards must be a string like 'CC CT', got {text!r:.60}")
        out = np.zeros(D.NUM_KINDS, np.int8)
        for word in text.replace("-", " ").split():
            name = "".join(sorted(word.upper(), key=D.FIGURES.index)) if set(word.upper()) <= set(D.FIGURES) else word
            if name not in D.KIND_NAMES:
                raise ValueError(f"unknown card {word!r}; cards are {D.KIND_NAMES}")
            out[D.KIND_NAMES.index(name)] += 1
        return out

    def arrange(
        self,
        state: FourMonkeysState,
        *,
        hands: dict[int, str] | None = None,
        pending: dict[int, str] | None = None,
        tiles: dict[int, tuple[int, str, bool]] | None = None,
        loose: list[int] | tuple[int, ...] = (),
        decks: dict[int, str] | None = None,
        replenish_used: dict[int, bool] | None = None,
        seed: int = 0,
    ) -> FourMonkeysState:
        """A copy of a one-row state at the start of a tick with some pieces placed by hand.

        Args:
            state: a running state with ``B = 1`` and no commits yet in its tick.
            hands / pending: seat -> cards (``"CC CT"``) replacing that seat's hand / pending set.
            tiles: tile id -> ``(owner, cards under it, burned)``; the tile leaves its stack.
            loose: tile ids to put next to the stacks (revealed); they leave their stacks.
            decks: seat -> that deck's cards, **top first** (the other decks absorb the rest).
            replenish_used: seat -> Hand replenish used.
            seed: orders the cards dealt back into the decks not given.

        Every card not placed lies in a deck: the decks not given keep their sizes as far as
        possible and receive the remaining cards in an order shuffled with ``seed``.

        Raises:
            ValueError: a state that is not one running row at the start of a tick, unknown
                seats, tiles or cards, or more cards of a kind than the decks hold.
        """
        if state.batch_size != 1 or state.terminated[0] or (state.commits >= 0).any():
            raise ValueError("arrange needs a running one-row state at the start of a tick")
        s = state.clone()
        P, NT = self.num_players, self.num_tiles
        for name, spec in (("hands", hands), ("pending", pending)):
            for q, text in (spec or {}).items():
                if not 0 <= q < P:
                    raise ValueError(f"{name}: seat {q} is not in 0..{P - 1}")
                getattr(s, name)[0, q] = self.parse_cards(text)
        move = dict(tiles or {})
        for t in list(move) + list(loose):
            if not 0 <= t < NT:
                raise ValueError(f"tile {t} is not in 0..{NT - 1}")
        for t in list(move) + list(loose):
            if s.tile_state[0, t] == TILE_STACK:
                k = int(s.tile_stack[0, t])
                n = int(s.stack_size[0, k])
                rest = [int(x) for x in s.stacks[0, k, :n] if int(x) != t]
                s.stacks[0, k] = -1
                s.stacks[0, k, : len(rest)] = rest
                s.stack_size[0, k] = len(rest)
            s.tile_stack[0, t] = -1
        for t in loose:
            s.tile_state[0, t], s.tile_owner[0, t] = TILE_LOOSE, -1
            s.under[0, t] = 0
            s.under_count[0, t] = 0
            s.tile_ok[0, t] = False
        for t, (owner, cards, burned) in move.items():
            if not 0 <= owner < P:
                raise ValueError(f"tile {t}: owner {owner} is not a seat")
            s.tile_owner[0, t] = owner
            s.tile_state[0, t] = TILE_ORANGE if burned else TILE_GREEN
            s.under[0, t] = self.parse_cards(cards)
            s.under_count[0, t] = s.under[0, t].sum()
            s.tile_ok[0, t] = self.is_correct(t % D.NUM_COMBOS, s.under[0, t])
        for q, used in (replenish_used or {}).items():
            s.replenish_used[0, q] = bool(used)
        placed = (s.hands[0].sum(0) + s.pending[0].sum(0) + s.discard[0].sum(0) + s.under[0].sum(0)).astype(np.int64)
        need = D.COPIES * P - placed
        fixed = {q: self.parse_cards(text) for q, text in (decks or {}).items()}
        for q, text in (decks or {}).items():
            kinds = [
                D.KIND_NAMES.index("".join(sorted(w.upper(), key=D.FIGURES.index))) for w in text.split() if w != "-"
            ]
            s.decks[0, q] = -1
            s.decks[0, q, : len(kinds)] = kinds[::-1]  # stored bottom -> top
            s.deck_size[0, q] = len(kinds)
            need -= fixed[q].astype(np.int64)
        if (need < 0).any():
            raise ValueError(
                f"more cards of kinds {[D.KIND_NAMES[k] for k in np.flatnonzero(need < 0)]} than the decks hold"
            )
        free = [q for q in range(P) if q not in fixed]
        pool = np.repeat(np.arange(D.NUM_KINDS), need)
        np.random.default_rng(seed).shuffle(pool)
        sizes = {q: int(s.deck_size[0, q]) for q in free}
        diff = pool.size - sum(sizes.values())
        while diff != 0 and free:
            for q in sorted(free, key=lambda q: -sizes[q] if diff < 0 else sizes[q]):
                if diff < 0 and sizes[q] > 0:
                    sizes[q] -= 1
                    diff += 1
                elif diff > 0 and sizes[q] < D.DECK_SIZE:
                    sizes[q] += 1
                    diff -= 1
                break
        if diff != 0:
            raise ValueError("the cards left over do not fit into the decks")
        i = 0
        for q in free:
            s.decks[0, q] = -1
            s.decks[0, q, : sizes[q]] = pool[i : i + sizes[q]]
            s.deck_size[0, q] = sizes[q]
            i += sizes[q]
        self.refresh(s)
        bad = self.state_violations(s)
        if bad:
            raise ValueError(f"arranged position breaks the game's laws: {bad[:3]}")
        return s

    # ================================================================== scoring (tests, analysis)
    def score_round(
        self,
        tile_owner: Any,
        tile_state: Any,
        under: Any,
        replenish_used: Any = None,
        skins: Any = None,
        totals: Any = None,
    ) -> dict[str, np.ndarray]:
        """Score one round (Steps 1-4 of the rulebook) of one table given as plain arrays.

        Args:
            tile_owner: ``(NT,)`` owning seat per tile id, -1 for none.
            tile_state: ``(NT,)`` ``TILE_GREEN`` / ``TILE_ORANGE`` for owned tiles.
            under: ``(NT, 10)`` cards of each kind under each tile.
            replenish_used: ``(P,)`` Hand replenish used (default none).
            skins: ``(P,)`` Banana skins received (default 0).
            totals: ``(P,)`` game totals before the round (family tie-break; default 0).

        Returns:
            ``{"points": (P,) int64, "aside": (NT,) bool, "checked": (NT,) int8 (0 not
            verified, 1 correct, 2 incorrect), "smartest": (P,) bool}``.
        """
        P, NT = self.num_players, self.num_tiles
        owner = np.asarray(tile_owner, dtype=np.int8).reshape(1, NT)
        state = np.asarray(tile_state, dtype=np.int8).reshape(1, NT)
        und = np.asarray(under, dtype=np.int8).reshape(1, NT, D.NUM_KINDS)
        rep = np.zeros((1, P), bool) if replenish_used is None else np.asarray(replenish_used, bool).reshape(1, P)
        sk = np.zeros((1, P), np.int8) if skins is None else np.asarray(skins, np.int8).reshape(1, P)
        tot = np.zeros((1, P), np.int16) if totals is None else np.asarray(totals, np.int16).reshape(1, P)
        if ((owner < -1) | (owner >= P)).any() or (und < 0).any():
            raise ValueError("tile owners must be seats or -1 and card counts non-negative")
        out = {
            "points": np.zeros((1, P), np.int64),
            "aside": np.zeros((1, NT), bool),
            "checked": np.zeros((1, NT), np.int8),
            "smartest": np.zeros((1, P), bool),
        }
        K.score_batch(
            P,
            owner,
            state,
            und,
            rep,
            sk,
            tot,
            self.family,
            out["points"],
            out["aside"],
            out["checked"],
            out["smartest"],
        )
        return {k: v[0] for k, v in out.items()}

    @staticmethod
    def is_correct(combo: int, cards: Any) -> bool:
        """Is ``cards (10,)`` (count per kind) a correct submission for ``combo``: covers it, nothing superfluous?"""
        return bool(K.correct(int(combo), np.asarray(cards, dtype=np.int8)))

    @staticmethod
    def covers(combo: int, cards: Any) -> bool:
        """Do ``cards (10,)`` (count per kind) show every figure / golden button ``combo`` needs?"""
        return bool(K.covers(int(combo), np.asarray(cards, dtype=np.int8)))

    # ================================================================== names and pictures
    def tile_name(self, t: int) -> str:
        """``"t12 CCC"``: tile id and combo."""
        return f"t{t} {D.COMBO_NAMES[t % D.NUM_COMBOS]}"

    def _commit_name(self, s: FourMonkeysState, row: int, seat: int, action: int) -> str:
        """Name of ``seat``'s committed ``action`` (a skin target relative to that seat)."""
        if self.a_grab <= action < self.a_burn:
            t, j = divmod(action - self.a_grab, self.grab_variants)
            skin = f" + Banana skin to {D.SEAT_LETTERS[(seat + j) % self.num_players]}" if j else ""
            return f"grab {self.tile_name(t)}{skin}"
        return self.action_name(s, row, action)

    def movers(self, s: FourMonkeysState) -> np.ndarray:
        """``(B, P) bool``: seats that have not committed yet in the current tick (none once over)."""
        return (s.commits < 0) & (s.current_player >= 0)[:, None]


__all__ += ["TILE_GREEN", "TILE_LOOSE", "TILE_ORANGE", "TILE_STACK"]
