"""Funky Monkey heuristics: legal, deterministic per seed, vectorised, and better than chance.

The strength checks play seat-rotated batches and use margins far outside the noise of the
game counts used (a heuristic that played like the random agent would fail them).
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import agents.heuristics.funky_monkey as FM
from agents.base import RandomAgent
from monkey_envs.funky_monkey import FunkyMonkey
from monkey_envs.funky_monkey import rules as R
from monkey_envs.funky_monkey.state import PH_BONUS, PH_RESPOND

NAMES = ("honest", "believer", "skeptic", "track")


def play(game: FunkyMonkey, lineup: list, num_games: int, seed: int = 0) -> np.ndarray:
    """Win share of each lineup slot over ``num_games`` seat-rotated games (a shared win splits)."""
    P = game.num_players
    s = game.init(np.arange(num_games) + seed)
    g = np.arange(num_games)
    slot_at_seat = (np.arange(P)[None, :] - g[:, None]) % P
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        slot = slot_at_seat[g, cp]
        act = np.zeros(num_games, np.int64)
        for i, agent in enumerate(lineup):
            rows = np.flatnonzero((slot == i) & ~s.terminated)
            if rows.size:
                act[rows] = agent.act(obs[rows], s.legal_action_mask[rows])
        s = game.step(s, act)
    share = s.winners_mask / np.maximum(s.winners_mask.sum(1, keepdims=True), 1)
    return np.array([share[g, (i + g) % P].mean() for i in range(P)])


@pytest.mark.parametrize("name", NAMES)
def test_heuristics_are_registered_for_funky_monkey_only(name):
    game = FunkyMonkey(3)
    agent = agents.make_agent(name, game, seed=1)
    assert isinstance(agent, FM.AGENT_CLASSES[name])
    from monkey_envs.monkey_fun import MonkeyFun

    with pytest.raises(ValueError):
        agents.make_agent(name, MonkeyFun(2), seed=1)


@pytest.mark.parametrize("num_players", [2, 5, 7])
@pytest.mark.parametrize("name", NAMES)
def test_heuristics_always_choose_legal_actions_and_repeat_with_the_same_seed(name, num_players):
    game = FunkyMonkey(num_players, tile_visibility="every_second", crown_bonus=True)
    a1, a2 = FM.AGENT_CLASSES[name](game, seed=4), FM.AGENT_CLASSES[name](game, seed=4)
    s = game.init(np.arange(64))
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        act = a1.act(obs, s.legal_action_mask)
        np.testing.assert_array_equal(act, a2.act(obs, s.legal_action_mask.astype(np.int8)))
        live = ~s.terminated
        assert s.legal_action_mask[np.flatnonzero(live), act[live]].all()
        s = game.step(s, act)


def test_honest_announces_the_true_value():
    game = FunkyMonkey(3)
    s = game.position(positions=[0, 1, 0], hands=[[1, 3, "M"], [2], [2]], active=0, turn_order=[1, 2])
    a = FM.HonestAgent(game).act(game.observe(s, 0), s.legal_action_mask)[0]
    assert a // 5 == a % 5 and a < R.A_CROWN


def test_believer_accepts_an_announcement_that_lands_it_on_the_tiger():
    game = FunkyMonkey(3)
    s = game.position(positions=[0, 13, 0], hands=[[1, 2], [2], [2]], active=0, turn_order=[1, 2])
    s = game.step(s, np.array([0 * 5 + 2]))  # a "1" announced as "3" (a lure onto the tiger)
    assert int(s.phase[0]) == PH_RESPOND and int(s.current_player[0]) == 1
    assert FM.BelieverAgent(game).act(game.observe(s, 1), s.legal_action_mask)[0] == R.A_ACCEPT


def test_skeptic_refuses_the_same_lure_when_most_unseen_cards_overshoot():
    game = FunkyMonkey(3)
    s = game.position(positions=[0, 14, 0], hands=[[1, 2], [4, 4, 4], [2]], active=0, turn_order=[1, 2])
    s = game.step(s, np.array([0 * 5 + 1]))  # a "1" announced as "2" (exactly onto the tiger)
    a = FM.SkepticAgent(game).act(game.observe(s, 1), s.legal_action_mask)[0]
    assert a == R.A_PASS


def test_bonus_move_with_the_tiger_when_it_catches_the_last_rival():
    # seat 1 waits right in front of the tiger (15); seat 0's true "1" comes back to it: bonus
    game = FunkyMonkey(2)
    s = game.position(positions=[3, 15], tiles={4: "coconut"}, hands=[[1, 1], [1]], active=0, turn_order=[1])
    s = game.step(s, np.array([0]))  # "1" announced as "1"
    s = game.step(s, np.array([R.A_PASS]))
    assert int(s.phase[0]) == PH_BONUS and int(s.current_player[0]) == 0
    for name in NAMES:
        assert FM.AGENT_CLASSES[name](game).act(game.observe(s, 0), s.legal_action_mask)[0] == R.A_BONUS_TIGER


@pytest.mark.parametrize("name", NAMES)
def test_every_heuristic_beats_random_heads_up(name):
    game = FunkyMonkey(2)
    share = play(game, [FM.AGENT_CLASSES[name](game, 1), RandomAgent(game, 2)], num_games=400, seed=10)
    assert share[0] > 0.56, share


def test_track_beats_the_believer_and_the_honest_heuristic_heads_up():
    game = FunkyMonkey(2)
    for other in ("believer", "honest"):
        share = play(game, [FM.TrackAgent(game, 1), FM.AGENT_CLASSES[other](game, 2)], num_games=400, seed=20)
        assert share[0] > 0.55, (other, share)
