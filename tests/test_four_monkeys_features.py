"""4 Monkeys ``ppo.features: plan`` (agents/heuristics/four_monkeys_features.py).

Rules checked: the legal mask rebuilt from an observation is the engine's (``kernels.mask_rows``)
for every action but reveals, where it is a superset; the features carry the action ``smart``
takes in that position (from the seat's observation only) and are the same for a row whatever
else is in the batch; the registry serves them for 4 Monkeys with one playing area only.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from gymnasium import spaces  # noqa: E402

import agents  # noqa: E402
from agents.heuristics.four_monkeys import SmartAgent  # noqa: E402
from agents.heuristics.four_monkeys_features import (  # noqa: E402
    PlanExtractor,
    _FirstChoice,
    legal_mask_from_obs,
    plan_features,
)
from monkey_envs.four_monkeys import FourMonkeys  # noqa: E402


def _positions(game, games=12, seed=0):
    """Observations and true masks of every decision of heuristic + random games (all seats)."""
    lineup = [agents.make_agent(n, game, i) for i, n in enumerate(["smart", "bluffer", "random", "honest"])]
    state = game.init(np.arange(seed, seed + games))
    obs_l, mask_l = [], []
    while not state.terminated.all():
        cp = state.current_player
        rows = np.flatnonzero(cp >= 0)
        sub = state.take(rows)
        obs = game.observe(sub, cp[rows])
        mask = sub.legal_action_mask
        obs_l.append(obs)
        mask_l.append(mask.copy())
        acts = np.zeros(cp.size, np.int64)
        who = (np.arange(rows.size) + cp[rows]) % 4
        for k in range(4):
            sel = who == k
            if sel.any():
                acts[rows[sel]] = lineup[k].act(obs[sel], mask[sel])
        state = game.step(state, acts)
    return np.concatenate(obs_l), np.concatenate(mask_l).astype(bool)


@pytest.fixture(scope="module", params=[{"num_players": 4}, {"num_players": 3, "banana_skins": True}])
def positions(request):
    game = FourMonkeys(ticks=16, rounds=2, **request.param)
    return game, *_positions(game)


def test_rebuilt_mask_is_the_engines_except_reveals_where_it_is_a_superset(positions):
    game, obs, mask = positions
    rebuilt = legal_mask_from_obs(game, obs)
    rev = slice(game.a_reveal, game.a_reveal + game.num_tiles)
    other = np.ones(game.num_actions, bool)
    other[rev] = False
    np.testing.assert_array_equal(rebuilt[:, other], mask[:, other])
    assert (mask[:, rev] <= rebuilt[:, rev]).all()
    # every kind of action occurs in these games (the check is not vacuous)
    NT = game.num_tiles
    for cols in (slice(0, 10), slice(game.a_grab, game.a_burn), slice(game.a_burn, game.a_burn + NT)):
        assert mask[:, cols].any() and not mask[:, cols].all()
    assert mask[:, game.a_swap].any() and not mask[:, game.a_swap].all()


def test_features_carry_smarts_action(positions):
    game, obs, mask = positions
    feats = plan_features(game, obs)
    D, A = game.obs_dim, game.num_actions
    np.testing.assert_array_equal(feats[:, :D], obs)
    smart_1h = feats[:, D : D + A]
    smart = SmartAgent(game, 0)
    smart.rng = _FirstChoice()
    truth = smart.act(obs, mask)
    rev = (truth >= game.a_reveal) & (truth < game.a_reveal + game.num_tiles)
    rows = np.flatnonzero(~rev)
    assert rows.size > 0.9 * truth.size
    agree = smart_1h[rows].argmax(1) == truth[rows]
    assert (smart_1h[rows].sum(1) == 1).all()
    assert agree.mean() > 0.99, agree.mean()
    # a reveal marks the reveal candidates, among them smart's
    assert (smart_1h[np.flatnonzero(rev), truth[rev]] == 1).all()


def test_features_of_a_row_do_not_depend_on_the_batch(positions):
    game, obs, _ = positions
    full = plan_features(game, obs[:300])
    rng = np.random.default_rng(0)
    pick = rng.choice(300, 40, replace=False)
    np.testing.assert_array_equal(plan_features(game, obs[pick]), full[pick])


def test_extractor_is_registered_for_one_area_only():
    from agents.registry import features_class

    g4 = FourMonkeys(num_players=4)
    assert features_class("plan", g4) is PlanExtractor
    ext = PlanExtractor(spaces.Box(-1, 1, (g4.obs_dim,), np.float32), "four_monkeys", {"num_players": 4})
    assert not list(ext.parameters())  # a fixed function: behaviour cloning caches it
    obs = torch.zeros((2, g4.obs_dim))
    assert ext(obs).shape == (2, ext.features_dim)
    with pytest.raises(ValueError, match="one playing area"):
        features_class("plan", FourMonkeys(num_players=8))
    with pytest.raises(ValueError, match="does not match"):
        PlanExtractor(spaces.Box(-1, 1, (5,), np.float32), "four_monkeys", {"num_players": 4})
