"""The faces refuse bad input the gymnasium / PettingZoo way, and change nothing when they do.

* raw AEC ``observe()`` before ``reset()``: a clear ``ValueError`` (not an ``AttributeError``);
* seeds: ``-1``, ``2**64``, ``2**63``, ``True``, ``1.5`` -> ``ValueError`` naming ``seed``
  (gymnasium single and vector envs, SB3 VecEnv, ``as_seeds`` / ``row_seeds``);
* a ``uint64`` action of ``2**64 - 1`` is reported as that value, not as ``-1``;
* unknown constructor keyword arguments -> ``TypeError`` naming the argument;
* ``render`` with a viewer or row out of range (``viewer=-1`` would show the last seat's hand);
* an opponent returning floats (``0.5``), bools or the wrong shape is refused naming it;
* ``MonkeyFun.position()`` refuses floats, bools and strings where ints belong.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import monkey_envs
from monkey_envs.core.faces import row_seeds
from monkey_envs.core.game import as_seeds
from monkey_envs.core.gym_single import GameEnv
from monkey_envs.core.gym_vector import GameVectorEnv
from monkey_envs.core.sb3_vec import MonkeyVecEnv
from monkey_envs.core.versioned import aec_api
from monkey_envs.games import make_game
from monkey_envs.monkey_fun import MonkeyFun

GAMES = ["monkey_fun", "funky_monkey"]
BAD_SEEDS = [-1, 2**64, 2**63, True, False, 1.5, "3", np.float64(2.0), np.uint64(2**63), [0]]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _arrays(state: Any) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in state.arrays().items()}


def _same(state: Any, before: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(getattr(state, k), v) for k, v in before.items())


def _first_legal(mask: np.ndarray) -> np.ndarray:
    return np.asarray(mask, dtype=bool).argmax(-1)


# ============================================================================ AEC observe before reset
@pytest.mark.parametrize("name", GAMES)
def test_raw_aec_observe_before_reset_is_a_clear_value_error(name):
    raw = aec_api(name)[1]()
    with pytest.raises(ValueError, match=r"reset\(\)"):
        raw.observe("player_0")
    raw.reset(seed=0)  # still usable
    agent = raw.agent_selection
    raw.step(int(_first_legal(raw.observe(agent)["action_mask"])))


# ============================================================================ seeds
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_gym_single_reset_refuses_bad_seeds_and_changes_nothing(seed):
    env = GameEnv()
    env.reset(seed=0)
    before = _arrays(env.driver.state)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    assert _same(env.driver.state, before)
    env.step(int(_first_legal(env.action_masks())))


@pytest.mark.parametrize(
    "seed", [*BAD_SEEDS[:-1], [1, True], [1, -1], [1], np.array([0, 2**63], dtype=np.uint64)], ids=repr
)
def test_gym_vector_reset_refuses_bad_seeds_and_changes_nothing(seed):
    env = GameVectorEnv(2)
    env.reset(seed=0)
    before = _arrays(env.driver.state)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    assert _same(env.driver.state, before)
    env.step(_first_legal(env.action_masks()))


def test_gym_vector_reset_takes_numpy_integer_seeds():
    env = GameVectorEnv(2)
    obs, _ = env.reset(seed=np.int64(5))
    assert np.array_equal(obs, GameVectorEnv(2).reset(seed=5)[0])


@pytest.mark.parametrize("seed", [-1, 2**64, True, 1.5, [0, 1]], ids=repr)
def test_sb3_vec_env_refuses_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        MonkeyVecEnv("monkey_fun", 3, seed=seed)
    venv = MonkeyVecEnv("monkey_fun", 3, seed=0)
    with pytest.raises(ValueError, match="seed"):
        venv.seed(seed)
    assert venv._seeds == [0, 1, 2]


def test_as_seeds_and_row_seeds_refuse_bools_and_seeds_of_2_to_the_63():
    for bad in (True, [1, True], np.array([2**63], dtype=np.uint64), np.array([True])):
        with pytest.raises(ValueError):
            as_seeds(bad)
    with pytest.raises(ValueError, match="seed"):
        row_seeds(2**63 - 2, 3)
    assert row_seeds(2**63 - 3, 3).tolist() == [2**63 - 3, 2**63 - 2, 2**63 - 1]
    assert as_seeds(np.array([2**63 - 1], dtype=np.uint64)).tolist() == [2**63 - 1]


# ============================================================================ uint64 actions
_HUGE = np.uint64(2**64 - 1)


@pytest.mark.parametrize("name", GAMES)
def test_a_uint64_action_is_reported_as_given(name):
    game = make_game(name)
    s = game.init([0])
    before = _arrays(s)
    with pytest.raises(ValueError, match=r"\[18446744073709551615\]"):
        game.step(s, np.array([_HUGE]))
    assert _same(s, before)
    raw = aec_api(name)[1]()
    raw.reset(seed=0)
    before = _arrays(raw.core_state)
    with pytest.raises(ValueError, match="18446744073709551615"):
        raw.step(_HUGE)
    assert _same(raw.core_state, before)
    env = GameEnv(name)
    env.reset(seed=0)
    before = _arrays(env.driver.state)
    with pytest.raises(ValueError, match="18446744073709551615"):
        env.step(_HUGE)
    assert _same(env.driver.state, before)
    venv = MonkeyVecEnv(name, 2, seed=0)
    venv.reset()
    before = _arrays(venv.driver.state)
    with pytest.raises(ValueError, match="18446744073709551615"):
        venv.step(np.array([_HUGE, _HUGE]))
    assert _same(venv.driver.state, before)


# ============================================================================ unknown keyword arguments
def _constructors(name: str) -> dict[str, Any]:
    spec = make_game(name).spec
    gym_id = f"monkey_envs/{spec.gym_name}-v{spec.version}"
    module = monkey_envs.versioned_module(f"{spec.name}_v{spec.version}")
    return {
        "GameEnv": lambda **kw: GameEnv(name, **kw),
        "GameVectorEnv": lambda **kw: GameVectorEnv(2, name, **kw),
        "MonkeyVecEnv": lambda **kw: MonkeyVecEnv(name, 2, **kw),
        "raw_env": lambda **kw: module.raw_env(**kw),
        "env": lambda **kw: module.env(**kw),
        "gymnasium.make": lambda **kw: gymnasium.make(gym_id, **kw),
        "gymnasium.make_vec": lambda **kw: gymnasium.make_vec(
            gym_id, num_envs=2, vectorization_mode="vector_entry_point", **kw
        ),
    }


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    "face", ["GameEnv", "GameVectorEnv", "MonkeyVecEnv", "raw_env", "env", "gymnasium.make", "gymnasium.make_vec"]
)
def test_unknown_keyword_arguments_are_a_type_error_naming_them(name, face):
    make = _constructors(name)[face]
    for kw in ({"bogus_option": 1}, {"render_mod": "ansi"}):
        with pytest.raises(TypeError, match=next(iter(kw))):
            make(**kw)


# ============================================================================ render
@pytest.mark.parametrize("name", GAMES)
def test_render_refuses_out_of_range_viewers_and_rows(name):
    game = make_game(name)
    s = game.init([0, 1])
    before = _arrays(s)
    P = game.num_players
    for kw in (
        {"viewer": -1},
        {"viewer": P},
        {"viewer": True},
        {"viewer": 1.0},
        {"viewer": "0"},
        {"row": -1},
        {"row": 2},
        {"row": 0.0},
        {"row": True},
    ):
        with pytest.raises(ValueError, match=next(iter(kw))):
            game.render(s, **kw)
    assert _same(s, before)
    assert game.render(s, np.int64(1), np.int8(P - 1))  # numpy integers are fine
    assert "hand of" not in game.render(s, 0, None)


# ============================================================================ opponents
class _Returns:
    def __init__(self, make: Any) -> None:
        self.name = "returns_junk"
        self.make = make

    def act(self, obs: np.ndarray, mask: np.ndarray) -> Any:
        return self.make(mask)


@pytest.mark.parametrize(
    "junk",
    [
        lambda m: np.full(len(m), 0.5),
        lambda m: [0.5] * len(m),
        lambda m: _first_legal(m).astype(np.float64),
        lambda m: np.ones(len(m), dtype=bool),
        lambda m: np.zeros((len(m), 2), dtype=np.int64),
        lambda m: np.full(len(m), 2**64 - 1, dtype=np.uint64),
        lambda m: np.full(len(m), -1),
        lambda m: "0",
    ],
    ids=["0.5", "list of 0.5", "legal as floats", "bools", "wrong shape", "uint64 max", "-1", "str"],
)
@pytest.mark.parametrize("name", GAMES)
def test_an_opponent_returning_junk_is_refused_naming_it(name, junk):
    env = GameEnv(name, opponent=_Returns(junk), learner_seat=0)
    before = None
    with pytest.raises(ValueError, match="returns_junk"):
        env.reset(seed=0)  # an opponent may have to move before the learner's first decision
        for _ in range(20):
            before = _arrays(env.driver.state)
            env.step(int(_first_legal(env.action_masks())))
    if before is not None:  # refused in a step: the driver's state is as it was
        assert _same(env.driver.state, before)


# ============================================================================ MonkeyFun.position
@pytest.mark.parametrize(
    "kw",
    [
        {"hands": [[1.5, 2], [3]]},
        {"hands": [["1"], [3]]},
        {"hands": [[True], [3]]},
        {"hands": "12"},
        {"hands": [[1], 3]},
        {"hands": [[1], [3]], "current_player": 0.5},
        {"hands": [[1], [3]], "current_player": True},
        {"hands": [[1], [3]], "board": {23: [2.5, 1]}},
        {"hands": [[1], [3]], "board": {23.0: [2, 1]}},
        {"hands": [[1], [3]], "board": {"23": [2, 1]}},
        {"hands": [[1], [3]], "board": {23: [300, 0]}},
        {"hands": [[1], [3]], "board": [23]},
        {"hands": [[1], [3]], "board": {23: [2, 2]}, "owners": {23: 0.0}},
        {"hands": [[1], [3]], "box": [1.0, 0]},
        {"hands": [[1], [3]], "supply": [19.5, 20]},
        {"hands": [[1], [3]], "supply": [2**70, 20]},
        {"hands": [[1], [3]], "draw_pile": [4.0]},
        {"hands": [[1], [3]], "discard": ["4"]},
        {"hands": [[1], [3]], "seed": 1.5},
        {"hands": [[1], [3]], "seed": -1},
    ],
    ids=repr,
)
def test_monkey_fun_position_refuses_arguments_of_the_wrong_type(kw):
    with pytest.raises(ValueError):
        MonkeyFun(2).position(**kw)


def test_monkey_fun_position_still_takes_numpy_integers():
    s = MonkeyFun(2).position(hands=[np.array([1, 2]), [np.int8(3)]], current_player=np.int64(1), seed=np.uint8(4))
    assert s.current_player.tolist() == [1]
