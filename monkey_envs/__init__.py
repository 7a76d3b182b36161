"""monkey-envs: batched numpy cores for four monkey board games, with PettingZoo, gymnasium
and Stable-Baselines3 faces. Importing the package registers every env id
(see :mod:`monkey_envs.registration`).

Every registered game ``<name>`` (version ``v``) has a versioned PettingZoo module
``monkey_envs.<name>_v<v>`` with ``env`` / ``raw_env`` (and ``parallel_env`` for simultaneous
games): the game's documentation shim file where there is one (``monkey_envs/monkey_fun_v0.py``),
else a module generated on first use by :func:`versioned_module` -- so a new game needs no file
outside its own package.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

from monkey_envs.games import GAMES, make_game, register_game
from monkey_envs.registration import register_all as _register_all

__version__ = "0.1.0"

_register_all()


def _versioned_names() -> dict[str, str]:
    from monkey_envs.games import game_class

    out = {}
    for name in GAMES:
        spec = game_class(name).spec
        out[f"{spec.name}_v{spec.version}"] = name
    return out


def versioned_module(module_name: str) -> types.ModuleType:
    """The module ``monkey_envs.<name>_v<version>`` of a registered game (imported or generated).

    Raises:
        AttributeError: no registered game has that versioned name.
    """
    full = f"{__name__}.{module_name}"
    if full in sys.modules:
        return sys.modules[full]
    if importlib.util.find_spec(full) is not None:  # the game ships a shim file
        return importlib.import_module(full)
    game = _versioned_names().get(module_name)
    if game is None:
        raise AttributeError(f"module {__name__!r} has no attribute {module_name!r}")
    from monkey_envs.core.aec import make_aec_api, spec_page

    module = types.ModuleType(full, f"{game} -- PettingZoo API of the registered game (generated).")
    module.env, module.raw_env = make_aec_api(game, full)
    names = ["env", "raw_env"]
    from monkey_envs.games import game_class

    if game_class(game).spec.simultaneous:
        from monkey_envs.core.parallel import make_parallel_api

        module.parallel_env = make_parallel_api(game, full)
        names.append("parallel_env")
    module.__all__ = names
    module.__doc__ = (module.__doc__ or "") + spec_page(game)
    sys.modules[full] = module
    return module


def __getattr__(name: str) -> types.ModuleType:
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return versioned_module(name)


__all__ = ["GAMES", "__version__", "make_game", "register_game", "versioned_module"]
