"""Registers every game of :data:`monkey_envs.games.GAMES` with PettingZoo and gymnasium.

Run on ``import monkey_envs``. For a game with spec name ``n``, gymnasium name ``G`` and
version ``v`` it registers

* PettingZoo (AEC): ``monkey_envs/<n>-v<v>`` -> ``monkey_envs.<n>_v<v>:env``, so
  ``pettingzoo.make("aec", "monkey_envs/monkey_fun-v0", num_players=3)`` works;
* gymnasium: ``monkey_envs/<G>-v<v>`` with ``entry_point`` the single-agent
  :class:`~monkey_envs.core.gym_single.GameEnv` and ``vector_entry_point`` the native batched
  :class:`~monkey_envs.core.gym_vector.GameVectorEnv` (``gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")``).

Registering is idempotent: ids already present are left alone, so importing or reloading the
package again neither fails nor warns. Nothing here imports torch or Stable-Baselines3.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from monkey_envs.games import GAMES, game_class

NAMESPACE = "monkey_envs"


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id of game ``name``, e.g. ``"monkey_envs/monkey_fun-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.name}-v{spec.version}"


def gymnasium_id(name: str) -> str:
    """gymnasium registry id of game ``name``, e.g. ``"monkey_envs/MonkeyFun-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.gym_name}-v{spec.version}"


def register_all() -> list[str]:
    """Register every game not yet registered; returns the ids added by this call."""
    added = []
    for name in GAMES:
        spec = game_class(name).spec
        pz_id = pettingzoo_id(name)
        if pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=f"monkey_envs.{spec.name}_v{spec.version}:env")
            added.append(pz_id)
        gym_id = gymnasium_id(name)
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="monkey_envs.core.gym_single:GameEnv",
                vector_entry_point="monkey_envs.core.gym_vector:GameVectorEnv",
                kwargs={"game": name},
            )
            added.append(gym_id)
    return added
