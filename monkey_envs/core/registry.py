"""The game registry's mechanism: a table of games by name, and how a name becomes a game.

This module holds the machinery only -- it declares no game. The package's games (and the
default game) are declared in :mod:`monkey_envs.games`, which fills :data:`GAMES` through
:func:`declare_games`; a plug-in adds its game with :func:`register_game`. The core's faces and
tools resolve game names here, so nothing in :mod:`monkey_envs.core` imports the layer that
declares the games (the layering of docs/kit.md, "Layers").

Modelled on gymnasium's ``gymnasium.envs.registration`` (the registry and ``register`` live in
the core library; ``gymnasium/envs/__init__.py`` only calls ``register`` for its shipped envs) and
on PettingZoo's per-family ``all_environments`` tables.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

from monkey_envs.core.game import Game
from monkey_envs.core.state import set_game_lookup

#: name -> ``"module:Class"`` of the game's rules (a :class:`~monkey_envs.core.game.Game` subclass),
#: in declaration order.
GAMES: dict[str, str] = {}

#: Called with no arguments after every successful :func:`register_game` (the id registration
#: of :mod:`monkey_envs.registration` adds itself here, so a late game gets its env ids).
_LISTENERS: list[Callable[[], Any]] = []

#: The name :func:`default_game` returns (set by :func:`set_default_game`).
_DEFAULT: list[str] = []

#: Package whose games count as shipped (:func:`shipped_games`): this library's top package.
PACKAGE = __name__.partition(".")[0]
#: Namespace of the PettingZoo and gymnasium ids (:func:`pettingzoo_id`, :func:`gymnasium_id`).
NAMESPACE = PACKAGE


def declare_games(games: dict[str, str]) -> None:
    """Add ``name -> "module:Class"`` entries without importing them (the package's own games).

    Raises:
        ValueError: a name that is no identifier or that is taken by another path.
    """
    for name, path in games.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a game name must be a snake_case identifier, got {name!r}")
        if name in GAMES and GAMES[name] != path:
            raise ValueError(f"game {name!r} is already registered as {GAMES[name]!r}")
        GAMES[name] = path


def add_listener(callback: Callable[[], Any]) -> None:
    """Call ``callback()`` after every successful :func:`register_game` (once per distinct callback)."""
    if callback not in _LISTENERS:
        _LISTENERS.append(callback)


def set_default_game(name: str) -> None:
    """Name the game tools use when none is given (:func:`default_game`).

    Raises:
        ValueError: ``name`` is not in :data:`GAMES`.
    """
    if name not in GAMES:
        raise ValueError(f"default game {name!r} is not registered; known games: {sorted(GAMES)}")
    _DEFAULT[:] = [name]


def default_game() -> str:
    """The game named by :func:`set_default_game` (:data:`monkey_envs.games.DEFAULT_GAME`).

    Raises:
        ValueError: no default game was named.
    """
    if not _DEFAULT:
        raise ValueError("no default game is named (monkey_envs.games sets it); pass a game")
    return _DEFAULT[0]


def register_game(name: str, path: str | type[Game]) -> None:
    """Add a game to the registry and register its PettingZoo and gymnasium ids.

    Args:
        name: the game's snake_case name; must equal its ``spec.name``.
        path: ``"module:Class"`` of a :class:`~monkey_envs.core.game.Game` subclass, or the class.

    Raises:
        ValueError: a name that is taken by another game, a class whose ``spec.name`` differs, or
            one without a view (``view = View(render=...)``; every face renders).
    """
    if isinstance(path, type):
        path = f"{path.__module__}:{path.__qualname__}"
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a game name must be a snake_case identifier, got {name!r}")
    if name in GAMES and GAMES[name] != path:
        raise ValueError(f"game {name!r} is already registered as {GAMES[name]!r}")
    before = GAMES.get(name)
    GAMES[name] = path
    try:
        cls = game_class(name)
        if cls.spec.name != name:
            raise ValueError(f"game {path!r} has spec.name {cls.spec.name!r}, registered as {name!r}")
        if getattr(cls.view, "render", None) is None and cls.render is Game.render:
            raise ValueError(f"game {path!r} declares no view: set view = View(render=...) on the class")
    except Exception:
        if before is None:  # a failed re-registration keeps the entry that was there
            del GAMES[name]
        raise
    for callback in list(_LISTENERS):
        callback()


def game_class(name: str) -> type[Game]:
    """The rules class registered under ``name``.

    Raises:
        ValueError: ``name`` is not in :data:`GAMES`.
    """
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")
    module, cls = GAMES[name].split(":")
    obj: Any = importlib.import_module(module)
    for part in cls.split("."):
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, Game)):
        raise ValueError(f"game {name!r} points at {GAMES[name]!r}, which is not a Game subclass")
    return obj


def make_game(name: str, **kwargs: Any) -> Game:
    """Build the game ``name`` with its options (e.g. ``num_players=3``).

    Raises:
        ValueError: an unknown name, or options the game rejects.
    """
    return game_class(name)(**kwargs)


def resolve_game(game: str | Game, **kwargs: Any) -> Game:
    """A game object from a name plus options, or an already built game (then no options).

    Raises:
        ValueError: an unknown name, a non-game object, or options given with a game object.
    """
    if isinstance(game, Game):
        if kwargs:
            raise ValueError(
                f"game options {sorted(kwargs)} were given together with an already built game {game!r}; "
                "pass either a game name with options or a game object"
            )
        return game
    if isinstance(game, str):
        return make_game(game, **kwargs)
    raise ValueError(f"game must be a game name {sorted(GAMES)} or a Game object, got {game!r}")


def shipped_games() -> list[str]:
    """The registered games whose rules live in this package (:data:`PACKAGE`), in registry order.

    Games that plug-ins or tests register from their own modules are not among them.
    """
    return [n for n, path in GAMES.items() if path.partition(":")[0].split(".")[0] == PACKAGE]


@contextlib.contextmanager
def temporary_games() -> Iterator[dict[str, str]]:
    """A block whose game registrations are undone when it ends: :data:`GAMES` is restored to what
    it held before (entries, order and paths); yields :data:`GAMES`.

    For tests and tools that register a game for a while (a toy game for one test module). The
    PettingZoo / gymnasium ids registered meanwhile stay (registering them again is a no-op).
    """
    before = dict(GAMES)
    try:
        yield GAMES
    finally:
        GAMES.clear()
        GAMES.update(before)


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id of game ``name``, e.g. ``"monkey_envs/<name>-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.name}-v{spec.version}"


def gymnasium_id(name: str) -> str:
    """gymnasium registry id of game ``name``, e.g. ``"monkey_envs/<GymName>-v0"``."""
    spec = game_class(name).spec
    return f"{NAMESPACE}/{spec.gym_name}-v{spec.version}"


def add_import_option(parser: Any) -> None:
    """Add the ``--import MODULE`` option (repeatable) every tool offers, to an ``argparse`` parser.

    The modules are plugins that register games or agents (``register_game`` /
    ``register_agent``); :func:`import_plugins` imports them. Importing runs their code.
    """
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a module first (a plugin that registers games or agents); repeatable",
    )


def import_plugins(modules: list[str]) -> None:
    """Import ``modules`` in order (plugins that register games or agents).

    Raises:
        ValueError: a module that cannot be imported (the message names it).
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ValueError(f"cannot import plugin module {module!r}: {exc}") from exc


# Loaded states rebuild the game they name from this registry (the state module sits below it).
set_game_lookup(game_class, lambda: list(GAMES))

__all__ = [
    "GAMES",
    "NAMESPACE",
    "add_import_option",
    "add_listener",
    "declare_games",
    "default_game",
    "game_class",
    "gymnasium_id",
    "import_plugins",
    "make_game",
    "pettingzoo_id",
    "register_game",
    "resolve_game",
    "set_default_game",
    "shipped_games",
    "temporary_games",
]
