"""Behaviour cloning computes a parameter-free features extractor once (``training.pretrain.fixed_features``).

Rule checked: caching is an optimisation only -- the cloned policy (weights, accuracy, losses)
is the same as when the features are recomputed for every minibatch; extractors that train
(or SB3's flatten) are never cached.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402

import training.pretrain as PT  # noqa: E402
from monkey_envs.four_monkeys import FourMonkeys  # noqa: E402


class _Squares(BaseFeaturesExtractor):
    """A fixed nonlinear function of the observation: ``[obs, obs**2, sin(3 obs)]`` (no parameters)."""

    def __init__(self, observation_space: spaces.Box) -> None:
        super().__init__(observation_space, features_dim=3 * observation_space.shape[0])
        self.calls = 0

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return torch.cat([obs, obs * obs, torch.sin(3 * obs)], dim=1)


class _Learned(_Squares):
    """The same, plus a trainable scale: its features change while cloning, so they must not be cached."""

    def __init__(self, observation_space: spaces.Box) -> None:
        super().__init__(observation_space)
        self.scale = torch.nn.Parameter(torch.ones(1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return super().forward(obs) * self.scale


class _Model:
    def __init__(self, policy):
        self.policy = policy


def _policy(game, extractor, seed=0):
    torch.manual_seed(seed)
    kwargs = {"net_arch": [32], "activation_fn": torch.nn.ReLU}
    if extractor is not None:
        kwargs["features_extractor_class"] = extractor
    return MaskableActorCriticPolicy(
        spaces.Box(-1, 1, (game.obs_dim,), np.float32), spaces.Discrete(game.num_actions), lambda _: 1e-3, **kwargs
    )


@pytest.fixture(scope="module")
def data():
    game = FourMonkeys(num_players=2, ticks=10, rounds=1)
    return game, PT.record_teacher_games(game, "smart", 4, seed=0, gamma=0.99)


def test_cached_features_clone_exactly_like_recomputed_ones(data, monkeypatch):
    game, d = data
    cached = _policy(game, _Squares)
    report_cached = PT.behaviour_clone(_Model(cached), d, epochs=3, batch_size=64, learning_rate=1e-2, seed=1)
    calls_cached = cached.features_extractor.calls
    monkeypatch.setattr(PT, "fixed_features", lambda policy, obs, chunk=8192: None)
    fresh = _policy(game, _Squares)
    report_fresh = PT.behaviour_clone(_Model(fresh), d, epochs=3, batch_size=64, learning_rate=1e-2, seed=1)
    for a, b in zip(cached.state_dict().values(), fresh.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert report_cached["accuracy"] == report_fresh["accuracy"]
    for h1, h2 in zip(report_cached["history"], report_fresh["history"], strict=True):
        assert h1["cross_entropy"] == pytest.approx(h2["cross_entropy"], rel=1e-5)
    # the point of the cache: the extractor ran once per 8192 decisions, not once per minibatch
    batches = 3 * -(-d.actions.size // 64)
    assert calls_cached == -(-d.actions.size // 8192) < batches <= fresh.features_extractor.calls


def test_only_parameter_free_shared_extractors_are_cached(data):
    game, d = data
    obs = torch.as_tensor(d.obs[:10])
    feats = PT.fixed_features(_policy(game, _Squares), obs)
    assert feats.shape == (10, 3 * game.obs_dim)
    torch.testing.assert_close(feats[:, : game.obs_dim], obs)
    assert PT.fixed_features(_policy(game, _Learned), obs) is None  # it trains
    assert PT.fixed_features(_policy(game, None), obs) is None  # SB3's flatten: nothing to save
