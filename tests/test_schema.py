"""The state schema (``monkey_envs.core.schema``): each game's state declared once, the rest derived.

Checked for every shipped game and configuration: ``init`` makes exactly the declared layout; the
kernels' state tuple follows the declared order; every declared bound is enforced by
``state_violations`` (a value just outside it is reported, naming the field); the game's own laws
still see the rows whose values are in range, under their own row numbers.
"""

from __future__ import annotations

import dataclasses
import importlib
import types

import numpy as np
import pytest

from monkey_envs.core.schema import (
    Field,
    bound_of,
    field,
    field_index,
    field_names,
    layout,
    range_violations,
    schema,
    state_schema,
)
from monkey_envs.core.state import BatchState
from monkey_envs.games import SHIPPED_GAMES, make_game

SHIPPED = list(SHIPPED_GAMES)
CASES = [(name, cfg) for name in SHIPPED for cfg in make_game(name).test_configs]


def _ids(case: tuple[str, dict]) -> str:
    return f"{case[0]}-{'-'.join(f'{k}={v}' for k, v in case[1].items()) or 'default'}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_init_makes_exactly_the_declared_layout(case):
    name, cfg = case
    game = make_game(name, **cfg)
    state = game.init(np.arange(3))
    declared = layout(game.state_class, game)
    assert list(declared) == list(state.arrays())
    for f, (shape, dtype) in declared.items():
        arr = getattr(state, f)
        assert arr.dtype == dtype, f
        assert arr.shape == (3, *shape), f
    assert game.state_layout() == declared


@pytest.mark.parametrize("name", SHIPPED)
def test_the_kernels_state_tuple_follows_the_declared_order(name):
    game = make_game(name)
    kernels = importlib.import_module(f"monkey_envs.{name}.kernels")
    names = tuple(f.name for f in schema(game.state_class))
    assert kernels.STATE_FIELDS == names
    for i, n in enumerate(names):
        assert getattr(kernels.F, n) == i
    # the shared fields come first, as the base class declares them
    assert names[: len(field_names(BatchState))] == field_names(BatchState)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_class_docs_list_every_declared_field(name):
    cls = make_game(name).state_class
    for f in schema(cls):
        owner = BatchState if f.name in field_names(BatchState) else cls
        assert f"{f.name}: ``(B" in (owner.__doc__ or ""), f.name


def _just_outside(game, f: Field, arr: np.ndarray) -> list[tuple[int, int]]:
    """``(flat index, value)`` pairs just outside ``f``'s bounds that ``arr``'s dtype can hold."""
    info = np.iinfo(arr.dtype) if arr.dtype.kind in "iu" else None
    out = []
    for bound, step in ((f.low, -1), (f.high, +1)):
        if bound is None or info is None:
            continue
        value = np.broadcast_to(np.asarray(bound_of(game, bound, f.dtype), dtype=np.int64), arr.shape[1:]).ravel()
        for j in range(value.size):
            v = int(value[j]) + step
            if info.min <= v <= info.max:
                out.append((j, v))
                break
    return out


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_every_declared_bound_is_enforced(case):
    name, cfg = case
    game = make_game(name, **cfg)
    base = game.init(np.arange(2))
    assert game.state_violations(base) == []
    checked = 0
    for f in schema(game.state_class):
        for j, v in _just_outside(game, f, getattr(base, f.name)):
            bad = base.clone()
            getattr(bad, f.name).reshape(2, -1)[1, j] = v
            found = game.state_violations(bad)
            assert any(fld == f.name and row == 1 for fld, row, _ in found), (f.name, v, found)
            assert not any(row == 0 for _, row, _ in found), (f.name, found)  # the other row is untouched
            with pytest.raises(ValueError, match=f.name):
                game.validate_state(bad)
            checked += 1
    assert checked >= 5  # every game bounds several fields


def test_the_laws_still_read_the_sane_rows_under_their_own_row_numbers():
    game = make_game("monki")
    state = game.init(np.arange(3))
    state.phase[0] = 9  # out of its declared range: row 0 is not handed to the laws
    state.statue[2, :] = -1  # in range, but the tokens on the statues are gone: a conservation law
    found = game.state_violations(state)
    assert ("phase", 0) in [(f, r) for f, r, _ in found]
    assert any(r == 2 and "token" in why for f, r, why in found), found
    assert not any(r == 1 for _, r, _ in found)


def test_a_field_without_a_declaration_is_refused():
    with pytest.raises(TypeError, match="plain"):

        @state_schema
        class Bad(BatchState):
            plain: np.ndarray


def test_shapes_and_bounds_resolve_from_the_configured_game():
    @state_schema
    class Toy(BatchState):
        board: np.ndarray = field("int8", ("num_cells", 2), "cells", low=-1, high="num_cells-1")
        score: np.ndarray = field("int16", ("num_players",), "points", low=0, high="max")

    @dataclasses.dataclass
    class G:
        num_players: int = 3
        num_actions: int = 5
        num_cells: int = 7

    g = G()
    lay = layout(Toy, g)
    assert lay["board"] == ((7, 2), np.dtype(np.int8))
    assert lay["rewards"] == ((3,), np.dtype(np.float32))
    assert lay["legal_action_mask"] == ((5,), np.dtype(bool))
    board = schema(Toy)[-2]
    assert bound_of(g, board.high, board.dtype) == 6
    assert bound_of(g, schema(Toy)[-1].high, np.dtype(np.int16)) == np.iinfo(np.int16).max
    assert field_index(Toy).board == len(field_names(BatchState))
    with pytest.raises(ValueError, match="bound"):
        bound_of(g, "num_cells * 2", np.dtype(np.int8))
    with pytest.raises(TypeError, match="shape"):
        field("int8", [3], "a list is not a shape")


def test_a_non_finite_value_of_a_bounded_float_field_is_out_of_range():
    """NaN compares False with every bound, and ``inf`` once crashed the report's formatting (which
    ``state_violations`` turned into one "laws unreadable" entry hiding the others)."""

    @state_schema
    class Floats(BatchState):
        temp: np.ndarray = field("float32", (2,), "a bounded float", low=0.0, high=1.0)

    class G:
        num_players, num_actions = 2, 3
        spec = types.SimpleNamespace(end_reasons=("running", "over"))

    values = np.array([[0.5, 0.5], [np.inf, 0.2], [np.nan, 0.1], [0.0, 1.0]], np.float32)

    class S:  # only what the bounds read: the shared bounded fields (all in range) and the float
        batch_size = 4
        current_player = end_reason = np.zeros(4, np.int8)
        step_count = np.zeros(4, np.int32)
        temp = values

    found, bad = range_violations(Floats, G(), S())
    assert bad.tolist() == [False, True, True, False]
    assert [(f, r) for f, r, _ in found] == [("temp", 1), ("temp", 2)]
    assert "inf" in found[0][2] and "nan" in found[1][2]
