"""Batched play of agents on the game core, and per-agent results with Wilson intervals.

This module is the one implementation of "agents play games": :func:`play_lineups` plays any
list of games -- each with its own seed and its own agent in every seat -- as one batch of the
core (no per-game Python loop). Every step each distinct agent object acts once, on the rows
where one of its seats is to move; finished games leave the batch. :func:`agent_results` turns
the per-game records into per-agent win rates with 95% Wilson intervals. The arena
(:mod:`agents.arena`: tournaments of any number of agents, head-to-head tables, ratings) and
training's evaluation both stand on these two functions.

``play_games(game, [agent_a, agent_b], num_games=1000, seed=0)`` is the simple match: one
agent per seat, seats balanced by rotation -- each deal (a game seed) is played once per
rotation, so every agent plays every seat and every deal equally often when ``num_games`` is a
multiple of ``P`` -- and, with three or more players, the order of the others around the table
turning from deal to deal (:func:`seat_assignment`: every seating equally often when
``num_games`` is a multiple of ``P!``).

Win rates come with 95% Wilson score intervals (:func:`wilson_interval`)::

    from agents.evaluate import play_games
    from monkey_envs import make_game

    game = make_game("<game name>", num_players=2)
    result = play_games(game, ["random", "random"], num_games=1000, seed=0)
    print(result.table())

Outcomes. A seat that wins (alone or sharing the win with some, not all, seats) has a win; a
game every seat shares, one nobody wins, or one cut by ``max_steps`` is a draw for every seat;
every other seat has a loss.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monkey_envs.core.opponents import ask_agent, check_agent_actions
from monkey_envs.core.stats import Z95, wilson_interval  # noqa: F401 -- re-exported for callers that import them here

# ====================================================================== results


@dataclasses.dataclass
class AgentResult:
    """Results of one agent (one participant) over all games.

    An agent may hold several seats of one game (an arena with fewer agents than seats); each
    seat it holds is one trial. In :func:`play_games` every agent holds one seat per game, so
    ``seats == games``.

    Attributes:
        name: the agent's name (its ``name`` attribute or the name it was built from).
        games: games it took part in.
        wins / draws / losses: outcomes of its seats (they add up to ``seats``); see the module
            docstring for shared wins and draws.
        win_rate: ``wins / seats``.
        ci_low / ci_high: 95% Wilson interval of ``win_rate``. (Seats of one agent in the same
            game are negatively correlated -- at most one wins -- so the interval is then, if
            anything, conservative.)
        mean_score: mean end-of-game score of its seats (``game.scores``; 0 after a Monkey Fun
            line win); ``None`` for games that keep no score.
        mean_return: mean sum of its seats' rewards per game.
        wins_by_seat: wins in each seat (to check seat effects).
        seats: seats it held over all games (``games`` times its seats per game).
        seats_by_seat: how often it sat in each seat.
        stats: per-seat game statistics summed over its seats (e.g. Funky Monkey's bluff
            analytics, ``name -> total``), or ``None`` when the game reports none.
    """

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float | None
    mean_return: float
    wins_by_seat: list[int]
    seats: int
    seats_by_seat: list[int]
    stats: dict[str, int] | None = None

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
        end_reasons: ``reason -> games`` (``"max_steps"`` for games cut by the step cap).
        mean_length: mean decisions per game.
        truncated: games cut by ``max_steps`` (or truncated by the game).
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
        return (
            results_table(self.agents)
            + f"\n({self.num_games} games, mean length {self.mean_length:.1f} decisions, {self.seconds:.1f} s; "
            f"end reasons {self.end_reasons})"
        )


def results_table(agents: Sequence[AgentResult]) -> str:
    """Plain-text table of :class:`AgentResult` rows (win rate with its 95% Wilson interval)."""
    head = f"{'agent':<24} {'seats':>6} {'win':>6} {'draw':>5} {'loss':>6} {'win rate':>9} {'95% CI':>17} {'score':>7}"
    lines = [head, "-" * len(head)]
    for a in agents:
        ci = f"[{a.ci_low:.3f}, {a.ci_high:.3f}]"
        score = "-" if a.mean_score is None else f"{a.mean_score:.2f}"
        lines.append(
            f"{a.name:<24} {a.seats:>6} {a.wins:>6} {a.draws:>5} {a.losses:>6} {a.win_rate:>9.3f} {ci:>17} {score:>7}"
        )
    return "\n".join(lines)


# ====================================================================== playing


@dataclasses.dataclass
class GameRecords:
    """Per-game outcomes of :func:`play_lineups` (``N`` games, ``P`` seats).

    Attributes:
        seeds: ``(N,) int64`` game seeds.
        seat_agent: ``(N, P) int64`` agent index in each seat.
        winners: ``(N, P) bool`` seats that won (all False when nobody won or the game was cut).
        drawn: ``(N,) bool`` draws (every seat won, nobody won, or truncated); never in 1-player games.
        scores: ``(N, P) float64`` end-of-game scores, or ``None`` if the game keeps none.
        returns: ``(N, P) float64`` sum of each seat's rewards.
        lengths: ``(N,) int64`` decisions per game.
        truncated: ``(N,) bool`` cut by ``max_steps`` (or truncated by the game).
        end_reason: ``(N,)`` str end reason of each game.
        stats: ``name -> (N, P) int64`` per-seat statistics the game reports at the end
            (``game.episode_stats``); empty if none.
        seconds: wall time of the play.
        actions: per game its ``(T,) int64`` moves in order, when recorded
            (``play_lineups(..., record_actions=True)``), else ``None``.
    """

    seeds: np.ndarray
    seat_agent: np.ndarray
    winners: np.ndarray
    drawn: np.ndarray
    scores: np.ndarray | None
    returns: np.ndarray
    lengths: np.ndarray
    truncated: np.ndarray
    end_reason: np.ndarray
    stats: dict[str, np.ndarray]
    seconds: float
    actions: list[np.ndarray] | None = None

    @property
    def num_games(self) -> int:
        return int(self.seeds.size)

    def end_reasons(self) -> dict[str, int]:
        """``reason -> games``, sorted by reason."""
        names, counts = np.unique(self.end_reason, return_counts=True)
        return {str(n): int(c) for n, c in zip(names, counts, strict=True)}


def _checked_seating(seeds: Any, seat_agent: Any, num_players: int, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """``seeds (N,)`` and ``seat_agent (N, P)`` as arrays, checked (``ValueError`` naming the problem)."""
    seeds, sa = np.asarray(seeds), np.asarray(seat_agent)
    if seeds.ndim != 1 or seeds.size == 0:
        raise ValueError(f"seeds must be a non-empty 1-D array, got shape {seeds.shape}")
    if sa.shape != (seeds.size, num_players) or sa.dtype.kind not in "iu":
        raise ValueError(
            f"seat_agent must be integers of shape ({seeds.size}, {num_players}), got {sa.dtype} {sa.shape}"
        )
    if (sa < 0).any() or (sa >= num_agents).any():
        raise ValueError(f"seat_agent indices must be in [0, {num_agents})")
    return seeds, sa


def _check_batch_size(batch_size: Any) -> None:
    if batch_size is not None and (
        isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1
    ):
        raise ValueError(f"batch_size must be a positive int or None, got {batch_size!r}")


def play_lineups(
    game: Any,
    agents: Sequence[Any],
    seeds: Any,
    seat_agent: Any,
    *,
    max_steps: int = 10_000,
    batch_size: int | None = None,
    labels: Sequence[str] | None = None,
    record_actions: bool = False,
) -> GameRecords:
    """Play games with given seeds and seatings on the batched core.

    Args:
        game: a core game.
        agents: ``K`` built agents (objects with ``act``). The same object may appear several
            times; each distinct object acts once per step on all rows where it is to move (an
            agent that searches the state, ``needs_state = True``, gets those rows' state through
            ``act_state``: :func:`monkey_envs.core.opponents.needs_state`).
        seeds: ``(N,)`` non-negative game seeds.
        seat_agent: ``(N, P)`` agent index (into ``agents``) sitting in each seat of each game.
        max_steps: cap on decisions per game; games still running then count as truncated draws.
        batch_size: play at most this many games at once (chunks in game order); ``None``
            plays all ``N`` as one batch. ``1`` is the one-game-at-a-time loop (for benchmarks).
        labels: agent names for error messages.
        record_actions: also keep every game's moves (``GameRecords.actions``: replays).

    Returns:
        :class:`GameRecords`. Same agents (same seeds), seeds, seatings and ``batch_size`` give
        the same records.

    Raises:
        ValueError: bad shapes or indices, a bad cap or batch size, or an agent returning a
            batch of the wrong shape.
    """
    P = int(game.num_players)
    seeds, sa = _checked_seating(seeds, seat_agent, P, len(agents))
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise ValueError(f"max_steps must be a positive int, got {max_steps!r}")
    _check_batch_size(batch_size)
    labels = [str(x) for x in labels] if labels is not None else [getattr(a, "name", type(a).__name__) for a in agents]
    # one entry per distinct object: an agent seated several times acts once per step
    objs: list[Any] = []
    obj_of = np.empty(len(agents), dtype=np.int64)
    obj_label: list[str] = []
    for i, a in enumerate(agents):
        for j, o in enumerate(objs):
            if o is a:
                obj_of[i] = j
                break
        else:
            obj_of[i] = len(objs)
            objs.append(a)
            obj_label.append(labels[i])
    seat_obj = obj_of[sa.astype(np.int64)]

    t0 = time.perf_counter()
    n = seeds.size
    step = n if batch_size is None else int(batch_size)
    parts = [
        _play_batch(game, objs, obj_label, seeds[i : i + step], seat_obj[i : i + step], int(max_steps), record_actions)
        for i in range(0, n, step)
    ]
    winners, scores, returns, lengths, truncated, reasons, stats, moves = ([p[k] for p in parts] for k in range(8))
    W = np.concatenate(winners)
    T = np.concatenate(truncated)
    if P > 1:
        drawn = W.all(1) | ~W.any(1) | T
    else:
        drawn = np.zeros(n, dtype=bool)
    return GameRecords(
        seeds=seeds.astype(np.int64),
        seat_agent=sa.astype(np.int64),
        winners=W,
        drawn=drawn,
        scores=None if scores[0] is None else np.concatenate(scores),
        returns=np.concatenate(returns),
        lengths=np.concatenate(lengths),
        truncated=T,
        end_reason=np.concatenate(reasons),
        stats={k: np.concatenate([s[k] for s in stats]) for k in stats[0]},
        seconds=time.perf_counter() - t0,
        actions=[m for part in moves for m in part] if record_actions else None,
    )


def concat_records(parts: Sequence[GameRecords]) -> GameRecords:
    """One :class:`GameRecords` of ``parts`` in order (games of batches played apart).

    ``seconds`` is the sum of the parts' play times.

    Raises:
        ValueError: no parts, or parts of different games (seats, score keeping, statistics).
    """
    if not parts:
        raise ValueError("concat_records needs at least one part")
    first = parts[0]
    for p in parts[1:]:
        if (
            p.seat_agent.shape[1] != first.seat_agent.shape[1]
            or (p.scores is None) != (first.scores is None)
            or set(p.stats) != set(first.stats)
            or (p.actions is None) != (first.actions is None)
        ):
            raise ValueError("concat_records: the parts are records of different games or settings")
    return GameRecords(
        seeds=np.concatenate([p.seeds for p in parts]),
        seat_agent=np.concatenate([p.seat_agent for p in parts]),
        winners=np.concatenate([p.winners for p in parts]),
        drawn=np.concatenate([p.drawn for p in parts]),
        scores=None if first.scores is None else np.concatenate([p.scores for p in parts]),  # type: ignore[misc]
        returns=np.concatenate([p.returns for p in parts]),
        lengths=np.concatenate([p.lengths for p in parts]),
        truncated=np.concatenate([p.truncated for p in parts]),
        end_reason=np.concatenate([p.end_reason for p in parts]),
        stats={k: np.concatenate([p.stats[k] for p in parts]) for k in first.stats},
        seconds=float(sum(p.seconds for p in parts)),
        actions=None if first.actions is None else [m for p in parts for m in p.actions],  # type: ignore[union-attr]
    )


def batch_seed(seed: int, batch: int) -> int:
    """The seed of an agent built with ``seed``, for batch ``batch`` of a tournament.

    Batch 0 keeps ``seed`` itself (a tournament of one batch is as before batches had seeds of
    their own); every later batch gets a seed derived from ``(seed, batch)`` alone, so a batch
    can be played by itself -- in another process, on another machine, in any order -- and give
    the games it gives in a local run.
    """
    if batch == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed) & (2**64 - 1), int(batch)]).generate_state(1, np.uint32)[0])


def _rebuildable(agent: Any) -> bool:
    """A name or a factory (built anew for each batch), not an agent object (used as it is)."""
    return isinstance(agent, str) or (callable(agent) and not hasattr(agent, "act"))


def play_batch_of(
    game: Any,
    agents: Sequence[Any],
    seed: int,
    batch: int,
    seeds: np.ndarray,
    seat_agent: np.ndarray,
    *,
    max_steps: int = 10_000,
    labels: Sequence[str] | None = None,
    record_actions: bool = False,
    imports: Sequence[str] = (),
) -> GameRecords:
    """Play batch number ``batch`` of a tournament on its own: agents built for that batch.

    Agent ``i`` given by name or factory is built with ``batch_seed(seed + i, batch)``; agent
    objects are used as they are. ``imports`` are plug-in modules to import first (a process
    that is not the one that registered a game or agent: a Ray worker).
    """
    from agents.registry import make_agent

    if imports:
        from monkey_envs.games import import_plugins

        import_plugins(list(imports))
    built = [make_agent(a, game, batch_seed(seed + i, batch)) if _rebuildable(a) else a for i, a in enumerate(agents)]
    return play_lineups(
        game, built, seeds, seat_agent, max_steps=max_steps, labels=labels, record_actions=record_actions
    )


def play_tournament(
    game: Any,
    agents: Sequence[Any],
    seed: int,
    seeds: Any,
    seat_agent: Any,
    *,
    max_steps: int = 10_000,
    batch_size: int | None = None,
    labels: Sequence[str] | None = None,
    record_actions: bool = False,
    ray_address: str | None = None,
    imports: Sequence[str] = (),
) -> GameRecords:
    """Play a tournament's games in batches whose agents are seeded per batch, here or on Ray.

    The games are cut into chunks of ``batch_size`` in game order; chunk ``b`` is played by
    :func:`play_batch_of` with agents built for it (:func:`batch_seed`), so the results depend
    on the seeds and ``batch_size`` only, not on where or in which order the chunks run.

    Args:
        game: a core game.
        agents: ``K`` agent names, factories or objects (objects are used as they are in every
            chunk, so their random state runs on across chunks: a local run only).
        seed: the agents' seed (agent ``i``: ``seed + i`` in chunk 0).
        seeds: ``(N,)`` non-negative game seeds.
        seat_agent: ``(N, P)`` agent index in each seat of each game.
        max_steps: cap on decisions per game.
        batch_size: games per chunk (``None``: one chunk).
        labels: agent names for error messages.
        record_actions: also keep every game's moves.
        ray_address: ``None`` plays the chunks here, one after another; otherwise each chunk is a
            Ray task of one CPU: ``"local"`` starts a Ray of this process's own (unless Ray is
            already initialised), anything else is passed to ``ray.init(address=...)`` (``"auto"``,
            ``"ray://host:10001"``, ``"host:6379"``).
        imports: plug-in modules each Ray worker imports before playing (``--import``).

    Returns:
        :class:`GameRecords` of all ``N`` games in order; ``seconds`` is the wall time.

    Raises:
        ValueError: bad shapes or sizes, an unknown agent, agent objects with ``ray_address``,
            or Ray not installed.
    """
    seeds, sa = _checked_seating(seeds, seat_agent, int(game.num_players), len(agents))
    _check_batch_size(batch_size)
    n = seeds.size
    step = n if batch_size is None else int(batch_size)
    chunks = [(b, slice(i, i + step)) for b, i in enumerate(range(0, n, step))]
    kwargs = {"max_steps": max_steps, "labels": labels, "record_actions": record_actions}
    t0 = time.perf_counter()
    if ray_address is None:
        parts = [play_batch_of(game, agents, seed, b, seeds[sl], sa[sl], **kwargs) for b, sl in chunks]
    else:
        objects = [a for a in agents if not _rebuildable(a)]
        if objects:
            raise ValueError(
                "a tournament on Ray needs its agents as names or factories (built in each worker), "
                f"got agent objects {[getattr(a, 'name', type(a).__name__) for a in objects]}"
            )
        from agents.registry import make_agent

        for i, a in enumerate(agents):  # an unknown agent or bad option fails here, before Ray starts
            make_agent(a, game, seed + i)
        parts = _play_on_ray(game, list(agents), seed, chunks, seeds, sa, kwargs, ray_address, list(imports))
    records = concat_records(parts)
    records.seconds = time.perf_counter() - t0
    return records


def _play_on_ray(
    game: Any,
    agents: list[Any],
    seed: int,
    chunks: list[tuple[int, slice]],
    seeds: np.ndarray,
    sa: np.ndarray,
    kwargs: dict[str, Any],
    address: str,
    imports: list[str],
) -> list[GameRecords]:
    """Each chunk a Ray task of one CPU; results in chunk order."""
    try:
        import ray
    except ImportError as exc:
        raise ValueError("playing on Ray needs Ray: pip install -e '.[clients]'") from exc
    started = not ray.is_initialized()
    if started:
        if address == "local":  # a Ray of this process's own, even where a cluster runs on this machine
            ray.init(address="local", include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(play_batch_of)
        game_ref, agents_ref = ray.put(game), ray.put(agents)
        futures = [
            task.remote(game_ref, agents_ref, seed, b, seeds[sl], sa[sl], imports=imports, **kwargs) for b, sl in chunks
        ]
        return list(ray.get(futures))
    finally:
        if started:
            ray.shutdown()


def _play_batch(
    game: Any,
    objs: list[Any],
    labels: list[str],
    seeds: np.ndarray,
    seat_obj: np.ndarray,
    max_steps: int,
    record_actions: bool = False,
) -> tuple:
    """Play one batch of games to the end; per-game arrays in game order."""
    n, P = seat_obj.shape
    state = game.init(seeds)
    has_scores = game.scores(state) is not None
    rows = np.arange(n)  # game of each row of the (shrinking) batch
    returns = np.zeros((n, P), dtype=np.float64)
    winners = np.zeros((n, P), dtype=bool)
    scores = np.zeros((n, P), dtype=np.float64) if has_scores else None
    lengths = np.zeros(n, dtype=np.int64)
    truncated = np.zeros(n, dtype=bool)
    reasons = np.empty(n, dtype=object)
    stats: dict[str, np.ndarray] = {}
    single = len(objs) == 1
    taken: list[tuple[np.ndarray, np.ndarray]] = []  # (games, actions) of each step, when recording

    steps = 0
    while True:
        # finished games leave the batch at once, so every row here is live (current player >= 0)
        cp = state.current_player.astype(np.int64)
        obs = game.observe(state, cp)
        mask = state.legal_action_mask
        if single:
            actions = _act(objs[0], labels[0], obs, mask, lambda s=state, c=cp: (s.take(slice(None)), c))
        else:
            who = seat_obj[rows, cp]
            actions = np.zeros(rows.size, dtype=np.int64)
            for j, agent in enumerate(objs):
                sel = np.flatnonzero(who == j)
                if sel.size:
                    actions[sel] = _act(
                        agent, labels[j], obs[sel], mask[sel], lambda sel=sel, s=state, c=cp: (s.take(sel), c[sel])
                    )
        if record_actions:
            taken.append((rows.copy(), np.asarray(actions, dtype=np.int64).copy()))
        state = game.step(state, actions)
        steps += 1
        returns[rows] += state.rewards
        done = state.terminated | state.truncated
        cut = None
        if steps >= max_steps and not done.all():
            cut = ~done
            done = np.ones_like(done)
        if not done.any():
            continue
        d = np.flatnonzero(done)
        ids = rows[d]
        winners[ids] = game.winners(state)[d]
        lengths[ids] = state.step_count[d]
        truncated[ids] = state.truncated[d]
        if has_scores:
            scores[ids] = game.scores(state)[d]
        for k, v in game.episode_stats(state).items():
            stats.setdefault(k, np.zeros((n, P), dtype=np.int64))[ids] = v[d]
        names = game.end_reason_names(state)
        reasons[ids] = [names[i] for i in d.tolist()]
        if cut is not None:
            c = rows[cut]
            winners[c] = False
            truncated[c] = True
            reasons[c] = "max_steps"
        keep = np.flatnonzero(~done)
        if keep.size == 0:
            break
        state = state.take(keep)
        rows = rows[keep]
    moves: list[np.ndarray] = []
    if record_actions:
        games = np.concatenate([g for g, _ in taken]) if taken else np.zeros(0, dtype=np.int64)
        acts = np.concatenate([a for _, a in taken]) if taken else np.zeros(0, dtype=np.int64)
        order = np.argsort(games, kind="stable")  # by game, each in step order
        moves = np.split(acts[order], np.cumsum(np.bincount(games, minlength=n))[:-1])
    return winners, scores, returns, lengths, truncated, reasons.astype(str), stats, moves


def replay_records(game: Any, records: GameRecords, labels: Sequence[str]) -> list[Any]:
    """The games of ``records`` (played with ``record_actions=True``) as replay records
    (:class:`monkey_envs.replay.GameRecord`), seats labelled with ``labels`` (one per agent).

    Raises:
        ValueError: the records hold no moves.
    """
    from monkey_envs.replay import GameRecord, outcome_record

    if records.actions is None:
        raise ValueError("these games were played without record_actions=True: no moves to save")
    out = []
    for i in range(records.num_games):
        out.append(
            GameRecord(
                seed=int(records.seeds[i]),
                seats=[str(labels[k]) for k in records.seat_agent[i].tolist()],
                actions=records.actions[i],
                outcome=outcome_record(
                    records.winners[i],
                    None if records.scores is None else records.scores[i],
                    records.lengths[i],
                    records.end_reason[i],
                    records.truncated[i],
                ),
            )
        )
    return out


def _act(agent: Any, label: str, obs: np.ndarray, mask: np.ndarray, rows_state: Any) -> np.ndarray:
    """``agent.act(obs, mask)`` -- or ``act_state`` for an agent that searches the state
    (``rows_state() -> (state, seats)`` of those rows) -- through the core's check of the agent
    contract (the driver's own): ``(n,)`` integer legal actions, else a ``ValueError`` naming
    ``label`` (nothing is cast)."""
    return check_agent_actions(ask_agent(agent, obs, mask, rows_state), mask, label)


def agent_results(records: GameRecords, labels: Sequence[str]) -> list[AgentResult]:
    """Per-agent outcomes of ``records`` (agent ``k`` = ``labels[k]``, as in ``seat_agent``).

    Returns:
        One :class:`AgentResult` per label, same order (agents that never sat have 0 games).
    """
    sa = records.seat_agent
    W = records.winners & ~records.drawn[:, None]
    D = np.broadcast_to(records.drawn[:, None], sa.shape)
    P = sa.shape[1]
    out = []
    for k, name in enumerate(labels):
        occ = sa == k
        seats = int(occ.sum())
        won = occ & W
        wins, draws = int(won.sum()), int((occ & D).sum())
        lo, hi = wilson_interval(wins, seats)
        out.append(
            AgentResult(
                name=str(name),
                games=int(occ.any(1).sum()),
                wins=wins,
                draws=draws,
                losses=seats - wins - draws,
                win_rate=wins / seats if seats else 0.0,
                ci_low=lo,
                ci_high=hi,
                mean_score=float(records.scores[occ].mean()) if records.scores is not None and seats else None,
                mean_return=float(records.returns[occ].mean()) if seats else 0.0,
                wins_by_seat=won.sum(0).astype(int).tolist(),
                seats=seats,
                seats_by_seat=occ.sum(0).astype(int).tolist() if P else [],
                stats={s: int(v[occ].sum()) for s, v in records.stats.items()} or None,
            )
        )
    return out


# ====================================================================== the simple match


def seat_assignment(
    num_games: int, num_players: int, seed: int = 0, *, turn_order: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Deals and seatings of a seat-balanced match, the opponents' order turning too.

    Game ``g`` is deal ``d = g // P``, played in rotation ``r = g % P`` of the cyclic order
    ``c = d % (P - 1)!`` of the agents: agent 0 first, then agents ``1 .. P-1`` in their ``c``-th
    order (that of :func:`itertools.permutations`); the agent at place ``j`` of that order sits in
    seat ``(j + r) % P``. So every deal is played once from every seat (its ``P`` games share the
    seed), and successive deals walk through every order of the others around the table: who
    sits after whom changes too, not only the seats. ``num_games`` a multiple of ``P`` balances
    the seats; a multiple of ``P!`` plays every seating equally often. With two players (one
    order), for deals ``d`` that are multiples of ``(P - 1)!`` and with ``turn_order=False``
    (rotations only: for a match whose other seats all hold one agent, where the order of its
    copies changes nothing), agent ``i`` sits in seat ``(i + r) % P``.

    Returns:
        ``seeds (num_games,) int64`` game seeds and ``seat_agent (num_games, P) int64``, the
        agent index sitting in each seat.
    """
    g = np.arange(num_games)
    deals = np.random.default_rng(seed).integers(0, 2**62, size=(num_games + num_players - 1) // num_players)
    others = itertools.permutations(range(1, num_players)) if turn_order else [tuple(range(1, num_players))]
    orders = np.array([(0, *p) for p in others], dtype=np.int64)
    d, r = g // num_players, g % num_players
    seat_agent = np.empty((num_games, num_players), dtype=np.int64)
    seat_agent[g[:, None], (np.arange(num_players)[None, :] + r[:, None]) % num_players] = orders[d % len(orders)]
    return deals[d].astype(np.int64), seat_agent


def build_agents(game: Any, agents: Sequence[Any], seed: int = 0) -> list[Any]:
    """Agents from names or objects: entry ``i`` is ``make_agent(agents[i], game, seed + i)``.

    Every agent name registered for the game resolves here (:mod:`agents.registry`).
    """
    from agents.registry import make_agent  # every game's agents load lazily from the registry

    return [make_agent(a, game, seed + i) for i, a in enumerate(agents)]


#: Joins the agents of a line-up in an opponent spec: ``"honest+skeptic+track"``.
LINEUP_SEP = "+"


def opponent_lineup(spec: str, game: Any, seed: int = 0) -> tuple[list[Any], list[str]]:
    """The ``P - 1`` opponents an evaluation spec names, with display names.

    ``"greedy"`` puts one greedy agent in every other seat (named ``greedy`` for two players,
    ``greedy#1 ..`` otherwise); ``"honest+skeptic+track"`` puts one named agent per other seat
    (exactly ``P - 1`` parts; ``ppo:PATH`` parts too, so paths must not contain ``+``). Agents are
    built with ``make_agent(name, game, seed + k)`` for the ``k``-th part.

    Raises:
        ValueError: a line-up of the wrong length, or an unknown agent.
    """
    from agents.registry import make_agent

    P = int(game.num_players)
    parts = spec.split(LINEUP_SEP)
    if len(parts) == 1:
        agent = make_agent(parts[0], game, seed)
        return [agent] * (P - 1), [spec if P == 2 else f"{spec}#{k}" for k in range(1, P)]
    if len(parts) != P - 1:
        raise ValueError(f"line-up {spec!r} names {len(parts)} agents; {P} players need {P - 1} opponents")
    agents = [make_agent(name, game, seed + k) for k, name in enumerate(parts)]
    return agents, [f"{name}#{k}" for k, name in enumerate(parts, start=1)]


def play_games(
    game: Any,
    agents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    *,
    max_steps: int = 10_000,
    names: Sequence[str] | None = None,
    save_games: str | Path | None = None,
) -> EvalResult:
    """Play ``num_games`` seat-balanced games between ``agents`` on the batched core.

    Args:
        game: a core game (e.g. ``make_game(name, num_players=2)``).
        agents: ``game.num_players`` agents or agent names (built with
            ``make_agent(name, game, seed + i)``). The same object may appear several times.
        num_games: games to play (all in one batch); a multiple of ``P`` balances seats exactly, a
            multiple of ``P!`` every seating (the opponents' order too: :func:`seat_assignment`).
        seed: derives the deals (game seeds) and seeds agents built from names.
        max_steps: safety cap on decisions per game; games still running are counted as draws.
        names: display names (default: each agent's ``name`` attribute, numbered if repeated).
        save_games: also write every game (seed + moves) to this replay file
            (:mod:`monkey_envs.replay`).

    Returns:
        An :class:`EvalResult`.

    Raises:
        ValueError: wrong number of agents, ``num_games < 1``, or an agent returning a bad batch.
    """
    P = int(game.num_players)
    if len(agents) != P:
        raise ValueError(f"need one agent per seat: {P} agents for {P} players, got {len(agents)}")
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {num_games!r}")
    built = build_agents(game, agents, seed)
    labels = _labels(built, agents, names)
    seeds, seat_agent = seat_assignment(int(num_games), P, seed)
    rec = play_lineups(
        game, built, seeds, seat_agent, max_steps=max_steps, labels=labels, record_actions=save_games is not None
    )
    if save_games is not None:
        from monkey_envs.replay import save_replays

        save_replays(save_games, game, replay_records(game, rec, labels))
    return EvalResult(
        game={"name": game.spec.name, **game.config},
        num_games=int(num_games),
        seed=int(seed),
        agents=agent_results(rec, labels),
        end_reasons=rec.end_reasons(),
        mean_length=float(rec.lengths.mean()),
        truncated=int(rec.truncated.sum()),
        seconds=rec.seconds,
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


# ====================================================================== game-specific decision reports


class RecordingAgent:
    """Wraps an agent and keeps the observation and action of each decision ``game.report_decisions`` selects.

    Attributes:
        obs: list of ``(n, D) float32`` observations (one entry per call with recorded decisions).
        actions: list of ``(n,) int64`` chosen actions.
    """

    def __init__(self, inner: Any, game: Any) -> None:
        self.inner = inner
        self.game = game
        self.name = getattr(inner, "name", "agent")
        self.obs: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        acts = check_agent_actions(self.inner.act(obs, mask), mask, self.name)
        keep = np.asarray(mask).astype(bool).any(1) & self.game.report_decisions(acts)
        rows = np.flatnonzero(keep)
        if rows.size:
            self.obs.append(np.asarray(obs)[rows].copy())
            self.actions.append(acts[rows])
        return acts


def decision_report(
    game: Any, agent: Any, opponents: Sequence[Any], num_games: int, seed: int = 0, name: str = "agent"
) -> tuple[str, dict[str, Any], str] | None:
    """Play seat-balanced games and return the game's report on the focal agent's decisions.

    The focal agent's decisions that ``game.report_decisions`` selects are recorded with the
    observation they were chosen from and handed to ``game.decision_report`` (Funky Monkey: the
    bluff rate by context).

    Args:
        game: a core game.
        agent: the focal agent (object, factory or name).
        opponents: ``P - 1`` agents or names for the other seats.
        num_games: games (a multiple of ``P`` balances seats).
        seed: deals and agent seeds.
        name: the focal agent's display name.

    Returns:
        ``(title, data, markdown)`` -- ``data`` gains ``agent``, ``games``, ``win_rate`` and
        ``win_rate_ci`` -- or ``None`` for a game without a decision report.

    Raises:
        ValueError: a wrong number of opponents, or an unknown agent.
    """
    from agents.registry import make_agent

    if len(opponents) != game.num_players - 1:
        raise ValueError(f"need {game.num_players - 1} opponents for {game.num_players} players, got {len(opponents)}")
    rec = RecordingAgent(make_agent(agent, game, seed), game)
    result = play_games(
        game,
        [rec, *opponents],
        num_games,
        seed=seed,
        names=[name, *[f"{getattr(o, 'name', o)}#{k}" for k, o in enumerate(opponents, start=1)]],
    )
    obs = np.concatenate(rec.obs) if rec.obs else np.zeros((0, game.obs_dim), np.float32)
    acts = np.concatenate(rec.actions) if rec.actions else np.zeros(0, np.int64)
    me = result.agents[0]
    about = {"agent": name, "games": int(num_games), "win_rate": me.win_rate, "win_rate_ci": [me.ci_low, me.ci_high]}
    return game.decision_report(obs, acts, about)
