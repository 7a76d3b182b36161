"""Registers every game of :data:`monkey_envs.games.GAMES` with PettingZoo and gymnasium.

Run on ``import monkey_envs`` (and, through the registry's listener, by
:func:`monkey_envs.games.register_game` for a game added later). For a game with spec name ``n``, gymnasium name ``G`` and version ``v`` it registers

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
import importlib.metadata
from typing import Any

import gymnasium
import pettingzoo

from monkey_envs.core.opponents import set_name_resolver
from monkey_envs.core.registry import GAMES, NAMESPACE, add_listener, game_class, gymnasium_id, pettingzoo_id

#: Keyword defaults of every registered gymnasium id (see the module docstring).
GYM_DEFAULTS = {"illegal_action": "lose"}
#: Entry-point group through which agent names (other than ``"random"``) are resolved. This
#: project's ``pyproject.toml`` points it at ``agents.registry:make_agent``; the env library
#: never imports an agent package by name.
AGENT_ENTRY_POINT_GROUP = "monkey_envs.agents"


def resolve_agent_name(name: str, game: Any, seed: int = 0) -> Any:
    """The agent called ``name`` for ``game``, from the installed agent library's entry point.

    The faces' opponents given by name (``gymnasium.make(..., opponent="greedy")``, an
    ``OpponentPool`` of names) come here: the core's :func:`~monkey_envs.core.opponents.resolve_agent`
    calls the resolver this module installs (:func:`~monkey_envs.core.opponents.set_name_resolver`).

    Raises:
        ValueError: no agent library is installed, or the library does not know ``name``.
    """
    resolvers = [ep.load() for ep in importlib.metadata.entry_points(group=AGENT_ENTRY_POINT_GROUP)]
    if not resolvers:
        raise ValueError(
            f"opponent {name!r}: no agent library is installed to resolve names (entry point group "
            f"{AGENT_ENTRY_POINT_GROUP!r}); pass an agent object or a factory(game, seed), or 'random'"
        )
    return resolvers[0](name, game, seed)


def _aec_env(name: str, **kwargs):
    from monkey_envs.core.versioned import aec_api

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


# A game registered later (``register_game``) gets its ids at once: the registry calls this back.
add_listener(register_all)
# Agent names in the faces resolve through the agent library's entry point (docs/kit.md, "Layers").
set_name_resolver(resolve_agent_name)

__all__ = [
    "AGENT_ENTRY_POINT_GROUP",
    "GYM_DEFAULTS",
    "NAMESPACE",
    "gymnasium_id",
    "pettingzoo_id",
    "register_all",
    "resolve_agent_name",
]
