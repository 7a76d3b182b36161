"""How high can anyone score against random in Monki? Evidence for issue 11's "> 95% vs random".

Two reference players that know more than any fair agent, each against ``random``,
seat-balanced (each deal twice, the reference player in seat 0 and in seat 1):

* **oracle** sees every face-down fruit (it reads the game state). It never busts: at the
  temple it flips only tokens it knows are new fruit filling a space of its board (or golden
  ones, which never bust and uncover the token beneath); at the start of a turn it tries every
  legal move, plays the rest of that turn out on a copy of the state with this flip rule, prices
  each usable ruby there (tokens taken; winning counts 100) and moves to the best cell. It skips
  (recharges) when no move gains anything and a ruby is spent.
* **bustfree** is ``cautious`` told, before each flip, which flips would bust: it keeps flipping
  while some flip is safe and passes only when every flip would bust (moves, placements and
  temple-or-ruby are cautious's own).

Then each is raced alone (seat 1 only skips) for its race length, next to the fair agents
(``--agents``, the registry's names: random, cautious, greedy and the ``lookahead`` search
agent), and the independent-race estimate of each one's rate against random is printed (from
the two solo race-length distributions; a tie goes to either side with chance 1/2).

What it shows: random's fast races do not cap the rate against it -- the oracle, racing
against the same random player, wins > 99%; so the cap is information and play, not the
dice. Removing the bust risk alone (bustfree) lifts cautious from ~0.80 to ~0.85; planning the
whole turn (``lookahead``) lifts a fair agent to ~0.96 (``arena/``).

    PYTHONPATH=$PWD python docs/evidence/monki_ceiling/ceiling.py --games 2000 > docs/evidence/monki_ceiling/ceiling.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from agents.registry import make_agent
from monkey_envs.games import make_game
from monkey_envs.monki import data as D
from monkey_envs.monki.state import PHASE_COLLECT, PHASE_FLIPPING, PHASE_START

WIN = 100.0
GOLD_W = 1.0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


class Oracle:
    """Clairvoyant one-turn planner (reads ``state``; a ceiling, not a fair agent)."""

    def __init__(self, game) -> None:
        self.g = game

    # ------------------------------------------------------------ pieces
    def _progress(self, s, seat: np.ndarray) -> np.ndarray:
        """``(B,)`` filled spaces of ``seat``'s board (golden weighted), +WIN if it has won."""
        f = self.g.filled_slots(s.owner)[np.arange(s.batch_size), seat]  # (B, 12)
        val = (f[:, : D.ROW1_SLOTS] > 0).sum(1) + GOLD_W * (f[:, D.ROW1_SLOTS :] > 0).sum(1)
        return val + WIN * (s.terminated & s.winners_mask[np.arange(s.batch_size), seat])

    def _flip_priority(self, s) -> np.ndarray:
        """``(B, 12)``: 2 new useful fruit, 1 golden, 0 new but useless, -1 a bust (current seat)."""
        g = self.g
        B = s.batch_size
        seat = s.current_player.astype(np.int64)
        h = g.heights(s.stacks)
        top = np.take_along_axis(s.stacks, np.maximum(h - 1, 0)[:, :, None], 2)[:, :, 0].astype(np.int64)
        top = np.maximum(top, 0)
        fruit = D.TOKEN_FRUIT[top]
        golden = D.TOKEN_GOLDEN[top]
        up = s.face_up
        flipped = np.zeros((B, D.NUM_FRUITS + 1), bool)
        flipped[np.arange(B)[:, None], np.where(up, fruit, D.NUM_FRUITS)] = True
        dup = flipped[np.arange(B)[:, None], fruit]
        filled = g.filled_slots(s.owner)[np.arange(B), seat]  # (B, 12)
        useful = filled[np.arange(B)[:, None], D.TOKEN_SLOT[top]] == 0
        return np.where(golden, 1, np.where(dup, -1, np.where(useful, 2, 0)))

    def _temple_action(self, s) -> np.ndarray:
        """The flip rule: best-priority legal flip if its priority > 0 (>= 0 at collect), else pass."""
        g = self.g
        m = s.legal_action_mask
        pr = self._flip_priority(s).astype(float)
        legal = m[:, g.A_FLIP : g.A_PASS]
        pr = np.where(legal, pr, -9.0)
        best = pr.argmax(1)
        bv = pr.max(1)
        flipping = s.phase == PHASE_FLIPPING
        ok = np.where(flipping, bv > 0, bv > -9)
        fallback = np.where(m[:, g.A_PASS], g.A_PASS, np.argmax(m, 1))
        return np.where(ok, g.A_FLIP + best, fallback)

    def _ruby_values(self, s) -> np.ndarray:
        """``(B, 4)`` tokens each usable ruby takes now (golden weighted; -inf: not legal)."""
        g = self.g
        seat = s.current_player.astype(np.int64)
        takes = g.ruby_takes(s, seat)  # (B, 4, 40)
        w = np.where(D.TOKEN_GOLDEN, GOLD_W, 1.0)
        val = (takes * w).sum(2)
        # a ruby that completes a row wins
        f = g.filled_slots(s.owner)[np.arange(s.batch_size), seat]
        r1 = (f[:, : D.ROW1_SLOTS] > 0).sum(1)
        r2 = (f[:, D.ROW1_SLOTS :] > 0).sum(1)
        reg = (takes & ~D.TOKEN_GOLDEN).sum(2)
        gold = (takes & D.TOKEN_GOLDEN).sum(2)
        wins = (r1[:, None] + reg >= D.ROW1_SLOTS) | (r2[:, None] + gold >= D.NUM_FRUITS)
        val = val + WIN * wins
        legal = s.legal_action_mask[:, g.A_RUBY :]
        return np.where(legal, val, -np.inf)

    def _temple_value(self, s) -> np.ndarray:
        """``(B,)`` progress the flip rule gains from ``s`` (collect phase) to the end of the turn."""
        g = self.g
        B = s.batch_size
        seat = s.current_player.astype(np.int64)
        before = self._progress(s, seat)
        can = s.legal_action_mask[:, g.A_FLIP : g.A_PASS].any(1)
        sim = s.clone()
        for _ in range(4 * D.NUM_STACKS):
            live = (~(sim.terminated | sim.truncated)) & (sim.current_player == seat)
            live &= (sim.phase == PHASE_COLLECT) | (sim.phase == PHASE_FLIPPING)
            if not live.any():
                break
            a = np.where(live, self._temple_action(sim), 0)
            a = np.where(live, a, np.argmax(sim.legal_action_mask, 1))
            keep = sim.clone()
            sim = g.step(sim, a)
            # rows that were not live must not move on
            if (~live).any():
                sim.put(np.flatnonzero(~live), keep.take(np.flatnonzero(~live)))
        return np.where(can, self._progress(sim, seat) - before, -np.inf)[:B]

    # ------------------------------------------------------------ decisions
    def act(self, s) -> np.ndarray:
        """``(B,)`` action for the seat to move in every row (rows in any phase)."""
        g = self.g
        m = s.legal_action_mask
        out = np.argmax(m, 1).astype(np.int64)  # placement: first legal cell (refined below)
        ph = s.phase
        col = np.flatnonzero((ph == PHASE_COLLECT) & m.any(1))
        if col.size:
            sub = s.take(col)
            tv = self._temple_value(sub)
            rv = self._ruby_values(sub)
            use_ruby = rv.max(1) > tv
            ta = self._temple_action(sub)
            out[col] = np.where(use_ruby, g.A_RUBY + rv.argmax(1), ta)
        fl = np.flatnonzero((ph == PHASE_FLIPPING) & m.any(1))
        if fl.size:
            out[fl] = self._temple_action(s.take(fl))
        st = np.flatnonzero((ph == PHASE_START) & m.any(1))
        if st.size:
            out[st] = self._start(s.take(st))
        pl = np.flatnonzero((ph == 0) & m.any(1))
        if pl.size:
            out[pl] = self._place(s.take(pl))
        return out

    def _cell_values(self, s, first: int) -> np.ndarray:
        """``(B, N)`` best turn value after taking action ``first + c`` (-inf: illegal)."""
        g = self.g
        B, N = s.batch_size, g.num_cells
        legal = s.legal_action_mask[:, first : first + N]
        rows, cells = np.nonzero(legal)
        val = np.full((B, N), -np.inf)
        if rows.size == 0:
            return val
        sub = s.take(rows)
        seat = sub.current_player.astype(np.int64)
        before = self._progress(sub, seat)
        sub = g.step(sub, first + cells)
        if first == 0:  # placement: then the other seat places; value = what we see from here
            return val
        # the move may end the turn by itself (nothing to collect): then it gained nothing
        mine = (sub.phase == PHASE_COLLECT) & (sub.current_player == seat) & ~sub.terminated
        tv = np.where(mine, self._temple_value(sub), -np.inf)
        rv = np.where(mine[:, None], self._ruby_values(sub), -np.inf).max(1)
        v = np.maximum(np.maximum(tv, rv), 0.0)
        v = np.where(mine, v, self._progress(sub, seat) - before)
        val[rows, cells] = v
        return val

    def _start(self, s) -> np.ndarray:
        g = self.g
        N = g.num_cells
        val = self._cell_values(s, g.A_MOVE)
        best = val.max(1)
        spent = ~s.rubies[np.arange(s.batch_size), s.current_player.astype(np.int64)].all(1)
        skip = (best <= 0) & spent | ~np.isfinite(best)
        return np.where(skip, g.A_SKIP, g.A_MOVE + val.argmax(1) % N)

    def _place(self, s) -> np.ndarray:
        """Placement: the cell that sees the most stacks (free cells of the current board)."""
        g = self.g
        B, N = s.batch_size, g.num_cells
        h = g.heights(s.stacks)
        pos = s.pos.astype(np.int64)
        free = g.free_cells(h, pos)
        cells = np.tile(np.arange(N), B)
        seen = g.line_stacks(cells, np.repeat(free, N, 0), np.repeat(h, N, 0)).reshape(B, N, -1).sum(2)
        seen = np.where(s.legal_action_mask[:, :N], seen, -1)
        return seen.argmax(1)


class BustFree:
    """A fair heuristic (``base``: cautious) told, before each flip, which flips would bust.

    Moves, placements and the choice of temple or ruby are ``base``'s; at the temple it keeps
    flipping while some legal flip would not bust -- the one whose colour most likely shows a
    fruit filling an empty space (what ``base`` can compute) -- and passes only when every
    legal flip would bust. It never busts and never stops early: more than any fair agent can do
    about the push-your-luck risk, with no clairvoyance about which fruit lies where.
    """

    def __init__(self, game, base: str = "cautious") -> None:
        self.g = game
        self.base = make_agent(base, game, 0)
        self._oracle = Oracle(game)

    def act(self, s) -> np.ndarray:
        from agents.heuristics.monki import _MonkiView

        g = self.g
        m = s.legal_action_mask
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        obs = g.observe(s, cp)
        a = np.asarray(self.base.act(obs, m)).astype(np.int64)
        temple = (s.phase == PHASE_FLIPPING) | ((s.phase == PHASE_COLLECT) & (a >= g.A_FLIP) & (a < g.A_PASS))
        if temple.any():
            v = _MonkiView(g, obs)
            pu = v.p_useful(v.top_colour)  # (B, 12), fair
            safe = self._oracle._flip_priority(s) >= 0
            legal = m[:, g.A_FLIP : g.A_PASS] & safe
            score = np.where(legal, pu, -1.0)
            flip = np.where(legal.any(1), g.A_FLIP + score.argmax(1), np.where(m[:, g.A_PASS], g.A_PASS, a))
            a = np.where(temple, flip, a)
        return a


def play(game, games: int, seed: int, solo: bool, player: str = "oracle") -> dict:
    """``player`` (oracle or bustfree) vs random (seat-balanced), or alone (seat 1 skips)."""
    g = game
    oracle = Oracle(g) if player == "oracle" else BustFree(g)
    rnd = make_agent("random", g, seed + 1)
    seeds = np.arange(seed, seed + games)
    if solo:
        oseat = np.zeros(games, np.int64)
    else:
        seeds = np.concatenate([seeds, seeds])
        oseat = np.concatenate([np.zeros(games, np.int64), np.ones(games, np.int64)])
    s = g.init(seeds)
    while not (s.terminated | s.truncated).all():
        cp = s.current_player.astype(np.int64)
        live = ~(s.terminated | s.truncated)
        a = oracle.act(s)
        opp = live & (cp != oseat)
        if opp.any():
            idx = np.flatnonzero(opp)
            obs = g.observe(s.take(idx), cp[idx])
            ra = np.asarray(rnd.act(obs, s.legal_action_mask[idx])).astype(np.int64)
            if solo:
                sk = s.legal_action_mask[idx, g.A_SKIP]
                ra = np.where(sk, g.A_SKIP, ra)
            a[idx] = ra
        a[~live] = 0
        s = g.step(s, a)
    won = s.winners_mask[np.arange(s.batch_size), oseat]
    lost = s.winners_mask[np.arange(s.batch_size), 1 - oseat]
    own_turns = np.where(won, s.turns // 2, -1)
    return {"won": won, "lost": lost, "turns": s.turns.astype(np.int64), "own_turns": own_turns, "oseat": oseat}


def race_estimate(a: np.ndarray, r: np.ndarray) -> float:
    """P(a finishes first) for independent races ``a``, ``r`` (own-turn counts); a tie is a coin flip
    (who moves first)."""
    a = np.sort(a)
    r = np.sort(r)
    less = np.searchsorted(r, a, side="left")  # r < a
    eq = np.searchsorted(r, a, side="right") - less
    return float(1 - (less + 0.5 * eq).mean() / r.size)


def solo_turns(game, name: str, games: int, seed: int) -> np.ndarray:
    """Own turns to win alone (seat 1 skips) of registry agent ``name``."""
    g = game
    agent = make_agent(name, g, 0)
    s = g.init(np.arange(seed, seed + games))
    while not (s.terminated | s.truncated).all():
        cp = s.current_player.astype(np.int64)
        obs = g.observe(s, np.maximum(cp, 0))
        a = np.asarray(agent.act(obs, s.legal_action_mask)).astype(np.int64)
        idle = (cp == 1) & s.legal_action_mask[:, g.A_SKIP]
        a[idle] = g.A_SKIP
        a[~s.legal_action_mask.any(1)] = 0
        s = g.step(s, a)
    return (s.turns[s.winners_mask[:, 0]] // 2).astype(np.int64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="deals (oracle vs random: each played from both seats)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--agents", nargs="*", default=["random", "cautious", "greedy", "lookahead"], help="fair agents raced alone"
    )
    args = ap.parse_args()
    g = make_game("monki")
    q = [5, 10, 25, 50, 75, 90, 95]
    solo = {}
    for player in ("oracle", "bustfree"):
        t0 = time.time()
        r = play(g, args.games, args.seed, solo=False, player=player)
        n = r["won"].size
        k = int(r["won"].sum())
        lo, hi = wilson(k, n)
        print(f"{player} vs random: {n} seat-balanced games ({args.games} deals x 2 seats), seed {args.seed}")
        print(f"  {player} wins {k}/{n} = {k / n:.3f}  95% CI [{lo:.3f}, {hi:.3f}]; random wins {int(r['lost'].sum())}")
        for seat in (0, 1):
            sel = r["oseat"] == seat
            print(f"  {player} in seat {seat}: {r['won'][sel].mean():.3f}")
        rt = r["turns"][r["lost"]] // 2
        rq = np.percentile(rt, q).tolist() if rt.size else []
        print(f"  games random won: its own turns to win, quantiles {q}: {rq}  ({time.time() - t0:.0f} s)")
        t0 = time.time()
        so = play(g, args.games, args.seed + 10_000, solo=True, player=player)
        ot = so["own_turns"][so["won"]]
        print(f"{player} alone (seat 1 skips), {args.games} games: wins {so['won'].mean():.3f}")
        print(f"  own turns to win, quantiles {q}: {np.percentile(ot, q).tolist()}  ({time.time() - t0:.0f} s)")
        solo[player] = ot
    for name in args.agents:
        solo[name] = solo_turns(g, name, args.games, args.seed + 10_000)
        print(f"{name} alone: own turns to win, quantiles {q}: {np.percentile(solo[name], q).tolist()}")
    rs = solo.get("random")
    if rs is not None:
        print("independent-race estimate of the rate against random (from the solo distributions):")
        for name, t in solo.items():
            print(f"  {name}: {race_estimate(t, rs):.3f}")
        for k in (7, 8, 9, 10):
            print(f"  random finishes alone in <= {k} own turns: {(rs <= k).mean():.3f}")


if __name__ == "__main__":
    main()
