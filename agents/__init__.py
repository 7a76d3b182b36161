"""Agents that act on batches: baselines, heuristics and loaded policies.

``make_agent(spec, game, seed)`` builds one by name (see :mod:`agents.registry`: one registry,
per game, each game's heuristics loaded on first use); ``agent_names(game)`` lists them.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent, RandomAgent, argmax_legal, random_legal
from agents.registry import PREFIXES, agent_names, make_agent, register_agent, register_prefix


# ---------------------------------------------------------------- the built-in name prefixes
# Declared here, not in agents.registry: the registry is the mechanism and imports none of the
# agent modules; these factories import theirs on first use (so the modules, which register into
# the registry, and the registry never import each other).
def _make_ppo(spec: str, game: Any, seed: int) -> Agent:
    from agents.policy import make_ppo_agent  # lazy: keeps torch out of plain agent use

    return make_ppo_agent(spec, game, seed)


def _make_ppo_pickle(spec: str, game: Any, seed: int) -> Agent:
    from agents.policy import make_pickle_ppo_agent  # lazy; unpickles a trusted SB3 zip (runs its code)

    return make_pickle_ppo_agent(spec, game, seed)


def _make_search(spec: str, game: Any, seed: int) -> Agent:
    from agents.search import make_search_from_spec  # lazy: the search agent imports this registry

    return make_search_from_spec(spec, game, seed)


def _make_rllib(spec: str, game: Any, seed: int) -> Agent:
    from agents.rllib_policy import make_rllib_agent  # lazy: imports Ray RLlib and torch

    return make_rllib_agent(spec, game, seed)


register_prefix("ppo:", _make_ppo)
register_prefix("rllib:", _make_rllib)
register_prefix("ppo+pickle:", _make_ppo_pickle)
register_prefix("mcts:", _make_search)

__all__ = [
    "PREFIXES",
    "Agent",
    "RandomAgent",
    "agent_names",
    "argmax_legal",
    "make_agent",
    "random_legal",
    "register_agent",
    "register_prefix",
]
