"""Funky Monkey heuristics: ``honest``, ``believer``, ``skeptic`` and ``track``.

All four read the observation by name (``game.obs_layout.unflatten``) and act on whole batches.
They share one evaluation of the track, :func:`card_outcomes`: for every seat and every movement
card, the value of that seat's monkey receiving the card -- progress toward the tiger, the
landing space's effect (face-down tiles weighted by the tiles of their back not yet seen),
coconuts weighted more the fewer a monkey has, a win on the tiger, elimination beyond it or
through the last coconut, and the danger of standing right in front of the tiger. They share
the small decisions too: pay a normal coconut before the golden one, pick the better bowl or
pyramid direction by that value, take the bonus move that helps most (the tiger when it
catches rivals, never when it catches oneself), and use Scales on the rival whose pool gains
the most. They differ in how they bluff and whom they believe:

* **honest** -- announces the true value of the card it plays, choosing the card that helps the
  receiver least (and itself most if it comes back); accepts an offered card when the
  *announced* value is good for itself; looks through a Telescope when it has one.
* **believer** -- always trusts announcements (accepts when the announced value is good for it,
  never spends a Telescope); as the active player it plays a random card with a random
  announcement.
* **skeptic** -- assumes every announcement is a bluff: it values an offered card as a draw from
  the unseen cards *other than* the announced kind and accepts only when that is clearly good;
  as the active player it always bluffs, announcing the value that would tempt the receiver most.
* **track** -- the strongest: as a responder it weighs the announcement by how often the active
  player's announcements have proved true so far this game (prior 30%, ``truths_shown`` /
  ``bluffs_shown`` in the observation) and the rest by the unseen cards (hands and draw pile
  together), and accepts when the expected value of accepting is positive; it uses a Telescope
  when the decision is close.
  As the active player it scores every (card, announcement) by what the receiver (modelled as
  believing the announcement) would do: accepted, the card's value to the receiver counts
  against it; passed on, the card may come back to itself; a true announcement earns the bonus
  move. So it tells the truth when that costs nothing and bluffs when the truth would help the
  receiver. It also plays a Crown when moving its own monkey beats every face-down option.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import argmax_legal
from agents.heuristics import funky_monkey_kernels as K
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey import rules as R
from monkey_envs.funky_monkey.reading import Reading
from monkey_envs.funky_monkey.state import (
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
)

WIN = 50.0  # landing on the tiger
DEATH = 50.0  # elimination (beyond the tiger, last coconut)
PROGRESS = 0.25  # value of one space toward the tiger
DANGER = 0.75  # standing right in front of the tiger (a tiger bonus catches it)
BONUS = 1.0  # value of a bonus move for the active player
CHEST = 0.7
PYRAMID = 0.2
GOLDEN_EXTRA = 0.5  # the golden coconut breaks quitting-time ties
_SLOTS = np.flatnonzero(D.IS_SLOT)
_K = D.NUM_CARD_KINDS


def _coconut_weight(tc: np.ndarray) -> np.ndarray:
    """Value of one coconut for a monkey holding ``tc``: worth more the fewer it has."""
    return 1.0 + 1.0 / np.maximum(tc, 1)


def _loss(tc: np.ndarray, d: int) -> np.ndarray:
    """Value of giving up ``d`` coconuts when holding ``tc`` (elimination when it is all of them)."""
    return np.where(tc <= d, -DEATH, -d * _coconut_weight(tc))


#: Constant tables of the track for :func:`space_values`.
_SPACES = np.arange(D.TRACK_LENGTH)
_SLOT_BACK = D.SLOT_BACK[_SLOTS].astype(np.int64)  # back of each tile slot
_SLOT_ROW = D.SLOT_ROW[_SLOTS]
_BACK_SLOT_IDX = [
    np.array([int(np.flatnonzero(_SLOTS == s)[0]) for s in D.TILE_SLOTS_RECONSTRUCTED[back]]) for back in D.TILE_BACKS
]
_TILE_KINDS = np.arange(1, D.NUM_TILE_KINDS + 1)
_FIXED = np.flatnonzero(~D.IS_SLOT)
_BOWL_OF = {x: b for b, x in enumerate(D.BOWL_SPACES)}


def space_values(r: Reading) -> np.ndarray:
    """``(B, P, 19)`` value for each seat of ending a move on each space (progress included).

    Array work over the batch, the seats and the 19 spaces at once (only the 7 tile kinds and
    3 tile backs are looped over).
    """
    B, P = r.B, r.P
    tc = r.total
    cw = _coconut_weight(tc)
    seat = np.arange(P)[None, :]
    bowl_val = [np.where(r.bowls[:, b : b + 1], cw, _loss(tc, 1)) for b in range(2)]  # (B, P) each
    # value of each effect kind that does not depend on the space: (B, P) per kind
    kind_val = {
        D.E_NONE: np.zeros((B, P)),
        D.E_COCONUT: cw,
        D.E_GOLDEN: np.where(r.golden[:, None] == seat, 0.0, cw + GOLDEN_EXTRA),
        D.E_CHEST: np.full((B, P), CHEST),
        D.E_PYRAMID: np.full((B, P), PYRAMID),
        D.E_MINUS1: _loss(tc, 1),
        D.E_MINUS2: _loss(tc, 2),
    }
    # nearest bowl from each tile slot: rows 1 / 3 jump to their bowl, row 2 takes the better one
    jump = [bowl_val[b][:, :, None] + PROGRESS * (D.BOWL_SPACES[b] - _SLOTS)[None, None, :] for b in range(2)]
    nearest = np.where(_SLOT_ROW == 1, jump[0], np.where(_SLOT_ROW == 3, jump[1], np.maximum(jump[0], jump[1])))

    def slot_effect(k: int) -> np.ndarray:  # (B, P, n_slots)
        if k == D.E_NEAREST_BOWL:
            return nearest
        return np.broadcast_to(kind_val[k][:, :, None], (B, P, _SLOTS.size))

    # per-slot weights of the tile kinds still possible face down (the removed tile is among them)
    weights = np.zeros((B, _SLOTS.size, D.NUM_TILE_KINDS))
    for i, idx in enumerate(_BACK_SLOT_IDX):
        seen = (r.face[:, idx, None] == _TILE_KINDS).sum(1)
        left = np.maximum(D.BACK_COMPOSITION[i][None, :] - seen, 0).astype(np.float64)
        weights[:, _SLOT_BACK == i] = (left / np.maximum(left.sum(1, keepdims=True), 1.0))[:, None, :]
    known = r.face  # (B, n_slots) face-up kind, 0 = face down
    slot_val: Any = 0
    for k in _TILE_KINDS.tolist():
        slot_val = slot_val + weights[:, None, :, k - 1] * slot_effect(k)
    for k in _TILE_KINDS.tolist():
        slot_val = np.where((known == k)[:, None, :], slot_effect(k), slot_val)

    val = np.empty((B, P, D.TRACK_LENGTH))
    val[:, :, _SLOTS] = slot_val
    for x in _FIXED.tolist():  # the 8 fixed spaces
        e = int(D.FIXED_EFFECT[x])
        val[:, :, x] = bowl_val[_BOWL_OF[x]] if e == D.E_BOWL else kind_val[e]
    tiger = r.tiger[:, None, None]
    val = val + PROGRESS * _SPACES - DANGER * (tiger == _SPACES + 1)
    return np.where(tiger == _SPACES, WIN, np.where(tiger < _SPACES, -DEATH, val))


def card_outcomes(r: Reading, sv: np.ndarray | None = None) -> np.ndarray:
    """``(B, P, 5)`` value for each seat of receiving each card kind (relative to nothing happening)."""
    sv = space_values(r) if sv is None else sv
    pos = np.maximum(r.pos, 0)
    out = np.empty((r.B, r.P, _K))
    for k in range(4):
        dest = pos + k + 1
        val = np.take_along_axis(sv, np.minimum(dest, D.TRACK_LENGTH - 1)[:, :, None], axis=2)[:, :, 0]
        val = np.where(dest >= D.TRACK_LENGTH, -DEATH, val)
        out[:, :, k] = val - PROGRESS * pos
    out[:, :, D.CARD_MINUSS] = _loss(r.total, 1)
    return out


class FunkyHeuristic:
    """Shared machinery; subclasses choose the active play and the response."""

    name = "funky_heuristic"
    uses_telescope = True

    def __init__(self, game: Any, seed: int = 0) -> None:
        if getattr(game, "spec", None) is None or game.spec.name != "funky_monkey":
            raise ValueError(f"{type(self).__name__} plays funky_monkey, got {game!r}")
        self.game = game
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ the protocol
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` legal actions for observations ``(B, obs_dim) float32`` and masks ``(B, A)``.

        The highest score of :meth:`scores` among the legal actions, ties broken by the agent's
        generator (:func:`agents.base.argmax_legal`; the compiled heuristics pick in compiled
        code, from the same draws).

        Raises:
            ValueError: ``obs`` is not ``(B, obs_dim)`` or ``mask`` not ``(B, A)``.
        """
        return FunkyHeuristic.act_jointly([(self, obs, mask)])[0]

    @staticmethod
    def act_jointly(parts: Sequence[tuple[FunkyHeuristic, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
        """``[agent.act(obs, mask) for agent, obs, mask in parts]``, the compiled heuristics in one call.

        Every agent draws from its own generator in the same amounts and order as those
        separate calls (the believer's random plays, then the tie-breaking noise), so the
        actions are the same; the rows of all parts are scored by one compiled loop. The
        batched driver calls this once per pass for opponents of one family
        (``monkey_envs.core.driver``: agents whose classes share ``act_jointly``).

        Raises:
            ValueError: a part's ``obs`` is not ``(n, obs_dim)`` or its ``mask`` not ``(n, A)``.
        """
        out: list[Any] = [None] * len(parts)
        todo: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for i, (agent, obs, mask) in enumerate(parts):
            obs = np.asarray(obs)
            mask = np.asarray(mask)
            if mask.dtype != np.bool_:
                mask = mask.astype(bool)
            kind = agent._check(obs, mask)
            if kind < 0:
                out[i] = argmax_legal(agent.scores_numpy(obs, mask), mask, agent.rng)
                continue
            obs = np.ascontiguousarray(obs, dtype=np.float32)
            rand = agent._believer_draws(obs, kind)
            todo.append((i, kind, obs, mask, rand, agent._weights(), agent.rng.random(mask.shape)))
        if not todo:
            return out
        g = parts[todo[0][0]][0].game
        if len(todo) == 1:
            i, kind, obs, mask, rand, tf, noise = todo[0]
            scores = _compiled_scores(g, obs, np.zeros(obs.shape[0], dtype=np.int64), [kind], tf[None], rand)
            out[i] = K.choose(scores, np.ascontiguousarray(mask), noise)
            return out
        sizes = [t[2].shape[0] for t in todo]
        grp = np.repeat(np.arange(len(todo), dtype=np.int64), sizes)
        cols = list(zip(*todo, strict=True))
        scores = _compiled_scores(
            g, np.concatenate(cols[2]), grp, list(cols[1]), np.array(cols[5]), np.concatenate(cols[4])
        )
        acts = K.choose(scores, np.concatenate(cols[3]), np.concatenate(cols[6]))
        start = 0
        for i, size in zip(cols[0], sizes, strict=True):
            out[i] = acts[start : start + size]
            start += size
        return out

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, A) float64`` action scores for observations ``obs (B, obs_dim)`` and masks ``mask (B, A)``.

        The four heuristics of this module (unless a subclass overrides how they score) run the
        compiled loop of :mod:`agents.heuristics.funky_monkey_kernels`, which returns exactly
        :meth:`scores_numpy` (the reference) at a small fraction of its cost; other subclasses
        run :meth:`scores_numpy`. The believer's random plays come from the agent's generator
        either way, drawn in the same amounts.

        Raises:
            ValueError: ``obs`` is not ``(B, obs_dim)`` or ``mask`` not ``(B, A)``.
        """
        obs = np.asarray(obs)
        mask = np.asarray(mask).astype(bool)
        kind = self._check(obs, mask)
        if kind < 0:
            return self.scores_numpy(obs, mask)
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        rand = self._believer_draws(obs, kind)
        return _compiled_scores(
            self.game, obs, np.zeros(obs.shape[0], dtype=np.int64), [kind], self._weights()[None], rand
        )

    def _check(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Check the shapes; the kernel code of this agent (-1: score in numpy)."""
        g = self.game
        if obs.ndim != 2 or obs.shape[1] != g.obs_dim:
            raise ValueError(f"obs must have shape (B, {g.obs_dim}), got {obs.shape}")
        if mask.shape != (obs.shape[0], g.num_actions):
            raise ValueError(f"mask must have shape ({obs.shape[0]}, {g.num_actions}), got {mask.shape}")
        return _kernel_kind(self)

    def _believer_draws(self, obs: np.ndarray, kind: int) -> np.ndarray:
        """The believer's random play scores for its rows in the active phase (as ``active_scores`` draws them)."""
        if kind != K.BELIEVER:
            return _NO_RAND
        ph = obs[:, _tables(self.game)["phase"]]
        n_active = int((np.where(ph.any(1), ph.argmax(1), -1) == PH_ACTIVE).sum())
        return self.rng.random((n_active, R.NUM_PLAY_ACTIONS)) if n_active else _NO_RAND

    #: The agent's weights the kernel reads (besides the module constants), see :meth:`_weights`.
    _WEIGHT_NAMES = ("p_truth", "prior_weight", "bonus", "p_believer", "uses_telescope")

    def _weights(self) -> np.ndarray:
        """``(NUM_TF,) float64`` this agent's weights for the kernel (``F_*`` positions); built once
        per class, and per call for an agent whose own attributes set one of them."""
        d = self.__dict__
        if any(a in d for a in self._WEIGHT_NAMES):
            return self._weights_now()
        t = type(self)
        w = _CLASS_WEIGHTS.get(t)
        if w is None:
            w = _CLASS_WEIGHTS[t] = self._weights_now()
        return w

    def _weights_now(self) -> np.ndarray:
        return np.array(
            [WIN, DEATH, PROGRESS, DANGER, CHEST, PYRAMID, GOLDEN_EXTRA]
            + [float(getattr(self, a, 0.0)) for a in ("p_truth", "prior_weight", "bonus", "p_believer")]
            + [1.0 if self.uses_telescope else 0.0]
        )

    def scores_numpy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, A) float64`` action scores in numpy over the whole batch (the reference of :meth:`scores`)."""
        r = Reading(self.game, obs)
        sv = space_values(r)
        co = card_outcomes(r, sv)
        B, A = mask.shape
        scores = np.zeros((B, A))
        ph = r.phase
        for code, fn in (
            (PH_ACTIVE, self.active_scores),
            (PH_RESPOND, self.respond_scores),
            (PH_RESPOND_SEEN, self.respond_scores),
        ):
            rows = np.flatnonzero(ph == code)
            if rows.size:
                scores[rows] = fn(r, co, rows, mask[rows])
        self._small_decisions(r, sv, scores, mask)
        return scores

    # ------------------------------------------------------------------ to specialise
    def active_scores(self, r: Reading, co: np.ndarray, rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def respond_scores(self, r: Reading, co: np.ndarray, rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def _respond_by_ev(self, r: Reading, co: np.ndarray, rows: np.ndarray, ev: np.ndarray, margin: float) -> np.ndarray:
        """Accept when ``ev > margin``; a card already seen through a Telescope is judged as it is."""
        n = rows.size
        s = np.zeros((n, self.game.num_actions))
        known = r.known[rows]
        seen_val = co[rows, 0, np.maximum(known, 0)]
        ev = np.where(known >= 0, seen_val, ev)
        margin = np.where(known >= 0, 0.0, margin)
        s[:, R.A_ACCEPT] = ev - margin
        s[:, R.A_PASS] = 0.0
        s[:, R.A_TELESCOPE] = 1e6 if self.uses_telescope else -1e9  # look first when allowed
        return s

    def _posterior_ev(self, r: Reading, co: np.ndarray, rows: np.ndarray, p_truth: Any, exclude: bool) -> np.ndarray:
        """Expected value for the observer of an offered card: ``p_truth`` on the announced kind,
        the rest spread over the unseen cards (without the announced kind if ``exclude``)."""
        unseen = r.unseen[rows].astype(np.float64)
        ann = np.maximum(r.announce[rows], 0)
        if exclude:
            unseen[np.arange(rows.size), ann] = 0.0
        tot = unseen.sum(1, keepdims=True)
        q = np.where(tot > 0, unseen / np.maximum(tot, 1.0), 1.0 / _K)
        mine = co[rows, 0]  # (n, 5)
        rest = (q * mine).sum(1)
        return p_truth * mine[np.arange(rows.size), ann] + (1.0 - p_truth) * rest

    def _small_decisions(self, r: Reading, sv: np.ndarray, scores: np.ndarray, mask: np.ndarray) -> None:
        """Pay, bowl, pyramid, bonus and Scales decisions (the same for every heuristic)."""
        me_pos = np.maximum(r.pos[:, 0], 0)
        my = sv[:, 0]  # (B, 19)
        # pay: keep the golden coconut (it breaks ties)
        rows = r.phase == PH_PAY
        scores[rows, R.A_PAY_NORMAL] = 1.0
        # nearest bowl from the middle row
        rows = r.phase == PH_BOWL
        scores[rows, R.A_BOWL_1] = my[rows, D.BOWL_SPACES[0]]
        scores[rows, R.A_BOWL_2] = my[rows, D.BOWL_SPACES[1]]
        # pyramid direction
        rows = np.flatnonzero(r.phase == PH_PYRAMID)
        if rows.size:
            n = np.maximum(r.pyramid[rows], 0) + 1
            fwd = me_pos[rows] + n
            back = np.maximum(me_pos[rows] - n, 0)
            f_val = np.where(fwd >= D.TRACK_LENGTH, -DEATH, my[rows, np.minimum(fwd, D.TRACK_LENGTH - 1)])
            scores[rows, R.A_PYRAMID_FORWARD] = f_val
            scores[rows, R.A_PYRAMID_BACKWARD] = my[rows, back]
        # bonus: own monkey, tiger, or decline
        rows = np.flatnonzero(r.phase == PH_BONUS)
        if rows.size:
            step = me_pos[rows] + 1
            scores[rows, R.A_BONUS_MONKEY] = (
                np.where(step >= D.TRACK_LENGTH, -DEATH, my[rows, np.minimum(step, D.TRACK_LENGTH - 1)])
                - PROGRESS * me_pos[rows]
            )
            front = r.tiger[rows] - 1
            caught = r.alive[rows] & (r.pos[rows] == front[:, None])
            rivals = r.alive[rows, 1:].sum(1)
            n_caught = caught[:, 1:].sum(1)
            tiger_val = np.where(
                caught[:, 0], -DEATH, np.where((n_caught == rivals) & (rivals > 0), WIN, 3.0 * n_caught - 0.1)
            )
            scores[rows, R.A_BONUS_TIGER] = tiger_val
            scores[rows, R.A_BONUS_DECLINE] = 0.0
        # Scales: the rival whose pooled coconuts give the most (golden counted extra)
        rows = np.flatnonzero(r.phase == PH_SCALES)
        if rows.size:
            P = r.P
            mine = r.total[rows, 0]
            for j in range(1, P):
                theirs = r.total[rows, j]
                gain = (mine + theirs + 1) // 2 - mine + GOLDEN_EXTRA * (r.golden[rows] == j)
                scores[rows, R.A_SCALES_TARGET + j - 1] = gain
            scores[rows, R.A_SCALES_SKIP] = 0.0


class HonestAgent(FunkyHeuristic):
    """Always announces the true value; trusts announcements (see the module docstring)."""

    name = "honest"

    def active_scores(self, r, co, rows, mask):
        n = rows.size
        s = np.full((n, self.game.num_actions), -1e9)
        recv = r.receiver[rows]
        to_recv = co[rows, recv]  # (n, 5)
        to_me = co[rows, 0]
        val = -np.maximum(to_recv, 0.0) + 0.5 * to_me
        for k in range(_K):
            s[:, k * 5 + k] = val[:, k]
        return s

    def respond_scores(self, r, co, rows, mask):
        ann = np.maximum(r.announce[rows], 0)
        return self._respond_by_ev(r, co, rows, co[rows, 0, ann], 0.0)


class BelieverAgent(FunkyHeuristic):
    """Always trusts announcements; plays a random card with a random announcement."""

    name = "believer"
    uses_telescope = False

    def active_scores(self, r, co, rows, mask):
        s = np.zeros((rows.size, self.game.num_actions))
        s[:, : R.NUM_PLAY_ACTIONS] = self.rng.random((rows.size, R.NUM_PLAY_ACTIONS))
        s[:, R.A_CROWN : R.A_ACCEPT] = -1e9
        return s

    def respond_scores(self, r, co, rows, mask):
        ann = np.maximum(r.announce[rows], 0)
        return self._respond_by_ev(r, co, rows, co[rows, 0, ann], 0.0)


class SkepticAgent(FunkyHeuristic):
    """Assumes every announcement is a bluff; always bluffs itself."""

    name = "skeptic"

    def active_scores(self, r, co, rows, mask):
        n = rows.size
        s = np.full((n, self.game.num_actions), -1e9)
        to_recv = co[rows, r.receiver[rows]]  # (n, 5)
        for k in range(_K):
            lure = to_recv.copy()
            lure[:, k] = -np.inf  # announce anything but the truth
            a = lure.argmax(1)
            # play the card that hurts the receiver most, announced as the most tempting other value
            s[np.arange(n), k * 5 + a] = -to_recv[:, k]
        return s

    def respond_scores(self, r, co, rows, mask):
        ev = self._posterior_ev(r, co, rows, p_truth=0.0, exclude=True)
        return self._respond_by_ev(r, co, rows, ev, 0.25)


class TrackAgent(FunkyHeuristic):
    """Expected value of accepting from the announcement and the unseen cards; bluffs when the truth
    would help the receiver (see the module docstring)."""

    name = "track"
    #: weight of the announced kind in the posterior over the offered card (the rest: unseen cards)
    p_truth = 0.3
    #: strength (in announcements) of that prior against the announcements revealed so far
    prior_weight = 1.0
    #: value of the bonus move a true announcement earns
    bonus = 1.5
    #: chance that the receiver believes the announcement (else it judges by the unseen cards)
    p_believer = 0.5

    def active_scores(self, r, co, rows, mask):
        n = rows.size
        A = self.game.num_actions
        s = np.full((n, A), -1e9)
        recv = r.receiver[rows]
        to_recv = co[rows, recv]  # (n, 5) value of each card for the receiver
        to_me = co[rows, 0]
        two = r.alive[rows].sum(1) == 2
        back = np.where(two, 1.0, 0.5)  # chance a passed card comes back to me
        harm = np.where(two, 1.0, 0.6)  # what hurting one rival is worth to me
        # a receiver who ignores the announcement accepts when the unseen cards are good on average
        unseen = r.unseen[rows].astype(np.float64)
        blind = (unseen * to_recv).sum(1) / np.maximum(unseen.sum(1), 1.0) > 0
        for a in range(_K):
            p_acc = self.p_believer * (to_recv[:, a] > 0) + (1.0 - self.p_believer) * blind
            for k in range(_K):
                val = p_acc * harm * -to_recv[:, k] + (1.0 - p_acc) * back * to_me[:, k]
                s[:, k * 5 + a] = val + (self.bonus if a == k else 0.0)
        for k in range(_K):
            s[:, R.A_CROWN + k] = to_me[:, k] + (self.bonus if self.game.crown_bonus else 0.0)
        return s

    def respond_scores(self, r, co, rows, mask):
        # how far to trust the announcement: a prior of p_truth, updated by the active player's
        # announcements revealed so far in this game (true vs bluffed)
        act = np.maximum(r.active[rows], 0)
        t, b = r.truths[rows, act], r.bluffs[rows, act]
        p = (t + self.prior_weight * self.p_truth) / (t + b + self.prior_weight)
        ev = self._posterior_ev(r, co, rows, p_truth=p, exclude=False)
        s = self._respond_by_ev(r, co, rows, ev, 0.0)
        # use a Telescope only when the decision is close
        mine = co[rows, 0]
        spread = mine.max(1) - mine.min(1)
        close = (np.abs(ev) < 0.5 * spread) & (r.known[rows] < 0)
        s[:, R.A_TELESCOPE] = np.where(close, np.abs(ev) + 1.0, -1e9)
        return s


_NO_RAND = np.zeros((0, R.NUM_PLAY_ACTIONS))
#: What the compiled scores reproduce; a subclass that overrides any of these scores in numpy.
_KERNEL_METHODS = ("active_scores", "respond_scores", "_small_decisions", "_respond_by_ev", "_posterior_ev")
_TABLES: dict[tuple[int, int], dict[str, Any]] = {}
_KIND_OF: dict[type, int] = {}
_CLASS_WEIGHTS: dict[type, np.ndarray] = {}


def _compiled_scores(
    game: Any, obs: np.ndarray, grp: np.ndarray, kinds: list[int], tfs: np.ndarray, rand: np.ndarray
) -> np.ndarray:
    """:func:`~agents.heuristics.funky_monkey_kernels.heuristic_scores` with the game's tables."""
    t = _tables(game)
    return K.heuristic_scores(
        obs,
        grp,
        np.asarray(kinds, dtype=np.int64),
        tfs,
        game.num_players,
        t["ti"],
        rand,
        *_track_args(t),
        game.num_actions,
    )


def _track_args(t: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """The track tables of :func:`_tables`, in the order the kernels take them."""
    return tuple(
        t[k] for k in ("slots", "slot_row", "slot_back", "back_comp", "fixed", "fixed_effect", "bowl_of", "bowl_spaces")
    )


def _kernel_kind(agent: FunkyHeuristic) -> int:
    """The heuristic code of :func:`~agents.heuristics.funky_monkey_kernels.heuristic_scores` that
    scores like ``agent``, or -1 when its class changes how one of the four scores (cached per class)."""
    t = type(agent)
    code = _KIND_OF.get(t)
    if code is None:
        code = -1
        for c, cls in (
            (K.HONEST, HonestAgent),
            (K.BELIEVER, BelieverAgent),
            (K.SKEPTIC, SkepticAgent),
            (K.TRACK, TrackAgent),
        ):
            if issubclass(t, cls):
                code = c if all(getattr(t, m) is getattr(cls, m) for m in _KERNEL_METHODS) else -1
                break
        _KIND_OF[t] = code
    return code


def _tables(game: Any) -> dict[str, np.ndarray]:
    """The kernel's int64 table ``ti`` (layout columns, phase / action / effect codes) and track tables."""
    key = (game.num_players, int(bool(game.crown_bonus)))
    t = _TABLES.get(key)
    if t is not None:
        return t
    sl = game.obs_layout.slices
    ti = np.zeros(K.NUM_TI, dtype=np.int64)
    for i, piece in (
        (K.I_PHASE, "phase"),
        (K.I_ACTIVE, "active"),
        (K.I_ANNOUNCE, "announcement"),
        (K.I_KNOWN, "known_card"),
        (K.I_PYRAMID, "pyramid_card"),
        (K.I_GOLDEN, "golden"),
        (K.I_TIGER, "tiger"),
        (K.I_POSITION, "position"),
        (K.I_TILES, "tiles"),
        (K.I_ALIVE, "alive"),
        (K.I_COCONUTS, "coconuts"),
        (K.I_TRUTHS, "truths_shown"),
        (K.I_BLUFFS, "bluffs_shown"),
        (K.I_BOWLS, "bowls"),
        (K.I_UNSEEN, "unseen_cards"),
    ):
        ti[i] = sl[piece].start
    ti[K.I_NUM_PHASES] = sl["phase"].stop - sl["phase"].start
    ti[K.I_TILE_COLS] = D.NUM_TILE_KINDS + 1
    codes = {
        K.I_PH_ACTIVE: PH_ACTIVE,
        K.I_PH_RESPOND: PH_RESPOND,
        K.I_PH_RESPOND_SEEN: PH_RESPOND_SEEN,
        K.I_PH_PAY: PH_PAY,
        K.I_PH_BOWL: PH_BOWL,
        K.I_PH_PYRAMID: PH_PYRAMID,
        K.I_PH_BONUS: PH_BONUS,
        K.I_PH_SCALES: PH_SCALES,
        K.I_A_CROWN: R.A_CROWN,
        K.I_A_ACCEPT: R.A_ACCEPT,
        K.I_A_PASS: R.A_PASS,
        K.I_A_TELESCOPE: R.A_TELESCOPE,
        K.I_A_BONUS_MONKEY: R.A_BONUS_MONKEY,
        K.I_A_BONUS_TIGER: R.A_BONUS_TIGER,
        K.I_A_BONUS_DECLINE: R.A_BONUS_DECLINE,
        K.I_A_PYRAMID_FORWARD: R.A_PYRAMID_FORWARD,
        K.I_A_PYRAMID_BACKWARD: R.A_PYRAMID_BACKWARD,
        K.I_A_BOWL_1: R.A_BOWL_1,
        K.I_A_BOWL_2: R.A_BOWL_2,
        K.I_A_PAY_NORMAL: R.A_PAY_NORMAL,
        K.I_A_SCALES_SKIP: R.A_SCALES_SKIP,
        K.I_A_SCALES_TARGET: R.A_SCALES_TARGET,
        K.I_NUM_PLAY: R.NUM_PLAY_ACTIONS,
        K.I_CARD_MINUSS: D.CARD_MINUSS,
        K.I_E_NONE: D.E_NONE,
        K.I_E_COCONUT: D.E_COCONUT,
        K.I_E_GOLDEN: D.E_GOLDEN,
        K.I_E_CHEST: D.E_CHEST,
        K.I_E_PYRAMID: D.E_PYRAMID,
        K.I_E_NEAREST_BOWL: D.E_NEAREST_BOWL,
        K.I_E_MINUS1: D.E_MINUS1,
        K.I_E_MINUS2: D.E_MINUS2,
        K.I_E_BOWL: D.E_BOWL,
        K.I_CROWN_BONUS: int(bool(game.crown_bonus)),
    }
    for i, v in codes.items():
        ti[i] = int(v)
    bowl_of = np.full(D.TRACK_LENGTH, -1, dtype=np.int64)
    for b, x in enumerate(D.BOWL_SPACES):
        bowl_of[x] = b
    t = {
        "phase": sl["phase"],
        "ti": ti,
        "slots": _SLOTS.astype(np.int64),
        "slot_row": _SLOT_ROW.astype(np.int64),
        "slot_back": _SLOT_BACK,
        "back_comp": np.ascontiguousarray(D.BACK_COMPOSITION, dtype=np.int64),
        "fixed": _FIXED.astype(np.int64),
        "fixed_effect": D.FIXED_EFFECT.astype(np.int64),
        "bowl_of": bowl_of,
        "bowl_spaces": np.array(D.BOWL_SPACES, dtype=np.int64),
    }
    _TABLES[key] = t
    return t


def _factory(cls: type[FunkyHeuristic]):
    def make(game: Any, seed: int = 0) -> FunkyHeuristic:
        return cls(game, seed)

    make.__doc__ = cls.__doc__
    return make


AGENT_CLASSES: dict[str, type[FunkyHeuristic]] = {
    "honest": HonestAgent,
    "believer": BelieverAgent,
    "skeptic": SkepticAgent,
    "track": TrackAgent,
}


def register() -> None:
    """Register the four heuristics with :func:`agents.registry.register_agent` (for ``funky_monkey`` only)."""
    from agents.registry import register_agent

    for name, cls in AGENT_CLASSES.items():
        register_agent(name, _factory(cls), game="funky_monkey")


register()

__all__ = [
    "AGENT_CLASSES",
    "BelieverAgent",
    "FunkyHeuristic",
    "HonestAgent",
    "Reading",
    "SkepticAgent",
    "TrackAgent",
    "card_outcomes",
    "register",
    "space_values",
]


# ====================================================================== the search agent
def _register_search() -> None:
    """``mcts`` with this game's default budget (:mod:`agents.search`; sized for a 2,000-game arena in 30 min)."""
    from agents.search import register_search_agent, register_search_playout

    register_search_agent("funky_monkey", simulations=64, determinizations=8, rollout="track", prior="track")
    register_search_playout("funky_monkey", compiled_playout)


def compiled_playout(game: Any, agent: Any, state: Any, left: np.ndarray) -> int | None:
    """The search's play-out of every row of ``state`` with ``agent``, in one compiled loop (in place).

    The search agent's hook (:func:`agents.search.register_search_playout`): plays the running
    rows of ``state`` pass after pass until each ends or has used its ``left (n,) int64``
    decisions (decremented), exactly as the search's step-by-step play-out with ``agent.act``
    would (:func:`~agents.heuristics.funky_monkey_kernels.playout`; the same moves and the same
    draws from ``agent.rng``; ``tests/test_search_agent.py`` compares the two).

    Returns:
        The row-steps taken, or ``None`` (nothing done) for an agent the kernel does not play --
        not one of this module's heuristics scored by the compiled code, or the believer, whose
        random plays it does not draw -- or a state it cannot address.
    """
    if not isinstance(agent, FunkyHeuristic) or agent.game is not game:
        return None
    kind = _kernel_kind(agent)
    if kind < 0 or kind == K.BELIEVER:
        return None
    access = game.compiled_access(state)
    if access is None:
        return None
    ptrs, dims, step_args, observe_args = access
    t = _tables(game)
    steps = K.playout(
        left,
        agent.rng,
        state.terminated,
        state.truncated,
        state.current_player,
        state.legal_action_mask,
        ptrs,
        dims,
        step_args,
        observe_args,
        game.obs_dim,
        np.array([kind], dtype=np.int64),
        agent._weights()[None],
        game.num_players,
        t["ti"],
        *_track_args(t),
    )
    if steps < 0:
        raise RuntimeError("the compiled play-out made a move the rules refuse")
    return int(steps)


_register_search()
