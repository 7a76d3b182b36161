"""Adapters for RL libraries whose conventions differ from PettingZoo's (each imports its library lazily).

* :mod:`monkey_envs.integrations.rllib`: RLlib's new API stack (a ``MultiAgentEnv`` with the
  observation keys its ``ActionMaskingTorchRLModule`` expects, and the module spec).
"""
