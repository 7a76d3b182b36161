"""Opponent pools: a different opponent per episode and seat, drawn from weighted members.

A single-agent face (gymnasium, SB3 VecEnv) normally plays one fixed opponent per seat. With an
:class:`OpponentPool` instead, every episode of every row draws, for each opponent seat, one
*member* of the pool with probability proportional to the pool's weights::

    pool = OpponentPool(["honest", "skeptic", "track"])          # a heuristic mix, uniform
    venv = MonkeyVecEnv(game, 64, opponent=pool)

    pool.add(snapshot_agent, name="snapshot_3")                    # self-play grows the pool
    pool.set_weights([0, 0, 1, 1])                                 # e.g. only the snapshots

Members are agent names (for :func:`agents.make_agent`; ``"random"`` is the driver's
batch-invariant per-row random opponent) or agent objects with ``act(obs, mask)``. Members are
never removed -- a member's index stays valid for episodes in progress; give it weight 0 to stop
drawing it. The draws come from each row's own counter-based RNG stream, so a seeded row replays
the same opponents at any batch size (as long as the weights change at the same moments).

The pool also keeps the learner's record against each member (:meth:`record`, called by the
driver when an episode ends): :attr:`games` and :attr:`learner_score` per member, which
prioritised self-play sampling reads (see ``training/selfplay.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: How agent names (other than ``"random"``) become agents: ``resolver(name, game, seed) -> agent``.
#: The core knows no agent library; the layer above it installs one with :func:`set_name_resolver`
#: (``monkey_envs.registration`` installs the ``monkey_envs.agents`` entry point's resolver).
_NAME_RESOLVER: list[Callable[[str, Any, int], Any]] = []


def set_name_resolver(resolver: Callable[[str, Any, int], Any]) -> None:
    """Install ``resolver(name, game, seed) -> agent``, through which :func:`resolve_agent` turns names into agents."""
    _NAME_RESOLVER[:] = [resolver]


def resolve_agent(spec: Any, game: Any, seed: int = 0) -> Any:
    """An agent object for ``game`` from an object, a factory or a name.

    * an object with ``act(obs, mask)`` is returned as it is;
    * a callable without ``act`` is a factory: ``spec(game, seed)``;
    * a name is resolved by the resolver installed with :func:`set_name_resolver` (the package
      installs the agent library's ``monkey_envs.agents`` entry point: ``make_agent(name, game, seed)``).

    Raises:
        ValueError: not an agent, a factory returning no agent, an unknown name, or a name with
            no agent library installed.
    """
    if hasattr(spec, "act"):
        return spec
    if callable(spec) and not isinstance(spec, str):
        agent = spec(game, seed)
        if not hasattr(agent, "act"):
            raise ValueError(f"agent factory {spec!r} returned {agent!r}, which has no act(obs, mask)")
        return agent
    if not isinstance(spec, str):
        raise ValueError(f"an agent must be a name, a factory or an object with act(obs, mask), got {spec!r}")
    if not _NAME_RESOLVER:
        raise ValueError(
            f"opponent {spec!r}: nothing is installed to resolve agent names (set_name_resolver); "
            "pass an agent object or a factory(game, seed), or 'random'"
        )
    return _NAME_RESOLVER[0](spec, game, seed)


def needs_state(agent: Any) -> bool:
    """True for an agent that decides from the game state (a search agent).

    Such an agent has ``needs_state = True`` and ``act_state(state, seats, obs, mask) -> (n,)
    int64``: ``state`` is the game's ``BatchState`` of exactly the ``n`` rows it must decide (a copy
    it may not keep), ``seats (n,) int64`` the seat to decide for in each row (its current
    player), ``obs`` and ``mask`` as for ``act``. Everything that plays agents on the core (the
    single-agent driver's opponents, the arena, the play command) asks it this way; every other
    agent is asked ``act(obs, mask)``.
    """
    return bool(getattr(agent, "needs_state", False))


def ask_agent(agent: Any, obs: np.ndarray, mask: np.ndarray, rows_state: Any) -> Any:
    """What ``agent`` answers for ``obs (n, D)`` and ``mask (n, A)``, unchecked.

    ``rows_state() -> (state, seats)`` gives the ``n`` rows' state and seats; it is called only
    for an agent that :func:`needs_state`.
    """
    if needs_state(agent):
        state, seats = rows_state()
        return agent.act_state(state, seats, obs, mask)
    return agent.act(obs, mask)


def member_name(member: Any) -> str:
    """Display name of a pool member: the name itself, or the agent's ``name`` attribute."""
    return member if isinstance(member, str) else str(getattr(member, "name", type(member).__name__))


def check_agent_actions(raw: Any, mask: np.ndarray, who: str, rows: np.ndarray | None = None) -> np.ndarray:
    """What an agent's ``act(obs, mask)`` returned, checked: ``(n,) int64`` legal actions.

    The one check of the agent contract, shared by everything that plays agent objects (the
    single-agent driver's opponents, the arena / evaluation engine): the agent must return
    ``n`` integers (a scalar is accepted for ``n == 1``), each legal in its row of ``mask``.
    Nothing is converted on the way: a float (``argmax + 0.75`` is no 0, ``0.5`` no 0), a bool,
    a string (``"3"`` is no 3) or an object is refused, not cast.

    Args:
        raw: what the agent returned.
        mask: ``(n, A)`` the legal actions it was given (bool or 0/1 integers).
        who: the agent's name, for the messages.
        rows: ``(n,)`` batch rows of ``mask``'s rows, for the messages (default ``0 .. n-1``).

    Returns:
        ``(n,) int64`` the actions (a new array).

    Raises:
        ValueError: naming ``who``: not ``(n,)`` integers, values out of ``[0, A)`` (reported as
            returned), or actions its mask forbids (with their rows).
    """
    n, num_actions = np.shape(mask)
    a = np.asarray(raw)
    if a.shape == () and n == 1:
        a = a.reshape(1)
    if a.dtype.kind not in "iu" or a.shape != (n,):  # bool is kind "b", str "U", object "O"
        raise ValueError(
            f"agent {who!r} returned {raw!r:.80} ({a.dtype}, shape {a.shape}); act() must return ({n},) integer actions"
        )
    if a.size and (a.min() < 0 or a.max() >= num_actions):
        out = (a < 0) | (a >= num_actions)
        raise ValueError(f"agent {who!r} returned actions out of range [0, {num_actions}): {a[out][:5].tolist()}")
    acts = a.astype(np.int64)
    legal = np.asarray(mask)[np.arange(n), acts].astype(bool)
    if not legal.all():
        bad = np.flatnonzero(~legal)
        where = bad if rows is None else np.asarray(rows)[bad]
        raise ValueError(
            f"agent {who!r} chose illegal actions {acts[bad[:5]].tolist()} in rows {where[:5].tolist()} "
            "(act() must choose actions its mask allows)"
        )
    return acts


class OpponentPool:
    """Weighted opponents, drawn per episode and opponent seat.

    Args:
        members: agent names or agent objects (at least one).
        weights: ``(M,)`` non-negative weights with a positive sum (``None``: all 1).
        names: display names (default: :func:`member_name` of each member); must be unique.
        memory: the learner's win rate against a member forgets old episodes: each recorded
            episode's weight is multiplied by ``1 - 1 / memory`` for every later episode the pool
            records (``None``: never forget). Only :meth:`learner_win_rate` uses the decayed record.

    Attributes:
        members: the members, in the order they were added.
        names: their display names.
        games: ``(M,) int64`` finished episodes in which the member played at least one seat.
        learner_score: ``(M,) float64`` the learner's score in those episodes (1 win, 0 loss;
            ``1 / k`` for a win shared by ``k`` players).
        recent_games, recent_score: ``(M,) float64`` the same, each episode weighted by its
            decay (equal to ``games`` / ``learner_score`` without ``memory``).

    Raises:
        ValueError: no members, a bad member, bad weights, duplicate names or ``memory < 1``.
    """

    def __init__(
        self,
        members: Sequence[Any],
        weights: Sequence[float] | None = None,
        names: Sequence[str] | None = None,
        memory: float | None = None,
    ):
        if isinstance(members, (str, bytes)) or len(members) == 0:
            raise ValueError(f"an OpponentPool needs a non-empty list of members, got {members!r}")
        if memory is not None and not (np.isfinite(memory) and memory >= 1):
            raise ValueError(f"memory must be a number of episodes >= 1 (or None), got {memory!r}")
        self.decay = 1.0 if memory is None else 1.0 - 1.0 / float(memory)
        self.members: list[Any] = []
        self.names: list[str] = []
        self._weights = np.zeros(0, dtype=np.float64)
        self.games = np.zeros(0, dtype=np.int64)
        self.learner_score = np.zeros(0, dtype=np.float64)
        self.recent_games = np.zeros(0, dtype=np.float64)
        self.recent_score = np.zeros(0, dtype=np.float64)
        if names is not None and len(names) != len(members):
            raise ValueError(f"names must have one entry per member ({len(members)}), got {len(names)}")
        for i, m in enumerate(members):
            self.add(m, weight=1.0, name=None if names is None else names[i])
        if weights is not None:
            self.set_weights(weights)

    def __len__(self) -> int:
        return len(self.members)

    def __repr__(self) -> str:
        return f"OpponentPool({self.names}, weights={self._weights.round(3).tolist()})"

    def add(self, member: Any, weight: float = 1.0, name: str | None = None) -> int:
        """Append a member; returns its index.

        Raises:
            ValueError: a member that is neither a name nor has ``act``, a negative weight, or a
                name already in the pool.
        """
        if not (isinstance(member, str) or hasattr(member, "act")):
            raise ValueError(f"a pool member must be an agent name or an object with act(obs, mask), got {member!r}")
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"a pool weight must be finite and >= 0, got {weight!r}")
        name = member_name(member) if name is None else str(name)
        if name in self.names:
            raise ValueError(f"pool member name {name!r} is already taken; pass a unique name=")
        self.members.append(member)
        self.names.append(name)
        self._weights = np.append(self._weights, float(weight))
        self.games = np.append(self.games, 0)
        self.learner_score = np.append(self.learner_score, 0.0)
        self.recent_games = np.append(self.recent_games, 0.0)
        self.recent_score = np.append(self.recent_score, 0.0)
        return len(self.members) - 1

    @property
    def weights(self) -> np.ndarray:
        """``(M,) float64`` the current weights (a copy)."""
        return self._weights.copy()

    def set_weights(self, weights: Sequence[float]) -> None:
        """Replace all weights (takes effect at the next episode start of each row).

        Raises:
            ValueError: wrong length, a negative or non-finite weight, or an all-zero vector.
        """
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(self.members),):
            raise ValueError(f"weights must have shape ({len(self.members)},) -- one per member -- got {w.shape}")
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise ValueError(f"weights must be finite and >= 0, got {w.tolist()}")
        if w.sum() <= 0:
            raise ValueError("at least one weight must be positive")
        self._weights = w

    @property
    def probabilities(self) -> np.ndarray:
        """``(M,) float64`` the chance of drawing each member for one seat."""
        return self._weights / self._weights.sum()

    def sample(self, u: np.ndarray) -> np.ndarray:
        """Members for uniform numbers ``u`` in ``[0, 1)`` (any shape), as ``int64`` indices.

        Members with weight 0 are never returned.
        """
        cdf = np.cumsum(self._weights)
        idx = np.searchsorted(cdf, np.asarray(u) * cdf[-1], side="right")
        return np.minimum(idx, len(self.members) - 1).astype(np.int64)

    def record(self, member_ids: np.ndarray, score: np.ndarray) -> None:
        """Add finished episodes to the record.

        Args:
            member_ids: ``(n, P - 1) int64`` the member playing each opponent seat of each episode.
            score: ``(n,) float`` the learner's score in each episode (1 win, 0 loss).
        """
        ids = np.asarray(member_ids, dtype=np.int64)
        s = np.asarray(score, dtype=np.float64)
        if ids.ndim != 2 or ids.shape[0] != s.shape[0]:
            raise ValueError(f"member_ids must be (n, seats) and score (n,), got {ids.shape} and {s.shape}")
        M = len(self.members)
        present = np.zeros((ids.shape[0], M), dtype=bool)
        present[np.arange(ids.shape[0])[:, None], ids] = True
        self.games += present.sum(0)
        self.learner_score += (present * s[:, None]).sum(0)
        n = ids.shape[0]
        if self.decay == 1.0:
            self.recent_games += present.sum(0)
            self.recent_score += (present * s[:, None]).sum(0)
        else:  # episode i of this batch is followed by n - 1 - i later ones
            w = self.decay ** np.arange(n - 1, -1, -1, dtype=np.float64)
            self.recent_games = self.recent_games * self.decay**n + (present * w[:, None]).sum(0)
            self.recent_score = self.recent_score * self.decay**n + (present * (w * s)[:, None]).sum(0)

    def learner_win_rate(self, prior_games: float = 2.0, prior_rate: float = 0.5) -> np.ndarray:
        """``(M,) float64`` the learner's smoothed win rate against each member.

        ``(score + prior_games * prior_rate) / (games + prior_games)`` over the decayed record
        (see ``memory``): ``prior_rate`` for an unplayed member (use the fair share ``1 / P`` for
        ``P`` players).
        """
        return (self.recent_score + prior_games * prior_rate) / (self.recent_games + prior_games)
