"""4 Monkeys heuristics, vectorised over the batch: ``honest``, ``bluffer`` and ``smart``.

All three read only ``(obs, mask)`` through ``game.obs_layout.unflatten`` (own hand and pending
set, the public tiles, seats and clock), so they play from any seat. They share one plan,
:class:`_View`: every correct submission of every combo (189 card multisets,
:data:`~monkey_envs.four_monkeys.analytics.CORRECT_SETS`) is matched against the own pending set
and hand; a set is *reachable* when it contains the pending set and the rest is in the hand (the
pending set cannot be taken back, only grabbed). Of the reachable sets of combos that lie
available and that the seat does not hold yet (a repeated combo is set aside, both tiles, -2
each), the plan takes the one with the most points per tick -- green value / (cards still to
put + 1 tick for the grab), the higher value on ties -- and either puts its next card or, when
the pending set is exactly that set, grabs an available tile of the combo (a random one of
them, so two seats aiming at the same combo do not always collide).

* **honest** -- the plan and nothing else: grabs only correct combos, never bluffs; waits when
  nothing reachable is available (it never burns, replenishes, reveals or calls Stop).
* **bluffer** -- the plan, but in each tick it bluffs with probability ``p_behind`` (0.9) when
  another seat leads it on visible points by ``margin`` (2) or more -- it expects not to be the
  Smartest Monkey, whose combos alone are checked -- and ``p_lead`` (0.05) otherwise. A bluff
  puts any card (one is enough: a grab needs a pending card) and grabs the most valuable
  available combo it does not hold.
* **smart** -- what a strong player does: the plan; a bluff only when it stays safely behind
  (after the bluff the leader is still ``safety`` (3) or more points ahead) and the bluff
  earns more points per tick than the plan; when nothing fits (no reachable combo) it uses Hand
  replenish (swap the hand when the pending set is empty, else draw 3) and then burns its
  cheapest green tile (-1 point, 3 cards) while at least a quarter of the round is left; it
  reveals a tile when the rules allow (it holds every available combo), and calls Stop only when
  it is valid (10 different combos).
* **smart_honest** -- ``smart`` with its bluffs switched off (everything else the same): the
  honest-only ablation of ``smart`` (what bluffing adds to it).

Every chosen action is checked against the mask; an illegal one becomes ``wait`` (always legal).
Seeded ``numpy`` generators: the same seed gives the same actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.registry import register_agent, register_features
from monkey_envs.four_monkeys import analytics as A
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K

_SETS = A.CORRECT_SETS  # (M, 10)
_SET_COMBO = A.CORRECT_SET_COMBO  # (M,)
_SET_SIZE = _SETS.sum(1)  # (M,)
_SET_VALUE = D.COMBO_GREEN[_SET_COMBO].astype(np.float64)
#: ``(10,)`` fewest and most cards a correct submission of each combo has (public: the number of
#: cards under a tile is visible, so a count outside this range is a certain bluff).
MIN_CARDS = np.array([_SET_SIZE[_SET_COMBO == c].min() for c in range(D.NUM_COMBOS)])
MAX_CARDS = np.array([_SET_SIZE[_SET_COMBO == c].max() for c in range(D.NUM_COMBOS)])


@njit(cache=True)
def _plan_rows(
    pend: np.ndarray,
    hand: np.ndarray,
    wanted: np.ndarray,
    sets: np.ndarray,
    set_combo: np.ndarray,
    set_size: np.ndarray,
    set_value: np.ndarray,
    target: np.ndarray,
    need: np.ndarray,
    rate: np.ndarray,
) -> None:
    """The honest plan of every row (:meth:`_View._plan`), written into ``target`` / ``need`` / ``rate``.

    Args:
        pend, hand: ``(B, 10) int64`` cards of each kind in the pending set and in the hand.
        wanted: ``(B, 10) bool`` combos worth taking.
        sets, set_combo, set_size, set_value: ``(M, 10) int64``, ``(M,) int64``, ``(M,) int64``,
            ``(M,) float64`` the correct sets, their combos, card counts and green values.
        target, need, rate: ``(B,)`` outputs (``int64``, ``int64``, ``float64``): the chosen set
            (-1: none), the cards still to put, its rate (0 without a plan).
    """
    B, NK = pend.shape
    for b in range(B):
        npend = 0
        for k in range(NK):
            npend += pend[b, k]
        best, best_set, best_need = -np.inf, -1, 0
        for m in range(sets.shape[0]):
            if not wanted[b, set_combo[m]]:
                continue
            reach = True
            for k in range(NK):
                if sets[m, k] < pend[b, k] or sets[m, k] > pend[b, k] + hand[b, k]:
                    reach = False
                    break
            if not reach:
                continue
            nd = max(set_size[m] - npend, 0)
            v = set_value[m]
            r = v / (nd + 1) + 1e-3 * v - 1e-6 * nd
            if r > best:  # strictly: the first set of the highest rate
                best, best_set, best_need = r, m, nd
        target[b] = best_set
        need[b] = best_need
        rate[b] = best if best_set >= 0 else 0.0


class _View:
    """What the heuristics read from a batch of observations, and the honest plan."""

    def __init__(self, game: Any, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> None:
        obs = np.asarray(obs, np.float32)
        self.game = game
        self.B = B = obs.shape[0]
        self.mask = np.asarray(mask).astype(bool)
        o = game.obs_layout.unflatten(obs)
        self.hand = A.counts(o["hand"], 8.0)  # (B, 10)
        self.pend = A.counts(o["pending"], 8.0)
        self.npend = self.pend.sum(1)
        tiles = o["tiles"]  # (B, NT, 5 + P)
        NT = game.num_tiles
        self.combo_of_tile = np.arange(NT) % D.NUM_COMBOS
        self.available = tiles[:, :, 0] > 0.5  # (B, NT)
        mine = tiles[:, :, K.TILE_FEATURES] > 0.5  # observer first
        self.green_mine = mine & (tiles[:, :, 2] < 0.5)
        owned = np.zeros((B, D.NUM_COMBOS), bool)
        for c in range(D.NUM_COMBOS):
            owned[:, c] = mine[:, c :: D.NUM_COMBOS].any(1)
        self.owned = owned
        grab_cols = game.a_grab + np.arange(NT) * game.grab_variants
        self.can_grab = self.mask[:, grab_cols]  # (B, NT) grab (keeping the skin) legal
        # an available tile of each combo (legal to grab once a card is pending)
        avail_c = np.zeros((B, D.NUM_COMBOS), bool)
        for c in range(D.NUM_COMBOS):
            avail_c[:, c] = self.available[:, c :: D.NUM_COMBOS].any(1)
        self.wanted = avail_c & ~owned  # (B, 10) combos worth taking
        pts = A.visible_points(game, obs)
        self.points = pts[:, 0]
        self.best_other = pts[:, 1:].max(1)
        # points the others keep if checked: tiles with an impossible number of cards under them fall
        under = np.rint(tiles[:, :, 3] * 10.0).astype(np.int64)
        c = self.combo_of_tile[None, :]
        sure_bluff = (under < MIN_CARDS[c]) | (under > MAX_CARDS[c])
        value = D.COMBO_GREEN[c] - (tiles[:, :, 2] > 0.5)
        others = tiles[:, :, K.TILE_FEATURES + 1 :] > 0.5  # (B, NT, P - 1)
        lost = (others & sure_bluff[:, :, None]) * value[:, :, None]
        self.credible_other = (pts[:, 1:] - lost.sum(1)).max(1)
        self.gap = self.best_other - self.points  # > 0: someone else leads
        self.clock = o["clock"][:, 0]  # ticks played / ticks
        self.combos_held = owned.sum(1)
        self.rng = rng
        self._plan()

    def _plan(self) -> None:
        """Best reachable correct set per row: ``target (B,)`` set index or -1, ``need (B,)`` cards to put.

        Of the correct sets that contain the pending set, lie within pending set + hand and are of
        a wanted combo, the one with the highest ``value / (need + 1) + 1e-3 value - 1e-6 need``
        (the first such set on ties); ``target_rate (B,) float64`` is that rate (0 without a plan).
        One compiled pass over the rows (:func:`_plan_rows`).
        """
        self.target = np.empty(self.B, np.int64)
        self.need = np.empty(self.B, np.int64)
        self.target_rate = np.empty(self.B, np.float64)
        _plan_rows(
            self.pend, self.hand, self.wanted, _SETS, _SET_COMBO, _SET_SIZE, _SET_VALUE,
            self.target, self.need, self.target_rate,
        )  # fmt: skip

    def grab_combo(self, combo: np.ndarray) -> np.ndarray:
        """``(B,) int64`` a grab (no skin) of a random legal tile of ``combo (B,)``; -1 where none."""
        cand = self.can_grab & (self.combo_of_tile[None, :] == combo[:, None]) & (combo[:, None] >= 0)
        u = np.where(cand, self.rng.random(cand.shape), -1.0)
        t = u.argmax(1)
        return np.where(cand.any(1), self.game.a_grab + t * self.game.grab_variants, -1)

    def honest_actions(self) -> np.ndarray:
        """``(B,) int64`` the plan's action (put the next card or grab), -1 where there is no plan."""
        out = np.full(self.B, -1, np.int64)
        has = self.target >= 0
        S = _SETS[np.maximum(self.target, 0)]
        missing = S - self.pend  # >= 0 where has
        put = missing.argmax(1)
        put_rows = has & (self.need > 0)
        out[put_rows] = put[put_rows]
        grab_rows = has & (self.need == 0)
        g = self.grab_combo(np.where(grab_rows, _SET_COMBO[np.maximum(self.target, 0)], -1))
        out[grab_rows] = g[grab_rows]
        return out

    def best_bluff_combo(self, max_value: np.ndarray | None = None) -> np.ndarray:
        """``(B,) int64`` the most valuable wanted combo (at most ``max_value`` points), -1 where none."""
        ok = self.wanted.copy()
        if max_value is not None:
            ok &= D.COMBO_GREEN[None, :] <= max_value[:, None]
        v = np.where(ok, D.COMBO_GREEN[None, :].astype(np.float64), -np.inf)
        c = v.argmax(1)
        return np.where(ok.any(1), c, -1)

    def bluff_actions(self, combo: np.ndarray) -> np.ndarray:
        """``(B,) int64`` a bluff toward ``combo (B,)``: put a card if nothing is pending, else grab it."""
        out = np.full(self.B, -1, np.int64)
        rows = combo >= 0
        put = rows & (self.npend == 0) & (self.hand.sum(1) > 0)
        # the card least useful to the plan: the kind held most often
        out[put] = self.hand[put].argmax(1)
        grab = rows & (self.npend > 0)
        g = self.grab_combo(np.where(grab, combo, -1))
        out[grab] = g[grab]
        return out

    def finish(self, actions: np.ndarray) -> np.ndarray:
        """Illegal or missing choices become ``wait``; rows with no legal action get 0."""
        a = np.asarray(actions, np.int64).copy()
        rows = np.arange(self.B)
        bad = (a < 0) | ~self.mask[rows, np.clip(a, 0, self.mask.shape[1] - 1)]
        a[bad] = self.game.a_wait
        a[~self.mask.any(1)] = 0
        return a


class _Base:
    name = "four_monkeys"

    def __init__(self, game: Any, seed: int = 0) -> None:
        if getattr(getattr(game, "spec", None), "name", None) != "four_monkeys":
            raise ValueError(f"{type(self).__name__} plays 4 Monkeys only, got {game!r:.60}")
        self.game = game
        self.rng = np.random.default_rng(seed)

    def view(self, obs: np.ndarray, mask: np.ndarray) -> _View:
        return _View(self.game, obs, mask, self.rng)


class HonestAgent(_Base):
    """Grabs only combos it really holds (the plan of :class:`_View`); never bluffs."""

    name = "honest"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        v = self.view(obs, mask)
        return v.finish(v.honest_actions())


class BlufferAgent(_Base):
    """The plan, bluffing with probability ``p_behind`` when led by ``margin`` points, else ``p_lead``."""

    name = "bluffer"

    def __init__(self, game: Any, seed: int = 0, margin: int = 2, p_behind: float = 0.9, p_lead: float = 0.05):
        super().__init__(game, seed)
        self.margin, self.p_behind, self.p_lead = int(margin), float(p_behind), float(p_lead)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        v = self.view(obs, mask)
        honest = v.honest_actions()
        p = np.where(v.gap >= self.margin, self.p_behind, self.p_lead)
        bluff_rows = self.rng.random(v.B) < p
        bluff = v.bluff_actions(np.where(bluff_rows, v.best_bluff_combo(), -1))
        return v.finish(np.where(bluff >= 0, bluff, honest))


class SmartAgent(_Base):
    """Honest plan, safe bluffs only when well behind, replenish/burn when stuck, reveals, valid Stops."""

    name = "smart"

    def __init__(self, game: Any, seed: int = 0, safety: int = 3, burn_until: float = 0.75, bluffs: bool = True):
        super().__init__(game, seed)
        self.safety, self.burn_until, self.bluffs = int(safety), float(burn_until), bool(bluffs)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        v = self.view(obs, mask)
        g = self.game
        B = v.B
        out = np.full(B, -1, np.int64)
        # 1. a valid Stop (10 different combos) ends the round with our points banked
        stop = v.mask[:, g.a_stop] & (v.combos_held >= D.STOP_COMBOS)
        out[stop] = g.a_stop
        # 2. a reveal when allowed (we hold every available combo): a new tile to take
        reveal_cols = v.mask[:, g.a_reveal : g.a_reveal + g.num_tiles]
        u = np.where(reveal_cols, self.rng.random(reveal_cols.shape), -1.0)
        rev = (out < 0) & reveal_cols.any(1)
        out[rev] = g.a_reveal + u[rev].argmax(1)
        # 3. the plan, or a safe bluff when it earns more per tick
        honest = v.honest_actions()
        # points we may add and still trail by `safety` the best other seat's points that survive a check
        room = v.credible_other - v.points - self.safety
        bc = v.best_bluff_combo(max_value=room)
        bluff_rate = np.where(bc >= 0, D.COMBO_GREEN[np.maximum(bc, 0)] / np.where(v.npend > 0, 1.0, 2.0), 0.0)
        take_bluff = (out < 0) & (bc >= 0) & (bluff_rate > v.target_rate) & self.bluffs
        bluff = v.bluff_actions(np.where(take_bluff, bc, -1))
        use = (out < 0) & take_bluff & (bluff >= 0)
        out[use] = bluff[use]
        use = (out < 0) & (honest >= 0)
        out[use] = honest[use]
        # 4. stuck (nothing reachable): new cards from Hand replenish, then by burning a tile
        stuck = (out < 0) & (v.target < 0) & v.wanted.any(1)
        swap = stuck & v.mask[:, g.a_swap] & (v.npend == 0)
        out[swap] = g.a_swap
        draw3 = stuck & (out < 0) & v.mask[:, g.a_draw3]
        out[draw3] = g.a_draw3
        burn_ok = v.green_mine & v.mask[:, g.a_burn : g.a_burn + g.num_tiles]
        val = np.where(burn_ok, D.COMBO_GREEN[v.combo_of_tile][None, :].astype(np.float64), np.inf)
        burn = stuck & (out < 0) & burn_ok.any(1) & (v.clock < self.burn_until)
        out[burn] = g.a_burn + val[burn].argmin(1)
        return v.finish(out)


def honest_mask(game: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``(B, A) bool``: ``mask`` without the grabs that would be bluffs (a filter that reads the position).

    A grab of tile ``t`` stays legal only when the acting seat's pending set (its own
    observation) is a correct combo for ``t``. ``wait`` is always legal, so every decision keeps
    a legal action. This is the 4 Monkeys honest-only restriction: it cannot be a fixed
    ``(A,) bool`` action filter (``game.action_filters()``), since the same grab action is honest
    in one position and a bluff in another.
    """
    m = np.asarray(mask).astype(bool).copy()
    o = game.obs_layout.unflatten(np.asarray(obs, np.float32).reshape(-1, game.obs_dim))
    pend = A.counts(o["pending"], 8.0)
    B = pend.shape[0]
    ok = np.zeros((B, D.NUM_COMBOS), bool)
    for c in range(D.NUM_COMBOS):
        ok[:, c] = A.is_correct_batch(np.full(B, c), pend)
    tile_ok = ok[:, np.arange(game.num_tiles) % D.NUM_COMBOS]
    lo, hi = game.a_grab, game.a_burn
    m[:, lo:hi] &= np.repeat(tile_ok, game.grab_variants, axis=1)
    return m


class HonestMask:
    """Wraps any agent (a trained policy too) so that it can only grab correct combos (:func:`honest_mask`).

    The evaluation-side honest-only ablation: the wrapped agent chooses among the honest legal
    actions (a masked policy puts its probability on the remaining ones).
    """

    def __init__(self, inner: Any, game: Any) -> None:
        self.inner, self.game = inner, game
        self.name = f"honest-mask({getattr(inner, 'name', 'agent')})"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.asarray(self.inner.act(obs, honest_mask(self.game, obs, mask)), np.int64)


class SmartHonestAgent(SmartAgent):
    """:class:`SmartAgent` that never bluffs (the honest-only ablation of smart)."""

    name = "smart_honest"

    def __init__(self, game: Any, seed: int = 0, safety: int = 3, burn_until: float = 0.75):
        super().__init__(game, seed, safety=safety, burn_until=burn_until, bluffs=False)


AGENT_CLASSES: dict[str, type[_Base]] = {
    "honest": HonestAgent,
    "bluffer": BlufferAgent,
    "smart": SmartAgent,
    "smart_honest": SmartHonestAgent,
}


def _factory(cls: type[_Base]) -> Any:
    def make(game: Any, seed: int = 0) -> _Base:
        return cls(game, seed)

    make.__doc__ = cls.__doc__
    return make


for _name, _cls in AGENT_CLASSES.items():
    register_agent(_name, _factory(_cls), game="four_monkeys")

register_features("plan", "agents.heuristics.four_monkeys_features:PlanExtractor", game="four_monkeys")


# ====================================================================== the search agent
def _register_search() -> None:
    """``mcts`` with this game's default budget (:mod:`agents.search`; sized for a 2,000-game arena in 30 min)."""
    from agents.search import register_search_agent

    register_search_agent(
        "four_monkeys", simulations=12, determinizations=4, rollout="random", max_rollout_depth=20, prior="smart"
    )


_register_search()
