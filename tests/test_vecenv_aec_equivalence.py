"""VecEnv vs AEC equivalence for the same seed (issue 4).

Behaviour checked: env ``i`` of a ``MonkeyVecEnv`` seeded ``s`` plays exactly the game that the
PettingZoo AEC face plays after ``reset(seed=s + i)`` -- and its next episode the AEC's next
``reset()`` -- when every seat uses the same deterministic policy: the learner sees the same
observations, takes the same actions, gets the same final reward and the same winners, and its
terminal observation is the AEC's. Through the gym single env (no autoreset) the final core state
(board, hands, RNG, step count: every move) is compared field by field with the AEC's.

The policy is a fixed linear scorer of the observation whose per-row result does not depend on
the batch (elementwise products summed per row, no BLAS), so opponents acting on whole batches
inside the VecEnv choose what the same seat chooses in the AEC game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from monkey_envs import funky_monkey_v0, monkey_fun_v0
from monkey_envs.core.gym_single import GameEnv
from monkey_envs.core.sb3_vec import MonkeyVecEnv

AEC = {"monkey_fun": monkey_fun_v0, "funky_monkey": funky_monkey_v0}


class LinearPolicy:
    """Deterministic agent: the legal action with the highest ``W @ obs`` (batch-invariant per row).

    Args:
        num_actions: ``A``.
        obs_dim: ``D``.
        seed: seeds the ``(A, D) float64`` weights.
    """

    name = "linear"

    def __init__(self, num_actions: int, obs_dim: int, seed: int) -> None:
        self.w = np.random.default_rng(seed).normal(size=(num_actions, obs_dim))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` actions for ``obs (B, D)`` and ``mask (B, A)``."""
        obs = np.asarray(obs, dtype=np.float64)
        scores = (obs[:, None, :] * self.w[None]).sum(-1)  # per-row sums: independent of B
        return np.where(np.asarray(mask).astype(bool), scores, -np.inf).argmax(1).astype(np.int64)


def play_aec(env: Any, seed: int | None, learner: int, policy: LinearPolicy) -> dict[str, Any]:
    """One game on a raw AEC env (``reset(seed)``; ``None`` continues its stream), every seat ``policy``.

    Returns the learner's observations and actions, every seat's summed reward, the winners,
    the learner's terminal observation and the final core state.
    """
    if seed is None:
        env.reset()
    else:
        env.reset(seed=seed)
    me = env.possible_agents[learner]
    total = dict.fromkeys(env.possible_agents, 0.0)
    obs_seq, act_seq, moves = [], [], 0
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        o = env.observe(agent)
        a = int(policy.act(o["observation"][None], o["action_mask"][None])[0])
        if agent == me:
            obs_seq.append(o["observation"].copy())
            act_seq.append(a)
        env.step(a)
        moves += 1
        for k in total:
            total[k] += env.rewards[k]
    return {
        "obs": obs_seq,
        "actions": act_seq,
        "reward": total[me],
        "rewards": [total[a] for a in env.possible_agents],
        "winners": env.infos[me]["winners"],
        "final_obs": env.observe(me)["observation"].copy(),
        "state": env.core_state,
        "moves": moves,
    }


def play_vec(venv: MonkeyVecEnv, policy: LinearPolicy, episodes: int) -> list[list[dict[str, Any]]]:
    """Run the learner with ``policy`` until every env finished ``episodes`` episodes.

    Returns per env a list of episodes: ``seat``, ``obs``, ``actions``, ``reward`` (summed),
    ``winners``, ``final_obs``.
    """
    n = venv.num_envs
    obs = venv.reset()
    done_eps: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    cur = [{"seat": int(s), "obs": [], "actions": [], "reward": 0.0} for s in venv.learner_seat]
    for _ in range(10_000):
        acts = policy.act(obs, venv.action_masks())
        for i in range(n):
            cur[i]["obs"].append(obs[i].copy())
            cur[i]["actions"].append(int(acts[i]))
        obs, rew, dones, infos = venv.step(acts)
        seats = venv.learner_seat
        for i in range(n):
            cur[i]["reward"] += float(rew[i])
            if dones[i]:
                ep = cur[i]
                assert infos[i]["learner_seat"] == ep["seat"]
                ep["winners"] = infos[i]["winners"]
                ep["final_obs"] = infos[i]["terminal_observation"]
                done_eps[i].append(ep)
                cur[i] = {"seat": int(seats[i]), "obs": [], "actions": [], "reward": 0.0}
        if min(len(e) for e in done_eps) >= episodes:
            return done_eps
    raise AssertionError("episodes did not end")


def assert_same_game(vec_ep: dict[str, Any], aec: dict[str, Any], where: str) -> None:
    assert vec_ep["actions"] == aec["actions"], f"{where}: learner actions differ"
    assert len(vec_ep["obs"]) == len(aec["obs"])
    for k, (a, b) in enumerate(zip(vec_ep["obs"], aec["obs"], strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"{where}: learner observation {k} differs")
    assert vec_ep["reward"] == aec["reward"], f"{where}: final reward differs"
    assert list(vec_ep["winners"]) == list(aec["winners"]), f"{where}: winners differ"
    np.testing.assert_array_equal(vec_ep["final_obs"], aec["final_obs"], err_msg=f"{where}: terminal obs")


@pytest.mark.parametrize(
    ("game", "players", "learner_seat", "num_envs"),
    [
        ("monkey_fun", 2, 0, 6),
        ("monkey_fun", 2, 1, 6),
        ("monkey_fun", 4, 2, 4),
        ("monkey_fun", 3, None, 6),
        ("funky_monkey", 4, 3, 3),
        ("funky_monkey", 4, None, 3),
    ],
)
def test_vecenv_row_plays_the_aec_game_of_the_same_seed(game, players, learner_seat, num_envs):
    seed = 40 + players
    venv = MonkeyVecEnv(game, num_envs=num_envs, seed=seed, learner_seat=learner_seat, num_players=players)
    policy = LinearPolicy(venv.game.num_actions, venv.game.obs_dim, seed=players)
    venv.set_opponent(policy)  # every other seat plays the same deterministic policy
    episodes = play_vec(venv, policy, episodes=2)
    env = AEC[game].raw_env(num_players=players)
    outcomes = set()
    for i in range(num_envs):
        for k, ep in enumerate(episodes[i][:2]):
            if learner_seat is not None:
                assert ep["seat"] == learner_seat
            # episode 0: reset(seed=s+i); episode 1: the AEC's next reset() continues the same stream
            aec = play_aec(env, seed + i if k == 0 else None, ep["seat"], policy)
            assert_same_game(ep, aec, f"env {i} episode {k}")
            outcomes.add(tuple(ep["winners"]))
    assert len(outcomes) >= 2, "the seeds should give different winners (a non-trivial comparison)"


@pytest.mark.parametrize(
    ("game", "players", "seat"), [("monkey_fun", 2, 1), ("monkey_fun", 4, 0), ("funky_monkey", 4, 2)]
)
def test_gym_single_env_ends_in_the_aec_games_final_core_state(game, players, seat):
    """Every move equal: the final core states (all fields, RNG and step count included) are identical."""
    genv = GameEnv(game, opponent="random", learner_seat=seat, num_players=players)
    policy = LinearPolicy(genv.game.num_actions, genv.game.obs_dim, seed=7)
    genv.set_opponent(policy)
    env = AEC[game].raw_env(num_players=players)
    for seed in (3, 17):
        obs, info = genv.reset(seed=seed)
        learner_actions, reward, done = [], 0.0, False
        while not done:
            a = int(policy.act(obs[None], info["action_mask"][None])[0])
            learner_actions.append(a)
            obs, r, term, trunc, info = genv.step(a)
            reward += r
            done = term or trunc
        aec = play_aec(env, seed, seat, policy)
        assert learner_actions == aec["actions"]
        assert reward == aec["reward"] == aec["rewards"][seat]
        np.testing.assert_array_equal(info["winners"], aec["winners"])
        assert genv.driver.state.equals(aec["state"]), f"seed {seed}: final core states differ"
        assert int(genv.driver.state.step_count[0]) == aec["moves"]
