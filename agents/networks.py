"""Policy networks for SB3: the ``ppo.head`` classes (torch is imported by this module; load it lazily).

``ppo.features`` picks the features extractor: ``mlp`` (SB3's default: flatten the observation;
works for every game) or a name the game registers with :func:`agents.registry.register_features`
(``auto``: the game's registered default, else ``mlp``). Monkey Fun registers ``board`` and
``greedy`` (:mod:`agents.heuristics.monkey_fun_features`).

``ppo.head: scorer`` (:class:`ActionScorerPolicy`) replaces the flat MLP + linear head by one
scoring network shared by the actions that have a per-action block in the features: the logit of
action ``a`` is ``MLP([block_a, context])`` with ``context`` an MLP embedding of the rest of the
features (the remaining actions' logits are a linear function of the context). The same weights
score every action, so what is learned about one carries over to all (an equivariant head, as in
action-conditioned policies); the value network reads the whole feature vector. It needs an
extractor that exposes ``num_actions_with_field`` (actions with a block) and ``block_dim``
(+ ``num_greedy`` extra terms per block).

The heads live in the agent layer because a loaded policy (:mod:`agents.policy`) rebuilds its
network from them; ``training`` builds new ones from the same :data:`HEADS` (``training.policies``
re-exports them).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class ScorerHead(nn.Module):
    """Shared per-action scoring network (the ``mlp_extractor`` of :class:`ActionScorerPolicy`).

    Args:
        num_scored: actions with a block (15), scored by the shared network.
        block_dim: size of each action's block.
        context_dim: size of the rest of the feature vector.
        num_actions: all actions (the ones after ``num_scored`` get logits from the context).
        hidden: hidden sizes of the context, scorer and value MLPs.
        activation: hidden activation class.

    ``forward(features)`` returns ``(logits (B, num_actions), value latent (B, hidden[-1]))``.
    """

    def __init__(
        self,
        num_scored: int,
        block_dim: int,
        context_dim: int,
        num_actions: int,
        hidden: list[int],
        activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.num_scored = num_scored
        self.block_dim = block_dim
        self.latent_dim_pi = num_actions
        self.latent_dim_vf = hidden[-1]

        def mlp(inp: int) -> nn.Sequential:
            layers: list[nn.Module] = []
            for h in hidden:
                layers += [nn.Linear(inp, h), activation()]
                inp = h
            return nn.Sequential(*layers)

        self.context = mlp(context_dim)
        self.scorer = nn.Sequential(mlp(block_dim + hidden[-1]), nn.Linear(hidden[-1], 1))
        self.others = nn.Linear(hidden[-1], num_actions - num_scored)
        self.value = mlp(num_scored * block_dim + context_dim)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        B = features.shape[0]
        n, d = self.num_scored, self.block_dim
        blocks = features[:, : n * d].reshape(B, n, d)
        ctx = self.context(features[:, n * d :])
        joined = torch.cat([blocks, ctx[:, None, :].expand(B, n, ctx.shape[1])], dim=2)
        scores = self.scorer(joined).squeeze(-1)  # (B, n): one network, every action
        return torch.cat([scores, self.others(ctx)], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(features)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose action logits come from a :class:`ScorerHead`.

    Needs a features extractor with per-action blocks (``board`` or ``greedy``): it reads
    ``num_actions_with_field`` and the block size from it. ``net_arch["pi"]`` gives the hidden
    sizes of the head's networks. The logits are the head's output (SB3's linear action layer is
    replaced by the identity).
    """

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        n = getattr(fe, "num_actions_with_field", None)
        if n is None:
            raise ValueError("ppo.head 'scorer' needs ppo.features 'board' or 'greedy' (per-action blocks)")
        block = fe.block_dim + getattr(fe, "num_greedy", 0)
        hidden = list(self.net_arch["pi"] if isinstance(self.net_arch, dict) else self.net_arch) or [64]
        self.mlp_extractor = ScorerHead(
            num_scored=n,
            block_dim=block,
            context_dim=fe.features_dim - n * block,
            num_actions=int(self.action_space.n),
            hidden=hidden,
            activation=self.activation_fn,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the head's output already is the logits
        with torch.no_grad():  # small last layers: a near-uniform policy to start with
            self.mlp_extractor.scorer[-1].weight.mul_(0.01)
            self.mlp_extractor.others.weight.mul_(0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def extractor_class(name: str, game: Any) -> type[BaseFeaturesExtractor] | None:
    """The features extractor class of ``ppo.features: name`` for ``game`` (``None``: SB3's flatten).

    Raises:
        ValueError: a name the game does not register (the message lists the ones it does).
    """
    from agents.registry import features_class

    return features_class(name, game)


#: ``ppo.head`` name -> policy class (``None``: SB3's MLP + linear head).
HEADS: dict[str, type | None] = {"linear": None, "scorer": ActionScorerPolicy}


__all__ = ["HEADS", "ActionScorerPolicy", "ScorerHead", "extractor_class"]
