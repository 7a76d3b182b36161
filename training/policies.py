"""Feature extractors for SB3 policies (torch is imported by this module; load it lazily).

``ppo.features: mlp`` (SB3's default) flattens the observation. ``ppo.features: board`` uses
:class:`BoardActionExtractor`, an inductive bias for Monkey Fun's "play a subset, place on its
field" actions:

1. the board pieces (``counts``, ``owner``, ``field_value``; observer first) form a
   ``(2P + 1, 6, 6)`` image; two 3x3 convolutions give each field an embedding that sees its
   neighbourhood (a line of 4 fits in their 5x5 receptive field);
2. each subset action's one-hot target field (``action_field``) gathers that field's embedding,
   so the features hold one block per action (``(15, E)``, zeros for a sum that is no field);
3. the rest of the observation (hand, supplies, box, discard, draw pile, turn, solo) and the
   board embedding averaged over fields are appended.

The policy and value MLPs (``ppo.net_arch``) and SB3's linear action head follow unchanged.
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from monkey_envs.games import make_game

#: Observation pieces the board extractor reads (besides the rest, which it appends as they are).
BOARD_PIECES = frozenset({"action_field", "counts", "owner", "field_value"})


class BoardActionExtractor(BaseFeaturesExtractor):
    """Per-action target-field features from a convolution over the Monkey Fun board.

    Args:
        observation_space: the env's ``Box((D,), float32)``.
        game: game name (only ``"monkey_fun"``).
        game_options: the game's options (the observation layout depends on the player count).
        channels: convolution channels ``E`` (the per-field embedding size).

    Raises:
        ValueError: a game without the board pieces, or a layout that does not match the space.
    """

    def __init__(
        self,
        observation_space: spaces.Box,
        game: str = "monkey_fun",
        game_options: dict[str, Any] | None = None,
        channels: int = 32,
    ) -> None:
        g = make_game(game, **(game_options or {}))
        layout = g.obs_layout
        needed = BOARD_PIECES
        if not needed <= set(layout.slices):
            raise ValueError(
                f"the board extractor needs observation pieces {sorted(needed)}; {game!r} has {sorted(layout.slices)}"
            )
        if observation_space.shape != (layout.size,):
            raise ValueError(f"observation space {observation_space.shape} does not match {g!r} ({layout.size},)")
        shapes = {p.name: p.shape for p in layout.pieces}
        self.num_actions_with_field, num_fields = shapes["action_field"]
        self.num_players = shapes["counts"][1]
        in_ch = 2 * self.num_players + 1
        board_idx = [layout.slices[k] for k in ("counts", "owner", "field_value")]
        other = [p.name for p in layout.pieces if p.name not in needed]
        other_idx = [layout.slices[k] for k in other]
        other_size = sum(s.stop - s.start for s in other_idx)
        features = self.num_actions_with_field * (channels + in_ch) + (channels + in_ch) + other_size
        super().__init__(observation_space, features_dim=features)
        self.side = round(num_fields**0.5)
        self._af = layout.slices["action_field"]
        self._board = board_idx
        self._other = other_idx
        self.conv = nn.Sequential(
            nn.Conv2d(in_ch, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        B = obs.shape[0]
        nf = self.side * self.side
        counts = obs[:, self._board[0]].reshape(B, nf, self.num_players)
        owner = obs[:, self._board[1]].reshape(B, nf, self.num_players)
        value = obs[:, self._board[2]].reshape(B, nf, 1)
        raw = torch.cat([counts, owner, value], dim=2)  # (B, 36, C0)
        img = raw.transpose(1, 2).reshape(B, -1, self.side, self.side)
        emb = self.conv(img).reshape(B, -1, nf).transpose(1, 2)  # (B, 36, E)
        fields = torch.cat([emb, raw], dim=2)  # (B, 36, E + C0)
        action_field = obs[:, self._af].reshape(B, self.num_actions_with_field, nf)
        per_action = torch.bmm(action_field, fields)  # (B, 15, E + C0)
        rest = [obs[:, s] for s in self._other]
        return torch.cat([per_action.reshape(B, -1), fields.mean(1), *rest], dim=1)


#: ``ppo.features`` name -> extractor class (``None``: SB3's flatten).
EXTRACTORS: dict[str, type[BaseFeaturesExtractor] | None] = {"mlp": None, "board": BoardActionExtractor}
