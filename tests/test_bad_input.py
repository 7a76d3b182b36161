"""Monkey Fun's own bad input: the discard rule, bad configurations, observe's seat forms and action names.

The generic bad input -- wrong-shaped, float, bool, out-of-range and illegal actions, bad seeds and
seats, foreign states, finished rows -- is checked on every face of every game by the conformance
suite (``tests/test_conformance.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.monkey_fun import DISCARD_ACTION, MonkeyFun


@pytest.fixture(scope="module")
def game() -> MonkeyFun:
    return MonkeyFun(2)


@pytest.fixture
def state(game):
    """4 running games (seeds chosen so every row has an illegal action available)."""
    s = game.init(np.arange(4))
    assert (~s.legal_action_mask).any(axis=1).all() and not s.terminated.any()
    return s


def _rejects(game, state, actions, fragment: str) -> None:
    before = state.clone()
    with pytest.raises(ValueError, match=fragment):
        game.step(state, actions)
    assert state.equals(before), "a rejected step must leave the state unchanged"


# ============================================================================ actions
def test_the_discard_action_is_illegal_while_cards_are_playable(game, state):
    assert not state.legal_action_mask[:, DISCARD_ACTION].any()
    _rejects(game, state, np.full(4, DISCARD_ACTION), "illegal")


# ============================================================================ configs
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": -1}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"num_players": None}, "num_players"),
        ({"num_players": 2, "variant": "fast"}, "variant"),
        ({"num_players": 2, "variant": "Normal"}, "variant"),
        ({"num_players": 2, "variant": "solo"}, "solo"),
        ({"num_players": 1, "variant": "quick"}, "quick"),
        ({"num_players": 1, "variant": "normal"}, "normal"),
        ({"num_players": 2, "board_side": 3}, "board_side"),
        ({"num_players": 2, "board_side": 0}, "board_side"),
        ({"num_players": 2, "board_side": "1"}, "board_side"),
        ({"num_players": 2, "board_side": True}, "board_side"),
        ({"num_players": 2, "place_on_own_secured": "yes"}, "place_on_own_secured"),
    ],
)
def test_a_bad_configuration_is_rejected(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        MonkeyFun(**kwargs)


# ============================================================================ seeds
# ============================================================================ observe
def test_observe_accepts_an_int_or_a_seat_per_env(game, state):
    one = game.observe(state, 1)
    per_row = game.observe(state, np.ones(4, dtype=np.int64))
    assert one.shape == (4, game.obs_dim) and one.dtype == np.float32
    assert np.array_equal(one, per_row)


# ============================================================================ foreign states
def test_action_name_rejects_an_out_of_range_action(game, state):
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(state, 0, 16)
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(state, 0, -1)
