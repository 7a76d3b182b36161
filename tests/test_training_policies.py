"""The ``board`` feature extractor: one block of target-field features per subset action."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from gymnasium import spaces  # noqa: E402

from monkey_envs.monkey_fun import MonkeyFun  # noqa: E402
from training.policies import BoardActionExtractor  # noqa: E402


@pytest.mark.parametrize("players", [2, 4])
def test_actions_with_the_same_target_field_get_the_same_features(players):
    game = MonkeyFun(num_players=players)
    space = spaces.Box(-np.inf, np.inf, (game.obs_dim,), np.float32)
    ext = BoardActionExtractor(space, "monkey_fun", {"num_players": players}, channels=8)
    # hand 1 2 3 4: slots 0+1 (action 2) and slot 2 (action 3) both make 3; 1+2+3+4 = 10
    state = game.position(hands=[[1, 2, 3, 4]] + [[5, 6, 7, 8]] * (players - 1), board={3: [1] + [0] * (players - 1)})
    obs = game.observe(state, 0)
    feats = ext(torch.as_tensor(obs)).detach().numpy()[0]
    assert feats.shape == (ext.features_dim,)
    block = feats[: 15 * (8 + 2 * players + 1)].reshape(15, -1)
    af = game.obs_layout.unflatten(obs)["action_field"][0]
    assert af[2].argmax() == af[3].argmax()  # both actions target field number 3
    np.testing.assert_allclose(block[2], block[3])
    assert not np.allclose(block[2], block[14])  # 10 is another field


def test_extractor_rejects_a_mismatched_observation_space():
    space = spaces.Box(-np.inf, np.inf, (10,), np.float32)
    with pytest.raises(ValueError, match="does not match"):
        BoardActionExtractor(space, "monkey_fun", {"num_players": 2})
