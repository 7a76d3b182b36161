"""The search agent of every game: determinized information-set Monte-Carlo tree search (``mcts``).

``make_agent("mcts", game, seed)`` builds it with the game's default budget;
``"mcts:simulations=128,rollout=greedy"`` overrides settings (comma-separated ``key=value``, values
read as the arena reads ``--set`` values). Every game registers its defaults next to its
heuristics (:func:`register_search_agent`); any other game gets :class:`SearchSettings`'s.

How it searches (one :meth:`SearchAgent.act_state` call decides for a whole batch of rows):

* **Determinizations.** The agent never reads what its seat cannot see: before searching, every
  row is re-dealt ``determinizations`` times with the game's ``resample_hidden(state, seat,
  seed)`` hook (the seeds come from the agent's own generator), and the search only ever steps
  those re-dealt states. A game whose hook depends only on what ``seat`` sees (every shipped
  game's does) therefore gives the same decision for two states its seat cannot tell apart.
* **One tree per row, a determinization per simulation** (single-observer information-set MCTS,
  open loop): simulation ``k`` starts from determinization ``k % determinizations``; tree nodes
  are reached by action sequences, each decision keeps visit counts and summed values per action
  of the seat that chooses there, and a seat picks by UCB1 among the actions legal in the
  simulation's own determinization (``c`` scales the exploration term; an untried action goes
  first, ties are broken at random). Each simulation adds one decision node to the tree, then
  plays out with the ``rollout`` policy (``"random"``, or any agent name of the game, asked
  batched through ``act(obs, mask)``) for at most ``max_rollout_depth`` decisions.
* **Values.** A finished play-out is worth ``1 / k`` to each of its ``k`` winners and 0 to the
  others (``1 / P`` each when nobody won); one cut by ``max_rollout_depth`` is scored the same way
  with the leaders of the game's standing (``game.scores``) as the winners (``1 / P`` each for a
  game that keeps no score). With ``margin_weight = w > 0`` a value is ``(1 - w)`` times that
  plus ``w * sigmoid(margin / margin_scale)``, the margin being the seat's score minus the best
  other seat's. With ``evaluation="game"`` a cut play-out is worth the game's registered
  evaluation instead (:func:`register_search_evaluation`, e.g. a win-chance model of the position).
* **Root rule.** ``root="ucb"``: the root decision is a tree decision like any other.
  ``root="halving"``: sequential halving (Karnin et al. 2013; as an MCTS root rule, Pepels et al.
  2014): the root candidates (every legal move, or the prior agent's ``candidates`` best) get
  equal shares of the budget in rounds and the better-valued half goes on, down to two; a
  candidate's ``j``-th simulation starts from re-deal ``j % determinizations``, so candidates are
  compared on the same re-deals; the prior agent's move gets ``stick`` added to its mean (the
  search leaves it only for a clearly better one). ``max_tree_depth = d`` starts the play-out
  after ``d`` tree decisions (``1``: a flat Monte-Carlo search of the root's moves).
* **Simultaneous moves** (``spec.dynamics == "simultaneous"``): the core asks the seats of a tick
  one after another with the commits hidden. The search is decoupled: each seat of a tick chooses
  from its own statistics stored at the decision that opened the tick, so no seat's choice
  depends on what another seat committed in the same tick; the joint commits lead to the next
  decision node. Commits made before the root seat's turn are hidden, so they are whatever the
  game's ``resample_hidden`` puts in their place.
* **Batched.** The simulations run in waves: a wave is one simulation of every row, and all of
  its steps -- tree descent and play-out alike -- are batched steps of the core over the rows
  still running (a Python loop over waves and decisions of a wave, none over rows). Rows with a
  single legal action are answered without a search.
* **Decision.** The root action with the most visits (ties: the higher mean value, then the
  lower action index); with ``root="halving"`` the best-ranked surviving candidate (mean value,
  plus ``stick`` for the prior's move).

Budget per decision: exactly ``simulations`` simulations per searched row, each at most one
tree descent plus ``max_rollout_depth`` decisions; :attr:`SearchAgent.counts` counts decisions,
simulations and core row-steps (tests check the budget with it).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from agents.base import random_legal
from agents.registry import agent_factories, make_agent, register_agent

#: Name the search agent is registered under in every game that registers its defaults.
SEARCH_NAME = "mcts"
#: Prefix of a search agent with settings: ``"mcts:simulations=64,c=0.7"``.
SEARCH_PREFIX = "mcts:"
#: Values of the ``root`` setting (see :class:`SearchSettings`).
ROOT_RULES = ("ucb", "halving")
#: Values of the ``evaluation`` setting (see :class:`SearchSettings`).
EVALUATIONS = ("standing", "game")
#: Values of the ``focus`` setting (see :class:`SearchSettings`).
FOCUSES = ("all", "game")


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """Settings of :class:`SearchAgent` (the generic defaults; each game registers its own).

    Attributes:
        simulations: simulations per decision (per row searched); the simulation budget per move.
        determinizations: distinct re-deals of the hidden information per decision (simulation
            ``k`` uses re-deal ``k % determinizations``); at most ``simulations``.
        c: UCB1 exploration constant (values lie in ``[0, 1]``).
        rollout: play-out policy: ``"random"`` (uniform legal moves from the agent's generator)
            or the name of an agent of the game (e.g. a heuristic), asked batched.
        max_rollout_depth: decisions a play-out may take before it is scored by the standing
            (``0``: score the new node at once).
        prior: ``"none"`` (or ``None``: UCB1) or the name of an agent of the game whose choice guides the
            tree (PUCT): at every tree decision the seat's prior is ``1 - prior_mix`` on that
            agent's action plus ``prior_mix`` spread over the legal actions, so a small budget
            mostly checks the agent's move and leaves it only for a clearly better one.
        prior_mix: the uniform share of the prior (in ``(0, 1]``).
        chunk: rows searched together (bounds the tree's memory: ``chunk x nodes x actions``).
        root: how the root's simulations are shared out: ``"ucb"`` (the tree's own rule, UCB1 or
            PUCT, at the root too) or ``"halving"`` (sequential halving: the root candidates get
            equal shares of the budget in rounds, the better-valued half goes on after each round,
            down to two; each candidate's ``j``-th simulation starts from re-deal ``j %
            determinizations``, so the candidates are compared on the same re-deals).
        candidates: with ``root="halving"`` and a prior agent, the root actions searched: ``0`` every
            legal one, ``k`` the ``k`` best by the prior agent's ``scores(obs, mask)`` (it must have
            that method); ignored otherwise (every legal action).
        stick: with ``root="halving"`` and a prior agent, a bonus added to the mean value of the prior
            agent's move when candidates are ranked (halving and the final choice): the search leaves
            that move only for one whose value is more than ``stick`` higher (``0``: no bonus);
            ignored otherwise.
        margin_weight: the share of a play-out's value taken from its score margin (``0``: only
            who won): the seat's ``game.scores`` minus the best other seat's, squashed by
            ``sigmoid(margin / margin_scale)``; the rest is the win share as above.
        margin_scale: the score margin worth ``sigmoid(1)`` (positive).
        max_tree_depth: decisions a simulation takes in the tree before its play-out starts (``0``: no
            limit; ``1``: only the root is searched, a flat Monte-Carlo search over its actions).
        evaluation: how a play-out cut at ``max_rollout_depth`` is valued: ``"standing"`` (its
            leaders as the winners, as above) or ``"game"`` (the game's registered evaluation,
            :func:`register_search_evaluation`: a value in ``[0, 1]`` per seat).
        focus: the decisions searched: ``"all"`` or ``"game"`` (those the game's registered focus
            picks, :func:`register_search_focus`; the prior agent answers the others).
    """

    simulations: int = 64
    determinizations: int = 8
    c: float = 1.0
    rollout: str = "random"
    max_rollout_depth: int = 200
    prior: str = "none"
    prior_mix: float = 0.25
    chunk: int = 256
    root: str = "ucb"
    candidates: int = 0
    stick: float = 0.0
    margin_weight: float = 0.0
    margin_scale: float = 10.0
    max_tree_depth: int = 0
    evaluation: str = "standing"
    focus: str = "all"

    def __post_init__(self) -> None:
        if self.prior is None:  # ``prior=none`` in a spec reads as None
            object.__setattr__(self, "prior", "none")
        for name in ("simulations", "determinizations", "chunk"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"search setting {name} must be a positive int, got {v!r}")
        for name in ("max_rollout_depth", "max_tree_depth"):
            d = getattr(self, name)
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0:
                raise ValueError(f"search setting {name} must be an int >= 0, got {d!r}")
        if self.determinizations > self.simulations:
            raise ValueError(
                f"search setting determinizations ({self.determinizations}) must not exceed simulations "
                f"({self.simulations}): each re-deal needs a simulation"
            )
        if isinstance(self.c, bool) or not isinstance(self.c, (int, float)) or not math.isfinite(self.c) or self.c < 0:
            raise ValueError(f"search setting c must be a finite number >= 0, got {self.c!r}")
        if not isinstance(self.rollout, str) or not self.rollout:
            raise ValueError(f"search setting rollout must be 'random' or an agent name, got {self.rollout!r}")
        if not isinstance(self.prior, str) or not self.prior:
            raise ValueError(f"search setting prior must be 'none' or an agent name, got {self.prior!r}")
        mix = self.prior_mix
        if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not 0 < mix <= 1:
            raise ValueError(f"search setting prior_mix must be a number in (0, 1], got {mix!r}")
        if self.root not in ROOT_RULES:
            raise ValueError(f"search setting root must be one of {ROOT_RULES}, got {self.root!r}")
        k = self.candidates
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"search setting candidates must be an int >= 0, got {k!r}")
        for name in ("stick", "margin_weight"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"search setting {name} must be a finite number >= 0, got {v!r}")
        if self.margin_weight > 1:
            raise ValueError(f"search setting margin_weight must be in [0, 1], got {self.margin_weight!r}")
        ms = self.margin_scale
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not math.isfinite(ms) or ms <= 0:
            raise ValueError(f"search setting margin_scale must be a finite number > 0, got {ms!r}")
        if self.focus not in FOCUSES:
            raise ValueError(f"search setting focus must be one of {FOCUSES}, got {self.focus!r}")
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"search setting evaluation must be one of {EVALUATIONS}, got {self.evaluation!r}")

    @classmethod
    def names(cls) -> list[str]:
        """The setting names, in declaration order."""
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def build(cls, **settings: Any) -> SearchSettings:
        """Settings from keyword values; ``ValueError`` naming an unknown setting or a bad value."""
        unknown = sorted(set(settings) - set(cls.names()))
        if unknown:
            raise ValueError(f"unknown search settings {unknown}; known: {cls.names()}")
        return cls(**settings)


def _rows_of(s: Any, rows: np.ndarray) -> Any:
    """Rows ``rows`` of ``s`` (every row in order, or a subset): ``s`` itself when they are all of
    it, with no copy (a play-out's rows mostly are), else :meth:`~monkey_envs.core.state.BatchState.take`."""
    return s if rows.size == s.batch_size else s.take(rows)


class SearchAgent:
    """Determinized information-set MCTS over the game's core (see the module docstring).

    The agent extends the agent protocol (:mod:`agents.base`): it has ``needs_state = True`` and
    decides with :meth:`act_state`, which the arena, the single-agent driver (``opponent="mcts"``)
    and the play command call with the game state of the rows it must decide. Its ``act(obs,
    mask)`` refuses: observations alone cannot be searched.

    Args:
        game: the core game.
        seed: seeds the agent's generator (re-deal seeds, tie breaks, random play-outs).
        settings: :class:`SearchSettings`.

    Attributes:
        counts: ``{"decisions", "simulations", "steps"}``: rows decided (searched or not), simulations
            run and core row-steps taken by the search since construction.
    """

    name = SEARCH_NAME
    #: Marks an agent that decides from the game state (:meth:`act_state`), not from ``act``.
    needs_state = True
    #: Use the game's compiled play-out where it registers one (:func:`register_search_playout`);
    #: ``False`` plays out step by step (the reference the equivalence test compares with).
    _compiled_playouts = True

    def __init__(self, game: Any, seed: int = 0, settings: SearchSettings | None = None) -> None:
        self.game = game
        self.settings = settings if settings is not None else SearchSettings()
        self.rng = np.random.default_rng(seed)
        self.counts = {"decisions": 0, "simulations": 0, "steps": 0}
        self._rollout_agent = self._policy("rollout", "random", seed + 1)
        self._prior_agent = self._policy("prior", "none", seed + 2)
        self._simultaneous = bool(game.spec.simultaneous)
        self._playout = _GAME_PLAYOUTS.get(game.spec.name) if self._rollout_agent is not None else None
        self._evaluator = None
        if self.settings.evaluation == "game":
            self._evaluator = _GAME_EVALUATIONS.get(game.spec.name)
            if self._evaluator is None:
                raise ValueError(
                    f"search setting evaluation='game': {game.spec.name!r} registers no search evaluation "
                    "(register_search_evaluation)"
                )
        self._focus = None
        if self.settings.focus == "game":
            self._focus = _GAME_FOCUS.get(game.spec.name)
            if self._focus is None:
                raise ValueError(
                    f"search setting focus='game': {game.spec.name!r} registers no search focus (register_search_focus)"
                )
            if self._prior_agent is None:
                raise ValueError("search setting focus='game' needs a prior agent to answer the other decisions")
        halving = self.settings.root == "halving" and self._prior_agent is not None
        if halving and self.settings.candidates and not callable(getattr(self._prior_agent, "scores", None)):
            raise ValueError(
                f"search setting candidates={self.settings.candidates}: the prior agent {self.settings.prior!r} "
                "has no scores(obs, mask) method to rank the root actions by"
            )

    def _policy(self, setting: str, off: str, seed: int) -> Any:
        """The agent a setting names (``None`` for ``off``); it must act on observations."""
        name = getattr(self.settings, setting)
        if name == off:
            return None
        agent = make_agent(name, self.game, seed)
        if getattr(agent, "needs_state", False):
            raise ValueError(f"search setting {setting}={name!r}: the agent must act on observations")
        return agent

    # ------------------------------------------------------------------ the protocol
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Refused: the search needs the game state (see :meth:`act_state`)."""
        raise ValueError(
            f"agent {self.name!r} searches the game state: it is played through act_state(state, seats, obs, mask) "
            "(the arena, the single-agent driver and the play command call it), not act(obs, mask)"
        )

    def act_state(self, state: Any, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Decide for every row of ``state``.

        Args:
            state: the game's ``BatchState`` of exactly the ``n`` rows to decide (not modified;
                read only through ``resample_hidden``, which keeps what ``seats`` see).
            seats: ``(n,) int64`` the seat to decide for in each row (its ``current_player``).
            obs: ``(n, obs_dim) float32`` those seats' observations (unused by the search).
            mask: ``(n, A)`` bool their legal actions.

        Returns:
            ``(n,) int64`` actions, legal in every row with a legal action (0 in the others).

        Raises:
            ValueError: shapes that disagree, a seat that is not the row's current player, or a
                game whose ``resample_hidden`` cannot re-deal the state.
        """
        n = state.batch_size
        seats = np.asarray(seats)
        m = np.asarray(mask).astype(bool)
        if seats.shape != (n,) or seats.dtype.kind not in "iu":
            raise ValueError(f"seats must be ({n},) integers, got {seats.dtype} {seats.shape}")
        if m.shape != (n, self.game.num_actions):
            raise ValueError(f"mask must have shape ({n}, {self.game.num_actions}), got {m.shape}")
        seats = seats.astype(np.int64)
        live = m.any(1)
        if (seats[live] != state.current_player[live]).any():
            bad = np.flatnonzero(live & (seats != state.current_player))
            raise ValueError(f"seats {seats[bad[:5]].tolist()} are not the players to move in rows {bad[:5].tolist()}")
        self.counts["decisions"] += n
        out = np.zeros(n, dtype=np.int64)
        legal_count = m.sum(1)
        out[legal_count == 1] = m[legal_count == 1].argmax(1)
        todo = np.flatnonzero(legal_count > 1)  # forced moves need no search
        if self._focus is not None and todo.size:  # decisions the game leaves to the prior agent
            sub = state.take(todo)
            keep = np.asarray(self._focus(self.game, sub), dtype=bool)
            if keep.shape != (todo.size,):
                raise ValueError(f"the search focus of {self.game.spec.name!r} must return ({todo.size},) bools")
            left = np.flatnonzero(~keep)
            if left.size:
                rows = todo[left]
                obs_left = self.game.observe(sub.take(left), seats[rows])
                out[rows] = np.asarray(self._prior_agent.act(obs_left, m[rows]), dtype=np.int64)
            todo = todo[keep]
        if todo.size == 0:
            return out
        seeds = self.rng.integers(0, 2**62, size=self.settings.determinizations)
        step = self.settings.chunk
        for i in range(0, todo.size, step):  # a loop over blocks of rows (memory), each searched batched
            rows = todo[i : i + step]
            out[rows] = self._search(state.take(rows), seats[rows], seeds)
        return out

    # ------------------------------------------------------------------ determinizations
    def _determinize(self, state: Any, seats: np.ndarray, seeds: np.ndarray) -> list[Any]:
        """``len(seeds)`` re-deals of ``state`` (``n`` rows), row ``i`` from ``seats[i]``'s view."""
        groups = [(int(s), np.flatnonzero(seats == s)) for s in np.unique(seats)]
        order = np.concatenate([rows for _, rows in groups])
        back = np.argsort(order, kind="stable")
        dets = []
        for seed in seeds.tolist():
            parts = []
            for seat, rows in groups:
                sub = state if len(groups) == 1 else state.take(rows)
                new = self.game.resample_hidden(sub, seat, int(seed))
                if new is None:
                    raise ValueError(f"{self.game!r} cannot re-deal this state (resample_hidden returned None)")
                parts.append(new)
            det = parts[0] if len(parts) == 1 else type(parts[0]).concat(parts).take(back)
            dets.append(det)
        return dets

    # ------------------------------------------------------------------ the search
    def _search(self, state: Any, seats: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """Search ``n`` rows (each with at least two legal actions); their ``(n,) int64`` actions."""
        game, cfg = self.game, self.settings
        n, P, A = state.batch_size, int(game.num_players), int(game.num_actions)
        S = int(cfg.simulations)
        sim = self._simultaneous
        T = P if sim else 1  # statistics tables per decision node: one per seat when seats choose together
        max_nodes = 1 + S * (P if sim else 1)
        max_tables = 1 + S
        child = np.full((n, max_nodes, A), -1, dtype=np.int32)  # node -> action -> node
        table_of = np.zeros((n, max_nodes), dtype=np.int32)  # the decision node whose statistics a node uses
        n_nodes = np.ones(n, dtype=np.int32)
        n_tables = np.ones(n, dtype=np.int32)
        visits = np.zeros((n, max_tables, T, A), dtype=np.float32)
        value_sum = np.zeros((n, max_tables, T, A), dtype=np.float32)
        dets = self._determinize(state, seats, seeds)
        c = float(cfg.c)
        rows = np.arange(n)
        halving = _Halving(self, state, seats, S) if cfg.root == "halving" else None
        for w in range(S):
            if halving is None:
                det, root_act = dets[w % len(dets)], None
            else:
                det, root_act = halving.start(dets, visits[rows, 0, seats if sim else 0])
            path, value = self._simulate(det, child, table_of, n_nodes, n_tables, visits, value_sum, c, root_act)
            for r, tb, t, a, seat in path:  # one entry per row and decision of this wave: no repeats
                visits[r, tb, t, a] += 1.0
                value_sum[r, tb, t, a] += value[r, seat]
            if halving is not None:
                halving.update(visits[rows, 0, seats if sim else 0], value_sum[rows, 0, seats if sim else 0], w + 1)
        self.counts["simulations"] += n * S
        root = visits[rows, 0, seats if sim else 0]  # (n, A) the root seat's visits
        mean = value_sum[rows, 0, seats if sim else 0] / np.maximum(root, 1.0)
        if halving is not None:
            return halving.choice(root, mean)
        key = np.where(state.legal_action_mask, root + 0.5 * mean, -1.0)  # mean in [0, 1]: breaks ties only
        return key.argmax(1).astype(np.int64)

    def _simulate(
        self,
        det: Any,
        child: np.ndarray,
        table_of: np.ndarray,
        n_nodes: np.ndarray,
        n_tables: np.ndarray,
        visits: np.ndarray,
        value_sum: np.ndarray,
        c: float,
        root_act: np.ndarray | None = None,
    ) -> tuple[list[tuple[np.ndarray, ...]], np.ndarray]:
        """One wave: a simulation of every row from ``det``; grows the tree in place.

        ``root_act`` (``(n,) int64``, or ``None``: the tree's rule) fixes each row's root action.

        Returns:
            The path (one ``(rows, table, seat_table, action, seat)`` tuple per decision taken in
            the tree) and ``(n, P) float64`` each simulation's value for every seat.
        """
        game, cfg, rng = self.game, self.settings, self.rng
        n, P = det.batch_size, int(game.num_players)
        sim = self._simultaneous
        s = det.clone()
        live = np.arange(n)  # the row of each row of ``s``
        node = np.zeros(n, dtype=np.int64)
        in_tree = np.ones(n, dtype=bool)
        left = np.full(n, cfg.max_rollout_depth, dtype=np.int64)
        depth = np.zeros(n, dtype=np.int64)  # tree decisions taken (with max_tree_depth)
        value = np.full((n, P), 1.0 / P)
        path: list[tuple[np.ndarray, ...]] = []
        while live.size:
            cp = s.current_player.astype(np.int64)
            mask = s.legal_action_mask
            acts = np.zeros(live.size, dtype=np.int64)
            inside = np.flatnonzero(in_tree[live])
            if not inside.size and self._playout is not None and self._compiled_playouts:
                # every row is playing out: the game's compiled play-out, the same moves in one call
                steps = self._playout(game, self._rollout_agent, s, left[live])
                if steps is not None:
                    self.counts["steps"] += int(steps)
                    value[live] = self._values(s, s.terminated | s.truncated)
                    break
            outside = np.flatnonzero(~in_tree[live])
            movers = None
            if inside.size:
                r = live[inside]
                tb = table_of[r, node[r]]
                t = cp[inside] if sim else np.zeros(inside.size, dtype=np.int64)
                legal = mask[inside]
                if root_act is not None:  # the root decision of every row (the first pass), chosen outside
                    a = root_act[r]
                    if not legal[np.arange(a.size), a].all():
                        raise ValueError(
                            f"{game!r}: a re-deal changed the searching seat's own legal moves at the root "
                            "(resample_hidden must keep what the seat sees)"
                        )
                    root_act = None
                else:
                    N = visits[r, tb, t]
                    W = value_sum[r, tb, t]
                    total = np.where(legal, N, 0.0).sum(1, keepdims=True)
                    tried = N > 0
                    noise = 1e-6 * rng.random(N.shape)  # random tie breaks
                    if self._prior_agent is None:  # UCB1: an untried action first
                        ucb = W / np.maximum(N, 1.0) + c * np.sqrt(np.log(total + 1.0) / np.maximum(N, 1.0))
                        score = np.where(tried, ucb, 1e6)
                    else:  # PUCT around the prior agent's move; untried actions valued at the tried ones' mean
                        score = self._puct(s, cp, inside, legal, N, W, total, c)
                    a = np.where(legal, score + noise, -np.inf).argmax(1)
                acts[inside] = a
                path.append((r, tb, t, a, cp[inside]))
                if sim:
                    movers = game.movers(s)[inside]
            if outside.size:
                acts[outside] = self._rollout_actions(s, cp, mask, outside)
            game.step_inplace(s, acts)
            self.counts["steps"] += live.size
            if inside.size:
                r = live[inside]
                a = acts[inside]
                nxt = child[r, node[r], a].astype(np.int64)
                new = nxt < 0
                if new.any():
                    rn = r[new]
                    ids = n_nodes[rn].astype(np.int64)
                    n_nodes[rn] += 1
                    child[rn, node[rn], a[new]] = ids
                    if sim:  # still the same tick: the acting seat left the movers and nobody else changed
                        before = movers[new]
                        before[np.arange(rn.size), cp[inside][new]] = False
                        after = game.movers(s)[inside[new]]
                        same_tick = (after == before).all(1) & after.any(1)
                    else:
                        same_tick = np.zeros(rn.size, dtype=bool)
                    table_of[rn[same_tick], ids[same_tick]] = table_of[rn[same_tick], node[rn[same_tick]]]
                    opened = ~same_tick  # a new decision: its own statistics, and the play-out starts
                    ro = rn[opened]
                    table_of[ro, ids[opened]] = n_tables[ro]
                    n_tables[ro] += 1
                    in_tree[ro] = False
                    nxt[new] = ids
                node[r] = nxt
                if cfg.max_tree_depth:  # deep enough: the play-out starts
                    depth[r] += 1
                    in_tree[r[depth[r] >= cfg.max_tree_depth]] = False
            if outside.size:
                left[live[outside]] -= 1
            done = s.terminated | s.truncated
            cut = ~done & ~in_tree[live] & (left[live] <= 0)
            fin = done | cut
            if fin.any():
                f = np.flatnonzero(fin)
                value[live[f]] = self._values(s.take(f), done[f])
                keep = np.flatnonzero(~fin)
                s = s.take(keep)
                live = live[keep]
        return path, value

    def _puct(
        self,
        s: Any,
        cp: np.ndarray,
        rows: np.ndarray,
        legal: np.ndarray,
        N: np.ndarray,
        W: np.ndarray,
        total: np.ndarray,
        c: float,
    ) -> np.ndarray:
        """``(k, A)`` PUCT scores of the tree decisions in rows ``rows`` of ``s`` (prior from the prior agent)."""
        k, P = rows.size, int(self.game.num_players)
        mix = float(self.settings.prior_mix)
        obs = self.game.observe(_rows_of(s, rows), cp[rows])
        guide = np.asarray(self._prior_agent.act(obs, legal), dtype=np.int64)
        prior = mix * legal / np.maximum(legal.sum(1, keepdims=True), 1)
        prior[np.arange(k), guide] += 1.0 - mix
        tried = N > 0
        n_tried = (tried & legal).sum(1, keepdims=True)
        fpu = np.where(n_tried > 0, (W * legal).sum(1, keepdims=True) / np.maximum(total, 1.0), 1.0 / P)
        q = np.where(tried, W / np.maximum(N, 1.0), fpu)
        return q + c * prior * np.sqrt(total + 1.0) / (1.0 + N)

    def _rollout_actions(self, s: Any, cp: np.ndarray, mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The play-out policy's actions in rows ``rows`` of ``s``, ``(k,) int64``."""
        if self._rollout_agent is None:
            return random_legal(mask[rows], self.rng)
        obs = self.game.observe(_rows_of(s, rows), cp[rows])
        return np.asarray(self._rollout_agent.act(obs, mask[rows]), dtype=np.int64)

    def _values(self, s: Any, done: np.ndarray) -> np.ndarray:
        """``(k, P) float64`` values of finished (``done``) or cut play-outs (see the module docstring)."""
        P = int(self.game.num_players)
        win = self.game.winners(s).astype(bool)
        scores = self.game.scores(s)
        if scores is not None:
            lead = scores == scores.max(1, keepdims=True)
            win = np.where(done[:, None], win, lead)
        elif (~done).any():
            win = np.where(done[:, None], win, False)
        k = win.sum(1, keepdims=True)
        value = np.where(k > 0, win / np.maximum(k, 1), 1.0 / P)
        w = float(self.settings.margin_weight)
        if w > 0 and scores is not None:
            if P == 1:
                margin = scores
            else:  # each seat's score minus the best of the others'
                top2 = np.sort(scores, axis=1)[:, -2:]
                best_other = np.where(scores == top2[:, 1:], top2[:, :1], top2[:, 1:])
                margin = scores - best_other
            value = (1.0 - w) * value + w / (1.0 + np.exp(-margin / float(self.settings.margin_scale)))
        if self._evaluator is not None and (~done).any():
            cut = np.flatnonzero(~done)
            judged = np.asarray(self._evaluator(self.game, s.take(cut)), dtype=np.float64)
            if judged.shape != (cut.size, P) or not np.isfinite(judged).all():
                raise ValueError(
                    f"the search evaluation of {self.game.spec.name!r} must return ({cut.size}, {P}) finite values"
                )
            value[cut] = judged
        return value


class _Halving:
    """Sequential halving at the root (``root="halving"``) for the ``n`` rows of one search.

    Candidates (every legal root action, or the prior agent's best ``candidates``) share the
    budget in rounds: a round gives each candidate the same number of simulations, ``q =
    remaining // (rounds_left * k)`` (at least 1); then the better-valued half (rounded up) goes
    on, down to two, which share what is left. Within a round the candidate with the fewest
    visits goes next (ties: the prior agent's move first, then by the prior's scores with
    ``candidates``, else the lower action index), and its ``j``-th visit starts from re-deal ``j %
    D``. Candidates are ranked by their mean value plus ``stick`` for the prior agent's move; a
    candidate without a visit ranks last.

    Args:
        agent: the searching agent (settings, prior agent, game).
        state: the ``n`` root rows.
        seats: ``(n,) int64`` the searching seats.
        simulations: the budget per row.
    """

    def __init__(self, agent: SearchAgent, state: Any, seats: np.ndarray, simulations: int) -> None:
        cfg = agent.settings
        legal = state.legal_action_mask.astype(bool)
        n, A = legal.shape
        self.S = int(simulations)
        self.rows = np.arange(n)
        self.bonus = np.zeros((n, A))
        self.cand = legal.copy()
        self.first = np.broadcast_to(np.arange(A, dtype=np.float64), (n, A)).copy()  # who goes first among equals
        prior = agent._prior_agent
        if prior is not None:
            obs = agent.game.observe(state, seats)
            if cfg.candidates:
                sc = np.where(legal, np.asarray(prior.scores(obs, legal), dtype=np.float64), -np.inf)
                order = np.argsort(-sc, axis=1, kind="stable")  # best first, ties: the lower index
                rank = np.empty_like(order)
                rank[self.rows[:, None], order] = np.arange(A)[None, :]
                self.cand = legal & (rank < int(cfg.candidates))
                self.first = rank.astype(np.float64)
            move = np.asarray(prior.act(obs, legal), dtype=np.int64)
            self.first[self.rows, move] = -1.0  # the prior's move is searched first
            self.bonus[self.rows, move] = float(cfg.stick)
        self.target = np.zeros(n)
        self._set_targets(np.ones(n, dtype=bool), np.zeros(n), 0)
        self.pool: Any = None

    def _set_targets(self, rows: np.ndarray, visits_now: np.ndarray, done: int) -> None:
        """The cumulative visit count that ends the current round of ``rows`` (bool ``(n,)``)."""
        k = self.cand[rows].sum(1)
        rounds = np.ceil(np.log2(np.maximum(k, 2))).astype(np.int64)
        q = np.maximum(1, (self.S - done) // (rounds * np.maximum(k, 1)))
        self.target[rows] = np.where(k > 2, visits_now[rows] + q, np.inf)  # two (or fewer) left: they share the rest

    def start(self, dets: list[Any], root_visits: np.ndarray) -> tuple[Any, np.ndarray]:
        """The wave's start states (each row from its action's next re-deal) and root actions."""
        n = root_visits.shape[0]
        A = root_visits.shape[1]
        a = np.where(self.cand, root_visits * (A + 1) + self.first, np.inf).argmin(1)
        j = root_visits[self.rows, a].astype(np.int64) % len(dets)
        if len(dets) == 1:
            return dets[0], a
        if self.pool is None:
            self.pool = type(dets[0]).concat(dets)
        return self.pool.take(j * n + self.rows), a

    def rank(self, visits: np.ndarray, means: np.ndarray, rows: Any = slice(None)) -> np.ndarray:
        """``(k, A)`` the ranking value of the candidates of ``rows`` (``-inf`` elsewhere)."""
        return np.where(self.cand[rows], np.where(visits > 0, means + self.bonus[rows], -1.0), -np.inf)

    def update(self, root_visits: np.ndarray, root_values: np.ndarray, done: int) -> None:
        """After a wave: halve the candidates of the rows whose round is complete."""
        low = np.where(self.cand, root_visits, np.inf).min(1)
        k = self.cand.sum(1)
        full = (k > 2) & (low >= self.target)
        if not full.any():
            return
        r = np.flatnonzero(full)
        key = self.rank(root_visits[r], root_values[r] / np.maximum(root_visits[r], 1.0), r)
        order = np.argsort(-key, axis=1, kind="stable")
        pos = np.empty_like(order)
        pos[np.arange(r.size)[:, None], order] = np.arange(order.shape[1])[None, :]
        keep = np.maximum(2, (k[r] + 1) // 2)
        self.cand[r] = self.cand[r] & (pos < keep[:, None])
        self._set_targets(full, low, done)

    def choice(self, visits: np.ndarray, means: np.ndarray) -> np.ndarray:
        """``(n,) int64`` the best-ranked candidate of every row."""
        return self.rank(visits, means).argmax(1).astype(np.int64)


# ====================================================================== registration
#: Per game name, the settings its ``mcts`` agent is built with (over :class:`SearchSettings`'s).
_GAME_SETTINGS: dict[str, dict[str, Any]] = {}
#: Per game name, the position evaluation ``fn(game, state) -> (k, P) float64`` in ``[0, 1]`` used by
#: ``evaluation="game"`` (registered next to the game's heuristics).
_GAME_EVALUATIONS: dict[str, Any] = {}
#: Per game name, ``fn(game, state) -> (n,) bool``: the decisions ``focus="game"`` searches.
_GAME_FOCUS: dict[str, Any] = {}
#: Per game name, the compiled play-out ``fn(game, agent, state, left) -> steps | None``
#: (:func:`register_search_playout`).
_GAME_PLAYOUTS: dict[str, Any] = {}


def search_settings(game: Any, **overrides: Any) -> SearchSettings:
    """The settings of ``game``'s search agent: the generic defaults, the game's, then ``overrides``.

    Raises:
        ValueError: an unknown setting or a bad value.
    """
    agent_factories(game)  # loads the game's heuristics module, which registers its defaults
    return SearchSettings.build(**{**_GAME_SETTINGS.get(game.spec.name, {}), **overrides})


def make_search_agent(game: Any, seed: int = 0, **overrides: Any) -> SearchAgent:
    """A :class:`SearchAgent` for ``game`` with its default settings and ``overrides``."""
    return SearchAgent(game, seed, search_settings(game, **overrides))


def register_search_agent(game: str, **settings: Any) -> None:
    """Register ``mcts`` for the game named ``game`` with these default settings (from its heuristics module).

    Raises:
        ValueError: an unknown setting or a bad value.
    """
    SearchSettings.build(**settings)  # checked now, not at the first game
    _GAME_SETTINGS[game] = dict(settings)
    register_agent(SEARCH_NAME, make_search_agent, game=game)


def register_search_playout(game: str, playout: Any) -> None:
    """Register a compiled play-out for the game named ``game`` (from its heuristics module).

    ``playout(game, agent, state, left)`` plays every running row of ``state`` out in place with
    the rollout ``agent`` -- pass after pass, each running row with decisions left (``left (n,)
    int64``, decremented) moving by the agent's choice, until its game ends or its ``left``
    reaches 0 -- and returns the row-steps taken; or it returns ``None``, having done nothing,
    for an agent or a state it does not handle. It must make exactly the moves, and the draws
    from the agent's generator, of the search's own step-by-step play-out (``agent.act`` on the
    running rows in row order, then a step): the search uses it once every row of a wave is out
    of the tree, and decides as it would without it.

    Raises:
        ValueError: ``playout`` is not callable.
    """
    if not callable(playout):
        raise ValueError(f"a search play-out must be callable, got {playout!r}")
    _GAME_PLAYOUTS[game] = playout


def register_search_evaluation(game: str, evaluate: Any) -> None:
    """Register the position evaluation of the game named ``game`` for ``evaluation="game"``.

    ``evaluate(game, state)`` values the ``k`` rows of a running ``state`` (play-outs cut at
    ``max_rollout_depth``) for every seat: ``(k, P) float64`` in ``[0, 1]``, on the same scale
    as a finished play-out (1 a sure win). It must read only the state, not change it.

    Raises:
        ValueError: ``evaluate`` is not callable.
    """
    if not callable(evaluate):
        raise ValueError(f"a search evaluation must be callable, got {evaluate!r}")
    _GAME_EVALUATIONS[game] = evaluate


def register_search_focus(game: str, focus: Any) -> None:
    """Register the decisions that ``focus="game"`` searches in the game named ``game``.

    ``focus(game, state)`` gets the ``n`` rows to decide (each with at least two legal moves) and
    returns ``(n,) bool``: search the row; the prior agent answers the others. It must read only
    what the seat to move sees (e.g. the phase of the turn).

    Raises:
        ValueError: ``focus`` is not callable.
    """
    if not callable(focus):
        raise ValueError(f"a search focus must be callable, got {focus!r}")
    _GAME_FOCUS[game] = focus


def parse_search_spec(spec: str) -> dict[str, Any]:
    """The settings of ``"mcts:key=value,key=value"`` (values as the arena's ``--set``).

    Raises:
        ValueError: not a search spec, an entry without ``=``, or a repeated setting.
    """
    from agents.arena import parse_value  # the arena's reading of option values

    if not spec.startswith(SEARCH_PREFIX):
        raise ValueError(f"a search agent spec starts with {SEARCH_PREFIX!r}, got {spec!r}")
    out: dict[str, Any] = {}
    body = spec[len(SEARCH_PREFIX) :]
    for item in body.split(",") if body else []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"search agent spec {spec!r}: expected key=value entries, got {item!r}")
        if key in out:
            raise ValueError(f"search agent spec {spec!r}: setting {key!r} given twice")
        out[key] = parse_value(value.strip())
    return out


def make_search_from_spec(spec: str, game: Any, seed: int = 0) -> SearchAgent:
    """The factory of ``"mcts:..."`` names (the registry routes the prefix here)."""
    return make_search_agent(game, seed, **parse_search_spec(spec))


__all__ = [
    "SEARCH_NAME",
    "SEARCH_PREFIX",
    "SearchAgent",
    "SearchSettings",
    "make_search_agent",
    "make_search_from_spec",
    "parse_search_spec",
    "register_search_agent",
    "register_search_evaluation",
    "register_search_focus",
    "register_search_playout",
    "search_settings",
]
