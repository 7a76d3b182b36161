"""The compiled Funky Monkey heuristics reproduce the numpy reference exactly.

``FunkyHeuristic.scores`` (one numba loop, :mod:`agents.heuristics.funky_monkey_kernels`) must
return ``scores_numpy`` bit for bit, ``act`` must pick what ``argmax_legal`` picks from those
scores with the same draws of the agent's generator, and ``act_jointly`` (one call for several
agents, as the batched driver asks) must equal one ``act`` per agent. The positions come from
many seeded games of every player count, played by a mix of heuristic and random moves, seen by
the seat to move and by the other seats.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents.heuristics.funky_monkey as FM
from agents.base import argmax_legal
from monkey_envs.core.testing import random_legal_actions
from monkey_envs.funky_monkey import FunkyMonkey

NAMES = ("honest", "believer", "skeptic", "track")


def positions(num_players: int, num_games: int = 96, seed: int = 0):
    """Yield ``(obs, mask)`` batches of every step of ``num_games`` games, from each seat to move
    and from the next seat (whose mask is all False: scores must still match)."""
    game = FunkyMonkey(num_players=num_players)
    s = game.init(np.arange(num_games) + seed)
    rng = np.random.default_rng(seed)
    mover = FM.TrackAgent(game, seed)
    while not (s.terminated | s.truncated).all():
        done = s.terminated | s.truncated
        cp = np.maximum(s.current_player, 0).astype(np.int64)
        obs = game.observe(s, cp)
        yield game, obs, s.legal_action_mask
        yield game, game.observe(s, (cp + 1) % num_players), np.zeros_like(s.legal_action_mask)
        rand = random_legal_actions(s.legal_action_mask, rng)
        acts = np.where(rng.random(num_games) < 0.5, rand, mover.act(obs, s.legal_action_mask))
        s = game.step(s, np.where(done, 0, acts))


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_compiled_scores_equal_the_numpy_reference_bit_for_bit(num_players):
    checked = 0
    for game, obs, mask in positions(num_players):
        for cls in FM.AGENT_CLASSES.values():
            a, b = cls(game, 3), cls(game, 3)
            x = a.scores_numpy(obs, mask)
            y = b.scores(obs, mask)
            assert x.dtype == y.dtype == np.float64 and x.shape == y.shape
            assert np.array_equal(x, y), f"{cls.name}: rows {np.flatnonzero((x != y).any(1))[:5]}"
            assert a.rng.random() == b.rng.random()  # the believer drew the same amount
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("num_players", [2, 4])
def test_act_picks_what_argmax_legal_picks_from_the_reference_scores(num_players):
    for game, obs, mask in positions(num_players, num_games=64, seed=5):
        if not mask.any():
            continue
        for cls in FM.AGENT_CLASSES.values():
            a, b = cls(game, 11), cls(game, 11)
            want = argmax_legal(a.scores_numpy(obs, mask), mask, a.rng)
            got = b.act(obs, mask)
            assert got.dtype == np.int64 and np.array_equal(want, got), cls.name
            assert a.rng.random() == b.rng.random()


def test_act_jointly_equals_one_act_per_agent_in_order():
    """The driver's one call per pass: the same actions and generator states as separate calls,
    also when one agent object appears twice and when a part has no rows."""
    for game, obs, mask in positions(4, num_games=64, seed=9):
        if not mask.any():
            continue
        n = obs.shape[0]
        split = [np.arange(0, n, 3), np.arange(1, n, 3), np.arange(2, n, 3), np.arange(0), np.arange(0, n, 5)]
        ref = [FM.AGENT_CLASSES[k](game, 1) for k in NAMES]
        new = [FM.AGENT_CLASSES[k](game, 1) for k in NAMES]
        order = [0, 1, 2, 3, 1]  # the believer twice: its draws must come in this order
        want = [ref[k].act(obs[r], mask[r]) for k, r in zip(order, split, strict=True)]
        got = FM.FunkyHeuristic.act_jointly([(new[k], obs[r], mask[r]) for k, r in zip(order, split, strict=True)])
        for w, g in zip(want, got, strict=True):
            assert np.array_equal(w, g)
        assert [a.rng.random() for a in ref] == [a.rng.random() for a in new]


def test_a_subclass_that_changes_how_it_scores_is_scored_in_numpy():
    class Contrarian(FM.HonestAgent):
        name = "contrarian"

        def respond_scores(self, r, co, rows, mask):
            return -super().respond_scores(r, co, rows, mask)

    class Trusting(FM.TrackAgent):  # only weights changed: still compiled, with its weights
        p_truth = 0.9

    for game, obs, mask in positions(3, num_games=32, seed=2):
        c = Contrarian(game, 0)
        assert np.array_equal(c.scores(obs, mask), c.scores_numpy(obs, mask))
        t = Trusting(game, 0)
        assert np.array_equal(t.scores(obs, mask), t.scores_numpy(obs, mask))
        t.uses_telescope = False  # an instance's own setting counts too
        assert np.array_equal(t.scores(obs, mask), t.scores_numpy(obs, mask))


def test_bad_shapes_raise_value_error_naming_them():
    game = FunkyMonkey(num_players=4)
    s = game.init(np.arange(4))
    obs, mask = game.observe(s, s.current_player), s.legal_action_mask
    agent = FM.TrackAgent(game)
    with pytest.raises(ValueError, match="obs must have shape"):
        agent.act(obs[:, :-1], mask)
    with pytest.raises(ValueError, match="mask must have shape"):
        agent.act(obs, mask[:2])
