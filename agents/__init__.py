"""Agents that act on batches: baselines, heuristics and loaded policies.

``make_agent(spec, game, seed)`` builds one by name; see :data:`AGENTS` for the names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent, RandomAgent, argmax_legal, random_legal
from agents.heuristics.monkey_fun import GreedyMonkeyFun

#: name -> (factory(game, seed) -> Agent, games it supports or None for any game).
AGENTS: dict[str, tuple[Callable[..., Any], tuple[str, ...] | None]] = {
    "random": (RandomAgent, None),
    "greedy": (GreedyMonkeyFun, ("monkey_fun",)),
}


def register_agent(name: str, factory: Callable[..., Any], games: tuple[str, ...] | None = None) -> None:
    """Add an agent factory ``factory(game, seed) -> Agent`` under ``name``."""
    AGENTS[name] = (factory, games)


#: name prefix -> factory(spec, game, seed) -> Agent, for names that carry an argument
#: (``"ppo:runs/.../model.zip"`` loads a saved MaskablePPO model; torch is imported lazily).
PREFIXES: dict[str, Callable[..., Any]] = {}


def register_prefix(prefix: str, factory: Callable[..., Any]) -> None:
    """Route names starting with ``prefix`` (e.g. ``"ppo:"``) to ``factory(name, game, seed)``."""
    PREFIXES[prefix] = factory


def _make_ppo(spec: str, game: Any, seed: int) -> Agent:
    from agents.policy import make_ppo_agent  # lazy: keeps torch out of plain agent use

    return make_ppo_agent(spec, game, seed)


register_prefix("ppo:", _make_ppo)


def make_agent(spec: str | Agent, game: Any, seed: int = 0) -> Agent:
    """Build an agent for ``game`` from a name (``"random"``, ``"greedy"``, ...).

    A name with a registered prefix (``"ppo:path/to/model.zip"``) goes to that prefix's
    factory. An object that already has ``act`` is returned unchanged.

    Raises:
        ValueError: unknown name, or an agent that does not play this game.
    """
    if hasattr(spec, "act"):
        return spec  # type: ignore[return-value]
    if not isinstance(spec, str):
        raise ValueError(f"agent must be a name or an object with act(obs, mask), got {spec!r}")
    for prefix, make in PREFIXES.items():
        if spec.startswith(prefix):
            return make(spec, game, seed)
    if spec not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}; known: {sorted(AGENTS)}")
    factory, games = AGENTS[spec]
    if games is not None and game.spec.name not in games:
        raise ValueError(f"agent {spec!r} plays {games}, not {game.spec.name!r}")
    return factory(game, seed)


# Funky Monkey's heuristics register themselves; imported here, after register_agent exists,
# so make_agent("track", game) works without importing the module first.
import agents.heuristics.funky_monkey  # noqa: E402,F401

__all__ = [
    "AGENTS",
    "PREFIXES",
    "Agent",
    "RandomAgent",
    "argmax_legal",
    "make_agent",
    "random_legal",
    "register_agent",
    "register_prefix",
]
