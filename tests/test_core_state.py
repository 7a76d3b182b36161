"""The batched State as plain data, and per-env randomness (``monkey_envs.core``), on Monkey Fun.

* clone / take / concat / put / get_state / set_state / to_json / from_json / save / load are
  lossless, copies are independent, and foreign or damaged input raises ``ValueError``;
* ``copy.deepcopy`` keeps states and games;
* batch invariance: env ``i`` of a batch replays exactly like a single env with the same seed,
  at B=1 and inside a batch of 64, also after partial resets (``put`` of a fresh ``init``).
"""

from __future__ import annotations

import copy
import io
import json
import zlib

import numpy as np
import pytest

from monkey_envs.monkey_fun import MonkeyFun, MonkeyFunState


def policy(game: MonkeyFun, s: MonkeyFunState) -> np.ndarray:
    """Deterministic per-row actions: a hash of the row's own observation picks a legal action."""
    seat = np.maximum(s.current_player.astype(np.int64), 0)
    obs = game.observe(s, seat)
    out = np.zeros(s.batch_size, dtype=np.int64)
    for b in range(s.batch_size):
        legal = np.flatnonzero(s.legal_action_mask[b])
        if legal.size:
            out[b] = legal[zlib.crc32(obs[b].tobytes()) % legal.size]
    return out


def play(game: MonkeyFun, s: MonkeyFunState, steps: int) -> MonkeyFunState:
    for _ in range(steps):
        s = game.step(s, policy(game, s))
    return s


@pytest.fixture(scope="module")
def game() -> MonkeyFun:
    return MonkeyFun(3)


@pytest.fixture(scope="module")
def mid(game) -> MonkeyFunState:
    """8 games after 30 steps: some still running, most with cards in the discard and monkeys out."""
    s = play(game, game.init(np.arange(100, 108)), 30)
    assert s.batch_size == 8 and (s.discard.sum(1) > 0).all()
    return s


# ============================================================================ copies and slices
def test_clone_is_equal_and_independent(mid):
    c = mid.clone()
    assert c.equals(mid)
    c.counts[0, 0, 0] += 1
    c.rng[0, 1] += np.uint64(1)
    assert not c.equals(mid)
    assert mid.equals(copy.deepcopy(mid))


def test_take_accepts_ints_lists_slices_and_masks_and_copies(mid):
    one = mid.take(3)
    assert one.batch_size == 1 and one.equals(mid.take([3]))
    assert mid.take(slice(2, 5)).equals(mid.take([2, 3, 4]))
    mask = np.zeros(8, dtype=bool)
    mask[[1, 6]] = True
    assert mid.take(mask).equals(mid.take(np.array([1, 6])))
    t = mid.take([0, 1])
    t.hands[:] = 0
    assert (mid.hands[:2] > 0).any()  # the original is untouched
    for name, arr in mid.take([5, 2]).arrays().items():
        assert np.array_equal(arr, getattr(mid, name)[[5, 2]]) and arr.dtype == getattr(mid, name).dtype
    assert mid.take([-1]).equals(mid.take([7]))
    assert mid.take([]).batch_size == 0 and mid.take(np.array([], np.int64)).batch_size == 0
    for part in (mid.take(slice(0, 8, 2)), mid.take([6, 0])):  # new, contiguous arrays, never views
        for name, arr in part.arrays().items():
            assert arr.flags.c_contiguous and arr.flags.writeable and not np.shares_memory(arr, getattr(mid, name))
    assert type(mid.take([1])) is type(mid) and mid.take([1]).__dict__.get("_game") == mid.__dict__.get("_game")
    with pytest.raises(IndexError, match="mask"):
        mid.take(np.ones(3, dtype=bool))
    with pytest.raises(IndexError, match="integers"):
        mid.take(np.array([[0, 1]]))


def test_concat_of_takes_gives_back_the_batch(mid):
    parts = [mid.take(slice(0, 3)), mid.take(slice(3, 4)), mid.take(slice(4, 8))]
    assert MonkeyFunState.concat(parts).equals(mid)


def test_concat_rejects_nothing_and_states_of_different_configs(mid):
    with pytest.raises(ValueError, match="at least one"):
        MonkeyFunState.concat([])
    other = MonkeyFun(2).init(0)
    with pytest.raises(ValueError, match="different game config"):
        MonkeyFunState.concat([mid, other])


def test_put_overwrites_rows_in_place(game, mid):
    s = mid.clone()
    fresh = game.init([7, 8])
    s.put(np.array([1, 5]), fresh)
    assert s.take([1, 5]).equals(fresh)
    keep = [0, 2, 3, 4, 6, 7]
    assert s.take(keep).equals(mid.take(keep))


def test_put_rejects_a_state_of_another_config(mid):
    s = mid.clone()
    with pytest.raises(ValueError):
        s.put(np.array([0]), MonkeyFun(2).init(0))


# ============================================================================ serialization
def _with_high_rng(s: MonkeyFunState) -> MonkeyFunState:
    """A copy whose RNG words use the top bit, to catch uint64 -> int64/float precision loss."""
    s = s.clone()
    s.rng[0] = [np.uint64(2**64 - 1), np.uint64(2**63 + 12345)]
    return s


def test_get_state_is_json_able_and_set_state_restores_exactly(mid):
    s = _with_high_rng(mid)
    data = json.loads(json.dumps(s.get_state()))
    back = MonkeyFunState.set_state(data)
    assert back.equals(s)
    assert int(back.rng[0, 0]) == 2**64 - 1


def test_to_json_and_from_json_are_lossless(mid):
    s = _with_high_rng(mid)
    assert MonkeyFunState.from_json(s.to_json()).equals(s)


def test_save_and_load_are_lossless_in_memory_and_on_disk(mid, tmp_path):
    s = _with_high_rng(mid)
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert MonkeyFunState.load(buf).equals(s)
    path = tmp_path / "state.npz"
    s.save(path)
    assert MonkeyFunState.load(path).equals(s)


def test_a_restored_state_plays_on_exactly_like_the_original(game, mid):
    back = MonkeyFunState.from_json(mid.to_json())
    assert play(game, back, 10).equals(play(game, mid, 10))


def _damaged(mid: MonkeyFunState):
    good = mid.get_state()
    cases = {}
    d = copy.deepcopy(good)
    d["state_class"] = "FunkyMonkeyState"
    cases["foreign state class"] = d
    d = copy.deepcopy(good)
    del d["fields"]["hands"]
    cases["missing field"] = d
    d = copy.deepcopy(good)
    d["fields"]["counts"]["shape"] = [8, 36, 4]
    cases["shape does not match the data"] = d
    d = copy.deepcopy(good)
    d["fields"]["hands"]["dtype"] = "no_such_dtype"
    cases["unknown dtype"] = d
    d = copy.deepcopy(good)
    d["fields"]["supply"] = {"dtype": "int8", "shape": [7, 3], "data": good["fields"]["supply"]["data"][:7]}
    cases["inconsistent batch sizes"] = d
    d = copy.deepcopy(good)
    d["format"] = 999
    cases["unknown format version"] = d
    d = copy.deepcopy(good)
    d["fields"]["owner"]["data"][0] = [1, 2]
    cases["ragged data"] = d
    cases["not a dict"] = [1, 2, 3]
    return cases


@pytest.mark.parametrize(
    "case",
    [
        "foreign state class",
        "missing field",
        "shape does not match the data",
        "unknown dtype",
        "inconsistent batch sizes",
        "unknown format version",
        "ragged data",
        "not a dict",
    ],
)
def test_set_state_rejects_foreign_or_damaged_data_with_a_value_error(mid, case):
    data = _damaged(mid)[case]
    with pytest.raises(ValueError):
        MonkeyFunState.set_state(data)
    with pytest.raises(ValueError):
        MonkeyFunState.from_json(json.dumps(data))


def test_from_json_rejects_text_that_is_not_json(mid):
    with pytest.raises(ValueError):
        MonkeyFunState.from_json(mid.to_json()[:-10])


def test_load_rejects_a_file_of_another_state_class(mid, tmp_path):
    path = tmp_path / "x.npz"
    np.savez_compressed(path, __state_class__=np.array("OtherState"), **mid.arrays())
    with pytest.raises(ValueError, match="OtherState"):
        MonkeyFunState.load(path)


def test_load_rejects_a_file_with_a_missing_field(mid, tmp_path):
    path = tmp_path / "x.npz"
    arrays = mid.arrays()
    del arrays["discard"]
    np.savez_compressed(path, __state_class__=np.array("MonkeyFunState"), **arrays)
    with pytest.raises(ValueError, match="discard"):
        MonkeyFunState.load(path)


def test_load_rejects_garbage_bytes():
    with pytest.raises(ValueError):
        MonkeyFunState.load(io.BytesIO(b"this is not an npz file at all"))


def test_equals_compares_dtype_and_values(mid):
    other = mid.clone()
    other.scores = other.scores.astype(np.int32)
    assert not mid.equals(other)
    assert not mid.equals(mid.take([0, 1]))


# ============================================================================ deepcopy
def test_deepcopy_keeps_the_game_and_its_configuration():
    game = MonkeyFun(3, variant="quick", board_side=2, place_on_own_secured=False)
    g2 = copy.deepcopy(game)
    assert g2.config == game.config
    assert type(g2) is MonkeyFun and g2.num_actions == game.num_actions and g2.obs_dim == game.obs_dim
    s = game.init(np.arange(4))
    assert play(g2, s, 12).equals(play(game, s, 12))
    assert np.array_equal(g2.observe(s, 1), game.observe(s, 1))


# ============================================================================ batch invariance
CONFIGS = [(2, "normal", 1), (3, "quick", 2), (1, "solo", 1)]


@pytest.mark.parametrize(("num_players", "variant", "side"), CONFIGS)
def test_each_env_of_a_batch_of_64_replays_exactly_like_a_single_env_with_its_seed(num_players, variant, side):
    game = MonkeyFun(num_players, variant=variant, board_side=side)
    seeds = 1000 + 37 * np.arange(64)
    batch = game.init(seeds)
    singles = [game.init(int(x)) for x in seeds]
    for i in range(64):
        assert batch.take(i).equals(singles[i])
    for _ in range(20 * num_players):
        if batch.terminated.all():
            break
        batch = game.step(batch, policy(game, batch))
        singles = [game.step(s, policy(game, s)) for s in singles]
        for i in range(64):
            assert batch.take(i).equals(singles[i]), f"row {i} (seed {seeds[i]}) diverged"
    assert batch.terminated.all()


def test_partial_resets_replay_like_fresh_single_envs():
    """Rows reset by ``put(init(new seeds))`` at different times replay like single envs from those seeds."""
    game = MonkeyFun(2)
    seeds = np.arange(64)
    batch = game.init(seeds)
    singles = [game.init(int(x)) for x in seeds]
    next_seed = 5000
    for t in range(60):
        # reset every 5th row at step 7, and every finished row (autoreset style) from step 15 on
        rows = np.flatnonzero(np.arange(64) % 5 == 0) if t == 7 else np.empty(0, dtype=np.int64)
        if t >= 15:
            rows = np.union1d(rows, np.flatnonzero(batch.terminated))
        if rows.size:
            new_seeds = np.arange(next_seed, next_seed + rows.size)
            next_seed += rows.size
            batch.put(rows, game.init(new_seeds))
            for r, sd in zip(rows, new_seeds, strict=True):
                singles[r] = game.init(int(sd))
        batch = game.step(batch, policy(game, batch))
        singles = [game.step(s, policy(game, s)) for s in singles]
        for i in range(64):
            assert batch.take(i).equals(singles[i]), f"row {i} diverged at step {t}"
    assert next_seed > 5000 + 13  # resets really happened


def test_the_same_seed_gives_the_same_game_and_different_seeds_different_deals():
    game = MonkeyFun(4)
    a = game.init(np.arange(256))
    assert a.equals(game.init(np.arange(256)))
    deals = {(tuple(a.hands[i].ravel()), tuple(a.draw_pile[i])) for i in range(256)}
    assert len(deals) == 256
    # the same seed in different positions of the batch gives the same game
    b = game.init([9, 3, 9])
    assert b.take(0).equals(b.take(2)) and not b.take(0).equals(b.take(1))
