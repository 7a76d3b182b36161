"""Monki's network features for SB3 policies (torch is imported by this module; load it lazily).

Registered with :func:`agents.registry.register_features` by :mod:`agents.heuristics.monki` as
``ppo.features: lookahead``. :class:`LookaheadFeatures` appends to the flat observation, for
every action, the ``lookahead`` agent's value of it (:meth:`LookaheadMonki.scores`: expected
fruit at the end of the turn; scaled by 1/4 and clipped to ``[-0.25, 2.5]``, so a winning action
reads 2.5 and an action it does not consider -0.25) and a one-hot of the action the agent would
play. The values are computed in numpy from the observation alone (the legal mask is rebuilt from
it, :meth:`LookaheadMonki.legal_from_obs`), inside the extractor, so the environment, saved models
and every agent wrapper stay unchanged -- the policy can learn where to trust the search and
where to depart from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from monkey_envs.games import make_game


class LookaheadFeatures(BaseFeaturesExtractor):
    """``(B, D + 2A)``: the observation, the lookahead's scaled value of each action, its choice.

    Args:
        observation_space: the env's ``Box((D,), float32)``.
        game: game name (only ``"monki"``).
        game_options: the game's options.
        channels: unused (the extractor has no weights).

    Raises:
        ValueError: not Monki, or a space that does not match the game's observation.
    """

    @classmethod
    def check_game(cls, game: Any) -> None:
        """Raise ``ValueError`` unless ``game`` is Monki."""
        if game.spec.name != "monki":
            raise ValueError(f"the lookahead features need Monki, got {game!r}")

    def __init__(
        self,
        observation_space: spaces.Box,
        game: str,
        game_options: dict[str, Any] | None = None,
        channels: int = 0,
    ) -> None:
        from agents.heuristics.monki import LookaheadMonki

        g = make_game(game, **(game_options or {}))
        self.check_game(g)
        D = g.obs_layout.size
        if observation_space.shape != (D,):
            raise ValueError(f"observation space {observation_space.shape} does not match {g!r} ({D},)")
        super().__init__(observation_space, features_dim=D + 2 * g.num_actions)
        self.agent = LookaheadMonki(g)
        self.num_actions = g.num_actions

    def terms(self, obs: np.ndarray) -> np.ndarray:
        """``(B, 2A) float32`` scaled values and the one-hot choice of observations ``(B, D)``."""
        mask = self.agent.legal_from_obs(obs)
        sc = self.agent.scores(obs, mask)
        sc = np.where(mask, sc, -1e18)
        choice = np.zeros(sc.shape, np.float32)
        rows = np.flatnonzero(mask.any(1))
        choice[rows, sc[rows].argmax(1)] = 1.0
        skip = self.agent.game.A_SKIP
        sc[:, skip] = np.where(sc[:, skip] > 1e8, 4.0, -1.0)  # recharge or not
        val = np.clip(sc / 4.0, -0.25, 2.5).astype(np.float32)
        return np.concatenate([val, choice], 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        o = obs.detach().cpu().numpy().astype(np.float32, copy=False)
        t = torch.as_tensor(self.terms(o), device=obs.device)
        return torch.cat([obs, t], dim=1)
