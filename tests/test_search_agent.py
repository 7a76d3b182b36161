"""The search agent ``mcts`` (issue 24, items 1 and 4): legal, deterministic for a seed, within its
budget, blind to what its seat cannot see, and played by the arena, the single-agent driver and
the play command through the state-taking agent protocol (``needs_state`` / ``act_state``).

Budgets are tiny (a handful of simulations, short play-outs): these tests check the machinery,
not the strength (docs/agents.md has the measured tables).
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from agents.base import random_legal
from agents.evaluate import play_games
from agents.registry import agent_names, make_agent
from agents.search import SearchAgent, parse_search_spec
from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.games import GAMES, make_game

#: The games of the package (toy games other tests register at collection are left out).
SHIPPED = sorted(name for name, path in GAMES.items() if path.startswith("monkey_envs."))
#: A tiny budget: 6 simulations over 3 re-deals, random play-outs of at most 6 decisions, UCB1
#: (fixed here, so the tests do not depend on each game's default play-out and prior agents).
TINY = "mcts:simulations=6,determinizations=3,max_rollout_depth=6,rollout=random,prior=none"


def mid_game(game, n: int = 24, steps: int = 9, seed: int = 0):
    """``n`` running rows after ``steps`` random moves (rows that ended are dropped)."""
    rng = np.random.default_rng(seed)
    s = game.init(np.arange(n) + 100 * seed)
    for _ in range(steps):
        s = game.step(s, random_legal(s.legal_action_mask, rng))
    return s.take(np.flatnonzero(s.current_player >= 0))


def ask(agent, state):
    cp = state.current_player.astype(np.int64)
    return agent.act_state(state, cp, agent.game.observe(state, cp), state.legal_action_mask)


def redeal(game, state, seed: int):
    """``state`` with every row's hidden information re-dealt from its current player's view."""
    twin = state.clone()
    cp = state.current_player.astype(np.int64)
    for seat in np.unique(cp).tolist():
        rows = np.flatnonzero(cp == seat)
        twin.put(rows, game.resample_hidden(state.take(rows), int(seat), seed))
    return twin


class PeekingSearch(SearchAgent):
    """A cheat for the no-peeking test: searches the true state instead of re-deals of it."""

    def _determinize(self, state, seats, seeds):
        return [state.clone() for _ in seeds.tolist()]


# ---------------------------------------------------------------- registered, legal, in the arena
@pytest.mark.parametrize("name", SHIPPED)
def test_mcts_is_registered_for_every_game_and_plays_legal_moves_in_the_arena(name):
    game = make_game(name)
    assert "mcts" in agent_names(game)
    # the arena's agent-contract check refuses any illegal or malformed answer
    for spec in (TINY, TINY.replace("prior=none", "prior=random")):  # UCB1 and PUCT
        r = play_games(game, [spec, *["random"] * (game.num_players - 1)], game.num_players, seed=1, max_steps=80)
        assert sum(a.seats for a in r.agents) == game.num_players**2


# ---------------------------------------------------------------- deterministic, budget
@pytest.mark.parametrize("name", SHIPPED)
def test_same_seed_same_actions_and_the_budget_is_counted(name):
    game = make_game(name)
    s = mid_game(game)
    a, b = make_agent(TINY, game, seed=3), make_agent(TINY, game, seed=3)
    acts = ask(a, s)
    assert np.array_equal(acts, ask(b, s))
    assert s.legal_action_mask[np.arange(s.batch_size), acts].all()
    searched = int((s.legal_action_mask.sum(1) > 1).sum())
    assert searched > 0
    assert a.counts["decisions"] == s.batch_size
    assert a.counts["simulations"] == 6 * searched  # exactly the budget per searched row
    # each simulation: at least one step; at most the tree (<= its nodes) plus the play-out
    per_node = game.num_players if game.spec.simultaneous else 1
    assert 6 * searched <= a.counts["steps"] <= 6 * searched * (1 + 6 * per_node + 6)
    c = make_agent(TINY.replace("simulations=6", "simulations=12"), game, seed=3)
    ask(c, s)
    assert c.counts["simulations"] == 2 * a.counts["simulations"]


# ---------------------------------------------------------------- never reads hidden state
@pytest.mark.parametrize("name", SHIPPED)
def test_resample_hidden_depends_only_on_what_the_seat_sees(name):
    """The hook the search samples from: two states a seat cannot tell apart re-deal alike for one
    seed (before the fix the deal read the hidden order: decks, piles and stacks came out differently)."""
    game = make_game(name)
    s = mid_game(game, seed=2)
    for seat in range(game.num_players):
        twin = game.resample_hidden(s, seat, 11)
        assert not twin.equals(s)
        assert game.resample_hidden(twin, seat, 5).equals(game.resample_hidden(s, seat, 5))


@pytest.mark.parametrize("name", SHIPPED)
def test_decisions_do_not_depend_on_the_hidden_information_and_a_peeking_search_fails(name):
    """Re-deal what each row's seat cannot see: with the same agent seed the decisions are
    identical (the search only ever steps its own re-deals); a search of the true state differs."""
    game = make_game(name)
    s = mid_game(game, n=32, seed=4)
    for k in (21, 22):
        twin = redeal(game, s, k)
        assert not twin.equals(s)
        assert np.array_equal(ask(make_agent(TINY, game, seed=7), s), ask(make_agent(TINY, game, seed=7), twin))
    settings = make_agent(TINY, game, seed=7).settings
    peek = [ask(PeekingSearch(game, 7, settings), x) for x in (s, redeal(game, s, 21), redeal(game, s, 22))]
    assert not (np.array_equal(peek[0], peek[1]) and np.array_equal(peek[0], peek[2]))


# ---------------------------------------------------------------- the driver and the play command
@pytest.mark.parametrize("name", SHIPPED)
def test_a_driver_with_mcts_opponents_steps_alike_on_both_pass_paths(name):
    game = make_game(name)
    runs = []
    for frozen in (True, False):
        d = SingleAgentDriver(game, 3, opponent=TINY)
        d._frozen_passes = frozen
        d.reset(np.arange(3) + 40)
        rng = np.random.default_rng(0)
        rewards = []
        for _ in range(4):
            out = d.step(random_legal(d.mask, rng))
            rewards.append(out.reward)
        (opp,) = {id(a): a for a in d.opponents}.values()
        assert opp.counts["decisions"] > 0
        runs.append((d.state, np.array(rewards)))
    assert runs[0][0].equals(runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def test_the_play_command_plays_a_search_agent():
    from monkey_envs.play import play

    game = make_game(SHIPPED[0])
    specs = [TINY, *["random"] * (game.num_players - 1)]
    res = play(game, specs, seed=0, read=lambda _prompt="": "q", out=io.StringIO(), max_steps=20)
    assert res["steps"] == 20 or not res["quit"]


# ---------------------------------------------------------------- settings and bad input
def test_settings_come_from_the_spec_and_bad_ones_are_refused():
    game = make_game(SHIPPED[0])
    assert parse_search_spec("mcts:simulations=9,c=0.5,rollout=random") == {
        "simulations": 9,
        "c": 0.5,
        "rollout": "random",
    }
    agent = make_agent("mcts:simulations=9,determinizations=3,c=0.5", game)
    assert (agent.settings.simulations, agent.settings.determinizations, agent.settings.c) == (9, 3, 0.5)
    for bad in (
        "mcts:simulation=9",
        "mcts:simulations=0",
        "mcts:simulations=4,determinizations=8",
        "mcts:c=-1",
        "mcts:rollout=nobody",
        "mcts:prior_mix=0",
        "mcts:simulations",
        "mcts:c=1,c=2",
    ):
        with pytest.raises(ValueError):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="act_state"):
        agent.act(np.zeros((1, game.obs_dim), np.float32), np.ones((1, game.num_actions), bool))
    s = mid_game(game, n=4)
    with pytest.raises(ValueError, match="not the players to move"):
        agent.act_state(s, (s.current_player.astype(np.int64) + 1) % game.num_players, None, s.legal_action_mask)
