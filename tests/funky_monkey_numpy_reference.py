"""A frozen copy of Funky Monkey's numpy rules from before the compiled core: the test oracle.

The package runs one rules implementation, the numba kernels of
``monkey_envs/funky_monkey/kernels.py`` (deal, step, observation); together with the recorded
playthroughs (``tests/playthroughs/``) they are the truth about the rules. This module keeps the
numpy rules the kernels were compiled from -- the stage machine of the step
(:meth:`NumpyFunkyMonkey._step` and its handlers), the deal (:meth:`NumpySetup.deal`) and the
observation (:meth:`NumpyObserver.observe`) -- so that ``tests/test_funky_monkey_compiled.py`` can
play both over random batches and assert bit-identical states, masks and observations: a second,
independently written account of every rule that catches a kernel edit that changes play by
accident. Not imported by the package.

After a deliberate rules change: change the kernels, re-record the playthroughs that change
(``python -m monkey_envs.core.playthrough record``) and make the same change here, in the same commit,
naming the rule; the equivalence test is what shows the two accounts agree again. A change that
only this file needs (the kernels' play unchanged) is a bug in this file.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from monkey_envs.core.game import batch_arange, end_games
from monkey_envs.core.rng import draw_uint64, seed_rng, shuffle_prefix
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.actions import (
    A_ACCEPT,
    A_BONUS_DECLINE,
    A_BONUS_MONKEY,
    A_BONUS_TIGER,
    A_BOWL_2,
    A_CROWN,
    A_PASS,
    A_PAY_GOLDEN,
    A_PYRAMID_BACKWARD,
    A_SCALES_SKIP,
    A_SCALES_TARGET,
    A_TELESCOPE,
)
from monkey_envs.funky_monkey.observation import Observer
from monkey_envs.funky_monkey.position import Setup
from monkey_envs.funky_monkey.rules import FunkyMonkey
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_EMPTY,
    BOWL_GOLDEN,
    END_LAST_MONKEY,
    END_NO_WINNER,
    END_QUITTING_TIME,
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

# stat column indices
_S = {name: i for i, name in enumerate(STAT_NAMES)}
_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_SLOTS = np.flatnonzero(D.IS_SLOT)
_STEPS = D.CARD_STEPS.astype(np.int64)
_TRUTHFUL = STAT_NAMES.index("truthful")
_BLUFFS = STAT_NAMES.index("bluffs")
_MAX_LOOP = 64  # chain reactions are short; this only guards against a rules bug


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


class NumpySetup(Setup):
    """:class:`~monkey_envs.funky_monkey.position.Setup` with the numpy deal (``kernels.reset_rows_at`` reproduces it)."""

    def deal(self, seeds: np.ndarray) -> FunkyMonkeyState:
        """New games, one per seed of ``seeds (B,)`` (non-negative ints): shuffled stacks and decks, dealt hands.

        Returns:
            A :class:`FunkyMonkeyState` with batch size ``B`` at the first active player's turn;
            its ``legal_action_mask`` is all False (the game writes it).
        """
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

        s = self.blank(B)
        s.current_player[:] = chips[:, 0]
        s.rng = rng
        s.pos = pos
        s.tiles = tiles
        s.removed_tiles = removed
        s.hands = hands
        s.draw_pile = pile
        s.treasure_pile = tpile
        s.chip_order = chips.astype(np.int8)
        s.active[:] = chips[:, 0]
        return s


class NumpyObserver(Observer):
    """:class:`~monkey_envs.funky_monkey.observation.Observer` with the numpy observation (``kernels.observe_at`` reproduces it)."""

    def observe(self, s: FunkyMonkeyState, player: np.ndarray) -> np.ndarray:
        """Observation of seat ``player (B,) int64`` (valid seats) in every game: ``(B, layout.size) float32``."""
        # Built column-major -- (pieces, B) index and value arrays -- so that every numpy call runs
        # long inner loops over the batch instead of short ones over a few columns per row.
        B, P = s.batch_size, self.num_players
        W = self.layout.size
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
        seat[5] = s.stats[:, :, _TRUTHFUL]  # counted at the reveal: public
        seat[6] = s.stats[:, :, _BLUFFS]
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


class NumpyFunkyMonkey(FunkyMonkey):
    """Funky Monkey stepped by the numpy rules (the non-fused ``Game.step`` path): the oracle.

    Same arguments as :class:`~monkey_envs.funky_monkey.FunkyMonkey`. ``step`` runs
    :meth:`_step`; :meth:`_step_reference` is the same rules with the kernel's validation (the
    form the equivalence tests call); :meth:`reference_init` deals by :class:`NumpySetup` and
    ``reference_observe`` observes by :class:`NumpyObserver`.
    """

    fused_step: ClassVar[bool] = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        P = self.num_players
        # phase -> handler group (both respond phases in one call)
        self._handler_phase = np.array([PH_RESPOND if p == PH_RESPOND_SEEN else p for p in range(NUM_PHASES)], np.intp)
        self._left = np.arange(1, P + 1)  # offsets of the seats to the left, the seat itself last
        self._left_of = (self._rel[:, None] + self._left[None, :]) % P  # [seat] -> seats to its left
        self._numpy_setup = NumpySetup(P, self.tile_visibility)
        self._numpy_observer = NumpyObserver(P)

    def reference_init(self, seeds: np.ndarray) -> FunkyMonkeyState:
        """New games by the numpy deal and masks (what ``FunkyMonkey._init`` computed before the kernels)."""
        s = self._numpy_setup.deal(np.asarray(seeds, dtype=np.int64))
        self._refresh(s, np.arange(s.batch_size))
        s.mark_game(self)
        return s

    def reference_observe(self, s: FunkyMonkeyState, player: np.ndarray) -> np.ndarray:
        """``(B, D) float32``: seat ``player (B,) int64``'s observation by the numpy observer."""
        return self._numpy_observer.observe(s, player)

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
