"""RLlib over the batched core: one env runner steps many games per call of the core.

RLlib's ``SingleAgentEnvRunner`` builds its env with ``gymnasium.make_vec``; with
``gym_env_vectorize_mode="vector_entry_point"`` and a callable env it calls that callable once
with ``env_config | {"num_envs": N}`` and steps the vector env it returns. :class:`MaskedVectorEnv`
is that callable: the project's :class:`~monkey_envs.core.gym_vector.GameVectorEnv` (``N`` games
against built-in opponents, one call of the core per step of all ``N``, in gymnasium's
``NEXT_STEP`` autoreset mode, which RLlib's runner expects), with the observation RLlib's
action-masking module reads, ``{"observations": (N, D) float32, "action_mask": (N, A) float32}``
(:class:`MaskedVectorEnv`). Its action space's ``sample()`` draws legal actions from the last
masks (:class:`LegalMultiDiscrete`), so RLlib's random actions are legal too.

Usage (Ray is imported by :func:`ppo_config` only)::

    from monkey_envs.integrations.rllib_vector import ppo_config

    config = ppo_config("monkey_fun", opponent="greedy", num_envs_per_env_runner=64)
    algo = config.env_runners(num_env_runners=2).build_algo()
    algo.train()

``env_config`` keys: ``game`` (a registered name), the options of
:class:`~monkey_envs.core.gym_vector.GameVectorEnv` (``opponent``, ``learner_seat``,
``learner_actions``) and the game's own options (``num_players``, ...). Rewards are the learner
seat's; an ended game's next step shows its new game (the action sent for it is ignored, and its
mask in the step that ended is all zeros).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from monkey_envs.core.gym_vector import GameVectorEnv
from monkey_envs.integrations.rllib import DEFAULT_MODEL_CONFIG, _require_ray

#: ``env_config`` keys that are not options of the env or the game.
_RLLIB_KEYS = ("num_envs", "worker_index", "num_workers", "vector_index", "remote")


class LegalMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete([A] * N)`` whose ``sample()`` without a mask draws each env's action from its last mask.

    An env whose mask is all zeros (its game just ended) gets action 0, which the env ignores.
    Pickles as a plain ``MultiDiscrete``.
    """

    def __init__(self, num_actions: int, num_envs: int, env: MaskedVectorEnv) -> None:
        super().__init__(np.full(num_envs, num_actions))
        self._env = env

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        """Legal actions for the last masks (no arguments), else ``MultiDiscrete.sample``."""
        masks = self._env.last_mask
        if mask is not None or probability is not None or masks is None:
            return super().sample(mask=mask, probability=probability)
        keys = self.np_random.random(masks.shape) * (masks > 0)
        return keys.argmax(1).astype(self.dtype)

    def __reduce__(self) -> tuple[type, tuple[np.ndarray]]:
        return (spaces.MultiDiscrete, (np.asarray(self.nvec),))


class MaskedVectorEnv(gym.vector.VectorEnv):
    """``N`` games on the batched core with RLlib's masked observation (see the module docs).

    Args:
        config: RLlib's ``env_config`` (an ``EnvContext``, or a dict): ``num_envs`` (games ``N``,
            default 1), ``game`` (a registered name) and the options of
            :class:`~monkey_envs.core.gym_vector.GameVectorEnv` and of the game. RLlib's own
            context keys (worker and vector indices) are ignored.

    Raises:
        ValueError: an unknown game, opponent or option.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        options = {k: v for k, v in dict(config or {}).items() if k not in _RLLIB_KEYS}
        num_envs = int(dict(config or {}).get("num_envs", 1))
        game = options.pop("game", None)
        if "autoreset_mode" in options:
            raise ValueError("autoreset_mode is fixed to NextStep: RLlib's env runner expects it")
        self.env = GameVectorEnv(num_envs=num_envs, game=game, autoreset_mode=AutoresetMode.NEXT_STEP, **options)
        A = int(self.env.single_action_space.n)
        self.num_envs = int(num_envs)
        self.single_observation_space = spaces.Dict(
            {"observations": self.env.single_observation_space, "action_mask": spaces.Box(0.0, 1.0, (A,), np.float32)}
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = self.env.single_action_space
        self.last_mask: np.ndarray | None = None
        self.action_space = LegalMultiDiscrete(A, self.num_envs, self)

    def _obs(self, obs: np.ndarray, infos: dict[str, Any]) -> dict[str, np.ndarray]:
        self.last_mask = infos["action_mask"].astype(np.float32)
        return {"observations": obs, "action_mask": self.last_mask}

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every game (``seed``: env ``i`` gets ``seed + i``)."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._obs(obs, infos), infos

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One step of all ``N`` games: ``actions (N,)`` the learners' (legal for their masks)."""
        obs, rewards, terminated, truncated, infos = self.env.step(np.asarray(actions, dtype=np.int64))
        return self._obs(obs, infos), rewards, terminated, truncated, infos

    def close(self, **kwargs: Any) -> None:
        """Close the games (a no-op when construction failed)."""
        env = self.__dict__.get("env")
        if env is not None:
            env.close()


def ppo_config(
    game: str,
    *,
    num_envs_per_env_runner: int = 64,
    model_config: dict[str, Any] | None = None,
    **env_options: Any,
) -> Any:
    """RLlib ``PPOConfig`` training one learner against built-in opponents on the batched core.

    Args:
        game: a registered game name.
        num_envs_per_env_runner: games each env runner steps per call of the core.
        model_config: RLlib model config of the action-masking module (default
            :data:`~monkey_envs.integrations.rllib.DEFAULT_MODEL_CONFIG`).
        **env_options: ``opponent``, ``learner_seat``, ``learner_actions`` and the game's options.

    Raises:
        ImportError: Ray RLlib is not installed.
        ValueError: an unknown game, opponent or option (checked here, before RLlib builds anything).
    """
    _require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_config = {"game": game, **env_options}
    MaskedVectorEnv(env_config).close()  # bad options fail here, clearly
    cfg = dict(DEFAULT_MODEL_CONFIG if model_config is None else model_config)
    return (
        PPOConfig()
        .environment(MaskedVectorEnv, env_config=env_config)
        .env_runners(num_envs_per_env_runner=int(num_envs_per_env_runner), gym_env_vectorize_mode="vector_entry_point")
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=cfg))
    )


__all__ = ["LegalMultiDiscrete", "MaskedVectorEnv", "ppo_config"]
