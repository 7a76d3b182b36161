"""Rollout policy improvement: fit the policy's logits to Monte Carlo action values of a teacher.

``pretrain.objective: rollout_q`` in a config makes ``training.run`` train the fresh
``MaskablePPO`` policy by one step of (approximate) policy iteration over the teacher, instead of
by imitation:

1. :func:`probe_states` plays ``pretrain.games`` teacher-vs-teacher games side by side on the
   batched core and keeps each decision's full game state with probability
   ``pretrain.probe_prob`` (the positions the teacher's own play reaches).
2. :func:`rollout_action_values` plays, from every probe state and for **every** legal action,
   that action and then the teacher in every seat to the end of the game, and records the
   acting seat's result as ``q = (return - lo) / (hi - lo)`` in ``[0, 1]`` (1 a win, 0 a loss,
   0.5 a draw for Monkey Fun's +-1 rewards). All actions of one state continue from the same
   state -- same hidden cards, same draw pile, same random generator -- so their results differ
   only through the actions (common random numbers: far less noise in the differences that
   decide which action is best). Each ``q`` is one sample of ``Q_teacher(s, a)``, the chance to
   win by playing ``a`` and then as the teacher would.
3. :func:`fit_action_values` fits the policy's logits to those samples by binary cross-entropy
   (``sigmoid(logit_a)`` estimates ``Q(s, a)``; only legal actions count) and the value head to
   the teacher's own action value, on 90% of the probe states, and reports on the held-out 10%.

The policy's most likely action is then ``argmax_a Q(s, a)``: by the policy improvement theorem a
policy greedy in the teacher's action values is at least as good as the teacher, to the extent
that the network estimates them well; it learns *where* the teacher's move is not the best one.
The observation alone feeds the network (the hidden cards only shape the sampled outcomes), so
the trained agent plays from what its seat sees, like any other.

Cost: a probe state costs one teacher game from there per legal action (~15 in Monkey Fun); the
rollouts are batched on the core (``chunk`` probe states at a time, a batch of ~15,000 rows that
shrinks as games end). Nearly all of that time is the teacher's ``act()`` on each pass (greedy,
profiled: ~93%; the core's step ~2%, ``observe`` ~3%, taking the running rows ~1.5%), which
already runs over the whole batch -- so ``workers`` processes share out the chunks instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np


@dataclasses.dataclass
class ActionValueData:
    """Monte Carlo action values at probe states (``N`` states, ``D`` obs size, ``A`` actions).

    Attributes:
        obs: ``(N, D) float32`` the acting seat's observation.
        mask: ``(N, A) bool`` the actions whose value was sampled (legal, within any restriction).
        q: ``(N, A) float32`` one sampled outcome in ``[0, 1]`` per action in ``mask``; NaN elsewhere.
        teacher_actions: ``(N,) int64`` the teacher's own choice.
        games: teacher games played to find the states.
        rollouts: games played out from the probe states (one per sampled action).
        reward_range: ``(lo, hi)`` of the game's rewards (``q = 0`` is ``lo``, ``q = 1`` is ``hi``).
        seconds: wall time of each recording phase (``{"probe": ..., "play_out": ...}``), when known.
    """

    obs: np.ndarray
    mask: np.ndarray
    q: np.ndarray
    teacher_actions: np.ndarray
    games: int
    rollouts: int
    reward_range: tuple[float, float] = (-1.0, 1.0)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)


def probe_states(game: Any, agent: Any, games: int, seed: int, probe_prob: float) -> Any:
    """States of ``games`` teacher-vs-teacher games, each decision kept with ``probe_prob``.

    Args:
        game: the game.
        agent: the teacher (plays every seat).
        games: games played side by side (seeds ``seed .. seed + games - 1``).
        seed: game seeds and the probe draws.
        probe_prob: chance that a decision's state is kept.

    Returns:
        A State batch of the kept positions (running games, some seat to move).
    """
    return table_states(game, [agent], games, seed, probe_prob)[0]


def table_states(game: Any, agents: list[Any], games: int, seed: int, probe_prob: float) -> tuple[Any, np.ndarray]:
    """:func:`probe_states` at a mixed table: every seat of every game plays one of ``agents``.

    Each seat of each game draws its agent uniformly (from a generator of its own, seeded by
    ``seed``); the probe draws are :func:`probe_states`'s.

    Returns:
        The kept positions and ``(n, P) int64`` the agent (index into ``agents``) of every seat of
        each position's game.
    """
    rng = np.random.default_rng(seed)
    seat_agent = np.random.default_rng([int(seed), 1]).integers(len(agents), size=(games, game.num_players))
    state = game.init(np.arange(games, dtype=np.int64) + seed)
    kept, kept_seats = [], []
    while True:
        rows = np.flatnonzero(~(state.terminated | state.truncated))
        if rows.size == 0:
            break
        probe = rows[rng.random(rows.size) < probe_prob]
        if probe.size:
            kept.append(state.take(probe))
            kept_seats.append(seat_agent[probe])
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[rows] = seat_moves(game, agents, seat_agent[rows], state.take(rows))
        state = game.step(state, actions)
    if not kept:
        raise ValueError(f"no state was probed: raise pretrain.games ({games}) or pretrain.probe_prob ({probe_prob})")
    return type(state).concat(kept), np.concatenate(kept_seats)


def seat_moves(game: Any, agents: list[Any], seat_agent: np.ndarray, state: Any) -> np.ndarray:
    """``(n,) int64`` the moves of the player to move in each of the ``n`` running rows of ``state``,
    each made by ``agents[seat_agent[i, seat]]`` (``seat_agent (n, P) int64``; agents asked as
    :func:`teacher_moves` asks them, each once for all its rows, in row order)."""
    cp = state.current_player.astype(np.int64)
    who = seat_agent[np.arange(state.batch_size), cp]
    out = np.zeros(state.batch_size, dtype=np.int64)
    for k in np.unique(who).tolist():
        rows = np.flatnonzero(who == k)
        out[rows] = teacher_moves(game, agents[k], state if rows.size == state.batch_size else state.take(rows))
    return out


def play_out(
    game: Any,
    agent: Any,
    state: Any,
    seats: np.ndarray,
    agents: list[Any] | None = None,
    seat_agent: np.ndarray | None = None,
) -> np.ndarray:
    """Play every row of ``state`` to its end with ``agent`` in every seat -- or, with ``agents``,
    seat ``p`` of row ``i`` played by ``agents[seat_agent[i, p]]`` (``seat_agent (B, P) int64``).

    Returns:
        ``(B,) float64`` the total reward of seat ``seats[i]`` in row ``i`` from here on.
    """
    ar = np.arange(state.batch_size)
    total = np.zeros(state.batch_size, dtype=np.float64)
    while True:
        rows = np.flatnonzero(~(state.terminated | state.truncated))
        if rows.size == 0:
            return total
        actions = np.zeros(state.batch_size, dtype=np.int64)
        if agents is None:
            actions[rows] = teacher_moves(game, agent, state.take(rows))
        else:
            actions[rows] = seat_moves(game, agents, seat_agent[rows], state.take(rows))
        state = game.step(state, actions)
        total += state.rewards[ar, seats]


def teacher_moves(game: Any, agent: Any, state: Any, obs: np.ndarray | None = None) -> np.ndarray:
    """``(n,) int64`` the moves ``agent`` makes for the player to move in each of the ``n`` (running)
    rows of ``state``: asked ``act(obs, mask)``, or ``act_state`` for an agent that searches the
    state (:func:`monkey_envs.core.opponents.ask_agent`), so a search agent can be a teacher.

    Args:
        obs: ``(n, D) float32`` those seats' observations, if computed already.
    """
    from monkey_envs.core.opponents import ask_agent

    seats = state.current_player.astype(np.int64)
    if obs is None:
        obs = game.observe(state, seats)
    return np.asarray(ask_agent(agent, obs, state.legal_action_mask, lambda: (state, seats)), dtype=np.int64)


def chunk_seed(seed: int, index: int, member: int = 0) -> int:
    """Seed of the teacher (``member`` 0) or of the ``member``-th table agent that plays chunk
    ``index`` of a run seeded ``seed``.

    Derived from ``(seed, index, member)`` alone (``numpy.random.SeedSequence``), never from which
    worker plays the chunk or in what order, so the action values do not depend on the number
    of workers. Returns an ``int`` in ``[0, 2**63)``.
    """
    key = [int(seed), int(index)] + ([int(member)] if member else [])
    state = np.random.SeedSequence(key).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def chunk_agents(game: Any, agent: Any, table: list[Any] | None, seed: int, index: int) -> tuple[Any, list[Any] | None]:
    """The teacher and the table agents (``None`` without a table) that play chunk ``index``."""
    from agents import make_agent

    teacher = make_agent(agent, game, chunk_seed(seed, index))
    if table is None:
        return teacher, None
    return teacher, [make_agent(a, game, chunk_seed(seed, index, k + 1)) for k, a in enumerate(table)]


def rollout_chunk(
    game: Any,
    agent: Any,
    states: Any,
    allowed_actions: np.ndarray | None = None,
    table: list[Any] | None = None,
    seat_agent: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Sample ``Q_teacher(s, a)`` for every legal action of the ``n`` probe states ``states``.

    Every (state, action) pair becomes one row of a single batch (``states.take`` of the state
    once per action), the action is played and :func:`play_out` finishes all rows together. With
    a ``table`` (agents) and ``seat_agent`` (``(n, P) int64`` indices into it, the seats of each
    position's game), the acting seat goes on as the teacher and every other seat as its table
    agent; else the teacher plays every seat.

    Returns:
        ``(obs (n, D) float32, mask (n, A) bool, q (n, A) float32, teacher_actions (n,) int64,
        rollouts)`` as in :class:`ActionValueData`.
    """
    lo, hi = (float(x) for x in game.spec.reward_range)
    seats = states.current_player.astype(np.int64)
    obs = game.observe(states, seats)
    mask = states.legal_action_mask.copy()
    teacher_actions = teacher_moves(game, agent, states, obs)
    if allowed_actions is not None:
        restricted = mask & np.asarray(allowed_actions, dtype=bool)
        mask = np.where(restricted.any(1, keepdims=True), restricted, mask)
    rows, acts = np.nonzero(mask)
    big = states.take(rows)
    first = game.step(big, acts)
    total = first.rewards[np.arange(rows.size), seats[rows]].astype(np.float64)
    if table is None:
        total += play_out(game, agent, first, seats[rows])
    else:
        sa = np.asarray(seat_agent, dtype=np.int64)[rows] + 1  # 0 is the teacher
        sa[np.arange(rows.size), seats[rows]] = 0
        total += play_out(game, agent, first, seats[rows], [agent, *table], sa)
    q = np.full(mask.shape, np.nan, dtype=np.float32)
    q[rows, acts] = (total - lo) / (hi - lo)
    return np.asarray(obs, dtype=np.float32), mask, q, teacher_actions, int(rows.size)


def available_cores() -> int:
    """CPU cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``), at least 1."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # not on Linux
        return max(os.cpu_count() or 1, 1)


#: What a play-out worker process holds (set once by :func:`_worker_init`).
_WORKER: dict[str, Any] = {}


@contextlib.contextmanager
def workers_ignore_sigint() -> Iterator[None]:
    """Processes started inside ignore SIGINT from their first instruction.

    A terminal's Ctrl-C reaches the whole process group; the parent handles it (it terminates
    the pool) and the workers must not print a ``KeyboardInterrupt`` traceback each -- not even
    while they are still starting up, before any initializer runs. An ignored signal stays ignored
    through ``exec`` and Python then installs no handler, so the parent ignores SIGINT while it
    starts them (a Ctrl-C in that instant is lost) and restores its handler. Only in the main
    thread (where signal handlers live); elsewhere it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_init(
    imports: list[str],
    game: Any,
    agent: Any,
    seed: int,
    allowed_actions: np.ndarray | None,
    table: list[str] | None = None,
) -> None:
    import importlib

    # the parent handles Ctrl-C (see workers_ignore_sigint); a worker the pool starts again later
    # (from a thread, not inside workers_ignore_sigint) ignores it from here on
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    for module in imports:  # plugins that register the teacher's name (the game unpickles by itself)
        importlib.import_module(module)
    _WORKER.update(game=game, agent=agent, seed=seed, allowed=allowed_actions, table=table)


def _worker_chunk(
    task: tuple[int, Any, np.ndarray | None],
) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]]:
    index, states, seats = task
    w = _WORKER
    teacher, table = chunk_agents(w["game"], w["agent"], w["table"], w["seed"], index)
    return index, rollout_chunk(w["game"], teacher, states, w["allowed"], table, seats)


def rollout_action_values(
    game: Any,
    agent: Any,
    states: Any,
    chunk: int = 1000,
    allowed_actions: np.ndarray | None = None,
    workers: int = 1,
    seed: int = 0,
    imports: list[str] | tuple[str, ...] = (),
    table: list[str] | None = None,
    seat_agent: np.ndarray | None = None,
) -> ActionValueData:
    """Sample ``Q_teacher(s, a)`` for every legal action ``a`` of every state (see the module doc).

    The states are cut into chunks of ``chunk`` (the last one shorter); each chunk is one batch
    of ``chunk`` x legal actions rows on the core (:func:`rollout_chunk`) with its own teacher,
    ``make_agent(agent, game, chunk_seed(seed, index))``. With ``workers > 1`` the chunks are
    shared out to that many worker processes (``multiprocessing``'s ``spawn`` context: a fresh
    interpreter each, safe with torch and numba loaded) and gathered back in chunk order. A
    position's chance events come from its own per-row random stream in the state and its
    teacher from its chunk's seed, so the result is bit-identical for every number of workers.

    Args:
        game: the game (picklable for ``workers > 1``, as the shipped games are).
        agent: the teacher (continues every seat after the sampled action): an agent name (built
            per chunk, e.g. ``"greedy"``), a factory ``f(game, seed)``, or an agent object (used
            as is by every chunk; then only an agent that decides each row from that row alone
            -- like ``greedy`` -- gives the same values for every ``chunk``). With
            ``workers > 1`` it must be picklable (a name always is).
        states: probe states (:func:`probe_states`).
        chunk: probe states rolled out together (the batch is ``chunk`` x legal actions). Range: >= 1.
        allowed_actions: ``(A,) bool`` restriction of the learner (``env.learner_actions``); rows
            where it leaves no legal action keep their legal actions.
        workers: processes playing the chunks (1: this process, no other is started). Range: >= 1;
            more than the number of chunks starts only one per chunk.
        seed: the teachers' seeds (:func:`chunk_seed`).
        imports: modules a worker imports first (plugins registering the teacher's name).
        table: agent names the other seats go on with (``pretrain.table``), each chunk's built
            with :func:`chunk_seed`'s member seeds; ``None``: the teacher plays every seat.
        seat_agent: with ``table``, ``(n, P) int64`` each state's seats as indices into it
            (:func:`table_states`); the acting seat goes on as the teacher.

    Returns:
        An :class:`ActionValueData` (``games`` left 0 for the caller to fill).

    Raises:
        ValueError: ``chunk`` or ``workers`` below 1.
    """

    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be an integer >= 1, got {chunk!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    lo, hi = (float(x) for x in game.spec.reward_range)
    n = states.batch_size
    starts = list(range(0, n, chunk))
    workers = min(int(workers), len(starts))

    if (table is None) != (seat_agent is None):
        raise ValueError("table and seat_agent go together: give both or neither")

    def tasks() -> Any:
        for index, start in enumerate(starts):
            rows = np.arange(start, min(start + chunk, n))
            yield index, states.take(rows), None if seat_agent is None else np.asarray(seat_agent)[rows]

    parts: list[Any] = [None] * len(starts)
    if workers <= 1:
        for index, sub, seats in tasks():
            teacher, members = chunk_agents(game, agent, table, seed, index)
            parts[index] = rollout_chunk(game, teacher, sub, allowed_actions, members, seats)
    else:
        import multiprocessing

        allowed = None if allowed_actions is None else np.asarray(allowed_actions, dtype=bool)
        ctx = multiprocessing.get_context("spawn")
        with workers_ignore_sigint():
            pool = ctx.Pool(
                workers,
                initializer=_worker_init,
                initargs=(list(imports), game, agent, int(seed), allowed, None if table is None else list(table)),
            )
        try:
            for index, part in pool.imap_unordered(_worker_chunk, tasks()):
                parts[index] = part
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    return ActionValueData(
        obs=np.concatenate([p[0] for p in parts]),
        mask=np.concatenate([p[1] for p in parts]),
        q=np.concatenate([p[2] for p in parts]),
        teacher_actions=np.concatenate([p[3] for p in parts]),
        games=0,
        rollouts=sum(p[4] for p in parts),
        reward_range=(lo, hi),
    )


def record_action_values(
    game: Any,
    teacher: str,
    games: int,
    seed: int,
    probe_prob: float,
    allowed_actions: np.ndarray | None = None,
    workers: int = 1,
    imports: list[str] | tuple[str, ...] = (),
    table: list[str] | None = None,
) -> ActionValueData:
    """:func:`probe_states` then :func:`rollout_action_values` (on ``workers`` processes) with the
    named teacher agent; ``data.seconds`` holds the time of each phase.

    With ``table`` (agent names, ``pretrain.table``) the games are played at a mixed table
    (:func:`table_states`: each seat of each game one of them, drawn uniformly) and the
    play-outs go on with those seats, the acting seat as the teacher.
    """
    from agents import make_agent

    t0 = time.perf_counter()
    seat_agent = None
    if table is None:
        states = probe_states(game, make_agent(teacher, game, seed), games, seed, probe_prob)
    else:
        members = [make_agent(a, game, seed + 1 + k) for k, a in enumerate(table)]
        states, seat_agent = table_states(game, members, games, seed, probe_prob)
    t1 = time.perf_counter()
    data = rollout_action_values(
        game,
        teacher,
        states,
        allowed_actions=allowed_actions,
        workers=workers,
        seed=seed,
        imports=imports,
        table=None if table is None else list(table),
        seat_agent=seat_agent,
    )
    data.games = games
    data.seconds = {"probe": round(t1 - t0, 2), "play_out": round(time.perf_counter() - t1, 2)}
    return data


def fixed_part(policy: Any, obs: Any, chunk: int = 8192) -> Any:
    """The part of ``policy``'s features of ``obs (N, D)`` that no parameter changes, or ``None``.

    A shared features extractor with a ``fixed_part(obs)`` method (Monkey Fun's greedy terms:
    :meth:`~agents.heuristics.monkey_fun_features.GreedyActionExtractor.fixed_part`) computes it
    in chunks of ``chunk`` rows once, so a fit over fixed positions does not recompute it per
    minibatch and epoch; ``forward(obs, fixed)`` then takes the rows' part. The extractor works
    row by row, so the features, and the fit, are the same either way.
    """
    import torch

    fe = getattr(policy, "features_extractor", None)
    if fe is None or not getattr(policy, "share_features_extractor", True) or not hasattr(fe, "fixed_part"):
        return None
    if obs.shape[0] == 0:
        return None
    return torch.cat([fe.fixed_part(obs[s : s + chunk]) for s in range(0, obs.shape[0], chunk)])


def fit_action_values(
    model: Any,
    data: ActionValueData,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float = 0.5,
    seed: int = 0,
    holdout: float = 0.1,
    verbose: bool = False,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fit ``model.policy``'s logits to the sampled action values (in place); see the module doc.

    ``verbose`` writes one line per epoch with ``say`` (default :func:`print`; ``training.run``
    passes its heartbeat's :meth:`~training.progress.Heartbeat.echo`).

    The logit of action ``a`` learns ``logit(Q(s, a))`` (binary cross-entropy over the sampled
    actions); the value head learns the teacher action's outcome in reward units.

    Returns:
        ``{"states", "samples", "epochs", "train_bce", "holdout": {...}, "seconds", "history"}``;
        the held-out report has the cross-entropy, the share of states where the policy's choice
        is the teacher's, and the mean sampled value of the policy's choice and of the teacher's.
    """
    import torch
    from stable_baselines3.common.preprocessing import preprocess_obs

    policy = model.policy
    device = policy.device
    rng = np.random.default_rng(seed)
    n = data.obs.shape[0]
    perm = rng.permutation(n)
    n_hold = round(n * holdout) if n > 1 else 0
    hold, train = perm[:n_hold], perm[n_hold:]
    obs = torch.as_tensor(data.obs, device=device)
    mask = torch.as_tensor(data.mask, device=device)
    q = torch.as_tensor(np.nan_to_num(data.q, nan=0.0), device=device)
    teacher = torch.as_tensor(data.teacher_actions, device=device)
    lo, hi = data.reward_range
    v_target = lo + q[torch.arange(n, device=device), teacher] * (hi - lo)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    fe = policy.features_extractor
    fixed = fixed_part(policy, obs)

    def features(idx: torch.Tensor) -> torch.Tensor:
        if fixed is None:
            return policy.extract_features(obs[idx], policy.pi_features_extractor)
        x = preprocess_obs(obs[idx], policy.observation_space, normalize_images=policy.normalize_images)
        return fe(x, fixed[idx])

    def logits(idx: torch.Tensor) -> torch.Tensor:
        return policy.action_net(policy.mlp_extractor.forward_actor(features(idx)))

    def values(idx: torch.Tensor) -> torch.Tensor:
        if fixed is None:
            return policy.predict_values(obs[idx]).flatten()
        return policy.value_net(policy.mlp_extractor.forward_critic(features(idx))).flatten()

    def bce(lg: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        m = mask[idx]
        return torch.nn.functional.binary_cross_entropy_with_logits(lg[m], q[idx][m])

    history = []
    t0 = time.perf_counter()
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = torch.as_tensor(rng.permutation(train), device=device)
        loss_sum = 0.0
        for start in range(0, order.numel(), batch_size):
            idx = order[start : start + batch_size]
            loss_q = bce(logits(idx), idx)
            loss_v = torch.nn.functional.mse_loss(values(idx), v_target[idx])
            loss = loss_q + vf_coef * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            loss_sum += loss_q.item() * idx.numel()
        history.append({"epoch": epoch + 1, "train_bce": loss_sum / max(train.size, 1)})
        if verbose:
            say(
                f"  pretraining epoch {epoch + 1}/{epochs}: action-value cross-entropy "
                f"{loss_sum / max(train.size, 1):.4f} ({time.perf_counter() - t0:.0f} s)"
            )
    policy.set_training_mode(False)
    report: dict[str, Any] = {}
    if n_hold:
        with torch.no_grad():
            idx = torch.as_tensor(hold, device=device)
            lg = torch.cat([logits(idx[i : i + 8192]) for i in range(0, idx.numel(), 8192)])
            pick = torch.where(mask[idx], lg, torch.finfo(lg.dtype).min).argmax(1)
            rows = torch.arange(idx.numel(), device=device)
            report = {
                "states": int(n_hold),
                "bce": round(float(bce(lg, idx)), 5),
                "agreement_with_teacher": round(float((pick == teacher[idx]).float().mean()), 4),
                "q_of_choice": round(float(q[idx][rows, pick].mean()), 4),
                "q_of_teacher_choice": round(float(q[idx][rows, teacher[idx]].mean()), 4),
            }
    return {
        "states": int(n),
        "samples": int(data.mask.sum()),
        "epochs": epochs,
        "train_bce": history[-1]["train_bce"] if history else None,
        "holdout": report,
        "seconds": round(time.perf_counter() - t0, 2),
        "history": history,
    }
