"""A policy trained with RLlib on the batched core, as an agent: ``rllib:FOLDER``.

``FOLDER`` holds what :func:`monkey_envs.integrations.rllib_vector.save_module` wrote (the
module's weights as safetensors and a JSON description: no pickle is read). The agent builds
RLlib's ``ActionMaskingTorchRLModule`` from the description, loads the weights and plays the
legal action of highest logit (deterministic), so the arena, ``monkey_envs.play`` and
``agents.decision_report`` use it like any other agent. Needs Ray RLlib and torch installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import argmax_legal


class RLlibPolicyAgent:
    """The greedy policy of a saved RLlib module for ``game``.

    Args:
        folder: the folder :func:`~monkey_envs.integrations.rllib_vector.save_module` wrote.
        game: the game it plays (checked against the description).
        deterministic: play the legal action of highest logit (``True``) or sample one from the
            masked logits' softmax (a self-play snapshot that samples, as the SB3 path's).
        seed: the sampling generator's seed.

    Raises:
        ValueError: a missing or damaged module, or one trained for another game or size.
    """

    def __init__(self, folder: str, game: Any, deterministic: bool = True, seed: int = 0) -> None:
        from monkey_envs.integrations.rllib_vector import load_module

        self.module = load_module(folder, game)
        self.name = f"rllib:{folder}"
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, A) float32`` masked action logits of the module for ``obs (B, D)`` and ``mask (B, A)``."""
        import torch

        batch = {
            "obs": {
                "observations": torch.as_tensor(np.asarray(obs, dtype=np.float32)),
                "action_mask": torch.as_tensor(np.asarray(mask).astype(np.float32)),
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return out["action_dist_inputs"].numpy()

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` per row the legal action of highest logit, or one sampled from the masked softmax."""
        logits = self.logits(obs, mask)
        if self.deterministic:
            return argmax_legal(logits, mask)
        m = np.asarray(mask).astype(bool)
        gumbel = -np.log(-np.log(self.rng.random(m.shape) * (1 - 1e-12) + 1e-300))  # Gumbel-max: a softmax sample
        return np.where(m, logits.astype(np.float64) + gumbel, -np.inf).argmax(1).astype(np.int64)


def make_rllib_agent(spec: str, game: Any, seed: int) -> RLlibPolicyAgent:
    """The agent of ``rllib:FOLDER`` (``seed`` unused: the policy is deterministic)."""
    return RLlibPolicyAgent(spec[len("rllib:") :], game)
