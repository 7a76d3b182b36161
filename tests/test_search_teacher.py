"""A search agent as a training teacher (issue 25: search distillation): the imitation recorder and
rollout-Q ask a state-searching teacher through ``act_state`` (it refuses ``act``), and what it
records is its own moves -- legal, deterministic for the run's seed, and the moves the same search
makes when asked directly on those states."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from monkey_envs.games import make_game
from training.pretrain import record_teacher_games
from training.rollout_q import probe_states, rollout_action_values, teacher_moves

#: A tiny search (the settings spelled out, so the test does not follow a game's defaults).
TINY = (
    "mcts:simulations=4,determinizations=2,max_rollout_depth=4,rollout=random,prior=none,root=ucb,max_tree_depth=0,"
    "margin_weight=0,evaluation=standing,focus=all,candidates=0,stick=0"
)


@pytest.mark.parametrize("name", ["funky_monkey", "monki"])
def test_a_search_teacher_records_its_own_legal_moves_deterministically(name):
    game = make_game(name)
    with pytest.raises(ValueError, match="act_state"):  # what the recorder used to ask
        make_agent(TINY, game, 0).act(np.zeros((1, game.obs_dim), np.float32), np.ones((1, game.num_actions), bool))
    a = record_teacher_games(game, TINY, games=3, seed=5, gamma=0.99)
    b = record_teacher_games(game, TINY, games=3, seed=5, gamma=0.99)
    n = a.actions.size
    assert n > 10 and a.obs.shape == (n, game.obs_dim) and a.mask.shape == (n, game.num_actions)
    assert a.mask[np.arange(n), a.actions].all()  # every recorded move is legal where it was made
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.obs, b.obs)


def test_teacher_moves_asks_a_search_agent_for_the_state_and_a_plain_agent_for_the_observation():
    game = make_game("funky_monkey")
    states = probe_states(game, make_agent("track", game, 0), games=6, probe_prob=0.3, seed=1)
    search = teacher_moves(game, make_agent(TINY, game, 3), states)
    seats = states.current_player.astype(np.int64)
    direct = make_agent(TINY, game, 3).act_state(
        states.clone(), seats, game.observe(states, seats), states.legal_action_mask
    )
    np.testing.assert_array_equal(search, direct)
    plain = teacher_moves(game, make_agent("track", game, 0), states)
    np.testing.assert_array_equal(
        plain, make_agent("track", game, 0).act(game.observe(states, seats), states.legal_action_mask)
    )


def test_rollout_q_plays_out_with_a_search_teacher():
    game = make_game("monki")
    states = probe_states(game, make_agent("greedy", game, 0), games=2, probe_prob=0.05, seed=0)
    data = rollout_action_values(game, TINY, states, chunk=4)
    n = data.teacher_actions.size
    assert n >= 1 and data.mask[np.arange(n), data.teacher_actions].all()
    assert np.isfinite(data.q[data.mask]).all()
