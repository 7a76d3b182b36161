"""The game-kit hooks ``state_violations`` and ``resample_hidden`` of Monkey Fun and Funky Monkey.

* random play (seeded, finished rows restarted) keeps ``state_violations == []`` after every step;
* a deliberately damaged state (one damage per law) is reported with the right field and row,
  only that row, and ``state_violations`` never raises -- not even on garbage layouts;
* ``resample_hidden`` keeps the seat's observation, its mask where it is to move and
  ``render(viewer=seat)``, changes something hidden in most rows, passes ``state_violations``,
  leaves its input untouched, and the resampled state steps on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from monkey_envs.core.game import Game
from monkey_envs.core.state import BatchState
from monkey_envs.funky_monkey import FunkyMonkey
from monkey_envs.funky_monkey import data as FD
from monkey_envs.funky_monkey.state import BOWL_GOLDEN, PH_ACTIVE, PH_RESPOND
from monkey_envs.monkey_fun import MonkeyFun

GAMES: dict[str, Callable[[], Game]] = {
    "mf-2p-normal": lambda: MonkeyFun(2),
    "mf-3p-quick-side2": lambda: MonkeyFun(3, variant="quick", board_side=2),
    "mf-4p-own-off": lambda: MonkeyFun(4, board_side=2, place_on_own_secured=False),
    "mf-solo": lambda: MonkeyFun(1),
    "fm-2p-all": lambda: FunkyMonkey(2, tile_visibility="all"),
    "fm-4p-basic": lambda: FunkyMonkey(4),
    "fm-7p-every-second-crown": lambda: FunkyMonkey(7, tile_visibility="every_second", crown_bonus=True),
}
#: fields no law constrains (any value of the dtype is consistent): the RNG, Funky Monkey's face-up
#: flags (any set of tiles may have been turned) and its bonus-move flag
FREE_FIELDS = ("rng", "face_up", "in_bonus")
MF = [k for k in GAMES if k.startswith("mf")]
FM = [k for k in GAMES if k.startswith("fm")]

#: hidden fields whose change counts as "something hidden changed" (the RNG always changes)
HIDDEN = {
    MonkeyFun: ("hands", "draw_pile"),
    FunkyMonkey: (
        "hands",
        "draw_pile",
        "out_of_play",
        "offer_card",
        "tiles",
        "removed_tiles",
        "treasures",
        "treasure_pile",
    ),
}


def random_actions(s: BatchState, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 in finished rows)."""
    mask = s.legal_action_mask
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(1)


def played(game: Game, batch: int, steps: int, seed: int) -> BatchState:
    """``batch`` games after ``steps`` random decisions, finished rows restarted with fresh seeds."""
    rng = np.random.default_rng(seed)
    s = game.init(np.arange(batch) + seed)
    fresh = seed + batch
    for _ in range(steps):
        s = game.step(s, random_actions(s, rng))
        done = np.flatnonzero(s.terminated)
        if done.size > batch // 4:
            s.put(done, game.init(np.arange(fresh, fresh + done.size)))
            fresh += done.size
    return s


def mixed_states(game: Game, seed: int) -> BatchState:
    """Early, middle and late positions (some finished) in one batch of 48."""
    return game.state_class.concat([played(game, 16, k * 4 * game.num_players, seed + k) for k in range(3)])


# ============================================================================ (a) random play
@pytest.mark.parametrize("key", list(GAMES))
def test_random_play_keeps_state_violations_empty(key):
    game = GAMES[key]()
    B = 64
    rng = np.random.default_rng(7)
    s = game.init(np.arange(B))
    assert game.state_violations(s) == []
    fresh, ended = B, 0
    for t in range(250):
        s = game.step(s, random_actions(s, rng))
        v = game.state_violations(s)
        assert v == [], f"step {t}: {v[:5]}"
        done = np.flatnonzero(s.terminated)
        if done.size and t % 5 == 0:  # finished rows stay a few steps (their laws are checked too)
            ended += done.size
            s.put(done, game.init(np.arange(fresh, fresh + done.size)))
            fresh += done.size
    assert ended > B // 2, "random play must finish games (so the ending laws ran)"


# ============================================================================ (b) damaged states
def _running_row(s: BatchState, cond: np.ndarray | None = None) -> int:
    ok = ~s.terminated if cond is None else ~s.terminated & cond
    rows = np.flatnonzero(ok)
    assert rows.size, "no row to damage"
    return int(rows[rows.size // 2])


def _mf_damages() -> dict[str, tuple[str, Callable[[MonkeyFun, Any], int]]]:
    """name -> (field the violation names, damage(game, state) -> damaged row)."""

    def extra_card(g, s):
        r = _running_row(s)
        s.discard[r, 5] += 1  # a fifth "5" (or more than the deck's) appears
        return r

    def five_copies(g, s):
        r = _running_row(s)
        s.hands[r, 0] = [1, 1, 1, 1]  # with the deck's four 1s elsewhere: too many copies
        return r

    def monkey_off_board(g, s):
        r = _running_row(s, s.counts.sum((1, 2)) > 0)
        f, p = np.argwhere(s.counts[r] > 0)[0]
        s.counts[r, f, p] -= 1  # lost: neither supply nor box changes
        return r

    def draw_size_100(g, s):
        r = _running_row(s)
        s.draw_size[r] = 100
        return r

    def current_player_127(g, s):
        r = _running_row(s)
        s.current_player[r] = 127
        return r

    def negative_supply(g, s):
        r = _running_row(s)
        s.supply[r, 0] = -3
        return r

    def owner_out_of_range(g, s):
        r = _running_row(s)
        s.owner[r, 7] = 9
        return r

    def card_value_25(g, s):
        r = _running_row(s)
        s.hands[r, 0, 3] = 25
        return r

    def unsorted_hand(g, s):
        r = _running_row(s, s.hands[:, 0, 0] != s.hands[:, 0, 3])
        s.hands[r, 0] = s.hands[r, 0, ::-1].copy()
        return r

    def card_above_top(g, s):
        r = _running_row(s, s.draw_size < 50)
        s.draw_pile[r, 54] = 3
        return r

    def hundred_monkeys(g, s):
        r = _running_row(s)
        s.counts[r, 0, 0] = 100
        return r

    def last_field_50(g, s):
        r = _running_row(s)
        s.last_field[r] = 50
        return r

    def mask_flipped(g, s):
        r = _running_row(s)
        s.legal_action_mask[r] = ~s.legal_action_mask[r]
        return r

    def terminated_without_reason(g, s):
        r = _running_row(s)
        s.terminated[r] = True
        s.current_player[r] = -1
        s.legal_action_mask[r] = False
        return r

    def reward_while_running(g, s):
        r = _running_row(s)
        s.rewards[r, 0] = 1.0
        return r

    out = {
        "extra card": ("discard", extra_card),
        "five copies": ("hands", five_copies),
        "monkey off the board": ("counts", monkey_off_board),
        "draw_size 100": ("draw_size", draw_size_100),
        "current_player 127": ("current_player", current_player_127),
        "negative supply": ("supply", negative_supply),
        "owner out of range": ("owner", owner_out_of_range),
        "card value 25": ("hands", card_value_25),
        "unsorted hand": ("hands", unsorted_hand),
        "card above the top": ("draw_pile", card_above_top),
        "100 monkeys on a field": ("counts", hundred_monkeys),
        "last_field 50": ("last_field", last_field_50),
        "mask flipped": ("legal_action_mask", mask_flipped),
        "terminated without a reason": ("end_reason", terminated_without_reason),
        "reward while running": ("rewards", reward_while_running),
    }
    return out


def _mf_multi_damages() -> dict[str, tuple[str, Callable[[MonkeyFun, Any], int]]]:
    """Damages needing a multi-player game."""

    def foreign_on_secured(g, s):
        r = _running_row(s)
        s.owner[r, 0] = 0
        s.counts[r, 0] = 0
        s.counts[r, 0, 0] = 2
        s.counts[r, 0, 1] = 1
        s.supply[r] = 20 - s.counts[r].sum(0) - s.box[r]  # monkeys still add up
        return r

    def line_on_board(g, s):
        r = _running_row(s)
        line = g.windows[0]
        s.counts[r] = 0
        s.owner[r] = -1
        s.box[r] = 0
        s.counts[r, line, 1] = 1
        s.supply[r] = 20 - s.counts[r].sum(0)
        s.current_player[r] = 0
        sub = s.take([r])
        g._refresh(sub)
        s.legal_action_mask[r] = sub.legal_action_mask[0]
        return r

    return {
        "foreign monkey on a secured field": ("owner", foreign_on_secured),
        "a running game with a line": ("counts", line_on_board),
    }


def _fm_damages() -> dict[str, tuple[str, Callable[[FunkyMonkey, Any], int]]]:
    def phase_99(g, s):
        r = _running_row(s)
        s.phase[r] = 99
        return r

    def extra_card(g, s):
        r = _running_row(s)
        s.discard[r, 0] += 1
        return r

    def coconut_created(g, s):
        r = _running_row(s)
        s.coconuts[r, 0] += 1
        return r

    def negative_coconuts(g, s):
        r = _running_row(s)
        s.coconuts[r, 1] = -1
        return r

    def draw_size_100(g, s):
        r = _running_row(s)
        s.draw_size[r] = 100
        return r

    def current_player_127(g, s):
        r = _running_row(s)
        s.current_player[r] = 127
        return r

    def tile_swapped(g, s):
        r = _running_row(s)
        s.tiles[r, 2] = FD.E_MINUS2 if s.tiles[r, 2] != FD.E_MINUS2 else FD.E_GOLDEN  # no granite tile is -2
        return r

    def tile_off_slot(g, s):
        r = _running_row(s)
        s.tiles[r, 0] = FD.E_COCONUT
        return r

    def decider_out(g, s):
        r = _running_row(s)
        s.alive[r, int(s.current_player[r])] = False
        return r

    def extra_treasure(g, s):
        r = _running_row(s)
        s.treasures[r, 0, FD.T_CROWN] += 1
        return r

    def two_golden(g, s):
        r = _running_row(s, s.bowls[:, 1] == 0)
        s.golden[r] = 0
        s.bowls[r, 1] = BOWL_GOLDEN
        return r

    def stage_pending(g, s):
        r = _running_row(s)
        s.stage[r] = 3
        return r

    def duplicate_chip(g, s):
        r = _running_row(s)
        s.chip_order[r, 1] = s.chip_order[r, 0]
        return r

    def monkey_past_tiger(g, s):
        r = _running_row(s)
        p = int(np.flatnonzero(s.alive[r])[0])
        s.pos[r, p] = s.tiger[r]
        return r

    def holder_in_active_phase(g, s):
        r = _running_row(s, s.phase == PH_ACTIVE)
        s.holder[r] = (int(s.active[r]) + 1) % g.num_players
        return r

    def offer_lost_in_respond(g, s):
        r = _running_row(s, s.phase == PH_RESPOND)
        s.offer_card[r] = -1
        return r

    def mask_flipped(g, s):
        r = _running_row(s)
        s.legal_action_mask[r] = ~s.legal_action_mask[r]
        return r

    def round_9(g, s):
        r = _running_row(s)
        s.round[r] = 9
        return r

    def negative_stats(g, s):
        r = _running_row(s)
        s.stats[r, 0, 0] = -5
        return r

    def pile_gap(g, s):
        r = _running_row(s, s.draw_size > 0)
        s.draw_pile[r, 0] = -1
        return r

    return {
        "phase 99": ("phase", phase_99),
        "extra card": ("discard", extra_card),
        "coconut created": ("coconuts", coconut_created),
        "negative coconuts": ("coconuts", negative_coconuts),
        "draw_size 100": ("draw_size", draw_size_100),
        "current_player 127": ("current_player", current_player_127),
        "tile swapped": ("tiles", tile_swapped),
        "tile off a slot": ("tiles", tile_off_slot),
        "decider out of the game": ("alive", decider_out),
        "extra treasure": ("treasures", extra_treasure),
        "two golden coconuts": ("golden", two_golden),
        "stage pending": ("stage", stage_pending),
        "duplicate chip": ("chip_order", duplicate_chip),
        "monkey on the tiger": ("pos", monkey_past_tiger),
        "holder in the active phase": ("holder", holder_in_active_phase),
        "offer lost while responding": ("offer_card", offer_lost_in_respond),
        "mask flipped": ("legal_action_mask", mask_flipped),
        "round 9": ("round", round_9),
        "negative stats": ("stats", negative_stats),
        "a gap in the draw pile": ("draw_pile", pile_gap),
    }


DAMAGE_CASES = [
    *[(k, name) for k in ("mf-2p-normal", "mf-solo") for name in _mf_damages()],
    *[("mf-3p-quick-side2", name) for name in _mf_multi_damages()],
    *[(k, name) for k in ("fm-4p-basic", "fm-7p-every-second-crown") for name in _fm_damages()],
]


@pytest.fixture(scope="module")
def base_states() -> dict[str, BatchState]:
    """Per game, 48 running positions after a few random decisions (all laws hold)."""
    out = {}
    for key in {k for k, _ in DAMAGE_CASES}:
        game = GAMES[key]()
        s = played(game, 48, 3, seed=11)
        s = s.take(np.flatnonzero(~s.terminated))
        assert game.state_violations(s) == []
        out[key] = s
    return out


@pytest.mark.parametrize(("key", "damage"), DAMAGE_CASES, ids=[f"{k}:{d}" for k, d in DAMAGE_CASES])
def test_a_damaged_state_is_reported_with_its_field_and_row(key, damage, base_states):
    game = GAMES[key]()
    table = {**_mf_damages(), **_mf_multi_damages()} if key.startswith("mf") else _fm_damages()
    field, fn = table[damage]
    s = base_states[key].clone()
    row = fn(game, s)
    v = game.state_violations(s)  # never raises
    assert all(isinstance(f, str) and isinstance(r, int) and isinstance(w, str) for f, r, w in v)
    assert any(field in f.split("+") and r == row for f, r, _ in v), f"{damage}: no {field!r} in row {row}: {v}"
    assert {r for _, r, _ in v} == {row}, f"{damage}: violations in undamaged rows: {v}"


@pytest.mark.parametrize("key", ["mf-2p-normal", "mf-solo", "fm-2p-all", "fm-7p-every-second-crown"])
def test_state_violations_never_raise_on_garbage(key):
    """Random garbage in every field (within the dtype), wrong dtypes, shapes and classes."""
    game = GAMES[key]()
    s = played(game, 16, 5, seed=3)
    rng = np.random.default_rng(0)
    for name in s.field_names():
        for _ in range(3):
            t = s.clone()
            a = getattr(t, name)
            if a.dtype == bool:
                a[:] = rng.random(a.shape) < 0.5
            elif a.dtype.kind in "iu":
                info = np.iinfo(a.dtype)
                a[:] = rng.integers(info.min, info.max, size=a.shape, endpoint=True, dtype=a.dtype)
            else:
                a[:] = rng.normal(size=a.shape) * 1e30
                a.flat[0] = np.nan
            v = game.state_violations(t)
            if name not in FREE_FIELDS:
                assert v, f"garbage in {name} went unnoticed"
    everything = s.clone()
    for arr in everything.arrays().values():
        if arr.dtype.kind in "iu":
            arr[:] = np.iinfo(arr.dtype).max
    assert game.state_violations(everything)
    wrong_dtype = s.clone()
    wrong_dtype.supply = wrong_dtype.supply.astype(np.int64)
    assert game.state_violations(wrong_dtype) == [("supply", -1, "dtype int64, expected int8")]
    wrong_shape = s.clone()
    wrong_shape.hands = wrong_shape.hands[:, :, :2].copy()
    assert ("hands", -1) in [(f, r) for f, r, _ in game.state_violations(wrong_shape)]
    short = s.clone()
    short.current_player = short.current_player[:3].copy()
    assert ("state", -1) in [(f, r) for f, r, _ in game.state_violations(short)]
    other = GAMES["fm-4p-basic" if key.startswith("mf") else "mf-2p-normal"]().init([0, 1])
    assert game.state_violations(other) == [("state", -1, f"not a {type(s).__name__} but a {type(other).__name__}")]
    assert game.resample_hidden(other, 0, 0) is None


# ============================================================================ (c) resample_hidden
@pytest.mark.parametrize("key", list(GAMES))
def test_resample_hidden_keeps_the_seats_view_and_changes_what_it_cannot_see(key):
    game = GAMES[key]()
    s = mixed_states(game, seed=21)
    B = s.batch_size
    live = ~s.terminated
    assert live.sum() >= B // 2
    rng = np.random.default_rng(5)
    for seat in range(game.num_players):
        before = s.clone()
        new = game.resample_hidden(s, seat, seed=100 + seat)
        assert new is not None
        assert s.equals(before), "resample_hidden modified its input"
        assert game.state_violations(new) == []
        np.testing.assert_array_equal(game.observe(new, seat), game.observe(s, seat))
        mine = live & (s.current_player == seat)
        np.testing.assert_array_equal(new.legal_action_mask[mine], s.legal_action_mask[mine])
        for r in range(B):
            assert game.render(new, r, viewer=seat) == game.render(s, r, viewer=seat), f"row {r}"
        assert (new.rng != s.rng).any(1).all()
        changed = np.zeros(B, bool)
        for f in HIDDEN[type(game)]:
            a, b = getattr(new, f), getattr(s, f)
            changed |= (a != b).reshape(B, -1).any(1)
        assert changed[live].mean() > 0.5, f"seat {seat}: hidden parts changed in only {changed[live].mean():.0%} rows"
        # public parts are untouched
        for f in ("counts", "owner", "supply", "box", "discard", "draw_size") if key.startswith("mf") else (
            "pos", "alive", "coconuts", "golden", "bowls", "tiger", "face_up", "discard", "draw_size", "treasure_size",
            "treasure_used", "phase", "current_player", "announce", "revealed", "stats",
        ):  # fmt: skip
            np.testing.assert_array_equal(getattr(new, f), getattr(s, f), err_msg=f)
        np.testing.assert_array_equal(new.hands[:, seat], s.hands[:, seat])
        # the resampled state steps on: the seat's own legal actions where it moves, any legal one elsewhere
        acts = np.where(mine, random_actions(s, rng), random_actions(new, rng))
        nxt = game.step(new, acts)
        assert game.state_violations(nxt) == []
        # and the same seed resamples the same way
        assert game.resample_hidden(s, seat, seed=100 + seat).equals(new)


@pytest.mark.parametrize("key", ["mf-2p-normal", "fm-4p-basic"])
def test_resample_hidden_rejects_a_bad_seat(key):
    game = GAMES[key]()
    s = game.init([0, 1])
    for seat in (-1, game.num_players, True, 1.0):
        with pytest.raises(ValueError):
            game.resample_hidden(s, seat, 0)  # type: ignore[arg-type]
