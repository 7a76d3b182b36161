"""PettingZoo ``ParallelEnv`` face over any simultaneous-move game (the core with batch size 1), written once.

A simultaneous game (``spec.dynamics == "simultaneous"``) keeps the one-mover-per-row core: the
seats of a *tick* commit their choices one after another (``current_player`` walks the seats of
:meth:`~monkey_envs.core.game.Game.movers`), every commit stays hidden from every observation
and mask, and the tick resolves after the last commit. This face hides the walk::

    from monkey_envs import toy_bidding_v0            # any simultaneous game's versioned module

    env = toy_bidding_v0.parallel_env(num_players=3)  # or pettingzoo.make("parallel", "monkey_envs/<name>-v<v>")
    observations, infos = env.reset(seed=42)
    while env.agents:
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

One :meth:`GameParallelEnv.step` is one tick:

* live agents (``env.agents``): the tick's movers, ``player_<seat>`` in seat order (empty once
  the game is over);
* observations: ``{"observation": (D,) float32, "action_mask": (A,) int8}`` per agent, computed
  at the tick start (before any commit); every mover's mask is its legal choices of this tick
  (all zeros for an agent that does not move in it, and after the game ended);
* ``step(actions)`` commits ``actions[agent]`` of every live agent in the core's commit order
  (whatever order the agents appear in the dict) and returns the next tick's observations
  with, per agent, the rewards summed over the tick's transitions, ``terminations``,
  ``truncations`` and ``infos`` (the game's ``episode_info`` once it is over, else ``{}``). The
  dicts hold the agents of the tick just played and of the next one (every agent when the
  game ended); a seat in neither keeps its reward until it appears again.

Movers' masks at the tick start: a mover's mask does not depend on the earlier commits of its
tick (they are hidden), so the face obtains them generically -- it commits placeholder legal
actions (each seat's lowest legal action) for the earlier movers on a copy of the state until
that seat is current, and reads its mask. A game may supply them faster with a method
``mover_masks(state) -> (B, P, A) bool`` (every mover's legal actions of the current tick, all
False for the other seats); the face uses it when the game has one.

Illegal actions (an in-range action its agent's ``action_mask`` forbids), ``illegal_action=``:

* ``"lose"`` (default), as the AEC ``env()`` (PettingZoo's ``TerminateIllegalWrapper``, see
  :mod:`monkey_envs.core.aec`): the game ends at once, the tick unplayed. Every agent that chose
  an illegal action gets :data:`~monkey_envs.core.aec.ILLEGAL_REWARD` (-1), every other agent 0;
  every agent is in the returned dicts with ``terminations`` and ``truncations`` True (as
  PettingZoo's wrapper sets them), its mask all zeros and ``infos[agent] == {"illegal_action":
  <it chose one>}``; ``agents`` is empty. :attr:`GameParallelEnv.core_state` stays the state of
  the tick start (nothing was committed). So PettingZoo's ``parallel_seed_test``, which samples
  ``action_space.sample()`` without the mask, runs on the defaults, and the AEC ``env()``
  converted with PettingZoo's ``aec_to_parallel`` plays exactly these games.
* ``"raise"``: ``ValueError`` naming the agent and its legal actions; nothing changes.

Other bad input -- missing or extra agents, a non-integer or an out-of-range action -- raises
``ValueError`` naming the agent whatever the policy, and nothing changes (every action is
checked before the first commit; the core's states are never modified in place).

Seeding, exactly as the AEC face: ``reset(seed=s)`` plays ``game.init(s)``; a ``reset()``
without a seed continues the deterministic :class:`~monkey_envs.core.faces.EpisodeStream` of
the last seed (OS entropy if never seeded). ``render_mode``: ``None``, ``"ansi"`` (``render()``
returns the public text picture, ``viewer=None``), ``"rgb_array"`` (the public picture, ``(H, W, 3)
uint8``; games with a picture) or ``"human"`` (a window with the picture where one can be opened,
else the printed text; also after every step). ``state()`` is not implemented (the game's hidden information has no global view);
:attr:`GameParallelEnv.core_state` is the core state.

Sequential games are refused (``ValueError``): they use the AEC env
(``monkey_envs.<name>_v<version>.env()``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from monkey_envs.core.aec import ILLEGAL_REWARD
from monkey_envs.core.driver import ILLEGAL_ACTION_POLICIES
from monkey_envs.core.faces import EpisodeStream, action_mask_box, entropy_seed, observation_box, tick_masks
from monkey_envs.core.game import Game
from monkey_envs.core.pictures import HumanView, Picture, check_render_mode, has_picture, render_modes
from monkey_envs.core.registry import game_class, resolve_game
from monkey_envs.core.state import BatchState

#: Every render mode this face may offer; a game without a picture (no ``View.picture`` hook) has no ``"rgb_array"``.
RENDER_MODES = ("ansi", "human", "rgb_array")
_ROW0 = np.array([0])

ObsDict = dict[str, np.ndarray]


def _refuse_sequential(game_name: str, spec: Any) -> None:
    if not spec.simultaneous:
        raise ValueError(
            f"game {game_name!r} is sequential (spec.dynamics={spec.dynamics!r}): it has no PettingZoo ParallelEnv; "
            f"use its AEC env, monkey_envs.{spec.name}_v{spec.version}.env()"
        )


class GameParallelEnv(ParallelEnv[str, ObsDict, int]):
    """A PettingZoo ``ParallelEnv`` playing one game of any simultaneous-move :class:`~monkey_envs.core.game.Game`.

    Args:
        game: a game name (see :data:`monkey_envs.games.GAMES`) or a built game.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (see the module docstring).
        illegal_action: ``"lose"`` (default: the offenders lose, the game ends) or ``"raise"``
            (``ValueError``, nothing changes); see the module docstring.
        **game_options: options of the game (e.g. ``num_players=3``), only with a game name.

    Attributes:
        game: the rules object.
        possible_agents: ``["player_0", ..., "player_{P-1}"]``.
        agents: the live agents (this tick's movers), seat order.

    Raises:
        ValueError: an unknown game, render mode or illegal-action policy, options the game
            rejects, or a sequential game.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "monkey_envs_game",
        "is_parallelizable": True,
    }

    def __init__(
        self, game: str | Game, render_mode: str | None = None, illegal_action: str = "lose", **game_options: Any
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.game = resolve_game(game, **game_options)
        spec = self.game.spec
        _refuse_sequential(spec.name, spec)
        self.render_mode = check_render_mode(self.game, render_mode)
        self._human: HumanView | None = None
        self.metadata = {
            **type(self).metadata,
            "name": f"{spec.name}_v{spec.version}",
            "render_modes": list(render_modes(self.game)),
        }
        P, A = self.game.num_players, self.game.num_actions
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        # one space object per agent, so seeding one agent's space does not reseed another's
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation_box(self.game), "action_mask": action_mask_box(self.game)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(A) for a in self.possible_agents}
        self.agents: list[str] = []
        self._state: BatchState | None = None
        self._stream: EpisodeStream | None = None
        #: ``(P, A) bool`` legal actions of each mover of the current tick (all False for others).
        self._masks = np.zeros((P, A), dtype=bool)
        #: ``(P,) float64`` rewards not yet handed to their agent (seats absent from the last dicts).
        self._pending = np.zeros(P, dtype=np.float64)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        """``Dict(observation=Box((D,), float32), action_mask=Box(0, 1, (A,), int8))`` (same object each call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(A)`` (same object each call)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """Start a new game.

        Args:
            seed: non-negative int: play ``game.init(seed)``; ``None``: the next game of the
                episode stream of the last seed (from OS entropy if never seeded).
            options: accepted for API compatibility; unused.

        Returns:
            ``(observations, infos)`` of the live agents (the first tick's movers).
        """
        if seed is not None:
            self._stream = EpisodeStream([seed])
        elif self._stream is None:
            self._stream = EpisodeStream([entropy_seed()])
        game_seed, _ = self._stream.next(_ROW0, self.game.num_players)
        return self._load(self.game.init(game_seed))

    def load_state(self, state: BatchState) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """Continue from a core state of batch size 1 (also one in the middle of a tick), like a reset.

        Returns:
            ``(observations, infos)`` as :meth:`reset`.

        The state is validated with this env's game first (``Game.validate_state``: dtypes, shapes,
        the game's laws and the legal mask); the env keeps a copy.

        Raises:
            ValueError: a state of another game, configuration or batch size, or one that breaks
                the game's laws (the env is left as it was).
        """
        if not isinstance(state, self.game.state_class) or state.batch_size != 1:
            raise ValueError(f"state must be a {self.game.state_class.__name__} of batch size 1")
        ident = state.game_identity()
        if ident is not None and ident != self.game.identity:
            raise ValueError(f"state comes from a differently configured game ({ident}), not {self.game!r}")
        self.game.validate_state(state)
        own = state.clone()
        own.mark_game(self.game)
        return self._load(own)

    def _load(self, state: BatchState) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self._state = state
        self._pending[:] = 0.0
        self._begin_tick()
        if self._over():
            info = self.game.episode_info(state, 0)
            return {}, {a: copy.deepcopy(info) for a in self.possible_agents}  # own arrays per agent
        return {a: self._observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def _over(self) -> bool:
        s = self._state
        return bool(s.terminated[0] or s.truncated[0])

    def _begin_tick(self) -> None:
        """Set :attr:`agents` and the movers' masks of the tick that starts at the current state."""
        state, game = self._state, self.game
        if self._over():
            self.agents = []
            self._masks[:] = False
            return
        seats = np.flatnonzero(np.asarray(game.movers(state))[0]).tolist()
        self.agents = [self.possible_agents[i] for i in seats]
        self._masks[:] = tick_masks(game, state)

    def _next_mover(self, s: BatchState, remaining: set[int]) -> int:
        cp = int(s.current_player[0])
        if cp not in remaining:
            raise RuntimeError(
                f"{self.game!r} asked seat {cp} while seats {sorted(remaining)} still had to commit this tick: "
                "a simultaneous game must ask exactly its movers, each once per tick"
            )
        return cp

    @property
    def core_state(self) -> BatchState | None:
        """The current core state (batch size 1); treat as read-only (later steps leave it as it is)."""
        return self._state

    # ------------------------------------------------------------------ step / observe
    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """Play one tick: every live agent's action, committed in the core's order.

        Args:
            actions: ``agent -> int`` for exactly the live agents (:attr:`agents`).

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` (see the module docstring).

        Raises:
            ValueError: before :meth:`reset`, after the game ended, missing or extra agents, a
                non-integer or out-of-range action, or (``illegal_action="raise"``) an illegal
                one (the message names the agent; nothing changes). With ``"lose"`` an illegal
                action ends the game instead (module docstring).
        """
        if self._state is None:
            raise ValueError("call reset() before step()")
        if not self.agents:
            raise ValueError("the game is over (no live agents); call reset()")
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        missing = [a for a in self.agents if a not in actions]
        extra = [a for a in actions if a not in self.agents]
        if missing or extra:
            raise ValueError(
                f"actions must be given for exactly the live agents {self.agents}: "
                f"missing {missing}, not live or unknown {extra}"
            )
        chosen = {self._seat_of[a]: self._check_action(a, actions[a]) for a in self.agents}
        offenders = [a for a in self.agents if not self._masks[self._seat_of[a], chosen[self._seat_of[a]]]]
        if offenders:
            if self.illegal_action == "raise":
                a = offenders[0]
                mask = self._masks[self._seat_of[a]]
                raise ValueError(
                    f"the action {chosen[self._seat_of[a]]} of {a} is illegal (legal: {np.flatnonzero(mask).tolist()}); "
                    "consult its action_mask"
                )
            return self._forfeit(offenders)
        s, total, remaining = self._state, np.zeros(self.game.num_players), set(chosen)
        while remaining and not (s.terminated[0] or s.truncated[0]):
            cp = self._next_mover(s, remaining)
            s = self.game.step(s, np.array([chosen[cp]]))
            total += s.rewards[0]
            remaining.discard(cp)
        before = set(self.agents)
        self._state = s
        self._pending += total
        self._begin_tick()
        over = self._over()
        keys = self.possible_agents if over else [a for a in self.possible_agents if a in before or a in self.agents]
        info = self.game.episode_info(s, 0) if over else {}
        term, trunc = bool(s.terminated[0]), bool(s.truncated[0])
        observations = {a: self._observe(a) for a in keys}
        rewards = {}
        for a in keys:
            seat = self._seat_of[a]
            rewards[a] = float(self._pending[seat])
            self._pending[seat] = 0.0
        if self.render_mode == "human":
            self.render()
        return (
            observations,
            rewards,
            dict.fromkeys(keys, term),
            dict.fromkeys(keys, trunc),
            {a: copy.deepcopy(info) for a in keys},  # own arrays per agent
        )

    def _check_action(self, agent: str, action: Any) -> int:
        """``action`` of ``agent`` as an int in ``[0, A)`` (legality is the caller's: it depends on the policy)."""
        arr = np.asarray(action)
        if arr.shape != () or arr.dtype.kind not in "iu":  # bool is kind "b": rejected too
            raise ValueError(f"the action of {agent} must be an integer, got {action!r}")
        a, A = int(arr), self.game.num_actions
        if not 0 <= a < A:
            raise ValueError(f"the action {a} of {agent} is out of range [0, {A})")
        return a

    def _forfeit(
        self, offenders: list[str]
    ) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """End the game because ``offenders`` chose illegal actions (``illegal_action="lose"``).

        As PettingZoo's ``TerminateIllegalWrapper`` (and this project's AEC ``env()``): the
        offenders get :data:`ILLEGAL_REWARD`, the others 0 (plus any reward not yet handed to
        them), every agent is terminated and truncated. The tick is not played.
        """
        self.agents = []
        self._masks[:] = False
        keys = self.possible_agents
        rewards = {}
        for a in keys:
            seat = self._seat_of[a]
            rewards[a] = float(self._pending[seat]) + (float(ILLEGAL_REWARD) if a in offenders else 0.0)
            self._pending[seat] = 0.0
        observations = {a: self._observe(a) for a in keys}
        if self.render_mode == "human":
            self.render()
        return (
            observations,
            rewards,
            dict.fromkeys(keys, True),
            dict.fromkeys(keys, True),
            {a: {"illegal_action": a in offenders} for a in keys},
        )

    def _observe(self, agent: str) -> ObsDict:
        seat = self._seat_of[agent]
        return {
            "observation": self.game.observe(self._state, seat)[0],
            "action_mask": self._masks[seat].astype(np.int8),
        }

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """The public position: ``"ansi"`` the text picture, ``"rgb_array"`` the picture ``(H, W, 3) uint8``,
        ``"human"`` a window or the printed text."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            raise ValueError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self.picture().to_array()
        if self.render_mode == "ansi":
            return self.game.render(self._state, 0, None)
        if self._human is None:
            self._human = HumanView()
        self._human.show(
            self.picture if has_picture(self.game) else None, lambda: self.game.render(self._state, 0, None)
        )
        return None

    def picture(self) -> Picture:
        """The public picture of the current position (``.save("x.png")`` / ``"x.svg"``).

        Raises:
            ValueError: before :meth:`reset`.
            NotImplementedError: the game draws no picture.
        """
        if self._state is None:
            raise ValueError("call reset() before picture()")
        return self.game.picture(self._state, 0, None)

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        if self._human is not None:
            self._human.close()


def make_parallel_api(game_name: str, module_name: str) -> Callable[..., GameParallelEnv]:
    """A simultaneous game's versioned ``parallel_env(**kwargs)`` (``render_mode`` and the game's options).

    Args:
        game_name: a key of :data:`monkey_envs.games.GAMES`.
        module_name: the module that will hold it (so it pickles as ``<module>.parallel_env``).

    Raises:
        ValueError: an unknown or a sequential game.
    """
    spec = game_class(game_name).spec
    _refuse_sequential(game_name, spec)

    def parallel_env(**kwargs: Any) -> GameParallelEnv:
        return GameParallelEnv(game_name, **kwargs)

    parallel_env.__module__ = module_name
    parallel_env.__qualname__ = "parallel_env"
    parallel_env.__doc__ = (
        f"{spec.gym_name} as a PettingZoo ParallelEnv (see :class:`monkey_envs.core.parallel.GameParallelEnv`). "
        'Keyword arguments: ``render_mode``, ``illegal_action`` (``"lose"``, the default: an illegal action '
        'ends the game with -1 to its agent; ``"raise"``: ``ValueError``) and the game\'s options.'
    )
    return parallel_env


def parallel_env(game_name: str, **kwargs: Any) -> GameParallelEnv:
    """The ``ParallelEnv`` of the simultaneous game ``game_name`` (``render_mode``, ``illegal_action``
    and the game's options)."""
    return GameParallelEnv(game_name, **kwargs)


__all__ = ["GameParallelEnv", "make_parallel_api", "parallel_env"]
