"""Monkey Fun's network features for SB3 policies (torch is imported by this module; load it lazily).

Registered with :func:`agents.registry.register_features` by :mod:`agents.heuristics.monkey_fun`
as ``ppo.features: board`` (Monkey Fun's default) and ``ppo.features: greedy``.

``board`` (:class:`BoardActionExtractor`) is an inductive bias for Monkey Fun's "play a subset,
place on its field" actions:

1. the board pieces (``counts``, ``owner``, ``field_value``; observer first) form a
   ``(2P + 1, 6, 6)`` image; two 3x3 convolutions give each field an embedding that sees its
   neighbourhood (a line of 4 fits in their 5x5 receptive field);
2. each subset action's one-hot target field (``action_field``) gathers that field's embedding,
   so the features hold one block per action (``(15, E)``, zeros for a sum that is no field);
3. the rest of the observation (hand, supplies, box, discard, draw pile, turn, solo) and the
   board embedding averaged over fields are appended.

``greedy`` (:class:`GreedyActionExtractor`) adds to each action's block the terms of the greedy
heuristic's one-ply evaluation of that action
(:meth:`agents.heuristics.monkey_fun.GreedyMonkeyFun.action_features`: legal, the greedy choice,
win now, the opponents' danger and our threat afterwards, shape, secured fields, material, hand
flexibility, cards played, and the gap to the best greedy score). They are computed in numpy
from the observation alone (no hidden information), inside the extractor, so the environment,
saved models and every agent wrapper stay unchanged.

Both expose the per-action blocks the generic ``ppo.head: scorer`` reads
(``num_actions_with_field``, ``block_dim``, ``num_greedy``; see :mod:`training.policies`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
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

    @classmethod
    def check_game(cls, game: Any) -> None:
        """Raise ``ValueError`` unless ``game``'s observation has the board pieces."""
        missing = BOARD_PIECES - set(game.obs_layout.slices)
        if missing:
            raise ValueError(
                f"the board features need observation pieces {sorted(BOARD_PIECES)}; {game!r} lacks {sorted(missing)}"
            )

    def __init__(
        self,
        observation_space: spaces.Box,
        game: str,
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
        #: size of each action's block (target-field embedding and raw board channels)
        self.block_dim = channels + in_ch
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


class GreedyActionExtractor(BoardActionExtractor):
    """:class:`BoardActionExtractor` plus the greedy heuristic's evaluation terms per action.

    Output: ``(B, 15 * (E + C0 + G) + rest)`` -- the 15 per-action blocks first (board
    embedding of the target field, then the ``G = 12`` greedy terms of
    :meth:`~agents.heuristics.monkey_fun.GreedyMonkeyFun.action_features`), then the board
    average and the rest of the observation, as in :class:`BoardActionExtractor`. The greedy terms
    of the discard action (legal, chosen) are appended to the rest.

    The legal mask the terms need is rebuilt from the observation (a subset is legal when its
    sum is a field nobody else secured -- or also not one we secured, when the game forbids
    placing there), which is the rule of the normal and quick games.

    Raises:
        ValueError: not Monkey Fun, or the solo variant (no greedy terms there).
    """

    @classmethod
    def check_game(cls, game: Any) -> None:
        """Raise ``ValueError`` unless ``game`` is Monkey Fun's normal or quick game."""
        if game.spec.name != "monkey_fun" or getattr(game, "variant", None) == "solo":
            raise ValueError(f"the greedy features need Monkey Fun's normal or quick game, got {game!r} -- use 'board'")

    def __init__(
        self,
        observation_space: spaces.Box,
        game: str,
        game_options: dict[str, Any] | None = None,
        channels: int = 32,
    ) -> None:
        from agents.heuristics.monkey_fun import NUM_ACTION_FEATURES, GreedyMonkeyFun

        g = make_game(game, **(game_options or {}))
        self.check_game(g)
        super().__init__(observation_space, game, game_options, channels)
        self.greedy = GreedyMonkeyFun(g)
        self.num_greedy = NUM_ACTION_FEATURES
        self._owner = g.obs_layout.slices["owner"]
        self._own_ok = bool(g.place_on_own_secured)
        self._features_dim += self.num_actions_with_field * self.num_greedy + 2

    def legal_mask(self, obs: np.ndarray) -> np.ndarray:
        """``(B, 16) bool`` legal actions of observations ``(B, D)`` (normal and quick game rules)."""
        B = obs.shape[0]
        af = obs[:, self._af].reshape(B, self.num_actions_with_field, -1) > 0.5
        owner = obs[:, self._owner].reshape(B, af.shape[2], self.num_players) > 0.5
        blocked = owner[:, :, 1:].any(2)
        if not self._own_ok:
            blocked |= owner[:, :, 0]
        ok = (af & ~blocked[:, None, :]).any(2)  # the one-hot target field is not blocked
        mask = np.zeros((B, self.num_actions_with_field + 1), dtype=bool)
        mask[:, :-1] = ok
        mask[:, -1] = ~ok.any(1)
        return mask

    def fixed_part(self, obs: torch.Tensor) -> torch.Tensor:
        """``(B, 16, G) float32`` the greedy terms of observations ``obs (B, D)``: the part of the
        features that no parameter changes (a fit over fixed positions may compute it once)."""
        o = obs.detach().cpu().numpy().astype(np.float32, copy=False)
        return torch.as_tensor(self.greedy.action_features(o, self.legal_mask(o)), device=obs.device)

    def forward(self, obs: torch.Tensor, fixed: torch.Tensor | None = None) -> torch.Tensor:
        """The features of ``obs (B, D)``; ``fixed``: its :meth:`fixed_part` if computed already."""
        B = obs.shape[0]
        n = self.num_actions_with_field
        base = super().forward(obs)
        t = self.fixed_part(obs) if fixed is None else fixed
        blocks = base[:, : n * (self.block_dim)].reshape(B, n, self.block_dim)
        per_action = torch.cat([blocks, t[:, :n]], dim=2).reshape(B, -1)
        return torch.cat([per_action, base[:, n * self.block_dim :], t[:, n, :2]], dim=1)
