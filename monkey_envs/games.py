"""The games of monkey-envs, by name: the game registry.

:data:`GAMES` maps a game's snake_case name to the ``"module:Class"`` path of its batched
rules. Everything else -- the PettingZoo and gymnasium ids, the AEC / Parallel envs, the
gymnasium and SB3 vector envs, the arena, ``training.run``, the benchmarks and the conformance
suite -- is derived from this dict and each game's :class:`~monkey_envs.core.spec.GameSpec` and
hooks, so adding a game to the package is one line here (see docs/kit.md, "The game kit: how to add a game").
A game outside the package registers itself with :func:`register_game`::

    register_game("toy_dice", "my_package.toy_dice:ToyDice")
    game = make_game("toy_dice", num_players=3)
"""

from __future__ import annotations

import importlib
from typing import Any

from monkey_envs.core.game import Game

#: name -> ``"module:Class"`` of the game's rules (a :class:`~monkey_envs.core.game.Game` subclass).
GAMES: dict[str, str] = {
    "monkey_fun": "monkey_envs.monkey_fun:MonkeyFun",
    "funky_monkey": "monkey_envs.funky_monkey:FunkyMonkey",
    "monki": "monkey_envs.monki:Monki",
    "four_monkeys": "monkey_envs.four_monkeys:FourMonkeys",
}

#: The game a tool uses when none is named (``training.run``'s embedded default): the first entry.
DEFAULT_GAME: str = next(iter(GAMES))


def register_game(name: str, path: str | type[Game]) -> None:
    """Add a game to the registry and register its PettingZoo and gymnasium ids.

    Args:
        name: the game's snake_case name; must equal its ``spec.name``.
        path: ``"module:Class"`` of a :class:`~monkey_envs.core.game.Game` subclass, or the class.

    Raises:
        ValueError: a name that is taken by another game, or a class whose ``spec.name`` differs.
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
    except Exception:
        if before is None:  # a failed re-registration keeps the entry that was there
            del GAMES[name]
        raise
    from monkey_envs.registration import register_all

    register_all()


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


__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "add_import_option",
    "game_class",
    "import_plugins",
    "make_game",
    "register_game",
    "resolve_game",
]
