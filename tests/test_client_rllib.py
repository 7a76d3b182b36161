"""RLlib (new API stack) through :mod:`monkey_envs.integrations.rllib`: its env runner and a masked PPO step.

Rules checked: the adapter's env passes RLlib's own multi-agent env checker and gives
RLlib's ``ActionMaskingTorchRLModule`` the ``{"observations", "action_mask"}`` dict it reads;
RLlib's ``MultiAgentEnvRunner`` samples whole episodes with that module in which every action
taken is legal under the observed mask and the end rewards are the rules' (zero-sum); one PPO
iteration (``num_env_runners=0``, a tiny batch) samples, trains and reports finite losses;
importing the adapter imports no Ray; bad ``env_config`` is a ``ValueError``. Skipped when Ray
RLlib is not installed (the ``clients`` extra installs it; CI does).

Issue 22, item 4: RLlib's mask-blind samplers (its env pre-check at every env runner's start and
``sample(random_actions=True)``) send only legal actions, and no env runner of
``num_env_runners=2`` on a local Ray ever sends an action outside the mask it was last given, for
every game (the envs record every such action; the test collects the records from the runners);
the Parallel-env path for 4 Monkeys (``ParallelPettingZooEnv`` with the action-masking module)
samples legal ticks and trains one tiny PPO iteration.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from monkey_envs.games import GAMES, game_class
from monkey_envs.integrations import rllib as mrl

#: The simultaneous games (the Parallel-env path), from the registry.
SIMULTANEOUS = [g for g in GAMES if game_class(g).spec.simultaneous]


@pytest.fixture(scope="module")
def rllib():
    pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[clients]')")
    pytest.importorskip("torch", reason="RLlib's torch modules need torch")
    import ray

    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture(scope="module")
def local_ray(rllib):
    """One small local Ray for the module's tests that need one (two CPUs, no dashboard).

    This module is shipped to Ray's workers by value (it is not importable there: pytest put
    ``tests/`` on the path of this process only)."""
    module = sys.modules[__name__]
    rllib.cloudpickle.register_pickle_by_value(module)
    # address="local": a Ray of its own, even while another test (or a user) runs a cluster here
    rllib.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield rllib
    rllib.shutdown()
    rllib.cloudpickle.unregister_pickle_by_value(module)


def recording(base: type) -> type:
    """``base`` (an adapter env class) recording every action it is sent against the mask it last
    gave that agent (its own copy of the returned observations' masks, not the adapter's).

    ``records`` holds ``checked`` (actions seen) and ``illegal``: ``(agent, action, legal actions)``
    of each action outside the agent's last mask (or sent to an agent it never observed).
    """

    class Recording(base):
        def __init__(self, config=None):
            self.records = {"checked": 0, "illegal": []}
            self._given = {}
            super().__init__(config)

        def _remember(self, obs):
            self._given.update({a: np.array(o["action_mask"]) for a, o in obs.items()})
            return obs

        def reset(self, *, seed=None, options=None):
            obs, infos = super().reset(seed=seed, options=options)
            self._given = {}
            return self._remember(obs), infos

        def step(self, action):
            for agent, a in action.items():
                self.records["checked"] += 1
                mask = self._given.get(agent)
                if mask is None or not 0 <= int(a) < len(mask) or mask[int(a)] != 1.0:
                    legal = None if mask is None else np.flatnonzero(mask).tolist()
                    self.records["illegal"].append((agent, int(a), legal))
            obs, rewards, terminateds, truncateds, infos = super().step(action)
            return self._remember(obs), rewards, terminateds, truncateds, infos

    return Recording


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
    with pytest.raises(ValueError):
        mrl.MonkeyParallelMultiAgentEnv(bad)


@pytest.mark.parametrize("game", [g for g in GAMES if g not in SIMULTANEOUS])
def test_parallel_path_refuses_a_sequential_game(rllib, game):
    """A sequential game has no Parallel env: a ``ValueError`` pointing at the AEC path."""
    with pytest.raises(ValueError, match=r"sequential.*MonkeyMultiAgentEnv"):
        mrl.MonkeyParallelMultiAgentEnv({"game": game})
    with pytest.raises(ValueError, match="sequential"):
        mrl.ppo_config(game, parallel=True)


@pytest.mark.parametrize(("game", "parallel"), [*((g, False) for g in GAMES), *((g, True) for g in SIMULTANEOUS)])
def test_rllibs_mask_blind_samplers_draw_legal_actions(rllib, game, parallel):
    """Issue 22, item 4: RLlib's env pre-check steps with ``get_action_space(agent).sample()`` at
    every env runner's start (and ``sample(random_actions=True)`` draws the same way): the
    adapter's action spaces draw from the agent's last mask, so these actions are legal (the
    AEC env of every game, the Parallel env of every simultaneous game)."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = recording(mrl.parallel_env_class() if parallel else mrl.env_class())({"game": game})
    for _ in range(20):  # each check: reset(seed=42), one step with a sampled action per observed agent
        check_multiagent_environments(env)
    assert env.records["checked"] >= 20 and env.records["illegal"] == []
    obs, _ = env.reset(seed=1)
    agent = next(iter(obs))
    space = env.get_action_space(agent)
    legal = set(np.flatnonzero(obs[agent]["action_mask"]).tolist())
    assert {int(space.sample()) for _ in range(200)} <= legal
    # an explicit mask still rules, and the space ships (pickles) as a plain Discrete
    only = np.zeros(space.n, np.int8)
    only[space.n - 1] = 1
    assert space.sample(mask=only) == space.n - 1
    shipped = pickle.loads(pickle.dumps(env.action_space))[agent]
    assert type(shipped).__name__ == "Discrete" and shipped == space


@pytest.mark.parametrize(
    ("game", "players", "parallel"),
    [("monkey_fun", 2, False), ("funky_monkey", 3, False), *((g, 4, True) for g in SIMULTANEOUS)],
)
def test_env_runner_samples_masked_episodes(rllib, game, players, parallel):
    """RLlib's ``MultiAgentEnvRunner`` with the action-masking module plays whole, legal games
    (``parallel``: the Parallel env through ``ParallelPettingZooEnv``, every mover acting each tick)."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    config = (
        mrl.ppo_config(game, num_players=players, parallel=parallel, model_config={"head_fcnet_hiddens": [32]})
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


@pytest.mark.parametrize(("game", "parallel"), [("monkey_fun", False), *((g, True) for g in SIMULTANEOUS)])
def test_one_tiny_masked_ppo_iteration(local_ray, game, parallel):
    """``ppo_config`` builds a PPO algorithm that samples, trains one iteration and reports its losses
    (``parallel``: issue 22, item 4, the Parallel-env path of a simultaneous game, 4 Monkeys)."""
    config = (
        mrl.ppo_config(game, num_players=2, parallel=parallel, model_config={"head_fcnet_hiddens": [32]})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=400 if parallel else 200, minibatch_size=100, num_epochs=1)
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


def _runner_host_class(ray):
    """A Ray actor class that hosts RLlib ``MultiAgentEnvRunner`` objects as remote env runners.

    Its ``sample`` builds the runner as RLlib's ``EnvRunnerGroup`` builds remote env runner
    ``worker_index`` of ``num_env_runners=2`` (same class, config and indices; the env pre-check
    runs in the constructor) over a :func:`recording` env, samples random actions and then module
    actions (the episode is cut between the two calls), and returns the env's records. Two hosts
    serve every game, so the test starts two Ray worker processes (importing torch and RLlib is
    most of its time), not two per game as one PPO algorithm per game would.
    """

    @ray.remote(num_cpus=1)
    class RunnerHost:
        def sample(self, game, parallel, worker_index, steps):
            from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

            base = mrl.parallel_env_class() if parallel else mrl.env_class()
            config = (
                mrl.ppo_config(game, parallel=parallel, model_config={"head_fcnet_hiddens": [8]})
                .environment(recording(base), env_config={"game": game})
                .env_runners(num_env_runners=2, num_envs_per_env_runner=1)
            )
            runner = MultiAgentEnvRunner(config=config, worker_index=worker_index, num_workers=2)
            try:
                for _ in range(2):  # the second call continues the episodes the first one cut
                    runner.sample(num_timesteps=steps, random_actions=False)
                # new episodes (RLlib's episodes hold no random actions after module ones)
                runner.sample(num_timesteps=steps, random_actions=True, force_reset=True)
                return [env.unwrapped.records for env in runner.env.envs]
            finally:
                runner.stop()

    return RunnerHost


def test_two_remote_env_runners_send_only_legal_actions(local_ray):
    """Issue 22, item 4: with ``num_env_runners=2`` on a local Ray (``ppo_config(...).env_runners(
    num_env_runners=2)``, e.g. Funky Monkey), no env runner ever sends an action outside the mask
    it was last given -- not at its start (RLlib's env pre-check), not with random actions, not
    with the action-masking module -- for every game (and the Parallel env of every simultaneous
    game). The runners' envs record each action against their own copy of the masks they
    returned; the records come back from the runners."""
    hosts = [_runner_host_class(local_ray).remote() for _ in range(2)]
    cases = [(g, False) for g in GAMES] + [(g, True) for g in SIMULTANEOUS]
    try:
        pending = {
            (game, parallel, i): host.sample.remote(game, parallel, i, 40)
            for game, parallel in cases
            for i, host in enumerate(hosts, start=1)
        }
        records = {key: local_ray.get(ref, timeout=300) for key, ref in pending.items()}
    finally:
        for host in hosts:
            local_ray.kill(host)
    illegal = {key: [r["illegal"] for r in recs] for key, recs in records.items() if any(r["illegal"] for r in recs)}
    assert illegal == {}, f"actions outside the mask last given: {illegal}"
    # every runner's env saw its pre-check step and the three samples (>= 3 x 40 env steps)
    assert all(r["checked"] > 120 for recs in records.values() for r in recs)
