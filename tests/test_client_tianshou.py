"""Tianshou (2.x) trains on the PettingZoo AEC envs through its own multi-agent example.

Rule checked: episode infos are numeric and fixed-shape (``end_reason`` an int code into
``spec.end_reasons``, ``winners`` a ``(P,) bool`` mask), so Tianshou's replay buffer stores them.
With the former string ``end_reason`` the buffer held ``None`` placeholders and the trainer
stopped at once (``MalformedBufferError: NaNs in buffer``); a winners list of varying length
broke the buffer on the first shared win.

``tests/vendored/tianshou_tic_tac_toe.py`` is Tianshou v2.0.1's ``test/pettingzoo/tic_tac_toe.py``
unchanged; the test swaps only its ``get_env``. Skipped when Tianshou is not installed (the
``clients`` extra installs it; CI does).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="Tianshou is not installed (pip install -e '.[clients]')")
pytest.importorskip("torch.utils.tensorboard", reason="the Tianshou example logs to tensorboard")
pytest.importorskip("pettingzoo.classic", reason="the Tianshou example imports pettingzoo.classic")

from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv

from monkey_envs import funky_monkey_v0, monkey_fun_v0

EXAMPLE = Path(__file__).parent / "vendored" / "tianshou_tic_tac_toe.py"


def _example() -> ModuleType:
    """Tianshou's tic-tac-toe example as a module (its ``get_args()`` defaults parse no argv)."""
    spec = importlib.util.spec_from_file_location("tianshou_tic_tac_toe", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    argv, sys.argv = sys.argv, sys.argv[:1]  # the example parses sys.argv at import
    try:
        spec.loader.exec_module(module)
    finally:
        sys.argv = argv
    return module


@pytest.mark.parametrize("make", [monkey_fun_v0.env, funky_monkey_v0.env], ids=["monkey_fun", "funky_monkey"])
def test_tianshou_tic_tac_toe_example_trains(tmp_path, monkeypatch, make):
    """Tianshou's own DQN-vs-random multi-agent training loop, one short epoch, on a two-player game."""
    ttt = _example()
    monkeypatch.setattr(
        ttt, "get_env", lambda render_mode=None: PettingZooEnv(make(num_players=2, render_mode=render_mode))
    )
    args = ttt.get_parser().parse_args([])
    args.epoch, args.epoch_num_steps, args.collection_step_num_env_steps = 1, 120, 10
    args.num_training_envs, args.num_test_envs, args.batch_size, args.buffer_size = 2, 2, 16, 2_000
    args.hidden_sizes, args.device, args.logdir = [32], "cpu", str(tmp_path)
    result, agent = ttt.train_agent(args)
    # the run got past the buffer checks: episodes ended in training and the test episodes ran
    assert int(result.train_episode) >= 1 and int(result.test_episode) >= args.num_test_envs
    assert -1.0 <= result.best_reward <= 1.0
    assert result.update_step > 0 and agent is not None


@pytest.mark.parametrize(
    ("make", "players"), [(monkey_fun_v0.env, 2), (funky_monkey_v0.env, 3)], ids=["monkey_fun", "funky_monkey"]
)
def test_tianshou_buffer_stores_the_episode_infos(make, players):
    """Tianshou's collector and ``VectorReplayBuffer`` (the example's pieces) keep each finished episode's
    info as arrays: ``end_reason`` a valid code, ``winners`` ``(P,) bool`` matching the rewards."""
    envs = DummyVectorEnv([lambda: PettingZooEnv(make(num_players=players)) for _ in range(2)])
    envs.seed(3)
    env = PettingZooEnv(make(num_players=players))
    algo = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents],
        env=env,
    )
    buffer = VectorReplayBuffer(20_000, len(envs))
    stats = Collector[CollectStats](algo, envs, buffer, exploration_noise=True).collect(
        n_episode=6, reset_before_collect=True
    )
    assert stats.n_collected_episodes >= 6
    assert not buffer.hasnull()
    every = buffer.sample_indices(0)  # all stored transitions (the sub-buffers are not contiguous)
    data = buffer[every[buffer.done[every]]]
    assert len(data) == stats.n_collected_episodes  # one terminal transition per episode
    game = env.env.unwrapped.game
    codes = np.asarray(data.info.end_reason)
    winners = np.asarray(data.info.winners)
    assert codes.dtype.kind == "i" and ((codes >= 1) & (codes < len(game.spec.end_reasons))).all()
    assert winners.shape == (len(data), players) and winners.dtype == bool
    # the rules' end rewards: +1 to each winner, -1 to the others (0 to all when everyone shares the win)
    rew = np.asarray(data.rew)
    everyone = winners.all(1)
    assert (rew[~everyone][winners[~everyone]] == 1.0).all() and (rew[~everyone][~winners[~everyone]] == -1.0).all()


def test_tianshou_single_agent_buffer_stores_the_gym_infos():
    """The gymnasium single-agent env under Tianshou's collector: every final info value (end facts,
    ``learner_seat``, ``illegal_action``, ``seat_agents`` codes) lands in the buffer as arrays."""
    import gymnasium as gym
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.utils.net.common import Net

    envs = DummyVectorEnv([lambda: gym.make("monkey_envs/MonkeyFun-v0", opponent="random") for _ in range(2)])
    envs.seed(5)
    buffer = VectorReplayBuffer(20_000, len(envs))
    space = envs.action_space[0]
    net = Net(state_shape=envs.observation_space[0].shape, action_shape=int(space.n), hidden_sizes=[16])
    # an untrained, unmasked DQN policy (Tianshou's own): most episodes end by the learner's
    # illegal move (a loss: the registered ids' default illegal_action="lose")
    policy = DiscreteQLearningPolicy(model=net, action_space=space, eps_training=0.5, eps_inference=0.5)
    Collector[CollectStats](policy, envs, buffer, exploration_noise=True).collect(
        n_episode=6, reset_before_collect=True
    )
    assert not buffer.hasnull()
    every = buffer.sample_indices(0)  # all stored transitions (the sub-buffers are not contiguous)
    data = buffer[every[buffer.done[every]]]
    n = len(data)
    assert n >= 6
    info = data.info
    seats = np.asarray(info.learner_seat)
    codes = np.asarray(info.seat_agents)
    assert (
        codes.shape == (n, 2)
        and (codes[np.arange(n), seats] == -1).all()
        and (codes[np.arange(n), 1 - seats] == 0).all()
    )
    forfeits = np.asarray(info.illegal_action)
    assert forfeits.dtype == bool and forfeits.any()
    assert (np.asarray(data.rew)[forfeits] == -1.0).all()
    assert np.asarray(info.winners).shape == (n, 2) and np.asarray(info.end_reason).dtype.kind == "i"
