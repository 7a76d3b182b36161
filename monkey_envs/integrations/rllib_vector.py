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

import json
from pathlib import Path
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
    Pickles as a plain ``MultiDiscrete`` (the masks stay with the env); a copy or deep copy keeps
    the class and the env it reads.
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

    def __copy__(self) -> LegalMultiDiscrete:
        return LegalMultiDiscrete(int(self.nvec[0]), int(self.nvec.size), self._env)

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalMultiDiscrete:
        return self.__copy__()


class MaskedVectorEnv(gym.vector.VectorEnv):
    """``N`` games on the batched core with RLlib's masked observation (see the module docs).

    Args:
        config: RLlib's ``env_config`` (an ``EnvContext``, or a dict): ``num_envs`` (games ``N``,
            default 1), ``game`` (a registered name) and the options of
            :class:`~monkey_envs.core.gym_vector.GameVectorEnv` and of the game; ``opponent`` may be
            a list of names, a mix (with ``opponent_weights``, and ``opponent_memory``: the pool's
            win-rate memory in episodes), as ``training.run``'s ``env.opponent``; its pool is
            :attr:`pool`. RLlib's own context keys (worker and vector indices) are ignored.

    Raises:
        ValueError: an unknown game, opponent or option.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        given = dict(config or {})
        options = {k: v for k, v in given.items() if k not in _RLLIB_KEYS}
        num_envs = int(given.get("num_envs", 1))
        game = options.pop("game", None)
        weights = options.pop("opponent_weights", None)
        memory = options.pop("opponent_memory", None)
        #: The opponent pool of a mix (``None`` for a single opponent): self-play adds snapshots to it.
        self.pool: Any = None
        if isinstance(options.get("opponent"), (list, tuple)):  # a mix, as training.run's env.opponent
            from monkey_envs.core.opponents import OpponentPool

            options["opponent"] = self.pool = OpponentPool(list(options["opponent"]), weights=weights, memory=memory)
        elif weights is not None or memory is not None:
            raise ValueError("opponent_weights and opponent_memory need a list of opponents (a mix)")
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
    env_config = {"game": game, **env_options}
    MaskedVectorEnv(env_config).close()  # bad options fail here, clearly, with Ray or without
    _require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    cfg = dict(DEFAULT_MODEL_CONFIG if model_config is None else model_config)
    return (
        PPOConfig()
        .environment(MaskedVectorEnv, env_config=env_config)
        .env_runners(num_envs_per_env_runner=int(num_envs_per_env_runner), gym_env_vectorize_mode="vector_entry_point")
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=cfg))
    )


#: ``format`` of the description :func:`save_module` writes beside the weights.
MODULE_FORMAT = "monkey_envs.rllib_module/1"
MODULE_WEIGHTS = "rllib_module.safetensors"
MODULE_DESCRIPTION = "rllib_module.json"


def _module(game: Any, model_config: dict[str, Any], inference_only: bool) -> Any:
    """A fresh ``ActionMaskingTorchRLModule`` for ``game``'s observation and actions."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    A = int(game.num_actions)
    obs_space = spaces.Dict(
        {
            "observations": spaces.Box(-np.inf, np.inf, (int(game.obs_dim),), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (A,), np.float32),
        }
    )
    spec = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=obs_space,
        action_space=spaces.Discrete(A),
        model_config=dict(model_config),
        inference_only=bool(inference_only),
    )
    return spec.build()


def save_module(algo: Any, game: Any, folder: Any) -> Path:
    """Write the trained policy of ``algo`` in the project's safe format: weights and description, no pickle.

    ``folder/rllib_module.safetensors`` holds the tensors of ``algo.get_module()`` (the env
    runner's policy), ``folder/rllib_module.json`` the game it plays (name and options), its
    observation and action sizes and the module's RLlib model config; :func:`load_module` rebuilds the module from them (``agents``: the ``rllib:FOLDER``
    agent). Ray's own checkpoint (for resuming) is what ``algo.save_to_path`` writes beside it.

    Returns:
        The description file's path.
    """
    import torch
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    module = algo.get_module()
    # torch's own state_dict: RLlib's modules shadow the name with their checkpoint state
    state = {k: v.detach().cpu().contiguous() for k, v in torch.nn.Module.state_dict(module).items()}
    save_file(state, str(folder / MODULE_WEIGHTS))
    desc = {
        "format": MODULE_FORMAT,
        "game": game.identity,
        "obs_dim": int(game.obs_dim),
        "num_actions": int(game.num_actions),
        "model_config": _plain(module.model_config),
        "inference_only": bool(module.inference_only),
        "module": "ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule",
    }
    path = folder / MODULE_DESCRIPTION
    path.write_text(json.dumps(desc, indent=2, sort_keys=True))
    return path


def _plain(config: Any) -> dict[str, Any]:
    """An RLlib model config (a dict or a dataclass) as plain JSON data."""
    import dataclasses as dc

    data = dc.asdict(config) if dc.is_dataclass(config) else dict(config or {})
    return json.loads(json.dumps(data, default=str))


def load_module(folder: Any, game: Any) -> Any:
    """The module :func:`save_module` wrote to ``folder``, for ``game`` (same name, options and sizes).

    Raises:
        ValueError: a missing or damaged file, another game or other sizes (naming the file).
        ImportError: Ray RLlib is not installed.
    """
    _require_ray()
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    folder = Path(folder)
    path = folder / MODULE_DESCRIPTION
    try:
        desc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a readable RLlib module description ({e})") from None
    if not isinstance(desc, dict) or desc.get("format") != MODULE_FORMAT:
        raise ValueError(f"{path}: not a {MODULE_FORMAT} description")
    if desc.get("game") != game.identity:
        raise ValueError(f"{path}: trained on {desc.get('game')!r}, not {game.identity!r}")
    if desc.get("obs_dim") != game.obs_dim or desc.get("num_actions") != game.num_actions:
        raise ValueError(f"{path}: sizes {desc.get('obs_dim')}/{desc.get('num_actions')} do not fit {game!r}")
    if not isinstance(desc.get("model_config"), dict):
        raise ValueError(f"{path}: 'model_config' must be a dict")
    module = _module(game, desc["model_config"], desc.get("inference_only") is True)
    weights = folder / MODULE_WEIGHTS
    try:
        state = load_file(str(weights))
        torch.nn.Module.load_state_dict(module, state, strict=True)
    except (OSError, SafetensorError, RuntimeError, ValueError) as e:
        raise ValueError(f"{weights}: the weights do not load into the described module ({e})") from None
    module.eval()
    return module


__all__ = [
    "MODULE_DESCRIPTION",
    "MODULE_WEIGHTS",
    "LegalMultiDiscrete",
    "MaskedVectorEnv",
    "load_module",
    "ppo_config",
    "save_module",
]
