"""Funky Monkey through the faces: PettingZoo AEC (responders out of seat order, equality with
the core, end-of-game info, eliminated agents), the single and vector envs with named opponents,
and the SB3 VecEnv.

PettingZoo's api/seed/render tests and the gymnasium / SB3 checkers run in the conformance suite
(``tests/test_conformance.py``) for every configuration of ``FunkyMonkey.test_configs``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest

import agents.heuristics.funky_monkey  # noqa: F401  (registers honest / believer / skeptic / track)
import monkey_envs
from monkey_envs import funky_monkey_v0
from monkey_envs.funky_monkey import FunkyMonkey
from monkey_envs.funky_monkey.state import PH_RESPOND, STAT_NAMES

ENV_ID = "monkey_envs/FunkyMonkey-v0"


def test_registry_ids_and_game_options():
    assert "monkey_envs/funky_monkey-v0" in pettingzoo.aec_registry
    assert ENV_ID in gym.registry
    env = pettingzoo.make("aec", "monkey_envs/funky_monkey-v0", num_players=3, tile_visibility="all")
    env.reset(seed=1)
    game = env.unwrapped.game
    assert isinstance(game, FunkyMonkey) and game.config["tile_visibility"] == "all"
    assert monkey_envs.make_game("funky_monkey", num_players=5, variant="every_second").tile_visibility == (
        "every_second"
    )
    assert env.unwrapped.metadata["name"] == "funky_monkey_v0"


def test_aec_selects_the_responder_out_of_seat_order_and_replays_the_core():
    env = funky_monkey_v0.raw_env(num_players=4)
    env.reset(seed=12)
    game = env.game
    state = game.init(12)
    rng = np.random.default_rng(0)
    responders = 0
    while not state.terminated[0]:
        seat = int(state.current_player[0])
        assert env.agent_selection == f"player_{seat}"
        obs = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs["observation"], game.observe(state, seat)[0])
        np.testing.assert_array_equal(obs["action_mask"].astype(bool), state.legal_action_mask[0])
        responders += int(state.phase[0]) == PH_RESPOND and seat != int(state.active[0])
        a = int(rng.choice(np.flatnonzero(state.legal_action_mask[0])))
        env.step(a)
        state = game.step(state, np.array([a]))
    assert responders > 0
    info = env.infos["player_0"]
    assert set(info["bluff_stats"]) == set(STAT_NAMES) and len(info["bluff_stats"]["bluffs"]) == 4
    assert game.spec.end_reason_name(info["end_reason"]) in ("tiger", "last_monkey", "quitting_time", "no_winner")
    rewards = [env._cumulative_rewards[a] for a in env.possible_agents]
    np.testing.assert_array_equal(rewards, state.rewards[0])


def test_eliminated_agents_are_never_selected():
    env = funky_monkey_v0.raw_env(num_players=7)
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not any(env.terminations.values()):
            state = env.core_state
            assert state.alive[0, int(env.agent_selection.split("_")[1])]
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))


def test_single_env_plays_named_opponents_and_reports_bluff_stats_at_the_end():
    env = gym.make(ENV_ID, num_players=4, opponent=["honest", "skeptic", "track"])
    obs, info = env.reset(seed=3)
    base = env.unwrapped
    ended = 0
    for _ in range(150):
        assert int(base.driver.state.current_player[0]) == base.learner_seat
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert not truncated
        if terminated:
            assert "bluff_stats" in info and reward in (-1.0, 0.0, 1.0)
            ended += 1
            obs, info = env.reset()
    assert ended >= 2


def test_vector_env_steps_the_batched_core_with_same_step_autoreset():
    venv = gym.make_vec(
        ENV_ID, num_envs=16, vectorization_mode="vector_entry_point", num_players=3, opponent="believer"
    )
    obs, infos = venv.reset(seed=0)
    finished = 0
    for _ in range(80):
        assert venv.observation_space.contains(obs)
        m = infos["action_mask"].astype(bool)
        obs, rewards, terms, truncs, infos = venv.step(m.shape[1] - 1 - m[:, ::-1].argmax(1))
        assert not truncs.any() and (rewards[~terms] == 0).all()
        if terms.any():
            assert {venv.unwrapped.game.spec.end_reasons[c] for c in infos["final_info"]["end_reason"][terms]} <= {
                "tiger",
                "last_monkey",
                "quitting_time",
                "no_winner",
            }
            finished += int(terms.sum())
    assert finished >= 16


def test_sb3_vec_env_masks_and_steps():
    pytest.importorskip("sb3_contrib")
    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv("funky_monkey", num_envs=8, opponent="random", seed=0, num_players=5)
    obs = venv.reset()
    assert obs.shape == (8, venv.game.obs_dim)
    done_total = 0
    for _ in range(120):
        masks = venv.action_masks()
        assert masks.shape == (8, venv.game.num_actions) and masks.any(1).all()
        obs, rewards, dones, infos = venv.step(masks.shape[1] - 1 - masks[:, ::-1].argmax(1))
        assert obs.shape == (8, venv.game.obs_dim) and (rewards[~dones] == 0).all()
        assert all("bluff_stats" in infos[i] for i in np.flatnonzero(dones))
        done_total += int(dones.sum())
    assert done_total >= 8


def test_aec_reset_deals_into_its_own_state_and_never_into_a_held_one() -> None:
    """Rule: ``reset(seed=s)`` plays ``game.init(s)``; with the compiled ``_reset_rows`` the env
    restarts its own state in place, but never one that ``core_state`` handed out."""
    env = funky_monkey_v0.raw_env(num_players=3)
    game = env.game
    env.reset(seed=3)
    own = env.unwrapped._state
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.reset(seed=4)
    assert env.unwrapped._state is own  # restarted in place
    held = env.core_state
    assert held.equals(game.init(4))
    snapshot = held.clone()
    env.reset(seed=5)  # the held state is not touched: a new one is dealt
    assert held.equals(snapshot) and env.core_state is not held
    assert env.core_state.equals(game.init(5))
