"""monkey-envs: batched numpy cores for four monkey board games, with PettingZoo, gymnasium
and Stable-Baselines3 faces. Importing the package registers every env id
(see :mod:`monkey_envs.registration`).

Every registered game ``<name>`` (version ``v``) has a versioned PettingZoo module
``monkey_envs.<name>_v<v>`` with ``env`` / ``raw_env`` (and ``parallel_env`` for simultaneous
games): the game's documentation shim file where there is one (``monkey_envs/monkey_fun_v0.py``),
else a module generated on first use -- so a new game needs no file outside its own package.
Every form works: ``import monkey_envs.<name>_v<v>``, ``from monkey_envs.<name>_v<v> import
env``, ``from monkey_envs import <name>_v<v>`` and ``monkey_envs.<name>_v<v>`` (a finder on
``sys.meta_path`` serves the generated modules: :mod:`monkey_envs.core.versioned`).

A game's older versions are refused in every form, with an error naming the current module:
``spec.version`` is the only version of a game's rules this package plays (what changed is in
the version history on each game's page and in docs/changelog.md).
"""

from __future__ import annotations

import types

from monkey_envs.core.versioned import install_finder, versioned_module
from monkey_envs.games import GAMES, make_game, register_game
from monkey_envs.registration import register_all as _register_all

__version__ = "0.1.0"

_register_all()


install_finder()


def __getattr__(name: str) -> types.ModuleType:
    return versioned_module(name)


__all__ = ["GAMES", "__version__", "make_game", "register_game", "versioned_module"]
