"""Training: ``python -m training.run`` trains, saves and evaluates a policy (see :mod:`training.run`).

The config (:mod:`training.config`) is a typed dataclass tree loaded from YAML in ``configs/``.
Torch and Stable-Baselines3 are imported only when a run starts.
"""
