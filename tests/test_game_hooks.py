"""The game-kit hooks ``state_violations`` and ``resample_hidden`` of Monkey Fun and Funky Monkey:
what only these games' own laws and hidden parts say.

The kit's conformance suite (:mod:`monkey_envs.core.testing`, every game, every test
configuration) already guards the generic part: random play keeps ``state_violations == []``
(``random_play_fuzz``), a corrupted row is blamed alone and garbage is not a valid state
(``random_play_fuzz``), and ``resample_hidden`` keeps the seat's observation, mask, infos and
``render(viewer=seat)``, passes the laws, leaves its input alone, is deterministic per seed and
plays on (``no_peeking``). Here, per game:

* random play keeps the laws in the options no test configuration sets (``place_on_own_secured=False``,
  ``tile_visibility="every_second"``: the kit's fuzz run on them);
* a deliberately damaged state (one damage per law) is reported with the right field and row;
* ``state_violations`` never raises on garbage -- not even on garbage layouts -- and notices
  garbage in every field a law constrains (the kit only asks for triples or a refusal);
* ``resample_hidden`` redraws what the seat cannot see (each hidden field in most rows: the
  other seats' hands, the draw order, ...) and nothing public, and refuses a bad seat (the base
  hook, which toy games use, does not check the seat).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from monkey_envs.core.game import Game
from monkey_envs.core.state import BatchState
from monkey_envs.core.testing import check_random_play_fuzz, play_random
from monkey_envs.funky_monkey import FunkyMonkey
from monkey_envs.funky_monkey import data as FD
from monkey_envs.funky_monkey.state import BOWL_GOLDEN, PH_ACTIVE, PH_RESPOND
from monkey_envs.games import GAMES as REGISTRY
from monkey_envs.games import make_game
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

#: hidden fields: each must change in most running rows when a seat's view is resampled
#: (Monkey Fun's ``hands`` counted over the other seats only)
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


def played(game: Game, batch: int, steps: int, seed: int) -> BatchState:
    """``batch`` games after ``steps`` random decisions, finished rows restarted with fresh seeds."""
    return play_random(game, np.arange(batch) + seed, steps, seed, restart=seed + batch)


def mixed_states(game: Game, seed: int) -> BatchState:
    """Early, middle and late positions (some finished) in one batch of 48."""
    return game.state_class.concat([played(game, 16, k * 4 * game.num_players, seed + k) for k in range(3)])


# ============================================================================ (a) random play
@pytest.mark.parametrize("key", ["mf-4p-own-off", "fm-7p-every-second-crown"])
def test_random_play_keeps_the_laws_in_options_no_test_config_sets(key):
    """The kit's fuzz (``state_violations == []`` after every step, ...) on the option values
    ``test_configs`` leave out: securing one's own fields off, every second tile face up."""
    check_random_play_fuzz(GAMES[key](), batch=32, steps=200)


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
def test_resample_hidden_redraws_every_hidden_part_and_nothing_public(key):
    """What the seat cannot see is redrawn (each hidden field in most running rows; the RNG in
    every row) and what it can see -- the public parts, its own hand -- is kept. (That its view
    is unchanged, the laws hold and the state plays on: the kit's ``no_peeking``.)"""
    game = GAMES[key]()
    s = mixed_states(game, seed=21)
    B = s.batch_size
    live = ~s.terminated
    assert live.sum() >= B // 2
    for seat in range(game.num_players):
        new = game.resample_hidden(s, seat, seed=100 + seat)
        assert new is not None
        assert (new.rng != s.rng).any(1).all()
        changed = {}
        for f in HIDDEN[type(game)]:
            a, b = getattr(new, f), getattr(s, f)
            if f == "hands":  # the other seats' hands (the seat's own is kept, below)
                a, b = np.delete(a, seat, axis=1), np.delete(b, seat, axis=1)
            changed[f] = (a != b).reshape(B, -1).any(1)
        if isinstance(game, MonkeyFun):  # each hidden part on its own
            for f, rows in changed.items():
                if f == "hands" and game.num_players == 1:
                    continue  # solo: no other hand
                assert rows[live].mean() > 0.5, f"seat {seat}: {f} redrawn in only {rows[live].mean():.0%} of rows"
        else:  # Funky Monkey's rarer parts (an offer, treasures) exist in some rows only
            anyhow = np.logical_or.reduce(list(changed.values()))
            assert anyhow[live].mean() > 0.5, f"seat {seat}: hidden parts changed in only {anyhow[live].mean():.0%}"
        # public parts are untouched
        for f in ("counts", "owner", "supply", "box", "discard", "draw_size") if key.startswith("mf") else (
            "pos", "alive", "coconuts", "golden", "bowls", "tiger", "face_up", "discard", "draw_size", "treasure_size",
            "treasure_used", "phase", "current_player", "announce", "revealed", "stats",
        ):  # fmt: skip
            np.testing.assert_array_equal(getattr(new, f), getattr(s, f), err_msg=f)
        np.testing.assert_array_equal(new.hands[:, seat], s.hands[:, seat])


@pytest.mark.parametrize("key", ["mf-2p-normal", "fm-4p-basic"])
def test_resample_hidden_rejects_a_bad_seat(key):
    game = GAMES[key]()
    s = game.init([0, 1])
    for seat in (-1, game.num_players, True, 1.0):
        with pytest.raises(ValueError):
            game.resample_hidden(s, seat, 0)  # type: ignore[arg-type]


# ============================================================================ (d) the laws plug-in
SHIPPED = [n for n, path in REGISTRY.items() if path.startswith("monkey_envs.")]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_game_resamples_through_the_kit_and_refuses_bad_input(name):
    """Kit rule (``Game.resample_hidden`` over the game's ``laws.redeal_hidden``): every game
    refuses a seat outside ``[0, P)`` with a ``ValueError`` naming it, returns ``None`` for a
    state of another layout, and never modifies the state it resamples. (4 Monkeys' re-deal took
    any seat index into its compiled pass before the kit checked it.)"""
    game = make_game(name)
    s = game.init([3, 4])
    before = s.clone()
    for seat in (-1, game.num_players, True, 1.0):
        with pytest.raises(ValueError, match="seat must be an int"):
            game.resample_hidden(s, seat, 0)  # type: ignore[arg-type]
    other_name = next(n for n in SHIPPED if n != name)
    assert game.resample_hidden(make_game(other_name).init([0]), 0, 0) is None
    new = game.resample_hidden(s, game.num_players - 1, 5)
    assert new is not None and not game.state_violations(new)
    for f, arr in before.arrays().items():
        np.testing.assert_array_equal(s.arrays()[f], arr, err_msg=f)


@pytest.mark.parametrize("name", SHIPPED)
def test_laws_that_cannot_be_read_are_reported_not_raised(name, monkeypatch):
    """Kit rule: ``state_violations`` never raises; a game law that fails on a damaged state is
    one ``("state", -1, "laws unreadable: ...")`` violation, and the shared laws still run first."""
    game = make_game(name)
    s = game.init([0])

    class Broken:
        @staticmethod
        def state_violations(game, state):
            raise IndexError("index 99 is out of bounds")

    monkeypatch.setattr(type(game), "laws", Broken)
    assert game.state_violations(s) == [("state", -1, "laws unreadable: IndexError: index 99 is out of bounds")]
    monkeypatch.setattr(type(game), "laws", None)  # the shared laws alone
    assert game.state_violations(s) == []
    s.current_player[0] = 99
    assert ("current_player", 0) in [(f, r) for f, r, _ in game.state_violations(s)]
