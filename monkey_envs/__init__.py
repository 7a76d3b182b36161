"""monkey-envs: batched numpy cores for four monkey board games, with PettingZoo, gymnasium
and Stable-Baselines3 faces. Importing the package registers every env id
(see :mod:`monkey_envs.registration`)."""

from monkey_envs.games import GAMES, make_game
from monkey_envs.registration import register_all as _register_all

__version__ = "0.1.0"

_register_all()

__all__ = ["GAMES", "__version__", "make_game"]
