"""PettingZoo AEC face (monkey_envs.core.aec, monkey_envs.monkey_fun_v0): metadata and spaces,
registry, in-place stepping, seeding and equality with the batched core.

PettingZoo's api_test / seed_test / render_test and the illegal-move policies of ``env()`` and
``raw_env()`` run for every game and configuration in the conformance suite
(``tests/test_conformance.py``)."""

from __future__ import annotations

import copy
import importlib
import pickle
import warnings

import numpy as np
import pettingzoo
import pytest

import monkey_envs
from monkey_envs import monkey_fun_v0
from monkey_envs.core.aec import GameAECEnv
from monkey_envs.monkey_fun import MonkeyFun


def _legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


# ------------------------------------------------------------------ rendering and metadata
def test_ansi_render_shows_the_current_agents_hand():
    env = monkey_fun_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    seat = int(env.agent_selection.split("_")[1])
    text = env.render()
    game = env.unwrapped.game
    assert text == game.render(env.unwrapped.core_state, 0, seat)
    assert f"hand of {'AB'[seat]}" in text


def test_metadata_names_the_versioned_env():
    env = monkey_fun_v0.raw_env()
    assert env.metadata["name"] == "monkey_fun_v0"
    assert env.metadata["is_parallelizable"] is False
    assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert isinstance(env, GameAECEnv)


def test_spaces_match_the_game():
    env = monkey_fun_v0.raw_env(num_players=3)
    game = env.game
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    space = env.observation_space("player_1")
    assert space["observation"].shape == (game.obs_dim,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (game.num_actions,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_2").n == game.num_actions
    assert env.observation_space("player_0") is not env.observation_space("player_1")  # independent seeding


def test_bad_options_raise_value_error():
    with pytest.raises(ValueError, match="num_players"):
        monkey_fun_v0.env(num_players=5)
    with pytest.raises(ValueError, match="variant"):
        monkey_fun_v0.raw_env(variant="speedy")
    with pytest.raises(ValueError, match="render_mode"):
        monkey_fun_v0.raw_env(render_mode="rgb")


# ------------------------------------------------------------------ registry
def test_registry_make_builds_the_wrapped_env_with_options():
    env = pettingzoo.make("aec", "monkey_envs/monkey_fun-v0", num_players=3, variant="quick")
    env.reset(seed=0)
    assert env.num_agents == 3
    assert env.unwrapped.game.config["variant"] == "quick"
    assert str(env) == "monkey_fun_v0"


def test_registration_is_idempotent_on_reimport_and_reload():
    from monkey_envs import registration

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an "Overriding environment" warning would fail here
        importlib.reload(registration)
        importlib.reload(monkey_envs)
        assert registration.register_all() == []
    assert "monkey_envs/monkey_fun-v0" in pettingzoo.aec_registry


# ------------------------------------------------------------------ illegal moves
def test_a_held_core_state_never_changes_and_in_place_steps_match_the_core():
    """The env advances its own state in place until ``core_state`` hands it out (then it copies)."""
    env = monkey_fun_v0.raw_env(num_players=2)
    env.reset(seed=3)
    held = env.core_state
    snapshot, ref = held.clone(), held.clone()
    for _ in range(6):
        action = _legal(env.observe(env.agent_selection)["action_mask"])
        env.step(action)
        ref = env.game.step(ref, np.array([action]))
    assert held.equals(snapshot)
    for _ in range(3):  # in place now (core_state not read since the copy)
        action = _legal(env.observe(env.agent_selection)["action_mask"])
        env.step(action)
        ref = env.game.step(ref, np.array([action]))
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)  # on the in-place path too, nothing changes
    assert env.core_state.equals(ref)


# ------------------------------------------------------------------ observations and seeding
def test_mask_is_int8_for_the_agent_to_move_and_zero_for_the_others():
    env = monkey_fun_v0.raw_env(num_players=3)
    env.reset(seed=11)
    state, game = env.core_state, env.game
    for seat, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)
        assert obs["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(obs["observation"], game.observe(state, seat)[0])
        if agent == env.agent_selection:
            np.testing.assert_array_equal(obs["action_mask"], state.legal_action_mask[0].astype(np.int8))
        else:
            assert not obs["action_mask"].any()


def test_aec_trajectory_equals_the_core_game_with_the_same_seed():
    """reset(seed=s) plays game.init(s); each AEC step equals the core step (obs, rewards, end)."""
    for cfg, seed in [({"num_players": 2}, 5), ({"num_players": 3, "variant": "quick"}, 9), ({"num_players": 1}, 2)]:
        env = monkey_fun_v0.env(**cfg)
        game = MonkeyFun(**cfg)
        env.reset(seed=seed)
        state = game.init([seed])
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            seat = int(state.current_player[0])
            assert agent == f"player_{seat}"
            np.testing.assert_array_equal(obs["observation"], game.observe(state, seat)[0])
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), state.legal_action_mask[0])
            action = _legal(obs["action_mask"])
            state = game.step(state, np.array([action]))
            env.step(action)
        assert state.terminated[0]
        expected = game.episode_info(state, 0)
        assert game.spec.readable_info(info) == game.spec.readable_info(expected)
        for p in range(game.num_players):
            # every seat's total reward over the game equals the core's rewards
            assert totals[f"player_{p}"] == pytest.approx(float(state.rewards[0, p]))


def test_reset_without_seed_continues_a_deterministic_stream():
    a, b = monkey_fun_v0.raw_env(), monkey_fun_v0.raw_env()
    a.reset(seed=7)
    b.reset(seed=7)
    first = a.core_state.clone()
    a.reset()
    b.reset()
    assert a.core_state.equals(b.core_state)
    assert not a.core_state.equals(first)


def test_deepcopy_and_pickle_keep_the_game_in_progress():
    env = monkey_fun_v0.env(num_players=3)
    env.reset(seed=4)
    for _ in range(7):
        env.step(_legal(env.last()[0]["action_mask"]))
    twin = copy.deepcopy(env)
    raw_twin = pickle.loads(pickle.dumps(env.unwrapped))
    assert twin.unwrapped.game.config == env.unwrapped.game.config
    assert twin.unwrapped.core_state.equals(env.unwrapped.core_state)
    assert raw_twin.core_state.equals(env.unwrapped.core_state)
    for _ in range(5):
        action = _legal(env.last()[0]["action_mask"])
        env.step(action)
        twin.step(action)
        assert twin.agent_selection == env.agent_selection
        np.testing.assert_array_equal(twin.last()[0]["observation"], env.last()[0]["observation"])


def test_load_state_plays_a_line_win_with_plus_one_and_minus_one():
    """Rule (line win): seat 0 holds 23, 1, 34 of side 1's top row; playing 10+19 = 29 completes it."""
    env = monkey_fun_v0.raw_env(num_players=2)
    game = env.game
    state = game.position(hands=[[1, 2, 10, 19], [3, 4, 5, 6]], board={23: [1, 0], 1: [1, 0], 34: [1, 0]})
    env.load_state(state)
    assert env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    action = next(a for a in np.flatnonzero(mask) if game.action_name(state, 0, int(a)) == "play 10+19 = 29")
    env.step(int(action))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert game.spec.end_reason_name(env.infos["player_0"]["end_reason"]) == "line"
    assert env.infos["player_1"]["winners"].tolist() == [True, False]


def test_load_state_rejects_a_state_of_another_configuration():
    env = monkey_fun_v0.raw_env(num_players=2)
    with pytest.raises(ValueError):
        env.load_state(MonkeyFun(num_players=3).init([0]))
    with pytest.raises(ValueError, match="batch size 1"):
        env.load_state(MonkeyFun(num_players=2).init([0, 1]))


# ------------------------------------------------------------------ a step after the end (issue 22, item 3)
def _versioned(name: str):
    from monkey_envs.games import game_class

    return monkey_envs.versioned_module(f"{name}_v{game_class(name).spec.version}")


def _play_out(env, max_steps: int = 20_000) -> None:
    """Play the lowest legal action until every agent has stepped out (dead agents step ``None``)."""
    for _ in range(max_steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    raise AssertionError(f"no end within {max_steps} steps")


@pytest.mark.parametrize("form", ["env", "raw_env"])
@pytest.mark.parametrize("name", sorted(monkey_envs.games.GAMES))
def test_a_step_after_every_agent_is_gone_is_a_clear_error(name, form):
    """Issue 22 item 3: ``env.step(action)`` once every agent is gone returned silently (``env()``:
    PettingZoo's OrderEnforcingWrapper only logs a warning) or failed with a ``KeyError``
    (``raw_env``). Now it is a ``ValueError`` telling to reset, whatever the action, the env is
    unchanged, and a reset plays again. A step of the raw env before any reset is one too."""
    make = getattr(_versioned(name), form)
    env = make()
    if form == "raw_env":
        with pytest.raises(ValueError, match=r"reset\(\)"):
            env.step(0)
    env.reset(seed=1)
    _play_out(env)
    selection, rewards = env.agent_selection, dict(env.rewards)
    for action in (None, 0):
        with pytest.raises(ValueError, match=r"game is over.*call reset\(\)"):
            env.step(action)
    assert env.agents == [] and env.agent_selection == selection and env.rewards == rewards
    env.reset(seed=2)
    assert env.agents == env.possible_agents
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
