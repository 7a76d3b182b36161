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


# ---------------------------------------------------------------- greedy features + scorer head
def _random_positions(game, rows=64, steps=14, seed=0):
    """Observations and masks of the player to move after ``steps`` random moves (live rows)."""
    from agents import RandomAgent

    agent = RandomAgent(game, seed)
    state = game.init(np.arange(seed, seed + rows))
    for _ in range(steps):
        state = game.step(state, agent.act(None, state.legal_action_mask))
    live = ~state.terminated
    obs = game.observe(state, np.maximum(state.current_player, 0))[live]
    return obs, state.legal_action_mask[live]


@pytest.mark.parametrize(
    "options",
    [{"num_players": 2}, {"num_players": 3, "variant": "quick"}, {"num_players": 2, "place_on_own_secured": False}],
)
def test_greedy_extractor_rebuilds_the_rules_legal_mask_from_the_observation(options):
    from training.policies import GreedyActionExtractor

    game = MonkeyFun(**options)
    space = spaces.Box(-np.inf, np.inf, (game.obs_dim,), np.float32)
    ext = GreedyActionExtractor(space, "monkey_fun", options, channels=4)
    for steps in (0, 10, 20, 30):
        obs, mask = _random_positions(game, steps=steps, seed=steps)
        np.testing.assert_array_equal(ext.legal_mask(obs), mask)


def test_greedy_terms_mark_the_greedy_choice_and_the_legal_actions():
    from agents.heuristics.monkey_fun import GreedyMonkeyFun

    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    obs, mask = _random_positions(game, rows=128, steps=12)
    terms = greedy.action_features(obs, mask)
    assert terms.shape == (obs.shape[0], 16, 12) and terms.dtype == np.float32
    np.testing.assert_array_equal(terms[:, :, 0], mask)
    np.testing.assert_array_equal(terms[:, :, 1].argmax(1), greedy.act(obs, mask))
    assert (terms[:, :, 1].sum(1) == 1).all()
    assert (terms[:, :15, 2:11][~mask[:, :15]] == 0).all()  # illegal placements carry no terms
    gap = terms[:, :, 11]
    assert (gap[terms[:, :, 1] == 1] == 0).all() and (gap >= 0).all()


def test_greedy_terms_see_a_winning_placement():
    from agents.heuristics.monkey_fun import GreedyMonkeyFun

    game = MonkeyFun(num_players=2)
    # seat 0 holds the first three fields of the top row (numbers 23, 1, 34); the fourth is 29 = 1 + 9 + 19
    state = game.position(hands=[[9, 19, 1, 2], [5, 6, 7, 8]], board={23: [1, 0], 1: [1, 0], 34: [1, 0]})
    obs = game.observe(state, 0)
    terms = GreedyMonkeyFun(game).action_features(obs, state.legal_action_mask)[0]
    hand = sorted([9, 19, 1, 2])
    win = [a for a in range(15) if sum(h for j, h in enumerate(hand) if (a + 1) >> j & 1) == 29]
    assert win and all(terms[a, 2] == 1 for a in win)
    assert terms[terms[:, 1].argmax(), 2] == 1  # greedy takes the win
    assert terms[[a for a in range(15) if a not in win], 2].max() == 0


def test_greedy_terms_are_refused_for_the_solo_game():
    from agents.heuristics.monkey_fun import GreedyMonkeyFun

    game = MonkeyFun(num_players=1)
    with pytest.raises(ValueError, match="solo"):
        GreedyMonkeyFun(game).action_features(np.zeros((1, game.obs_dim), np.float32), np.ones((1, 16), bool))


def _scorer_model(features="greedy"):
    from sb3_contrib import MaskablePPO

    from training.config import TrainConfig
    from training.run import build_env, build_model

    cfg = TrainConfig()
    cfg.env.num_envs = 4
    cfg.ppo.features = features
    cfg.ppo.head = "scorer"
    cfg.ppo.net_arch = [16, 16]
    cfg.ppo.board_channels = 4
    venv = build_env(cfg)
    model = build_model(cfg, venv)
    assert isinstance(model, MaskablePPO)
    return model


@pytest.mark.parametrize("features", ["board", "greedy"])
def test_scorer_head_scores_every_action_with_the_same_network(features):
    model = _scorer_model(features)
    policy = model.policy
    head = policy.mlp_extractor
    n, d = head.num_scored, head.block_dim
    game = MonkeyFun(num_players=2)
    obs, _ = _random_positions(game, rows=8, steps=6)
    with torch.no_grad():
        feats = policy.extract_features(torch.as_tensor(obs), policy.features_extractor)
        logits = head.forward_actor(feats)
        swapped = feats.clone()
        blocks = swapped[:, : n * d].view(-1, n, d)
        blocks[:, [0, 5]] = blocks[:, [5, 0]].clone()
        logits_swapped = head.forward_actor(swapped)
    assert logits.shape == (8, 16)
    torch.testing.assert_close(logits_swapped[:, [5, 0]], logits[:, [0, 5]])  # equivariant
    torch.testing.assert_close(logits_swapped[:, 1:5], logits[:, 1:5])
    assert isinstance(policy.action_net, torch.nn.Identity)
    opt_params = {id(p) for g in policy.optimizer.param_groups for p in g["params"]}
    assert opt_params == {id(p) for p in policy.parameters()}  # the optimizer trains the head


def test_a_scorer_model_saves_loads_and_plays_as_an_agent(tmp_path):
    from agents.policy import load_policy_agent, save_policy

    model = _scorer_model("greedy")
    game = MonkeyFun(num_players=2)
    save_policy(model, tmp_path / "model.zip", game)
    agent = load_policy_agent(tmp_path / "model.zip", game)
    obs, mask = _random_positions(game, rows=16, steps=8)
    acts = agent.act(obs, mask)
    assert mask[np.arange(16), acts].all()
