"""RLlib (new API stack) adapter: the AEC envs as a ``MultiAgentEnv`` for RLlib's action-masking module.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``)
reads observations ``{"observations": ..., "action_mask": ...}`` (plural key, float mask), and its
default encoders refuse the PettingZoo observation ``{"observation": ..., "action_mask": ...}``
(a ``Dict`` space) outright. This module bridges the two:

* :class:`MonkeyMultiAgentEnv` (built on first use): RLlib's own ``PettingZooEnv`` wrapper over
  ``monkey_envs.<game>_v<version>.env(**options)``, with each agent's observation renamed to
  ``{"observations": (D,) float32, "action_mask": (A,) float32 0/1}`` and its space to match.
  Its constructor takes RLlib's ``env_config`` dict: ``{"game": <name>, **game options}``.
* :class:`MonkeyParallelMultiAgentEnv` (built on first use): the same over RLlib's
  ``ParallelPettingZooEnv`` and ``monkey_envs.<game>_v<version>.parallel_env(**options)``, for a
  simultaneous game (4 Monkeys): one RLlib step is one tick, every mover of the tick acts at once.
* :func:`module_spec`: a ``MultiRLModuleSpec`` with one ``ActionMaskingTorchRLModule`` policy,
  :data:`POLICY_ID`, that every seat uses (:func:`policy_mapping_fn`; parameter sharing, i.e.
  self-play).
* :func:`ppo_config`: a ``PPOConfig`` with the env, the mapping and the module set
  (``parallel=True``: the Parallel env).

Random actions follow the masks too. RLlib draws mask-blind actions with
``env.get_action_space(agent).sample()`` in two places: its env pre-check
(``check_multiagent_environments``: one step with a sampled action when every env runner starts,
so with ``num_env_runners=2`` twice; an illegal one ends that game with PettingZoo's ``Illegal
move made`` warning in the runner's log) and random-action sampling (``EnvRunner.sample(random_actions=True)``,
e.g. off-policy warm-up). The adapter's action spaces are :class:`LegalActionSpace`: ``sample()``
without a mask draws from the mask the env last gave that agent, so every action RLlib sends is
legal. (They pickle as plain ``Discrete``, so the spaces RLlib ships to its learners are the usual ones.)

Usage::

    from monkey_envs.integrations import rllib as mrl

    config = mrl.ppo_config("monkey_fun", num_players=2).env_runners(num_env_runners=0)
    algo = config.build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])

    config = mrl.ppo_config("four_monkeys", parallel=True)  # ParallelPettingZooEnv, one step = one tick

or by hand::

    config = (
        PPOConfig()
        .environment(mrl.MonkeyMultiAgentEnv, env_config={"game": "monkey_fun", "num_players": 2})
        .multi_agent(policies={mrl.POLICY_ID}, policy_mapping_fn=mrl.policy_mapping_fn)
        .rl_module(rl_module_spec=mrl.module_spec())
    )

Rewards are PettingZoo's: 0 until the end, then each seat's end reward (zero-sum games; a shared
policy learns both sides). Infos are the AEC env's (numeric; ``end_reason`` codes,
``winners (P,) bool``). Ray is imported only when one of these names is used, so importing
:mod:`monkey_envs` or this module needs no Ray; without Ray they raise ``ImportError`` naming the
extra to install (``pip install "monkey-envs[clients]"``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from monkey_envs.games import DEFAULT_GAME

#: The one policy every seat maps to.
POLICY_ID = "shared"

#: Default network of :func:`module_spec` (RLlib ``DefaultModelConfig`` keys).
DEFAULT_MODEL_CONFIG: dict[str, Any] = {"head_fcnet_hiddens": [256, 256], "head_fcnet_activation": "relu"}

_INSTALL = 'RLlib is not installed: pip install "monkey-envs[clients]" (or "ray[rllib]")'


def _require_ray() -> None:
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise ImportError(_INSTALL) from e


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` of one agent whose ``sample()`` without a mask draws a legal action.

    Without ``mask`` or ``probability``, :meth:`sample` uses the action mask the env last gave
    the agent (``masks[agent]``, 0/1; gymnasium's rule for an all-zero mask: ``start``); before any
    observation it samples uniformly as ``Discrete``. With either argument it is ``Discrete.sample``.
    RLlib's env pre-check and its random-action sampling call ``sample()`` without the mask: this
    keeps their actions legal. Equal to ``Discrete(n)``; pickles and deep-copies as a plain
    ``Discrete(n)`` (the masks stay with the env).

    Args:
        n: number of actions.
        masks: the env's ``agent -> (n,) mask`` of the observations it last returned (read at
            each ``sample()``; the env updates it).
        agent: the agent this space belongs to.
    """

    def __init__(self, n: int, masks: Mapping[str, np.ndarray], agent: str) -> None:
        super().__init__(n)
        self._masks = masks
        self._agent = agent

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        """A legal action of the agent's last mask (no arguments), else ``Discrete.sample(mask, probability)``."""
        if mask is None and probability is None:
            given = self._masks.get(self._agent)
            if given is not None:
                mask = (np.asarray(given) > 0).astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[type, tuple[int, None, int]]:
        return (spaces.Discrete, (int(self.n), None, int(self.start)))


def _module_spaces(
    obs_spaces: dict[str, spaces.Dict], num_actions: int, masks: Mapping[str, np.ndarray]
) -> tuple[dict[str, spaces.Dict], dict[str, LegalActionSpace]]:
    """Per agent: the module's observation space (``observations`` + float ``action_mask``) and its
    :class:`LegalActionSpace`, from the PettingZoo env's ``{"observation", "action_mask"}`` spaces."""
    observation_spaces = {
        a: spaces.Dict(
            {
                "observations": space["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
            }
        )
        for a, space in obs_spaces.items()
    }
    action_spaces = {a: LegalActionSpace(num_actions, masks, a) for a in obs_spaces}
    return observation_spaces, action_spaces


def _convert(obs: dict[str, dict[str, np.ndarray]], masks: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """The PettingZoo observations as the module's, recording each agent's mask in ``masks``."""
    out = {}
    for a, o in obs.items():
        mask = masks[a] = o["action_mask"].astype(np.float32)  # a copy: the env may reuse its arrays
        out[a] = {"observations": o["observation"], "action_mask": mask}
    return out


def policy_mapping_fn(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """RLlib ``policy_mapping_fn``: every agent plays :data:`POLICY_ID`."""
    return POLICY_ID


def module_spec(model_config: dict[str, Any] | None = None) -> Any:
    """``MultiRLModuleSpec`` with RLlib's ``ActionMaskingTorchRLModule`` as policy :data:`POLICY_ID`.

    Args:
        model_config: RLlib model config of the module (default :data:`DEFAULT_MODEL_CONFIG`).

    Raises:
        ImportError: Ray RLlib is not installed.
    """
    _require_ray()
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    cfg = dict(DEFAULT_MODEL_CONFIG if model_config is None else model_config)
    return MultiRLModuleSpec(
        rl_module_specs={POLICY_ID: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=cfg)}
    )


def ppo_config(
    game: str = DEFAULT_GAME,
    model_config: dict[str, Any] | None = None,
    *,
    parallel: bool = False,
    **game_options: Any,
) -> Any:
    """RLlib ``PPOConfig`` for masked self-play on ``game`` (env, policy mapping and module spec set).

    Args:
        game: a registered game name.
        model_config: see :func:`module_spec`.
        parallel: use :class:`MonkeyParallelMultiAgentEnv` (RLlib's ``ParallelPettingZooEnv``
            over the game's Parallel env; simultaneous games only) instead of
            :class:`MonkeyMultiAgentEnv` (the AEC env).
        **game_options: the game's options (e.g. ``num_players=2``), passed as ``env_config``.

    Raises:
        ImportError: Ray RLlib is not installed.
        ValueError: an unknown game, options the game rejects, or ``parallel=True`` for a
            sequential game (checked here, before RLlib builds any env).
    """
    _require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig

    env_config = {"game": game, **game_options}
    cls = parallel_env_class() if parallel else env_class()
    cls.check_config(env_config)
    return (
        PPOConfig()
        .environment(cls, env_config=env_config)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=policy_mapping_fn)
        .rl_module(rl_module_spec=module_spec(model_config))
    )


def _check_config(config: dict[str, Any] | None, *, simultaneous: bool = False) -> dict[str, Any]:
    """``config`` as a plain dict with ``"game"`` set; ``ValueError`` for an unknown game or options
    (and, with ``simultaneous``, for a sequential game)."""
    from monkey_envs.games import game_class

    options = dict(config or {})
    options.setdefault("game", DEFAULT_GAME)
    game = options["game"]
    if not isinstance(game, str):
        raise ValueError(f"env_config['game'] must be a game name, got {game!r}")
    cls = game_class(game)
    if simultaneous and not cls.spec.simultaneous:
        spec = cls.spec
        raise ValueError(
            f"game {game!r} is sequential (spec.dynamics={spec.dynamics!r}): it has no Parallel env; "
            f"use MonkeyMultiAgentEnv / ppo_config({game!r}) (its AEC env, monkey_envs.{spec.name}_v{spec.version}.env())"
        )
    cls(**{k: v for k, v in options.items() if k not in ("game", "render_mode")})
    return options


@functools.cache
def env_class() -> type:
    """The :class:`MonkeyMultiAgentEnv` class (defined on first use, when Ray is imported)."""
    _require_ray()
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from monkey_envs.core.versioned import aec_api

    class MonkeyMultiAgentEnv(PettingZooEnv):
        """A monkey-envs game as an RLlib ``MultiAgentEnv`` (RLlib's ``PettingZooEnv`` over the AEC env).

        Args:
            config: RLlib's ``env_config``: ``{"game": <name> (default the package's default
                game), **game options}``.

        Observations: per agent ``{"observations": (D,) float32, "action_mask": (A,) float32}``
        (the mask 1.0 for legal actions of the agent to move); actions ``Discrete(A)`` as
        :class:`LegalActionSpace` (``sample()`` draws from the agent's last mask).

        Raises:
            ValueError: an unknown game or options the game rejects.
        """

        def __init__(self, config: dict[str, Any] | None = None) -> None:
            options = self.check_config(config)
            game = options.pop("game")
            super().__init__(aec_api(game)[0](**options))
            self.game = self.env.unwrapped.game
            #: agent -> the action mask of the observation last returned for it (this episode)
            self.last_masks: dict[str, np.ndarray] = {}
            self.observation_spaces, self.action_spaces = _module_spaces(
                {a: self.env.observation_space(a) for a in self.possible_agents}, self.game.num_actions, self.last_masks
            )
            self.observation_space = spaces.Dict(self.observation_spaces)
            self.action_space = spaces.Dict(self.action_spaces)

        @staticmethod
        def check_config(config: dict[str, Any] | None) -> dict[str, Any]:
            """``config`` as a plain dict with ``"game"`` set; ``ValueError`` for an unknown game or options."""
            return _check_config(config)

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
            obs, infos = super().reset(seed=seed, options=options)
            self.last_masks.clear()
            return _convert(obs, self.last_masks), infos

        def step(self, action: dict) -> tuple[dict, dict, dict, dict, dict]:
            obs, rewards, terminateds, truncateds, infos = super().step(action)
            return _convert(obs, self.last_masks), rewards, terminateds, truncateds, infos

    MonkeyMultiAgentEnv.__module__ = __name__
    MonkeyMultiAgentEnv.__qualname__ = "MonkeyMultiAgentEnv"
    return MonkeyMultiAgentEnv


@functools.cache
def parallel_env_class() -> type:
    """The :class:`MonkeyParallelMultiAgentEnv` class (defined on first use, when Ray is imported)."""
    _require_ray()
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    from monkey_envs.core.parallel import parallel_env

    class MonkeyParallelMultiAgentEnv(ParallelPettingZooEnv):
        """A simultaneous monkey-envs game (4 Monkeys) as an RLlib ``MultiAgentEnv`` over its Parallel env.

        RLlib's ``ParallelPettingZooEnv`` over ``monkey_envs.<game>_v<version>.parallel_env(**options)``:
        one RLlib step is one tick, in which every mover of the tick acts at once.

        Args:
            config: RLlib's ``env_config``: ``{"game": <name>, **game options}``; a simultaneous game.

        Observations: per agent ``{"observations": (D,) float32, "action_mask": (A,) float32}``,
        returned for the movers of the next tick only (RLlib computes an action for every agent
        it observes, and the Parallel env refuses actions of agents that do not move), and for
        every agent when the game ends. Rewards, terminations and infos are the Parallel env's.
        Actions ``Discrete(A)`` as :class:`LegalActionSpace`. The agents and spaces are every
        seat's (``possible_agents``), not only the first tick's movers.

        Raises:
            ValueError: an unknown game, options the game rejects, or a sequential game.
        """

        def __init__(self, config: dict[str, Any] | None = None) -> None:
            options = self.check_config(config)
            game = options.pop("game")
            super().__init__(parallel_env(game, **options))
            self.game = self.par_env.unwrapped.game
            self.possible_agents = list(self.par_env.possible_agents)
            self.agents = list(self.possible_agents)
            self._agent_ids = set(self.possible_agents)
            #: agent -> the action mask of the observation last returned for it (this episode)
            self.last_masks: dict[str, np.ndarray] = {}
            self.observation_spaces, self.action_spaces = _module_spaces(
                {a: self.par_env.observation_space(a) for a in self.possible_agents},
                self.game.num_actions,
                self.last_masks,
            )
            self.observation_space = spaces.Dict(self.observation_spaces)
            self.action_space = spaces.Dict(self.action_spaces)

        @staticmethod
        def check_config(config: dict[str, Any] | None) -> dict[str, Any]:
            """``config`` as a plain dict with ``"game"`` set; ``ValueError`` for an unknown game,
            options the game rejects or a sequential game."""
            return _check_config(config, simultaneous=True)

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
            obs, infos = super().reset(seed=seed, options=options)
            self.last_masks.clear()
            movers = self.par_env.agents
            return _convert({a: obs[a] for a in movers}, self.last_masks), {a: infos.get(a, {}) for a in movers}

        def step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:
            obs, rewards, terminateds, truncateds, infos = super().step(action_dict)
            if self.par_env.agents:  # the game goes on: observe the next tick's movers only
                obs = {a: obs[a] for a in self.par_env.agents}
            return _convert(obs, self.last_masks), rewards, terminateds, truncateds, infos

    MonkeyParallelMultiAgentEnv.__module__ = __name__
    MonkeyParallelMultiAgentEnv.__qualname__ = "MonkeyParallelMultiAgentEnv"
    return MonkeyParallelMultiAgentEnv


def __getattr__(name: str) -> Any:
    if name == "MonkeyMultiAgentEnv":  # built on first use (imports Ray); pickles by this name
        return env_class()
    if name == "MonkeyParallelMultiAgentEnv":
        return parallel_env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MODEL_CONFIG",
    "POLICY_ID",
    "LegalActionSpace",
    "env_class",
    "module_spec",
    "parallel_env_class",
    "policy_mapping_fn",
    "ppo_config",
]
