"""Nothing loaded can crash the process or make a broken game.

Every way a state comes in from outside -- ``State.set_state`` / ``from_json`` / ``load``,
``Game.set_state`` / ``state_from_json`` / ``load_state``, ``Game.validate_state`` and the AEC
env's ``load_state`` -- checks dtypes and shapes against a fresh ``init`` of the game, then the
game's laws (``Game.state_violations``, which also recomputes the legal mask), and refuses a bad
state with a ``ValueError`` naming the field and row, leaving the file and any live env as they
were. Corrupt files of every kind are a ``ValueError`` naming the file.

The property test at the end damages states at random and, in a subprocess (so that a segfault
of a compiled kernel fails the test instead of killing the test runner), runs every loader on
them and steps every accepted one with every legal action of its mask (and with bad actions).
"""

from __future__ import annotations

import collections
import copy
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from monkey_envs.core.state import BatchState, StateError
from monkey_envs.core.testing import MAX_GAME_STEPS, play_random, random_legal_actions
from monkey_envs.core.versioned import aec_api
from monkey_envs.funky_monkey import FunkyMonkey, FunkyMonkeyState
from monkey_envs.games import GAMES, game_class, make_game
from monkey_envs.monkey_fun import MonkeyFun, MonkeyFunState
from monkey_envs.monki.state import PHASE_START


# ============================================================================ helpers
def _random_play(game: Any, state: BatchState, steps: int, seed: int) -> BatchState:
    """``steps`` uniformly random legal moves in every running row (finished rows ignore theirs)."""
    return play_random(game, state, steps, seed, until_done=True)


def _snapshot(state: BatchState) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in state.arrays().items()}


def _unchanged(state: BatchState, snap: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(getattr(state, k), v) and getattr(state, k).dtype == v.dtype for k, v in snap.items())


@pytest.fixture(scope="module")
def mf() -> MonkeyFun:
    return MonkeyFun(2)


@pytest.fixture(scope="module")
def mf_mid(mf) -> MonkeyFunState:
    return _random_play(mf, mf.init([3, 4]), 12, 0)


@pytest.fixture(scope="module")
def fm() -> FunkyMonkey:
    return FunkyMonkey(3)


@pytest.fixture(scope="module")
def fm_mid(fm) -> FunkyMonkeyState:
    return _random_play(fm, fm.init([5, 6]), 6, 1)


def _loaders(game: Any, cls: type[BatchState]) -> dict[str, Any]:
    """Every loader, as ``name -> f(state dict) -> state`` (the file loaders go through ``.npz`` bytes)."""

    def via_file(load: Any) -> Any:
        def run(data: dict) -> BatchState:
            raw = _npz_bytes(data)
            buf = io.BytesIO(raw)
            try:
                return load(buf)
            finally:
                assert buf.getvalue() == raw, "the loader changed the file"

        return run

    return {
        "State.set_state": lambda d: cls.set_state(copy.deepcopy(d)),
        "State.from_json": lambda d: cls.from_json(json.dumps(d)),
        "Game.set_state": lambda d: game.set_state(copy.deepcopy(d)),
        "Game.state_from_json": lambda d: game.state_from_json(json.dumps(d)),
        "State.load": via_file(cls.load),
        "Game.load_state": via_file(game.load_state),
    }


def _npz_bytes(data: dict) -> bytes:
    """A ``save()``-style ``.npz`` of a state dict's arrays (exactly as stored: dtypes and shapes kept)."""
    arrays = {}
    for k, spec in data["fields"].items():
        arrays[k] = np.array(spec["data"], dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])
    meta = {"__state_class__": np.array(data["state_class"]), "__format__": np.array(data["format"])}
    if "game" in data:
        meta["__game__"] = np.array(json.dumps(data["game"]))
    buf = io.BytesIO()
    np.savez_compressed(buf, **meta, **arrays)
    return buf.getvalue()


def _edit(state: BatchState, field: str, row: int, index: Any, value: Any) -> dict:
    """``state.get_state()`` with ``field[row][index] = value`` (``index=None``: the whole row)."""
    d = state.get_state()
    data = d["fields"][field]["data"]
    if index is None:
        data[row] = value
    else:
        target = data[row]
        *path, last = index if isinstance(index, tuple) else (index,)
        for i in path:
            target = target[i]
        target[last] = value
    return d


def _assert_refused_everywhere(game: Any, cls: type[BatchState], data: dict, field: str, row: int | None) -> None:
    """Every loader raises a ``ValueError`` that names ``field`` (and ``row`` when given)."""
    for name, load in _loaders(game, cls).items():
        with pytest.raises(ValueError) as err:
            load(data)
        msg = str(err.value)
        assert field in msg, f"{name}: {msg}"
        if row is not None:
            assert f"row {row}" in msg, f"{name}: {msg}"


# ============================================================================ the issue's examples
@pytest.mark.parametrize(
    "field,index,value",
    [
        ("draw_size", None, 100),
        ("draw_size", None, -5),
        ("current_player", None, 127),
        ("owner", 3, 7),
        ("counts", (4, 0), 100),
        ("end_reason", None, 9),
        ("supply", 0, -1),
    ],
)
def test_monkey_fun_damaged_values_are_refused_by_every_loader(mf, mf_mid, field, index, value):
    row = 1
    data = _edit(mf_mid, field, row, index, value)
    _assert_refused_everywhere(mf, MonkeyFunState, data, field, row)


def test_the_issue_example_no_longer_segfaults_it_is_refused(mf):
    d = mf.init([0]).get_state()
    d["fields"]["draw_size"]["data"] = [100]
    with pytest.raises(ValueError, match=r"'draw_size' row 0"):
        MonkeyFunState.set_state(d)


def test_five_copies_of_a_card_are_refused(mf, mf_mid):
    d = mf_mid.get_state()
    hand = d["fields"]["hands"]["data"][0][0]
    d["fields"]["hands"]["data"][0][0] = sorted([hand[-1]] * 4)  # with the rest of the deck: too many copies
    d["fields"]["discard"]["data"][0][hand[-1]] += 1
    _assert_refused_everywhere(mf, MonkeyFunState, d, "hands", 0)


def test_a_mask_edited_to_all_true_is_refused(mf, mf_mid, fm, fm_mid):
    for game, cls, s in ((mf, MonkeyFunState, mf_mid), (fm, FunkyMonkeyState, fm_mid)):
        d = s.get_state()
        d["fields"]["legal_action_mask"]["data"][0] = [True] * game.num_actions
        _assert_refused_everywhere(game, cls, d, "legal_action_mask", 0)


def test_funky_monkey_unknown_phase_codes_and_impossible_values_are_refused(fm, fm_mid):
    for field, index, value in (("phase", None, 42), ("phase", None, -7), ("pos", 0, 120), ("coconuts", 1, 99)):
        data = _edit(fm_mid, field, 0, index, value)
        _assert_refused_everywhere(fm, FunkyMonkeyState, data, field, 0)


@pytest.mark.parametrize(
    "case",
    [
        "float dtype",
        "object dtype",
        "bool in an int field",
        "float in an int field",
        "string in an int field",
        "value outside the dtype",
        "number in a bool field",
        "wrong row shape",
        "wrong rank",
        "batch sizes disagree",
    ],
)
def test_wrong_dtypes_and_shapes_are_refused_naming_the_field(mf, mf_mid, case):
    d = mf_mid.get_state()
    f = d["fields"]
    if case == "float dtype":
        f["draw_size"]["dtype"] = "float64"
        f["draw_size"]["data"] = [float(x) for x in f["draw_size"]["data"]]
        field = "draw_size"
    elif case == "object dtype":
        f["hands"]["dtype"] = "object"
        field = "hands"
    elif case == "bool in an int field":
        f["draw_size"]["data"][0] = True
        field = "draw_size"
    elif case == "float in an int field":
        f["supply"]["data"][0][0] = 3.0
        field = "supply"
    elif case == "string in an int field":
        f["owner"]["data"][0][0] = "-1"
        field = "owner"
    elif case == "value outside the dtype":
        f["counts"]["data"][0][0][0] = 300
        field = "counts"
    elif case == "number in a bool field":
        f["terminated"]["data"][0] = 0
        field = "terminated"
    elif case == "wrong row shape":
        f["discard"]["data"] = [row[:-1] for row in f["discard"]["data"]]
        f["discard"]["shape"][1] -= 1
        field = "discard"
    elif case == "wrong rank":
        f["draw_size"]["data"] = [[x] for x in f["draw_size"]["data"]]
        f["draw_size"]["shape"] = [2, 1]
        field = "draw_size"
    else:
        f["box"]["data"] = f["box"]["data"][:1]
        f["box"]["shape"][0] = 1
        field = "box"
    # a typed .npz array cannot hold a mistyped or out-of-range value: those are JSON-only damage
    json_only = " in a" in case or case == "value outside the dtype"
    for name, load in _loaders(mf, MonkeyFunState).items():
        if json_only and name.endswith(("load", "load_state")):
            continue
        with pytest.raises(ValueError, match=field if case != "batch sizes disagree" else "batch size"):
            load(d)


def test_an_npz_with_a_float_field_is_refused_naming_it(mf, mf_mid, tmp_path):
    arrays = {k: v.copy() for k, v in mf_mid.arrays().items()}
    arrays["draw_size"] = arrays["draw_size"].astype(np.float32)
    path = tmp_path / "s.npz"
    np.savez_compressed(path, __state_class__=np.array("MonkeyFunState"), **arrays)
    raw = path.read_bytes()
    for load in (MonkeyFunState.load, mf.load_state):
        with pytest.raises(ValueError, match=r"draw_size.*float32"):
            load(path)
    assert path.read_bytes() == raw


# ============================================================================ game identity and formats
@pytest.mark.parametrize("name", ["monkey_fun", "funky_monkey"])
def test_every_test_config_round_trips_through_every_loader(name):
    cls = game_class(name)
    for config in cls.test_configs:
        game = make_game(name, **config)
        s = _random_play(game, game.init([1, 2]), 10, 2)
        d = s.get_state()
        assert d["format"] == 2 and d["game"] == {"name": name, "config": game.config}
        for loader, load in _loaders(game, cls.state_class).items():
            back = load(d)
            assert back.equals(s), (config, loader)
            assert back.game_identity() == game.identity


def test_a_state_of_a_differently_configured_game_is_refused(mf, mf_mid):
    other = MonkeyFun(2, board_side=2)
    d = mf_mid.get_state()
    with pytest.raises(ValueError, match="differently configured"):
        other.set_state(d)
    buf = io.BytesIO()
    mf_mid.save(buf)
    with pytest.raises(ValueError, match="differently configured"):
        other.load_state(io.BytesIO(buf.getvalue()))
    with pytest.raises(ValueError, match="differently configured"):
        MonkeyFun(3).state_from_json(mf_mid.to_json())


def test_the_classmethods_rebuild_the_stored_configuration():
    game = MonkeyFun(4, variant="quick", board_side=2, place_on_own_secured=False)
    s = _random_play(game, game.init([7]), 15, 3)
    back = MonkeyFunState.from_json(s.to_json())
    assert back.equals(s) and back.game_identity() == game.identity
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert MonkeyFunState.load(buf).game_identity() == game.identity


def test_format_1_data_infer_the_game_from_the_state_class_and_rewards(mf_mid):
    d = mf_mid.get_state()
    d["format"] = 1
    del d["game"]
    assert MonkeyFunState.set_state(d).equals(mf_mid)
    arrays = mf_mid.arrays()
    buf = io.BytesIO()
    np.savez_compressed(buf, __state_class__=np.array("MonkeyFunState"), **arrays)  # a format-1 file
    buf.seek(0)
    assert MonkeyFunState.load(buf).equals(mf_mid)


def test_data_of_a_state_class_no_registered_game_plays_are_refused_clearly(mf_mid):
    import dataclasses

    @dataclasses.dataclass
    class OrphanState(MonkeyFunState):
        pass

    d = mf_mid.get_state()
    d["state_class"] = "OrphanState"
    del d["game"]
    with pytest.raises(ValueError, match="no registered game"):
        OrphanState.set_state(d)


def test_a_stored_game_that_cannot_be_built_is_refused(mf_mid):
    for ident in (
        {"name": "no_such_game", "config": {}},
        {"name": "monkey_fun", "config": {"num_players": 9}},
        {"name": "monkey_fun", "config": {"bogus": 1}},
        {"name": "funky_monkey", "config": {"num_players": 2}},
        "monkey_fun",
        {"name": "monkey_fun"},
    ):
        d = mf_mid.get_state()
        d["game"] = ident
        with pytest.raises(ValueError):
            MonkeyFunState.set_state(d)


# ============================================================================ corrupt files
def _corrupt_files(good: bytes) -> dict[str, bytes]:
    out = {
        "empty": b"",
        "truncated": good[: len(good) // 2],
        "only the zip header": good[:30],
        "not a zip": b"this is not an npz file at all",
        "json text": b'{"format": 2}',
    }
    flipped = bytearray(good)
    for i in range(60, len(flipped) - 200, 97):  # inside the compressed members
        flipped[i] ^= 0x5A
    out["bit-flipped"] = bytes(flipped)
    one = bytearray(good)
    one[len(one) // 3] ^= 0x01
    out["one bit flipped"] = bytes(one)
    buf = io.BytesIO()
    np.save(buf, np.arange(10))
    out[".npy instead of .npz"] = buf.getvalue()
    buf = io.BytesIO()
    np.savez(buf, __state_class__=np.array("MonkeyFunState"), hands=np.array([object(), 1], dtype=object))
    out["pickled object array"] = buf.getvalue()
    out["a pickle"] = pickle.dumps({"hands": [1, 2, 3]})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("__state_class__.npy", b"\x93NUMPY\x01\x00garbage header")
    out["garbage .npy header"] = buf.getvalue()
    return out


@pytest.mark.parametrize(
    "kind",
    [
        "empty",
        "truncated",
        "only the zip header",
        "not a zip",
        "json text",
        "bit-flipped",
        "one bit flipped",
        ".npy instead of .npz",
        "pickled object array",
        "a pickle",
        "garbage .npy header",
    ],
)
def test_corrupt_files_are_a_value_error_naming_the_file(mf, mf_mid, tmp_path, kind):
    buf = io.BytesIO()
    mf_mid.save(buf)
    raw = _corrupt_files(buf.getvalue())[kind]
    path = tmp_path / f"{kind.replace(' ', '_')}.npz"
    path.write_bytes(raw)
    for load in (MonkeyFunState.load, mf.load_state):
        try:
            back = load(path)
        except ValueError as e:
            assert str(path) in str(e)
        else:  # a flipped bit may land where it changes nothing (zip padding): then the state is intact
            assert back.equals(mf_mid), kind
        assert path.read_bytes() == raw
        with pytest.raises(ValueError) if kind != "one bit flipped" else _maybe():
            load(io.BytesIO(raw))


class _maybe:
    """A context that lets a ValueError through silently and accepts no error too."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: Any, value: Any, tb: Any) -> bool:
        return typ is None or issubclass(typ, ValueError)


def test_a_file_whose_headers_claim_a_huge_batch_is_refused_before_unpacking(mf, mf_mid):
    buf = io.BytesIO()
    mf_mid.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for member in src.namelist():
            data = src.read(member)
            if not member.startswith("__"):  # every field claims 10**9 rows (the data stay small)
                arr = np.load(io.BytesIO(data))
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    head,
                    {
                        "descr": np.lib.format.dtype_to_descr(arr.dtype),
                        "fortran_order": False,
                        "shape": (10**9, *arr.shape[1:]),
                    },
                )
                data = head.getvalue() + arr.tobytes()
            zf.writestr(member, data)
    for load in (MonkeyFunState.load, mf.load_state):
        with pytest.raises(ValueError, match="MAX_LOAD_BYTES"):
            load(io.BytesIO(out.getvalue()))


def test_a_missing_file_is_still_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        MonkeyFunState.load(tmp_path / "nope.npz")


def test_state_error_is_a_value_error_and_json_garbage_is_refused(mf):
    assert issubclass(StateError, ValueError)
    for text in ("", "[", "null", "[1, 2]", "[" * 100_000, b"\xff\xfe", 42, None):
        with pytest.raises(ValueError):
            MonkeyFunState.from_json(text)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            mf.state_from_json(text)  # type: ignore[arg-type]


# ============================================================================ validate_state and the AEC env
def test_validate_state_accepts_real_states_and_refuses_broken_objects(mf, mf_mid):
    mf.validate_state(mf_mid)
    broken = mf_mid.clone()
    broken.hands = broken.hands.astype(np.float64)
    with pytest.raises(ValueError, match=r"'hands' \(whole array\): dtype float64"):
        mf.validate_state(broken)
    broken = mf_mid.clone()
    broken.rewards[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"'rewards' row 1"):
        mf.validate_state(broken)
    with pytest.raises(ValueError, match="not a MonkeyFunState"):
        mf.validate_state(mf_mid.get_state())


def test_a_position_passes_validation_and_knows_its_game():
    game = MonkeyFun(2, board_side=2)
    s = game.position(hands=[[1, 5, 9], [2, 3]], board={23: [2, 1]})
    game.validate_state(s)
    assert s.game_identity() == game.identity
    assert MonkeyFunState.from_json(s.to_json()).equals(s)


@pytest.mark.parametrize("name", ["monkey_fun", "funky_monkey"])
def test_aec_load_state_refuses_a_broken_state_and_leaves_the_env_playable(name):

    game = make_game(name)
    raw = aec_api(name)[1]()
    raw.reset(seed=3)
    before = _snapshot(raw.core_state)
    agent = raw.agent_selection
    good = _random_play(game, game.init([9]), 4, 4)
    bad = good.clone()
    bad.legal_action_mask[:] = True
    with pytest.raises(ValueError, match="legal_action_mask"):
        raw.load_state(bad)
    bad = good.clone()
    bad.current_player[:] = 100
    with pytest.raises(ValueError, match="current_player"):
        raw.load_state(bad)
    with pytest.raises(ValueError):
        raw.load_state(make_game(name, num_players=game.num_players + 1).init([0]))
    assert _unchanged(raw.core_state, before) and raw.agent_selection == agent
    raw.step(int(np.flatnonzero(raw.observe(agent)["action_mask"])[0]))  # still playable
    raw.load_state(good)  # a valid state loads
    assert raw.core_state.equals(good)


# ============================================================================ issue 22 item 3: counters, rewards, bools
#: The games the package ships, from the registry (not the toy games other test modules register).
SHIPPED = [n for n, path in GAMES.items() if path.startswith("monkey_envs.")]


@pytest.fixture(scope="module", params=SHIPPED)
def shipped(request) -> tuple[Any, BatchState]:
    """``(game, state)``: each shipped game (default options) and 2 rows of it after a few random moves."""
    game = make_game(request.param)
    return game, _random_play(game, game.init([0, 1]), 6, 5)


def test_every_counter_of_every_game_is_declared(shipped):
    """Issue 22 item 3: what only counts up during play is declared (``Game.counter_fields``), for every game."""
    game, _ = shipped
    counters = {f for f in ("step_count", "stats") if f in game.state_layout()}
    assert counters <= set(game.counter_fields), (game, game.counter_fields)
    assert all(game.state_layout()[f][1].kind == "i" for f in game.counter_fields)


def test_a_counter_without_room_to_play_is_refused_by_every_loader(shipped):
    """Issue 22 item 3: a 4 Monkeys ``stats`` counter at INT32_MAX was accepted, overflowed in play and then
    failed its own laws. Every game refuses a counter at or past its cap (half its dtype's range)."""
    game, s = shipped
    for field in game.counter_fields:
        dtype = game.state_layout()[field][1]
        for value in (int(np.iinfo(dtype).max), game.counter_cap(dtype)):
            t = s.clone()
            getattr(t, field).reshape(t.batch_size, -1)[1, 0] = value
            _assert_refused_everywhere(game, game.state_class, t.get_state(game), field, 1)
            with pytest.raises(ValueError, match=rf"'{field}' row 1: counter {value} outside"):
                game.validate_state(t)


def test_a_counter_just_below_its_cap_loads_and_plays(shipped):
    """The cap leaves room: a counter one below it loads, and play keeps the game's laws."""
    game, s = shipped
    for field in game.counter_fields:
        t = s.clone()
        arr = getattr(t, field).reshape(t.batch_size, -1)
        arr[1, 0] = game.counter_cap(arr.dtype) - 1
        back = game.set_state(t.get_state(game))
        played = _random_play(game, back, 4, 6)
        assert game.state_violations(played) == []
        assert getattr(played, field).reshape(2, -1)[1, 0] >= game.counter_cap(arr.dtype) - 1


def test_a_reward_in_a_running_game_is_refused_by_every_loader(shipped):
    """Issue 22 item 3: Monki accepted non-zero rewards in a running game; no game does now (a shared law)."""
    game, s = shipped
    assert not (s.terminated | s.truncated).any()
    data = s.get_state(game)
    data["fields"]["rewards"]["data"][1][0] = 1.0
    _assert_refused_everywhere(game, game.state_class, data, "rewards", 1)


def _just_finished(game: Any) -> BatchState:
    """A one-row state of ``game`` right after a random game ended with non-zero rewards."""
    for seed in range(20):
        s = play_random(game, [seed], MAX_GAME_STEPS, seed, until_done=True)
        assert s.terminated[0], f"a random game of {game!r} did not end"
        if (s.rewards != 0).any():
            return s
    raise AssertionError(f"no random game of {game!r} ended with rewards")


def test_a_finished_game_with_rewards_other_than_its_winners_is_refused(shipped):
    """The end rewards follow ``winners_mask`` (``Game.end_rewards``), for every game: Monki too."""
    game, _ = shipped
    s = _just_finished(game)
    game.validate_state(s)
    data = s.get_state(game)
    data["fields"]["rewards"]["data"][0] = [-r for r in data["fields"]["rewards"]["data"][0]]
    _assert_refused_everywhere(game, game.state_class, data, "rewards", 0)


def _with_byte(state: BatchState, field: str, byte: int) -> BatchState:
    """A copy of ``state`` whose first True entry of bool ``field`` is stored as ``byte`` (numpy still reads True)."""
    out = state.clone()
    raw = getattr(out, field).view(np.uint8).reshape(-1)
    raw[int(np.flatnonzero(raw)[0])] = byte
    return out


def test_a_non_canonical_bool_byte_is_refused_by_every_loader(shipped):
    """Issue 22 item 3: a bool byte other than 0 or 1 (here 0x80: True to numpy, not to a byte-wise read)
    was accepted and kept. ``validate_state``, the ``.npz`` loaders and the AEC env's ``load_state``
    refuse it, for every bool field of every game (JSON cannot hold one: its bools are true/false)."""
    import monkey_envs

    game, s = shipped
    raw_env = monkey_envs.versioned_module(f"{game.spec.name}_v{game.spec.version}").raw_env()
    raw_env.reset(seed=0)
    for field, (_, dtype) in game.state_layout().items():
        if dtype != np.bool_ or not getattr(s, field).any():
            continue
        bad = _with_byte(s, field, 0x80)
        assert np.array_equal(getattr(bad, field), getattr(s, field))  # the same values to numpy
        with pytest.raises(ValueError, match=rf"'{field}' row \d: a bool stored as byte 128"):
            game.validate_state(bad)
        buf = io.BytesIO()
        bad.save(buf, game)
        for load in (game.state_class.load, game.load_state):
            with pytest.raises(ValueError, match=rf"'{field}' row \d: a bool stored as byte 128"):
                load(io.BytesIO(buf.getvalue()))
        row = int(np.flatnonzero(getattr(bad, field).view(np.uint8).reshape(2, -1).max(1) > 1)[0])
        before = _snapshot(raw_env.core_state)
        with pytest.raises(ValueError, match=field):
            raw_env.load_state(bad.take(row))
        assert _unchanged(raw_env.core_state, before)


def test_monki_refuses_a_running_game_at_the_turn_cap_and_turns_in_the_placement_phase():
    """Issue 22 item 3: Monki accepted ``turns == turn_cap`` in a running game (the turn reaching the cap ends
    the game) and turns in the placement phase (placements are not turns)."""
    game = make_game("monki", turn_cap=12)
    placing = game.init([0, 1])
    started = _random_play(game, placing, 2, 0)  # both Monkis placed: turn 0 of the game proper
    assert (started.phase == PHASE_START).all() and not started.terminated.any()
    for s, value in ((placing, 12), (placing, 3), (started, 12)):
        data = s.get_state(game)
        data["fields"]["turns"]["data"][1] = value
        _assert_refused_everywhere(game, game.state_class, data, "turns", 1)
    data = started.get_state(game)
    data["fields"]["turns"]["data"][1] = 11
    assert game.set_state(data).turns[1] == 11  # one turn left: a running game


def test_a_monki_position_with_non_canonical_ruby_bytes_is_refused():
    """Position builders that take arrays keep the bytes they are given; the shared laws refuse them."""
    game = make_game("monki")
    rubies = np.array([[1, 0x80, 1, 1], [1, 1, 1, 1]], np.uint8).view(np.bool_)
    with pytest.raises(ValueError, match=r"'rubies'.*byte 128"):
        game.position(monkis=[7, 35], rubies=rubies)
    assert game.position(monkis=[7, 35], rubies=rubies.tolist()).rubies.all()


# ============================================================================ the property test
_FUZZ_ENV = "MONKEY_ENVS_FUZZ"


def _subprocess_env() -> dict[str, str]:
    """The environment of the fuzz subprocess: this checkout's package first (the script's own
    folder, ``tests/``, is the subprocess's first path, not the checkout), faulthandler on."""
    root = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONFAULTHANDLER": "1", "PYTHONPATH": path}


def test_no_loaded_state_or_action_can_crash_a_kernel_or_make_a_broken_game():
    """Damaged states through every loader, accepted ones stepped with every legal action: in a subprocess.

    ``MONKEY_ENVS_FUZZ_SEED`` / ``MONKEY_ENVS_FUZZ_EXAMPLES`` override the seed and the examples
    per configuration (defaults: 0 and a count that keeps the test well under 30 s).
    """
    seed = int(os.environ.get(f"{_FUZZ_ENV}_SEED", "0"))
    examples = int(os.environ.get(f"{_FUZZ_ENV}_EXAMPLES", "0")) or None
    jobs = []
    for name, default in (("monkey_fun", 60), ("funky_monkey", 20)):
        n = examples or default
        cmd = [sys.executable, str(Path(__file__).resolve()), "--fuzz", name, str(n), str(seed)]
        env = _subprocess_env()
        jobs.append((name, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)))
    failures = []
    for name, proc in jobs:
        try:
            out, err = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        if proc.returncode != 0:
            failures.append(f"--- {name}: exit code {proc.returncode}\n{out[-3000:]}\n{err[-6000:]}")
    assert not failures, "\n".join(failures)


def test_the_property_test_can_fail():
    """With validation switched off in the subprocess, the damaged states it plays fail it (exit code != 0)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--fuzz-unsafe", "monkey_fun", "40", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_subprocess_env())
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "case {" in proc.stderr


def _fuzz_main(name: str, examples: int, seed: int) -> None:
    """The subprocess: a hypothesis property over every test configuration of game ``name``."""
    import faulthandler

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    faulthandler.enable()
    cls = game_class(name)
    for config in cls.test_configs:
        game = make_game(name, **config)
        raw = aec_api(name)[1](**config)
        raw.reset(seed=0)
        pool = _fuzz_pool(game)
        layout = game.state_layout()

        prop = _property(game, raw, pool, layout, config)
        run = settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
        )(hseed(seed)(given(data=st.data())(prop)))
        run()
        print(f"{name} {config}: {examples} examples passed ({dict(_TALLY)})", flush=True)
        _TALLY.clear()


#: Examples accepted / refused by the loaders in the configuration being fuzzed (printed per configuration).
_TALLY: collections.Counter = collections.Counter()


def _property(game: Any, raw: Any, pool: BatchState, layout: dict, config: dict) -> Any:
    """The property for one configuration: damage rows of ``pool``, load everywhere, play what is accepted."""
    from hypothesis import strategies as st

    def prop(data: Any) -> None:
        rows = data.draw(st.lists(st.integers(0, pool.batch_size - 1), min_size=1, max_size=3, unique=True))
        state = pool.take(np.array(rows))
        how = _damage(data, state, layout, game)
        sys.stderr.write(f"case {config} rows {rows}: {how}\n")
        sys.stderr.flush()
        accepted = _all_loaders_agree(game, raw, state)
        _TALLY["accepted" if accepted is not None else "refused"] += 1
        if accepted is not None:
            _play_everything(game, accepted, data)

    return prop


def _fuzz_pool(game: Any) -> BatchState:
    """Valid states of ``game``: fresh, mid-game and finished rows."""
    parts = [game.init(np.arange(4))]
    for steps in (3, 12, 40, 400):
        parts.append(_random_play(game, game.init(np.arange(4) + 10 * steps), steps, steps))
    return type(parts[0]).concat(parts)


def _damage(data: Any, state: BatchState, layout: dict, game: Any) -> str:
    """Damage ``state`` in place (values, masks, swaps, dtypes or shapes); returns what was done."""
    from hypothesis import strategies as st

    names = sorted(layout)
    kind = data.draw(st.sampled_from(["values"] * 6 + ["mask"] * 2 + ["swap"] * 2 + ["layout", "shift", "none"]))
    b = state.batch_size
    if kind == "none":
        return "undamaged"
    if kind == "mask":
        r = data.draw(st.integers(0, b - 1))
        bits = data.draw(st.lists(st.booleans(), min_size=game.num_actions, max_size=game.num_actions))
        state.legal_action_mask[r] = bits
        return f"mask row {r} = {np.flatnonzero(bits).tolist()}"
    field = data.draw(st.sampled_from(names))
    arr = getattr(state, field)
    if kind == "layout":
        change = data.draw(st.sampled_from(["dtype", "drop column", "add column", "drop row", "scalar"]))
        if change == "dtype":
            dtype = data.draw(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "float32", "bool"]))
            if np.dtype(dtype) == arr.dtype:
                dtype = "float64"
            setattr(state, field, arr.astype(dtype))
        elif change == "drop column" and arr.ndim > 1 and arr.shape[-1] > 0:
            setattr(state, field, np.ascontiguousarray(arr[..., :-1]))
        elif change == "add column" and arr.ndim > 1:
            setattr(state, field, np.concatenate([arr, arr[..., -1:]], axis=-1))
        elif change == "drop row" and b > 1:
            setattr(state, field, arr[:-1].copy())
        else:
            setattr(state, field, arr[:, None].copy())
        return f"layout {change} of {field}"
    flat = arr.reshape(b, -1)
    if flat.shape[1] == 0:
        return f"nothing to damage in {field}"
    r = data.draw(st.integers(0, b - 1))
    if kind == "swap":
        perm = data.draw(st.permutations(range(flat.shape[1])))
        flat[r] = flat[r][list(perm)]
        return f"swap {field} row {r}"
    if kind == "shift":  # move one unit between two entries (keeps sums: the subtler laws)
        i, j = data.draw(st.tuples(st.integers(0, flat.shape[1] - 1), st.integers(0, flat.shape[1] - 1)))
        if arr.dtype.kind in "iu":
            with np.errstate(over="ignore"):
                flat[r, i] = flat[r, i] + 1
                flat[r, j] = flat[r, j] - 1
        return f"shift {field} row {r} {i}->{j}"
    n = data.draw(st.integers(1, min(4, flat.shape[1])))
    idx = data.draw(st.lists(st.integers(0, flat.shape[1] - 1), min_size=n, max_size=n))
    for i in idx:
        if arr.dtype.kind == "b":
            flat[r, i] = not flat[r, i]
        elif arr.dtype.kind in "iu":
            info = np.iinfo(arr.dtype)
            edge = [info.min, info.max, 0, 1, -1, 2, -2, 55, 56, 127] if info.min < 0 else [0, 1, info.max]
            v = data.draw(st.sampled_from(edge) | st.integers(int(info.min), int(info.max)) | st.integers(-3, 60))
            flat[r, i] = np.array(v).astype(arr.dtype) if info.min <= v <= info.max else info.max
        else:
            v = data.draw(st.floats(width=32) | st.sampled_from([0.0, 1.0, -1.0]))
            flat[r, i] = v
    return f"values {field} row {r} at {idx}: {flat[r, idx].tolist()}"


def _all_loaders_agree(game: Any, raw: Any, state: BatchState) -> BatchState | None:
    """Run every loader on ``state``; they must all accept (equal states) or all refuse with ValueError."""
    cls = game.state_class
    verdicts: dict[str, Any] = {}

    def attempt(name: str, fn: Any) -> None:
        try:
            verdicts[name] = fn()
        except ValueError as e:
            verdicts[name] = e

    attempt("validate_state", lambda: (game.validate_state(state), state)[1])
    try:
        d = state.get_state(game)
        text = json.dumps(d)
    except (TypeError, ValueError):
        d = text = None
    if d is not None:
        attempt("State.set_state", lambda: cls.set_state(json.loads(text)))
        attempt("Game.set_state", lambda: game.set_state(json.loads(text)))
        attempt("State.from_json", lambda: cls.from_json(text))
        attempt("Game.state_from_json", lambda: game.state_from_json(text))
    buf = io.BytesIO()
    state.save(buf, game)
    raw_bytes = buf.getvalue()
    attempt("State.load", lambda: cls.load(io.BytesIO(raw_bytes)))
    attempt("Game.load_state", lambda: game.load_state(io.BytesIO(raw_bytes)))
    if state.batch_size == 1:
        before = {k: v.copy() for k, v in raw.core_state.arrays().items()}

        def aec() -> BatchState:
            raw.load_state(state)
            return raw.core_state

        attempt("aec.load_state", aec)
        if isinstance(verdicts["aec.load_state"], ValueError):
            assert _unchanged(raw.core_state, before), "a refused load_state changed the env"
    refused = {k for k, v in verdicts.items() if isinstance(v, ValueError)}
    if refused and len(refused) != len(verdicts):
        raise AssertionError(f"loaders disagree: refused by {sorted(refused)}, accepted by the others: {verdicts}")
    if refused:
        return None
    for k, v in verdicts.items():
        assert v.equals(state), f"{k} did not give back the state"
    return verdicts["Game.set_state"] if "Game.set_state" in verdicts else verdicts["State.load"]


def _play_everything(game: Any, s: BatchState, data: Any) -> None:
    """Step ``s`` with every legal action of its mask (and bad actions, which must be refused) for a few steps."""
    from hypothesis import strategies as st

    A, P = game.num_actions, game.num_players
    for _ in range(3):
        done = s.terminated | s.truncated
        mask = s.legal_action_mask
        first = mask.argmax(1)
        for a in np.flatnonzero(mask.any(0)).tolist():
            game.step(s, np.where(mask[:, a], a, first))
        if (~done).any():
            for bad in (-1, A, 2**31 - 1, -(2**63), 2**63 - 1):
                try:
                    game.step(s, np.full(s.batch_size, bad, dtype=np.int64))
                except ValueError:
                    pass
                else:
                    raise AssertionError(f"action {bad} was accepted")
            try:
                game.step(s, np.full(s.batch_size, 2**64 - 1, dtype=np.uint64))
            except ValueError:
                pass
            else:
                raise AssertionError("action 2**64 - 1 was accepted")
            live = np.flatnonzero(~done & ~mask.all(1))
            if live.size:
                acts = first.copy()
                acts[live[0]] = int(np.flatnonzero(~mask[live[0]])[0])
                try:
                    game.step(s, acts)
                except ValueError:
                    pass
                else:
                    raise AssertionError("an illegal action was accepted")
        for p in range(P):
            game.observe(s, p)
        for v in (None, *range(P)):
            game.render(s, 0, v)
        if done.all():
            return
        pick = data.draw(st.integers(0, 2**32 - 1))
        s = game.step(s, random_legal_actions(mask, np.random.default_rng(pick)))
        found = game.state_violations(s)
        assert not found, f"a valid state stepped into a broken one: {found[:5]}"


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] in ("--fuzz", "--fuzz-unsafe"):
    if sys.argv[1] == "--fuzz-unsafe":  # for test_the_property_test_can_fail: nothing is validated
        from monkey_envs.core.game import Game

        Game.validate_state = lambda self, state: None  # type: ignore[method-assign]
    _fuzz_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
