"""The games of monkey-envs, by name.

:data:`GAMES` maps a game's snake_case name to the ``"module:Class"`` path of its batched
rules. Everything else (the PettingZoo and gymnasium ids, the AEC shims, the SB3 VecEnv) is
derived from this dict and each game's :class:`~monkey_envs.core.spec.GameSpec`, so adding a
game is one line here plus a 5-line ``monkey_envs/<name>_v<version>.py`` shim::

    game = make_game("monkey_fun", num_players=3, variant="quick")
"""

from __future__ import annotations

import importlib
from typing import Any

from monkey_envs.core.game import Game

#: name -> ``"module:Class"`` of the game's rules (a :class:`~monkey_envs.core.game.Game` subclass).
GAMES: dict[str, str] = {
    "monkey_fun": "monkey_envs.monkey_fun:MonkeyFun",
    "funky_monkey": "monkey_envs.funky_monkey:FunkyMonkey",
}


def game_class(name: str) -> type[Game]:
    """The rules class registered under ``name``.

    Raises:
        ValueError: ``name`` is not in :data:`GAMES`.
    """
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")
    module, cls = GAMES[name].split(":")
    return getattr(importlib.import_module(module), cls)


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


__all__ = ["GAMES", "game_class", "make_game", "resolve_game"]
