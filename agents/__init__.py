"""Agents that act on batches: baselines, heuristics and loaded policies.

``make_agent(spec, game, seed)`` builds one by name (see :mod:`agents.registry`: one registry,
per game, each game's heuristics loaded on first use); ``agent_names(game)`` lists them.
"""

from __future__ import annotations

from agents.base import Agent, RandomAgent, argmax_legal, random_legal
from agents.registry import PREFIXES, agent_names, make_agent, register_agent, register_prefix

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
