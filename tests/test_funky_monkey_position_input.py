"""``FunkyMonkey.position`` refuses malformed arguments with a ``ValueError`` naming the argument.

Floats, bools, strings and other wrong types where ints (or bools, lists, dicts) belong are never
truncated or coerced, and never surface as an ``IndexError`` / ``TypeError`` / ``OverflowError``
from numpy. Every legal form of the arguments keeps building the same position.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.funky_monkey import FunkyMonkey

HUGE = 2**70

#: ``(argument, bad value)``: each replaces that argument of a legal 3-player position.
BAD = [
    # positions: per seat an int space
    ("positions", [0.5, 1, 0]),
    ("positions", ["0", 1, 0]),
    ("positions", [True, 1, 0]),
    ("positions", [np.bool_(False), 1, 0]),
    ("positions", np.array([0.0, 1.0, 0.0])),
    ("positions", [np.float32(1), 1, 0]),
    ("positions", 5),
    ("positions", "010"),
    ("positions", None),
    ("positions", [HUGE, 1, 0]),
    ("positions", [-HUGE, 1, 0]),
    ("positions", np.array(0)),
    # coconuts: per seat an int count
    ("coconuts", [2.5, 3, 3]),
    ("coconuts", [True, 3, 3]),
    ("coconuts", ["3", 3, 3]),
    ("coconuts", [HUGE, 3, 3]),
    ("coconuts", [-HUGE, 3, 3]),
    ("coconuts", 3),
    # tiger: an int space
    ("tiger", 10.5),
    ("tiger", True),
    ("tiger", "10"),
    ("tiger", HUGE),
    # golden: a seat or a name
    ("golden", 1.5),
    ("golden", True),
    ("golden", np.bool_(True)),
    ("golden", None),
    ("golden", HUGE),
    ("golden", "bowl3"),
    # bowls: two 0/1 ints
    ("bowls", (0.5, 0)),
    ("bowls", (True, 0)),
    ("bowls", (HUGE, 0)),
    ("bowls", 1),
    ("bowls", "10"),
    # round: an int 1..5
    ("round", 2.5),
    ("round", True),
    ("round", "2"),
    ("round", HUGE),
    # hands: per seat a list of cards (1..4, -1, "1".."4", "M", "MiNuss")
    ("hands", [[1.0], [2], [2]]),
    ("hands", [[True], [2], [2]]),
    ("hands", [[np.bool_(True)], [2], [2]]),
    ("hands", [["5"], [2], [2]]),
    ("hands", [["one"], [2], [2]]),
    ("hands", [["12"], [2], [2]]),
    ("hands", [[HUGE], [2], [2]]),
    ("hands", [5, [2], [2]]),
    ("hands", ["12", [2], [2]]),
    ("hands", 5),
    ("hands", "123"),
    # alive: per seat a bool
    ("alive", [1, 1, 0.5]),
    ("alive", [1, 1, 1]),
    ("alive", ["no", "yes", "yes"]),
    ("alive", [True, True, 0]),
    ("alive", np.array([1, 1, 1])),
    ("alive", True),
    # active: an int seat
    ("active", 0.5),
    ("active", True),
    ("active", "0"),
    ("active", HUGE),
    # tiles: a dict int slot -> tile name
    ("tiles", {3.0: "coconut"}),
    ("tiles", {True: "coconut"}),
    ("tiles", {"3": "coconut"}),
    ("tiles", {HUGE: "coconut"}),
    ("tiles", {3: 5}),
    ("tiles", {3: ["coconut"]}),
    ("tiles", [(3, "coconut")]),
    ("tiles", "coconut"),
    # face_up: a visibility name or a list of int slots
    ("face_up", [3.5]),
    ("face_up", [True]),
    ("face_up", ["3"]),
    ("face_up", [HUGE]),
    ("face_up", np.array([3.0])),
    ("face_up", 5),
    # turn_order: a list of int seats
    ("turn_order", [1.5]),
    ("turn_order", [True]),
    ("turn_order", ["1"]),
    ("turn_order", [HUGE]),
    ("turn_order", 5),
    # treasures: per seat a list of treasure names
    ("treasures", [[], [], 5]),
    ("treasures", [[], [], "crown"]),
    ("treasures", [[5], [], []]),
    ("treasures", [[None], [], []]),
    ("treasures", 5),
    # treasure_pile: a list of treasure names
    ("treasure_pile", 5),
    ("treasure_pile", [5]),
    ("treasure_pile", "crown"),
    ("treasure_pile", [None]),
    # draw_pile / discard: lists of cards
    ("draw_pile", 5),
    ("draw_pile", [1.5]),
    ("draw_pile", [True]),
    ("draw_pile", [HUGE]),
    ("draw_pile", "123"),
    ("discard", 5),
    ("discard", [2.0]),
    ("discard", [np.bool_(True)]),
    ("discard", "12"),
    # seed: a non-negative int below 2**64
    ("seed", 0.5),
    ("seed", True),
    ("seed", "1"),
    ("seed", -1),
    ("seed", 2**64),
]


def _legal_kwargs() -> dict:
    return {"positions": [0, 1, 0], "hands": [[1, 2], [3], [4]], "active": 0, "turn_order": [1, 2]}


@pytest.mark.parametrize(("name", "value"), BAD, ids=[f"{n}={v!r:.30}" for n, v in BAD])
def test_bad_argument_raises_value_error_naming_it(name, value):
    game = FunkyMonkey(3)
    kw = _legal_kwargs()
    kw[name] = value
    with pytest.raises(ValueError) as err:
        game.position(**kw)
    assert name in str(err.value)


def test_the_base_of_the_bad_inputs_is_legal():
    assert FunkyMonkey(3).position(**_legal_kwargs()).legal_action_mask.any()


# ---------------------------------------------------------------------------- legal forms
#: every form used by the rules tests, the agents tests, the README and the modules tests
LEGAL = [
    (3, {"positions": [0, 1, 0], "hands": [[1, 3, "M"], [2], [2]], "active": 0, "turn_order": [1, 2]}),
    (2, {"positions": [3, 15], "tiles": {4: "coconut"}, "hands": [[1, 1], [1]], "active": 0, "turn_order": [1]}),
    (5, {"positions": [0] * 5}),
    (
        4,
        {
            "positions": [0, 1, 0, 1],
            "alive": [True, False, True, True],
            "coconuts": [3, 0, 3, 3],
            "hands": [[1, 2], [], [1, 2], [1, 2]],
            "active": 0,
            "turn_order": [2, 3],
        },
    ),
    (
        3,
        {
            "positions": [0, 5, 20],
            "alive": [True, True, False],
            "coconuts": [3, 3, 2],
            "golden": 2,
            "tiles": {7: "golden"},
            "hands": [[2, 1], [1, 1], []],
            "active": 0,
            "turn_order": [1],
        },
    ),
    (
        3,
        {
            "positions": [0, 1, 20],
            "alive": [True, True, False],
            "coconuts": [3, 3, 3],
            "treasures": [["scales"], [], []],
            "tiles": {3: "coconut"},
            "hands": [[2, 1], [1, 1], []],
            "active": 0,
            "turn_order": [1],
        },
    ),
    (
        2,
        {
            "round": 5,
            "positions": [8, 8],
            "coconuts": [1, 5],
            "golden": 0,
            "hands": [[1], [1]],
            "tiles": {8: "chest"},
            "active": 0,
            "turn_order": [1],
            "treasure_pile": [],
        },
    ),
    (3, {"positions": [0, 1, 0], "tiger": 15, "tiles": {2: "coconut", 14: "minus2"}, "face_up": "basic"}),
    (3, {"positions": [0, 5, 0], "tiles": {8: "coconut"}, "coconuts": [19, 20, 1], "bowls": (0, 0)}),
    (3, {"positions": [0, 1, 0], "golden": 1, "coconuts": [3, 1, 3], "treasure_pile": ["telescope", "scales"]}),
    (3, {"positions": [0, 1, 0], "golden": "bowl2", "face_up": "all", "discard": [1, "M"], "draw_pile": [2, 3]}),
    (3, {"positions": [0, 1, 0], "golden": "well", "bowls": [0, 1], "face_up": [2, 3], "seed": 7}),
    (4, {"positions": [0, 13, 0, 0], "tiger": 16, "hands": [[4, 1], [1], [1], [1]], "turn_order": [1, 2, 3]}),
]


@pytest.mark.parametrize(("num_players", "kw"), LEGAL)
def test_legal_forms_still_build_a_position(num_players, kw):
    s = FunkyMonkey(num_players).position(**kw)
    assert s.batch_size == 1 and s.legal_action_mask[0].any()


def _same(a, b) -> None:
    for name, arr in a.arrays().items():
        other = getattr(b, name)
        assert arr.dtype == other.dtype, name
        np.testing.assert_array_equal(arr, other, err_msg=name)


def test_numpy_ints_arrays_and_tuples_build_the_same_position_as_python_ints():
    game = FunkyMonkey(3)
    plain = game.position(
        positions=[0, 1, 0],
        coconuts=[3, 2, 3],
        bowls=(0, 0),
        golden="bowl1",
        tiger=15,
        tiles={2: "coconut", 14: "minus2"},
        face_up=[2, 3],
        hands=[[1, 2], [3], [4]],
        alive=[True, True, True],
        active=1,
        turn_order=[2],
        round=3,
        seed=7,
    )
    numpy = game.position(
        positions=np.array([0, 1, 0]),
        coconuts=(np.int8(3), 2, np.int64(3)),
        bowls=np.array([0, 0]),
        golden="bowl1",
        tiger=np.int16(15),
        tiles={np.int64(2): "coconut", 14: np.str_("minus2")},
        face_up={2, 3},
        hands=[np.array([1, 2]), (np.int8(3),), [np.uint8(4)]],
        alive=np.array([True, True, True]),
        active=np.int64(1),
        turn_order=(np.int32(2),),
        round=np.int8(3),
        seed=np.uint64(7),
    )
    _same(plain, numpy)


def test_card_names_are_legal_cards():
    """The cards' names ("1".."4", "MiNuss", as ``data.CARD_NAMES``), "M" / "minus" and -1 are cards."""
    game = FunkyMonkey(3)
    ints = game.position(positions=[0, 1, 0], hands=[[1, 2, -1], [3], [4]], discard=[-1], draw_pile=[1, 2])
    names = game.position(
        positions=[0, 1, 0], hands=[["1", "2", "M"], ["3"], ["4"]], discard=["MiNuss"], draw_pile=["1", 2]
    )
    other = game.position(positions=[0, 1, 0], hands=[[1, 2, "m"], [3], [4]], discard=["minus"], draw_pile=[1, "2"])
    _same(ints, names)
    _same(ints, other)
