"""Self-play: the pool's sampling strategies, snapshots during a real MaskablePPO run, and the
learner's reward perspective when the opponents are frozen copies of the learner itself."""

from __future__ import annotations

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from monkey_envs.core.opponents import OpponentPool  # noqa: E402
from monkey_envs.core.sb3_vec import MonkeyVecEnv  # noqa: E402
from monkey_envs.core.testing import random_legal_actions  # noqa: E402
from training.config import SelfPlayConfig  # noqa: E402
from training.selfplay import FrozenPolicy, SelfPlayCallback, selfplay_weights  # noqa: E402


# ---------------------------------------------------------------- sampling strategies
def test_uniform_over_the_window_with_a_heuristic_share():
    cfg = SelfPlayConfig(sampling="uniform", window=3, heuristic_share=0.2)
    w = selfplay_weights(2, 5, np.full(7, 0.5), cfg)
    # 2 heuristics share 0.2; the newest 3 of 5 snapshots share 0.8; the 2 oldest get nothing
    np.testing.assert_allclose(w, [0.1, 0.1, 0, 0, 0.8 / 3, 0.8 / 3, 0.8 / 3])


def test_latest_takes_only_the_newest_snapshot():
    cfg = SelfPlayConfig(sampling="latest", heuristic_share=0.0)
    np.testing.assert_allclose(selfplay_weights(1, 3, np.full(4, 0.5), cfg), [0, 0, 0, 1])


def test_prioritized_favours_opponents_the_learner_loses_to():
    cfg = SelfPlayConfig(sampling="prioritized", window=10, priority_power=2.0, heuristic_share=0.0)
    wr = np.array([0.5, 0.9, 0.5, 0.0])  # heuristic, then snapshots the learner beats 90%, 50%, 0%
    w = selfplay_weights(1, 3, wr, cfg)
    raw = np.array([0.1**2, 0.5**2, 1.0**2])
    np.testing.assert_allclose(w, [0.0, *(raw / raw.sum())])
    assert w[3] > w[2] > w[1]


def test_before_any_snapshot_only_heuristics_play():
    np.testing.assert_allclose(selfplay_weights(2, 0, np.full(2, 0.5), SelfPlayConfig()), [0.5, 0.5])


# ---------------------------------------------------------------- a real run
def tiny_model(venv):
    return sb3_contrib.MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        seed=0,
        learning_rate=3e-3,
        policy_kwargs={"net_arch": [16]},
    )


def test_snapshots_join_the_pool_play_and_stay_frozen(tmp_path):
    torch.set_num_threads(1)
    pool = OpponentPool(["random"])
    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent=pool, seed=0, num_players=2)
    model = tiny_model(venv)
    cfg = SelfPlayConfig(enabled=True, snapshot_every=128, sampling="uniform", window=10, heuristic_share=0.25)
    cb = SelfPlayCallback(pool, cfg, venv.game, num_heuristics=1, snapshot_dir=tmp_path / "snapshots")
    model.learn(512, callback=cb)
    # a snapshot at the start and at every 128 steps (8 envs x 16 steps per rollout)
    assert cb.snapshot_steps == [0, 128, 256, 384, 512]
    assert pool.names == ["random", *(f"snapshot_{s}" for s in (0, 128, 256, 384, 512))]
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == sorted(
        f"snapshot_{s}.{ext}" for s in (0, 128, 256, 384, 512) for ext in ("zip", "safetensors", "json")
    )
    np.testing.assert_allclose(pool.weights, [0.25, *[0.75 / 5] * 5])
    assert pool.games[1:].sum() > 0, "snapshots never played"
    # the first snapshot is the initial policy, frozen: training did not move it
    first = pool.members[1].model.policy
    assert all(not p.requires_grad for p in first.parameters())
    cur = dict(model.policy.named_parameters())
    assert any(not torch.equal(p, cur[n]) for n, p in first.named_parameters()), "snapshot follows the learner"
    # a saved snapshot plays as a ppo: agent in the arena
    from agents import make_agent

    agent = make_agent(f"ppo:{tmp_path / 'snapshots' / 'snapshot_128.zip'}", venv.game)
    state = venv.game.init(np.arange(4))
    obs = venv.game.observe(state, state.current_player)
    acts = agent.act(obs, state.legal_action_mask)
    assert state.legal_action_mask[np.arange(4), acts].all()


def test_learner_reward_against_its_own_snapshot_is_the_learners():
    """Reward-perspective regression under self-play: the opponent is a frozen copy of the learner
    itself, so a driver crediting the wrong seat would still see 'a learner' win -- only the
    learner's seat must count: +1 exactly when ``learner_seat`` is among the winners."""
    torch.set_num_threads(1)
    venv = MonkeyVecEnv("monkey_fun", num_envs=16, opponent="random", seed=3, num_players=2)
    model = tiny_model(venv)
    from agents.policy import PolicyAgent

    snapshot = PolicyAgent(FrozenPolicy(model.policy), venv.game, deterministic=False, name="self")
    venv.set_opponent(OpponentPool([snapshot]))
    venv.reset()
    outcomes = []
    rng = np.random.default_rng(0)
    for _ in range(400):
        mask = venv.action_masks()
        _, rewards, dones, infos = venv.step(random_legal_actions(mask, rng))
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["seat_agents"][info["learner_seat"]] == -1  # the learner's code
            won = bool(info["winners"][info["learner_seat"]])  # (P,) bool
            expected = 0.0 if info["winners"].all() else (1.0 if won else -1.0)
            assert rewards[i] == expected
            outcomes.append(expected)
    assert 1.0 in outcomes and -1.0 in outcomes


def test_prioritized_counts_the_fair_share_as_even_with_more_players():
    """With 4 players a learner winning 25% against a snapshot is even with it (weight as 50% in 2p)."""
    cfg = SelfPlayConfig(sampling="prioritized", priority_power=1.0, heuristic_share=0.0)
    w4 = selfplay_weights(0, 2, np.array([0.25, 0.625]), cfg, fair_share=0.25)
    w2 = selfplay_weights(0, 2, np.array([0.5, 0.75]), cfg, fair_share=0.5)
    np.testing.assert_allclose(w4, w2)
    np.testing.assert_allclose(w2, np.array([0.5, 0.25]) / 0.75)


def test_heuristic_share_follows_the_opponent_weights():
    cfg = SelfPlayConfig(sampling="uniform", heuristic_share=0.4)
    w = selfplay_weights(3, 2, np.full(5, 0.5), cfg, heuristic_weights=np.array([1.0, 0.0, 3.0]))
    np.testing.assert_allclose(w, [0.1, 0.0, 0.3, 0.3, 0.3])
    np.testing.assert_allclose(selfplay_weights(3, 0, np.full(3, 0.5), cfg, np.array([1.0, 0.0, 3.0])), [0.25, 0, 0.75])


def test_imitation_of_a_bluffer_keeps_only_moves_the_restricted_learner_can_make():
    from monkey_envs.funky_monkey.rules import FunkyMonkey
    from training.pretrain import record_teacher_games

    game = FunkyMonkey(num_players=3)
    honest = game.action_filter("honest")
    free = record_teacher_games(game, "skeptic", 6, seed=0, gamma=0.99)
    assert not honest[free.actions].all(), "skeptic bluffs"
    kept = record_teacher_games(game, "skeptic", 6, seed=0, gamma=0.99, allowed_actions=honest)
    assert honest[kept.actions].all() and not (kept.mask & ~honest).any()
    assert 0 < kept.actions.size < free.actions.size
