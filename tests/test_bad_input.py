"""Bad input raises a ``ValueError`` that names the problem, and leaves the state unchanged."""

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


def _legal(state) -> np.ndarray:
    return state.legal_action_mask.argmax(axis=1)


def _illegal(state) -> np.ndarray:
    return (~state.legal_action_mask).argmax(axis=1)


def _rejects(game, state, actions, fragment: str) -> None:
    before = state.clone()
    with pytest.raises(ValueError, match=fragment):
        game.step(state, actions)
    assert state.equals(before), "a rejected step must leave the state unchanged"


# ============================================================================ actions
def test_an_illegal_action_is_rejected_naming_its_row(game, state):
    acts = _legal(state)
    acts[2] = _illegal(state)[2]
    _rejects(game, state, acts, r"illegal.*\[2\]")


def test_the_discard_action_is_illegal_while_cards_are_playable(game, state):
    assert not state.legal_action_mask[:, DISCARD_ACTION].any()
    _rejects(game, state, np.full(4, DISCARD_ACTION), "illegal")


@pytest.mark.parametrize("bad", [-1, 16, 17, 1000, -(2**40)])
def test_an_out_of_range_action_is_rejected(game, state, bad):
    acts = _legal(state)
    acts[1] = bad
    _rejects(game, state, acts, r"out of range.*\[0, 16\)")


@pytest.mark.parametrize("actions", [np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5, 1.0, 2.0, 3.0]), [1.0] * 4])
def test_float_actions_are_rejected(game, state, actions):
    _rejects(game, state, actions, "integer")


def test_float_actions_are_rejected_even_when_they_name_legal_actions(game, state):
    _rejects(game, state, _legal(state).astype(np.float32), "integer")


def test_bool_actions_are_rejected(game, state):
    _rejects(game, state, np.ones(4, dtype=bool), "integer")


@pytest.mark.parametrize("actions", [["0", "1", "2", "3"], [None] * 4, "0123"])
def test_non_numeric_actions_are_rejected(game, state, actions):
    _rejects(game, state, actions, "actions")


@pytest.mark.parametrize(
    "shape_maker",
    [
        lambda a: a[:3],  # B mismatch: too few
        lambda a: np.concatenate([a, a[:1]]),  # too many
        lambda a: a[:, None],  # 2-D (B, 1)
        lambda a: a[None, :],  # 2-D (1, B)
        lambda a: a[0],  # a scalar for B = 4
    ],
)
def test_an_action_batch_of_the_wrong_shape_is_rejected(game, state, shape_maker):
    _rejects(game, state, shape_maker(_legal(state)), r"shape \(4,\)")


def test_a_scalar_action_is_accepted_for_a_single_env(game):
    s = game.init(5)
    a = int(_legal(s)[0])
    assert game.step(s, a).equals(game.step(s, np.array([a])))


def test_finished_rows_ignore_their_action_even_out_of_range(game):
    s = game.position(hands=[[12, 1, 1, 1], [2, 3, 4, 5]], board={5: [1, 0]}, box=[18, 19], supply=[1, 1])
    s = game.step(s, _legal(s))  # seat 0 places its last monkey
    s = game.step(s, _legal(s))  # seat 1 too: game over
    assert s.terminated.all()
    for a in (-5, 99, 0):
        out = game.step(s, np.array([a]))
        assert (out.rewards == 0).all() and out.terminated.all()
        assert out.counts.tolist() == s.counts.tolist() and out.step_count.tolist() == s.step_count.tolist()


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
@pytest.mark.parametrize(
    ("seeds", "fragment"),
    [
        (-1, "non-negative"),
        ([3, -2], "non-negative"),
        (1.5, "integer"),
        ([1.0, 2.0], "integer"),
        ([], "empty"),
        (np.zeros(0, dtype=np.int64), "empty"),
        ([[1, 2], [3, 4]], "1-D"),
        ("7", "integer"),
        ([True, False], "integer"),
    ],
)
def test_bad_seeds_are_rejected(game, seeds, fragment):
    with pytest.raises(ValueError, match=fragment):
        game.init(seeds)


# ============================================================================ observe
@pytest.mark.parametrize(
    "player",
    [
        -1,
        2,
        7,
        np.array([0, 1, 2, 0]),
        np.array([0, 1]),
        np.zeros((4, 1), dtype=int),
        0.5,
        np.array([0.0, 1.0, 0.0, 1.0]),
    ],
)
def test_observe_rejects_a_bad_seat(game, state, player):
    before = state.clone()
    with pytest.raises(ValueError, match="player"):
        game.observe(state, player)
    assert state.equals(before)


def test_observe_accepts_an_int_or_a_seat_per_env(game, state):
    one = game.observe(state, 1)
    per_row = game.observe(state, np.ones(4, dtype=np.int64))
    assert one.shape == (4, game.obs_dim) and one.dtype == np.float32
    assert np.array_equal(one, per_row)


# ============================================================================ foreign states
def test_stepping_a_state_from_a_game_with_another_player_count_is_rejected(game):
    other = MonkeyFun(3).init(np.arange(4))
    before = other.clone()
    with pytest.raises(ValueError, match="differently configured"):
        game.step(other, np.zeros(4, dtype=np.int64))
    assert other.equals(before)


def test_stepping_a_solo_state_in_a_two_player_game_is_rejected(game):
    solo = MonkeyFun(1).init(np.arange(3))
    with pytest.raises(ValueError, match="differently configured"):
        game.step(solo, _legal(solo))


def test_stepping_something_that_is_not_a_state_is_rejected(game, state):
    with pytest.raises(ValueError, match="MonkeyFunState"):
        game.step(state.get_state(), _legal(state))


def test_action_name_rejects_an_out_of_range_action(game, state):
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(state, 0, 16)
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(state, 0, -1)
