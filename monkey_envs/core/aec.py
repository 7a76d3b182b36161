"""PettingZoo AEC face over any game (the core with batch size 1), written once.

Each game's versioned shim is five lines::

    from monkey_envs.core.aec import make_aec_api
    env, raw_env = make_aec_api("<game name>", __name__)

``raw_env(**game_options, render_mode=None)`` is a :class:`GameAECEnv` for that game;
``env(...)`` wraps it in PettingZoo's standard chain (as ``pettingzoo.classic.connect_four``):
``TerminateIllegalWrapper(illegal_reward=-1)`` -> ``AssertOutOfBoundsWrapper`` ->
``OrderEnforcingWrapper`` (:class:`GameOrderEnforcingWrapper`: a step after the end raises). So
with ``env()`` an illegal move ends the game with -1 to the offender (0 to everyone else) and an
out-of-range action fails an assertion, while the raw env raises the core's ``ValueError`` (and
changes nothing).

Simultaneous games (``spec.simultaneous``): a tick's seats commit one after another, hidden from
each other, so ``env()`` lets an illegal commit take effect when the tick's last seat has
committed (:class:`TickTerminateIllegalWrapper` in place of PettingZoo's): the offender's commit
is replaced by a hidden stand-in, the tick's other seats still commit, and then the game ends with
-1 to every seat that committed an illegal action in the tick, 0 to the others, without playing
the tick. An agent never dies in the middle of a tick, which is what PettingZoo's
``aec_to_parallel`` needs (``metadata["is_parallelizable"]`` is True for exactly these games):
``aec_to_parallel(env())`` plays the games of ``parallel_env()`` (whose default illegal-action
policy is the same), illegal actions included.

Agents are ``player_0 .. player_{P-1}`` (seat order). Observations are
``{"observation": (D,) float32, "action_mask": (A,) int8}`` from the agent's own seat; the mask
is all zeros for agents not to move (in a simultaneous game: for seats that do not commit again
in the current tick) and after the game ended. Observations are computed lazily
and cached per state, so repeated ``last()`` / ``observe()`` calls are free -- the returned
arrays are shared with the cache: do not modify them.

Seeding: ``reset(seed=s)`` plays exactly ``game.init(s)``; later ``reset()`` calls without a
seed continue a deterministic episode stream (:class:`~monkey_envs.core.faces.EpisodeStream`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from monkey_envs.core.faces import EpisodeStream, action_mask_box, entropy_seed, observation_box, tick_masks
from monkey_envs.core.game import Game, as_seeds
from monkey_envs.core.pictures import HumanView, Picture, check_render_mode, has_picture, render_modes
from monkey_envs.core.registry import game_class, resolve_game
from monkey_envs.core.state import BatchState

#: Every render mode this face may offer; a game without a picture (no ``View.picture`` hook) has no ``"rgb_array"``.
RENDER_MODES = ("ansi", "human", "rgb_array")
_ROW0 = np.array([0])


_SHARED_TYPES = (int, float, bool, str, type(None), np.generic)

#: Reward of an agent whose illegal move ends the game in ``env()`` (PettingZoo classic's -1) and in
#: the Parallel env's default ``illegal_action="lose"``; every other agent gets 0.
ILLEGAL_REWARD = -1

#: What a step after the end says (raw env and ``env()`` alike). PettingZoo's own
#: ``OrderEnforcingWrapper`` only logs a warning and returns, which a loop never notices.
GAME_OVER = (
    "step() after the game is over: every agent is done and has stepped out (env.agents is empty); "
    "call reset() to play again"
)


def _own_copy(value: Any) -> Any:
    """``copy.deepcopy(value)`` for an ``episode_info`` value, quicker: dicts are rebuilt and
    numpy arrays copied (as ``deepcopy`` copies them), immutable scalars are shared, and anything
    else goes to ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: _own_copy(v) for k, v in value.items()}
    if kind is np.ndarray and value.dtype.kind != "O":
        return value.copy(order="K")
    if isinstance(value, _SHARED_TYPES):
        return value
    return copy.deepcopy(value)


class GameAECEnv(AECEnv):
    """A PettingZoo ``AECEnv`` playing one game of any :class:`~monkey_envs.core.game.Game`.

    Args:
        game: a game name (see :data:`monkey_envs.games.GAMES`) or a built game; ``None`` uses
            the class's ``game_name`` (set by :func:`make_aec_api`).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text picture from the
            current agent's seat), ``"rgb_array"`` (the picture from that seat as an ``(H, W, 3)
            uint8`` array; games with a picture) or ``"human"`` (a window with the picture where
            one can be opened, else the printed text; also after every step, see
            :class:`~monkey_envs.core.pictures.HumanView`).
        **game_options: options of the game (e.g. ``num_players=3``), only with a game name.

    Attributes:
        game: the rules object.
        possible_agents: ``["player_0", ..., "player_{P-1}"]``.

    Raises:
        ValueError: an unknown game or render mode, or options the game rejects.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "monkey_envs_game",
        "is_parallelizable": False,
    }
    #: Game name used when ``game`` is not given (set on the per-game ``raw_env`` classes).
    game_name: ClassVar[str | None] = None

    def __init__(self, game: str | Game | None = None, render_mode: str | None = None, **game_options: Any) -> None:
        super().__init__()
        if game is None:
            if self.game_name is None:
                raise ValueError("GameAECEnv needs a game (a name or a Game object)")
            game = self.game_name
        self.game = resolve_game(game, **game_options)
        self.render_mode = check_render_mode(self.game, render_mode)
        self._human: HumanView | None = None
        spec = self.game.spec
        # a simultaneous game commits the choices of a tick hidden from everyone until it
        # resolves, so PettingZoo's aec_to_parallel conversion is sound exactly for those
        self.metadata = {
            **type(self).metadata,
            "name": f"{spec.name}_v{spec.version}",
            "is_parallelizable": spec.simultaneous,
            "render_modes": list(render_modes(self.game)),
        }
        P = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        # one space object per agent, so seeding one agent's space does not reseed another's
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation_box(self.game), "action_mask": action_mask_box(self.game)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        #: ``(1,) int64`` seat arrays for the observation hook, one per seat, kept private. Writeable,
        #: like the arrays ``Game.observe`` hands the hook: numba types a read-only array apart, so a
        #: compiled hook would compile a second time in a process that also observes through the core.
        self._seat_rows = [np.full(1, i, dtype=np.int64) for i in range(P)]
        #: the game deals new games into a state's rows itself (a compiled ``_reset_rows``): a reset
        #: then restarts the env's own state in place instead of building a new one
        self._deals_in_place = type(self.game)._reset_rows is not Game._reset_rows
        self._state: BatchState | None = None
        #: True once :attr:`core_state` handed the current state out: the next step then makes a
        #: new state (``game.step``) instead of advancing this one in place, so it never changes.
        self._state_shared = False
        self._stream: EpisodeStream | None = None
        #: ``(1,) int64`` seed of the last seeded reset while its stream is not built yet (it is
        #: built when a reset without a seed needs it: a loop that seeds every reset never builds one)
        self._stream_seed: np.ndarray | None = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        #: simultaneous games: ``(P, A) bool`` every remaining mover's legal choices of the current
        #: tick (:func:`~monkey_envs.core.faces.tick_masks`), computed when first needed per state
        self._simultaneous = spec.simultaneous
        self._tick_masks: np.ndarray | None = None
        #: simultaneous games: the state the current tick started from (or was loaded at), kept
        #: (never stepped in place) so that illegal commits can end the game with the tick unplayed
        self._tick_start: BatchState | None = None
        #: the game was ended by illegal commits (:class:`TickTerminateIllegalWrapper`); the core
        #: state is not over, the masks are all zeros
        self._forfeited = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        """``Dict(observation=Box((D,), float32), action_mask=Box(0, 1, (A,), int8))`` (same object each call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(A)`` (same object each call)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: non-negative int: play ``game.init(seed)``; ``None``: the next game of the
                episode stream of the last seed (from OS entropy if never seeded).
            options: accepted for API compatibility; unused.
        """
        P = self.game.num_players
        if seed is not None:  # the stream's first game is the seed's own: play it, build the stream later
            game_seed = as_seeds([seed])  # (EpisodeStream([seed]) checks the seed the same way)
            self._stream, self._stream_seed = None, game_seed
        else:
            if self._stream is None:
                if self._stream_seed is None:
                    self._stream = EpisodeStream([entropy_seed()])
                else:  # the seeded game was the stream's first
                    self._stream, self._stream_seed = EpisodeStream(self._stream_seed), None
                    self._stream.next(_ROW0, P)
            game_seed, _ = self._stream.next(_ROW0, P)
        state = self._state
        if state is not None and self._deals_in_place and not self._state_shared:
            self.game._reset_rows(state, _ROW0, game_seed)  # equals init(game_seed), bit for bit
            self._load(state)
        else:
            self._load(self.game.init(game_seed))

    def load_state(self, state: BatchState) -> None:
        """Continue from a core state of batch size 1 (e.g. ``game.position(...)``), like a reset.

        The state is validated with this env's game first (:meth:`Game.validate_state
        <monkey_envs.core.game.Game.validate_state>`: dtypes, shapes, the game's laws and the legal
        mask); the env keeps a copy, so later changes to ``state`` do not reach it.

        Raises:
            ValueError: a state of another game, configuration or batch size, or one that breaks
                the game's laws (the env is left as it was).
        """
        if not isinstance(state, self.game.state_class):
            raise ValueError(
                f"state must be a {self.game.state_class.__name__} of batch size 1, got {type(state).__name__}"
            )
        ident = state.game_identity()
        if ident is not None and ident != self.game.identity:
            raise ValueError(f"state comes from a differently configured game ({ident}), not {self.game!r}")
        self.game.validate_state(state)
        if state.batch_size != 1:
            raise ValueError(
                f"state must be a {self.game.state_class.__name__} of batch size 1, got {state.batch_size}"
            )
        own = state.clone()
        own.mark_game(self.game)
        self._load(own)

    def _load(self, state: BatchState) -> None:
        self._state = state
        self._state_shared = False
        self._forfeited = False
        if self._simultaneous:
            self._keep_tick_start()
        self._obs_cache.clear()
        self._tick_masks = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        cp = int(state.current_player[0])
        self.agent_selection = self.possible_agents[max(cp, 0)]
        if state.terminated[0] or state.truncated[0]:
            self._mark_over(state)

    def _mark_over(self, state: BatchState) -> None:
        info = self.game.episode_info(state, 0)
        term, trunc = bool(state.terminated[0]), bool(state.truncated[0])
        for a in self.agents:
            self.terminations[a] = term
            self.truncations[a] = trunc
            self.infos[a] = _own_copy(info)  # own arrays per agent

    @property
    def core_state(self) -> BatchState | None:
        """The current core state (batch size 1); treat as read-only (later steps leave it as it is)."""
        self._state_shared = True
        return self._state

    # ------------------------------------------------------------------ step / observe
    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent that is done).

        Raises:
            ValueError: an out-of-range or illegal action, or a non-integer; a step before
                :meth:`reset`, or after the game is over and every agent has stepped out
                (``agents`` is empty: call :meth:`reset`). Nothing changes then.
        """
        if self._state is None:
            raise ValueError("call reset() before step()")
        if not self.agents:
            raise ValueError(GAME_OVER)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        ends_tick = self._simultaneous and self._ends_tick()
        if self.game.fused_step and not self._state_shared:  # nobody else holds the state
            state = self._state
            self.game._step_inplace(state, np.array([action]))
        else:
            state = self.game.step(self._state, np.array([action]))
            self._state = state
            self._state_shared = False
        if ends_tick:
            self._keep_tick_start()
        self._obs_cache.clear()
        self._tick_masks = None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a, r in zip(self.possible_agents, state.rewards[0].tolist(), strict=True):
            rewards[a] = r
        cp = int(state.current_player[0])
        if cp < 0:  # the game is over
            self._mark_over(state)
            self.agent_selection = self.possible_agents[(self._seat_of[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[cp]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": (D,) float32, "action_mask": (A,) int8}`` of ``agent`` (cached per state).

        The mask is the agent's legal actions when it is to move, else all zeros -- except in a
        simultaneous game, where every seat that still has to commit in the current tick sees its
        legal choices of the tick (they do not depend on the tick's earlier commits, which are
        hidden), as the Parallel env shows them; so PettingZoo's ``aec_to_parallel`` hands every
        mover its right mask.
        """
        obs = self._obs_cache.get(agent)
        if obs is None:
            if self._state is None:
                raise ValueError("call reset() before observe()")
            seat = self._seat_of[agent]
            state = self._state
            cp = int(state.current_player[0])
            if self._forfeited or cp < 0:
                mask = self._zero_mask.copy()
            elif cp == seat:
                mask = state.legal_action_mask[0].astype(np.int8)
            elif self._simultaneous:  # a seat still to commit in this tick sees its choices of the tick
                if self._tick_masks is None:
                    self._tick_masks = tick_masks(self.game, state)
                mask = self._tick_masks[seat].astype(np.int8)
            else:
                mask = self._zero_mask.copy()
            # the hook behind game.observe (the seat is this env's own: nothing to check)
            obs = {"observation": self.game._observe(state, self._seat_rows[seat])[0], "action_mask": mask}
            self._obs_cache[agent] = obs
        return obs

    # ------------------------------------------------------------------ simultaneous games: illegal commits
    def _ends_tick(self) -> bool:
        """The agent to move is the last seat of its tick to commit (simultaneous games)."""
        return int(np.count_nonzero(self.game.movers(self._state)[0])) <= 1

    def _keep_tick_start(self) -> None:
        """Keep the current state as the tick's start (the next step copies instead of stepping it in place)."""
        self._tick_start = self._state
        self._state_shared = True

    def _stand_in(self) -> int:
        """A legal commit (the lowest) standing in for an illegal one (hidden like every commit)."""
        return int(np.argmax(self._state.legal_action_mask[0]))

    def _forfeit(self, offenders: list[str], reward: float) -> None:
        """End the game at the current commit with the tick unplayed: the state goes back to the
        tick's start (its commits undone, as the Parallel env never makes them), ``reward`` to
        each of ``offenders``, 0 to the others, every agent terminated and truncated (as
        PettingZoo's ``TerminateIllegalWrapper``), ``infos[agent] == {"illegal_action": <it was an
        offender>}``."""
        if self._tick_start is not None:
            self._state = self._tick_start
        self._forfeited = True
        self._obs_cache.clear()
        self._tick_masks = None
        self._cumulative_rewards[self.agent_selection] = 0.0  # the stepping agent's, as a step does
        self.rewards = {a: (float(reward) if a in offenders else 0.0) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.infos = {a: {"illegal_action": a in offenders} for a in self.agents}
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """The position from the current agent's seat (with its hand): ``"ansi"`` the text picture,
        ``"rgb_array"`` the picture ``(H, W, 3) uint8``, ``"human"`` a window or the printed text."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer = self._viewer()
        if self.render_mode == "rgb_array":
            return self.game.picture(self._state, 0, viewer).to_array()
        if self.render_mode == "ansi":
            return self.game.render(self._state, 0, viewer)
        if self._human is None:
            self._human = HumanView()
        drawn = (lambda: self.game.picture(self._state, 0, viewer)) if has_picture(self.game) else None
        self._human.show(drawn, lambda: self.game.render(self._state, 0, viewer))
        return None

    def _viewer(self) -> int | None:
        if self._state is None:
            raise ValueError("call reset() before render()")
        return self._seat_of[self.agent_selection] if self.agents else None

    def picture(self) -> Picture:
        """The current position drawn from the seat :meth:`render` shows (``.save("x.png")`` / ``"x.svg"``).

        Raises:
            ValueError: before :meth:`reset`.
            NotImplementedError: the game draws no picture.
        """
        return self.game.picture(self._state, 0, self._viewer())

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        if self._human is not None:
            self._human.close()


class GameOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, with a step after the end refused.

    PettingZoo's wrapper answers ``step()`` once every agent is gone (``agents`` empty) with a
    logged warning and does nothing, which a loop that forgot to ``reset()`` never notices (the
    logger may be silenced or routed away). Here that step raises ``ValueError``, as the raw env,
    the Parallel env and the gymnasium faces do. Everything else is PettingZoo's wrapper.
    """

    def step(self, action: Any) -> None:
        """PettingZoo's ordered step; ``ValueError`` after the game is over and every agent stepped out."""
        if self._has_reset and not self.agents:
            raise ValueError(GAME_OVER)
        super().step(action)

    def __str__(self) -> str:
        return str(self.env)  # the env's name, as PettingZoo's wrapper prints for itself


class TickTerminateIllegalWrapper(wrappers.BaseWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` for a simultaneous game: an illegal commit ends
    the game when its tick's last seat has committed, never in the middle of a tick.

    An illegal commit (its agent's ``action_mask`` forbids it) logs PettingZoo's illegal-move
    warning and is replaced by a hidden stand-in (the lowest legal action: commits are hidden, so
    nobody can tell); the tick's later seats commit as usual. At the tick's last commit, if any
    seat committed an illegal action in it, the tick is not played: the game ends with
    ``illegal_reward`` to every offender of the tick, 0 to the others, every agent terminated and
    truncated (as PettingZoo's wrapper leaves them) and ``infos[agent] == {"illegal_action":
    <it was an offender>}``. So every agent of a tick steps once per tick in seat order, as
    PettingZoo's ``aec_to_parallel`` requires.

    Args:
        env: a :class:`GameAECEnv` of a simultaneous game (possibly wrapped).
        illegal_reward: the offenders' reward.
    """

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, GameAECEnv) or not env.unwrapped.game.spec.simultaneous:
            raise ValueError("TickTerminateIllegalWrapper wraps the AEC env of a simultaneous game")
        self._illegal_value = float(illegal_reward)
        self._offenders: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (no offenders)."""
        self._offenders = []
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        """Commit ``action`` for ``agent_selection``; an illegal one ends the game at the tick's end."""
        raw: GameAECEnv = self.env.unwrapped
        agent = raw.agent_selection
        if action is None or not raw.agents or raw.terminations[agent] or raw.truncations[agent]:
            super().step(action)  # a dead agent's step, or the raw env's own error
            return
        legal = bool(raw.observe(agent)["action_mask"][action])
        if not legal:
            EnvLogger.warn_on_illegal_move()
            self._offenders.append(agent)
        if self._offenders and raw._ends_tick():
            raw._forfeit(self._offenders, self._illegal_value)
            self._offenders = []
            return
        super().step(action if legal else raw._stand_in())

    def __str__(self) -> str:
        return str(self.env)


def wrap_aec(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrapper chain for board games (as ``connect_four_v3.env``), with
    :class:`GameOrderEnforcingWrapper` outermost and, for a simultaneous game,
    :class:`TickTerminateIllegalWrapper` in place of ``TerminateIllegalWrapper``."""
    if raw.unwrapped.game.spec.simultaneous:
        env = TickTerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_REWARD)
    else:
        env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_REWARD)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return GameOrderEnforcingWrapper(env)


def make_aec_api(game_name: str, module_name: str) -> tuple[Callable[..., AECEnv], type[GameAECEnv]]:
    """Build a game's versioned PettingZoo API: ``env(**kw)`` and the class ``raw_env``.

    Args:
        game_name: a key of :data:`monkey_envs.games.GAMES`.
        module_name: the module that will hold them (so ``raw_env`` pickles as ``<module>.raw_env``).

    Returns:
        ``(env, raw_env)``: ``raw_env(render_mode=None, **game_options)`` is a
        :class:`GameAECEnv` subclass; ``env(...)`` is ``raw_env(...)`` in the standard wrappers.
    """
    spec = game_class(game_name).spec
    env_name = f"{spec.name}_v{spec.version}"
    raw_env = type(
        "raw_env",
        (GameAECEnv,),
        {
            "__module__": module_name,
            "__qualname__": "raw_env",
            "__doc__": f"{spec.gym_name} as an unwrapped PettingZoo AEC env (see :class:`GameAECEnv`).",
            "game_name": game_name,
            "metadata": {**GameAECEnv.metadata, "name": env_name, "is_parallelizable": spec.simultaneous},
        },
    )

    def env(**kwargs: Any) -> AECEnv:
        return wrap_aec(raw_env(**kwargs))

    env.__module__ = module_name
    env.__qualname__ = "env"
    env.__doc__ = (
        f"{spec.gym_name} AEC env in PettingZoo's standard wrappers (illegal move: -1 and the game ends). "
        "Keyword arguments: ``render_mode`` and the game's options."
    )
    return env, raw_env


def spec_page(game_name: str) -> str:
    """Generated part of a game's documentation page: observation sizes and the layout table.

    Sizes are listed per supported player count; the table is the default configuration's.
    """
    cls = game_class(game_name)
    spec = cls.spec
    sizes = []
    for p in range(spec.min_players, spec.max_players + 1):
        try:
            sizes.append(f"{p} player{'s' if p > 1 else ''}: {cls(num_players=p).obs_dim}")
        except ValueError:
            continue
    default = cls()
    return (
        "\nObservation layout (generated from the game)\n"
        "--------------------------------------------\n\n"
        f"Observation size D -- {', '.join(sizes)}. Default configuration "
        f"({', '.join(f'{k}={v!r}' for k, v in default.config.items())}):\n\n" + default.obs_layout.table() + "\n"
    )
