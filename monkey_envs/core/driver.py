"""The batched single-agent driver behind every gymnasium / SB3 face (written once, any game).

``B`` games of one :class:`~monkey_envs.core.game.Game` run side by side. In each row one seat
is the *learner* (random per episode, or fixed); every other seat is played by an opponent
agent **inside** :meth:`SingleAgentDriver.step`, on the whole batch at once: after the
learner's action the driver loops "rows where an opponent is to move -> ask the opponents ->
step those rows" until every row is back at a learner decision or over. The loop runs over
*moves*, never over rows. A game with a fused in-place step has each pass step the whole batch
in place, the rows awaiting the learner frozen (no row copies); agents of one family (a class
with ``act_jointly(parts)``, e.g. compiled heuristics) answer all their members of a pass in
one call. Both give exactly the moves of the plain take / step / put pass with one ``act`` per
member (``tests/test_driver_frozen_passes.py``).

Reward of a step = the learner's reward for its own action plus for all opponent replies up to
its next decision (rewards before an episode's first learner decision are added to the first
step's reward).

Seeding and batch invariance: row ``i`` of a driver reset with row seeds ``seeds`` replays
exactly like a driver with one row reset with ``seeds[i]`` (the faces pass ``s + i`` for an
int seed ``s``): game seeds and learner seats come from the row's own
:class:`~monkey_envs.core.faces.EpisodeStream`, the built-in ``"random"`` opponent draws from
the row's own counter-based RNG, and autoreset starts the row's next episode from its stream.
Agent objects (and named agents other than ``"random"``) act on whole batches; rows stay
batch-invariant when such an agent's action in a row depends only on that row's observation
and mask (deterministic agents).

Opponents: one agent for every other seat, one per seat, or an
:class:`~monkey_envs.core.opponents.OpponentPool` from which every episode of every row draws a
member per opponent seat (heuristic mixes, self-play snapshot pools); the draws come from the
row's own stream, and each finished episode is added to the pool's record of the learner against
its members. ``info["seat_agents"]`` tells who played each seat: ``(P,) int64``, ``-1`` the learner,
else an index into :attr:`SingleAgentDriver.member_names` (:meth:`SingleAgentDriver.seat_agents`
gives the names). ``learner_actions`` restricts
the learner to one of ``game.action_filters()`` (e.g. Funky Monkey's ``"honest"``, for ablations).

A search agent (``needs_state = True``, e.g. ``opponent="mcts"``) is asked
``act_state(state, seats, obs, mask)`` with the state of exactly the rows it must decide
(:func:`~monkey_envs.core.opponents.needs_state`); it is never joined to another agent's call.

Illegal learner actions: ``illegal_action="raise"`` (default) raises the core's ``ValueError``
and changes nothing; ``"lose"`` ends the offending rows' episodes as a loss
(``game.spec.reward_range[0]``, ``terminated``, ``info["illegal_action"] = True``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from monkey_envs.core.faces import EpisodeStream, check_game_options, entropy_seed
from monkey_envs.core.game import Game, as_seeds, check_actions
from monkey_envs.core.opponents import OpponentPool, ask_agent, check_agent_actions, member_name, resolve_agent
from monkey_envs.core.registry import resolve_game
from monkey_envs.core.rng import draw_uniform, seed_rng
from monkey_envs.core.state import BatchState

if TYPE_CHECKING:
    from monkey_envs.core.pictures import Picture

#: Salt of the built-in random opponent's per-row stream (independent of game and episode streams).
_OPPONENT_SALT = np.uint64(0x8CB92BA72F3D8DD7)
#: Salt of the per-row stream that draws opponents from a pool.
_PICK_SALT = np.uint64(0x4F1BBCDCBFA53E0B)
#: Safety bound on opponent moves in a row before the learner's turn comes back.
MAX_OPPONENT_MOVES = 100_000
#: Safety bound on fresh episodes in a row that end before the learner's first decision.
MAX_SKIPPED_EPISODES = 1_000
ILLEGAL_ACTION_POLICIES = ("raise", "lose")


def _pick_rng(seeds: np.ndarray) -> np.ndarray:
    """Per-row stream that draws pool members (independent of the game's and the episodes')."""
    rng = seed_rng(as_seeds(seeds))
    rng[:, 0] ^= _PICK_SALT
    return rng


class RowRandomOpponent:
    """The ``"random"`` opponent: a uniformly random legal move drawn from the row's own stream.

    Unlike :class:`agents.RandomAgent` (one generator for the whole batch), each row draws from
    its own counter-based RNG, so a row's opponent moves do not depend on the batch size.
    """

    name = "random"

    def __init__(self, seeds: np.ndarray) -> None:
        self.rng = seed_rng(as_seeds(seeds))
        self.rng[:, 0] ^= _OPPONENT_SALT

    def act_rows(self, mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(n,) int64`` random legal actions for ``mask (n, A) bool`` of batch rows ``rows (n,)``."""
        u = draw_uniform(self.rng, rows, mask.shape[1])
        u[~mask] = -1.0
        return u.argmax(1).astype(np.int64)


def learner_score(info: dict[str, Any]) -> float:
    """The learner's score of a finished episode: 1 for a win, ``1 / k`` shared by ``k``, else 0.

    ``info`` is a final info: ``winners (P,) bool``, ``learner_seat`` and ``illegal_action``.
    """
    winners = np.asarray(info.get("winners", ()), dtype=bool)
    seat = int(info["learner_seat"])
    if info.get("illegal_action") or not 0 <= seat < winners.size or not winners[seat]:
        return 0.0
    return 1.0 / int(winners.sum())


@dataclasses.dataclass
class DriverStep:
    """What :meth:`SingleAgentDriver.step` returns (``B`` rows, ``D`` obs size, ``A`` actions).

    Attributes:
        obs: ``(B, D) float32`` learner's observation -- for rows that finished this step and
            were autoreset, the first observation of the next episode.
        reward: ``(B,) float32`` learner's reward over its action and the opponents' replies.
        terminated: ``(B,) bool`` the episode ended by the rules (or by an illegal move with
            ``illegal_action="lose"``).
        truncated: ``(B,) bool`` the episode was cut short.
        mask: ``(B, A) bool`` learner's legal actions in ``obs`` (the state's array; read-only use).
        final_rows: ``(n,) int64`` rows whose episode ended this step.
        final_obs: ``(n, D) float32`` learner's observation of those rows' terminal states.
        final_info: ``n`` dicts: ``game.episode_info`` (numeric, fixed shapes: ``end_reason``
            int code, ``winners (P,) bool``, ...) plus ``learner_seat`` (int), ``illegal_action``
            (bool: the learner forfeited by an illegal move) and ``seat_agents`` (``(P,) int64``:
            -1 the learner, else an index into ``member_names``).
    """

    obs: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    mask: np.ndarray
    final_rows: np.ndarray
    final_obs: np.ndarray
    final_info: list[dict[str, Any]]


OpponentSpec = Any  # a name ("random", "greedy", ...) or an object with act(obs, mask)


class SingleAgentDriver:
    """``B`` games of one game; the learner plays one seat per row, opponents the others.

    Args:
        game: the game (any :class:`~monkey_envs.core.game.Game`).
        num_envs: batch size ``B`` (>= 1).
        opponent: one opponent for every other seat -- a name (``"random"`` is the
            batch-invariant :class:`RowRandomOpponent`; other names go to the installed agent
            library, :func:`~monkey_envs.core.opponents.resolve_agent`), a factory
            ``factory(game, seed)`` or an object with ``act(obs, mask)`` -- or a list of
            ``P - 1`` of those, entry ``k`` playing the ``k``-th seat after the learner in turn
            order (seat ``(learner + 1 + k) % P``), or an
            :class:`~monkey_envs.core.opponents.OpponentPool` (each opponent seat draws a member
            per episode). Ignored for one-player games.
        learner_seat: fixed learner seat, or ``None`` for a random seat per episode and row.
        autoreset: start a row's next episode in the same step its episode ends (vector faces);
            ``False`` leaves finished rows until :meth:`reset` (single-env faces).
        illegal_action: ``"raise"`` or ``"lose"`` (see the module docstring).
        learner_actions: ``None``, or the name of one of ``game.action_filters()`` (e.g.
            Funky Monkey's ``"honest"``): the learner's mask is the legal mask restricted to
            those actions, and any other action counts as illegal (ablations).

    Raises:
        ValueError: a bad batch size, seat, opponent list, policy name or action filter.
    """

    def __init__(
        self,
        game: Game,
        num_envs: int,
        opponent: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_seat: int | None = None,
        autoreset: bool = True,
        illegal_action: str = "raise",
        learner_actions: str | None = None,
    ) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"game must be a Game object, got {game!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}")
        self.game = game
        self.num_envs = int(num_envs)
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        if learner_seat is not None:
            if isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)):
                raise ValueError(f"learner_seat must be an int or None, got {learner_seat!r}")
            if not 0 <= learner_seat < self.num_players:
                raise ValueError(f"learner_seat must be in [0, {self.num_players}), got {learner_seat}")
            learner_seat = int(learner_seat)
        self.learner_seat = learner_seat
        self.autoreset = bool(autoreset)
        self.illegal_action = illegal_action
        self.loss_reward = np.float32(game.spec.reward_range[0])

        B = self.num_envs
        #: ``(B,) int64`` the learner's seat in each row's current episode.
        self.seat = np.zeros(B, dtype=np.int64)
        #: The batch's core State (``None`` before the first :meth:`reset`).
        self.state: BatchState | None = None
        self._pending = np.zeros(B, dtype=np.float32)
        self._forfeited = np.zeros(B, dtype=bool)
        self._stream: EpisodeStream | None = None
        self._agent_seed = 0
        self._random = RowRandomOpponent(np.zeros(B, dtype=np.int64))
        self._pick_rng = _pick_rng(np.zeros(B, dtype=np.int64))
        #: ``(B, P - 1) int64`` the member (index into the fixed opponents or the pool) playing
        #: the ``k``-th seat after the learner in each row's current episode.
        self._choice = np.zeros((B, max(self.num_players - 1, 0)), dtype=np.int64)
        self._normalize_opponents(opponent)
        self._build_agents()
        self._choice[:] = self._fixed if self._fixed is not None else 0
        self._allowed = None if learner_actions is None else game.action_filter(learner_actions)
        self.learner_actions = learner_actions

    # ================================================================== opponents
    def _normalize_opponents(self, opponent: OpponentSpec | Sequence[OpponentSpec] | OpponentPool) -> None:
        """Set the members the opponent seats draw from (``self._members``), the pool (or
        ``None``) and, for fixed opponents, each seat's member (``self._fixed``)."""
        n = self.num_players - 1
        if isinstance(opponent, OpponentPool):
            self._pool = opponent
            self._members = opponent.members  # the pool's own list: members added later are seen
            self._fixed = None
            return
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != n:
                raise ValueError(
                    f"a list of opponents needs one entry per other seat ({n} for {self.num_players} players), "
                    f"got {len(opponent)}"
                )
            specs = list(opponent)
        else:
            specs = [opponent] * n
        for s in specs:
            if not (isinstance(s, str) or hasattr(s, "act") or callable(s)):
                raise ValueError(
                    f"an opponent must be an agent name, a factory(game, seed) or an object with act(obs, mask), got {s!r}"
                )
        members: list[Any] = []
        keys: list[Any] = []
        fixed = np.zeros(max(n, 1), dtype=np.int64)
        for k, spec in enumerate(specs):
            key = spec if isinstance(spec, str) else id(spec)
            if key not in keys:
                keys.append(key)
                members.append(spec)
            fixed[k] = keys.index(key)
        self._pool = None
        self._members = members
        self._fixed = fixed[:n]

    def _agent(self, m: int) -> Any:
        """The built agent of member ``m`` (names are built once, with the driver's agent seed)."""
        agent = self._built.get(m)
        if agent is None:
            spec = self._members[m]
            if isinstance(spec, str) and spec == "random":
                agent = self._random
            else:
                agent = resolve_agent(spec, self.game, self._agent_seed)
            self._built[m] = agent
        return agent

    def _build_agents(self) -> None:
        """(Re)build the named members now, so a bad name fails at construction / ``set_opponent``."""
        self._built: dict[int, Any] = {}
        for m in range(len(self._members)):
            self._agent(m)

    def _choose_opponents(self, rows: np.ndarray) -> None:
        """Set the member of every opponent seat of ``rows`` for their new episodes."""
        if self._pool is None:
            self._choice[rows] = self._fixed
            return
        u = draw_uniform(self._pick_rng, rows, max(self.num_players - 1, 1))[:, : self.num_players - 1]
        self._choice[rows] = self._pool.sample(u)

    def set_opponent(self, opponent: OpponentSpec | Sequence[OpponentSpec] | OpponentPool) -> None:
        """Replace the opponent(s) from now on (e.g. a newer policy in self-play).

        Fixed opponents take effect at the next opponent move (episodes in progress continue
        with them); with a pool, every row draws its members at once (episodes in progress
        continue against them) and again at each episode start. Accepts the same forms as the
        constructor's ``opponent``.
        """
        self._normalize_opponents(opponent)
        self._build_agents()
        if self._pool is None:
            self._choice[:] = self._fixed
        elif self.state is not None:  # episodes in progress continue against freshly drawn members
            self._choose_opponents(np.arange(self.num_envs))

    @property
    def pool(self) -> OpponentPool | None:
        """The :class:`~monkey_envs.core.opponents.OpponentPool` the opponents are drawn from, if any."""
        return self._pool

    @property
    def opponents(self) -> list[Any]:
        """Fixed opponents: the ``P - 1`` agents, entry ``k`` playing the ``k``-th seat after the
        learner. With a pool: the agents of row 0's current episode."""
        return [self._agent(int(m)) for m in self._choice[0]]

    @property
    def member_names(self) -> list[str]:
        """Names of the opponent members: ``info["seat_agents"]`` code ``m`` is ``member_names[m]``.

        With a pool, its names (members added later are appended); with fixed opponents, each
        distinct agent's name (the list changes with :meth:`set_opponent`).
        """
        if self._pool is not None:
            return list(self._pool.names)
        return [member_name(spec) for spec in self._members]

    def seat_members(self, row: int) -> np.ndarray:
        """``(P,) int64`` who plays each seat of row ``row``'s episode: ``-1`` the learner, else an
        index into :attr:`member_names` (numeric, for infos)."""
        P = self.num_players
        codes = np.full(P, -1, dtype=np.int64)
        seat = int(self.seat[row])
        for k, m in enumerate(self._choice[row].tolist()):
            codes[(seat + 1 + k) % P] = m
        return codes

    def seat_agents(self, row: int) -> list[str]:
        """Names of who plays each seat of row ``row``'s episode (``"learner"`` at the learner's seat)."""
        names = self.member_names
        return ["learner" if m < 0 else names[m] for m in self.seat_members(row).tolist()]

    def _opponent_actions(self, sub: BatchState, rows: np.ndarray) -> np.ndarray:
        """Actions of the opponents to move in ``sub`` (the batch rows ``rows``), ``(n,) int64``."""
        cps = sub.current_player.astype(np.int64)
        return self._actions_of(
            cps, sub.legal_action_mask, rows, lambda: self.game.observe(sub, cps), lambda sel: sub.take(sel)
        )

    def _actions_of(
        self, cps: np.ndarray, mask: np.ndarray, rows: np.ndarray, observe: Any, rows_state: Any
    ) -> np.ndarray:
        """Actions of the opponents to move in batch rows ``rows``, ``(n,) int64``.

        Args:
            cps: ``(n,) int64`` the seat to move in each of those rows; mask: ``(n, A) bool``
                their legal actions; observe: ``observe() -> (n, D) float32`` their
                observations from those seats (called once, only if an agent needs them);
                rows_state: ``rows_state(sel) -> BatchState`` the state of the rows ``sel``
                (indices into the ``n``), called only for an agent that decides from the state
                (:func:`~monkey_envs.core.opponents.needs_state`: a search agent).
        """
        n = rows.size
        acts = np.zeros(n, dtype=np.int64)
        if len(self._members) == 1:
            groups: list[tuple[int, Any]] = [(0, slice(None))]
        else:
            mid = self._choice[rows, (cps - self.seat[rows] - 1) % self.num_players]
            groups = [(int(m), np.flatnonzero(mid == m)) for m in np.unique(mid)]
        obs = None
        asked: list[tuple[Any, Any]] = []
        for m, sel in groups:
            agent = self._agent(m)
            if agent is self._random:
                acts[sel] = agent.act_rows(mask[sel], rows[sel])  # legal by construction
            else:
                asked.append((agent, sel))
        if asked:
            obs = observe()
            joint = {getattr(type(agent), "act_jointly", None) for agent, _ in asked}
            if self._joint_acts and len(asked) > 1 and len(joint) == 1 and None not in joint:
                # one family of agents acting for all its members at once (same actions as one
                # act() per member, in this order: see the agent's act_jointly)
                raw = joint.pop()([(agent, obs[sel], mask[sel]) for agent, sel in asked])
            else:
                full = np.arange(n)
                raw = [
                    ask_agent(
                        agent,
                        obs[sel],
                        mask[sel],
                        lambda sel=sel: (rows_state(full[sel]), cps[sel]),
                    )
                    for agent, sel in asked
                ]
            for (agent, sel), r in zip(asked, raw, strict=True):
                # the agent contract's one check (shared with the arena): floats, bools, strings,
                # another shape, out-of-range or illegal actions are refused naming the agent
                acts[sel] = check_agent_actions(r, mask[sel], member_name(agent), rows[sel])
        return acts

    def _play_opponents(self, state: BatchState) -> np.ndarray:
        """Let opponents move (in place on ``state``) until each row awaits the learner or is over.

        Each pass asks the opponents of every row where one is to move (grouped by member, rows
        in batch order) and applies their moves. A game with a fused in-place step
        (:attr:`Game.fused_step <monkey_envs.core.game.Game.fused_step>`) steps the whole batch
        in place with the other running rows frozen (marked finished for that one call, which
        the step leaves alone); other games step the rows taken out (``take`` / ``put``). Both
        give the same moves, states and rewards (``tests/test_driver_frozen_passes.py``).

        Returns:
            ``(B,) float32`` learner's rewards collected during these moves.
        """
        if self.game.fused_step and self._frozen_passes:
            return self._play_opponents_frozen(state)
        reward = np.zeros(self.num_envs, dtype=np.float32)
        for _ in range(MAX_OPPONENT_MOVES):
            cp = state.current_player
            rows = np.flatnonzero((cp >= 0) & (cp != self.seat))
            if rows.size == 0:
                return reward
            sub = state.take(rows)
            sub = self.game.step(sub, self._opponent_actions(sub, rows))
            state.put(rows, sub)
            reward[rows] += sub.rewards[np.arange(rows.size), self.seat[rows]]
        raise RuntimeError(f"opponents made {MAX_OPPONENT_MOVES} moves in a row without the learner's turn coming back")

    #: Let one family of agents act for all its members of a pass in one call (``act_jointly``);
    #: ``False`` asks each member on its own (the reference the equivalence tests compare with).
    _joint_acts = True
    #: Step opponents' passes on the whole batch with the other rows frozen (fused-step games);
    #: ``False`` takes the rows out instead (the reference the equivalence tests compare with).
    _frozen_passes = True

    def _play_opponents_frozen(self, state: BatchState) -> np.ndarray:
        """:meth:`_play_opponents` for fused-step games: whole-batch in-place passes, no row copies.

        The rows where the learner is to move are marked truncated for the duration of each
        step call (a fused step advances running rows only and ignores the others' actions) and
        unmarked after it. The step zeroes every row's rewards; each row gets back the rewards
        of the last move applied to it, as the take / put passes leave them.
        """
        B = self.num_envs
        reward = np.zeros(B, dtype=np.float32)
        cp = state.current_player
        opp = (cp >= 0) & (cp != self.seat)
        if not opp.any():
            return reward
        last_rewards = state.rewards.copy()
        acts = np.zeros(B, dtype=np.int64)
        truncated = state.truncated
        for _ in range(MAX_OPPONENT_MOVES):
            rows = np.flatnonzero(opp)
            if rows.size == 0:
                state.rewards[...] = last_rewards
                return reward
            cps = cp[rows].astype(np.int64)
            acts[:] = 0
            acts[rows] = self._actions_of(
                cps,
                state.legal_action_mask[rows],
                rows,
                lambda opp=opp, cp=cp, rows=rows: self.game.observe(state, np.where(opp, cp, 0).astype(np.int64))[rows],
                lambda sel, rows=rows: state.take(rows[sel]),
            )
            frozen = np.flatnonzero((cp >= 0) & ~opp)  # running rows where the learner is to move
            truncated[frozen] = True
            try:
                self.game._step_inplace(state, acts)
            finally:
                truncated[frozen] = False
            last_rewards[rows] = state.rewards[rows]
            reward[rows] += state.rewards[rows, self.seat[rows]]
            cp = state.current_player
            opp = (cp >= 0) & (cp != self.seat)
        raise RuntimeError(f"opponents made {MAX_OPPONENT_MOVES} moves in a row without the learner's turn coming back")

    # ================================================================== episodes
    def reset(self, seeds: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every row.

        Args:
            seeds: ``(B,)`` non-negative row seeds (re-seeds every stream, and rebuilds named
                opponents with seed ``seeds[0]``), or ``None`` to continue each row's stream
                (the first unseeded reset draws a seed from OS entropy).

        Returns:
            ``obs (B, D) float32`` (learner's view) and ``mask (B, A) bool``.
        """
        if seeds is not None:
            seeds = as_seeds(seeds)
            if seeds.shape != (self.num_envs,):
                raise ValueError(f"seeds must have shape ({self.num_envs},), got {seeds.shape}")
            self._seed(seeds)
        elif self._stream is None:
            self._seed(entropy_seed() + np.arange(self.num_envs, dtype=np.int64))
        self._pending[:] = 0.0
        self._forfeited[:] = False
        self.state = None
        self._start_episodes(np.arange(self.num_envs))
        return self.observe(), self.mask

    def _seed(self, seeds: np.ndarray) -> None:
        self._stream = EpisodeStream(seeds)
        self._random = RowRandomOpponent(seeds)
        self._pick_rng = _pick_rng(seeds)
        self._agent_seed = int(seeds[0])
        self._build_agents()

    def _start_episodes(self, rows: np.ndarray) -> None:
        """Start the next episode of ``rows`` from their streams and play up to the learner's turn."""
        pending = rows
        for _ in range(MAX_SKIPPED_EPISODES):
            game_seeds, seats = self._stream.next(pending, self.num_players)
            if self.learner_seat is not None:
                seats[:] = self.learner_seat
            if self.state is None:
                self.state = self.game.init(game_seeds)
            else:  # in place: a compiled game deals straight into the rows
                self.game.reset_rows(self.state, pending, game_seeds)
            self.seat[pending] = seats
            self._forfeited[pending] = False
            self._choose_opponents(pending)
            early = self._play_opponents(self.state)
            self._pending[pending] += early[pending]
            over = self.state.terminated[pending] | self.state.truncated[pending]
            if not over.any():
                return
            pending = pending[over]  # ended before the learner's first decision: skip the episode
            self._pending[pending] = 0.0
        raise RuntimeError(f"{MAX_SKIPPED_EPISODES} episodes in a row ended before the learner's first move")

    def observe(self) -> np.ndarray:
        """``(B, D) float32`` the learner's observation in every row."""
        if self.state is None:
            raise ValueError("call reset() before observing")
        return self.game.observe(self.state, self.seat)

    @property
    def mask(self) -> np.ndarray:
        """``(B, A) bool`` the learner's legal actions (the live state's array; do not modify)."""
        if self.state is None:
            raise ValueError("call reset() before asking for action masks")
        if self._allowed is None:
            return self.state.legal_action_mask
        return self.state.legal_action_mask & self._allowed

    @property
    def done(self) -> np.ndarray:
        """``(B,) bool`` rows whose episode is over (only possible with ``autoreset=False``)."""
        if self.state is None:
            return np.zeros(self.num_envs, dtype=bool)
        return self.state.terminated | self.state.truncated

    # ================================================================== step
    def _checked_actions(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(B,) int64`` actions and ``(B,) bool`` rows that forfeit (``illegal_action="lose"``)."""
        s = self.state
        arr = np.asarray(actions)
        if arr.shape == () and self.num_envs == 1:
            arr = arr.reshape(1)
        if self.illegal_action == "raise" or arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            acts = check_actions(s, arr, self.num_actions)
            if self._allowed is not None and not self._allowed[acts].all():
                bad = np.flatnonzero(~self._allowed[acts])
                raise ValueError(
                    f"actions {acts[bad[:5]].tolist()} in rows {bad[:5].tolist()} are not allowed by "
                    f"learner_actions={self.learner_actions!r}"
                )
            return acts, np.zeros(self.num_envs, dtype=bool)
        arr = arr.astype(np.int64)
        in_range = (arr >= 0) & (arr < self.num_actions)
        legal = in_range & self.mask[np.arange(self.num_envs), np.clip(arr, 0, self.num_actions - 1)]
        return np.where(legal, arr, 0), ~legal

    def _forfeit(self, state: BatchState, rows: np.ndarray) -> None:
        """End ``rows`` as a loss of the learner (in place; ``state`` is a fresh copy; the reward
        is set by :meth:`step`)."""
        state.terminated[rows] = True
        state.legal_action_mask[rows] = False
        state.current_player[rows] = -1
        self._forfeited[rows] = True

    def step(self, actions: Any, hold: np.ndarray | None = None) -> DriverStep:
        """Apply the learner's actions, let the opponents reply, autoreset finished rows.

        Args:
            actions: ``(B,)`` integers (a scalar when ``B == 1``), legal for the learner.
            hold: ``None`` or ``(B,) bool`` rows that sit this step out (a vector face's
                next-step autoreset): their action is ignored (any integer), their state and
                pending reward stay as they are, their reward is 0 and they do not end.

        Returns:
            A :class:`DriverStep`.

        Raises:
            ValueError: before :meth:`reset`, a row already over (``autoreset=False``), a
                wrong shape/dtype, or (``illegal_action="raise"``) an out-of-range or illegal
                action -- nothing changes then.
        """
        if self.state is None:
            raise ValueError("call reset() before step()")
        if self.done.any():
            raise ValueError(f"episodes of rows {np.flatnonzero(self.done)[:10].tolist()} are over; call reset() first")
        held = np.zeros(0, dtype=np.int64)
        if hold is not None:
            hold = np.asarray(hold, dtype=bool)
            if hold.shape != (self.num_envs,):
                raise ValueError(f"hold must have shape ({self.num_envs},), got {hold.shape}")
            held = np.flatnonzero(hold)
        arr = np.asarray(actions)
        if held.size and arr.shape == (self.num_envs,) and np.issubdtype(arr.dtype, np.integer):
            actions = arr.astype(np.int64)  # a copy: held rows get a legal stand-in (stepped, then undone)
            actions[held] = self.mask[held].argmax(1)
        acts, forfeit = self._checked_actions(actions)
        ar = np.arange(self.num_envs)
        if forfeit.any():
            start = self.state.clone()
            self._forfeit(start, np.flatnonzero(forfeit))
        else:
            start = self.state
        state = self.game.step(start, acts)  # raises ValueError (state unchanged) on bad actions
        if held.size:
            state.put(held, self.state.take(held))  # undone: the held rows sat the step out
        reward = state.rewards[ar, self.seat] + self._pending
        reward += self._play_opponents(state)  # held rows wait for the learner: no opponent moves
        if forfeit.any():
            reward[forfeit] = self.loss_reward + self._pending[forfeit]
        kept = self._pending[held].copy()
        reward[held] = 0.0
        self._pending[:] = 0.0
        self._pending[held] = kept
        terminated = state.terminated.copy()
        truncated = state.truncated.copy()
        final_rows = np.flatnonzero(terminated | truncated)
        self.state = state
        if final_rows.size:
            fin = state.take(final_rows)
            final_obs = self.game.observe(fin, self.seat[final_rows])
            final_info = [self._final_info(fin, j, int(r)) for j, r in enumerate(final_rows)]
            if self._pool is not None and self.num_players > 1:
                self._pool.record(self._choice[final_rows], np.array([learner_score(i) for i in final_info]))
            if self.autoreset:
                self._start_episodes(final_rows)
        else:
            final_obs = np.zeros((0, self.game.obs_dim), dtype=np.float32)
            final_info = []
        return DriverStep(
            obs=self.observe(),
            reward=reward.astype(np.float32),
            terminated=terminated,
            truncated=truncated,
            mask=self.mask,
            final_rows=final_rows,
            final_obs=final_obs,
            final_info=final_info,
        )

    def _final_info(self, fin: BatchState, j: int, row: int) -> dict[str, Any]:
        info = dict(self.game.episode_info(fin, j))
        info["learner_seat"] = int(self.seat[row])
        info["seat_agents"] = self.seat_members(row)  # (P,) codes: -1 learner, else member_names[code]
        info["illegal_action"] = bool(self._forfeited[row])  # always there: infos keep one structure
        return info

    def episode_info(self, row: int) -> dict[str, Any]:
        """``game.episode_info`` of row ``row``'s current state plus ``learner_seat``,
        ``seat_agents`` (who plays each seat, as codes) and ``illegal_action``."""
        return self._final_info(self.state, row, row)

    def render(self, row: int = 0) -> str:
        """Text picture of row ``row`` from its learner's seat (shows the learner's hand)."""
        if self.state is None:
            raise ValueError("call reset() before render()")
        return self.game.render(self.state, row, int(self.seat[row]))

    def picture(self, row: int = 0) -> Picture:
        """The :class:`~monkey_envs.core.pictures.Picture` of env ``row`` from its learner's seat.

        Raises:
            ValueError: before :meth:`reset`, or ``row`` out of range.
            NotImplementedError: the game draws no picture.
        """
        if self.state is None:
            raise ValueError("call reset() before render()")
        return self.game.picture(self.state, row, int(self.seat[row]))


def build_driver(
    game: Any,
    num_envs: int,
    *,
    opponent: Any,
    learner_seat: int | None,
    illegal_action: str,
    render_mode: str | None,
    learner_actions: str | None = None,
    autoreset: bool = True,
    face: str = "the env",
    **game_options: Any,
) -> Any:
    """Resolve the game, validate ``render_mode`` for it and build the shared single-agent driver.

    Every gymnasium / SB3 face starts this way; returns the
    :class:`SingleAgentDriver` (its ``game`` attribute is the game).

    Raises:
        TypeError: an option that is neither the face's (``face`` names it) nor the game's.
        ValueError: a bad render mode (``"rgb_array"`` for a game without a picture), game, option
            value, opponent, seat, ...
    """
    from monkey_envs.core.pictures import check_render_mode

    check_game_options(game, game_options, face)
    if render_mode is not None and not isinstance(render_mode, str):
        raise ValueError(f"render_mode must be None or a str, got {render_mode!r}")
    resolved = resolve_game(game, **game_options)
    check_render_mode(resolved, render_mode)
    return SingleAgentDriver(
        resolved,
        num_envs,
        opponent=opponent,
        learner_seat=learner_seat,
        autoreset=autoreset,
        illegal_action=illegal_action,
        learner_actions=learner_actions,
    )
