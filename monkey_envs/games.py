"""The games of monkey-envs, by name: the package's declarations into the game registry.

The registry's mechanism -- the table, :func:`register_game`, :func:`make_game`,
:func:`resolve_game` -- lives in :mod:`monkey_envs.core.registry`; this module only declares the
four shipped games and names the default one, and re-exports the mechanism under its public
names. :data:`GAMES` (the same dict as ``monkey_envs.core.registry.GAMES``) maps a game's
snake_case name to the ``"module:Class"`` path of its batched rules. Everything else -- the
PettingZoo and gymnasium ids, the AEC / Parallel envs, the gymnasium and SB3 vector envs, the
arena, ``training.run``, the benchmarks and the conformance suite -- is derived from this dict and
each game's :class:`~monkey_envs.core.spec.GameSpec` and hooks, so adding a game to the package is
one line in :data:`SHIPPED_GAMES` (see docs/kit.md, "The game kit: how to add a game").
A game outside the package registers itself with :func:`register_game`::

    register_game("toy_dice", "my_package.toy_dice:ToyDice")
    game = make_game("toy_dice", num_players=3)
"""

from __future__ import annotations

from monkey_envs.core.registry import (
    GAMES,
    add_import_option,
    declare_games,
    game_class,
    import_plugins,
    make_game,
    register_game,
    resolve_game,
    set_default_game,
)

#: The games this package ships: name -> ``"module:Class"`` of the rules, declared into :data:`GAMES`
#: at import (without importing the games' modules).
SHIPPED_GAMES: dict[str, str] = {
    "monkey_fun": "monkey_envs.monkey_fun:MonkeyFun",
    "funky_monkey": "monkey_envs.funky_monkey:FunkyMonkey",
    "monki": "monkey_envs.monki:Monki",
    "four_monkeys": "monkey_envs.four_monkeys:FourMonkeys",
}

#: The game a tool uses when none is named (a gym face built without a game, the RLlib helper,
#: ``training.run``'s schema default, the benchmarks).
DEFAULT_GAME: str = "monkey_fun"

declare_games(SHIPPED_GAMES)
set_default_game(DEFAULT_GAME)


__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "SHIPPED_GAMES",
    "add_import_option",
    "game_class",
    "import_plugins",
    "make_game",
    "register_game",
    "resolve_game",
]
