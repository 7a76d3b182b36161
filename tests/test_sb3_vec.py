"""Stable-Baselines3 face (monkey_envs.core.sb3_vec.MonkeyVecEnv): VecEnv API, SB3 autoreset
conventions, attribute access, seeding and MaskablePPO learning on it.

SB3's check_env, the illegal-action policies and env i == the single env seeded s + i run for every
game in the conformance suite (``tests/test_conformance.py``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import monkey_envs  # noqa: F401
from monkey_envs.core.sb3_vec import MonkeyVecEnv
from monkey_envs.monkey_fun import MonkeyFun


def _last_legal(mask: np.ndarray) -> np.ndarray:
    m = np.asarray(mask).astype(bool)
    return m.shape[1] - 1 - m[:, ::-1].argmax(1)


def test_vec_env_api_shapes_and_dtypes():
    venv = MonkeyVecEnv("monkey_fun", num_envs=6, opponent="random", seed=3, num_players=3)
    assert isinstance(venv, VecEnv) and venv.num_envs == 6
    obs = venv.reset()
    game = venv.game
    assert obs.shape == (6, game.obs_dim) and obs.dtype == np.float32
    masks = venv.action_masks()
    assert masks.shape == (6, game.num_actions) and masks.dtype == bool
    obs, rewards, dones, infos = venv.step(_last_legal(masks))
    assert obs.shape == (6, game.obs_dim) and rewards.shape == (6,) and rewards.dtype == np.float32
    assert dones.shape == (6,) and dones.dtype == bool and len(infos) == 6
    assert all(isinstance(i, dict) for i in infos)
    assert [info["learner_seat"] for info in venv.reset_infos] == venv.get_attr("learner_seat")


def test_vec_env_done_rows_carry_terminal_observation_and_are_reset_in_the_same_step():
    venv = MonkeyVecEnv("monkey_fun", num_envs=16, seed=0)
    venv.reset()
    seen = 0
    for _ in range(100):
        obs, rewards, dones, infos = venv.step(_last_legal(venv.action_masks()))
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (venv.game.obs_dim,)
            assert info["TimeLimit.truncated"] is False
            assert venv.game.spec.end_reason_name(info["end_reason"]) in ("line", "supplies_empty")
            assert rewards[i] == (1.0 if info["winners"][info["learner_seat"]] else -1.0)
            assert venv.driver.state.step_count[i] < 2  # fresh episode already running
            assert not np.array_equal(obs[i], info["terminal_observation"])
            seen += 1
        for i in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[i] and rewards[i] == 0.0
    assert seen >= 16


def test_vec_env_attribute_and_method_access():
    venv = MonkeyVecEnv("monkey_fun", num_envs=4, seed=0)
    venv.reset()
    assert venv.get_attr("render_mode") == [None] * 4
    assert venv.get_attr("learner_seat", indices=[1, 3]) == venv.learner_seat[[1, 3]].tolist()
    assert venv.has_attr("action_masks") and is_masking_supported(venv)
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    rows = venv.env_method("action_masks", indices=[0, 2])
    np.testing.assert_array_equal(np.stack(rows), venv.action_masks()[[0, 2]])
    np.testing.assert_array_equal(get_action_masks(venv), venv.action_masks())
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * 4
    venv.set_attr("custom_flag", 7)
    assert venv.get_attr("custom_flag") == [7] * 4
    with pytest.raises(ValueError, match="shared"):
        venv.set_attr("custom_flag", 8, indices=[0])
    with pytest.raises(ValueError, match="out of range"):
        venv.get_attr("render_mode", indices=[4])
    assert venv.env_method("render", indices=0)[0].startswith("Monkey Fun")


def test_vec_env_seed_then_reset_is_reproducible():
    venv = MonkeyVecEnv("monkey_fun", num_envs=4, seed=None)
    assert venv.seed(10) == [10, 11, 12, 13]
    a = venv.reset()
    venv.step(_last_legal(venv.action_masks()))
    venv.seed(10)
    b = venv.reset()
    np.testing.assert_array_equal(a, b)
    c = venv.reset()  # unseeded: next episodes of each env's stream
    assert not np.array_equal(a, c)


def test_set_opponent_swaps_the_opponent_at_run_time():
    class Counter:
        name = "counter"

        def __init__(self):
            self.rows = 0

        def act(self, obs, mask):
            self.rows += obs.shape[0]
            return _last_legal(mask)

    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0)
    venv.reset()
    counter = Counter()
    venv.env_method("set_opponent", counter)
    for _ in range(5):
        venv.step(_last_legal(venv.action_masks()))
    assert counter.rows >= 5 * 8 - 8  # (nearly) every learner move got a reply from the new opponent
    assert venv.driver.opponents == [counter]


def test_maskable_ppo_learns_a_few_hundred_steps_on_the_vec_env():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    venv = VecMonitor(MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = venv.reset()
    for _ in range(20):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(8), actions].all()  # the masked policy only picks legal moves
        obs, _, _, _ = venv.step(actions)


def test_greedy_opponent_works_in_the_vec_env():
    venv = MonkeyVecEnv("monkey_fun", num_envs=16, opponent="greedy", seed=0)
    venv.reset()
    ends = 0
    for _ in range(40):  # greedy's replies are checked for legality by the driver on every move
        _, _, dones, _ = venv.step(_last_legal(venv.action_masks()))
        ends += int(dones.sum())
    assert venv.driver.opponents[0].name == "greedy" and ends > 0


def test_game_object_and_options_are_exclusive():
    with pytest.raises(ValueError, match="either"):
        MonkeyVecEnv(MonkeyFun(), num_envs=2, num_players=3)
    assert MonkeyVecEnv(MonkeyFun(num_players=4), num_envs=2).game.num_players == 4
