"""Batched, seat-balanced evaluation of agents on the game core.

``play_games(game, [agent_a, agent_b], num_games=1000, seed=0)`` plays all games at once as one
batch of the core (no per-game Python loop): every step, each agent acts on the rows where one
of its seats is to move. Seats are balanced by rotation -- in game ``g`` agent ``i`` sits in seat
``(i + g) % P`` -- and each deal (a game seed) is played once per rotation, so every agent
plays every seat and every deal equally often when ``num_games`` is a multiple of ``P``.

Win rates come with 95% Wilson score intervals (:func:`wilson_interval`)::

    from agents import make_agent
    from agents.evaluate import play_games
    from monkey_envs.monkey_fun import MonkeyFun

    game = MonkeyFun(num_players=2)
    result = play_games(game, ["greedy", "random"], num_games=1000, seed=0)
    print(result.table())
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion.

    Args:
        successes: number of successes (draws may be counted as half successes).
        n: number of trials.
        z: normal quantile (default: 95% two-sided).

    Returns:
        ``(low, high)`` in ``[0, 1]``; ``(0.0, 1.0)`` when ``n == 0``.

    Raises:
        ValueError: ``n < 0`` or ``successes`` outside ``[0, n]``.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # clamp rounding noise: the interval always contains p (exactly 0 at 0 and 1 at n successes)
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


@dataclasses.dataclass
class AgentResult:
    """Results of one agent (one entry of the ``agents`` list) over all games.

    Attributes:
        name: the agent's name (its ``name`` attribute or the name it was built from).
        games: games played.
        wins / draws / losses: outcomes from this agent's seat. A win shared with some (not all)
            seats is a win; a game every seat shares (or nobody wins, or cut by the step cap)
            is a draw.
        win_rate: ``wins / games``.
        ci_low / ci_high: 95% Wilson interval of ``win_rate``.
        mean_score: mean end-of-game score of its seat (``state.scores``; 0 after a line win).
        mean_return: mean sum of its seat's rewards per game.
        wins_by_seat: wins in each seat (to check seat effects).
    """

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float
    mean_return: float
    wins_by_seat: list[int]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class EvalResult:
    """Outcome of :func:`play_games`.

    Attributes:
        game: the game's name and config.
        num_games: games played.
        seed: evaluation seed.
        agents: one :class:`AgentResult` per entry of the ``agents`` argument, same order.
        end_reasons: ``reason -> games`` (from ``game.episode_info``), when the game reports them.
        mean_length: mean decisions per game.
        truncated: games cut by ``max_steps``.
        seconds: wall time.
    """

    game: dict[str, Any]
    num_games: int
    seed: int
    agents: list[AgentResult]
    end_reasons: dict[str, int]
    mean_length: float
    truncated: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["agents"] = [a.to_dict() for a in self.agents]
        return d

    def table(self) -> str:
        """A plain-text table, one row per agent."""
        head = (
            f"{'agent':<24} {'games':>6} {'win':>6} {'draw':>5} {'loss':>6} {'win rate':>9} {'95% CI':>17} {'score':>7}"
        )
        lines = [head, "-" * len(head)]
        for a in self.agents:
            ci = f"[{a.ci_low:.3f}, {a.ci_high:.3f}]"
            lines.append(
                f"{a.name:<24} {a.games:>6} {a.wins:>6} {a.draws:>5} {a.losses:>6} {a.win_rate:>9.3f} {ci:>17} {a.mean_score:>7.2f}"
            )
        lines.append(
            f"({self.num_games} games, mean length {self.mean_length:.1f} decisions, {self.seconds:.1f} s; "
            f"end reasons {self.end_reasons})"
        )
        return "\n".join(lines)


def seat_assignment(num_games: int, num_players: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Deals and seatings of a seat-balanced match.

    Game ``g`` is deal ``g // P`` (each deal is played once per rotation) with rotation
    ``r = g % P``: agent ``i`` sits in seat ``(i + r) % P``.

    Returns:
        ``seeds (num_games,) int64`` game seeds and ``seat_agent (num_games, P) int64``, the
        agent index sitting in each seat.
    """
    g = np.arange(num_games)
    deals = np.random.default_rng(seed).integers(0, 2**62, size=(num_games + num_players - 1) // num_players)
    seat_agent = (np.arange(num_players)[None, :] - (g % num_players)[:, None]) % num_players
    return deals[g // num_players].astype(np.int64), seat_agent


def play_games(
    game: Any,
    agents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    *,
    max_steps: int = 10_000,
    names: Sequence[str] | None = None,
) -> EvalResult:
    """Play ``num_games`` seat-balanced games between ``agents`` on the batched core.

    Args:
        game: a core game (e.g. ``MonkeyFun(num_players=2)``).
        agents: ``game.num_players`` agents or agent names (built with
            ``make_agent(name, game, seed + i)``). The same object may appear several times.
        num_games: games to play (all in one batch); a multiple of ``P`` balances seats exactly.
        seed: derives the deals (game seeds) and seeds agents built from names.
        max_steps: safety cap on decisions per game; games still running are counted as draws.
        names: display names (default: each agent's ``name`` attribute, numbered if repeated).

    Returns:
        An :class:`EvalResult`.

    Raises:
        ValueError: wrong number of agents, ``num_games < 1``, or an agent returning a bad batch.
    """
    from agents import make_agent  # late import: agents/__init__ imports heuristics

    P = int(game.num_players)
    if len(agents) != P:
        raise ValueError(f"need one agent per seat: {P} agents for {P} players, got {len(agents)}")
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {num_games!r}")
    built = [make_agent(a, game, seed + i) for i, a in enumerate(agents)]
    labels = _labels(built, agents, names)

    t0 = time.perf_counter()
    n = int(num_games)
    g = np.arange(n)
    seeds, seat_agent = seat_assignment(n, P, seed)
    rotation = g % P

    state = game.init(seeds)
    rows = np.arange(n)  # game id of each row of the (shrinking) batch
    returns = np.zeros((n, P), dtype=np.float64)
    winners = np.zeros((n, P), dtype=bool)
    scores = np.zeros((n, P), dtype=np.float64)
    lengths = np.zeros(n, dtype=np.int64)
    truncated = np.zeros(n, dtype=bool)
    reasons: dict[str, int] = {}

    steps = 0
    while rows.size:
        cp = state.current_player.astype(np.int64)
        live = cp >= 0
        obs = game.observe(state, np.maximum(cp, 0))
        mask = state.legal_action_mask
        who = seat_agent[rows, np.maximum(cp, 0)]
        actions = np.zeros(rows.size, dtype=np.int64)
        for i, agent in enumerate(built):
            sel = np.flatnonzero(live & (who == i))
            if sel.size:
                act = np.asarray(agent.act(obs[sel], mask[sel]))
                if act.shape != (sel.size,):
                    raise ValueError(f"agent {labels[i]!r} returned shape {act.shape}, expected ({sel.size},)")
                actions[sel] = act
        state = game.step(state, actions)
        steps += 1
        returns[rows] += state.rewards
        done = state.terminated | state.truncated
        if steps >= max_steps:
            truncated[rows[~done]] = True
            done = np.ones_like(done)
        if done.any():
            d = np.flatnonzero(done)
            ids = rows[d]
            winners[ids] = game.winners(state)[d]
            scores[ids] = getattr(state, "scores", np.zeros((rows.size, P)))[d]
            lengths[ids] = state.step_count[d]
            for r in d:  # bookkeeping of finished games only (not the stepping loop)
                reason = game.episode_info(state, int(r)).get("end_reason")
                if reason is not None:
                    reasons[reason] = reasons.get(reason, 0) + 1
            keep = np.flatnonzero(~done)
            if keep.size == 0:
                break
            state = state.take(keep)
            rows = rows[keep]

    # ---- outcomes per agent ---------------------------------------------------------
    everyone = winners.all(1) if P > 1 else np.zeros(n, dtype=bool)
    drawn = everyone | ~winners.any(1) & (P > 1) | truncated
    results = []
    for i in range(P):
        seat = (i + rotation) % P
        won = winners[g, seat] & ~drawn
        dr = drawn
        wins, draws = int(won.sum()), int(dr.sum())
        lo, hi = wilson_interval(wins, n)
        results.append(
            AgentResult(
                name=labels[i],
                games=n,
                wins=wins,
                draws=draws,
                losses=n - wins - draws,
                win_rate=wins / n,
                ci_low=lo,
                ci_high=hi,
                mean_score=float(scores[g, seat].mean()),
                mean_return=float(returns[g, seat].mean()),
                wins_by_seat=np.bincount(seat[won], minlength=P).astype(int).tolist(),
            )
        )
    return EvalResult(
        game={"name": game.spec.name, **game.config},
        num_games=n,
        seed=int(seed),
        agents=results,
        end_reasons=dict(sorted(reasons.items())),
        mean_length=float(lengths.mean()),
        truncated=int(truncated.sum()),
        seconds=time.perf_counter() - t0,
    )


def _labels(built: list[Any], specs: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        if len(names) != len(built):
            raise ValueError(f"names must have {len(built)} entries, got {len(names)}")
        return [str(x) for x in names]
    raw = [s if isinstance(s, str) else getattr(a, "name", type(a).__name__) for a, s in zip(built, specs, strict=True)]
    out = []
    for i, r in enumerate(raw):
        out.append(f"{r}#{i}" if raw.count(r) > 1 else r)
    return out
