"""Adapters for RL libraries whose conventions differ from PettingZoo's (each imports its library lazily).

* :mod:`monkey_envs.integrations.rllib`: RLlib's new API stack (a ``MultiAgentEnv`` over the AEC
  env, and one over the Parallel env of a simultaneous game, with the observation keys its
  ``ActionMaskingTorchRLModule`` expects and mask-following random actions, and the module spec).
"""
