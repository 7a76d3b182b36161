"""The one agent registry: names -> factories, per game, loaded lazily.

There is one way to add an agent: :func:`register_agent` (at import of the module that defines
it). An agent registered with ``game=None`` plays any game (``random``); one registered with
``game="<name>"`` plays that game only, so two games may each have their own ``greedy``.

Lazy loading: the first time a game's agents are looked up, the registry imports that game's
heuristics module ``agents.heuristics.<game name>`` if the project has one (which registers its
agents), so ``make_agent("track", game)`` works without importing anything first. A game from
elsewhere (a plugin, a test's toy game) registers its agents itself, next to the game.

Names with a registered prefix carry an argument: ``"ppo:runs/<run>/model.zip"`` loads a saved
policy from its safe files (:mod:`agents.policy`, torch imported lazily); ``"ppo+pickle:PATH"``
unpickles a trusted SB3 zip; ``"mcts:simulations=64,rollout=greedy"`` is the search agent with
settings (:mod:`agents.search`; plain ``mcts`` is registered by every game that sets its defaults).
These built-in prefixes are declared in ``agents/__init__.py``: this module is the mechanism and
imports none of the agent modules that register into it.

The env library (:mod:`monkey_envs`) never imports this package: its faces take an agent
object, a factory ``factory(game, seed)``, the built-in ``"random"``, or a name that they
resolve through the ``monkey_envs.agents`` entry point, which this project points at
:func:`make_agent` (``pyproject.toml``; loaded by ``monkey_envs.registration``, never by the core).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

from agents.base import Agent, RandomAgent
from monkey_envs.core.opponents import resolve_agent

#: Factories ``factory(game, seed) -> Agent``: ``_AGENTS[game_name][agent_name]``; key ``None``
#: holds the agents that play any game.
_AGENTS: dict[str | None, dict[str, Callable[..., Any]]] = {None: {"random": RandomAgent}}
#: name prefix -> factory(name, game, seed) -> Agent, for names that carry an argument.
PREFIXES: dict[str, Callable[..., Any]] = {}
#: Games whose heuristics module was looked for already.
_LOADED: set[str] = set()
#: Where each game's heuristics live (by convention); ``{game}`` is the game's spec name.
HEURISTICS_MODULE = "agents.heuristics.{game}"


def register_agent(name: str, factory: Callable[..., Any], game: str | None = None) -> None:
    """Add an agent ``factory(game, seed) -> Agent`` under ``name`` for one game (or any: ``None``).

    Raises:
        ValueError: a bad name, a name with a registered prefix, or a non-callable factory.
    """
    if not isinstance(name, str) or not name or any(c in name for c in "+ ,="):
        raise ValueError(f"an agent name must be a non-empty string without '+', ',', '=' or spaces, got {name!r}")
    if any(name.startswith(p) for p in PREFIXES):
        raise ValueError(f"agent name {name!r} starts with a registered prefix {sorted(PREFIXES)}")
    if not callable(factory):
        raise ValueError(f"the factory of agent {name!r} must be callable, got {factory!r}")
    _AGENTS.setdefault(game, {})[name] = factory


def register_prefix(prefix: str, factory: Callable[..., Any]) -> None:
    """Route names starting with ``prefix`` (e.g. ``"ppo:"``) to ``factory(name, game, seed)``."""
    PREFIXES[prefix] = factory


def _load_game(game_name: str) -> None:
    if game_name in _LOADED:
        return
    _LOADED.add(game_name)
    module = HEURISTICS_MODULE.format(game=game_name)
    if importlib.util.find_spec(module) is not None:
        importlib.import_module(module)


def agent_factories(game: Any) -> dict[str, Callable[..., Any]]:
    """``name -> factory`` of every agent that plays ``game`` (its own and the generic ones)."""
    name = game.spec.name
    _load_game(name)
    return {**_AGENTS[None], **_AGENTS.get(name, {})}


def agent_names(game: Any) -> list[str]:
    """Sorted names of the agents that play ``game`` (prefixed names such as ``ppo:PATH`` aside)."""
    return sorted(agent_factories(game))


def make_agent(spec: str | Agent | Callable[..., Any], game: Any, seed: int = 0) -> Agent:
    """Build an agent for ``game`` from a name (``"random"``, ``"greedy"``, ``"ppo:PATH"``, ...).

    An object that already has ``act`` is returned unchanged; a callable (a factory) is called
    as ``factory(game, seed)``.

    Raises:
        ValueError: an unknown name, or a name that does not play this game.
    """
    if not isinstance(spec, str):  # an agent object or a factory: the env library's own resolution
        return resolve_agent(spec, game, seed)
    for prefix, make in PREFIXES.items():
        if spec.startswith(prefix):
            return make(spec, game, seed)
    factories = agent_factories(game)
    if spec not in factories:
        others = sorted(g for g, names in _AGENTS.items() if g is not None and spec in names)
        where = f" (it plays {others})" if others else ""
        raise ValueError(
            f"unknown agent {spec!r} for {game.spec.name!r}{where}; known: {sorted(factories)} and the prefixes "
            f"{sorted(PREFIXES)}"
        )
    return factories[spec](game, seed)


# ====================================================================== network features
#: ``ppo.features`` extractors: ``_FEATURES[game_name][name] = "module:Class"`` (torch modules,
#: imported only when used); ``_DEFAULT_FEATURES[game_name]`` is the game's ``auto`` choice.
_FEATURES: dict[str, dict[str, str]] = {}
_DEFAULT_FEATURES: dict[str, str] = {}
#: Feature names every game has: ``mlp`` (SB3's flatten) and ``auto`` (the game's default).
GENERIC_FEATURES = ("auto", "mlp")


def register_features(name: str, path: str, game: str, default: bool = False) -> None:
    """Register a features extractor ``"module:Class"`` as ``ppo.features: name`` for ``game``.

    The class is an SB3 ``BaseFeaturesExtractor`` taking ``(observation_space, game, game_options,
    channels)``; it may define a classmethod ``check_game(game)`` raising ``ValueError`` for a
    configuration it cannot serve. ``default=True`` makes it the game's ``ppo.features: auto``.
    """
    if name in GENERIC_FEATURES:
        raise ValueError(f"{name!r} is a generic features name")
    if ":" not in path:
        raise ValueError(f"features path must be 'module:Class', got {path!r}")
    _FEATURES.setdefault(game, {})[name] = path
    if default:
        _DEFAULT_FEATURES[game] = name


def features_names(game: Any) -> list[str]:
    """``ppo.features`` names that ``game`` accepts (``auto``, ``mlp`` and its own)."""
    _load_game(game.spec.name)
    return [*GENERIC_FEATURES, *sorted(_FEATURES.get(game.spec.name, {}))]


def resolve_features(name: str, game: Any) -> str:
    """``name`` with ``auto`` replaced by the game's default (``mlp`` when it registers none)."""
    _load_game(game.spec.name)
    if name == "auto":
        return _DEFAULT_FEATURES.get(game.spec.name, "mlp")
    return name


def _import_path(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def features_class(name: str, game: Any) -> type | None:
    """The extractor class of ``ppo.features: name`` for ``game`` (``None`` for ``mlp``).

    Raises:
        ValueError: a name the game does not register, or a configuration the class refuses.
    """
    name = resolve_features(name, game)
    if name == "mlp":
        return None
    path = _FEATURES.get(game.spec.name, {}).get(name)
    if path is None:
        raise ValueError(f"{game.spec.name!r} has no features {name!r}; known: {features_names(game)}")
    cls = _import_path(path)
    check = getattr(cls, "check_game", None)
    if check is not None:
        check(game)
    return cls


def features_class_named(class_name: str) -> type | None:
    """A registered extractor class by its class name (old saved models name ``training.policies.<Class>``)."""
    for paths in _FEATURES.values():
        for path in paths.values():
            if path.rpartition(":")[2] == class_name:
                return _import_path(path)
    from monkey_envs.games import GAMES, game_class

    for game in list(GAMES):  # the class may belong to a game whose heuristics are not loaded yet
        if game not in _LOADED:
            _load_game(game_class(game).spec.name)
            found = features_class_named(class_name) if game in _FEATURES else None
            if found is not None:
                return found
    return None


__all__ = [
    "GENERIC_FEATURES",
    "HEURISTICS_MODULE",
    "PREFIXES",
    "agent_factories",
    "agent_names",
    "features_class",
    "features_names",
    "make_agent",
    "register_agent",
    "register_features",
    "register_prefix",
    "resolve_features",
]
