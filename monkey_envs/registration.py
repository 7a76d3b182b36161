"""Registers every game of :data:`monkey_envs.games.GAMES` with PettingZoo and gymnasium.

Run on ``import monkey_envs`` (and by :func:`monkey_envs.games.register_game` for a game added
later). For a game with spec name ``n``, gymnasium name ``G`` and version ``v`` it registers

* PettingZoo AEC: ``monkey_envs/<n>-v<v>``, so
  ``pettingzoo.make("aec", "monkey_envs/monkey_fun-v0", num_players=3)`` works (the same env as
  ``monkey_envs.<n>_v<v>.env``);
* PettingZoo Parallel, for simultaneous-move games (``spec.dynamics == "simultaneous"``):
  ``pettingzoo.make("parallel", "monkey_envs/<n>-v<v>")``;
* gymnasium: ``monkey_envs/<G>-v<v>`` with ``entry_point`` the single-agent
  :class:`~monkey_envs.core.gym_single.GameEnv` and ``vector_entry_point`` the native batched
  :class:`~monkey_envs.core.gym_vector.GameVectorEnv` (``gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")``). The registered ids default to
  ``illegal_action="lose"`` (an illegal move ends the episode as a loss, as PettingZoo's
  ``env()`` does), so gymnasium's and SB3's ``check_env`` and algorithms without action masks
  run on them unchanged; pass ``illegal_action="raise"`` for a ``ValueError`` instead.

Registering is idempotent: ids already present are left alone, so importing or reloading the
package again neither fails nor warns. Nothing here imports torch or Stable-Baselines3.
"""

from __future__ import annotations

import functools

import gymnasium
import pettingzoo

from monkey_envs.games import GAMES, game_class

NAMESPACE = "monkey_envs"
#: Keyword defaults of every registered gymnasium id (see the module docstring).
GYM_DEFAULTS = {"illegal_action": "lose"}


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id of game ``name``, e.g. ``"monkey_envs/monkey_fun-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.name}-v{spec.version}"


def gymnasium_id(name: str) -> str:
    """gymnasium registry id of game ``name``, e.g. ``"monkey_envs/MonkeyFun-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.gym_name}-v{spec.version}"


def _aec_env(name: str, **kwargs):
    from monkey_envs.core.aec import aec_api

    return aec_api(name)[0](**kwargs)


def _parallel_env(name: str, **kwargs):
    from monkey_envs.core.parallel import parallel_env

    return parallel_env(name, **kwargs)


def register_all() -> list[str]:
    """Register every game not yet registered; returns the ids added by this call."""
    added = []
    for name in list(GAMES):
        spec = game_class(name).spec
        pz_id = pettingzoo_id(name)
        if pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=functools.partial(_aec_env, name))
            added.append(pz_id)
        if spec.simultaneous and pz_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", pz_id, entry_point=functools.partial(_parallel_env, name))
            added.append(f"parallel:{pz_id}")
        gym_id = gymnasium_id(name)
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="monkey_envs.core.gym_single:GameEnv",
                vector_entry_point="monkey_envs.core.gym_vector:GameVectorEnv",
                kwargs={"game": name, **GYM_DEFAULTS},
            )
            added.append(gym_id)
    return added
