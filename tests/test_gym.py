"""gymnasium faces (monkey_envs.core.gym_single / gym_vector) and the shared single-agent driver:
masks, determinism, learner seats, learner-side rewards and same-step autoreset.

gymnasium's check_env, the illegal-action policies ("raise" / "lose") and the equality of the
native vector env with single envs seeded s + i run for every game in the conformance suite
(``tests/test_conformance.py``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import monkey_envs  # (registers the ids)
from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.core.gym_single import GameEnv
from monkey_envs.core.gym_vector import GameVectorEnv
from monkey_envs.games import SHIPPED_GAMES, make_game, resolve_game
from monkey_envs.monkey_fun import MonkeyFun

ENV_ID = "monkey_envs/MonkeyFun-v0"


def _last_legal(mask: np.ndarray) -> np.ndarray | int:
    """Highest legal action per row (a deterministic policy); works for (A,) and (N, A)."""
    m = np.asarray(mask).astype(bool)
    if m.ndim == 1:
        return int(np.flatnonzero(m)[-1])
    return m.shape[1] - 1 - m[:, ::-1].argmax(1)


# ------------------------------------------------------------------ single env
def test_make_builds_the_single_env_with_game_options_and_opponent():
    env = gym.make(ENV_ID, opponent="random", num_players=3, variant="quick", learner_seat=2)
    base = env.unwrapped
    assert isinstance(base, GameEnv)
    assert base.game.config["num_players"] == 3 and base.game.config["variant"] == "quick"
    obs, info = env.reset(seed=0)
    assert obs.shape == (base.game.obs_dim,) and obs.dtype == np.float32
    assert info["learner_seat"] == 2
    assert env.observation_space.contains(obs)


def test_single_env_mask_in_info_and_action_masks_agree_with_the_core():
    env = gym.make(ENV_ID, num_players=2)
    obs, info = env.reset(seed=1)
    base = env.unwrapped
    for _ in range(30):
        state, seat = base.driver.state, base.learner_seat
        assert info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"].astype(bool), state.legal_action_mask[0])
        np.testing.assert_array_equal(env.unwrapped.action_masks(), state.legal_action_mask[0])
        assert int(state.current_player[0]) == seat  # the learner is always the one to move
        np.testing.assert_array_equal(obs, base.game.observe(state, seat)[0])  # learner's own view
        obs, _, terminated, _, info = env.step(env.action_space.sample(info["action_mask"]))
        if terminated:
            obs, info = env.reset()


def test_single_env_step_after_the_end_needs_a_reset():
    env = gym.make(ENV_ID, num_players=2)
    _, info = env.reset(seed=2)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(_last_legal(info["action_mask"]))
    with pytest.raises(ValueError, match="reset"):
        env.unwrapped.step(0)


def test_single_env_rewards_are_the_learners_only():
    """Reward is 0 until the end, then +1 if the learner's seat won, -1 otherwise (0 for an all-way draw)."""
    env = gym.make(ENV_ID, num_players=3, opponent="random")
    outcomes = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seat = info["learner_seat"]
        total, terminated = 0.0, False
        while not terminated:
            _, reward, terminated, _, info = env.step(_last_legal(info["action_mask"]))
            if not terminated:
                assert reward == 0.0
            total += reward
        winners = np.flatnonzero(info["winners"]).tolist()  # the (P,) bool mask as seats
        expected = 1.0 if seat in winners else -1.0
        if len(winners) == 3:
            expected = 0.0
        assert total == expected and info["learner_seat"] == seat
        outcomes.add(expected)
    assert outcomes >= {1.0, -1.0}  # both sides of the reward were exercised


def test_learner_seat_is_random_per_episode_and_can_be_fixed():
    env = gym.make(ENV_ID, num_players=3)
    env.reset(seed=0)
    seats = [env.reset()[1]["learner_seat"] for _ in range(40)]
    assert set(seats) == {0, 1, 2}
    fixed = gym.make(ENV_ID, num_players=3, learner_seat=1)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {1}
    with pytest.raises(ValueError, match="learner_seat"):
        gym.make(ENV_ID, num_players=3, learner_seat=3)


def test_single_env_is_deterministic_per_seed_and_across_unseeded_resets():
    def run(env, seed):
        out = []
        obs, info = env.reset(seed=seed)
        for _ in range(3):
            terminated = False
            out.append((obs.copy(), info["learner_seat"]))
            while not terminated:
                obs, reward, terminated, _, info = env.step(_last_legal(info["action_mask"]))
                out.append((obs.copy(), reward))
            obs, info = env.reset()
        return out

    a = run(gym.make(ENV_ID, opponent="random"), 21)
    b = run(gym.make(ENV_ID, opponent="random"), 21)
    c = run(gym.make(ENV_ID, opponent="random"), 22)
    assert len(a) == len(b)
    for (x, rx), (y, ry) in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
        assert rx == ry
    assert len(a) != len(c) or any(not np.array_equal(x, y) for (x, _), (y, _) in zip(a, c, strict=False))


def test_seed_gives_the_same_game_as_the_core():
    """Solo has no opponents: the first state after reset(seed=s) is exactly game.init(s)."""
    env = gym.make(ENV_ID, num_players=1)
    env.reset(seed=31)
    assert env.unwrapped.driver.state.equals(MonkeyFun(num_players=1).init([31]))


@pytest.mark.parametrize("mode", ["ansi", "human"])
def test_single_env_renders_the_learners_view(mode, capsys):
    env = gym.make(ENV_ID, render_mode=mode)
    env.reset(seed=0)
    seat = env.unwrapped.learner_seat
    out = env.render()
    text = out if mode == "ansi" else capsys.readouterr().out
    assert f"hand of {'AB'[seat]}" in text
    assert (out is None) == (mode == "human")


# ------------------------------------------------------------------ vector env
def test_make_vec_builds_the_native_vector_env_with_same_step_autoreset():
    venv = gym.make_vec(ENV_ID, num_envs=8, vectorization_mode="vector_entry_point", opponent="random")
    assert isinstance(venv.unwrapped, GameVectorEnv)
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, infos = venv.reset(seed=0)
    assert obs.shape == (8, venv.unwrapped.game.obs_dim) and obs.dtype == np.float32
    assert venv.observation_space.contains(obs)
    assert infos["action_mask"].shape == (8, 16) and infos["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(venv.unwrapped.action_masks(), infos["action_mask"].astype(bool))
    actions = venv.action_space.sample()
    assert actions.shape == (8,)


def test_vector_env_same_step_autoreset_reports_final_obs_and_info():
    venv = gym.make_vec(ENV_ID, num_envs=16, vectorization_mode="vector_entry_point", num_players=2)
    base = venv.unwrapped
    obs, infos = venv.reset(seed=5)
    finished = 0
    for _ in range(150):
        obs, rewards, terms, truncs, infos = venv.step(_last_legal(infos["action_mask"]))
        assert rewards.shape == (16,) and terms.dtype == bool and not truncs.any()
        assert venv.observation_space.contains(obs)
        done = terms | truncs
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            np.testing.assert_array_equal(infos["_final_info"], done)
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i].shape == (base.game.obs_dim,)
                assert rewards[i] in (-1.0, 0.0, 1.0)
                assert base.game.spec.end_reason_name(infos["final_info"]["end_reason"][i]) in (
                    "line",
                    "supplies_empty",
                )
                # the returned observation already belongs to a fresh episode
                assert base.driver.state.step_count[i] < base.game.num_players
                assert not np.array_equal(obs[i], infos["final_obs"][i])
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
            finished += int(done.sum())
        else:
            assert "final_obs" not in infos
        assert (rewards[~done] == 0).all()
    assert finished >= 16


def test_vector_env_renders_every_env_in_ansi():
    venv = GameVectorEnv(num_envs=3, render_mode="ansi")
    venv.reset(seed=0)
    frames = venv.render()
    assert len(frames) == 3 and all("Monkey Fun" in f for f in frames)


# ------------------------------------------------------------------ the shared driver
def test_driver_rows_replay_like_single_rows_at_any_batch_size():
    """Batch invariance of the driver: row i of B=8 seeded s+i == B=1 seeded s+i (random opponents, seats)."""
    game = MonkeyFun(num_players=3)
    big = SingleAgentDriver(game, 8)
    obs, _ = big.reset(np.arange(100, 108))
    singles = [SingleAgentDriver(game, 1) for _ in range(8)]
    for i, d in enumerate(singles):
        o, _ = d.reset(np.array([100 + i]))
        np.testing.assert_array_equal(o[0], obs[i])
    ends = 0
    for _ in range(40):
        actions = _last_legal(big.mask)
        r = big.step(actions)
        ends += r.final_rows.size
        for i, d in enumerate(singles):
            s = d.step(np.array([actions[i]]))
            if s.final_rows.size:
                d_final = s.final_obs[0]
                j = int(np.flatnonzero(r.final_rows == i)[0])
                np.testing.assert_array_equal(r.final_obs[j], d_final)
            np.testing.assert_array_equal(s.obs[0], r.obs[i])
            assert s.reward[0] == r.reward[i] and s.terminated[0] == r.terminated[i]
            assert d.seat[0] == big.seat[i]
    assert ends >= 8  # autoresets (new seeds and seats from each row's stream) were compared too


def test_driver_plays_each_opponent_for_its_seat_and_swaps_opponents():
    game = MonkeyFun(num_players=3)

    class Recorder:
        def __init__(self, name):
            self.name, self.calls = name, 0

        def act(self, obs, mask):
            self.calls += obs.shape[0]
            return _last_legal(mask)

    first, second = Recorder("first"), Recorder("second")
    d = SingleAgentDriver(game, 16, opponent=[first, second], learner_seat=0)
    d.reset(np.arange(16))
    for _ in range(10):
        d.step(_last_legal(d.mask))
    assert first.calls > 0 and second.calls > 0
    assert d.opponents == [first, second]
    third = Recorder("third")
    d.set_opponent(third)
    before = (first.calls, second.calls)
    for _ in range(5):
        d.step(_last_legal(d.mask))
    assert (first.calls, second.calls) == before and third.calls > 0


def test_driver_rejects_bad_configuration():
    game = MonkeyFun(num_players=3)
    with pytest.raises(ValueError, match="one entry per other seat"):
        SingleAgentDriver(game, 2, opponent=["random"])
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentDriver(game, 2, opponent="nobody")
    with pytest.raises(ValueError, match="num_envs"):
        SingleAgentDriver(game, 0)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentDriver(game, 1, illegal_action="ignore")
    with pytest.raises(ValueError, match="reset"):
        SingleAgentDriver(game, 1).step(np.array([0]))


def test_game_registry_builds_games_and_rejects_unknown_names():
    assert make_game("monkey_fun", num_players=4).num_players == 4
    game = MonkeyFun()
    assert resolve_game(game) is game
    with pytest.raises(ValueError, match="unknown game"):
        make_game("monkey_business")
    with pytest.raises(ValueError, match="either"):
        resolve_game(game, num_players=3)


def test_greedy_opponent_plays_in_the_single_and_vector_env():
    env = gym.make(ENV_ID, opponent="greedy")
    _, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(_last_legal(info["action_mask"]))
    venv = GameVectorEnv(num_envs=8, opponent="greedy")
    _, infos = venv.reset(seed=0)
    for _ in range(10):
        _, _, _, _, infos = venv.step(_last_legal(infos["action_mask"]))


@pytest.mark.parametrize("name", sorted(SHIPPED_GAMES))
def test_every_declared_variant_is_accepted_by_the_game_and_its_faces(name):
    """``GameSpec.variants`` lists the names the ``variant`` option accepts (``core/spec.py``): each
    builds the game, its gymnasium id and its AEC env; where it declares some, an undeclared name
    is a ValueError naming the choices."""
    from monkey_envs.games import game_class

    spec = game_class(name).spec
    for variant in spec.variants:
        counts = []  # the player counts that take it (a variant may be for one count, e.g. solo)
        for n in range(spec.min_players, spec.max_players + 1):
            try:
                make_game(name, variant=variant, num_players=n)
            except ValueError:
                continue
            counts.append(n)
        assert counts, f"no player count accepts the declared variant {variant!r}"
        opts = {"variant": variant, "num_players": counts[0]}
        gym.make(f"monkey_envs/{spec.gym_name}-v{spec.version}", **opts).reset(seed=0)
        monkey_envs.versioned_module(f"{spec.name}_v{spec.version}").env(**opts).reset(seed=0)
    if spec.variants:
        with pytest.raises(ValueError, match=spec.variants[0]):
            make_game(name, variant="no-such-variant")
