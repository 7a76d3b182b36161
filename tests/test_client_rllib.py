"""RLlib (new API stack) through :mod:`monkey_envs.integrations.rllib`: its env runner and a masked PPO step.

Rules checked: the adapter's env passes RLlib's own multi-agent env checker and gives
RLlib's ``ActionMaskingTorchRLModule`` the ``{"observations", "action_mask"}`` dict it reads;
RLlib's ``MultiAgentEnvRunner`` samples whole episodes with that module in which every action
taken is legal under the observed mask and the end rewards are the rules' (zero-sum); one PPO
iteration (``num_env_runners=0``, a tiny batch) samples, trains and reports finite losses;
importing the adapter imports no Ray; bad ``env_config`` is a ``ValueError``. Skipped when Ray
RLlib is not installed (the ``clients`` extra installs it; CI does).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from monkey_envs.integrations import rllib as mrl


@pytest.fixture(scope="module")
def rllib():
    pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[clients]')")
    pytest.importorskip("torch", reason="RLlib's torch modules need torch")
    import ray

    yield ray
    if ray.is_initialized():
        ray.shutdown()


def test_importing_the_adapter_imports_no_ray():
    code = (
        "import sys, monkey_envs.integrations.rllib as m; assert not any(k.split('.')[0] == 'ray' for k in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_env_passes_rllibs_checker_with_the_module_keys(rllib):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = mrl.MonkeyMultiAgentEnv({"game": "monkey_fun", "num_players": 2})
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    o = obs[agent]
    assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
    assert env.observation_space[agent].contains(o)
    assert o["action_mask"].sum() > 0 and set(np.unique(o["action_mask"])) <= {0.0, 1.0}


@pytest.mark.parametrize("bad", [{"game": "no_such_game"}, {"game": 3}, {"game": "monkey_fun", "num_players": 99}])
def test_bad_env_config_is_a_value_error(rllib, bad):
    with pytest.raises(ValueError):
        mrl.MonkeyMultiAgentEnv(bad)
    with pytest.raises(ValueError):
        mrl.ppo_config(**bad)


@pytest.mark.parametrize(("game", "players"), [("monkey_fun", 2), ("funky_monkey", 3)])
def test_env_runner_samples_masked_episodes(rllib, game, players):
    """RLlib's ``MultiAgentEnvRunner`` with the action-masking module plays whole, legal games."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    config = (
        mrl.ppo_config(game, num_players=players, model_config={"head_fcnet_hiddens": [32]})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .debugging(seed=1)
    )
    runner = MultiAgentEnvRunner(config=config)
    episodes = runner.sample(num_episodes=2, random_actions=False)
    done = [e for e in episodes if e.is_done]
    assert len(done) >= 2
    for ep in done:
        assert set(ep.agent_episodes) == {f"player_{i}" for i in range(players)}
        returns = []
        for sa in ep.agent_episodes.values():
            obs, acts = sa.get_observations(), sa.get_actions()
            # finished episodes come numpy-ized: a dict of (T + 1, ...) arrays
            masks = np.asarray(obs["action_mask"])[: len(acts)]
            assert (masks[np.arange(len(acts)), np.asarray(acts)] == 1.0).all(), "an action outside the mask"
            returns.append(sa.get_return())
        # the rules' end rewards: +1 each winner, -1 the others, or 0 for all; Funky Monkey: -1 for all
        assert set(returns) <= {-1.0, 0.0, 1.0}
        assert returns.count(1.0) >= 1 or set(returns) in ({0.0}, {-1.0})
    runner.stop()


def test_one_tiny_masked_ppo_iteration(rllib):
    """``ppo_config`` builds a PPO algorithm that samples, trains one iteration and reports its losses."""
    rllib.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    config = (
        mrl.ppo_config("monkey_fun", num_players=2, model_config={"head_fcnet_hiddens": [32]})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 200 and runners["num_episodes"] >= 1
    losses = result["learners"][mrl.POLICY_ID]
    assert np.isfinite([losses["policy_loss"], losses["vf_loss"], losses["total_loss"]]).all()
