"""Self-play reward-perspective regression test: the learner is never trained on an opponent's reward.

Rule checked (issue 4, "rewards and dones from the learner's side only"): in every face over the
single-agent driver, a step's reward is the *learner's seat's* reward from the core -- 0 while the
episode runs and, at the end, ``+1`` exactly when the learner's seat is among the core's winners,
``-1`` when it is not (``0`` when every seat shares the win) -- never the reward of the seat that
moved last, of ``current_player`` or of an opponent seat.

The checks are built so that a driver that reads the wrong seat's column fails them: the learner's
seat is cross-checked against the core (``current_player`` at every learner decision, ``learner_seat``
in the final info), learner seats are random so every seat is exercised, games are won *and* lost,
a policy that always loses must see mean reward ~ -1 while its opponent's would be ~ +1, and
:func:`test_the_checks_catch_a_driver_reading_the_next_seats_reward` runs a real seat-shifted driver
and requires the checks to flag it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import monkey_envs  # noqa: F401  (registers the gymnasium ids)
from agents import make_agent
from monkey_envs.core.sb3_vec import MonkeyVecEnv
from monkey_envs.core.testing import random_legal_actions


def expected_reward(winners: Any, seat: int, num_players: int) -> float:
    """The core's terminal reward of ``seat`` given the final ``winners`` (``end_games``' rule).

    ``winners``: a ``(P,) bool`` mask (as in infos) or a list of seats.
    """
    arr = np.asarray(winners)
    w = set(np.flatnonzero(arr).tolist() if arr.dtype == np.bool_ else arr.tolist())
    if num_players > 1 and len(w) == num_players:
        return 0.0
    return 1.0 if seat in w else -1.0


def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deliberately weak policy: the lowest-numbered legal action (loses every game to greedy)."""
    return np.asarray(mask).astype(bool).argmax(1).astype(np.int64)


class RandomPolicy:
    """Uniformly random legal actions from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return random_legal_actions(mask, self.rng)


class CountingAgent:
    """An agent object (as a self-play snapshot would be) that counts the rows it was asked about."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.rows_seen = 0
        self.name = f"counting-{getattr(inner, 'name', 'agent')}"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        assert np.asarray(mask).astype(bool).any(1).all(), "an opponent was asked to move without a legal action"
        self.rows_seen += obs.shape[0]
        return self.inner.act(obs, mask)


def play_vec(
    venv: MonkeyVecEnv, policy: Any, episodes: int, obs: np.ndarray | None = None, max_steps: int = 5_000
) -> dict[str, Any]:
    """Run ``venv`` with ``policy(obs, mask)`` until ``episodes`` episodes ended; check every step.

    Starts with ``venv.reset()`` unless ``obs`` (the current observations) is given, in which case
    the run continues where it stands.

    Per step it checks that each env's learner is the core's ``current_player`` (so
    ``learner_seat`` really is the seat that acts), that rewards are 0 in envs still running, and
    that each finished env's reward is the learner seat's core reward from its final info.

    Returns:
        ``rewards`` (terminal rewards), ``opp_rewards`` (what the next seat after the learner got),
        ``seats`` (learner seats of finished episodes), ``violations`` (messages), ``obs`` (the
        current observations, to continue the run).
    """
    P = venv.game.num_players
    if obs is None:
        obs = venv.reset()
    rewards: list[float] = []
    opp_rewards: list[float] = []
    seats: list[int] = []
    violations: list[str] = []
    for _ in range(max_steps):
        seat_before = venv.learner_seat
        cp = venv.driver.state.current_player.astype(np.int64)
        if not np.array_equal(cp, seat_before):
            violations.append(f"learner seats {seat_before.tolist()} but players to move {cp.tolist()}")
        mask = venv.action_masks()
        obs, rew, done, infos = venv.step(policy(obs, mask))
        if np.any(rew[~done] != 0.0):
            violations.append(f"non-zero reward before the end: {rew[~done][rew[~done] != 0].tolist()}")
        for i in np.flatnonzero(done).tolist():
            info = infos[i]
            seat = int(info["learner_seat"])
            if seat != int(seat_before[i]):
                violations.append(f"env {i}: final info says seat {seat}, the episode's learner was {seat_before[i]}")
            want = expected_reward(info["winners"], seat, P)
            if float(rew[i]) != want:
                violations.append(f"env {i}: seat {seat}, winners {info['winners']}: reward {rew[i]}, want {want}")
            rewards.append(float(rew[i]))
            opp_rewards.append(expected_reward(info["winners"], (seat + 1) % P, P))
            seats.append(seat)
        if len(rewards) >= episodes:
            break
    else:
        raise AssertionError(f"only {len(rewards)} of {episodes} episodes ended in {max_steps} steps")
    return {
        "rewards": np.array(rewards),
        "opp_rewards": np.array(opp_rewards),
        "seats": np.array(seats),
        "violations": violations,
        "obs": obs,
    }


@pytest.mark.parametrize(
    ("players", "opponent"),
    [(2, "random"), (2, "greedy"), (3, "random"), (4, "greedy"), (4, ["greedy", "random", "greedy"])],
)
def test_vecenv_terminal_reward_is_the_learner_seats_reward(players, opponent):
    venv = MonkeyVecEnv("monkey_fun", num_envs=32, opponent=opponent, seed=100 + players, num_players=players)
    res = play_vec(venv, RandomPolicy(players), episodes=200)
    assert res["violations"] == []
    assert set(res["seats"].tolist()) == set(range(players)), "random learner seats must cover every seat"
    if opponent == "random":
        # both outcomes occur, so a sign or seat swap cannot pass by accident
        assert (res["rewards"] == 1.0).sum() >= 10 and (res["rewards"] == -1.0).sum() >= 10


def test_losing_policy_sees_minus_one_and_its_opponent_would_see_plus_one():
    venv = MonkeyVecEnv("monkey_fun", num_envs=32, opponent="greedy", seed=7, num_players=2)
    res = play_vec(venv, first_legal, episodes=300)
    assert res["violations"] == []
    assert res["rewards"].mean() <= -0.9, f"a losing learner got mean reward {res['rewards'].mean():.3f}"
    assert res["opp_rewards"].mean() >= 0.9  # a driver handing out the opponent's reward would give this
    assert set(res["seats"].tolist()) == {0, 1}


def test_winning_policy_sees_plus_one_as_either_seat():
    venv = MonkeyVecEnv("monkey_fun", num_envs=32, opponent="random", seed=8, num_players=2)
    greedy = make_agent("greedy", venv.game, seed=3)
    res = play_vec(venv, greedy.act, episodes=300)
    assert res["violations"] == []
    for seat in (0, 1):
        assert res["rewards"][res["seats"] == seat].mean() >= 0.9, f"greedy as seat {seat}"


def test_self_play_set_opponent_mid_run_keeps_rewards_on_the_learners_side():
    """Self-play swaps in an agent object mid-run (no reset): rewards stay the learner's, and the new opponent plays."""
    venv = MonkeyVecEnv("monkey_fun", num_envs=32, opponent="random", seed=11, num_players=2)
    learner = RandomPolicy(11)
    before = play_vec(venv, learner, episodes=150)
    assert before["violations"] == []
    assert (before["rewards"] == 1.0).sum() >= 30, "random vs random: the learner wins a fair share"
    snapshot = CountingAgent(make_agent("greedy", venv.game, seed=5))
    venv.set_opponent(snapshot)
    after = play_vec(venv, learner, episodes=300, obs=before["obs"])
    assert after["violations"] == []
    assert snapshot.rows_seen > 0
    # the first episodes may have started against the random opponent; later ones are all vs greedy
    tail = slice(2 * venv.num_envs, None)
    assert after["rewards"][tail].mean() <= -0.8
    assert after["opp_rewards"][tail].mean() >= 0.8
    # self-play proper: the same (greedy) policy on both sides; rewards still follow the learner's seat
    mirror_learner = make_agent("greedy", venv.game, seed=6)
    venv.set_opponent(CountingAgent(make_agent("greedy", venv.game, seed=7)))
    mirror = play_vec(venv, mirror_learner.act, episodes=200, obs=after["obs"])
    assert mirror["violations"] == []
    assert (mirror["rewards"] == 1.0).sum() >= 20 and (mirror["rewards"] == -1.0).sum() >= 20


@pytest.mark.parametrize("opponent", ["honest", ["honest", "skeptic", "track"], "random"])
def test_funky_monkey_four_players_reward_is_the_learner_seats(opponent):
    venv = MonkeyVecEnv("funky_monkey", num_envs=16, opponent=opponent, seed=21, num_players=4)
    res = play_vec(venv, RandomPolicy(21), episodes=40)
    assert res["violations"] == []
    assert set(res["seats"].tolist()) == {0, 1, 2, 3}
    assert (res["rewards"] == -1.0).any()


def test_the_checks_catch_a_driver_reading_the_next_seats_reward(monkeypatch):
    """Mutation check: a driver whose reward column is shifted by one seat must be flagged.

    The core's ``step`` is wrapped so that every transition's reward matrix is rolled by one seat:
    the driver then hands the learner the reward of the seat *after* it -- exactly the bug the
    checks exist for.
    """
    venv = MonkeyVecEnv("monkey_fun", num_envs=16, opponent="random", seed=5, num_players=2)
    game = venv.driver.game
    real_step = type(game).step

    def shifted_step(state, actions):
        new = real_step(game, state, actions)
        new.rewards = np.roll(new.rewards, -1, axis=1)
        return new

    monkeypatch.setattr(game, "step", shifted_step)
    res = play_vec(venv, RandomPolicy(0), episodes=50)
    assert res["violations"], "a seat-shifted reward went unnoticed"


# ---------------------------------------------------------------------------- gymnasium faces


def test_gym_vector_env_terminal_reward_is_the_learner_seats_reward():
    P = 3
    env = gym.make_vec(
        "monkey_envs/MonkeyFun-v0",
        num_envs=16,
        vectorization_mode="vector_entry_point",
        opponent="greedy",
        num_players=P,
    )
    policy = RandomPolicy(1)
    obs, infos = env.reset(seed=31)
    seen_seats: set[int] = set()
    finished = 0
    while finished < 120:
        seat_before = infos["learner_seat"].copy()
        obs, rew, term, trunc, infos = env.step(policy(obs, infos["action_mask"]))
        done = term | trunc
        assert np.all(rew[~done] == 0.0)
        if done.any():
            fi = infos["final_info"]
            for i in np.flatnonzero(done).tolist():
                seat = int(fi["learner_seat"][i])
                assert seat == seat_before[i]
                assert rew[i] == expected_reward(fi["winners"][i], seat, P)
                seen_seats.add(seat)
                finished += 1
    assert seen_seats == set(range(P))
    env.close()


@pytest.mark.parametrize(
    ("game_id", "players", "opponent", "episodes"), [("MonkeyFun", 2, "greedy", 30), ("FunkyMonkey", 4, "honest", 16)]
)
def test_gym_single_env_reward_matches_the_core_state_at_the_end(game_id, players, opponent, episodes):
    """Without autoreset the terminal core state is still there: compare with its rewards and winners directly."""
    env = gym.make(f"monkey_envs/{game_id}-v0", opponent=opponent, num_players=players).unwrapped
    policy = RandomPolicy(2)
    seats = set()
    for ep in range(episodes):
        obs, info = env.reset(seed=1000 + ep)
        seat = info["learner_seat"]
        done = False
        while not done:
            assert int(env.driver.state.current_player[0]) == seat
            obs, r, term, trunc, info = env.step(int(policy(obs[None], info["action_mask"][None])[0]))
            done = term or trunc
            if not done:
                assert r == 0.0
        state = env.driver.state
        winners = np.flatnonzero(env.game.winners(state)[0]).tolist()
        assert info["learner_seat"] == seat and np.flatnonzero(info["winners"]).tolist() == winners
        assert r == float(state.rewards[0, seat]) == expected_reward(winners, seat, players)
        seats.add(seat)
    assert seats == set(range(players))
