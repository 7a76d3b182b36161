"""monkey-envs: batched numpy cores for four monkey board games, with PettingZoo, gymnasium
and Stable-Baselines3 faces. Importing the package registers every env id."""

__version__ = "0.1.0"
